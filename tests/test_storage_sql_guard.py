"""The query_graph sandbox: hostile SQL refused without effect, good SQL answered exactly."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import pickle
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lyra.pipelines.errors import LyraError
from lyra.storage import repository as repo
from lyra.storage.connection import open_database
from lyra.storage.sql_guard import (
    QueryFailed,
    QueryTimeout,
    SqlRefused,
    bindable_params,
    run_sandboxed,
    schema_snapshot,
    validate_select,
)

LIMIT = 200
TIMEOUT_MS = 2000
MAX_BYTES = 1_000_000


def _build(path: Path) -> duckdb.DuckDBPyConnection:
    con: duckdb.DuckDBPyConnection = open_database(path, memory_limit="512MB", threads=2)
    repo.create_task(con, "t1", "does coffee raise blood pressure?")
    pages = repo.upsert_pages(
        con,
        [
            {"url": "https://a.org/1", "domain": "a.org", "title": "A"},
            {"url": "https://b.org/2", "domain": "b.org", "title": "B"},
        ],
    )
    repo.insert_fragments(
        con,
        [
            {"id": "f1", "page_id": pages["https://a.org/1"], "position": 0,
             "text_content": "Coffee raises blood pressure."},
            {"id": "f2", "page_id": pages["https://a.org/1"], "position": 1,
             "text_content": "Effects fade with habit."},
            {"id": "f3", "page_id": pages["https://b.org/2"], "position": 0,
             "text_content": "No effect was found."},
        ],
    )  # fmt: skip
    repo.insert_claims(
        con,
        [
            {"id": "c1", "task_id": "t1", "claim_text": "Coffee raises blood pressure"},
            {"id": "c2", "task_id": "t1", "claim_text": "Habit removes the effect"},
        ],
    )
    repo.insert_edges(
        con,
        [
            {"id": "e1", "task_id": "t1", "source_type": "fragment", "source_id": "f1",
             "target_type": "claim", "target_id": "c1", "relation": "supports",
             "nli_confidence": 0.75},
            {"id": "e2", "task_id": "t1", "source_type": "fragment", "source_id": "f3",
             "target_type": "claim", "target_id": "c1", "relation": "refutes",
             "nli_confidence": 0.5},
        ],
    )  # fmt: skip
    return con


@pytest.fixture(scope="module")
def db_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("guard_db")


@pytest.fixture(scope="module")
def db(db_dir: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    # Shared by the read-only tests: each one proves by checksum that it changed nothing.
    con = _build(db_dir / "lyra.duckdb")
    yield con
    con.close()


@pytest.fixture
def fresh_db(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = _build(tmp_path / "db" / "lyra.duckdb")
    yield con
    con.close()


def _checksum(con: duckdb.DuckDBPyConnection) -> str:
    """Digest of every table's rows (sorted) and of every table and view definition."""
    digest = hashlib.sha256()
    cur = con.cursor()
    definitions = cur.execute(
        "SELECT table_name, sql FROM duckdb_tables() WHERE NOT internal "
        "UNION ALL SELECT view_name, sql FROM duckdb_views() WHERE NOT internal ORDER BY 1"
    ).fetchall()
    digest.update(repr(definitions).encode())
    for (table,) in cur.execute(
        "SELECT table_name FROM duckdb_tables() WHERE NOT internal ORDER BY 1"
    ).fetchall():
        rows = cur.execute(f'SELECT * FROM "{table}" ORDER BY ALL').fetchall()
        digest.update(f"{table}:{rows!r}".encode())
    cur.close()
    return digest.hexdigest()


def _files(root: Path) -> list[str]:
    return sorted(
        os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs
    )


