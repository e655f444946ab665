"""The evidence steps of a search: the passages chosen across the question's facets,
atomic claims from them, then the stance of every claim against passages of other
sources (ARCHITECTURE §3, issue 12).

Both read and write through the job's actors (``job.ctx.call``); the judging itself is
the InferenceActor's and the rules are pure functions in ``lyra.pipelines.evidence``.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import Counter, deque
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from lyra.jobs.search_context import SearchContext
from lyra.pipelines.errors import DEGRADED_PREFIX
from lyra.pipelines.evidence import research as rs
from lyra.pipelines.evidence.calibration import Calibration
from lyra.pipelines.evidence.claims import has_claim_candidate
from lyra.pipelines.evidence.facets import (
    Facet,
    facet_scores,
    rerank_heads,
    round_robin,
    select_across_facets,
)
from lyra.pipelines.evidence.leftovers import NUMBER_WORDS, asks_only, under_reference_list
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.ranking import seek_primary_scores
from lyra.pipelines.extract.documents import Fragment
from lyra.pipelines.extract.injection import Detection, find_instructions
from lyra.pipelines.net.domains import page_trust_level

log = logging.getLogger(__name__)

# Graph reads a stance stage keeps in flight: the GraphActor's read threads
# (actors/graph.py READ_THREADS), so one crash of it fails a handful of calls, not hundreds.
GRAPH_READS_AT_ONCE = 4
# Claims whose candidate fragments one graph call finds.
STANCE_CLAIMS_PER_CALL = 64
# NLI batches (`inference.nli_batch_size` pairs each) per call to the InferenceActor:
# pairs the lexical rules refute take no model time, and a call of one batch of them was
# mostly its round trip (decision 0111).
STANCE_BATCHES_PER_CALL = 4
# Calls of them in flight at once: the next call waits in the InferenceActor's queue while
# the answer to the last one comes back, so its round trip costs no model time (0112).
STANCE_CALLS_IN_FLIGHT = 2
# Most pairs per claim that the contradiction rules add beside its nearest fragments
# (decision 0104).
SWEPT_PER_CLAIM = 4
# A new claim this close (cosine) to a claim the task already has is the same claim.
SAME_CLAIM_SIMILARITY = 0.92
# Claims asked of each fragment beyond ``search.claims_per_fragment``: they fill what
# budget the search's first claims leave (decision 0075).
SPARE_CLAIMS_PER_FRAGMENT = 4


class EvidenceJob(Protocol):
    """What the steps use of the search job that runs them."""

    ctx: SearchContext
    model_id: str | None
    facets: list[Facet]
    facet_fragments: dict[str, int]
    metrics: dict[str, Any]
    # Claims the task had that this search found again (the same text, or a
    # near-duplicate of it): in its answer's claims with those it adds.
    refound: set[str]

    async def embed_texts(self, texts: list[str]) -> np.ndarray: ...

    async def embed_targets(
        self, target_type: str, rows: list[dict[str, Any]], text_key: str = ...
    ) -> np.ndarray: ...

    def note_detections(self, url: str, detections: list[Detection]) -> None: ...

    def check(self, stage: str) -> None: ...


def same_claim(a: str, b: str) -> bool:
    """Two close claims are the same only if they agree and state the same quantities:
    "X raises Y" and "X does not raise Y" embed almost identically, so similarity alone
    would merge a contradiction; "X cuts Y by about half" says more than "X modestly
    reduces Y" (decision 0098), and merged into it the figure would be lost."""
    return (
        _quantities(a) == _quantities(b)
        and heuristic_nli(a, b).label == "supports"
        and heuristic_nli(b, a).label == "supports"
    )


_QUANTITY = re.compile(rf"\d+(?:[.,]\d+)*|\b(?:{NUMBER_WORDS})\b", re.IGNORECASE)


def _quantities(text: str) -> set[str]:
    return {q.lower() for q in _QUANTITY.findall(text)}


