"""Round twelve's readings left over, and round fourteen's findings of effect against
no effect, read in general (issue 12, decision 0126).

Each sentence below is a round-twelve corpus's own (tests/corpora/hip_protectors,
tests/corpora/school_gardens). The stance rules: a rate given for each arm of a cluster
trial ("3.2 per 100 resident-years in intervention homes compared with 5.4 ... in control
homes") sizes a difference in what the rate counts; one value an arm gained over the
other ("an additional 0.42 portions of vegetables per day compared with control schools")
does too; "no more X than" a group that had none of it ("than children at schools that
had never dug a bed") finds no change in X; and a change over to what leads, between the
measure and "than" ("fewer hip fractures once we went over to the soft foam ones than we
ever had with the hard shells"), names what leads. From round fourteen (written blind,
tests/corpora/dementia_music and remote_work): a gain given as a value before the
comparative ("7.9 points lower in homes allocated to group music therapy than in homes
continuing usual activities"), an arm kept to what it did as usual ("no less agitated
than the ones who'd just carried on with the normal activities timetable"), a noun and
its participle as one outcome ("agitation", "agitated"), and a group level with the one
that leads over the control arm ("the same amount of work as the ones who came in every
day"). Each with controls that stay as they were.
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.nli_comparisons import Comparison, read_comparisons
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_tokens import tokenize
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates

_RATES = (
    "Adjusted for clustering and baseline fracture risk, the rate of hip fracture was 3.2 "
    "per 100 resident-years in intervention homes compared with 5.4 per 100 "
    "resident-years in control homes (rate ratio 0.59, 95% CI 0.41 to 0.85)."
)
_NO_DIFFERENCE = (
    "Overall, in the trials we judged most reliable, giving care home residents hip "
    "protectors made no meaningful difference to the number who went on to break a hip."
)
_GAINED = (
    "At 12 months, children at intervention schools were eating an additional 0.42 "
    "portions of vegetables per day compared with control schools (95% CI 0.21 to 0.63)."
)
_NO_MORE_EATEN = (
    "But the institute's lunch-tray photographs and food diaries told a flatter story over "
    "time: by the following spring the gardening pupils were eating no more vegetables "
    "than children at schools that had never dug a bed."
)
_HARD_LEADS = (
    "After adjustment, residents allocated to the hard-shell protector had fewer hip "
    "fractures than those allocated to the soft foam protector (2.1 vs 4.0 per 100 "
    "resident-years; hazard ratio 0.53, 95% CI 0.31 to 0.91)."
)
_SOFT_LEADS = (
    "But in our homes, looking at our own incident data, we actually had fewer hip "
    "fractures once we went over to the soft foam ones than we ever had with the hard "
    "shells."
)

_LOWER_THAN_USUAL = (
    "At 12 weeks, mean Residential Agitation Index scores were 7.9 points lower in homes "
    "allocated to group music therapy than in homes continuing usual activities (95% CI "
    "4.2 to 11.6)."
)
_NO_LESS_AGITATED = (
    "When we pooled the nine trials, residents who went to the music groups ended up no "
    "less agitated than the ones who'd just carried on with the normal activities "
    "timetable."
)
_MORE_THAN_CONTROLS = (
    "Employees allocated to the hybrid arm completed 7.2% more scheduled work items per "
    "month than office-based controls (95% CI 2.4% to 12.0%)."
)
_SAME_AMOUNT = (
    "What we found, when we went through the output logs, was that the hybrid teams got "
    "through essentially the same amount of work as the ones who came in every day."
)


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        # a rate lower in one arm than the other, against no difference in the outcome
        (_RATES, _NO_DIFFERENCE),
        (_NO_DIFFERENCE, _RATES),
        # an arm's gain over control, against no more than a group that had none
        (_GAINED, _NO_MORE_EATEN),
        (_NO_MORE_EATEN, _GAINED),
        # A fewer X than B, against fewer X once changed over to B than with A
        (_HARD_LEADS, _SOFT_LEADS),
        (_SOFT_LEADS, _HARD_LEADS),
        # lower than usual care by a value, against no less than those kept to usual
        (_LOWER_THAN_USUAL, _NO_LESS_AGITATED),
        (_NO_LESS_AGITATED, _LOWER_THAN_USUAL),
        # more than the control arm, against level with a group named by what it did
        (_MORE_THAN_CONTROLS, _SAME_AMOUNT),
        (_SAME_AMOUNT, _MORE_THAN_CONTROLS),
    ],
)
def test_round_twelve_leftovers_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"
    assert contradiction_candidates([("c", claim)], {"f": premise}) == {"c": ["f"]}


@pytest.mark.parametrize(
    ("premise", "claim", "labels"),
    [
        # the same rate in both arms sizes no difference
        (
            "The rate of hip fracture was 4.1 per 100 resident-years in intervention homes "
            "compared with 4.1 per 100 resident-years in control homes.",
            _NO_DIFFERENCE,
            ("neutral", "neutral"),
        ),
        # "no more X than" a group that is no untreated arm
        (
            "By spring the gardening pupils were eating no more vegetables than children at "
            "the other schools in the county.",
            _GAINED,
            ("neutral", "neutral"),
        ),
        # a gain over last year, not over the trial's other arm
        (
            _NO_MORE_EATEN,
            "Children were eating an additional 0.42 portions of vegetables per day "
            "compared with last year.",
            ("neutral", "neutral"),
        ),
        # another outcome: fruit, not vegetables
        (
            "By spring the gardening pupils were eating no more fruit than children at "
            "schools that had never dug a bed.",
            _GAINED,
            ("neutral", "neutral"),
        ),
        (
            "Residents ate 0.4 more portions of fruit a day than controls.",
            _NO_MORE_EATEN,
            ("neutral", "neutral"),
        ),
        # level with another arm named with the leader's own noun
        (
            "The hybrid teams got through essentially the same amount of work as the fully "
            "remote teams.",
            _MORE_THAN_CONTROLS,
            ("neutral", "neutral"),
        ),
        # level in another outcome
        (
            "The hybrid teams took the same number of sick days as the ones who came in every day.",
            _MORE_THAN_CONTROLS,
            ("neutral", "neutral"),
        ),
        # changed over to what leads the same way: they agree
        (
            "We actually had fewer hip fractures once we went over to the hard shells than "
            "we ever had with the soft foam ones.",
            _HARD_LEADS,
            ("neutral", "supports"),
        ),
    ],
)
def test_round_twelve_leftover_controls_do_not_refute(
    premise: str, claim: str, labels: tuple[str, str]
) -> None:
    assert (heuristic_nli(premise, claim).label, heuristic_nli(claim, premise).label) == labels


def test_a_gain_given_as_more_than_controls_refutes_no_more_eaten() -> None:
    gained = "Residents ate 0.4 more portions of vegetables a day than controls."
    assert heuristic_nli(gained, _NO_MORE_EATEN).label == "refutes"
    assert heuristic_nli(_NO_MORE_EATEN, gained).label == "refutes"


def test_what_was_changed_over_to_leads() -> None:
    assert read_comparisons(tokenize(_SOFT_LEADS)) == [
        Comparison(
            sign=-1,
            denied=False,
            leader=frozenset({"soft", "foam", "one"}),
            compared=frozenset({"hard", "shell"}),
            measure=frozenset({"hip", "fractur"}),
            axis="amount",
            setting=frozenset(),
        )
    ]
    # no change over: what leads is named before the comparative, as before
    assert read_comparisons(tokenize("Soft foam ones had fewer hip fractures than hard shells."))[
        0
    ].leader == frozenset({"soft", "foam", "one"})


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        # a null result against the group that had none is a verdict (0.25 before)
        (
            "Put all those trials together and people who slept in a brace were really no "
            "better off than people who didn't wear anything at all.",
            0.5,
        ),
        (_NO_LESS_AGITATED, 0.7),
        # a most ("no more than") is no finding: as before
        ("It costs no more than £5 a month.", 0.45),
        ("You should take no more than 2 tablets a day.", 0.7),
        # the writer's own story stays the writer's
        ("My son was no less tired than before.", 0.0),
    ],
)
def test_a_null_result_against_the_other_group_is_a_finding(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)
