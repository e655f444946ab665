"""Shares far apart: a contradiction rule of the heuristic stance judge (`nli_heuristic`,
decision 0105).

Two texts give the share of people an outcome affects, and the shares are far apart:
"muscle pain judged to be caused by the statin itself affected roughly 1 in 100
participants over four years" against "as many as 3 in 10 statin users suffer muscle
pain caused directly by their medication". Such pairs share the outcome and little
else, so the overlap rules call them neutral. A share is a percentage or "N in M"
(`nli_numbers`), the only one its sentence gives, in a sentence that states no change
and no comparison (those are sized and compared by `nli_change`); the outcome is what
the two sentences both name, in at least `SHARED_WORDS` specific words, so that "90 per
cent of the muscle symptoms people blame on their statin also turn up on placebo" and
"1 in 100 had muscle pain caused by the statin" (two words) do not meet, nor do a share
on placebo and one on the drug.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Final

from lyra.pipelines.evidence.antonym_axes import ANTONYM_AXES
from lyra.pipelines.evidence.harm_reports import SYMPTOM
from lyra.pipelines.evidence.nli_bounds import bound_before
from lyra.pipelines.evidence.nli_halves import SAID, half_share
from lyra.pipelines.evidence.nli_numbers import (
    CARDINALS,
    FRACTION_HEDGES,
    FRACTION_OF,
    SHARE_NOUNS,
    measures,
    noun_counted_earlier,
    number,
    of_so_many,
    one_of_whom,
    out_of_first,
    per_group,
)
from lyra.pipelines.evidence.nli_shares_said import (
    Share,
    all_but_every,
    all_but_every_at,
    few_known,
    few_known_at,
)
from lyra.pipelines.evidence.nli_tokens import (
    content_keys,
)
from lyra.pipelines.evidence.nli_words import ARMS, AS_USUAL, PEOPLE

# Two sentences name one outcome in at least this many specific words, light verbs left
# out, of which at least `SHARED_KNOWN` are no name ("muscle pain" and "statin" are
# three; "muscle" and "statin" of "muscle aches" and "a rare breakdown of muscle
# tissue" two).
SHARED_WORDS = 3
SHARED_KNOWN = 2
LIGHT_VERBS = frozenset({"tak", "take", "us", "use", "giv", "give", "get", "hav", "mak", "involv"})
# Shares this far apart (the least the larger can be over the smaller) do not measure one
# outcome: 1 in 100 against 3 in 10.
SHARES_APART = 2.0
# Shares this far apart need name one outcome in only `SHARED_WORDS_FAR` words, both no
# names: "a temporary flare of pain in the injected knee happens after about 2 in every
# 100 injections" against "one patient in five has a noticeable flare in the first day
# or two - the knee gets sorer" (the same event, ten times as often).
SHARES_FAR_APART = 5.0
SHARED_WORDS_FAR = 2


_ARMS = ARMS


def same_arm(first: Sequence[str], second: Sequence[str]) -> bool:
    """Both texts name the same of a trial's other arms, or neither names one."""
    return _ARMS.intersection(first) == _ARMS.intersection(second)


def read_share(tokens: Sequence[str]) -> Share | None:
    """The one share (percentage or "N in M") ``tokens`` give, as an interval widened by
    a bound right before it (`bound_before`: "fewer than", "more than"); None for none,
    or for two or more."""
    values = _restated_once(measures(tokens).get("%", []), tokens)
    if not values:
        return all_but_every(tokens) or few_known(tokens)
    # a strength beside it is no second share ("Bronchospasm after a 3% saline nebuliser
    # is uncommon, occurring in fewer than 1 in 100 treatments": decision 0136)
    values = [v for v in values if not _strength_at(tokens, v[2])]
    if not values:
        return all_but_every(tokens) or few_known(tokens)
    if len({(low, high) for low, high, _ in values}) > 1:
        # nor the bound of a change that the share counts those past ("fewer than 5% of
        # meadows ... lost more than a fifth of their hay yield": decision 0140)
        values = [v for v in values if not _past_a_change(tokens, v[2])]
    if len({(low, high) for low, high, _ in values}) != 1:
        return None
    low, high, at = values[0]
    if not any(_of_people(tokens, j) for j in _restating(tokens, at)):
        return None
    bound = bound_before(tokens, at)
    if bound == "at most":
        low = 0.0
    elif bound == "at least":
        high = float("inf")
    return Share(low, high)


# Verbs of a change whose size, past a bound, a share may count those past.
_CHANGED: Final = frozenset({"lost", "gained", "dropped", "fell", "rose", "grew", "cut",
                             "reduced", "increased", "put", "shed"})  # fmt: skip
_CHANGED_REACH: Final = 3