def read_page_ahead(fragments: Sequence[Fragment], question: str) -> None:
    """Read what the passage choice will read of a page's fragments, as the page
    arrives: kept per text, the stage after the last fetch finds it read (decision
    0112)."""
    for f in fragments:
        if f.fragment_type != "heading" and not under_reference_list(f.heading_context, f.text):
            has_claim_candidate(f.text, question)


async def choose_passages(
    job: EvidenceJob,
    fragments: list[dict[str, Any]],
    vecs: np.ndarray,
    facet_vecs: np.ndarray | None,
) -> list[dict[str, Any]]:
    """The passages claims are drawn from, each with the ``_facet`` that chose it.

    Every facet of the question ranks the passages and keeps its own knee; the facets
    then take turns by MMR (pipelines/evidence/facets.py), so no aspect of the question
    is cut away by one ranking's knee. A pulled reranker re-orders each facet's head
    first (decision 0047). Sets ``useful_fragments`` and ``job.facet_fragments``.
    """
    if not fragments:
        return []
    ctx = job.ctx
    s = ctx.settings.search
    # Headings are context for the passages under them, not passages themselves; a
    # reference list's entries name works and state nothing.
    passages = [
        i
        for i, f in enumerate(fragments)
        if f["fragment_type"] != "heading"
        and not under_reference_list(f.get("heading_context"), f["text_content"])
    ]
    keep = passages
    if len(passages) > s.max_passages_per_search:
        # More passages than the budget: those with no sentence that could be a claim
        # (a question, a byline, a caption) would spend it on nothing (decision 0083).
        # Off the event loop: it reads every sentence of every passage (decision 0082).
        keep = await asyncio.to_thread(
            lambda: [
                i for i in passages if has_claim_candidate(fragments[i]["text_content"], ctx.query)
            ]
        )
    fragments = [fragments[i] for i in keep]
    vecs = vecs[keep] if vecs.shape[1] else np.zeros((len(keep), 0), dtype=np.float32)
    if not fragments:
        return []
    texts = [f"{f.get('heading_context') or ''}\n{f['text_content']}" for f in fragments]
    bias = None
    if ctx.options.get("seek_primary"):
        levels = [
            page_trust_level(f["_domain"], f.get("_url"), ctx.domain_rules) for f in fragments
        ]
        bias = seek_primary_scores(np.zeros(len(fragments)), levels)
    passage_vecs = vecs.astype(np.float32) if vecs.shape[1] else None
    rank: dict[str, Any] = {
        "bm25_weight": s.bm25_weight,
        "embedding_weight": s.embedding_weight,
        "bias": bias,
    }

    async def rerank() -> list[dict[int, float]] | None:
        """The pulled reranker's logits for each facet's ``rerank_depth`` best passages
        (one call for every facet), or None when no reranker serves."""
        if s.rerank_depth == 0 or len(texts) < 2:
            return None
        model = await ctx.call("inference", "reranker_model_id")
        if model is None:
            return None
        scores = await asyncio.to_thread(
            facet_scores, job.facets, texts, facet_vecs, passage_vecs, **rank
        )
        heads = rerank_heads(scores, s.rerank_depth)
        pairs = [
            (f.query, texts[j]) for f, head in zip(job.facets, heads, strict=True) for j in head
        ]
        try:
            logits = iter(await ctx.call("inference", "rerank", pairs))
        except Exception as exc:  # the reranker is optional: rank without it, and say so
            log.warning("reranking failed; ranking without it", exc_info=True)
            ctx.warnings.append(
                f"{DEGRADED_PREFIX}reranker: {model} failed ({type(exc).__name__}); "
                "passages ranked without it"
            )
            return None
        job.metrics["reranker"] = model
        job.metrics["reranked_pairs"] = len(pairs)
        return [{j: next(logits) for j in head} for head in heads]

    # Ranking every facet over every passage takes 120 ms for 20 real pages on an idle
    # core: off the event loop, which meanwhile answers tool calls (decision 0082).
    selection = await asyncio.to_thread(
        select_across_facets,
        job.facets,
        texts,
        facet_vecs,
        passage_vecs,
        budget=s.max_passages_per_search,
        min_k=s.kneedle_min,
        max_k=s.kneedle_max,
        rerank=await rerank(),
        **rank,
    )
    useful = [
        {**fragments[i], "_facet": selection.facet_of[i], "_reserve": i in selection.reserve}
        for i in selection.indices
    ]
    job.metrics["useful_fragments"] = len(useful)
    job.facet_fragments = selection.per_facet
    return useful


