"""DomainFetcher: sole owner of the traffic to one registrable domain.

ARCHITECTURE §2 (actors table), §3 step 6 (fetch), §8 (politeness is global);
seed 003 §3.1.2, §3.5, §4.3 (escalation, circuit breakers, session transfer).

One named actor per domain cluster-wide (``fetch:<domain>``, `get_if_exists`), so
adding workers never multiplies the request rate to a site (§8). The actor owns the
domain's token bucket, circuit breaker, robots.txt policies (per origin), cookies,
ETag / Last-Modified validators and its WARC file; the rules themselves live in
`lyra.pipelines` (net_guard, robots, token_bucket, circuit, challenge, cookies,
backoff). Its state is persisted (see `actors/fetch_state.py`) so that retirement,
crashes and restarts never reset a promise made to the site.

Every request, redirect hops, robots.txt and browser renders included, goes through:
1. the circuit breaker (open: nothing is sent until the cooldown or Retry-After);
2. `net_guard.check_url` (SSRF + allowed hosts), the resolved addresses pinned with
   CURLOPT_RESOLVE and the connected address re-checked (DNS rebinding);
3. robots.txt of the origin (RFC 9309, cached ≤ 24 h) for every hop but robots.txt;
4. the token bucket (the wait is slept, never skipped), with the politeness clock
   written before the request leaves;
5. a curl_cffi GET with browser impersonation, the domain's cookies, a conditional
   GET when a validator is stored, timeouts and a streamed size cap;
6. a WARC request/response exchange for every response received, errors included.

Escalation, never the same path twice (seed 003 §4.3.5): HTTP → Tor (only when a Tor
endpoint is configured and the domain's Tor share stays ≤ `tor.max_usage_ratio`) →
browser headless → browser headful → the caller queues the URL for a person
(``error="challenge:<auth_type>"``). Escalation happens on a 403 or a detected
challenge page; a 429 (or a 503 with Retry-After) is answered by waiting, never by
trying harder. Connection errors are retried on the same path with exponential
backoff (±10 % jitter); timeouts and HTTP statuses are not.

Redirects are followed by hand, up to `fetch.max_redirects`. A hop that leaves the
domain is checked, then handed back (`error="cross_domain_redirect"`,
`redirect_to`) so the other domain's fetcher makes that request under its own
bucket; `FetcherPool.fetch` and `fetch_url` (actors/fetch_pool.py) follow such chains.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import warnings
import zlib
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import formatdate
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import ray
from curl_cffi import CurlOpt
from curl_cffi.requests import AsyncSession
from curl_cffi.requests.exceptions import RequestException, Timeout

from lyra.actors.fetch_state import (
    MAX_PERSISTED_ROBOTS_BYTES,
    STATE_VERSION,
    PolitenessClock,
    Validator,
    ValidatorCache,
    bucket_after,
)
from lyra.actors.runtime import BROWSER, GRAPH, ORCHESTRATOR, setup_actor_logging
from lyra.config.settings import Settings
from lyra.pipelines.backoff import backoff_delay, parse_retry_after
from lyra.pipelines.body import BodyReader
from lyra.pipelines.challenge import Challenge, detect_challenge
from lyra.pipelines.circuit import CircuitBreaker, Transition, is_circuit_failure
from lyra.pipelines.cookies import CookieJar
from lyra.pipelines.domains import DomainRulesWatcher, qps_for, registrable_domain
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
from lyra.storage.warc import WarcStore, read_response

log = logging.getLogger(__name__)

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Codings BodyReader decodes itself (bounded); nothing else is advertised.
ACCEPT_ENCODING = "gzip, deflate, br"
MAX_SESSIONS = 8  # kept-alive sessions per fetcher (hosts of one domain)
STREAM_CLOSE_GRACE_SECONDS = 1.0
GRAPH_LOOKUP_RETRY_SECONDS = 5.0
PERSIST_INTERVAL_SECONDS = 5.0

# Only these are worth showing to a challenge detector (not images, PDFs, JSON APIs).
_MARKUP_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "")
FetchResult = dict[str, Any]
_STATE_LOAD_TIMEOUT = 10.0
# Request headers that carry credentials: archived as "[redacted]", never in clear.
_SECRET_HEADERS = frozenset({"authorization", "x-api-key", "proxy-authorization"})


@dataclass(frozen=True)
class RequestSpec:
    """What a caller asks beyond a plain GET of a page.

    `api`: the URL is a documented programmatic endpoint (an academic API) that Lyra is
    invited to call at the API's own published rate: robots.txt, written for crawlers
    of web resources, is not consulted, and a refused answer is never escalated to Tor
    or the browser (docs/decisions/0012). Politeness still applies in full: the
    domain's bucket, circuit breaker, Retry-After and the WARC record.
    """

    method: str = "GET"
    headers: tuple[tuple[str, str], ...] = ()
    json_body: Any = None
    api: bool = False


_PLAIN_GET = RequestSpec()


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
    request_headers: dict[str, str] = field(default_factory=dict)

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


def _challenge_dict(challenge: Challenge | None) -> dict[str, Any] | None:
    if challenge is None:
        return None
    return {
        "auth_type": challenge.auth_type,
        "vendor": challenge.vendor,
        "needs_human": challenge.needs_human,
        "marker": challenge.marker,
    }


class _Metrics:
    """Per-domain counters and gauges on the Ray dashboard (ray.util.metrics)."""

    def __init__(self, domain: str) -> None:
        from ray.util.metrics import Counter, Gauge

        self.domain = domain
        self.requests = Counter(
            "lyra_fetch_requests",
            description="Requests sent by the fetch layer.",
            tag_keys=("domain", "path", "status_class"),
        )
        self.bytes = Counter(
            "lyra_fetch_bytes", description="Body bytes received.", tag_keys=("domain",)
        )
        self.circuit = Gauge(
            "lyra_fetch_circuit_state",
            description="Circuit state of a domain: 0 closed, 1 half open, 2 open.",
            tag_keys=("domain",),
        )
        self.challenges = Counter(
            "lyra_fetch_challenges",
            description="Challenge, CAPTCHA, login or consent pages detected.",
            tag_keys=("domain", "auth_type"),
        )

    def request(self, path: str, status: int | None, size: int) -> None:
        status_class = f"{status // 100}xx" if status is not None else "error"
        self.requests.inc(
            1, tags={"domain": self.domain, "path": path, "status_class": status_class}
        )
        if size:
            self.bytes.inc(size, tags={"domain": self.domain})

    def circuit_state(self, state: str) -> None:
        value = {"closed": 0.0, "half_open": 1.0, "open": 2.0}[state]
        self.circuit.set(value, tags={"domain": self.domain})

    def challenge(self, auth_type: str) -> None:
        self.challenges.inc(1, tags={"domain": self.domain, "auth_type": auth_type})


@ray.remote(max_restarts=-1, max_task_retries=0)
class DomainFetcher:
    """Fetches the URLs of one registrable domain, politely and one at a time.

    Fault behaviour: ``max_task_retries=0`` because `fetch` is not idempotent for
    politeness accounting (a retried GET is a second request to the site) nor for the
    WARC (a second exchange). ``max_restarts=-1`` is safe with that: a restart only
    follows a call that crashed the process and is never replayed, so there is no
    crash loop without new demand, and the named handle stays valid for every caller.
    State rebuilt on the first call after ``__init__``: circuit, cookies, validators,
    robots.txt policies and the bucket from the `domains` row, the bucket also from
    the politeness clock file (whichever saw the later request wins); a restart with
    neither starts with an empty bucket, so it never grants a fresh burst.
    Idempotent methods: `state`, `robots_policy` (after its first fetch), `cookies`,
    `idle_seconds`, `persist`, `add_cookies`. Not idempotent: `fetch`.
    """

    def __init__(
        self,
        domain: str,
        settings: Settings,
        qps: float | None = None,
        bucket_state: dict[str, Any] | None = None,
        tor: Any = None,
    ) -> None:
        setup_actor_logging()
        self.domain = registrable_domain(domain)
        self.settings = settings
        self.base_qps = float(qps) if qps is not None else settings.fetch.default_qps
        if self.base_qps <= 0:
            raise ValueError(f"qps for {self.domain} must be positive, got {self.base_qps}")
        self._restarted = _was_restarted()
        self._clock = PolitenessClock(settings.home_dir / "politeness", self.domain)
        self._bucket = self._initial_bucket(bucket_state)
        self._robots: dict[str, RobotsPolicy] = {}
        self._robots_raw: dict[str, dict[str, Any]] = {}
        fetch_cfg = settings.fetch
        self._circuit = CircuitBreaker(
            fetch_cfg.circuit_failure_threshold, fetch_cfg.circuit_cooldown_seconds
        )
        self._cookies = CookieJar()
        self._validators = ValidatorCache(max_entries=fetch_cfg.conditional_cache_entries)
        self._tor = tor
        self._tor_usage: Any = None
        self._not_before = 0.0  # wall time before which Retry-After forbids a request
        self._lock = asyncio.Lock()
        self._warc = WarcStore(settings.home_dir / "warc", prefix=self.domain)
        self._requests_made = 0
        self._last_request_at: float | None = None
        self._last_used = time.monotonic()
        self._loaded = False
        self._metrics: _Metrics | None = None
        self._sessions: OrderedDict[tuple[Any, ...], AsyncSession[Any]] = OrderedDict()
        self._graph_handle: Any = None
        self._graph_retry_at = 0.0
        self._persisted_at = float("-inf")
        self._persist_pending = False

    # -- public ----------------------------------------------------------------------

    async def fetch(
        self,
        url: str,
        redirects_left: int | None = None,
        *,
        escalate: bool = True,
        cause_id: str | None = None,
        method: str = "GET",
        headers: dict[str, str] | None = None,
        json_body: Any = None,
        api: bool = False,
    ) -> FetchResult:
        """Fetch `url` under every rule of this module (keys: see `_result`). Not idempotent.

        `method`, `headers` (added to Lyra's own), `json_body` and `api` describe an API
        call (see `RequestSpec`); a plain call is a GET of a page.
        """
        if method not in ("GET", "POST"):
            raise ValueError(f"method must be GET or POST, got {method!r}")
        spec = RequestSpec(method, tuple((headers or {}).items()), json_body, api)
        budget = self.settings.fetch.max_redirects if redirects_left is None else redirects_left
        async with self._lock:
            self._last_used = time.monotonic()
            await self._ensure_loaded()
            try:
                return await self._fetch_escalating(
                    url, budget, escalate and not api, cause_id, spec
                )
            finally:
                self._last_used = time.monotonic()
                self._persist()

    async def robots_policy(self, url: str) -> dict[str, Any]:
        """The robots.txt policy of `url`'s origin (fetched if not cached) as a summary dict."""
        async with self._lock:
            await self._ensure_loaded()
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
            "sitemaps": policy.sitemaps(),
        }

    async def add_cookies(self, cookies: list[dict[str, Any]], reset_circuit: bool = False) -> int:
        """Take cookies set in the browser for this domain (session transfer). Idempotent.

        `reset_circuit`: a person has just cleared the domain's challenge, so the
        breaker opened by it closes (a Retry-After the server sent still holds).
        """
        async with self._lock:
            await self._ensure_loaded()
            mine = [c for c in cookies if _cookie_domain_is(c, self.domain)]
            added = self._cookies.add(mine)
            if reset_circuit and self._circuit.state != "closed":
                self._circuit_event(
                    Transition(self._circuit.state, "closed", "auth resolved", time.time()), None
                )
                self._circuit = CircuitBreaker(
                    self.settings.fetch.circuit_failure_threshold,
                    self.settings.fetch.circuit_cooldown_seconds,
                )
            self._persist(force=True)
            return added

    async def set_base_qps(self, qps: float) -> float:
        """A new configured rate (domains.yaml reloaded); robots.txt may still lower it."""
        if qps <= 0:
            raise ValueError(f"qps for {self.domain} must be positive, got {qps}")
        self.base_qps = float(qps)
        self._apply_robots_rate()
        return self._bucket.rate_per_s

    async def cookies(self) -> list[dict[str, Any]]:
        """The cookies the HTTP client sends to this domain. Idempotent."""
        await self._ensure_loaded()
        return self._cookies.to_state()

    async def idle_seconds(self) -> float:
        """Seconds since the last call finished; 0 while one runs. Idempotent."""
        if self._lock.locked():
            return 0.0
        return time.monotonic() - self._last_used

    async def persist(self) -> dict[str, Any]:
        """Write the state to the `domains` table and wait for it (before retiring). Idempotent."""
        state = self._snapshot()
        for _ in range(2):
            graph = self._graph()
            if graph is None:
                break
            try:
                await graph.save_domain_state.remote(self.domain, state, self._bucket.rate_per_s)
                break
            except ray.exceptions.RayActorError:
                # The orchestrator re-created the graph actor: look it up again.
                self._graph_handle = None
                self._graph_retry_at = 0.0
        return state

    async def state(self) -> dict[str, Any]:
        """Domain, rates, bucket, circuit, counters and robots summary. Idempotent."""
        return {
            "domain": self.domain,
            "base_qps": self.base_qps,
            "qps": self._bucket.rate_per_s,
            "bucket": self._bucket.state(),
            "requests_made": self._requests_made,
            "last_request_at": self._last_request_at,
            "circuit": self._circuit.to_state(),
            "circuit_state": self._circuit.state,
            "not_before": self._not_before,
            "cookies": len(self._cookies),
            "validators": len(self._validators.entries),
            "robots": {
                origin: {"kind": p.kind, "status": p.status, "fetched_at": p.fetched_at}
                for origin, p in self._robots.items()
            },
        }

    # -- persistence -----------------------------------------------------------------

    def _initial_bucket(self, bucket_state: dict[str, Any] | None) -> TokenBucket:
        if bucket_state is not None:
            return TokenBucket.from_state(bucket_state, rate_per_s=self.base_qps)
        last = self._clock.read()
        if last is not None:
            return bucket_after(last, self.base_qps, time.time())
        if self._restarted:
            return TokenBucket(self.base_qps, tokens=0.0)
        return TokenBucket(self.base_qps)

    def _snapshot(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "last_request_at": self._last_request_at or self._clock.read(),
            "bucket": self._bucket.state(),
            "not_before": self._not_before,
            "circuit": self._circuit.to_state(),
            "cookies": self._cookies.to_state(),
            "validators": self._validators.to_state(),
            "robots": self._robots_raw,
            "tor_usage": self._tor_usage.to_state() if self._tor_usage is not None else None,
            "requests_made": self._requests_made,
        }

    async def _ensure_loaded(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        graph = self._graph()
        if graph is None:
            return
        try:
            state = await asyncio.wait_for(
                graph.load_domain_state.remote(self.domain), _STATE_LOAD_TIMEOUT
            )
        except Exception:  # a missing store must not stop fetching; the clock file still holds
            log.warning("could not load the stored state of %s", self.domain, exc_info=True)
            return
        if state:
            self._restore(state)

    def _restore(self, state: dict[str, Any]) -> None:
        fetch_cfg = self.settings.fetch
        now = time.time()
        last = state.get("last_request_at")
        clock = self._clock.read()
        latest = max((t for t in (last, clock) if t is not None), default=None)
        if latest is not None:
            restored = bucket_after(float(latest), self._bucket.rate_per_s, now)
            if restored.tokens() < self._bucket.tokens():
                self._bucket = restored
            self._last_request_at = float(latest)
        self._not_before = max(self._not_before, float(state.get("not_before") or 0.0))
        if state.get("circuit"):
            try:
                self._circuit = CircuitBreaker.from_state(
                    state["circuit"],
                    fetch_cfg.circuit_failure_threshold,
                    fetch_cfg.circuit_cooldown_seconds,
                )
            except (ValueError, TypeError):
                log.warning("dropping a malformed stored circuit for %s", self.domain)
        if state.get("cookies"):
            self._cookies = CookieJar.from_state(state["cookies"])
        if state.get("validators"):
            self._validators = ValidatorCache.from_state(
                state["validators"], fetch_cfg.conditional_cache_entries
            )
        for origin, raw in (state.get("robots") or {}).items():
            policy = RobotsPolicy.from_response(
                raw.get("status"),
                (raw.get("body") or "").encode("utf-8"),
                fetched_at=float(raw.get("fetched_at") or 0.0),
            )
            if policy.is_fresh(fetch_cfg.robots_cache_seconds):
                self._robots[origin] = policy
                self._robots_raw[origin] = raw
        self._apply_robots_rate()
        if state.get("tor_usage") and self._tor is not None:
            self._tor_usage = _tor_usage(self.settings, state["tor_usage"])
        self._requests_made = int(state.get("requests_made") or 0)

    def _graph(self) -> Any:
        """The graph actor (looked up once; a miss is retried after a few seconds).

        `ray.get_actor` is a blocking call to the GCS: not something to do on the
        event loop for every request.
        """
        now = time.monotonic()
        if self._graph_handle is None and now >= self._graph_retry_at:
            self._graph_handle = _named_actor(GRAPH, self.settings)
            if self._graph_handle is None:
                self._graph_retry_at = now + GRAPH_LOOKUP_RETRY_SECONDS
        return self._graph_handle

    def _persist(self, force: bool = False) -> None:
        """Queue a write of the state to the `domains` table (not awaited).

        At most one write per `PERSIST_INTERVAL_SECONDS` unless `force` (circuit
        transitions, Retry-After, new cookies from a person): validators and counters
        may lag by that much after a crash; the politeness clock file never lags.
        """
        now = time.monotonic()
        if not force and now - self._persisted_at < PERSIST_INTERVAL_SECONDS:
            if not self._persist_pending:
                self._persist_pending = True
                # Written when the interval is over, even if no other fetch comes.
                asyncio.get_running_loop().call_later(PERSIST_INTERVAL_SECONDS, self._flush_pending)
            return
        graph = self._graph()
        if graph is None:
            return
        self._persisted_at = now
        self._persist_pending = False
        graph.save_domain_state.remote(self.domain, self._snapshot(), self._bucket.rate_per_s)

    def _flush_pending(self) -> None:
        if self._persist_pending:
            self._persist(force=True)

    def _log_event(self, kind: str, cause_id: str | None, payload: dict[str, Any]) -> str | None:
        graph = self._graph()
        if graph is None:
            return None
        event_id = f"ev-{time.time_ns():x}-{id(payload) & 0xFFFF:x}"
        graph.log_event.remote(
            kind=kind,
            actor=f"fetch:{self.domain}",
            cause_id=cause_id,
            payload={"domain": self.domain, **payload},
            event_id=event_id,
        )
        return event_id

    def _circuit_event(self, transition: Transition | None, cause_id: str | None) -> None:
        if transition is None:
            return
        self._persisted_at = float("-inf")  # the next persist writes at once
        self._metrics_().circuit_state(transition.to_state)
        log.info(
            "circuit %s: %s -> %s (%s)",
            self.domain,
            transition.from_state,
            transition.to_state,
            transition.reason,
        )
        self._log_event(
            "circuit_transition",
            cause_id,
            {
                "from": transition.from_state,
                "to": transition.to_state,
                "reason": transition.reason,
                "at": transition.at,
            },
        )

    def _metrics_(self) -> _Metrics:
        if self._metrics is None:
            self._metrics = _Metrics(self.domain)
        return self._metrics

    # -- escalation ------------------------------------------------------------------

    async def _fetch_escalating(
        self,
        url: str,
        budget: int,
        escalate: bool,
        cause_id: str | None,
        spec: RequestSpec = _PLAIN_GET,
    ) -> FetchResult:
        started = time.monotonic()
        now = time.time()
        allowed, transition = self._circuit.allow(now)
        self._circuit_event(transition, cause_id)
        if not allowed:
            retry_at = self._circuit.retry_at()
            return self._bare_result(
                url,
                started,
                error="circuit_open",
                retry_after=None if retry_at is None else max(0.0, retry_at - now),
            )
        wait = self._not_before - now
        if wait > 0:
            if wait > self.settings.fetch.timeout_seconds:
                return self._bare_result(url, started, error="rate_limited", retry_after=wait)
            await asyncio.sleep(wait)

        attempts: list[dict[str, Any]] = []
        result = await self._fetch_http(url, budget, started, proxy=None, spec=spec)
        self._tor_usage_record(False)
        attempts.append(_attempt("http", result))
        challenge = self._assess(result, cause_id)
        if self._is_rate_limited(result):
            return self._finish(result, attempts, challenge)
        if not _blocked(result, challenge) or not escalate:
            return self._finish(result, attempts, challenge)

        human_only = challenge is not None and challenge.needs_human
        if not human_only and self._tor is not None and self._may_use_tor():
            tor_result = await self._fetch_http(url, budget, started, proxy=self._tor_proxy())
            self._tor_usage_record(True)
            attempts.append(_attempt("tor", tor_result))
            tor_challenge = self._assess(tor_result, cause_id)
            if not _blocked(tor_result, tor_challenge) and tor_result["error"] is None:
                return self._finish(tor_result, attempts, tor_challenge, path="tor")
        fetch_cfg = self.settings.fetch
        modes: list[bool] = []
        if fetch_cfg.escalate_to_browser and not human_only:
            modes.append(False)
        if fetch_cfg.escalate_to_browser and fetch_cfg.escalate_to_headful and not human_only:
            modes.append(True)
        for headful in modes:
            rendered = await self._browser_fetch(url, headful, started)
            if rendered is None:
                attempts.append({"path": "browser", "status": None, "error": "browser_unavailable"})
                break
            path = "browser_headful" if headful else "browser_headless"
            attempts.append(_attempt(path, rendered))
            b_challenge = self._assess(rendered, cause_id)
            if rendered["error"] is None and not _blocked(rendered, b_challenge):
                self._record_outcome(rendered, cause_id)
                return self._finish(rendered, attempts, None, path=path)
            if b_challenge is not None:
                challenge = b_challenge
            if rendered["error"] is not None and rendered["error"].startswith("target_refused"):
                break
        return self._finish(result, attempts, challenge, exhausted=True)

    def _assess(self, result: FetchResult, cause_id: str | None) -> Challenge | None:
        """Detect a challenge page; count the outcome for the circuit breaker."""
        challenge: Challenge | None = None
        if result["status"] is not None and result["content_type"] in _MARKUP_TYPES:
            challenge = detect_challenge(
                result["status"], result["headers"], result["body"], result["final_url"]
            )
        if challenge is not None:
            self._metrics_().challenge(challenge.auth_type)
            result["event_id"] = self._log_event(
                "challenge_detected",
                cause_id,
                {"url": result["final_url"], **(_challenge_dict(challenge) or {})},
            )
        self._record_outcome(result, cause_id, challenge)
        return challenge

    def _record_outcome(
        self, result: FetchResult, cause_id: str | None, challenge: Challenge | None = None
    ) -> None:
        """Count the outcome for the breaker: a challenge page is a refusal whatever its
        status (a CAPTCHA served with 200 blocks us as surely as a 403)."""
        now = time.time()
        retry_after = result.get("retry_after")
        if challenge is not None:
            reason = f"challenge:{challenge.auth_type}"
            self._circuit_event(self._circuit.record_failure(now, reason, retry_after), cause_id)
        elif is_circuit_failure(result["status"], result["error"], retry_after):
            reason = f"status {result['status']}" if result["status"] else str(result["error"])
            self._circuit_event(self._circuit.record_failure(now, reason, retry_after), cause_id)
        elif result["status"] is not None and result["status"] < 500:
            self._circuit_event(self._circuit.record_success(now), cause_id)
        if retry_after is not None and retry_after > 0:
            cap = self.settings.fetch.max_retry_after_seconds
            self._not_before = max(self._not_before, now + min(retry_after, cap))
            self._persisted_at = float("-inf")

    @staticmethod
    def _is_rate_limited(result: FetchResult) -> bool:
        status = result["status"]
        return status == 429 or (status == 503 and result.get("retry_after") is not None)

    def _finish(
        self,
        result: FetchResult,
        attempts: list[dict[str, Any]],
        challenge: Challenge | None,
        *,
        path: str = "http",
        exhausted: bool = False,
    ) -> FetchResult:
        result["attempts"] = attempts
        result["path"] = path
        result["challenge"] = _challenge_dict(challenge)
        result["circuit_state"] = self._circuit.state
        if result["error"] is None:
            if challenge is not None:
                result["error"] = f"challenge:{challenge.auth_type}"
            elif self._is_rate_limited(result):
                result["error"] = "rate_limited"
            elif result["status"] is not None and result["status"] >= 400:
                result["error"] = f"http_error:{result['status']}"
        if exhausted and challenge is None and result["error"] is None:
            result["error"] = f"http_error:{result['status']}"
        return result

    def _may_use_tor(self) -> bool:
        if self._tor_usage is None:
            self._tor_usage = _tor_usage(self.settings, None)
        return bool(self._tor_usage.may_use(self.domain))

    def _tor_usage_record(self, via_tor: bool) -> None:
        if self._tor is None:
            return
        if self._tor_usage is None:
            self._tor_usage = _tor_usage(self.settings, None)
        self._tor_usage.record(self.domain, via_tor)

    def _tor_proxy(self) -> str:
        from lyra.pipelines.tor import socks_proxy_url

        return str(
            socks_proxy_url(self._tor, self.domain, time.time(), self.settings.tor.sticky_seconds)
        )

    async def _browser_fetch(self, url: str, headful: bool, started: float) -> FetchResult | None:
        """Render `url` in the browser under this domain's bucket; None when there is no browser."""
        browser = await _browser_handle(self.settings)
        if browser is None:
            return None
        await self._wait_for_slot()
        self._take_token()
        path = "browser_headful" if headful else "browser_headless"
        try:
            rendered = await browser.render.remote(
                url, headful=headful, cookies=self._cookies.to_state()
            )
        except ray.exceptions.RayError as exc:
            log.warning("browser render of %s failed: %s", url, type(exc).__name__)
            result = self._bare_result(url, started, error=f"browser_failed:{type(exc).__name__}")
            result["path"] = path
            return result
        mine = [c for c in rendered.get("cookies") or [] if _cookie_domain_is(c, self.domain)]
        self._cookies.add(mine)
        html = str(rendered.get("html") or "")
        headers = {str(k).lower(): str(v) for k, v in (rendered.get("headers") or {}).items()}
        body = html.encode("utf-8")
        self._metrics_().request(path, rendered.get("status"), len(body))
        return {
            "url": url,
            "final_url": rendered.get("final_url") or url,
            "domain": self.domain,
            "status": rendered.get("status"),
            "headers": headers,
            "body": body,
            "content_type": "text/html",
            "encoding": "utf-8",
            "truncated": False,
            "warc_path": rendered.get("warc_path"),
            "warc_offset": rendered.get("warc_offset"),
            "screenshot_path": rendered.get("screenshot_path"),
            "fetched_at": rendered.get("fetched_at") or datetime.now(UTC).isoformat(),
            "elapsed_ms": round((time.monotonic() - started) * 1000, 1),
            "redirects": [],
            "redirect_to": None,
            "error": rendered.get("error"),
            "not_modified": False,
            "retry_after": None,
            "path": path,
        }

    # -- the HTTP path ---------------------------------------------------------------

    async def _fetch_http(
        self,
        url: str,
        redirects_left: int,
        started: float,
        proxy: str | None,
        spec: RequestSpec = _PLAIN_GET,
    ) -> FetchResult:
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
            if not spec.api:
                policy = await self._policy_for(current)
                if not policy.allowed(current, ua):
                    return self._result(
                        url, current, None, hops, started, error="robots_disallowed"
                    )
            plain = proxy is None and spec.method == "GET"
            validator = self._validators.get(current) if plain else None
            last = await self._exchange_with_retries(target, validator, proxy, spec=spec)
            if last.error is not None or last.status not in REDIRECT_STATUSES:
                if last.status == 304 and validator is not None:
                    return self._not_modified(url, current, last, hops, started, validator)
                if last.error is None and last.status == 200:
                    self._remember_validator(current, last)
                return self._result(url, current, last, hops, started, error=last.error)
            location = last.header("location")
            if not location or spec.method != "GET":
                # A redirected POST is not replayed: the caller sees the 30x.
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
                    url, current, last, hops, started,
                    error=f"target_refused:{exc.reason}", redirect_to=following,
                )  # fmt: skip
            if registrable_domain(following) != self.domain:
                # Another domain's bucket and robots.txt govern that request.
                return self._result(
                    url, current, last, hops, started,
                    error="cross_domain_redirect", redirect_to=following,
                )  # fmt: skip
            hops.append(current)
            redirects_left -= 1
            current = following

    def _remember_validator(self, url: str, exchange: _Exchange) -> None:
        etag = exchange.header("etag")
        modified = exchange.header("last-modified")
        if exchange.truncated or exchange.warc_path is None or exchange.warc_offset is None:
            return
        if not etag and not modified:
            return
        self._validators.put(
            url,
            Validator(
                etag=etag,
                last_modified=modified,
                warc_path=exchange.warc_path,
                warc_offset=exchange.warc_offset,
                content_type=_content_type(exchange.headers),
                stored_at=time.time(),
            ),
        )

    def _not_modified(
        self,
        url: str,
        final_url: str,
        exchange: _Exchange,
        hops: list[str],
        started: float,
        validator: Validator,
    ) -> FetchResult:
        """A 304: the body is the stored one (read back from its WARC record)."""
        try:
            stored = read_response(Path(validator.warc_path), validator.warc_offset)
        except (OSError, ValueError):
            log.warning("stored body of %s is unreadable; dropping its validator", final_url)
            self._validators.entries.pop(final_url, None)
            return self._result(url, final_url, exchange, hops, started, error="stored_body_lost")
        result = self._result(url, final_url, exchange, hops, started, error=None)
        result.update(
            body=stored.body,
            content_type=validator.content_type,
            not_modified=True,
            stored_warc_path=validator.warc_path,
            stored_warc_offset=validator.warc_offset,
        )
        return result

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
        policy, raw = await self._fetch_robots(robots_url(url))
        self._robots[origin] = policy
        if raw is not None:
            self._robots_raw[origin] = raw
        else:
            self._robots_raw.pop(origin, None)
        self._apply_robots_rate()
        return policy

    async def _fetch_robots(self, url: str) -> tuple[RobotsPolicy, dict[str, Any] | None]:
        current = url
        for _ in range(MAX_ROBOTS_REDIRECTS + 1):
            try:
                target = await self._guard(current)
            except TargetRefused as exc:
                # A robots.txt we may not read is treated as unreachable: disallow.
                log.info(
                    "robots.txt %s refused (%s): disallowing %s", current, exc.reason, self.domain
                )
                return RobotsPolicy.from_response(None, None), None
            exchange = await self._exchange_with_retries(target, None, None, cap=MAX_ROBOTS_BYTES)
            if exchange.error is not None:
                return RobotsPolicy.from_response(None, None), None
            location = exchange.header("location")
            if exchange.status in REDIRECT_STATUSES and location:
                current = urljoin(current, location.strip())
                continue
            now = time.time()
            policy = RobotsPolicy.from_response(exchange.status, exchange.body, fetched_at=now)
            raw: dict[str, Any] | None = None
            if len(exchange.body) <= MAX_PERSISTED_ROBOTS_BYTES:
                raw = {
                    "status": exchange.status,
                    "body": exchange.body.decode("utf-8", "replace"),
                    "fetched_at": now,
                }
            return policy, raw
        # More than five redirects: RFC 9309 §2.3.1.2 allows reading it as unavailable.
        return RobotsPolicy.from_response(404, None), None

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
        self._mark_request()

    def _mark_request(self) -> None:
        """Record on disk, before the request leaves, that one is leaving now."""
        now = time.time()
        self._clock.write(now)
        self._last_request_at = now

    def _take_token(self) -> None:
        self._bucket.reserve()
        self._requests_made += 1
        self._mark_request()

    def _request_headers(
        self, url: str, validator: Validator | None, spec: RequestSpec = _PLAIN_GET
    ) -> dict[str, str]:
        headers: dict[str, str] = dict(spec.headers)
        ua = self.settings.fetch.user_agent
        if ua:
            headers["User-Agent"] = ua
        cookie = self._cookies.header_for(url, time.time())
        if cookie:
            headers["Cookie"] = cookie
        if validator is not None:
            if validator.etag:
                headers["If-None-Match"] = validator.etag
            if validator.last_modified:
                headers["If-Modified-Since"] = validator.last_modified
        return headers

    async def _exchange_with_retries(
        self,
        target: GuardedTarget,
        validator: Validator | None,
        proxy: str | None,
        cap: int | None = None,
        spec: RequestSpec = _PLAIN_GET,
    ) -> _Exchange:
        """One request; a connection error is retried after an exponential backoff (±10 %)."""
        cfg = self.settings.fetch
        attempt = 0
        while True:
            exchange = await self._exchange(target, cap, validator, proxy, spec)
            retryable = exchange.error is not None and exchange.error.startswith("network_error")
            if not retryable or attempt >= cfg.network_retries:
                return exchange
            delay = backoff_delay(attempt, cfg.backoff_base_seconds, cfg.backoff_max_seconds)
            log.info("retrying %s after %s in %.2fs", target.url, exchange.error, delay)
            await asyncio.sleep(delay)
            attempt += 1

    async def _exchange(
        self,
        target: GuardedTarget,
        cap: int | None,
        validator: Validator | None = None,
        proxy: str | None = None,
        spec: RequestSpec = _PLAIN_GET,
    ) -> _Exchange:
        """One request (no redirects) with politeness wait, pinning, caps and a WARC record."""
        fetch_cfg = self.settings.fetch
        await self._wait_for_slot()
        exchange = _Exchange(url=target.url)
        charged = False
        request_headers = self._request_headers(target.url, validator, spec)
        exchange.request_headers = request_headers
        path = "tor" if proxy is not None else "http"
        response: Any = None
        try:
            async with asyncio.timeout(fetch_cfg.timeout_seconds):
                session = self._session(target, proxy)
                response = await session.request(
                    spec.method,  # type: ignore[arg-type]
                    target.url,
                    headers=request_headers or None,
                    json=spec.json_body,
                    allow_redirects=False,
                    accept_encoding=ACCEPT_ENCODING,
                    timeout=(fetch_cfg.connect_timeout_seconds, fetch_cfg.timeout_seconds),
                    stream=True,
                )
                # The token is taken when the answer starts: the server has seen the
                # request by then, so the next one is provably ≥ 1/qps after it on
                # the server's clock (see pipelines/token_bucket.py).
                self._take_token()
                charged = True
                exchange.status = int(response.status_code)
                exchange.headers = list(response.headers.multi_items())
                exchange.ip = str(response.primary_ip) if response.primary_ip else None
                if (
                    proxy is None
                    and exchange.ip is not None
                    and exchange.ip not in target.addresses
                ):
                    exchange.error = "target_refused:address_changed"
                    return exchange
                limit = cap if cap is not None else self._cap_for(exchange.headers)
                try:
                    reader = BodyReader(
                        _header_dict(exchange.headers).get("content-encoding"), limit
                    )
                except ValueError as exc:
                    exchange.error = f"unsupported_encoding:{exc}"
                else:
                    await _read_body(response, reader, exchange)
        except (TimeoutError, Timeout):
            exchange.error = "timeout"
        except RequestException as exc:
            exchange.error = f"network_error:{type(exc).__name__}"
            log.info("fetch %s failed: %s", target.url, exc)
        finally:
            if response is not None:
                await _close_stream(response)
            if not charged:
                self._take_token()
        self._cookies.update_from_response(
            target.url,
            [v for k, v in exchange.headers if k.lower() == "set-cookie"],
            time.time(),
        )
        self._metrics_().request(path, exchange.status, len(exchange.body))
        if exchange.status is not None:
            warc_path, offset = await asyncio.to_thread(
                self._warc.write_exchange,
                target.url,
                _archivable_headers(request_headers),
                exchange.status,
                exchange.headers,
                exchange.body,
                fetched_at=exchange.fetched_at,
                truncated=exchange.truncated,
                method=spec.method,
                ip_address=exchange.ip,
            )
            exchange.warc_path, exchange.warc_offset = str(warc_path), offset
        return exchange

    def _session(self, target: GuardedTarget, proxy: str | None) -> AsyncSession[Any]:
        """A kept-alive session per (host, pinned addresses, proxy): no new TLS handshake
        and no new connection per request, so the site sees fewer of both.

        Cookies are never kept by curl (`discard_cookies`): the domain's own jar
        decides what is sent. Content decoding is off: `BodyReader` decodes, so a
        compression bomb is cut before it expands (libcurl would expand it inside
        one callback, with no chance to stop it at the cap).
        """
        key = (target.host, target.port, tuple(target.addresses), proxy)
        found = self._sessions.get(key)
        if found is not None:
            self._sessions.move_to_end(key)
            return found
        options: dict[CurlOpt, Any] = {CurlOpt.HTTP_CONTENT_DECODING: 0}
        resolve = target.curl_resolve() if proxy is None else []
        if resolve:
            options[CurlOpt.RESOLVE] = resolve
        session: AsyncSession[Any] = AsyncSession(
            impersonate=self.settings.fetch.impersonate,  # type: ignore[arg-type]
            curl_options=options,
            proxy=proxy,
            discard_cookies=True,
        )
        self._sessions[key] = session
        while len(self._sessions) > MAX_SESSIONS:
            _key, old = self._sessions.popitem(last=False)
            asyncio.get_running_loop().create_task(old.close())
        return session

    def _cap_for(self, headers: list[tuple[str, str]]) -> int:
        cfg = self.settings.fetch
        limit = cfg.max_pdf_bytes if _content_type(headers) == "application/pdf" else cfg.max_bytes
        encoded = _header_dict(headers)
        # A compressed body that expands beyond ratio x its wire size is a bomb: cut it.
        if encoded.get("content-encoding") and encoded.get("content-length", "").isdigit():
            wire = int(encoded["content-length"])
            limit = min(limit, max(64 * 1024, int(wire * cfg.max_decompressed_ratio)))
        return int(limit)

    def _bare_result(
        self, url: str, started: float, *, error: str, retry_after: float | None = None
    ) -> FetchResult:
        result = self._result(url, url, None, [], started, error=error)
        result.update(
            retry_after=retry_after,
            attempts=[],
            path="http",
            challenge=None,
            circuit_state=self._circuit.state,
        )
        return result

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
        headers = _header_dict(exchange.headers) if has and exchange else {}
        retry_after = parse_retry_after(headers.get("retry-after"), time.time())
        return {
            "url": url,
            "final_url": final_url,
            "domain": self.domain,
            "status": exchange.status if exchange is not None else None,
            "headers": headers,
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
            "not_modified": False,
            "retry_after": retry_after,
            "sent_headers": exchange.request_headers if exchange is not None else {},
        }