HOSTILE: list[tuple[str, str]] = [
    ("INSERT INTO claims (id, task_id, claim_text) VALUES ('x', 't1', 'x')", "not_select"),
    ("UPDATE claims SET claim_text = 'changed'", "not_select"),
    ("DELETE FROM claims", "not_select"),
    ("DROP TABLE claims", "not_select"),
    ("CREATE TABLE stolen AS SELECT * FROM claims", "not_select"),
    ("ALTER TABLE claims ADD COLUMN x INTEGER", "not_select"),
    ("TRUNCATE claims", "not_select"),
    ("SELECT 1; DELETE FROM claims", "multiple_statements"),
    ("COMMIT; DELETE FROM claims", "multiple_statements"),
    ("SELECT 1 /* harmless */; DROP TABLE claims -- bye", "multiple_statements"),
    ("SELECT 1 -- comment\n; DELETE FROM claims", "multiple_statements"),
    ("SELECT $$x$$; DELETE FROM edges", "multiple_statements"),
    ("FROM claims; FROM edges", "multiple_statements"),
    ("/* SELECT 1 */ DELETE FROM claims", "not_select"),
    ("EXPLAIN ANALYZE DELETE FROM claims", "not_select"),
    ("EXPLAIN SELECT * FROM claims", "not_select"),
    ("WITH d AS (DELETE FROM claims RETURNING *) SELECT * FROM d", "denied_keyword"),
    ("WITH u AS (UPDATE claims SET status = 'x' RETURNING id) SELECT * FROM u", "denied_keyword"),
    ("SELECT * FROM read_csv('/etc/passwd')", "denied_function"),
    ("SELECT * FROM read_csv_auto('{dir}/../../../etc/passwd')", "denied_function"),
    ("SeLeCt * FrOm ReAd_CsV ('/etc/passwd')", "denied_function"),
    ("SELECT * FROM main.read_csv('/etc/passwd')", "denied_function"),
    ("SELECT * FROM '/etc/passwd'", "file_path"),
    ('SELECT * FROM "/etc/passwd"', "file_path"),
    ("SELECT * FROM read_text('/etc/hostname')", "denied_function"),
    ("SELECT * FROM read_blob('/etc/hostname')", "denied_function"),
    ("SELECT * FROM glob('/*')", "denied_function"),
    ("SELECT * FROM sniff_csv('/etc/passwd')", "denied_function"),
    ("SELECT * FROM parquet_scan('{dir}/x.parquet')", "denied_function"),
    ("SELECT * FROM read_parquet('http://127.0.0.1:9/x.parquet')", "denied_function"),
    ("SELECT * FROM read_json('https://example.com/x.json')", "denied_function"),
    ("SELECT * FROM 'https://example.com/data.csv'", "file_path"),
    ("SELECT 1 UNION ALL SELECT count(*) FROM read_blob('/etc/shadow')", "denied_function"),
    ("SELECT * FROM range(3) WHERE 1 IN (SELECT 1 FROM read_json('/etc/x'))", "denied_function"),
    ("SELECT * FROM query('DELETE FROM claims')", "denied_function"),
    ("SELECT * FROM json_execute_serialized_sql('{{}}')", "denied_function"),
    ("SELECT * FROM duckdb_secrets()", "denied_function"),
    ("SELECT * FROM duckdb_settings()", "denied_function"),
    ("SELECT current_setting('temp_directory')", "denied_function"),
    ("SELECT * FROM duckdb_databases()", "denied_function"),
    # the same state as views: the database path, temp and secret directories, logs
    ("SELECT database_name, path FROM duckdb_databases", "denied_table"),
    ("SELECT name, setting FROM pg_catalog.pg_settings", "denied_table"),
    ("SELECT * FROM main.pragma_database_list", "denied_table"),
    ('SELECT * FROM "DUCKDB_LOGS"', "denied_table"),
    # a list or a string built whole, past the interrupt and memory_limit (35 s, 14 GB)
    ("SELECT len(list_sort(range(150000000)))", "too_large"),
    ("SELECT range(1000 * 1000 * 1000)", "too_large"),
    ("SELECT range(1e9::BIGINT)", "too_large"),
    ("SELECT * FROM unnest(generate_series(1, 2000000000))", "too_large"),
    ("SELECT list_transform(range(1000), lambda x: range(1000000))", "too_large"),
    ("SELECT [range(1000000) FOR x IN range(1000)]", "too_large"),
    ("SELECT repeat('x', 2000000000)", "too_large"),
    ("SELECT rpad('x', 2000000000, 'y')", "too_large"),
    ("SELECT printf('%1000000000d', 1)", "too_large"),
    ("SELECT printf('%*d', 2000000000::BIGINT, 1)", "too_large"),
    ("SELECT format('{:>{}}', 'a', CAST(99999999 AS BIGINT))", "too_large"),
    ("SELECT printf(repeat('%1$999999d', 1000), 1)", "too_large"),
    ("SELECT printf('" + "%1$999999d" * 2 + "', 1)", "too_large"),
    (
        "SELECT list_reduce(list_transform(range(40), lambda x: 'x'), lambda a, b: a || a)",
        "too_large",
    ),
    ("SELECT flatten([r FOR x IN range(1000000)]) FROM (SELECT range(1000000) AS r)", "too_large"),
    ("SELECT replace(repeat('a', 1000000), 'a', repeat('b', 1000000))", "too_large"),
    ("SELECT range(-1000000, 1000000)", "too_large"),
    ("SELECT generate_series(0, 1000000)", "too_large"),
    ("SELECT repeat('xxxxxxxxxx', 200000)", "too_large"),
    ("SELECT repeat(claim_text, 1000) FROM claims", "too_large"),
    ("SELECT list_resize([1], 2000000)", "too_large"),
    ("SELECT r FROM (SELECT range(n) AS r FROM (SELECT 1000000000 AS n))", "too_large"),
    ("SELECT list_concat(" + ", ".join(["range(1000000)"] * 11) + ")", "too_large"),
    ("SELECT * FROM claims WHERE id IN (SELECT name FROM duckdb_settings)", "denied_table"),
    ("SELECT * FROM pragma_database_size()", "table_function"),
    ("SELECT nextval('seq')", "denied_function"),
    ("ATTACH '{dir}/other.duckdb' AS other", "not_select"),
    ("DETACH lyra", "not_select"),
    ("COPY claims TO '{dir}/claims.csv'", "not_select"),
    ("COPY claims FROM '/etc/passwd'", "not_select"),
    ("EXPORT DATABASE '{dir}/export'", "not_select"),
    ("IMPORT DATABASE '{dir}/export'", "not_select"),
    ("SET threads = 1", "not_select"),
    ("SET enable_external_access = true", "not_select"),
    ("RESET lock_configuration", "not_select"),
    ("INSTALL httpfs", "not_select"),
    ("LOAD httpfs", "not_select"),
    ("PRAGMA database_list", "not_select"),
    ("CALL pragma_version()", "not_select"),
    ("CHECKPOINT", "not_select"),
    ("VACUUM", "not_select"),
    ("BEGIN TRANSACTION", "not_select"),
    ("ROLLBACK", "not_select"),
    ("USE memory", "not_select"),
    ("PIVOT claims ON status", "not_select"),
    ("", "empty"),
    ("-- nothing but a comment", "empty"),
    ("SELEC 1", "parse_error"),
]


