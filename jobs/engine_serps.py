"""A search's web engines: the queries it asks them (the question, its mirror in the
task's language, refutation queries), each engine's SERPs through the fetch layer,
stored as `serp_items` rows, and the task's priority sites first (decisions 0052, 0054).

`SearchJob` owns one `EngineSerps` per search; what the two share (the set of URLs
listed so far, the stop check, the blocked-domain filter, the page budget, the
injection guard's record) is handed in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any
from urllib.parse import urldefrag

from lyra.jobs.discovery import PaperDiscovery
from lyra.jobs.search_context import SearchContext
from lyra.pipelines.discover import engine_health as eh
from lyra.pipelines.discover.engines import build_request, parse_serp, serp_blocked
from lyra.pipelines.discover.query_normalize import normalize_query, refute_queries
from lyra.pipelines.discover.serp_parsers import SerpItem
from lyra.pipelines.evidence import research as rs
from lyra.pipelines.extract.injection import Detection, guard_text
from lyra.pipelines.net.domains import registrable_domain

MAX_SITE_QUERIES = 3
"""Priority sites an engine is asked about with `site:` per search (decision 0052)."""


def priority_sites(task: dict[str, Any]) -> list[str]:
    """The task's priority sites (registrable domains, create_task's config)."""
    config = task.get("config") or {}
    return [str(d) for d in config.get("priority_domains") or []]


def on_priority_site(url: str, priority: list[str]) -> bool:
    """Whether `url` is a page of one of the `priority` sites."""
    if not priority or not url.lower().startswith(("http://", "https://")):
        return False
    try:
        return registrable_domain(url) in priority
    except ValueError:  # no host: not a priority site's page
        return False


def priority_first(urls: list[str], priority: list[str]) -> list[str]:
    """URLs on a priority site first, each group in its own order."""
    first = [u for u in urls if on_priority_site(u, priority)]
    chosen = set(first)
    return first + [u for u in urls if u not in chosen]


class EngineSerps:
    """The engines' side of one search."""

    def __init__(
        self,
        ctx: SearchContext,
        serp_urls: set[str],
        *,
        stopping: Callable[[], bool],
        unblocked: Callable[[list[str]], list[str]],
        page_budget: Callable[[], int],
        note_detections: Callable[[str, list[Detection]], None],
    ) -> None:
        self.ctx = ctx
        # URLs an engine's SERP listed (their serp_items rows are the engine's own);
        # the job's set, which its other sources' rows add to.
        self.serp_urls = serp_urls
        self.priority = priority_sites(ctx.task)
        # Set by the job once it asks the academic APIs: SERP items name papers too.
        self.discovery: PaperDiscovery | None = None
        self._stopping = stopping
        self._unblocked = unblocked
        self._page_budget = page_budget
        self._note_detections = note_detections
        self._serp_ids: set[str] = set()
        self._queries: list[str] | None = None

    async def queries(self) -> list[str]:
        """The query, its language mirror (LLM), then its refutation queries (`refute`).

        Computed once per search; the mirror is asked of the LLM, which only
        translates, into the task's language when it has one (no LLM: no mirror, and
        `_lyra_meta.degraded` says so).
        """
        if self._queries is None:
            queries = [self.ctx.query]
            language = (self.ctx.task.get("config") or {}).get("language")
            mirror = await self.ctx.call(
                "inference", "mirror_query", self.ctx.query, self.ctx.task["tag"], language
            )
            if mirror is not None:
                queries.append(mirror)
            if self.ctx.options.get("refute"):
                queries += refute_queries(self.ctx.query)
            self._queries = list(dict.fromkeys(queries))
        return self._queries

    async def result_urls(self, engine: str) -> list[str]:
        """One engine's SERPs through the fetch layer: rows in `serp_items`, result URLs out.

        One SERP per query of `queries`; a blocked SERP (CAPTCHA, 403/429) is
        never parsed as results and ends this engine's turn: the fetch layer queues a
        challenge for a person, the breaker counts it, and the search goes on with
        its other sources. SERPs are not escalated to the browser (seed 003 §4.3.5:
        engines are governed by their circuit breaker).
        """
        urls: list[str] = []
        queries = await self.queries()
        priority = self.priority[:MAX_SITE_QUERIES]
        if priority and "site" in self.ctx.engines[engine].operators:
            # The task's priority sites first, where the engine restricts to a site (the
            # first few: each is a SERP at the engine's slow rate).
            queries = [f"site:{site} {self.ctx.query}" for site in priority] + queries
        for query in queries:
            if self._stopping():
                break
            items = await self.serp(engine, query)
            if items is None:
                break
            urls.extend(item.url for item in items)
        # A BLOCKED domain's results take none of the room; a priority site's come first.
        kept = self._unblocked(list(dict.fromkeys(urls)))
        return priority_first(kept, self.priority)[: self._page_budget()]

    async def serp(self, engine: str, query: str) -> list[SerpItem] | None:
        """One SERP of `engine` for `query`, stored and health-counted; None when blocked."""
        ctx = self.ctx
        spec = ctx.engines[engine]
        rendered = normalize_query(query, spec.operators)
        ctx.warnings.extend(f"{engine}: {w}" for w in rendered.warnings)
        language = (ctx.task.get("config") or {}).get("language")
        url, form = build_request(spec, rendered.text, language=language)
        if form is not None:
            ctx.warnings.append(f"{engine}: POST engines are not supported by the fetch layer")
            return None
        result = await ctx.fetch_url(url, escalate=False)
        body = result.get("body") or b""
        block = serp_blocked(body, result.get("status"), result.get("headers") or {}, url)
        error = result.get("error")
        if error is None and block is not None:
            error = block.reason if block.challenge is not None else f"http_error:{block.reason}"
        items = [] if error else parse_serp(spec, body, str(result.get("final_url") or url))
        # A result's #fragment is never sent: its row names the page as it is stored,
        # and two results that differ only there are one.
        by_url: dict[str, SerpItem] = {}
        for item in items:
            by_url.setdefault(urldefrag(item.url).url, item)
        items = [replace(item, url=url) for url, item in by_url.items()]
        outcome = eh.fetch_outcome(result.get("status"), error, len(items))
        if outcome is not None:
            await ctx.call(
                "graph",
                "record_engine_outcome",
                engine,
                outcome,
                result.get("elapsed_ms"),
                result.get("circuit_state"),
            )
        if error:
            ctx.warnings.append(f"{engine}: no results ({error})")
            return None
        rows: list[dict[str, Any]] = [
            {
                "id": rs.serp_item_id(ctx.search_id, engine, item.url),
                "search_id": ctx.search_id,
                "engine": engine,
                "rank": item.rank,
                "url": item.url,
                "title": self.guarded(item.url, item.title),
                "snippet": self.guarded(item.url, item.snippet),
                "published_date": item.date,
                "source_tag": item.source_tag,
            }
            for item in items
            if rs.serp_item_id(ctx.search_id, engine, item.url) not in self._serp_ids
        ]
        if rows:
            await ctx.call("graph", "insert_serp_items", rows)
        self.serp_urls.update(r["url"] for r in rows)
        self._serp_ids.update(r["id"] for r in rows)
        if self.discovery is not None:
            for item in items:
                self.discovery.note_serp_item(item.url, item.title, item.snippet)
        return items

    def guarded(self, url: str, text: str | None) -> str | None:
        """A SERP title or snippet as the guard leaves it (it is returned by query_graph)."""
        if not text:
            return text
        guarded = guard_text(text)
        self._note_detections(url, list(guarded.detections))
        return guarded.text
