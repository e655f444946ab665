"""The DuckDB evidence graph behind the GraphActor: every read and write it serves.

The actor (actors/graph.py) owns one `GraphStore` and only forwards calls to it, so that
loading the actor's class, which Ray does in every process that holds a handle to it
(each `DomainFetcher` does), imports Ray and nothing of this module: no DuckDB, NumPy
or query code in the fetchers (docs/decisions/0044).

Concurrency (decision 0026): writes run one at a time, on the connection that opened
the file; reads may run on several threads at once, each thread on its own DuckDB
cursor (`_reader`), so a tool call's reads are answered while a bulk write is in
progress and never see half of a write (each write is one transaction). The vector
indexes are guarded by a lock.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import duckdb
import numpy as np
import numpy.typing as npt

from lyra.config.settings import Settings
from lyra.pipelines.discover import engine_health as eh
from lyra.pipelines.errors import LyraError
from lyra.pipelines.evidence import verification as vf
from lyra.pipelines.evidence.confidence import ClaimConfidence, EvidenceEdge, claim_confidence
from lyra.pipelines.evidence.research import PRIMARY_LEVELS
from lyra.pipelines.net.domains import (
    USER_DOMAINS_FILENAME,
    DomainRulesWatcher,
    block_rule,
    config_block_reason,
    home_rules_watcher,
    trust_level_for,
    trust_rule,
)
from lyra.pipelines.net.notify import queue_warnings
from lyra.storage import auth_queue as aq
from lyra.storage import calibration as cs
from lyra.storage import domain_state as ds
from lyra.storage import feedback as fb
from lyra.storage import graph_queries as gq
from lyra.storage import papers as pp
from lyra.storage import repository as repo
from lyra.storage import verification as sv
from lyra.storage.cleanup import apply_cleanup, plan_cleanup
from lyra.storage.connection import open_database
from lyra.storage.export import render
from lyra.storage.export.pack import evidence_pack
from lyra.storage.schema import CALL_ANSWERED
from lyra.storage.sql_guard import (
    bindable_params,
    run_sandboxed,
    schema_snapshot,
    validate_select,
)
from lyra.storage.table_versions import ReadMemo, TableVersions, VersionedConnection
from lyra.storage.vectors import VectorIndex
from lyra.storage.views import list_views, render_view

log = logging.getLogger(__name__)

# What a claim's confidence and a task's evidence summary are read from (decision 0080):
# their answers are kept until one of these tables is written.
EVIDENCE_TABLES = ("claims", "edges", "fragments", "pages", "domains")
# ... and get_status's blocked sites, auth queue, reference candidates and alerts.
EXTRAS_TABLES = (
    "domains",
    "auth_queue",
    "event_log",
    "citation_candidates",
    "papers",
    "pages",
    "fragments",
    "edges",
)

# The writes `once` does once per request id (the orchestrator's ONCE_WRITES that end
# here).
ONCE_WRITES = frozenset({"feedback", "calibrate", "calibrate_rollback", "cleanup"})


class GraphStore:
    """Owns the DuckDB file: batched writes, the query_graph sandbox, vector search.

    Each public method is the GraphActor method of the same name, documented there with
    its idempotency.
    """

    def __init__(
        self, settings: Settings, rows_written: Callable[[str, int], None] | None = None
    ) -> None:
        self._settings = settings
        self._rows_written = rows_written or _count_nothing
        db_path: Path = settings.db_path
        db_path.parent.mkdir(parents=True, exist_ok=True)
        # Every statement is counted by the tables it writes, so that the reads every
        # get_status makes are answered from memory while nothing they read changed
        # (decision 0080).
        versions = TableVersions()
        self._con: duckdb.DuckDBPyConnection = cast(
            duckdb.DuckDBPyConnection,
            VersionedConnection(
                open_database(
                    db_path,
                    memory_limit=settings.storage.memory_limit,
                    threads=settings.storage.threads,
                ),
                versions,
            ),
        )
        self._memo = ReadMemo(versions)
        self._indexes: dict[tuple[str, str], VectorIndex] = {}
        # One lock for the vector indexes (added to by writes, searched by reads), one
        # for the making of cursors.
        self._index_lock = threading.Lock()
        self._cursor_lock = threading.Lock()
        self._local = threading.local()
        self._domain_rules = home_rules_watcher(settings.home_dir)

    def _rules(self) -> dict[str, Any]:
        """The domain rules in force (domains.yaml files and feedback blocks), re-read on
        change (the watcher is thread-safe: reader threads ask it too)."""
        return self._domain_rules.current()

    def _rules_version(self) -> tuple[int]:
        """The version of the rules in force (re-read first if a file changed)."""
        self._rules()
        return (self._domain_rules.version,)

    def _has_rule(self) -> Callable[[str], bool]:
        """Whether a domains.yaml rule sets a site's level (such a site is out of L6)."""
        rules = self._rules()
        known: dict[str, bool] = {}  # one answer per host for the call it serves

        def has_rule(host: str) -> bool:
            if host not in known:
                known[host] = trust_rule(host, rules) is not None
            return known[host]

        return has_rule

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
    def table_counts(self) -> dict[str, int]:
        return repo.table_counts(self._reader())

    # --- tasks and searches -----------------------------------------------------
    def create_task(self, task_id: str, query: str, config: dict[str, Any]) -> dict[str, Any]:
        repo.create_task(self._con, task_id=task_id, query=query, config=config)
        return repo.get_task(self._con, task_id) or {}

    def get_task(self, task_id: str) -> dict[str, Any] | None:
        return repo.get_task(self._reader(), task_id)

    def update_task_status(self, task_id: str, status: str) -> None:
        repo.update_task_status(self._con, task_id, status)

    def create_search(
        self, search_id: str, task_id: str, query: str, options: dict[str, Any]
    ) -> None:
        repo.create_search(
            self._con, search_id=search_id, task_id=task_id, query=query, options=options
        )

    def update_search(self, search_id: str, **fields: Any) -> None:
        repo.update_search(self._con, search_id, **fields)

    def get_search(self, search_id: str) -> dict[str, Any] | None:
        return repo.get_search(self._reader(), search_id)

    def list_searches(self, task_id: str) -> list[dict[str, Any]]:
        return repo.list_searches(self._reader(), task_id)

    def fail_running_searches(self, reason: str) -> int:
        return gq.fail_running_searches(self._con, reason)

    # --- pages, fragments, claims, edges ------------------------------------------
    def insert_serp_items(self, rows: list[dict[str, Any]]) -> None:
        repo.insert_serp_items(self._con, rows)
        self._rows_written("serp_items", len(rows))

    def upsert_pages(self, rows: list[dict[str, Any]]) -> dict[str, str]:
        promoted = sv.promoted_sites(self._reader())
        if promoted:  # a site verification made LOW: its new pages are LOW too (L6)
            has_rule = self._has_rule()
            rows = [
                {**r, "trust_level": vf.PROMOTED_LEVEL}
                if r.get("trust_level") == vf.UNVERIFIED
                and vf.site_of_page(r.get("domain"), r.get("url")) in promoted
                and not has_rule(str(vf.host_of_page(r.get("domain"), r.get("url"))))
                else r
                for r in rows
            ]
        out = repo.upsert_pages(self._con, rows)
        self._rows_written("pages", len(rows))
        return out

    def page_simhashes(self) -> list[tuple[str, int, str | None]]:
        return gq.page_simhashes(self._reader())

    def insert_fragments(self, rows: list[dict[str, Any]]) -> int:
        repo.insert_fragments(self._con, rows)
        self._rows_written("fragments", len(rows))
        return len(rows)

    def fragments_for_pages(self, page_ids: list[str]) -> list[dict[str, Any]]:
        return repo.fragments_for_pages(self._reader(), page_ids)

    def insert_claims(self, rows: list[dict[str, Any]]) -> None:
        repo.insert_claims(self._con, rows)
        self._rows_written("claims", len(rows))

    def insert_edges(self, rows: list[dict[str, Any]]) -> None:
        repo.insert_edges(self._con, rows)
        self._rows_written("edges", len(rows))

    def claims_for_task(self, task_id: str, status: str | None = "active") -> list[dict[str, Any]]:
        return repo.claims_for_task(self._reader(), task_id, status=status)

    def existing_stance_pairs(self, task_id: str) -> list[tuple[str, str]]:
        return gq.existing_stance_pairs(self._reader(), task_id)

    def log_event(self, **fields: Any) -> None:
        """Append an event_log row (`repo.log_event`'s fields)."""
        repo.log_event(self._con, **fields)
        self._rows_written("event_log", 1)

    def call_answer(self, request_id: str) -> dict[str, Any] | None:
        """What a write sent once answered (its `call_answered` event's payload: method
        and answer), or None when no call with this id has answered (decision 0064)."""
        payload = repo.event_payload(self._reader(), request_id, CALL_ANSWERED)
        return dict(payload) if payload is not None else None

    def once(self, request_id: str, method: str, args: list[Any]) -> Any:
        """`method(*args)`, one of `ONCE_WRITES` (feedback, calibrate,
        calibrate_rollback, cleanup), done once per `request_id`: its answer is recorded
        as a `call_answered` event in the write's own transaction, and a call with an
        id already answered returns that answer without doing anything (decision
        0064). The feedback rules file and a cleanup's archive files are not in the
        transaction: a write sent again finds them done or not, and goes by the
        record (a block or an unblock) or removes what is left (a cleanup)."""
        if method not in ONCE_WRITES:
            raise LyraError("INVALID_PARAMS", f"{method} is not a write sent once", field="method")
        answered = self.call_answer(request_id)
        if answered is not None:
            return answered["answer"]
        # The write and the record of its answer commit together: a crash between the
        # two would leave a write that a retry of the same id does again. What follows
        # a write and reads it back (a rejected claim's sites judged again, the vector
        # indexes a cleanup emptied) runs after the commit.
        write = self._feedback_write if method == "feedback" else getattr(self, method)
        with repo.transaction(self._con):
            answer = write(*args)
            payload = {"method": method, "answer": answer}
            self.log_event(kind=CALL_ANSWERED, actor="graph", event_id=request_id, payload=payload)
        if method == "feedback":
            return self._after_feedback(args[0], answer)
        if method == "cleanup":
            with self._index_lock:
                self._indexes.clear()  # none loaded from the rows before the commit
        return answer

    # --- embeddings ---------------------------------------------------------------
    def embeddings_by_text_hash(
        self, model_id: str, text_hashes: list[str]
    ) -> dict[str, list[float]]:
        found = repo.find_embeddings_by_text_hash(self._reader(), model_id, text_hashes)
        return {h: v.tolist() for h, v in found.items()}

    def put_embeddings(
        self, target_type: str, model_id: str, rows: list[tuple[str, str, npt.ArrayLike]]
    ) -> None:
        if not rows:
            return
        arr = [(tid, th, np.asarray(vec, dtype=np.float32)) for tid, th, vec in rows]
        repo.put_embeddings(self._con, target_type, model_id, arr)
        self._rows_written("embeddings", len(arr))
        with self._index_lock:
            index = self._indexes.get((target_type, model_id))
            if index is not None:
                index.add([r[0] for r in arr], np.stack([r[2] for r in arr]))

    def vector_search(
        self,
        query_vector: list[float],
        target: str,
        model_id: str,
        top_k: int,
        min_similarity: float,
        allowed_ids: list[str] | None = None,
    ) -> list[tuple[str, float]]:
        return self.vector_search_many(
            [query_vector], target, model_id, top_k, min_similarity, allowed_ids
        )[0]

    def vector_search_many(
        self,
        query_vectors: list[list[float]],
        target: str,
        model_id: str,
        top_k: int,
        min_similarity: float,
        allowed_ids: list[str] | None = None,
    ) -> list[list[tuple[str, float]]]:
        """`vector_search` for each query vector, the allowed ids sent and read once."""
        allowed = set(allowed_ids) if allowed_ids is not None else None
        key = (target, model_id)
        con = self._reader()
        if target == "claim":
            # A claim a person rejected (the feedback tool) is never a hit.
            rejected = {r[0] for r in con.execute(
                "SELECT id FROM claims WHERE status = 'rejected'"
            ).fetchall()}  # fmt: skip
            if rejected and allowed is None:
                allowed = {r[0] for r in con.execute(
                    "SELECT id FROM claims WHERE status <> 'rejected'"
                ).fetchall()}  # fmt: skip
            elif rejected and allowed is not None:
                allowed -= rejected
        with self._index_lock:
            # Loaded once, under the lock, so that no write's add() falls between the
            # load and the index's entry in the table.
            if key not in self._indexes:
                self._indexes[key] = VectorIndex.load(con, target, model_id)
            index = self._indexes[key]
            return [
                index.search(np.asarray(v, dtype=np.float32), top_k, min_similarity, allowed)
                for v in query_vectors
            ]

    def fragment_ids_for_task(self, task_id: str) -> list[str]:
        return gq.fragment_ids_for_task(self._reader(), task_id)

    def texts_for(self, target: str, ids: list[str]) -> dict[str, dict[str, Any]]:
        return gq.texts_for(self._reader(), target, ids)

    # --- confidence -----------------------------------------------------------------
    def claim_confidences(self, task_id: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self._memo.get(
            ("claim_confidences", task_id),
            EVIDENCE_TABLES,
            lambda: self._claim_confidences(task_id),
            extra=self._rules_version(),
        )
        return found

    def verify_sources(
        self, task_id: str, search_id: str | None, detections: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """Source verification (L6, decision 0053) of a task's claims and their sites.

        `detections`: what the injection guard found on the search's pages (`{url,
        kind, detail}`); its danger patterns reject the page's site. Stores each
        claim's and site's new state with an event_log row per transition; running it
        again with nothing new changes nothing.
        """
        con = self._con
        claims = repo.claims_for_task(con, task_id)
        evidence = gq.stance_evidence_for_task(con, task_id)
        origins = gq.claim_origins(con, task_id)
        has_rule = self._has_rule()
        dangers = sv.danger_by_site(detections, has_rule)
        hostile = sv.hostile_sites(sv.site_states(con), dangers, has_rule)
        promoted = sv.promoted_sites(con)
        found = sv.claim_verifications(claims, evidence, origins, hostile, has_rule, promoted)
        return sv.record(con, task_id, search_id, claims, found, origins, dangers, has_rule)

    def _claim_confidences(self, task_id: str) -> list[dict[str, Any]]:
        con = self._reader()
        claims = repo.claims_for_task(con, task_id)
        evidence = gq.stance_evidence_for_task(con, task_id)
        origins = gq.claim_origins(con, task_id)
        has_rule = self._has_rule()
        hostile = sv.hostile_sites(sv.site_states(con), {}, has_rule)
        promoted = sv.promoted_sites(con)
        verified = sv.claim_verifications(claims, evidence, origins, hostile, has_rule, promoted)
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
                    "verification_status": verified[claim["id"]].status,
                    "verification_details": verified[claim["id"]].details(),
                }
            )
        return out

    def embeddings_for(
        self, target_type: str, model_id: str, ids: list[str]
    ) -> dict[str, list[float]]:
        found = repo.get_embeddings(self._reader(), target_type, model_id, ids)
        return {k: v.tolist() for k, v in found.items()}

    def status_reads(self, task_id: str) -> dict[str, Any]:
        """What get_status reads, in one call: the task row, its searches, its claims
        with their confidence, the extras and the evidence summary."""
        return {
            "task": self.get_task(task_id),
            "searches": self.list_searches(task_id),
            "claims": self.claim_confidences(task_id),
            "extras": self.status_extras(task_id),
            "summary": self.evidence_summary(task_id),
        }

    def status_extras(self, task_id: str | None) -> dict[str, Any]:
        extras: dict[str, Any] = self._memo.get(
            ("status_extras", task_id),
            EXTRAS_TABLES,
            lambda: self._status_extras(task_id),
            extra=self._rules_version(),
        )
        return extras

    def _status_extras(self, task_id: str | None) -> dict[str, Any]:
        return {
            "blocked_domains": gq.blocked_domains(self._reader()),
            "auth_queue": self._auth_summary(task_id),
            "reference_candidates": (
                pp.reference_candidates(self._reader(), task_id, 50) if task_id else []
            ),
            "verification_alerts": (
                sv.alerts(self._reader(), task_id, self._has_rule()) if task_id else []
            ),
        }

    def cleanup(self, task_id: str, hard: bool, dry_run: bool) -> dict[str, Any]:
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

    def replay_sources(self, task_id: str) -> list[dict[str, Any]]:
        return gq.replay_sources(self._reader(), task_id)

    def replay_diff(self, original: str, replay: str) -> dict[str, Any]:
        return gq.replay_diff(self._reader(), original, replay)

    def export(self, task_id: str, fmt: str) -> dict[str, Any]:
        con = self._reader()
        task = repo.get_task(con, task_id)
        if task is None:
            raise LyraError("TASK_NOT_FOUND", f"no task with id {task_id!r}", field="task_id")
        return render(
            evidence_pack(con, task, self._claim_confidences(task_id), repo.task_as_of(con, task)),
            fmt,
        )

    def evidence_summary(self, task_id: str) -> dict[str, Any]:
        summary: dict[str, Any] = self._memo.get(
            ("evidence_summary", task_id),
            EVIDENCE_TABLES,
            lambda: gq.evidence_summary(self._reader(), task_id),
        )
        return summary

    # --- auth queue (seed 003 §3.6.1) and domain state ------------------------------
    def enqueue_auth(self, item: dict[str, Any]) -> dict[str, Any]:
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

    def auth_items(
        self, task_id: str | None, priority_filter: str, group_by: str
    ) -> dict[str, Any]:
        items = aq.list_pending(self._reader(), task_id=task_id, priority_filter=priority_filter)
        if group_by == "domain":
            domains = aq.group_by_domain(items)
            return {"domains": domains, "total_domains": len(domains), "total_pending": len(items)}
        if group_by == "type":
            return {"types": aq.group_by_type(items), "total_pending": len(items)}
        if group_by == "none":
            return {"queue": [aq.public_item(i) for i in items], "total_pending": len(items)}
        raise ValueError(f"group_by must be none, domain or type, not {group_by!r}")

    def auth_summary(self, task_id: str | None) -> dict[str, Any]:
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

    def get_auth_item(self, auth_id: str) -> dict[str, Any] | None:
        row = aq.get_item(self._reader(), auth_id)
        return aq.public_item(row) if row is not None else None

    def resolve_auth_items(
        self, target_kind: str, key: str, status: str, task_id: str | None
    ) -> list[dict[str, Any]]:
        if target_kind == "item":
            rows = aq.resolve(self._con, status, auth_id=key)
        elif target_kind == "domain":
            rows = aq.resolve(self._con, status, domain=key, task_id=task_id)
        else:
            raise ValueError(f"target_kind must be item or domain, not {target_kind!r}")
        return [aq.public_item(r) for r in rows]

    def pending_auth_for_domain(self, domain: str) -> list[dict[str, Any]]:
        return [aq.public_item(r) for r in aq.list_pending(self._reader(), domain=domain)]

    def load_domain_state(self, domain: str) -> dict[str, Any] | None:
        return ds.load_domain_state(self._reader(), domain)

    def save_domain_state(
        self, domain: str, state: dict[str, Any], qps: float | None = None
    ) -> None:
        ds.save_domain_state(self._con, domain, state, qps)

    def save_domain_states(self, rows: list[dict[str, Any]]) -> int:
        return ds.save_domain_states(self._con, rows)

    def record_blocked_domains(
        self, rows: list[dict[str, Any]], task_id: str | None, search_id: str | None
    ) -> list[str]:
        """Domains a search left out as BLOCKED (`{domain, rule}`): marked in `domains`,
        an event_log row for each one newly blocked."""
        reasons = [{"domain": r["domain"], "reason": config_block_reason(r["rule"])} for r in rows]
        newly = ds.record_blocks(self._con, reasons)
        by_domain = {r["domain"]: r["reason"] for r in reasons}
        for domain in newly:
            repo.log_event(
                self._con,
                kind="domain_blocked",
                actor="graph",
                task_id=task_id,
                search_id=search_id,
                payload={"domain": domain, "reason": by_domain[domain], "cause": "domains.yaml"},
            )
        self._rows_written("domains", len(rows))
        return newly

    def lift_domain_blocks(self, levels: dict[str, str]) -> list[str]:
        """Domains whose domains.yaml block was removed (domain -> its level now)."""
        lifted = ds.lift_blocks(self._con, levels)
        for domain in lifted:
            repo.log_event(
                self._con,
                kind="domain_unblocked",
                actor="graph",
                payload={"domain": domain, "trust_level": levels[domain], "cause": "domains.yaml"},
            )
        return lifted

    # --- calibration (issue 14) ----------------------------------------------------------
    def calibrate(self, action: str, data: dict[str, Any]) -> dict[str, Any]:
        """One action of the calibrate tool (storage/calibration.py)."""
        settings = self._settings.calibration
        if action == "add_sample":
            return cs.add_sample(self._con, data, settings.refit_every)
        if action == "get_stats":
            return cs.stats(self._con, data)
        if action == "evaluate":
            return cs.evaluate(self._con, data, settings.enable_auto_rollback)
        if action == "get_evaluations":
            return cs.evaluations(self._con, data)
        if action == "get_diagram_data":
            return cs.diagram(self._con, data)
        raise LyraError("INVALID_PARAMS", f"unknown calibrate action {action!r}", field="action")

    def calibrate_rollback(
        self, source: str, version: int | None, reason: str | None
    ) -> dict[str, Any]:
        """Make an earlier calibration version of ``source`` the active one."""
        return cs.rollback(self._con, source, version, reason)

    def feedback(self, action: str, args: dict[str, Any]) -> dict[str, Any]:
        """One action of the feedback tool (storage/feedback.py)."""
        return self._after_feedback(action, self._feedback_write(action, args))

    def _after_feedback(self, action: str, out: dict[str, Any]) -> dict[str, Any]:
        """After a claim's rejection or restoration is stored: its sites are judged
        again now (a promotion or a rejection it bore may go), not at the task's next
        search. The change is stored: a failure here is said, not raised."""
        if action not in ("claim_reject", "claim_restore"):
            return out
        try:
            self.verify_sources(str(out["task_id"]), None, [])
        except (duckdb.Error, LyraError, ValueError) as exc:
            log.warning("verification after %s failed: %s", action, exc)
            out["degraded"] = (
                f"verification: the claim's sites were not judged again "
                f"({type(exc).__name__}); the task's next search does it"
            )
        return out

    def _feedback_write(self, action: str, args: dict[str, Any]) -> dict[str, Any]:
        home = self._settings.home_dir
        reason = args.get("reason")
        if action == "domain_block":
            return fb.block_domain(self._con, home, args.get("domain"), reason)
        if action == "domain_unblock":
            # The level the site has under the domains.yaml files once the block is gone.
            site = fb.site_of(args.get("domain"), checked=False)
            base = DomainRulesWatcher(user_path=home / USER_DOMAINS_FILENAME).current()
            level = trust_level_for(site, base)
            rule = block_rule(site, base)
            return fb.unblock_domain(self._con, home, site, reason, level, rule)
        if action in ("claim_reject", "claim_restore"):
            reject = action == "claim_reject"
            return fb.set_claim_status(self._con, args.get("claim_id"), reject, reason)
        if action == "edge_correct":
            return fb.correct_edge(
                self._con,
                args.get("edge_id"),
                args.get("relation"),
                reason,
                self._settings.calibration.refit_every,
            )
        raise LyraError("INVALID_PARAMS", f"unknown feedback action {action!r}", field="action")

    def calibration_maps(self) -> dict[str, dict[str, Any]]:
        """Each source's active calibration version and map (what searches apply)."""
        return cs.active_maps(self._reader())

    # --- engine health (issue 4) --------------------------------------------------------
    def engine_health(self, engines: list[str]) -> dict[str, dict[str, Any]]:
        return _engine_health(self._reader(), engines)

    def record_engine_outcome(
        self,
        engine: str,
        outcome: str,
        latency_ms: float | None,
        circuit_state: str | None = None,
    ) -> dict[str, Any]:
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
        old = _engine_health(self._con, [engine]).get(engine)
        record = eh.record_last_resort_use(
            None if old is None else eh.EngineHealth.from_row(old), engine, time.time()
        )
        row = record.to_row()
        repo.upsert_rows(self._con, "engine_health", [row], key=["engine"])
        return row

    # --- canonical paper index (issue 4) -----------------------------------------------
    def upsert_papers(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for rec in records:
            try:
                out.append(pp.upsert_paper(self._con, rec))
            except ValueError as exc:
                out.append({"error": str(exc)})
        return out

    def set_paper_pages(self, pairs: list[tuple[str, str]]) -> None:
        for paper_id, page_id in pairs:
            pp.set_paper_page(self._con, paper_id, page_id)

    def record_paper_sightings(self, rows: list[dict[str, Any]]) -> int:
        return pp.record_sightings(self._con, rows)

    def papers_by_ids(self, paper_ids: list[str]) -> list[dict[str, Any]]:
        return pp.papers_by_ids(self._reader(), paper_ids)

    def insert_citation_candidates(self, rows: list[dict[str, Any]]) -> int:
        return pp.insert_citation_candidates(self._con, rows)

    def reference_candidates(self, task_id: str, limit: int = 50) -> list[dict[str, Any]]:
        return pp.reference_candidates(self._reader(), task_id, limit)

    def mark_pages_retracted(self, page_ids: list[str]) -> None:
        if page_ids:
            self._con.execute(
                "UPDATE pages SET is_retracted = true WHERE id IN (SELECT unnest(?::VARCHAR[]))",
                [page_ids],
            )

    # --- query_graph ------------------------------------------------------------------
    def query_graph(
        self,
        sql: str | None,
        view: str | None,
        params: dict[str, Any],
        limit: int,
        timeout_ms: int,
        include_schema: bool,
    ) -> dict[str, Any]:
        if view:
            try:
                text = validate_select(render_view(view, params))
            except KeyError as exc:  # no such view
                raise LyraError("INVALID_PARAMS", str(exc).strip("'\""), field="view") from None
            except ValueError as exc:  # the view is known; its parameters are not right
                raise LyraError("INVALID_PARAMS", str(exc), field="params") from None
        else:
            text = validate_select(sql or "")
        result = run_sandboxed(
            self._reader(),
            text,
            limit=limit,
            timeout_ms=timeout_ms,
            max_bytes=self._settings.query_graph.max_result_bytes,
            params=None if view else bindable_params(params),
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

    def views(self) -> list[str]:
        return [v.name for v in list_views()]


def _engine_health(con: duckdb.DuckDBPyConnection, engines: list[str]) -> dict[str, dict[str, Any]]:
    cur = con.execute(
        "SELECT * FROM engine_health WHERE engine IN (SELECT unnest(?::VARCHAR[]))", [engines]
    )
    names = [d[0] for d in cur.description or ()]
    return {row[0]: dict(zip(names, row, strict=True)) for row in cur.fetchall()}


def _count_nothing(table: str, rows: int) -> None:
    """Rows written are counted by whoever asks (the GraphActor's metrics)."""
