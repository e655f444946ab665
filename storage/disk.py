"""A full disk, recognised wherever it surfaces, as an error a client can act on.

DuckDB answers a write that finds no room with an error naming the file ("Could not
write file …/lyra.duckdb.wal: No space left on device") and rolls the transaction back:
nothing of that write is stored and the database stays usable, so once space is freed
the same call succeeds (issue 13, bad input: a full disk while the graph writes).
Other writers (WARC records, model exports) raise ``OSError`` with ``ENOSPC``. Either
way the caller sees a PIPELINE_ERROR that says so, instead of an internal error.
"""

from __future__ import annotations

import errno

import duckdb

from lyra.pipelines.errors import LyraError

_NO_SPACE = "No space left on device"


def disk_full_error(exc: BaseException) -> LyraError | None:
    """The PIPELINE_ERROR for a full disk behind ``exc`` (its causes, and the cause Ray
    carries for a failed actor call, included), or None when it is something else."""
    cur: BaseException | None = exc
    for _ in range(10):
        if cur is None:
            return None
        if isinstance(cur, duckdb.Error) or _NO_SPACE in str(cur):
            # DuckDB's own error, or Ray's report of an actor whose start met one.
            text = str(cur)
            if _NO_SPACE in text and 'Could not write file "' in text:
                return _full(text.split('Could not write file "', 1)[1].split('"', 1)[0])
            if _NO_SPACE in text:
                return _full("the database")
        if isinstance(cur, OSError) and cur.errno == errno.ENOSPC:
            return _full(str(cur.filename or "a file"))
        cause = getattr(cur, "cause", None)
        cur = cause if isinstance(cause, BaseException) else (cur.__cause__ or cur.__context__)
    return None


def _full(where: str) -> LyraError:
    return LyraError(
        "PIPELINE_ERROR",
        f"the disk is full: could not write {where} (No space left on device); what that "
        "write held was not stored, nothing of it half-written: free space and call again",
    )
