"""Turning any failure into the error object of ARCHITECTURE §5 (L7).

A client sees ``{"ok": false, "error": {"code", "message"}, "error_id"}``; the
details of an unexpected failure stay in the server log under ``error_id``.
"""

from __future__ import annotations

import json
import logging
import uuid
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from ray.exceptions import RayActorError, RayTaskError

from lyra.pipelines.errors import LyraError
from lyra.storage.disk import disk_full_error
from lyra.storage.sql_guard import QueryFailed, QueryTimeout, SqlRefused

if TYPE_CHECKING:  # the SDK only where a resource fails: the CLI imports this module too
    from mcp.shared.exceptions import MCPError

log = logging.getLogger("lyra.mcp")


def unwrap(exc: BaseException) -> BaseException:
    """The original exception behind Ray's (possibly nested) task errors."""
    seen = 0
    while isinstance(exc, RayTaskError) and seen < 10:
        cause = getattr(exc, "cause", None)
        if not isinstance(cause, BaseException):
            break
        exc = cause
        seen += 1
    return exc


def _find(exc: BaseException, kinds: tuple[type[BaseException], ...]) -> BaseException | None:
    cur: BaseException | None = exc
    for _ in range(10):
        if cur is None:
            return None
        cur = unwrap(cur)
        if isinstance(cur, kinds):
            return cur
        cur = cur.__cause__ or cur.__context__
    return None


def to_lyra_error(exc: BaseException) -> LyraError:
    """Classify an exception; unknown ones become INTERNAL_ERROR."""
    found = _find(
        exc, (LyraError, SqlRefused, QueryFailed, QueryTimeout, ValidationError, RayActorError)
    )
    if isinstance(found, LyraError):
        return found
    if isinstance(found, SqlRefused):
        return LyraError("INVALID_PARAMS", str(found), field="sql")
    if isinstance(found, QueryFailed):
        # The client's own query is wrong (unknown column, type error, bad syntax):
        # DuckDB's first line says what to fix.
        first = str(found).splitlines()[0] if str(found) else "the query failed"
        return LyraError("INVALID_PARAMS", f"query failed: {first}", field="sql")
    if isinstance(found, QueryTimeout):
        return LyraError("TIMEOUT", str(found))
    if isinstance(found, ValidationError):
        errs = found.errors()
        fields = sorted({".".join(str(p) for p in e["loc"]) for e in errs})
        detail = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errs[:5])
        return LyraError(
            "INVALID_PARAMS", f"invalid arguments ({detail})", field=",".join(fields) or None
        )
    if isinstance(found, RayActorError):
        return LyraError("PIPELINE_ERROR", "an actor died while handling the call; retry")
    full = disk_full_error(exc)
    if full is not None:
        return full
    text = str(exc)
    if text.startswith("Unknown tool"):
        return LyraError("INVALID_PARAMS", text, field="name")
    return LyraError("INTERNAL_ERROR", "internal error; see the server log")


def error_payload(exc: BaseException, tool: str) -> dict[str, Any]:
    """The JSON error object for a failed tool call; logs the details under error_id."""
    err = to_lyra_error(exc)
    error_id = "err_" + uuid.uuid4().hex[:12]
    if err.code == "INTERNAL_ERROR":
        log.error("tool %s failed [%s]", tool, error_id, exc_info=exc)
    else:
        log.info("tool %s: %s [%s]", tool, err.code, error_id)
    return {"ok": False, "error": err.to_dict(), "error_id": error_id}


def error_text(exc: BaseException, tool: str) -> str:
    """error_payload as compact JSON text."""
    return json.dumps(error_payload(exc, tool), ensure_ascii=False)


# Lyra's codes that mean "the request names something wrong" (JSON-RPC invalid params,
# which the SDK also uses for a resource that does not exist); the others are internal.
_CLIENT_CODES = frozenset({"INVALID_PARAMS", "TASK_NOT_FOUND"})


def resource_error(exc: BaseException, uri: str) -> MCPError:
    """A failed resource read as the JSON-RPC error a client sees: Lyra's code leads the
    message and is in ``data`` with the field, instead of the SDK's generic "Error
    creating resource from template"."""
    from mcp.shared.exceptions import MCPError
    from mcp_types.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS

    payload = error_payload(exc, f"resource {uri}")
    error = payload["error"]
    code = INVALID_PARAMS if error["code"] in _CLIENT_CODES else INTERNAL_ERROR
    return MCPError(code, f"{error['code']}: {error['message']}", {**payload, "uri": uri})
