"""Per-domain politeness and session state that outlives a DomainFetcher.

A DomainFetcher keeps its site's state in memory (last request time, token bucket,
circuit breaker, robots.txt cache, cookies, ETags) and persists it here so that a
restart, or a fetcher re-created after idling, picks up where the last one stopped.
``domains.state`` is opaque JSON to storage: the fetcher owns its shape.

Saving never touches ``trust_level``, ``blocked``, ``block_reason`` or ``blocked_at``:
those are the user's and the trust rules' decisions, not the fetcher's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import duckdb

from lyra.storage.repository import upsert_rows, utcnow
from lyra.storage.verification import forget_verification

_STATE_COLUMNS = ("domain", "state", "qps", "updated_at")


def _checked_state(domain: str, state: Any) -> dict[str, Any]:
    # Fail on the caller's bug here rather than store something that does not read back:
    # NaN is not JSON, and the generic JSON coercion would str() unknown objects.
    if not isinstance(state, dict):
        raise TypeError(f"state of {domain!r} must be a dict, not {type(state).__name__}")
    try:
        json.dumps(state, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"state of {domain!r} is not plain JSON: {exc}") from None
    return state


def load_domain_state(con: duckdb.DuckDBPyConnection, domain: str) -> dict[str, Any] | None:
    """The stored state of a domain, or None when the domain has none."""
    row = con.execute("SELECT state FROM domains WHERE domain = ?", [domain]).fetchone()
    if row is None or row[0] is None:
        return None
    state = json.loads(row[0])
    return state if isinstance(state, dict) else None


def save_domain_states(con: duckdb.DuckDBPyConnection, rows: Sequence[dict[str, Any]]) -> int:
    """Upsert {domain, state, qps?} rows in one transaction; returns rows written.

    A qps of None keeps the stored qps; state always replaces the stored state whole.
    """
    now = utcnow()
    batch: list[dict[str, Any]] = []
    for r in rows:
        unknown = set(r) - set(_STATE_COLUMNS)
        if unknown:
            raise ValueError(f"domain state rows take {list(_STATE_COLUMNS[:3])}, not {unknown}")
        domain = str(r["domain"])
        batch.append(
            {
                "domain": domain,
                "state": _checked_state(domain, r["state"]),
                "qps": r.get("qps"),
                "updated_at": now,
            }
        )
    if not batch:
        return 0
    # Only these four columns are named, so the upsert cannot reach trust_level or
    # blocked of an existing row; a new row gets their column defaults.
    return upsert_rows(con, "domains", batch, key=["domain"])


def save_domain_state(
    con: duckdb.DuckDBPyConnection, domain: str, state: dict[str, Any], qps: float | None
) -> None:
    """Upsert one domain's state (and qps unless None)."""
    save_domain_states(con, [{"domain": domain, "state": state, "qps": qps}])


def record_blocks(con: duckdb.DuckDBPyConnection, rows: Sequence[dict[str, Any]]) -> list[str]:
    """Mark domains blocked, `{domain, reason}` each; returns those not blocked before.

    trust_level becomes BLOCKED and block_reason the reason; blocked_at stays the
    time the domain was first found blocked (a reason that changes keeps it).
    """
    if not rows:
        return []
    domains = [str(r["domain"]) for r in rows]
    before = {
        str(d)
        for (d,) in con.execute(
            "SELECT domain FROM domains WHERE blocked AND domain IN "
            f"({', '.join('?' for _ in domains)})",
            domains,
        ).fetchall()
    }
    now = utcnow()
    con.executemany(
        """
        INSERT INTO domains (domain, trust_level, blocked, block_reason, blocked_at, updated_at)
        VALUES (?, 'BLOCKED', true, ?, ?, ?)
        ON CONFLICT (domain) DO UPDATE SET
            trust_level = 'BLOCKED',
            blocked = true,
            -- A block the feedback tool made keeps its reason (a search meets it as a
            -- rule of the merged layers).
            block_reason = CASE WHEN domains.blocked AND domains.block_reason LIKE 'feedback%'
                                THEN domains.block_reason ELSE excluded.block_reason END,
            blocked_at = CASE WHEN domains.blocked THEN domains.blocked_at
                              ELSE excluded.blocked_at END,
            updated_at = excluded.updated_at
        """,
        [[str(r["domain"]), str(r["reason"]), now, now] for r in rows],
    )
    return [d for d in dict.fromkeys(domains) if d not in before]


def lift_blocks(con: duckdb.DuckDBPyConnection, levels: dict[str, str]) -> list[str]:
    """Unblock domains (domain -> the trust level they have now); returns those unblocked."""
    lifted: list[str] = []
    for domain, level in levels.items():
        row = con.execute(
            "UPDATE domains SET blocked = false, trust_level = ?, block_reason = NULL, "
            "blocked_at = NULL, updated_at = ? WHERE domain = ? AND blocked RETURNING domain",
            [level, utcnow(), domain],
        ).fetchone()
        if row is not None:
            lifted.append(domain)
            forget_verification(con, domain)  # judged afresh (decision 0053)
    return lifted