def _past_a_change(tokens: Sequence[str], at: int) -> bool:
    """The percentage at ``at`` bounds from below a change just named: "lost more than a
    fifth of their hay yield"."""
    return bound_before(tokens, at) == "at least" and not _CHANGED.isdisjoint(
        tokens[max(0, at - _CHANGED_REACH - 2) : at]
    )


# What a percentage right before names a strength of: "3% saline", "a 5% gel".
_PREPARATIONS: Final = frozenset(
    {"saline", "hypertonic", "solution", "gel", "cream", "ointment", "lotion", "spray",
     "concentrate", "strength", "w", "v"}
)  # fmt: skip


def _strength_at(tokens: Sequence[str], at: int) -> bool:
    """The percentage at ``at`` is a preparation's strength: "3% hypertonic saline"."""
    return (
        tokens[at].endswith("%")
        and tokens[at + 1 : at + 2] != []
        and (tokens[at + 1] in _PREPARATIONS)
    )


# A share given again in another form right after it, in brackets or after a comma, is
# one share: "around one in eight (12 per cent) reporting heartburn", "a third (34%)".
_RESTATED_WITHIN = 5  # tokens from the first number to the second
_RESTATED_RATIO = 1.1  # the larger at most this much over the smaller
# A share restated in the other form ("about 30 per cent of them, nearly one in three"),
# whose hedge rounds further, may stand a word further and a little further off (0120).
_RESTATED_FORM_WITHIN = 8
_RESTATED_FORM_RATIO = 1.15
# A share restated after a word of rounding may stand further off: "38 of the 112 people
# housed under the scheme since 2021, roughly one in three" (decision 0123).
_ROUNDING: frozenset[str] = frozenset(
    {"around", "about", "roughly", "nearly", "almost", "approximately", "some"}
)
_RESTATED_ROUNDED_WITHIN = 16
# An exact share under the bound just given, in brackets: "fewer than 1 in 20 of our
# tenants (4.3%)" is one share, 4.3 % (decision 0123).
_UNDER_BOUND_RATIO = 1.5


def _restated_once(
    values: Sequence[tuple[float, float, int]], tokens: Sequence[str]
) -> list[tuple[float, float, int]]:
    """``values`` without each one that restates the value just before it: a few tokens
    after it and within rounding of it ("one in eight (12 per cent)"), or in the other
    form a word further and rounded a little further ("30 per cent, nearly one in three":
    ``tokens`` tell the forms apart)."""
    kept: list[tuple[float, float, int]] = []
    for low, high, at in sorted(values, key=lambda value: value[2]):
        if kept:
            first_low, first_high, first_at = kept[-1]
            other_form = _in_form(tokens, first_at) != _in_form(tokens, at)
            within, ratio = (
                (_RESTATED_FORM_WITHIN, _RESTATED_FORM_RATIO)
                if other_form
                else (_RESTATED_WITHIN, _RESTATED_RATIO)
            )
            if tokens[at - 1] in _ROUNDING:
                within = _RESTATED_ROUNDED_WITHIN
            smaller, larger = sorted((first_high, high))
            if (
                at - first_at <= within
                and first_low == first_high
                and low == high
                and smaller > 0
                and larger <= ratio * smaller
            ):
                continue
            if (
                other_form
                and at - first_at <= within
                and bound_before(tokens, first_at) == "at most"
                and first_high / _UNDER_BOUND_RATIO <= high <= first_high
            ):
                kept[-1] = (low, high, first_at)
                continue
        kept.append((low, high, at))
    return kept


def _in_form(tokens: Sequence[str], at: int) -> bool:
    """The share at ``at`` is given as "N in M" ("one in three", "2 in every 100")."""
    return tokens[at + 1 : at + 2] == ["in"]


def _restating(tokens: Sequence[str], at: int) -> list[int]:
    """Where the share at ``at`` stands, and where the share restating it does: either
    may say whose share it is ("about a third (34%) of parents")."""
    values = measures(tokens).get("%", [])
    return [at, *(j for _, _, j in values if at < j <= at + _RESTATED_WITHIN)]


def _counted_out_of(tokens: Sequence[str], at: int) -> bool:
    """The count at ``at`` is of a group named first: "out of the nine of us ..., three"."""
    return any(
        (tokens[k : k + 2] == ["out", "of"] or (k == 0 and tokens[k] == "of"))
        and (found := out_of_first(tokens, k))
        and found[1] == at
        for k in range(at)
    )