@pytest.mark.parametrize(("sql", "reason"), HOSTILE)
def test_hostile_sql_is_refused_without_effect(
    db: duckdb.DuckDBPyConnection, db_dir: Path, tmp_path: Path, sql: str, reason: str
) -> None:
    statement = sql.replace("{dir}", str(tmp_path)).replace("{{}}", "{}")
    before_sum = _checksum(db)
    before_files = (_files(tmp_path), _files(db_dir))
    with pytest.raises(SqlRefused) as refused:
        run_sandboxed(db, statement, limit=LIMIT, timeout_ms=TIMEOUT_MS, max_bytes=MAX_BYTES)
    assert refused.value.reason == reason
    assert _checksum(db) == before_sum
    assert (_files(tmp_path), _files(db_dir)) == before_files
    assert repo.table_counts(db)["claims"] == 2


def test_hostile_sql_count_is_at_least_thirty() -> None:
    assert len(HOSTILE) >= 30


def test_validate_select_is_standalone() -> None:
    with pytest.raises(SqlRefused) as refused:
        validate_select("WITH d AS (DELETE FROM claims RETURNING *) SELECT * FROM d")
    assert refused.value.reason == "denied_keyword"
    assert validate_select("SELECT 1 AS x;  -- trailing\n") == "SELECT 1 AS x"


