"""So many of one thing for each so many of another, or for an area: the ratio readings of
the floors and the amounts called enough that `nli_enough` sets against each other
(decisions 0131, 0132, 0134; moved here from `nli_enough`, decision 0137).

"Keepers should run at least two guardian dogs for every 300 ewes" is 2 / 300 dogs per ewe;
"One good bitch will mind six or seven hundred ewes on the open hill by herself" calls 1 /
700 enough; "at least 20 larvae per square metre" against "about five larvae to the square
metre".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from lyra.pipelines.evidence.nli_halves import looks_plural
from lyra.pipelines.evidence.nli_lengths import DENSITY, PER_AREA, per_area, per_length
from lyra.pipelines.evidence.nli_numbers import CARDINALS, ORDINALS, number, stem
from lyra.pipelines.evidence.nli_tokens import STOPWORDS
from lyra.pipelines.evidence.nli_units import (
    AREA_M2,
    DOSE_MG,
    EACH_MINUTES,
    LENGTH_CM,
    SPAN_DAYS,
    VAGUE,
    VOLUME_ML,
    unit_key,
)

# A count of one, in words ("a", "one", "single").
_ONE: Final = frozenset({"a", "one", "single"})


def count(token: str) -> float | None:
    """A number in digits or words: "6", "six", "a" (one), "few" (of "a few minutes")."""
    value = number(token)
    if value is not None:
        return value
    if token in CARDINALS:
        return float(CARDINALS[token])
    if token in VAGUE:
        return VAGUE[token]
    return 1.0 if token in ("a", "an", "one", "single") else None


# How many of one thing for each of another, a dimension of its own named by the other
# ("dogs for every 300 ewes" is a number per ewe): "keepers should run at least two
# guardian dogs for every 300 ewes" against "One good bitch will mind six or seven
# hundred ewes on the open hill by herself", which calls one enough for so many
# (decision 0131). The words between a count and its "for every" (what is counted) and
# after "one" (who minds them alone) may be a few.
RATIO: Final = "per "
FOR_EACH: Final = (("for", "every"), ("for", "each"), ("per",), ("to", "every"))
_COUNTED_WORDS: Final = 3


def count_at(tokens: Sequence[str], i: int) -> tuple[float, int] | None:
    """A count at ``tokens[i]`` ("300", "six", "7 hundred", "half a") and where its noun
    stands."""
    if tokens[i] == "half" and tokens[i + 1 : i + 2] in (["a"], ["an"]):
        value: float | None = 0.5  # "half a litre to the hectare" (decision 0143)
        j = i + 2
    else:
        value = count(tokens[i]) if tokens[i] not in VAGUE and tokens[i] not in _ONE else None
        j = i + 1
    if value is None:
        return None
    if tokens[j : j + 1] and tokens[j] in ("hundred", "thousand"):
        value *= 100.0 if tokens[j] == "hundred" else 1000.0
        j += 1
    if tokens[j : j + 1] == ["-"] and j + 1 < len(tokens):
        j += 1  # "a 300-space car park": the count's noun after its hyphen (0138)
    if (
        j + 1 < len(tokens)
        and tokens[j].isalpha()
        and tokens[j + 1].isalpha()
        and not looks_plural(tokens[j])
        and looks_plural(tokens[j + 1])
        and tokens[j + 1] not in STOPWORDS
    ):
        j += 1  # "50 parking spaces": the plural noun the first word qualifies (0138)
    if tokens[j + 1 : j + 3] == ["-", "old"] or tokens[j + 1 : j + 2] == ["old"]:
        return None  # an age: "my eight-year-old" (decision 0146)
    return (value, j) if j < len(tokens) and tokens[j].isalpha() else None


# A mass to an area, in grams per square metre: "Use at least 50 grams of barley straw per
# square metre of pond surface" against "a couple of hundred grams, is plenty for a pond
# like mine of twenty square metres" (decision 0138).
MASS_PER_AREA: Final = "grams" + PER_AREA
_GRAMS: Final = {"g": 1.0, "gram": 1.0, "grams": 1.0, "kg": 1000.0, "kilo": 1000.0,
                 "kilos": 1000.0, "kilogram": 1000.0, "kilograms": 1000.0}  # fmt: skip
# How far a mass's "per" may stand after it ("50 grams of barley straw per"), and the area
# after "for" ("for a pond like mine of 20 square metres").
_MASS_REACH: Final = 6
_AREA_REACH: Final = 7
_FOR_AN_AREA: Final = frozenset({"for", "on", "across", "over", "in"})


def mass_per_area(tokens: Sequence[str], i: int) -> float | None:
    """The grams per square metre of a mass at ``tokens[i]`` given "per" (or "a") an area,
    or "for" (on, across ...) a thing of an area; None for none."""
    value = number(tokens[i]) if i + 1 < len(tokens) else None
    grams = _GRAMS.get(tokens[i + 1]) if value is not None else None
    if value is None or grams is None:
        return None
    for k in range(i + 2, min(len(tokens), i + 2 + _MASS_REACH)):
        if tokens[k] in ("per", "a", "an") and (m2 := per_area(tokens, k + 1)):
            return value * grams / m2
        if tokens[k] in _FOR_AN_AREA:
            for j in range(k + 1, min(len(tokens), k + 1 + _AREA_REACH)):
                # "over our whole hectare": one of the unit (decision 0140)
                if (number(tokens[j]) is not None or tokens[j] in AREA_M2) and (
                    m2 := per_area(tokens, j)
                ):
                    return value * grams / m2
            return None
    return None


# An amount as a percentage (of what it is set against), the dimension `nli_enough` reads
# "at least 1% of the catchment" in.
PERCENT: Final = "per cent"
# An area set for each so many of another, as a percentage of it: "a minimum of 100 square
# metres for every hectare of land feeding into it" is 1 %, "Twenty-odd square metres of
# reeds for each hectare upslope is plenty" 0.2 % (decision 0139). What the first area is
# of may stand between it and its "for each".
_AREA_OF_REACH: Final = 4


def area_share(tokens: Sequence[str], i: int) -> float | None:
    """The percentage of an area at ``tokens[i]`` set for each so many of another; None
    for none."""
    value = number(tokens[i])
    if value is None and tokens[i] in CARDINALS:
        value = float(CARDINALS[tokens[i]])
    if value is None:
        return None
    j = i + 1
    if tokens[j : j + 2] == ["-", "odd"]:
        j += 2  # "twenty-odd square metres"
    if tokens[j : j + 1] != ["square"] or (area := per_area(tokens, j)) is None:
        return None
    for k in range(j + 2, min(len(tokens), j + 2 + _AREA_OF_REACH)):
        each = next((w for w in FOR_EACH if tuple(tokens[k : k + len(w)]) == w), None)
        if each is not None:
            base = per_area(tokens, k + len(each))
            return 100.0 * value * area / base if base else None
    return None


def ratio_floor(tokens: Sequence[str], i: int) -> dict[str, float]:
    """The floor at ``i`` as a least number of one thing for each so many of another:
    "at least two guardian dogs for every 300 ewes" is 2 / 300 per ewe; or as a least mass
    to an area (`mass_per_area`)."""
    counted = count(tokens[i]) if i < len(tokens) and tokens[i] not in VAGUE else None
    if counted is None:
        return {}
    if (per_m2 := mass_per_area(tokens, i)) is not None:
        return {MASS_PER_AREA: per_m2}
    if (share := area_share(tokens, i)) is not None:
        return {PERCENT: share}
    first = i + 1
    if (
        tokens[first + 1 : first + 2] != []
        and number(tokens[first]) is not None
        and tokens[first + 1] in _MEASURES
    ):
        first += 2  # the size of each: "at least one 22.5 kg lick bucket per 30 lambs"
    for k in range(first, min(len(tokens), first + 1 + _COUNTED_WORDS)):
        each = next((w for w in FOR_EACH if tuple(tokens[k : k + len(w)]) == w), None)
        if each is None:
            continue
        if (cm := per_length(tokens, k + len(each))) is not None:
            return {DENSITY: counted / cm}  # "at least three ... per metre" (0133)
        if (m2 := per_area(tokens, k + len(each))) is not None:
            # "at least 20 larvae per square metre" (0134); "Shoots should be set at a
            # density of at least 16 per square metre", what is counted named first (0137)
            noun = tokens[k - 1] if tokens[k - 1].isalpha() else _counted_before(tokens, i)
            if not noun:
                return {}
            found = {stem(noun) + PER_AREA: counted / m2}
            if k - 2 > i and tokens[k - 2].isalpha() and tokens[k - 2] not in STOPWORDS:
                # a name of two words, either of which the other text may use: "at least
                # two guinea fowl per acre" against "Three guineas" (decision 0147)
                found[stem(tokens[k - 2]) + PER_AREA] = counted / m2
            return found
        base = (
            count_at(tokens, k + len(each))
            or _one_named(tokens, k + len(each))
            or _one_per(tokens, i, k, each)
        )
        return {RATIO + _base_key(tokens[base[1]]): counted / base[0]} if base and base[0] else {}
    return {}


# Periods, whose "per" says how often (`nli_often`).
_PERIODS: Final = frozenset({"hour", "day", "night", "week", "fortnight", "month", "year",
                             "term", "season", "session", "visit"})  # fmt: skip
# Units of measure, whose "per" is read by `nli_enough_units` ("2.5 litres per plant").
_MEASURES: Final = frozenset({*LENGTH_CM, *DOSE_MG, *VOLUME_ML, *EACH_MINUTES, *SPAN_DAYS,
                              *_GRAMS})  # fmt: skip


def _one_per(
    tokens: Sequence[str], i: int, k: int, each: tuple[str, ...]
) -> tuple[float, int] | None:
    """One of a thing named alone after "per" (``tokens[k]``), where the floor's count at
    ``i`` numbers things, not a measure: "at least two basil plants per tomato" is two per
    tomato (decision 0145). None otherwise."""
    at = k + len(each)
    if each != ("per",) or at >= len(tokens) or not tokens[at].isalpha():
        return None
    things = tokens[i + 1 : k]
    if (
        not things
        or not looks_plural(things[-1])
        or not _MEASURES.isdisjoint(things)
        or any(unit_key(t) != stem(t) for t in things)  # "2 litres per plant"
    ):
        return None
    noun = tokens[at]
    if noun in STOPWORDS or noun in SPAN_DAYS or noun in _PERIODS or looks_plural(noun):
        return None  # "two contacts per week" is how often
    return (1.0, at)


# One base under two names: "per dwelling" and "on every fifth house" (decision 0140).
_HOUSE: Final = "hous"
_SAME_BASE: Final = {"dwell": _HOUSE, "dwelling": _HOUSE, "hom": _HOUSE, "properti": _HOUSE,
                     # a dairy's milkers are its cows (decision 0143)
                     "milker": "cow",
                     # kids are children (decision 0145)
                     "kid": "children", "child": "children"}  # fmt: skip


def _base_key(word: str) -> str:
    """The key of a ratio's base noun, one for a house however it is named."""
    return _SAME_BASE.get(stem(word), stem(word))


