"""What follows a person's "resolved" on the auth queue (seed 003 §3.6.1): the session
they opened moves into the fetcher of their site, and the queued work runs again.

Not an actor: the Orchestrator hands ``AuthService.resolve`` a ``SessionHandOver`` as
its ``on_resolved`` hook. The cookies the person's browser now holds for the domain
move into the domain's HTTP client (same registrable domain only), its circuit closes,
and the items' URLs are fetched again in a new search per task, with the query of the
search that queued them, so the rest of the pipeline runs on them.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from lyra.pipelines.errors import LyraError
from lyra.pipelines.net.domains import registrable_domain

log = logging.getLogger(__name__)

Call = Callable[..., Awaitable[Any]]
StartSearch = Callable[[str, str, dict[str, Any]], Awaitable[str]]


class SessionHandOver:
    """``on_resolved(domain, items)``: session transfer, then re-queue per task."""

    def __init__(
        self,
        *,
        graph: Call,
        browser: Call,
        fetcher_of: Callable[[str], Awaitable[Any]],
        start_search: StartSearch,
    ) -> None:
        self._graph = graph
        self._browser = browser
        self._fetcher_of = fetcher_of
        self._start_search = start_search

    async def __call__(self, domain: str, items: list[dict[str, Any]]) -> dict[str, Any]:
        domain = registrable_domain(domain)
        cookies: list[dict[str, Any]] = []
        try:
            cookies = await self._browser("cookies_for", domain)
        except LyraError:
            log.warning("no browser to take the session of %s from", domain)
        fetcher = await self._fetcher_of(domain)
        await fetcher.add_cookies.remote(cookies, reset_circuit=True)
        by_task: dict[str, list[dict[str, Any]]] = {}
        for item in items:
            if item.get("task_id"):
                by_task.setdefault(str(item["task_id"]), []).append(item)
        requeued: list[str] = []
        warnings: list[str] = []
        for task_id, task_items in by_task.items():
            urls = list(dict.fromkeys(str(i["url"]) for i in task_items))
            query = await self._query_of(task_items, task_id)
            try:
                search_id = await self._start_search(
                    task_id, query, {"urls": urls, "max_pages": len(urls), "engines": []}
                )
            except LyraError as exc:
                log.warning("could not re-queue %d URLs of %s: %s", len(urls), task_id, exc)
                warnings.append(f"{len(urls)} URLs of {task_id} not re-queued: {exc.code}")
                continue
            requeued.append(search_id)
        return {
            "session_stored": bool(cookies),
            "requeued_searches": requeued,
            "warnings": warnings,
        }

    async def _query_of(self, items: list[dict[str, Any]], task_id: str) -> str:
        """The query of the search that queued these items (else the task's own)."""
        for item in items:
            search_id = item.get("search_id")
            if search_id:
                searches = await self._graph("list_searches", task_id)
                for s in searches:
                    if s["id"] == search_id:
                        return str(s["query"])
        task = await self._graph("get_task", task_id)
        if task is None:
            raise LyraError("TASK_NOT_FOUND", f"no task with id {task_id!r}", field="task_id")
        return str(task["query"])
