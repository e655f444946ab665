"""When and how often, as the enough-and-floor reader (`nli_enough`) counts them: one
occasion with its length joined before it, "each week" after a count, days that say how
long a course lasts, "a day" after a count, minutes "a week", and sessions "of 20
minutes each week". Moved out of `nli_enough` as it neared STYLE's 40 KB (decision
0148); the readings are the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from lyra.pipelines.evidence.nli_digits import number_or_word
from lyra.pipelines.evidence.nli_halves import looks_plural
from lyra.pipelines.evidence.nli_often import (
    MINUTES_A_DAY,
    ONE,
    WHOLE,
    length_joined,
    occasion_at,
    often_at,
)
from lyra.pipelines.evidence.nli_ratios import count
from lyra.pipelines.evidence.nli_units import (
    EACH_MINUTES,
    OCCASIONS,
    PER_WORDS,
    SPAN_DAYS,
)

_PER_WEEK_REACH: Final = 5  # "12 hours of supervised horticultural work a week" (0146)


_A_PERIOD: Final = frozenset({"a", "an", "per", "every", "each"})


def one_timed_occasion(tokens: Sequence[str], i: int) -> bool:
    """``tokens[i]`` opens one occasion with its length joined before it: "one two-hour
    evening session", "a 90-minute session"."""
    if tokens[i] not in ONE or tokens[i + 2 : i + 3] != ["-"]:
        return False
    length = tokens[i + 1] == "half" or number_or_word(tokens[i + 1]) is not None
    if not length or tokens[i + 3 : i + 4] == []:
        return False
    if tokens[i + 3] not in EACH_MINUTES:
        return False
    end = next((e for k in (i + 4, i + 5) if (e := occasion_at(tokens, k))), 0)
    # not one a week: "One two-hour session a week", "a single 20-minute session once a
    # week" is how often
    return (
        bool(end)
        and not (tokens[end : end + 1] and tokens[end] in _A_PERIOD)
        and often_at(tokens, end) is None
    )


_EACH_REACH: Final = 4


def each_after(tokens: Sequence[str], at: int) -> tuple[float, int] | None:
    """ "each <period>" or "every <period>" within `_EACH_REACH` plain words of ``at``:
    how many times a week one a period is, and where it ends; None for none."""
    for k in range(at, min(len(tokens), at + _EACH_REACH + 1)):
        if tokens[k] in ("each", "every"):
            # a period, not a count of them: "four times in the season, every 10 to 14
            # days" is how far apart, no four a fortnight (decision 0143)
            counted = k + 1 < len(tokens) and count(tokens[k + 1]) is not None
            return None if counted else often_at(tokens, k)
        if not tokens[k].isalpha() or tokens[k] in ("and", "or", "but"):
            return None
    return None


# "for 14 days", "for two or three nights": days and nights a course lasts, not occasions
# counted (decision 0131); "for a minimum of 10 days", "expected to last at least five
# sitting days", "allow at least 28 working days" (decision 0136).
_FOR_REACH: Final = 4
_SPAN_VERBS: Final = frozenset({"for", "last", "lasts", "lasting", "allow", "allowing"})


def for_a_span(tokens: Sequence[str], i: int) -> bool:
    """The number at ``i`` counts days or nights after "for" or a verb of lasting: how
    long, not how often."""
    unit = i + 2 if tokens[i + 1 : i + 2] != [] and tokens[i + 1] in WHOLE else i + 1
    return (
        tokens[unit : unit + 1] != []
        and tokens[unit] in SPAN_DAYS
        and not _SPAN_VERBS.isdisjoint(tokens[max(0, i - _FOR_REACH) : i])
    )


def a_rate(tokens: Sequence[str], i: int) -> bool:
    """ "a day" at ``i`` says how many a day of the count or the things before it, no span:
    "taking at least 6 a day", "Two menthol lozenges a day" (decision 0143)."""
    return (
        tokens[i] in ("a", "an", "per")
        and i > 0
        and (
            number_or_word(tokens[i - 1]) is not None
            or looks_plural(tokens[i - 1])
            # "One 20-minute session a week" (decision 0145)
            or tokens[i - 1] in OCCASIONS
        )
    )


def per_week(tokens: Sequence[str], at: int) -> tuple[float, int]:
    """How many times a week "a week" or "a day" right after minutes (``tokens[at]``)
    counts them, past "of <what>": "150 minutes of exercise a week" (7 for a day); 0
    for neither ("a 20-minute session once a week" is each time). And where they end."""
    k = at
    if tokens[k : k + 1] == ["of"]:
        k = next(
            (
                j
                for j in range(k + 1, min(len(tokens), k + _PER_WEEK_REACH))
                if tokens[j] in PER_WORDS
            ),
            len(tokens),
        )
    if tokens[k : k + 1] and tokens[k] in ("a", "per", "each") and tokens[k + 1 : k + 2]:
        return {"week": 1.0, "day": 7.0}.get(tokens[k + 1], 0.0), k + 2
    return 0.0, at


def sessions_of_a_length(tokens: Sequence[str], at: int) -> tuple[float, float, int] | None:
    """Occasions that end at ``tokens[at]`` each "of" a length, counted by a period: "of
    20 minutes each week" is (1 a week, 20 minutes, where it ends); None otherwise."""
    if tokens[at : at + 1] != ["of"] or at + 2 >= len(tokens):
        return None
    value, unit = count(tokens[at + 1]), tokens[at + 2]
    if value is None or unit not in EACH_MINUTES:
        return None
    per, past = per_week(tokens, at + 3)
    return (per, value * EACH_MINUTES[unit], past) if per else None


# A day's or a week's wear of one thing, each thing's time: "a single day's wear per
# plaster is plenty" against "at least 48 hours before changing it" (decision 0148).
_WEAR_LENGTHS: Final = {"day's": MINUTES_A_DAY, "week's": 7 * MINUTES_A_DAY}
_WEAR: Final = frozenset({"wear", "use"})
_WHOLE_WEAR: Final = frozenset({"single", "full", "whole"})


def a_wear(tokens: Sequence[str], i: int) -> tuple[float, int] | None:
    """The minutes of "a (single) day's wear" opening at ``tokens[i]``, and where it ends;
    None for none."""
    if tokens[i] not in ("a", "one"):
        return None
    k = i + 2 if tokens[i + 1 : i + 2] != [] and tokens[i + 1] in _WHOLE_WEAR else i + 1
    if tokens[k : k + 1] == [] or tokens[k] not in _WEAR_LENGTHS:
        return None
    if tokens[k + 1 : k + 2] == [] or tokens[k + 1] not in _WEAR:
        return None
    return _WEAR_LENGTHS[tokens[k]], k + 2


def so_many_timed(tokens: Sequence[str], i: int) -> tuple[float, int] | None:
    """So many things of a joined length at ``tokens[i]``, each time's minutes in all:
    "at least four 2-minute squeezes ... on at least three days a week" is eight minutes
    each time, against "one 2-minute handgrip squeeze a couple of times a week" (decision
    0148); and where they end. None for none, and for one (`one_timed_occasion`)."""
    value = count(tokens[i]) if tokens[i] not in ONE else None
    if value is None or value < 2 or (minutes := length_joined(tokens, i + 1)) is None:
        return None
    if tokens[i + 4 : i + 5] == [] or not looks_plural(tokens[i + 4]):
        return None
    # so many a week are how often, not each time's ("four 2-minute squeezes a week")
    if tokens[i + 5 : i + 6] != [] and tokens[i + 5] in _A_PERIOD:
        return None
    return value * minutes, i + 5
