"""The stance step sends its claim-fragment pairs shortest first, so each NLI batch pads
to pairs of about its own length, and every edge still carries its own pair's judgment.
A call to the InferenceActor carries `STANCE_BATCHES_PER_CALL` batches."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from lyra.jobs.evidence_steps import judge_stance
from lyra.pipelines.evidence import research as rs
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates
from lyra.storage.graph_store import GraphStore
from tests.conftest import make_settings, step_context

CLAIMS = [
    "Coffee raises blood pressure.",
    "Green tea lowers LDL cholesterol in adults.",
    "Daily walking improves sleep duration.",
]
# Fragment i of length about 40 + 60·i characters; every claim meets every fragment.
FRAGMENTS = [
    "Coffee raises blood pressure." + " In one trial of adults it did." * i for i in range(7)
] + [
    "Coffee does not raise blood pressure." + " Regular drinkers saw no change." * i
    for i in range(7)
]


def _stance_run(
    lyra_home: Path, claims: list[str]
) -> tuple[
    list[list[tuple[str, str]]], list[dict[str, Any]], list[tuple[int, list[str]]], list[int]
]:
    """judge_stance over the claims (in the order given) against every fragment, with the
    graph's reads answered from the lists above; the NLI batches it sent, the edges, and
    each candidate search it asked the graph for (claims in it, fragment ids allowed),
    and how many NLI calls were open as each began."""
    claim_rows = [
        {"id": f"c{CLAIMS.index(t)}", "claim_text": t, "origin_page_id": "p-own",
         "source_domain": "own.example", "source_trust_level": "UNVERIFIED"}
        for t in claims
    ]  # fmt: skip
    meta = {
        f"f{i}": {"id": f"f{i}", "text": text, "domain": f"site{i}.example",
                  "page_id": f"p{i}", "fragment_type": "paragraph",
                  "url": f"http://site{i}.example/a"}
        for i, text in enumerate(FRAGMENTS)
    }  # fmt: skip
    batches: list[list[tuple[str, str]]] = []
    searches: list[tuple[int, list[str]]] = []
    edges: list[dict[str, Any]] = []
    # NLI calls asked and not yet answered, each time one begins
    open_calls: list[int] = []
    answered: list[int] = []

    async def call(actor: str, method: str, *args: Any) -> Any:
        if (actor, method) == ("graph", "claim_confidences"):
            return [dict(c) for c in claim_rows]
        if (actor, method) == ("graph", "fragment_ids_for_task"):
            return list(meta)
        if (actor, method) == ("graph", "existing_stance_pairs"):
            return []
        if (actor, method) == ("graph", "embeddings_for"):
            return {c["id"]: [1.0, 0.0] for c in claim_rows}
        if (actor, method) == ("graph", "vector_search_many"):
            searches.append((len(args[0]), list(args[-1])))
            return [[(fid, 0.9) for fid in meta] for _ in args[0]]
        if (actor, method) == ("graph", "texts_for"):
            return {fid: meta[fid] for fid in args[1]}
        if (actor, method) == ("graph", "calibration_maps"):
            return {"nli": {"version": 0, "calibration": {"method": "identity"}}}
        if (actor, method) == ("inference", "nli"):
            batches.append(list(args[0]))
            open_calls.append(len(batches) - len(answered))
            await asyncio.sleep(0)  # the actor's queue: the others are asked meanwhile
            answered.append(len(args[0]))
            return [
                {"label": r.label, "confidence": r.confidence, "method": "heuristic"}
                for r in (heuristic_nli(p, c) for p, c in args[0])
            ]
        if (actor, method) == ("inference", "contradiction_candidates"):
            return contradiction_candidates(*args)
        if (actor, method) == ("graph", "insert_edges"):
            edges.extend(args[0])
            return len(args[0])
        raise AssertionError(f"unexpected call {actor}.{method}")

    settings = make_settings(lyra_home)
    settings = settings.model_copy(
        update={
            "search": settings.search.model_copy(update={"stance_candidates": len(FRAGMENTS)}),
            "inference": settings.inference.model_copy(update={"nli_batch_size": 8}),
        }
    )
    ctx = step_context(settings, "coffee and blood pressure", call)
    job = SimpleNamespace(ctx=ctx, model_id="test-embedder", metrics={}, check=lambda _: None)
    asyncio.run(judge_stance(job))  # type: ignore[arg-type]
    return batches, edges, searches, open_calls


def test_pairs_go_to_the_judge_shortest_first_and_edges_keep_their_own_judgment(
    lyra_home: Path,
) -> None:
    batches, edges, searches, open_calls = _stance_run(lyra_home, CLAIMS)

    # One graph call finds every claim's candidates, the task's fragments sent once.
    assert searches == [(3, [f"f{i}" for i in range(len(FRAGMENTS))])]
    sent = [pair for batch in batches for pair in batch]
    # 3 claims x 14 fragments, four NLI batches of 8 a call (decision 0111)
    assert [len(b) for b in batches] == [32, 10]
    # The second call is asked before the first is answered, in the actor's queue while
    # the first answer comes back (decision 0112).
    assert open_calls == [1, 2]
    lengths = [len(p) + len(c) for p, c in sent]
    assert lengths == sorted(lengths)
    assert sorted(sent) == sorted((f, c) for c in CLAIMS for f in FRAGMENTS)
    # Every edge is its own pair's judgment, whatever batch it was judged in.
    text_of = {f"f{i}": t for i, t in enumerate(FRAGMENTS)}
    claim_of = {f"c{i}": t for i, t in enumerate(CLAIMS)}
    assert len(edges) == 42
    for edge in edges:
        alone = heuristic_nli(text_of[edge["source_id"]], claim_of[edge["target_id"]])
        assert (edge["relation"], edge["nli_raw_confidence"]) == (alone.label, alone.confidence)
        assert edge["id"] == rs.edge_id(edge["source_id"], edge["target_id"], "stance")
    # The fragments that say the opposite of the first claim refute it.
    refuted = {
        e["source_id"] for e in edges if e["target_id"] == "c0" and e["relation"] == "refutes"
    }
    assert refuted == {f"f{i}" for i in range(7, 14)}


def test_the_same_pairs_meet_the_same_batches_whatever_order_the_claims_come_in(
    lyra_home: Path,
) -> None:
    """A replay judges the same pairs in the same batches (decision 0035)."""
    first, *_ = _stance_run(lyra_home, CLAIMS)
    again, *_ = _stance_run(lyra_home, list(reversed(CLAIMS)))
    assert again == first


def test_many_searches_in_one_call_answer_as_one_call_each(tmp_path: Path) -> None:
    """`vector_search_many` is `vector_search` per query vector: the allowed ids, the
    threshold and a person's rejection of a claim apply to each alike."""
    home = tmp_path / "home"
    home.mkdir()
    store = GraphStore(make_settings(home, corpus=None))
    store.create_task("t1", "q", {})
    store.insert_claims(
        [{"id": f"c{i}", "task_id": "t1", "claim_text": f"Claim {i}."} for i in range(6)]
    )
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(6, 8)).astype(np.float32)
    store.put_embeddings(
        "claim", "m", [(f"c{i}", f"h{i}", v.tolist()) for i, v in enumerate(vectors)]
    )
    store._con.execute("UPDATE claims SET status = 'rejected' WHERE id = 'c2'")
    queries = [vectors[0].tolist(), vectors[2].tolist(), (-vectors[4]).tolist()]
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    for allowed in (None, ["c0", "c2", "c3", "c4"]):
        many = store.vector_search_many(queries, "claim", "m", 3, -0.5, allowed)
        # Each query's hits are the brute-force cosine top 3 of the claims it may find.
        may = [i for i in range(6) if i != 2 and (allowed is None or f"c{i}" in allowed)]
        for query, hits in zip(queries, many, strict=True):
            q = np.asarray(query) / np.linalg.norm(query)
            cos = {f"c{i}": float(unit[i] @ q) for i in may}
            best = sorted((c for c in cos if cos[c] >= -0.5), key=lambda c: -cos[c])[:3]
            assert [cid for cid, _ in hits] == best
            assert [round(s, 5) for _, s in hits] == [round(cos[c], 5) for c in best]
    assert many[0][0][0] == "c0"  # a vector finds itself first
    assert store.vector_search_many([], "claim", "m", 3, -0.5) == []


