"""Round thirty-one's readings (issue 12, decision 0132).

Round thirty-one (tests/corpora/night_splints_heel, pretrial_supervision,
orchard_wildflowers, teen_sleep_lessons), written blind after round thirty's rules. What
the rules missed there and read now, with controls: "just as stiff and sore ... three
months later as when they started" (a second adjective and a setting before the second
"as"); "no more sleep ... than they had in September" (an earlier month); a worry about
not doing something is no denial; contacts and calls as occasions; the people on the
writer's caseload; a show of hands of the writer's and its finding.
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.nli_enough import OFTEN, SPAN, Amounts, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_tokens import is_negated, tokenize

_AS_STIFF = (
    "She said most of the patients she has fitted with braces were just as stiff and sore on "
    "their first steps out of bed two months later as when they started."
)
_PAIN_LOWER = (
    "At 8 weeks, first-step pain was 1.9 points lower on a 0-10 scale in the brace group than "
    "in the control group (95% CI 1.1 to 2.7)."
)
_NO_MORE_SLEEP = (
    "The head teacher said the pupils' own sleep diaries showed they were getting no more "
    "sleep on school nights than they had in October."
)
_SLEEP_LONGER = (
    "At 10 weeks, measured school-night sleep was 22 minutes longer in intervention schools "
    "than in control schools (95% CI 10 to 34)."
)
_TWO_CONTACTS = (
    "During the first ten weeks, supervised defendants should have a minimum of two contacts "
    "per week with their case worker."
)
_A_CALL_FORTNIGHTLY = (
    "For most of the people on my caseload, a phone call every other week is plenty."
)
_HANDS_UP = (
    "When I did a quick show of hands after lesson three, roughly a third of the class said "
    "they were now lying awake worrying about not getting enough sleep."
)
_WORRY_RARE = (
    "In our pilot schools, fewer than 2 in every 100 pupils told us the course left them more "
    "worried about their sleep."
)


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (_PAIN_LOWER, _AS_STIFF),
        (_AS_STIFF, _PAIN_LOWER),
        (_SLEEP_LONGER, _NO_MORE_SLEEP),
        (_NO_MORE_SLEEP, _SLEEP_LONGER),
        (_TWO_CONTACTS, _A_CALL_FORTNIGHTLY),
        (_A_CALL_FORTNIGHTLY, _TWO_CONTACTS),
        (_WORRY_RARE, _HANDS_UP),
        (_HANDS_UP, _WORRY_RARE),
    ],
)
def test_round_thirty_one_contradictions_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"


def test_a_far_likeness_needs_an_earlier_time_or_a_group_that_had_none() -> None:
    assert {"stiff", "sor"} <= no_change(tokenize(_AS_STIFF))
    far_other = (
        "They were just as stiff and sore on their first steps out of bed two months later "
        "as their physio."
    )
    assert no_change(tokenize(far_other)) == set()


def test_an_earlier_month_after_than() -> None:
    assert no_change(tokenize(_NO_MORE_SLEEP)) == {"sleep", "school", "night"}
    # a month of another group is no earlier time of theirs
    other = "They were getting no more sleep on school nights than pupils in September."
    assert no_change(tokenize(other)) == set()


def test_a_worry_about_not_doing_is_no_denial() -> None:
    assert not is_negated(tokenize("They lay awake worrying about not getting enough sleep."))
    assert not is_negated(tokenize("The fear of not finding work kept her awake."))
    assert is_negated(tokenize("They were not getting enough sleep."))


def test_contacts_and_calls_are_occasions() -> None:
    assert read_amounts(tokenize(_TWO_CONTACTS)) == Amounts(True, ((SPAN, 70.0), (OFTEN, 2.0)))
    # a call every other week is how often, no count of calls in all (decision 0141)
    assert read_amounts(tokenize(_A_CALL_FORTNIGHTLY)) == Amounts(False, ((OFTEN, 0.5),))


# a share in words of what the class said is also how often a witness heard it (decision
# 0135): 0.6 where 0.35 before
@pytest.mark.parametrize(("sentence", "score"), [(_A_CALL_FORTNIGHTLY, 0.4), (_HANDS_UP, 0.6)])
def test_the_writers_caseload_and_show_of_hands_are_claims(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)


@pytest.mark.parametrize(
    "sentence",
    [
        # after the full run: a comma splice of the writer's own doings stays their story
        "Physio has helped a bit, I do my exercises most days, and I take paracetamol.",
        "Since the new guideline came out, I have had the conversation perhaps forty times.",
        "But if the routine bath was doing a great deal, I would have expected to see it.",
    ],
)
def test_a_comma_splice_of_the_writers_doings_is_no_aside(sentence: str) -> None:
    assert informativeness(sentence) == 0.0
