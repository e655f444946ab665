"""GraphActor: the sole owner (writer and reader) of the DuckDB evidence graph.

Fault behaviour: ``max_restarts=5``; on restart ``__init__`` reopens the database
file, whose committed rows DuckDB recovers from its WAL, and rebuilds the in-memory
vector indexes from the ``embeddings`` table. Every write method is idempotent unless
its docstring says otherwise: ids are deterministic and inserts are ``ON CONFLICT DO
NOTHING``, so Ray may retry them after a crash (``max_task_retries=2``). Read methods
are idempotent by nature.

Concurrency (decision 0026): writes run one at a time on the actor's default thread;
reads run in the ``read`` concurrency group (``READ_THREADS`` threads), so a tool
call's reads are answered while a bulk write is in progress.

The work is done by `lyra.storage.graph_store.GraphStore`; this class holds it and
forwards each call. Ray loads an actor's class in every process that gets a handle to
it, with whatever the class's methods name: each `DomainFetcher` (which stores its
politeness state here) loaded DuckDB, NumPy and the query code that way, 0.9 s of
CPU before its site's first request and about 27 MiB of its memory (decision 0044).
So this module names nothing heavier than Ray and the metrics.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import ray

import lyra.actors.telemetry as telemetry
from lyra.actors.runtime import GRAPH, restarted_by_ray, setup_actor_logging

if TYPE_CHECKING:
    from lyra.config.settings import Settings
    from lyra.storage.graph_store import GraphStore

# Reads run on their own threads, each with its own DuckDB cursor, so a get_status or a
# query_graph never waits behind a bulk write; writes stay one at a time in the default
# group, in the order they arrive (decision 0026).
log = logging.getLogger(__name__)

READ_GROUP = "read"
READ_THREADS = 4


@ray.remote(  # type: ignore[call-overload]  # Ray's stubs lack concurrency_groups
    max_restarts=5, max_task_retries=2, concurrency_groups={READ_GROUP: READ_THREADS}
)
class GraphActor:
    """Owns the DuckDB file: batched writes, the query_graph sandbox, vector search."""

    def __init__(self, settings: Settings) -> None:
        setup_actor_logging(settings.home_dir)
        # Imported here, in the actor's own process only (see the module docstring).
        from lyra.storage.connection import MIN_ADDRESS_HEADROOM, cap_address_space, size_bytes
        from lyra.storage.graph_store import GraphStore

        self._store: GraphStore = GraphStore(settings, telemetry.graph_rows_written)
        if restarted_by_ray():  # a kill between two calls is recorded too
            payload = {"actor": GRAPH, "reported_by": "itself"}
            try:
                self._store.log_event(kind="actor_restart", actor=GRAPH, payload=payload)
            except Exception:  # an audit row must not keep the graph from starting
                log.warning("could not record the graph's restart", exc_info=True)
        # A query that builds a huge value fails here instead of taking the machine's
        # memory (decision 0060).
        headroom = max(MIN_ADDRESS_HEADROOM, 4 * size_bytes(settings.storage.memory_limit))
        limit = cap_address_space(headroom)
        log.info("graph process address space capped at %s bytes", limit)

    # --- health -----------------------------------------------------------------
    @ray.method(concurrency_group=READ_GROUP)
    def ping(self) -> str:
        """Liveness probe (idempotent)."""
        return "ok"

    @ray.method(concurrency_group=READ_GROUP)
    def table_counts(self) -> dict[str, int]:
        """Row counts of the main tables (idempotent)."""
        return self._store.table_counts()

    def create_task(self, task_id: str, query: str, config: dict[str, Any]) -> dict[str, Any]:
        """Insert a task row (idempotent by id)."""
        return self._store.create_task(task_id, query, config)

    @ray.method(concurrency_group=READ_GROUP)
    def get_task(self, task_id: str) -> dict[str, Any] | None:
        """The task row, or None."""
        return self._store.get_task(task_id)

    def update_task_status(self, task_id: str, status: str) -> None:
        """Set a task's status (idempotent)."""
        self._store.update_task_status(task_id, status)

    def create_search(
        self, search_id: str, task_id: str, query: str, options: dict[str, Any]
    ) -> None:
        """Insert a search row with status running (idempotent by id)."""
        self._store.create_search(search_id, task_id, query, options)

    def update_search(self, search_id: str, **fields: Any) -> None:
        """Update a search's status, metrics, error or finish time (idempotent)."""
        self._store.update_search(search_id, **fields)

    @ray.method(concurrency_group=READ_GROUP)
    def get_search(self, search_id: str) -> dict[str, Any] | None:
        """One search row, or None."""
        return self._store.get_search(search_id)

    @ray.method(concurrency_group=READ_GROUP)
    def list_searches(self, task_id: str) -> list[dict[str, Any]]:
        """All searches of a task, oldest first."""
        return self._store.list_searches(task_id)

    def fail_running_searches(self, reason: str) -> int:
        """Mark searches left running by a dead orchestrator as failed (idempotent)."""
        return self._store.fail_running_searches(reason)

    def insert_serp_items(self, rows: list[dict[str, Any]]) -> None:
        """Store SERP rows (idempotent by id)."""
        self._store.insert_serp_items(rows)

    def upsert_pages(self, rows: list[dict[str, Any]]) -> dict[str, str]:
        """Store pages once per URL; returns url → page id."""
        return self._store.upsert_pages(rows)

    @ray.method(concurrency_group=READ_GROUP)
    def page_simhashes(self) -> list[tuple[str, int, str | None]]:
        """(page id, simhash, dup_of) of every stored page, for near-duplicate checks."""
        return self._store.page_simhashes()

    def insert_fragments(self, rows: list[dict[str, Any]]) -> int:
        """Store fragments (idempotent by id); returns rows offered."""
        return self._store.insert_fragments(rows)

    @ray.method(concurrency_group=READ_GROUP)
    def fragments_for_pages(self, page_ids: list[str]) -> list[dict[str, Any]]:
        """Fragments of the given pages with their page's url, domain and trust level."""
        return self._store.fragments_for_pages(page_ids)

    def insert_claims(self, rows: list[dict[str, Any]]) -> None:
        """Store claims (idempotent by id)."""
        self._store.insert_claims(rows)

    def insert_edges(self, rows: list[dict[str, Any]]) -> None:
        """Store edges (idempotent by id)."""
        self._store.insert_edges(rows)

    @ray.method(concurrency_group=READ_GROUP)
    def claims_for_task(self, task_id: str, status: str | None = "active") -> list[dict[str, Any]]:
        """Claims of a task with ``status`` (default active; None: all, rejected too)."""
        return self._store.claims_for_task(task_id, status)

    @ray.method(concurrency_group=READ_GROUP)
    def existing_stance_pairs(self, task_id: str) -> list[tuple[str, str]]:
        """(fragment id, claim id) pairs already judged in this task."""
        return self._store.existing_stance_pairs(task_id)

    def log_event(self, **fields: Any) -> None:
        """Append an event_log row."""
        self._store.log_event(**fields)

    @ray.method(concurrency_group=READ_GROUP)
    def call_answer(self, request_id: str) -> dict[str, Any] | None:
        """What a write sent once answered, or None (decision 0064)."""
        return self._store.call_answer(request_id)

    def once(self, request_id: str, method: str, args: list[Any]) -> Any:
        """A write done once per request id, its answer recorded with it (decision
        0064): retried after a crash, it answers what the first call did."""
        return self._store.once(request_id, method, args)

    @ray.method(concurrency_group=READ_GROUP)
    def embeddings_by_text_hash(
        self, model_id: str, text_hashes: list[str]
    ) -> dict[str, list[float]]:
        """Stored vectors for these text hashes, so the same text is never embedded twice."""
        return self._store.embeddings_by_text_hash(model_id, text_hashes)

    def put_embeddings(
        self, target_type: str, model_id: str, rows: list[tuple[str, str, Any]]
    ) -> None:
        """Persist vectors (idempotent) and add them to the in-memory index. Each row is
        (target id, text hash, vector): a NumPy array, or a list of floats."""
        self._store.put_embeddings(target_type, model_id, rows)

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
        return self._store.vector_search(
            query_vector, target, model_id, top_k, min_similarity, allowed_ids
        )

    @ray.method(concurrency_group=READ_GROUP)
    def vector_search_many(
        self,
        query_vectors: list[list[float]],
        target: str,
        model_id: str,
        top_k: int,
        min_similarity: float,
        allowed_ids: list[str] | None = None,
    ) -> list[list[tuple[str, float]]]:
        """`vector_search` for each of several query vectors, in one call."""
        return self._store.vector_search_many(
            query_vectors, target, model_id, top_k, min_similarity, allowed_ids
        )

    @ray.method(concurrency_group=READ_GROUP)
    def fragment_ids_for_task(self, task_id: str) -> list[str]:
        """Fragments of the pages a task's searches took."""
        return self._store.fragment_ids_for_task(task_id)

    @ray.method(concurrency_group=READ_GROUP)
    def texts_for(self, target: str, ids: list[str]) -> dict[str, dict[str, Any]]:
        """Text and provenance of claims or fragments by id."""
        return self._store.texts_for(target, ids)

    @ray.method(concurrency_group=READ_GROUP)
    def claim_confidences(self, task_id: str) -> list[dict[str, Any]]:
        """Every active claim of a task with its Bayesian confidence (ARCHITECTURE §4)."""
        return self._store.claim_confidences(task_id)

    @ray.method(concurrency_group=READ_GROUP)
    def embeddings_for(
        self, target_type: str, model_id: str, ids: list[str]
    ) -> dict[str, list[float]]:
        """Stored vectors of these targets (idempotent)."""
        return self._store.embeddings_for(target_type, model_id, ids)

    @ray.method(concurrency_group=READ_GROUP)
    def status_reads(self, task_id: str) -> dict[str, Any]:
        """get_status's reads in one call (decision 0080; idempotent)."""
        return self._store.status_reads(task_id)

    @ray.method(concurrency_group=READ_GROUP)
    def status_extras(self, task_id: str | None) -> dict[str, Any]:
        """Blocked domains and the auth queue summary for get_status (idempotent)."""
        return self._store.status_extras(task_id)

    def cleanup(self, task_id: str, hard: bool, dry_run: bool) -> dict[str, Any]:
        """Soft or hard cleanup of one task (storage/cleanup); a dry run only plans."""
        return self._store.cleanup(task_id, hard, dry_run)

    @ray.method(concurrency_group=READ_GROUP)
    def replay_sources(self, task_id: str) -> list[dict[str, Any]]:
        """A task's finished searches with the pages each kept (jobs/replay.py)."""
        return self._store.replay_sources(task_id)

    @ray.method(concurrency_group=READ_GROUP)
    def replay_diff(self, original: str, replay: str) -> dict[str, Any]:
        """Claims and stance edges a replay changed."""
        return self._store.replay_diff(original, replay)

    @ray.method(concurrency_group=READ_GROUP)
    def export(self, task_id: str, fmt: str) -> dict[str, Any]:
        """A task's evidence in one export format (storage/export); a task without
        claims gives a valid empty file."""
        return self._store.export(task_id, fmt)

    @ray.method(concurrency_group=READ_GROUP)
    def evidence_summary(self, task_id: str) -> dict[str, Any]:
        """Edge counts by relation and the top domains of a task's evidence."""
        return self._store.evidence_summary(task_id)

    def enqueue_auth(self, item: dict[str, Any]) -> dict[str, Any]:
        """Queue a URL for a person (idempotent: one pending item per task and URL; a
        repeated call returns that item and adds its search to the blocking searches).

        item: task_id, search_id, url, domain, auth_type, priority. Returns the public
        item plus ``created``.
        """
        return self._store.enqueue_auth(item)

    @ray.method(concurrency_group=READ_GROUP)
    def auth_items(
        self, task_id: str | None, priority_filter: str, group_by: str
    ) -> dict[str, Any]:
        """Pending items as get_auth_queue reports them, grouped (idempotent)."""
        return self._store.auth_items(task_id, priority_filter, group_by)

    @ray.method(concurrency_group=READ_GROUP)
    def auth_summary(self, task_id: str | None) -> dict[str, Any]:
        """The get_status auth_queue object with its threshold warnings (idempotent)."""
        return self._store.auth_summary(task_id)

    @ray.method(concurrency_group=READ_GROUP)
    def get_auth_item(self, auth_id: str) -> dict[str, Any] | None:
        """One item in any status, or None (idempotent)."""
        return self._store.get_auth_item(auth_id)

    def resolve_auth_items(
        self, target_kind: str, key: str, status: str, task_id: str | None
    ) -> list[dict[str, Any]]:
        """Give the pending item ``key`` (target_kind "item") or every pending item of
        domain ``key`` (optionally of one task) a final status; returns the items changed.

        Idempotent: a repeated call finds nothing pending and returns [].
        """
        return self._store.resolve_auth_items(target_kind, key, status, task_id)

    @ray.method(concurrency_group=READ_GROUP)
    def pending_auth_for_domain(self, domain: str) -> list[dict[str, Any]]:
        """Pending items of a domain, all tasks (idempotent)."""
        return self._store.pending_auth_for_domain(domain)

    @ray.method(concurrency_group=READ_GROUP)
    def load_domain_state(self, domain: str) -> dict[str, Any] | None:
        """A DomainFetcher's persisted state, or None (idempotent)."""
        return self._store.load_domain_state(domain)

    def save_domain_state(
        self, domain: str, state: dict[str, Any], qps: float | None = None
    ) -> None:
        """Persist a DomainFetcher's state (idempotent: the last write wins)."""
        self._store.save_domain_state(domain, state, qps)

    def save_domain_states(self, rows: list[dict[str, Any]]) -> int:
        """Persist several {domain, state, qps?} rows in one transaction (idempotent)."""
        return self._store.save_domain_states(rows)

    def verify_sources(
        self, task_id: str, search_id: str | None, detections: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """Source verification (L6) of a task's claims and their sites; an event per
        transition (idempotent: a second run with nothing new changes nothing)."""
        return self._store.verify_sources(task_id, search_id, detections)

    def record_blocked_domains(
        self, rows: list[dict[str, Any]], task_id: str | None, search_id: str | None
    ) -> list[str]:
        """Mark the {domain, rule} a search left out as BLOCKED; an event for each new
        one (idempotent: a domain already blocked gets no second event)."""
        return self._store.record_blocked_domains(rows, task_id, search_id)

    def lift_domain_blocks(self, levels: dict[str, str]) -> list[str]:
        """Clear the blocks domains.yaml no longer makes (idempotent)."""
        return self._store.lift_domain_blocks(levels)

    @ray.method(max_task_retries=0)  # not idempotent: a retry would act twice
    def calibrate(self, action: str, data: dict[str, Any]) -> dict[str, Any]:
        """One action of the calibrate tool: add_sample, get_stats, evaluate,
        get_evaluations, get_diagram_data (add_sample and evaluate write)."""
        return self._store.calibrate(action, data)

    @ray.method(max_task_retries=0)  # not idempotent: a retry would act twice
    def calibrate_rollback(
        self, source: str, version: int | None, reason: str | None
    ) -> dict[str, Any]:
        """Make an earlier calibration version active (an audit row; not idempotent)."""
        return self._store.calibrate_rollback(source, version, reason)

    @ray.method(max_task_retries=0)  # not idempotent: a retry would act twice
    def feedback(self, action: str, args: dict[str, Any]) -> dict[str, Any]:
        """One action of the feedback tool: a site blocked or unblocked, a claim rejected
        or restored, an edge's relation corrected (each an event_log row)."""
        return self._store.feedback(action, args)

    @ray.method(concurrency_group=READ_GROUP)
    def calibration_maps(self) -> dict[str, dict[str, Any]]:
        """Each source's active calibration version and map (idempotent)."""
        return self._store.calibration_maps()

    @ray.method(concurrency_group=READ_GROUP)
    def engine_health(self, engines: list[str]) -> dict[str, dict[str, Any]]:
        """Stored health rows of the given engines (idempotent)."""
        return self._store.engine_health(engines)

    def record_engine_outcome(
        self, engine: str, outcome: str, latency_ms: float | None, circuit_state: str | None = None
    ) -> dict[str, Any]:
        """Fold one SERP outcome into the engine's EMAs; returns the new row.

        Not idempotent (a retried call counts the outcome twice); max_task_retries
        of this actor only replays calls lost with a crashed process.
        """
        return self._store.record_engine_outcome(engine, outcome, latency_ms, circuit_state)

    def record_last_resort_use(self, engine: str) -> dict[str, Any]:
        """Count one last-mile query of a last-resort engine now (its hourly limit)."""
        return self._store.record_last_resort_use(engine)

    def upsert_papers(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Store paper records in the canonical index; one row back per record, in order.

        Idempotent: the same record merges into the same row again. A record with
        nothing to key it by comes back as ``{"error": ...}`` instead of a row.
        """
        return self._store.upsert_papers(records)

    def set_paper_pages(self, pairs: list[tuple[str, str]]) -> None:
        """Attach (paper_id, page_id) pairs; a paper keeps its first page (idempotent)."""
        self._store.set_paper_pages(pairs)

    def record_paper_sightings(self, rows: list[dict[str, Any]]) -> int:
        """How a search met papers (idempotent)."""
        return self._store.record_paper_sightings(rows)

    @ray.method(concurrency_group=READ_GROUP)
    def papers_by_ids(self, paper_ids: list[str]) -> list[dict[str, Any]]:
        """Rows of the given papers (idempotent)."""
        return self._store.papers_by_ids(paper_ids)

    def insert_citation_candidates(self, rows: list[dict[str, Any]]) -> int:
        """Citation-tracking candidates of a search (idempotent)."""
        return self._store.insert_citation_candidates(rows)

    @ray.method(concurrency_group=READ_GROUP)
    def reference_candidates(self, task_id: str, limit: int = 50) -> list[dict[str, Any]]:
        """A task's citation candidates, kept ones first (idempotent)."""
        return self._store.reference_candidates(task_id, limit)

    def mark_pages_retracted(self, page_ids: list[str]) -> None:
        """Flag pages whose paper is retracted (idempotent)."""
        self._store.mark_pages_retracted(page_ids)

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
        return self._store.query_graph(sql, view, params, limit, timeout_ms, include_schema)

    @ray.method(concurrency_group=READ_GROUP)
    def views(self) -> list[str]:
        """Names of the analysis views."""
        return self._store.views()
