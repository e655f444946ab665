"""GraphActor: the sole owner (writer and reader) of the DuckDB evidence graph.

Fault behaviour: ``max_restarts=5``; on restart ``__init__`` reopens the database
file, whose committed rows DuckDB recovers from its WAL, and rebuilds the in-memory
vector indexes from the ``embeddings`` table. Every write method is idempotent:
ids are deterministic and inserts are ``ON CONFLICT DO NOTHING``, so Ray may retry
them after a crash (``max_task_retries=2``). Read methods are idempotent by nature.

Concurrency (decision 0026): writes run one at a time on the actor's default thread,
on the connection that opened the file; reads run in the ``read`` concurrency group
(``READ_THREADS`` threads), each thread on its own DuckDB cursor, so a tool call's reads
are answered while a bulk write is in progress and never see half of a write (each
write is one transaction). The vector indexes are guarded by a lock.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import ray

import lyra.actors.telemetry as telemetry
from lyra.actors.runtime import setup_actor_logging
from lyra.config.settings import Settings
from lyra.pipelines.discover import engine_health as eh
from lyra.pipelines.errors import LyraError
from lyra.pipelines.evidence.confidence import ClaimConfidence, EvidenceEdge, claim_confidence
from lyra.pipelines.evidence.research import PRIMARY_LEVELS
from lyra.pipelines.net.notify import queue_warnings
from lyra.storage import auth_queue as aq
from lyra.storage import domain_state as ds
from lyra.storage import graph_queries as gq
from lyra.storage import papers as pp
from lyra.storage import repository as repo
from lyra.storage.cleanup import apply_cleanup, plan_cleanup
from lyra.storage.connection import open_database
from lyra.storage.export import render
from lyra.storage.export.pack import evidence_pack
from lyra.storage.sql_guard import run_sandboxed, schema_snapshot, validate_select
from lyra.storage.vectors import VectorIndex
from lyra.storage.views import list_views, render_view

log = logging.getLogger(__name__)


# Reads run on their own threads, each with its own DuckDB cursor, so a get_status or a
# query_graph never waits behind a bulk write; writes stay one at a time in the default
# group, in the order they arrive (decision 0026).
READ_GROUP = "read"
READ_THREADS = 4


@ray.remote(  # type: ignore[call-overload]  # Ray's stubs lack concurrency_groups
    max_restarts=5, max_task_retries=2, concurrency_groups={READ_GROUP: READ_THREADS}
)
class GraphActor:
    """Owns the DuckDB file: batched writes, the query_graph sandbox, vector search."""

    def __init__(self, settings: Settings) -> None:
        setup_actor_logging()
        self._settings = settings
        db_path: Path = settings.db_path
        db_path.parent.mkdir(parents=True, exist_ok=True)
        self._con = open_database(
            db_path, memory_limit=settings.storage.memory_limit, threads=settings.storage.threads
        )
        self._indexes: dict[tuple[str, str], VectorIndex] = {}
        # One lock for the vector indexes (added to by writes, searched by reads), one
        # for the making of cursors.
        self._index_lock = threading.Lock()
        self._cursor_lock = threading.Lock()
        self._local = threading.local()

    def _reader(self) -> duckdb.DuckDBPyConnection:
        """This thread's cursor on the database (DuckDB connections are not shared
        between threads; a cursor is a connection of its own to the same database and
        sees every committed write)."""
        con: duckdb.DuckDBPyConnection | None = getattr(self._local, "con", None)
        if con is None:
            with self._cursor_lock:
                con = self._con.cursor()
            self._local.con = con
        return con

    # --- health -----------------------------------------------------------------
    @ray.method(concurrency_group=READ_GROUP)
    def ping(self) -> str:
        """Liveness probe (idempotent)."""
        return "ok"

    @ray.method(concurrency_group=READ_GROUP)
    def table_counts(self) -> dict[str, int]:
        """Row counts of the main tables (idempotent)."""
        return repo.table_counts(self._reader())

    # --- tasks and searches -----------------------------------------------------
    def create_task(self, task_id: str, query: str, config: dict[str, Any]) -> dict[str, Any]:
        """Insert a task row (idempotent by id)."""
        repo.create_task(self._con, task_id=task_id, query=query, config=config)
        return repo.get_task(self._con, task_id) or {}

    @ray.method(concurrency_group=READ_GROUP)
    def get_task(self, task_id: str) -> dict[str, Any] | None:
        """The task row, or None."""
        return repo.get_task(self._reader(), task_id)

    def update_task_status(self, task_id: str, status: str) -> None:
        """Set a task's status (idempotent)."""
        repo.update_task_status(self._con, task_id, status)

    def create_search(
        self, search_id: str, task_id: str, query: str, options: dict[str, Any]
    ) -> None:
        """Insert a search row with status running (idempotent by id)."""
        repo.create_search(
            self._con, search_id=search_id, task_id=task_id, query=query, options=options
        )

    def update_search(self, search_id: str, **fields: Any) -> None:
        """Update a search's status, metrics, error or finish time (idempotent)."""
        repo.update_search(self._con, search_id, **fields)

    @ray.method(concurrency_group=READ_GROUP)
    def get_search(self, search_id: str) -> dict[str, Any] | None:
        """One search row, or None."""
        return repo.get_search(self._reader(), search_id)

    @ray.method(concurrency_group=READ_GROUP)
    def list_searches(self, task_id: str) -> list[dict[str, Any]]:
        """All searches of a task, oldest first."""
        return repo.list_searches(self._reader(), task_id)

    def fail_running_searches(self, reason: str) -> int:
        """Mark searches left running by a dead orchestrator as failed (idempotent)."""
        return gq.fail_running_searches(self._con, reason)

    # --- pages, fragments, claims, edges ------------------------------------------
    def insert_serp_items(self, rows: list[dict[str, Any]]) -> None:
        """Store SERP rows (idempotent by id)."""
        repo.insert_serp_items(self._con, rows)
        telemetry.graph_rows_written("serp_items", len(rows))

    def upsert_pages(self, rows: list[dict[str, Any]]) -> dict[str, str]:
        """Store pages once per URL; returns url → page id."""
        out = repo.upsert_pages(self._con, rows)
        telemetry.graph_rows_written("pages", len(rows))
        return out

    @ray.method(concurrency_group=READ_GROUP)
    def page_simhashes(self) -> list[tuple[str, int, str | None]]:
        """(page id, simhash, dup_of) of every stored page, for near-duplicate checks."""
        return gq.page_simhashes(self._reader())

    def insert_fragments(self, rows: list[dict[str, Any]]) -> int:
        """Store fragments (idempotent by id); returns rows offered."""
        repo.insert_fragments(self._con, rows)
        telemetry.graph_rows_written("fragments", len(rows))
        return len(rows)

    @ray.method(concurrency_group=READ_GROUP)
    def fragments_for_pages(self, page_ids: list[str]) -> list[dict[str, Any]]:
        """Fragments of the given pages with their page's url, domain and trust level."""
        return repo.fragments_for_pages(self._reader(), page_ids)

    def insert_claims(self, rows: list[dict[str, Any]]) -> None:
        """Store claims (idempotent by id)."""
        repo.insert_claims(self._con, rows)
        telemetry.graph_rows_written("claims", len(rows))

    def insert_edges(self, rows: list[dict[str, Any]]) -> None:
        """Store edges (idempotent by id)."""
        repo.insert_edges(self._con, rows)
        telemetry.graph_rows_written("edges", len(rows))

    @ray.method(concurrency_group=READ_GROUP)
    def claims_for_task(self, task_id: str) -> list[dict[str, Any]]:
        """Active claims of a task."""
        return repo.claims_for_task(self._reader(), task_id)

    @ray.method(concurrency_group=READ_GROUP)
    def existing_stance_pairs(self, task_id: str) -> list[tuple[str, str]]:
        """(fragment id, claim id) pairs already judged in this task."""
        return gq.existing_stance_pairs(self._reader(), task_id)

    def log_event(self, **fields: Any) -> None:
        """Append an event_log row."""
        repo.log_event(self._con, **fields)
        telemetry.graph_rows_written("event_log", 1)

    # --- embeddings ---------------------------------------------------------------
    @ray.method(concurrency_group=READ_GROUP)
    def embeddings_by_text_hash(
        self, model_id: str, text_hashes: list[str]
    ) -> dict[str, list[float]]:
        """Stored vectors for these text hashes, so the same text is never embedded twice."""
        found = repo.find_embeddings_by_text_hash(self._reader(), model_id, text_hashes)
        return {h: v.tolist() for h, v in found.items()}

    def put_embeddings(
        self, target_type: str, model_id: str, rows: list[tuple[str, str, list[float]]]
    ) -> None:
        """Persist vectors (idempotent) and add them to the in-memory index."""
        if not rows:
            return
        arr = [(tid, th, np.asarray(vec, dtype=np.float32)) for tid, th, vec in rows]
        repo.put_embeddings(self._con, target_type, model_id, arr)
        telemetry.graph_rows_written("embeddings", len(arr))
        with self._index_lock:
            index = self._indexes.get((target_type, model_id))
            if index is not None:
                index.add([r[0] for r in arr], np.stack([r[2] for r in arr]))

    @ray.method(concurrency_group=READ_GROUP)
    def vector_search(
        self,
        query_vector: list[float],
        target: str,
        model_id: str,
        top_k: int,
        min_similarity: float,
        allowed_ids: list[str] | None = None,
    ) -> list[tuple[str, float]]:
        """Cosine top-k over claims or fragments (brute force over a cached matrix)."""
        allowed = set(allowed_ids) if allowed_ids is not None else None
        key = (target, model_id)
        con = self._reader()
        with self._index_lock:
            # Loaded once, under the lock, so that no write's add() falls between the
            # load and the index's entry in the table.
            if key not in self._indexes:
                self._indexes[key] = VectorIndex.load(con, target, model_id)
            return self._indexes[key].search(
                np.asarray(query_vector, dtype=np.float32), top_k, min_similarity, allowed
            )

    @ray.method(concurrency_group=READ_GROUP)
    def fragment_ids_for_task(self, task_id: str) -> list[str]:
        """Fragments of the pages a task's searches took."""
        return gq.fragment_ids_for_task(self._reader(), task_id)

    @ray.method(concurrency_group=READ_GROUP)
    def texts_for(self, target: str, ids: list[str]) -> dict[str, dict[str, Any]]:
        """Text and provenance of claims or fragments by id."""
        return gq.texts_for(self._reader(), target, ids)

    # --- confidence -----------------------------------------------------------------
    @ray.method(concurrency_group=READ_GROUP)
    def claim_confidences(self, task_id: str) -> list[dict[str, Any]]:
        """Every active claim of a task with its Bayesian confidence (ARCHITECTURE §4)."""
        return self._claim_confidences(task_id)

    def _claim_confidences(self, task_id: str) -> list[dict[str, Any]]:
        con = self._reader()
        claims = repo.claims_for_task(con, task_id)
        evidence = gq.stance_evidence_for_task(con, task_id)
        origins = gq.claim_origins(con, task_id)
        out: list[dict[str, Any]] = []
        for claim in claims:
            rows = evidence.get(claim["id"], [])
            conf: ClaimConfidence = claim_confidence(
                [
                    EvidenceEdge(
                        relation=e["relation"],
                        nli_confidence=float(e["nli_confidence"] or 0.0),
                        page_id=e["page_id"],
                        domain=e["domain"],
                        dup_of=e["dup_of"],
                        dup_domain=e["dup_domain"],
                    )
                    for e in rows
                ]
            )
            origin = origins.get(claim["id"], {})
            out.append(
                {
                    **claim,
                    "alpha": conf.alpha,
                    "beta": conf.beta,
                    "confidence": conf.confidence,
                    "uncertainty": conf.uncertainty,
                    "controversy": conf.controversy,
                    "supporting": conf.supporting,
                    "refuting": conf.refuting,
                    "neutral": conf.neutral,
                    "evidence_count": conf.evidence_count,
                    "independent_sources": conf.independent_sources,
                    "supporting_urls": sorted(
                        {e["url"] for e in rows if e["relation"] == "supports"}
                    ),
                    "refuting_urls": sorted({e["url"] for e in rows if e["relation"] == "refutes"}),
                    "primary_support": any(
                        e["relation"] == "supports" and e["trust_level"] in PRIMARY_LEVELS
                        for e in rows
                    ),
                    "source_url": origin.get("url"),
                    "source_domain": origin.get("domain"),
                    "source_trust_level": origin.get("trust_level"),
                    "origin_fragment_id": origin.get("fragment_id"),
                    "origin_page_id": origin.get("page_id"),
                    "origin_page_number": origin.get("page_number"),
                    "source_retracted": bool(origin.get("is_retracted")),
                }
            )
        return out

    @ray.method(concurrency_group=READ_GROUP)
    def embeddings_for(
        self, target_type: str, model_id: str, ids: list[str]
    ) -> dict[str, list[float]]:
        """Stored vectors of these targets (idempotent)."""
        found = repo.get_embeddings(self._reader(), target_type, model_id, ids)
        return {k: v.tolist() for k, v in found.items()}

    @ray.method(concurrency_group=READ_GROUP)
    def status_extras(self, task_id: str | None) -> dict[str, Any]:
        """Blocked domains and the auth queue summary for get_status (idempotent)."""
        return {
            "blocked_domains": gq.blocked_domains(self._reader()),
            "auth_queue": self._auth_summary(task_id),
            "reference_candidates": (
                pp.reference_candidates(self._reader(), task_id, 50) if task_id else []
            ),
        }

    def cleanup(self, task_id: str, hard: bool, dry_run: bool) -> dict[str, Any]:
        """Soft or hard cleanup of one task (storage/cleanup); a dry run only plans."""
        plan = plan_cleanup(self._con, task_id, hard=hard, home=self._settings.home_dir)
        if dry_run:
            return {**plan.summary(), "dry_run": True, "files_not_removed": []}
        done = apply_cleanup(self._con, plan)
        with self._index_lock:
            self._indexes.clear()  # vectors of removed claims and fragments are gone
        repo.log_event(
            self._con,
            kind="task_cleanup",
            actor="graph",
            task_id=task_id,
            payload={k: v for k, v in done.items() if k not in ("pages", "files", "pages_kept")},
        )
        return {**done, "dry_run": False}

    @ray.method(concurrency_group=READ_GROUP)
    def replay_sources(self, task_id: str) -> list[dict[str, Any]]:
        """A task's finished searches with the pages each kept (jobs/replay.py)."""
        return gq.replay_sources(self._reader(), task_id)

    @ray.method(concurrency_group=READ_GROUP)
    def replay_diff(self, original: str, replay: str) -> dict[str, Any]:
        """Claims and stance edges a replay changed."""
        return gq.replay_diff(self._reader(), original, replay)

    @ray.method(concurrency_group=READ_GROUP)
    def export(self, task_id: str, fmt: str) -> dict[str, Any]:
        """A task's evidence in one export format (storage/export); a task without
        claims gives a valid empty file."""
        con = self._reader()
        task = repo.get_task(con, task_id)
        if task is None:
            raise LyraError("TASK_NOT_FOUND", f"no task with id {task_id!r}", field="task_id")
        return render(
            evidence_pack(con, task, self._claim_confidences(task_id), repo.task_as_of(con, task)),
            fmt,
        )

    @ray.method(concurrency_group=READ_GROUP)
    def evidence_summary(self, task_id: str) -> dict[str, Any]:
        """Edge counts by relation and the top domains of a task's evidence."""
        return gq.evidence_summary(self._reader(), task_id)

    # --- auth queue (seed 003 §3.6.1) and domain state ------------------------------
    def enqueue_auth(self, item: dict[str, Any]) -> dict[str, Any]:
        """Queue a URL for a person (idempotent: one pending item per task and URL; a
        repeated call returns that item and adds its search to the blocking searches).

        item: task_id, search_id, url, domain, auth_type, priority. Returns the public
        item plus ``created``.
        """
        row, created = aq.enqueue(
            self._con,
            task_id=item.get("task_id"),
            search_id=item.get("search_id"),
            url=item["url"],
            domain=item["domain"],
            auth_type=item["auth_type"],
            priority=item["priority"],
        )
        return {**aq.public_item(row), "created": created}

    @ray.method(concurrency_group=READ_GROUP)
    def auth_items(
        self, task_id: str | None, priority_filter: str, group_by: str
    ) -> dict[str, Any]:
        """Pending items as get_auth_queue reports them, grouped (idempotent)."""
        items = aq.list_pending(self._reader(), task_id=task_id, priority_filter=priority_filter)
        if group_by == "domain":
            domains = aq.group_by_domain(items)
            return {"domains": domains, "total_domains": len(domains), "total_pending": len(items)}
        if group_by == "type":
            return {"types": aq.group_by_type(items), "total_pending": len(items)}
        if group_by == "none":
            return {"queue": [aq.public_item(i) for i in items], "total_pending": len(items)}
        raise ValueError(f"group_by must be none, domain or type, not {group_by!r}")

    @ray.method(concurrency_group=READ_GROUP)
    def auth_summary(self, task_id: str | None) -> dict[str, Any]:
        """The get_status auth_queue object with its threshold warnings (idempotent)."""
        return self._auth_summary(task_id)

    def _auth_summary(self, task_id: str | None) -> dict[str, Any]:
        summary = gq.auth_queue_summary(self._reader(), task_id)
        limits = self._settings.auth
        summary["warnings"] = queue_warnings(
            summary["pending_count"],
            summary["high_priority_count"],
            warning_pending=limits.warning_pending,
            critical_pending=limits.critical_pending,
            critical_high_priority=limits.critical_high_priority,
        )
        return summary

    @ray.method(concurrency_group=READ_GROUP)
    def get_auth_item(self, auth_id: str) -> dict[str, Any] | None:
        """One item in any status, or None (idempotent)."""
        row = aq.get_item(self._reader(), auth_id)
        return aq.public_item(row) if row is not None else None

    def resolve_auth_items(
        self, target_kind: str, key: str, status: str, task_id: str | None
    ) -> list[dict[str, Any]]:
        """Give the pending item ``key`` (target_kind "item") or every pending item of
        domain ``key`` (optionally of one task) a final status; returns the items changed.

        Idempotent: a repeated call finds nothing pending and returns [].
        """
        if target_kind == "item":
            rows = aq.resolve(self._con, status, auth_id=key)
        elif target_kind == "domain":
            rows = aq.resolve(self._con, status, domain=key, task_id=task_id)
        else:
            raise ValueError(f"target_kind must be item or domain, not {target_kind!r}")
        return [aq.public_item(r) for r in rows]

    @ray.method(concurrency_group=READ_GROUP)
    def pending_auth_for_domain(self, domain: str) -> list[dict[str, Any]]:
        """Pending items of a domain, all tasks (idempotent)."""
        return [aq.public_item(r) for r in aq.list_pending(self._reader(), domain=domain)]

    @ray.method(concurrency_group=READ_GROUP)
    def load_domain_state(self, domain: str) -> dict[str, Any] | None:
        """A DomainFetcher's persisted state, or None (idempotent)."""
        return ds.load_domain_state(self._reader(), domain)

    def save_domain_state(
        self, domain: str, state: dict[str, Any], qps: float | None = None
    ) -> None:
        """Persist a DomainFetcher's state (idempotent: the last write wins)."""
        ds.save_domain_state(self._con, domain, state, qps)

    def save_domain_states(self, rows: list[dict[str, Any]]) -> int:
        """Persist several {domain, state, qps?} rows in one transaction (idempotent)."""
        return ds.save_domain_states(self._con, rows)

    # --- engine health (issue 4) --------------------------------------------------------
    @ray.method(concurrency_group=READ_GROUP)
    def engine_health(self, engines: list[str]) -> dict[str, dict[str, Any]]:
        """Stored health rows of the given engines (idempotent)."""
        return _engine_health(self._reader(), engines)

    def record_engine_outcome(
        self,
        engine: str,
        outcome: str,
        latency_ms: float | None,
        circuit_state: str | None = None,
    ) -> dict[str, Any]:
        """Fold one SERP outcome into the engine's EMAs; returns the new row.

        Not idempotent (a retried call counts the outcome twice); max_task_retries
        of this actor only replays calls lost with a crashed process.
        """
        now = time.time()
        old = _engine_health(self._con, [engine]).get(engine)
        record = eh.update(
            None if old is None else eh.EngineHealth.from_row(old),
            engine,
            outcome,  # type: ignore[arg-type]
            latency_ms,
            now,
            circuit_state=circuit_state,  # type: ignore[arg-type]
        )
        row = record.to_row()
        repo.upsert_rows(self._con, "engine_health", [row], key=["engine"])
        return row

    def record_last_resort_use(self, engine: str) -> dict[str, Any]:
        """Count one last-mile query of a last-resort engine now (its hourly limit)."""
        old = _engine_health(self._con, [engine]).get(engine)
        record = eh.record_last_resort_use(
            None if old is None else eh.EngineHealth.from_row(old), engine, time.time()
        )
        row = record.to_row()
        repo.upsert_rows(self._con, "engine_health", [row], key=["engine"])
        return row

    # --- canonical paper index (issue 4) -----------------------------------------------
    def upsert_papers(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Store paper records in the canonical index; one row back per record, in order.

        Idempotent: the same record merges into the same row again. A record with
        nothing to key it by comes back as ``{"error": ...}`` instead of a row.
        """
        out: list[dict[str, Any]] = []
        for rec in records:
            try:
                out.append(pp.upsert_paper(self._con, rec))
            except ValueError as exc:
                out.append({"error": str(exc)})
        return out

    def set_paper_pages(self, pairs: list[tuple[str, str]]) -> None:
        """Attach (paper_id, page_id) pairs; a paper keeps its first page (idempotent)."""
        for paper_id, page_id in pairs:
            pp.set_paper_page(self._con, paper_id, page_id)

    def record_paper_sightings(self, rows: list[dict[str, Any]]) -> int:
        """How a search met papers (idempotent)."""
        return pp.record_sightings(self._con, rows)

    @ray.method(concurrency_group=READ_GROUP)
    def papers_by_ids(self, paper_ids: list[str]) -> list[dict[str, Any]]:
        """Rows of the given papers (idempotent)."""
        return pp.papers_by_ids(self._reader(), paper_ids)

    def insert_citation_candidates(self, rows: list[dict[str, Any]]) -> int:
        """Citation-tracking candidates of a search (idempotent)."""
        return pp.insert_citation_candidates(self._con, rows)

    @ray.method(concurrency_group=READ_GROUP)
    def reference_candidates(self, task_id: str, limit: int = 50) -> list[dict[str, Any]]:
        """A task's citation candidates, kept ones first (idempotent)."""
        return pp.reference_candidates(self._reader(), task_id, limit)

    def mark_pages_retracted(self, page_ids: list[str]) -> None:
        """Flag pages whose paper is retracted (idempotent)."""
        if page_ids:
            self._con.execute(
                "UPDATE pages SET is_retracted = true WHERE id IN (SELECT unnest(?::VARCHAR[]))",
                [page_ids],
            )

    # --- query_graph ------------------------------------------------------------------
    @ray.method(concurrency_group=READ_GROUP)
    def query_graph(
        self,
        sql: str | None,
        view: str | None,
        params: dict[str, Any],
        limit: int,
        timeout_ms: int,
        include_schema: bool,
    ) -> dict[str, Any]:
        """Read-only SQL or a named view in the sandbox of ARCHITECTURE §6."""
        if view:
            try:
                text = validate_select(render_view(view, params))
            except (KeyError, ValueError) as exc:
                raise LyraError("INVALID_PARAMS", str(exc).strip("'\""), field="view") from None
        else:
            text = validate_select(sql or "")
        result = run_sandboxed(
            self._reader(),
            text,
            limit=limit,
            timeout_ms=timeout_ms,
            max_bytes=self._settings.query_graph.max_result_bytes,
        )
        out: dict[str, Any] = {
            "columns": result.columns,
            "rows": result.rows,
            "row_count": result.row_count,
            "truncated": result.truncated,
            "elapsed_ms": result.elapsed_ms,
        }
        if include_schema:
            out["schema"] = schema_snapshot(self._reader())
        return out

    @ray.method(concurrency_group=READ_GROUP)
    def views(self) -> list[str]:
        """Names of the analysis views."""
        return [v.name for v in list_views()]


def _engine_health(con: duckdb.DuckDBPyConnection, engines: list[str]) -> dict[str, dict[str, Any]]:
    cur = con.execute(
        "SELECT * FROM engine_health WHERE engine IN (SELECT unnest(?::VARCHAR[]))", [engines]
    )
    names = [d[0] for d in cur.description or ()]
    return {row[0]: dict(zip(names, row, strict=True)) for row in cur.fetchall()}
