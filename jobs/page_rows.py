"""The `pages` and `fragments` rows of the documents a search keeps.

Pure: the search job (`SearchJob._store`) hands in the documents, what the fetch layer
said about each URL and the simhashes the graph already holds, and writes what comes
back through the GraphActor.
"""

from __future__ import annotations

from typing import Any

from lyra.pipelines.evidence import research as rs
from lyra.pipelines.extract.dedup import hamming
from lyra.pipelines.extract.documents import Document

# Pages whose 64-bit simhash (word 3-shingles) differs by at most this many bits are
# near-duplicates. The web-scale figure of 3 bits assumes long pages; on short ones a
# single changed word moves several bits (the syndicated copy in examples/corpus: 7),
# while distinct pages on the same topic stay far apart (nearest there: 21).
NEAR_DUP_BITS = 10

# (page id, simhash, the page it duplicates or None), as `page_simhashes` lists them.
Known = list[tuple[str, int, str | None]]


def canonical_of(page_id: str, simhash: int, known: Known) -> str | None:
    """The page `page_id` duplicates (None: it is its own canonical), and `known` then
    holds it. A page keeps the canonical it was given first; a new one takes that of
    the first stored page within `NEAR_DUP_BITS`."""
    for other_id, _, other_dup in known:
        if other_id == page_id:
            return other_dup
    dup_of = None
    for other_id, other_hash, other_dup in known:
        if hamming(simhash, other_hash) <= NEAR_DUP_BITS:
            dup_of = other_dup or other_id
            break
    known.append((page_id, simhash, dup_of))
    return dup_of


def page_row(
    doc: Document,
    dup_of: str | None,
    trust_level: str,
    fetched: dict[str, Any],
    fetched_at: str,
    extra: dict[str, Any],
) -> dict[str, Any]:
    """The `pages` row of `doc`; `fetched`: what the fetch layer said of its URL (empty
    for a corpus file), `extra`: the paper columns of an academic page."""
    return {
        "id": rs.page_id(doc.url),
        "url": doc.url,
        "domain": doc.domain,
        "title": doc.title,
        "trust_level": trust_level,
        "fetched_at": fetched.get("fetched_at") or fetched_at,
        "warc_path": fetched.get("warc_path"),
        "warc_offset": fetched.get("warc_offset"),
        "screenshot_path": fetched.get("screenshot_path"),
        "content_type": doc.content_type,
        "content_hash": doc.content_hash,
        "simhash": doc.simhash,
        "dup_of": dup_of,
        "http_status": fetched.get("http_status"),
        "published_date": doc.published_date,
        "published_date_source": doc.date_source,
        "final_url": doc.url,
        "source_path": doc.source_path,
        "byte_size": doc.byte_size,
        **extra,
    }


def fragment_rows(doc: Document, page_id: str) -> list[dict[str, Any]]:
    """The `fragments` rows of `doc` stored as page `page_id`, each also carrying (in
    keys that start with `_`, never stored) the domain, URL and title the pipeline
    reads."""
    rows = []
    for f in doc.fragments:
        th = rs.text_hash(f.text)
        rows.append(
            {
                "id": rs.fragment_id(page_id, f.position, th),
                "page_id": page_id,
                "position": f.position,
                "text_content": f.text,
                "heading_context": f.heading_context,
                "fragment_type": f.fragment_type,
                "char_start": f.char_start,
                "char_end": f.char_end,
                "page_number": f.page_number,
                "text_hash": th,
                "_domain": doc.domain,
                "_url": doc.url,
                "_title": doc.title,
            }
        )
    return rows
