"""The research tools: create_task, search, get_status, stop_task (ARCHITECTURE §5)."""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp_types import ToolAnnotations
from pydantic import Field

from lyra.jobs.search_context import INTERRUPTED_BY_RESTART
from lyra.mcp_bridge import models as m
from lyra.mcp_bridge.lyra_runtime import LyraRuntime, unverified_domains
from lyra.mcp_bridge.responses import (
    claim_out,
    iso,
    not_adopted_out,
    public_metrics,
    task_security,
)
from lyra.mcp_bridge.tool_server import LyraMCPServer, runtime_of
from lyra.pipelines.errors import DEGRADED_PREFIX, LyraError
from lyra.pipelines.evidence.research import new_search_id, new_task_id

# How often a search that the client waits for reports its progress.
PROGRESS_POLL_SECONDS = 1.0
# How many times one search call starts its search again after restarts of the
# orchestrator interrupted it (a search that keeps crashing it fails then).
SEARCH_RESTARTS = 2


def interrupted(polled: dict[str, Any]) -> bool:
    """A search `wait_search` reports failed by a restart of the orchestrator."""
    error = polled["result"].get("error") or {}
    return bool(
        polled["result"]["status"] == "failed" and error.get("message") == INTERRUPTED_BY_RESTART
    )


def require_words(text: str, field: str) -> None:
    """INVALID_PARAMS for a question with no letter or digit ("   ", control characters):
    it would be stored, searched for and shown as if it asked something."""
    if not any(ch.isalnum() for ch in text):
        raise LyraError("INVALID_PARAMS", f"{field} has no words", field=field)