def one_on_every_nth(tokens: Sequence[str], start: int, end: int) -> dict[str, float]:
    """One of a thing on every so many of another, between ``start`` and ``end``: "one
    swift brick on every fifth or sixth house" is 1 / 6 per house (decision 0140)."""
    for i in range(start, end):
        if tokens[i] not in ("one", "a", "1"):
            continue
        for k in range(i + 2, min(end, i + 2 + _COUNTED_WORDS)):
            if tokens[k] in ("on", "in", "for") and (base := _every_nth(tokens, k + 1)):
                return {RATIO + _base_key(tokens[base[1]]): 1.0 / base[0]}
    return {}


def _every_nth(tokens: Sequence[str], at: int) -> tuple[float, int] | None:
    """`_one_named` of "every fifth or sixth house" only."""
    return _one_named(tokens, at) if tokens[at : at + 1] == ["every"] else None


def _one_named(tokens: Sequence[str], at: int) -> tuple[float, int] | None:
    """One of a thing named alone after "per" ("per dwelling"), or one in so many ("every
    fifth or sixth house": 6, the larger), and where its noun stands; None for neither."""
    if at >= len(tokens):
        return None
    if tokens[at] == "every" and at + 1 < len(tokens) and tokens[at + 1] in ORDINALS:
        value, j = float(ORDINALS[tokens[at + 1]]), at + 2
        if tokens[j : j + 1] == ["or"] and tokens[j + 1 : j + 2] and tokens[j + 1] in ORDINALS:
            value, j = max(value, float(ORDINALS[tokens[j + 1]])), j + 2
        return (value, j) if j < len(tokens) and tokens[j].isalpha() else None
    # a home named alone: not "2.5 litres per plant", read by its units, nor "for every
    # booked appointment"
    return (1.0, at) if _base_key(tokens[at]) == _HOUSE and not looks_plural(tokens[at]) else None


