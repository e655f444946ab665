"""Advice a claim may be, and frames around what a sentence states (decision 0105): a
guideline's "offer" with a dose, a limit for those taking a drug, what a relative's
doctor said, the speaker's own view; a count as a verb's subject."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claim_advice import DOSING_INSTRUCTION, main_clause
from lyra.pipelines.evidence.claims import EXTRACTIVE_MIN_CHARS, informativeness, is_rejected_claim


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        # a guideline's instruction to prescribers, after whom it is for
        (
            "For adults over 65 starting the tablets, offer 10 mg once a day as the usual "
            "first dose.",
            0.7,
        ),
        # a limit for those taking a drug, a size with a word before its unit
        (
            "Drink no more than one small glass of grapefruit juice a day if you take amlodipine.",
            0.5,
        ),
        # what a relative's doctor said is the doctor's statement
        (
            "After her second fall, my dad's consultant said sleeping tablets make falls more "
            "likely in anyone over 80 because they slow reactions.",
            0.75,
        ),
        # the speaker's own view frames a caution for the reader's case
        (
            "My own view is that if you're over ninety and have never had a stroke, you should "
            "not be started on aspirin.",
            0.6,
        ),
        # still an offer, and still the writer's story
        ("Use our app for 30 days free.", 0.0),
        ("My GP said I should rest for a week.", 0.0),
    ],
)
def test_advice_that_is_a_finding(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)


def test_an_opening_that_names_whom_an_instruction_is_for() -> None:
    sentence = "For adults over 65 starting the tablets, offer 10 mg once a day."
    assert main_clause(sentence) == "offer 10 mg once a day."
    assert DOSING_INSTRUCTION.match(main_clause(sentence)) is not None
    assert DOSING_INSTRUCTION.match("Take 2 tablets a day with our free trial pack.") is None


def test_an_equality_is_a_comparison() -> None:
    """A verdict with an equality counts the comparison too (decision 0105)."""
    assert informativeness(
        "Bright morning light is as effective as melatonin for eastward flights."
    ) == pytest.approx(0.5)
    assert informativeness(
        "But here's my honest experience: in the wards I've worked with, a 12-hour rota gives "
        "nurses just about the same rest as an 8-hour one."
    ) == pytest.approx(0.3)


def test_a_count_is_a_verbs_subject() -> None:
    sentence = (
        "Of 100 adults with asthma using the inhaler for a year, about 6 avoid a stay in hospital."
    )
    assert (
        is_rejected_claim(sentence, "Does the inhaler help asthma?", min_chars=EXTRACTIVE_MIN_CHARS)
        is None
    )
    assert (
        is_rejected_claim("Chapter 3 Results", "Does it help?", min_chars=EXTRACTIVE_MIN_CHARS)
        == "too_short"
    )
