"""An effect with a direction is a change in what it is on (round six's primary_homework,
decision 0119): "homework was associated with a small positive effect on attainment
(pooled g = 0.09, 95% CI 0.04 to 0.14)" is a change in attainment of a stated size,
which a finding of no difference in attainment contradicts, each way round and in the
sweep that pairs what the embedder does not. And a ranking reversed: "A fell short of B
for O" (or "A was inferior to B for O", "A is worse than B for O") against "A relieved
O better than B", in one measure only."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_tokens import tokenize
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates

POOLED = (
    "Homework was associated with a small positive effect on attainment (pooled g = 0.09, "
    "95% CI 0.04 to 0.14)."
)
NO_DIFFERENCE = (
    "Researchers found no statistically significant difference in attainment between "
    "pupils whose homework had been stopped and those who carried on as normal."
)
BENEFICIAL = "Exercise had a significant beneficial effect on blood pressure."
NONE_ON_BP = "Exercise had no significant effect on blood pressure."


@pytest.mark.parametrize(
    ("premise", "claim"),
    [(NO_DIFFERENCE, POOLED), (POOLED, NO_DIFFERENCE), (NONE_ON_BP, BENEFICIAL)],
)
def test_a_sized_effect_against_no_difference_in_it_refutes(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"
    assert contradiction_candidates([("c", claim)], {"f": premise}) == {"c": ["f"]}


def test_what_the_effect_is_on_and_whether_it_is_sized() -> None:
    assert read_changes(tokenize(POOLED)).sized_change == frozenset({"attainment"})
    assert read_changes(tokenize(BENEFICIAL)).sized_change == frozenset({"blood", "pressur"})
    # the size's name ends what the effect is on: "(SMD 0.4", "(pooled g = 0.09"
    smd = read_changes(tokenize("Yoga had a positive effect on sleep quality (SMD 0.4)."))
    assert smd.sized_change == frozenset({"sleep", "qualiti"})
    # no size: neither an adjective of size nor a number; still a change
    unsized = read_changes(tokenize("Homework had a small positive effect on attainment."))
    assert (unsized.sized_change, unsized.change) == (frozenset(), frozenset({"attainment"}))


@pytest.mark.parametrize(
    "text",
    [
        "Homework had no positive effect on attainment (g = 0.01).",
        "The positive effect on attainment (g = 0.09) was not statistically significant.",
        "Statins had a significant adverse effect on muscle pain in 5% of patients.",
        "The effect on attainment was 0.09 standard deviations.",
    ],
)
def test_a_denied_adverse_or_undirected_effect_is_no_change(text: str) -> None:
    assert read_changes(tokenize(text)).change == frozenset()


def test_an_effect_on_another_outcome_contradicts_nothing() -> None:
    other = "Exercise had a significant beneficial effect on sleep quality (SMD 0.4)."
    assert heuristic_nli(NONE_ON_BP, other).label != "refutes"
    assert contradiction_candidates([("c", other)], {"f": NONE_ON_BP}) == {}


FELL_SHORT = "Ibuprofen fell short of paracetamol for dental pain."


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (FELL_SHORT, "Ibuprofen relieved dental pain better than paracetamol."),
        (
            "Ibuprofen was superior to paracetamol for dental pain.",
            "Ibuprofen was inferior to paracetamol for dental pain.",
        ),
        (
            "Ibuprofen works better than paracetamol for dental pain.",
            "Ibuprofen is worse than paracetamol for dental pain.",
        ),
        (
            "Mediation outperformed litigation on cost.",
            "Mediation did worse than litigation on cost.",
        ),
    ],
)
def test_a_ranking_reversed_in_one_measure_refutes(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"
    assert heuristic_nli(claim, premise).label == "refutes"


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        # the same ranking, told the other way round
        (FELL_SHORT, "Paracetamol relieved dental pain better than ibuprofen."),
        # two measures sharing a word
        (FELL_SHORT, "Ibuprofen relieved back pain better than paracetamol."),
        (
            "Ibuprofen was superior to paracetamol for dental pain.",
            "Ibuprofen was inferior to paracetamol for stomach upsets.",
        ),
        # amounts are no ranking: less nausea is better
        (
            "Ibuprofen caused less nausea than paracetamol.",
            "Ibuprofen relieved more pain than paracetamol.",
        ),
    ],
)
def test_a_ranking_in_the_same_order_or_another_measure_is_no_contradiction(
    premise: str, claim: str
) -> None:
    assert heuristic_nli(premise, claim).label != "refutes"
    assert heuristic_nli(claim, premise).label != "refutes"