# How far back what a floor counts may be named: "Shoots should be set at a density of".
_COUNTED_BEFORE_REACH: Final = 10


def _counted_before(tokens: Sequence[str], i: int) -> str | None:
    """The plural noun nearest before the floor's count at ``i``, within
    `_COUNTED_BEFORE_REACH` tokens: what the floor counts; None for none."""
    for j in range(i - 1, max(-1, i - 1 - _COUNTED_BEFORE_REACH), -1):
        if tokens[j].isalpha() and tokens[j] not in STOPWORDS and looks_plural(tokens[j]):
            return tokens[j]
    return None


def one_minds(tokens: Sequence[str], start: int, end: int) -> dict[str, float]:
    """One thing minding so many alone, in ``tokens[start:end]``: "One good bitch will
    mind six or seven hundred ewes" is 1 / 700 per ewe."""
    ones = [i for i in range(start, end) if tokens[i] in ("one", "1")]
    if not ones:
        return {}
    for i in range(end - 1, ones[0], -1):
        base = count_at(tokens, i)
        if base is not None and base[1] < end and base[0] > 1:
            return {RATIO + stem(tokens[base[1]]): 1.0 / base[0]}
    return {}


# So many of one thing on so many of another called enough: "Two boxes on four hundred
# hectares is plenty" is 2 / 400 per hectare (decision 0132).
_ON_SO_MANY: Final = (("on",), ("per",), ("across",), ("for",), *FOR_EACH)


