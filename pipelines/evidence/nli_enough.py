"""A least amount set against a smaller one called enough: a contradiction rule of the
heuristic stance judge (`nli_heuristic`, decision 0126).

"The splint should be worn every night, for the whole of the night, for at least six
weeks" against "a few nights a week for a fortnight is plenty for most people"; "wood chip
mulch should be applied to a settled depth of at least 10 cm" against "an inch of chips is
plenty"; "at least twice a week, in sessions of 45 to 60 minutes, for a minimum of 12
weeks" against "a single 20-minute session once a week is plenty". One text sets a floor
("at least", "a minimum of", "no less than") and the other calls an amount of the same
kind well under it enough ("is plenty", "is enough", "is all you need"). Such pairs share
the kind of amount and little else ("splint" against "strapped up"), so the overlap rules
call them neutral, and the stance model reads two dosing instructions as agreeing.

Amounts are read along four dimensions: how often (times a week), for how long in all
(days), how long each time (minutes) and how deep, thick or long (centimetres); and, for
a floor of so many of one thing for every so many of another, how many per one of the
other ("per ewe": decision 0131). Two readings meet where they share a dimension; they
differ where, on every dimension they share, the amount called enough is at most the
floor, and on one at most half of it. A course prescribed with "should" or "must", how
often and for how long, is a floor too; "by herself" after one minding so many, and more
that "doesn't help", call an amount enough.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from lyra.pipelines.evidence.nli_enough_times import (
    a_rate,
    a_wear,
    each_after,
    for_a_span,
    one_timed_occasion,
    per_week,
    sessions_of_a_length,
    so_many_timed,
)
from lyra.pipelines.evidence.nli_enough_units import UNITS, units_enough, units_floor
from lyra.pipelines.evidence.nli_enough_words import ALONE_REACH, calls_enough, on_its_own
from lyra.pipelines.evidence.nli_lengths import (
    DEPTH,
    RANGE_JOINS,
    SPACED_AT_MOST,
    SPACING,
    count_along,
    spacing_kind,
    widest_spacing,
)
from lyra.pipelines.evidence.nli_numbers import number
from lyra.pipelines.evidence.nli_often import (
    AFTER,
    BEFORE,
    DAY_KINDS,
    MINUTES_A_DAY,
    ONE,
    anchor_after,
    anchored_span,
    length_joined,
    occasion_end,
    occasions,
    often_at,
    so_many_a_period,
)
from lyra.pipelines.evidence.nli_orders import ordered
from lyra.pipelines.evidence.nli_ratios import (
    MASS_PER_AREA,
    count,
    one_minds,
    one_on_every_nth,
    ratio_enough,
    ratio_floor,
    ratio_for_so_many,
)
from lyra.pipelines.evidence.nli_shares_said import hedged
from lyra.pipelines.evidence.nli_units import (
    DOSE_MG,
    EACH_MINUTES,
    LENGTH_CM,
    PER_UNIT,
    SPAN_DAYS,
    SPOON_GRAMS,
    SPOON_SIZES,
    VAGUE,
    VOLUME_ML,
    spoon_mg,
    unit_key,
)

# The dimensions an amount is read along.
OFTEN, SPAN, EACH = "times a week", "days in all", "minutes each"
_ANCHORED: Final = frozenset({BEFORE, AFTER})
WEEKLY = "minutes a week"  # "at least 150 minutes of exercise a week": a total, not each
TIMES = "times in all"  # "at least four appointments", "one proper sit-down" (0128)
MINUTES = "minutes in all"  # each time's minutes by the times in all (0132)
DOSE = "milligrams"  # a dose by weight (0132)
VOLUME = "millilitres"  # a dose by volume (0139)
# One of a unit of dose, named by "a" or "one": its dimension and amount.
_ONE_UNIT: Final = {
    "gram": (DOSE, DOSE_MG["gram"]),
    "milligram": (DOSE, DOSE_MG["milligram"]),
    "teaspoon": (VOLUME, VOLUME_ML["teaspoon"]),
    "tablespoon": (VOLUME, VOLUME_ML["tablespoon"]),
    # "One drop of peppermint oil on each temple, once, is plenty" (decision 0140)
    "drop": (VOLUME, VOLUME_ML["drop"]),
}

# Words before an amount that make it a floor.
_FLOOR_STARTS: Final = (("at", "least"), ("a", "minimum", "of"), ("minimum", "of"),
                        ("no", "less", "than"), ("no", "fewer", "than"), ("not", "less", "than"),
                        ("no", "shorter", "than"))  # fmt: skip
# A floor is advice: "should be worn ... for at least six weeks", not a count ("were
# dispensed at least one PPI").
ADVICE: Final = frozenset({"should", "must", "need", "needs", "recommend", "recommends",
                            "always", "everyone", "routinely",
                            "recommended", "advise", "advises", "advised", "aim", "ought",
                            "required", "requires"})  # fmt: skip
# Words before an amount that make it a condition or a ceiling, not part of the advised
# amount: "adults who have been taking a PPI continuously for more than 12 months".
_NOT_ADVISED: Final = (("more", "than"), ("longer", "than"), ("less", "than"),
                       ("fewer", "than"), ("up", "to"), ("over",), ("under",),
                       # "a reading age of no higher than 11 years" (0140)
                       ("higher", "than"))  # fmt: skip
_NO_FLOOR_AFTER_NO: Final = (("higher", "than"), ("longer", "than"))
# Words before an amount that make it a ceiling the text advises: "should be cut no more
# than once in every three years" (decision 0127).
_CEILING_STARTS: Final = (("no", "more", "than"), ("not", "more", "than"), ("no", "more",
                          "often", "than"), ("at", "most"))  # fmt: skip
# How far before the word of enough its amounts may stand.
_ENOUGH_REACH: Final = 18
# The enough amount at most this part of the floor on some dimension (0.5 until decision
# 0138: "35 minutes for lunch is plenty" against "at least 60 minutes"; 0.6 until decision
# 0147: "four or five changes a day is plenty" against "at least eight changes in 24
# hours"; two thirds read "Forty minutes with a patch" against an hour's wait before the
# next patch).
_WELL_UNDER: Final = 0.65
# The enough amount at least this many times a ceiling.
_WELL_OVER: Final = 2.0

# Words that make a number of weeks a time, not a span: "after 6 weeks", "2 weeks ago".
_NO_SPAN_BEFORE: Final = frozenset({"after", "at", "within", "by", "until", "since", "in",
                                    "from", "before"})  # fmt: skip
_NO_SPAN_AFTER: Final = frozenset({"ago", "later", "old", "earlier"})
# Words passed over back to such a word: "after at least 6 weeks", "by about 2 weeks".
_QUALIFIERS: Final = frozenset({"least", "about", "around", "roughly", "approximately",
                                "minimum", "maximum", "of", "a", "the", "just",
                                "only"})  # fmt: skip
# How far past minutes a week or a day may stand for them to be a total per week.


@dataclass(frozen=True)
class Amounts:
    """The amounts one text sets as a floor, or calls enough, by dimension."""

    floor: bool  # True: a floor ("at least"); False: called enough ("is plenty")
    by_dimension: tuple[tuple[str, float], ...]
    ceiling: bool = False  # a ceiling ("no more than"), neither floor nor enough (0127)
    habit: bool = False  # a floor advised as a habit ("every night"): skipping any refutes

    def value(self, dimension: str) -> float | None:
        found = next((v for d, v in self.by_dimension if d == dimension), None)
        if found is None and dimension == WEEKLY:
            # "An hour every other week": 30 minutes a week in all (decision 0129)
            each, often = self.value(EACH), self.value(OFTEN)
            if each is not None and often is not None:
                return each * often
        if found is None and dimension == MINUTES:
            # "three joint sessions of around 90 minutes each": 270 minutes (0132)
            each, times = self.value(EACH), self.value(TIMES)
            if each is not None and times is not None:
                return each * times
        return found

    def dimensions(self) -> frozenset[str]:
        """The dimensions read, minutes a week where each time and how often are, and
        minutes in all where each time and how many times are."""
        return frozenset(
            d
            for d in (*(d for d, _ in self.by_dimension), WEEKLY, MINUTES)
            if self.value(d) is not None
        )


def _drop_of_so_many(tokens: Sequence[str], at: int) -> bool:
    """The "drop" at ``at`` releases so many of a thing, no volume: "a single drop of about
    five larvae to the square metre" (decision 0140)."""
    if tokens[at] not in ("drop", "drops") or tokens[at + 1 : at + 2] != ["of"]:
        return False
    k = at + 2
    while k < len(tokens) and tokens[k] in _QUALIFIERS:
        k += 1
    return k < len(tokens) and count(tokens[k]) is not None


