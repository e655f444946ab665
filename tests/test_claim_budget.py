"""A search's claims: every fragment's best first, facet by facet (decision 0096), then
each fragment's other first claims; a fragment's further findings fill the budget those
leave (decision 0075); near-duplicates are merged before the budget is counted (decision
0083)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from lyra.jobs.evidence_steps import SPARE_CLAIMS_PER_FRAGMENT, extract_claims, same_claim
from lyra.pipelines.evidence import research as rs
from lyra.pipelines.evidence.facets import Facet
from tests.conftest import make_settings, step_context

# One dense paragraph with five findings (best first, as the extractor ranks them) and
# two paragraphs with one each, on two facets.
DENSE = [
    "Melatonin's half-life is 40 to 60 minutes.",
    "Doses of 0.5 to 5 mg are typical for adults.",
    "It should not be taken with alcohol.",
    "Next-day drowsiness was reported by 8 percent of users.",
    "Children should take it only under a doctor's care.",
]
SAFETY = "Melatonin caused no dependence in a 12-month trial."
EFFICACY = "Melatonin shortened sleep onset by 7 minutes."


def _run(
    lyra_home: Path,
    budget: int,
    found: dict[str, list[tuple[str, float]]] | None = None,
    vectors: dict[str, list[float]] | None = None,
    existing: list[dict[str, Any]] | None = None,
    refound: set[str] | None = None,
    reserve: frozenset[str] = frozenset(),
) -> tuple[list[str], int, int]:
    """extract_claims over the three fragments (two first claims each); the stored claim
    texts, the number of claims it asked the extractor for per fragment, and its
    claims_extracted metric. With ``vectors``, each claim text's embedding (an
    embedding model is loaded and near-duplicates are merged); else none is. ``existing``:
    the task's claims before (id, claim_text, and the vector the graph finds it by);
    ``refound`` receives the ids of those the search found again; ``reserve``: the
    fragments picked once half the passage budget was used."""
    asked: list[int] = []
    stored: list[dict[str, Any]] = []
    found = found or {
        "f-dense": [(t, 0.9 - 0.01 * i) for i, t in enumerate(DENSE)],
        "f-safety": [(SAFETY, 0.7)],
        "f-efficacy": [(EFFICACY, 0.75)],
    }
    embedded: list[int] = []

    async def call(actor: str, method: str, *args: Any) -> Any:
        if (actor, method) == ("inference", "extract_claims"):
            fragments, _question, _tag, per_fragment = args
            asked.append(per_fragment)
            claims = [
                {"fragment_id": f["id"], "text": text, "confidence": conf, "method": "extractive"}
                for f in fragments
                for text, conf in found[f["id"]][:per_fragment]
            ]
            return {"claims": claims, "warnings": []}
        if (actor, method) == ("graph", "claims_for_task"):
            return existing or []
        if (actor, method) == ("graph", "vector_search"):
            vector, *_ = args
            return [(e["id"], 1.0) for e in existing or [] if np.dot(vector, e["vector"]) >= 0.99]
        if (actor, method) == ("graph", "calibration_maps"):
            return {"claims": {"version": 0, "calibration": {"method": "identity"}}}
        if (actor, method) == ("graph", "insert_claims"):
            stored.extend(args[0])
            return len(args[0])
        if (actor, method) == ("graph", "insert_edges"):
            return len(args[0])
        raise AssertionError(f"unexpected call {actor}.{method}")

    settings = make_settings(lyra_home)
    settings = settings.model_copy(
        update={
            "search": settings.search.model_copy(
                update={"max_claims_per_search": budget, "claims_per_fragment": 2}
            )
        }
    )
    ctx = step_context(settings, "Is melatonin safe for sleep?", call)

    async def embed_targets(*_: Any, **__: Any) -> np.ndarray:
        return np.zeros((0, 2))

    async def embed_texts(texts: list[str]) -> np.ndarray:
        assert vectors is not None
        embedded.append(len(texts))
        return np.array([vectors[t] for t in texts], dtype=np.float32)

    facets = [
        Facet("question", "Is melatonin safe for sleep?", "question"),
        Facet("safety", "melatonin adverse effects safety", "standard"),
    ]
    job = SimpleNamespace(
        ctx=ctx, model_id=None if vectors is None else "test-embedder", facets=facets,
        facet_fragments={}, metrics={}, refound=set(), embed_targets=embed_targets,
        embed_texts=embed_texts,
        check=lambda _: None,
    )  # fmt: skip
    useful = [
        {"id": "f-dense", "text_content": " ".join(DENSE), "_facet": "question",
         "_domain": "a.example", "_url": "http://a.example/"},
        {"id": "f-safety", "text_content": SAFETY, "_facet": "safety",
         "_domain": "b.example", "_url": "http://b.example/"},
        {"id": "f-efficacy", "text_content": EFFICACY, "_facet": "question",
         "_domain": "c.example", "_url": "http://c.example/"},
    ]  # fmt: skip
    for fragment in useful:
        fragment["_reserve"] = fragment["id"] in reserve
    asyncio.run(extract_claims(job, useful))  # type: ignore[arg-type]
    if refound is not None:
        refound |= job.refound
    return [r["claim_text"] for r in stored], asked[0], job.metrics["claims_extracted"]


def test_a_dense_paragraph_keeps_every_finding_while_the_search_has_room(
    lyra_home: Path,
) -> None:
    texts, asked, extracted = _run(lyra_home, budget=40)

    assert asked == 2 + SPARE_CLAIMS_PER_FRAGMENT
    # Each fragment's best, facet by facet; the dense paragraph's second; then its other
    # three.
    assert texts == [DENSE[0], SAFETY, EFFICACY, DENSE[1], *DENSE[2:]]
    # Extracted: the four first claims and the three spare ones taken.
    assert extracted == 7


def test_first_claims_of_every_fragment_come_before_any_fragment_gives_a_third(
    lyra_home: Path,
) -> None:
    """With room for five claims, the third and later findings of the dense paragraph
    wait for every fragment's first two: one of them fits."""
    texts, _, extracted = _run(lyra_home, budget=5)

    assert texts == [DENSE[0], SAFETY, EFFICACY, DENSE[1], DENSE[2]]
    # The two spare findings left out were never the search's: novelty does not count
    # them as claims it found and did not keep.
    assert extracted == 5


