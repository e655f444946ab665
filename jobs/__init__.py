"""The work Lyra's actors delegate to, as plain classes (docs/decisions/0014).

An actor owns a resource; what it does with it lives here:

    search_job       one search as a background job of the Orchestrator
    discovery        papers in a search: API search, identifiers, citation tracking
    academic         Semantic Scholar and OpenAlex calls through the fetch layer
    auth_service     the auth queue and notifications the Orchestrator offers
    fetch_http       a DomainFetcher's HTTP path: guarded, paced, streamed, archived
    fetch_state      politeness and session state that outlives a fetcher
    guard_proxy      the proxy the BrowserActor's Chromium must use for every connection
    virtual_display  a private Xvfb for headful Chromium

Jobs reach actors only through handles and callables they are given; they never import
`lyra.actors` (import-linter checks it). They may import `lyra.storage`,
`lyra.pipelines` and `lyra.config`.
"""
