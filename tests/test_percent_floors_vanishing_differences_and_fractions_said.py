"""Round twenty-eight's readings (issue 12, decision 0132).

Round twenty-eight, written blind after round twenty-seven's rules
(tests/corpora/scar_sheets, ban_the_box, clover_leys, summer_reading), read 30 / 32
facts and 8 / 24 readings at first sight. What the rules missed there and read now,
with controls: a least percentage or a least count of a unit of the text's own against
a smaller one called enough; "no better in September than classmates who had not" as
no change; a difference that "basically vanishes" as none; "almost a third admitted" as
a share of people; stock that "blew up" as bloat.
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.nli_enough import UNITS, Amounts, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_ratios import PERCENT
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import Share
from lyra.pipelines.evidence.nli_spelling import fold
from lyra.pipelines.evidence.nli_tokens import tokenize

_EIGHT_BOOKS = (
    "Holiday reading schemes should ask each child to read at least eight books over a "
    "period of no less than five weeks."
)
_THREE_BOOKS = "Three or four books over the whole holiday is plenty for most children."
_FORTY_PERCENT = (
    "For the legume to fix a worthwhile amount of nitrogen, it should make up at least 40% of "
    "the sward when averaged over the season."
)
_FIFTEEN_PERCENT = "Twelve, fifteen per cent vetch across the field is plenty, in my view."
_NO_BETTER_IN_JUNE = (
    "Pupils who took part in the tutoring scheme were reading no better in June than "
    "classmates who had not, according to the school's own figures."
)
_SCORED_HIGHER = (
    "Pupils in schools given the tutoring scheme scored 3.1 points higher on the June "
    "reading test than pupils in control schools (95% CI 1.2 to 5.0)."
)
_FRACTION_ADMITTED = (
    "A survey of 180 landlords found that almost a third admitted turning away tenants on "
    "the basis of age or ethnicity because they suspected rent arrears."
)
_RARELY_TURNED_AWAY = (
    "The council's audit found that turning away tenants on age or ethnicity as a stand-in "
    "for suspected rent arrears was rare, identified in fewer than 2 in every 100 lettings "
    "reviewed."
)
_BLEW_UP = (
    "To be honest about a quarter of the steers blew up at one point that first June, and "
    "we lost one before we got on top of it."
)
_BLOAT_RARE = (
    "Bloat is genuinely rare on well-managed lucerne, with fewer than 1 in 300 grazing "
    "cattle affected in a typical season."
)


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (_EIGHT_BOOKS, _THREE_BOOKS),
        (_THREE_BOOKS, _EIGHT_BOOKS),
        (_FORTY_PERCENT, _FIFTEEN_PERCENT),
        (_FIFTEEN_PERCENT, _FORTY_PERCENT),
        (_SCORED_HIGHER, _NO_BETTER_IN_JUNE),
        (_NO_BETTER_IN_JUNE, _SCORED_HIGHER),
        (_FRACTION_ADMITTED, _RARELY_TURNED_AWAY),
        (_RARELY_TURNED_AWAY, _FRACTION_ADMITTED),
        (_BLEW_UP, _BLOAT_RARE),
        (_BLOAT_RARE, _BLEW_UP),
    ],
)
def test_round_twenty_eight_contradictions_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        # as many books as the floor asks is no contradiction
        (_EIGHT_BOOKS, "Eight books over the whole holiday is plenty for most children."),
        # a percentage of something else called enough
        (_FORTY_PERCENT, "Fifteen per cent of the budget across the farm is plenty."),
    ],
)
def test_round_twenty_eight_controls_do_not_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label != "refutes"


def test_least_percentages_and_counts_of_a_unit() -> None:
    assert read_amounts(tokenize(_FORTY_PERCENT)) == Amounts(True, ((PERCENT, 40.0),))
    assert read_amounts(tokenize(_FIFTEEN_PERCENT)) == Amounts(False, ((PERCENT, 15.0),))
    assert read_amounts(tokenize(_EIGHT_BOOKS)) == Amounts(
        True, (("days in all", 35.0), (UNITS + "book", 8.0))
    )
    # of a choice, the larger is what is called enough
    assert read_amounts(tokenize(_THREE_BOOKS)) == Amounts(False, ((UNITS + "book", 4.0),))
    assert read_amounts(tokenize("Fifteen per cent of the budget is plenty.")) is None
    # a count further back, past a number, is not what is called enough
    assert read_amounts(tokenize("In forty schools now, 20 minutes is plenty.")) == Amounts(
        False, (("minutes each", 20.0),)
    )


def test_no_better_past_a_setting_than_those_who_had_not() -> None:
    assert no_change(tokenize(_NO_BETTER_IN_JUNE)) == {"part", "read", "tutor", "schem"}
    assert no_change(tokenize("Patients were no better at six months than those on placebo.")) == {
        "patient"
    }
    # no group that went without: a comparison of two people
    assert no_change(tokenize("He was no better at chess than his brother.")) == set()


def test_a_difference_that_vanishes_is_none() -> None:
    vanishes = (
        "Once you only count the trials where the person marking the wound was blinded, the "
        "difference basically vanishes."
    )
    assert no_change(tokenize(vanishes)) == {"person", "mark", "wound", "blind"}
    assert no_change(tokenize("The effect never disappeared in the treated patients.")) == set()
    # gone by a time: an effect worn off, not none (decision 0132, after the full run)
    worn_off = "Soreness was lower at 24 hours, but the difference had disappeared by day two."
    assert no_change(tokenize(worn_off)) == set()


def test_a_fraction_that_admits_or_says_is_a_share() -> None:
    assert read_share(tokenize(_FRACTION_ADMITTED)) == Share(100 / 3, 100 / 3)
    assert read_share(tokenize("About a quarter said the lamps caused glare.")) == Share(25.0, 25.0)
    # a fraction of a thing, not of people
    assert read_share(tokenize("Prices rose by a third last year.")) is None


def test_stock_that_blew_up_bloated() -> None:
    assert fold("blew") == fold("bloat") == "bloat"
