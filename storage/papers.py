"""The canonical paper index: one row per paper, however many routes and ids reach it.

Issue 4 / seed 001 (CanonicalIndex): a paper met through a SERP DOI, an API search,
a PMID in a page and a citation list is stored once. Any shared identifier (DOI,
PMID, PMCID, arXiv id, S2 paperId, OpenAlex id) names the same row; a record without
any id matches only an id-less row of the same normalised title and year (a record
with ids is never merged by title: titles repeat across errata, preprints and
replies). A record that bridges two rows (the DOI of one, the PMID of the other)
merges them into the older row.

Only the GraphActor calls these functions (it is the database's sole writer).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import duckdb

from lyra.pipelines.discover.identifiers import canonical_paper_key, normalize_title
from lyra.storage.repository import make_id, transaction, utcnow

Row = Mapping[str, Any]

ID_COLUMNS = ("doi", "pmid", "pmcid", "arxiv", "s2_id", "openalex_id")
_COLUMNS = (
    "id",
    "canonical_key",
    *ID_COLUMNS,
    "corpus_id",
    "title",
    "norm_title",
    "year",
    "venue",
    "abstract",
    "authors",
    "is_retracted",
    "citation_count",
    "source_apis",
    "page_id",
    "created_at",
    "updated_at",
)


def _rows(cur: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    names = [d[0] for d in cur.description or ()]
    out = []
    for values in cur.fetchall():
        row = dict(zip(names, values, strict=True))
        for key in ("authors", "source_apis"):
            if isinstance(row.get(key), str):
                row[key] = json.loads(row[key])
        out.append(row)
    return out


def _matches(con: duckdb.DuckDBPyConnection, rec: Row) -> list[dict[str, Any]]:
    ids = [(c, str(rec[c])) for c in ID_COLUMNS if rec.get(c)]
    if ids:
        where = " OR ".join(f"{c} = ?" for c, _ in ids)
        params: list[Any] = [v for _, v in ids]
    else:
        norm = normalize_title(str(rec.get("title") or ""))
        if not norm:
            return []
        nulls = " AND ".join(f"{c} IS NULL" for c in ID_COLUMNS)
        where = f"norm_title = ? AND year IS NOT DISTINCT FROM ? AND {nulls}"
        params = [norm, rec.get("year")]
    cur = con.execute(
        f"SELECT {', '.join(_COLUMNS)} FROM papers WHERE {where} ORDER BY created_at, id", params
    )
    return _rows(cur)


def _merged(base: dict[str, Any], other: Row) -> dict[str, Any]:
    """`base` completed by `other`: ids and metadata fill gaps, flags and lists join."""
    out = dict(base)
    for key in (*ID_COLUMNS, "corpus_id", "title", "year", "venue", "page_id"):
        if out.get(key) in (None, "") and other.get(key) not in (None, ""):
            out[key] = other[key]
    if len(str(other.get("abstract") or "")) > len(str(out.get("abstract") or "")):
        out["abstract"] = other["abstract"]
    if not out.get("authors") and other.get("authors"):
        out["authors"] = list(other["authors"])
    retracted = [v for v in (out.get("is_retracted"), other.get("is_retracted")) if v is not None]
    out["is_retracted"] = any(retracted) if retracted else None
    counts = [v for v in (out.get("citation_count"), other.get("citation_count")) if v is not None]
    out["citation_count"] = max(counts) if counts else None
    apis = {*(out.get("source_apis") or ()), *(other.get("source_apis") or ())}
    out["source_apis"] = sorted(apis)
    return out


def _key_of(row: Row) -> str:
    return canonical_paper_key(
        row.get("doi"), row.get("pmid"), row.get("arxiv"), row.get("title"), row.get("year")
    )


def upsert_paper(con: duckdb.DuckDBPyConnection, rec: Row) -> dict[str, Any]:
    """Store `rec` in the index (merged with every row it matches); returns the row.

    `rec` has any of the id columns, title, year, venue, abstract, authors (list),
    is_retracted, citation_count, source_apis (list). The returned row carries
    ``created`` (True when no row matched) and ``merged_ids`` (rows folded into it).
    Raises ValueError when `rec` has neither an id nor a title.
    """
    _key_of(rec)  # ValueError for a record with nothing to key it by
    now = utcnow()
    with transaction(con):
        found = _matches(con, rec)
        incoming = {c: rec.get(c) for c in _COLUMNS if c in rec}
        if not found:
            # A fresh id, not one derived from the key: an id-less record's title key
            # can equal the key a row with ids had before it learnt them.
            row = _merged({"id": uuid.uuid4().hex, "created_at": now}, incoming)
            created, folded = True, []
        else:
            row = found[0]
            for other in found[1:]:
                row = _merged(row, other)
            row = _merged(row, incoming)
            created, folded = False, [r["id"] for r in found[1:]]
        row["canonical_key"] = _key_of(row)
        row["norm_title"] = normalize_title(str(row.get("title") or "")) or None
        row["updated_at"] = now
        values = [
            json.dumps(row.get(c)) if c in ("authors", "source_apis") else row.get(c)
            for c in _COLUMNS
        ]
        con.execute(
            f"INSERT OR REPLACE INTO papers ({', '.join(_COLUMNS)}) "
            f"VALUES ({', '.join('?' for _ in _COLUMNS)})",
            values,
        )
        for old in folded:
            con.execute("DELETE FROM papers WHERE id = ?", [old])
            con.execute(
                "UPDATE paper_sightings SET paper_id = ? WHERE paper_id = ? AND NOT EXISTS "
                "(SELECT 1 FROM paper_sightings s WHERE s.paper_id = ? "
                "AND s.search_id = paper_sightings.search_id AND s.route = paper_sightings.route)",
                [row["id"], old, row["id"]],
            )
            con.execute("DELETE FROM paper_sightings WHERE paper_id = ?", [old])
            for column in ("paper_id", "anchor_paper_id"):
                con.execute(
                    f"UPDATE citation_candidates SET {column} = ? WHERE {column} = ?",
                    [row["id"], old],
                )
    return {**row, "created": created, "merged_ids": folded}


def set_paper_page(con: duckdb.DuckDBPyConnection, paper_id: str, page_id: str) -> None:
    """Attach the page that carries a paper's abstract (first one wins)."""
    con.execute(
        "UPDATE papers SET page_id = coalesce(page_id, ?), updated_at = ? WHERE id = ?",
        [page_id, utcnow(), paper_id],
    )


