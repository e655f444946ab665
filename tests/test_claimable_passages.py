"""Passages with no sentence that could be a claim do not spend a search's passage budget
(decision 0083)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from lyra.jobs.evidence_steps import choose_passages
from lyra.pipelines.evidence.claims import has_claim_candidate
from lyra.pipelines.evidence.facets import question_facets
from tests.conftest import make_settings, step_context

QUESTION = "Is low-dose aspirin safe for adults over 60?"


@pytest.mark.parametrize(
    ("passage", "claimable"),
    [
        # A finding, alone and after a question.
        ("Major bleeding occurred in 1.5 percent of adults taking low-dose aspirin.", True),
        (
            "Is aspirin safe for older adults? In the largest trial, aspirin raised the risk "
            "of major bleeding by 43 percent.",
            True,
        ),
        # A question, navigation, a byline, a caption, a share line: nothing to claim.
        ("Is low-dose aspirin safe for adults who take blood pressure medicines?", False),
        ("Home | News | Health | Contact us | Privacy policy | Terms of use", False),
        ("By Dr. Jane Smith, senior health editor, 12 March 2026", False),
        ("Share this article on Facebook, Twitter or by email", False),
        ("Figure 2: bleeding events per 1,000 adults over five years, by age group", False),
        ("", False),
    ],
)
def test_a_passage_is_claimable_when_a_sentence_could_be_a_claim(
    passage: str, claimable: bool
) -> None:
    assert has_claim_candidate(passage, QUESTION) is claimable


def _chosen(lyra_home: Path, fragments: list[dict[str, Any]], budget: int) -> set[str]:
    """The ids ``choose_passages`` picks from ``fragments`` with a budget of ``budget``
    passages (BM25 alone: no embedding model)."""

    async def call(actor: str, method: str, *args: Any) -> Any:
        if (actor, method) == ("inference", "reranker_model_id"):
            return None
        raise AssertionError(f"unexpected call {actor}.{method}")

    settings = make_settings(lyra_home)
    settings = settings.model_copy(
        update={"search": settings.search.model_copy(update={"max_passages_per_search": budget})}
    )
    job = SimpleNamespace(
        ctx=step_context(settings, QUESTION, call),
        facets=question_facets(QUESTION),
        facet_fragments={},
        metrics={},
    )
    vecs = np.zeros((len(fragments), 0), dtype=np.float32)
    useful = asyncio.run(choose_passages(job, fragments, vecs, None))  # type: ignore[arg-type]
    return {f["id"] for f in useful}


def _fragment(fid: str, text: str) -> dict[str, Any]:
    return {
        "id": fid, "text_content": text, "fragment_type": "paragraph", "heading_context": "",
        "_domain": "a.example", "_url": "http://a.example/",
    }  # fmt: skip


# Questions a FAQ page asks, each with the question's own words: they rank high.
QUESTIONS = [
    f"Is low-dose aspirin safe for adults over 60 who {what}?"
    for what in (
        "take ibuprofen", "drink alcohol", "have asthma", "had an ulcer", "take warfarin",
        "have gout", "smoke", "are diabetic", "had a stroke", "take statins", "fly often",
        "run marathons",
    )
]  # fmt: skip
# Findings, each a different number of adults: fewer of the question's words.
FINDINGS = [
    f"Major bleeding occurred in {n} of every 1,000 older people taking low-dose aspirin "
    f"in trial {i + 1}."
    for i, n in enumerate(range(3, 43))
]


def test_questions_do_not_take_the_place_of_findings_over_budget(lyra_home: Path) -> None:
    """52 passages for a budget of 50: the 12 questions are left out and all 40 findings
    are chosen (before decision 0083 the questions ranked first and findings were cut)."""
    fragments = [_fragment(f"q{i}", t) for i, t in enumerate(QUESTIONS)]
    fragments += [_fragment(f"f{i}", t) for i, t in enumerate(FINDINGS)]

    chosen = _chosen(lyra_home, fragments, budget=50)

    assert chosen == {f"f{i}" for i in range(len(FINDINGS))}


def test_within_budget_every_passage_is_offered_as_before(lyra_home: Path) -> None:
    """Every passage fits: none is read for claims here, all are chosen as before (the
    extractor finds nothing in a question, and an LLM may still read it)."""
    fragments = [_fragment(f"q{i}", t) for i, t in enumerate(QUESTIONS[:5])]
    fragments += [_fragment(f"f{i}", t) for i, t in enumerate(FINDINGS[:5])]

    chosen = _chosen(lyra_home, fragments, budget=50)

    assert chosen == {f"q{i}" for i in range(5)} | {f"f{i}" for i in range(5)}
