"""Papers in a search: academic API search, identifier resolution, citation tracking.

ARCHITECTURE §3 steps 4 and 8, seed 001 phases 2, 3 and 5. A `SearchJob` owns one
`PaperDiscovery` when its search uses the academic APIs. Whatever route met a paper
(an API search, a DOI in a SERP row, a `citation_doi` meta tag of a fetched page, the
client's `options.dois`, a citation list), it takes the same path afterwards: merged
into the canonical paper index (stored once), a page at its resolver URL with the
abstract as fragments, then its references and citations are tracked and the most
relevant become pages joined by `cites` edges. Requests go through `AcademicClient`
(the fetch layer); storage through the GraphActor.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from lyra.jobs.academic import APIS, AcademicClient
from lyra.pipelines.discover import citations as cit
from lyra.pipelines.discover.identifiers import (
    Identifier,
    canonical_paper_key,
    extract_from_html,
    extract_from_text,
    extract_from_url,
    normalize_explicit_doi,
)
from lyra.pipelines.discover.papers import (
    Paper,
    merge_papers,
    paper_document,
    paper_from_record,
    paper_page_url,
    paper_record,
)
from lyra.pipelines.errors import LyraError
from lyra.pipelines.evidence import research as rs
from lyra.pipelines.extract.documents import Document
from lyra.pipelines.net.domains import page_trust_level, registrable_domain

log = logging.getLogger(__name__)

RESOLVABLE = frozenset({"doi", "pmid", "pmcid", "arxiv"})
# Ids that describe a fetched page itself (not works it cites).
SELF_SOURCES = frozenset({"url", "meta", "jsonld"})
# Ids resolved per search: every self id, and cited ids up to this many.
MAX_CITED_IDS_PER_SEARCH = 10

Call = Callable[..., Awaitable[Any]]
Embed = Callable[[list[str]], Awaitable[np.ndarray]]


@dataclass
class _Met:
    """A paper met in this search before it is stored: its record and its routes."""

    paper: Paper
    routes: list[tuple[str, str | None]] = field(default_factory=list)  # (route, source url)


def paper_key(paper: Paper) -> str | None:
    """The canonical key of a paper, or None when it has nothing to key it by."""
    try:
        return canonical_paper_key(paper.doi, paper.pmid, paper.arxiv, paper.title, paper.year)
    except ValueError:
        return None


def ident_key(ident: Identifier) -> str | None:
    """The canonical key an identifier would give its paper (PMCID alone has none)."""
    if ident.kind == "doi":
        return canonical_paper_key(ident.value, None, None, None, None)
    if ident.kind == "pmid":
        return f"pmid:{ident.value}"
    if ident.kind == "arxiv":
        return f"arxiv:{ident.value}"
    return None


def ids_of_page(html: str | None, text: str, url: str) -> list[Identifier]:
    """Ids of a fetched page: its own (meta, JSON-LD, URL) and those it cites. It parses
    the page: a search calls it off its event loop (decision 0082)."""
    found = extract_from_html(html, url) if html is not None else extract_from_text(text)
    if html is None:
        found = [*extract_from_url(url), *found]
    return found


class PaperDiscovery:
    """The papers of one search; see the module docstring."""

    def __init__(
        self,
        client: AcademicClient,
        call: Call,
        *,
        task_id: str,
        search_id: str,
        query: str,
        tag: str,
        domain_rules: dict[str, Any],
        max_tracked: int,
    ) -> None:
        self.client = client
        self._call = call
        self.task_id = task_id
        self.search_id = search_id
        self.query = query
        self.tag = tag
        self.domain_rules = domain_rules
        self.max_tracked = max_tracked
        self._met: dict[str, _Met] = {}  # canonical key -> paper met
        # (kind, value) -> the id and every (route, source url) it was seen by
        self._pending: dict[tuple[str, str], tuple[Identifier, list[tuple[str, str | None]]]] = {}
        self._cited_ids = 0
        self.rows: dict[str, dict[str, Any]] = {}  # canonical key -> stored paper row
        self.page_docs: dict[str, str] = {}  # page url -> paper id
        # page url -> (WARC path, fetched_at) of the API answer the page shows
        self.page_sources: dict[str, tuple[str, str] | None] = {}
        self.cites: list[tuple[str, str]] = []  # (citing paper id, cited paper id)
        self.metrics: dict[str, Any] = {
            "papers_found": 0,
            "paper_pages": 0,
            "citation_candidates": 0,
            "citation_pages": 0,
            "cites_edges": 0,
        }
        self.warnings: list[str] = []
        self.degraded: list[str] = []

    # --- meeting papers -----------------------------------------------------------------
    def _meet(self, paper: Paper, route: str, source_url: str | None) -> None:
        key = paper_key(paper)
        if key is None:
            return
        met = self._met.get(key)
        if met is None:
            self._met[key] = _Met(paper, [(route, source_url)])
        else:
            met.paper = merge_papers(met.paper, paper)
            met.routes.append((route, source_url))

    async def search_apis(self) -> None:
        """The academic APIs' relevance search for the query (seed 001 phase 2)."""
        for paper in await self.client.search(self.query):
            self._meet(paper, f"api_search:{paper.source_api[0]}", None)

    def note_ids(self, idents: Iterable[Identifier], route: str, source_url: str | None) -> None:
        """Identifiers seen somewhere; resolved by `resolve_pending`."""
        for ident in idents:
            if ident.kind not in RESOLVABLE:
                continue
            cited = ident.source not in SELF_SOURCES
            key = (ident.kind, ident.value)
            if key in self._pending:
                self._pending[key][1].append((route, source_url))
                continue
            if cited:
                if self._cited_ids >= MAX_CITED_IDS_PER_SEARCH:
                    continue
                self._cited_ids += 1
            self._pending[key] = (ident, [(route, source_url)])

    def note_serp_item(self, url: str, title: str | None, snippet: str | None) -> None:
        """Ids in a SERP row: its URL, title and snippet describe the result itself."""
        found = [*extract_from_url(url), *extract_from_text(f"{title or ''} {snippet or ''}")]
        self.note_ids([Identifier(i.kind, i.value, "url", i.version) for i in found], "serp", url)

    async def resolve_pending(self) -> None:
        """Resolve noted ids through the APIs, skipping papers already met (seed 001 phase 3)."""
        todo = []
        for ident, routes in self._pending.values():
            key = ident_key(ident)
            if key is not None and key in self._met:
                self._met[key].routes.extend(routes)
                continue
            todo.append((ident, routes))
        self._pending.clear()
        for ident, routes in todo:
            paper = await self.client.lookup(ident)
            if paper is None:
                self.warnings.append(f"{ident.kind}:{ident.value}: no academic API knows it")
                continue
            for route, source_url in routes:
                self._meet(paper, route, source_url)

    # --- storing --------------------------------------------------------------------------
    async def store_met(self) -> list[Document]:
        """Merge every paper met into the index; documents for papers that need a page."""
        met = list(self._met.values())
        rows = await self._call("graph", "upsert_papers", [paper_record(m.paper) for m in met])
        sightings = []
        docs: list[Document] = []
        for m, row in zip(met, rows, strict=True):
            if "error" in row:
                continue
            self.rows[row["canonical_key"]] = row
            for route, source_url in dict.fromkeys(m.routes):
                sightings.append(
                    {
                        "search_id": self.search_id,
                        "paper_id": row["id"],
                        "route": route,
                        "source_url": source_url,
                    }
                )
            doc = self._document(row)
            if doc is not None:
                docs.append(doc)
        if sightings:
            await self._call("graph", "record_paper_sightings", sightings)
        self.metrics["papers_found"] = len(self.rows)
        return docs

    def _document(self, row: dict[str, Any], title_only: bool = False) -> Document | None:
        """The page of a stored paper, unless it has one already or nothing to show."""
        if row.get("page_id"):
            return None
        paper = paper_from_record(row)
        url = paper_page_url(paper)
        if url is None:
            return None
        doc = paper_document(paper, url, registrable_domain(url), title_only=title_only)
        if doc is not None:
            self.page_docs[url] = row["id"]
            self.page_sources[url] = self.client.source_of(paper)
        return doc

    def page_columns(self, url: str) -> dict[str, Any]:
        """The `pages` columns a paper's own page carries (doi, is_retracted)."""
        paper_id = self.page_docs.get(url)
        row = next((r for r in self.rows.values() if r["id"] == paper_id), None)
        if row is None:
            return {}
        return {"doi": row.get("doi"), "is_retracted": bool(row.get("is_retracted"))}

    async def attach_pages(self, page_ids: dict[str, str]) -> None:
        """After the job stored pages (url -> page id): link papers to theirs, mark retractions."""
        pairs = [(pid, page_ids[url]) for url, pid in self.page_docs.items() if url in page_ids]
        if not pairs:
            return
        await self._call("graph", "set_paper_pages", pairs)
        by_id = {row["id"]: row for row in self.rows.values()}
        for paper_id, page_id in pairs:
            if paper_id in by_id:
                by_id[paper_id]["page_id"] = page_id
        self.metrics["paper_pages"] += len(pairs)

    # --- citation tracking (seed 001 phase 5) ------------------------------------------------
    async def track_citations(self, embed: Embed, query_vec: np.ndarray | None) -> list[Document]:
        """References and citations of the papers that got a page in this search.

        Links are grouped per far paper (one paper cited by three anchors is one
        candidate). A linked paper that already has a page in this search only gains
        its `cites` edges; the others compete: stage 1 (embedding similarity +
        isInfluential) keeps 30, stage 2 (LLM relevance, or embedding only without an
        LLM, flagged degraded) keeps 10, which become pages. Every stage-1 candidate is
        listed for `get_status`.
        """
        anchors = [r for r in self.rows.values() if r.get("page_id")][: self.max_tracked]
        groups: dict[str, list[tuple[cit.Candidate, str]]] = {}
        for row in anchors:
            anchor = paper_from_record(row)
            links = await self.client.links(anchor)
            for cand in cit.merge_links(anchor, links):
                groups.setdefault(cand.key, []).append((cand, row["id"]))
        paged = {key for key, row in self.rows.items() if row.get("page_id")}
        cand_rows: list[dict[str, Any]] = []
        for key in sorted(groups.keys() & paged):  # known pages: listed and linked only
            self._link(self.rows[key]["id"], groups[key])
            cand_rows += self._candidate_rows(self.rows[key]["id"], groups[key], None, True)
        fresh = [_representative(members) for key, members in groups.items() if key not in paged]
        if not fresh:
            await self._call("graph", "insert_citation_candidates", cand_rows)
            self.metrics["citation_candidates"] = len(cand_rows)
            return []
        texts = [f"{c.paper.title or ''}\n{c.paper.abstract or ''}" for c in fresh]
        if query_vec is not None:
            vecs = await embed(texts)
            sims = [float(v) for v in np.asarray(vecs @ query_vec, dtype=np.float32)]
        else:
            sims = [0.0] * len(fresh)
            self.degraded.append("citation relevance: no embedding model")
        stage1 = cit.stage1(fresh, sims)
        llm = await self._call(
            "inference",
            "relevance",
            self.query,
            [paper_record(s.candidate.paper) for s in stage1],
            self.tag,
        )
        kept, degraded = cit.stage2(stage1, llm)
        if degraded:
            self.degraded.append("citation relevance: embedding only (no LLM)")
        kept_keys = {s.candidate.key for s in kept}
        # Kept papers whose link pages had no abstract get it in a few batch lookups.
        kept_scored = [s for s in stage1 if s.candidate.key in kept_keys]
        filled = await self.client.fill_abstracts([s.candidate.paper for s in kept_scored])
        by_key = {s.candidate.key: p for s, p in zip(kept_scored, filled, strict=True)}
        records = [paper_record(by_key.get(s.candidate.key, s.candidate.paper)) for s in stage1]
        rows = await self._call("graph", "upsert_papers", records)
        docs: list[Document] = []
        sightings: list[dict[str, Any]] = []
        for scored, row in zip(stage1, rows, strict=True):
            if "error" in row:
                continue
            key = scored.candidate.key
            kept_now = key in kept_keys
            cand_rows += self._candidate_rows(row["id"], groups[key], scored, kept_now)
            if not kept_now:
                continue
            self.rows.setdefault(row["canonical_key"], row)
            self._link(row["id"], groups[key])
            sightings.append(
                {"search_id": self.search_id, "paper_id": row["id"], "route": "citation"}
            )
            doc = self._document(row, title_only=True)
            if doc is not None:
                docs.append(doc)
        if sightings:
            await self._call("graph", "record_paper_sightings", sightings)
        await self._call("graph", "insert_citation_candidates", cand_rows)
        self.metrics["citation_candidates"] = len(cand_rows)
        self.metrics["citation_pages"] = len(docs)
        return docs

    def _candidate_rows(
        self,
        paper_id: str,
        members: list[tuple[cit.Candidate, str]],
        scored: cit.Scored | None,
        kept: bool,
    ) -> list[dict[str, Any]]:
        """`citation_candidates` rows of one linked paper, one per anchor it links to.

        `scored` is None for a paper that already had a page (not ranked: linked only).
        """
        return [
            {
                "task_id": self.task_id,
                "search_id": self.search_id,
                "anchor_paper_id": anchor_id,
                "paper_id": paper_id,
                "direction": cand.direction,
                "is_influential": cand.is_influential,
                "similarity": None if scored is None else scored.similarity,
                "llm_relevance": None if scored is None else scored.llm_relevance,
                "score": None if scored is None else scored.final_score,
                "kept": kept,
                "apis": list(cand.apis),
            }
            for cand, anchor_id in members
        ]

    def _link(self, paper_id: str, members: list[tuple[cit.Candidate, str]]) -> None:
        """Remember the `cites` pairs between a linked paper and each anchor it links to."""
        for cand, anchor_id in members:
            if cand.direction == "references":
                self.cites.append((anchor_id, paper_id))
            else:
                self.cites.append((paper_id, anchor_id))

    async def cites_edges(self) -> int:
        """`cites` edges (page -> page) for the kept citations whose both papers have pages."""
        ids = sorted({p for pair in self.cites for p in pair})
        rows = {r["id"]: r for r in await self._call("graph", "papers_by_ids", ids)}
        edges: list[dict[str, Any]] = []
        for citing, cited in dict.fromkeys(self.cites):
            a, b = rows.get(citing, {}), rows.get(cited, {})
            if not a.get("page_id") or not b.get("page_id"):
                continue
            edge_id = rs.edge_id(a["page_id"], b["page_id"], "cites")
            if any(e["id"] == edge_id for e in edges):
                continue  # two papers folded into one row
            edges.append(
                {
                    "id": edge_id,
                    "task_id": self.task_id,
                    "source_type": "page",
                    "source_id": a["page_id"],
                    "target_type": "page",
                    "target_id": b["page_id"],
                    "relation": "cites",
                    "nli_label": None,
                    "nli_confidence": None,
                    "source_trust_level": self._trust(a),
                    "target_trust_level": self._trust(b),
                    "method": "citation_tracking",
                }
            )
        if edges:
            await self._call("graph", "insert_edges", edges)
        self.metrics["cites_edges"] = len(edges)
        return len(edges)

    def _trust(self, row: dict[str, Any]) -> str:
        url = paper_page_url(paper_from_record(row)) or ""
        return page_trust_level(registrable_domain(url) if url else "", url, self.domain_rules)

    def api_calls(self) -> dict[str, int]:
        """Requests sent per API in this search."""
        return dict(self.client.calls)


