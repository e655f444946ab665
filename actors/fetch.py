"""DomainFetcher: sole owner of the traffic to one registrable domain.

ARCHITECTURE §2 (actors table), §3 step 6 (fetch), §8 (politeness is global);
seed 003 §3.1.2, §3.5, §4.3 (escalation, circuit breakers, session transfer).

One named actor per domain cluster-wide (``fetch:<domain>``, `get_if_exists`), so
adding workers never multiplies the request rate to a site (§8). The actor owns the
domain's token bucket, circuit breaker, robots.txt policies (per origin), cookies,
ETag / Last-Modified validators and its WARC file, all held by one
`jobs.site_fetcher.SiteFetcher` that does the work; the rules themselves live in
`lyra.pipelines.net` (net_guard, robots, token_bucket, circuit, challenge, cookies,
backoff). Its state is persisted (see `jobs/fetch_state.py`) so that retirement,
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
import logging
import time
from email.utils import formatdate
from typing import Any

import ray

from lyra.actors.runtime import (
    BROWSER,
    GRAPH,
    ORCHESTRATOR,
    fetcher_scheduling,
    restarted_by_ray,
    setup_actor_logging,
)
from lyra.config.settings import Settings
from lyra.jobs.fetch_http import FetchResult, blocked_result
from lyra.jobs.site_fetcher import SiteFetcher
from lyra.pipelines.net.domains import (
    DomainRulesWatcher,
    block_rule,
    home_rules_watcher,
    qps_for,
    registrable_domain,
)

log = logging.getLogger(__name__)


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
    `drop_cause`, `idle_seconds`, `persist`, `add_cookies`. Not idempotent: `fetch`.
    """

    def __init__(
        self,
        domain: str,
        settings: Settings,
        qps: float | None = None,
        bucket_state: dict[str, Any] | None = None,
        tor: Any = None,
    ) -> None:
        setup_actor_logging(settings.home_dir)
        # A BLOCKED domain (domains.yaml, re-read when it changes) gets no request,
        # whoever asks: the pool checks first, this is the fetcher's own word on it.
        self._rules = home_rules_watcher(settings.home_dir)
        self._domain = domain
        self._site = SiteFetcher(
            domain,
            settings,
            qps,
            bucket_state,
            tor,
            restarted=restarted_by_ray(),
            find_graph=lambda: _named_actor(GRAPH, settings),
            find_browser=lambda: _browser_handle(settings),
        )
        # Every hop of a fetch and every robots.txt too (a redirect within the site
        # to a blocked host, a robots.txt redirected to a blocked site).
        self._site.refuse = self._blocked

    def _blocked(self, url: str) -> str | None:
        return block_rule(url, self._rules.current())

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
        base_qps: float | None = None,
    ) -> FetchResult:
        """Fetch `url` under every rule of this module (keys: see `SiteFetcher._result`).

        `method`, `headers` (added to Lyra's own), `json_body` and `api` describe an API
        call (see `RequestSpec`); a plain call is a GET of a page. `base_qps`: the
        site's configured rate as the caller knows it now (the pool sends it with each
        request), taken before the request when it changed: a fetcher that Ray
        restarted runs with the rate it was made with until told. Not idempotent.
        """
        rule = self._blocked(url)
        if rule is not None:
            return blocked_result(url, self._domain, rule)
        if base_qps is not None and base_qps != self._site.base_qps:
            await self._site.set_base_qps(base_qps)
        return await self._site.fetch(
            url,
            redirects_left,
            escalate=escalate,
            cause_id=cause_id,
            cause_since=cause_since,
            method=method,
            headers=headers,
            json_body=json_body,
            api=api,
        )

    async def drop_cause(self, cause_id: str) -> int:
        """Calls of `cause_id` (a stopped search) still waiting for this site end
        `cancelled` without a request; returns how many (idempotent)."""
        return self._site.drop_cause(cause_id)

    async def robots_policy(self, url: str) -> dict[str, Any]:
        """The robots.txt policy of `url`'s origin (fetched if not cached) as a summary dict."""
        return await self._site.robots_policy(url)

    async def add_cookies(self, cookies: list[dict[str, Any]], reset_circuit: bool = False) -> int:
        """Take cookies set in the browser for this domain (session transfer). Idempotent."""
        return await self._site.add_cookies(cookies, reset_circuit)

    async def set_base_qps(self, qps: float) -> float:
        """A new configured rate (domains.yaml reloaded); robots.txt may still lower it."""
        return await self._site.set_base_qps(qps)

    async def browser_slot(self, max_wait: float) -> float | None:
        """Wait for this site's next token for a request the browser makes while it
        renders one of its pages (a script, a style, an XHR); the site's interval between
        requests once granted, None when it would take longer than `max_wait` seconds.
        Not idempotent: each grant takes a token."""
        return await self._site.browser_slot(max_wait)

    async def cookies(self) -> list[dict[str, Any]]:
        """The cookies the HTTP client sends to this domain. Idempotent."""
        return await self._site.cookies()

    async def idle_seconds(self) -> float:
        """Seconds since the last call finished; 0 while one runs. Idempotent."""
        return await self._site.idle_seconds()

    async def persist(self) -> dict[str, Any]:
        """Write the state to the `domains` table and wait for it (before retiring). Idempotent."""
        return await self._site.persist()

    async def state(self) -> dict[str, Any]:
        """Domain, rates, bucket, circuit, counters and robots summary. Idempotent."""
        return await self._site.state()


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
        **fetcher_scheduling(),
    ).remote(registrable, settings, rate, None, tor)


def export_fetcher_class() -> bool:
    """Register the `DomainFetcher` class with Ray now, not at the first fetcher's creation.

    Ray exports an actor class to the GCS on its first `.remote()` in each process,
    which costs the creating process about 0.15 s (Ray hashes the class's bytecode).
    A server does it at start (`FetcherPool.warm_up`) so that no search waits for
    it. This repeats what `ActorClass._remote` does (Ray 2.60); when those internals
    differ, it does nothing and the first creation exports the class as before.
    """
    try:
        worker = ray._private.worker.global_worker
        meta = DomainFetcher.__ray_metadata__  # type: ignore[attr-defined]
        if meta.last_export_cluster_and_job == worker.current_cluster_and_job:
            return True
        worker.function_actor_manager.export_actor_class(
            meta.modified_class,
            meta.actor_creation_function_descriptor,
            meta.method_meta.methods.keys(),
        )
        meta.last_export_cluster_and_job = worker.current_cluster_and_job
    except AttributeError:
        log.warning("could not export the fetcher class ahead of use", exc_info=True)
        return False
    return True


def http_date(when: float) -> str:
    """An IMF-fixdate (RFC 9110) for `when`, as `Last-Modified` servers send it."""
    return formatdate(when, usegmt=True)
