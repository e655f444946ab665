"""The MCP server: nine tools over the Orchestrator (ARCHITECTURE §5).

Ray starts lazily on the first tool call that needs it (in the main thread: Ray's
GCS client fails when initialised from a helper thread), so ``initialize`` and
``tools/list`` answer at once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
import warnings
from collections import Counter
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

import anyio
import ray
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import CallToolResult, LoggingLevel, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, create_model

import lyra.actors.telemetry as telemetry
from lyra.actors.runtime import (
    degraded_notes,
    ensure_ray,
    instance_info,
    orchestrator_options,
)
from lyra.config.settings import Settings, get_settings
from lyra.jobs.search_context import DEGRADED_PREFIX
from lyra.mcp_bridge import models as m
from lyra.mcp_bridge.errors import error_payload, resource_error, unwrap
from lyra.pipelines.errors import LyraError
from lyra.pipelines.evidence.confidence import not_adopted
from lyra.pipelines.evidence.research import PRIMARY_LEVELS, new_search_id, new_task_id
from lyra.pipelines.extract.injection import MASK
from lyra.storage.export.report import md_escape

log = logging.getLogger("lyra.mcp")
PROGRESS_POLL_SECONDS = 1.0
# Orchestrator methods that only read: safe to send again after a crash.
IDEMPOTENT_METHODS = frozenset(
    {
        "ping",
        "status",
        "get_status",
        "wait_search",
        "query_graph",
        "export_task",
        "vector_search",
        "get_auth_queue",
        "search_summary",
    }
)
# Writes whose caller names what they make (the bridge passes a new task or search id):
# sent again after a crash, they return what the first call made (decision 0046).
REPEATABLE_WRITES = frozenset({"create_task", "start_search"})
# How long a read waits for a restarting orchestrator (its start reads DuckDB back
# and starts its children: seconds), and the first pause between tries.
RESTART_WAIT_SECONDS = 60.0
RESTART_BACKOFF_SECONDS = 0.2


class LyraRuntime:
    """Handles to Ray, held in the server's lifespan context."""

    def __init__(
        self,
        settings: Settings,
        orchestrator: Any | None = None,
        http_port: int | None = None,
        match_settings: bool = True,
    ) -> None:
        self.settings = settings
        self._orch: Any | None = orchestrator
        self.http_port = http_port
        self._match_settings = match_settings

    def instance(self) -> dict[str, Any]:
        """This Lyra's Ray and ports (get_status metrics `instance`)."""
        return {**instance_info(), "http_port": self.http_port}

    def orchestrator(self) -> Any:
        """The named orchestrator, starting Ray and the actor on first use."""
        if self._orch is None:
            from lyra.actors.orchestrator import Orchestrator

            ensure_ray(self.settings, role="mcp", match_settings=self._match_settings)
            log.info("Ray: %s", json.dumps(instance_info()))
            self._orch = Orchestrator.options(  # type: ignore[attr-defined]
                **orchestrator_options(self.settings)
            ).remote(self.settings)
        return self._orch

    async def call(self, method: str, *args: Any) -> Any:
        """Call the orchestrator; the original exception is re-raised.

        A read (``IDEMPOTENT_METHODS``) or a write that names what it makes
        (``REPEATABLE_WRITES``, called with the id) that meets an orchestrator being
        restarted, or one dead for good (then the named one is found or created again,
        and it reads its state back from DuckDB), is tried again with backoff for up to
        ``RESTART_WAIT_SECONDS`` instead of failing. Other calls are not repeated: an
        orchestrator that died while handling one may or may not have done it.
        """
        delay = RESTART_BACKOFF_SECONDS
        deadline = time.monotonic() + RESTART_WAIT_SECONDS
        while True:
            handle = self.orchestrator()
            try:
                return await getattr(handle, method).remote(*args)
            except ray.exceptions.RayTaskError as exc:
                raise unwrap(exc) from None
            except ray.exceptions.RayActorError as exc:
                telemetry.actor_restart("orchestrator")
                if isinstance(exc, ray.exceptions.ActorDiedError) and self._orch is handle:
                    self._orch = None  # found again, or re-created, on the next try
                repeatable = method in IDEMPOTENT_METHODS or method in REPEATABLE_WRITES
                if not repeatable or time.monotonic() + delay > deadline:
                    raise
                log.warning(
                    "orchestrator unavailable for %s (%s); trying again in %.1f s",
                    method,
                    type(exc).__name__,
                    delay,
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)

    async def meta(
        self,
        claims: list[dict[str, Any]] | None = None,
        warnings: list[str] | None = None,
        security: list[dict[str, Any]] | None = None,
        blocked: list[dict[str, Any]] | None = None,
    ) -> m.LyraMeta:
        """_lyra_meta: fallbacks in use, security warnings, unverified and blocked domains.

        Security warnings are the search's detections in page text (`security`, one
        per page, kind and detail) and the L2 danger phrases named in `warnings`; the
        fallbacks a search noted in `warnings` ("degraded: ...") join the models'.
        """
        status = await self.call("status")
        unverified = unverified_domains(claims or [])
        found = [m.SecurityWarning(**w) for w in security or []]
        for w in sorted({w for w in warnings or [] if w.startswith("danger")}):
            kind, _, detail = w.partition(":")
            found.append(m.SecurityWarning(kind=kind, detail=detail or kind))
        noted = sorted(
            {
                w.removeprefix(DEGRADED_PREFIX)
                for w in warnings or []
                if w.startswith(DEGRADED_PREFIX)
            }
        )
        return m.LyraMeta(
            degraded=[*status["degraded"], *degraded_notes(), *noted],
            security_warnings=found,
            unverified_domains=unverified,
            blocked_domains=sorted({str(b["domain"]) for b in blocked or []}),
        )


