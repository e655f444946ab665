"""The work of a DomainFetcher: politeness, escalation and persistence of one domain.

ARCHITECTURE §3 step 6 (fetch), §8 (politeness is global); seed 003 §3.1.2, §3.5, §4.3
(escalation, circuit breakers, session transfer). The actor that owns a domain
(`actors/fetch.py`, which also says what every request goes through) holds one
`SiteFetcher` and serialises calls to it; the HTTP path itself is the `HttpPath`
mixin (jobs/fetch_http.py), the rules are in `lyra.pipelines.net`, and the state that
outlives the actor in jobs/fetch_state.py and the `domains` table.

Escalation, never the same path twice (seed 003 §4.3.5): HTTP → Tor (only when a Tor
endpoint is configured and the domain's Tor share stays ≤ `tor.max_usage_ratio`) →
browser headless → browser headful → the caller queues the URL for a person
(``error="challenge:<auth_type>"``). Escalation happens on a 403 or a detected
challenge page; a 429 (or a 503 with Retry-After) is answered by waiting, never by
trying harder.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import ray
from curl_cffi.requests import AsyncSession

from lyra.config.settings import Settings
from lyra.jobs.fetch_http import (
    _PLAIN_GET,
    FetchResult,
    HttpPath,
    RequestSpec,
    _content_type,
    _Exchange,
    _header_dict,
)
from lyra.jobs.fetch_state import (
    STATE_VERSION,
    PolitenessClock,
    ValidatorCache,
    bucket_after,
)
from lyra.pipelines.extract.content_sniff import sniff_content_type
from lyra.pipelines.net.backoff import parse_retry_after
from lyra.pipelines.net.challenge import Challenge, detect_challenge
from lyra.pipelines.net.circuit import CircuitBreaker, Transition, is_circuit_failure
from lyra.pipelines.net.cookies import CookieJar
from lyra.pipelines.net.domains import registrable_domain
from lyra.pipelines.net.robots import RobotsPolicy, origin_of
from lyra.pipelines.net.token_bucket import TokenBucket
from lyra.pipelines.net.turns import SiteTurns, TurnDropped
from lyra.storage.warc import WarcStore

log = logging.getLogger(__name__)

GRAPH_LOOKUP_RETRY_SECONDS = 5.0
PERSIST_INTERVAL_SECONDS = 5.0

# Only these are worth showing to a challenge detector (not images, PDFs, JSON APIs).
_MARKUP_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "")
_STATE_LOAD_TIMEOUT = 10.0


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
        self.queue = Gauge(
            "lyra_fetch_queue_depth",
            description="Fetches waiting for the site's politeness slot.",
            tag_keys=("domain",),
        )

    def queue_depth(self, waiting: int) -> None:
        self.queue.set(float(waiting), tags={"domain": self.domain})

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


class SiteFetcher(HttpPath):
    """Fetches the URLs of one registrable domain, politely and one at a time.

    The work of a `DomainFetcher` actor (actors/fetch.py), which owns one instance and
    calls its public coroutines; the actor's fault behaviour and idempotency are
    documented there. `find_graph` returns the graph actor's handle (or None) and
    `find_browser` awaits the browser actor's; `restarted` says that the actor was
    reconstructed after a crash (its bucket then starts empty).
    State rebuilt on the first call: circuit, cookies, validators, robots.txt policies
    and the bucket from the `domains` row, the bucket also from the politeness clock
    file (whichever saw the later request wins).
    """

    def __init__(
        self,
        domain: str,
        settings: Settings,
        qps: float | None = None,
        bucket_state: dict[str, Any] | None = None,
        tor: Any = None,
        *,
        restarted: bool = False,
        find_graph: Callable[[], Any] | None = None,
        find_browser: Callable[[], Awaitable[Any]] | None = None,
    ) -> None:
        self.domain = registrable_domain(domain)
        self.settings = settings
        self.base_qps = float(qps) if qps is not None else settings.fetch.default_qps
        if self.base_qps <= 0:
            raise ValueError(f"qps for {self.domain} must be positive, got {self.base_qps}")
        self._restarted = restarted
        self._find_graph = find_graph
        self._find_browser = find_browser
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
        # One request at a time; the next turn to the search that began first.
        self._turns = SiteTurns()
        # A render's own requests to the site take their tokens one after another.
        self._browser_slots = asyncio.Lock()
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
        if restarted:
            # The actor came back after a crash or a kill: recorded now, whether or not
            # a request follows (its politeness state is read back on the first one).
            restart = {"actor": f"fetch:{self.domain}", "reported_by": "itself"}
            self._log_event("actor_restart", None, restart)

    # -- public ----------------------------------------------------------------------

    async def fetch(
        self,
        url: str,
        redirects_left: int | None = None,
        *,
        escalate: bool = True,
        cause_id: str | None = None,
        cause_since: float | None = None,
        method: str = "GET",
        headers: dict[str, str] | None = None,
        json_body: Any = None,
        api: bool = False,
    ) -> FetchResult:
        """Fetch `url` under every rule of this module (keys: see `_result`). Not idempotent.

        `method`, `headers` (added to Lyra's own), `json_body` and `api` describe an API
        call (see `RequestSpec`); a plain call is a GET of a page. `cause_since`: when
        the cause (a search) began; the site serves the causes that began first first
        (`SiteTurns`).
        """
        if method not in ("GET", "POST"):
            raise ValueError(f"method must be GET or POST, got {method!r}")
        spec = RequestSpec(method, tuple((headers or {}).items()), json_body, api)
        budget = self.settings.fetch.max_redirects if redirects_left is None else redirects_left
        self._metrics_().queue_depth(self._turns.waiting() + 1)
        try:
            async with self._turns.turn(cause_id, cause_since):
                self._metrics_().queue_depth(self._turns.waiting())
                self._last_used = time.monotonic()
                await self._ensure_loaded()
                try:
                    return await self._fetch_escalating(
                        url, budget, escalate and not api, cause_id, spec
                    )
                finally:
                    self._last_used = time.monotonic()
                    self._persist()
        except TurnDropped:
            # Its search stopped while it waited for the site: nothing was asked.
            self._metrics_().queue_depth(self._turns.waiting())
            return self._bare_result(url, time.monotonic(), error="cancelled")

    async def browser_slot(self, max_wait: float) -> float | None:
        """A token of this site's bucket for a request the browser makes while it renders
        one of this site's pages: the same schedule as every other request to the site
        (decision 0062). Returns the site's interval between requests (a Crawl-delay
        included), by which the browser spaces what it sends; None, and no token taken,
        when the token would come after `max_wait` seconds (the render's time is up: the
        request is not sent). The render holds the site's turn (`_browser_fetch`), so
        only its own requests ask here."""
        deadline = time.monotonic() + max_wait  # from the ask, not from the lock
        async with self._browser_slots:
            await self._ensure_loaded()
            retry_after = max(0.0, self._not_before - time.time())
            wait = max(self._bucket.wait_time(), retry_after)
            if wait > max(0.0, deadline - time.monotonic()):
                return None
            if retry_after > 0:
                await asyncio.sleep(retry_after)
            await self._wait_for_slot()
            self._take_token()
            return self._bucket.interval_s

    def drop_cause(self, cause_id: str) -> int:
        """The waiting calls of `cause_id` (a stopped search) end `cancelled` unasked."""
        return self._turns.drop(cause_id)

    async def robots_policy(self, url: str) -> dict[str, Any]:
        """The robots.txt policy of `url`'s origin (fetched if not cached) as a summary dict."""
        async with self._turns.turn():
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
        async with self._turns.turn():
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
        if self._turns.locked():
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
            self._graph_handle = self._find_graph() if self._find_graph else None
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
        # By what the body is, not what it is labelled: a login wall sent as a PDF, or
        # an interstitial as octet-stream, is read as the web page it is downstream.
        kind = result["content_type"]
        if kind not in _MARKUP_TYPES and result["body"]:
            kind = sniff_content_type(kind, result["body"], result["final_url"])
        if result["status"] is not None and kind in _MARKUP_TYPES:
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
        from lyra.pipelines.net.tor import socks_proxy_url

        return str(
            socks_proxy_url(self._tor, self.domain, time.time(), self.settings.tor.sticky_seconds)
        )

    async def _browser_fetch(self, url: str, headful: bool, started: float) -> FetchResult | None:
        """Render `url` in the browser under this domain's bucket; None when there is no browser."""
        browser = await self._find_browser() if self._find_browser else None
        if browser is None:
            return None
        slots = _this_actor()
        if slots is None:
            # Outside an actor nothing can be asked for the render's requests: the
            # page's navigation leaves on a token taken here.
            await self._wait_for_slot()
            self._take_token()
        else:
            # The navigation takes its token as it leaves (`browser_slot`); waiting for
            # it here keeps that wait out of the page's load time.
            await asyncio.sleep(self._bucket.wait_time())
        path = "browser_headful" if headful else "browser_headless"
        try:
            rendered = await browser.render.remote(
                url, headful=headful, cookies=self._cookies.to_state(), slots=slots
            )
        except ray.exceptions.RayError as exc:
            self._bucket.spent_now()
            log.warning("browser render of %s failed: %s", url, type(exc).__name__)
            result = self._bare_result(url, started, error=f"browser_failed:{type(exc).__name__}")
            result["path"] = path
            return result
        # The render's last request may have left the browser later than its token
        # (chromium's spacing): the site's next request waits one interval from now.
        self._bucket.spent_now()
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


def _this_actor() -> Any | None:
    """The DomainFetcher running this code (whose `browser_slot` a render calls), None
    where a SiteFetcher runs outside an actor."""
    if not ray.is_initialized():
        return None
    try:
        return ray.get_runtime_context().current_actor
    except RuntimeError:  # a driver or a task, not an actor
        return None


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
    from lyra.pipelines.net.tor import TorUsage

    return TorUsage(settings.tor.max_usage_ratio, state=state)
