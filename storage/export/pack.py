"""One task's evidence as a plain dict: claims with their edges and quotes, and the
sources they cite, each with a stable citation key.

A source is a page that a claim was extracted from (``origin``) or that supports or
refutes a claim; pages reached only by ``neutral`` edges cite nothing and are left out.
A page that carries a paper's abstract (``papers.page_id``) is exported as the paper:
DOI, authors, venue and year. Near-duplicate pages keep their own entry and name their
canonical page (``dup_of``).
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

import duckdb

CITING = ("origin", "supports", "refutes")

_EDGES_SQL = """
SELECT e.id AS edge_id, e.target_id AS claim_id, e.relation, e.nli_confidence,
       e.method, e.nli_model, f.id AS fragment_id, f.text_content AS quote, f.char_start,
       f.char_end,
       f.page_number, f.heading_context, p.id AS page_id, p.url, p.title,
       coalesce(p.warc_path, p.source_path) AS archive, p.warc_offset AS archive_offset,
       p.fetched_at AS accessed
FROM edges e
JOIN claims c ON c.id = e.target_id
JOIN fragments f ON f.id = e.source_id
JOIN pages p ON p.id = f.page_id
LEFT JOIN domains bd ON bd.domain = p.domain
WHERE c.task_id = ? AND e.target_type = 'claim' AND e.source_type = 'fragment'
  AND e.relation IN ('origin', 'supports', 'refutes', 'neutral')
  -- A blocked site is no evidence (decision 0050); a claim's origin stays its provenance.
  AND (e.relation = 'origin' OR NOT coalesce(bd.blocked, false))
ORDER BY e.target_id,
         CASE e.relation WHEN 'origin' THEN 0 WHEN 'supports' THEN 1
                         WHEN 'refutes' THEN 2 ELSE 3 END,
         e.nli_confidence DESC NULLS LAST, e.id
"""

_PAGES_SQL = """
SELECT p.id AS page_id, p.url, p.domain, p.title, p.fetched_at, p.warc_path,
       p.published_date, p.dup_of, p.trust_level, p.content_type, p.source_path,
       coalesce(p.is_retracted, false) AS is_retracted,
       coalesce(pa.doi, p.doi) AS doi, pa.title AS paper_title, pa.authors, pa.year,
       pa.venue, pa.pmid, pa.arxiv
FROM pages p
LEFT JOIN papers pa ON pa.page_id = p.id
WHERE p.id IN (SELECT unnest(?::VARCHAR[]))
ORDER BY p.url
"""


_CITES_SQL = """
SELECT e.id AS edge_id, a.id AS source_page_id, a.url AS source_url, a.title AS source_title,
       b.id AS target_page_id, b.url AS target_url, b.title AS target_title
FROM edges e
JOIN pages a ON a.id = e.source_id
JOIN pages b ON b.id = e.target_id
WHERE e.task_id = ? AND e.relation = 'cites'
  AND e.source_type = 'page' AND e.target_type = 'page'
ORDER BY a.url, b.url
"""


def _rows(cur: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]


def _iso(value: Any) -> str | None:
    if value is None:
        return None
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def _authors(raw: Any) -> list[dict[str, str]]:
    """Authors as ``{"family", "given"}`` (or ``{"literal"}`` for an organisation)."""
    items = json.loads(raw) if isinstance(raw, str) else (raw or [])
    out: list[dict[str, str]] = []
    for item in items:
        name = item.get("name") if isinstance(item, dict) else str(item)
        name = " ".join((name or "").split())
        if not name:
            continue
        if "," in name:
            family, given = (part.strip() for part in name.split(",", 1))
        elif " " in name:
            given, family = name.rsplit(" ", 1)
        else:
            out.append({"literal": name})
            continue
        out.append({"family": family, "given": given})
    return out


def _ascii_word(text: str) -> str:
    """The first word of ``text`` in lowercase ASCII letters and digits ('' if none)."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words: list[str] = re.findall(r"[A-Za-z0-9]+", folded)
    for word in words:
        if len(word) > 3 or word.isdigit():
            return word.lower()
    return ""


def _key_base(source: dict[str, Any]) -> str:
    year = str(source.get("year") or "")
    if source["authors"]:
        first = source["authors"][0]
        lead = _ascii_word(first.get("family") or first.get("literal") or "")
    else:
        lead = _ascii_word((source.get("domain") or "").split(".")[0])
    return f"{lead or 'source'}{year}{_ascii_word(source.get('title') or '')}"


