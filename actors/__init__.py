"""Lyra's Ray actors: one actor class per module, each the sole owner of its resource.

    orchestrator  tasks, searches, budgets; supervises every other actor
    graph         the DuckDB evidence graph
    inference     the models (and the GPU when there is one)
    browser       one Chromium
    fetch         the traffic to one registrable domain (`DomainFetcher`)

and the runtime that starts them: `runtime` (starting or joining Ray, names,
resources), `instance` (the local Ray shared by the processes of one LYRA_HOME),
`telemetry` (Lyra's metrics on Ray's Prometheus endpoint), `children` (the
orchestrator's graph, inference and browser actors: made, called, waited for and
re-placed), `fetch_routing` (the orchestrator's fetcher pool and the auth queue's share
of fetching), `fetch_pool` (creating, leasing and retiring fetchers), `standby` (idle
workers for new fetchers) and `preload` (what each worker imports as it starts). The
work itself is in `lyra.jobs` and `lyra.pipelines`. Modules that lived here before the
layout change (docs/decisions/0014) are still importable under their old names, with a
DeprecationWarning naming the new one.
"""

from lyra.pipelines import register_moved

register_moved(
    {
        f"{__name__}.{name}": f"lyra.jobs.{name}"
        for name in (
            "academic",
            "auth_service",
            "discovery",
            "fetch_http",
            "fetch_state",
            "guard_proxy",
            "search_job",
            "virtual_display",
        )
    }
)