def register(server: LyraMCPServer) -> None:
    """Add create_task, search, get_status and stop_task to ``server``."""

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=False))
    async def create_task(
        query: Annotated[
            str,
            Field(min_length=1, max_length=m.QUERY_MAX_CHARS, description="The research question."),
        ],
        ctx: Context[LyraRuntime, Any],
        config: Annotated[
            m.TaskConfig | None,
            Field(description="budget {max_pages, max_seconds}, priority_domains, language"),
        ] = None,
    ) -> m.CreateTaskResult:
        """Create a research task with a budget; returns its task_id."""
        require_words(query, "query")
        rt = runtime_of(ctx)
        cfg = config.model_dump(exclude_none=True) if config else {}
        task = await rt.call("create_task", query, cfg, new_task_id())
        return m.CreateTaskResult(
            task_id=task["id"],
            query=task["query"],
            status=task["status"],
            budget=(task.get("config") or {}).get("budget", {}),
            created_at=iso(task["created_at"]) or "",
            lyra_meta=await rt.meta(),
        )

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=False))
    async def search(
        task_id: Annotated[str, Field(min_length=1, description="Task from create_task.")],
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=m.QUERY_MAX_CHARS,
                description="The query, designed by the client.",
            ),
        ],
        ctx: Context[LyraRuntime, Any],
        options: Annotated[
            m.SearchOptions | None, Field(description="engines, urls, max_pages, wait_seconds, ...")
        ] = None,
    ) -> m.SearchResult:
        """Run the pipeline (search, fetch, extract, claims, stance, confidence).

        Returns when done, or after wait_seconds (default 50) with status `running`,
        its progress and partial metrics (urls_fetched from the first fetch on; pages
        once stored); then poll get_status. Progress notifications are sent while it
        runs. A search that a server restart interrupts while this call waits is
        started again (twice at most): the answer is for the new one, and its warnings
        name both.
        """
        require_words(query, "query")
        rt = runtime_of(ctx)
        opts = options or m.SearchOptions()
        wait = (
            opts.wait_seconds
            if opts.wait_seconds is not None
            else rt.settings.search.default_wait_seconds
        )
        wait = min(wait, rt.settings.search.max_wait_seconds)

        async def start() -> str:
            sid: str = await rt.call(
                "start_search",
                task_id,
                query,
                opts.model_dump(exclude_none=True),
                None,
                new_search_id(),
            )
            return sid

        search_id = await start()
        # A search that a restart of the orchestrator interrupted before this call
        # answered is started again (a few times at most), and the answer says so.
        restarted: list[str] = []
        deadline = time.monotonic() + wait
        while True:
            remaining = deadline - time.monotonic()
            polled = await rt.call(
                "wait_search", search_id, max(0.0, min(PROGRESS_POLL_SECONDS, remaining))
            )
            if polled["done"] and len(restarted) < SEARCH_RESTARTS and interrupted(polled):
                interrupted_id, search_id = search_id, await start()
                restarted.append(
                    f"search {interrupted_id} was interrupted by a server restart; "
                    f"started again as {search_id}"
                )
                continue
            if polled["done"]:
                break
            prog = polled["progress"]
            await ctx.report_progress(float(prog.get("progress", 0.0)), 1.0, prog.get("message"))
            if time.monotonic() >= deadline:
                summary = await rt.call("search_summary", search_id)
                partial = public_metrics(polled.get("metrics") or {})
                return m.SearchResult(
                    search_id=search_id,
                    task_id=task_id,
                    status="running",
                    pages_fetched=int(partial.get("pages_fetched", 0)),
                    useful_fragments=int(partial.get("useful_fragments", 0)),
                    metrics=partial,
                    warnings=[*restarted, *(polled.get("metrics") or {}).get("warnings", [])][:50],
                    progress=prog,
                    budget_remaining=summary["budget"],
                    lyra_meta=await rt.meta(),
                )
        result = polled["result"]
        if result["status"] == "failed":
            err = result.get("error") or {}
            raise LyraError(
                err.get("code", "PIPELINE_ERROR"),
                f"search {search_id} failed: {err.get('message', 'unknown error')}",
            )
        await ctx.report_progress(1.0, 1.0, result["status"])
        summary = await rt.call("search_summary", search_id)
        met = result["metrics"]
        return m.SearchResult(
            search_id=search_id,
            task_id=task_id,
            status=result["status"],
            claims_found=[claim_out(c) for c in result["claims"]],
            pages_fetched=met.get("pages_fetched", 0),
            useful_fragments=met.get("useful_fragments", 0),
            harvest_rate=met.get("harvest_rate", 0.0),
            satisfaction=met.get("satisfaction", 0.0),
            novelty=met.get("novelty", 0.0),
            budget_remaining=summary["budget"],
            metrics=public_metrics(met),
            warnings=[*restarted, *result.get("warnings", [])][:50],
            lyra_meta=await rt.meta(
                result["claims"],
                result.get("warnings"),
                result.get("security_warnings"),
                blocked=result.get("blocked_domains"),
            ),
        )

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def get_status(
        task_id: Annotated[str, Field(min_length=1, description="Task from create_task.")],
        ctx: Context[LyraRuntime, Any],
        wait_seconds: Annotated[
            float,
            Field(
                ge=0,
                le=110,
                description="Long-poll: wait up to this long for a running search to end.",
            ),
        ] = 0,
        detail: Annotated[
            Literal["summary", "full"], Field(description="full adds every claim")
        ] = "summary",
    ) -> m.GetStatusResult:
        """Task status: searches with their status, metrics, budget, auth queue, evidence summary."""
        rt = runtime_of(ctx)
        st = await rt.call("get_status", task_id, wait_seconds)
        searches = [
            m.SearchStatus(
                search_id=s["id"],
                query=s["query"],
                status=s["status"],
                created_at=iso(s.get("created_at")),
                finished_at=iso(s.get("finished_at")),
                metrics=public_metrics(s.get("metrics") or {}),
                progress=s.get("progress"),
                error=s.get("error"),
                warnings=(s.get("metrics") or {}).get("warnings", []),
            )
            for s in st["searches"]
        ]
        totals: dict[str, Any] = {"searches": len(searches), "claims": len(st["claims"])}
        for key in ("pages_fetched", "useful_fragments", "new_claims", "edges_added"):
            totals[key] = sum(int(s.metrics.get(key, 0)) for s in searches)
        totals["harvest_rate"] = (
            round(totals["useful_fragments"] / totals["pages_fetched"], 4)
            if totals["pages_fetched"]
            else 0.0
        )
        totals["instance"] = rt.instance()
        by_evidence = sorted(st["claims"], key=lambda c: (-c["evidence_count"], c["id"]))
        not_adopted_claims = [n for n in map(not_adopted_out, by_evidence) if n is not None]
        totals["not_adopted"] = len(not_adopted_claims)
        claims = st["claims"] if detail == "full" else by_evidence[:20]
        if detail != "full":
            not_adopted_claims = not_adopted_claims[:20]
        task_config = st["task"].get("config") or {}
        return m.GetStatusResult(
            task_id=st["task"]["id"],
            query=st["task"]["query"],
            status=st["task"]["status"],
            priority_domains=task_config.get("priority_domains") or [],
            language=task_config.get("language"),
            searches=searches,
            metrics=totals,
            budget=st["budget"],
            auth_queue=m.AuthQueueSummary(**st["auth_queue"]),
            blocked_domains=[
                m.BlockedDomain(**{**b, "blocked_at": iso(b.get("blocked_at"))})
                for b in st["blocked_domains"]
            ],
            verification_alerts=[
                m.VerificationAlert(**a) for a in st.get("verification_alerts") or []
            ],
            unverified_domains=unverified_domains(st["claims"]),
            evidence_summary=st["evidence_summary"],
            claims=[claim_out(c) for c in claims],
            not_adopted=not_adopted_claims,
            reference_candidates=[
                m.ReferenceCandidate(**r) for r in st.get("reference_candidates") or []
            ],
            lyra_meta=await rt.meta(
                st["claims"],
                # the fallbacks the task's searches noted (a question in another
                # language, citation relevance without an LLM) hold for the task too
                [w for s in searches for w in s.warnings if w.startswith(DEGRADED_PREFIX)],
                security=task_security(st["searches"]),
                blocked=st["blocked_domains"],
                status=st["meta_status"],
            ),
        )

    @server.tool(
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=True
        )
    )
    async def stop_task(
        task_id: Annotated[str, Field(min_length=1, description="Task to stop.")],
        ctx: Context[LyraRuntime, Any],
        reason: Annotated[
            str | None, Field(max_length=500, description="Why (kept in event_log).")
        ] = None,
        mode: Annotated[
            Literal["graceful", "immediate"], Field(description="graceful: after the current stage")
        ] = "graceful",
    ) -> m.StopTaskResult:
        """Stop a task's searches; the task stays resumable (a new search reopens it)."""
        rt = runtime_of(ctx)
        out = await rt.call("stop_task", task_id, reason, mode)
        return m.StopTaskResult(**out, lyra_meta=await rt.meta())
