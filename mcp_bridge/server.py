"""The MCP server: Lyra's tools over the Orchestrator (ARCHITECTURE §5).

The tools live by concern in `tools_research` (tasks and searches), `tools_graph`
(reading the evidence graph) and `tools_person` (where a person takes part); what they
share of Ray is in `lyra_runtime`, how they shape rows for the client in `responses`.

Ray starts lazily on the first tool call that needs it (in the main thread: Ray's
GCS client fails when initialised from a helper thread), so ``initialize`` and
``tools/list`` answer at once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.mcpserver import MCPServer

from lyra.config.settings import Settings, get_settings
from lyra.mcp_bridge import tools_graph, tools_person, tools_research
from lyra.mcp_bridge.lyra_runtime import LyraRuntime
from lyra.mcp_bridge.tool_server import LyraMCPServer


def build_server(
    settings: Settings | None = None,
    orchestrator: Any | None = None,
    http_port: int | None = None,
) -> LyraMCPServer:
    """The MCP server with every tool; `orchestrator`: a live handle to use (the
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

    tools_research.register(server)
    tools_graph.register(server)
    tools_person.register(server)
    return server