def _amounts_in(tokens: Sequence[str], start: int, end: int, *, high: bool) -> dict[str, float]:
    """The amounts between ``start`` and ``end``, the first of each dimension; of a range
    ("45 to 60 minutes") its ``high`` end or its low one. An amount restated ("10
    sessions of unauthorised absence, equal to five full school days") is read as
    restated (decision 0140)."""
    restated = next(
        (
            i + len(words)
            for i in range(start, end)
            for words in _RESTATED
            if tuple(tokens[i : i + len(words)]) == words
            and count(tokens[i + len(words)] if i + len(words) < end else "") is not None
        ),
        None,
    )
    if restated is not None:
        return _amounts_in(tokens, start, restated, high=high) | _amounts_in(
            tokens, restated, end, high=high
        )
    found: dict[str, float] = {}
    i = start
    while i < end:
        if timed := anchored_span(tokens, i, high=high):
            found.setdefault(timed.anchor, timed.minutes)  # "six weeks before sowing" (0143)
            if timed.waited:
                found.setdefault(SPAN, timed.minutes / MINUTES_A_DAY)
            i = timed.end
            continue
        often = often_at(tokens, i) or so_many_a_period(tokens, i)
        if often is not None:
            # "up to three times a week" is no floor (decision 0141), nor "no more than
            # three times a week" (decision 0144)
            if not _not_advised(tokens, i) and tokens[max(0, i - 3) : i] != ["no", "more", "than"]:
                found.setdefault(OFTEN, often[0])
            # each time's length inside: "two 30-minute sessions a week" (decision 0145)
            for k in range(i + 1, often[1]):
                if (minutes := length_joined(tokens, k)) is not None:
                    found.setdefault(EACH, minutes)
                    break
            i = often[1]
            continue
        if so_many := so_many_timed(tokens, i):
            found.setdefault(EACH, so_many[0])  # "four 2-minute squeezes" (decision 0148)
            i = so_many[1]
            continue
        if one_timed_occasion(tokens, i):
            # "one two-hour evening session": one time, its length read next (0142)
            found.setdefault(TIMES, 1.0)
            i += 1
            continue
        if (
            (value := occasions(tokens[i]))
            and not for_a_span(tokens, i)
            and (j := occasion_end(tokens, i + 1, counted=tokens[i] not in ONE))
            # "three working days' notice" is how long ahead, "within 90 days" a deadline
            # (decision 0140)
            and tokens[j : j + 1] not in _NOTICE
            and tokens[i - 1 : i] != ["within"]
        ):
            # occasions with no "a week" after them count in all: "at least four
            # appointments spread over ...", "One proper sit-down of about an hour"; but
            # "Ten days of taping" is how long (decision 0145)
            if (
                tokens[j - 1] in SPAN_DAYS
                and (
                    tokens[j : j + 1] == ["of"]
                    # "Four days in the sling" (not "two days in a week")
                    or (
                        tokens[j : j + 2]
                        in (["in", "the"], ["in", "my"], ["in", "her"], ["in", "his"])
                        and tokens[j + 2 : j + 3] != []
                        and tokens[j + 2] not in SPAN_DAYS
                    )
                )
            ):
                found.setdefault(SPAN, value * SPAN_DAYS[tokens[j - 1]])
                i = j
                continue
            if sessions := sessions_of_a_length(tokens, j):
                # "at least three sessions of 20 minutes each week": three a week, 20
                # minutes each, an hour a week (decision 0147)
                per, minutes, past = sessions
                found.setdefault(OFTEN, value * per)
                found.setdefault(EACH, minutes)
                found.setdefault(WEEKLY, value * per * minutes)
                i = past
                continue
            found.setdefault(TIMES, value)
            # so many with a thing each week or summer: "two goes with the mower each
            # summer" is twice a year (decision 0141)
            if each := each_after(tokens, j):
                found.setdefault(OFTEN, value * each[0])
                j = each[1]
            i = j
            continue
        if tokens[i] in ("a", "an") and tokens[i + 1 : i + 2] and tokens[i + 1] in VAGUE:
            i += 1  # "a few minutes", "a couple of weeks": the vague count
            continue
        if wear := a_wear(tokens, i):
            found.setdefault(EACH, wear[0])  # "a single day's wear per plaster" (0148)
            i = wear[1]
            continue
        sized = tokens[i + 1 : i + 2] != [] and tokens[i + 1] in SPOON_SIZES
        unit_at = i + 2 if sized else i + 1
        if (
            tokens[i] in ("a", "one")
            and (one := _ONE_UNIT.get(" ".join(tokens[unit_at : unit_at + 1])))
            # not a fall: "a drop in blood pressure"
            and tokens[i + 1 : i + 3] != ["drop", "in"]
        ):
            # "maybe a gram, is plenty for a tomato", "A teaspoon in a mug of warm water
            # once a day is plenty" (decision 0139); "a heaped teaspoon" (0141)
            size = SPOON_SIZES[tokens[i + 1]] if sized and high else 1.0
            if tokens[i - 1 : i] == ["half"]:
                size /= 2  # "Half a teaspoon of the cough syrup" (decision 0146)
            found.setdefault(one[0], one[1] * size)
            if tokens[unit_at] in SPOON_GRAMS:
                found.setdefault(DOSE, spoon_mg(tokens[unit_at], high=high) * size)
            i = unit_at + 1
            continue
        value = count(tokens[i])
        if value is not None and _not_advised(tokens, i):
            i += 1
            continue
        if value is not None and tokens[i] in ("a", "an") and tokens[i - 1 : i] == ["half"]:
            value /= 2  # "half an hour" (decision 0141)
        if value is not None and tokens[i] in ("a", "an") and tokens[i - 2 : i] == _QUARTER_OF:
            value /= 4  # "about a quarter of an hour" (decision 0147)
        if tokens[i] == "half" and tokens[i + 1 : i + 3] in (["-", "hour"], ["-", "day"]):
            value = 0.5  # "a single half-hour chat" (decision 0143)
        j = i + 1
        if value is not None and tokens[i] in VAGUE and tokens[j : j + 1] == ["of"]:
            j += 1  # "a couple of weeks": the unit after "of"
        if (
            value is not None
            and tokens[j : j + 1] in (["to"], ["-"])
            and (j + 1 < len(tokens) and (upper := count(tokens[j + 1])) is not None)
        ):
            value = upper if high else value
            j += 2  # "45 to 60 minutes", "six to ten weeks"
        if (
            value is not None
            and tokens[j : j + 1] == ["or"]
            and (j + 1 < len(tokens) and count(tokens[j + 1]) is not None)
        ):
            j += 2  # "three or 4 years": the first of the two
        if value is not None and tokens[j : j + 1] == ["-"]:
            j += 1  # "a 20-minute session"
        while value is not None and tokens[j : j + 1] and tokens[j] in DAY_KINDS:
            # "at least six uninterrupted hours every night" (decision 0134), "four
            # full calendar weeks" (0140)
            j += 1
        size = 1.0
        if value is not None and tokens[j : j + 1] and tokens[j] in SPOON_SIZES:
            # "two heaped tablespoons": the larger spoonful where called enough (0141)
            size = SPOON_SIZES[tokens[j]] if high else 1.0
            j += 1
        if value is not None and j < len(tokens):
            unit = tokens[j]
            if unit == "school" and tokens[j + 1 : j + 2] in (["terms"], ["term"]):
                unit = tokens[j + 1]
            if unit in EACH_MINUTES and tokens[j + 1 : j + 2] in _NOTICE:
                # "A couple of hours' notice is plenty": how long ahead (decision 0140)
                found.setdefault(SPAN, value * EACH_MINUTES[unit] / MINUTES_A_DAY)
            # not a time: "then apply the same amount again after 15 minutes" (0140)
            elif unit in EACH_MINUTES and tokens[i - 1 : i] != ["after"]:
                per, past = per_week(tokens, j + 1)
                if per:
                    found.setdefault(WEEKLY, value * EACH_MINUTES[unit] * per)
                    if per == PER_UNIT["day"]:
                        # "at least 10 minutes a day": each day's practice too
                        found.setdefault(EACH, value * EACH_MINUTES[unit])
                    i = past
                    continue
                if tokens[j + 1 : j + 4] == ["and", "a", "half"]:
                    value += 0.5  # "an hour and a half" (decision 0141)
                anchor = anchor_after(tokens, j + 1)
                # "Starting 24 hours after surgery" is when, not how long (0143)
                if not (anchor and tokens[i - 1 : i] and tokens[i - 1] in _STARTING):
                    found.setdefault(EACH, value * EACH_MINUTES[unit])
                if anchor:
                    found.setdefault(anchor, value * EACH_MINUTES[unit])  # (0142)
            elif (
                unit in SPAN_DAYS
                and not _a_time(tokens, i)
                # an age, no span: "a reading age of (at least) 9 years" (decision 0145)
                and not any(tokens[k : k + 2] == ["age", "of"] for k in range(max(0, i - 4), i - 1))
                and not a_rate(tokens, i)
                and not _NO_SPAN_AFTER.intersection(tokens[j + 1 : j + 2])
            ):
                found.setdefault(SPAN, value * SPAN_DAYS[unit])
                if tokens[j + 1 : j + 2] in _NOTICE:
                    # "Two weeks' notice" is also a time before (decision 0143)
                    found.setdefault(BEFORE, value * SPAN_DAYS[unit] * MINUTES_A_DAY)
            elif unit in LENGTH_CM and (unit != "m" or number(tokens[i]) is not None):
                # "one hump every 800 feet" is how far apart, not how deep (0133)
                length = spacing_kind(tokens, i, j) or DEPTH
                found.setdefault(length, value * LENGTH_CM[unit])
            elif unit in DOSE_MG and number(tokens[i]) is not None:
                found.setdefault(DOSE, value * DOSE_MG[unit])
            elif (
                unit in VOLUME_ML
                # "A couple of drops on the end of a dummy is plenty" (decision 0148)
                and (number(tokens[i]) is not None or tokens[i] == "couple")
                and not _drop_of_so_many(tokens, j)
            ):
                found.setdefault(VOLUME, value * VOLUME_ML[unit] * size)
                if unit in SPOON_GRAMS:
                    found.setdefault(DOSE, value * spoon_mg(unit, high=high) * size)
        i += 1
    return found


