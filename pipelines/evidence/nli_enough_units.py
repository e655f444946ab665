"""Counts of a text's own units and percentages that an amount is set by (read by
`nli_enough`): "at least six books", "at least two text reminders", "six or seven units
is plenty", "Ten, twelve per cent clover across the field is plenty", "the thin
ten-micron biodegradable film is plenty". Moved from `nli_enough` as it neared STYLE's
40 KB (decision 0143)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from lyra.pipelines.evidence.nli_counts import percent_at
from lyra.pipelines.evidence.nli_digits import number_or_word
from lyra.pipelines.evidence.nli_halves import looks_plural
from lyra.pipelines.evidence.nli_often import occasion_at
from lyra.pipelines.evidence.nli_ratios import PERCENT
from lyra.pipelines.evidence.nli_tokens import STOPWORDS
from lyra.pipelines.evidence.nli_units import (
    DOSE_MG,
    EACH_MINUTES,
    LENGTH_CM,
    SPAN_DAYS,
    TIMES_NOUNS,
    VOLUME_ML,
    unit_key,
)

# The dimension of a count of a text's own unit is this and the unit's key.
UNITS: Final = "units of "


_UNITS_NEAR: Final = 3  # "six or seven units is plenty": the unit, a verb, the word of enough
# "Two or three books over the whole summer is plenty": a short phrase of when or where
# between the unit and its verb.
_PHRASE_STARTS: Final = frozenset(
    {"over", "across", "in", "during", "throughout", "for", "per", "a", "each", "every", "on"}
)
_PHRASE_WORDS: Final = 4
# a unit's phrase may name a time of a thing ("one text on the morning of the appointment
# is plenty": decision 0135)
_UNIT_PHRASE_WORDS: Final = 6


def _unit_noun(token: str) -> bool:
    """``token`` may name a unit of a text's own: a word, not a time, a span, a length,
    an occasion or a scale ("hundred")."""
    return (
        token.isalpha()
        and token not in STOPWORDS  # "a reading age of 15 or so" (0140)
        and token not in SPAN_DAYS
        and token not in EACH_MINUTES
        and token not in LENGTH_CM
        and token not in DOSE_MG
        and token not in VOLUME_ML
        and token not in TIMES_NOUNS
        and token not in ("hundred", "thousand", "million")
        and not occasion_at([token], 0)
    )


_NOUN_PHRASE: Final = 3
_PHRASE_ENDS: Final = frozenset(
    {"of", "for", "over", "per", "each", "every", "in", "a", "an", "the", "and", "or", "to",
     "with", "before", "after", "by", "from", "on", "at", "is", "are", "should", "must"}
)  # fmt: skip


def units_floor(tokens: Sequence[str], i: int) -> dict[str, float]:
    """The floor at ``i`` as a percentage ("at least 30% of sward dry matter") or a count
    of a unit of the text's own ("at least six books")."""
    if i >= len(tokens):
        return {}
    if (percent := percent_at(tokens, i)) is not None:
        return {PERCENT: percent[0]}
    value = number_or_word(tokens[i])
    if value is None:
        return {}
    # the head of a short noun phrase: "at least two assessment stages"
    phrase: list[str] = []
    for token in tokens[i + 1 : i + 1 + _NOUN_PHRASE]:
        if not token.isalpha() or token in _PHRASE_ENDS:
            break
        phrase.append(token)
        if looks_plural(token):
            break  # a plural ends it: "two assessment stages have been passed"
    if not phrase or not all(_unit_noun(token) for token in phrase):
        return {}  # "at least 4 consecutive milkings": occasions, read as such
    # by its first noun too: "at least two text reminders" is two texts (decision 0135)
    return {UNITS + unit_key(phrase[0]): value, UNITS + unit_key(phrase[-1]): value}


_DESCRIBED_WORDS: Final = 2
_RATE_WORDS: Final = frozenset({"per", "each", "every"})


def _one_described_per(tokens: Sequence[str], i: int, end: int) -> int:
    """Where the unit stands of "one" a word or two describe, so many of it to each of
    another thing ("One good deep breath per puff is plenty": decision 0146); 0 for
    none."""
    for k in range(i + 2, min(end, i + 2 + _DESCRIBED_WORDS)):
        if not all(tok.isalpha() and tok not in STOPWORDS for tok in tokens[i + 1 : k + 1]):
            return 0
        if tokens[k + 1 : k + 2] and tokens[k + 1] in _RATE_WORDS and _unit_noun(tokens[k]):
            return k
    return 0


def units_enough(tokens: Sequence[str], start: int, end: int) -> dict[str, float]:
    """A percentage, or a count of some unit, that is what the word of enough at ``end``
    calls enough: right before it ("six or seven units is plenty", "Ten, twelve per cent
    clover across the field is plenty", not a percentage "of" something) or past a short
    phrase of when or where ("two or three books over the whole summer is plenty"); of a
    choice, the larger. Not a count further back ("from what I've seen in sixty schools
    now, twenty minutes ... is plenty")."""
    for i in range(start, end):
        value = number_or_word(tokens[i])
        if (
            value is None
            and tokens[i] == "one"
            and i + 1 < end
            and _unit_noun(tokens[i + 1])
            and tokens[i + 1] not in _PHRASE_ENDS
            and tokens[i + 1] not in STOPWORDS
            # the unit ends its phrase: not "one good session"
            and (tokens[i + 2 : i + 3] == [] or tokens[i + 2] in _PHRASE_ENDS)
        ):
            value = 1.0  # "one litre per plant a day is plenty" (decision 0135)
        if value is None and tokens[i] == "one" and (rated := _one_described_per(tokens, i, end)):
            return {UNITS + unit_key(tokens[rated]): 1.0}
        if value is None:
            continue
        j = i + 1
        if (
            tokens[j : j + 1] in (["or"], ["to"])
            and j + 1 < end
            and (upper := number_or_word(tokens[j + 1])) is not None
        ):
            value, j = max(value, upper), j + 2
        if (percent := percent_at(tokens, j - 1)) is not None:
            value, past = percent
            # "twelve per cent clover ... is plenty"; not "15 per cent of the budget is
            # plenty", a share of something the floor may not measure
            if past < end and tokens[past] != "of" and end - past <= _UNITS_NEAR + _PHRASE_WORDS:
                return {PERCENT: value}
            return {}
        # a unit joined to its count names the thing after it: "the thin ten-micron
        # biodegradable film is plenty" (decision 0142)
        joined = tokens[j : j + 1] == ["-"]
        j += joined
        if j >= end or not _unit_noun(tokens[j]):
            continue
        near = end - j <= _UNITS_NEAR
        phrase = joined or (tokens[j + 1 : j + 2] != [] and tokens[j + 1] in _PHRASE_STARTS)
        if (near or (phrase and end - j <= _UNITS_NEAR + _UNIT_PHRASE_WORDS)) and all(
            number_or_word(t) is None for t in tokens[j + 1 : end]
        ):
            return {UNITS + unit_key(tokens[j]): value}
    return {}