@pytest.mark.parametrize(
    ("sql", "error"),
    [
        ("WITH d AS (DELETE FROM claims RETURNING *) SELECT * FROM d", duckdb.TransactionException),
        ("SELECT * FROM read_csv('/etc/passwd')", duckdb.PermissionException),
        ("SELECT * FROM glob('/*')", duckdb.PermissionException),
        ("SELECT * FROM read_text('http://127.0.0.1:9/x')", duckdb.PermissionException),
    ],
)
def test_backstop_refuses_what_the_parser_layers_would_miss(
    db: duckdb.DuckDBPyConnection, sql: str, error: type[Exception]
) -> None:
    # Layer 4 alone (read-only transaction on the locked instance), parser bypassed.
    before = _checksum(db)
    cur = db.cursor()
    cur.execute("BEGIN TRANSACTION READ ONLY")
    with pytest.raises(error):
        cur.execute(sql).fetchall()
    cur.execute("ROLLBACK")
    cur.close()
    assert _checksum(db) == before


def _run(con: duckdb.DuckDBPyConnection, sql: str, **kw: int) -> list[list[object]]:
    result = run_sandboxed(
        con,
        sql,
        limit=kw.get("limit", LIMIT),
        timeout_ms=kw.get("timeout_ms", TIMEOUT_MS),
        max_bytes=kw.get("max_bytes", MAX_BYTES),
    )
    rows: list[list[object]] = result.rows
    return rows


GOOD: list[tuple[str, list[list[object]]]] = [
    (
        """
        SELECT c.id, e.relation, f.id, p.domain
        FROM claims c
        JOIN edges e ON e.target_id = c.id
        JOIN fragments f ON f.id = e.source_id
        JOIN pages p ON p.id = f.page_id
        ORDER BY e.relation
        """,
        [["c1", "refutes", "f3", "b.org"], ["c1", "supports", "f1", "a.org"]],
    ),
    (
        """
        WITH per_page AS (SELECT page_id, count(*) AS n FROM fragments GROUP BY page_id)
        SELECT p.domain, n FROM per_page JOIN pages p ON p.id = per_page.page_id ORDER BY 1
        """,
        [["a.org", 2], ["b.org", 1]],
    ),
    (
        """
        SELECT id, row_number() OVER (PARTITION BY page_id ORDER BY position DESC) AS rn
        FROM fragments ORDER BY id
        """,
        [["f1", 2], ["f2", 1], ["f3", 1]],
    ),
    (
        "SELECT claim_id, supporting, refuting, alpha, beta FROM claim_evidence_summary "
        "ORDER BY claim_id",
        [["c1", 1, 1, 1.75, 1.5], ["c2", 0, 0, 1.0, 1.0]],
    ),
    ("SELECT claim_id FROM unsupported_claims", [["c2"]]),
    (
        "SELECT id FROM claims WHERE claim_text <> 'x''; DELETE FROM claims; --' ORDER BY id;",
        [["c1"], ["c2"]],
    ),
    ("FROM claims SELECT id ORDER BY id DESC", [["c2"], ["c1"]]),
    ("SELECT sum(range) FROM range(5)", [[10]]),
    # the table functions stream and are interrupted: any size
    ("SELECT count(*) FROM range(3000000)", [[3000000]]),
    (
        "SELECT len(range(1000000)), repeat('-', 3), generate_series(2024, 2026)",
        [[1000000, "---", [2024, 2025, 2026]]],
    ),
    ("SELECT lpad(id, 4, '_') FROM claims ORDER BY 1", [["__c1"], ["__c2"]]),
    # numbers and PMIDs in a format are no widths; a lambda over its own parameter
    (
        "SELECT printf('PMID 12345678: %d items', 10000000), format('{:>4}', 7)",
        [["PMID 12345678: 10000000 items", "   7"]],
    ),
    ("SELECT list_transform([1, 2], lambda x: x * 2), [y + 1 FOR y IN [1, 2]]", [[[2, 4], [2, 3]]]),
    ("SELECT unnest([1, 2]) AS x", [[1], [2]]),
    (
        "SELECT column_name FROM (DESCRIBE claims) LIMIT 3",
        [["id"], ["task_id"], ["search_id"]],
    ),
    (
        "SELECT table_name FROM information_schema.tables "
        "WHERE table_name IN ('claims', 'contradictions') ORDER BY 1",
        [["claims"], ["contradictions"]],
    ),
    ("SELECT 'read_csv(''/etc/passwd'')' AS harmless_text", [["read_csv('/etc/passwd')"]]),
    ("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'edges'", [[1]]),
]