def _by_facet(
    job: EvidenceJob, by_frag: dict[str, dict[str, Any]], claims: list[dict[str, Any]]
) -> list[list[dict[str, Any]]]:
    """``claims`` grouped by the facet that chose their passage, best first in each: the
    cap takes each facet's best in turn, so a facet with many passages cannot crowd out
    the others."""
    groups: dict[str, list[dict[str, Any]]] = {f.name: [] for f in job.facets}
    for c in claims:
        groups.setdefault(by_frag[c["fragment_id"]].get("_facet", ""), []).append(c)
    for group in groups.values():
        group.sort(key=lambda c: -float(c["confidence"]))
    return list(groups.values())


def _tier(claim: dict[str, Any]) -> str:
    """A passage's best claim ("lead"), its other first claims, or a spare one."""
    return "lead" if claim["_lead"] else "spare" if claim["_spare"] else "first"


async def _distinct(
    job: EvidenceJob,
    ordered: list[dict[str, Any]],
    existing: list[dict[str, Any]],
    budget: int,
) -> list[dict[str, Any]]:
    """The first ``budget`` claims of ``ordered`` that are neither near-duplicates of one
    taken before them nor of a claim the task has (``existing``).

    Merged before the budget is counted, not after: a duplicate no longer leaves its
    place empty while further claims wait (decision 0083). Claims are embedded a
    budget's worth at a time, so the usual search, with few duplicates, embeds about
    as many as it keeps. Without an embedding model nothing is merged.
    """
    ctx = job.ctx
    if job.model_id is None:
        return ordered[:budget]
    existing_ids = sorted(e["id"] for e in existing)
    existing_text = {e["id"]: e["claim_text"] for e in existing}
    kept: list[dict[str, Any]] = []
    kept_vecs: list[np.ndarray] = []
    start = 0
    while len(kept) < budget and start < len(ordered):
        chunk = ordered[start : start + budget - len(kept)]
        start += len(chunk)
        vecs = await job.embed_texts([c["text"] for c in chunk])
        for c, v in zip(chunk, vecs, strict=True):
            if any(
                float(v @ kv) >= SAME_CLAIM_SIMILARITY and same_claim(c["text"], kc["text"])
                for kc, kv in zip(kept, kept_vecs, strict=True)
            ):
                continue
            if existing_ids:
                near = await ctx.call(
                    "graph",
                    "vector_search",
                    v.tolist(),
                    "claim",
                    job.model_id,
                    3,
                    SAME_CLAIM_SIMILARITY,
                    existing_ids,
                )
                same = next(
                    (n[0] for n in near if same_claim(c["text"], existing_text[n[0]])), None
                )
                if same is not None:
                    job.refound.add(same)
                    continue
            kept.append(c)
            kept_vecs.append(v)
    return kept


