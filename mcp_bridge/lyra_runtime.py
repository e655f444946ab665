"""The MCP bridge's side of Ray: the orchestrator handle with its retry rules and the
_lyra_meta every response carries. The CLI uses it too, so it imports no MCP SDK (the
server class is in `tool_server`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Iterable
from typing import Any

import ray

import lyra.actors.telemetry as telemetry
from lyra.actors.runtime import (
    ONCE_WRITES,
    degraded_notes,
    end_for_good,
    ensure_ray,
    instance_info,
    orchestrator_options,
)
from lyra.config.settings import Settings
from lyra.mcp_bridge import models as m
from lyra.mcp_bridge.errors import unwrap
from lyra.pipelines.errors import DEGRADED_PREFIX

log = logging.getLogger("lyra.mcp")
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
# Calls whose arguments make them reads, or whose repeat does what the first did: a
# stop of a stopped search is a no-op with the same summary.
_READ_CALIBRATE_ACTIONS = frozenset({"get_stats", "get_evaluations", "get_diagram_data"})


def repeatable(method: str, args: tuple[Any, ...]) -> bool:
    """Whether a call that met a restarting orchestrator may be sent again."""
    if method in IDEMPOTENT_METHODS or method in REPEATABLE_WRITES or method == "stop_task":
        return True
    if method == "calibrate":
        return bool(args) and args[0] in _READ_CALIBRATE_ACTIONS
    if method == "cleanup_task":  # (task_id, hard, dry_run): a dry run changes nothing
        return len(args) == 3 and args[2] is True
    return False


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
        # The orchestrator's last answer to `status`, for the _lyra_meta of an error.
        self._last_status: dict[str, Any] | None = None

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

        A read (``IDEMPOTENT_METHODS``, and the calls ``repeatable`` reads as reads), a
        write that names what it makes (``REPEATABLE_WRITES``, called with the id), a
        stop, or another write (``ONCE_WRITES``: sent through ``Orchestrator.once`` with
        a request id made here, so a repeat answers what the first call did; decision
        0064) that meets an orchestrator being restarted, or one dead for good (then
        the named one is found or created again, and it reads its state back from
        DuckDB), is tried again with backoff for up to ``RESTART_WAIT_SECONDS`` instead
        of failing. The rest (a question opened or answered, whose waiting side lives
        in the orchestrator's memory) is not repeated.
        """
        delay = RESTART_BACKOFF_SECONDS
        deadline = time.monotonic() + RESTART_WAIT_SECONDS
        once = method in ONCE_WRITES and not repeatable(method, args)
        request_id = f"call_{uuid.uuid4().hex}"
        while True:
            handle = self.orchestrator()
            try:
                if once:
                    return await handle.once.remote(request_id, method, list(args))
                return await getattr(handle, method).remote(*args)
            except ray.exceptions.RayTaskError as exc:
                raise unwrap(exc) from None
            except ray.exceptions.RayActorError as exc:
                telemetry.actor_restart("orchestrator")
                if isinstance(exc, ray.exceptions.ActorDiedError) and self._orch is handle:
                    self._orch = None  # found again, or re-created, on the next try
                    end_for_good(handle)  # its name is then free for the next
                if not (once or repeatable(method, args)) or time.monotonic() + delay > deadline:
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
        status: dict[str, Any] | None = None,
    ) -> m.LyraMeta:
        """_lyra_meta: fallbacks in use, security warnings, unverified and blocked domains.

        Security warnings are the search's detections in page text (`security`, one
        per page, kind and detail) and the L2 danger phrases named in `warnings`; the
        fallbacks a search noted in `warnings` ("degraded: ...") join the models'.
        `status`: the orchestrator's `status` when the call's own answer carried it
        (get_status's does), else asked for here.
        """
        if status is None:
            status = await self.call("status")
        self._last_status = status
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
            # Those the call met, and every site the user blocked by name.
            blocked_domains=sorted(
                {str(b["domain"]) for b in blocked or []} | set(status.get("blocked_domains", []))
            ),
        )

    def error_meta(self) -> m.LyraMeta:
        """_lyra_meta for an error response, without a call: an error may come from an
        orchestrator that is restarting, or before Ray was ever started (bad arguments),
        so it carries this process's fallbacks and what the last `status` said."""
        status = self._last_status or {}
        return m.LyraMeta(
            degraded=[*status.get("degraded", []), *degraded_notes()],
            blocked_domains=sorted(status.get("blocked_domains", [])),
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
