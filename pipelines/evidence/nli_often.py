"""How often a text says a thing is done, and the occasions a count numbers (read by
`nli_enough` and `nli_limits`): "every night", "twice a week", "three free lunches a
week", "each of the five school days", "a few nights a week", "three joint sessions".
Moved from `nli_enough` as it grew past STYLE's 40 KB (decision 0141)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from lyra.pipelines.evidence.nli_digits import number_or_word
from lyra.pipelines.evidence.nli_halves import looks_plural
from lyra.pipelines.evidence.nli_numbers import CARDINALS, number
from lyra.pipelines.evidence.nli_ratios import count
from lyra.pipelines.evidence.nli_tokens import STOPWORDS
from lyra.pipelines.evidence.nli_units import (
    EACH_MINUTES,
    EVERY_UNIT,
    EVERY_WORD,
    OCCASIONS,
    OFTEN_WORDS,
    ONCE_TWICE,
    PER_UNIT,
    PER_WORDS,
    SPAN_DAYS,
    TIMES_NOUNS,
    VAGUE,
)

# A school year's terms, each cut in two by its half-term break (UK): "every half term"
# is six times a year.
TERMS_A_YEAR: Final = 3
WEEKS_A_YEAR: Final = 52


def often_at(tokens: Sequence[str], i: int) -> tuple[float, int] | None:
    """Times a week said from ``tokens[i]`` and where it ends: "every night", "every
    other week", "twice a week", "a few nights a week", "3 times per week", "daily"."""
    tok = tokens[i]
    if tok in OFTEN_WORDS:
        return OFTEN_WORDS[tok], i + 1
    if tok in ("every", "each"):
        j = i + 1
        if (days := _each_of_the_week_days(tokens, j)) is not None:
            return days
        if tokens[j : j + 1] == ["single"] or (
            # "every school week", "every school day" (decision 0132)
            tokens[j : j + 1] == ["school"] and tokens[j + 1 : j + 2] in (["week"], ["day"])
        ):
            j += 1
        if tokens[j : j + 1] == ["other"] and tokens[j + 1 : j + 2] in (["day"], ["week"]):
            return EVERY_WORD[tokens[j + 1]] / 2, j + 2
        if tokens[j : j + 2] == ["half", "term"]:
            return TERMS_A_YEAR * 2 / WEEKS_A_YEAR, j + 2  # "every half term" (0144)
        if tokens[j : j + 1] and tokens[j] in EVERY_WORD:
            return EVERY_WORD[tokens[j]], j + 1
        # "every 48 hours", "every 3 days", "every two weeks"
        value = count(tokens[j]) if j < len(tokens) else None
        if value and tokens[j] in VAGUE and tokens[j + 1 : j + 2] == ["of"]:
            j += 1  # "every couple of weeks" (decision 0130)
        if (
            value
            and j + 2 < len(tokens)
            and (wider := count(tokens[j + 2]))
            and (
                tokens[j + 1 : j + 2] in (["to"], ["-"])
                or (
                    tokens[j + 1 : j + 2] == ["or"]
                    and tokens[j + 3 : j + 4] in (["hours"], ["minutes"])
                )
            )
        ):
            # "every 2 to 3 hours", "every 10 to 14 days": the wider gap, the fewer times
            # (decision 0143); "every four or five years" stays a span between
            value, j = max(value, wider), j + 2
        if value and tokens[j + 1 : j + 2] in (["working"], ["school"], ["calendar"]):
            j += 1  # "every 5 working days" (decision 0141)
        if value and tokens[j + 1 : j + 2] and tokens[j + 1] in EVERY_UNIT:
            return EVERY_UNIT[tokens[j + 1]] / value, j + 2
        return None
    if tok in ONCE_TWICE:
        times, j = ONCE_TWICE[tok], i + 1
    elif tok in VAGUE and tokens[i + 1 : i + 2] and tokens[i + 1] in TIMES_NOUNS | {"of"}:
        times, j = VAGUE[tok], i + 1
        if tokens[j] == "of":
            j += 1
        # "a couple of outdoor lessons a term": occasions of a kind (decision 0140)
        end = j + 1 if tokens[j : j + 1] and tokens[j] in TIMES_NOUNS else 0
        j = end or occasion_end(tokens, j, counted=True)
        if not j:
            return None
    elif (value := occasions(tok)) and (
        j := occasion_end(tokens, i + 1, counted=tok not in ONE)
        or described_occasion_end(tokens, i + 1, counted=tok not in ONE)
    ):
        times = value
    elif (
        (value := number(tok) or CARDINALS.get(tok))
        and tokens[i + 1 : i + 2] in (["or"], ["to"], ["-"])
        and i + 2 < len(tokens)
        and (upper := number(tokens[i + 2]) or CARDINALS.get(tokens[i + 2]))
        and tokens[i + 3 : i + 4]
        and tokens[i + 3] in TIMES_NOUNS
    ):
        # "three or four nights a week", "2 to 3 times a week": the more of the two
        times, j = float(max(value, upper)), i + 4
    else:
        return None
    if tokens[j : j + 2] == ["in", "every"] or tokens[j : j + 1] == ["every"]:
        # "once in every three years", "once every 5 working days" (decision 0141)
        at = j + 1 if tokens[j] == "in" else j
        every = often_at(tokens, at)
        return (times * every[0], every[1]) if every else None
    if tokens[j : j + 1] and tokens[j] in PER_WORDS and tokens[j + 1 : j + 2]:
        unit = tokens[j + 1]
        if unit in PER_UNIT:
            return times * PER_UNIT[unit], j + 2
    return None


