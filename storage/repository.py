"""Repository functions over the graph database: the GraphActor's whole write path.

Every write function runs in one transaction (or joins the caller's, see
``transaction``) and is idempotent: rows carry deterministic ids, inserts use
``ON CONFLICT DO NOTHING``, and rows whose state changes (pages, embeddings, generic
upserts) use ``ON CONFLICT ... DO UPDATE``. Rows are plain dicts keyed by column name;
unknown keys are refused, so a dict key can never reach SQL unchecked.

Bulk path: a batch becomes one NumPy object array per column, registered on the
connection as a temporary view and inserted with a single ``INSERT ... SELECT``.
Measured on DuckDB 2.0 (20k fragment rows, idle machine): 0.10 s this way, 0.40 s
through ``unnest`` of list parameters; ``executemany`` took 5 s for 2k rows. For
100k x 384 vectors the insert itself takes about 2.5 s this way, where list parameters
ran out of memory (Python-to-Value conversion of every float). Batches of at most
``SMALL_BATCH_ROWS`` rows are bound as ``VALUES`` parameters instead, because
registering a view costs more than a one-row insert.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import uuid
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import duckdb
import numpy as np
import numpy.typing as npt

from lyra.storage.schema import TABLES

Row = dict[str, Any]
Vector = npt.NDArray[np.float32]

SMALL_BATCH_ROWS = 8
"""Batches up to this size are bound as VALUES parameters instead of a registered view."""


# --------------------------------------------------------------------------- ids, time


def make_id(*parts: object) -> str:
    """Deterministic 32-hex id of the given parts (same parts, same id, every run)."""
    joined = "\x1f".join("" if p is None else str(p) for p in parts)
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:32]


def text_hash(text: str) -> str:
    """SHA-256 hex of a text: the key that keeps one text from being embedded twice."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def utcnow() -> dt.datetime:
    """Current time as naive UTC, the form every TIMESTAMP column stores."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


# --------------------------------------------------------------------------- transactions


# Connections inside a transaction() block. A failed BEGIN would abort DuckDB's open
# transaction, so nesting must be known beforehand rather than detected by trying.
_open_transactions: weakref.WeakKeyDictionary[duckdb.DuckDBPyConnection, int] = (
    weakref.WeakKeyDictionary()
)


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """One transaction around the block; an inner block joins the outer one."""
    depth = _open_transactions.get(con, 0)
    if depth:
        # DuckDB has no nested transactions: the outermost block commits or rolls back
        # everything at once.
        _open_transactions[con] = depth + 1
        try:
            yield
        finally:
            _open_transactions[con] = depth
        return
    con.execute("BEGIN TRANSACTION")
    _open_transactions[con] = 1
    try:
        yield
        # DuckDB 2.0 answers COMMIT of an aborted transaction by rolling back without
        # an error: probe first, so an error swallowed inside the block cannot pass
        # for a commit.
        con.execute("SELECT 1")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    finally:
        _open_transactions.pop(con, None)
    con.execute("COMMIT")


# --------------------------------------------------------------------------- bulk insert


@dataclass(frozen=True)
class _Column:
    name: str
    type: str
    default: str | None


# Column types and defaults per connection: the schema is fixed once open_database has
# migrated, and reading duckdb_columns() costs about 2 ms, as much as a one-row insert.
_column_cache: weakref.WeakKeyDictionary[
    duckdb.DuckDBPyConnection, dict[str, dict[str, _Column]]
] = weakref.WeakKeyDictionary()


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> dict[str, _Column]:
    if table not in TABLES:
        raise ValueError(f"unknown table {table!r}")
    per_con = _column_cache.setdefault(con, {})
    cached = per_con.get(table)
    if cached is not None:
        return cached
    rows = con.execute(
        """
        SELECT column_name, data_type, column_default
        FROM duckdb_columns()
        WHERE schema_name = 'main' AND table_name = ? AND database_name = current_database()
        ORDER BY column_index
        """,
        [table],
    ).fetchall()
    columns = {str(n): _Column(str(n), str(t), None if d is None else str(d)) for n, t, d in rows}
    per_con[table] = columns
    return columns


def _json_text(value: Any) -> str | None:
    if value is None:
        return None
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _utc_naive(value: Any) -> Any:
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.UTC).replace(tzinfo=None)
    return value


def _float_list(value: Any) -> Any:
    return None if value is None else np.ascontiguousarray(value, dtype=np.float32).ravel()


def _of(kind: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda v: v if v is None else kind(v)


def _text(value: Any) -> Any:
    return value if value is None or type(value) is str else str(value)


def _coercer(sql_type: str) -> Callable[[Any], Any]:
    # Uniform Python types per column, so that DuckDB's analysis of the object array
    # lands on one type (a column mixing 1 and 0.5 would otherwise be ambiguous). One
    # function per column, chosen once: this loop is most of a batch's Python time.
    if sql_type == "JSON":
        return _json_text
    if sql_type.startswith("TIMESTAMP"):
        return _utc_naive
    if sql_type.endswith("[]"):
        return _float_list
    if sql_type in ("DOUBLE", "FLOAT"):
        return _of(float)
    if sql_type in ("INTEGER", "BIGINT", "UBIGINT", "SMALLINT", "HUGEINT"):
        return _of(int)
    if sql_type == "BOOLEAN":
        return _of(bool)
    if sql_type == "VARCHAR":
        return _text
    return lambda v: v


def _coerce(value: Any, sql_type: str) -> Any:
    return _coercer(sql_type)(value)


def _object_array(values: list[Any]) -> npt.NDArray[np.object_]:
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr


def _dedupe(rows: list[Row], key: Sequence[str]) -> list[Row]:
    # DO UPDATE refuses to touch one row twice in a command: the last row of a key wins.
    by_key: dict[tuple[Any, ...], Row] = {}
    for row in rows:
        by_key[tuple(row.get(k) for k in key)] = row
    return list(by_key.values())


def _bulk_write(
    con: duckdb.DuckDBPyConnection,
    table: str,
    rows: Sequence[Row],
    *,
    key: Sequence[str] | None = None,
    coalesce_update: bool = True,
) -> int:
    """Insert rows; with ``key``, update the existing row of each key instead of skipping it.

    Must run inside ``transaction(con)``.
    """
    if not rows:
        return 0
    schema = _columns(con, table)
    names: list[str] = []
    for row in rows:
        for name in row:
            if name not in schema:
                raise ValueError(f"{table} has no column {name!r}")
            if name not in names:
                names.append(name)
    for name in key or ():
        if name not in schema:
            raise ValueError(f"{table} has no key column {name!r}")
    batch = _dedupe(list(rows), key) if key else list(rows)
    source: dict[str, npt.NDArray[np.object_]] = {}
    for name in names:
        coerce = _coercer(schema[name].type)
        source[name] = _object_array([coerce(r.get(name)) for r in batch])
    select = []
    for name in names:
        col = schema[name]
        expr = f'CAST("{name}" AS {col.type})'
        # A NULL in a batch column would override the column DEFAULT: restore it.
        default = f"CAST({col.default} AS {col.type})" if col.default else None
        select.append(f"COALESCE({expr}, {default})" if default else expr)
    column_list = ", ".join(f'"{n}"' for n in names)
    if key:
        updates = [n for n in names if n not in key]
        if updates:
            assignments = ", ".join(
                f'"{n}" = COALESCE(EXCLUDED."{n}", {table}."{n}")'
                if coalesce_update
                else f'"{n}" = EXCLUDED."{n}"'
                for n in updates
            )
            conflict = f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET {assignments}"
        else:
            conflict = f"ON CONFLICT ({', '.join(key)}) DO NOTHING"
    else:
        conflict = "ON CONFLICT DO NOTHING"
    head = f"INSERT INTO {table} ({column_list}) SELECT {', '.join(select)} FROM "
    if len(batch) <= SMALL_BATCH_ROWS:
        # A few rows go as bound parameters: registering a view costs more than the
        # insert itself when there is one row (the per-row path of the GraphActor).
        row_sql = "(" + ", ".join("?" for _ in names) + ")"
        values = ", ".join(row_sql for _ in batch)
        params = [source[name][i] for i in range(len(batch)) for name in names]
        quoted = ", ".join(f'"{n}"' for n in names)
        sql = f"{head}(VALUES {values}) AS lyra_rows({quoted}) {conflict}"
        result = con.execute(sql, params).fetchone()
        return int(result[0]) if result else 0
    view = f"_lyra_batch_{uuid.uuid4().hex}"
    # Callers hold transaction(): on failure its ROLLBACK drops the registered view
    # (unregister inside an aborted transaction would itself fail and hide the cause).
    con.register(view, source)
    result = con.execute(f"{head}{view} {conflict}").fetchone()
    con.unregister(view)
    return int(result[0]) if result else 0


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[Row]) -> int:
    """Insert rows into any table, skipping existing keys; returns rows written."""
    with transaction(con):
        return _bulk_write(con, table, rows)


def upsert_rows(
    con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[Row], key: Sequence[str]
) -> int:
    """Insert rows or update the given non-null columns of existing ones; returns rows written."""
    with transaction(con):
        return _bulk_write(con, table, rows, key=key)


# --------------------------------------------------------------------------- reads


def _fetch_dicts(cursor: duckdb.DuckDBPyConnection) -> list[Row]:
    description = cursor.description or []
    names = [str(d[0]) for d in description]
    json_cols = {i for i, d in enumerate(description) if str(d[1]) == "JSON"}
    out: list[Row] = []
    for raw in cursor.fetchall():
        row = {
            name: (json.loads(v) if i in json_cols and isinstance(v, str) else v)
            for i, (name, v) in enumerate(zip(names, raw, strict=True))
        }
        out.append(row)
    return out


def _query(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] = ()) -> list[Row]:
    return _fetch_dicts(con.execute(sql, list(params)))


# --------------------------------------------------------------------------- tasks, searches


def create_task(
    con: duckdb.DuckDBPyConnection,
    task_id: str,
    query: str,
    *,
    config: dict[str, Any] | None = None,
    status: str = "created",
) -> bool:
    """Create a task; False (and nothing written) if the id already exists."""
    now = utcnow()
    row = {"id": task_id, "query": query, "status": status, "config": config or {},
           "created_at": now, "updated_at": now}  # fmt: skip
    return insert_rows(con, "tasks", [row]) == 1


def get_task(con: duckdb.DuckDBPyConnection, task_id: str) -> Row | None:
    """The task row, or None."""
    rows = _query(con, "SELECT * FROM tasks WHERE id = ?", [task_id])
    return rows[0] if rows else None


def update_task_status(con: duckdb.DuckDBPyConnection, task_id: str, status: str) -> None:
    """Set a task's status; KeyError if there is no such task."""
    with transaction(con):
        hit = con.execute(
            "UPDATE tasks SET status = ?, updated_at = ? WHERE id = ? RETURNING id",
            [status, utcnow(), task_id],
        ).fetchall()
    if not hit:
        raise KeyError(f"no task {task_id!r}")