def things_for_an_area(tokens: Sequence[str], i: int, end: int) -> dict[str, float]:
    """So many things at ``tokens[i]`` for a whole area named after "for" (`AREA_M2`, its
    size joined by a hyphen or not), as a number per square metre: "a couple of boxes for
    the whole three-acre green" (decision 0142); empty for none."""
    if tokens[i] == "a" and tokens[i + 1 : i + 3] and tokens[i + 1] in VAGUE:
        value, noun = VAGUE[tokens[i + 1]], i + 3 if tokens[i + 2 : i + 3] == ["of"] else i + 2
    elif counted := count_at(tokens, i):
        value, noun = counted
    else:
        return {}
    if noun >= end or not looks_plural(tokens[noun]) or tokens[noun + 1 : noun + 2] != ["for"]:
        return {}
    for j in range(noun + 2, min(end, noun + 2 + _AREA_REACH)):
        size = number(tokens[j]) or CARDINALS.get(tokens[j])
        at = j + 2 if tokens[j + 1 : j + 2] == ["-"] else j + 1  # "three-acre", "two hectare"
        unit = tokens[at] if at < len(tokens) else ""
        if size and unit in AREA_M2:
            return {stem(tokens[noun]) + PER_AREA: value / (size * AREA_M2[unit])}
    return {}


