"""What a share or a count counts, and intervals and percentages read off tokens: "half
the trees" counts trees, "one session in eight" sessions, "(95% CI -2 to 16)" spans zero,
"56 percent" is a percentage. Moved from `nli_numbers` as it passed STYLE's 40 KB
(decision 0145)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from lyra.pipelines.evidence.nli_halves import half_the_noun
from lyra.pipelines.evidence.nli_numbers import (
    PERCENT_WORDS,
    described,
    number,
    of_so_many,
    one_of_whom,
)

# An interval from below zero to above it: "(95% CI -2 to 16)", read on tokens ("95% ci -
# 2 to 16"): the difference it bounds may be none (decision 0139).
_SPANS_ZERO: Final = re.compile(r"\b(?:ci|confidence interval) - [\d.]+%? to [\d.]")


def spans_zero(tokens: Sequence[str]) -> bool:
    """``tokens`` give a confidence interval that runs from below zero to above it."""
    return _SPANS_ZERO.search(" ".join(tokens)) is not None


def counted_after_half(tokens: Sequence[str]) -> list[str]:
    """The plural nouns "half the" counts, as tokens ("a bit over half the trees still
    going"): what the share is of, not what happened to it."""
    return [
        tokens[at]
        for i in range(len(tokens))
        if tokens[i] == "half" and (at := half_the_noun(tokens, i))
    ]


def counted_one_in(tokens: Sequence[str]) -> list[str]:
    """The words "one ... in" counts, as tokens ("one session in eight": session): what
    the share is of, not what happened to it (decision 0144)."""
    return [
        tok
        for i in range(len(tokens))
        if (at := one_of_whom(tokens, i))
        for tok in tokens[i + 1 : at]
    ]


def counted_described(tokens: Sequence[str]) -> list[str]:
    """The words of a group "of the M" counts where one word describes it ("two of our
    three route leaders": route, leaders): what the share is of (decision 0147)."""
    return [
        tok
        for i in range(len(tokens))
        if tokens[i] == "of" and (k := of_so_many(tokens, i)) and described(tokens, k + 1)
        for tok in tokens[k + 1 : k + 3]
    ]


def percent_at(tokens: Sequence[str], i: int) -> tuple[float, int] | None:
    """The percentage at ``tokens[i]`` ("56%", "56 percent": `numbers_in_digits` makes
    "per cent" one word) and the index after it."""
    tok = tokens[i]
    if tok.endswith("%") and (value := number(tok[:-1])) is not None:
        return value, i + 1
    if (
        i + 1 < len(tokens)
        and tokens[i + 1] in PERCENT_WORDS
        and (value := number(tok)) is not None
    ):
        return value, i + 2
    return None
