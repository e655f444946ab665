"""Who gains most (decision 0105): two texts that give most of one effect to opposite
groups contradict each other, whatever else they share; and "beats" leads a comparison
as "outperforms" does."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.nli_groups import NO_GROUP, groups_clash, read_groups
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_tokens import tokenize
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates

GIRLS = (
    "The modest rise in reading scores was driven almost entirely by girls, while for boys "
    "the estimate was close to zero."
)
BOYS = (
    "Ms Okafor told us: \"It's boys whose reading scores improve under the scheme, and for "
    'girls there is basically no difference."'
)

# (premise, hypothesis) that contradict each other: "refutes" both ways
CLASHES = [
    pytest.param(GIRLS, BOYS, id="girls-against-boys"),
    pytest.param(
        "It was full-time staff over 55, rather than young people, who lost the most overtime "
        "after the reform.",
        "The under-25s saw the biggest drop in overtime, around three hours a month.",
        id="over-55-against-under-25s",
    ),
    pytest.param(
        "The largest savings went to higher-income homeowners with big houses.",
        "The biggest savings from the subsidy have gone to low-income homeowners, not higher "
        "earners.",
        id="higher-income-against-low-income",
    ),
    pytest.param(
        "Rural clinics saw the greatest fall in waiting times.",
        "Most of the fall in waiting times was in urban clinics.",
        id="rural-against-urban",
    ),
    # "beats" leads a comparison: an equality against it
    pytest.param(
        "For most adults with chronic neck pain, massage is as effective as a course of "
        "supervised stretching.",
        "In our clinic's experience supervised stretching clearly beats massage for getting "
        "people back to work.",
        id="as-effective-as-against-beats",
    ),
]

# (premise, hypothesis) that no group rule reads as contradicting each other
NO_CLASHES = [
    # one group in both: they agree
    pytest.param(
        GIRLS,
        "Girls gained the most in reading, well ahead of boys.",
        id="the-same-group-in-both",
    ),
    # opposite groups, different effects: no contradiction
    pytest.param(
        "The biggest rise in claims was among older drivers.",
        "Younger drivers had the most speeding tickets.",
        id="opposite-groups-different-effects",
    ),
    # no word of "most": two findings about two groups can both hold
    pytest.param(
        "Reading scores rose among girls.",
        "Reading scores rose among boys.",
        id="no-word-of-most",
    ),
    # a relative clause on a group is no cleft: two subgroups, both described
    pytest.param(
        "Older patients whose pain persisted were referred to the clinic.",
        "Younger patients whose pain persisted were referred to the clinic.",
        id="whose-without-a-cleft",
    ),
    # "over 50 hours" is a measure, not an age
    pytest.param(
        "Staff working over 50 hours a week lost the most sleep.",
        "The youngest staff lost the most sleep.",
        id="over-50-hours-is-no-age",
    ),
]


@pytest.mark.parametrize(("premise", "hypothesis"), CLASHES)
def test_opposite_groups_refute_both_ways(premise: str, hypothesis: str) -> None:
    assert heuristic_nli(premise, hypothesis).label == "refutes"
    assert heuristic_nli(hypothesis, premise).label == "refutes"


@pytest.mark.parametrize(("premise", "hypothesis"), NO_CLASHES)
def test_no_clash_where_the_groups_or_the_effects_differ(premise: str, hypothesis: str) -> None:
    first, second = read_groups(tokenize(premise)), read_groups(tokenize(hypothesis))
    assert not groups_clash(first, second)
    assert not groups_clash(second, first)
    # the overlap rules may read such pairs as agreeing; none reads a contradiction
    assert heuristic_nli(premise, hypothesis).label != "refutes"
    assert heuristic_nli(hypothesis, premise).label != "refutes"


def test_the_reading_names_the_divide_the_side_and_the_effect() -> None:
    girls = read_groups(tokenize(GIRLS))
    boys = read_groups(tokenize(BOYS))
    assert (girls.divide, girls.side) == ("sex", 0)
    assert (boys.divide, boys.side) == ("sex", 1)
    assert girls.effect & boys.effect == {"read", "scor"}
    assert groups_clash(girls, boys)


def test_a_text_naming_both_sides_singles_out_none() -> None:
    both = read_groups(tokenize("Girls and boys gained the most from the scheme."))
    assert both == NO_GROUP


def test_the_sweep_pairs_opposite_groups_that_share_only_the_effect() -> None:
    claims = [("c1", GIRLS)]
    fragments = {
        "f-boys": BOYS,
        "f-other": "Attendance was unchanged across the district's schools in the same year.",
    }
    assert contradiction_candidates(claims, fragments) == {"c1": ["f-boys"]}
