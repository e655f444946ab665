"""Soft and hard cleanup of one task (ARCHITECTURE §4, seed ADR-0005; issue 15).

- **Soft**: the task's claims, every edge that touches one of them or is tagged with the
  task (``cites``), and the claims' vectors. Pages, fragments and their vectors are
  global and stay; the task and its searches stay as history.
- **Hard**: soft, then the orphans among what the task reached: its searches' SERP
  rows, and the pages its searches took or its edges came from that nothing else uses
  any more, with their fragments, their vectors and the archive files (WARC,
  screenshot) that no remaining page names. A page is still used when another task's
  search took it, when an edge that stays touches it or one of its fragments, or when
  a paper another task found points at it; such a page keeps all its fragments.
  Files are removed only under ``LYRA_HOME``: a local corpus file is the user's, never
  Lyra's to delete.

``plan_cleanup`` computes what would go (the dry run); ``apply_cleanup`` removes it in
one transaction and then the files.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from lyra.storage.repository import transaction


@dataclass
class CleanupPlan:
    """What a cleanup removes; every list holds ids (files: paths)."""

    task_id: str
    hard: bool
    claims: list[str] = field(default_factory=list)
    edges: list[str] = field(default_factory=list)
    serp_items: list[str] = field(default_factory=list)
    fragments: list[str] = field(default_factory=list)
    pages: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    pages_kept: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """Counts, and the page URLs and files themselves (what a person checks)."""
        out = asdict(self)
        for name in ("claims", "edges", "serp_items", "fragments"):
            out[name] = len(out[name])
        return out


def _ids(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | dict[str, Any]) -> list[str]:
    return sorted({str(r[0]) for r in con.cursor().execute(sql, params).fetchall()})


def plan_cleanup(
    con: duckdb.DuckDBPyConnection, task_id: str, *, hard: bool, home: Path
) -> CleanupPlan:
    """What a cleanup of ``task_id`` would remove (nothing is changed)."""
    plan = CleanupPlan(task_id=task_id, hard=hard)
    plan.claims = _ids(con, "SELECT id FROM claims WHERE task_id = ?", [task_id])
    plan.edges = _ids(
        con,
        """
        SELECT id FROM edges
        WHERE task_id = ?
           OR (target_type = 'claim' AND target_id IN (SELECT unnest(?::VARCHAR[])))
           OR (source_type = 'claim' AND source_id IN (SELECT unnest(?::VARCHAR[])))
        """,
        [task_id, plan.claims, plan.claims],
    )
    if not hard:
        return plan
    searches = _ids(con, "SELECT id FROM searches WHERE task_id = ?", [task_id])
    plan.serp_items = _ids(
        con,
        "SELECT id FROM serp_items WHERE search_id IN (SELECT unnest(?::VARCHAR[]))",
        [searches],
    )
    reached = _ids(
        con,
        """
        SELECT p.id FROM pages p
        WHERE p.url IN (SELECT url FROM serp_items
                        WHERE search_id IN (SELECT unnest($s::VARCHAR[])))
           OR p.id IN (SELECT f.page_id FROM fragments f JOIN edges e
                       ON e.source_type = 'fragment' AND e.source_id = f.id
                       WHERE e.id IN (SELECT unnest($e::VARCHAR[])))
           OR p.id IN (SELECT source_id FROM edges WHERE id IN (SELECT unnest($e::VARCHAR[]))
                       AND source_type = 'page')
           OR p.id IN (SELECT target_id FROM edges WHERE id IN (SELECT unnest($e::VARCHAR[]))
                       AND target_type = 'page')
        """,
        {"s": searches, "e": plan.edges},
    )
    used = _ids(
        con,
        """
        SELECT p.id FROM pages p
        WHERE p.id IN (SELECT unnest($r::VARCHAR[]))
          AND (p.url IN (SELECT url FROM serp_items
                         WHERE search_id NOT IN (SELECT unnest($s::VARCHAR[])))
               OR p.id IN (SELECT f.page_id FROM fragments f JOIN edges e
                           ON e.source_type = 'fragment' AND e.source_id = f.id
                           WHERE e.id NOT IN (SELECT unnest($e::VARCHAR[])))
               OR p.id IN (SELECT source_id FROM edges WHERE source_type = 'page'
                           AND id NOT IN (SELECT unnest($e::VARCHAR[])))
               OR p.id IN (SELECT target_id FROM edges WHERE target_type = 'page'
                           AND id NOT IN (SELECT unnest($e::VARCHAR[])))
               OR p.id IN (SELECT pa.page_id FROM papers pa
                           JOIN paper_sightings ps ON ps.paper_id = pa.id
                           WHERE ps.search_id NOT IN (SELECT unnest($s::VARCHAR[]))))
        """,
        {"r": reached, "s": searches, "e": plan.edges},
    )
    plan.pages = sorted(set(reached) - set(used))
    plan.pages_kept = used
    plan.fragments = _ids(
        con,
        "SELECT id FROM fragments WHERE page_id IN (SELECT unnest(?::VARCHAR[]))",
        [plan.pages],
    )
    plan.files = _orphan_files(con, plan.pages, home)
    return plan


def _orphan_files(con: duckdb.DuckDBPyConnection, pages: list[str], home: Path) -> list[str]:
    """Archive files of ``pages`` that no other page names, under ``home`` only."""
    if not pages:
        return []
    rows = (
        con.cursor()
        .execute(
            """
            SELECT path FROM (
                SELECT warc_path AS path FROM pages
                    WHERE id IN (SELECT unnest($p::VARCHAR[]))
                UNION SELECT screenshot_path FROM pages
                    WHERE id IN (SELECT unnest($p::VARCHAR[]))
            ) WHERE path IS NOT NULL
              AND path NOT IN (
                SELECT warc_path FROM pages WHERE id NOT IN (SELECT unnest($p::VARCHAR[]))
                    AND warc_path IS NOT NULL
                UNION SELECT screenshot_path FROM pages
                    WHERE id NOT IN (SELECT unnest($p::VARCHAR[]))
                    AND screenshot_path IS NOT NULL)
            """,
            {"p": pages},
        )
        .fetchall()
    )
    root = home.resolve()
    out = []
    for (path,) in rows:
        resolved = Path(path).resolve()
        if resolved.is_relative_to(root):
            out.append(str(path))
    return sorted(out)


def apply_cleanup(con: duckdb.DuckDBPyConnection, plan: CleanupPlan) -> dict[str, Any]:
    """Remove what ``plan`` lists (one transaction), then its files; the summary, with
    the files that could not be removed."""
    with transaction(con):
        # The connection itself, not a cursor: a cursor is a connection of its own,
        # outside this transaction.
        cur = con
        deletes = (
            ("edges", "id", plan.edges),
            ("claims", "id", plan.claims),
            ("serp_items", "id", plan.serp_items),
            ("fragments", "id", plan.fragments),
            ("pages", "id", plan.pages),
        )
        cur.execute(
            "DELETE FROM embeddings WHERE (target_type = 'claim' AND target_id IN "
            "(SELECT unnest($c::VARCHAR[]))) OR (target_type = 'fragment' AND target_id IN "
            "(SELECT unnest($f::VARCHAR[])))",
            {"c": plan.claims, "f": plan.fragments},
        )
        for table, column, ids in deletes:
            if ids:
                cur.execute(
                    f"DELETE FROM {table} WHERE {column} IN (SELECT unnest(?::VARCHAR[]))", [ids]
                )
        if plan.pages:
            cur.execute(
                "UPDATE papers SET page_id = NULL WHERE page_id IN (SELECT unnest(?::VARCHAR[]))",
                [plan.pages],
            )
    failed = []
    for path in plan.files:
        try:
            Path(path).unlink(missing_ok=True)
        except OSError as exc:
            failed.append(f"{path}: {exc.strerror or exc}")
    return {**plan.summary(), "files_not_removed": failed}
