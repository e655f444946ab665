"""Read queries the GraphActor needs beyond plain repository inserts.

Kept apart from ``repository.py`` (inserts and row access) because these shape
rows for the pipeline: evidence per claim, stance pairs already judged, summaries.
"""

from __future__ import annotations

from typing import Any

import duckdb

from lyra.storage import auth_queue
from lyra.storage.repository import utcnow


def _dicts(cur: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    cols = [d[0] for d in cur.description or []]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]


def fail_running_searches(con: duckdb.DuckDBPyConnection, reason: str) -> int:
    """Mark searches still `running` as failed (their job died with its process)."""
    cur = con.cursor()
    n = cur.execute("SELECT count(*) FROM searches WHERE status = 'running'").fetchone()
    cur.execute(
        "UPDATE searches SET status = 'failed', finished_at = ?, "
        "error = to_json({'code': 'PIPELINE_ERROR', 'message': ?}) WHERE status = 'running'",
        [utcnow(), reason],
    )
    return int(n[0]) if n else 0


def page_simhashes(con: duckdb.DuckDBPyConnection) -> list[tuple[str, int, str | None]]:
    """(page id, simhash, dup_of) of every page that has a simhash."""
    rows = (
        con.cursor()
        .execute(
            "SELECT id, simhash, dup_of FROM pages WHERE simhash IS NOT NULL "
            "ORDER BY fetched_at, id"
        )
        .fetchall()
    )
    return [(r[0], int(r[1]), r[2]) for r in rows]


def existing_stance_pairs(con: duckdb.DuckDBPyConnection, task_id: str) -> list[tuple[str, str]]:
    """(fragment id, claim id) pairs of a task that already carry an NLI edge or origin."""
    rows = (
        con.cursor()
        .execute(
            "SELECT source_id, target_id FROM edges WHERE task_id = ? AND source_type = 'fragment' "
            "AND target_type = 'claim'",
            [task_id],
        )
        .fetchall()
    )
    return [(r[0], r[1]) for r in rows]


def stance_evidence_for_task(
    con: duckdb.DuckDBPyConnection, task_id: str
) -> dict[str, list[dict[str, Any]]]:
    """Per claim id: its supports / refutes / neutral edges with the evidence page."""
    cur = con.cursor().execute(
        """
        SELECT e.target_id AS claim_id, e.relation, e.nli_confidence,
               e.source_id AS fragment_id, p.id AS page_id, p.domain, p.dup_of,
               canon.domain AS dup_domain, canon.url AS dup_url, p.url, p.trust_level
        FROM edges e
        JOIN claims c ON c.id = e.target_id
        JOIN fragments f ON f.id = e.source_id
        JOIN pages p ON p.id = f.page_id
        LEFT JOIN pages canon ON canon.id = p.dup_of
        -- A blocked site's pages are no evidence (decision 0050).
        LEFT JOIN domains bd ON bd.domain = p.domain
        WHERE c.task_id = ? AND e.source_type = 'fragment' AND e.target_type = 'claim'
          AND e.relation IN ('supports', 'refutes', 'neutral')
          AND NOT coalesce(bd.blocked, false)
        ORDER BY e.target_id, e.id
        """,
        [task_id],
    )
    out: dict[str, list[dict[str, Any]]] = {}
    for row in _dicts(cur):
        out.setdefault(row["claim_id"], []).append(row)
    return out


def texts_for(
    con: duckdb.DuckDBPyConnection, target: str, ids: list[str]
) -> dict[str, dict[str, Any]]:
    """Text and provenance of claims or fragments by id."""
    if not ids:
        return {}
    cur = con.cursor()
    if target == "claim":
        # A claim's source is the page of its first `origin` edge (the fragment it was
        # extracted from), as `claim_origins` reads it.
        cur.execute(
            """
            SELECT c.id, c.claim_text AS text, c.task_id, o.url, o.domain, o.page_id,
                   o.page_number
            FROM claims c
            LEFT JOIN (
                SELECT e.target_id AS claim_id, p.url, p.domain, p.id AS page_id,
                       f.page_number,
                       row_number() OVER (PARTITION BY e.target_id
                                          ORDER BY e.created_at, e.id) AS n
                FROM edges e
                JOIN fragments f ON f.id = e.source_id
                JOIN pages p ON p.id = f.page_id
                WHERE e.relation = 'origin' AND e.target_id IN (SELECT unnest(?))
            ) o ON o.claim_id = c.id AND o.n = 1
            WHERE c.id IN (SELECT unnest(?))
            """,
            [ids, ids],
        )
    else:
        cur.execute(
            "SELECT f.id, f.text_content AS text, NULL AS task_id, p.url, p.domain, "
            "p.id AS page_id, f.heading_context, f.page_number, f.fragment_type FROM fragments f "
            "JOIN pages p ON p.id = f.page_id WHERE f.id IN (SELECT unnest(?))",
            [ids],
        )
    return {row["id"]: row for row in _dicts(cur)}


