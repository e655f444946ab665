"""The connection factory of the graph database, with the safety settings of §6.

The GraphActor is the only process that opens the database file. The settings below
are applied once per DuckDB instance and then locked, so nothing that reaches the
database afterwards (the ``query_graph`` sandbox included) can loosen them:

- ``enable_external_access=false``: no file or URL outside the database's own files
  (DuckDB still allows the database file, its WAL and its ``.tmp`` spill directory,
  listed in ``allowed_paths`` / ``allowed_directories``). Must be given at open time;
  DuckDB refuses to change it on a running instance. It also turns off Python
  replacement scans, so SQL cannot read the actor's local variables.
- ``autoload_known_extensions`` / ``autoinstall_known_extensions`` /
  ``allow_community_extensions`` = false: SQL cannot pull code onto the machine.
- ``python_enable_replacements=false``: stated as well, so that the behaviour does not
  hang on the implicit effect of the setting above.
- ``TimeZone='UTC'``: timestamps are stored as naive UTC. Set after opening, because the
  built-in icu extension is loaded only then (at open time DuckDB would try to autoload
  it and fail).
- ``lock_configuration=true`` last: every later ``SET`` / ``RESET`` / ``PRAGMA`` that
  changes an option fails with "the configuration has been locked".

Measured on DuckDB 2.0 (tests/test_storage_schema.py): reads of /etc/passwd, globs,
http URLs, ATTACH, COPY TO, INSTALL / LOAD httpfs, EXPORT DATABASE and duckdb_secrets()
all raise PermissionException; inserts, reads, CHECKPOINT and spilling sorts on the
database file keep working.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import duckdb

from lyra.storage.schema import migrate

OPEN_TIME_SETTINGS: dict[str, str | bool | int | float | list[str]] = {
    "enable_external_access": False,
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
    "allow_community_extensions": False,
    "allow_unsigned_extensions": False,
    "python_enable_replacements": False,
}
"""Options passed to ``duckdb.connect``; the safety ones cannot be changed later."""

SAFETY_EXPECTED: dict[str, frozenset[str]] = {
    "enable_external_access": frozenset({"false"}),
    "autoload_known_extensions": frozenset({"false"}),
    "autoinstall_known_extensions": frozenset({"false"}),
    "allow_community_extensions": frozenset({"false"}),
    "allow_unsigned_extensions": frozenset({"false"}),
    "python_enable_replacements": frozenset({"false"}),
    "lock_configuration": frozenset({"true"}),
    # icu reports the zone it resolved, which is "Etc/UTC" on Debian's tz database.
    "TimeZone": frozenset({"UTC", "Etc/UTC"}),
}
"""The values ``duckdb_settings()`` may report for each safety option after opening."""


class UnsafeDatabaseError(RuntimeError):
    """A safety option did not take effect; the database must not be used."""


def open_database(path: Path, *, memory_limit: str, threads: int) -> duckdb.DuckDBPyConnection:
    """Open (or create) the graph database with locked safety settings and migrate it."""
    if threads < 1:
        raise ValueError("storage.threads must be at least 1")
    path = Path(path).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    config: dict[str, str | bool | int | float | list[str]] = dict(OPEN_TIME_SETTINGS)
    config["memory_limit"] = memory_limit
    config["threads"] = threads
    con = duckdb.connect(str(path), config=config)
    try:
        # GLOBAL: a plain SET is per session, and every cursor() is a new session that
        # would fall back to the machine's zone (seen with TZ=Asia/Tokyo).
        con.execute("SET GLOBAL TimeZone = 'UTC'")
        migrate(con)
        # Locking comes after migration and view creation, which need no option
        # changes, and before the connection is handed to anyone.
        con.execute("SET lock_configuration = true")
        verify_safety(con)
    except BaseException:
        con.close()
        raise
    return con


def safety_settings(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Current values of the safety options, memory_limit and threads (for get_status)."""
    names = [*SAFETY_EXPECTED, "memory_limit", "threads"]
    placeholders = ", ".join("?" for _ in names)
    cur = con.cursor()
    try:
        rows = cur.execute(
            f"SELECT name, value FROM duckdb_settings() WHERE name IN ({placeholders})",
            names,
        ).fetchall()
    finally:
        cur.close()
    return {str(name): str(value) for name, value in rows}


def verify_safety(con: duckdb.DuckDBPyConnection) -> None:
    """Raise UnsafeDatabaseError unless every safety option reads back as expected."""
    actual = safety_settings(con)
    wrong = {
        name: actual.get(name)
        for name, expected in SAFETY_EXPECTED.items()
        if actual.get(name) not in expected
    }
    if wrong:
        raise UnsafeDatabaseError(f"DuckDB safety settings did not apply: {wrong}")


# What the graph process may map beyond what it holds when it starts: several times the
# database's memory_limit, and never less than this. DuckDB builds a list or a string
# value whole, outside memory_limit and the interrupt (`list_sort(range(150000000))` took
# 14 GB); the ceiling makes such a query fail with DuckDB's "Out of Memory Error" instead
# of taking the machine's memory (decision 0060).
MIN_ADDRESS_HEADROOM = 8 * 2**30
_SIZE = re.compile(r"^\s*([\d.]+)\s*([KMGT]?I?B)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "B": 1, "KB": 1000, "MB": 1000**2, "GB": 1000**3, "TB": 1000**4,
          "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40}  # fmt: skip


def size_bytes(text: str) -> int:
    """A DuckDB size setting ("2GB", "512MiB") in bytes."""
    match = _SIZE.match(text)
    if match is None:
        raise ValueError(f"not a size: {text!r}")
    return int(float(match.group(1)) * _UNITS[(match.group(2) or "").upper()])


def cap_address_space(headroom: int) -> int | None:
    """Limit this process's address space (RLIMIT_AS, soft) to what it maps now plus
    ``headroom`` bytes; the limit set, or None where the platform has none. A lower
    limit already in place is kept."""
    try:
        import resource
    except ImportError:  # not on POSIX
        return None
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            mapped = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:  # no /proc (macOS): no measure to start from
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = mapped + headroom
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft != resource.RLIM_INFINITY and soft <= limit:
        return soft
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    return limit
