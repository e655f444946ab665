"""Round twenty-nine's readings (issue 12, decision 0132).

Round twenty-nine, written blind after round twenty-eight's rules
(tests/corpora/tennis_elbow_straps, family_mediation, hedgehog_highways, walking_bus),
read 28 / 32 facts and 6 / 24 readings at first sight. What the rules missed there and
read now, with controls: fewer, longer sittings called enough against more sittings of
a set length (the time in all); mornings in every school week and one morning a week;
what a rate counts, named before its "per"; "9.6 additional minutes ... compared with"
and "no more active ... than classmates"; a thing cut, not an amount; "every bit as
sore, and no stronger ..., as the people who'd never bothered"; pins and needles as a
symptom; the writer's survey and its finding; "But I'd say"; the writer's own count of
the outcome as no story of theirs; a gardener's hogs.
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import MIN_INFORMATIVENESS, informativeness
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_enough import (
    DOSE,
    EACH,
    MINUTES,
    OFTEN,
    SPAN,
    TIMES,
    Amounts,
    read_amounts,
)
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_often import BEFORE
from lyra.pipelines.evidence.nli_spelling import fold
from lyra.pipelines.evidence.nli_tokens import tokenize

_FOUR_SESSIONS = (
    "Couples should expect to need at least four joint sessions of around 60 minutes each "
    "before a workable agreement can be expected."
)
_ONE_LONG_SESSION = (
    "In my experience one good session of about two hours is plenty for most couples."
)
_FIVE_MORNINGS = (
    "Clubs should run on at least five mornings in every school week for a minimum of one "
    "term before any gain can be expected."
)
_ONE_MORNING = "But I'd say one morning a week is plenty to see the kids get fitter."
_SIGHTINGS_HIGHER = (
    "Badger sightings per 100 camera-trap nights were 38% higher in connected woods than in "
    "control woods (rate ratio 1.38, 95% CI 1.10 to 1.71)."
)
_NO_DIFFERENCE_COUNTED = (
    "Honestly, after all that, the tunnels made no difference at all to how many badgers I "
    "was recording."
)
_EVERY_BIT_AS_SORE = (
    "What we found was that the people who'd worn a brace were every bit as sore, and no "
    "stronger in the grip, at the three-month mark as the people who'd never bothered with one."
)
_GRIP_IMPROVED = (
    "At 12 weeks, grip strength had improved by a mean of 4.1 kg more in the brace group "
    "than in the sham group (95% CI 2.0 to 6.2)."
)
_PINS_AND_NEEDLES = (
    "Out of the ten of us at the yard who bought one, three ended up with pins and needles "
    "in our fingers or a sore mark on the skin where it sat."
)
_TINGLING_RARE = "Numbness, tingling or skin marks are rare, affecting fewer than 1 in 100 wearers."
_CUT_A_GAP = (
    "Some 38 of the 120 households that had cut a gap, almost a third, told the association "
    "that a pet had escaped through it or that a hedgehog had become stuck in it."
)
_PROBLEMS_RARE = (
    "Problems are rare: fewer than 2 in every 100 gaps on our register have ever had a report "
    "of a stuck hedgehog or an escaped pet."
)


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (_FOUR_SESSIONS, _ONE_LONG_SESSION),
        (_ONE_LONG_SESSION, _FOUR_SESSIONS),
        (_FIVE_MORNINGS, _ONE_MORNING),
        (_ONE_MORNING, _FIVE_MORNINGS),
        (_SIGHTINGS_HIGHER, _NO_DIFFERENCE_COUNTED),
        (_NO_DIFFERENCE_COUNTED, _SIGHTINGS_HIGHER),
        (_GRIP_IMPROVED, _EVERY_BIT_AS_SORE),
        (_EVERY_BIT_AS_SORE, _GRIP_IMPROVED),
        (_TINGLING_RARE, _PINS_AND_NEEDLES),
        (_PINS_AND_NEEDLES, _TINGLING_RARE),
        (_PROBLEMS_RARE, _CUT_A_GAP),
        (_CUT_A_GAP, _PROBLEMS_RARE),
        (
            "At 6 months, children at intervention schools accumulated a mean of 8.2 additional "
            "minutes of moderate-to-vigorous physical activity per weekday compared with "
            "children at control schools (95% CI 4.0 to 12.4).",
            "The school's own checks showed the cycle-train children were no more active over "
            "a whole school day than classmates who were driven in.",
        ),
        (
            "A corridor should link at least ten neighbouring gardens before you can expect "
            "any benefit for the local hedgehog population.",
            "Honestly, linking just three gardens was plenty for us and we've had hogs "
            "through every night since May.",
        ),
    ],
)
def test_round_twenty_nine_contradictions_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"


def test_sittings_in_all_and_mornings_a_week() -> None:
    assert read_amounts(tokenize(_FOUR_SESSIONS)) == Amounts(True, ((EACH, 60.0), (TIMES, 4.0)))
    assert read_amounts(tokenize(_ONE_LONG_SESSION)) == Amounts(
        False, ((EACH, 120.0), (TIMES, 1.0))
    )
    assert read_amounts(tokenize(_FOUR_SESSIONS)).value(MINUTES) == 240.0  # type: ignore[union-attr]
    assert read_amounts(tokenize(_FIVE_MORNINGS)) == Amounts(True, ((SPAN, 91.0), (OFTEN, 5.0)))
    assert read_amounts(tokenize(_ONE_MORNING)) == Amounts(False, ((OFTEN, 1.0),))
    # as many sittings, as long in all, as the floor asks: no contradiction
    four_hours = "In my experience four good sessions of about an hour each is plenty for most."
    assert heuristic_nli(_FOUR_SESSIONS, four_hours).label != "refutes"
    # "six to ten weeks" is read from its low end in a floor
    assert read_amounts(
        tokenize("Pupils should have at least two sessions a week for six to ten weeks.")
    ) == Amounts(True, ((SPAN, 42.0), (OFTEN, 2.0)))


def test_what_a_rate_counts_and_a_thing_cut() -> None:
    assert {"badger", "sighting"} <= read_changes(tokenize(_SIGHTINGS_HIGHER)).sized_change
    # a gap cut is no amount cut, so the share is read
    assert read_changes(tokenize(_CUT_A_GAP)).share is not None
    assert "gap" not in read_changes(tokenize(_CUT_A_GAP)).sized_change
    assert "cost" in read_changes(tokenize("The scheme cut costs by a third.")).sized_change


def test_every_bit_as_sore_past_a_second_denied_likeness() -> None:
    assert {"sor", "grip"} <= no_change(tokenize(_EVERY_BIT_AS_SORE))
    # no group that went without after the second "as"
    assert (
        no_change(tokenize("They were every bit as sore, and no stronger, as their coach."))
        == set()
    )


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        (_PINS_AND_NEEDLES, 0.6),
        (_NO_DIFFERENCE_COUNTED, 0.4),
        (
            "Our parents' group did a quick survey after half-term and roughly a third of "
            "parents said their child had come home soaked through at least once.",
            0.35,
        ),
        (_ONE_MORNING, 0.4),
    ],
)
def test_counts_surveys_and_estimates_of_the_writers_are_claims(
    sentence: str, score: float
) -> None:
    assert informativeness(sentence) == pytest.approx(score)
    assert score > MIN_INFORMATIVENESS


def test_the_writers_own_recording_alone_is_a_story() -> None:
    assert informativeness("I was recording how many badgers came by.") == 0.0
    assert informativeness("We did a survey of 300 homes and found the lamps were fine.") == 0.0


def test_a_gardeners_hogs_are_hedgehogs_and_activity_is_being_active() -> None:
    assert fold("hog") == "hedgehog"
    assert fold("activiti") == fold("activ") == "activ"


def test_classmates_had_none_of_it() -> None:
    assert no_change(tokenize("They were no more active than classmates who came by car.")) == {
        "activ"
    }
    assert no_change(tokenize("They were no more active than the coaches who ran it.")) == set()


# Round thirty (tests/corpora/ginkgo_memory, impact_statements, straw_mulch_potatoes,
# homework_clubs), written blind after round twenty-nine's rules: 29 / 32 facts and
# 13 / 24 readings at first sight.
_GINKGO_DOSE = (
    "Anyone who decides to try it should take 120 mg of a standardised extract each day and "
    "allow at least 10 weeks before judging whether it has made any difference."
)
_FORTY_MG = "Honestly 30mg once a day is plenty, I could tell it was working inside a week."
_NO_MORE_WORDS = (
    "In the bigger trials, the people taking the extract didn't remember any more words than "
    "the people on the dummy tablets."
)
_MORE_WORDS = (
    "At 24 weeks, participants in the extract group recalled a mean of 1.8 more words on the "
    "delayed recall task than those given placebo (95% CI 0.6 to 3.0)."
)


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (_GINKGO_DOSE, _FORTY_MG),
        (_FORTY_MG, _GINKGO_DOSE),
        (_MORE_WORDS, _NO_MORE_WORDS),
        (_NO_MORE_WORDS, _MORE_WORDS),
    ],
)
def test_round_thirty_contradictions_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"


def test_a_dose_by_weight_is_an_amount() -> None:
    # the ten weeks allowed are a span, and a time before judging (decision 0143)
    assert read_amounts(tokenize(_GINKGO_DOSE)) == Amounts(
        True, ((SPAN, 70.0), (DOSE, 120.0), (BEFORE, 70 * 1440.0), (OFTEN, 7.0))
    )
    assert read_amounts(tokenize("Honestly 1 g once a day is plenty.")) == Amounts(
        False, ((DOSE, 1000.0), (OFTEN, 7.0))
    )
    # the same dose called enough: no contradiction
    assert heuristic_nli(_GINKGO_DOSE, "Honestly 120mg once a day is plenty.").label != "refutes"


def test_denied_any_more_than_the_dummy_arm() -> None:
    assert "word" in no_change(tokenize(_NO_MORE_WORDS))


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        (_FORTY_MG, 0.7),
        (
            "Honestly I couldn't tell the covered rows from the bare ones, the flies got the "
            "lot and I lifted roughly the same weight of onions from both.",
            0.2,
        ),
        (
            "Honestly, about a third of the kids in my daughter's year who went were "
            "completely worn out by Thursday.",
            # how often a witness saw a thing, in words, is a finding (decision 0135)
            0.6,
        ),
    ],
)
def test_round_thirty_claims(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)
