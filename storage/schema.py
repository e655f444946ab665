"""DuckDB schema of the evidence graph and its migrations.

The column names of ARCHITECTURE §4 are a contract with the AI client, which writes
SQL against them: columns may be added, never renamed or dropped.

Design choices:
- IDs are VARCHAR hashes computed by the callers (see ``repository.make_id``), so every
  insert is idempotent with ``ON CONFLICT DO NOTHING`` and a retried actor call writes
  nothing twice.
- No foreign keys: DuckDB implements an UPDATE of a referenced row as delete + insert
  and refuses it, and soft cleanup deletes claims while edges still name them. The
  GraphActor, the sole writer, keeps references consistent.
- No secondary indexes: ART indexes slow the bulk inserts that dominate the write path,
  and at the sizes of one research machine (10^5 to 10^6 rows) DuckDB's hash joins and
  zonemap scans answer the graph's lookups in milliseconds.
- Timestamps are naive UTC (``open_database`` sets ``TimeZone='UTC'``).

Migrations are frozen lists of statements: version N is never edited once released;
a change of schema is a new version appended to ``MIGRATIONS``.
"""

from __future__ import annotations

import logging

import duckdb

from lyra.storage.disk import disk_full_error
from lyra.storage.views import create_views

log = logging.getLogger(__name__)

SCHEMA_VERSION_DDL = """
CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp
)
"""

