"""A limit advised against more called enough: a deadline, or a level (decision 0140).

A standard says "Councils should remove ... all other reported graffiti on public-facing
council property within 48 hours"; a resident says "Honestly getting the paint off within
a week is plenty". The one sets how long at most a thing may take, the other finds a
time well past it good enough: they contradict, though neither names a floor or a
frequency (`nli_enough` reads those). So too a level: "write the agreement to a reading
age of no higher than 11 years" against "a reading age of 15 or so, is plenty". Read
here: a time after "within" that a text advises (a word of advice before it) or calls
enough (a word of enough right after it); a level named as "<measure> of" with a ceiling
advised, or with a word of enough after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from lyra.pipelines.evidence.nli_enough import ADVICE
from lyra.pipelines.evidence.nli_enough_words import ENOUGH
from lyra.pipelines.evidence.nli_often import DAY_KINDS
from lyra.pipelines.evidence.nli_ratios import count
from lyra.pipelines.evidence.nli_tokens import STOPWORDS, content_keys, is_negated
from lyra.pipelines.evidence.nli_units import SPAN_DAYS

# Days in a deadline's unit: the spans of `nli_units` and hours.
_UNIT_DAYS: Final = {**SPAN_DAYS, "hour": 1 / 24, "hours": 1 / 24}
# A time within reach is enough in milder words too: "within a month or so is fine".
_ENOUGH: Final = ENOUGH | {"fine", "acceptable", "reasonable"}
# How far past the deadline its word of enough may come ("within a week is plenty",
# "within a month or so is fine by me").
_ENOUGH_REACH: Final = 4
# A time called enough this many times the advised one, or more, contradicts it.
_WELL_PAST: Final = 2.0


def _deadlines(tokens: Sequence[str]) -> list[tuple[int, int, float]]:
    """Each "within <count> <unit>" of ``tokens``: where it starts, where it ends, and
    its days ("within a week": 7)."""
    found = []
    for i, tok in enumerate(tokens):
        if tok != "within" or i + 2 >= len(tokens):
            continue
        value = 1.0 if tokens[i + 1] in ("a", "an", "one") else count(tokens[i + 1])
        j = i + 2
        while j < len(tokens) and tokens[j] in DAY_KINDS:
            j += 1
        if value is not None and j < len(tokens) and tokens[j] in _UNIT_DAYS:
            found.append((i, j + 1, value * _UNIT_DAYS[tokens[j]]))
    return found


def advised_deadline(tokens: Sequence[str]) -> float | None:
    """The loosest time a text advises a thing be done within ("should remove offensive
    graffiti within 24 hours and all other ... within 48 hours": 2 days), where a word of
    advice comes before it and no negation; None for none."""
    advised = [
        days
        for start, _, days in _deadlines(tokens)
        if not ADVICE.isdisjoint(tokens[:start]) and not is_negated(list(tokens[:start]))
    ]
    return max(advised) if advised else None


def enough_deadline(tokens: Sequence[str]) -> float | None:
    """The time a text calls enough to do a thing within ("getting the paint off within
    a week is plenty": 7 days), not denied ("within a week isn't good enough"); None for
    none."""
    for _, end, days in _deadlines(tokens):
        after = list(tokens[end : end + _ENOUGH_REACH])
        at = next((k for k, tok in enumerate(after) if tok in _ENOUGH), None)
        if at is not None and not is_negated(after[:at]):
            return days
    return None


# Words before a level's number that set it as a ceiling: "a reading age of no higher
# than 11 years".
_LEVEL_CEILINGS: Final = (("no", "higher", "than"), ("no", "more", "than"),
                          ("not", "more", "than"), ("no", "greater", "than"),
                          ("not", "higher", "than"), ("at", "most"))  # fmt: skip
# A hedge right after a level called enough: "a reading age of 15 or so".
_HEDGES: Final = (("or", "so"), ("or", "thereabouts"), ("at", "most"))
# The words before "of" that name a level's measure ("reading age", "noise level").
_MEASURE_WORDS: Final = 2
# A level called enough this many times the advised ceiling, or more, contradicts it.
_LEVEL_PAST: Final = 1.25


def _measure_before(tokens: Sequence[str], of: int) -> frozenset[str]:
    """The keys of the words right before "of" at ``of`` that name a measure."""
    words = [t for t in tokens[max(0, of - _MEASURE_WORDS) : of] if t not in STOPWORDS]
    return frozenset(content_keys(words)) if len(words) == _MEASURE_WORDS else frozenset()


def advised_level(tokens: Sequence[str]) -> tuple[frozenset[str], float] | None:
    """The measure and the ceiling a text advises a level be kept to ("should write the
    agreement to a reading age of no higher than 11 years": reading age, 11); None for
    none."""
    for of, tok in enumerate(tokens):
        if tok != "of" or ADVICE.isdisjoint(tokens[:of]):
            continue
        for words in _LEVEL_CEILINGS:
            at = of + 1 + len(words)
            if tuple(tokens[of + 1 : at]) == words and at < len(tokens):
                value, measure = count(tokens[at]), _measure_before(tokens, of)
                if value is not None and measure:
                    return measure, value
    return None


def enough_level(tokens: Sequence[str]) -> tuple[frozenset[str], float] | None:
    """The measure and the level a text calls enough ("a reading age of 15 or so, is
    plenty": reading age, 15), not denied; None for none."""
    for of, tok in enumerate(tokens):
        if tok != "of" or of + 1 >= len(tokens):
            continue
        value, measure = count(tokens[of + 1]), _measure_before(tokens, of)
        if value is None or not measure:
            continue
        end = of + 2
        end += next((len(h) for h in _HEDGES if tuple(tokens[end : end + len(h)]) == h), 0)
        after = list(tokens[end : end + _ENOUGH_REACH])
        at = next((k for k, word in enumerate(after) if word in _ENOUGH), None)
        if at is not None and not is_negated(after[:at]):
            return measure, value
    return None


def limit_passed(first: Sequence[str], second: Sequence[str]) -> bool:
    """One text calls enough a time at least `_WELL_PAST` times the deadline the other
    advises, or a level of one measure at least `_LEVEL_PAST` times its ceiling."""
    for advised, other in ((first, second), (second, first)):
        limit, enough = advised_deadline(advised), enough_deadline(other)
        if limit is not None and enough is not None and enough >= _WELL_PAST * limit:
            return True
        ceiling, level = advised_level(advised), enough_level(other)
        if (
            ceiling is not None
            and level is not None
            and ceiling[0] == level[0]
            and level[1] >= _LEVEL_PAST * ceiling[1]
        ):
            return True
    return False