def fragment_ids_for_task(con: duckdb.DuckDBPyConnection, task_id: str) -> list[str]:
    """Fragments of the pages a task's searches took (through serp_items URLs)."""
    rows = (
        con.cursor()
        .execute(
            """
        SELECT DISTINCT f.id FROM fragments f
        JOIN pages p ON p.id = f.page_id
        JOIN serp_items s ON s.url = p.url
        JOIN searches q ON q.id = s.search_id
        WHERE q.task_id = ?
        """,
            [task_id],
        )
        .fetchall()
    )
    return [r[0] for r in rows]


def evidence_summary(con: duckdb.DuckDBPyConnection, task_id: str) -> dict[str, Any]:
    """Edge counts by relation and the top evidence domains of a task."""
    cur = con.cursor()
    # Edges of claims a person rejected, and stance edges from blocked sites, are left
    # out (decision 0050), as confidence leaves them out.
    by_relation = dict(
        cur.execute(
            """
            SELECT e.relation, count(*) FROM edges e
            LEFT JOIN claims c ON e.target_type = 'claim' AND c.id = e.target_id
            LEFT JOIN fragments f ON e.source_type = 'fragment' AND f.id = e.source_id
            LEFT JOIN pages p ON p.id = f.page_id
            LEFT JOIN domains bd ON bd.domain = p.domain
            WHERE e.task_id = ? AND coalesce(c.status, '') <> 'rejected'
              AND NOT (e.relation IN ('supports', 'refutes', 'neutral')
                       AND coalesce(bd.blocked, false))
            GROUP BY e.relation ORDER BY e.relation
            """,
            [task_id],
        ).fetchall()
    )
    top = cur.execute(
        """
        SELECT p.domain, count(*) AS n FROM edges e
        JOIN claims c ON c.id = e.target_id
        JOIN fragments f ON f.id = e.source_id JOIN pages p ON p.id = f.page_id
        LEFT JOIN domains bd ON bd.domain = p.domain
        WHERE e.task_id = ? AND e.relation IN ('supports', 'refutes')
          AND c.status <> 'rejected' AND NOT coalesce(bd.blocked, false)
        GROUP BY p.domain ORDER BY n DESC, p.domain LIMIT 10
        """,
        [task_id],
    ).fetchall()
    return {
        "edges_by_relation": {k: int(v) for k, v in by_relation.items()},
        "top_domains": [{"domain": d, "edges": int(n)} for d, n in top],
    }


def claim_origins(con: duckdb.DuckDBPyConnection, task_id: str) -> dict[str, dict[str, Any]]:
    """Per claim id: the fragment and page it was extracted from (its `origin` edge)."""
    cur = con.cursor().execute(
        """
        SELECT e.target_id AS claim_id, f.id AS fragment_id, p.id AS page_id, p.url,
               p.domain, p.trust_level, p.dup_of, f.page_number, f.heading_context,
               coalesce(p.is_retracted, false) AS is_retracted
        FROM edges e
        JOIN claims c ON c.id = e.target_id
        JOIN fragments f ON f.id = e.source_id
        JOIN pages p ON p.id = f.page_id
        WHERE c.task_id = ? AND e.relation = 'origin'
        ORDER BY e.target_id, e.created_at, e.id
        """,
        [task_id],
    )
    out: dict[str, dict[str, Any]] = {}
    for row in _dicts(cur):
        out.setdefault(row["claim_id"], row)
    return out


