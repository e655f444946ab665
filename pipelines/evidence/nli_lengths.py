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

from lyra.pipelines.evidence.nli_digits import number_or_word
from lyra.pipelines.evidence.nli_units import AREA_M2, LENGTH_CM, SQUARED_M2

# The dimensions a length is read along.
DEPTH: Final = "centimetres"
SPACING: Final = "centimetres apart"
# The widest spacing a floor's advice allows: "should be sited no more than 200 metres
# apart" (decision 0133).
SPACED_AT_MOST: Final = "centimetres apart at most"
_AT_MOST_BEFORE: Final = (("no", "more", "than"), ("not", "more", "than"), ("at", "most"),
                          ("up", "to"), ("within",))  # fmt: skip
# How many to a length: "at least three French marigolds per metre of tomato row" against
# "Two at each end of a six-metre row is all you need" (decision 0133), per centimetre.
DENSITY: Final = "per centimetre"

# Words before a length that make it a spacing: "every 800 feet", "at intervals of 60 to
# 90 metres", "spaced 30 cm".
_SPACED_BY: Final = (("every",), ("intervals", "of"), ("interval", "of"), ("spaced",),
                     ("spaced", "at"))  # fmt: skip
RANGE_JOINS: Final = frozenset({"to", "-", "and"})
# How far past a count the length it is set along may stand, and what doubles it: "Two at
# each end of a six-metre row".
_ALONG_REACH: Final = 8
_EACH_END: Final = ("at", "each", "end")


def is_spacing(tokens: Sequence[str], i: int, unit_at: int) -> bool:
    """The length whose number stands at ``tokens[i]`` and unit at ``tokens[unit_at]`` is
    a spacing: a word of spacing before it, or "apart" after it."""
    return tokens[unit_at + 1 : unit_at + 2] == ["apart"] or any(
        list(tokens[max(0, i - len(words)) : i]) == list(words) for words in _SPACED_BY
    )


# How far one piece laps over the next, no depth: "overlapping each run by at least 15
# cm" against "a couple of centimetres of compost on top is loads" (decision 0145).
OVERLAP: Final = "centimetres overlapped"
_OVERLAPS: Final = frozenset({"overlap", "overlaps", "overlapping", "overlapped"})
_OVERLAP_REACH: Final = 6


def spacing_kind(tokens: Sequence[str], i: int, unit_at: int) -> str | None:
    """`SPACED_AT_MOST`, `SPACING`, `OVERLAP` or None for the length at ``tokens[i]``."""
    if not _OVERLAPS.isdisjoint(tokens[max(0, i - _OVERLAP_REACH) : i]):
        return OVERLAP
    if not is_spacing(tokens, i, unit_at):
        return None
    at_most = any(tuple(tokens[max(0, i - len(words)) : i]) == words for words in _AT_MOST_BEFORE)
    return SPACED_AT_MOST if at_most else SPACING


def widest_spacing(tokens: Sequence[str], start: int) -> float | None:
    """The widest spacing, in centimetres, from ``tokens[start]`` on: the high end of a
    range ("at intervals of 60 to 90 metres" is 9,000); None for none."""
    for i in range(start, len(tokens)):
        low = number_or_word(tokens[i])
        if low is None:
            continue
        high, unit_at = low, i + 1
        if (
            tokens[unit_at : unit_at + 1]
            and tokens[unit_at] in RANGE_JOINS
            and unit_at + 1 < len(tokens)
            and (upper := number_or_word(tokens[unit_at + 1])) is not None
        ):
            high, unit_at = upper, unit_at + 2
        if (
            unit_at < len(tokens)
            and tokens[unit_at] in LENGTH_CM
            and is_spacing(tokens, i, unit_at)
        ):
            return high * LENGTH_CM[tokens[unit_at]]
    return None


def count_along(tokens: Sequence[str], start: int, end: int) -> dict[str, float]:
    """The first count in ``tokens[start:end]`` set along a length named after it ("two
    ... of a six-metre row", "a dozen along 10 metres of hedge"), as a number per
    centimetre; two at each end of it are four."""
    for i in range(start, end):
        counted = number_or_word(tokens[i])
        if counted is None or tokens[i + 1 : i + 2] == ["-"] or tokens[i + 1 : i + 2] == []:
            continue
        if tokens[i + 1] in LENGTH_CM:
            return {}  # a length itself, not a count of things
        for k in range(i + 1, min(end, i + 1 + _ALONG_REACH)):
            length = number_or_word(tokens[k])
            unit_at = k + 2 if tokens[k + 1 : k + 2] == ["-"] else k + 1
            if length and unit_at < len(tokens) and tokens[unit_at] in LENGTH_CM:
                ends = 2.0 if _EACH_END in _windows(tokens[i + 1 : k], len(_EACH_END)) else 1.0
                return {DENSITY: counted * ends / (length * LENGTH_CM[tokens[unit_at]])}
        return {}
    return {}


def per_length(tokens: Sequence[str], at: int) -> float | None:
    """The centimetres of the length that ``tokens[at]`` names after "per" ("per metre");
    None for none."""
    return LENGTH_CM.get(tokens[at]) if at < len(tokens) else None


# How many to an area, per square metre, of the thing counted: "at least 20 larvae per
# square metre" against "a single drop of about five larvae to the square metre ... has
# been plenty" (decision 0134).
PER_AREA: Final = " per square metre"


def per_area(tokens: Sequence[str], at: int) -> float | None:
    """The square metres of the area that ``tokens[at:]`` names after "per" or "to the"
    ("square metre", "m2", "hectare", "100 square metres"); None for none."""
    size = number_or_word(tokens[at]) if at < len(tokens) else None
    if size is not None:
        at += 1
        if tokens[at : at + 1] in (["hundred"], ["thousand"]):
            size *= 100.0 if tokens[at] == "hundred" else 1000.0  # "five hundred hectares"
            at += 1
    unit = tokens[at] if at < len(tokens) else ""
    area = AREA_M2.get(unit)
    if area is None and unit == "square" and at + 1 < len(tokens):
        area = SQUARED_M2.get(tokens[at + 1])
    return None if area is None else area * (size or 1.0)


def _windows(tokens: Sequence[str], size: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[k : k + size]) for k in range(len(tokens) - size + 1)}
