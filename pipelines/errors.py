"""Typed errors every layer raises and the MCP bridge turns into error objects (§5),
and the mark of a search warning that names a fallback in use."""

from __future__ import annotations

# A search warning that names a fallback in use; the bridge lists it, without the
# prefix, in `_lyra_meta.degraded` as well.
DEGRADED_PREFIX = "degraded: "

ERROR_CODES = frozenset(
    {
        "INVALID_PARAMS",
        "TASK_NOT_FOUND",
        "BUDGET_EXHAUSTED",
        "AUTH_REQUIRED",
        "ALL_ENGINES_BLOCKED",
        "CHROME_NOT_READY",
        "PIPELINE_ERROR",
        "CALIBRATION_ERROR",
        "TIMEOUT",
        "INTERNAL_ERROR",
    }
)


class LyraError(Exception):
    """An error a client can act on: a code from ARCHITECTURE §5 and a clear message."""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown error code {code}")
        super().__init__(code, message, field)
        self.code = code
        self.message = message
        self.field = field

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def to_dict(self) -> dict[str, str]:
        """The `error` object of a tool result."""
        out = {"code": self.code, "message": self.message}
        if self.field:
            out["field"] = self.field
        return out
