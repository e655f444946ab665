"""Rounds twenty-four and twenty-five's readings (issue 12, decision 0131).

Round twenty-four, written blind after round twenty-three's rules
(tests/corpora/dry_needling, guardian_dogs, small_claims_mediation, smart_meters), read
30 / 32 facts and 11 / 24 readings at first sight. What the rules missed there and read
now, with controls: a harm after nearly every treatment as the writer's report and as a
share of all but a few; "the same share of their lambs ... as those that did not" over a
longer span; what "losses were 3.1 lambs" lost; "just as long" as no change in time and
"just as many units of power as before" as no change, with power as electricity; an
amount after which more "doesn't help" called enough; a least number of one thing for
every so many of another against one minding many "by herself"; pressure to agree in
the words of those pressed.
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import MIN_INFORMATIVENESS, informativeness
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_enough import EACH, Amounts, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import Share
from lyra.pipelines.evidence.nli_tokens import is_negated, tokenize

_ACHE_EVERY_TIME = (
    "Honestly the throbbing bruised feeling for a day or two afterwards came after nearly "
    "every treatment I had, and most people I know who tried it said the same."
)
_BRUISING_RARE = (
    "Bruising after a treatment is uncommon, following fewer than 1 in 25 treatments in "
    "our clinics."
)
_SAME_SHARE_OF_CALVES = (
    "The survey of 41 ranches found that those running guardian dogs lost roughly the same "
    "share of their calves to wolves and stray dogs as those that did not."
)
_CALF_LOSSES = (
    "Predation losses were 2.4 calves per 100 in guarded herds versus 7.9 per 100 in "
    "unguarded herds."
)
_JUST_AS_LONG = (
    "Most disputes that go to mediation still end up in front of a judge, and they take "
    "just as long to get there."
)
_TIME_FELL = (
    "Among cases that attended mediation, the median time from filing to final disposal "
    "fell from 98 days to 37 days."
)
_SAME_POWER = (
    "Two years after the meters went in, the estate's homes were getting through just as "
    "many units of power as before."
)
_LESS_ELECTRICITY = (
    "Households given a display used 5.1% less electricity than control households over the year."
)
_HALF_AN_HOUR = (
    "In my experience a mediation on the day is wrapped up in about thirty minutes, and "
    "dragging it out longer doesn't help anyone."
)
_TWO_HOURS = "Each mediation should be listed for a minimum of two hours."
_ONE_DOG = "One good dog will guard five hundred ewes on the open hill by herself."
_TWO_PER_250 = "Keepers should run at least two guardian dogs for every 250 ewes."
_STEAMROLLERED = (
    "Out of the twelve of us from the residents group who went through it, four came away "
    "feeling we'd been steamrollered into a poor deal."
)
_PRESSURE_RARE = (
    "Fewer than 3 in every 100 people who answer our survey say they felt under any "
    "pressure to agree."
)


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (_ACHE_EVERY_TIME, _BRUISING_RARE),
        (_BRUISING_RARE, _ACHE_EVERY_TIME),
        (_SAME_SHARE_OF_CALVES, _CALF_LOSSES),
        (_CALF_LOSSES, _SAME_SHARE_OF_CALVES),
        (_JUST_AS_LONG, _TIME_FELL),
        (_TIME_FELL, _JUST_AS_LONG),
        (_SAME_POWER, _LESS_ELECTRICITY),
        (_LESS_ELECTRICITY, _SAME_POWER),
        (_HALF_AN_HOUR, _TWO_HOURS),
        (_TWO_HOURS, _HALF_AN_HOUR),
        (_ONE_DOG, _TWO_PER_250),
        (_TWO_PER_250, _ONE_DOG),
        (_STEAMROLLERED, _PRESSURE_RARE),
        (_PRESSURE_RARE, _STEAMROLLERED),
    ],
)
def test_round_twenty_four_contradictions_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        # one dog for a hundred is more dogs than the floor asks
        ("One good dog will guard a hundred ewes on the open hill by herself.", _TWO_PER_250),
        # as long as before, against a change in something else
        (_JUST_AS_LONG, "Among cases that attended mediation, settlements rose by 12 points."),
        # an hour is no more than half of two hours' floor, called enough nowhere
        ("In my experience a mediation on the day is wrapped up in about an hour.", _TWO_HOURS),
    ],
)
def test_round_twenty_four_controls_stay_neutral(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "neutral"


def test_all_but_a_few_is_a_share_in_words_once() -> None:
    bruised = "The bruising happened after nearly every session."
    assert read_share(tokenize(bruised)) == Share(80.0, 100.0)
    # twice is no one share; a number wins over the words
    assert read_share(tokenize("Almost all had rashes and nearly every one itched.")) is None
    assert read_share(tokenize("Almost all of them, 12 in 100, had rashes.")) == Share(12.0, 12.0)
    # no symptom named, no harm counted: what a writer does after every run, whom a panel
    # advises, what a law bans
    for sentence in (
        "I've been plunging after almost every run and gym session for five years now.",
        "The panel recommends against arthroscopy for almost all patients with knee disease.",
        "Minnesota banned almost all new non-compete agreements from July 2023.",
    ):
        assert read_share(tokenize(sentence)) is None


def test_a_denied_denial_grants_what_follows() -> None:
    granted = "He does not dispute that the machines use far less power."
    assert not is_negated(tokenize(granted))
    assert not is_negated(tokenize("No one denies that the scheme works."))
    assert is_negated(tokenize("He does not think the machines use less power."))


def test_stressed_equalities_find_no_change() -> None:
    assert no_change(tokenize(_JUST_AS_LONG)) == {"tim", "get"}
    assert no_change(tokenize(_SAME_POWER)) == {"unit", "electriciti"}
    assert no_change(tokenize(_SAME_SHARE_OF_CALVES)) == {"calv", "wolv", "strai", "dog"}
    # as many as another group that had it too is no finding
    assert no_change(tokenize("They made just as many visits as the other treated homes.")) == set()
    assert {"calv", "predation"} <= read_changes(tokenize(_CALF_LOSSES)).sized_change


def test_ratios_and_one_alone() -> None:
    assert read_amounts(tokenize(_TWO_PER_250)) == Amounts(True, (("per ewe", 2 / 250),))
    assert read_amounts(tokenize(_ONE_DOG)) == Amounts(False, (("per ewe", 1 / 500),))
    # alone with no one counted says nothing of enough
    assert read_amounts(tokenize("She walked for 30 minutes by herself.")) is None
    # more said to do no good calls what came before enough
    assert read_amounts(tokenize(_HALF_AN_HOUR)) == Amounts(False, ((EACH, 30.0),))
    assert read_amounts(tokenize("Longer sessions of 40 minutes help most people.")) is None


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        (_ACHE_EVERY_TIME, 0.3),
        (
            '"Most disputes that go to mediation still end up in front of a judge, and they '
            'take just as long to get there," he said.',
            0.15,
        ),
    ],
)
def test_harm_after_every_treatment_and_a_quoted_equality_are_claims(
    sentence: str, score: float
) -> None:
    assert informativeness(sentence) == pytest.approx(score)
    assert score > MIN_INFORMATIVENESS


@pytest.mark.parametrize(
    "sentence",
    [
        # after every match is no treatment's harm
        "Honestly the bruised ache came after nearly every match I played.",
        "I went to every session and enjoyed them.",
    ],
)
def test_stories_without_a_treatments_harm_stay_out(sentence: str) -> None:
    assert informativeness(sentence) == 0.0


# Round twenty-five (tests/corpora/foam_rolling, tree_guards, day_fines, chess_in_schools),
# written blind after round twenty-four's rules: 30 / 32 facts and 9 / 24 readings at
# first sight. Read now: seconds as a time each; "just about as sore ... as the ones who
# put their feet up" as no change against a group that rested; a share of those who come
# to the writer as a count.
_AS_SORE_AS_RESTING = (
    "Put it all together and the swimmers who stretched ended up just about as stiff two "
    "days later as the ones who put their feet up."
)
_STIFFNESS_LOWER = (
    "Compared with seated rest, ten minutes of stretching lowered stiffness at 48 hours by "
    "a mean of 1.4 points on a 0-10 scale."
)
_SECONDS_PLENTY = "Twenty seconds on each calf, twice a week, is plenty for most people."
_MINUTES_FLOOR = (
    "Adults should stretch each calf for at least 2 minutes per session, on a minimum of 3 "
    "days each week."
)


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (_AS_SORE_AS_RESTING, _STIFFNESS_LOWER),
        (_STIFFNESS_LOWER, _AS_SORE_AS_RESTING),
        (_SECONDS_PLENTY, _MINUTES_FLOOR),
        (_MINUTES_FLOOR, _SECONDS_PLENTY),
    ],
)
def test_round_twenty_five_contradictions_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"


def test_equal_to_a_group_that_rested_is_no_change() -> None:
    assert no_change(tokenize(_AS_SORE_AS_RESTING)) == {"stiff", "day", "later"}
    # as stiff as another treated group, or as "the rest" of a class, is no finding
    assert no_change(tokenize("They were just as stiff as the ones who swam.")) == set()
    assert no_change(tokenize("She was just as keen as the rest of the class.")) == set()
    # "roughly as many" with nothing named after it
    assert no_change(tokenize("There were roughly as many dead trees in each row.")) == {
        "dead",
        "tre",
    }


def test_seconds_are_a_time_each_and_a_second_course_is_not() -> None:
    assert read_amounts(tokenize(_SECONDS_PLENTY)) == Amounts(
        False, ((EACH, 20 / 60), ("times a week", 2.0))
    )
    assert read_amounts(tokenize("A second course is plenty for most people.")) is None


def test_a_share_of_those_who_come_to_the_writer_is_a_count() -> None:
    sentence = (
        "Going off my own notes, roughly a third of the tenants on benefits who come to us "
        "with a court fine have fallen into arrears on it."
    )
    assert informativeness(sentence) == pytest.approx(0.6)


# Round twenty-six (tests/corpora/ear_wax_drops, slug_nematodes, procedural_justice,
# coloured_overlays), written blind after round twenty-five's rules: 30 / 32 facts and
# 13 / 24 readings at first sight. Read now: a course prescribed with "should" (how often
# and for how long) as the least advised; "for 14 days" as a span, not occasions; a share
# of the writer's shift or team as a count; "the same level as before" as no change in
# what stands at it.
_PRESCRIBED_COURSE = (
    "Adults should use two drops of almond oil in the affected ear three times a day for "
    "10 days before syringing is considered."
)
_TWO_NIGHTS_PLENTY = "Honestly, a couple of drops at bedtime for two nights is plenty."


@pytest.mark.parametrize(
    ("premise", "claim"),
    [(_TWO_NIGHTS_PLENTY, _PRESCRIBED_COURSE), (_PRESCRIBED_COURSE, _TWO_NIGHTS_PLENTY)],
)
def test_round_twenty_six_contradictions_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"


def test_a_prescribed_course_is_a_floor_and_days_are_a_span() -> None:
    # two drops are a tenth of a millilitre (decision 0140)
    assert read_amounts(tokenize(_PRESCRIBED_COURSE)) == Amounts(
        True, (("days in all", 10.0), ("millilitres", 0.1), ("times a week", 21.0))
    )
    # how often alone, or no "should", prescribes no course
    assert read_amounts(tokenize("Adults should use two drops three times a day.")) is None
    assert read_amounts(tokenize("Most used drops three times a day for 10 days.")) is None
    # two nights called plenty: a span of two days, and a couple of drops a tenth of a
    # millilitre (decision 0148)
    assert read_amounts(tokenize(_TWO_NIGHTS_PLENTY)) == Amounts(
        False, (("days in all", 2.0), ("millilitres", 0.1))
    )


def test_a_share_of_the_writers_shift_is_a_count() -> None:
    sentence = (
        "Tbh about a third of my shift have admitted they've held back too long on a "
        "violent call since doing the course."
    )
    assert informativeness(sentence) == pytest.approx(0.6)


def test_the_same_level_as_before_is_no_change_in_what_stands_at_it() -> None:
    sentence = "Complaints against the force were running at virtually the same level as before."
    assert no_change(tokenize(sentence)) == {"complaint", "forc", "runn"}
    # the same level as another group is no finding of this kind
    assert no_change(tokenize("Complaints were at the same level as in other forces.")) == set()