_QUARTER_OF: Final = ["quarter", "of"]
_STARTING: Final = frozenset({"starting", "beginning", "from"})


_EVERY_REACH: Final = 7


def _so_many_every(tokens: Sequence[str], at: int) -> dict[str, float]:
    """The floor at ``at`` as so many of a thing every period, a few words describing it:
    "at least one 60 ml ORS ice lolly every hour" is 168 a week (decision 0146). Not
    "every 10 to 14 days", how far apart."""
    value = 1.0 if tokens[at : at + 1] in (["one"], ["a"], ["an"]) else None
    if value is None and at < len(tokens):
        value = count(tokens[at])
    after = tokens[at + 1] if at + 1 < len(tokens) else ""
    if value is None or after in LENGTH_CM or after in DOSE_MG or after in VOLUME_ML:
        return {}  # a measure: "at least 7.5 cm deep every spring"
    for k in range(at + 1, min(len(tokens), at + 1 + _EVERY_REACH)):
        if tokens[k] in ("every", "each"):
            counted = k + 1 < len(tokens) and count(tokens[k + 1]) is not None
            often = None if counted else often_at(tokens, k)
            return {OFTEN: value * often[0]} if often else {}
        if tokens[k] in ("and", "or", "but", "plus", "of", "for", "to", "per", "a", "an"):
            return {}
        if tokens[k] in EACH_MINUTES or tokens[k] in SPAN_DAYS:
            return {}  # a length: "six uninterrupted hours every night" is each night's
    return {}


