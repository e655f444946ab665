"""Which tables each write touched, counted: a read's answer is kept until one changes.

Every `get_status` asks the GraphActor for each claim's confidence and the task's
evidence summary, thirteen DuckDB queries and ~25 ms of CPU on a demo-sized task, and
more as a task grows; a client polls it every few seconds, and under load those reads
wait for the cores the pipeline uses (issue 13: tool p95 <= 100 ms). Between two polls
nothing they read has usually changed. Decision 0080.

`TableVersions` counts, per table, the writes committed to it; `VersionedConnection`
wraps the GraphStore's DuckDB connection (and every cursor made from it) and counts
each statement it runs by the tables the statement writes, read from its SQL:
``INSERT INTO t``, ``UPDATE t``, ``DELETE FROM t``. A statement that may write and
names no such table (``CREATE``, ``DROP``, ``ALTER``, ``COPY``, ...) counts against
every table. Inside a transaction the tables are counted again at ``COMMIT`` (or
``ROLLBACK``), after the rows became visible to other cursors: a reader takes the
versions before it reads, so an answer stored under versions that a later commit
moves is never served again.

`ReadMemo` keeps one answer per key with the versions of the tables it read (and any
other stamp the caller adds, such as the domain rules' version), pickled, so that no
caller can change what the next one gets.

Columns that no memoised read depends on can be declared side columns of their table
(`SIDE_COLUMNS`): an ``INSERT`` whose column list names only those counts against
``table.side`` instead. The fetchers' politeness state (``domains.state``, ``qps``,
``updated_at``, written every few seconds per site) is one: a new row of it has the
defaults (not blocked, not verified), which no read of a claim's evidence tells apart
from no row.
"""

from __future__ import annotations

import pickle
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import duckdb

T = TypeVar("T")

# Every table, for a statement whose targets cannot be read from its text.
ALL = "*"

# Columns of a table that no memoised read depends on (see the module docstring).
SIDE_COLUMNS: dict[str, frozenset[str]] = {
    "domains": frozenset({"domain", "state", "qps", "updated_at"}),
}

_IDENT = r'(?:"(?:[^"]|"")+"|\w+)'
_TARGET = re.compile(
    r"\b(?:INSERT\s+(?:OR\s+(?:REPLACE|IGNORE)\s+)?INTO|UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?)"
    rf"\s+(?:{_IDENT}\s*\.\s*)?({_IDENT})(\s*\(([^)]*)\))?",
    re.IGNORECASE,
)
# Statements that write no table's rows.
_NO_WRITE = re.compile(
    r"(?:SELECT|FROM|VALUES|SET|RESET|PRAGMA|EXPLAIN|DESCRIBE|SHOW|SUMMARIZE|CHECKPOINT"
    r"|FORCE\s+CHECKPOINT|BEGIN|START|COMMIT|END|ROLLBACK|ABORT)\b",
    re.IGNORECASE,
)
_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.DOTALL)
_TXN_BEGIN = re.compile(r"(?:BEGIN|START)\b", re.IGNORECASE)
_TXN_END = re.compile(r"(?:COMMIT|END|ROLLBACK|ABORT)\b", re.IGNORECASE)


def _unquote(name: str) -> str:
    name = name.strip()
    if name.startswith('"'):
        return name[1:-1].replace('""', '"').lower()
    return name.lower()


def written_tables(sql: str) -> set[str]:
    """The tables a statement may write (``ALL`` when that cannot be told from its text;
    empty for one that writes none)."""
    text = _COMMENT.sub(" ", sql).strip()
    found: set[str] = set()
    for m in _TARGET.finditer(text):
        if m.group(1).upper() == "SET":  # "ON CONFLICT ... DO UPDATE SET": the INSERT's
            continue
        table = _unquote(m.group(1))
        side = SIDE_COLUMNS.get(table)
        columns = {_unquote(c) for c in m.group(3).split(",")} if m.group(3) else None
        if side is not None and columns is not None and columns <= side:
            found.add(f"{table}.side")
        else:
            found.add(table)
    if found:
        return found
    # A WITH may lead to any statement; with no target named it reads.
    if _NO_WRITE.match(text) or re.match(r"WITH\b", text, re.IGNORECASE) or not text:
        return set()
    return {ALL}


class TableVersions:
    """Per table, how many committed writes it has had (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._versions: dict[str, int] = {}

    def bump(self, tables: Iterable[str]) -> None:
        with self._lock:
            for table in tables:
                self._versions[table] = self._versions.get(table, 0) + 1

    def stamp(self, tables: Iterable[str]) -> tuple[int, ...]:
        """The versions of ``tables`` (and of ``ALL``), to compare with a later stamp."""
        with self._lock:
            return (
                self._versions.get(ALL, 0),
                *(self._versions.get(t, 0) for t in tables),
            )


class VersionedConnection:
    """A DuckDB connection (or cursor) that counts the tables its statements write.

    Everything else is the wrapped connection's: results are fetched from it as before.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, versions: TableVersions) -> None:
        self._con = con
        self._versions = versions
        # Tables written since BEGIN, counted again at COMMIT or ROLLBACK; None outside
        # a transaction.
        self._pending: set[str] | None = None

    def _note(self, sql: object) -> None:
        text = _COMMENT.sub(" ", str(sql)).lstrip()
        if _TXN_BEGIN.match(text):
            self._pending = set()
            return
        if _TXN_END.match(text):
            pending, self._pending = self._pending, None
            if pending:
                self._versions.bump(pending)
            return
        tables = written_tables(text)
        if not tables:
            return
        self._versions.bump(tables)
        if self._pending is not None:
            self._pending |= tables

    def execute(self, query: object, *args: Any, **kwargs: Any) -> VersionedConnection:
        return self._counted(self._con.execute, query, *args, **kwargs)

    def executemany(self, query: object, *args: Any, **kwargs: Any) -> VersionedConnection:
        return self._counted(self._con.executemany, query, *args, **kwargs)

    def _counted(
        self, run: Callable[..., Any], query: object, *args: Any, **kwargs: Any
    ) -> VersionedConnection:
        """Run a statement, then count it (even when it failed: it may have written)."""
        try:
            run(query, *args, **kwargs)
        finally:
            self._note(query)
        return self

    def cursor(self) -> VersionedConnection:
        return VersionedConnection(self._con.cursor(), self._versions)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)


class ReadMemo:
    """One answer per key, served while the tables it read keep their versions."""

    def __init__(self, versions: TableVersions, max_entries: int = 256) -> None:
        self._versions = versions
        self._max = max_entries
        self._lock = threading.Lock()
        self._entries: OrderedDict[Any, tuple[tuple[Any, ...], bytes]] = OrderedDict()

    def get(
        self,
        key: Any,
        tables: Iterable[str],
        compute: Callable[[], T],
        extra: tuple[Any, ...] = (),
    ) -> T:
        """``compute()``'s answer, or a copy of the one kept under the same stamp.

        The stamp is taken before ``compute`` reads anything (see the module docstring).
        """
        stamp = (*self._versions.stamp(tables), *extra)
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None and hit[0] == stamp:
                self._entries.move_to_end(key)
                blob = hit[1]
            else:
                blob = None
        if blob is not None:
            value: T = pickle.loads(blob)
            return value
        value = compute()
        with self._lock:
            self._entries[key] = (stamp, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)
        return value
