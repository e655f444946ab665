"""Round fifteen's readings (issue 12, decision 0127).

Round fifteen, written blind (tests/corpora/honey_dressings, food_waste_caddies,
police_diversion, mindfulness_app), set the usual facets against each other in other
words. What the rules missed there, and read now, each with controls that stay as they
were: a floor given as an interval ("changed at least every 48 hours") against "weekly
changes are plenty"; "a few minutes" called plenty against "at least 10 minutes a day";
a finding of no change told as "barely budged" or "the same weight ... as before"; a
share of those who failed ("fail to finish their course"); two shares back to back
("11.8% versus 17.5%"); a stressed equality of a state ("every bit as anxious as");
feelings in another form; and three facts that were no claims (a practitioner's least
amount, a share of the writer's own group, whom a scheme is for).
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_enough import EACH, OFTEN, SPAN, WEEKLY, Amounts, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_shares_said import Share
from lyra.pipelines.evidence.nli_tokens import tokenize

_EVERY_48_HOURS = (
    "Medical-grade honey dressings should be changed at least every 48 hours, and treatment "
    "should continue for a minimum of 12 weeks before deciding whether it has worked."
)
_WEEKLY_PLENTY = (
    "Weekly changes are plenty for most of my patients, and if an ulcer hasn't started to "
    "shrink by about the one-month mark I stop the honey altogether."
)
_TEN_MINUTES_A_DAY = (
    "Adults using a mindfulness app for anxiety should practise for at least 10 minutes a "
    "day, on at least 5 days a week, for a minimum of 8 weeks."
)
_A_FEW_MINUTES = (
    "She said a few minutes on most mornings was plenty, and that the majority of her "
    "students felt steadier within a fortnight."
)
_FELL_BY = (
    "Compared with control districts, residual waste in the intervention districts fell by "
    "11.2% at 12 months (95% CI 7.9% to 14.4%), equivalent to roughly 1.1 kg less general "
    "rubbish per household each week."
)
_SAME_WEIGHT = (
    "Council figures obtained by the Courier show the black-bin rounds are still hauling "
    "away almost exactly the same weight of general rubbish as they were before the caddies "
    "arrived."
)
_FAIL_TO_FINISH = (
    "Fewer than 3 in every 100 people referred to us fail to finish their course and are "
    "passed back to the police for further action."
)
_FAILED_TO_COMPLETE = (
    "Figures released to the Courier under freedom of information show that around a third "
    "of adults offered the scheme last year failed to complete it and were then prosecuted "
    "for the original offence anyway."
)
_VIRTUALLY_IDENTICAL = (
    "When we matched diverted adults against similar people who had been charged, the "
    "proportion proven to have reoffended within a year was virtually identical in the two "
    "groups."
)
_BACK_TO_BACK = "Proven reoffending showed a similar pattern (11.8% versus 17.5%)."
_EVERY_BIT_AS_ANXIOUS = (
    "And what we found, honestly, was that after eight weeks the people with the app were "
    "every bit as anxious as the people who were just sitting on a waiting list."
)
_FEWER_SYMPTOMS = (
    "Findings In a trial of 412 adults, the app group reported fewer anxiety symptoms than a "
    "waiting-list group after two months, with a smaller difference at six months."
)
_LEFT_FEELING_WORSE = (
    "Unwanted effects are rare: fewer than 2 in every 100 members ever tell us a session left "
    "them feeling worse."
)
_OUR_GROUP = (
    "Honestly about a third of our group ended up with panicky or spaced out feelings during "
    "the body scans at some point, me included."
)
_ITS_FOR = (
    "It's for adults caught with a small amount of a drug for their own personal use, and "
    "it's not for anyone where there's any suggestion of supply or where there's been "
    "violence."
)


def _both_ways(first: str, second: str) -> tuple[str, str]:
    return heuristic_nli(first, second).label, heuristic_nli(second, first).label


def test_an_interval_is_read_as_times_a_week() -> None:
    assert read_amounts(tokenize(_EVERY_48_HOURS)) == Amounts(
        floor=True, by_dimension=((SPAN, 84.0), (OFTEN, 3.5))
    )
    assert read_amounts(tokenize("Change it every 3 days, that is plenty.")) == Amounts(
        floor=False, by_dimension=((OFTEN, 7.0 / 3),)
    )


def test_weekly_called_plenty_refutes_a_floor_of_every_48_hours() -> None:
    assert _both_ways(_EVERY_48_HOURS, _WEEKLY_PLENTY) == ("refutes", "refutes")
    # daily is more often than every 48 hours: no contradiction
    daily = "Daily changes are plenty for most of my patients."
    assert read_amounts(tokenize(daily)) == Amounts(floor=False, by_dimension=((OFTEN, 7.0),))
    assert _both_ways(_EVERY_48_HOURS, daily) == ("neutral", "neutral")


def test_a_few_minutes_called_plenty_refutes_ten_minutes_a_day() -> None:
    assert read_amounts(tokenize(_TEN_MINUTES_A_DAY)) == Amounts(
        floor=True, by_dimension=((SPAN, 56.0), (WEEKLY, 70.0), (EACH, 10.0), (OFTEN, 5.0))
    )
    assert read_amounts(tokenize(_A_FEW_MINUTES)) == Amounts(
        floor=False, by_dimension=((EACH, 3.0),)
    )
    assert _both_ways(_TEN_MINUTES_A_DAY, _A_FEW_MINUTES) == ("refutes", "refutes")
    # a quarter of an hour each morning is over the floor
    longer = "She said fifteen minutes on most mornings was plenty."
    assert _both_ways(_TEN_MINUTES_A_DAY, longer) == ("neutral", "neutral")
    # "a couple of weeks": the unit after "of"
    assert read_amounts(tokenize("A couple of weeks was plenty for me.")) == Amounts(
        floor=False, by_dimension=((SPAN, 14.0),)
    )


def test_barely_budged_and_the_same_as_before_are_no_change() -> None:
    assert no_change(tokenize("the borough's general rubbish has barely budged")) == {
        "general",
        "rubbish",
    }
    assert no_change(tokenize(_SAME_WEIGHT)) == {"general", "rubbish"}
    # a measure alone names too little: all of a text's hours would meet it
    assert no_change(tokenize("They ended up working the same hours as before.")) == set()
    assert _both_ways(_SAME_WEIGHT, _FELL_BY) == ("refutes", "refutes")
    # the same as another thing, not as before: no finding of no change
    assert no_change(tokenize("Patients were given the same dose as in the trial.")) == set()
    assert no_change(tokenize("Prices have budged a little since spring.")) == set()


def test_a_share_of_those_who_failed_is_a_share() -> None:
    reading = read_changes(tokenize(_FAIL_TO_FINISH))
    assert reading.share == Share(0.0, 3.0)
    assert "fail" in reading.share_about
    assert _both_ways(_FAIL_TO_FINISH, _FAILED_TO_COMPLETE) == ("refutes", "refutes")
    # a failure before the share denies the finding: no share
    denied = "Trials failed to show that a third of adults finish."
    assert read_changes(tokenize(denied)).share is None
    # what those who failed did not do differs: one word in common is not enough
    attend = "Fewer than 3 in every 100 people referred to us fail to attend their first session."
    assert _both_ways(attend, _FAILED_TO_COMPLETE) == ("neutral", "neutral")


def test_two_shares_back_to_back_size_what_comes_before_them() -> None:
    assert read_changes(tokenize(_BACK_TO_BACK)).sized_change == {
        "proven",
        "reoffend",
        "show",
        "similar",
        "pattern",
    }
    assert _both_ways(_VIRTUALLY_IDENTICAL, _BACK_TO_BACK) == ("refutes", "refutes")
    other = "Attendance was higher (91% versus 84%)."
    assert _both_ways("Reading scores were unchanged.", other) == ("neutral", "neutral")


def test_a_stressed_equality_of_a_state_meets_a_lead_between_the_same_arms() -> None:
    (equal,) = read_changes(tokenize(_EVERY_BIT_AS_ANXIOUS)).comparisons
    assert (equal.sign, equal.leader, equal.measure) == (
        0,
        frozenset({"app"}),
        # "anxious" is folded onto "anxiety" (decision 0143)
        frozenset({"anxieti"}),
    )
    assert {"wait", "list"} <= equal.compared
    assert _both_ways(_EVERY_BIT_AS_ANXIOUS, _FEWER_SYMPTOMS) == ("refutes", "refutes")
    # another state of the same arms is another outcome
    likely = "People with the app were just as likely to stop as those on a waiting list."
    assert _both_ways(likely, _FEWER_SYMPTOMS) == ("neutral", "neutral")
    # a time is no state
    assert read_changes(tokenize("They left just as soon as the class ended.")).comparisons == ()


def test_feelings_in_another_form_are_one_outcome() -> None:
    assert _both_ways(_LEFT_FEELING_WORSE, _OUR_GROUP) == ("refutes", "refutes")


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        (_WEEKLY_PLENTY, 0.4),
        (_OUR_GROUP, 0.6),
        (_ITS_FOR, 0.4),
        # controls: a writer's own "it", a group's liking, no claim
        ("It was for my son's birthday.", 0.0),
        ("Most of our group loved it.", 0.0),
        ("Weekly changes are plenty for me.", 0.0),
        # a leaflet's audience, not whom a scheme is for; relief, not a symptom
        ("It is intended for young people, their families, victims and professionals.", 0.0),
        (
            "The therapy gave me something to actually do at 3am other than panic, which "
            "made the tapering much less scary.",
            0.0,
        ),
    ],
)
def test_round_fifteen_facts_are_claims(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)
