"""An amount called enough well under another's floor (issue 12, decision 0126).

Rounds twelve and fourteen, written blind, each set a guideline's least amount against a
practitioner's or a seller's smaller one called enough, in three corpora of four in
round fourteen: "at least six weeks" every night against "a few nights a week for a
fortnight is plenty", "at least twice a week, in sessions of 45 to 60 minutes" against "a
single 20-minute session once a week is plenty", "at least 10 cm" against "an inch of
chips is plenty". Each sentence below is a corpus's own (tests/corpora/carpal_splints,
dementia_music, wood_chip_mulch, school_gardens), with controls that stay as they were.
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.nli_enough import (
    DEPTH,
    EACH,
    OFTEN,
    SPAN,
    WEEKLY,
    Amounts,
    read_amounts,
)
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_tokens import tokenize
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates

_EVERY_NIGHT = (
    "The splint should be worn every night, for the whole of the night, for at least six "
    "weeks before deciding whether it has helped."
)
_A_FEW_NIGHTS = (
    "Honestly a few nights a week for a fortnight is plenty for most people, you don't need "
    "to be strapped up every single night for months."
)
_TWICE_A_WEEK = (
    "Care homes should offer group music therapy at least twice a week, in sessions of 45 "
    "to 60 minutes, for a minimum of 12 weeks before deciding whether it is helping."
)
_ONCE_A_WEEK = (
    "For most homes, a single 20-minute CalmChorus session once a week is plenty to see a "
    "calmer lounge."
)
_TEN_CM = (
    "Wood chip mulch should be applied to a settled depth of at least 10 cm and topped up "
    "every spring to keep it at that depth."
)
_AN_INCH = (
    "An inch of chips is plenty, and you can leave it three or four years before you top it up."
)
_AN_HOUR = (
    "Schools that want a garden to change what children eat, and not only what they know, "
    "should plan for regular, hands-on contact rather than occasional open days: pupils "
    "should have at least one hour of hands-on garden time every week, sustained across a "
    "minimum of two school terms."
)
_TWENTY_MINUTES = (
    "And honestly, from what I've seen in something like sixty schools now, twenty minutes "
    "every other week for about six weeks is plenty to get them trying new vegetables."
)


@pytest.mark.parametrize(
    ("sentence", "amounts"),
    [
        (_EVERY_NIGHT, Amounts(True, ((SPAN, 42.0), (OFTEN, 7.0)))),
        (_A_FEW_NIGHTS, Amounts(False, ((SPAN, 14.0), (OFTEN, 3.0)))),
        (_TWICE_A_WEEK, Amounts(True, ((SPAN, 84.0), (EACH, 45.0), (OFTEN, 2.0)))),
        (_ONCE_A_WEEK, Amounts(False, ((EACH, 20.0), (OFTEN, 1.0)))),
        # "topped up every spring": once a year (decision 0127)
        (_TEN_CM, Amounts(True, ((DEPTH, 10.0), (OFTEN, 1 / 52)))),
        (_AN_INCH, Amounts(False, ((DEPTH, 2.54),))),
        (_AN_HOUR, Amounts(True, ((SPAN, 182.0), (EACH, 60.0), (OFTEN, 1.0)))),
        (_TWENTY_MINUTES, Amounts(False, ((SPAN, 42.0), (EACH, 20.0), (OFTEN, 0.5)))),
        # minutes a week are a total, not each time
        (
            "Adults should take at least 150 minutes of exercise a week.",
            Amounts(True, ((WEEKLY, 150.0),)),
        ),
        # a time, not a span; a denied "enough"; a floor and an enough in one sentence
        ("You should see a change after at least 6 weeks.", None),
        ("An inch of chips is not enough, in my experience.", None),
        ("At least 10 cm is plenty.", None),
        # a count, no advice; a condition of whom, not the amount advised; a denial
        # further back (tests/corpora/ppi_long_term, twenty_mph)
        (
            "In 2023 around 612,000 people were dispensed at least one PPI, and more than "
            "half of them had received the drug for over a year.",
            None,
        ),
        (
            "You should review at least once a year all adults who have been taking a PPI "
            "continuously for more than 12 months.",
            Amounts(True, ((OFTEN, 1 / 52),)),
        ),
        ("The campaign said a single year was never going to be enough.", None),
    ],
)
def test_amounts_are_read_by_dimension(sentence: str, amounts: Amounts | None) -> None:
    read = read_amounts(tokenize(sentence))
    expected = (
        None if amounts is None else Amounts(amounts.floor, tuple(sorted(amounts.by_dimension)))
    )
    assert read == expected


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (_EVERY_NIGHT, _A_FEW_NIGHTS),
        (_A_FEW_NIGHTS, _EVERY_NIGHT),
        (_TWICE_A_WEEK, _ONCE_A_WEEK),
        (_ONCE_A_WEEK, _TWICE_A_WEEK),
        (_TEN_CM, _AN_INCH),
        (_AN_INCH, _TEN_CM),
        (_AN_HOUR, _TWENTY_MINUTES),
        (_TWENTY_MINUTES, _AN_HOUR),
    ],
)
def test_enough_well_under_the_floor_refutes(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"
    assert contradiction_candidates([("c", claim)], {"f": premise}) == {"c": ["f"]}


@pytest.mark.parametrize(
    "claim",
    [
        # above the floor, or under it by less than half
        "Fifteen centimetres of chips is plenty.",
        "Eight centimetres of chips is plenty.",
        # denied: it agrees with the floor
        "An inch of chips is not enough, in my experience.",
        # another kind of amount
        "Twenty minutes of stretching is plenty.",
    ],
)
def test_amounts_of_another_size_or_kind_do_not_refute(claim: str) -> None:
    for premise in (_TEN_CM, _EVERY_NIGHT):
        assert (heuristic_nli(premise, claim).label, heuristic_nli(claim, premise).label) == (
            "neutral",
            "neutral",
        )


def test_a_session_is_no_weekly_total() -> None:
    floor = "Adults should take at least 150 minutes of exercise a week."
    enough = "A 10-minute walk is enough to lift your mood."
    assert (heuristic_nli(floor, enough).label, heuristic_nli(enough, floor).label) == (
        "neutral",
        "neutral",
    )
