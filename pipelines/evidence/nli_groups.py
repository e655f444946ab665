"""Who gains most: a contradiction rule of the heuristic stance judge (`nli_heuristic`,
decision 0105).

Two texts give the largest share of one effect to opposite groups: "The small attendance
gain appears to be driven almost entirely by girls" against "it's boys whose attendance
improves with a uniform, and for girls there's basically no difference"; "it was
part-time workers over 50, rather than young people, who lost the most hours" against
"the under-21s saw the biggest drop in hours"; "the largest benefits went to
higher-income, long-tenured households" against "The biggest beneficiaries of
stabilization have been low-income households, not higher earners". Such pairs share
the effect and little else, so the overlap rules call them neutral. The rule names what
it is about (the effect both name), so it applies at any overlap
(`nli_change.changes_contradict`).

A text singles a group out when it puts one side of a divide (sex, age, income, place)
beside a word that says where most of an effect went ("most", "biggest", "driven ...
by", "it's boys whose"), and names no other side of that divide except one it sets
aside ("rather than young people", "not higher earners", "for girls there's no
difference").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from lyra.pipelines.evidence.nli_numbers import CARDINALS, number, stem
from lyra.pipelines.evidence.nli_tokens import content_keys
from lyra.pipelines.evidence.nli_words import GENERAL_OUTCOMES

# One side of a divide, by the word that names it (lower case).
_SIDES: dict[str, tuple[str, int]] = {
    **dict.fromkeys(("girls", "girl", "women", "woman", "female", "females", "mothers"),
                    ("sex", 0)),
    **dict.fromkeys(("boys", "boy", "men", "man", "male", "males", "fathers"), ("sex", 1)),
    **dict.fromkeys(("young", "younger", "youngest", "teenagers", "teens", "adolescents",
                     "juniors", "babies", "infants", "toddlers"), ("age", 0)),
    **dict.fromkeys(("older", "oldest", "elderly", "pensioners", "retirees", "seniors"),
                    ("age", 1)),
    **dict.fromkeys(("poorer", "poorest", "deprived", "disadvantaged"), ("income", 0)),
    **dict.fromkeys(("wealthier", "wealthiest", "richer", "richest", "affluent"),
                    ("income", 1)),
    **dict.fromkeys(("urban",), ("place", 0)),
    **dict.fromkeys(("rural",), ("place", 1)),
    # when in the day (decision 0106: "strongest on night-time city-centre patrols"
    # against "concentrated in daytime response work")
    # (the tokenizer splits "night-time": "night" names it)
    **dict.fromkeys(("daytime", "daylight"), ("time", 0)),
    **dict.fromkeys(("nighttime", "overnight", "night"), ("time", 1)),
}  # fmt: skip
# "low-income", "lower-paid", "higher earners", "high-income": a level, then what it is
# a level of (the tokenizer splits the hyphen off).
_LEVELS = {"low": 0, "lower": 0, "lowest": 0, "high": 1, "higher": 1, "highest": 1, "top": 1}
# "the poor", "the rich": only after "the" (0107)
_THE_INCOME = {"poor": 0, "rich": 1}
_INCOME_WORDS = frozenset({"income", "incomes", "paid", "earners", "earning", "earnings"})
# "under-21s", "over 50": an age, where the number is no measure ("over 50 hours").
_AGE_LEVELS = {"under": 0, "over": 1}
_AGE_RANGE = (12.0, 95.0)
_AGE_AFTER = frozenset({"s", "year", "years", "rather", "who", "and", "or", "were", "was"})
# a child's age ("children under 2 years of age", "babies under two"): any age where years
# or months follow, or a person is named before the level
_YEARS = frozenset({"year", "years", "months"})
_PEOPLE = frozenset(
    {"children", "child", "kids", "babies", "infants", "toddlers", "people", "adults",
     "patients", "pupils", "workers", "those", "anyone"}
)  # fmt: skip
# "aged five and over", "65 and older": the upper side after the number
_AND_OVER = frozenset({"over", "older", "above"})

# Words that say where most of an effect went.
_MOST = frozenset(
    {"most", "largest", "biggest", "greatest", "highest", "strongest", "mainly", "mostly",
     "entirely", "chiefly", "largely", "primarily", "driven", "concentrated", "bulk"}
)  # fmt: skip
# Words that say where the least of it went: a group named before them is set aside
# ("babies under two gain the least", "night-time patrols saw the smallest change").
_LEAST = frozenset({"least", "smallest", "weakest", "fewest"})
_LEAST_REACH = 10
# the next clause speaks of another group ("in daytime hours, while night-time streets
# saw the smallest change")
_CLAUSE_TURNS = frozenset({"while", "whereas", "but", "whilst"})
# A cleft puts the group it names first: "it's boys whose attendance improves", "it was
# part-time workers over 50 ... who lost the most hours".
_CLEFT_OPENS = frozenset({"it's", "it\u2019s"})
_CLEFT_VERBS = frozenset({"is", "was"})
_CLEFT_REACH = 3
# A group named right after these is set aside ("rather than young people", "not higher
# earners", "unlike boys").
_ASIDE_BEFORE = frozenset({"than", "not", "unlike", "instead", "except"})
_ASIDE_REACH = 2
# A group followed within this many tokens by one of these words, with no word of "most"
# before it, gets nothing ("for girls there's basically no difference", "for boys the
# estimate is close to zero"; not "girls gained the most, with no change for boys").
_NOTHING = frozenset({"no", "nothing", "none", "neither", "zero", "negligible"})
_NOTHING_REACH = 6
# Words that say a group gained as much as the others, no more: "the disadvantaged
# children gained about the same as everybody else, there was no extra boost for them",
# "the people with the very lowest transferrin saturation did no better than anyone
# else", "the benefit for children in the poorest fifth ... was basically the same size
# as for children in the richest fifth", "similar in women and men" (decision 0108).
_ALIKE = re.compile(
    r"\bno (?:better|worse|more|less) than (?:anyone|anybody|everyone|everybody|the rest|"
    r"others|any other)\b|\bthe same(?: size| amount)? as\b|\bsimilar (?:in|for|among|between) "
    r"(?:\w+ )?\w+ and\b|\bno (?:extra|additional) "
    r"(?:boost|benefit|gain|advantage)\b|\bjust as much as\b"
)
# Words that say a group gained more than another named after them: "gained roughly
# twice as much in reading as their better-off classmates", "roughly double that in the
# least deprived fifth".
_MORE_THAN = frozenset({"twice", "double", "triple", "thrice"})
# Nouns of gain in several forms: "benefits" and "beneficiaries" name one effect.
_SAME_EFFECT = {"beneficiari": "benefit", "gainer": "gain", "winner": "gain", "loser": "lost"}


@dataclass(frozen=True)
class GroupReading:
    """The group a text singles out for most of an effect, and the effect's words."""

    divide: str = ""  # "sex", "age", "income", "place"; "" when none is singled out
    side: int = 0
    effect: frozenset[str] = frozenset()  # content stems, the groups' own words left out
    # what the group gets: "most" of the effect, the "least" of it ("rural districts
    # have seen the smallest change"), or "alike", as much as the others (`_ALIKE`)
    share: str = "most"


