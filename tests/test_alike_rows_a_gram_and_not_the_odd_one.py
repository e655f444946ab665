"""A witness's two groups alike at one time or with nothing to choose between them, a
gram called plenty, so many of the things counted before, and a rate said in words to be
no rarity (decision 0139), each with its control."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.harm_reports import witnessed
from lyra.pipelines.evidence.nli_enough import read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_shares import FEW_KNOWN, NOT_RARE, Share, read_share
from lyra.pipelines.evidence.nli_tokens import tokenize

_BRUISE_TRIAL = (
    "Bruises treated with comfrey cream had cleared in a mean of 8.2 days, against 10.9 "
    "days with a placebo cream (95% CI 1.5 to 3.9)."
)
_BEAN_TRIAL = (
    "Inoculated pea plots gave a mean yield 21% higher than the uninoculated control "
    "plots over three seasons."
)
_ONLINE_TRIAL = (
    "Disputes sent down the online route were settled a median of 4.2 weeks sooner than "
    "those in the paper control arm."
)

A_WITNESS_LIKENESS = [
    pytest.param(
        _BRUISE_TRIAL,
        "I rubbed comfrey cream on the bruise on one arm and put nothing at all on the other, "
        "and both of them had faded in the same week.",
        "refutes",
        id="both-gone-in-the-same-week-nothing-at-all-on-the-other",
    ),
    pytest.param(
        _BRUISE_TRIAL,
        "My two lads both used comfrey cream on their bruises, and both of them had faded "
        "in the same week.",
        "neutral",
        id="control-alike-with-no-plain-group",
    ),
    pytest.param(
        "Bruise area had shrunk by 45% with comfrey cream against 39% with a cold compress "
        "alone, a difference of 6 percentage points (95% CI -3 to 15).",
        "I rubbed comfrey cream on the bruise on one arm and put nothing at all on the other, "
        "and both of them had faded in the same week.",
        "neutral",
        id="no-lead-where-the-interval-spans-nothing",
    ),
    pytest.param(
        "Bruise area had shrunk by 45% more with comfrey cream than with a placebo cream "
        "(95% CI 31 to 59).",
        "I rubbed comfrey cream on the bruise on one arm and put nothing at all on the other, "
        "and both of them had faded in the same week.",
        "refutes",
        id="control-a-lead-whose-interval-stays-above-nothing",
    ),
    pytest.param(
        _BEAN_TRIAL,
        "I inoculated half my pea plots and left the other half bare, weighed every pod, "
        "and there was nothing to choose between the two lots.",
        "refutes",
        id="nothing-to-choose-between-the-other-half-bare",
    ),
    pytest.param(
        _ONLINE_TRIAL,
        "In my experience the online disputes don't get settled a day sooner than the old "
        "paper ones.",
        "refutes",
        id="not-a-day-sooner-than-the-old",
    ),
    pytest.param(
        _ONLINE_TRIAL,
        "In my experience the online disputes get settled a day sooner than the paper ones.",
        "neutral",
        id="control-a-day-sooner-is-a-lead",
    ),
]

AN_AMOUNT_AND_A_SHARE = [
    pytest.param(
        "Use at least 5 g of inoculant per transplant, touching the roots.",
        "Maybe a gram, a pinch between finger and thumb, is plenty for a pepper plant.",
        "refutes",
        id="a-gram-is-plenty-under-a-floor-of-five",
    ),
    pytest.param(
        "Use at least 1 g of inoculant per transplant, touching the roots.",
        "Maybe a gram, a pinch between finger and thumb, is plenty for a pepper plant.",
        "neutral",
        id="control-a-gram-at-the-floor",
    ),
    pytest.param(
        "Fewer than 1 in 50 packets of our seed fails the germination check, so dead seed "
        "is a rare event.",
        "Our club sent off six packets of seed for a germination check, and five of the "
        "six came back dead.",
        "refutes",
        id="five-of-the-six-dead-against-rare",
    ),
    pytest.param(
        "Missed letters are rare, with fewer than 2 in every 100 tenants failing to get "
        "the council's email notice.",
        "Week in, week out we see tenants who never got a single email notice from the "
        "council, and it's dozens of them, not the odd one.",
        "refutes",
        id="not-the-odd-one-against-two-in-a-hundred",
    ),
]


@pytest.mark.parametrize(
    ("first", "second", "label"), [*A_WITNESS_LIKENESS, *AN_AMOUNT_AND_A_SHARE]
)
def test_each_pair_reads_the_same_both_ways(first: str, second: str, label: str) -> None:
    """Each reading of this decision with its control, either text as the premise."""
    assert heuristic_nli(first, second).label == label
    assert heuristic_nli(second, first).label == label


def test_a_witness_likeness_is_a_claim() -> None:
    seen = (
        "I did half my peas with the powder and left the other half bare, and there was "
        "nothing to choose between the two rows."
    )
    assert witnessed(seen) is True
    assert informativeness(seen) == pytest.approx(0.3)
    assert witnessed("Week in, week out we see tenants turned away at the door.") is True
    assert witnessed("I did half my peas with the powder and left the others.") is False


def test_a_gram_is_an_amount() -> None:
    amounts = read_amounts(tokenize("a gram is plenty for a pepper plant"))
    assert amounts is not None
    assert dict(amounts.by_dimension) == {"milligrams": 1000.0}
    assert read_amounts(tokenize("a pinch is plenty for a pepper plant")) is None


def test_so_many_of_those_counted_before() -> None:
    share = read_share(tokenize("we sent six packets and five of the six came back dead"))
    assert share == Share(pytest.approx(83.333, abs=0.001), pytest.approx(83.333, abs=0.001))
    # nothing counted before: "the six" are not named
    assert read_share(tokenize("five of the six came back dead")) is None


def test_a_rate_denied_in_words_is_no_rarity() -> None:
    assert (NOT_RARE.low, NOT_RARE.high) == (10.0, 100.0)
    assert NOT_RARE.low > FEW_KNOWN.low
    assert read_share(tokenize("we see dozens of them, not the odd one")) == NOT_RARE
    assert read_share(tokenize("we see the odd one now and then")) is None
