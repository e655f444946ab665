"""Round twenty-two's readings (issue 12, decision 0130).

Round twenty-two, written blind after round twenty-one's rules had landed
(tests/corpora/kinesio_tape, seaweed_cattle, drug_courts, cool_roofs), read 31 / 32
facts and 7 / 24 readings at first sight. What the rules missed there and read now, with
controls: a feed advised every day against "once a week is plenty" (feeding is using a
treatment); coats of a finish counted as occasions; a herd gone "off their feed" as a
drop in feed intake; flaking as peeling; a lead over "matched comparison cases" against
"the same rate as people sentenced in the ordinary way" (each names the control arm in
its own words); "did not ease shoulder pain" as no change in shoulder pain, against a
mean pain score lower by a stated size; "a quarter of a degree" as no share; "you want
the tape on for three to five days" as advice.
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_enough import OFTEN, TIMES, Amounts, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_tokens import tokenize

_FED_DAILY = (
    "Kelp pellets should be fed every day at 0.3% of the ration's dry matter for the "
    "methane cut to hold."
)
_WEEKLY_PLENTY = "A scoop per ewe once a week is plenty, there's no call to be feeding it daily."
_TWO_COATS = (
    "Sealant should be applied in two full coats to a dry film of at least 0.5 mm and "
    "renewed every six years."
)
_ONE_COAT = "One good coat is plenty if the surface is clean and dry."
_INTAKE_RARE = (
    "In our monitoring, fewer than 2 in every 100 goats on the supplement showed any drop "
    "in feed intake."
)
_OFF_FEED = (
    "Truth be told about a third of our nannies went right off their feed in the first week."
)
_PEEL_RARE = (
    "Across the 2,100 decks treated since 2020, peeling or blistering has been recorded on "
    "fewer than 2 in every 100 within four years."
)
_FLAKING = (
    "By the second winter roughly one in three decks on our street had the stain flaking off."
)
_LEAD_OVER_COMPARISON = (
    "At 24 months, 29.8% of diversion scheme participants had been rearrested, compared "
    "with 44.2% of matched comparison cases (adjusted risk ratio 0.67; 95% CI 0.55 to 0.80)."
)
_SAME_AS_ORDINARY = (
    "Two years on, the people who'd been through the diversion scheme were getting "
    "rearrested at much the same rate as people who'd just gone through court in the "
    "ordinary way."
)
_PAIN_LOWER = (
    "At eight weeks, mean knee pain on walking was 1.9 points lower on the 0-10 scale in the "
    "brace group than in the sham brace group (95% CI 1.1 to 2.7)."
)
_DID_NOT_EASE = (
    "Across the five trials we appraised, unloader braces did not ease knee pain by any "
    "amount patients would notice when compared with sham braces."
)


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (_WEEKLY_PLENTY, _FED_DAILY),
        (_FED_DAILY, _WEEKLY_PLENTY),
        (_ONE_COAT, _TWO_COATS),
        (_TWO_COATS, _ONE_COAT),
        (_OFF_FEED, _INTAKE_RARE),
        (_INTAKE_RARE, _OFF_FEED),
        (_FLAKING, _PEEL_RARE),
        (_PEEL_RARE, _FLAKING),
        (_SAME_AS_ORDINARY, _LEAD_OVER_COMPARISON),
        (_LEAD_OVER_COMPARISON, _SAME_AS_ORDINARY),
        (_DID_NOT_EASE, _PAIN_LOWER),
        (_PAIN_LOWER, _DID_NOT_EASE),
    ],
)
def test_round_twenty_two_contradictions_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"


def test_feeding_every_day_is_advised_as_a_habit() -> None:
    assert read_amounts(tokenize(_FED_DAILY)) == Amounts(True, ((OFTEN, 7.0),), habit=True)
    # a chore done every day is no dose
    assert read_amounts(tokenize("Staff should sweep the yard every day.")) is None


def test_coats_are_counted_as_occasions() -> None:
    assert read_amounts(tokenize(_ONE_COAT)) == Amounts(False, ((TIMES, 1.0),))
    assert dict(read_amounts(tokenize(_TWO_COATS)).by_dimension)[TIMES] == 2.0


def test_off_their_feed_is_about_intake_and_appetite() -> None:
    assert {"intak", "appetit"} <= read_changes(tokenize(_OFF_FEED)).share_about
    # only off food: "off their lead" is not
    off_lead = "About a third of the dogs ran off their lead in the first week."
    assert "intak" not in read_changes(tokenize(off_lead)).share_about


def test_a_fraction_of_one_thing_is_no_share() -> None:
    assert read_share(tokenize("The flats ran a quarter of a degree cooler.")) is None
    assert read_share(tokenize("A quarter of the flats ran cooler.")).low == 25.0


def test_a_denied_verb_of_easing_finds_no_change() -> None:
    assert no_change(tokenize(_DID_NOT_EASE)) == {"kne", "pain"}
    assert no_change(tokenize("The drug failed to significantly improve survival.")) == {"survival"}
    # a denied comparison is no finding of no change, nor is what a thing cannot do, nor a
    # condition
    assert no_change(tokenize("The brace did not reduce pain by any more than exercise.")) == set()
    cannot = "Coated tablets may cause less indigestion but do not reduce the risk of bleeding."
    assert no_change(tokenize(cannot)) == set()
    condition = "If crying has not improved by the end of the course, the drops should be stopped."
    assert no_change(tokenize(condition)) == set()


def test_a_lead_over_another_arm_named_in_other_words_stands() -> None:
    # the no-difference names another intervention, not a control: no contradiction
    other_arm = (
        "Two years on, the people who'd been through the diversion scheme were getting "
        "rearrested at much the same rate as people given community orders."
    )
    assert heuristic_nli(other_arm, _LEAD_OVER_COMPARISON).label != "refutes"


def test_wanting_the_tape_on_is_advice_but_a_condition_is_not() -> None:
    advice = (
        "For a sore knee you want the brace on for three to five hours a day, and you keep "
        "that up for six weeks at the very least."
    )
    assert informativeness(advice) == pytest.approx(0.45)
    assert informativeness("If you want to try it, ask your physio first.") == 0.0