def create_search(
    con: duckdb.DuckDBPyConnection,
    search_id: str,
    task_id: str,
    query: str,
    *,
    options: dict[str, Any] | None = None,
    status: str = "running",
) -> bool:
    """Record a search; False (and nothing written) if the id already exists."""
    row = {"id": search_id, "task_id": task_id, "query": query, "status": status,
           "options": options or {}, "created_at": utcnow()}  # fmt: skip
    return insert_rows(con, "searches", [row]) == 1


def update_search(
    con: duckdb.DuckDBPyConnection,
    search_id: str,
    *,
    status: str | None = None,
    metrics: dict[str, Any] | None = None,
    error: dict[str, Any] | None = None,
    finished: bool = False,
) -> None:
    """Change the given fields of a search (finished stamps finished_at); KeyError if absent."""
    sets: list[str] = []
    params: list[Any] = []
    for column, value in (("status", status), ("metrics", metrics), ("error", error)):
        if value is None:
            continue
        sets.append(f"{column} = ?" if column == "status" else f"{column} = CAST(? AS JSON)")
        params.append(value if column == "status" else _coerce(value, "JSON"))
    if finished:
        sets.append("finished_at = ?")
        params.append(utcnow())
    if not sets:
        if get_search(con, search_id) is None:
            raise KeyError(f"no search {search_id!r}")
        return
    with transaction(con):
        hit = con.execute(
            f"UPDATE searches SET {', '.join(sets)} WHERE id = ? RETURNING id",
            [*params, search_id],
        ).fetchall()
    if not hit:
        raise KeyError(f"no search {search_id!r}")