_V1: tuple[str, ...] = (
    """
    CREATE TABLE IF NOT EXISTS tasks (
        id VARCHAR PRIMARY KEY,
        query VARCHAR NOT NULL,
        status VARCHAR NOT NULL DEFAULT 'created',
        created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
        updated_at TIMESTAMP DEFAULT current_timestamp,
        config JSON
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS searches (
        id VARCHAR PRIMARY KEY,
        task_id VARCHAR NOT NULL,
        query VARCHAR NOT NULL,
        status VARCHAR NOT NULL DEFAULT 'running',
        created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
        finished_at TIMESTAMP,
        options JSON,
        metrics JSON,
        error JSON
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS serp_items (
        id VARCHAR PRIMARY KEY,
        search_id VARCHAR NOT NULL,
        engine VARCHAR NOT NULL,
        rank INTEGER,
        url VARCHAR NOT NULL,
        title VARCHAR,
        snippet VARCHAR,
        published_date VARCHAR,
        source_tag VARCHAR,
        created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
    )
    """,
    # domain holds the registrable domain (eTLD+1); dup_of names the canonical page of
    # a near-duplicate so that it counts once among independent sources (§4).
    """
    CREATE TABLE IF NOT EXISTS pages (
        id VARCHAR PRIMARY KEY,
        url VARCHAR NOT NULL UNIQUE,
        domain VARCHAR,
        title VARCHAR,
        trust_level VARCHAR DEFAULT 'UNVERIFIED',
        fetched_at TIMESTAMP,
        warc_path VARCHAR,
        screenshot_path VARCHAR,
        content_type VARCHAR,
        content_hash VARCHAR,
        simhash UBIGINT,
        dup_of VARCHAR,
        http_status INTEGER,
        final_url VARCHAR,
        source_path VARCHAR,
        byte_size BIGINT,
        is_retracted BOOLEAN DEFAULT false,
        doi VARCHAR,
        published_date DATE,
        language VARCHAR
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS fragments (
        id VARCHAR PRIMARY KEY,
        page_id VARCHAR NOT NULL,
        position INTEGER,
        text_content VARCHAR NOT NULL,
        heading_context VARCHAR,
        fragment_type VARCHAR,
        char_start INTEGER,
        char_end INTEGER,
        page_number INTEGER,
        text_hash VARCHAR,
        created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS claims (
        id VARCHAR PRIMARY KEY,
        task_id VARCHAR NOT NULL,
        search_id VARCHAR,
        claim_text VARCHAR NOT NULL,
        created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
        extraction_method VARCHAR,
        extraction_confidence DOUBLE,
        status VARCHAR NOT NULL DEFAULT 'active'
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS edges (
        id VARCHAR PRIMARY KEY,
        task_id VARCHAR,
        source_type VARCHAR NOT NULL,
        source_id VARCHAR NOT NULL,
        target_type VARCHAR NOT NULL,
        target_id VARCHAR NOT NULL,
        relation VARCHAR NOT NULL,
        nli_label VARCHAR,
        nli_confidence DOUBLE,
        source_trust_level VARCHAR,
        target_trust_level VARCHAR,
        method VARCHAR,
        created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
    )
    """,
    # FLOAT[] rather than FLOAT[384]: the dimension depends on the model (MiniLM 384,
    # bge-m3 1024) and model_id is part of the key.
    """
    CREATE TABLE IF NOT EXISTS embeddings (
        target_type VARCHAR NOT NULL,
        target_id VARCHAR NOT NULL,
        model_id VARCHAR NOT NULL,
        dims INTEGER NOT NULL,
        text_hash VARCHAR,
        vector FLOAT[] NOT NULL,
        created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
        PRIMARY KEY (target_type, target_id, model_id)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS domains (
        domain VARCHAR PRIMARY KEY,
        trust_level VARCHAR DEFAULT 'UNVERIFIED',
        qps DOUBLE,
        blocked BOOLEAN DEFAULT false,
        block_reason VARCHAR,
        blocked_at TIMESTAMP,
        state JSON,
        updated_at TIMESTAMP DEFAULT current_timestamp
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS auth_queue (
        id VARCHAR PRIMARY KEY,
        task_id VARCHAR,
        search_id VARCHAR,
        url VARCHAR NOT NULL,
        domain VARCHAR,
        auth_type VARCHAR,
        priority VARCHAR DEFAULT 'medium',
        status VARCHAR NOT NULL DEFAULT 'pending',
        queued_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
        resolved_at TIMESTAMP
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS engine_health (
        engine VARCHAR PRIMARY KEY,
        success_ema_1h DOUBLE,
        success_ema_24h DOUBLE,
        captcha_ema DOUBLE,
        http_error_ema DOUBLE,
        latency_ema_ms DOUBLE,
        circuit_state VARCHAR DEFAULT 'closed',
        updated_at TIMESTAMP DEFAULT current_timestamp
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS calibration_samples (
        id VARCHAR PRIMARY KEY,
        source VARCHAR NOT NULL,
        predicted DOUBLE NOT NULL,
        label VARCHAR NOT NULL,
        created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS calibration_params (
        source VARCHAR NOT NULL,
        version INTEGER NOT NULL,
        method VARCHAR NOT NULL,
        params JSON,
        brier DOUBLE,
        ece DOUBLE,
        created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
        active BOOLEAN DEFAULT false,
        PRIMARY KEY (source, version)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS event_log (
        id VARCHAR PRIMARY KEY,
        ts TIMESTAMP NOT NULL DEFAULT current_timestamp,
        kind VARCHAR NOT NULL,
        actor VARCHAR,
        task_id VARCHAR,
        search_id VARCHAR,
        cause_id VARCHAR,
        payload JSON
    )
    """,
)

