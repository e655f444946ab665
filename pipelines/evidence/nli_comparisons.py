"""Comparisons: a reading of the heuristic stance judge's change rules (`nli_change`,
decisions 0104, 0105, 0108), moved out of it to keep it under STYLE's size.

"A <more / better / cheaper ...> X than B", "A outperforms B", "A is (just) as effective
as B", "A costs N times as much (per X) as B"; and which two of them cannot both hold:
one denies what the other asserts, the two put A and B in opposite places, an equality
against a lead, or one costs more where the other costs less.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from lyra.pipelines.evidence.leftovers import lexicon_readings
from lyra.pipelines.evidence.nli_counts import percent_at
from lyra.pipelines.evidence.nli_numbers import (
    CARDINALS,
    FRACTION_OF,
    TIME_UNITS,
    number,
    stem,
)
from lyra.pipelines.evidence.nli_tokens import STOPWORDS, axis_of, content_keys, is_cue
from lyra.pipelines.evidence.nli_words import (
    ARMS,
    AS_USUAL,
    CHANGE_DEGREES,
    GENERAL_OUTCOMES,
    STAYING,
)

# How far a verb of change reaches for its object, and a negation for the comparison it
# denies (tokens).
CUE_REACH = 4
# After a null noun, through "to the risk of having a heart attack"; after "than".
NULL_REACH = 8


def outcome(tokens: Sequence[str]) -> set[str]:
    """Content words a change can be about: no antonym axis, no adverb of degree or of
    staying ("considerably", "essentially")."""
    kept = [t for t in tokens if t not in CHANGE_DEGREES and t not in STAYING]
    return {k for k in content_keys(kept) if not k.startswith("~")}


def specific(words: frozenset[str]) -> frozenset[str]:
    """``words`` without those too general to say what changed ("risk", "rate")."""
    return words - GENERAL_OUTCOMES


# A comparison: a word of the amount, quality or performance axes ("more", "better",
# "outperforms") with "than" at most this many tokens after it.
THAN_REACH = 8
# What leads is named right before the comparison ("call-centre agents gain", "green
# tea burns"), past a verb and an adverb of its own ("sleeping tablets work faster and
# better than", "CBT-I works as well as": decision 0104); a wider window takes in the
# sentence's setting ("after having their wisdom teeth out get more ...").
_LEADER_REACH = 5
# A verb that gives what leads its result ("physiotherapy on its own led to better pain
# and function than ...", "signed limits have delivered bigger casualty reductions than
# ..."): the leader is named before it, past an "on its own" (decision 0125).
_RESULT_VERBS: Final = frozenset(
    {"delivered", "produced", "achieved", "yielded", "brought", "gave", "led", "resulted"}
)
_RESULT_LINKS: Final = frozenset({"to", "in", "about"})
_ON_ITS_OWN: Final = frozenset(
    {"on", "its", "their", "own", "alone", "by", "itself", "themselves", "have", "has", "had",
     "actually", "also"}
)  # fmt: skip
# Size words on no antonym axis that compare amounts before "than" ("bigger casualty
# reductions than", "a larger fall in ... than"): read in comparisons only, and only
# before what they size ("the saving by weight is smaller than the saving in bag counts"
# sets two measures side by side, not two things: decision 0125).
_SIZE_COMPARATIVES: Final = {"bigger": 1, "larger": 1, "smaller": -1}
# A time the comparison holds over, between its measure and "than" ("better pain and
# function over the first three months than"): "than" may stand this much further on.
_OVER_A_TIME: Final = frozenset({"over", "during", "across", "within", "for", "at", "in"})
_TIME_REACH: Final = 5
# A change over to what leads, between the measure and "than": "we actually had fewer
# hip fractures once we went over to the soft foam ones than we ever had with the hard
# shells" (decision 0126). What leads is named after the change's "to".
_SWITCH_WHEN: Final = frozenset({"once", "after", "since", "when"})
_SWITCH_VERBS: Final = frozenset(
    {"switched", "moved", "changed", "went", "swapped", "converted", "turned"}
)
_SWITCH_REACH: Final = 4
_COMPARING_AXES = frozenset({"amount", "quality", "performance", "cost"})
# "cost roughly four times as much per decayed tooth prevented as water fluoridation":
# a multiple of a cost, what is costed before it (decision 0108).
_COSTED = frozenset({"cost", "costs", "costing", "price", "priced"})
_MULTIPLE_REACH = 3


# "A is as effective as B": an equality of these axes, or of these words.
_EQUAL_AXES = frozenset({"efficacy", "safety", "benefit", "quality", "performance"})
_EQUAL_WORDS = frozenset({"good", "well", "potent", "strong", "much"})
# "switching devices to night mode and lowering screen brightness shortened sleep onset
# about as much as wearing amber glasses": what does as much stands before its verb and
# what it acts on (decision 0109)
_MUCH_LEADER_REACH = 10
# Before the first "as", words that make it no equality: "at least as effective as" (or
# better), "nearly as good as" (a little worse), "twice as effective as" (a multiple).
_NOT_EQUAL = frozenset({"least", "nearly", "almost", "quite", "twice", "times", "half"})


# An equality in these words says only that one does as well as the other, in whatever
# the other text measures ("every bit as good as"; an axis word such as "effective" is
# no measure at all).
JUDGEMENT_MEASURES = frozenset({"good", "well"})


@dataclass(frozen=True)
class Comparison:
    """One comparison of a text: who leads, what it is compared with, in what."""

    sign: int  # +1: the leader has more, does better; -1: less, worse; 0: as well as
    denied: bool  # "no more ... than", "not better than"
    leader: frozenset[str]  # what comes first: "green tea", "call-centre agents"
    compared: frozenset[str]  # what it is compared with: "coffee", "programmers"
    measure: frozenset[str]  # what they are compared in: "fat", "from a standing desk"
    axis: str = ""  # the antonym axis of its word ("cost": "cheaper", "four times as much")
    # what follows what it is compared with after "for / at / on": "worked better than
    # paracetamol for dental pain" (decision 0117)
    setting: frozenset[str] = frozenset()


# Words that stress an equality right before its first "as": "every bit as anxious as",
# "just as heavy as", "exactly as tired as" (decision 0127).
_EQUALITY_STRESS: Final = frozenset({"bit", "just", "exactly", "equally"})
# States that "just as ... as" leaves out: a time ("just as soon as"), a distance, a
# quantity or a degree ("just as long as", "just as far as", "just as much as" are read
# by `_EQUAL_WORDS` where they are).
_NOT_STATES: Final = frozenset({"soon", "far", "long", "much", "many", "often", "quickly"})


def _stressed_state(tokens: Sequence[str], i: int) -> bool:
    """``tokens[i]`` is an adjective of a state in a stressed equality: "the people with
    the app were every bit as anxious as the people who were just sitting on a waiting
    list"."""
    if i < 2 or tokens[i - 2] not in _EQUALITY_STRESS or tokens[i] in _NOT_STATES:
        return False
    if tokens[i - 2] == "bit" and tokens[i - 3 : i - 2] != ["every"]:
        return False
    return tokens[i].isalpha() and "ADJ" in lexicon_readings(tokens[i])