def ids_from_options(dois: Sequence[str]) -> list[Identifier]:
    """The client's `options.dois` (normalised by `validate_discovery_options`) as ids."""
    return [Identifier("doi", doi, "url") for doi in dois]


def validate_discovery_options(options: dict[str, Any]) -> dict[str, Any]:
    """`options` with `dois` normalised; INVALID_PARAMS for unknown APIs or non-DOIs.

    DOIs arrive as the client copied them: `doi:` and doi.org forms, trailing
    punctuation, Unicode dashes; each is normalised or refused with its position.
    """
    apis = options.get("academic_apis")
    if apis is not None:
        unknown = [a for a in apis if a not in APIS]
        if unknown:
            raise LyraError(
                "INVALID_PARAMS",
                f"unknown academic APIs: {', '.join(unknown)} (available: {', '.join(APIS)})",
                field="options.academic_apis",
            )
    raw = options.get("dois")
    if not raw:
        return options
    dois: list[str] = []
    for i, value in enumerate(raw):
        doi = normalize_explicit_doi(str(value))
        if doi is None:
            raise LyraError(
                "INVALID_PARAMS",
                f"options.dois[{i}] is not a DOI: {str(value)[:100]!r}",
                field="options.dois",
            )
        dois.append(doi)
    return {**options, "dois": list(dict.fromkeys(dois))}


def _representative(members: list[tuple[cit.Candidate, str]]) -> cit.Candidate:
    """One candidate for a paper linked from several anchors: the first link's record,
    completed by the others, influential when any link says so."""
    first = members[0][0]
    paper = first.paper
    for cand, _anchor in members[1:]:
        paper = merge_papers(paper, cand.paper)
    influential = any(cand.is_influential for cand, _anchor in members)
    return replace(first, paper=paper, is_influential=influential)