# Version 2 (issue 4, discovery): the canonical paper index, how each search met a
# paper, and the citation-tracking candidates `get_status` lists.
_V2: tuple[str, ...] = (
    # One row per paper however many routes and ids reached it: any shared id (DOI,
    # PMID, PMCID, arXiv, S2 paperId, OpenAlex id) names the same row; `canonical_key`
    # is the DOI-first key of pipelines.discover.identifiers.canonical_paper_key at last merge.
    """
    CREATE TABLE IF NOT EXISTS papers (
        id VARCHAR PRIMARY KEY,
        canonical_key VARCHAR NOT NULL,
        doi VARCHAR,
        pmid VARCHAR,
        pmcid VARCHAR,
        arxiv VARCHAR,
        s2_id VARCHAR,
        openalex_id VARCHAR,
        corpus_id BIGINT,
        title VARCHAR,
        norm_title VARCHAR,
        year INTEGER,
        venue VARCHAR,
        abstract VARCHAR,
        authors JSON,
        is_retracted BOOLEAN,
        citation_count INTEGER,
        source_apis JSON,
        page_id VARCHAR,
        created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
        updated_at TIMESTAMP DEFAULT current_timestamp
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS paper_sightings (
        search_id VARCHAR NOT NULL,
        paper_id VARCHAR NOT NULL,
        route VARCHAR NOT NULL,
        source_url VARCHAR,
        created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
        PRIMARY KEY (search_id, paper_id, route)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS citation_candidates (
        id VARCHAR PRIMARY KEY,
        task_id VARCHAR NOT NULL,
        search_id VARCHAR NOT NULL,
        anchor_paper_id VARCHAR NOT NULL,
        paper_id VARCHAR NOT NULL,
        direction VARCHAR NOT NULL,
        is_influential BOOLEAN,
        similarity DOUBLE,
        llm_relevance DOUBLE,
        score DOUBLE,
        kept BOOLEAN NOT NULL DEFAULT false,
        apis JSON,
        created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
    )
    """,
    # Engine health (pipelines/discover/engine_health.py): evidence count and the last-resort
    # slot's recent uses (epoch seconds) for its hourly limit.
    "ALTER TABLE engine_health ADD COLUMN IF NOT EXISTS samples INTEGER DEFAULT 0",
    "ALTER TABLE engine_health ADD COLUMN IF NOT EXISTS last_resort_uses DOUBLE[]",
)

# Publication dates (issue 15): where each page's date was read (pipelines/extract/dates).
_V3: tuple[str, ...] = ("ALTER TABLE pages ADD COLUMN IF NOT EXISTS published_date_source VARCHAR",)

# The model that judged each stance edge (decision 0036): `<hub id>@<revision[:12]>` for
# a pulled model, the packaged stance model's id, or "heuristic"; NULL for edges made
# before v4 and for edges no model made (origin, cites).
_V4: tuple[str, ...] = ("ALTER TABLE edges ADD COLUMN IF NOT EXISTS nli_model VARCHAR",)

# Where in its WARC file each fetched page's record starts (the response record, or a
# browser capture's HTML record; for a 304 the stored record whose body the page shows),
# so that a page leads to the exact exchange it was built from. NULL for corpus files,
# API-built paper pages and pages stored before v5.
_V5: tuple[str, ...] = ("ALTER TABLE pages ADD COLUMN IF NOT EXISTS warc_offset BIGINT",)

# Calibration (issue 14, seed 003 §3.3.4): each sample's labels and where it came from;
# each stance edge's raw model probability beside the calibrated one it carries, and the
# calibration version that made it (NULL: none was active); one row per evaluation.
_V6: tuple[str, ...] = (
    "ALTER TABLE calibration_samples ADD COLUMN IF NOT EXISTS predicted_label VARCHAR",
    "ALTER TABLE calibration_samples ADD COLUMN IF NOT EXISTS actual_label VARCHAR",
    "ALTER TABLE calibration_samples ADD COLUMN IF NOT EXISTS edge_id VARCHAR",
    "ALTER TABLE calibration_samples ADD COLUMN IF NOT EXISTS context JSON",
    "ALTER TABLE edges ADD COLUMN IF NOT EXISTS nli_raw_confidence DOUBLE",
    "ALTER TABLE edges ADD COLUMN IF NOT EXISTS calibration_version INTEGER",
    # The feedback tool (decision 0050): why a claim was rejected or restored, and when.
    "ALTER TABLE claims ADD COLUMN IF NOT EXISTS status_reason VARCHAR",
    "ALTER TABLE claims ADD COLUMN IF NOT EXISTS status_changed_at TIMESTAMP",
    # The extractor's own confidence beside the calibrated one, and the version (decision 0049).
    "ALTER TABLE claims ADD COLUMN IF NOT EXISTS extraction_raw_confidence DOUBLE",
    "ALTER TABLE claims ADD COLUMN IF NOT EXISTS calibration_version INTEGER",
    """
    CREATE TABLE IF NOT EXISTS calibration_evaluations (
        id VARCHAR PRIMARY KEY,
        source VARCHAR NOT NULL,
        brier_score DOUBLE NOT NULL,
        brier_score_calibrated DOUBLE,
        improvement_ratio DOUBLE,
        expected_calibration_error DOUBLE NOT NULL,
        samples_evaluated INTEGER NOT NULL,
        bins_json JSON NOT NULL,
        calibration_version INTEGER,
        degradation_detected BOOLEAN NOT NULL DEFAULT false,
        evaluated_at TIMESTAMP NOT NULL,
        created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
    )
    """,
)