async def extract_claims(job: EvidenceJob, useful: list[dict[str, Any]]) -> None:
    """Claims of the chosen passages (``useful``, each with the ``_facet`` that chose it),
    new to the task and not near-duplicates, capped per search, facet by facet; stored
    with their origin edges and vectors. Sets the job's claim metrics."""
    ctx = job.ctx
    s = ctx.settings.search
    # The facet that picked a passage focuses the claims drawn from it; the
    # question's own facet needs no focus beyond the question.
    focus = {f.name: f.query for f in job.facets if f.origin == "standard"}
    got = await ctx.call(
        "inference",
        "extract_claims",
        [
            {"id": f["id"], "text": f["text_content"], "focus": focus.get(f["_facet"], "")}
            for f in useful
        ],
        ctx.query,
        ctx.task["tag"],
        s.claims_per_fragment + SPARE_CLAIMS_PER_FRAGMENT,
    )
    ctx.warnings.extend(got["warnings"])
    by_frag = {f["id"]: f for f in useful}
    extracted = []
    # Fragments are masked at extraction and both claim paths reject instructions;
    # this last check holds whatever the inference actor's path did.
    found = await asyncio.to_thread(lambda: [find_instructions(c["text"]) for c in got["claims"]])
    for c, names in zip(got["claims"], found, strict=True):
        if names:
            url = by_frag[c["fragment_id"]]["_url"]
            job.note_detections(url, [Detection("instruction", f"{n} in claim") for n in names])
            continue
        extracted.append(c)
    # Each fragment's claims come best first: the first ``claims_per_fragment`` are its
    # own, the rest spare (decision 0075).
    taken: dict[str, int] = {}
    for c in extracted:
        c["_lead"] = taken.get(c["fragment_id"], 0) == 0
        c["_spare"] = taken.get(c["fragment_id"], 0) >= s.claims_per_fragment
        taken[c["fragment_id"]] = taken.get(c["fragment_id"], 0) + 1
    # Rejected claims too: a claim a person rejected is not extracted again, nor a
    # paraphrase of it.
    existing = await ctx.call("graph", "claims_for_task", ctx.task["id"], None)
    existing_ids = {c["id"] for c in existing}
    candidates: list[dict[str, Any]] = []
    seen_ids: set[str] = set()
    for c in extracted:
        cid = rs.claim_id(ctx.task["id"], c["text"])
        if cid in existing_ids:
            job.refound.add(cid)
            continue
        if cid in seen_ids:
            continue
        seen_ids.add(cid)
        candidates.append({**c, "id": cid})
    # Every chosen passage's best claim comes first, facet by facet, the reserve
    # passages' (picked once half the passage budget was used, decision 0094) after the
    # others'; then the passages' other first claims, then their spare ones, which fill
    # whatever budget is left: a paragraph holding three findings keeps its third while
    # the search has room, but not before every other passage has given one (0096).
    ordered = []
    for tier in ("lead", "first", "spare"):
        for reserve in (False, True):
            group = [
                c
                for c in candidates
                if by_frag[c["fragment_id"]].get("_reserve", False) is reserve and _tier(c) == tier
            ]
            ordered += round_robin(_by_facet(job, by_frag, group), len(group))
    candidates = await _distinct(job, ordered, existing, s.max_claims_per_search)
    # Extracted: every first claim, and the spare ones the search took (novelty, the
    # share of them new to the task, then means what it meant before spares).
    job.metrics["claims_extracted"] = sum(not c["_spare"] for c in extracted) + sum(
        c["_spare"] for c in candidates
    )
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    version, calibrate = await active_calibration(ctx, "claims")
    claim_rows = [
        {
            "id": c["id"],
            "task_id": ctx.task["id"],
            "search_id": ctx.search_id,
            "claim_text": c["text"],
            "created_at": now,
            "extraction_method": c["method"],
            "extraction_confidence": (
                calibrate.apply_one(c["confidence"])
                if version and c["confidence"] is not None
                else c["confidence"]
            ),
            "extraction_raw_confidence": c["confidence"],
            "calibration_version": version or None,
            "status": "active",
        }
        for c in candidates
    ]
    await ctx.call("graph", "insert_claims", claim_rows)
    origin_rows = []
    for c in candidates:
        frag = by_frag[c["fragment_id"]]
        origin_rows.append(
            {
                "id": rs.edge_id(c["fragment_id"], c["id"], "origin"),
                "task_id": ctx.task["id"],
                "source_type": "fragment",
                "source_id": c["fragment_id"],
                "target_type": "claim",
                "target_id": c["id"],
                "relation": "origin",
                "nli_label": None,
                "nli_confidence": None,
                "source_trust_level": page_trust_level(
                    frag["_domain"], frag.get("_url"), ctx.domain_rules
                ),
                "target_trust_level": None,
                "method": c["method"],
            }
        )
    await ctx.call("graph", "insert_edges", origin_rows)
    await job.embed_targets(
        "claim",
        [{"id": r["id"], "claim_text": r["claim_text"]} for r in claim_rows],
        text_key="claim_text",
    )
    job.metrics["new_claims"] = len(claim_rows)
    per_facet: dict[str, int] = {}
    for c in candidates:
        name = by_frag[c["fragment_id"]].get("_facet", "")
        per_facet[name] = per_facet.get(name, 0) + 1
    job.metrics["facets"] = [
        {
            "name": f.name,
            "query": f.query,
            "fragments": job.facet_fragments.get(f.name, 0),
            "new_claims": per_facet.get(f.name, 0),
        }
        for f in job.facets
    ]


