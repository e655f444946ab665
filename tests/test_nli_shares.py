"""Shares far apart (decision 0105): "N in M" read as a percentage, and two texts that
give one outcome's share far apart contradict each other at any overlap."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.nli_bounds import quantities
from lyra.pipelines.evidence.nli_change import read_changes, shares_differ
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import Share
from lyra.pipelines.evidence.nli_tokens import tokenize
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates


@pytest.mark.parametrize(
    ("text", "percent"),
    [
        ("roughly 1 in 100 participants over four years", 1.0),
        ("about one in ten people notice minor bruising", 10.0),
        ("well under one in every ten thousand sessions", 0.01),
        ("fewer than 1 in 10,000 treatments", 0.01),
        ("3 out of 5 doctors agreed", 60.0),
        ("one in five adults", 20.0),
    ],
)
def test_a_share_in_words_or_digits_is_a_percentage(text: str, percent: float) -> None:
    assert quantities(tokenize(text))["%"] == [(pytest.approx(percent), pytest.approx(percent))]


def test_a_count_in_a_year_is_no_share() -> None:
    assert quantities(tokenize("cases rose from 2 in 2019 to 5 in 2020")) == {}


def test_a_bound_before_a_share_widens_it() -> None:
    assert read_share(tokenize("fewer than 1 in 10,000 treatments")) == Share(0.0, 0.01)
    assert read_share(tokenize("more than 1 in 5 adults")) == Share(20.0, float("inf"))
    assert read_share(tokenize("between 10% and 30% of adults")) is None  # two shares


TRIAL = (
    "After blinded re-challenge, muscle pain judged to be caused by the drug itself affected "
    "roughly 1 in 100 participants over four years."
)
SHOP = "As many as 3 in 10 users of the drug suffer muscle pain caused directly by it."

# (premise, hypothesis) whose shares of one outcome are far apart: "refutes" both ways
CLASHES = [
    pytest.param(TRIAL, SHOP, id="1-in-100-against-3-in-10"),
    pytest.param(
        "Around 4% of people who use the cream get a rash where it was applied.",
        "A rash where the cream was applied is something one in five users get.",
        id="percent-against-one-in-five",
    ),
]

# (premise, hypothesis) that the share rule does not read as contradicting each other
NO_CLASHES = [
    pytest.param(
        "Around 10% of people have minor bleeding or bruising where the needles went in.",
        "About one in ten people notice minor bruising or a small spot of bleeding.",
        id="the-same-share-in-words",
    ),
    pytest.param(
        "Serious adverse events were reported in fewer than 1 in 10,000 treatments.",
        "Serious harms happen in well under one in every twenty thousand sessions.",
        id="a-bound-that-holds-the-other",
    ),
    pytest.param(
        "About 90 per cent of the muscle symptoms people blame on the drug also turn up on "
        "dummy tablets.",
        TRIAL,
        id="two-outcomes-sharing-two-words",
    ),
    pytest.param(
        "Headaches affected 12% of those on the drug in the trial.",
        "In the trial, 30% of people taking placebo reported headaches.",
        id="the-drug-arm-against-the-placebo-arm",
    ),
]


@pytest.mark.parametrize(("premise", "hypothesis"), CLASHES)
def test_shares_far_apart_refute_both_ways(premise: str, hypothesis: str) -> None:
    assert heuristic_nli(premise, hypothesis).label == "refutes"
    assert heuristic_nli(hypothesis, premise).label == "refutes"


@pytest.mark.parametrize(("premise", "hypothesis"), NO_CLASHES)
def test_no_clash_for_close_shares_other_outcomes_or_other_arms(
    premise: str, hypothesis: str
) -> None:
    first, second = read_changes(tokenize(premise)), read_changes(tokenize(hypothesis))
    assert not shares_differ(first, second)
    assert not shares_differ(second, first)


def test_the_sweep_meets_a_share_far_from_the_claims() -> None:
    fragments = {
        "f-trial": "Muscle complaints were common in both groups. " + TRIAL,
        "f-other": "The drug costs 12 crowns a month, or nothing for anyone over 75.",
    }
    assert contradiction_candidates([("c", SHOP)], fragments) == {"c": ["f-trial"]}
