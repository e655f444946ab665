"""Politeness and session state of one domain, kept across fetcher retirement and crashes.

ARCHITECTURE §2: a `DomainFetcher` holds its domain's token bucket, circuit breaker,
robots.txt cache, cookies and ETag cache, and that state "persists in the `domains`
table" so that retiring an idle fetcher, a crash or a restart never resets what the
site has been promised. This module is the (pure) state object and its two stores:

- the `domains.state` JSON column (through the graph actor), written after every
  fetch without waiting, read when a fetcher starts;
- a tiny per-domain *politeness clock* file under ``LYRA_HOME/politeness/``,
  written synchronously *before* every request leaves. The graph write is
  asynchronous and could lag behind a fetcher that is killed right after a
  request; the clock file cannot, so a new fetcher never sends its first request
  sooner than 1/qps after the last one any earlier fetcher sent.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lyra.pipelines.net.token_bucket import TokenBucket

log = logging.getLogger(__name__)

STATE_VERSION = 1
# robots.txt bodies larger than this are not persisted (re-fetched after a restart).
MAX_PERSISTED_ROBOTS_BYTES = 128 * 1024


@dataclass
class Validator:
    """What a conditional GET of one URL needs, and where the stored body is."""

    etag: str | None
    last_modified: str | None
    warc_path: str
    warc_offset: int
    content_type: str
    stored_at: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "etag": self.etag,
            "last_modified": self.last_modified,
            "warc_path": self.warc_path,
            "warc_offset": self.warc_offset,
            "content_type": self.content_type,
            "stored_at": self.stored_at,
        }


@dataclass
class ValidatorCache:
    """ETag / Last-Modified per URL, least recently used first out."""

    max_entries: int = 2000
    entries: OrderedDict[str, Validator] = field(default_factory=OrderedDict)

    def get(self, url: str) -> Validator | None:
        found = self.entries.get(url)
        if found is not None:
            self.entries.move_to_end(url)
        return found

    def put(self, url: str, validator: Validator) -> None:
        self.entries[url] = validator
        self.entries.move_to_end(url)
        while len(self.entries) > self.max_entries:
            self.entries.popitem(last=False)

    def to_state(self) -> dict[str, dict[str, Any]]:
        return {url: v.as_dict() for url, v in self.entries.items()}

    @classmethod
    def from_state(cls, state: dict[str, Any], max_entries: int) -> ValidatorCache:
        cache = cls(max_entries=max_entries)
        for url, raw in state.items():
            try:
                cache.put(
                    url,
                    Validator(
                        etag=raw.get("etag"),
                        last_modified=raw.get("last_modified"),
                        warc_path=str(raw["warc_path"]),
                        warc_offset=int(raw["warc_offset"]),
                        content_type=str(raw.get("content_type") or ""),
                        stored_at=float(raw.get("stored_at") or 0.0),
                    ),
                )
            except (KeyError, TypeError, ValueError):
                log.warning("dropping a malformed stored validator for %s", url)
        return cache


class PolitenessClock:
    """Wall time of the last request to a domain, in a file written before each request."""

    def __init__(self, root: Path, domain: str) -> None:
        safe = "".join(c if c.isalnum() or c in ".-_" else "_" for c in domain)
        self.path = root / f"{safe}.json"

    def read(self) -> float | None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return float(data["last_request_at"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            log.warning(
                "unreadable politeness clock %s; treating the domain as just contacted", self.path
            )
            return time.time()

    def write(self, when: float) -> None:
        """Atomically record `when` (survives the death of this process)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"last_request_at": when}), encoding="utf-8")
        os.replace(tmp, self.path)


def bucket_after(last_request_at: float | None, rate_per_s: float, now: float) -> TokenBucket:
    """A bucket that lets the next request go no sooner than 1/rate after `last_request_at`."""
    if last_request_at is None:
        return TokenBucket(rate_per_s)
    elapsed = max(0.0, now - last_request_at)
    return TokenBucket(rate_per_s, tokens=min(1.0, elapsed * rate_per_s))