async def active_calibration(ctx: SearchContext, source: str) -> tuple[int, Calibration]:
    """The calibration version the calibrate tool made active for ``source`` (0: none)."""
    maps = await ctx.call("graph", "calibration_maps")
    entry = maps[source]
    return int(entry["version"]), Calibration.from_json(entry["calibration"])


def _can_bear(fragment: dict[str, Any]) -> bool:
    """A heading or a title states nothing: it can neither support nor refute; nor can a
    reference list's entry or a question standing alone."""
    return (
        fragment.get("fragment_type") != "heading"
        and not under_reference_list(fragment.get("heading_context"), fragment["text"])
        and not asks_only(fragment["text"])
    )


async def _swept_pairs(
    ctx: SearchContext,
    claims: list[dict[str, Any]],
    frag_ids: list[str],
    meta: dict[str, dict[str, Any]],
    taken: set[tuple[str, str]],
    crowded: dict[str, list[str]],
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Pairs of a claim and a fragment of another page that the contradiction rules read
    as disagreeing, however far apart the embedder puts them (`stance_sweep`, decision
    0104), or near it but crowded out of its candidates (``crowded``: claim id ->
    fragment ids; the rules read every sentence of these, decision 0137): at most
    `SWEPT_PER_CLAIM` a claim, other domains first, none judged before or already chosen
    (``taken``: (fragment id, claim id))."""
    rest = [fid for fid in frag_ids if fid not in meta]
    texts = dict(meta)
    if rest:
        texts.update(await ctx.call("graph", "texts_for", "fragment", rest))
    usable = {fid: texts[fid] for fid in sorted(texts) if _can_bear(texts[fid])}
    # Neither a claim's own page nor a pair already taken is confirmed by the rules.
    on_page: dict[str, set[str]] = {}
    for fid, m in usable.items():
        on_page.setdefault(m["page_id"], set()).add(fid)
    paired: dict[str, set[str]] = {}
    for fid, claim_id in taken:
        paired.setdefault(claim_id, set()).add(fid)
    left_out = {
        c["id"]: on_page.get(c.get("origin_page_id") or "", set()) | paired.get(c["id"], set())
        for c in claims
    }
    hits = await ctx.call(
        "inference",
        "contradiction_candidates",
        [(c["id"], c["claim_text"]) for c in claims],
        {fid: m["text"] for fid, m in usable.items()},
        left_out,
        crowded,
    )
    pairs = []
    for claim in claims:
        extra = hits.get(claim["id"], [])
        extra.sort(key=lambda fid: usable[fid]["domain"] == claim.get("source_domain"))
        pairs += [(claim, usable[fid]) for fid in extra[:SWEPT_PER_CLAIM]]
    return pairs


def _shortest_first(
    pairs: list[tuple[dict[str, Any], dict[str, Any]]],
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Shortest first: each batch then pads to pairs of about its own length. Sent in
    claim order, a batch padded every pair to its longest fragment, and real pages'
    fragments range from a line to 1,200 characters: up to 40 % of the NLI time was
    padding. The order is the pairs' own (texts, not ids): int8 models judge each pair
    alone (decision 0039), but a pulled one stored with external data (> 2 GiB) keeps
    per-batch activation scales (decision 0035), and a replay then meets the same
    batch-mates."""
    return sorted(
        pairs,
        key=lambda p: (
            len(p[1]["text"]) + len(p[0]["claim_text"]),
            p[0]["claim_text"],
            p[1]["text"],
        ),
    )


async def _judged(
    job: EvidenceJob, pairs: list[tuple[dict[str, Any], dict[str, Any]]], done: int, total: int
) -> list[dict[str, Any]]:
    """The InferenceActor's stance of each (claim, fragment) pair, `STANCE_BATCHES_PER_CALL`
    batches a call, `STANCE_CALLS_IN_FLIGHT` calls at once; progress counts from ``done``
    of ``total``."""
    ctx = job.ctx
    per_call = STANCE_BATCHES_PER_CALL * ctx.settings.inference.nli_batch_size
    results: list[dict[str, Any]] = []
    asked: deque[asyncio.Future[list[dict[str, Any]]]] = deque()

    async def answered() -> None:
        results.extend(await asked.popleft())
        judged = done + len(results)
        ctx.progress(
            "stance",
            0.7 + 0.25 * judged / max(total, judged),
            f"judged {judged}/{max(total, judged)} claim-fragment pairs",
        )

    try:
        for start in range(0, len(pairs), per_call):
            job.check("stance")
            chunk = [(f["text"], c["claim_text"]) for c, f in pairs[start : start + per_call]]
            asked.append(asyncio.ensure_future(ctx.call("inference", "nli", chunk)))
            if len(asked) == STANCE_CALLS_IN_FLIGHT:
                await answered()
        while asked:
            await answered()
    finally:
        for call in asked:  # a stop, or a call that failed: none is left running
            call.cancel()
    return results


async def judge_stance(job: EvidenceJob) -> None:
    """Each claim of the task against its top fragments of other pages (not yet judged),
    in batches through the InferenceActor; the edges stored. Sets ``edges_added``."""
    ctx = job.ctx
    s = ctx.settings.search
    if job.model_id is None:
        ctx.warnings.append("stance skipped: no embedding model to find candidate fragments")
        return
    task_id = ctx.task["id"]
    claims, frag_ids, judged_pairs = await asyncio.gather(
        ctx.call("graph", "claim_confidences", task_id),
        ctx.call("graph", "fragment_ids_for_task", task_id),
        ctx.call("graph", "existing_stance_pairs", task_id),
    )
    if not claims:
        return
    # In claim-text order, not id order: ids carry the task.
    claims.sort(key=lambda c: (c["claim_text"], c["id"]))
    judged = {tuple(p) for p in judged_pairs}
    claim_vecs = await ctx.call(
        "graph", "embeddings_for", "claim", job.model_id, [c["id"] for c in claims]
    )

    # The claims' candidates in a few graph calls, not two per claim: one search per
    # chunk of claims (the task's fragment ids sent once each), then one read of the
    # texts of every hit. Chunks go side by side, as many as the graph has read threads
    # (decision 0026), so a crash of it fails a handful of calls.
    with_vec = [c for c in claims if claim_vecs.get(c["id"]) is not None]
    chunks = [
        with_vec[i : i + STANCE_CLAIMS_PER_CALL]
        for i in range(0, len(with_vec), STANCE_CLAIMS_PER_CALL)
    ]
    reads = asyncio.Semaphore(GRAPH_READS_AT_ONCE)

    async def search(chunk: list[dict[str, Any]]) -> list[list[tuple[str, float]]]:
        async with reads:
            got: list[list[tuple[str, float]]] = await ctx.call(
                "graph",
                "vector_search_many",
                [claim_vecs[c["id"]] for c in chunk],
                "fragment",
                job.model_id,
                s.stance_candidates * 4,
                s.stance_min_similarity,
                frag_ids,
            )
            return got

    hits = [h for per_chunk in await asyncio.gather(*map(search, chunks)) for h in per_chunk]
    hit_ids = sorted({fid for per_claim in hits for fid, _ in per_claim})
    meta = await ctx.call("graph", "texts_for", "fragment", hit_ids) if hit_ids else {}
    # A heading or a title states nothing: it can neither support nor refute; nor can a
    # reference list's entry or a question standing alone. Decided once per fragment.
    usable = {fid for fid, m in meta.items() if _can_bear(m)}
    # Each candidate's similarity gains for the claim's rarer words it says again.
    keys, claim_keys = await asyncio.to_thread(
        lambda: (
            {fid: rs.word_keys(meta[fid]["text"]) for fid in usable},
            [rs.word_keys(c["claim_text"]) for c in with_vec],
        )
    )
    df = Counter(k for words in keys.values() for k in words)
    found = []
    crowded: dict[str, list[str]] = {}
    for claim, words, per_claim in zip(with_vec, claim_keys, hits, strict=True):
        near = [
            (fid, sim)
            for fid, sim in per_claim
            if fid in usable and (fid, claim["id"]) not in judged
        ]
        bearing = rs.lexical_bearing(words, [keys[fid] for fid, _ in near], df, len(keys))
        cands = [
            rs.Candidate(
                fid, sim + rs.LEXICAL_WEIGHT * b, meta[fid]["domain"], meta[fid]["page_id"]
            )
            for (fid, sim), b in zip(near, bearing, strict=True)
        ]
        origin = claim.get("origin_page_id")
        chosen = rs.order_stance_candidates(
            cands,
            claim.get("source_domain") or "",
            {origin} if origin else set(),
            s.stance_candidates,
        )
        found.append([(claim, meta[c.fragment_id]) for c in chosen])
        # the rest of its near fragments: the contradiction rules read them too (0137)
        taken_ids = {c.fragment_id for c in chosen}
        crowded[claim["id"]] = [c.fragment_id for c in cands if c.fragment_id not in taken_ids]
    # The nearest fragments are judged while the contradiction rules sweep the task's
    # other fragments in this process (decision 0111); the swept pairs are judged last.
    nearest = _shortest_first([pair for per_claim in found for pair in per_claim])
    sweep = asyncio.create_task(
        _swept_pairs(
            ctx,
            claims,
            frag_ids,
            meta,
            judged | {(f["id"], c["id"]) for c, f in nearest},
            crowded,
        )
    )
    try:
        results = await _judged(job, nearest, 0, len(nearest))
        swept = _shortest_first(await sweep)
    finally:
        sweep.cancel()
    results += await _judged(job, swept, len(nearest), len(nearest) + len(swept))
    pairs = nearest + swept
    if not pairs:
        return
    # The calibrated probability is what the edge carries (and Bayesian confidence adds);
    # the model's own is kept beside it with the version that mapped it.
    version, calibrate = await active_calibration(ctx, "nli")
    edges = []
    for (claim, frag), res in zip(pairs, results, strict=True):
        edges.append(
            {
                "id": rs.edge_id(frag["id"], claim["id"], "stance"),
                "task_id": task_id,
                "source_type": "fragment",
                "source_id": frag["id"],
                "target_type": "claim",
                "target_id": claim["id"],
                "relation": res["label"],
                "nli_label": res["label"],
                "nli_confidence": (
                    calibrate.apply_one(res["confidence"]) if version else res["confidence"]
                ),
                "nli_raw_confidence": res["confidence"],
                "calibration_version": version or None,
                "source_trust_level": page_trust_level(
                    frag["domain"], frag.get("url"), ctx.domain_rules
                ),
                "target_trust_level": claim.get("source_trust_level"),
                "method": res["method"],
                "nli_model": res.get("model"),
            }
        )
    await ctx.call("graph", "insert_edges", edges)
    job.metrics["edges_added"] = len(edges)
