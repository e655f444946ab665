"""Two texts' numbers set against each other: where they disagree, unit by unit, and
the bound a share stands under ("fewer than 1 in 20", "more than 20 %"). Moved from
`nli_numbers` as it neared STYLE's 40 KB (decision 0142)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from lyra.pipelines.evidence.nli_numbers import NUMBER_TOLERANCE, measures, number


def quantities(tokens: Sequence[str]) -> dict[str, list[tuple[float, float]]]:
    """Numbers as (low, high) intervals grouped by their unit (`measures` without the
    positions)."""
    return {
        unit: [(low, high) for low, high, _ in values] for unit, values in measures(tokens).items()
    }


def _close(a: tuple[float, float, int], b: tuple[float, float, int]) -> bool:
    """Intervals overlap, or their gap is within 10 % of the largest finite magnitude."""
    gap = max(0.0, a[0] - b[1], b[0] - a[1])
    scale = max(abs(v) for v in (*a[:2], *b[:2]) if v != math.inf)
    return gap <= NUMBER_TOLERANCE * scale


# A bound before a share: "fewer than 1 in 20" is any share up to 5 %, which "about 3%"
# does not contradict; "more than 20 %" any share from 20 on (decisions 0113, 0114).
# The words right before the number: two that end in "than" or "to", or one.
_AT_MOST_BEFORE = (["fewer", "than"], ["less", "than"], ["up", "to"], ["at", "most"])
_AT_LEAST_BEFORE = (["more", "than"], ["greater", "than"], ["at", "least"])
_AT_MOST_WORDS = frozenset({"under", "below", "max", "maximum"})
_AT_LEAST_WORDS = frozenset({"over", "above", "minimum"})
_NEGATIONS = frozenset({"no", "not"})


def bound_before(tokens: Sequence[str], at: int) -> Literal["at most", "at least", ""]:
    """Which bound the words right before the number at ``at`` set: "at most" for "fewer
    than", "up to", "under", "a maximum of"; "at least" for "more than", "over"; a "no"
    or "not" before them turns it ("no more than 5" is at most 5); "" for none."""
    two = list(tokens[max(0, at - 2) : at])
    if two[-1:] == ["of"] and two[:1] and two[0] in ("maximum", "minimum"):
        two, last, start = two[:1], two[0], at - 2  # "a maximum of 5%"
    else:
        last = two[-1] if two else ""
        start = at - 2 if two in _AT_MOST_BEFORE or two in _AT_LEAST_BEFORE else at - 1
    if two in _AT_MOST_BEFORE or last in _AT_MOST_WORDS:
        bound: Literal["at most", "at least", ""] = "at most"
    elif two in _AT_LEAST_BEFORE or last in _AT_LEAST_WORDS:
        bound = "at least"
    else:
        return ""
    if start > 0 and tokens[start - 1] in _NEGATIONS:
        return "at least" if bound == "at most" else "at most"
    return bound


def _bounded(tokens: Sequence[str], value: tuple[float, float, int]) -> tuple[float, float, int]:
    """``value`` widened by the bound that stands right before it (`bound_before`)."""
    low, high, at = value
    bound = bound_before(tokens, at)
    if bound == "at most":
        return 0.0, high, at
    if bound == "at least":
        return low, math.inf, at
    return value


def disagreeing_measures(
    hypothesis: Sequence[str], sentence: Sequence[str]
) -> tuple[list[int], list[int]]:
    """Where the two texts' numbers disagree: for each unit both quantify in which a
    hypothesis value has no close sentence value, the positions of that unit's numbers
    in the hypothesis and in the sentence (both lists empty when they agree)."""
    h_units, s_units = measures(hypothesis), measures(sentence)
    if "=" in s_units:
        # A stated value is matched by any number of the sentence: "TOTPAR6 was 15.8 for
        # the combination, 12.1 for ibuprofen" states 12.1 too.
        s_units["="] = [
            (v, v, i) for i, tok in enumerate(sentence) if (v := number(tok)) is not None
        ]
    h_at: list[int] = []
    s_at: list[int] = []
    for unit in h_units.keys() & s_units.keys():
        # a bound widens a share only: "up to 3 grams of ginger a day" is a limit, which
        # "the maximum amount considered safe is 1 gram a day" contradicts
        hs = [_bounded(hypothesis, h) if unit == "%" else h for h in h_units[unit]]
        ss = [_bounded(sentence, s) if unit == "%" else s for s in s_units[unit]]
        if any(not any(_close(h, s) for s in ss) for h in hs):
            h_at += [at for _, _, at in h_units[unit]]
            s_at += [at for _, _, at in s_units[unit]]
    return h_at, s_at
