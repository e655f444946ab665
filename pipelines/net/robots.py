"""robots.txt policy per origin (RFC 9309), over protego's parser.

ARCHITECTURE §3 step 6: cache at most 24 h, 4xx = allow all, 5xx / unreachable =
disallow all. The status mapping lives here so it is testable without a network;
the `DomainFetcher` only fetches the file and hands over status and body.

Decisions beyond the RFC text:
- 429 is read as "unreachable" (disallow), like Google's crawler: a server that
  says "too many requests" is not granting access to everything.
- An unreachable policy is cached for at most `UNREACHABLE_RETRY_SECONDS`, so one
  transient 503 does not close a domain for a whole day.
- Only the first `MAX_ROBOTS_BYTES` (500 KiB, RFC 9309 §2.5) are parsed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from protego import Protego

MAX_ROBOTS_BYTES = 500 * 1024
UNREACHABLE_RETRY_SECONDS = 300.0
MAX_ROBOTS_REDIRECTS = 5

PolicyKind = Literal["parsed", "allow_all", "disallow_all"]


def robots_url(url: str) -> str:
    """The robots.txt URL of the origin (scheme, host, port) a URL belongs to."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), "/robots.txt", "", ""))


def origin_of(url: str) -> str:
    """The origin key (scheme://host[:port]) robots.txt policies are cached under."""
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


@dataclass
class RobotsPolicy:
    """What one origin's robots.txt allows, and when it was learned."""

    kind: PolicyKind
    fetched_at: float = field(default_factory=time.time)
    status: int | None = None
    reason: str = ""
    _parser: Protego | None = field(default=None, repr=False)

    @classmethod
    def parse(
        cls, content: str | bytes, *, fetched_at: float | None = None, status: int | None = 200
    ) -> RobotsPolicy:
        """A policy from robots.txt text (UTF-8; input beyond 500 KiB is ignored)."""
        raw = content if isinstance(content, bytes) else content.encode("utf-8", "replace")
        text = raw[:MAX_ROBOTS_BYTES].decode("utf-8", "replace").lstrip("\ufeff")
        return cls(
            kind="parsed",
            fetched_at=time.time() if fetched_at is None else fetched_at,
            status=status,
            reason="parsed",
            _parser=Protego.parse(text),
        )

    @classmethod
    def from_response(
        cls, status: int | None, body: bytes | None, *, fetched_at: float | None = None
    ) -> RobotsPolicy:
        """The RFC 9309 policy for a robots.txt fetch outcome (status None = unreachable)."""
        when = time.time() if fetched_at is None else fetched_at
        if status is None:
            return cls(kind="disallow_all", fetched_at=when, status=None, reason="unreachable")
        if 200 <= status < 300:
            return cls.parse(body or b"", fetched_at=when, status=status)
        if status == 429 or status >= 500:
            return cls(kind="disallow_all", fetched_at=when, status=status, reason="server_error")
        if 400 <= status < 500:
            return cls(kind="allow_all", fetched_at=when, status=status, reason="unavailable")
        # 3xx left over after the redirect limit (RFC 9309 §2.3.1.2: MAY be read as
        # unavailable) and 1xx: treated as unavailable.
        return cls(kind="allow_all", fetched_at=when, status=status, reason="unavailable")

    @classmethod
    def allow_all(
        cls, *, fetched_at: float | None = None, reason: str = "allow_all"
    ) -> RobotsPolicy:
        """A policy allowing every path."""
        return cls(
            kind="allow_all",
            fetched_at=time.time() if fetched_at is None else fetched_at,
            reason=reason,
        )

    def allowed(self, url: str, user_agent: str) -> bool:
        """Whether `user_agent` may fetch `url`; robots.txt itself is always allowed."""
        if urlsplit(url).path == "/robots.txt":
            return True
        if self.kind == "allow_all":
            return True
        if self.kind == "disallow_all" or self._parser is None:
            return False
        return bool(self._parser.can_fetch(url, user_agent))

    def crawl_delay(self, user_agent: str) -> float | None:
        """The Crawl-delay in seconds for `user_agent`, if the file sets one."""
        if self._parser is None:
            return None
        value = self._parser.crawl_delay(user_agent)
        return float(value) if value is not None and float(value) > 0 else None

    def request_rate(self, user_agent: str) -> float | None:
        """The Request-rate for `user_agent` as requests per second, if the file sets one."""
        if self._parser is None:
            return None
        rate = self._parser.request_rate(user_agent)
        if rate is None or rate.requests <= 0 or rate.seconds <= 0:
            return None
        return float(rate.requests) / float(rate.seconds)

    def sitemaps(self) -> list[str]:
        """Sitemap URLs the file lists, in file order, without repeats.

        Only absolute http(s) URLs count (sitemaps.org: "the complete URL"); real
        files repeat lines (bbc.co.uk lists /sitemap.xml three times). Empty for
        allow_all / disallow_all policies, which have no file behind them.
        """
        if self._parser is None:
            return []
        seen: dict[str, None] = {}
        for raw in self._parser.sitemaps:
            url = str(raw).strip()
            if urlsplit(url).scheme.lower() in ("http", "https") and urlsplit(url).netloc:
                seen.setdefault(url, None)
        return list(seen)

    def max_age(self, cache_seconds: float) -> float:
        """Reuse lifetime: `cache_seconds` (≤ 24 h), shorter when unreachable."""
        capped = min(float(cache_seconds), 86400.0)
        if self.kind == "disallow_all":
            return min(capped, UNREACHABLE_RETRY_SECONDS)
        return capped

    def is_fresh(self, cache_seconds: float, now: float | None = None) -> bool:
        """Whether the policy is still within its cache lifetime at wall time `now`."""
        current = time.time() if now is None else now
        return 0 <= current - self.fetched_at < self.max_age(cache_seconds)


def effective_qps(default_qps: float, policy: RobotsPolicy | None, user_agent: str = "*") -> float:
    """`default_qps`, lowered (never raised) by Crawl-delay / Request-rate."""
    if default_qps <= 0:
        raise ValueError(f"default_qps must be positive, got {default_qps}")
    if policy is None:
        return default_qps
    rate = default_qps
    delay = policy.crawl_delay(user_agent)
    if delay is not None:
        rate = min(rate, 1.0 / delay)
    requested = policy.request_rate(user_agent)
    if requested is not None:
        rate = min(rate, requested)
    return rate
