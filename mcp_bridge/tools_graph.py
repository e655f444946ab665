"""The tools that read the evidence graph: query_graph, vector_search, export (and its
resource), cleanup_task (ARCHITECTURE §5).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp_types import ToolAnnotations
from pydantic import Field

from lyra.mcp_bridge import models as m
from lyra.mcp_bridge.errors import resource_error
from lyra.mcp_bridge.lyra_runtime import LyraRuntime
from lyra.mcp_bridge.responses import (
    PREVIEW_CHARS,
    export_warnings,
    masked_text_warnings,
)
from lyra.mcp_bridge.tool_server import LyraMCPServer, runtime_of
from lyra.mcp_bridge.tools_research import require_words
from lyra.pipelines.errors import LyraError


def register(server: LyraMCPServer) -> None:
    """Add query_graph, vector_search, export, its resource and cleanup_task to ``server``."""

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def query_graph(
        ctx: Context[LyraRuntime, Any],
        sql: Annotated[
            str | None,
            Field(
                max_length=20_000,
                description="One read-only SELECT over the graph tables and views.",
            ),
        ] = None,
        view: Annotated[
            str | None, Field(max_length=100, description="A named analysis view instead of sql.")
        ] = None,
        params: Annotated[
            dict[str, Any] | None,
            Field(
                description="Parameters of a view, or values for $name placeholders in sql "
                '(e.g. sql "... WHERE task_id = $task_id" with {"task_id": "task_..."}).'
            ),
        ] = None,
        options: Annotated[
            m.QueryOptions | None,
            Field(description="limit (<=200), timeout_ms (<=2000), include_schema"),
        ] = None,
    ) -> m.QueryGraphResult:
        """Read-only SQL over the evidence graph in a sandbox, or a named view.

        Tables: tasks, searches, serp_items, pages, fragments, claims, edges, embeddings,
        domains, auth_queue. Views: claim_evidence_summary, contradictions,
        unsupported_claims and more (include_schema lists them).
        """
        rt = runtime_of(ctx)
        if (sql is None) == (view is None):
            raise LyraError("INVALID_PARAMS", "give exactly one of sql or view", field="sql")
        opts = options or m.QueryOptions()
        qg = rt.settings.query_graph
        limit = min(opts.limit or qg.default_limit, qg.max_limit)
        timeout = min(opts.timeout_ms or qg.default_timeout_ms, qg.max_timeout_ms)
        out = await rt.call(
            "query_graph", sql, view, params or {}, limit, timeout, opts.include_schema
        )
        url_at = out["columns"].index("url") if "url" in out["columns"] else None
        cells = [
            (row[url_at] if url_at is not None else None, cell)
            for row in out["rows"]
            for cell in row
        ]
        return m.QueryGraphResult(
            **out, lyra_meta=await rt.meta(security=masked_text_warnings(cells))
        )

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def vector_search(
        query: Annotated[
            str, Field(min_length=1, max_length=2000, description="Text to search for.")
        ],
        ctx: Context[LyraRuntime, Any],
        target: Annotated[
            Literal["claims", "fragments"], Field(description="Search claims or fragments.")
        ] = "claims",
        task_id: Annotated[str | None, Field(description="Limit to one task.")] = None,
        top_k: Annotated[int, Field(ge=1, le=100)] = 10,
        min_similarity: Annotated[float, Field(ge=-1.0, le=1.0)] = 0.3,
    ) -> m.VectorSearchResult:
        """Semantic search over claims or fragments by embedding similarity."""
        require_words(query, "query")
        rt = runtime_of(ctx)
        hits = await rt.call(
            "vector_search", query, target.rstrip("s"), task_id, top_k, min_similarity
        )
        return m.VectorSearchResult(
            target=target,
            results=[
                m.VectorHit(
                    id=h["id"],
                    text_preview=(h.get("text") or "")[:PREVIEW_CHARS],
                    similarity=h["similarity"],
                    url=h.get("url"),
                    domain=h.get("domain"),
                    task_id=h.get("task_id"),
                    page_number=h.get("page_number"),
                )
                for h in hits
            ],
            lyra_meta=await rt.meta(
                security=masked_text_warnings(
                    (h.get("url"), (h.get("text") or "")[:PREVIEW_CHARS]) for h in hits
                )
            ),
        )

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def export(
        task_id: Annotated[str, Field(min_length=1, description="Task from create_task.")],
        format: Annotated[
            Literal["bibtex", "ris", "csl-json", "graphml", "jsonl", "markdown", "html"],
            Field(
                description="bibtex / ris / csl-json: one entry per cited source, the claims "
                "it supports or refutes in the note; graphml: the evidence graph (claims, "
                "fragments, pages; stance, part_of and cites edges); jsonl: one line per "
                "claim with its edges, quotes and their places; markdown: an evidence "
                "report; html: the same report with a drawing of the graph, one "
                "self-contained file."
            ),
        ],
        ctx: Context[LyraRuntime, Any],
    ) -> m.ExportResult:
        """A task's evidence as a bibliography or a report, as text in `content`.

        The same text is the resource lyra://tasks/{task_id}/export/{format} for
        clients that read resources, and `lyra export TASK --format F` on the command
        line. Sources are the pages and papers that a claim was
        extracted from or that support or refute one (neutral ones cite nothing);
        citation keys are stable (author or site, year, first title word).
        """
        rt = runtime_of(ctx)
        out = await rt.call("export_task", task_id, format)
        return m.ExportResult(
            task_id=task_id,
            resource_uri=f"lyra://tasks/{task_id}/export/{format}",
            **out,
            lyra_meta=await rt.meta(security=export_warnings(str(out["content"]))),
        )

    @server.resource(
        "lyra://tasks/{task_id}/export/{format}",
        name="task_export",
        description="A task's evidence as bibtex, ris, csl-json, graphml, jsonl, markdown or html "
        "(the export tool returns the same text).",
    )
    async def task_export(task_id: str, format: str, ctx: Context[LyraRuntime, Any]) -> str:
        try:
            out: dict[str, Any] = await runtime_of(ctx).call("export_task", task_id, format)
        except Exception as exc:  # a typed JSON-RPC error, not the SDK's generic one
            raise resource_error(exc, f"lyra://tasks/{task_id}/export/{format}") from None
        content: str = out["content"]
        return content

    @server.tool(
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=True
        )
    )
    async def cleanup_task(
        task_id: Annotated[str, Field(min_length=1, description="Task from create_task.")],
        ctx: Context[LyraRuntime, Any],
        mode: Annotated[
            Literal["soft", "hard"],
            Field(
                description="soft: the task's claims and their edges; hard: also the pages, "
                "fragments and archive files that only this task used."
            ),
        ] = "soft",
        dry_run: Annotated[
            bool, Field(description="true (default): only list what would be removed.")
        ] = True,
    ) -> m.CleanupResult:
        """Remove a task's evidence. Destructive unless dry_run (the default).

        Never removes what another task still uses (a page another task's search took,
        or that an edge of another task cites); the task itself and its searches stay.
        Refused (INVALID_PARAMS) while a search of the task runs: stop_task first.
        Returns counts of claims, edges, SERP rows and fragments, the page ids and
        files removed (or that would be), and the pages kept because others use them.
        """
        rt = runtime_of(ctx)
        out = await rt.call("cleanup_task", task_id, mode == "hard", dry_run)
        return m.CleanupResult(**out, lyra_meta=await rt.meta())