def _not_advised(tokens: Sequence[str], i: int) -> bool:
    """The amount at ``i`` is a bound, not the amount: "more than 3", "up to three times a
    week". "no less than nine months" is a floor (decision 0129); "no higher than 11
    years" no floor (0140), nor "for no longer than 14 days on any one field" (0143)."""
    return any(
        tuple(tokens[max(0, i - len(words)) : i]) == words
        and (
            words in _NO_FLOOR_AFTER_NO
            or tokens[max(0, i - len(words) - 1) : i - len(words)] not in (["no"], ["not"])
        )
        for words in _NOT_ADVISED
    )


# Notice given so long ahead: a span however it is counted (decision 0140).
_NOTICE: Final = (["notice"], ["warning"])


# Words that restate the amount before them in other units, a count right after them.
_RESTATED: Final = (("equal", "to"), ("equivalent", "to"), ("the", "same", "as"))


def _a_time(tokens: Sequence[str], i: int) -> bool:
    """The number at ``i`` names a time, not a span: "after at least 6 weeks", "at 12
    weeks", "within 2 weeks"."""
    k = i - 1
    while k >= 0 and tokens[k] in _QUALIFIERS:
        k -= 1
    if k >= 0 and tokens[k] == "at" and tokens[k + 1 : k + 2] == ["least"]:
        k -= 1
        while k >= 0 and tokens[k] in _QUALIFIERS:
            k -= 1
    if k < 0 or tokens[k] not in _NO_SPAN_BEFORE:
        return False
    # a wait: "only after at least seven full years have passed" (decision 0142)
    j = i + 1
    while tokens[j : j + 1] and tokens[j] in DAY_KINDS:
        j += 1
    if tokens[j + 1 : j + 3] in _PASSED:
        return False
    # "I only went after 3 months' rent": to go after is to pursue (decision 0138)
    return not (tokens[k] == "after" and k > 0 and tokens[k - 1] in _GO)


