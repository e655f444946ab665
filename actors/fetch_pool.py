"""The orchestrator's pool of DomainFetchers, and cross-domain redirect chains.

ARCHITECTURE §2: fetchers are created lazily, at most `fetch.max_live_actors` are
alive, idle ones retire (their state persisted first, see jobs/fetch_state.py).
`fetch_url` / `FetcherPool.fetch` follow a redirect that leaves a domain through the
next domain's own fetcher, so every hop is governed by its own site's bucket and
robots.txt. The fetcher itself is in actors/fetch.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, MutableMapping
from typing import Any

import ray

from lyra.actors.fetch import _name_released, export_fetcher_class, get_fetcher
from lyra.actors.runtime import warm_serialization
from lyra.actors.standby import StandbyWorkers
from lyra.config.settings import Settings
from lyra.jobs.fetch_http import FetchResult, blocked_result
from lyra.pipelines.net.domains import (
    DomainRulesWatcher,
    block_rule,
    home_rules_watcher,
    qps_for,
    registrable_domain,
    warm_suffix_list,
)

log = logging.getLogger(__name__)

# A request whose fetcher died is sent by its replacement; one whose fetcher restarts,
# to the same fetcher once it is back (after a pause), and to a replacement when the
# fetcher is still unavailable then (its node lost).
FETCHER_ATTEMPTS = 3
RESTART_PAUSE_S = 0.2
# The standby is refilled once no request has been in flight for this long.
REFILL_QUIET_S = 1.0


def prepare_fetcher_creation() -> None:
    """What this process's first new fetcher would otherwise wait for: the public suffix
    list parsed, Ray's serialization ready and the fetcher class registered with Ray (a
    server does it at start)."""
    warm_suffix_list()
    warm_serialization()
    export_fetcher_class()


async def fetch_url(
    url: str,
    settings: Settings,
    max_redirects: int | None = None,
    fetchers: MutableMapping[str, Any] | None = None,
) -> FetchResult:
    """Fetch `url` through the right fetchers, following redirects across domains (async callers).

    `fetchers` maps registrable domain -> handle; handles created here are added to it,
    so a caller that keeps the mapping keeps those actors (and their buckets) alive.
    A BLOCKED domain (domains.yaml, the user's layer under LYRA_HOME included) is
    never asked.
    """
    registry: MutableMapping[str, Any] = {} if fetchers is None else fetchers
    rules = home_rules_watcher(settings.home_dir)

    async def one(domain: str, current: str, remaining: int) -> FetchResult:
        if domain not in registry:
            registry[domain] = get_fetcher(domain, settings)
        result: FetchResult = await registry[domain].fetch.remote(current, remaining)
        return result

    return await _follow(url, settings, max_redirects, one, rules.current)


async def _follow(
    url: str,
    settings: Settings,
    max_redirects: int | None,
    one: Any,
    rules: Callable[[], dict[str, Any]],
) -> FetchResult:
    remaining = settings.fetch.max_redirects if max_redirects is None else max_redirects
    chain: list[str] = []
    current = url
    while True:
        domain = registrable_domain(current)
        rule = block_rule(current, rules())
        if rule is not None:
            # Not even a fetcher is made for it: no request reaches a blocked site,
            # whether it was asked for or redirected to.
            result = blocked_result(current, domain, rule)
        else:
            result = await one(domain, current, remaining)
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


class FetcherPool:
    """The live `DomainFetcher` actors of one orchestrator: at most `fetch.max_live_actors`.

    A fetcher is leased for each request. When a new domain needs a fetcher and the
    pool is full, the least recently used idle fetcher persists its state and is
    killed; if none is idle the lease waits. Fetchers idle longer than
    `fetch.idle_retire_seconds` retire the same way (`retire_idle`). A fetcher that
    died (killed, node lost) is replaced once and the request re-sent: its
    politeness clock and stored state keep the site's spacing. Each new fetcher takes
    an idle standby worker when there is one (actors/standby.py); the standby is
    refilled when the pool is quiet again.
    """

    def __init__(
        self,
        settings: Settings,
        tor: Any = None,
        rules: DomainRulesWatcher | None = None,
        qps: dict[str, float] | None = None,
        api_qps: dict[str, float] | None = None,
        standby: StandbyWorkers | None = None,
        busy: Callable[[], bool] | None = None,
    ) -> None:
        self.settings = settings
        self.standby = standby or StandbyWorkers(settings.fetch.standby_workers)
        # True while work other than fetching runs (the Orchestrator: a search is
        # running): a refill waits for it too (decision 0038).
        self._busy = busy or (lambda: False)
        self._top_up: asyncio.Task[int] | None = None
        self._created_since_refill = False
        self.tor = tor
        # Per-domain rate caps beyond domains.yaml (the search engines' own qps).
        self.qps_caps = dict(qps or {})
        # Domains of the academic APIs: their configured rate replaces the default
        # for unknown domains (a domains.yaml rule for the host still caps it).
        self.api_qps = dict(api_qps or {})
        self.rules = rules or DomainRulesWatcher()
        self.live: dict[str, Any] = {}
        self._in_use: dict[str, int] = {}
        self._last_used: dict[str, float] = {}
        self._changed = asyncio.Condition()
        self._retiring: set[str] = set()
        self.retired = 0

    @contextlib.asynccontextmanager
    async def lease(self, domain: str) -> AsyncIterator[Any]:
        """A handle to `domain`'s fetcher, held for the block (counts as in use).

        Retirements run outside the pool's lock: leases of live domains go on while
        a victim persists its state and dies. A fetcher being retired still counts
        toward the cap, and its own domain waits until its name is free.
        """
        handle = await self._acquire(domain)
        try:
            yield handle
        finally:
            async with self._changed:
                self._in_use[domain] -= 1
                self._last_used[domain] = time.monotonic()
                self._changed.notify_all()
            if self.quiet():
                self.refill_later()

    async def _acquire(self, domain: str) -> Any:
        cap = self.settings.fetch.max_live_actors
        while True:
            victim: tuple[str, Any] | None = None
            async with self._changed:
                if domain in self._retiring:
                    await self._changed.wait()
                    continue
                if domain not in self.live and len(self.live) + len(self._retiring) >= cap:
                    name = self._idle_victim()
                    if name is None:
                        await self._changed.wait()
                        continue
                    victim = (name, self._take_out(name))
                else:
                    if domain not in self.live:
                        self.live[domain] = get_fetcher(
                            domain,
                            self.settings,
                            qps=self._qps(domain, self.rules.current()),
                            tor=self.tor,
                        )
                        self._created_since_refill = True
                    self._in_use[domain] = self._in_use.get(domain, 0) + 1
                    return self.live[domain]
            await self._retire(*victim)

    def refill_later(self) -> None:
        """After new fetchers took standby workers: refill the standby once the pool is
        quiet and nothing else is busy (called when a lease ends, and when a search
        ends)."""
        if self._created_since_refill:
            self._created_since_refill = False
            self.top_up_standby(after=REFILL_QUIET_S)

    def idle(self) -> bool:
        """No request in flight and no other work running: a refill may start workers."""
        return self.quiet() and not self._busy()

    def top_up_standby(self, after: float = 0.0) -> asyncio.Task[int] | None:
        """Refill the idle standby workers in the background, `after` seconds from now.

        Refills run only while the pool is quiet (no request in flight) and nothing
        else is busy (no search running): a starting worker keeps a core busy, fetchers
        that are working must wake on time, and a search's extraction and models must
        not share the cores with worker start-ups (decision 0038). So a burst of new
        sites takes the standby, and the pool refills it once the searches are over.
        One refill runs at a time.
        """
        if not self.standby.enabled:
            return None
        if self._top_up is not None and not self._top_up.done():
            return self._top_up
        self._top_up = asyncio.create_task(self._refill(after))
        return self._top_up

    @property
    def refill(self) -> asyncio.Task[int] | None:
        """The latest standby refill (running or done), if any."""
        return self._top_up

    async def _refill(self, after: float) -> int:
        await asyncio.sleep(after)
        idle = await self.standby.top_up(keep_going=self.idle) if self.idle() else 0
        if not self.idle():
            self._created_since_refill = True  # interrupted: the next quiet moment refills
        return idle

    def quiet(self) -> bool:
        """No request in flight."""
        return not any(self._in_use.values())

    async def warm_up(self) -> int:
        """Prepare for new domains, as a server does once at start; the idle workers then.

        `prepare_fetcher_creation`, then waits until the standby workers are up.
        """
        prepare_fetcher_creation()
        task = self.top_up_standby()
        return await task if task is not None else 0

    def _qps(self, domain: str, rules: dict[str, Any]) -> float:
        api = self.api_qps.get(domain)
        rate = qps_for(domain, rules, self.settings.fetch.default_qps if api is None else api)
        rate = rate if api is None else min(rate, api)
        return min(rate, self.qps_caps.get(domain, rate))

    def _idle_victim(self) -> str | None:
        idle = [d for d in self.live if self._in_use.get(d, 0) == 0]
        if not idle:
            return None
        return min(idle, key=lambda d: self._last_used.get(d, 0.0))

    def _take_out(self, domain: str) -> Any:
        """Move `domain` from live to retiring (caller holds the lock)."""
        handle = self.live.pop(domain)
        self._in_use.pop(domain, None)
        self._last_used.pop(domain, None)
        self._retiring.add(domain)
        return handle

    async def _retire(self, domain: str, handle: Any) -> None:
        """Persist, kill, wait for the name; then let waiters for `domain` go on."""
        try:
            await handle.persist.remote()
        except ray.exceptions.RayError:
            log.warning("fetcher %s could not persist before retiring", domain)
        ray.kill(handle, no_restart=True)
        await _name_released(f"fetch:{domain}", self.settings)
        async with self._changed:
            self._retiring.discard(domain)
            self.retired += 1
            self._changed.notify_all()
        log.info("retired the fetcher of %s", domain)

    async def retire_idle(self) -> list[str]:
        """Retire fetchers idle longer than `fetch.idle_retire_seconds`."""
        limit = self.settings.fetch.idle_retire_seconds
        now = time.monotonic()
        async with self._changed:
            old = [
                d
                for d in list(self.live)
                if self._in_use.get(d, 0) == 0 and now - self._last_used.get(d, now) >= limit
            ]
            victims = [(d, self._take_out(d)) for d in old]
        await asyncio.gather(*(self._retire(d, h) for d, h in victims))
        return old

    async def fetch(
        self,
        url: str,
        *,
        cause_id: str | None = None,
        cause_since: float | None = None,
        escalate: bool = True,
        **request: Any,
    ) -> FetchResult:
        """Fetch `url`, following cross-domain redirects through each domain's fetcher.

        `request`: method, headers, json_body, api (see `actors.fetch.RequestSpec`).
        """

        async def one(domain: str, current: str, remaining: int) -> FetchResult:
            resent = False
            tries = 0  # sends to a fetcher made or found anew (FETCHER_ATTEMPTS at most)
            while True:
                tries += 1
                dead = None
                async with self.lease(domain) as handle:
                    try:
                        result: FetchResult = await handle.fetch.remote(
                            current,
                            remaining,
                            escalate=escalate,
                            cause_id=cause_id,
                            cause_since=cause_since,
                            # domains.yaml's rate now: a changed file, or a fetcher
                            # restarted with the rate it was made with, takes it first.
                            base_qps=self._qps(domain, self.rules.current()),
                            **request,
                        )
                        return result
                    except ray.exceptions.RayActorError as exc:
                        if isinstance(exc, ray.exceptions.ActorUnavailableError) and not resent:
                            # Restarting (killed with a restart left, its process lost):
                            # the same actor comes back under this handle, which Ray
                            # holds the next call for. Dropping the handle would end it
                            # for good (the pool's is its creator's), so the request is
                            # sent to it again, once, as an extra try.
                            resent = True
                            tries -= 1
                            log.warning("fetcher of %s is restarting; asking it again", domain)
                            await asyncio.sleep(RESTART_PAUSE_S)
                        elif tries >= FETCHER_ATTEMPTS:
                            raise
                        else:
                            # Dead, or unavailable again (its node lost): replaced.
                            log.warning("fetcher of %s died; replacing it", domain)
                            dead = handle
                if dead is not None:
                    await self._forget_dead(domain, dead)

        return await _follow(url, self.settings, None, one, self.rules.current)

    async def drop_cause(self, cause_id: str) -> int:
        """Tell every live fetcher that `cause_id` (a search) stopped: its calls still
        waiting for a site end `cancelled` without a request. Returns how many."""
        calls = [h.drop_cause.remote(cause_id) for h in list(self.live.values())]
        dropped = 0
        for outcome in await asyncio.gather(*calls, return_exceptions=True):
            if isinstance(outcome, ray.exceptions.RayError):
                continue  # a fetcher that died has nothing waiting
            if isinstance(outcome, BaseException):
                raise outcome
            dropped += int(outcome)
        return dropped

    async def _forget_dead(self, domain: str, dead: Any) -> None:
        """Drop a dead fetcher's handle, unless another caller already replaced it.

        Every call queued at a killed fetcher fails at once; only the first of them
        may drop the entry (the others would drop its live replacement), and the new
        fetcher is made only once the dead one's name is free.
        """
        async with self._changed:
            current = self.live.get(domain)
            if current is None or current._actor_id != dead._actor_id:
                return
            self.live.pop(domain)
            self._retiring.add(domain)
        try:
            await _name_released(f"fetch:{domain}", self.settings)
        finally:
            async with self._changed:
                self._retiring.discard(domain)
                self._changed.notify_all()

    async def handle(self, domain: str) -> Any:
        """The fetcher of `domain` (created if needed), e.g. to hand it cookies."""
        async with self.lease(registrable_domain(domain)) as handle:
            return handle