def _of_people(tokens: Sequence[str], at: int) -> bool:
    """The percentage at ``at`` is a share of some group: "N in M", "N out of M", "28
    percent of rider injuries"; not "15.5% moisture" nor "a 12% drop"."""
    hedged = tokens[at + 1 : at + 2] != [] and tokens[at + 1] in FRACTION_HEDGES
    after = tokens[at + 2 : at + 4] if hedged else tokens[at + 1 : at + 3]  # "a good third"
    if tokens[at] == "half" and tokens[at + 1 : at + 3] in (["of", "it"], ["of", "that"]):
        return False  # a part of a mass: "half of it would be stalk" (decision 0145)
    if after[1:] == ["of"] and (after[0] in FRACTION_OF or tokens[at] == "half"):
        return True  # "a third of my clients"
    if after[:1] and after[0] in FRACTION_OF and after[1:] and after[1] in SAID:
        return True  # "almost a third admitted weeding out applicants" (0132)
    if half_share(tokens, at):
        return True
    if (
        after[:1] in (["in"], ["out"])
        or after == ["of", "every"]  # "just 2 of every 100 fields" (decision 0142)
        or after == ["of", "them"]  # "the foxes had eleven of them" (decision 0147)
        or (after[:1] and after[0] in SHARE_NOUNS and after[1:] == ["in"])
        or bool(one_of_whom(tokens, at))
        or bool(per_group(tokens, at + 1))
        or bool(of_so_many(tokens, at + 1))
        or _counted_out_of(tokens, at)
    ):
        return True
    if tokens[at].endswith("%"):
        return after[:1] == ["of"] or bool(after[:1] and after[0] in SAID)
    if after[:1] == ["percent"]:
        return after[1:] == ["of"] or bool(after[1:] and after[1] in SAID)
    return tokens[at + 1 : at + 4] == ["per", "cent", "of"]


# One text calls the outcome common and the other rare, each with its share: "Mild side
# effects are common, affecting about 23% of people in trials" against "Side effects are
# rare, with fewer than 1 in 20 of our patients reporting any stinging or ear fullness".
# Writers who grade how often an outcome comes say what it is in fewer words, so such
# shares meet at `SHARED_WORDS_FAR` words and `SHARES_APART` (decision 0113).
# The words that say whom a share counts and how, not what it counts ("affecting 23% of
# people in trials").
SHARE_FRAME = frozenset(
    {"affect", "report", "experienc", "suffer", "peopl", "person", "patient", "participant",
     "user", "trial", "customer"}
)  # fmt: skip
_OFTEN, _SELDOM = (frozenset(words) for words in ANTONYM_AXES["frequency"])


def frequencies_opposed(first: Sequence[str], second: Sequence[str]) -> bool:
    """One text grades its outcome as common and the other as rare, by the first word of
    frequency each holds: what follows often grades something else ("skin irritation is
    rare, ..., and when it does happen it is usually because the brief is the wrong size":
    decision 0125)."""

    def grade(tokens: Sequence[str]) -> int:
        for token in tokens:
            if token in _OFTEN:
                return 1
            if token in _SELDOM:
                return -1
        return 0

    return grade(first) * grade(second) < 0


def shares_apart(first: Share, second: Share, apart: float = SHARES_APART) -> bool:
    """The larger share is at least ``apart`` times the smaller, bounds included."""
    small, large = sorted((first, second), key=lambda s: s.low)
    return small.high > 0 and large.low >= apart * small.high


# A measure given for each arm of a trial: "the median duration of ear pain was 2.1 days
# in the pravacillin group and 3.4 days in the placebo group" (decision 0106) sizes a
# difference in what comes before the first value.
_ARM_NOUNS = frozenset({"group", "groups", "arm", "arms"})
_MEASURE_REACH = 6


# Arms named by what a cluster trial randomised: "in intervention homes", "in the
# control schools" (decision 0126).
_ARM_KINDS = frozenset({"intervention", "control", "comparison"})
# "in comparison with", "in control of": no arm named
_NOT_AN_ARM = frozenset({"with", "to", "of", "over", "and", "or"})


def _arm_at(tokens: Sequence[str], i: int) -> bool:
    """``tokens[i:]`` reads "in the X group" within four tokens, or "in (the)
    intervention / control / comparison <noun>"."""
    window = tokens[i : i + 5]
    if window[:1] != ["in"]:
        return False
    if _ARM_NOUNS.intersection(window[2:]):
        return True
    named = [t for t in window[1:4] if t != "the"]
    return len(named) >= 2 and named[0] in _ARM_KINDS and named[1] not in _NOT_AN_ARM


def _rates(tokens: Sequence[str]) -> dict[str, list[tuple[float, float, int]]]:
    """Values given as rates, keyed by what they are per: "3.2 per 100 resident-years"
    (decision 0126)."""
    found: dict[str, list[tuple[float, float, int]]] = {}
    for i in range(len(tokens) - 3):
        value = number(tokens[i])
        if value is not None and tokens[i + 1] == "per" and number(tokens[i + 2]) is not None:
            found.setdefault(" ".join(tokens[i + 2 : i + 4]), []).append((value, value, i))
    return found


