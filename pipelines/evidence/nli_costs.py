"""Costs far apart: a contradiction rule of the heuristic stance judge (`nli_heuristic`,
decision 0106).

Two texts give what one thing costs for each of the same units, and the figures are far
apart: "the full annual cost of a body-worn camera averages 2,900 crowns per officer"
against "total cost of ownership comes to under 600 crowns per officer per year,
including unlimited cloud storage". Such pairs share the price and little else, so the
overlap rules call them neutral and the stance model reads two sentences about the
cost of cameras as agreeing. A cost is a number in a sentence that names a cost
("cost", "price", "fee", "spend", ...), the only one of its unit there, followed by what
it is for each of ("per officer", "a session"); a bound before it widens it ("under
600"). Two costs meet where unit and "per" thing are the same and the sentences share
one more specific word ("storage"), so that "physiotherapy costs £45 a session" and
"acupuncture costs £120 a session" do not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from lyra.pipelines.evidence.nli_numbers import measures, stem
from lyra.pipelines.evidence.nli_tokens import content_keys
from lyra.pipelines.evidence.nli_words import GENERAL_OUTCOMES

COST_WORDS: Final = frozenset(
    {"cost", "costs", "costing", "price", "prices", "priced", "fee", "fees", "charge",
     "charges", "charged", "spend", "spends", "spending", "spent", "budget", "pays", "paid"}
)  # fmt: skip
_PER: Final = frozenset({"per", "a", "an", "each", "every"})
# one "per" thing in other words: "per child" and "per pupil" at school (decision 0107)
_SAME_PER: Final = {
    stem(word): stem(same)
    for word, same in (("child", "pupil"), ("student", "pupil"), ("kid", "pupil"),
                       ("head", "person"), ("capita", "person"), ("resident", "person"))
}  # fmt: skip
_PER_REACH: Final = 3
# A time a thing costs, in the words of losing or adding it: "lost on average less than
# one second per cushion" against "every hump or cushion we go over costs a loaded fire
# engine something like nine seconds" (decision 0133). Only a time is costed so.
_TIME_COST_WORDS: Final = frozenset({"lost", "lose", "loses", "losing", "add", "adds", "added"})
_TIME_UNITS: Final = frozenset({"second", "minute", "hour"})
_ONE_TIME: Final = frozenset({"second", "seconds", "minute", "minutes", "hour", "hours"})
# "every hump or cushion ... costs ...": what each of comes first, before its cost.
_EACH_FIRST: Final = frozenset({"every", "each"})
# what a cost is for each of when it is only a time: the sentences must share more
_TIMES: Final = frozenset({"year", "month", "week", "day", "hour", "annum"})
_AT_MOST: Final = frozenset({"under", "below", "less", "fewer", "within"})
_AT_LEAST: Final = frozenset({"over", "above", "more", "least"})
_BOUND_REACH: Final = 3
# Words that say nothing of what is costed: the cost's own, too general, a time.
_NOT_ABOUT: Final = frozenset(map(stem, COST_WORDS)) | GENERAL_OUTCOMES | _TIMES
# The larger cost is at least this many times the smaller.
COSTS_APART: Final = 2.0


@dataclass(frozen=True)
class Cost:
    """The one cost a sentence gives: its interval, unit, and what it is for each of."""

    low: float
    high: float
    unit: str
    per: str
    about: frozenset[str]  # the sentence's specific words, the cost's own left out
    per_also: frozenset[str] = frozenset()  # "every hump or cushion": the other of them

    def pers(self) -> frozenset[str]:
        return self.per_also | {self.per}


def _per(tokens: Sequence[str], at: int, unit: str) -> str:
    """What the number at ``at`` is a cost for each of: "per officer", "a session"."""
    if "/" in unit:
        per = unit.split("/", 1)[1]
        return _SAME_PER.get(per, per)
    for j in range(at + 1, min(len(tokens) - 1, at + 1 + _PER_REACH)):
        if tokens[j] in _PER and tokens[j + 1].isalpha():
            per = stem(tokens[j + 1])
            return _SAME_PER.get(per, per)
    return ""


def _each_first(tokens: Sequence[str], at: int) -> tuple[str, frozenset[str]]:
    """What the cost at ``at`` is for each of when that comes before it: "every hump or
    cushion we go over costs ..." is per hump, or cushion."""
    for j in range(at - 1):
        if tokens[j] in _EACH_FIRST and tokens[j + 1].isalpha():
            per = stem(tokens[j + 1])
            also = tokens[j + 3] if tokens[j + 2 : j + 3] == ["or"] and j + 3 < at else ""
            return per, frozenset({stem(also)} if also.isalpha() else ())
    return "", frozenset()


def read_cost(tokens: Sequence[str]) -> Cost | None:
    """The one cost ``tokens`` give (`Cost`), or None."""
    timed = COST_WORDS.isdisjoint(tokens)
    if timed and _TIME_COST_WORDS.isdisjoint(tokens):
        return None
    if timed:
        # "one second": one, as a count of a time
        tokens = [
            "1" if t == "one" and tokens[k + 1 : k + 2] and tokens[k + 1] in _ONE_TIME else t
            for k, t in enumerate(tokens)
        ]
    found = [
        (low, high, unit, at)
        for unit, values in measures(tokens).items()
        if unit != "%" and (not timed or unit in _TIME_UNITS)
        for low, high, at in values
    ]
    rated = [f for f in found if "/" in f[2]]
    if len(found) != 1 and len(rated) == 1:
        # the one sum paid for each of something, beside a margin or a count ("Th 2.40
        # per child per day, give or take thirty centimes": decision 0108)
        found = rated
    if len(found) != 1:
        return None
    low, high, unit, at = found[0]
    per, per_also = _per(tokens, at, unit), frozenset[str]()
    if not per and unit in _TIME_UNITS:
        per, per_also = _each_first(tokens, at)
    if not per:
        return None
    before = set(tokens[max(0, at - _BOUND_REACH) : at])
    if before & _AT_MOST:
        low = 0.0
    elif before & _AT_LEAST:
        high = float("inf")
    base = unit.split("/", 1)[0]
    about = {k for k in content_keys(tokens) if not k.startswith("~")}
    about -= {stem(base), base, per} | _NOT_ABOUT
    about -= per_also
    return Cost(low, high, base, per, frozenset(about), per_also)


def costs_differ(first: Cost | None, second: Cost | None) -> bool:
    """Both texts cost the same thing for each of the same units, at least `COSTS_APART`
    times apart, and share a specific word more (two where the unit is a time)."""
    if first is None or second is None:
        return False
    if first.unit != second.unit or first.pers().isdisjoint(second.pers()):
        return False
    small, large = sorted((first, second), key=lambda c: c.low)
    if not (small.high > 0 and large.low >= COSTS_APART * small.high):
        return False
    return len(first.about & second.about) >= (2 if first.per in _TIMES else 1)