def test_a_reserve_passage_gives_its_best_after_every_other_passages_best(
    lyra_home: Path,
) -> None:
    """A passage picked once half the passage budget was used (decision 0094): its best
    claim comes after every other passage's best, and before any passage's second
    (decision 0096: a planted corpus's alternatives were reserve passages whose one
    finding each lost its place to a dense paragraph's second and third); its further
    claims come after every other passage's."""
    reserve = frozenset({"f-dense"})
    texts, _, _ = _run(lyra_home, budget=40, reserve=reserve)
    assert texts == [EFFICACY, SAFETY, DENSE[0], DENSE[1], *DENSE[2:]]
    full, _, _ = _run(lyra_home, budget=2, reserve=reserve)
    assert full == [EFFICACY, SAFETY]


# The dense paragraph's second sentence says its first again, in other words.
SAME_AGAIN = "Melatonin's half-life is 40 to 60 minutes in adults."


def test_a_near_duplicate_does_not_take_a_place_in_the_budget(lyra_home: Path) -> None:
    """Merged before the budget is counted: with room for four claims, the duplicate of
    the first is dropped and the next claim in line takes its place (before decision
    0083 the duplicate took a place and the search kept three)."""
    found = {
        "f-dense": [(DENSE[0], 0.9), (SAME_AGAIN, 0.89), *[(t, 0.8) for t in DENSE[1:3]]],
        "f-safety": [(SAFETY, 0.7)],
        "f-efficacy": [(EFFICACY, 0.75)],
    }
    one, other = [1.0, 0.0], [0.0, 1.0]
    vectors = {DENSE[0]: one, SAME_AGAIN: one, SAFETY: other, EFFICACY: other}
    vectors |= {t: other for t in DENSE[1:]}
    texts, _, extracted = _run(lyra_home, budget=4, found=found, vectors=vectors)

    assert texts == [DENSE[0], SAFETY, EFFICACY, DENSE[1]]
    assert extracted == 5  # four first claims, and the one spare the search took


def test_claims_the_task_had_are_found_again_not_added(lyra_home: Path) -> None:
    """A later search of a task that re-reads a source: a claim of the same text, or a
    near-duplicate of one, is not stored again but is among the claims it found (its
    answer lists them; decision 0088)."""
    one, other, third = [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]
    found = {
        "f-dense": [(DENSE[0], 0.9)],
        "f-safety": [(SAFETY, 0.7)],
        "f-efficacy": [(EFFICACY, 0.75)],
    }
    before = [
        # the same text, stored by an earlier search
        {"id": rs.claim_id("task-1", SAFETY), "claim_text": SAFETY, "vector": other},
        # an earlier wording of the dense paragraph's first finding
        {"id": "c_earlier", "claim_text": SAME_AGAIN, "vector": one},
    ]
    vectors = {DENSE[0]: one, SAFETY: other, EFFICACY: third}
    refound: set[str] = set()
    texts, _, _ = _run(
        lyra_home, budget=10, found=found, vectors=vectors, existing=before, refound=refound
    )

    assert texts == [EFFICACY]
    assert refound == {rs.claim_id("task-1", SAFETY), "c_earlier"}


def test_a_claim_with_a_figure_is_not_merged_into_one_without_it() -> None:
    """Decision 0098: "by about half" was merged into another source's "modestly reduce"
    (cosine 0.93, the lexical rules agreeing both ways) and the figure was lost."""
    assert not same_claim(
        "Probiotics cut the risk of antibiotic-associated diarrhoea by about half.",
        "Probiotics modestly reduce antibiotic-associated diarrhoea in most groups studied.",
    )
    assert same_claim(
        "Vitamin D reduced hip fractures by 30 percent.",
        "Vitamin D reduced hip fractures by 30 percent in older women.",
    )