def get_search(con: duckdb.DuckDBPyConnection, search_id: str) -> Row | None:
    """The search row, or None."""
    rows = _query(con, "SELECT * FROM searches WHERE id = ?", [search_id])
    return rows[0] if rows else None


def list_searches(con: duckdb.DuckDBPyConnection, task_id: str) -> list[Row]:
    """Searches of a task, oldest first."""
    return _query(
        con, "SELECT * FROM searches WHERE task_id = ? ORDER BY created_at, id", [task_id]
    )


# --------------------------------------------------------------------------- graph rows


def insert_serp_items(con: duckdb.DuckDBPyConnection, rows: Sequence[Row]) -> int:
    """Insert SERP items (default id from search_id, engine, url); returns rows written."""
    now = utcnow()
    prepared = [
        {
            "id": make_id("serp", r.get("search_id"), r.get("engine"), r.get("url")),
            "created_at": now,
            **r,
        }
        for r in rows
    ]
    return insert_rows(con, "serp_items", prepared)


def upsert_pages(con: duckdb.DuckDBPyConnection, rows: Sequence[Row]) -> dict[str, str]:
    """Insert pages or refresh the given columns of known URLs; returns url -> page id."""
    prepared: list[Row] = []
    for r in rows:
        if not r.get("url"):
            raise ValueError("every page needs a url")
        prepared.append({"id": make_id("page", r["url"]), **r})
    if not prepared:
        return {}
    with transaction(con):
        # Keyed by url: a URL is stored once (ADR-0005); a page already known keeps its
        # id and its values where the new row says nothing (NULL).
        _bulk_write(con, "pages", prepared, key=["url"])
        # An offset belongs to its file: a row naming a new WARC file without an offset
        # (a page built from an API answer) must not keep the old file's offset.
        unplaced = [
            r["url"] for r in prepared if r.get("warc_path") and r.get("warc_offset") is None
        ]
        if unplaced:
            con.execute(
                "UPDATE pages SET warc_offset = NULL WHERE url IN (SELECT unnest(?::VARCHAR[]))",
                [unplaced],
            )
        found = con.execute(
            "SELECT url, id FROM pages WHERE url IN (SELECT unnest(?::VARCHAR[]))",
            [[r["url"] for r in prepared]],
        ).fetchall()
    return {str(url): str(page_id) for url, page_id in found}