def arms_differ(tokens: Sequence[str]) -> list[str]:
    """The tokens before two values of one unit given for two arms of a trial, one of
    them placebo or control, where the values differ; [] for none."""
    if _ARMS.isdisjoint(tokens) or (
        _ARM_NOUNS.isdisjoint(tokens) and _ARM_KINDS.isdisjoint(tokens)
    ):
        return []  # read on every stance pair: no arm named, no numbers read
    rates = _rates(tokens)
    for unit, values in (measures(tokens) | rates).items():
        if unit == "%" or len(values) != 2 or values[0][:2] == values[1][:2]:
            continue
        (_, _, first), (_, _, second) = values
        # a rate's unit takes four words more: "8.4 per 100 person-years in the control
        # arm" (decision 0134)
        reach = _ARM_AFTER + (_RATE_WORDS if unit in rates else 0)
        arms = [j for j in range(first, min(len(tokens), second + reach)) if _arm_at(tokens, j)]
        after_second = tokens[second : second + reach]
        if len(arms) >= 2 and not _ARMS.isdisjoint(after_second):
            # what occurred at those rates: "new drink-driving offences occurred at a rate
            # of 3.2 per 100 person-years in the interlock arm versus ..." (decision 0134)
            return _named_before(tokens, first, _RATE_FRAME, _MEASURE_REACH)
    return []


def _named_before(tokens: Sequence[str], at: int, frame: frozenset[str], reach: int) -> list[str]:
    """The ``reach`` tokens before ``tokens[at]``, past the ``frame`` words right before it
    ("occurred at a rate of", "occurred in"): what occurred at the values."""
    while at > 0 and tokens[at - 1] in frame:
        at -= 1
    return list(tokens[max(0, at - reach) : at])


_ARM_AFTER: Final = 8
_RATE_WORDS: Final = 4
# The words that say a value is a rate, between what occurred and its value.
_RATE_FRAME: Final = frozenset({"occurred", "at", "a", "rate", "of"})


# What one arm gained over the other, as one value: "children at intervention schools
# were eating an additional 0.42 portions of vegetables per day compared with control
# schools", "ate 0.4 more portions a day than controls", "scores were 7.9 points lower in
# homes allocated to group music therapy than in homes continuing usual activities"
# (decision 0126).
_EXTRA = frozenset({"additional", "extra"})
_MORE = frozenset({"more", "fewer", "less", "lower", "higher", "greater"})
_EXTRA_REACH = 14  # "minutes of moderate-to-vigorous physical activity per weekday compared"
_UNIT_WORDS = 2  # "7.9 points lower", "2 percentage points higher"
# After the comparative, the arm it is in, not what it is of: "lower in homes ...".
_IN_AN_ARM = frozenset({"in", "among", "for", "with", "on"})
_OTHER_ARM = _ARMS | AS_USUAL


def _gain_at(tokens: Sequence[str], i: int) -> int:
    """Where the words after a gain from ``tokens[i]`` start ("an additional 0.42",
    "0.4 more", "9.6 additional", "7.9 points lower"); 0 for none."""
    if tokens[i] in _EXTRA and number(tokens[i + 1]) is not None:
        return i + 2
    if number(tokens[i]) is None:
        return 0
    for j in range(i + 1, min(len(tokens), i + 2 + _UNIT_WORDS)):
        # "a mean of 9.6 additional minutes of ... activity per weekday" (0132)
        if tokens[j] in _MORE or (j == i + 1 and tokens[j] in _EXTRA):
            return j + 1
        if not tokens[j].isalpha():
            return 0
    return 0


def extra_against_arm(tokens: Sequence[str]) -> list[str]:
    """The tokens of what an arm had more or less of than the trial's other arm
    (placebo, control, usual care), given as one value; [] for none."""
    if _OTHER_ARM.isdisjoint(tokens):
        return []
    for i in range(len(tokens) - 2):
        start = _gain_at(tokens, i)
        if not start:
            continue
        end = next(
            (
                j
                for j in range(start, min(len(tokens), start + _EXTRA_REACH))
                if tokens[j] in _SET_AGAINST or tokens[j] == "than"
            ),
            None,
        )
        if end is None or end == start or _OTHER_ARM.isdisjoint(tokens[end : end + 6]):
            continue
        if tokens[start] in _IN_AN_ARM:
            # what is lower comes before the value: "scores were 7.9 points lower in ..."
            return list(tokens[max(0, i - _MEASURE_REACH) : i])
        return list(tokens[start:end])
    return []


