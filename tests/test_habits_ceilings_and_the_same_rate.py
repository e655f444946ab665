"""Round sixteen's readings (issue 12, decision 0127).

Round sixteen, written blind after round fifteen's rules had landed
(tests/corpora/sleep_apnoea_mouthguard, parking_minimums, tenant_legal_aid,
hedgerows_birds), read 5 / 24 readings at first sight. What the rules missed there and
read now, with controls: a habit advised ("should be worn every night") against fewer
nights called plenty; a ceiling ("cut no more than once in every three years") against
more often found needed; "the same rate as" / "the same number of ... as" another group;
a sentence ending in a contraction ("... as the farms that hadn't.") cut from the next;
and two facts that were no claims (a count of the writer's support group with jaw pain,
a lawyer's "plenty of time for most of these cases").
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.nli_enough import OFTEN, Amounts, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_tokens import tokenize
from lyra.pipelines.extract.sentences import split_sentences

_EVERY_NIGHT = (
    "The device should be worn every night, for the whole of the sleep period, as benefit is "
    "lost on nights when it is left out."
)
_THREE_OR_FOUR = (
    "Three or four nights a week is plenty for most of my patients, you don't need to be "
    "wearing it every single night."
)
_EVERY_THREE_YEARS = (
    "Hedges managed for breeding birds should be cut no more than once in every three years."
)
_EVERY_AUTUMN = (
    "Mr Pell said a trim every autumn, straight after harvest, was what kept a hedge thick "
    "enough at the bottom for birds to nest in."
)
_SAME_RATE = (
    "Tenants who had a lawyer at their side lost their homes at almost exactly the same rate "
    "as tenants who stood in front of the judge alone, according to the court's own figures."
)
_STILL_LIVING = (
    "At 12 months, 71% of tenants offered counsel were still living in their homes, compared "
    "with 44% of those in the control group (risk difference 27 percentage points; 95% CI 19 "
    "to 35)."
)
_SAME_NUMBER = (
    "When we went back and counted, the farms that had put in new hedges had pretty much the "
    "same number of breeding pairs as the farms that hadn't."
)


def _both_ways(first: str, second: str) -> tuple[str, str]:
    return heuristic_nli(first, second).label, heuristic_nli(second, first).label


def test_a_habit_advised_is_a_floor_that_fewer_nights_refute() -> None:
    assert read_amounts(tokenize(_EVERY_NIGHT)) == Amounts(
        floor=True, by_dimension=((OFTEN, 7.0),), habit=True
    )
    assert read_amounts(tokenize(_THREE_OR_FOUR)) == Amounts(
        floor=False, by_dimension=((OFTEN, 4.0),)
    )
    assert _both_ways(_EVERY_NIGHT, _THREE_OR_FOUR) == ("refutes", "refutes")
    # every night called plenty agrees; "every patient" is no habit
    assert _both_ways("The device should be worn every night.", "Every night is plenty.") == (
        "neutral",
        "neutral",
    )
    assert read_amounts(tokenize("Every patient should be offered a leaflet.")) is None
    # a chore done every day is no dose (tests/corpora/food_waste_caddies)
    chore = (
        "Residents should be advised to empty the kitchen caddy into the outdoor caddy every "
        "day or two, to keep the outdoor caddy lid locked and out of direct sun."
    )
    assert read_amounts(tokenize(chore)) is None


def test_a_ceiling_meets_more_often_found_needed() -> None:
    ceiling = read_amounts(tokenize(_EVERY_THREE_YEARS))
    assert ceiling is not None
    assert (ceiling.floor, ceiling.ceiling) == (False, True)
    assert ceiling.value(OFTEN) == pytest.approx(1 / 156)
    assert read_amounts(tokenize(_EVERY_AUTUMN)) == Amounts(
        floor=False, by_dimension=((OFTEN, 1 / 52),)
    )
    assert _both_ways(_EVERY_THREE_YEARS, _EVERY_AUTUMN) == ("refutes", "refutes")
    # within the ceiling: no contradiction
    seldom = "A trim every fourth year was enough to keep the hedge thick at the bottom."
    assert _both_ways(_EVERY_THREE_YEARS, seldom) == ("neutral", "neutral")
    # a ceiling a text measures, not advises, is no ceiling
    assert read_amounts(tokenize("Farmers cut no more than once in every three years.")) is None


def test_the_same_rate_as_another_group_is_no_change() -> None:
    assert no_change(tokenize(_SAME_RATE)) == {"lost", "hom"}
    assert _both_ways(_SAME_RATE, _STILL_LIVING) == ("refutes", "refutes")
    assert no_change(tokenize(_SAME_NUMBER)) == {"breed", "pair"}
    # the same dose as another: alike, no finding of no change
    assert no_change(tokenize("Patients were given the same dose as in the trial.")) == set()


def test_a_contraction_before_a_full_stop_ends_the_sentence() -> None:
    text = (
        _SAME_NUMBER
        + " We looked at yellowhammer, whitethroat and linnet. It isn\u2019t. J. Smith said so."
    )
    assert split_sentences(text) == [
        _SAME_NUMBER,
        "We looked at yellowhammer, whitethroat and linnet.",
        "It isn\u2019t.",
        "J. Smith said so.",
    ]


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        (
            "Honestly about a third of the people in my local support group ended up with jaw "
            "pain bad enough that they gave up on the thing.",
            0.6,
        ),
        (
            "Honestly, getting the file the morning of the hearing gives me plenty of time for "
            "most of these cases.",
            0.4,
        ),
        (_SAME_NUMBER, 0.4),
        # a rule of the writer's own force (tests/corpora/body_cameras): the fact had
        # been a claim only while the splitter ran it on into the next sentence
        (
            "In our force the camera goes off when we take a first account from a rape "
            "victim unless she or he agrees to be filmed, and most don't.",
            0.4,
        ),
        ("In my practice I always felt tired.", 0.0),
        # controls: the writer's own pain, plenty of time for oneself; a count of friends
        # in words is how often a witness saw a thing, at half a finding's score, as "half
        # my friends" was since decision 0134 (decision 0135)
        ("I had back pain for years before I started.", 0.0),
        ("Honestly about a third of my friends had jaw pain.", 0.3),
        ("The new timetable gives me plenty of time for my hobbies.", 0.0),
    ],
)
def test_round_sixteen_facts_are_claims(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)
