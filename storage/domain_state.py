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