_GO: Final = frozenset({"go", "goes", "went", "going", "gone"})
_PASSED: Final = (["have", "passed"], ["has", "passed"], ["have", "elapsed"], ["has", "elapsed"],
                  ["had", "passed"], ["have", "gone"], ["has", "gone"])  # fmt: skip


def _advises(tokens: Sequence[str]) -> bool:
    """The text advises: a word of advice, or an order at its opening. Not "everyone"
    hedged as a share ("just about everyone in the group chat ... had at least one
    session cancelled": decision 0140)."""
    words = [t for i, t in enumerate(tokens) if not (t == "everyone" and hedged(tokens, i))]
    return not ADVICE.isdisjoint(words) or ordered(tokens)


def _prescribed_at(tokens: Sequence[str]) -> int | None:
    """Where a text's prescription starts: its opening order, or its first "should" or
    "must" (`_PRESCRIBED`); None for none."""
    if ordered(tokens):
        return 0
    return next((i for i, tok in enumerate(tokens) if tok in _PRESCRIBED), None)


def read_amounts(tokens: Sequence[str]) -> Amounts | None:
    """The floor a text advises ("should ... at least ...") or the amount it calls enough
    ("... is plenty"); None for neither, or both."""
    floor_at = next(
        (
            i + len(start)
            for i in range(len(tokens))
            for start in _FLOOR_STARTS
            if tuple(tokens[i : i + len(start)]) == start
        ),
        None,
    )
    enough_at = next(
        (i for i, tok in enumerate(tokens) if calls_enough(tokens, i)),
        None,
    )
    if floor_at is None and enough_at is None:
        return (
            _ceiling(tokens)
            or _advised_every(tokens)
            or _advised_course(tokens)
            or _advised_range(tokens)
            or _advised_spacing(tokens)
        )
    if (floor_at is None) == (enough_at is None):
        return None
    if floor_at is not None and not _advises(tokens):
        return None
    if floor_at is not None:
        # the advice's other amounts count too: "The splint should be worn every night,
        # ..., for at least six weeks"
        ratio = ratio_floor(tokens, floor_at)
        found = (
            _amounts_in(tokens, 0, len(tokens), high=False)
            | _so_many_every(tokens, floor_at)
            | ratio
            # a mass to an area leaves the floor's units to be read too (0138)
            | ({} if set(ratio) - {MASS_PER_AREA} else units_floor(tokens, floor_at))
        )
        floor = True
    else:
        assert enough_at is not None
        found = (
            # one alone says how many one is enough for, no other amount
            one_minds(tokens, max(0, enough_at - ALONE_REACH), enough_at)
            if on_its_own(tokens, enough_at)
            else _amounts_in(tokens, max(0, enough_at - _ENOUGH_REACH), enough_at, high=True)
            | (
                ratio_enough(tokens, max(0, enough_at - _ENOUGH_REACH), enough_at)
                or one_on_every_nth(tokens, max(0, enough_at - _ENOUGH_REACH), enough_at)
            )
            | ratio_for_so_many(tokens, max(0, enough_at - _ENOUGH_REACH), enough_at)
            | units_enough(tokens, max(0, enough_at - _ENOUGH_REACH), enough_at)
            | count_along(tokens, max(0, enough_at - _ENOUGH_REACH), enough_at)
        )
        found = _only_needed(tokens, enough_at) | found
        floor = False
    if not found:
        return None
    return Amounts(floor, tuple(sorted(found.items())))