def record_sightings(con: duckdb.DuckDBPyConnection, rows: Sequence[Row]) -> int:
    """How a search met papers: (search_id, paper_id, route, source_url); returns rows new."""
    written = 0
    with transaction(con):
        for r in rows:
            before = con.execute(
                "SELECT count(*) FROM paper_sightings WHERE search_id = ? AND paper_id = ? "
                "AND route = ?",
                [r["search_id"], r["paper_id"], r["route"]],
            ).fetchone()
            if before and before[0]:
                continue
            con.execute(
                "INSERT INTO paper_sightings (search_id, paper_id, route, source_url, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                [r["search_id"], r["paper_id"], r["route"], r.get("source_url"), utcnow()],
            )
            written += 1
    return written


def papers_by_ids(con: duckdb.DuckDBPyConnection, paper_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Rows of the given papers (unknown ids are absent)."""
    if not paper_ids:
        return []
    cur = con.execute(
        f"SELECT {', '.join(_COLUMNS)} FROM papers WHERE id IN (SELECT unnest(?::VARCHAR[])) "
        "ORDER BY id",
        [list(paper_ids)],
    )
    return _rows(cur)


def insert_citation_candidates(con: duckdb.DuckDBPyConnection, rows: Sequence[Row]) -> int:
    """Citation-tracking candidates of a search (idempotent by anchor, paper, search)."""
    written = 0
    now = utcnow()
    with transaction(con):
        for r in rows:
            cid = make_id("citation_candidate", r["search_id"], r["anchor_paper_id"], r["paper_id"])
            exists = con.execute(
                "SELECT count(*) FROM citation_candidates WHERE id = ?", [cid]
            ).fetchone()
            if exists and exists[0]:
                continue
            con.execute(
                "INSERT INTO citation_candidates (id, task_id, search_id, anchor_paper_id, "
                "paper_id, direction, is_influential, similarity, llm_relevance, score, kept, "
                "apis, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    cid,
                    r["task_id"],
                    r["search_id"],
                    r["anchor_paper_id"],
                    r["paper_id"],
                    r["direction"],
                    r.get("is_influential"),
                    r.get("similarity"),
                    r.get("llm_relevance"),
                    r.get("score"),
                    bool(r.get("kept")),
                    json.dumps(list(r.get("apis") or ())),
                    now,
                ],
            )
            written += 1
    return written


def reference_candidates(
    con: duckdb.DuckDBPyConnection, task_id: str, limit: int = 50
) -> list[dict[str, Any]]:
    """A task's citation candidates, best first: what `get_status` lists."""
    cur = con.execute(
        """
        SELECT c.paper_id, p.title, p.year, p.doi, c.direction, c.is_influential,
               round(c.similarity, 4) AS similarity, c.llm_relevance,
               round(c.score, 4) AS score, c.kept, c.anchor_paper_id,
               a.title AS anchor_title, p.page_id, coalesce(p.is_retracted, false) AS is_retracted
        FROM citation_candidates c
        JOIN papers p ON p.id = c.paper_id
        LEFT JOIN papers a ON a.id = c.anchor_paper_id
        WHERE c.task_id = ?
        ORDER BY c.kept DESC, c.score DESC NULLS LAST, c.paper_id
        LIMIT ?
        """,
        [task_id, limit],
    )
    return _rows(cur)