_STATE_COMPARED_REACH: Final = 10


def _state_noun(adjective: str) -> frozenset[str]:
    """The noun of an adjective in "-ious" whose noun ends in "-iety" ("anxious":
    "anxiety"), as a key; empty for others."""
    if not adjective.endswith("ious"):
        return frozenset()
    return frozenset(content_keys([adjective[:-4] + "iety"]))


def _equalities(tokens: Sequence[str]) -> list[Comparison]:
    """Each "A is (just) as effective as B" of the text that no word before denies or
    bounds ("not as good as", "at least as effective as", "twice as effective as")."""
    found = []
    for i in range(1, len(tokens) - 2):
        if tokens[i - 1] != "as" or tokens[i + 1] != "as":
            continue
        axis = axis_of(tokens, i) if tokens[i].isalpha() else None
        stressed = _stressed_state(tokens, i)
        if not ((axis and axis[0] in _EQUAL_AXES) or tokens[i] in _EQUAL_WORDS or stressed):
            continue
        before = tokens[max(0, i - 1 - CUE_REACH) : i - 1]
        if not _NOT_EQUAL.isdisjoint(before) or any(number(t) is not None for t in before):
            continue
        much = tokens[i] == "much"
        if much and any(number(t) is not None for t in tokens[i + 2 : i + 4]):
            continue  # "as much as 30 per cent": a bound
        if any(is_cue(tokens, j) for j in range(max(0, i - 1 - CUE_REACH), i - 1)):
            continue
        found.append(
            Comparison(
                sign=0,
                denied=False,
                leader=frozenset(
                    outcome(
                        tokens[
                            max(0, i - 1 - (_MUCH_LEADER_REACH if much else _LEADER_REACH)) : i
                            - (3 if stressed else 1)
                        ]
                    )
                ),
                # a state's equality names its groups in full: "as the people who were
                # just sitting on a waiting list"
                compared=frozenset(
                    outcome(
                        tokens[i + 2 : i + 2 + (_STATE_COMPARED_REACH if stressed else NULL_REACH)]
                    )
                ),
                measure=frozenset(outcome(tokens[i : i + 1])) | _state_noun(tokens[i]),
            )
        )
    return found


