"""The work Lyra's actors delegate to, as plain classes (docs/decisions/0014).

An actor owns a resource; what it does with it lives here:

    search_job       one search as a background job of the Orchestrator
    engine_choice    the engines a search may use now, and each site's request rate
    discovery        papers in a search: API search, identifiers, citation tracking
    academic         Semantic Scholar and OpenAlex calls through the fetch layer
    auth_service     the auth queue and notifications the Orchestrator offers
    site_fetcher     a DomainFetcher's work: politeness, escalation, persistence
    fetch_http       its HTTP path: guarded, paced, streamed, archived
    fetch_state      politeness and session state that outlives a fetcher
    chromium         the BrowserActor's work: renders, pages for a person, cookies
    guard_proxy      the proxy Chromium must use for every connection
    virtual_display  a private Xvfb for headful Chromium
    replay           a task's evidence rebuilt from its own archives
    status_cache     the models' status for every tool response, from memory
    live_status      get_status's graph reads while searches run, renewed beside polls

Jobs reach actors only through handles and callables they are given; they never import
`lyra.actors` (import-linter checks it). They may import `lyra.storage`,
`lyra.pipelines` and `lyra.config`.
"""