def insert_fragments(con: duckdb.DuckDBPyConnection, rows: Sequence[Row]) -> int:
    """Insert fragments (text_hash and id filled when absent); returns rows written."""
    now = utcnow()
    prepared: list[Row] = []
    for r in rows:
        th = r.get("text_hash") or text_hash(str(r["text_content"]))
        fid = r.get("id") or make_id("fragment", r.get("page_id"), r.get("position"), th)
        prepared.append({**r, "id": fid, "text_hash": th, "created_at": r.get("created_at", now)})
    return insert_rows(con, "fragments", prepared)


def insert_claims(con: duckdb.DuckDBPyConnection, rows: Sequence[Row]) -> int:
    """Insert claims (default id: make_id('claim', task_id, claim_text)); returns rows written."""
    now = utcnow()
    prepared = [
        {"id": make_id("claim", r.get("task_id"), r.get("claim_text")), "created_at": now, **r}
        for r in rows
    ]
    return insert_rows(con, "claims", prepared)


def edge_id(
    task_id: str | None,
    source_type: str,
    source_id: str,
    target_type: str,
    target_id: str,
    relation: str,
) -> str:
    """The deterministic id of an edge: one edge per task, endpoints and relation."""
    return make_id("edge", task_id, source_type, source_id, target_type, target_id, relation)


