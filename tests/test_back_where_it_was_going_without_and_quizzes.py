"""Round twenty-three's readings (issue 12, decision 0130).

Round twenty-three, written blind after round twenty-two's rules
(tests/corpora/eye_patching, alcohol_minimum_price, peat_rewetting, retrieval_quizzes),
read 27 / 32 facts and 8 / 24 readings at first sight. What the rules missed there and
read now, with controls: a time the reader is taken to before a finding ("Once you get
past the first eighteen months or so, ...") and "right back where it was" as a finding
of no change; a share of the people at the writer's group; a body's position calling an
amount enough; where a thing is worth doing; an amount a teacher calls enough for their
class; "gone without food" as no denial, skipped meals as food gone without; those dying
as deaths; quizzes as occasions and "every couple of weeks" as how often.
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import MIN_CLAIM_SCORE, informativeness
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_enough import OFTEN, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_tokens import is_negated, tokenize

_BACK_WHERE_IT_WAS = (
    "Once you get past the first two years or so, the number of people dying on those "
    "roads is right back where it was before the cameras went up."
)
_DEATHS_LOWER = (
    "Road deaths were 18.2% lower (95% CI 11.0 to 25.4) than on matched control roads over "
    "the first five years of the scheme."
)
_WENT_WITHOUT_RARE = (
    "In the council's 2024 survey, fewer than 2 in every 100 tenants said they had gone "
    "without food or heating to pay the new charge."
)
_SKIPPING_MEALS = (
    "Honestly about a third of the people at my Thursday group have been skipping proper "
    "meals or leaving the heating off so they can pay it."
)
_QUIZZES_FLOOR = (
    "Teachers should set at least three short quizzes a week, each of about ten minutes, "
    "for the whole year."
)
_QUIZ_PLENTY = "Honestly one short quiz every couple of weeks is plenty for my Year 9s."


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (_BACK_WHERE_IT_WAS, _DEATHS_LOWER),
        (_DEATHS_LOWER, _BACK_WHERE_IT_WAS),
        (_SKIPPING_MEALS, _WENT_WITHOUT_RARE),
        (_WENT_WITHOUT_RARE, _SKIPPING_MEALS),
        (_QUIZ_PLENTY, _QUIZZES_FLOOR),
        (_QUIZZES_FLOOR, _QUIZ_PLENTY),
    ],
)
def test_round_twenty_three_contradictions_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        (_BACK_WHERE_IT_WAS, 0.7),
        # a count among the witness's own group, read so since decision 0137 (0.35 before)
        (_SKIPPING_MEALS, 0.6),
        (_QUIZ_PLENTY, 0.6),
        (
            "Our members believe a levy of 20p a bag is plenty to change habits, and that "
            "there is no need for it to rise every year.",
            0.6,
        ),
        (
            "It's really only worth doing where you've got deep clay, so more than about 40 "
            "centimetres, and not on sandy soils.",
            0.45,
        ),
    ],
)
def test_findings_in_a_speakers_words_are_claims(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)
    assert score > MIN_CLAIM_SCORE


@pytest.mark.parametrize(
    "sentence",
    [
        "We believe in kind, evidence-based care for everyone.",
        "I went back to bed after the second alarm.",
        # "enough" in a story or a quotation, not for the writer's own class
        "I want to write down what I tell families, because ten minutes is rarely long enough.",
        "I enjoyed the show but worry people will hear 'twice a week is enough' and stop there.",
    ],
)
def test_beliefs_and_stories_stay_out(sentence: str) -> None:
    assert informativeness(sentence) == 0.0


def test_back_where_it_was_is_no_change() -> None:
    assert no_change(tokenize(_BACK_WHERE_IT_WAS)) == {"number", "peopl", "death", "road"}
    # back from somewhere is no finding
    assert no_change(tokenize("The team came back to the clinic in March.")) == set()


def test_going_without_denies_nothing() -> None:
    assert not is_negated(tokenize("A third had gone without food to pay for it."))
    assert is_negated(tokenize("A third managed without any help."))
    assert {"food", "heat"} <= read_changes(tokenize(_SKIPPING_MEALS)).share_about


def test_quizzes_count_as_occasions_every_couple_of_weeks() -> None:
    assert dict(read_amounts(tokenize(_QUIZZES_FLOOR)).by_dimension)[OFTEN] == 3.0
    assert dict(read_amounts(tokenize(_QUIZ_PLENTY)).by_dimension)[OFTEN] == 0.5
