"""Round thirty-two's readings (issue 12, decision 0133).

Round thirty-two, written blind after round thirty-one's rules
(tests/corpora/buteyko_asthma, speed_humps, marigold_companions, music_lessons_maths),
read 31 / 32 facts and 12 / 24 readings at first sight. What the rules missed there and
read now, with controls: how often children "were hurt" as how often they were injured;
"no better at maths by the end than the kids who didn't" as no change in maths; a size's
measure after "in" ("3.4 points higher in mathematics"); ringing ears as a complaint of
the hearing, and at most a few in a hundred with any of it as rare; a grower's
greenhouses counted as people are; a spacing called enough against the widest one
advised; so many along a length against a least number per metre; a time lost for each
of a thing as its cost; a finding told as "what we found was that, once you take out
...".
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import MIN_INFORMATIVENESS, informativeness
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_costs import Cost, read_cost
from lyra.pipelines.evidence.nli_enough import DEPTH, EACH, OFTEN, Amounts, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_lengths import DENSITY, SPACED_AT_MOST, SPACING
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import Share
from lyra.pipelines.evidence.nli_spelling import fold
from lyra.pipelines.evidence.nli_tokens import tokenize

_HURT = (
    "The review concluded that the humps had made no measurable difference to how often "
    "children were hurt on the treated streets."
)
_LOWER_ODDS = (
    "Children living on streets with speed humps had 53% lower odds of being injured by a "
    "motor vehicle near their home (adjusted odds ratio 0.47, 95% CI 0.31 to 0.71)."
)
_NO_BETTER_AT_MATHS = (
    "What we found was that, once you take out the small studies, the kids who learned an "
    "instrument were no better at maths by the end than the kids who didn't."
)
_HIGHER_IN_MATHS = (
    "Pupils in intervention schools scored on average 3.4 standardised points higher in "
    "mathematics than pupils in control schools (95% CI 1.6 to 5.2)."
)
_HEARING_RARE = (
    "According to the hub's own records, fewer than one pupil in a hundred has reported any "
    "discomfort with their hearing since the lessons began in 2021."
)
_RINGING_EARS = (
    "Honestly by half term about a third of the kids in Alfie's brass group were coming home "
    "with ringing ears or headaches."
)
_MOLLUSCS_RARE = (
    "Fewer than 3 in every 100 customers who grew our marigolds alongside tomatoes have told "
    "us the marigolds brought in molluscs or mites."
)
_FOUR_GREENHOUSES = (
    "Four of the twelve greenhouses on our site that tried marigolds last year ended up with "
    "spider mite or slugs coming off the marigolds onto the toms."
)
_EVERY_800_FEET = "Honestly, one hump every 800 feet or so is plenty on a normal residential block."
_LOST_A_SECOND = (
    "In independent timing runs, fire appliances and ambulances lost on average less than one "
    "second per cushion."
)
_NINE_SECONDS = (
    "every hump or cushion we go over costs a loaded fire engine something like nine seconds"
)
_THREE_PER_METRE = (
    "Growers should plant at least three French marigolds per metre of tomato row and keep them "
    "flowering for the whole cropping season."
)
_EACH_END = "Two at each end of a six-metre row is all you need."
_INTERVALS = (
    "Humps should be placed in a series at intervals of 60 to 90 metres so that drivers do "
    "not accelerate between them."
)


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (_HURT, _LOWER_ODDS),
        (_LOWER_ODDS, _HURT),
        (_NO_BETTER_AT_MATHS, _HIGHER_IN_MATHS),
        (_HIGHER_IN_MATHS, _NO_BETTER_AT_MATHS),
        (_HEARING_RARE, _RINGING_EARS),
        (_RINGING_EARS, _HEARING_RARE),
        (_MOLLUSCS_RARE, _FOUR_GREENHOUSES),
        (_FOUR_GREENHOUSES, _MOLLUSCS_RARE),
        (_EVERY_800_FEET, _INTERVALS),
        (_INTERVALS, _EVERY_800_FEET),
        (_LOST_A_SECOND, _NINE_SECONDS),
        (_NINE_SECONDS, _LOST_A_SECOND),
        (_THREE_PER_METRE, _EACH_END),
        (_EACH_END, _THREE_PER_METRE),
    ],
)
def test_round_thirty_two_contradictions_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"


def test_the_hurt_are_injured_and_what_hurts_is_pain() -> None:
    assert read_changes(tokenize(_HURT)).no_change == {"children", "injur", "street", "treat"}
    # injuries stay a key of their own: a share "of all e-scooter injuries" and one "of the
    # people injured" have bases apart (found by the full run)
    assert fold("injuri") == "injuri"
    # what hurts is pain, as before (decision 0129)
    assert no_change(
        tokenize("The splints made no real difference to how much their knees hurt.")
    ) == {
        "kne",
        "pain",
    }


def test_no_better_at_a_subject_past_two_settings() -> None:
    assert fold("mathematic") == "math"
    assert no_change(tokenize(_NO_BETTER_AT_MATHS)) == {"math"}
    # a time after "at" is when, not what: the subject is what was no better
    assert no_change(tokenize("Patients were no better at six months than those on placebo.")) == {
        "patient"
    }
    # no group that went without after "than": two arms of a kind
    assert (
        no_change(tokenize("The pupils were no better at maths by the end than the band.")) == set()
    )


def test_a_sizes_measure_after_in() -> None:
    assert "math" in read_changes(tokenize(_HIGHER_IN_MATHS)).sized_change
    # nor after a size where "in" names an arm or a place (found by the full run)
    assert read_changes(
        tokenize("FSI scores were 5.8 points lower in the advice arm (95% CI 3.1 to 8.5).")
    ).sized_change == {"fsi", "scor"}
    # with no size before it, "in" names where: the subject is what changed
    assert read_changes(
        tokenize(
            "Reoffending rates were lower in the intervention group than in the comparison group."
        )
    ).change == {"rat", "reoffend"}


def test_ringing_ears_and_any_of_it_in_a_hundred_called_rare() -> None:
    # headaches alone are no complaint of the hearing
    headaches = _RINGING_EARS.replace("ringing ears or headaches", "headaches")
    assert heuristic_nli(_HEARING_RARE, headaches).label == "neutral"
    # nor against a share that names no symptom (found by the full run)
    strips = (
        "In our own wear-testing, fewer than 2 in every 100 noticed any redness when peeling the "
        "strip away."
    )
    worn = "Adherence, judged from returned strip wrappers, was 89% of nights in both groups."
    assert heuristic_nli(strips, worn).label == "neutral"
    # without "any", a share of a few in a hundred is no grade of how often
    assert heuristic_nli(
        _HEARING_RARE.replace("any discomfort", "discomfort"), _RINGING_EARS
    ).label == ("neutral")


def test_a_growers_greenhouses_are_counted_as_people_are() -> None:
    assert read_share(tokenize(_FOUR_GREENHOUSES)) == Share(100 / 3, 100 / 3)
    # holdings where something was seen are no share of them (found by the full run)
    assert (
        read_share(tokenize("Hedgehog houses were entered at least once in 9 of the 52 gardens."))
        is None
    )
    # studies counted are no share of anyone
    assert read_share(tokenize("Two of the ten studies found a benefit.")) is None


def test_spacings_called_enough_against_the_widest_advised() -> None:
    assert read_amounts(tokenize(_EVERY_800_FEET)) == Amounts(False, ((SPACING, 800 * 30.48),))
    assert read_amounts(tokenize(_INTERVALS)) == Amounts(False, ((SPACING, 9000.0),), ceiling=True)
    assert read_amounts(tokenize("Leeks should be planted 15 cm apart.")) == Amounts(
        False, ((SPACING, 15.0),), ceiling=True
    )
    # a spacing under twice the widest advised is no contradiction
    closer = _EVERY_800_FEET.replace("800", "150")
    assert heuristic_nli(closer, _INTERVALS).label == "neutral"
    # a length with no word of spacing is a depth, as before
    assert read_amounts(tokenize("Mulch should be spread at least 7.5 cm deep every spring.")) == (
        Amounts(True, ((DEPTH, 7.5), (OFTEN, 1 / 52)))
    )


def test_a_time_lost_for_each_of_a_thing_is_its_cost() -> None:
    assert read_cost(tokenize(_LOST_A_SECOND)) == Cost(
        0.0,
        1.0,
        "second",
        "cushion",
        frozenset({"independent", "fir", "ambulanc", "lost", "run", "tim", "applianc"}),
    )
    assert read_cost(tokenize(_NINE_SECONDS)) == Cost(
        9.0,
        9.0,
        "second",
        "hump",
        frozenset({"go", "engin", "fir", "someth", "lik", "load"}),
        frozenset({"cushion"}),
    )
    # under twice apart, no contradiction
    six = _LOST_A_SECOND.replace("less than one second", "about 6 seconds")
    assert heuristic_nli(six, _NINE_SECONDS).label == "neutral"
    # weight lost is an outcome, no cost
    assert read_cost(tokenize("Those on the diet lost on average 2 kg per month.")) is None


def test_so_many_along_a_length_against_a_least_number_per_metre() -> None:
    assert read_amounts(tokenize(_THREE_PER_METRE)) == Amounts(True, ((DENSITY, 0.03),))
    # two at each end are four, on six hundred centimetres
    assert read_amounts(tokenize(_EACH_END)) == Amounts(False, ((DEPTH, 600.0), (DENSITY, 4 / 600)))
    # more than the least number per metre is no contradiction
    assert heuristic_nli("Twenty along a six-metre row is plenty.", _THREE_PER_METRE).label == (
        "neutral"
    )
    # a length alone counts nothing along it
    assert read_amounts(tokenize("Two metres of row is plenty.")) == Amounts(
        False, ((DEPTH, 200.0),)
    )


def test_an_aim_asserts_nothing_past_its_whether() -> None:
    aim = (
        "To test whether replacing weekly written homework with daily reading at home improves "
        "reading and mathematics attainment in lower primary school."
    )
    assert read_changes(tokenize(aim)).change == frozenset()
    found = (
        "After a full school year, researchers found no statistically significant difference in "
        "reading or maths scores between pupils whose homework had been stopped and those who "
        "carried on as normal."
    )
    assert heuristic_nli(aim, found).label == "neutral"
    # a finding with "whether" in it that asks nothing still reads
    assert read_changes(
        tokenize("Reading scores improved by 12% whether or not parents joined in.")
    ).sized_change == {"read", "scor"}


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        # "the kids who didn't" is a plain group since decision 0137 (0.25 before)
        (_NO_BETTER_AT_MATHS, 0.5),
        ("Once you strip out the weaker trials, the effect on pain was small.", 0.4),
        # advice to the reader stays advice
        ("If you take out the filter, rinse it under the tap.", 0.0),
    ],
)
def test_a_finding_past_what_we_found_and_studies_set_aside(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)


def test_the_finding_past_what_we_found_is_a_claim() -> None:
    assert informativeness(_NO_BETTER_AT_MATHS) > MIN_INFORMATIVENESS


# Round thirty-three, written blind after round thirty-two's rules (tests/corpora/
# pelvic_belts, foot_patrols, beetle_banks, handwritten_notes), read 30 / 32 facts and
# 12 / 24 readings at first sight. What the rules missed there and read now:

_HOUR_OR_TWO = (
    "An hour or two on the days you're going to be on your feet a lot is plenty, and most "
    "women can put it back in the drawer after a fortnight or so."
)
_SIX_HOURS = (
    "The belt should be worn for at least six hours a day during upright activity, and for a "
    "minimum of eight weeks before deciding whether it has helped."
)
_STRIP_EVERY_400 = "Honestly a one metre strip every 400 m is plenty."
_BANKS_APART = (
    "Beetle banks should be at least 3 metres wide and, on large fields, should be sited no "
    "more than 200 metres apart."
)
_LAPTOPS_OPEN = (
    "Across 14 course sections, students told to write by hand finished the year with final "
    "exam marks no better than those of classmates who kept their laptops open."
)
_SCORED_HIGHER = (
    "At the one-week delayed test, students in the longhand condition scored a mean of 11.2 "
    "percentage points higher than those in the laptop condition (95% CI 6.0 to 16.4)."
)


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (_HOUR_OR_TWO, _SIX_HOURS),
        (_SIX_HOURS, _HOUR_OR_TWO),
        (_STRIP_EVERY_400, _BANKS_APART),
        (_BANKS_APART, _STRIP_EVERY_400),
    ],
)
def test_round_thirty_three_contradictions_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"


def test_an_amount_far_before_plenty_with_you_in_its_timing() -> None:
    assert read_amounts(tokenize(_HOUR_OR_TWO)) == Amounts(False, ((EACH, 60.0),))
    assert informativeness(_HOUR_OR_TWO) == pytest.approx(0.6)


def test_the_widest_spacing_a_floor_allows() -> None:
    assert read_amounts(tokenize(_BANKS_APART)) == Amounts(
        True, ((DEPTH, 300.0), (SPACED_AT_MOST, 20000.0))
    )
    # advised alone, the widest spacing is a ceiling; under twice it, no contradiction
    apart = "Banks should be sited no more than 200 metres apart."
    assert read_amounts(tokenize(apart)) == Amounts(False, ((SPACING, 20000.0),), ceiling=True)
    assert heuristic_nli("Honestly a strip every 300 m is plenty.", apart).label == "neutral"
    assert heuristic_nli("Honestly a strip every 500 m is plenty.", apart).label == "refutes"
    one_metre = (
        "Beetle banks should be at least 1 metre wide and sited no more than 200 metres apart."
    )
    assert heuristic_nli("Honestly a one metre strip every 300 m is plenty.", one_metre).label == (
        "neutral"
    )
    assert heuristic_nli("Honestly a one metre strip every 500 m is plenty.", one_metre).label == (
        "refutes"
    )


def test_classmates_past_those_of_and_exam_marks_as_scores() -> None:
    assert no_change(tokenize(_LAPTOPS_OPEN)) == {"exam", "final", "mark", "year"}
    assert read_changes(tokenize(_LAPTOPS_OPEN)).no_change == {"exam", "final", "scor", "year"}
    # marks on the skin stay marks
    assert (
        "mark"
        in read_changes(
            tokenize("Fewer than 2 in 100 wearers had red marks on the skin.")
        ).share_about
    )


def test_a_size_scored_before_a_comparative_stays_unread() -> None:
    # a size a group scored before "than" names the group, not what changed: read as a
    # change, "Our school is the same." refuted it in the full run (decision 0133)
    forest = (
        "At 12 weeks, pupils in the forest school arm scored 4.6 points higher than controls on "
        "the 60-point Hartwell Child Wellbeing Scale (95% CI 2.2 to 7.0)."
    )
    assert read_changes(tokenize(forest)).sized_change == frozenset()
    assert heuristic_nli("Our school is the same.", forest).label == "neutral"
    assert read_changes(tokenize(_SCORED_HIGHER)).sized_change == frozenset()


def test_a_score_lower_than_the_other_arm_and_codes_that_set_outcomes_apart() -> None:
    scar = (
        "At 12 weeks, incision halves treated with silicone gel sheeting had a mean Vancouver "
        "Scar Scale score 2.4 points lower than untreated halves (95% CI 1.7 to 3.1)."
    )
    assert {"scar", "scal", "vancouver", "scor"} <= read_changes(tokenize(scar)).sized_change
    assert heuristic_nli(scar, "The scars look the same, sheet or no sheet.").label == "refutes"
    # after a verb of being, the subject may hold the arm: no difference read there
    straw = (
        "Mean peak defoliation in straw-mulched plots was 41% lower than in bare-soil controls "
        "(95% CI 29% to 52%)."
    )
    assert read_changes(tokenize(straw)).sized_change == frozenset()
    assert (
        heuristic_nli(
            "Hand-picking, spraying and straw did not differ clearly from one another for yield.",
            straw,
        ).label
        == "neutral"
    )
    # a code names a kind of rate as a word would
    cin3 = (
        "Among women offered the vaccine at age 12 to 13, CIN3 rates were 94% lower than in "
        "unvaccinated cohorts."
    )
    pregnancy = (
        "Studies following hundreds of thousands of vaccinated women have found no difference in "
        "pregnancy rates."
    )
    assert heuristic_nli(pregnancy, cin3).label == "neutral"
