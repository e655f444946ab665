"""DomainFetcher: sole owner of the HTTP traffic to one registrable domain.

ARCHITECTURE §2 (actors table), §3 step 6 (fetch), §8 (politeness is global).

One named actor per domain cluster-wide (``fetch:<domain>``, `get_if_exists`), so
adding workers never multiplies the request rate to a site (§8). The actor owns the
domain's token bucket, its robots.txt policies (per origin) and its WARC file; the
rules themselves live in `lyra.pipelines` (net_guard, robots, token_bucket).

Every request, redirect hops and robots.txt included, goes through:
1. `net_guard.check_url` (SSRF + allowed hosts), the resolved addresses pinned with
   CURLOPT_RESOLVE and the connected address re-checked (DNS rebinding);
2. robots.txt of the origin (RFC 9309, cached ≤ 24 h) for every hop but robots.txt;
3. the token bucket (the wait is slept, never skipped);
4. a curl_cffi GET with browser impersonation, timeouts and a streamed size cap;
5. a WARC request/response exchange for every response received, errors included.

Redirects are followed by hand, up to `fetch.max_redirects`. A hop that leaves the
domain is checked, then handed back (`error="cross_domain_redirect"`,
`redirect_to`) so the other domain's fetcher makes that request under its own
bucket; `fetch_url` below follows such chains for callers.
"""

from __future__ import annotations

import asyncio
import logging
import time
import warnings
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin

import ray
from curl_cffi import CurlOpt
from curl_cffi.requests import AsyncSession
from curl_cffi.requests.exceptions import RequestException, Timeout

from lyra.config.settings import Settings
from lyra.pipelines.domains import load_domain_rules, qps_for, registrable_domain
from lyra.pipelines.net_guard import GuardedTarget, TargetRefused, check_url
from lyra.pipelines.robots import (
    MAX_ROBOTS_BYTES,
    MAX_ROBOTS_REDIRECTS,
    RobotsPolicy,
    effective_qps,
    origin_of,
    robots_url,
)
from lyra.pipelines.token_bucket import TokenBucket
from lyra.storage.warc import WarcStore

log = logging.getLogger(__name__)

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
FetchResult = dict[str, Any]


@dataclass
class _Exchange:
    """The outcome of one HTTP request (one hop)."""

    url: str
    status: int | None = None
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    truncated: bool = False
    error: str | None = None
    fetched_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    ip: str | None = None
    warc_path: str | None = None
    warc_offset: int | None = None

    def header(self, name: str) -> str | None:
        lower = name.lower()
        for key, value in self.headers:
            if key.lower() == lower:
                return value
        return None


def _content_type(headers: list[tuple[str, str]]) -> str:
    for key, value in headers:
        if key.lower() == "content-type":
            return value.split(";", 1)[0].strip().lower()
    return ""


def _header_dict(headers: list[tuple[str, str]]) -> dict[str, str]:
    merged: dict[str, str] = {}
    for key, value in headers:
        lower = key.lower()
        merged[lower] = f"{merged[lower]}, {value}" if lower in merged else value
    return merged