# Two shares set against each other: "31.2% were reconvicted within two years, compared
# with 42.6% of matched offenders who served custodial sentences" sizes a difference in
# what the first share did (decision 0114); shares this close are no difference.
_SET_AGAINST = frozenset({"compared", "versus", "vs", "against"})
_SHARES_DIFFER = 1.2
_SET_AGAINST_REACH = 12
_NOT_SIGNIFICANT = frozenset({"nonsignificant", "insignificant"})
# The words that deny a "significant" one or two tokens after them ("not statistically
# significant"; "non" of "non-significant", which the tokenizer parts at its hyphen).
_DENIES_SIGNIFICANT = frozenset({"not", "non"})


def _called_not_significant(tokens: Sequence[str]) -> bool:
    """Whether the sentence calls something not significant ("nonsignificant", "non-
    significant", "not statistically significant")."""
    if not _NOT_SIGNIFICANT.isdisjoint(tokens):
        return True
    return any(
        t in _DENIES_SIGNIFICANT and "significant" in tokens[k + 1 : k + 3]
        for k, t in enumerate(tokens)
    )


def shares_compared(tokens: Sequence[str]) -> list[str]:
    """The tokens between a share and the word that sets a second, different share
    against it ("were reconvicted within two years"); [] for none, or where the
    sentence calls the difference not significant."""
    if _SET_AGAINST.isdisjoint(tokens) or _called_not_significant(tokens):
        return []
    values = measures(tokens).get("%", [])
    for (low, _, first), (other, _, second) in itertools.pairwise(values):
        between = list(tokens[first + 1 : second])
        against = next((j for j, t in enumerate(between) if t in _SET_AGAINST), None)
        if against is None or len(between) > _SET_AGAINST_REACH:
            continue
        if min(low, other) <= 0 or max(low, other) < _SHARES_DIFFER * min(low, other):
            continue
        if against == 0:
            # back to back, what differs named before them: "Proven reoffending showed a
            # similar pattern (11.8% versus 17.5%)" (decision 0127)
            return list(tokens[max(0, first - _BACK_TO_BACK_REACH) : first])
        if between[:1] == ["in"] and between[against - 1] in _ARM_NOUNS:
            # the first share's arm, what occurred named before the shares: "Delirium
            # occurred in 41 of 212 patients (19.3%) in the earplug and eye mask group
            # compared with 64 of 209 patients (30.6%) in the usual care group" (0134)
            return _named_before(tokens, values[0][2], _OCCURRED_IN, _BACK_TO_BACK_REACH)
        return between[:against]
    return []


_OCCURRED_IN: Final = _RATE_FRAME | {"in", "among"}


# How far before two shares set back to back ("11.8% versus 17.5%") what they measure
# may be named.
_BACK_TO_BACK_REACH = 6


# Where the clause that gives a share ends: "about 11 percent of recipients said they had
# quit their jobs outright since the payments began, and a further 18 percent said they
# had cut back their hours"; "leaving paid employment altogether was rare, at 2.1 per
# cent of recipients ..., compared with 1.9 per cent in the comparison group"; "injuries
# were reported by about 2% of participants ..., and no serious cardiac events were
# recorded" (decision 0115).
_CLAUSE_ENDS = frozenset(
    {"and", "but", "while", "whereas", "compared", "versus", "vs",
     # a concession after the share ("half the tenants I helped walked away thinking I was
     # their lawyer, however many times I told them I wasn't": decision 0137)
     "however", "although", "though"}
)  # fmt: skip


def _first_share_at(tokens: Sequence[str]) -> int | None:
    """Where the sentence's first share stands; None for none."""
    values = measures(tokens).get("%", [])
    if values:
        return min(at for _, _, at in values)
    if (every := all_but_every_at(tokens)) is not None:
        return every  # "..., and nearly every family in our support group" (0135)
    return few_known_at(tokens)  # "..., and three other plot-holders on the site had ..."


def share_clause(tokens: Sequence[str], *, opened: bool = False) -> list[str]:
    """The tokens up to the first clause join after the sentence's first share (or a
    reason: "because", not "because of"), all of them where none follows it. ``opened``:
    from a join that opens on the share ("the headaches were no joke, and about a third
    of the women on my unit gave up on the cap ... because they just couldn't stand it":
    decision 0129)."""
    first = _first_share_at(tokens)
    if first is None:
        return list(tokens)
    end = next((j for j in range(first + 1, len(tokens)) if _ends_clause(tokens, j)), None)
    start = 0
    if opened:
        start = next(
            (j + 1 for j in range(first - 1, max(-1, first - 1 - _OPENS_ON_SHARE), -1)
             if tokens[j] in _CLAUSE_ENDS),
            0,
        ) or next(
            # a "but" further back opens the share's clause against what was said before
            # it ("They told us that new gentle machine wouldn't hurt old brick, but the
            # council crew has scoured the face off the bricks on nearly every house ...":
            # decision 0139)
            (j + 1 for j in range(first - 1, max(-1, first - 1 - _BUT_OPENS), -1)
             if tokens[j] == "but"),
            0,
        )  # fmt: skip
    return list(tokens[start:end] if end is not None else tokens[start:])


