""" "than a" opens what is compared unless a count, a fraction or a span follows it
(decision 0111): "more travellers than a standard antihistamine tablet" is a comparison,
"more than a third of" and "less than a full year" are bounds."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.nli_comparisons import read_comparisons
from lyra.pipelines.evidence.nli_tokens import tokenize


@pytest.mark.parametrize(
    ("text", "sign", "compared", "measure"),
    [
        (
            "Wristbands prevented motion sickness in more travellers than a standard "
            "antihistamine tablet.",
            1,
            {"standard", "antihistamin", "tablet"},
            {"traveller"},
        ),
        (
            "Heat pump dryers use less electricity per load than a vented dryer.",
            -1,
            {"vent", "dryer"},
            {"electriciti", "load"},
        ),
    ],
)
def test_than_a_thing_is_what_is_compared(
    text: str, sign: int, compared: set[str], measure: set[str]
) -> None:
    (found,) = read_comparisons(tokenize(text))
    assert (found.sign, found.axis, set(found.compared), set(found.measure)) == (
        sign,
        "amount",
        compared,
        measure,
    )


@pytest.mark.parametrize(
    "text",
    [
        "The levy raised more than a third of its target in the first year.",
        "Fewer than a dozen schools took part.",
        "Most pupils stayed in the scheme for less than a full year.",
        "Side effects lasted for more than a few days in 4 of 120 patients.",
        "Fewer than 1 in 1,000 patients had a serious reaction.",
    ],
)
def test_than_a_count_is_a_bound(text: str) -> None:
    assert read_comparisons(tokenize(text)) == []