@pytest.mark.parametrize(("sql", "expected"), GOOD)
def test_good_queries_return_exact_rows(
    db: duckdb.DuckDBPyConnection, sql: str, expected: list[list[object]]
) -> None:
    before = _checksum(db)
    assert _run(db, sql) == expected
    assert _checksum(db) == before


def test_row_limit_sets_truncated(db: duckdb.DuckDBPyConnection) -> None:
    result = run_sandboxed(
        db, "SELECT range FROM range(10) ORDER BY range", limit=3, timeout_ms=TIMEOUT_MS,
        max_bytes=MAX_BYTES,
    )  # fmt: skip
    assert result.rows == [[0], [1], [2]]
    assert result.row_count == 3
    assert result.truncated is True
    exact = run_sandboxed(
        db, "SELECT range FROM range(3)", limit=3, timeout_ms=TIMEOUT_MS, max_bytes=MAX_BYTES
    )
    assert exact.truncated is False
    assert exact.row_count == 3


def test_byte_cap_sets_truncated(db: duckdb.DuckDBPyConnection) -> None:
    # Each row serialises to ["xxxx...x"] = 104 bytes plus a newline of accounting.
    result = run_sandboxed(
        db, "SELECT repeat('x', 100) FROM range(50)", limit=LIMIT, timeout_ms=TIMEOUT_MS,
        max_bytes=350,
    )  # fmt: skip
    assert result.row_count == 3
    assert result.truncated is True


def test_values_are_json_safe(db: duckdb.DuckDBPyConnection) -> None:
    result = run_sandboxed(
        db,
        """
        SELECT TIMESTAMP '2024-05-06 07:08:09' AS ts, DATE '2024-05-06' AS d,
               [0.5, 0.25]::FLOAT[] AS v, '\\xAA\\x01'::BLOB AS b,
               '{"k": [1, 2]}'::JSON AS j, 18446744073709551615::UBIGINT AS big,
               1.25::DECIMAL(5, 2) AS dec, 'nan'::DOUBLE AS nan, {'a': 1} AS s
        """,
        limit=LIMIT,
        timeout_ms=TIMEOUT_MS,
        max_bytes=MAX_BYTES,
    )
    assert result.columns == ["ts", "d", "v", "b", "j", "big", "dec", "nan", "s"]
    assert result.rows == [
        [
            "2024-05-06T07:08:09", "2024-05-06", [0.5, 0.25], "aa01", {"k": [1, 2]},
            "18446744073709551615", 1.25, None, {"a": 1},
        ]
    ]  # fmt: skip


