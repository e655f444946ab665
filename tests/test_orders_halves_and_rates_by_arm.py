"""Round thirty-four's readings (issue 12, decision 0134).

Round thirty-four, written blind after round thirty-three's rules
(tests/corpora/lidocaine_plasters, ignition_interlocks, solar_grazing,
audiobooks_reading). What the rules missed there and read now, with controls: an order
at a sentence's opening advises as "should" does ("Apply the plaster for 12 hours ...
and continue for at least 4 weeks"); half of a group named by one noun of many ("Half my
Year 7 catch-up group"); what the people counted did not do ("without following the
words", "not following the page") counted as a failure on both sides; "understood what
they read no better than" as comprehension; rates given for a trial's two arms ("3.2 per
100 person-years in the interlock arm versus 8.4 ... in the control arm") and what
occurred at them; how often a thing happens "just as often as" a group that had none.
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_enough import EACH, OFTEN, SPAN, Amounts, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_shares import Share, arms_differ, read_share
from lyra.pipelines.evidence.nli_spelling import fold
from lyra.pipelines.evidence.nli_tokens import tokenize

_APPLY_12_HOURS = (
    "Apply the plaster for 12 hours in every 24-hour period, once daily, and continue for "
    "at least 4 weeks before judging whether the treatment is helping."
)
_A_COUPLE_OF_HOURS = (
    "Don't bother with the full twelve hours, I pop one on for a couple of hours after tea "
    "and three or four days is plenty to tell you if the patches are going to work."
)
_FIVE_EWES = (
    "Plan for a stocking rate of at least 5 ewes per hectare of fenced array, grazed for a "
    "minimum of 16 weeks between April and October, in two or more rotational blocks."
)
_A_DOZEN_EWES = (
    "We put a dozen ewes on the 20-acre solar field for about a month each spring and "
    "that's plenty to keep the grass down."
)
_THREE_PERCENT_DRIFT = (
    "In our 2024 survey of partner schools, only around 3% of pupils using ListenLeaf were "
    "reported to drift into just listening to the audiobook without following the words "
    "on the page."
)
_HALF_MY_GROUP = (
    "Half my Year 7 catch-up group were gazing out of the window with the audiobook playing "
    "in their earbuds and not following the page at all, pretty much every lesson."
)
_SCORED_HIGHER = (
    "After 12 weeks, pupils in the read-along arm scored higher on the standardised "
    "comprehension test than pupils in the print-only control arm (effect size d = 0.31, "
    "95% CI 0.14 to 0.48)."
)
_UNDERSTOOD_NO_BETTER = (
    "We ran the audiobook scheme for a whole term and, hand on heart, the kids listening "
    "along on headphones understood what they read no better than the class down the "
    "corridor who just had ordinary paper books."
)
_RATES_BY_ARM = (
    "During the 12-month order, new drink-driving offences occurred at a rate of 3.2 per "
    "100 person-years in the interlock arm versus 8.4 per 100 person-years in the control "
    "arm relicensed without a device (rate ratio 0.38, 95% CI 0.27 to 0.53)."
)
_JUST_AS_OFTEN = (
    "From where I sit in court, the ones who get the breath box put in once they're allowed "
    "back behind the wheel come back on drink-drive charges just as often as the ones who "
    "just got their licence back the normal way with nothing fitted."
)


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (_APPLY_12_HOURS, _A_COUPLE_OF_HOURS),
        (_A_COUPLE_OF_HOURS, _APPLY_12_HOURS),
        (_FIVE_EWES, _A_DOZEN_EWES),
        (_A_DOZEN_EWES, _FIVE_EWES),
        (_THREE_PERCENT_DRIFT, _HALF_MY_GROUP),
        (_HALF_MY_GROUP, _THREE_PERCENT_DRIFT),
        (_SCORED_HIGHER, _UNDERSTOOD_NO_BETTER),
        (_UNDERSTOOD_NO_BETTER, _SCORED_HIGHER),
        (_RATES_BY_ARM, _JUST_AS_OFTEN),
        (_JUST_AS_OFTEN, _RATES_BY_ARM),
    ],
)
def test_round_thirty_four_contradictions_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"


def test_an_order_at_the_opening_advises_a_floor() -> None:
    assert read_amounts(tokenize(_APPLY_12_HOURS)) == Amounts(
        True, ((SPAN, 28.0), (EACH, 720.0), (OFTEN, 7.0))
    )
    assert read_amounts(tokenize(_FIVE_EWES)) == Amounts(
        True, ((SPAN, 112.0), ("ewe per square metre", 5 / 1e4))
    )
    # a noun's "of", a verb after it, or no order at all: no advice, no floor
    assert read_amounts(tokenize("Use of the plaster for at least 4 weeks was common.")) is None
    assert read_amounts(tokenize("Plan costs rose for at least 4 weeks.")) is None
    assert read_amounts(tokenize("Patients applied the plaster for at least 4 weeks.")) is None
    # a course told as plainly as it is advised: "at least 4 weeks" against a month
    assert (
        heuristic_nli(_APPLY_12_HOURS, "Patients wore the plaster for a month.").label == "neutral"
    )


def test_half_of_a_group_named_by_one_noun() -> None:
    assert read_share(tokenize("Half my Year 7 catch-up group were gazing out.")) == Share(
        50.0, 50.0
    )
    assert read_share(tokenize("Half the class had headaches.")) == Share(50.0, 50.0)
    assert read_share(tokenize("Half my patients had headaches.")) == Share(50.0, 50.0)
    # an amount, not people
    assert read_share(tokenize("Half my time went on paperwork.")) is None
    assert read_share(tokenize("Half the dose was enough.")) is None


def test_what_the_people_counted_did_not_do_is_a_failure_on_both_sides() -> None:
    assert "fail" in read_changes(tokenize(_THREE_PERCENT_DRIFT)).share_about
    assert "fail" in read_changes(tokenize(_HALF_MY_GROUP)).share_about
    # those who followed are no failures: their share is never set against those who
    # did not follow (`nli_change.shares_differ`)
    followed = (
        "Half my Year 7 catch-up group were following the words on the page with the "
        "audiobook playing in their earbuds, pretty much every lesson."
    )
    assert read_changes(tokenize(followed)).share == Share(50.0, 50.0)
    assert "fail" not in read_changes(tokenize(followed)).share_about


def test_understood_what_they_read_is_comprehension() -> None:
    assert fold("understood") == fold("understand") == fold("comprehension")
    assert no_change(tokenize(_UNDERSTOOD_NO_BETTER)) == {"read", "comprehension"}
    # who did it is named before "no better" where no "what" or "how" follows a verb
    assert no_change(
        tokenize(
            "The kids listening along on headphones were no better than the class down the "
            "corridor who just had ordinary paper books."
        )
    ) == {"kid", "listen", "along", "headphon"}


def test_rates_for_two_arms_and_what_occurred_at_them() -> None:
    assert arms_differ(tokenize(_RATES_BY_ARM)) == [
        "order", "new", "drink", "-", "driving", "offences"
    ]  # fmt: skip
    # two rates, neither for an arm: no trial's arms differ
    assert (
        arms_differ(tokenize("Offences occurred at a rate of 3.2 per 100 person-years in 2019 "
                             "versus 8.4 per 100 person-years in 2023."))
        == []
    )  # fmt: skip


def test_how_often_a_thing_is_done_just_as_often_as_a_group_that_had_none() -> None:
    assert no_change(tokenize(_JUST_AS_OFTEN)) == {"back", "drink", "driv", "charg"}
    # against the rates by arm of an outcome of other words, no contradiction
    assert (
        heuristic_nli(
            _RATES_BY_ARM,
            "The ones who get the breath box fitted are stopped by police just as often as "
            "the ones who got their licence back the normal way with nothing fitted.",
        ).label
        == "neutral"
    )
