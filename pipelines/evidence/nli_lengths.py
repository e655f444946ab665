"""Lengths an amount is read in (`nli_enough`): a depth ("mulch at least 7.5 cm deep") or
a spacing, how far apart a thing is put ("one hump every 800 feet", "at intervals of 60 to
90 metres", "30 cm apart"; decision 0133).

A spacing counts the other way from other amounts: the wider it is, the fewer of the
thing there are. So the widest spacing a text says something should be put at is a
ceiling, and a spacing at least twice as wide called enough ("Honestly, one hump every
800 feet or so is plenty") refutes it: "Humps should be placed in a series at intervals
of 60 to 90 metres".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from lyra.pipelines.evidence.nli_numbers import CARDINALS, number
from lyra.pipelines.evidence.nli_units import LENGTH_CM

# The dimensions a length is read along.
DEPTH: Final = "centimetres"
SPACING: Final = "centimetres apart"

# Words before a length that make it a spacing: "every 800 feet", "at intervals of 60 to
# 90 metres", "spaced 30 cm".
_SPACED_BY: Final = (("every",), ("intervals", "of"), ("interval", "of"), ("spaced",),
                     ("spaced", "at"))  # fmt: skip
_RANGE_JOINS: Final = frozenset({"to", "-", "and"})


def is_spacing(tokens: Sequence[str], i: int, unit_at: int) -> bool:
    """The length whose number stands at ``tokens[i]`` and unit at ``tokens[unit_at]`` is
    a spacing: a word of spacing before it, or "apart" after it."""
    return tokens[unit_at + 1 : unit_at + 2] == ["apart"] or any(
        list(tokens[max(0, i - len(words)) : i]) == list(words) for words in _SPACED_BY
    )


def widest_spacing(tokens: Sequence[str], start: int) -> float | None:
    """The widest spacing, in centimetres, from ``tokens[start]`` on: the high end of a
    range ("at intervals of 60 to 90 metres" is 9,000); None for none."""
    for i in range(start, len(tokens)):
        low = _value(tokens[i])
        if low is None:
            continue
        high, unit_at = low, i + 1
        if (
            tokens[unit_at : unit_at + 1]
            and tokens[unit_at] in _RANGE_JOINS
            and unit_at + 1 < len(tokens)
            and (upper := _value(tokens[unit_at + 1])) is not None
        ):
            high, unit_at = upper, unit_at + 2
        if (
            unit_at < len(tokens)
            and tokens[unit_at] in LENGTH_CM
            and is_spacing(tokens, i, unit_at)
        ):
            return high * LENGTH_CM[tokens[unit_at]]
    return None


def _value(token: str) -> float | None:
    value = number(token)
    return float(CARDINALS[token]) if value is None and token in CARDINALS else value