ONE: Final = frozenset({"a", "one", "single"})
# The days of a week that some days are named for: "each of the five school days" is five
# times a week (decision 0141).
_WEEK_DAYS: Final = frozenset({"school", "working", "week", "weekday", "weekdays"})
_DAYS_A_WEEK: Final = 7.0


def _each_of_the_week_days(tokens: Sequence[str], j: int) -> tuple[float, int] | None:
    """From ``tokens[j]`` after "each": "of the five school days", so many days of a week,
    and where it ends; None for other words."""
    if tokens[j : j + 2] != ["of", "the"]:
        return None
    value = number_or_word(tokens[j + 2]) if j + 2 < len(tokens) else None
    k = j + 3
    if value is None or not 0 < value <= _DAYS_A_WEEK or tokens[k : k + 1] == []:
        return None
    if tokens[k] not in _WEEK_DAYS:
        return None
    if tokens[k] in ("weekday", "weekdays"):
        return value, k + 1
    if tokens[k + 1 : k + 2] == ["days"]:
        return value, k + 2
    return None


def occasions(token: str) -> float | None:
    """How many occasions ``token`` counts: "4", "four", "a" (one)."""
    value = number_or_word(token)
    if value:
        return value
    return 1.0 if token in ONE else None


def occasion_end(tokens: Sequence[str], at: int, *, counted: bool) -> int:
    """Where the occasions a count numbers end, from ``tokens[at]``: "times", "nights"
    (after a number only: "a night" is the unit), "sessions", "consecutive milkings",
    "face-to-face meetings", "proper sit-down"; 0 for none."""
    if tokens[at : at + 1] and counted and tokens[at] in TIMES_NOUNS:
        return at + 1
    if end := occasion_at(tokens, at):
        return end
    joined = at
    while (
        tokens[joined + 1 : joined + 2] == ["-"]
        and tokens[joined].isalpha()
        # not a length: "one two-hour session" is read as two hours each, and so is "a
        # single half-hour chat" (decision 0143)
        and number_or_word(tokens[joined]) is None
        and tokens[joined] != "half"
        and tokens[joined + 2 : joined + 3] != []
        and tokens[joined + 2].isalpha()
    ):
        joined += 2  # a kind in words joined by hyphens: "face-to-face meetings" (0132)
    if joined > at:
        if counted and tokens[joined + 1 : joined + 2] and tokens[joined + 1] in TIMES_NOUNS:
            return joined + 2  # "three read-aloud sessions" (decision 0147)
        return occasion_at(tokens, joined + 1)
    kind = at
    while counted and tokens[kind : kind + 1] and tokens[kind] in DAY_KINDS:
        kind += 1  # "five full school days" (decision 0140)
    if kind > at + 1 and tokens[kind : kind + 1] and tokens[kind] in TIMES_NOUNS:
        return kind + 1
    if (
        tokens[at : at + 1]
        and tokens[at].isalpha()
        and tokens[at] not in PER_WORDS
        # a unit is no kind: "Ten minutes round the block" (decision 0140)
        and tokens[at] not in EACH_MINUTES
        and tokens[at] not in SPAN_DAYS
    ):
        if counted and tokens[at + 1 : at + 2] != [] and tokens[at + 1] in TIMES_NOUNS:
            return at + 2  # "three joint sessions" (decision 0132)
        return occasion_at(tokens, at + 1)
    return 0


# Words that describe an occasion between its count and its name, a length joined by a
# hyphen among them: "One quick two-minute wiggle break a day", "at least two 30-minute
# sessions a week" (decision 0145).
_DESCRIBED_REACH: Final = 4
# Words that end a description: a share ("Two per cent, one milking a week").
_NO_DESCRIPTION: Final = frozenset({"percent", "cent", "per"})