@ray.remote(max_restarts=-1, max_task_retries=0)
class DomainFetcher:
    """Fetches the URLs of one registrable domain, politely and one at a time.

    Fault behaviour: ``max_task_retries=0`` because `fetch` is not idempotent for
    politeness accounting (a retried GET is a second request to the site) nor for the
    WARC (a second exchange). ``max_restarts=-1`` is safe with that: a restart only
    follows a call that crashed the process and is never replayed, so there is no
    crash loop without new demand, and the named handle stays valid for every caller.
    State rebuilt in ``__init__``: the token bucket (from `bucket_state` when the
    orchestrator passes the persisted one; empty after a restart, so a restart never
    grants a fresh burst); robots.txt policies are re-fetched on demand.
    Idempotent methods: `state`, `robots_policy` (after its first fetch). Not
    idempotent: `fetch`.
    """

    def __init__(
        self,
        domain: str,
        settings: Settings,
        qps: float | None = None,
        bucket_state: dict[str, Any] | None = None,
    ) -> None:
        self.domain = registrable_domain(domain)
        self.settings = settings
        self.base_qps = float(qps) if qps is not None else settings.fetch.default_qps
        if self.base_qps <= 0:
            raise ValueError(f"qps for {self.domain} must be positive, got {self.base_qps}")
        if bucket_state is not None:
            self._bucket = TokenBucket.from_state(bucket_state, rate_per_s=self.base_qps)
        elif _was_restarted():
            self._bucket = TokenBucket(self.base_qps, tokens=0.0)
        else:
            self._bucket = TokenBucket(self.base_qps)
        self._robots: dict[str, RobotsPolicy] = {}
        self._lock = asyncio.Lock()
        self._warc = WarcStore(settings.home_dir / "warc", prefix=self.domain)
        self._requests_made = 0
        self._last_request_at: float | None = None

    async def fetch(self, url: str, redirects_left: int | None = None) -> FetchResult:
        """GET `url` under every rule of this module (keys: see `_result`). Not idempotent."""
        budget = self.settings.fetch.max_redirects if redirects_left is None else redirects_left
        async with self._lock:
            return await self._fetch(url, budget)

    async def robots_policy(self, url: str) -> dict[str, Any]:
        """The robots.txt policy of `url`'s origin (fetched if not cached) as a summary dict."""
        async with self._lock:
            policy = await self._policy_for(url)
        ua = self.settings.fetch.robots_user_agent
        return {
            "origin": origin_of(url),
            "kind": policy.kind,
            "status": policy.status,
            "reason": policy.reason,
            "fetched_at": policy.fetched_at,
            "crawl_delay": policy.crawl_delay(ua),
            "request_rate": policy.request_rate(ua),
            "allowed": policy.allowed(url, ua),
        }

    async def state(self) -> dict[str, Any]:
        """Domain, rates, bucket snapshot (to persist in `domains`), counters. Idempotent."""
        return {
            "domain": self.domain,
            "base_qps": self.base_qps,
            "qps": self._bucket.rate_per_s,
            "bucket": self._bucket.state(),
            "requests_made": self._requests_made,
            "last_request_at": self._last_request_at,
            "robots": {
                origin: {"kind": p.kind, "status": p.status, "fetched_at": p.fetched_at}
                for origin, p in self._robots.items()
            },
        }

    # -- internals -----------------------------------------------------------------

    async def _fetch(self, url: str, redirects_left: int) -> FetchResult:
        started = time.monotonic()
        hops: list[str] = []
        current = url
        last: _Exchange | None = None
        ua = self.settings.fetch.robots_user_agent
        while True:
            try:
                target = await self._guard(current)
            except TargetRefused as exc:
                return self._result(
                    url, current, last, hops, started, error=f"target_refused:{exc.reason}"
                )
            if registrable_domain(current) != self.domain:
                return self._result(
                    url, current, None, hops, started, error="wrong_domain", redirect_to=current
                )
            policy = await self._policy_for(current)
            if not policy.allowed(current, ua):
                return self._result(url, current, None, hops, started, error="robots_disallowed")
            last = await self._exchange(target, cap=None)
            if last.error is not None or last.status not in REDIRECT_STATUSES:
                return self._result(url, current, last, hops, started, error=last.error)
            location = last.header("location")
            if not location:
                return self._result(url, current, last, hops, started, error=None)
            if redirects_left <= 0:
                return self._result(url, current, last, hops, started, error="too_many_redirects")
            following = urljoin(current, location.strip())
            try:
                # Checked here, not only by whoever follows it: a refused hop is
                # reported by the fetcher that saw the redirect.
                await self._guard(following)
            except TargetRefused as exc:
                return self._result(
                    url,
                    current,
                    last,
                    hops,
                    started,
                    error=f"target_refused:{exc.reason}",
                    redirect_to=following,
                )
            if registrable_domain(following) != self.domain:
                # Another domain's bucket and robots.txt govern that request.
                return self._result(
                    url,
                    current,
                    last,
                    hops,
                    started,
                    error="cross_domain_redirect",
                    redirect_to=following,
                )
            hops.append(current)
            redirects_left -= 1
            current = following

    async def _guard(self, url: str) -> GuardedTarget:
        network = self.settings.network
        # getaddrinfo blocks; off the event loop so `state` calls still answer.
        return await asyncio.to_thread(
            check_url,
            url,
            allow_private=network.allow_private_targets,
            allowed_hosts=list(network.allowed_hosts),
        )

    async def _policy_for(self, url: str) -> RobotsPolicy:
        origin = origin_of(url)
        cached = self._robots.get(origin)
        if cached is not None and cached.is_fresh(self.settings.fetch.robots_cache_seconds):
            return cached
        policy = await self._fetch_robots(robots_url(url))
        self._robots[origin] = policy
        self._apply_robots_rate()
        return policy

    async def _fetch_robots(self, url: str) -> RobotsPolicy:
        current = url
        for _ in range(MAX_ROBOTS_REDIRECTS + 1):
            try:
                target = await self._guard(current)
            except TargetRefused as exc:
                # A robots.txt we may not read is treated as unreachable: disallow.
                log.info(
                    "robots.txt %s refused (%s): disallowing %s", current, exc.reason, self.domain
                )
                return RobotsPolicy.from_response(None, None)
            exchange = await self._exchange(target, cap=MAX_ROBOTS_BYTES)
            if exchange.error is not None:
                return RobotsPolicy.from_response(None, None)
            location = exchange.header("location")
            if exchange.status in REDIRECT_STATUSES and location:
                current = urljoin(current, location.strip())
                continue
            return RobotsPolicy.from_response(exchange.status, exchange.body)
        # More than five redirects: RFC 9309 §2.3.1.2 allows reading it as unavailable.
        return RobotsPolicy.from_response(404, None)

    def _apply_robots_rate(self) -> None:
        ua = self.settings.fetch.robots_user_agent
        rate = self.base_qps
        for policy in self._robots.values():
            rate = min(rate, effective_qps(self.base_qps, policy, ua))
        if rate != self._bucket.rate_per_s:
            self._bucket.set_rate(rate)

    async def _wait_for_slot(self) -> None:
        wait = self._bucket.wait_time()
        while wait > 0:
            await asyncio.sleep(wait)
            wait = self._bucket.wait_time()

    def _request_headers(self) -> dict[str, str]:
        ua = self.settings.fetch.user_agent
        return {"User-Agent": ua} if ua else {}

    async def _exchange(self, target: GuardedTarget, cap: int | None) -> _Exchange:
        """One GET (no redirects) with politeness wait, pinning, caps and a WARC record."""
        fetch_cfg = self.settings.fetch
        await self._wait_for_slot()
        exchange = _Exchange(url=target.url)
        charged = False
        resolve = target.curl_resolve()
        options: dict[CurlOpt, Any] | None = {CurlOpt.RESOLVE: resolve} if resolve else None
        request_headers = self._request_headers()
        try:
            async with (
                asyncio.timeout(fetch_cfg.timeout_seconds),
                AsyncSession(impersonate=fetch_cfg.impersonate, curl_options=options) as session,
                session.stream(
                    "GET",
                    target.url,
                    headers=request_headers or None,
                    allow_redirects=False,
                    timeout=(fetch_cfg.connect_timeout_seconds, fetch_cfg.timeout_seconds),
                ) as response,
            ):
                # The token is taken when the answer starts: the server has seen the
                # request by then, so the next one is provably ≥ 1/qps after it on
                # the server's clock (see pipelines/token_bucket.py).
                self._bucket.reserve()
                charged = True
                exchange.status = int(response.status_code)
                exchange.headers = list(response.headers.multi_items())
                exchange.ip = str(response.primary_ip) if response.primary_ip else None
                if exchange.ip is not None and exchange.ip not in target.addresses:
                    exchange.error = "target_refused:address_changed"
                    return exchange
                limit = cap if cap is not None else self._cap_for(exchange.headers)
                exchange.body, exchange.truncated = await _read_capped(response, limit)
        except (TimeoutError, Timeout):
            exchange.error = "timeout"
        except RequestException as exc:
            exchange.error = f"network_error:{type(exc).__name__}"
            log.info("fetch %s failed: %s", target.url, exc)
        finally:
            if not charged:
                self._bucket.reserve()
            self._requests_made += 1
            self._last_request_at = time.time()
        if exchange.status is not None:
            path, offset = await asyncio.to_thread(
                self._warc.write_exchange,
                target.url,
                request_headers,
                exchange.status,
                exchange.headers,
                exchange.body,
                fetched_at=exchange.fetched_at,
                truncated=exchange.truncated,
                ip_address=exchange.ip,
            )
            exchange.warc_path, exchange.warc_offset = str(path), offset
        return exchange

    def _cap_for(self, headers: list[tuple[str, str]]) -> int:
        if _content_type(headers) == "application/pdf":
            return int(self.settings.fetch.max_pdf_bytes)
        return int(self.settings.fetch.max_bytes)

    def _result(
        self,
        url: str,
        final_url: str,
        exchange: _Exchange | None,
        hops: list[str],
        started: float,
        *,
        error: str | None,
        redirect_to: str | None = None,
    ) -> FetchResult:
        """The FetchResult dict every caller gets (also on refusal: status None, empty body)."""
        has = exchange is not None and exchange.status is not None
        return {
            "url": url,
            "final_url": final_url,
            "domain": self.domain,
            "status": exchange.status if exchange is not None else None,
            "headers": _header_dict(exchange.headers) if has and exchange else {},
            "body": exchange.body if has and exchange else b"",
            "content_type": _content_type(exchange.headers) if has and exchange else "",
            "truncated": bool(exchange.truncated) if exchange is not None else False,
            "warc_path": exchange.warc_path if exchange is not None else None,
            "warc_offset": exchange.warc_offset if exchange is not None else None,
            "fetched_at": (
                exchange.fetched_at if exchange is not None else datetime.now(UTC)
            ).isoformat(),
            "elapsed_ms": round((time.monotonic() - started) * 1000, 1),
            "redirects": hops,
            "redirect_to": redirect_to,
            "error": error,
        }