NO_GROUP: Final = GroupReading()


def _side_at(tokens: Sequence[str], i: int) -> tuple[str, int, int] | None:
    """The divide and side named at ``i``, and how many tokens name it."""
    tok = tokens[i]
    # who is poor and who is not at school ("eligible for free school meals", "their
    # better-off classmates", "the least deprived fifth": decision 0108)
    if tokens[i : i + 3] == ["free", "school", "meals"]:
        return ("income", 0, 3)
    if tokens[i : i + 2] == ["free", "meals"]:
        return ("income", 0, 2)
    if tok in ("better", "well") and tokens[i + 1 : i + 3] == ["-", "off"]:
        return ("income", 1, 3)
    if tok in ("least", "most") and tokens[i + 1 : i + 2] in (["deprived"], ["disadvantaged"]):
        return ("income", 1 if tok == "least" else 0, 2)
    if tok in _SIDES:
        return (*_SIDES[tok], 1)
    if tok in _THE_INCOME and i and tokens[i - 1] == "the":  # "the poor", not "poor sleep"
        return ("income", _THE_INCOME[tok], 1)
    if tok in _LEVELS:
        j = i + 1 if i + 1 < len(tokens) and tokens[i + 1] != "-" else i + 2
        if j < len(tokens) and tokens[j] in _INCOME_WORDS:
            return ("income", _LEVELS[tok], j - i + 1)
    if tok in _AGE_LEVELS:
        j = i + 1 if i + 1 < len(tokens) and tokens[i + 1] != "-" else i + 2
        age = number(tokens[j]) if j < len(tokens) else None
        after = tokens[j + 1] if j + 1 < len(tokens) else "s"
        if age is not None and _AGE_RANGE[0] <= age <= _AGE_RANGE[1] and after in _AGE_AFTER:
            return ("age", _AGE_LEVELS[tok], j - i + 1)
        if (
            age is not None
            and 0 < age < _AGE_RANGE[0]
            and (after in _YEARS or (i and tokens[i - 1] in _PEOPLE))
        ):
            return ("age", _AGE_LEVELS[tok], j - i + 1)
    if (
        i + 2 < len(tokens)
        and tokens[i + 1] in ("and", "or")
        and tokens[i + 2] in _AND_OVER
        and i
        and tokens[i - 1] in ("aged", "age", "ages")
        and (number(tok) is not None or tok in CARDINALS)
    ):
        return ("age", 1, 3)
    return None


