"""Rounds twenty and twenty-one's readings (issue 12, decision 0129).

Round twenty, written blind after round nineteen's rules had landed
(tests/corpora/scalp_cooling, heel_insoles, night_buses, conservation_grazing), read
30 / 32 facts and 13 / 24 readings at first sight. What the rules missed there and read
now, with controls: a count with its noun inside it as a claim ("on roughly one run in
three", "roughly one nest in three"); a share opening its own clause after a negated
one, up to a reason ("... were no joke, and about a third of the women on my unit gave
up on the cap ... because they just couldn't stand it"); those who gave up as those who
stopped; a subject before a span of hours ("collisions between 22:00 and 05:00 fell by
27%"); a service's runs an hour against a floor of every so many minutes; a count "for
every 1,000 people" as a share; cows as cattle, those hurt as injured.

Round twenty-one (tests/corpora/cherry_juice_sleep, knee_braces, youth_mentoring,
jury_instructions), written after round twenty's rules, read 30 / 32 facts and 10 / 24
readings at first sight. Read now: "slept no longer than the people on the pretend
drink" (a level denied against a placebo); knees that hurt as knee pain; side effects
in general against a named symptom in a share; a count out of a group named first
("Out of the nine of us ..., three ended up ..."); an hour every other week as minutes a
week; "no less than nine months" as a floor; "that's all ... needs" as enough.
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_enough import EACH, OFTEN, SPAN, WEEKLY, Amounts, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_shares import read_share, share_clause
from lyra.pipelines.evidence.nli_shares_said import Share
from lyra.pipelines.evidence.nli_tokens import tokenize
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates

_ONE_RUN_IN_THREE = (
    "Honestly, on roughly one run in three after midnight I end up dealing with a punch-up "
    "or somebody threatening other passengers."
)
_ONE_NEST_IN_THREE = (
    "The cows ended up squashing roughly one nest in three on the lower meadow that first "
    "spring, and the warden told me that's about what you'd expect on a grazed site."
)
_FEWER_CLUTCHES = (
    "At the stocking rates set out in this guidance, trampling by cattle destroys fewer than "
    "3 in every 100 ground-nesting bird clutches."
)
_GAVE_UP = (
    "Honestly, the ice-cream headaches were no joke, and about a third of the women on my "
    "unit gave up on the cap after the first cycle or two because they just couldn't stand "
    "it."
)
_STOP_EARLY = (
    "Headaches and cold discomfort are usually mild, and fewer than 2 in every 100 patients "
    "stop a session early because of them."
)
_NO_DIFFERENCE = (
    "The review concluded that the night buses had made no meaningful difference to the "
    "number of drink-related crashes on the borough's roads after dark."
)
_COLLISIONS_FELL = (
    "In the 18 months after launch, alcohol-related injury collisions between 22:00 and 05:00 "
    "fell by 27% in the served corridors relative to matched control corridors (rate ratio "
    "0.73, 95% CI 0.61 to 0.88)."
)
_ASSAULTS_FELL = (
    "In the 18 months after launch, assaults between 22:00 and 05:00 fell by 27% in the "
    "served corridors relative to matched control corridors."
)
_EVERY_15_MINUTES = (
    "Services should run at least every 15 minutes and continue until 04:00 on Friday and "
    "Saturday nights if they are to have a measurable effect on drink-driving."
)
_ONE_BUS_AN_HOUR = (
    "One bus an hour with the last one leaving at half one is plenty to keep the drinkers out "
    "of their cars."
)
_FOUR_BUSES_AN_HOUR = (
    "Four buses an hour with the last one leaving at half one is plenty to keep the drinkers "
    "out of their cars."
)
_GOT_HURT = (
    "Honestly, about a third of the lads on my work group got hurt at some point while I was there."
)
_INJURIES_RARE = (
    "Injuries on placements are rare: our schemes logged 9 injuries requiring first aid or "
    "medical treatment for every 1,000 people who started an order in 2023."
)


_NO_LONGER = (
    "But what we found, when we pooled all five trials, was that people drinking the juice "
    "slept no longer than the people on the pretend drink, at least not by any amount you'd "
    "notice."
)
_SLEEP_TIME = (
    "Compared with placebo, tart cherry juice increased total sleep time by a mean of 38 "
    "minutes per night (95% CI 17 to 59; p = 0.001)."
)
_KNEES_HURT = (
    "What we found, once we pooled the eleven trials, was that wearing an unloader brace made "
    "no meaningful difference to how much people's knees hurt."
)
_KNEE_PAIN = (
    "At 12 weeks, mean knee pain on the 0-100 VAS fell by 19 mm in the brace group compared "
    "with 6 mm in the usual-care group (adjusted difference 13 mm, 95% CI 8 to 18)."
)
_SIDE_EFFECTS = (
    "Digestive side effects are uncommon, and fewer than 2 in every 100 customers in our 2023 "
    "survey told us they had any stomach upset."
)
_BLOATING = (
    "Dr Okafor said roughly a third of the patients she had seen try the juice ended up with "
    "bloating, cramps or loose bowels within the first fortnight."
)
_SERIOUS_SIDE_EFFECTS = (
    "Serious side effects are uncommon, and fewer than 2 in every 100 customers in our 2023 "
    "survey told us they had any."
)
_NINE_OF_US = (
    "Out of the nine of us in my Tuesday knee class who got fitted with these braces, three "
    "ended up having to stop because of blisters and swelling where the straps sit."
)
_SWELLING_RARE = (
    "In our customer follow-up survey, skin irritation, pressure marks or swelling turned out "
    "to be uncommon, affecting fewer than 2 in every 100 wearers."
)
_THREE_HOURS = (
    "Mentors should spend at least three hours a week in direct contact with the young "
    "person, and the relationship should continue for no less than nine months after the "
    "release date."
)
_AN_HOUR_FORTNIGHTLY = (
    "An hour every other week for the first couple of months is plenty for most of them."
)


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        (_ONE_RUN_IN_THREE, 0.6),
        (_ONE_NEST_IN_THREE, 0.45),
        # a day in a year is no count
        ("I went one day in 2019 and it was shut.", 0.0),
    ],
)
def test_a_count_with_its_noun_inside_is_a_claim(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)


def test_a_share_opens_its_own_clause_after_a_negated_one() -> None:
    tokens = tokenize(_GAVE_UP)
    clause = share_clause(tokens, opened=True)
    assert clause[:3] == ["about", "a", "third"]
    assert clause[-1] == "two"  # up to the reason, "because they just couldn't stand it"
    assert share_clause(tokens)[:3] == ["honestly", "the", "ice"]
    reading = read_changes(tokens)
    assert reading.share == Share(100 / 3, 100 / 3)
    assert {"stop", "headach"} <= reading.share_about
    # "because of" is the outcome's cause, no reason clause
    assert share_clause(tokenize(_STOP_EARLY))[-3:] == ["because", "of", "them"]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (_GAVE_UP, _STOP_EARLY),
        (_ONE_NEST_IN_THREE, _FEWER_CLUTCHES),
        (_NO_DIFFERENCE, _COLLISIONS_FELL),
        (_ONE_BUS_AN_HOUR, _EVERY_15_MINUTES),
        (_GOT_HURT, _INJURIES_RARE),
        # round twenty-one
        (_NO_LONGER, _SLEEP_TIME),
        (_KNEES_HURT, _KNEE_PAIN),
        (_BLOATING, _SIDE_EFFECTS),
        (_NINE_OF_US, _SWELLING_RARE),
        (_AN_HOUR_FORTNIGHTLY, _THREE_HOURS),
    ],
)
def test_contradictions_refute_both_ways(first: str, second: str) -> None:
    assert heuristic_nli(first, second).label == "refutes"
    assert heuristic_nli(second, first).label == "refutes"
    assert contradiction_candidates([("c", second)], {"f": first}) == {"c": ["f"]}


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # another outcome before the same span of hours
        (_NO_DIFFERENCE, _ASSAULTS_FELL),
        # four buses an hour meets a floor of one every 15 minutes
        (_FOUR_BUSES_AN_HOUR, _EVERY_15_MINUTES),
    ],
)
def test_round_twenty_controls_do_not_refute(first: str, second: str) -> None:
    assert heuristic_nli(first, second).label != "refutes"
    assert heuristic_nli(second, first).label != "refutes"


def test_runs_an_hour_and_every_so_many_minutes() -> None:
    assert read_amounts(tokenize(_EVERY_15_MINUTES)) == Amounts(True, ((OFTEN, 672.0),))
    assert read_amounts(tokenize(_ONE_BUS_AN_HOUR)) == Amounts(False, ((OFTEN, 168.0),))
    assert read_amounts(tokenize(_FOUR_BUSES_AN_HOUR)) == Amounts(False, ((OFTEN, 672.0),))


def test_a_count_for_every_so_many_people_is_a_share() -> None:
    assert read_share(tokenize(_INJURIES_RARE)) == Share(0.9, 0.9)
    # a dose for every so many kilograms is no share of people
    assert read_share(tokenize("Give 5 mg for every 10 kg of body weight.")) is None


def test_serious_side_effects_are_not_every_symptom() -> None:
    # a share graded "serious" meets a count of mild symptoms as two outcomes
    assert heuristic_nli(_BLOATING, _SERIOUS_SIDE_EFFECTS).label != "refutes"
    assert heuristic_nli(_SERIOUS_SIDE_EFFECTS, _BLOATING).label != "refutes"


def test_a_count_out_of_a_group_named_first() -> None:
    assert read_share(tokenize(_NINE_OF_US)) == Share(100 / 3, 100 / 3)
    assert informativeness(_NINE_OF_US) == pytest.approx(0.6)
    # three weeks later is no count of the group
    assert read_share(tokenize("Out of the nine of us, three weeks later all were fine.")) is None


def test_a_floor_of_no_less_and_minutes_a_week_in_all() -> None:
    assert read_amounts(tokenize(_THREE_HOURS)) == Amounts(True, ((SPAN, 270.0), (WEEKLY, 180.0)))
    fortnightly = read_amounts(tokenize(_AN_HOUR_FORTNIGHTLY))
    assert fortnightly == Amounts(False, ((SPAN, 60.0), (EACH, 60.0), (OFTEN, 0.5)))
    assert fortnightly.value(WEEKLY) == 30.0
    assert fortnightly.dimensions() == {SPAN, EACH, OFTEN, WEEKLY}
    # "is all you need" calls an amount enough
    assert read_amounts(tokenize("Two sessions a week is all most people need.")) == Amounts(
        False, ((OFTEN, 2.0),)
    )
    assert informativeness("Two sessions a week is all most people need.") == pytest.approx(0.6)


def test_people_per_people_are_a_ratio_and_who_a_rate_is_over_no_outcome() -> None:
    adults = "Over 100: the minimum adults are 1 extra adult per 20 children."
    assert read_share(tokenize(adults)) is None
    assert read_share(tokenize("Proven reoffences per 100 people fell to 34.")) is None
    resentenced = (
        "Half of them get re-sentenced to the same order with a few extra hours and a stern "
        "word, which I'm not convinced achieves much either."
    )
    # an order is who the injuries are counted over, not what they are
    assert heuristic_nli(resentenced, _INJURIES_RARE).label != "refutes"
    assert heuristic_nli(_INJURIES_RARE, resentenced).label != "refutes"