def blocked_domains(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Domains marked blocked, with reason and time."""
    cur = con.cursor().execute(
        "SELECT domain, trust_level, block_reason, blocked_at FROM domains WHERE blocked "
        "ORDER BY domain"
    )
    return _dicts(cur)


def auth_queue_summary(con: duckdb.DuckDBPyConnection, task_id: str | None) -> dict[str, Any]:
    """Pending auth items of a task (or of all tasks): the seed §3.6.1 summary.

    pending_count, high_priority_count, domains, oldest_queued_at, by_auth_type; the
    GraphActor adds the threshold warnings, whose limits are settings.
    """
    return auth_queue.summary(con, task_id)


def replay_sources(con: duckdb.DuckDBPyConnection, task_id: str) -> list[dict[str, Any]]:
    """The finished searches of a task, oldest first, each with the pages it kept (by the
    rank it gave them): what a replay reads again from the archives."""
    searches = _dicts(
        con.cursor().execute(
            "SELECT id AS search_id, query FROM searches WHERE task_id = ? "
            "AND status <> 'running' ORDER BY created_at, id",
            [task_id],
        )
    )
    for search in searches:
        search["pages"] = _dicts(
            con.cursor().execute(
                """
                SELECT p.url, p.final_url, p.domain, p.warc_path, p.warc_offset, p.source_path
                FROM (SELECT url, min(rank) AS rank FROM serp_items WHERE search_id = ?
                      GROUP BY url) AS s
                JOIN pages AS p ON p.url = s.url
                ORDER BY s.rank, p.url
                """,
                [search["search_id"]],
            )
        )
    return [s for s in searches if s["pages"]]


def _stance_rows(con: duckdb.DuckDBPyConnection, task_id: str) -> dict[tuple[str, str], Any]:
    rows = con.cursor().execute(
        """
        -- The model's own answers (a calibration or a person's correction changes
        -- relation and nli_confidence, not what the model said).
        SELECT c.claim_text, e.source_id, coalesce(e.nli_label, e.relation),
               coalesce(e.nli_raw_confidence, e.nli_confidence)
        FROM edges AS e
        JOIN claims AS c ON c.id = e.target_id
        WHERE c.task_id = ? AND c.status = 'active' AND e.source_type = 'fragment'
          AND e.relation IN ('supports', 'refutes', 'neutral')
        """,
        [task_id],
    )
    return {(r[0], r[1]): (r[2], r[3]) for r in rows.fetchall()}


def replay_diff(
    con: duckdb.DuckDBPyConnection, original: str, replay: str, tolerance: float = 0.005
) -> dict[str, Any]:
    """What a replay changed: the stance models that judged each task; claims (by text)
    added and dropped; stance edges (by claim text and fragment) added, dropped, and
    moved (another relation, or a confidence that differs by more than ``tolerance``)."""

    def claims(task_id: str) -> set[str]:
        rows = con.cursor().execute(
            "SELECT claim_text FROM claims WHERE task_id = ? AND status = 'active'", [task_id]
        )
        return {r[0] for r in rows.fetchall()}

    before, after = claims(original), claims(replay)
    old, new = _stance_rows(con, original), _stance_rows(con, replay)
    moved = []
    for key in sorted(old.keys() & new.keys()):
        (r0, c0), (r1, c1) = old[key], new[key]
        if r0 != r1 or abs(float(c0 or 0.0) - float(c1 or 0.0)) > tolerance:
            moved.append(
                {
                    "claim": key[0],
                    "fragment_id": key[1],
                    "before": {"relation": r0, "confidence": c0},
                    "after": {"relation": r1, "confidence": c1},
                }
            )

    def models(task_id: str) -> list[str]:
        rows = con.cursor().execute(
            "SELECT DISTINCT e.nli_model FROM edges AS e JOIN claims AS c ON c.id = e.target_id "
            "WHERE c.task_id = ? AND e.relation IN ('supports', 'refutes', 'neutral') "
            "AND e.nli_model IS NOT NULL ORDER BY 1",
            [task_id],
        )
        return [r[0] for r in rows.fetchall()]

    return {
        "nli_models": {"before": models(original), "after": models(replay)},
        "claims_added": sorted(after - before),
        "claims_dropped": sorted(before - after),
        "edges_added": len(new.keys() - old.keys()),
        "edges_dropped": len(old.keys() - new.keys()),
        "edges_moved": moved,
        "edges_unchanged": len(old.keys() & new.keys()) - len(moved),
    }