def _cleft(tokens: Sequence[str]) -> bool:
    """The text opens a cleft on a group: "it's boys whose ...", "it is women who ..."."""
    for i, tok in enumerate(tokens):
        if tok in _CLEFT_OPENS:
            start = i + 1
        elif tok == "it" and tokens[i + 1 : i + 2] and tokens[i + 1] in _CLEFT_VERBS:
            start = i + 2
        else:
            continue
        if any(_side_at(tokens, j) for j in range(start, min(len(tokens), start + _CLEFT_REACH))):
            return True
    return False


def _more_than_before(tokens: Sequence[str], i: int) -> bool:
    """A group named at ``i`` after "twice as much ... as" or "double that in": the one
    the other gained more than."""
    for j in range(i - 1, max(-1, i - _LEAST_REACH), -1):
        if tokens[j] in _MORE_THAN:
            return "as" in tokens[j + 2 : i] or tokens[j + 1 : j + 2] == ["that"]
        if tokens[j] in _CLAUSE_TURNS:
            return False
    return False


def _most_after(tokens: Sequence[str], i: int, length: int) -> bool:
    """A word of most follows the group named at ``i`` before anything else is named."""
    for j in range(i + length, min(len(tokens), i + length + _LEAST_REACH)):
        if tokens[j] in _MOST:
            return True
        if _ends_reach(tokens, i, j):
            return False
    return False


def _least(tokens: Sequence[str], i: int, length: int) -> bool:
    """The group named at ``i`` gets the least of the effect ("rural districts have
    seen the smallest change")."""
    for j in range(i + length, min(len(tokens), i + length + _LEAST_REACH)):
        if _ends_reach(tokens, i, j):
            return False
        if tokens[j] in _LEAST:
            return True
    return False


def _ends_reach(tokens: Sequence[str], i: int, j: int) -> bool:
    """What follows the group named at ``i`` stops saying what it gets at ``tokens[j]``:
    a word of most (then it gets the most), a turn of clause, another group named
    ("the most deprived fifth ... double that in the least deprived fifth")."""
    tok = tokens[j]
    if tok in _MOST or tok in _MORE_THAN or tok in _CLAUSE_TURNS:
        return True
    other = _side_at(tokens, j)
    own = _side_at(tokens, i)
    return other is not None and own is not None and other[:2] != own[:2]


def _aside(tokens: Sequence[str], i: int, length: int) -> bool:
    """The group named at ``i`` is set aside, not singled out."""
    if any(tokens[j] in _ASIDE_BEFORE for j in range(max(0, i - _ASIDE_REACH), i)):
        return True
    if _more_than_before(tokens, i):
        return True
    for n, j in enumerate(range(i + length, min(len(tokens), i + length + _LEAST_REACH))):
        if _ends_reach(tokens, i, j):
            return False
        if (tokens[j] in _NOTHING and n < _NOTHING_REACH) or tokens[j] in _LEAST:
            return True
    return False