def _attempt(path: str, result: FetchResult) -> dict[str, Any]:
    return {"path": path, "status": result["status"], "error": result["error"]}


def _blocked(result: FetchResult, challenge: Challenge | None) -> bool:
    """A response worth another path: a challenge page or a bare 403."""
    return challenge is not None or result["status"] == 403


def _cookie_domain_is(cookie: dict[str, Any], domain: str) -> bool:
    host = str(cookie.get("domain") or "").lstrip(".").lower()
    if not host:
        return False
    try:
        return registrable_domain(host) == domain
    except ValueError:
        return False


def _tor_usage(settings: Settings, state: dict[str, Any] | None) -> Any:
    from lyra.pipelines.tor import TorUsage

    return TorUsage(settings.tor.max_usage_ratio, state=state)


async def _read_body(response: Any, reader: BodyReader, exchange: _Exchange) -> None:
    """Read and decode a streamed body up to the reader's cap (then stop the transfer)."""
    parts: list[bytes] = []
    try:
        async for chunk in response.aiter_content():
            parts.append(reader.feed(chunk))
            if reader.full:
                break
        parts.append(reader.flush())
    except zlib.error as exc:
        exchange.error = f"decode_error:{exc}"
    finally:
        exchange.body = b"".join(parts)
        exchange.truncated = reader.full