def length_joined(tokens: Sequence[str], at: int) -> float | None:
    """The minutes of a length joined by a hyphen at ``tokens[at]``: "two-minute",
    "30-minute", "half-hour"; None for none."""
    if tokens[at + 1 : at + 2] != ["-"] or tokens[at + 2 : at + 3] == []:
        return None
    value = 0.5 if tokens[at] == "half" else number_or_word(tokens[at])
    unit = tokens[at + 2]
    return value * EACH_MINUTES[unit] if value is not None and unit in EACH_MINUTES else None


def described_occasion_end(tokens: Sequence[str], at: int, *, counted: bool) -> int:
    """Where an occasion ends that a few words describe from ``tokens[at]`` (plain words,
    a joined length), up to `_DESCRIBED_REACH` of them; 0 for none, and for an occasion
    no word describes (`occasion_end` reads those)."""
    k = at
    for described in range(_DESCRIBED_REACH + 1):
        if k >= len(tokens):
            return 0
        if end := occasion_at(tokens, k) or (k + 1 if counted and tokens[k] in TIMES_NOUNS else 0):
            return end if described else 0
        if length_joined(tokens, k) is not None:
            k += 3
        elif (
            tokens[k].isalpha()
            and tokens[k] not in STOPWORDS
            and tokens[k] not in PER_WORDS
            and tokens[k] not in EACH_MINUTES
            and tokens[k] not in SPAN_DAYS
            and tokens[k] not in _NO_DESCRIPTION
            and count(tokens[k]) is None
        ):
            k += 1
        else:
            return 0
    return 0


def _kind_of(word: str) -> bool:
    """``word``, an occasion, may name the kind of the next one: singular."""
    return not word.endswith("s") or word in ("bus", "pass", "class")


def occasion_at(tokens: Sequence[str], at: int) -> int:
    """Where the occasion named at ``tokens[at]`` ends ("milkings", "sit-down"); 0 for
    none."""
    if tokens[at : at + 1] and tokens[at] in OCCASIONS:
        # an occasion named by two of them, the first as its kind ("four return bus
        # trips a week": decision 0146)
        if tokens[at + 1 : at + 2] and tokens[at + 1] in OCCASIONS and _kind_of(tokens[at]):
            return at + 2
        return at + 1
    if tokens[at : at + 2] == ["sit", "-"] and tokens[at + 2 : at + 3] in (["down"], ["downs"]):
        return at + 3
    return 0


# Words between a count and its unit of time that say the time is whole: "six
# uninterrupted hours", "two full days", "eight consecutive weeks".
WHOLE: Final = frozenset({"uninterrupted", "full", "whole", "continuous", "consecutive",
                           "straight", "solid", "unbroken", "complete", "clear",
                           # days of a kind: "five sitting days", "28 working days" (0136)
                           "sitting", "working", "calendar", "business"})  # fmt: skip
# Words between a count and the days it numbers: "five full school days" (0140).
DAY_KINDS: Final = WHOLE | {"school"}


# When a time is kept, before or after the event it is timed by: "at least 30 minutes
# before every infusion", "at least 90 minutes after the infusion ends", "Twenty minutes
# with the cap on once the drip comes out" (decision 0142). "Before" and "after" right
# after the time, not past "each": "four sessions of around 60 minutes each before a
# workable agreement" times no session by an event.
BEFORE, AFTER = "minutes before", "minutes after"
_ANCHORS: Final = {"before": BEFORE, "prior": BEFORE, "ahead": BEFORE, "after": AFTER,
                   "afterwards": AFTER, "post": AFTER}  # fmt: skip
_ONCE_REACH: Final = 5
_ONCE_STOPS: Final = frozenset({",", ";", ".", ":", "and", "or", "but", "then", "each", "a",
                                "an", "per", "every"})  # fmt: skip
# not when: "20 minutes once a day", "once or twice"
_ONCE_AS_OFTEN: Final = frozenset({"a", "an", "per", "daily", "every", "each", "weekly", "or",
                                   "in", "more"})  # fmt: skip


def anchor_after(tokens: Sequence[str], at: int) -> str | None:
    """`BEFORE` or `AFTER` where the words from ``at`` time an amount by its event: the
    word right there, or "once" a few words on ("once the drip comes out")."""
    if tokens[at : at + 1] and tokens[at] in _ANCHORS:
        return _ANCHORS[tokens[at]]
    for k in range(at, min(len(tokens), at + _ONCE_REACH)):
        if tokens[k] == "once":
            return None if tokens[k + 1 : k + 2] and tokens[k + 1] in _ONCE_AS_OFTEN else AFTER
        if tokens[k] in _ONCE_STOPS:
            return None
    return None