async def _read_capped(response: Any, limit: int) -> tuple[bytes, bool]:
    """Read a streamed body up to `limit` decoded bytes; stop the transfer beyond it."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_content():
        if size + len(chunk) > limit:
            chunks.append(chunk[: limit - size])
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False


def _was_restarted() -> bool:
    with warnings.catch_warnings():
        # Ray 2.60 implements this property with its own deprecated `actor_id`.
        warnings.simplefilter("ignore", DeprecationWarning)
        return bool(ray.get_runtime_context().was_current_actor_reconstructed)


_DOMAIN_RULES: dict[str, Any] | None = None


def _domain_rules() -> dict[str, Any]:
    global _DOMAIN_RULES
    if _DOMAIN_RULES is None:
        _DOMAIN_RULES = load_domain_rules()
    return _DOMAIN_RULES


def get_fetcher(domain: str, settings: Settings, qps: float | None = None) -> Any:
    """The cluster-wide `DomainFetcher` of `domain`'s registrable domain, created on first use.

    The actor is not detached (``lifetime=None``): it lives while some handle to it
    does. The Orchestrator keeps the handles of live fetchers (at most
    ``fetch.max_live_actors``); dropping the last handle retires the actor, and the
    next call starts a fresh one (pass the persisted bucket via `DomainFetcher`'s
    ``bucket_state`` to keep politeness across that).
    """
    registrable = registrable_domain(domain)
    rate = (
        qps
        if qps is not None
        else qps_for(registrable, _domain_rules(), settings.fetch.default_qps)
    )
    return DomainFetcher.options(  # type: ignore[attr-defined]
        name=f"fetch:{registrable}",
        namespace=settings.ray.namespace,
        get_if_exists=True,
        lifetime=None,
    ).remote(registrable, settings, rate)


async def fetch_url(
    url: str,
    settings: Settings,
    max_redirects: int | None = None,
    fetchers: MutableMapping[str, Any] | None = None,
) -> FetchResult:
    """Fetch `url` through the right fetchers, following redirects across domains (async callers).

    `fetchers` maps registrable domain -> handle; handles created here are added to it,
    so a caller that keeps the mapping keeps those actors (and their buckets) alive.
    """
    registry: MutableMapping[str, Any] = {} if fetchers is None else fetchers
    remaining = settings.fetch.max_redirects if max_redirects is None else max_redirects
    chain: list[str] = []
    current = url
    while True:
        domain = registrable_domain(current)
        if domain not in registry:
            registry[domain] = get_fetcher(domain, settings)
        result: FetchResult = await registry[domain].fetch.remote(current, remaining)
        chain.extend(result["redirects"])
        remaining -= len(result["redirects"])
        if result["error"] != "cross_domain_redirect" or result["redirect_to"] is None:
            result["url"] = url
            result["redirects"] = chain
            return result
        if remaining <= 0:
            result.update(url=url, redirects=chain, error="too_many_redirects")
            return result
        chain.append(result["final_url"])
        remaining -= 1
        current = result["redirect_to"]
