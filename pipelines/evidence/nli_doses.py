"""Doses far apart: a contradiction rule of the heuristic stance judge (`nli_heuristic`,
decision 0115).

Two texts state the dose to take, and the doses are far apart: "we advise you to take
0.5 mg at local bedtime on the day you arrive" against "What works for me ... is 5 mg
about half an hour before bed". Such pairs share the unit and little else, so the
overlap rules call them neutral. A dose is a number of a mass or a volume (mg, mcg, g,
IU, ml), the only one of its unit in a text that says when or how it is taken ("take",
"dose", "bedtime", "a day", ...), with no bound before it ("up to 5 mg"). Two doses
meet where the unit is the same, the larger is at least `DOSES_APART` times the
smaller, neither text names a group of people the other does not ("children", "adults
over 70"), and no name stands in one text that the other lacks while that other names
one of its own (two drugs' doses).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from lyra.pipelines.evidence.nli_numbers import bound_before, measures

DOSE_UNITS: Final = frozenset({"mg", "mcg", "\u00b5g", "g", "iu", "ml"})
# Words that say a dose is taken, and when.
_TAKEN: Final = frozenset(
    {"take", "taking", "takes", "dose", "doses", "dosage", "bed", "bedtime", "daily",
     "nightly", "night", "nights", "morning", "evening", "day", "tablet", "tablets",
     "start", "starting", "recommended", "advise", "prescribe", "prescribed"}
)  # fmt: skip
# The groups a dose may be given for: two doses for two groups are two findings.
_GROUPS: Final = frozenset(
    {"child", "children", "adult", "adults", "infant", "infants", "baby", "babies", "teen",
     "teens", "teenager", "teenagers", "older", "elderly", "women", "men", "pregnant",
     "kidney", "liver", "weight", "kg"}
)  # fmt: skip
# The larger of two doses is at least this many times the smaller.
DOSES_APART: Final = 2.0


@dataclass(frozen=True)
class Dose:
    """The one dose a text states: its unit and amount, and the groups it names."""

    unit: str
    amount: float
    groups: frozenset[str]


def read_dose(tokens: Sequence[str]) -> Dose | None:
    """The dose ``tokens`` state; None for none, for two amounts of one unit, or where
    nothing says it is taken."""
    if _TAKEN.isdisjoint(tokens):
        return None
    found = [
        (unit, values)
        for unit, values in measures(tokens).items()
        if unit in DOSE_UNITS and len({(low, high) for low, high, _ in values}) == 1
    ]
    if len(found) != 1:
        return None
    unit, values = found[0]
    low, high, at = values[0]
    if low != high or low <= 0 or bound_before(tokens, at):
        return None
    return Dose(unit, low, _GROUPS.intersection(tokens))


def doses_differ(
    first: Dose | None,
    second: Dose | None,
    first_names: frozenset[str],
    second_names: frozenset[str],
) -> bool:
    """Both texts state a dose of one unit for the same groups, far apart, and name no
    two different things to take."""
    if first is None or second is None or first.unit != second.unit:
        return False
    if first.groups != second.groups:
        return False
    if first_names and second_names and first_names.isdisjoint(second_names):
        return False
    small, large = sorted((first.amount, second.amount))
    return large >= DOSES_APART * small