# "the same level of protection as": what the sameness is of, in a word or two after
# one of these and "of" (decision 0115).
_SAME_OF = frozenset({"level", "levels", "degree", "amount", "kind", "quality"})
_SAME_MEASURE_WORDS = 2


def _same_as(tokens: Sequence[str]) -> list[Comparison]:
    """Each "A gives the same (level of) protection as B" of the text that no word before
    negates: "our stockings give the same level of protection as a heparin injection"."""
    found = []
    for i in range(1, len(tokens) - 2):
        if tokens[i] != "same" or tokens[i - 1] != "the":
            continue
        start = i + 1
        if tokens[start] in _SAME_OF and tokens[start + 1 : start + 2] == ["of"]:
            start += 2
        ends = [k for k in range(start + 1, start + 1 + _SAME_MEASURE_WORDS) if k < len(tokens)]
        second_as = next((k for k in ends if tokens[k] == "as"), None)
        if second_as is None:
            continue
        opening = max(0, i - 1 - _LEADER_REACH)
        if any(is_cue(tokens, j) for j in range(opening, i - 1)):
            continue
        found.append(
            Comparison(
                sign=0,
                denied=False,
                leader=frozenset(outcome(tokens[opening : i - 1])),
                compared=frozenset(outcome(tokens[second_as + 1 : second_as + 1 + NULL_REACH])),
                measure=frozenset(outcome(tokens[start:second_as])),
            )
        )
    return found


# After what a performance verb beats, the words that open what it beats it in.
_FOR_MEASURE = frozenset({"for", "at", "on", "comes"})
# Words for a count after "than" that make a bound of what looks like a comparison.
_BOUND_WORDS: Final = frozenset({"one", "half"})
# "have more than trebled since ...": a change bounded, not a comparison (decision 0128).
_MULTIPLIED: Final = frozenset(
    {"doubled", "tripled", "trebled", "quadrupled", "halved", "double", "triple", "treble",
     "quadruple", "halve", "doubling", "tripling", "trebling", "halving"}
)  # fmt: skip
# After "than a", a count, a fraction or a span (in the next two words) makes a bound:
# "more than a third", "fewer than a dozen", "less than a full year"; any other words are
# what is compared: "more travellers than a standard antihistamine tablet", "less
# carbon dioxide than a comparable petrol car" (decision 0111).
_COUNTED_AFTER_A: Final = frozenset(FRACTION_OF) | frozenset(
    {
        "few", "couple", "bit", "little", "handful", "dozen", "pinch", "score", "fraction",
        "hundred", "thousand", "million", "billion", "second", "minute", "hour", "day",
        "night", "week", "fortnight", "month", "term", "semester", "season", "year",
        "decade", "century", "generation", "lifetime", "mile", "metre", "meter",
        "kilometre", "kilometer", "kilogram", "gram", "litre", "liter", "pound", "cup",
        "glass", "teaspoon", "tablespoon", "portion", "serving", "dose", "percent", "per",
        "cent", "point", "degree",
    }
)  # fmt: skip


def _bound_after_than(tokens: Sequence[str], than: int) -> bool:
    """What follows "than" at ``than`` is a count, not what is compared: "fewer than 1 in
    1,000", "fewer than one in a thousand", "more than a third"."""
    after = tokens[than + 1 : than + 2]
    if not after:
        return False
    word = after[0]
    if number(word) is not None or word in CARDINALS or word in _BOUND_WORDS | _MULTIPLIED:
        return True
    return word == "a" and not _COUNTED_AFTER_A.isdisjoint(tokens[than + 2 : than + 4])