async def _close_stream(response: Any) -> None:
    """End a streamed transfer now: curl_cffi's own close waits for the whole body.

    `quit_now` makes the next write callback abort the transfer; a server that sends
    nothing more (slowloris) never calls it, so the transfer task is cancelled after
    a short grace period.
    """
    task = getattr(response, "astream_task", None)
    if task is None or task.done():
        return
    quit_now = getattr(response, "quit_now", None)
    if quit_now is not None:
        quit_now.set()
    try:
        await asyncio.wait_for(asyncio.shield(task), STREAM_CLOSE_GRACE_SECONDS)
    except TimeoutError:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, RequestException):
            await task
    except RequestException:
        pass  # the abort we asked for


def _was_restarted() -> bool:
    with warnings.catch_warnings():
        # Ray 2.60 implements this property with its own deprecated `actor_id`.
        warnings.simplefilter("ignore", DeprecationWarning)
        return bool(ray.get_runtime_context().was_current_actor_reconstructed)


def _named_actor(name: str, settings: Settings) -> Any:
    try:
        return ray.get_actor(name, namespace=settings.ray.namespace)
    except ValueError:
        return None


async def _name_released(name: str, settings: Settings, timeout: float = 5.0) -> None:
    """Wait until a killed named actor's name is free, so the next lookup makes a new one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _named_actor(name, settings) is None:
            return
        await asyncio.sleep(0.05)
    log.warning("the name %s is still taken after %.0fs", name, timeout)


async def _browser_handle(settings: Settings) -> Any:
    """The browser actor, asked of the orchestrator (which owns it); None when there is none."""
    orchestrator = _named_actor(ORCHESTRATOR, settings)
    if orchestrator is not None:
        try:
            return await orchestrator.browser_handle.remote()
        except ray.exceptions.RayError:
            log.warning("the orchestrator could not hand out the browser", exc_info=True)
            return None
    return _named_actor(BROWSER, settings)


_WATCHER: DomainRulesWatcher | None = None


def _domain_rules() -> dict[str, Any]:
    global _WATCHER
    if _WATCHER is None:
        _WATCHER = DomainRulesWatcher()
    return _WATCHER.current()


def get_fetcher(
    domain: str,
    settings: Settings,
    qps: float | None = None,
    tor: Any = None,
    rules: dict[str, Any] | None = None,
) -> Any:
    """The cluster-wide `DomainFetcher` of `domain`'s registrable domain, created on first use.

    The actor is not detached (``lifetime=None``): it lives while some handle to it
    does. `FetcherPool` keeps the handles of live fetchers (at most
    ``fetch.max_live_actors``) and retires idle ones after persisting their state.
    """
    registrable = registrable_domain(domain)
    rate = (
        qps
        if qps is not None
        else qps_for(
            registrable, rules if rules is not None else _domain_rules(), settings.fetch.default_qps
        )
    )
    return DomainFetcher.options(  # type: ignore[attr-defined]
        name=f"fetch:{registrable}",
        namespace=settings.ray.namespace,
        get_if_exists=True,
        lifetime=None,
    ).remote(registrable, settings, rate, None, tor)


def http_date(when: float) -> str:
    """An IMF-fixdate (RFC 9110) for `when`, as `Last-Modified` servers send it."""
    return formatdate(when, usegmt=True)


def _archivable_headers(headers: dict[str, str]) -> dict[str, str]:
    """Request headers as the WARC keeps them: API keys and credentials redacted."""
    return {k: ("[redacted]" if k.lower() in _SECRET_HEADERS else v) for k, v in headers.items()}