def ratio_enough(tokens: Sequence[str], start: int, end: int) -> dict[str, float]:
    """The first count in ``tokens[start:end]`` (past a count of one) said to be on, for
    or across a count of something else (not of days or weeks), or to an area, as a
    number per the other; or a mass there for an area named after it (`mass_per_area`)."""
    for i in range(start, end):
        if (per_m2 := mass_per_area(tokens, i)) is not None:
            return {MASS_PER_AREA: per_m2}
        if found := things_for_an_area(tokens, i, end):
            return found
        if (share := area_share(tokens, i)) is not None:
            return {PERCENT: share}
        if found := _one_for_so_many(tokens, i, end):
            return found
        counted = count_at(tokens, i)
        if counted is None:
            continue
        if tokens[counted[1]] in ("or", "to") and (upper := count_at(tokens, counted[1] + 1)):
            counted = (max(counted[0], upper[0]), upper[1])  # "four or five shoots" (0137)
        for k in range(counted[1] + 1, min(end, counted[1] + _COUNTED_WORDS)):
            if tokens[k] in ("a", "an") and (m2 := per_area(tokens, k + 1)) is not None:
                # "Two or three boxes a hectare is plenty" (0138)
                return {stem(tokens[k - 1]) + PER_AREA: counted[0] / m2}
            to_the = tokens[k : k + 2] == ["to", "the"]
            each = (
                ("to", "the")
                if to_the
                else next((w for w in _ON_SO_MANY if tuple(tokens[k : k + len(w)]) == w), None)
            )
            if each is None:
                continue
            if (m2 := per_area(tokens, k + len(each))) is not None:
                # "about five larvae to the square metre" (0134)
                return {stem(tokens[k - 1]) + PER_AREA: counted[0] / m2}
            if to_the:
                continue
            base = count_at(tokens, k + len(each)) or _every_nth(tokens, k + len(each))
            if (
                base is None
                or base[1] >= end
                or base[0] <= counted[0]
                or tokens[base[1]] in SPAN_DAYS  # "two sessions for six weeks": a span
            ):
                return {}
            return {RATIO + _base_key(tokens[base[1]]): counted[0] / base[0]}
        if counted[0] != 1.0:
            return {}
        # one of a thing holds the count: "a single drop of about five larvae to the
        # square metre" (0134)
    return {}


# One thing for so many of another: "We've got the one brush for 160 milkers and it's
# plenty" against "at least one automatic rotating brush for every 60 cows" (0143).
_ONE_THING_WORDS: Final = 3


# "one member of staff for every eight kids", "One basil plant for every three or four
# tomatoes" (decision 0145): "for every" and "for each" too, and of two counts the larger.
# Not after a bound ("at least one", "more than one") nor "of" ("one of the staff").
_ONE_THING_NOT_AFTER: Final = frozenset({"least", "than", "most", "of", "minimum"})


def _one_for_so_many(tokens: Sequence[str], i: int, end: int) -> dict[str, float]:
    if tokens[i] != "one" or (i and tokens[i - 1] in _ONE_THING_NOT_AFTER):
        return {}
    for k in range(i + 2, min(end, i + 3 + _ONE_THING_WORDS)):
        # "One tub between eighty lambs is plenty" (decision 0147)
        if tokens[k] in ("for", "between"):
            at = k + 2 if tokens[k + 1 : k + 2] in (["every"], ["each"]) else k + 1
            base = count_at(tokens, at)
            if base and tokens[base[1]] == "or" and (upper := count_at(tokens, base[1] + 1)):
                base = (max(base[0], upper[0]), upper[1])
            if base and base[1] < end and base[0] > 1:
                return {RATIO + _base_key(tokens[base[1]]): 1.0 / base[0]}
            return {}
        if not tokens[k].isalpha():
            return {}
    return {}


# How far after the word of enough "for so many" may come ("is plenty for a 300-space car
# park").
_FOR_SO_MANY_REACH: Final = 3


def ratio_for_so_many(tokens: Sequence[str], start: int, enough_at: int) -> dict[str, float]:
    """The first count in ``tokens[start:enough_at]`` called enough for so many of another
    thing named after the word of enough: "Two cameras on the entrance and exit barriers
    is plenty for a 300-space car park" is 2 / 300 per space (decision 0138)."""
    if tokens[enough_at + 1 : enough_at + 2] != ["for"]:
        return {}
    base = next(
        (
            found
            for j in range(enough_at + 2, min(len(tokens), enough_at + 2 + _FOR_SO_MANY_REACH))
            if (found := count_at(tokens, j)) is not None
        ),
        None,
    )
    counted = next(
        (found for i in range(start, enough_at) if (found := count_at(tokens, i)) is not None),
        None,
    )
    if base is None or counted is None:
        return {}
    if (area := AREA_M2.get(tokens[base[1]])) is not None:
        # so many for an area: "Three guineas is plenty for our seven acres" (0147)
        return {stem(tokens[counted[1]]) + PER_AREA: counted[0] / (base[0] * area)}
    if base[0] <= counted[0]:
        return {}
    return {RATIO + stem(tokens[base[1]]): counted[0] / base[0]}
