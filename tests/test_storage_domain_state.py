"""domains.state: the DomainFetcher's persisted politeness and session state."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lyra.storage.connection import open_database
from lyra.storage.domain_state import load_domain_state, save_domain_state, save_domain_states


@pytest.fixture
def db(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = open_database(tmp_path / "lyra.duckdb", memory_limit="512MB", threads=2)
    yield con
    con.close()


def _row(con: duckdb.DuckDBPyConnection, domain: str) -> tuple[Any, ...]:
    row = con.execute(
        "SELECT trust_level, blocked, block_reason, qps, updated_at FROM domains WHERE domain = ?",
        [domain],
    ).fetchone()
    assert row is not None
    return tuple(row)


FETCHER_STATE: dict[str, Any] = {
    "last_request_at": 1763712000.125,
    "bucket": {"tokens": 0.5, "capacity": 1, "refill_per_s": 0.25},
    "circuit": {"state": "half_open", "failures": [1763711990.0, 1763711995.5], "opened_at": None},
    "robots": {"fetched_at": 1763700000, "text": "User-agent: *\nDisallow: /private\n"},
    "cookies": [{"name": "cf_clearance", "value": "a1b2", "domain": ".nih.gov", "secure": True}],
    "etags": {"https://www.nih.gov/a": 'W/"5e-abc"'},
    "note": "日本語のドメイン状態 ✓ — ünïcödé \u0000 nul and \U0001f600",
}


def test_round_trip_nested_unicode(db: duckdb.DuckDBPyConnection) -> None:
    assert load_domain_state(db, "nih.gov") is None
    save_domain_state(db, "nih.gov", FETCHER_STATE, 0.25)
    assert load_domain_state(db, "nih.gov") == FETCHER_STATE
    trust, blocked, reason, qps, updated = _row(db, "nih.gov")
    assert (trust, blocked, reason, qps) == ("UNVERIFIED", False, None, 0.25)
    assert updated is not None


def test_one_megabyte_of_state(db: duckdb.DuckDBPyConnection) -> None:
    body = "ロボット" * (1024 * 1024 // 12) + "x" * 1000
    state = {
        "robots": {"text": body},
        "etags": {f"https://a.example/{i}": str(i) for i in range(2000)},
    }
    assert len(body.encode("utf-8")) > 1_000_000
    save_domain_state(db, "a.example", state, None)
    assert load_domain_state(db, "a.example") == state


def test_save_replaces_state_and_keeps_trust_and_block(db: duckdb.DuckDBPyConnection) -> None:
    db.execute(
        "INSERT INTO domains (domain, trust_level, blocked, block_reason, blocked_at, qps) "
        "VALUES ('spam.example', 'LOW', true, 'user blocked', TIMESTAMP '2026-01-02 03:04:05', 2.0)"
    )
    save_domain_state(db, "spam.example", {"bucket": {"tokens": 1}}, None)
    assert load_domain_state(db, "spam.example") == {"bucket": {"tokens": 1}}
    trust, blocked, reason, qps, _ = _row(db, "spam.example")
    assert (trust, blocked, reason, qps) == ("LOW", True, "user blocked", 2.0)
    first_update = _row(db, "spam.example")[4]

    save_domain_state(db, "spam.example", {"cookies": []}, 0.5)
    assert load_domain_state(db, "spam.example") == {"cookies": []}
    trust, blocked, reason, qps, updated = _row(db, "spam.example")
    assert (trust, blocked, reason, qps) == ("LOW", True, "user blocked", 0.5)
    assert updated >= first_update
    blocked_at = db.execute(
        "SELECT blocked_at FROM domains WHERE domain = 'spam.example'"
    ).fetchone()
    assert blocked_at is not None
    assert str(blocked_at[0]) == "2026-01-02 03:04:05"


def test_batch_save(db: duckdb.DuckDBPyConnection) -> None:
    rows = [
        {"domain": f"d{i}.example", "state": {"n": i, "s": "é" * i}, "qps": i / 10}
        for i in range(50)
    ]
    rows.append({"domain": "d3.example", "state": {"n": "last wins"}, "qps": 0.3})
    assert save_domain_states(db, rows) == 50
    assert load_domain_state(db, "d7.example") == {"n": 7, "s": "é" * 7}
    assert load_domain_state(db, "d3.example") == {"n": "last wins"}
    assert save_domain_states(db, [{"domain": "d3.example", "state": {"n": "again"}}]) == 1
    assert load_domain_state(db, "d3.example") == {"n": "again"}
    assert _row(db, "d3.example")[3] == 0.3  # no qps given: the stored one stays
    count = db.execute("SELECT count(*) FROM domains").fetchone()
    assert count == (50,)
    assert save_domain_states(db, []) == 0


@pytest.mark.parametrize(
    ("state", "error", "match"),
    [
        ({"t": math.nan}, ValueError, "not plain JSON"),
        ({"t": object()}, ValueError, "not plain JSON"),
        ({"t": {1, 2}}, ValueError, "not plain JSON"),
        (["not", "a", "dict"], TypeError, "must be a dict"),
    ],
)
def test_state_that_would_not_read_back_is_refused(
    db: duckdb.DuckDBPyConnection, state: Any, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        save_domain_state(db, "x.example", state, None)
    assert load_domain_state(db, "x.example") is None


def test_unknown_row_keys_are_refused(db: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(ValueError, match="trust_level"):
        save_domain_states(db, [{"domain": "x.example", "state": {}, "trust_level": "HIGH"}])
