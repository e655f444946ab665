"""Lyra from a notebook: start or attach in one line, then the MCP tools as methods.

    from lyra.mcp_bridge.notebook import Lyra
    lyra = Lyra.start(corpus="examples/corpus")
    task = lyra.create_task(query="Does coffee affect blood pressure?")
    lyra.search(task_id=task["task_id"], query=task["query"])
    lyra.query_graph(view="contradictions")

Each method runs one MCP tool of `lyra serve` in this process, through the official
SDK's in-memory client: arguments are validated, results shaped and errors raised
exactly as an MCP client sees them (ARCHITECTURE §5, docs/tools.md). A tool error is
raised as `LyraError` with the tool's code, message and field. The tools run on a
private event loop in a helper thread, so the methods block and work the same in a
plain script and inside Jupyter's own running loop.

For Ray itself: `orchestrator`, `graph()`, `inference()` and `browser()` are the actor
handles (`ray.get(lyra.graph().query_graph.remote(...))`). With a local Ray the
actors belong to the Lyra instance of this LYRA_HOME (actors/instance.py), shared with
any `lyra serve` of the same home; they run until its last Lyra process has exited.
Reference: docs/api.md.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

import ray
from mcp import Client
from mcp_types import TextContent

from lyra.actors.runtime import ORCHESTRATOR, ensure_ray, get_actor, orchestrator_options
from lyra.config.settings import Settings, load_settings
from lyra.mcp_bridge.server import build_server
from lyra.pipelines.errors import LyraError
from lyra.storage.views import list_views

T = TypeVar("T")
# Long enough for any tool: `search` returns by its own `wait_seconds` (at most
# search.max_wait_seconds) and get_status by its long-poll.
CALL_TIMEOUT_MARGIN_S = 60.0


class _Loop:
    """An event loop in a daemon thread; `run` blocks the caller until a coroutine ends."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="lyra-notebook")
        self.thread.daemon = True
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        self.loop.close()