def test_every_other_source_is_heard_before_one_is_heard_twice() -> None:
    """Decision 0096: the claim's candidates are each other domain's best fragment first
    (by similarity), then each one's second; the claim's own domain comes last and its
    own page never."""
    c = rs.Candidate
    got = rs.order_stance_candidates(
        [
            c("a1", 0.90, "a.example", "pa"),
            c("a2", 0.85, "a.example", "pa"),
            c("a3", 0.80, "a.example", "pa2"),
            c("b1", 0.70, "b.example", "pb"),
            c("b2", 0.60, "b.example", "pb"),
            c("faq", 0.50, "faq.example", "pf"),
            c("own", 0.95, "own.example", "po2"),
            c("origin", 0.99, "own.example", "po"),
        ],
        "own.example",
        {"po"},
        6,
    )
    assert [x.fragment_id for x in got] == ["a1", "b1", "faq", "a2", "b2", "a3"]


def test_a_fragment_on_the_claims_rarer_words_is_its_sources_best() -> None:
    """Decision 0099 (tests/corpora/fish_oil): the embedding read the thread's fragment
    that said "fish oil" twice as its best on a claim about atrial fibrillation; the
    claim's rarer words, weighed by how few fragments hold them, put the one on atrial
    fibrillation first."""
    claim = "Fish oil does not increase the risk of atrial fibrillation."
    fragments = [
        "First: fish oil means two different things, the fish oil on the shelf and a drug.",
        "In the high-dose trials, treatment raised the risk of atrial fibrillation.",
        "Fish oil is sold in capsules.",
        "Eating oily fish twice a week is what most guidelines say.",
    ]
    keys = [rs.word_keys(f) for f in fragments]
    df = Counter(k for words in keys for k in words)
    bearing = rs.lexical_bearing(rs.word_keys(claim), keys, df, len(keys))
    assert [round(b, 2) for b in bearing] == [0.19, 0.81, 0.19, 0.06]
    similarity = [0.57, 0.49, 0.50, 0.30]
    scored = [s + rs.LEXICAL_WEIGHT * b for s, b in zip(similarity, bearing, strict=True)]
    got = rs.order_stance_candidates(
        [rs.Candidate(f"f{i}", score, "thread.example", "p") for i, score in enumerate(scored)],
        "faq.example",
        set(),
        1,
    )
    assert [c.fragment_id for c in got] == ["f1"]
