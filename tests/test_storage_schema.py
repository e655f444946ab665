"""Schema v1, migrations, the connection's safety settings, and view templates."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from lyra.storage.connection import (
    UnsafeDatabaseError,
    open_database,
    safety_settings,
    verify_safety,
)
from lyra.storage.schema import (
    LATEST_VERSION,
    MIGRATIONS,
    SCHEMA_VERSION_DDL,
    TABLES,
    migrate,
)
from lyra.storage.sql_guard import validate_select
from lyra.storage.views import ViewInfo, create_views, list_views, render_view, sql_literal


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "home" / "lyra.duckdb"


@pytest.fixture
def db(db_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = open_database(db_path, memory_limit="256MB", threads=2)
    yield con
    con.close()


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    rows = con.execute(
        "SELECT column_name FROM duckdb_columns() WHERE table_name = ? ORDER BY column_index",
        [table],
    ).fetchall()
    return [r[0] for r in rows]


# --------------------------------------------------------------------------- schema

EXPECTED_COLUMNS: dict[str, list[str]] = {
    "tasks": ["id", "query", "status", "created_at", "updated_at", "config"],
    "searches": ["id", "task_id", "query", "status", "created_at", "finished_at", "options",
                 "metrics", "error"],
    "serp_items": ["id", "search_id", "engine", "rank", "url", "title", "snippet",
                   "published_date", "source_tag", "created_at"],
    "pages": ["id", "url", "domain", "title", "trust_level", "fetched_at", "warc_path",
              "screenshot_path", "content_type", "content_hash", "simhash", "dup_of",
              "http_status", "final_url", "source_path", "byte_size", "is_retracted", "doi",
              "published_date", "language", "published_date_source", "warc_offset"],
    "fragments": ["id", "page_id", "position", "text_content", "heading_context",
                  "fragment_type", "char_start", "char_end", "page_number", "text_hash",
                  "created_at"],
    "claims": ["id", "task_id", "search_id", "claim_text", "created_at", "extraction_method",
               "extraction_confidence", "status", "status_reason", "status_changed_at",
               "extraction_raw_confidence", "calibration_version", "verification_status",
               "verification_reason", "verification_changed_at"],
    "edges": ["id", "task_id", "source_type", "source_id", "target_type", "target_id",
              "relation", "nli_label", "nli_confidence", "source_trust_level",
              "target_trust_level", "method", "created_at", "nli_model", "nli_raw_confidence",
              "calibration_version"],
    "embeddings": ["target_type", "target_id", "model_id", "dims", "text_hash", "vector",
                   "created_at"],
    "domains": ["domain", "trust_level", "qps", "blocked", "block_reason", "blocked_at",
                "state", "updated_at", "verification_status", "verification_reason",
                "verification_changed_at"],
    "auth_queue": ["id", "task_id", "search_id", "url", "domain", "auth_type", "priority",
                   "status", "queued_at", "resolved_at"],
    "engine_health": ["engine", "success_ema_1h", "success_ema_24h", "captcha_ema",
                      "http_error_ema", "latency_ema_ms", "circuit_state", "updated_at",
                      "samples", "last_resort_uses"],
    "calibration_samples": ["id", "source", "predicted", "label", "created_at",
                            "predicted_label", "actual_label", "edge_id", "context"],
    "calibration_params": ["source", "version", "method", "params", "brier", "ece",
                           "created_at", "active"],
    "event_log": ["id", "ts", "kind", "actor", "task_id", "search_id", "cause_id", "payload"],
    "papers": ["id", "canonical_key", "doi", "pmid", "pmcid", "arxiv", "s2_id", "openalex_id",
               "corpus_id", "title", "norm_title", "year", "venue", "abstract", "authors",
               "is_retracted", "citation_count", "source_apis", "page_id", "created_at",
               "updated_at"],
    "paper_sightings": ["search_id", "paper_id", "route", "source_url", "created_at"],
    "citation_candidates": ["id", "task_id", "search_id", "anchor_paper_id", "paper_id",
                            "direction", "is_influential", "similarity", "llm_relevance",
                            "score", "kept", "apis", "created_at"],
    "calibration_evaluations": ["id", "source", "brier_score", "brier_score_calibrated",
                                "improvement_ratio", "expected_calibration_error",
                                "samples_evaluated", "bins_json", "calibration_version",
                                "degradation_detected", "evaluated_at", "created_at"],
}  # fmt: skip


@pytest.mark.parametrize("table", sorted(EXPECTED_COLUMNS))
def test_tables_have_the_contract_columns(db: duckdb.DuckDBPyConnection, table: str) -> None:
    assert _columns(db, table) == EXPECTED_COLUMNS[table]


def test_tables_constant_matches_the_database(db: duckdb.DuckDBPyConnection) -> None:
    rows = db.execute(
        "SELECT table_name FROM duckdb_tables() WHERE NOT internal ORDER BY table_name"
    ).fetchall()
    assert [r[0] for r in rows] == sorted([*TABLES, "schema_version"])


def test_key_types(db: duckdb.DuckDBPyConnection) -> None:
    types = dict(
        db.execute(
            "SELECT table_name || '.' || column_name, data_type FROM duckdb_columns() "
            "WHERE table_name IN ('pages', 'embeddings', 'edges')"
        ).fetchall()
    )
    assert types["pages.simhash"] == "UBIGINT"
    assert types["pages.is_retracted"] == "BOOLEAN"
    assert types["embeddings.vector"] == "FLOAT[]"
    assert types["edges.nli_confidence"] == "DOUBLE"


def test_migrate_is_idempotent(db_path: Path) -> None:
    con = open_database(db_path, memory_limit="256MB", threads=1)
    assert migrate(con) == LATEST_VERSION
    versions = "SELECT version FROM schema_version ORDER BY version"
    assert con.execute(versions).fetchall() == [(1,), (2,), (3,), (4,), (5,), (6,), (7,)]
    con.execute("INSERT INTO tasks (id, query) VALUES ('t1', 'q')")
    con.close()
    con = open_database(db_path, memory_limit="256MB", threads=1)
    assert con.execute(versions).fetchall() == [(1,), (2,), (3,), (4,), (5,), (6,), (7,)]
    assert con.execute("SELECT id, query, status FROM tasks").fetchall() == [("t1", "q", "created")]
    con.close()


def test_pages_url_is_unique(db: duckdb.DuckDBPyConnection) -> None:
    db.execute("INSERT INTO pages (id, url) VALUES ('p1', 'https://a.org/')")
    with pytest.raises(duckdb.ConstraintException):
        db.execute("INSERT INTO pages (id, url) VALUES ('p2', 'https://a.org/')")


def test_defaults_apply(db: duckdb.DuckDBPyConnection) -> None:
    db.execute("INSERT INTO claims (id, task_id, claim_text) VALUES ('c', 't', 'x')")
    db.execute("INSERT INTO pages (id, url) VALUES ('p', 'https://a.org/')")
    assert db.execute("SELECT status FROM claims").fetchall() == [("active",)]
    assert db.execute("SELECT is_retracted, trust_level FROM pages").fetchall() == [
        (False, "UNVERIFIED")
    ]


# --------------------------------------------------------------------------- connection


def test_safety_settings_are_applied_and_locked(db: duckdb.DuckDBPyConnection) -> None:
    assert safety_settings(db) == {
        "allow_community_extensions": "false",
        "allow_unsigned_extensions": "false",
        "autoinstall_known_extensions": "false",
        "autoload_known_extensions": "false",
        "enable_external_access": "false",
        "lock_configuration": "true",
        "python_enable_replacements": "false",
        "threads": "2",
        "memory_limit": "244.1 MiB",
        "TimeZone": "UTC",
    }


@pytest.mark.parametrize(
    "statement",
    [
        "SET threads = 1",
        "SET enable_external_access = true",
        "SET lock_configuration = false",
        "RESET lock_configuration",
        "SET autoload_known_extensions = true",
        "PRAGMA threads = 1",
    ],
)
def test_configuration_cannot_be_changed(db: duckdb.DuckDBPyConnection, statement: str) -> None:
    with pytest.raises(duckdb.InvalidInputException, match="configuration has been locked"):
        db.execute(statement)
    cursor = db.cursor()
    with pytest.raises(duckdb.InvalidInputException, match="configuration has been locked"):
        cursor.execute(statement)
    cursor.close()


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM read_text('/etc/hostname')",
        "SELECT * FROM glob('/*')",
        "SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')",
        "ATTACH '{dir}/other.duckdb' AS other",
        "COPY tasks TO '{dir}/tasks.csv'",
        "EXPORT DATABASE '{dir}/export'",
        "INSTALL httpfs",
        "LOAD httpfs",
        "SELECT * FROM duckdb_secrets()",
    ],
)
def test_external_access_is_off(
    db: duckdb.DuckDBPyConnection, tmp_path: Path, statement: str
) -> None:
    with pytest.raises(duckdb.PermissionException):
        db.execute(statement.replace("{dir}", str(tmp_path)))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]


def test_python_variables_are_not_scannable(db: duckdb.DuckDBPyConnection) -> None:
    import numpy as np

    secret_rows = np.arange(3)  # noqa: F841 - the name a replacement scan would look for
    with pytest.raises(duckdb.CatalogException, match="secret_rows"):
        db.execute("SELECT * FROM secret_rows")


def test_reads_writes_and_spills_still_work(db_path: Path) -> None:
    con = open_database(db_path, memory_limit="64MB", threads=2)
    con.execute("INSERT INTO tasks (id, query) VALUES ('t1', 'q')")
    con.execute("CHECKPOINT")
    # 2M md5 strings (about 100 MB with sort overhead) cannot sort within 64 MB: it
    # spills into <db>.tmp, the one directory enable_external_access=false leaves open.
    result = con.execute(
        "SELECT count(*), max(m) FROM "
        "(SELECT md5(range::VARCHAR) AS m FROM range(2000000) ORDER BY m)"
    ).fetchone()
    assert result == (2000000, "fffffe98d0963d27015c198262d97221")
    con.close()
    con = open_database(db_path, memory_limit="64MB", threads=2)
    assert con.execute("SELECT id FROM tasks").fetchall() == [("t1",)]
    con.close()


def test_timestamps_default_to_utc(db: duckdb.DuckDBPyConnection) -> None:
    db.execute("INSERT INTO tasks (id, query) VALUES ('t1', 'q')")
    offset = db.execute(
        "SELECT epoch(created_at) - epoch(now()::TIMESTAMPTZ AT TIME ZONE 'UTC') FROM tasks"
    ).fetchone()
    assert offset is not None
    assert abs(offset[0]) < 60


def test_verify_safety_rejects_a_plain_connection() -> None:
    con = duckdb.connect(":memory:")
    with pytest.raises(UnsafeDatabaseError, match="enable_external_access"):
        verify_safety(con)
    con.close()


def test_threads_must_be_positive(db_path: Path) -> None:
    with pytest.raises(ValueError, match=r"storage\.threads"):
        open_database(db_path, memory_limit="256MB", threads=0)


# --------------------------------------------------------------------------- views


def test_list_views() -> None:
    views = {v.name: v for v in list_views()}
    assert sorted(views) == [
        "citation_age_gap", "citation_clusters", "citation_flow", "claim_evidence_summary",
        "claim_temporal_support", "contradictions", "controversy_by_era",
        "emerging_consensus", "evidence_chain", "evidence_freshness", "evidence_timeline",
        "hub_pages", "orphan_sources", "outdated_evidence", "source_authority",
        "unsupported_claims",
    ]  # fmt: skip
    assert views["evidence_chain"].params == ("claim_id", "task_id")
    assert views["orphan_sources"].params == ()
    assert views["claim_evidence_summary"] == ViewInfo(
        name="claim_evidence_summary",
        description=(
            "Per claim: supporting / refuting / neutral counts, Beta posterior (alpha, beta), "
            "confidence, uncertainty, controversy, evidence count and independent sources."
        ),
        params=("task_id",),
        materialized=True,
    )


@pytest.mark.parametrize("info", list_views(), ids=lambda v: v.name)
@pytest.mark.parametrize("with_params", [False, True])
def test_every_view_passes_the_sandbox(info: ViewInfo, with_params: bool) -> None:
    params = {p: "x" for p in info.params} if with_params else {}
    sql = render_view(info.name, params)
    assert validate_select(sql) == sql


def test_views_exist_in_the_database(db: duckdb.DuckDBPyConnection) -> None:
    rows = db.execute(
        "SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY view_name"
    ).fetchall()
    assert [r[0] for r in rows] == [v.name for v in list_views() if v.materialized]


def test_view_parameters_are_literals_not_sql(db: duckdb.DuckDBPyConnection) -> None:
    db.execute("INSERT INTO claims (id, task_id, claim_text) VALUES ('c1', 't1', 'x')")
    hostile = "t1' OR '1'='1"
    sql = render_view("claim_evidence_summary", {"task_id": hostile})
    assert "c.task_id = 't1'' OR ''1''=''1'" in sql
    assert db.execute(sql).fetchall() == []
    assert (
        db.execute(render_view("claim_evidence_summary", {"task_id": "t1"})).fetchall()[0][0]
        == "c1"
    )


@pytest.mark.parametrize(
    ("value", "literal"),
    [
        (None, "NULL"),
        (True, "TRUE"),
        (False, "FALSE"),
        (7, "7"),
        (0.25, "0.25"),
        ("it's", "'it''s'"),
        ("back\\slash", "'back\\slash'"),
    ],
)
def test_sql_literal(value: object, literal: str) -> None:
    assert sql_literal(value) == literal


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (float("nan"), ValueError),
        ("a\x00b", ValueError),
        ([1, 2], ValueError),
        ({"a": 1}, ValueError),
    ],
)
def test_sql_literal_refuses(value: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        sql_literal(value)


def test_render_view_refuses_unknown_names_and_params() -> None:
    with pytest.raises(KeyError, match="unknown view 'no_such_view'"):
        render_view("no_such_view")
    with pytest.raises(KeyError, match="unknown view"):
        render_view("../settings")
    with pytest.raises(ValueError, match=r"takes parameters \['task_id'\], not \['limit'\]"):
        render_view("contradictions", {"limit": 5})
    with pytest.raises(ValueError, match="null"):
        render_view("contradictions", {"task_id": None})


def test_a_version_1_database_gains_the_paper_index_and_keeps_its_rows(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(db_path))
    con.execute(SCHEMA_VERSION_DDL)
    for statement in MIGRATIONS[1]:
        con.execute(statement)
    con.execute("INSERT INTO schema_version (version) VALUES (1)")
    con.execute("INSERT INTO pages (id, url) VALUES ('p1', 'https://a.org/')")
    con.close()
    con = open_database(db_path, memory_limit="256MB", threads=1)
    assert con.execute("SELECT id, url FROM pages").fetchall() == [("p1", "https://a.org/")]
    assert con.execute("SELECT count(*) FROM papers").fetchone() == (0,)
    assert con.execute("SELECT max(version) FROM schema_version").fetchone() == (LATEST_VERSION,)
    assert con.execute("SELECT published_date_source FROM pages").fetchall() == [(None,)]
    con.close()


def _database_at(db_path: Path, last: int) -> duckdb.DuckDBPyConnection:
    """A database as schema versions 1..``last`` left it, views included."""
    db_path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(db_path))
    con.execute(SCHEMA_VERSION_DDL)
    for version in range(1, last + 1):
        for statement in MIGRATIONS[version]:
            con.execute(statement)
        con.execute("INSERT INTO schema_version (version) VALUES (?)", [version])
    create_views(con)
    return con


def test_a_version_3_database_with_views_gains_the_edge_model_and_keeps_its_edges(
    db_path: Path,
) -> None:
    con = _database_at(db_path, 3)  # views that read edges exist when the column is added
    con.execute(
        "INSERT INTO edges (id, source_type, source_id, target_type, target_id, relation, "
        "nli_confidence) VALUES ('e1', 'fragment', 'f1', 'claim', 'c1', 'supports', 0.9)"
    )
    con.close()
    con = open_database(db_path, memory_limit="256MB", threads=1)
    rows = con.execute("SELECT id, relation, nli_confidence, nli_model FROM edges").fetchall()
    assert rows == [("e1", "supports", 0.9, None)]
    assert con.execute("SELECT max(version) FROM schema_version").fetchone() == (LATEST_VERSION,)
    con.close()


def test_a_version_4_database_with_views_gains_the_warc_offset_and_keeps_its_pages(
    db_path: Path,
) -> None:
    con = _database_at(db_path, 4)  # views that read pages exist when the column is added
    con.execute(
        "INSERT INTO pages (id, url, warc_path) VALUES ('p1', 'https://a.org/', '/w/a.warc.gz')"
    )
    con.close()
    con = open_database(db_path, memory_limit="256MB", threads=1)
    rows = con.execute("SELECT id, url, warc_path, warc_offset FROM pages").fetchall()
    assert rows == [("p1", "https://a.org/", "/w/a.warc.gz", None)]
    assert con.execute("SELECT max(version) FROM schema_version").fetchone() == (LATEST_VERSION,)
    con.close()


def test_a_version_5_database_with_views_gains_calibration_and_keeps_its_edges(
    db_path: Path,
) -> None:
    con = _database_at(db_path, 5)  # views that read edges exist when the columns are added
    con.execute(
        "INSERT INTO edges (id, source_type, source_id, target_type, target_id, relation, "
        "nli_confidence) VALUES ('e1', 'fragment', 'f1', 'claim', 'c1', 'refutes', 0.7)"
    )
    con.execute("INSERT INTO calibration_samples (id, source, predicted, label) "
                "VALUES ('s1', 'nli', 0.7, '1')")  # fmt: skip
    con.close()
    con = open_database(db_path, memory_limit="256MB", threads=1)
    edges = "SELECT id, nli_confidence, nli_raw_confidence, calibration_version FROM edges"
    assert con.execute(edges).fetchall() == [("e1", 0.7, None, None)]
    samples = "SELECT id, predicted, label, predicted_label, edge_id FROM calibration_samples"
    assert con.execute(samples).fetchall() == [("s1", 0.7, "1", None, None)]
    assert con.execute("SELECT count(*) FROM calibration_evaluations").fetchone() == (0,)
    assert con.execute("SELECT max(version) FROM schema_version").fetchone() == (LATEST_VERSION,)
    con.close()


def test_a_version_6_database_with_views_gains_verification_and_keeps_its_claims(
    db_path: Path,
) -> None:
    con = _database_at(db_path, 6)  # views that read claims exist when the columns are added
    con.execute("INSERT INTO claims (id, task_id, claim_text) VALUES ('c1', 't1', 'x')")
    con.execute("INSERT INTO domains (domain, trust_level) VALUES ('a.org', 'UNVERIFIED')")
    con.close()
    con = open_database(db_path, memory_limit="256MB", threads=1)
    claims = "SELECT id, status, verification_status, verification_reason FROM claims"
    assert con.execute(claims).fetchall() == [("c1", "active", None, None)]
    domains = "SELECT domain, trust_level, verification_status FROM domains"
    assert con.execute(domains).fetchall() == [("a.org", "UNVERIFIED", None)]
    assert con.execute("SELECT max(version) FROM schema_version").fetchone() == (7,)
    con.close()
