"""Doses far apart for one age group: a contradiction rule of the heuristic stance judge
(`nli_heuristic`, decision 0122).

Two texts each give the dose for the same ages, and the doses are far apart: "Children
aged 1 to 5 years: give half a teaspoon (2.5 ml) of runny honey once a night" against
"Little ones aged 1 to 5 can take a 10 ml spoonful up to 4 times a day". Such pairs share
the ages and the unit and little else ("teaspoon" against "spoonful", the remedy named in
one only), so the overlap rules call them neutral, and the stance model reads two dosing
instructions as agreeing. A dose is a number of a unit of amount (ml, mg, g, ...) in a
sentence with one age band ("aged 1 to 5", "aged 12 and over") and a word of giving or
taking ("give", "take", "dose", "spoonful"). Two doses meet where the band and the unit
are the same; they differ where no amount of one is within `DOSES_APART` times of an
amount of the other. What each is a dose of ("2.5 ml of honey") keeps two remedies apart:
where both name one, they must share a word.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from lyra.pipelines.evidence.nli_numbers import RANGE_JOINERS, measures, number
from lyra.pipelines.evidence.nli_tokens import content_keys

# Units of a dose, as `nli_numbers.measures` keys them.
DOSE_UNITS: Final = frozenset({"ml", "mg", "g", "mcg", "µg", "iu", "unit", "teaspoon", "drop"})
# Words that make a number of such a unit a dose to give or take.
DOSE_WORDS: Final = frozenset(
    {"give", "gives", "given", "giving", "take", "takes", "taken", "taking", "dose", "doses",
     "dosage", "dosing", "offer", "spoonful", "spoonfuls", "teaspoon", "teaspoons",
     "tablespoon", "tablespoons", "have", "use"}
)  # fmt: skip
# One dose is this many times another at least before the two are far apart.
DOSES_APART: Final = 1.5
_AGE_WORDS: Final = frozenset({"aged", "ages", "age"})
_AND_OVER: Final = frozenset({"over", "older", "above", "up"})
# Words of what a dose is of that name no remedy: "10 ml of the syrup" names none.
_NOT_A_REMEDY: Final = frozenset({"syrup", "liquid", "mixtur", "solution", "medicin"})
_OF_REACH: Final = 3


@dataclass(frozen=True)
class Dose:
    """The dose one text gives for one age band, in one unit."""

    ages: tuple[float, float]
    unit: str
    amounts: tuple[tuple[float, float], ...]
    of: frozenset[str]  # content words of what it is a dose of ("runny honey"); may be empty


def _age_bands(tokens: Sequence[str]) -> list[tuple[float, float]]:
    """Each band of ages the text names: "aged 1 to 5" (1, 5), "aged 12 and over"
    (12, inf), "aged 6" (6, 6)."""
    bands = []
    for i, tok in enumerate(tokens[:-1]):
        if tok not in _AGE_WORDS or (low := number(tokens[i + 1])) is None:
            continue
        after = tokens[i + 2 : i + 4]
        if after[:1] and after[0] in RANGE_JOINERS and len(after) == 2:
            high = number(after[1])
            if high is not None:
                bands.append((low, high))
                continue
        if len(after) == 2 and after[0] in ("and", "or") and after[1] in _AND_OVER:
            bands.append((low, math.inf))
            continue
        bands.append((low, low))
    return bands


def _dose_of(tokens: Sequence[str], at: int) -> frozenset[str]:
    """Content words of what the amount at ``at`` is a dose of: those after "of" within
    `_OF_REACH` tokens of its unit ("2.5 ml of runny honey")."""
    for j in range(at + 1, min(len(tokens), at + 3)):
        if tokens[j] == "of":
            words = content_keys(tokens[j + 1 : j + 1 + _OF_REACH])
            return frozenset(k for k in words if not k.startswith("~")) - _NOT_A_REMEDY
    return frozenset()


def read_dose(tokens: Sequence[str]) -> Dose | None:
    """The dose ``tokens`` give for their one age band (`Dose`), or None: no band or
    more than one, no word of giving, or amounts in more than one unit of dose."""
    if DOSE_WORDS.isdisjoint(tokens):
        return None
    bands = _age_bands(tokens)
    if len(set(bands)) != 1:
        return None
    doses = {unit: values for unit, values in measures(tokens).items() if unit in DOSE_UNITS}
    if "ml" in doses:
        doses.pop("teaspoon", None)  # "half a teaspoon (2.5 ml)": one dose twice
    if len(doses) != 1:
        return None
    ((unit, values),) = doses.items()
    of: frozenset[str] = frozenset().union(*(_dose_of(tokens, at) for _, _, at in values))
    return Dose(bands[0], unit, tuple((low, high) for low, high, _ in values), of)


def doses_differ(first: Dose | None, second: Dose | None) -> bool:
    """Both texts dose the same ages in the same unit, no amount of one within
    `DOSES_APART` times of an amount of the other, and of one remedy (where both name
    what they dose)."""
    if first is None or second is None:
        return False
    if first.ages != second.ages or first.unit != second.unit:
        return False
    if first.of and second.of and first.of.isdisjoint(second.of):
        return False

    def near(a: tuple[float, float], b: tuple[float, float]) -> bool:
        small, large = sorted((a, b))
        return small[1] > 0 and large[0] < DOSES_APART * small[1]

    return not any(near(a, b) for a in first.amounts for b in second.amounts)