class Lyra:
    """One Lyra stack (its orchestrator and the actors it supervises), as Python methods."""

    def __init__(self, settings: Settings, orchestrator: Any) -> None:
        """Prefer `Lyra.start` or `Lyra.attach`; `orchestrator` is a live handle."""
        self.settings = settings
        self.orchestrator = orchestrator
        self._loop = _Loop()
        self._closed = False
        self._client: Client | None = None
        self._ready = threading.Event()
        self._closing = asyncio.Event()
        # The client's session lives in one task from start to close (anyio's cancel
        # scopes must be left by the task that entered them); calls are other tasks.
        self._session = asyncio.run_coroutine_threadsafe(
            self._hold(Client(build_server(settings, orchestrator=orchestrator))),
            self._loop.loop,
        )
        while not self._ready.wait(0.05):
            if self._session.done():
                self._session.result()  # raises what stopped the session from starting

    # --- start or attach ----------------------------------------------------------------
    @classmethod
    def start(
        cls,
        corpus: str | Path | Sequence[str | Path] | None = None,
        *,
        home: str | Path | None = None,
        **settings: Any,
    ) -> Lyra:
        """Start Lyra here: a local Ray (or the one `RAY_ADDRESS` names) and an orchestrator.

        `corpus`: folder(s) of the local engine (`engines.local.paths`). `home`: LYRA_HOME.
        Other keywords override settings by section, as in `config/settings.yaml`:
        `Lyra.start(fetch={"default_qps": 0.5})`. LYRA_CONFIG and LYRA_* variables apply
        as for `lyra serve`. An orchestrator already running under the same namespace
        is reused.
        """
        overrides = dict(settings)
        if home is not None:
            overrides["home"] = Path(home)
        if corpus is not None:
            paths = [corpus] if isinstance(corpus, str | Path) else list(corpus)
            local = {"enabled": True, "paths": [str(Path(p).resolve()) for p in paths]}
            engines = dict(overrides.get("engines") or {})
            engines["local"] = {**engines.get("local", {}), **local}
            overrides["engines"] = engines
        resolved = load_settings(**overrides)
        ensure_ray(resolved, role="notebook")
        from lyra.actors.orchestrator import Orchestrator  # Ray actors only once Ray is up

        handle = Orchestrator.options(  # type: ignore[attr-defined]
            **orchestrator_options(resolved)
        ).remote(resolved)
        return cls(resolved, handle)

    @classmethod
    def attach(cls, address: str = "auto", **settings: Any) -> Lyra:
        """Join a running Lyra (`lyra serve`, another notebook, a cluster) by its Ray address.

        Raises `LyraError` (INVALID_PARAMS, field `address`) when no orchestrator runs in
        that cluster's namespace.
        """
        overrides = dict(settings)
        overrides["ray"] = {**(overrides.get("ray") or {}), "address": address}
        resolved = load_settings(**overrides)
        ensure_ray(resolved)
        handle = get_actor(ORCHESTRATOR, resolved.ray.namespace)
        if handle is None:
            raise LyraError(
                "INVALID_PARAMS",
                f"no Lyra orchestrator in namespace {resolved.ray.namespace!r} at {address}; "
                "start one with Lyra.start()",
                field="address",
            )
        return cls(resolved, handle)

    # --- the tools ----------------------------------------------------------------------
    def create_task(self, *, query: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
        """A research task; `config` = {budget: {max_pages, max_seconds}, priority_domains,
        language}. Returns {task_id, query, status, budget, created_at, _lyra_meta}."""
        return self._tool("create_task", query=query, config=config)

    def search(
        self, *, task_id: str, query: str, wait_seconds: float | None = None, **options: Any
    ) -> dict[str, Any]:
        """Run one search of the task (options as the `search` tool's: engines, urls, dois,
        max_pages, refute, ...). Returns when done, or after `wait_seconds` with status
        `running` (then call get_status)."""
        if wait_seconds is not None:
            options["wait_seconds"] = wait_seconds
        return self._tool("search", task_id=task_id, query=query, options=options or None)

    def get_status(
        self,
        *,
        task_id: str,
        wait_seconds: float = 0,
        detail: Literal["summary", "full"] = "summary",
    ) -> dict[str, Any]:
        """Searches, metrics, budget, auth queue and claims of a task (long-polls up to
        `wait_seconds` for a running search)."""
        return self._tool("get_status", task_id=task_id, wait_seconds=wait_seconds, detail=detail)

    def stop_task(
        self,
        *,
        task_id: str,
        reason: str | None = None,
        mode: Literal["graceful", "immediate"] = "graceful",
    ) -> dict[str, Any]:
        """Stop a task's searches; a later search reopens it."""
        return self._tool("stop_task", task_id=task_id, reason=reason, mode=mode)

    def export(
        self,
        *,
        task_id: str,
        format: Literal["bibtex", "ris", "csl-json", "graphml", "jsonl", "markdown", "html"],
    ) -> dict[str, Any]:
        """A task's evidence as a bibliography or a report: {content, media_type, ...}
        (decision 0031)."""
        return self._tool("export", task_id=task_id, format=format)

    def cleanup_task(
        self, *, task_id: str, mode: Literal["soft", "hard"] = "soft", dry_run: bool = True
    ) -> dict[str, Any]:
        """Remove a task's claims and edges (hard: also what only it used); a dry run
        (the default) only lists what would go (decision 0032)."""
        return self._tool("cleanup_task", task_id=task_id, mode=mode, dry_run=dry_run)

    def query_graph(
        self,
        *,
        sql: str | None = None,
        view: str | None = None,
        params: dict[str, Any] | None = None,
        limit: int | None = None,
        timeout_ms: int | None = None,
        include_schema: bool = False,
    ) -> dict[str, Any]:
        """One read-only SELECT over the evidence graph, or a named view (exactly one).
        Returns {columns, rows, row_count, truncated, ...}."""
        options = {"limit": limit, "timeout_ms": timeout_ms, "include_schema": include_schema}
        return self._tool(
            "query_graph",
            sql=sql,
            view=view,
            params=params,
            options={k: v for k, v in options.items() if v not in (None, False)} or None,
        )

    def views(self) -> list[dict[str, Any]]:
        """The named analysis views: name, description and parameters of each."""
        return [
            {"name": v.name, "description": v.description, "params": list(v.params)}
            for v in list_views()
        ]

    def view(self, name: str, *, limit: int | None = None, **params: Any) -> dict[str, Any]:
        """Run the analysis view `name` with its parameters as keywords."""
        return self.query_graph(view=name, params=params or None, limit=limit)

    def vector_search(
        self,
        *,
        query: str,
        target: Literal["claims", "fragments"] = "claims",
        task_id: str | None = None,
        top_k: int = 10,
        min_similarity: float = 0.3,
    ) -> dict[str, Any]:
        """Claims or fragments nearest to `query` by embedding similarity."""
        return self._tool(
            "vector_search",
            query=query,
            target=target,
            task_id=task_id,
            top_k=top_k,
            min_similarity=min_similarity,
        )

    def get_auth_queue(
        self,
        *,
        task_id: str | None = None,
        group_by: Literal["none", "domain", "type"] = "none",
        priority_filter: Literal["high", "normal", "all"] = "all",
    ) -> dict[str, Any]:
        """Pages waiting for a person (CAPTCHA, login, consent)."""
        return self._tool(
            "get_auth_queue", task_id=task_id, group_by=group_by, priority_filter=priority_filter
        )

    def resolve_auth(self, *, target: Literal["item", "domain"], **data: Any) -> dict[str, Any]:
        """Report what the person did: `resolve_auth(target="domain", domain=..., status=
        "resolved")` or `resolve_auth(target="item", auth_id=..., status="skipped")`."""
        return self._tool("resolve_auth", target=target, data=data)

    def notify_user(
        self, *, event: Literal["info", "warning", "auth_required", "decision_required"],
        **payload: Any,
    ) -> dict[str, Any]:  # fmt: skip
        """A desktop notification (and, for auth_required, the page in Lyra's browser)."""
        return self._tool("notify_user", event=event, payload=payload)

    def wait_for_user(
        self,
        *,
        prompt: str,
        choices: list[str] | None = None,
        timeout_seconds: float | None = None,
    ) -> dict[str, Any]:
        """Ask the person at the machine and block until the answer (or the timeout).

        A notebook's in-process client shows no forms: the question goes to the desktop
        and the log with its id, and the person answers with `lyra answer ID "TEXT"`.
        Returns {response, choice_index, timed_out, channel, prompt_id, ...} (decision 0051).
        """
        options = {"choices": choices, "timeout_seconds": timeout_seconds}
        given = {k: v for k, v in options.items() if v is not None}
        timeout = (timeout_seconds or 300.0) + CALL_TIMEOUT_MARGIN_S
        return self._tool("wait_for_user", timeout=timeout, prompt=prompt, options=given or None)

    def feedback(
        self,
        *,
        action: Literal[
            "domain_block", "domain_unblock", "claim_reject", "claim_restore", "edge_correct"
        ],
        domain: str | None = None,
        claim_id: str | None = None,
        edge_id: str | None = None,
        relation: Literal["supports", "refutes", "neutral"] | None = None,
        reason: str | None = None,
    ) -> dict[str, Any]:
        """Correct Lyra: block or unblock a site, reject or restore a claim, correct an
        edge's relation (decision 0050). Every action is an event_log row."""
        return self._tool(
            "feedback",
            action=action,
            domain=domain,
            claim_id=claim_id,
            edge_id=edge_id,
            relation=relation,
            reason=reason,
        )

    def calibrate(
        self,
        *,
        action: Literal[
            "add_sample", "get_stats", "evaluate", "get_evaluations", "get_diagram_data"
        ],
        **data: Any,
    ) -> dict[str, Any]:
        """One calibration action with its data as keywords: `calibrate(action="add_sample",
        source="nli", prediction=0.8, actual=True)`, `calibrate(action="get_stats")`
        (decision 0049)."""
        return self._tool("calibrate", action=action, data=data or None)

    def calibrate_rollback(
        self, *, source: str, version: int | None = None, reason: str | None = None
    ) -> dict[str, Any]:
        """Make an earlier calibration version of `source` the active one (the one before
        the active version by default); an audit row records it."""
        return self._tool("calibrate_rollback", source=source, version=version, reason=reason)

    # --- Ray handles --------------------------------------------------------------------
    def graph(self) -> Any:
        """The GraphActor's handle (the DuckDB evidence graph)."""
        return ray.get(self.orchestrator.graph_handle.remote())

    def inference(self) -> Any:
        """The InferenceActor's handle (embeddings, NLI, the LLM client)."""
        return ray.get(self.orchestrator.inference_handle.remote())

    def browser(self) -> Any:
        """The BrowserActor's handle (started on first use)."""
        return ray.get(self.orchestrator.browser_handle.remote())

    # --- lifetime -----------------------------------------------------------------------
    def close(self) -> None:
        """Close the in-process client and drop this object's actor handles."""
        if self._closed:
            return
        self._closed = True
        self._loop.loop.call_soon_threadsafe(self._closing.set)
        try:
            self._session.result(timeout=30)
        finally:
            self._loop.stop()
            self.orchestrator = None

    def __enter__(self) -> Lyra:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def _hold(self, client: Client) -> None:
        async with client:
            self._client = client
            self._ready.set()
            await self._closing.wait()

    def _tool(self, name: str, *, timeout: float | None = None, **arguments: Any) -> dict[str, Any]:
        if self._closed or self._client is None:
            raise LyraError("INVALID_PARAMS", "this Lyra object is closed; start or attach again")
        args = {k: v for k, v in arguments.items() if v is not None}
        if timeout is None:
            timeout = self.settings.search.max_wait_seconds + CALL_TIMEOUT_MARGIN_S
        result = self._loop.run(self._client.call_tool(name, args), timeout=timeout)
        if result.is_error:
            texts = [c.text for c in result.content if isinstance(c, TextContent)]
            raise _tool_error(name, texts[0] if texts else "")
        out: dict[str, Any] = result.structured_content or {}
        return out


def _tool_error(tool: str, text: str) -> LyraError:
    """The LyraError behind a tool's error result (the JSON object of §5, or SDK text)."""
    try:
        error = json.loads(text)["error"]
    except (ValueError, KeyError, TypeError):
        # Argument validation fails inside the SDK, before Lyra's error object exists.
        return LyraError("INVALID_PARAMS", f"{tool}: {text}")
    return LyraError(error["code"], error["message"], error.get("field"))
