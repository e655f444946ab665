"""Decision 0122: round eight's blind corpora. Two doses for one age group far apart
("aged 1 to 5 ... 2.5 ml" against "aged 1 to 5 ... a 10 ml spoonful") contradict each
other; "between four and six weeks" is a range and "should last" a duration, as "for" is;
two shares set side by side ("88% ..., against 61% in ...") rank what they are of; "about
the same on both" finds no difference; "compared with placebo or no treatment" negates
nothing. Each corpus pair is read both ways, through the judge and through the sweep; the
controls name another age group, another remedy, another outcome or shares alike."""

from __future__ import annotations

import math

import pytest

from lyra.pipelines.evidence.nli_comparisons import Comparison, read_comparisons
from lyra.pipelines.evidence.nli_doses import Dose, doses_differ, read_dose
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_numbers import measures
from lyra.pipelines.evidence.nli_tokens import tokenize
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates

NATIONAL = (
    "Children aged 1 to 5 years: give half a teaspoon (2.5 ml) of runny honey once a night, "
    "in the 30 minutes before bed."
)
MAKER = (
    "Little ones aged 1 to 5 can take a 10 ml spoonful up to 4 times a day, with the last one "
    "at bedtime."
)
GUIDANCE = "In adults, the restriction step should normally last between four and six weeks."
SHOP = (
    "To give your gut the best chance, we advise staying on the elimination phase for at least "
    "12 weeks before you start reintroducing anything."
)
REVIEW = (
    "Over the final year of follow-up, deposit schemes recovered 88% of PET drinks bottles, "
    "against 61% in the best-performing kerbside-only areas."
)
COUNCILLOR = (
    "On PET bottles, our twin-stream kerbside round is now pulling in more of the plastic "
    "bottles than the deposit scheme manages over the river in Ferrisham."
)
TRIALS = (
    "In seven trials (1,642 children) reporting parent-rated cough frequency, honey reduced the "
    "frequency of night-time coughing by a mean of 1.1 points on the 7-point parent-rated scale "
    "compared with placebo or no treatment."
)
DOCTOR = (
    "When you put honey up against a dummy syrup that's just as sweet and sticky, the kids "
    "cough about the same on both."
)

# (premise, claim): each contradicts the other, both ways
CONTRADICTIONS = [(NATIONAL, MAKER), (REVIEW, COUNCILLOR), (DOCTOR, TRIALS)]


@pytest.mark.parametrize(("first", "second"), CONTRADICTIONS)
def test_the_corpus_pairs_refute_each_other_both_ways(first: str, second: str) -> None:
    for premise, claim in ((first, second), (second, first)):
        assert heuristic_nli(premise, claim).label == "refutes"
        assert contradiction_candidates([("c", claim)], {"f": premise}) == {"c": ["f"]}


def test_a_duration_read_as_a_range_meets_a_longer_one() -> None:
    """The guidance's four to six weeks against the shop's twelve: the shop's fragment
    refutes the guidance's claim (the other way the claim's frame and reason dilute
    what the two share, and the embedder pairs them)."""
    assert heuristic_nli(SHOP, GUIDANCE).label == "refutes"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (GUIDANCE, {"week": [(4.0, 6.0, 9)]}),
        (SHOP, {"week": [(12.0, 12.0, 17)]}),
        ("The trial ran between 2 and 3 years.", {"year": [(2.0, 3.0, 4)]}),
        # "over the last 6 weeks" dates what happened; "for" and "should last" are spans
        ("Over the last 6 weeks, cases rose.", {"week over": [(6.0, 6.0, 3)]}),
        ("The effect lasted for 6 weeks.", {"week": [(6.0, 6.0, 4)]}),
        # "between" two things, not two numbers
        (
            "The gap between 2 groups was 6 weeks.",
            {"group": [(2.0, 2.0, 3)], "week": [(6.0, 6.0, 6)]},
        ),
    ],
)
def test_ranges_between_two_numbers_and_durations_to_last(
    text: str, found: dict[str, list[tuple[float, float, int]]]
) -> None:
    assert measures(tokenize(text)) == found


