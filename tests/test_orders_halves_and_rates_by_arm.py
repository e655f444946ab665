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

from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_enough import EACH, OFTEN, SPAN, Amounts, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_shares import arms_differ, read_share, shares_compared
from lyra.pipelines.evidence.nli_shares_said import Share
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


# Round thirty-five (tests/corpora/icu_eye_masks, welfare_advice_gp, ladybird_releases,
# cycle_training), written blind after round thirty-four's first rules.
_DELIRIUM_BY_ARM = (
    "Delirium occurred in 41 of 212 patients (19.3%) in the earplug and eye mask group "
    "compared with 64 of 209 patients (30.6%) in the usual care group (relative risk 0.63, "
    "95% CI 0.45 to 0.89)."
)
_EVERY_BIT_AS_CONFUSED = (
    "When we audited our own unit, the patients who got the eye masks and earplugs were "
    "every bit as confused by day three as the ones who slept with nothing on, so as far as "
    "I could see the kit made no real difference."
)
_SIX_HOURS = (
    "Offer earplugs and an eye mask from the first night in intensive care, and keep them "
    "in place for at least six uninterrupted hours every night until the patient leaves "
    "the unit."
)
_TWO_HOURS = (
    "Two hours with the mask and plugs in after the midnight obs is plenty for most people, "
    "you don't need them in all night long."
)
_TWENTY_LARVAE = (
    "Release at least 20 larvae per square metre at the first sign of aphids and repeat the "
    "release every two weeks for a minimum of six weeks, or until aphid colonies are no "
    "longer found on weekly checks."
)
_FIVE_LARVAE = (
    "Honestly, a single drop of about five larvae to the square metre back in April has "
    "been plenty for my peppers every year."
)
_CANNIBALISM_RARE = (
    "Cannibalism is rare: in our own packing-house trials fewer than 3% of larvae were "
    "eaten by their tub-mates when they were released onto plants with aphids present."
)
_WELL_OVER_HALF = (
    "Out of the two tubs I bought, I reckon well over half ended up eating each other, "
    "because every morning I found shrivelled larvae with a fat sibling parked right next "
    "to them on the same leaf."
)


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (_DELIRIUM_BY_ARM, _EVERY_BIT_AS_CONFUSED),
        (_EVERY_BIT_AS_CONFUSED, _DELIRIUM_BY_ARM),
        (_SIX_HOURS, _TWO_HOURS),
        (_TWO_HOURS, _SIX_HOURS),
        (_TWENTY_LARVAE, _FIVE_LARVAE),
        (_FIVE_LARVAE, _TWENTY_LARVAE),
        (_CANNIBALISM_RARE, _WELL_OVER_HALF),
        (_WELL_OVER_HALF, _CANNIBALISM_RARE),
    ],
)
def test_round_thirty_five_contradictions_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"


def test_shares_by_arm_are_of_what_occurred_before_them() -> None:
    assert shares_compared(tokenize(_DELIRIUM_BY_ARM)) == ["delirium"]
    # no arm after the first share: what stands between the shares, as before
    assert shares_compared(
        tokenize("Of those who relapsed, 19.3% were in the earplug group compared with 30.6%.")
    ) == ["were", "in", "the", "earplug", "group"]
    assert fold("confus") == fold("delirious") == "delirium"
    assert no_change(
        tokenize(
            "The patients who got the eye masks and earplugs were every bit as confused by day "
            "three as the ones who slept with nothing on."
        )
    ) == {"delirium", "day", "thre"}
    # who had nothing is no group that had none of it (decision 0132)
    assert no_change(tokenize("They were no more likely to agree than those who had nothing.")) == (
        set()
    )


def test_orders_whole_hours_and_so_many_to_an_area() -> None:
    assert read_amounts(tokenize(_SIX_HOURS)) == Amounts(True, ((EACH, 360.0), (OFTEN, 7.0)))
    assert read_amounts(tokenize(_TWENTY_LARVAE)) == Amounts(
        True, ((SPAN, 42.0), ("larva per square metre", 20.0), (OFTEN, 0.5))
    )
    assert read_amounts(tokenize(_FIVE_LARVAE)) == Amounts(
        False, (("larva per square metre", 5.0),)
    )
    # a noun's "of" after the verb: no order
    assert read_amounts(tokenize("Release of the larvae was at least 20 per square metre.")) is None


def test_a_bare_half_by_what_it_did() -> None:
    assert read_share(tokenize(_WELL_OVER_HALF)) == Share(50.0, float("inf"))
    assert read_share(tokenize("It took well over half an hour to settle.")) is None
    assert fold("eaten") == fold("ate") == fold("eat")


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        # how often a witness saw it, or their two groups alike (decision 0134)
        ("Nearly every time I peeled one off the skin underneath was angry red and itched.", 0.2),
        ("My interlock locked me out almost every other morning just from mouthwash.", 0.2),
        (
            "To be straight with you, my lambs off the solar site weighed up no different "
            "from the ones on the ordinary grass over the hedge.",
            0.2,
        ),
        ("Three or four days is plenty to tell you if the patches are going to work.", 0.7),
        # the writer's own story, and an amount enough for the writer alone, stay out
        ("Two cups a day is plenty for me.", 0.0),
        ("I had a lovely time with the ones on the beach.", 0.0),
    ],
)
def test_what_witnesses_saw_is_a_finding(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)


def test_what_was_done_not_who_did_it() -> None:
    lambs = (
        "To be straight with you, my lambs off the solar site weighed up no different from "
        "the ones on the ordinary grass over the hedge, same scales, same week."
    )
    assert no_change(tokenize(lambs)) == {"weigh"}
    # a comparison of another outcome on the same site is no contradiction (the first full
    # run of decision 0134 met "Shelter from heat is generally better on solar sites")
    assert (
        heuristic_nli(
            "Shelter from heat is generally better on solar sites than on open fields.", lambs
        ).label
        == "neutral"
    )
    bikes = (
        "Honestly, when we added up the bumps and spills over the whole year, the kids who'd "
        "been through the on-road course came off their bikes just about as often as the kids "
        "at the school down the road that never had it."
    )
    assert no_change(tokenize(bikes)) == {"cam", "bik"}
    assert (
        heuristic_nli(
            "In our 2023 end-of-course survey, 94% of pupils said they felt more confident "
            "riding on the road, and 87% of parents said their child now cycles more often.",
            bikes,
        ).label
        == "neutral"
    )
    # a participle before its noun is no verb of doing: the subject stays (decision 0116)
    assert no_change(
        tokenize("The reading scores of tutored pupils were no different from those of others.")
    ) == {"read", "scor", "tutor", "pupil"}