def test_timeout_interrupts_within_twice_the_limit(db: duckdb.DuckDBPyConnection) -> None:
    started = time.monotonic()
    with pytest.raises(QueryTimeout) as timeout:
        run_sandboxed(
            db,
            "SELECT count(*) FROM range(100000000) AS a, range(100000000) AS b",
            limit=LIMIT,
            timeout_ms=500,
            max_bytes=MAX_BYTES,
        )
    elapsed = time.monotonic() - started
    assert elapsed < 1.0
    assert "query_graph.max_timeout_ms" in str(timeout.value)
    # The connection is usable afterwards and the interrupt did not linger.
    assert _run(db, "SELECT 42") == [[42]]


def test_sql_errors_are_reported(db: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(QueryFailed, match="no_such_column"):
        _run(db, "SELECT no_such_column FROM claims")
    assert _run(db, "SELECT count(*) FROM claims") == [[2]]


def test_params_are_bound_as_values(db: duckdb.DuckDBPyConnection) -> None:
    def run(sql: str, params: dict[str, Any]) -> list[list[object]]:
        out = run_sandboxed(
            db, sql, limit=LIMIT, timeout_ms=TIMEOUT_MS, max_bytes=MAX_BYTES, params=params
        )
        return out.rows

    before = _checksum(db)
    assert run("SELECT id FROM claims WHERE id = $id", {"id": "c2"}) == [["c2"]]
    assert run("SELECT count(*) FROM claims WHERE id = $id", {"id": "c1' OR '1'='1"}) == [[0]]
    assert run("SELECT id FROM claims WHERE id = ANY($ids) ORDER BY 1", {"ids": ["c1", "c2"]}) == [
        ["c1"],
        ["c2"],
    ]
    with pytest.raises(QueryFailed, match="id"):
        run("SELECT id FROM claims WHERE id = $id", {})
    assert _checksum(db) == before


BAD_PARAMS: list[tuple[dict[str, Any], str]] = [
    ({"x y": 1}, "not a \\$name placeholder"),
    ({"1x": 1}, "not a \\$name placeholder"),
    ({"x;drop": 1}, "not a \\$name placeholder"),
    ({"x": {"nested": 1}}, "must be a string"),
    ({"x": [1, [2]]}, "must be a string"),
    ({f"p{i}": i for i in range(51)}, "at most 50"),
]


@pytest.mark.parametrize(("params", "message"), BAD_PARAMS)
def test_bad_params_are_refused_with_the_field(params: dict[str, Any], message: str) -> None:
    with pytest.raises(LyraError, match=message) as caught:
        bindable_params(params)
    assert (caught.value.code, caught.value.field) == ("INVALID_PARAMS", "params")


def test_good_params_pass_and_none_means_none() -> None:
    good = {"task_id": "task_1", "n": 3, "x": 0.5, "flag": True, "none": None, "ids": ["a", 1]}
    assert bindable_params(good) == good
    assert (bindable_params({}), bindable_params(None)) == (None, None)


def test_invalid_caps_are_refused(db: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(ValueError, match="positive"):
        run_sandboxed(db, "SELECT 1", limit=0, timeout_ms=TIMEOUT_MS, max_bytes=MAX_BYTES)


def test_timestamps_come_back_as_iso_strings(fresh_db: duckdb.DuckDBPyConnection) -> None:
    repo.log_event(fresh_db, "probe", event_id="ev1")
    rows = _run(fresh_db, "SELECT ts FROM event_log WHERE id = 'ev1'")
    parsed = dt.datetime.fromisoformat(str(rows[0][0]))
    assert abs((repo.utcnow() - parsed).total_seconds()) < 60


def test_schema_snapshot_lists_tables_and_views_with_types(
    db: duckdb.DuckDBPyConnection,
) -> None:
    snapshot = schema_snapshot(db)
    assert snapshot["claims"] == [
        {"name": "id", "type": "VARCHAR"},
        {"name": "task_id", "type": "VARCHAR"},
        {"name": "search_id", "type": "VARCHAR"},
        {"name": "claim_text", "type": "VARCHAR"},
        {"name": "created_at", "type": "TIMESTAMP"},
        {"name": "extraction_method", "type": "VARCHAR"},
        {"name": "extraction_confidence", "type": "DOUBLE"},
        {"name": "status", "type": "VARCHAR"},
        {"name": "status_reason", "type": "VARCHAR"},
        {"name": "status_changed_at", "type": "TIMESTAMP"},
        {"name": "extraction_raw_confidence", "type": "DOUBLE"},
        {"name": "calibration_version", "type": "INTEGER"},
        {"name": "verification_status", "type": "VARCHAR"},
        {"name": "verification_reason", "type": "VARCHAR"},
        {"name": "verification_changed_at", "type": "TIMESTAMP"},
    ]
    assert snapshot["unsupported_claims"][0] == {"name": "claim_id", "type": "VARCHAR"}
    assert {"name": "vector", "type": "FLOAT[]"} in snapshot["embeddings"]
    assert sorted(snapshot) == [
        "auth_queue", "calibration_evaluations", "calibration_params", "calibration_samples",
        "citation_age_gap",
        "citation_candidates", "citation_clusters", "citation_flow", "claim_evidence_summary",
        "claim_temporal_support", "claims", "contradictions", "controversy_by_era", "domains",
        "edges", "embeddings", "emerging_consensus", "engine_health", "event_log",
        "evidence_chain", "evidence_freshness", "evidence_timeline", "fragments", "hub_pages",
        "orphan_sources", "outdated_evidence", "pages", "paper_sightings", "papers",
        "schema_version", "searches", "serp_items", "source_authority", "tasks",
        "unsupported_claims",
    ]  # fmt: skip


def test_checksum_sees_a_one_character_change(fresh_db: duckdb.DuckDBPyConnection) -> None:
    # The oracle of the hostile-SQL table must itself be able to fail.
    before = _checksum(fresh_db)
    fresh_db.execute("UPDATE claims SET claim_text = claim_text || '.' WHERE id = 'c2'")
    assert _checksum(fresh_db) != before


def test_errors_survive_pickling_between_actors() -> None:
    refused = pickle.loads(pickle.dumps(SqlRefused("not_select", "DELETE is not allowed")))
    assert (type(refused), refused.reason, str(refused)) == (
        SqlRefused,
        "not_select",
        "query refused (not_select): DELETE is not allowed",
    )
    timeout = pickle.loads(pickle.dumps(QueryTimeout(300)))
    assert (type(timeout), timeout.timeout_ms) == (QueryTimeout, 300)
    assert str(timeout) == str(QueryTimeout(300))
    failed = pickle.loads(pickle.dumps(QueryFailed("Binder Error: no column x")))
    assert str(failed) == "Binder Error: no column x"


def test_the_address_space_ceiling_stops_a_value_built_whole(tmp_path: Path) -> None:
    """A value built whole past the ceiling (a list of 200 million integers, 1.6 GB, that
    DuckDB allocates at once) fails with DuckDB's out-of-memory error, and the sandbox
    answers the next query (decision 0060). In its own process: the ceiling is
    process-wide."""
    script = f"""
from pathlib import Path
from lyra.storage.connection import cap_address_space, open_database
from lyra.storage.sql_guard import run_sandboxed
import duckdb
con = open_database(Path({str(tmp_path / "g.duckdb")!r}), memory_limit="256MB", threads=1)
print(cap_address_space(1024 * 2**20) is not None)
try:
    con.execute("SELECT len(range(200000000))").fetchall()
except duckdb.OutOfMemoryException as exc:
    print(str(exc).splitlines()[0])
print(run_sandboxed(con, "SELECT 42 AS n", limit=5, timeout_ms=2000, max_bytes=10000).rows)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "True"
    assert lines[1].startswith("Out of Memory Error: ")
    assert lines[2:] == ["[[42]]"]