def insert_edges(con: duckdb.DuckDBPyConnection, rows: Sequence[Row]) -> int:
    """Insert edges (id defaults to edge_id(...)); returns rows written."""
    now = utcnow()
    prepared: list[Row] = []
    for r in rows:
        eid = r.get("id") or edge_id(
            r.get("task_id"), r["source_type"], r["source_id"],
            r["target_type"], r["target_id"], r["relation"],
        )  # fmt: skip
        prepared.append({**r, "id": eid, "created_at": r.get("created_at", now)})
    return insert_rows(con, "edges", prepared)


def fragments_for_pages(con: duckdb.DuckDBPyConnection, page_ids: Iterable[str]) -> list[Row]:
    """Fragments of the given pages plus their page's url, domain and trust_level."""
    ids = list(page_ids)
    if not ids:
        return []
    return _query(
        con,
        "SELECT f.*, p.url, p.domain, p.trust_level FROM fragments AS f "
        "LEFT JOIN pages AS p ON p.id = f.page_id "
        "WHERE f.page_id IN (SELECT unnest(?::VARCHAR[])) "
        "ORDER BY f.page_id, f.position, f.id",
        [ids],
    )


def task_as_of(con: duckdb.DuckDBPyConnection, task: Row) -> str:
    """When the task's evidence last changed: its last search's end (or start, while it
    runs), else the task's creation; UTC, ISO 8601 with a Z."""
    row = con.execute(
        "SELECT max(coalesce(finished_at, created_at)) FROM searches WHERE task_id = ?",
        [task["id"]],
    ).fetchone()
    stamp = (row[0] if row else None) or task.get("created_at")
    if stamp is None:
        return ""
    return f"{stamp.isoformat(timespec='seconds')}Z" if hasattr(stamp, "isoformat") else str(stamp)


def claims_for_task(
    con: duckdb.DuckDBPyConnection, task_id: str, *, status: str | None = "active"
) -> list[Row]:
    """Claims of a task with ``status`` (default active; None: all), oldest first."""
    if status is None:
        sql = "SELECT * FROM claims WHERE task_id = ? ORDER BY created_at, id"
        return _query(con, sql, [task_id])
    sql = "SELECT * FROM claims WHERE task_id = ? AND status = ? ORDER BY created_at, id"
    return _query(con, sql, [task_id, status])


def edges_for_task(
    con: duckdb.DuckDBPyConnection, task_id: str, *, relations: Sequence[str] | None = None
) -> list[Row]:
    """Edges of a task: tagged with it or touching one of its claims (ADR-0005)."""
    sql = """
        SELECT e.* FROM edges AS e
        WHERE (
            e.task_id = $task
            OR (e.target_type = 'claim'
                AND e.target_id IN (SELECT id FROM claims WHERE task_id = $task))
            OR (e.source_type = 'claim'
                AND e.source_id IN (SELECT id FROM claims WHERE task_id = $task))
        )
    """
    params: dict[str, Any] = {"task": task_id}
    if relations is not None:
        sql += " AND e.relation IN (SELECT unnest($relations::VARCHAR[]))"
        params["relations"] = list(relations)
    sql += " ORDER BY e.created_at, e.id"
    return _fetch_dicts(con.execute(sql, params))


# --------------------------------------------------------------------------- embeddings