@pytest.mark.parametrize(
    ("text", "dose"),
    [
        (NATIONAL, Dose((1.0, 5.0), "ml", ((2.5, 2.5),), frozenset({"runni", "honei"}))),
        (MAKER, Dose((1.0, 5.0), "ml", ((10.0, 10.0),), frozenset())),
        (
            "Children aged 12 and over: give two teaspoons (10 ml) once a night.",
            Dose((12.0, math.inf), "ml", ((10.0, 10.0),), frozenset()),
        ),
        # no word of giving; two age groups; no age group
        ("Children aged 1 to 5 drank 250 ml of juice a day.", None),
        ("Aged 1 to 5: 2.5 ml; aged 6 to 11: give 5 ml.", None),
        ("Give half a teaspoon (2.5 ml) of honey before bed.", None),
    ],
)
def test_the_dose_a_text_gives_for_one_age_group(text: str, dose: Dose | None) -> None:
    assert read_dose(tokenize(text)) == dose


@pytest.mark.parametrize(
    ("first", "second", "differ"),
    [
        (NATIONAL, MAKER, True),
        # another age group, a dose close by, another remedy named in both
        ("Children aged 12 and over: give two teaspoons (10 ml) once a night.", NATIONAL, False),
        ("Children aged 1 to 5: give 3 ml of honey at night.", NATIONAL, False),
        ("Children aged 1 to 5 years: give 10 ml of paracetamol syrup.", NATIONAL, False),
        ("Children aged 1 to 5 years: give 10 ml of honey.", NATIONAL, True),
    ],
)
def test_doses_far_apart_for_one_age_group(first: str, second: str, differ: bool) -> None:
    pair = (read_dose(tokenize(first)), read_dose(tokenize(second)))
    assert doses_differ(*pair) is differ
    assert doses_differ(*reversed(pair)) is differ


def test_two_shares_side_by_side_rank_what_they_are_of() -> None:
    assert read_comparisons(tokenize(REVIEW)) == [
        Comparison(
            sign=1,
            denied=False,
            leader=frozenset({"recover", "pet", "schem", "deposit", "drink", "bottl"}),
            compared=frozenset({"perform", "kerbsid", "best"}),
            measure=frozenset({"recover", "pet", "schem", "deposit", "drink", "bottl"}),
            axis="amount",
        )
    ]
    # shares alike lead nowhere; a share with no second one beside it compares nothing
    assert (
        read_comparisons(tokenize("31% of deposit schemes, against 30% of kerbside areas.")) == []
    )
    assert read_comparisons(tokenize("Deposit schemes recovered 88% of PET bottles.")) == []


def test_shares_in_the_same_order_agree() -> None:
    same_order = (
        "On PET bottles, the deposit scheme over the river is pulling in more of the plastic "
        "bottles than our twin-stream kerbside round."
    )
    assert heuristic_nli(REVIEW, same_order).label != "refutes"
    assert heuristic_nli(same_order, REVIEW).label != "refutes"


@pytest.mark.parametrize(
    ("text", "unchanged"),
    [
        (DOCTOR, {"sticki", "cough", "kid"}),
        ("Children given honey coughed about the same as children given a placebo syrup.",
         {"given", "cough", "children", "honei"}),
    ],
)  # fmt: skip
def test_about_the_same_on_both_is_no_change(text: str, unchanged: set[str]) -> None:
    assert no_change(tokenize(text)) == unchanged


def test_the_same_on_another_outcome_contradicts_nothing() -> None:
    other = "When you put honey up against a dummy syrup, the kids sleep about the same on both."
    assert heuristic_nli(other, TRIALS).label != "refutes"
    assert contradiction_candidates([("c", TRIALS)], {"f": other}) == {}