# Days or weeks timed by their event are when, not how long: "Take sheep off the cover
# crop at least six weeks before the planned drilling date", "Mine come off about ten
# days before the drill goes in" (decision 0143). Not a span one keeps a thing up for:
# "for six weeks after the injury".
MINUTES_A_DAY: Final = 1440.0


class Timed(NamedTuple):
    """Days or weeks timed by their event: `BEFORE` or `AFTER`, their minutes, where they
    end, and whether they are also waited through ("wait at least 14 days after the
    letter", "allow at least 10 weeks before judging"), a span as well."""

    anchor: str
    minutes: float
    end: int
    waited: bool


def anchored_span(tokens: Sequence[str], i: int, *, high: bool) -> Timed | None:
    """The days or weeks counted at ``tokens[i]`` where the word right after them times
    them by an event; of a range ("between 8 and 14 weeks after the claim is filed") its
    ``high`` end or its low one, of "a couple of days after" two. None otherwise, and for
    a span a thing is kept up for ("for at least six weeks after the injury")."""
    value = count(tokens[i])
    before = _word_before_bound(tokens, i)
    if not value or before in _KEPT_UP:
        return None
    j = i + 1
    if tokens[i] in VAGUE and tokens[j : j + 1] == ["of"]:
        j += 1  # "a couple of days after the letter"
    upper = count(tokens[j + 1]) if j + 1 < len(tokens) and tokens[j] in _RANGE_JOINS else None
    if upper:
        value = upper if high else value
        j += 2
    unit = tokens[j] if j < len(tokens) else ""
    if (
        unit in SPAN_DAYS
        and tokens[j + 1 : j + 2]
        and tokens[j + 1] in ("before", "after", "prior")
    ):
        minutes = value * SPAN_DAYS[unit] * MINUTES_A_DAY
        return Timed(_ANCHORS[tokens[j + 1]], minutes, j + 1, before in _WAITED)
    return None


_RANGE_JOINS: Final = frozenset({"and", "to", "-"})
# Words of a bound or a guess between a verb and its count: "for at least six weeks after
# the injury", "wait at least 14 days after".
_BOUND_WORDS: Final = frozenset({"at", "least", "a", "minimum", "of", "about", "around",
                                 "roughly", "no", "less", "than", "up", "to", "some",
                                 "nearly", "almost", "another", "further"})  # fmt: skip
_KEPT_UP: Final = frozenset({"for", "last", "lasts", "lasting"})
_WAITED: Final = frozenset({"allow", "allowing", "wait", "waiting"})


def _word_before_bound(tokens: Sequence[str], i: int) -> str:
    """The word before the count at ``i``, past words of a bound."""
    k = i - 1
    while k >= 0 and tokens[k] in _BOUND_WORDS:
        k -= 1
    return tokens[k] if k >= 0 else ""


# So many of a thing taken each day or week: "at least 6 a day", "Two menthol lozenges a
# day" (decision 0143). A small count, the thing in at most two words, the last of them
# plural, no unit of time or measure among them.
_MOST_A_DAY: Final = 24.0
_THING_WORDS: Final = 2


def so_many_a_period(tokens: Sequence[str], i: int) -> tuple[float, int] | None:
    """Times a week that the count at ``tokens[i]`` and "a day" or "a week" after it (past
    the thing counted) say, and where they end; None otherwise."""
    value = number_or_word(tokens[i])
    if value is None or not 0 < value <= _MOST_A_DAY:
        return None
    j = i + 1
    while (
        j < min(len(tokens), i + 1 + _THING_WORDS)
        and tokens[j].isalpha()
        and tokens[j] not in PER_WORDS
        and tokens[j] not in SPAN_DAYS
        and tokens[j] not in EACH_MINUTES
        and tokens[j] not in TIMES_NOUNS
        and tokens[j] not in _NOT_THINGS
    ):
        j += 1
    if j > i + 1 and not looks_plural(tokens[j - 1]):
        return None
    if tokens[j : j + 1] in (["a"], ["per"]) and tokens[j + 1 : j + 2] in (["day"], ["week"]):
        return value * PER_UNIT[tokens[j + 1]], j + 2
    return None


_NOT_THINGS: Final = frozenset({"or", "to", "and", "of", "in", "times", "more", "less",
                                # measures, not things taken ("Ten kilometres a week")
                                "km", "kilometres", "kilometers", "miles", "mile", "metres",
                                "meters", "steps", "units", "grams", "g", "mg", "litres",
                                "liters", "ml", "kg", "hours", "minutes", "pounds", "euros",
                                "dollars", "calories", "kcal"})  # fmt: skip
