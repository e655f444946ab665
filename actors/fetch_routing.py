"""How the Orchestrator's searches reach the web: its DomainFetcher pool and auth queue.

The pool of per-domain fetchers (``FetcherPool``, made on a search's first fetch, and
Tor with it when ``tor.enabled``), idle fetchers retired now and then, a search's
fetch that a challenge blocked put in the auth queue for a person (seed 003 §3.6.1),
and the queue's depth on the Ray dashboard. The Orchestrator owns one; what it needs
of the Orchestrator is handed in, so this module holds no actor of its own.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ray.exceptions import RayActorError, RayTaskError

from lyra.actors.standby import StandbyWorkers
from lyra.config.settings import Settings
from lyra.jobs.auth_service import AuthService
from lyra.pipelines.net.domains import DomainRulesWatcher, trust_level_for

# How often a fetch checks for fetchers idle longer than fetch.idle_retire_seconds.
RETIRE_CHECK_SECONDS = 30.0
HIGH_PRIORITY_TRUST = frozenset({"PRIMARY", "GOVERNMENT", "ACADEMIC"})

# await graph(method, *args): the graph actor, through the Orchestrator's supervised call.
GraphCall = Callable[..., Awaitable[Any]]
# (engine sites' rates, academic API sites' rates), read when the pool is made.
Rates = Callable[[], tuple[dict[str, float], dict[str, float]]]


class FetchRouting:
    """The Orchestrator's fetchers: one pool, the auth queue for what challenges block."""

    def __init__(
        self,
        settings: Settings,
        *,
        rules: DomainRulesWatcher,
        rates: Rates,
        standby: StandbyWorkers,
        auth: AuthService,
        graph: GraphCall,
        searching: Callable[[], bool],
    ) -> None:
        self._settings = settings
        self._rules = rules
        self._rates = rates
        self._standby = standby
        self._auth = auth
        self._graph = graph
        self._searching = searching
        # Live DomainFetcher handles (at most fetch.max_live_actors), created on the
        # first URL fetch; Tor is started then too, and only if tor.enabled.
        self.pool: Any = None
        self.tor_process: Any = None
        self._last_retire_check = time.monotonic()
        self._auth_depth: Any = None

    def fetcher_pool(self) -> Any:
        """The pool of DomainFetchers, made on first use (and Tor with it, if enabled)."""
        if self.pool is None:
            from lyra.actors.fetch_pool import FetcherPool  # heavy imports on first fetch
            from lyra.pipelines.net.tor import tor_endpoint_if_enabled

            self.tor_process, endpoint = tor_endpoint_if_enabled(
                self._settings, self._settings.home_dir / "tor"
            )
            engine_qps, api_qps = self._rates()
            self.pool = FetcherPool(
                self._settings,
                tor=endpoint,
                rules=self._rules,
                qps=engine_qps,
                api_qps=api_qps,
                standby=self._standby,
                busy=self._searching,
            )
        return self.pool

    async def drop_causes(self, cause_ids: list[str], timeout: float) -> None:
        """Stopped searches' calls still waiting at sites end unasked (no pool: none).

        Waits `timeout` at most: a fetcher that restarts holds its calls until it is
        back, and a stop does not wait on it.
        """
        if self.pool is None or not cause_ids:
            return
        drops = [asyncio.create_task(self.pool.drop_cause(c)) for c in cause_ids]
        for drop in drops:
            # A drop that fails later (its fetcher died) had nothing left to drop.
            drop.add_done_callback(lambda t: t.cancelled() or t.exception())
        await asyncio.wait(drops, timeout=timeout)

    def quiet(self) -> bool:
        """No fetcher pool yet, or one with nothing in flight (the standby may top up)."""
        return self.pool is None or bool(self.pool.quiet())

    async def live_circuit(self, domain: str) -> dict[str, Any] | None:
        """The circuit state of `domain`'s live fetcher; None when it has none (or it died)."""
        pool = self.pool
        if pool is None or domain not in pool.live:
            return None
        try:
            state: dict[str, Any] = (await pool.live[domain].state.remote())["circuit"]
        except (RayActorError, RayTaskError):
            return None
        return state

    async def fetch_url(
        self,
        url: str,
        cause_id: str | None = None,
        escalate: bool = True,
        cause_since: float | None = None,
        **request: Any,
    ) -> dict[str, Any]:
        """Fetch through the per-domain fetchers, following cross-domain redirects.

        `request`: method, headers, json_body, api (an academic API call).
        """
        pool = self.fetcher_pool()
        now = time.monotonic()
        if now - self._last_retire_check >= RETIRE_CHECK_SECONDS:
            self._last_retire_check = now
            await pool.retire_idle()
        try:
            result: dict[str, Any] = dict(
                await pool.fetch(
                    url, cause_id=cause_id, cause_since=cause_since, escalate=escalate, **request
                )
            )
        except (RayActorError, RayTaskError) as exc:
            return {"error": f"fetcher failed: {type(exc).__name__}", "url": url}
        return result

    async def fetch_for_search(
        self, url: str, *, search_id: str, task_id: str, since: float, escalate: bool = True
    ) -> dict[str, Any]:
        """A search's fetch: a page blocked by a challenge goes to the auth queue.

        `since`: when the search began (the sites serve earlier searches first).
        """
        result = await self.fetch_url(url, cause_id=search_id, escalate=escalate, cause_since=since)
        error = str(result.get("error") or "")
        challenge = result.get("challenge")
        domain = str(result.get("domain") or "")
        auth_type: str | None = None
        if error.startswith("challenge:") and challenge:
            auth_type = str(challenge["auth_type"])
        elif error == "circuit_open" and domain:
            # The domain's breaker opened on a challenge a person has not cleared yet:
            # this URL waits for the same person.
            pending = await self._graph("pending_auth_for_domain", domain)
            if pending:
                auth_type = str(pending[0]["auth_type"])
        if auth_type is not None:
            item = await self._auth.enqueue(
                task_id=task_id,
                search_id=search_id,
                url=str(result.get("final_url") or url),
                domain=domain,
                auth_type=auth_type,
                # By the page's own host: a rule may name one host of the site.
                priority=self.auth_priority(str(result.get("final_url") or url)),
            )
            result["auth_item"] = item
            await self.auth_gauge()
        return result

    async def auth_gauge(self) -> None:
        """Pending auth items (all tasks) on the Ray dashboard."""
        summary = await self._graph("auth_summary", None)
        if self._auth_depth is None:
            from ray.util.metrics import Gauge

            self._auth_depth = Gauge(
                "lyra_auth_queue_pending", description="Pending auth queue items (all tasks)."
            )
        self._auth_depth.set(float(summary["pending_count"]))

    def auth_priority(self, domain: str) -> str:
        """Primary, government and academic sources first (seed 003 §3.6.1); `domain`: a
        host or a URL."""
        level = trust_level_for(domain, self._rules.current())
        return "high" if level in HIGH_PRIORITY_TRUST else "normal"