# "so" opens a clause of its own before one of these ("..., me included, so don't let
# anyone tell you that's a once-in-a-blue-moon thing": decision 0137), not in "so many".
_AFTER_SO: Final = frozenset(
    {"i", "we", "you", "they", "he", "she", "it", "don't", "dont", "do", "please", "if",
     # "..., so anyone saying a trapped hoof is a once-in-a-blue-moon thing hasn't been on a
     # yard like ours" (decision 0141)
     "anyone", "anybody"}
)  # fmt: skip


def _ends_clause(tokens: Sequence[str], j: int) -> bool:
    return (
        tokens[j] in _CLAUSE_ENDS
        or (tokens[j] == "because" and tokens[j + 1 : j + 2] != ["of"])
        or (tokens[j] == "so" and tokens[j + 1 : j + 2] != [] and tokens[j + 1] in _AFTER_SO)
    )


# A join this many tokens or fewer before a share's number opens the share's clause
# ("and about a third of ...").
_OPENS_ON_SHARE = 3
_BUT_OPENS = 16


# How severe an outcome is sets it apart: "serious side effects are rare, fewer than 1 in
# 1,000" and "side effects such as nausea affect 1 in 5" are two outcomes.
_SEVERITY = frozenset(
    {"serious", "severe", "major", "minor", "mild", "moderate", "fatal", "life-threatening",
     "significant", "lasting", "permanent", "temporary"}
)  # fmt: skip


# The words of a count, which name no outcome ("one in a thousand", "one patient in ten").
COUNT_KEYS = frozenset(
    content_keys([*CARDINALS, "one", "hundred", "thousand", "million", "every", "dozen"])
)


# Verbs of taking a thing up, as written (not "joins", a noun; not "complete", an
# adjective): a share of those who did counts no outcome of it.
_UPTAKE: Final = frozenset(
    {"accept", "accepted", "accepts", "attend", "attended", "attends", "completed", "finish",
     "finished", "choose", "chooses", "chose", "chosen", "opt", "opted", "opts", "agreed",
     "enrol", "enrolled", "enroll", "join", "joined"}
)  # fmt: skip
# A thing offered: before the share ("offered every family in their incoming class a
# visit"), or after it as the clause's verb; not where a verb follows and "offered" says
# who ("47.3% of claimants offered an automatic fee waiver had filed a claim"): 0144.
_OFFERED: Final = frozenset({"offered", "invited"})
# A verb after "offered" that makes it say who: "... offered a council guarantee had signed"
# ("only 38% of health areas offered gut-directed hypnotherapy" has none).
_FINITE: Final = frozenset({"had", "has", "have", "was", "were", "is", "are", "did", "got"})
_RELATIVE: Final = frozenset({"who", "that", "which"})
# How far before its share a verb of uptake may stand ("offered every family").
_UPTAKE_BEFORE = 2


def _takes_up(tokens: Sequence[str]) -> bool:
    """The share of ``tokens`` counts those who took a thing up: a verb of `_UPTAKE` from
    just before the share to its clause's end ("74% of families accepted a visit"; not
    "Five of us ... joined the claim and three had a notice to quit")."""
    first = _first_share_at(tokens)
    if first is None:
        return False
    end = next((j for j in range(first + 1, len(tokens)) if _ends_clause(tokens, j)), len(tokens))
    start = max(0, first - _UPTAKE_BEFORE)
    # not in a clause that says who ("drivers who finish the awareness course are caught
    # speeding a second time")
    return any(
        (
            tokens[k] in _UPTAKE
            or _turned_down(tokens, k)
            or (tokens[k] in _OFFERED and (k < first or _FINITE.isdisjoint(tokens[k + 1 : end])))
            # the verb, not the adjective: "failed to complete it" (decision 0144)
            or (tokens[k] == "complete" and tokens[k - 1 : k] == ["to"])
        )
        and _RELATIVE.isdisjoint(tokens[max(0, k - 2) : k])
        # a compound's first word: "joined-up writing" (decision 0145)
        and tokens[k + 1 : k + 2] != ["-"]
        for k in range(start, end)
    )