def read_comparisons(tokens: Sequence[str]) -> list[Comparison]:
    """Each "A <more / better / less ...> X than B" and "A outperforms B" of the text; a
    bound ("no more than 4 grams") is none. Then its equalities (`_equalities`)."""
    found = []
    for i, tok in enumerate(tokens):
        axis = axis_of(tokens, i) if tok.isalpha() else None
        if axis is None and tok in _SIZE_COMPARATIVES and tokens[i + 1 : i + 2] != ["than"]:
            axis = ("amount", _SIZE_COMPARATIVES[tok])
        if not axis or axis[0] not in _COMPARING_AXES:
            continue
        measure_at = setting_at = 0
        if axis[0] == "performance":
            than = i
            # "A beats B for yield", "... when it comes to falling asleep" (decision 0109)
            measure_at = next(
                (
                    k
                    for k in range(i + 2, min(len(tokens), i + 1 + NULL_REACH))
                    if tokens[k] in _FOR_MEASURE
                ),
                0,
            )
        else:
            than = _than_after(tokens, i)
            if not than or _bound_after_than(tokens, than):
                continue
            # "worked better than paracetamol for dental pain": what they are compared
            # in may follow what is compared (decision 0117)
            setting_at = next(
                (
                    k
                    for k in range(than + 2, min(len(tokens), than + 1 + NULL_REACH))
                    if tokens[k] in _FOR_MEASURE
                ),
                0,
            )
        switch, switched_to = _switch_between(tokens, i, than) if than > i else (0, 0)
        if switched_to:
            leader = frozenset(outcome(tokens[switched_to:than]))
        elif lead := _leader_end(tokens, i):
            leader = frozenset(outcome(tokens[max(0, lead - _LEADER_REACH) : lead]))
        else:
            leader = frozenset()
        found.append(
            Comparison(
                sign=axis[1],
                denied=any(is_cue(tokens, j) for j in range(max(0, i - CUE_REACH), i)),
                leader=leader,
                compared=frozenset(
                    outcome(tokens[than + 1 : measure_at or setting_at or than + 1 + NULL_REACH])
                ),
                measure=frozenset(
                    outcome(_words_run(tokens, measure_at + 1))
                    if measure_at
                    else outcome(tokens[i + 1 : switch or than])
                ),
                axis=axis[0],
                setting=frozenset(outcome(_words_run(tokens, setting_at + 1)))
                if setting_at
                else frozenset(),
            )
        )
    return (
        found
        + _superior(tokens)
        + _equalities(tokens)
        + _same_as(tokens)
        + _multiples(tokens)
        + _shares_side_by_side(tokens)
    )


def _than_after(tokens: Sequence[str], i: int) -> int:
    """Where "than" stands after the comparative at ``i`` (0 for nowhere near): within
    `THAN_REACH`, or past a time the comparison holds over ("better pain and function
    over the first three months than"; decision 0125)."""
    end = i + 1 + THAN_REACH
    for k in range(i + 2, min(len(tokens), end)):
        if tokens[k] in _OVER_A_TIME and any(
            stem(t) in TIME_UNITS for t in tokens[k + 1 : k + 1 + _TIME_REACH]
        ):
            end += _TIME_REACH
            break
        if to := _switched_to(tokens, k):
            end = to + THAN_REACH
            break
        if tokens[k] in _SCALES and tokens[k + 1 : k + 3] == ["of", "how"]:
            # "scored 0.42 points higher on the five-point scale of how satisfied they
            # were than victims in areas sending only a letter" (decision 0135)
            end = k + 3 + _SCALE_REACH
            break
    return next((k for k in range(i + 1, min(len(tokens), end)) if tokens[k] == "than"), 0)


# A scale named between a comparative and its "than", and what it measures after "of how".
_SCALES: Final = frozenset({"scale", "scales", "measure", "questionnaire", "index", "rating"})
_SCALE_REACH: Final = 5


def _switched_to(tokens: Sequence[str], k: int) -> int:
    """Where what was changed over to is named, when ``tokens[k]`` starts "once / after /
    since / when ... switched / went over ... to"; 0 for no such change."""
    if tokens[k] not in _SWITCH_WHEN:
        return 0
    verb = next(
        (j for j in range(k + 1, min(len(tokens), k + 1 + _SWITCH_REACH))
         if tokens[j] in _SWITCH_VERBS),
        0,
    )  # fmt: skip
    if not verb:
        return 0
    return next(
        (j + 1 for j in range(verb + 1, min(len(tokens), verb + 3)) if tokens[j] in ("to", "onto")),
        0,
    )