def put_embeddings(
    con: duckdb.DuckDBPyConnection,
    target_type: str,
    model_id: str,
    rows: Sequence[tuple[str, str | None, npt.ArrayLike]],
) -> int:
    """Store (target_id, text_hash, vector) rows for one model, replacing older vectors."""
    if not rows:
        return 0
    now = utcnow()
    batch: list[Row] = []
    dims: int | None = None
    for target_id, th, vector in rows:
        vec = np.ascontiguousarray(vector, dtype=np.float32).ravel()
        if dims is None:
            dims = int(vec.shape[0])
        if vec.shape[0] != dims or dims == 0:
            raise ValueError(f"vectors of model {model_id!r} must all have {dims} dimensions")
        if not np.all(np.isfinite(vec)):
            raise ValueError(f"vector of {target_id!r} has NaN or infinite values")
        batch.append({"target_type": target_type, "target_id": target_id, "model_id": model_id,
                      "dims": dims, "text_hash": th, "vector": vec, "created_at": now})  # fmt: skip
    with transaction(con):
        return _bulk_write(
            con, "embeddings", batch, key=["target_type", "target_id", "model_id"],
            coalesce_update=False,
        )  # fmt: skip


def _vectors(cursor: duckdb.DuckDBPyConnection, key: str) -> dict[str, Vector]:
    # fetchnumpy returns each FLOAT[] as a float32 array: no per-float Python objects.
    data = cursor.fetchnumpy()
    return {
        str(k): np.asarray(v, dtype=np.float32)
        for k, v in zip(data[key].tolist(), data["vector"], strict=True)
    }


def get_embeddings(
    con: duckdb.DuckDBPyConnection, target_type: str, model_id: str, ids: Iterable[str]
) -> dict[str, Vector]:
    """Stored vectors of the given targets for one model; missing ids are absent."""
    wanted = list(ids)
    if not wanted:
        return {}
    cursor = con.execute(
        "SELECT target_id, vector FROM embeddings WHERE target_type = ? AND model_id = ? "
        "AND target_id IN (SELECT unnest(?::VARCHAR[]))",
        [target_type, model_id, wanted],
    )
    return _vectors(cursor, "target_id")


def find_embeddings_by_text_hash(
    con: duckdb.DuckDBPyConnection, model_id: str, text_hashes: Iterable[str]
) -> dict[str, Vector]:
    """Vectors already computed by ``model_id`` for these text hashes, any target type."""
    wanted = list(text_hashes)
    if not wanted:
        return {}
    cursor = con.execute(
        "SELECT text_hash, any_value(vector) AS vector FROM embeddings "
        "WHERE model_id = ? AND text_hash IN (SELECT unnest(?::VARCHAR[])) GROUP BY text_hash",
        [model_id, wanted],
    )
    return _vectors(cursor, "text_hash")


# --------------------------------------------------------------------------- events, stats


def log_event(
    con: duckdb.DuckDBPyConnection,
    kind: str,
    *,
    actor: str | None = None,
    task_id: str | None = None,
    search_id: str | None = None,
    cause_id: str | None = None,
    payload: dict[str, Any] | None = None,
    event_id: str | None = None,
) -> str:
    """Append one event (a given event_id makes the call idempotent); returns its id."""
    eid = event_id or uuid.uuid4().hex
    row = {"id": eid, "ts": utcnow(), "kind": kind, "actor": actor, "task_id": task_id,
           "search_id": search_id, "cause_id": cause_id, "payload": payload}  # fmt: skip
    insert_rows(con, "event_log", [row])
    return eid


def event_payload(con: duckdb.DuckDBPyConnection, event_id: str, kind: str) -> Any:
    """The payload of the event `event_id` of `kind`, or None when there is none."""
    rows = _query(con, "SELECT payload FROM event_log WHERE id = ? AND kind = ?", [event_id, kind])
    return rows[0]["payload"] if rows else None


def table_counts(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Row count of every table of the schema."""
    parts = " UNION ALL ".join(f"SELECT '{t}' AS t, count(*) AS n FROM {t}" for t in TABLES)
    return {str(t): int(n) for t, n in con.execute(parts).fetchall()}