# Turning a thing down: "27% of second households declined to take part", "a third of
# second households decline" (not "declined" as a word of worsening, nor "refused", which
# a distressed child or a refused tenancy names as the harm).
_DECLINED: Final = frozenset({"declined", "decline", "declines"})
_OFFER_NEXT: Final = frozenset({"to", "the", "a", "an", "their", "."})


def _turned_down(tokens: Sequence[str], k: int) -> bool:
    return tokens[k] in _DECLINED and (k + 1 == len(tokens) or tokens[k + 1] in _OFFER_NEXT)


def uptake_against_outcome(first: Sequence[str], second: Sequence[str]) -> bool:
    """One share counts those who took a thing up and the other does not: "74% of
    families accepted a visit" against "only 1.6% of parents said a visit left them
    uncomfortable" count two things (decision 0144)."""
    return _takes_up(first) != _takes_up(second)


def rarity_denied(
    first: Sequence[str], first_share: Share, second: Sequence[str], second_share: Share
) -> bool:
    """One text calls its outcome rare with a share, and the other, grading nothing,
    gives a share at least `SHARES_FAR_APART` times larger: "Harms were infrequent:
    musculoskeletal injuries were reported by about 2% of participants" against "about
    18% of patients on prescribed exercise programmes pick up a strain or overuse
    injury" (decision 0115). Both shares' clauses grade the outcome's severity alike."""
    for rare, rare_share, other, other_share in (
        (first, first_share, second, second_share),
        (second, second_share, first, first_share),
    ):
        # a word of often in the share's own clause, not in a later one ("Dizziness is
        # uncommon, ..., and it usually settles within a few days": decision 0141)
        if not _called_rare(rare, rare_share, other) or not _OFTEN.isdisjoint(share_clause(rare)):
            continue
        if not (_SELDOM.isdisjoint(other) and _OFTEN.isdisjoint(other)):
            continue
        subject = _called_rare_subject(rare)
        if (
            subject
            and not _ARM_WORDS.isdisjoint(other)
            and subject.isdisjoint(content_keys(other))
            and not subject <= _GENERAL_HARMS
        ):
            # a trial arm's share of an outcome that what is called rare goes unnamed in
            # ("Victim upset is rare" against "31.4% of young people in the apology letter
            # arm had a proven reoffence": decision 0144); a witness names it in words of
            # their own ("lost a third of the bikes to thieves" against "Theft is uncommon")
            continue
        if _SEVERITY.intersection(share_clause(rare)) != _SEVERITY.intersection(
            share_clause(other)
        ):
            continue
        if other_share.low >= SHARES_FAR_APART * rare_share.high > 0:
            return True
    return False


# Words of harm in general, which any harm named in the other text is one of.
_GENERAL_HARMS: Final = frozenset(
    content_keys(["problems", "problem", "harms", "harm", "side", "effects", "adverse",
                  "events", "complications", "reactions", "issues", "trouble"])
)  # fmt: skip
_BE: Final = frozenset({"is", "are", "was", "were"})
_ARM_WORDS: Final = frozenset({"arm", "arms"})


def _called_rare_subject(tokens: Sequence[str]) -> frozenset[str]:
    """The content keys of the head of what "<it> is rare" opens on, its last
    `_HEAD_WORDS` content words before a cause or a setting ("Victim upset is rare: ...",
    "Trial delays caused by waiting for one of our intermediaries are rare", "In our 2023
    fleet data, false lockouts caused by mouthwash ... were rare"); empty where no such
    opening is."""
    be = next(
        (i for i in range(1, len(tokens) - 1) if tokens[i] in _BE and tokens[i + 1] in _SELDOM),
        None,
    )
    if be is None:
        return frozenset()
    cut = next((k for k in range(1, be) if tokens[k] in _HEAD_CUTS), be)
    words = [t for t in tokens[:cut] if t.isalpha() and content_keys([t])]
    return frozenset(k for k in content_keys(words[-_HEAD_WORDS:]) if not k.startswith("~"))


# Where the head of what is called rare ends: its cause, its setting, an example.
_HEAD_CUTS: Final = frozenset({"caused", "causing", "from", "with", "after", "by", "during",
                               "when", "getting", "in", "on", "among", "for", "to", "of",
                               "such", "like", "at", "following"})  # fmt: skip
_HEAD_WORDS: Final = 2


def rarity_named_in_other(
    first: Sequence[str], first_share: Share, second: Sequence[str], second_share: Share
) -> bool:
    """`rarity_denied`, and the other text names a word of what the rare one opens on
    ("Vole damage is uncommon: ... 4% of orchards" against "the voles ringbarked nine of
    my twenty-six trees"): one harm, however each counts it (decision 0144)."""
    if not rarity_denied(first, first_share, second, second_share):
        return False
    return any(
        not (_called_rare_subject(rare) - _GENERAL_HARMS).isdisjoint(content_keys(other))
        for rare, other in ((first, second), (second, first))
    )