def _switch_between(tokens: Sequence[str], i: int, than: int) -> tuple[int, int]:
    """(where the change over starts, where what it went to is named) between the
    comparative at ``i`` and its "than"; (0, 0) for none."""
    for k in range(i + 2, than):
        if to := _switched_to(tokens, k):
            return k, to
    return 0, 0


# A summary statistic between what leads and its lead ("read a mean of 9.8 more words
# correct per minute than"): not the leader.
_STATISTICS: Final = frozenset({"mean", "average", "median"})


def _before_a_statistic(tokens: Sequence[str], i: int) -> int:
    """Where "a mean of 9.8" stands before the comparative at ``tokens[i]``; ``i`` for
    none."""
    k = i - 1 if i >= 1 and number(tokens[i - 1].rstrip("%")) is not None else i
    if (
        k >= 3
        and tokens[k - 1] == "of"
        and tokens[k - 2] in _STATISTICS
        and tokens[k - 3] in {"a", "an", "the"}
    ):
        return k - 3
    return i


def _leader_end(tokens: Sequence[str], i: int) -> int:
    """Where the words naming what leads end, before the comparative at ``i``: right
    before it, or before a verb that gives it as a result ("physiotherapy on its own led
    to better ...", "signed limits have delivered bigger ...": decision 0125)."""
    k = _before_a_statistic(tokens, i)
    if k >= 2 and tokens[k - 1] in _RESULT_LINKS and tokens[k - 2] in _RESULT_VERBS:
        k -= 2
    elif k >= 1 and tokens[k - 1] in _RESULT_VERBS:
        k -= 1
    else:
        return k
    while k > 0 and tokens[k - 1] in _ON_ITS_OWN:
        k -= 1
    return k


# "56% of participants on the diet compared with 34% on control diets", "deposit schemes
# recovered 88% of PET bottles, against 61% in kerbside-only areas" (decision 0122): two
# shares set side by side by one of these, the second within a word or two of it.
_SIDE_JOINS: Final = (("compared", "with"), ("compared", "to"), ("against",), ("versus",),
                      ("vs",))  # fmt: skip
_SIDE_REACH: Final = 14
# Two shares closer than this (relative to the larger) lead nowhere: 31% against 30%.
_SHARES_LEAD: Final = 0.1


def _side_join(tokens: Sequence[str], j: int) -> int:
    """How many tokens a joiner of `_SIDE_JOINS` takes at ``j`` (0 for none)."""
    for join in _SIDE_JOINS:
        if tuple(tokens[j : j + len(join)]) == join:
            return len(join)
    return 0


def _shares_side_by_side(tokens: Sequence[str]) -> list[Comparison]:
    """Each "N% <of A> compared with / against M% <in B>": A leads B (N > M) or trails it
    in what the shares are of. What leads is named before the first share or between it
    and the joiner; the measure is read in the same words (the outcome comes first in
    "relief was reported by 56% ...", after "of" in "recovered 88% of PET bottles")."""
    found = []
    for i in range(len(tokens)):
        first = percent_at(tokens, i)
        if first is None:
            continue
        for j in range(first[1], min(len(tokens), first[1] + _SIDE_REACH)):
            if percent_at(tokens, j) is not None or (
                # a time of follow-up is no share ("stably housed at 24 months, compared
                # with 41.2% in ...": decision 0123)
                number(tokens[j]) is not None
                and not (j + 1 < len(tokens) and stem(tokens[j + 1]) in TIME_UNITS)
            ):
                break
            join = _side_join(tokens, j)
            if not join:
                continue
            k = j + join
            second = percent_at(tokens, k) if k < len(tokens) else None
            if second is None:
                break
            high = max(first[0], second[0])
            if high <= 0 or abs(first[0] - second[0]) <= _SHARES_LEAD * high:
                break
            end = next(
                (m for m in range(second[1], min(len(tokens), second[1] + NULL_REACH))
                 if number(tokens[m]) is not None or percent_at(tokens, m)),
                min(len(tokens), second[1] + NULL_REACH),
            )  # fmt: skip
            lead = frozenset(outcome(tokens[max(0, i - _LEADER_REACH) : i])) | frozenset(
                outcome(tokens[first[1] : j])
            )
            found.append(
                Comparison(
                    sign=1 if first[0] > second[0] else -1,
                    denied=False,
                    leader=lead,
                    compared=frozenset(outcome(tokens[second[1] : end])),
                    measure=lead,
                    axis="amount",
                )
            )
            break
    return found


