"""The MCP server class whose tool errors are the JSON error object of §5, and the
runtime a tool reads from its request (`lyra serve`; the CLI never imports the SDK)."""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

from lyra.actors.runtime import degraded_notes
from lyra.mcp_bridge import models as m
from lyra.mcp_bridge.errors import error_payload
from lyra.mcp_bridge.lyra_runtime import LyraRuntime
from lyra.pipelines.errors import LyraError

# wait_for_user asks through an elicitation; the SDK's words for an accept without data.
ELICITING_TOOL = "wait_for_user"
ELICITATION_NO_CONTENT = "accepted elicitation with no content"


def elicitation_failed(why: str) -> LyraError:
    return LyraError(
        "INVALID_PARAMS",
        f"the client could not take the question ({why}); a client without forms gets "
        "it on the desktop and answers with `lyra answer`",
    )


class LyraMCPServer(MCPServer[LyraRuntime]):
    """MCPServer whose tool errors are the JSON error object of §5."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except MCPError as exc:
            if name != ELICITING_TOOL:
                raise
            # The client answered wait_for_user's question (an elicitation) with a
            # JSON-RPC error: the tool's error object, not the client's own error back.
            payload = error_payload(elicitation_failed(f"error {exc.code}: {exc.message}"), name)
        except Exception as exc:  # every failure becomes a typed error result (L7)
            if name == ELICITING_TOOL and ELICITATION_NO_CONTENT in str(exc):
                exc = elicitation_failed("it accepted the question but sent no answer")
            payload = error_payload(exc, name)
        payload["_lyra_meta"] = _error_meta(context).model_dump(mode="json")
        # No structured_content: clients validate it against the tool's output schema
        # even on errors (the MCP Inspector does), and the error object is not that schema.
        return CallToolResult(
            content=[TextContent(type="text", text=json.dumps(payload))], is_error=True
        )


def _error_meta(context: Any) -> m.LyraMeta:
    """The _lyra_meta of an error in the request `context` (this process's fallbacks
    only when there is no request, as for a call made in-process)."""
    try:
        runtime = context.request_context.lifespan_context
    except (AttributeError, ValueError):  # no context, or called outside a request
        runtime = None
    if isinstance(runtime, LyraRuntime):
        return runtime.error_meta()
    return m.LyraMeta(degraded=degraded_notes())


def runtime_of(ctx: Context[LyraRuntime, Any]) -> LyraRuntime:
    return ctx.request_context.lifespan_context
