"""How long an effect lasts: a floor on its duration against its end seen sooner
(decision 0128).

A guideline says "Companies should plan on the reduction in household demand lasting for
at least five years after a meter is fitted"; a listener says "By the second summer most
of those homes were using every bit as much as they did before the meter went in". The
one sets a floor on how long the effect lasts, the other sees it gone well inside that
floor: they contradict, though they share no word of what changed. Read here: the floor
(a verb of lasting, then "at least" or "a minimum of" and a span) and the end (a time, by
an ordinal or a span, and a word that the effect is gone or things are back as before).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from lyra.pipelines.evidence.nli_numbers import CARDINALS, ORDINALS, number

# Days in a span's unit; a season or a year counted by its ordinal ("by the second
# summer") is that many years.
_UNIT_DAYS: Final = {"day": 1.0, "days": 1.0, "week": 7.0, "weeks": 7.0, "month": 30.0,
                     "months": 30.0, "year": 365.0, "years": 365.0}  # fmt: skip
_YEARLY: Final = frozenset({"year", "summer", "winter", "spring", "autumn", "season"})
_LASTING: Final = frozenset(
    {"last", "lasts", "lasting", "lasted", "persist", "persists", "persisting", "sustained",
     "endure", "endures", "enduring"}
)  # fmt: skip
# How far past the verb of lasting its floor may begin ("lasting for at least").
_FLOOR_REACH: Final = 3
# Words that say the effect is gone: "had worn off", "faded", "back to where they were".
_GONE: Final = frozenset({"faded", "vanished", "disappeared", "evaporated"})
_WORN: Final = frozenset({"worn", "wore", "wears", "wearing"})
# "every bit as much as they did before", "the same as before": how far "before" may
# follow the equality.
_BEFORE_REACH: Final = 6
# The end must come well inside the floor: at most this share of it.
_WELL_INSIDE: Final = 0.5


def _count(token: str) -> float | None:
    value = number(token)
    if value is not None:
        return value
    return float(CARDINALS[token]) if token in CARDINALS else None


def lasting_floor(tokens: Sequence[str]) -> float | None:
    """The days an effect is said to last at least ("lasting for at least five years");
    None for none."""
    for i, tok in enumerate(tokens):
        if tok not in _LASTING:
            continue
        for k in range(i + 1, min(len(tokens), i + 1 + _FLOOR_REACH)):
            if tokens[k : k + 2] in (["at", "least"], ["a", "minimum"]):
                j = k + 2 + (tokens[k + 2 : k + 3] == ["of"])
                value = _count(tokens[j]) if j < len(tokens) else None
                unit = tokens[j + 1] if j + 1 < len(tokens) else ""
                if value and unit in _UNIT_DAYS:
                    return value * _UNIT_DAYS[unit]
    return None


def _time_of(tokens: Sequence[str]) -> float | None:
    """The days by which the text sees something: "by the second summer", "after 18
    months", "within a year", "a year later"; None for none."""
    for i, tok in enumerate(tokens):
        if tok in ("by", "in", "after", "within") and tokens[i + 1 : i + 2] == ["the"]:
            ordinal = ORDINALS.get(tokens[i + 2]) if i + 2 < len(tokens) else None
            unit = tokens[i + 3] if i + 3 < len(tokens) else ""
            if ordinal and unit in _YEARLY:
                return ordinal * 365.0
            if ordinal and unit in _UNIT_DAYS:
                return ordinal * _UNIT_DAYS[unit]
        if tok in ("by", "after", "within") and i + 2 < len(tokens):
            value = 1.0 if tokens[i + 1] in ("a", "one") else _count(tokens[i + 1])
            if value and tokens[i + 2] in _UNIT_DAYS:
                return value * _UNIT_DAYS[tokens[i + 2]]
    return None


def _gone(tokens: Sequence[str]) -> bool:
    """The effect is gone: "had worn off", "faded", "back to where they were", "every bit
    as much as they did before", "the same as before"."""
    for i, tok in enumerate(tokens):
        if tok in _GONE or (tok in _WORN and tokens[i + 1 : i + 2] == ["off"]):
            return True
        if tok == "back" and tokens[i + 1 : i + 2] == ["to"]:
            return True
        alike = (tok == "as" and tokens[i + 1 : i + 2] in (["much"], ["many"])) or (
            tok == "same" and tokens[i - 1 : i] == ["the"]
        )
        if alike and "before" in tokens[i + 2 : i + 2 + _BEFORE_REACH]:
            return True
    return False


def worn_off_by(tokens: Sequence[str]) -> float | None:
    """The days by which the text sees the effect gone ("By the second summer most of
    those homes were using every bit as much as they did before"); None for none."""
    if not _gone(tokens):
        return None
    return _time_of(tokens)


def worn_off_inside_floor(first: Sequence[str], second: Sequence[str]) -> bool:
    """One text sets a floor on how long the effect lasts, the other sees it gone well
    inside it."""
    for floored, seen in ((first, second), (second, first)):
        floor = lasting_floor(floored)
        if floor is None:
            continue
        end = worn_off_by(seen)
        if end is not None and end <= _WELL_INSIDE * floor:
            return True
    return False