# "A was superior / inferior to B for O" (decision 0117); "A fell short of B" (0119).
_RANKED: Final = {"superior": 1, "inferior": -1}
_FELL: Final = frozenset({"fell", "falls", "fall", "falling", "fallen"})


def _superior(tokens: Sequence[str]) -> list[Comparison]:
    """Each "A is superior (inferior) to B (for / at / in O)": A does better (worse);
    "A fell short of B (for O)": A does worse."""
    found = []
    for i, tok in enumerate(tokens):
        if tok in _RANKED and tokens[i + 1 : i + 2] == ["to"]:
            sign, lead_end = _RANKED[tok], i
        elif (
            tok == "short"
            and tokens[i + 1 : i + 2] == ["of"]
            and tokens[i - 1 : i]
            and (tokens[i - 1] in _FELL)
        ):
            sign, lead_end = -1, i - 1
        else:
            continue
        measure_at = next(
            (
                k
                for k in range(i + 3, min(len(tokens), i + 2 + NULL_REACH))
                if tokens[k] in _FOR_MEASURE or tokens[k] == "in"
            ),
            0,
        )
        found.append(
            Comparison(
                sign=sign,
                denied=any(is_cue(tokens, j) for j in range(max(0, i - CUE_REACH), i)),
                leader=frozenset(outcome(tokens[max(0, lead_end - _LEADER_REACH) : lead_end])),
                compared=frozenset(outcome(tokens[i + 2 : measure_at or i + 2 + NULL_REACH])),
                measure=frozenset(outcome(_words_run(tokens, measure_at + 1)))
                if measure_at
                else frozenset(),
                axis="quality",
            )
        )
    return found


def _words_run(tokens: Sequence[str], start: int) -> Sequence[str]:
    """The words from ``start`` past leading function words to the next one: "yield" of
    "for yield every single season", "water retention" of "for water retention on"."""
    while start < len(tokens) and tokens[start] in STOPWORDS:
        start += 1
    end = start
    while end < min(len(tokens), start + CUE_REACH) and tokens[end] not in STOPWORDS:
        end += 1
    return tokens[start:end]


def _multiples(tokens: Sequence[str]) -> list[Comparison]:
    """Each "A costs N times as much (per X) as B": A costs more than B, in X; "A costs
    half as much as B": less. Without a word of cost, "A <verb> N times as many / much X
    as B" (`_multiple`)."""
    found = []
    for i, tok in enumerate(tokens):
        if tok not in ("times", "half") or tokens[i + 1 : i + 3] not in (
            ["as", "much"],
            ["as", "many"],
        ):
            continue
        if tok == "times" and (number(tokens[i - 1]) or 0) <= 1:
            continue
        costed = next(
            (j for j in range(max(0, i - 1 - _MULTIPLE_REACH), i) if tokens[j] in _COSTED), None
        )
        ahead = range(i + 3, min(len(tokens), i + 3 + THAN_REACH))
        second_as = next((k for k in ahead if tokens[k] == "as"), None)
        if second_as is None:
            continue
        if costed is None:
            found.extend(_multiple(tokens, i, second_as))
            continue
        found.append(
            Comparison(
                sign=1 if tok == "times" else -1,
                denied=False,
                leader=frozenset(outcome(tokens[max(0, costed - _LEADER_REACH) : costed])),
                compared=frozenset(outcome(tokens[second_as + 1 : second_as + 1 + NULL_REACH])),
                measure=frozenset(outcome(tokens[i + 3 : second_as])),
                axis="cost",
            )
        )
    return found


def _multiple(tokens: Sequence[str], i: int, second_as: int) -> list[Comparison]:
    """ "A supported 2.6 times as many foraging bumblebees per 100 m as managed hedgerows":
    A has more of X than B, as "A has more X than B" says (decision 0124); what A is
    comes before the number and its verb."""
    start = i - 1 if tokens[i] == "times" else i
    if start > 0 and tokens[start - 1] in ("about", "around", "roughly", "nearly", "some"):
        start -= 1
    return [
        Comparison(
            sign=1 if tokens[i] == "times" else -1,
            denied=False,
            leader=frozenset(outcome(tokens[max(0, start - _LEADER_REACH) : start])),
            compared=frozenset(outcome(tokens[second_as + 1 : second_as + 1 + NULL_REACH])),
            measure=frozenset(outcome(tokens[i + 3 : second_as])),
            axis="amount",
        )
    ]