class LyraMCPServer(MCPServer[LyraRuntime]):
    """MCPServer whose tool errors are the JSON error object of §5."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except MCPError:
            raise
        except Exception as exc:  # every failure becomes a typed error result (L7)
            payload = error_payload(exc, name)
            # No structured_content: clients validate it against the tool's output
            # schema even on errors (the MCP Inspector does), and the error object is
            # not that schema.
            return CallToolResult(
                content=[TextContent(type="text", text=json.dumps(payload))],
                is_error=True,
            )


def unverified_domains(claims: Iterable[dict[str, Any]]) -> list[str]:
    """The domains of the claims' sources that are still UNVERIFIED (L5, L6)."""
    return sorted(
        {
            str(c["source_domain"])
            for c in claims
            if c.get("source_trust_level") == "UNVERIFIED" and c.get("source_domain")
        }
    )


def _rt(ctx: Context[LyraRuntime, Any]) -> LyraRuntime:
    return ctx.request_context.lifespan_context


def _iso(value: Any) -> str | None:
    if value is None:
        return None
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def _task_security(searches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The security warnings of a task's searches, one per page, kind and detail."""
    merged: dict[tuple[str, str, str], dict[str, Any]] = {}
    for s in searches:
        for w in (s.get("metrics") or {}).get("security_warnings", []):
            key = (str(w.get("url")), str(w["kind"]), str(w["detail"]))
            if key not in merged or w.get("count", 1) > merged[key].get("count", 1):
                merged[key] = w
    return [merged[k] for k in sorted(merged)]


PREVIEW_CHARS = 300  # vector_search's text_preview
MASKED_DETAIL = "the returned text holds a sentence addressed to AI readers, masked when read"


def masked_text_warnings(texts: Iterable[tuple[str | None, Any]]) -> list[dict[str, Any]]:
    """One security warning per URL whose returned text holds masked sentences.

    Page text is masked when it is read (`injection.MASK` replaces each instruction to AI
    readers); a tool that returns page text (fragments, quotes, exports) names what it
    carries in `_lyra_meta.security_warnings`, as search and get_status name what the
    pages held.
    """
    counts: Counter[str | None] = Counter()
    for url, text in texts:
        if isinstance(text, str) and MASK in text:
            counts[url] += text.count(MASK)
    return [
        {"kind": "masked_instruction", "detail": MASKED_DETAIL, "url": url, "count": n}
        for url, n in sorted(counts.items(), key=lambda kv: kv[0] or "")
    ]


def export_warnings(content: str) -> list[dict[str, Any]]:
    """The masked sentences an export carries (Markdown escapes the mask's brackets)."""
    return masked_text_warnings([(None, content.replace(md_escape(MASK), MASK))])


def claim_out(c: dict[str, Any]) -> m.ClaimOut:
    """A claim row with its confidence, as the client sees it."""
    return m.ClaimOut(
        id=c["id"],
        text=c["claim_text"],
        confidence=round(c["confidence"], 4),
        uncertainty=round(c["uncertainty"], 4),
        controversy=round(c["controversy"], 4),
        supports=c["supporting"],
        refutes=c["refuting"],
        neutral=c["neutral"],
        independent_sources=c["independent_sources"],
        source_url=c.get("source_url"),
        source_domain=c.get("source_domain"),
        trust_level=c.get("source_trust_level"),
        primary=c.get("source_trust_level") in PRIMARY_LEVELS,
        extraction_method=c.get("extraction_method"),
        source_retracted=bool(c.get("source_retracted")),
        verification_status=c.get("verification_status") or "pending",
        verification_details=(
            m.VerificationDetails(**c["verification_details"])
            if c.get("verification_details")
            else None
        ),
    )


RECHECK = "a later search in this task (same task_id) judges the claim against every new page"


def not_adopted_out(c: dict[str, Any]) -> m.NotAdoptedClaim | None:
    """A claim that is not adopted, with why and what would adopt it; None if adopted."""
    found = not_adopted(c["supporting"], c["refuting"], c["alpha"], c["beta"])
    if found is None:
        return None
    # Rounded up to the cent ("at least 0.00" would mislead); the inner round drops the
    # float noise that would push 0.01 to 0.02.
    needed = math.ceil(round(found.support_needed * 100, 9)) / 100
    if found.sources_needed:
        condition = "a passage of another page that supports it"
        if found.support_needed > 0:
            condition += (
                f", with supporting NLI confidence of at least {needed:.2f} summed over the "
                "supporting passages (each gives at most 1)"
            )
    else:
        condition = (
            f"more supporting evidence: NLI confidence of at least {needed:.2f} summed over "
            "new supporting passages (each gives at most 1)"
        )
    return m.NotAdoptedClaim(
        claim_id=c["id"],
        text=c["claim_text"],
        status=found.status,
        reason=found.reason,
        confidence=round(c["confidence"], 4),
        supports=c["supporting"],
        refutes=c["refuting"],
        source_url=c.get("source_url"),
        source_domain=c.get("source_domain"),
        source_trust_level=c.get("source_trust_level"),
        created_at=_iso(c.get("created_at")),
        recovery=m.ClaimRecovery(
            conditions=[condition, RECHECK],
            support_needed=round(found.support_needed, 4),
            sources_needed=found.sources_needed,
            refuted_by=list(c.get("refuting_urls") or []),
        ),
    )


async def _log_to_client(ctx: Context[LyraRuntime, Any], level: LoggingLevel, text: str) -> None:
    """An MCP log message (notifications/message) to the calling client."""
    # The 2026-07-28 protocol deprecates MCP logging but still delivers it to clients
    # that opt in, and the design (ARCHITECTURE §5) uses it as notify_user's in-client
    # channel; the SDK's deprecation warning is expected here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        await ctx.log(level, text, logger_name="lyra.notify")


def _form_for(
    prompt: str, options: m.WaitOptions | None, ctx: Context[Any, Any]
) -> Elicit[BaseModel] | None:
    """wait_for_user's question as an elicitation form (a choice among the options, or
    free text), when the client declared it can show one; None: it cannot."""
    caps = ctx.client_capabilities
    if caps is None or caps.elicitation is None:
        return None
    if caps.elicitation.form is None and caps.elicitation.url is not None:
        return None  # URL elicitation only: no forms
    choices = options.choices if options is not None else None
    if choices:
        listed = list(choices)

        def as_enum(schema: dict[str, Any]) -> None:
            # One choice renders as `const`, which clients show as a text box: an enum.
            schema.pop("const", None)
            schema["enum"] = listed
            schema["type"] = "string"

        kind: Any = Literal[tuple(choices)]
        pick: type[BaseModel] = create_model(
            "Choice", answer=(kind, Field(title="Your choice", json_schema_extra=as_enum))
        )
        return Elicit(prompt, pick)
    text: type[BaseModel] = create_model(
        "Answer", answer=(str, Field(title="Your answer", min_length=1))
    )
    return Elicit(prompt, text)


def build_server(
    settings: Settings | None = None,
    orchestrator: Any | None = None,
    http_port: int | None = None,
) -> LyraMCPServer:
    """The MCP server with its nine tools; `orchestrator`: a live handle to use (the
    notebook API's), else the named one is found or started on first use; `http_port`:
    the port of `lyra serve --http` (reported by get_status)."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(_: MCPServer[LyraRuntime]) -> AsyncIterator[LyraRuntime]:
        yield LyraRuntime(settings, orchestrator, http_port)

    server = LyraMCPServer(
        name="lyra",
        instructions=(
            "Lyra does research work locally: create_task, then search (local corpus or "
            "urls), poll get_status, explore with query_graph (read-only SQL, views) and "
            "vector_search. Claims carry Bayesian confidence and provenance. Pages behind a "
            "CAPTCHA or login wait in the auth queue (get_status.auth_queue, get_auth_queue); "
            "ask the user, then report with resolve_auth. notify_user reaches the user's desktop."
        ),
        lifespan=lifespan,
    )

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=False))
    async def create_task(
        query: Annotated[
            str, Field(min_length=1, max_length=2000, description="The research question.")
        ],
        ctx: Context[LyraRuntime, Any],
        config: Annotated[
            m.TaskConfig | None,
            Field(description="budget {max_pages, max_seconds}, priority_domains, language"),
        ] = None,
    ) -> m.CreateTaskResult:
        """Create a research task with a budget; returns its task_id."""
        rt = _rt(ctx)
        cfg = config.model_dump(exclude_none=True) if config else {}
        task = await rt.call("create_task", query, cfg, new_task_id())
        return m.CreateTaskResult(
            task_id=task["id"],
            query=task["query"],
            status=task["status"],
            budget=(task.get("config") or {}).get("budget", {}),
            created_at=_iso(task["created_at"]) or "",
            lyra_meta=await rt.meta(),
        )

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=False))
    async def search(
        task_id: Annotated[str, Field(min_length=1, description="Task from create_task.")],
        query: Annotated[
            str,
            Field(min_length=1, max_length=2000, description="The query, designed by the client."),
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
        runs.
        """
        rt = _rt(ctx)
        opts = options or m.SearchOptions()
        wait = (
            opts.wait_seconds
            if opts.wait_seconds is not None
            else rt.settings.search.default_wait_seconds
        )
        wait = min(wait, rt.settings.search.max_wait_seconds)
        search_id = await rt.call(
            "start_search",
            task_id,
            query,
            opts.model_dump(exclude_none=True),
            None,
            new_search_id(),
        )
        deadline = time.monotonic() + wait
        while True:
            remaining = deadline - time.monotonic()
            polled = await rt.call(
                "wait_search", search_id, max(0.0, min(PROGRESS_POLL_SECONDS, remaining))
            )
            if polled["done"]:
                break
            prog = polled["progress"]
            await ctx.report_progress(float(prog.get("progress", 0.0)), 1.0, prog.get("message"))
            if time.monotonic() >= deadline:
                summary = await rt.call("search_summary", search_id)
                partial = {
                    k: v
                    for k, v in (polled.get("metrics") or {}).items()
                    if k != "security_warnings"
                }
                return m.SearchResult(
                    search_id=search_id,
                    task_id=task_id,
                    status="running",
                    pages_fetched=int(partial.get("pages_fetched", 0)),
                    useful_fragments=int(partial.get("useful_fragments", 0)),
                    metrics=partial,
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
            metrics={k: v for k, v in met.items() if k != "security_warnings"},
            warnings=result.get("warnings", [])[:50],
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
        rt = _rt(ctx)
        st = await rt.call("get_status", task_id, wait_seconds)
        searches = [
            m.SearchStatus(
                search_id=s["id"],
                query=s["query"],
                status=s["status"],
                created_at=_iso(s.get("created_at")),
                finished_at=_iso(s.get("finished_at")),
                metrics={
                    k: v for k, v in (s.get("metrics") or {}).items() if k != "security_warnings"
                },
                progress=s.get("progress"),
                error=s.get("error"),
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
                m.BlockedDomain(**{**b, "blocked_at": _iso(b.get("blocked_at"))})
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
                security=_task_security(st["searches"]),
                blocked=st["blocked_domains"],
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
        rt = _rt(ctx)
        out = await rt.call("stop_task", task_id, reason, mode)
        return m.StopTaskResult(**out, lyra_meta=await rt.meta())

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
        rt = _rt(ctx)
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
        rt = _rt(ctx)
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
        rt = _rt(ctx)
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
            out: dict[str, Any] = await _rt(ctx).call("export_task", task_id, format)
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
        rt = _rt(ctx)
        out = await rt.call("cleanup_task", task_id, mode == "hard", dry_run)
        return m.CleanupResult(**out, lyra_meta=await rt.meta())

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def get_auth_queue(
        ctx: Context[LyraRuntime, Any],
        task_id: Annotated[
            str | None, Field(description="Only this task's items (default: every task).")
        ] = None,
        group_by: Annotated[
            Literal["none", "domain", "type"],
            Field(description="none: one entry per item; domain or type: counts per group."),
        ] = "none",
        priority_filter: Annotated[
            Literal["high", "normal", "all"],
            Field(description="A floor: high only, high and normal, or all (low too)."),
        ] = "all",
    ) -> m.AuthQueueResult:
        """Pages waiting for the user to pass a CAPTCHA, login or Cloudflare check.

        Searches go on without them; once the user has signed in (in Lyra's browser),
        report it with resolve_auth and the pages are fetched again. One sign-in clears a
        whole domain. group_by none: queue[] of {id, url, domain, auth_type, priority
        (high = primary source), queued_at, blocking_searches, task_id}; domain:
        domains[] of {domain, pending_count, high_priority_count, affected_tasks,
        auth_types}; type: types[] of {auth_type, pending_count, domains}.
        """
        rt = _rt(ctx)
        out = await rt.call("get_auth_queue", task_id, group_by, priority_filter)
        return m.AuthQueueResult(group_by=group_by, **out, lyra_meta=await rt.meta())

    @server.tool(
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=False
        )
    )
    async def resolve_auth(
        target: Annotated[
            Literal["item", "domain"],
            Field(description="item: one queued page; domain: every pending page of a domain."),
        ],
        data: Annotated[
            m.ResolveData,
            Field(
                description="item: {auth_id, status}; domain: {domain, status, task_id?}. "
                "status: resolved | skipped | failed."
            ),
        ],
        ctx: Context[LyraRuntime, Any],
    ) -> m.ResolveAuthResult:
        """Report what the user did about queued authentication.

        resolved: the session is taken from Lyra's browser for the domain and the pages
        are fetched again (requeued_searches); skipped / failed: the pages are given up.
        Only pending items change; an unknown or already resolved item is INVALID_PARAMS.
        """
        rt = _rt(ctx)
        out = await rt.call("resolve_auth", target, data.model_dump(exclude_none=True))
        return m.ResolveAuthResult(**out, lyra_meta=await rt.meta())

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=False))
    async def wait_for_user(
        prompt: Annotated[
            str, Field(min_length=1, max_length=2000, description="The question for the person.")
        ],
        ctx: Context[LyraRuntime, Any],
        form: Annotated[ElicitationResult[BaseModel], Resolve(_form_for)],
        options: Annotated[
            m.WaitOptions | None,
            Field(description="{timeout_seconds? (default 300), choices? (default: free text)}"),
        ] = None,
    ) -> m.WaitResult:
        """Ask the person at the machine and wait for the answer.

        A client that can show forms (MCP elicitation) shows the question, with the
        choices as a list. Otherwise the question goes to the desktop (notify-send) and to
        this client's log with its id, and the person answers on the command line:
        `lyra answer ID "TEXT"` (a choice by its text or number; `lyra answer` lists the
        waiting questions). timed_out: true when no answer came within timeout_seconds.
        Several questions can wait at once; the first answer to one wins.
        """
        rt = _rt(ctx)
        if not prompt.strip():
            raise LyraError("INVALID_PARAMS", "prompt is blank", field="prompt")
        choices = options.choices if options is not None else None
        if isinstance(form, AcceptedElicitation) and form.data is not None:
            answer = str(getattr(form.data, "answer", "")).strip() or None
            index = choices.index(answer) if choices and answer in choices else None
            return m.WaitResult(response=answer, choice_index=index, timed_out=False,
                                channel="elicitation", action="accept",
                                lyra_meta=await rt.meta())  # fmt: skip
        if not isinstance(form, AcceptedElicitation):  # the person declined or cancelled it
            return m.WaitResult(response=None, choice_index=None, timed_out=False,
                                channel="elicitation", action=form.action,
                                lyra_meta=await rt.meta())  # fmt: skip
        timeout = options.timeout_seconds if options is not None else 300.0
        opened = await rt.call("open_prompt", prompt, choices, timeout)
        how = opened["how_to_answer"]
        try:
            # The question and how to answer it, in this client's log while it waits.
            await _log_to_client(ctx, "warning", f"Lyra asks: {prompt} Answer with: {how}")
            out = await rt.call("await_prompt", opened["prompt_id"])
        except BaseException:
            # The client gave up (or the call broke): the question must not stay listed
            # and answerable with no one to receive the answer.
            with anyio.CancelScope(shield=True):
                await rt.call("cancel_prompt", opened["prompt_id"])
            raise
        return m.WaitResult(response=out["response"], choice_index=out["choice_index"],
                            timed_out=out["timed_out"], prompt_id=opened["prompt_id"],
                            channel="command_line", how_to_answer=how,
                            lyra_meta=await rt.meta())  # fmt: skip

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=False))
    async def feedback(
        action: Annotated[
            Literal[
                "domain_block", "domain_unblock", "claim_reject", "claim_restore", "edge_correct"
            ],
            Field(description="What the person says."),
        ],
        ctx: Context[LyraRuntime, Any],
        domain: Annotated[
            str | None,
            Field(
                max_length=2000,
                description="domain_block / domain_unblock: a domain name or URL (its whole "
                "site, the registrable domain, is meant).",
            ),
        ] = None,
        claim_id: Annotated[
            str | None, Field(max_length=100, description="claim_reject / claim_restore.")
        ] = None,
        edge_id: Annotated[str | None, Field(max_length=100, description="edge_correct.")] = None,
        relation: Annotated[
            Literal["supports", "refutes", "neutral"] | None,
            Field(description="edge_correct: the relation that is right."),
        ] = None,
        reason: Annotated[
            str | None, Field(max_length=2000, description="Kept with the change.")
        ] = None,
    ) -> m.FeedbackResult:
        """Correct Lyra: block or unblock a site, reject or restore a claim, correct an edge.

        domain_block: the site is never fetched again (every fetcher, the browser and the
        searches re-read the rules; it holds across restarts), its pages leave confidence,
        and get_status / _lyra_meta list it; domain_unblock restores it. claim_reject:
        the claim leaves search results, get_status, the views and confidence, and stays
        in the database with the reason; claim_restore brings it back. edge_correct: the
        stance edge gets the relation the person gives (confidence 1; the model's label
        and probability are kept) and the pair becomes an nli calibration sample. Each
        action is an event_log row (kind feedback). Unknown ids: INVALID_PARAMS.
        """
        rt = _rt(ctx)
        args = {
            "domain": domain,
            "claim_id": claim_id,
            "edge_id": edge_id,
            "relation": relation,
            "reason": reason,
        }
        out = await rt.call("feedback", action, {k: v for k, v in args.items() if v is not None})
        blocked = [{"domain": out["domain"]}] if action == "domain_block" else []
        noted = [DEGRADED_PREFIX + str(out.pop("degraded"))] if out.get("degraded") else []
        return m.FeedbackResult(**out, lyra_meta=await rt.meta(warnings=noted, blocked=blocked))

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=False))
    async def calibrate(
        action: Annotated[
            Literal["add_sample", "get_stats", "evaluate", "get_evaluations", "get_diagram_data"],
            Field(description="add_sample and evaluate write; the others only read."),
        ],
        ctx: Context[LyraRuntime, Any],
        data: Annotated[
            m.CalibrateData | None,
            Field(
                description="add_sample: {source, prediction, actual, predicted_label?, edge_id?, "
                "context?}; get_stats: {source?}; evaluate: {source, predictions?, labels?} "
                "(without them: the stored samples); get_evaluations: {source?, limit?, since?}; "
                "get_diagram_data: {source, evaluation_id?}."
            ),
        ] = None,
    ) -> m.CalibrateResult:
        """Calibrate the probabilities of a source: nli (stance edge confidences) or claims.

        add_sample stores one prediction (its probability and whether it was right);
        every `calibration.refit_every` new samples a new version is fitted
        (temperature or Platt scaling, the lower held-out Brier wins) and used from then
        on: new stance edges carry the calibrated probability and the version. get_stats:
        version, method, Brier, ECE, samples, degradation_detected. evaluate: Brier before
        and after calibration, ECE (10 bins) on a batch, stored; degradation_detected when
        the active version scores 5 % or more worse than the version before it on the same
        batch. get_evaluations: history. get_diagram_data: reliability bins. Unknown
        sources and evaluations of fewer than 3 samples are CALIBRATION_ERROR; a fit the
        samples cannot support is reported in add_sample's refit.refused and the active
        version stays. Rolling back is calibrate_rollback.
        """
        rt = _rt(ctx)
        payload = data.model_dump(exclude_none=True) if data is not None else {}
        out = await rt.call("calibrate", action, payload)
        return m.CalibrateResult(action=action, **out, lyra_meta=await rt.meta())

    @server.tool(
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=False
        )
    )
    async def calibrate_rollback(
        source: Annotated[str, Field(min_length=1, max_length=40, description="nli or claims.")],
        ctx: Context[LyraRuntime, Any],
        version: Annotated[
            int | None,
            Field(
                ge=0,
                description="The version to make active (0: no calibration); default: the one "
                "before the active version.",
            ),
        ] = None,
        reason: Annotated[
            str | None, Field(max_length=2000, description="Kept in the audit row.")
        ] = None,
    ) -> m.CalibrateRollbackResult:
        """Make an earlier calibration version of a source the active one (destructive).

        Every version is kept, so the parameters come back exactly; an event_log row
        (calibration_rollback) records the source, both versions and the reason. Unknown
        sources or versions, and a source with nothing to roll back, are CALIBRATION_ERROR.
        """
        rt = _rt(ctx)
        out = await rt.call("calibrate_rollback", source, version, reason)
        return m.CalibrateRollbackResult(**out, lyra_meta=await rt.meta())

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=False))
    async def notify_user(
        event: Annotated[
            Literal["info", "warning", "auth_required", "decision_required"],
            Field(description="auth_required and decision_required are urgent."),
        ],
        payload: Annotated[
            m.NotifyPayload,
            Field(description="{message, details?, timeout_seconds?, url?, auth_id?}"),
        ],
        ctx: Context[LyraRuntime, Any],
    ) -> m.NotifyResult:
        """Tell the user something: a desktop notification (notify-send, when installed)
        and an MCP log message to this client, with the same redacted text.

        For auth_required with a url (or the auth_id of a queued item) Lyra's browser
        opens the page for the user to sign in; then call resolve_auth. The text carries
        the message, URL and auth type only; cookies and tokens are redacted.
        """
        rt = _rt(ctx)
        out = await rt.call("notify_user", event, payload.model_dump(exclude_none=True))
        text = f"{out['title']}: {out['message']}"
        await _log_to_client(ctx, "warning" if event == "auth_required" else "info", text)
        out["channels"] = [*out["channels"], "mcp_log"]
        return m.NotifyResult(**out, lyra_meta=await rt.meta())

    return server