# The reason an amount is enough, with the amount that is all one needs: "the thin
# ten-micron film is plenty for strawberries, because you only need it holding together
# for about three months" (decision 0142).
_BECAUSE: Final = frozenset({"because", "as", "since", "cos"})
_BECAUSE_REACH: Final = 6
_NEED: Final = frozenset({"need", "needs", "needed"})
_CLAUSE_ENDS: Final = frozenset({",", ";", ".", ":", "but", "and"})


def _only_needed(tokens: Sequence[str], enough_at: int) -> dict[str, float]:
    """The amounts of a reason given after the word of enough at ``enough_at``: "...
    because you only need it ... for about three months"."""
    because = next(
        (k for k in range(enough_at + 1, min(len(tokens), enough_at + _BECAUSE_REACH))
         if tokens[k] in _BECAUSE),
        None,
    )  # fmt: skip
    if because is None:
        return {}
    need = next(
        (k for k in range(because + 1, min(len(tokens), because + _BECAUSE_REACH))
         if tokens[k] in _NEED and tokens[k - 1] == "only"),
        None,
    )  # fmt: skip
    if need is None:
        return {}
    end = next((k for k in range(need, len(tokens)) if tokens[k] in _CLAUSE_ENDS), len(tokens))
    return _amounts_in(tokens, need + 1, end, high=True)