def comparisons_clash(hypothesis: Sequence[Comparison], sentence: Sequence[Comparison]) -> bool:
    """Two comparisons in the same direction and measure that cannot both hold: one denies
    that A leads B and the other says it does ("green tea burns no more fat than the same
    amount of caffeine from coffee" against "green tea far outperforms coffee when it
    comes to burning fat"), or the two put A and B in opposite places ("call-centre
    agents gain far more from a standing desk than programmers do" against "software
    developers gain more from sit-stand desks than call-centre agents do"). Where both
    name what they compare in ("fat", "from a standing desk"), they share a word of it;
    a swap needs both to name it."""
    for first in hypothesis:
        for second in sentence:
            if (
                first.measure
                and second.measure
                and not first.measure & second.measure
                and not (_judged(first) or _judged(second))
                # a cost is the measure; what it is paid for each of may be named in
                # other words ("per decayed tooth prevented", "per cavity prevented")
                and not first.axis == second.axis == "cost"
            ):
                continue
            if (first.sign == 0) != (second.sign == 0):
                if _equal_against_lead(first, second):
                    return True
                continue
            same_order = specific(first.leader & second.leader) and specific(
                first.compared & second.compared
            )
            # "A costs four times as much as B" against "A works out cheaper than B"
            if (
                first.axis == second.axis == "cost"
                and first.sign == -second.sign
                and same_order
                and first.denied == second.denied
            ):
                return True
            if first.sign != second.sign:
                # "A relieved dental pain better than B" against "A fell short of B for
                # dental pain": one ranks A above B, the other below, in one measure
                # (decision 0119). Amounts are left out: "less" nausea is better.
                if (
                    first.sign
                    and second.sign
                    and {first.axis, second.axis} <= _RANKING_AXES
                    and same_order
                    and first.denied == second.denied
                    and _one_measure(first, second)
                ):
                    return True
                continue
            if same_order and first.denied != second.denied:
                return True
            # A in one is B in the other: compared with what the other puts first, and
            # never with what the other compares with ("programmers" and "software
            # developers" may name one group; no word says so).
            crossed = specific(first.leader & second.compared)
            crossed_back = specific(first.compared & second.leader)
            swapped = (
                (crossed or crossed_back)
                and (
                    first.measure & second.measure
                    or first.axis == second.axis == "cost"
                    or _measure_named(first, second)
                    or _measure_unnamed(first, second, crossed | crossed_back)
                )
                and not first.compared & second.compared
                and not crossed & second.leader
                and not crossed_back & first.leader
            )
            if swapped and not (first.denied or second.denied):
                return True
    return False


# The axes of a ranking: better / worse, superior / inferior, outperformed / fell short.
_RANKING_AXES: Final = frozenset({"quality", "performance"})


def _one_measure(first: Comparison, second: Comparison) -> bool:
    """Every specific word of the measure one ranking names apart is in the other's
    measure, or in its words where it names none apart: "dental pain" is in "ibuprofen
    relieved dental pain better than paracetamol", not in "... relieved back pain ..."
    (two outcomes sharing "pain" are two measures here)."""
    named = [c for c in (first, second) if specific(c.measure)]
    if not named:
        return False
    if len(named) == 2:
        return (
            specific(first.measure) <= second.measure or specific(second.measure) <= first.measure
        )
    other = second if named[0] is first else first
    return specific(named[0].measure) <= _topic(other)


def _measure_named(first: Comparison, second: Comparison) -> bool:
    """One comparison names no measure and the other, by a verb of beating, names one
    among its words: "compost gave larger yield gains than biochar" and "biochar has
    beaten compost for yield" (decision 0109). Two comparisons of amounts are not read
    so ("soil loss ... 42% lower than on fields left bare" is no comparison of the
    nitrogen "lower under the covers than under fallow")."""
    for bare, named in ((first, second), (second, first)):
        if (
            not bare.measure
            and named.axis == "performance"
            and named.measure
            and specific(named.measure & (bare.leader | bare.compared | bare.setting))
        ):
            return True
    return False


def _measure_unnamed(first: Comparison, second: Comparison, swapped: frozenset[str]) -> bool:
    """One comparison at most names its measure apart, and both name one specific word of
    it beside the two they compare: "ibuprofen relieved dental pain more than
    paracetamol did" and "paracetamol worked better than ibuprofen for dental pain"
    (decision 0117). Findings about two outcomes are told apart by the outcome guard
    (`nli_outcomes`)."""
    if first.measure and second.measure:
        return False
    rest = _topic(first) & _topic(second)
    return bool(specific(rest - swapped))


