"""Round eighteen's readings (issue 12, decision 0128).

Round eighteen, written blind after round seventeen's rules had landed
(tests/corpora/tinnitus_sound, bus_lanes, solar_cleaning, debt_advice), read 31 / 32
facts and 13 / 24 readings at first sight. What the rules missed there and read now,
with controls: occasions counted in all ("at least four appointments" against "one
proper sit-down ... is plenty"); an amount called enough as a claim ("One gentle rinse a
year is plenty for a normal house"); "no higher than" an earlier time; "more than
trebled" as a change bounded, not a comparison, with its subject read past the bound;
a crash as a collision.
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_enough import EACH, SPAN, TIMES, Amounts, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_tokens import tokenize

_FOUR_APPOINTMENTS = (
    "Free debt advice services should offer each client at least four appointments spread "
    "over a minimum of twelve weeks."
)
_ONE_SIT_DOWN = (
    "One proper sit-down of about an hour is plenty for most people, you really don't need "
    "to keep coming back week after week."
)
_FOUR_SIT_DOWNS = (
    "Four proper sit-downs of about an hour are plenty for most people, you really don't "
    "need to keep coming back week after week."
)
_NO_HIGHER = (
    "Police-recorded injury collisions at the four signalised junctions on the corridor were "
    "no higher during the trial than in the equivalent period of the previous three years."
)
_NO_HIGHER_THAN_AVERAGE = (
    "Police-recorded injury collisions at the four signalised junctions on the corridor were "
    "no higher during the trial than the city average."
)
_TREBLED = (
    "Figures obtained by the Gazette show that crashes at junctions along the route have "
    "more than trebled since the bus lane opened, from four in the year before it opened "
    "to 13."
)
_NO_LESS_BOTHERED = (
    "The audit of 212 patients given the generators since 2019 found that, a year on, they "
    "were on average no less bothered by their tinnitus than when they started."
)


def test_occasions_count_in_all() -> None:
    assert read_amounts(tokenize(_FOUR_APPOINTMENTS)) == Amounts(True, ((SPAN, 84.0), (TIMES, 4.0)))
    assert read_amounts(tokenize(_ONE_SIT_DOWN)) == Amounts(False, ((EACH, 60.0), (TIMES, 1.0)))


@pytest.mark.parametrize(
    ("premise", "claim", "label"),
    [
        (_FOUR_APPOINTMENTS, _ONE_SIT_DOWN, "refutes"),
        (_ONE_SIT_DOWN, _FOUR_APPOINTMENTS, "refutes"),
        # four called plenty meets the floor of four
        (_FOUR_APPOINTMENTS, _FOUR_SIT_DOWNS, "neutral"),
        # no higher than before, against more than trebled (a crash is a collision)
        (_NO_HIGHER, _TREBLED, "refutes"),
        (_TREBLED, _NO_HIGHER, "refutes"),
        # no higher than the city average says nothing of before and after
        (_NO_HIGHER_THAN_AVERAGE, _TREBLED, "neutral"),
    ],
)  # fmt: skip
def test_round_eighteen_readings(premise: str, claim: str, label: str) -> None:
    assert heuristic_nli(premise, claim).label == label


def test_no_change_against_an_earlier_time() -> None:
    assert no_change(tokenize(_NO_LESS_BOTHERED)) == {"bother", "tinnitus"}
    assert no_change(tokenize(_NO_HIGHER)) == {"collision", "corridor", "junction", "signaliz"}
    assert no_change(tokenize(_NO_HIGHER_THAN_AVERAGE)) == set()


def test_more_than_trebled_is_a_change_of_its_subject() -> None:
    reading = read_changes(tokenize(_TREBLED))
    assert reading.comparisons == ()
    assert reading.change == {"collision", "junction", "along", "rout"}


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        ("One gentle rinse a year is plenty for a normal house.", 0.4),
        # controls: nothing counted; the writer's own amount
        ("For most of the people, the weather is enough.", 0.15),
        ("Two cups a day is plenty for me.", 0.0),
    ],
)
def test_an_amount_called_enough_is_a_claim(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)


@pytest.mark.parametrize(
    ("premise", "claim", "label"),
    [
        # "not just" asserts what it says is not all (no negation): a crash is a collision
        ("Speed does not just make crashes more likely; it makes them more deadly.",
         "Across all enforced sections, fatal and serious injury collisions fell by 36% (95% "
         "CI 22% to 48%) relative to the comparison sections.", "neutral"),
        # a unit after its number names no subject of the change
        ("On the main B-road through Hollins Lane, which was kept at 30mph, speeds were "
         "unchanged.",
         "Across 37 installations monitored through our SpeedData Cloud service, the "
         "proportion of drivers exceeding 24mph in front of an SW-20 fell by an average of "
         "41% in the first month after activation.", "neutral"),
    ],
)  # fmt: skip
def test_round_eighteen_controls(premise: str, claim: str, label: str) -> None:
    assert heuristic_nli(premise, claim).label == label