def _assign_keys(sources: list[dict[str, Any]]) -> None:
    """Stable, distinct citation keys: author (or site) + year + first title word, with
    a, b, c ... where two sources would share one (sources come sorted by URL)."""
    bases = [_key_base(s) for s in sources]
    seen: dict[str, int] = {}
    for source, base in zip(sources, bases, strict=True):
        if bases.count(base) == 1:
            source["key"] = base
            continue
        nth = seen.get(base, 0)
        seen[base] = nth + 1
        source["key"] = f"{base}{chr(ord('a') + nth % 26)}{nth // 26 or ''}"


def evidence_pack(
    con: duckdb.DuckDBPyConnection,
    task: dict[str, Any],
    claims: list[dict[str, Any]],
    as_of: str,
) -> dict[str, Any]:
    """The task's evidence; ``claims`` as the GraphActor's ``claim_confidences`` gives
    them (confidence, uncertainty and counts of each active claim)."""
    edges = _rows(con.cursor().execute(_EDGES_SQL, [task["id"]]))
    active = {c["id"] for c in claims}
    edges = [e for e in edges if e["claim_id"] in active]
    cited_pages = sorted({e["page_id"] for e in edges if e["relation"] in CITING})
    pages = _rows(con.cursor().execute(_PAGES_SQL, [cited_pages])) if cited_pages else []
    sources: list[dict[str, Any]] = []
    for p in pages:
        is_paper = bool(p["doi"] or p["paper_title"] or p["authors"])
        published = _iso(p["published_date"])
        year = p["year"] or (int(published[:4]) if published else None)
        sources.append(
            {
                "page_id": p["page_id"],
                "kind": "paper" if is_paper else "web",
                "title": p["paper_title"] or p["title"] or p["url"],
                "authors": _authors(p["authors"]),
                "year": year,
                "published_date": published,
                "venue": p["venue"],
                "doi": p["doi"],
                "pmid": p["pmid"],
                "arxiv": p["arxiv"],
                "url": p["url"],
                "domain": p["domain"],
                "accessed": _iso(p["fetched_at"]),
                "archive": p["warc_path"] or p["source_path"],
                "trust_level": p["trust_level"],
                "dup_of": p["dup_of"],
                "is_retracted": bool(p["is_retracted"]),
                "origin_of": [],
                "supports": [],
                "refutes": [],
            }
        )
    _assign_keys(sources)
    by_page = {s["page_id"]: s for s in sources}
    out_claims = []
    for claim in claims:
        own = [e for e in edges if e["claim_id"] == claim["id"]]
        evidence = []
        for e in own:
            source = by_page.get(e["page_id"])
            if source is not None and e["relation"] in CITING:
                listed = source["origin_of" if e["relation"] == "origin" else e["relation"]]
                if claim["id"] not in listed:
                    listed.append(claim["id"])
            evidence.append(
                {
                    "edge_id": e["edge_id"],
                    "relation": e["relation"],
                    "confidence": e["nli_confidence"],
                    "method": e["method"],
                    "model": e["nli_model"],
                    "source_key": source["key"] if source else None,
                    "page_id": e["page_id"],
                    "fragment_id": e["fragment_id"],
                    "quote": e["quote"],
                    "char_start": e["char_start"],
                    "char_end": e["char_end"],
                    "page_number": e["page_number"],
                    "heading_context": e["heading_context"],
                    "url": e["url"],
                    "title": e["title"],
                    "archive": e["archive"],
                    "archive_offset": e["archive_offset"],
                    "accessed": _iso(e["accessed"]),
                }
            )
        out_claims.append(
            {
                "id": claim["id"],
                "text": claim["claim_text"],
                "confidence": claim["confidence"],
                "uncertainty": claim["uncertainty"],
                "alpha": claim["alpha"],
                "beta": claim["beta"],
                "supporting": claim["supporting"],
                "refuting": claim["refuting"],
                "neutral": claim["neutral"],
                "independent_sources": claim["independent_sources"],
                "extraction_method": claim.get("extraction_method"),
                "evidence": evidence,
            }
        )
    return {
        "citations": _rows(con.cursor().execute(_CITES_SQL, [task["id"]])),
        "task": {
            "id": task["id"],
            "query": task["query"],
            "status": task.get("status"),
            "created_at": _iso(task.get("created_at")),
        },
        "as_of": as_of,
        "claims": out_claims,
        "sources": sources,
    }