def _topic(comparison: Comparison) -> frozenset[str]:
    """What a comparison is in: its measure where it names one apart, else all its words."""
    return comparison.measure or comparison.leader | comparison.compared | comparison.setting


def _judged(comparison: Comparison) -> bool:
    """An equality in a word of judgement ("every bit as good as"), which any measure the
    other text names can fill: "ezetimibe is every bit as good as
    a statin at preventing heart attacks" against "a statin prevents considerably more
    heart attacks than ezetimibe" (decision 0105)."""
    return comparison.sign == 0 and bool(comparison.measure & JUDGEMENT_MEASURES)


def _equal_against_lead(first: Comparison, second: Comparison) -> bool:
    """One says A does as well as B, the other, denying nothing, that one of them leads:
    "magnesium was just as effective as propranolol at cutting the number of attacks"
    against "Propranolol is more effective than magnesium at reducing attack frequency"."""
    if first.denied or second.denied:
        return False
    forward = specific(first.leader & second.leader) and specific(first.compared & second.compared)
    crossed = specific(first.leader & second.compared) and specific(first.compared & second.leader)
    return bool(forward or crossed or _equal_to_the_control(first, second))


def _equal_to_the_control(first: Comparison, second: Comparison) -> bool:
    """The lead is over the trial's control arm, and the equality puts the same leader
    level with a group it names in other words: "the hybrid teams got through
    essentially the same amount of work as the ones who came in every day" against
    "employees allocated to the hybrid arm completed 7.2% more scheduled work items per
    month than office-based controls" (decision 0126). A group named with the leader's
    own noun is another arm ("the same amount of work as the fully remote teams")."""
    equal, lead = (first, second) if first.sign == 0 else (second, first)
    return bool(
        specific(equal.leader & lead.leader)
        and not ARMS.isdisjoint(lead.compared)
        and specific(equal.measure & lead.measure)
        and not equal.compared & (lead.leader | lead.compared | equal.leader)
    )


# The words that set two things side by side in a finding of no difference ("did not
# differ significantly between exercise and antidepressant arms", "no different from").
_SIDE_BY_SIDE = frozenset({"between", "from", "versus", "vs", "compared", "than"})


def no_difference_against_comparison(
    null_tokens: Sequence[str],
    no_change: frozenset[str],
    comparisons: Sequence[Comparison],
    other_tokens: Sequence[str],
) -> bool:
    """One text finds no difference between two things in an outcome ("remission at 12
    weeks did not differ significantly between exercise and antidepressant arms"), and
    the other has one of them do better or more than the other, naming the outcome
    ("Structured exercise outperforms antidepressants, with patients around 1.5 times
    more likely to reach remission ..."): decision 0115."""
    if not no_change or (_SIDE_BY_SIDE.isdisjoint(null_tokens) and not _same_as(null_tokens)):
        return False
    if not specific(no_change) & content_keys(other_tokens):
        return False
    # the two things, never the outcome itself
    named = content_keys(null_tokens) - no_change
    for comparison in comparisons:
        if comparison.sign == 0 or comparison.denied:
            continue
        leads, behind = specific(comparison.leader & named), specific(comparison.compared & named)
        if leads and behind and leads.isdisjoint(behind):
            return True
        if leads and not comparison.compared & named and _each_names_a_control(comparison, named):
            return True
    return False


# The words that name a study's control arm, or those who got the usual treatment:
# "matched comparison cases", "people who'd just been sentenced in the ordinary way".
# (Their keys, not the axis "usual" stands for: "daily" reads on that axis too.)
_CONTROL_KEYS: Final = frozenset(
    key for key in content_keys([*ARMS, *AS_USUAL, "comparison"]) if not key.startswith("~")
)


def _each_names_a_control(comparison: Comparison, named: set[str]) -> bool:
    """The comparison leads over a control arm, and the finding of no difference sets the
    leader beside a control arm too, each named in its own words: "34.1% of drug court
    participants had been reconvicted ..., compared with 49.7% of matched comparison
    cases" against "the people who'd been through drug court were getting reconvicted at
    more or less the same rate as people who'd just been sentenced in the ordinary way"
    (decision 0130)."""
    return bool(comparison.compared & _CONTROL_KEYS) and bool(named & _CONTROL_KEYS)
