"""The auth queue (seed 003 §3.6.1): pages that need a person to pass a CAPTCHA or a login.

A URL that needs authentication is not dropped: it waits here until the person
resolves, skips or fails it, alone or with every other item of its domain. One
*pending* item exists per (task_id, url); a later search that hits the same URL joins
the item instead of adding a second one.

Which searches an item blocks is derived, not stored: every enqueue appends an
``auth_enqueued`` event whose ``cause_id`` is the item id and whose ``search_id`` is
the search that hit the URL, so the blocking searches are the distinct search ids of
those events. This needs no new column (schema v1 has one ``search_id`` per row) and
keeps the history of who waited on what.

Every function here runs in one transaction and is idempotent: a retried enqueue finds
the pending item and the same deterministic event id; a retried resolve finds nothing
pending (the first call already did the work).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any

import duckdb

from lyra.storage.repository import Row, insert_rows, log_event, make_id, transaction, utcnow

PRIORITIES: tuple[str, ...] = ("high", "normal", "low")
"""Priority of an item: high for primary sources, normal for secondary, low otherwise."""

STATUSES: tuple[str, ...] = ("pending", "resolved", "skipped", "failed")
"""Status of an item; every status but pending is final."""

FINAL_STATUSES: tuple[str, ...] = ("resolved", "skipped", "failed")
"""Statuses a person can report through resolve_auth."""

PRIORITY_FILTERS: dict[str, tuple[str, ...]] = {
    "high": ("high",),
    "normal": ("high", "normal"),
    "all": PRIORITIES,
}
"""priority_filter is a floor: "normal" means normal or higher (the seed offers no "low")."""

ENQUEUED = "auth_enqueued"
"""event_log kind of an enqueue; cause_id is the item id."""

_PRIORITY_RANK = "CASE priority WHEN 'high' THEN 0 WHEN 'normal' THEN 1 ELSE 2 END"


def normalize_domain(domain: str) -> str:
    """Domains compare case-insensitively and without a trailing dot."""
    return domain.strip().lower().rstrip(".")


def iso_z(value: dt.datetime | None) -> str | None:
    """A naive-UTC (or aware) timestamp as ISO 8601 UTC with a Z, as the tools report it."""
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(dt.UTC).replace(tzinfo=None)
    return value.isoformat(timespec="seconds") + "Z"


# --------------------------------------------------------------------------- reads

# Reads use ``con.execute``, never ``con.cursor()``: a cursor is a new DuckDB session
# that would not see the writes of the caller's open transaction.


def _dicts(cur: duckdb.DuckDBPyConnection) -> list[Row]:
    cols = [str(d[0]) for d in cur.description or []]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]


def _items(con: duckdb.DuckDBPyConnection, where: str, params: Sequence[Any]) -> list[Row]:
    sql = f"SELECT * FROM auth_queue WHERE {where} ORDER BY {_PRIORITY_RANK}, queued_at, id"
    rows = _dicts(con.execute(sql, list(params)))
    blocking = blocking_searches(con, [r["id"] for r in rows])
    for row in rows:
        row["blocking_searches"] = blocking.get(row["id"], [])
    return rows


def blocking_searches(con: duckdb.DuckDBPyConnection, ids: Iterable[str]) -> dict[str, list[str]]:
    """Per item id: the searches that hit its URL while it was pending, first first."""
    wanted = list(ids)
    if not wanted:
        return {}
    rows = con.execute(
        "SELECT cause_id, search_id FROM event_log WHERE kind = ? AND search_id IS NOT NULL "
        "AND cause_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY ts, id",
        [ENQUEUED, wanted],
    ).fetchall()
    out: dict[str, list[str]] = {}
    for cause_id, search_id in rows:
        searches = out.setdefault(str(cause_id), [])
        if search_id not in searches:
            searches.append(str(search_id))
    return out


def get_item(con: duckdb.DuckDBPyConnection, auth_id: str) -> Row | None:
    """One item (any status) with its blocking searches, or None."""
    rows = _items(con, "id = ?", [auth_id])
    return rows[0] if rows else None


def list_pending(
    con: duckdb.DuckDBPyConnection,
    *,
    task_id: str | None = None,
    priority_filter: str = "all",
    domain: str | None = None,
) -> list[Row]:
    """Pending items, high priority first, then oldest first."""
    if priority_filter not in PRIORITY_FILTERS:
        raise ValueError(f"priority_filter must be one of {sorted(PRIORITY_FILTERS)}")
    where = ["status = 'pending'", "priority IN (SELECT unnest(?::VARCHAR[]))"]
    params: list[Any] = [list(PRIORITY_FILTERS[priority_filter])]
    if task_id is not None:
        where.append("task_id = ?")
        params.append(task_id)
    if domain is not None:
        where.append("domain = ?")
        params.append(normalize_domain(domain))
    return _items(con, " AND ".join(where), params)


# --------------------------------------------------------------------------- writes


def enqueue(
    con: duckdb.DuckDBPyConnection,
    *,
    task_id: str | None,
    search_id: str | None,
    url: str,
    domain: str,
    auth_type: str,
    priority: str,
) -> tuple[Row, bool]:
    """Queue a URL for a person; returns (item, created).

    A URL already pending for the task is not queued twice: the existing item is
    returned (created False) and the search joins its blocking searches.
    """
    if priority not in PRIORITIES:
        raise ValueError(f"priority must be one of {list(PRIORITIES)}, not {priority!r}")
    if not url:
        raise ValueError("an auth item needs a url")
    domain = normalize_domain(domain)
    with transaction(con):
        found = con.execute(
            "SELECT id FROM auth_queue WHERE status = 'pending' AND url = ? "
            "AND task_id IS NOT DISTINCT FROM ? ORDER BY queued_at, id LIMIT 1",
            [url, task_id],
        ).fetchone()
        created = found is None
        if found is None:
            # Earlier items of the same (task, url) are final: the count makes the new id
            # deterministic and distinct from theirs.
            earlier = con.execute(
                "SELECT count(*) FROM auth_queue WHERE url = ? AND task_id IS NOT DISTINCT FROM ?",
                [url, task_id],
            ).fetchone()
            auth_id = "auth_" + make_id("auth", task_id, url, earlier[0] if earlier else 0)[:16]
            row = {"id": auth_id, "task_id": task_id, "search_id": search_id, "url": url,
                   "domain": domain, "auth_type": auth_type, "priority": priority,
                   "status": "pending", "queued_at": utcnow()}  # fmt: skip
            insert_rows(con, "auth_queue", [row])
        else:
            auth_id = str(found[0])
        log_event(
            con,
            ENQUEUED,
            actor="graph",
            task_id=task_id,
            search_id=search_id,
            cause_id=auth_id,
            payload={
                "url": url,
                "domain": domain,
                "auth_type": auth_type,
                "priority": priority,
                "joined": not created,
            },
            event_id=make_id(ENQUEUED, auth_id, search_id),
        )
    item = get_item(con, auth_id)
    if item is None:  # written in the transaction above
        raise RuntimeError(f"auth item {auth_id} vanished after enqueue")
    return item, created


def resolve(
    con: duckdb.DuckDBPyConnection,
    status: str,
    *,
    auth_id: str | None = None,
    domain: str | None = None,
    task_id: str | None = None,
) -> list[Row]:
    """Mark the pending item ``auth_id``, or every pending item of ``domain`` (optionally
    of one task), with a final status; returns the rows changed (empty if none was pending).
    """
    if status not in FINAL_STATUSES:
        raise ValueError(f"status must be one of {list(FINAL_STATUSES)}, not {status!r}")
    if (auth_id is None) == (domain is None):
        raise ValueError("give exactly one of auth_id or domain")
    now = utcnow()
    with transaction(con):
        if auth_id is not None:
            pending = _items(con, "status = 'pending' AND id = ?", [auth_id])
        else:
            pending = list_pending(con, task_id=task_id, domain=domain)
        ids = [r["id"] for r in pending]
        if not ids:
            return []
        con.execute(
            "UPDATE auth_queue SET status = ?, resolved_at = ? "
            "WHERE id IN (SELECT unnest(?::VARCHAR[]))",
            [status, now, ids],
        )
        for row in pending:
            row["status"] = status
            row["resolved_at"] = now
            waited = (now - row["queued_at"]).total_seconds()
            log_event(
                con,
                f"auth_{status}",
                actor="graph",
                task_id=row["task_id"],
                search_id=row["search_id"],
                cause_id=row["id"],
                payload={
                    "domain": row["domain"],
                    "url": row["url"],
                    "by": "item" if auth_id is not None else "domain",
                    "waited_seconds": round(waited, 3),
                },
                event_id=make_id("auth_final", row["id"]),
            )
    return pending


# --------------------------------------------------------------------------- shaping


def public_item(row: Row) -> Row:
    """An item as get_auth_queue reports it (timestamps as ISO 8601 UTC)."""
    out = {
        "id": row["id"],
        "url": row["url"],
        "domain": row["domain"],
        "auth_type": row["auth_type"],
        "priority": row["priority"],
        "queued_at": iso_z(row["queued_at"]),
        "blocking_searches": list(row.get("blocking_searches", [])),
        "task_id": row["task_id"],
        "search_id": row["search_id"],
        "status": row["status"],
    }
    if row.get("resolved_at") is not None:
        out["resolved_at"] = iso_z(row["resolved_at"])
    return out


def group_by_domain(items: Sequence[Row]) -> list[Row]:
    """Per domain: pending and high-priority counts, tasks and auth types; largest first."""
    groups: dict[str, Row] = {}
    for item in items:
        g = groups.setdefault(
            item["domain"],
            {"domain": item["domain"], "pending_count": 0, "high_priority_count": 0,
             "affected_tasks": [], "auth_types": []},
        )  # fmt: skip
        g["pending_count"] += 1
        g["high_priority_count"] += item["priority"] == "high"
        if item["task_id"] is not None and item["task_id"] not in g["affected_tasks"]:
            g["affected_tasks"].append(item["task_id"])
        if item["auth_type"] not in g["auth_types"]:
            g["auth_types"].append(item["auth_type"])
    for g in groups.values():
        g["affected_tasks"].sort()
        g["auth_types"].sort()
    return sorted(groups.values(), key=lambda g: (-g["pending_count"], g["domain"]))


def group_by_type(items: Sequence[Row]) -> list[Row]:
    """Per auth type: pending count and domains; largest first."""
    groups: dict[str, Row] = {}
    for item in items:
        g = groups.setdefault(
            item["auth_type"], {"auth_type": item["auth_type"], "pending_count": 0, "domains": []}
        )
        g["pending_count"] += 1
        if item["domain"] not in g["domains"]:
            g["domains"].append(item["domain"])
    for g in groups.values():
        g["domains"].sort()
    return sorted(groups.values(), key=lambda g: (-g["pending_count"], g["auth_type"]))


def summary(con: duckdb.DuckDBPyConnection, task_id: str | None) -> Row:
    """The get_status auth_queue object of seed §3.6.1, without its warnings."""
    items = list_pending(con, task_id=task_id)
    by_type: dict[str, int] = {}
    for item in items:
        by_type[item["auth_type"]] = by_type.get(item["auth_type"], 0) + 1
    oldest = min((i["queued_at"] for i in items), default=None)
    return {
        "pending_count": len(items),
        "high_priority_count": sum(i["priority"] == "high" for i in items),
        "domains": [g["domain"] for g in group_by_domain(items)],
        "oldest_queued_at": iso_z(oldest),
        "by_auth_type": dict(sorted(by_type.items())),
    }
