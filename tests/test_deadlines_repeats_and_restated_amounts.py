"""A deadline advised against a longer time called enough, a thing done once more named
as "a second" and as "again", an amount restated in other units, and "pretty much
every" as a witness saw it (decision 0140), each with its control."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.nli_deadlines import advised_deadline, enough_deadline
from lyra.pipelines.evidence.nli_enough import read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_shares import ALL_BUT_A_FEW, read_share
from lyra.pipelines.evidence.nli_tokens import tokenize

_REPAIR_STANDARD = (
    "Landlords should make a broken boiler safe within 24 hours and should fix any other "
    "reported leak within 3 days, and should inspect the flat at least once a year."
)
_RELAPSE_FIGURE = (
    "Fewer than 4 in every 100 drivers who finish the awareness course are caught "
    "speeding a second time within three years."
)
_BIN_RULE = (
    "A household should only be fined once its bin has been left out on at least 8 "
    "collections, equal to four full calendar weeks, within one quarter."
)

PAIRS = [
    pytest.param(
        _REPAIR_STANDARD,
        "To be fair, having the drip sorted within a fortnight is fine, nobody in our "
        "block expects a plumber the same afternoon.",
        "refutes",
        id="a-fortnight-called-fine-against-an-advised-three-days",
    ),
    pytest.param(
        _REPAIR_STANDARD,
        "To be fair, having the drip sorted within 4 days is fine, nobody in our block "
        "expects a plumber the same afternoon.",
        "neutral",
        id="control-four-days-is-not-twice-three",
    ),
    pytest.param(
        _REPAIR_STANDARD,
        "Having the drip sorted within a fortnight isn't good enough, and nobody in our "
        "block should have to wait that long.",
        "neutral",
        id="control-a-fortnight-denied-enough",
    ),
    pytest.param(
        _RELAPSE_FIGURE,
        "Most of the drivers I taught were flashed by the same camera again before Christmas.",
        "refutes",
        id="most-caught-again-against-few-caught-a-second-time",
    ),
    pytest.param(
        _RELAPSE_FIGURE,
        "Most of the drivers I taught were flashed by the same camera before Christmas.",
        "neutral",
        id="control-no-second-time-named",
    ),
    pytest.param(
        _BIN_RULE,
        "Two weeks of bins left on the pavement without a reason is plenty to send the "
        "fine, and the letter can go out the next morning.",
        "refutes",
        id="two-weeks-called-plenty-under-four-weeks-restated",
    ),
    pytest.param(
        "A household should only be fined once its bin has been left out on at least 8 "
        "collections within one quarter.",
        "Two weeks of bins left on the pavement without a reason is plenty to send the "
        "fine, and the letter can go out the next morning.",
        "neutral",
        id="control-collections-not-restated-in-weeks",
    ),
    pytest.param(
        "Fraying is rare: fewer than 3 in every 100 nets we supply are returned torn "
        "before their second winter.",
        "Pretty much every net on the allotments by the canal was in tatters by March, and "
        "we were untangling shreds from the brambles for weeks.",
        "refutes",
        id="pretty-much-every-one-in-tatters-against-rare-fraying",
    ),
]


@pytest.mark.parametrize(("first", "second", "label"), PAIRS)
def test_each_pair_reads_the_same_both_ways(first: str, second: str, label: str) -> None:
    """Each reading of this decision with its control, either text as the premise."""
    assert heuristic_nli(first, second).label == label
    assert heuristic_nli(second, first).label == label


def test_the_loosest_advised_deadline_and_the_one_called_enough() -> None:
    assert advised_deadline(tokenize(_REPAIR_STANDARD)) == pytest.approx(3.0)
    # no advice: a deadline met is no deadline set
    assert advised_deadline(tokenize("They fixed the leak within 3 days.")) is None
    assert enough_deadline(tokenize("within a fortnight is fine by me")) == pytest.approx(14.0)
    assert enough_deadline(tokenize("within a fortnight is not enough")) is None
    assert enough_deadline(tokenize("They came within a fortnight.")) is None


def test_an_amount_restated_is_read_as_restated() -> None:
    amounts = read_amounts(tokenize(_BIN_RULE))
    assert amounts is not None
    assert dict(amounts.by_dimension) == {"times in all": 8.0, "days in all": 28.0}
    # "equal to" with no count after it restates nothing
    plain = read_amounts(
        tokenize("A bin should be fined after at least 8 collections, equal to the rule.")
    )
    assert plain is not None
    assert dict(plain.by_dimension) == {"times in all": 8.0}


def test_a_condition_does_not_deny_enough() -> None:
    amounts = read_amounts(tokenize("Two days off without a note is plenty for a letter."))
    assert amounts is not None
    assert dict(amounts.by_dimension) == {"times in all": 2.0}
    assert read_amounts(tokenize("Two days off is not enough for a letter.")) is None


def test_pretty_much_every_one_the_witness_saw() -> None:
    seen = "Pretty much every net on our allotment was torn by March, we were gutted."
    assert read_share(tokenize(seen)) == ALL_BUT_A_FEW
    # no witness: a general claim, no share
    assert read_share(tokenize("Pretty much every net was torn by March.")) is None