def read_groups(tokens: Sequence[str]) -> GroupReading:
    """The group ``tokens`` single out for most of an effect, or for the least of it,
    or say gained as much as the others (`GroupReading`), if any."""
    alike = _ALIKE.search(" ".join(tokens)) is not None
    if (
        _MOST.isdisjoint(tokens)
        and _MORE_THAN.isdisjoint(tokens)
        and _LEAST.isdisjoint(tokens)
        and not alike
        and not _cleft(tokens)
    ):
        return NO_GROUP
    # a reason after the finding explains it and singles no group out ("..., because in
    # the youngest children so much ... is viral": decision 0106)
    reason = next((i for i, tok in enumerate(tokens) if tok == "because"), len(tokens))
    if not _MOST.isdisjoint(tokens[:reason]):
        tokens = tokens[:reason]
    featured: dict[str, set[int]] = {}
    leading: dict[str, set[int]] = {}  # featured sides a word of most follows
    least: dict[str, set[int]] = {}
    named: dict[str, set[int]] = {}
    group_words: set[int] = set()
    i = 0
    while i < len(tokens):
        found = _side_at(tokens, i)
        if found is None:
            i += 1
            continue
        divide, side, length = found
        # the group's own words, and the noun right after them ("young people",
        # "low-income households"), say who, not what
        after = i + length
        noun = after < len(tokens) and not tokens[after].endswith("ed")  # not "... gained"
        group_words.update(range(i, min(len(tokens), after + noun)))
        # only the side named first can lead ("Girls and boys gained the most" singles
        # out neither)
        first = divide not in named
        named.setdefault(divide, set()).add(side)
        if not _aside(tokens, i, length):
            featured.setdefault(divide, set()).add(side)
            if first and _most_after(tokens, i, length):
                leading.setdefault(divide, set()).add(side)
        elif _least(tokens, i, length):
            least.setdefault(divide, set()).add(side)
        i += length
    share = "most"
    if alike and _MOST.isdisjoint(tokens) and _MORE_THAN.isdisjoint(tokens):
        # as much as the others: whichever side is named, the divide makes no difference
        single = [(divide, {min(sides)}) for divide, sides in named.items()]
        share = "alike"
    else:
        # both sides named, the most said of one ("children from the lowest-income
        # households gained the most, ... against under one day for their better-off
        # classmates")
        single = [
            (divide, sides if len(sides) == 1 else leading.get(divide, set()))
            for divide, sides in featured.items()
            if len(sides) == 1 or len(leading.get(divide, ())) == 1
        ]
        if not single and _MOST.isdisjoint(tokens) and _MORE_THAN.isdisjoint(tokens):
            single = [(divide, sides) for divide, sides in least.items() if len(sides) == 1]
            share = "least"
    if len(single) != 1:
        return NO_GROUP
    divide, sides = single[0]
    rest = [
        t
        for i, t in enumerate(tokens)
        if i not in group_words and t not in _MOST and t not in _LEAST and t not in _MORE_THAN
    ]
    effect = set()
    for tok in rest:
        for key in content_keys((tok,)):
            # a word of an antonym axis ("benefits", "gain") is kept as itself
            key = stem(tok) if key.startswith("~") else key
            effect.add(_SAME_EFFECT.get(key, key))
    return GroupReading(
        divide, next(iter(sides)), frozenset(effect - GENERAL_OUTCOMES - _ALIKE_WORDS), share
    )


# the words of `_ALIKE` say nothing of what was gained
_ALIKE_WORDS: Final = frozenset(
    {"anyon", "anybodi", "everyon", "everybodi", "rest", "other", "same", "siz", "amount",
     "extra", "additional", "boost", "better", "wors", "less", "mor", "just", "els"}
)  # fmt: skip


def groups_clash(first: GroupReading, second: GroupReading) -> bool:
    """The two texts say different things of one divide for an effect both name:
    opposite sides get the most (or the least) of it, one side gets the most and the
    least, or one side gets the most and each gets alike."""
    if not (first.divide and first.divide == second.divide and first.effect & second.effect):
        return False
    shares = {first.share, second.share}
    if len(shares) == 1:
        return shares != {"alike"} and first.side != second.side
    if shares == {"most", "least"}:
        return first.side == second.side
    return shares == {"most", "alike"}