# Source verification, L6 (issue 14, decision 0053): each claim's and each unvouched
# site's verification state (pending / verified / rejected), why, and since when.
_V7: tuple[str, ...] = (
    "ALTER TABLE claims ADD COLUMN IF NOT EXISTS verification_status VARCHAR",
    "ALTER TABLE claims ADD COLUMN IF NOT EXISTS verification_reason VARCHAR",
    "ALTER TABLE claims ADD COLUMN IF NOT EXISTS verification_changed_at TIMESTAMP",
    "ALTER TABLE domains ADD COLUMN IF NOT EXISTS verification_status VARCHAR",
    "ALTER TABLE domains ADD COLUMN IF NOT EXISTS verification_reason VARCHAR",
    "ALTER TABLE domains ADD COLUMN IF NOT EXISTS verification_changed_at TIMESTAMP",
)

MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: _V1, 2: _V2, 3: _V3, 4: _V4, 5: _V5, 6: _V6, 7: _V7
}  # fmt: skip
"""Statements of each schema version, applied in ascending order."""

LATEST_VERSION: int = max(MIGRATIONS)

TABLES: tuple[str, ...] = (
    "tasks",
    "searches",
    "serp_items",
    "pages",
    "fragments",
    "claims",
    "edges",
    "embeddings",
    "domains",
    "auth_queue",
    "engine_health",
    "calibration_samples",
    "calibration_params",
    "event_log",
    "papers",
    "paper_sightings",
    "citation_candidates",
    "calibration_evaluations",
)
"""Tables of the current schema, in creation order (schema_version excluded)."""

CALL_ANSWERED = "call_answered"
"""event_log kind of a write sent once (decision 0064): its id is the caller's request
id, its payload the method and what it answered."""


def applied_versions(con: duckdb.DuckDBPyConnection) -> list[int]:
    """Versions recorded in schema_version, ascending."""
    con.execute(SCHEMA_VERSION_DDL)
    rows = con.execute("SELECT version FROM schema_version ORDER BY version").fetchall()
    return [int(r[0]) for r in rows]


def migrate(con: duckdb.DuckDBPyConnection) -> int:
    """Apply every missing schema version, then (re)create the views; returns the version."""
    done = set(applied_versions(con))
    for version in sorted(MIGRATIONS):
        if version in done:
            continue
        # One transaction per version: a crash mid-migration leaves the previous
        # version intact, and the next open applies this one again from the start.
        con.execute("BEGIN TRANSACTION")
        try:
            for statement in MIGRATIONS[version]:
                con.execute(statement)
            con.execute(
                "INSERT INTO schema_version (version) VALUES (?) ON CONFLICT DO NOTHING",
                [version],
            )
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    # Views are derived objects: recreated on every open so that an edited template in
    # config/views/ takes effect without a schema version. On a full disk the ones
    # stored last time serve: the graph still opens and answers reads, and each write
    # says the disk is full (storage/disk.py).
    try:
        create_views(con)
    except duckdb.Error as exc:
        if disk_full_error(exc) is None:
            raise
        log.warning("views not recreated (the disk is full): %s", exc)
    return max(applied_versions(con))