def _ceiling(tokens: Sequence[str]) -> Amounts | None:
    """The ceiling a text advises: how often at most ("Hedges managed for breeding birds
    should be cut no more than once in every three years"); None for none. Only how often
    is read: a ceiling of other kinds bounds what a text measures as often as what it
    advises."""
    if not _advises(tokens):
        return None
    for i in range(len(tokens)):
        for start in _CEILING_STARTS:
            if tuple(tokens[i : i + len(start)]) == start:
                often = often_at(tokens, i + len(start))
                if often is not None:
                    return Amounts(False, ((OFTEN, often[0]),), ceiling=True)
    return None


# Words that advise how often as a habit, not a least amount: "every night", "daily";
# and the verbs of using a treatment they must follow, within a few words ("should be worn
# every night"; not "advised to empty the kitchen caddy ... every day or two", a chore).
_HABITS: Final = frozenset({"every", "daily", "nightly",
                            # "offered ... on each of the five school days" (0141)
                            "each"})  # fmt: skip
_DOSE_VERBS: Final = frozenset({"worn", "wear", "wearing", "used", "use", "using", "taken",
                                "take", "taking", "applied", "apply", "practise", "practised",
                                "practice", "practiced", "done", "performed", "given",
                                "give", "played", "attended",
                                # fed to animals ("should be fed every day": 0130)
                                "fed", "feed", "feeding",
                                # a meal served ("should be offered a free hot lunch on
                                # each of the five school days": 0141)
                                "offered", "served", "provided"})  # fmt: skip
_DOSE_VERB_REACH: Final = 6


def _advised_every(tokens: Sequence[str]) -> Amounts | None:
    """How often a text advises a thing as a habit, a floor on how often: "The device
    should be worn every night, for the whole of the sleep period" (decision 0127); None
    for none."""
    if not _advises(tokens) or _HABITS.isdisjoint(tokens):
        return None
    for i, tok in enumerate(tokens):
        if (
            tok in _HABITS
            and not _DOSE_VERBS.isdisjoint(tokens[max(0, i - _DOSE_VERB_REACH) : i])
            and (often := often_at(tokens, i)) is not None
        ):
            return Amounts(True, ((OFTEN, often[0]),), habit=True)
    return None


# A course a text prescribes, how often and for how long, is the least it advises: "Adults
# should instil two to three drops ... three times a day for 14 days before ear irrigation
# or microsuction is considered" against "a couple of drops at bedtime for two or three
# nights is plenty" (decision 0131). Only "should" or "must" prescribe it.
_PRESCRIBED: Final = frozenset({"should", "must"})


def _advised_course(tokens: Sequence[str]) -> Amounts | None:
    """How often and for how long a text says a thing should be done, as a floor; None
    unless it says both."""
    start = _prescribed_at(tokens)
    if start is None:
        return None
    found = _amounts_in(tokens, start, len(tokens), high=False)
    if OFTEN not in found or SPAN not in found:
        return None
    return Amounts(True, tuple(sorted(found.items())))


