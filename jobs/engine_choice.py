"""Which search engines a search may use now, and at what rate each site is asked.

The Orchestrator's engine policy as a plain class (ARCHITECTURE §3 step 3; seed 003
§3.1.1): the engines a client may name, the usable ones among those it named (health,
circuit breakers, the last-resort slot; `pipelines.discover.engine_health` holds the
rules), and the per-site request rates of the engines and academic APIs that the
fetcher pool enforces.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from lyra.config.settings import Settings
from lyra.pipelines.discover.engines import EngineSpec
from lyra.pipelines.errors import LyraError
from lyra.pipelines.net.circuit import CircuitBreaker
from lyra.pipelines.net.domains import registrable_domain

# await graph(method, *args): the graph actor, through the Orchestrator's supervised call.
GraphCall = Callable[..., Awaitable[Any]]
# await live_circuit(domain): the circuit state dict of the domain's live fetcher, or None.
LiveCircuit = Callable[[str], Awaitable[dict[str, Any] | None]]


class EngineChoice:
    """The engines of one server: what exists, what may be used now, and their rates."""

    def __init__(
        self,
        settings: Settings,
        engines: dict[str, EngineSpec],
        graph: GraphCall,
        live_circuit: LiveCircuit,
    ) -> None:
        self._settings = settings
        self.engines = engines
        self._graph = graph
        self._live_circuit = live_circuit

    def available(self) -> set[str]:
        """`local` and every enabled engine with a parser and a base URL (no JS-only ones)."""
        names = {n for n, e in self._settings.engines.items() if e.enabled and n == "local"}
        names.update(
            name
            for name, spec in self.engines.items()
            if spec.enabled and spec.parser and spec.base_url and not spec.needs_js
        )
        return names

    def check_named(self, engines: list[str]) -> None:
        """INVALID_PARAMS naming the engines that are not available."""
        unknown = [e for e in engines if e not in self.available()]
        if unknown:
            raise LyraError(
                "INVALID_PARAMS",
                f"engines not available: {', '.join(unknown)} (available: "
                f"{', '.join(sorted(self.available()))})",
                field="options.engines",
            )

    async def select(self, options: dict[str, Any]) -> dict[str, Any]:
        """The named web engines that are usable now (health, circuits, last-resort slot).

        ALL_ENGINES_BLOCKED when the client named web engines, none is usable and the
        search has no other source (local corpus, URLs, DOIs). Skipped engines travel
        in `options["engines_skipped"]` and become warnings of the search.
        """
        named = options.get("engines") or []
        web = [e for e in named if e != "local"]
        if not web:
            return options
        from lyra.pipelines.discover import engine_health as eh  # pure; only web searches need it

        now = time.time()
        rows = await self._graph("engine_health", web)
        health = {n: eh.EngineHealth.from_row(r) for n, r in rows.items()}
        circuits = {n: await self._circuit(n, now) for n in web if n in self.engines}
        selection = eh.select_engines(self.engines, web, health, circuits, now)
        if selection.all_blocked and not (
            "local" in named or options.get("urls") or options.get("dois")
        ):
            reasons = ", ".join(f"{n}: {r}" for n, r in sorted(selection.skipped.items()))
            raise LyraError(
                "ALL_ENGINES_BLOCKED",
                f"no named engine is usable now ({reasons}); retry later, name other "
                "engines, or resolve pending items with get_auth_queue",
                field="options.engines",
            )
        for name in selection.last_resort:
            await self._graph("record_last_resort_use", name)
        # Weight order (health-scaled), the last-resort engines after the others.
        kept = [e for e in named if e == "local"] + list(selection.usable)
        return {**options, "engines": kept, "engines_skipped": dict(selection.skipped)}

    async def _circuit(self, engine: str, now: float) -> str:
        """The circuit state of an engine's site: its live fetcher's, else the persisted one."""
        domain = registrable_domain(self.engines[engine].base_url or "")
        state = await self._live_circuit(domain)
        if state is None:
            stored = await self._graph("load_domain_state", domain)
            state = (stored or {}).get("circuit")
        if not state:
            return "closed"
        breaker = CircuitBreaker.from_state(state)
        retry_at = breaker.retry_at()
        if breaker.state == "open" and retry_at is not None and retry_at <= now:
            return "half_open"  # the cooldown is over: the next request is the probe
        return breaker.state

    def engine_qps(self) -> dict[str, float]:
        """Each enabled engine's rate for its site (the lower one if two share a site)."""
        rates: dict[str, float] = {}
        for spec in self.engines.values():
            if spec.enabled and spec.base_url:
                domain = registrable_domain(spec.base_url)
                rates[domain] = min(rates.get(domain, spec.qps), spec.qps)
        return rates

    def api_qps(self) -> dict[str, float]:
        """Each academic API's rate for its site (the lower one if two share a site)."""
        rates: dict[str, float] = {}
        academic = self._settings.academic
        for api in (academic.semantic_scholar, academic.openalex):
            domain = registrable_domain(api.base_url)
            rates[domain] = min(rates.get(domain, api.qps), api.qps)
        return rates