# A share of at most a few in a hundred who had any of it calls it rare: "fewer than one
# pupil in a hundred has reported any discomfort with their hearing" (decision 0133).
_RARE_AT_MOST: Final = 5.0


def _called_rare(tokens: Sequence[str], share: Share, other: Sequence[str]) -> bool:
    """``tokens`` call their outcome rare: in a word ("rare", "seldom"), or as at most
    `_RARE_AT_MOST` per cent who had any of it, against a symptom the ``other`` names
    ("ringing ears or headaches"; not "89% of nights" of a strip worn)."""
    if not _SELDOM.isdisjoint(tokens):
        return True
    other_clause = share_clause(other)
    return (
        0 < share.high <= _RARE_AT_MOST
        # "fewer than one pupil in a hundred has reported any discomfort"; "Only around 3
        # in every 100 children show signs of worry or upset" (decision 0141)
        and ((share.low == 0 and "any" in share_clause(tokens)) or "only" in tokens)
        and (
            SYMPTOM.search(" ".join(other_clause)) is not None
            # or a thing gone worse ("went backwards with their joined-up writing": 0145)
            or _WORSENED.search(" ".join(other_clause)) is not None
        )
    )


_WORSENED: Final = re.compile(
    r"\b(?:went|gone|going|go|slid|slipped) backwards?\b|\bgot (?:\w+ )?worse\b"
    r"|\bdeteriorat"
)


# What a share is of, read in at most this many words after its "of" ("56% of annual
# rainfall", "one in five of the green roofs"), the "of" at most `_OF_REACH` tokens after
# the share's number.
_OF_REACH = 3
_OF_WORDS = 3
_OF_SKIPPED = frozenset({"the", "a", "an", "all", "our", "their", "its", "those", "these"})


def _of_what(tokens: Sequence[str], at: int) -> frozenset[str] | None:
    """The content keys of what the number at ``at`` is a share of; None where no "of"
    follows it."""
    for j in range(at + 1, min(len(tokens), at + 1 + _OF_REACH + 1)):
        if tokens[j] == "of":
            k = j + 2 if tokens[j + 1 : j + 2] == ["the"] else j + 1
            if k < len(tokens) and (noun := noun_counted_earlier(tokens, k)) is not None:
                # "five of the six came back": of the packets counted before (0139)
                return frozenset(content_keys(tokens[noun : noun + 1 + _OF_WORDS]))
            words = [t for t in tokens[j + 1 : j + 1 + _OF_WORDS + 1] if t not in _OF_SKIPPED]
            return frozenset(content_keys(words[:_OF_WORDS]))
    return None


def shares_of_other_things(
    first: Sequence[str], first_at: Sequence[int], second: Sequence[str], second_at: Sequence[int]
) -> bool:
    """The numbers of both texts at these places that are shares of something named after
    "of" (at least one in each), none of people, name nothing both count: "retained a
    median of 56% of annual rainfall" and "about one in five of the green roofs I get
    called out to have leaked" disagree in no measure (decision 0115); nor do those
    who took a thing up and those it befell (`uptake_against_outcome`)."""
    first_of = [w for w in (_of_what(first, at) for at in first_at) if w is not None]
    second_of = [w for w in (_of_what(second, at) for at in second_at) if w is not None]
    if not first_of or not second_of:
        return False
    if uptake_against_outcome(first, second):
        return True  # those who took a thing up, and those it befell (decision 0144)
    first_words, second_words = frozenset().union(*first_of), frozenset().union(*second_of)
    if not first_words or not second_words or (first_words | second_words) & PEOPLE:
        return False
    return first_words.isdisjoint(second_words)


def _share_places(tokens: Sequence[str]) -> list[int]:
    """Where the shares of ``tokens`` stand, but the bound of a change (`_past_a_change`)."""
    return [at for _, _, at in measures(tokens).get("%", []) if not _past_a_change(tokens, at)]


def share_bases_differ(first: Sequence[str], second: Sequence[str]) -> bool:
    """The two texts' shares are of two things named after "of", none of people
    (`shares_of_other_things`): "56% of annual rainfall" and "one in five of the green
    roofs"."""
    return shares_of_other_things(first, _share_places(first), second, _share_places(second))


def share_bases(tokens: Sequence[str]) -> frozenset[str]:
    """The content keys of what the shares of ``tokens`` are of ("5% of meadows sown
    with ...": meadow, sown)."""
    return frozenset().union(
        *(w for w in (_of_what(tokens, at) for at in _share_places(tokens)) if w is not None)
    )