# A range a text says an amount should fall within, whose low end is the least it advises:
# "the starting point should be 30 day-units, within a range of 20 to 45 units" against
# "six or seven units is plenty" (decision 0132). Such amounts are counted in units of the
# text's own, a dimension named by the unit ("units of unit"), met only by the same unit
# called enough.
_RANGE_STARTS: Final = (("range", "of"), ("between",))


def _advised_range(tokens: Sequence[str]) -> Amounts | None:
    """The low end of a range a text says something "should" or "must" fall within, in its
    unit; None for none."""
    start = _prescribed_at(tokens)
    if start is None:
        return None
    for i in range(start, len(tokens)):
        each = next((w for w in _RANGE_STARTS if tuple(tokens[i : i + len(w)]) == w), None)
        if each is None:
            continue
        at = i + len(each)
        low = number(tokens[at]) if at < len(tokens) else None
        high = number(tokens[at + 2]) if at + 2 < len(tokens) else None
        unit = tokens[at + 3] if at + 3 < len(tokens) else ""
        if (
            low is not None
            and high is not None
            and low < high
            and tokens[at + 1] in RANGE_JOINS
            and unit.isalpha()
            and unit not in SPAN_DAYS
            and unit not in EACH_MINUTES
        ):
            return Amounts(True, ((UNITS + unit_key(unit), low),))
    return None


def _advised_spacing(tokens: Sequence[str]) -> Amounts | None:
    """The widest spacing a text says something "should" or "must" be put at, a ceiling
    (`nli_lengths`); None for none."""
    start = _prescribed_at(tokens)
    if start is None:
        return None
    widest = widest_spacing(tokens, start)
    return None if widest is None else Amounts(False, ((SPACING, widest),), ceiling=True)


def enough_over_ceiling(first: Amounts | None, second: Amounts | None) -> bool:
    """One text finds needed or enough how often the other advises against: at least
    twice its ceiling ("cut no more than once in every three years" against "a trim every
    autumn ... was what kept a hedge thick enough")."""
    if first is None or second is None or first.ceiling == second.ceiling:
        return False
    ceiling, enough = (first, second) if first.ceiling else (second, first)
    if enough.floor:
        return False
    # how often, or how far apart (decision 0133)
    return any(
        (limit := ceiling.value(d)) is not None
        and (amount := enough.value(d)) is not None
        and amount >= _WELL_OVER * limit
        for d in (OFTEN, SPACING)
    )


def enough_under_floor(first: Amounts | None, second: Amounts | None) -> bool:
    """One text calls enough an amount well under the floor the other sets, on a
    dimension they share."""
    if first is None or second is None or first.floor == second.floor:
        return False
    floor, enough = (first, second) if first.floor else (second, first)
    shared = sorted(floor.dimensions() & enough.dimensions())
    if MINUTES in shared:
        # fewer, longer sittings: "one well-run session of about two hours is plenty"
        # against "at least three joint sessions of around 90 minutes each", the time in
        # all, not each time's (decision 0132)
        shared.remove(EACH)
    if floor.dimensions() & _ANCHORED and enough.dimensions() & _ANCHORED:
        # each time's minutes by the event both time them by, before or after (0142)
        shared = [d for d in shared if d != EACH]
    if VOLUME in shared and DOSE in shared:
        # a volume both name, not the weight a spoonful may have (decision 0141)
        shared.remove(DOSE)
    if MASS_PER_AREA in shared and DOSE in shared:
        # a mass to an area, not the mass in all, which may cover any area (0138)
        shared.remove(DOSE)
    pairs = [(enough.value(d), floor.value(d)) for d in shared]
    widest, spaced = floor.value(SPACED_AT_MOST), enough.value(SPACING)
    if widest and spaced:
        # a spacing wider than the floor's widest is less of the thing: inverted, so that
        # "a one metre strip every 400 m" is under "no more than 200 metres apart" (0133)
        pairs.append((1 / spaced, 1 / widest))
    if not pairs:
        return False
    if floor.habit:
        # every night, and a night a week or more left out called enough
        return all(e is not None and f is not None and e <= f - 1 for e, f in pairs)
    return all(e is not None and f is not None and e <= f for e, f in pairs) and any(
        e is not None and f is not None and e <= _WELL_UNDER * f for e, f in pairs
    )
