"""Contradiction rules of the heuristic stance judge (`nli_heuristic`, decisions 0101, 0104).

- A finding of no change against a change of a stated size: "our organic matter hasn't
  budged" against "soil organic matter rose by roughly 0.3 percentage points"; "no real
  change in traffic noise" against "the wall has cut noise ... by around a third";
  "function scores practically identical to surgery" against "markedly higher function
  scores".
- Comparisons that cannot both hold: "green tea burns no more fat than ... coffee"
  against "green tea far outperforms coffee"; A ahead of B against B ahead of A.
- One thing changed the same way by sizes far apart: "motor traffic on internal streets
  fell by 47 per cent" against "the traffic on the streets inside the zone has fallen by
  a mere 12%".

Such pairs share little beyond what changed or what is compared, so the overlap rules of
`nli_heuristic` call them neutral, and the packaged stance model reads their shared
subject as support. Each rule names what it is about, so it applies at any overlap.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from lyra.pipelines.evidence.leftovers import lexicon_readings, past_participles
from lyra.pipelines.evidence.nli_advice import AdviceReading, read_advice, safe_against_advised
from lyra.pipelines.evidence.nli_comparisons import (
    CUE_REACH,
    THAN_REACH,
    Comparison,
    comparisons_clash,
    no_difference_against_comparison,
    outcome,
    read_comparisons,
    specific,
)
from lyra.pipelines.evidence.nli_costs import Cost, costs_differ, read_cost
from lyra.pipelines.evidence.nli_doses import Dose, doses_differ, read_dose
from lyra.pipelines.evidence.nli_enough import Amounts, enough_under_floor, read_amounts
from lyra.pipelines.evidence.nli_groups import NO_GROUP, GroupReading, groups_clash, read_groups
from lyra.pipelines.evidence.nli_no_change import (
    OUTCOME_REACH,
    SIZED_AXES,
    acted_on,
    change_noun,
    no_change,
    words_before,
)
from lyra.pipelines.evidence.nli_numbers import (
    CARDINALS,
    PERCENT_WORDS,
    TIME_UNITS,
    Measures,
    measures,
    number,
    stem,
)
from lyra.pipelines.evidence.nli_shares import (
    COUNT_KEYS,
    LIGHT_VERBS,
    SHARE_FRAME,
    SHARED_KNOWN,
    SHARED_WORDS,
    SHARED_WORDS_FAR,
    SHARES_FAR_APART,
    Share,
    arms_differ,
    extra_against_arm,
    frequencies_opposed,
    rarity_denied,
    read_share,
    same_arm,
    share_bases_differ,
    share_clause,
    shares_apart,
    shares_compared,
)
from lyra.pipelines.evidence.nli_tokens import (
    axis_of,
    is_cue,
    is_negated,
    kept_per_tokens,
    token_key,
)
from lyra.pipelines.evidence.nli_words import (
    CHANGE_DEGREES,
    CHANGE_SIZES,
    CHANGE_VERBS,
    GENERAL_OUTCOMES,
    OUTCOME_FOLDS,
    WHO_AND_HOW_OFTEN,
)

_CHANGE_AXES = frozenset({"amount", "quality"})
# Words of a change of no stated size that the finding of no change names too.
_UNSIZED_SHARED = 2


def _changes(tokens: Sequence[str]) -> tuple[set[str], set[str]]:
    """What the text says changed by a stated amount, and what it says changed at all:
    the words around a verb or a comparative of change, sized where a number (not part
    of a name: "COVID-19") or a fraction follows it ("cut heart attacks by about a
    fifth", "organic matter rose by roughly 0.3 points") or a degree comes before it
    ("markedly higher function scores")."""
    found: set[str] = set()
    unsized: set[str] = set()
    for i, tok in enumerate(tokens):
        # Two groups compared by a multiple or a duration: what the comparison is about
        # meets a finding of no change in two words, as a change of no stated size does
        # (one, "lens", is not enough: decision 0110).
        if tok in _AS_OFTEN and (what := _as_often_as(tokens, i)):
            # "passengers wearing the active bands were roughly half as likely to vomit"
            unsized |= what
            continue
        if tok in _TIME_COMPARATIVES and (begins := _duration_before(tokens, i)):
            # "reached a final order a median of 14 weeks sooner than": what came sooner
            unsized |= outcome(tokens[max(0, begins - OUTCOME_REACH) : begins])
            continue
        if (noun := change_noun(tokens, i)) is not None:
            # "a 7% increase in examination scores": what follows "in" (decision 0114)
            (found if noun[1] else unsized).update(noun[0])
            continue
        axis = axis_of(tokens, i) if tok.isalpha() else None
        if not ((axis and axis[0] in _CHANGE_AXES) or stem(tok) in CHANGE_VERBS):
            continue
        if tokens[i + 1 : i + 2] == ["than"] or tokens[i - 1 : i] == ["or"]:
            # a bound, not a change: "more than eight years", "800 IU or more"
            continue
        sized = (
            _sized_before(tokens, i)
            or any(
                (number(t) is not None and tokens[j - 1] != "-") or t in CHANGE_SIZES
                for j, t in enumerate(tokens[i + 1 : i + 1 + 2 * OUTCOME_REACH], start=i + 1)
            )
            or _size_after_by(tokens, i)
        )
        if "than" in tokens[i + 1 : i + 1 + THAN_REACH] and _no_measure_compared(tokens, i):
            # a comparison of two things, not a change: "more effective at reducing
            # traffic than" ("markedly higher function scores ... than" compares a measure)
            continue
        if sized or (i and tokens[i - 1] in CHANGE_DEGREES):
            found |= acted_on(tokens, i, CUE_REACH)
            if _sized_before(tokens, i):
                # what gave the size: "plots ... yielded 14 percent more grain" (0109)
                found |= _verb_before_size(tokens, i)
        else:
            unsized |= acted_on(tokens, i, OUTCOME_REACH)
    return found, found | unsized


# How far past "by" a change's size may stand: "improved on standardised reading
# comprehension measures by a pooled effect size of g = 0.31" (decision 0116).
_BY_SIZE_REACH = 8


def _size_after_by(tokens: Sequence[str], i: int) -> bool:
    """The change at ``i`` is sized past "by", farther than a number is read otherwise."""
    after = tokens[i + 1 : i + 1 + 2 * OUTCOME_REACH]
    if "by" not in after:
        return False
    start = i + 2 + after.index("by")
    return any(number(t) is not None for t in tokens[start : start + _BY_SIZE_REACH])


# "half as likely to vomit as", "three times as often as": a multiple of how often.
_AS_OFTEN = frozenset({"likely", "often", "common"})
_MULTIPLES = frozenset({"half", "third", "quarter", "twice", "thrice", "times"})


def _as_often_as(tokens: Sequence[str], i: int) -> set[str]:
    """Who or what happened a multiple as often, with "as" after it, for "likely / often"
    at ``tokens[i]`` after "<multiple> as": the words before the multiple, and after
    "to" up to the second "as" ("passengers wearing the active bands were roughly half
    as likely to vomit as"); empty for none."""
    if i < 2 or tokens[i - 1] != "as" or tokens[i - 2] not in _MULTIPLES:
        return set()
    second = next(
        (k for k in range(i + 1, min(len(tokens), i + 2 + CUE_REACH)) if tokens[k] == "as"), 0
    )
    if not second:
        return set()
    begins = i - 2
    before = outcome(words_before(tokens, begins))
    return before | outcome(tokens[i + 2 : second]) if tokens[i + 1] == "to" else before


# Comparatives of time a duration can size: "14 weeks sooner than", "52 minutes longer".
_TIME_COMPARATIVES = frozenset(
    {"sooner", "earlier", "later", "longer", "shorter", "faster", "quicker", "slower"}
)
# Words that lead a duration: "a median of 14 weeks", "about 3 days".
_DURATION_LEAD = frozenset(
    {"a", "an", "the", "median", "mean", "average", "of", "about", "around", "roughly",
     "nearly", "almost", "some", "approximately", "full"}
)  # fmt: skip


def _duration_before(tokens: Sequence[str], i: int) -> int:
    """Where the duration that sizes the comparative at ``tokens[i]`` begins, its
    leading words included ("a median of 14 weeks sooner", "two days earlier"); 0 for
    none."""
    if i < 2 or stem(tokens[i - 1]) not in TIME_UNITS:
        return 0
    if number(tokens[i - 2]) is None and tokens[i - 2] not in CARDINALS:
        return 0
    begins = i - 2
    while begins > 0 and tokens[begins - 1] in _DURATION_LEAD:
        begins -= 1
    return begins


def _verb_before_size(tokens: Sequence[str], i: int) -> set[str]:
    """The past-tense verb before the percentage before the comparative at ``i``
    ("yielded 14 percent more", "scored 12% higher"); empty for none."""
    k = i - (2 if tokens[i - 1].endswith("%") else 3)
    return outcome(tokens[k : k + 1]) if k >= 0 and tokens[k].endswith("ed") else set()


def _sized_before(tokens: Sequence[str], i: int) -> bool:
    """A percentage right before the comparative at ``i``: "were 37% lower", "48 per cent
    less often" (decision 0106)."""
    if i and tokens[i - 1].endswith("%"):
        return number(tokens[i - 1][:-1]) is not None
    # the tokenizer writes "per cent" as "percent"
    return i > 1 and tokens[i - 1] == "percent" and number(tokens[i - 2]) is not None


# Comparatives that compare a measure when a noun follows them ("higher function
# scores than"), and the axes of the words after which they compare two things
# ("more effective at reducing traffic than", "more likely to").
_COMPARATIVES = frozenset(
    {"more", "less", "higher", "lower", "better", "worse", "greater", "fewer", "larger", "smaller"}
)
_JUDGED_AXES = frozenset({"efficacy", "benefit", "performance", "safety"})
_JUDGED_WORDS = frozenset({"likely", "useful", "helpful", "successful", "efficient"})


def _no_measure_compared(tokens: Sequence[str], i: int) -> bool:
    """The word of change at ``i``, with "than" after it, is no comparative of a measure:
    a verb within a comparison ("at reducing traffic than") or a comparative of a
    judgement ("more effective", "more likely")."""
    if tokens[i] not in _COMPARATIVES:
        return True
    if i + 1 >= len(tokens) or not tokens[i + 1].isalpha():
        return False
    axis = axis_of(tokens, i + 1)
    return tokens[i + 1] in _JUDGED_WORDS or (axis is not None and axis[0] in _JUDGED_AXES)


# How far after a verb of change its "by" may stand, past its object ("shortened sleep
# onset latency by"), and how far before it its subject ("the traffic on the streets
# inside the zone has fallen by").
_BY_REACH = 6
_SUBJECT_REACH = 8
# Words between "by" and the size: "by a mean of 19 minutes", "by a mere 12%".
_SIZE_LEAD = frozenset(
    {"a", "an", "the", "about", "around", "roughly", "approximately", "nearly", "almost",
     "some", "mere", "only", "just", "mean", "average", "median", "estimated", "of", "as",
     "much", "up", "to", "more", "than", "over", "at", "least", "less", "under"}
)  # fmt: skip
# Bounds: "by more than 30%" (30 or more), "by up to 30%" (30 at most).
_AT_LEAST = frozenset({"more", "over", "least"})
_AT_MOST = frozenset({"up", "less", "under"})
# Fractions a size is given in words, as percentages ("by about a third").
_FRACTIONS = {"half": 50.0, "third": 100 / 3, "quarter": 25.0, "fifth": 20.0, "tenth": 10.0}
# Sizes this far apart (the least the larger can be over the smaller) do not measure one
# change: 47 against 12 per cent, 41 per cent against about a quarter.
SIZES_APART = 1.5


@dataclass(frozen=True)
class _Sized:
    """A change the text gives a size: "motor traffic ... fell by 47 per cent"."""

    axis: str
    sign: int
    unit: str
    low: float
    high: float
    about: frozenset[str]  # what changed: its object, else its subject
    agent: frozenset[str] = frozenset()  # what changed it, where an object follows


# How far before a verb with an object what changed it is named ("ezetimibe lowers LDL
# cholesterol by"), and names of what changed it that say no more than "it" ("the
# intervention slowed ...").
_AGENT_REACH = 4
_GENERIC_AGENTS = frozenset(
    {"intervent", "treatment", "therapi", "drug", "medicin", "programm", "program", "scheme",
     "polici", "measur", "devic", "product", "approach", "it"}
)  # fmt: skip
# Before a change, words that make it what a thing can or should do, not what it did.
_HYPOTHETICAL = frozenset({"that", "which"})
_MODAL = frozenset({"can", "could", "would", "may", "might", "should", "must", "will"})

# Verbs that take their size right after them and what changed after "to" / "of":
# "the rise added less than 3 per cent to total running costs", "hospitality lost 4.5%
# of its jobs"; the sign of each.
_SIZE_VERBS = {
    "added": 1, "adds": 1, "add": 1, "gained": 1, "gains": 1, "lost": -1, "loses": -1,
    "lose": -1, "shed": -1, "sheds": -1, "cut": -1, "cuts": -1,
}  # fmt: skip
_WHAT_AFTER_SIZE = frozenset({"to", "of", "from", "off", "in"})
# Verbs of a figure moving that take their size right after them ("rose 2.8 per cent").
_MOVED_BY_DIRECTLY = frozenset(
    {"rose", "risen", "fell", "fallen", "grew", "grown", "dropped", "climbed", "increased",
     "decreased", "declined", "jumped", "slumped"}
)  # fmt: skip
# "has gone up by about 9 per cent", "went down by a third".
_GONE = frozenset({"gone", "went", "go", "goes", "going"})
_UP_DOWN = {"up": 1, "down": -1}
_SWITCHED = frozenset({"switched", "switching", "switch", "turned", "moved"})


def _size_at(
    tokens: Sequence[str], j: int, measured: Measures
) -> tuple[str, float, float, int] | None:
    """The unit, interval and end of a size that begins at ``tokens[j]`` (words of
    hedging first), None when none does: "a mean of 19 minutes", "5-7 hours", "about a
    third", "up to 30%", "four and a half points". ``measured``: the text's `measures`."""
    lead: set[str] = set()
    while j < len(tokens) and tokens[j] in _SIZE_LEAD:
        lead.add(tokens[j])
        j += 1
    if j >= len(tokens):
        return None
    found: tuple[str, float, float, int] | None = None
    value = number(tokens[j]) if tokens[j] not in CARDINALS else float(CARDINALS[tokens[j]])
    fraction = stem(tokens[j + 1]) if j + 1 < len(tokens) else ""
    if fraction == "-" and j + 2 < len(tokens):  # "two-thirds"
        fraction = stem(tokens[j + 2])
        j += 1
    if tokens[j] in _FRACTIONS:
        share = _FRACTIONS[tokens[j]]
        found = ("%", share, share, j + 1)
    elif value is not None and fraction in _FRACTIONS:
        found = ("%", _FRACTIONS[fraction] * value, _FRACTIONS[fraction] * value, j + 2)
    elif (
        value is not None and tokens[j + 1 : j + 4] == ["and", "a", "half"] and j + 4 < len(tokens)
    ):
        unit = "%" if tokens[j + 4] in PERCENT_WORDS else stem(tokens[j + 4])
        found = (unit, value + 0.5, value + 0.5, j + 5)
    else:
        width = 1 if tokens[j].endswith("%") else 2
        for unit, values in measured.items():
            found = next(((unit, lo, hi, j + width) for lo, hi, at in values if at == j), found)
    if found is None:
        return None
    unit, low, high, end = found
    if lead & _AT_LEAST:
        high = float("inf")
    elif lead & _AT_MOST:
        low = 0.0
    return unit, low, high, end


def _size_after_up_down(tokens: Sequence[str], i: int, measured: Measures) -> bool:
    """ "up" or "down" at ``i`` moves by the size right after "by", or by a percentage
    right after it ("down only about 8 per cent"; not "count down the 10 days")."""
    if tokens[i + 1 : i + 2] == ["by"]:
        return _size_at(tokens, i + 2, measured) is not None
    size = _size_at(tokens, i + 1, measured)
    return size is not None and size[0] == "%"


def _sized(tokens: Sequence[str]) -> list[_Sized]:
    """Each change the text gives a size, its direction and what changed: "fell by 47 per
    cent", "has gone up by about 9 per cent", "added less than 3 per cent to total running
    costs"; a change a negation comes right before is none ("did not fall by 10%")."""
    found: list[_Sized] = []
    digits = any(number(t) is not None for t in tokens)
    if not digits and not any(t in CARDINALS or stem(t) in _FRACTIONS for t in tokens):
        return found  # no size to give a change
    measured = measures(tokens) if digits else {}
    for i, tok in enumerate(tokens):
        if not tok.isalpha():
            continue
        if tok in _SIZE_VERBS:
            size = _size_at(tokens, i + 1, measured)
            if size is None or size[3] >= len(tokens) or tokens[size[3]] not in _WHAT_AFTER_SIZE:
                continue
            if _denied(tokens, i):
                continue
            what = tokens[size[3] + 1 : size[3] + 2 + CUE_REACH]
            about = outcome(what) | outcome(tokens[max(0, i - CUE_REACH) : i])
            found.append(_Sized("amount", _SIZE_VERBS[tok], *size[:3], frozenset(about)))
            continue
        if tok in _UP_DOWN and (
            (i and tokens[i - 1] in _GONE)
            # a headline's "traffic up by roughly a third", "rider casualties on the
            # sections down only about 8 per cent" (decision 0108)
            or (i and tokens[i - 1].isalpha() and _size_after_up_down(tokens, i, measured))
        ):
            axis: tuple[str, int] | None = ("amount", _UP_DOWN[tok])
        else:
            axis = axis_of(tokens, i)
        if not axis or axis[0] not in SIZED_AXES:
            continue
        by = next(
            (k for k in range(i + 1, min(len(tokens), i + 2 + _BY_REACH)) if tokens[k] == "by"), 0
        )
        # "nitrogen dioxide went up at five of the eight tubes on the converted streets,
        # by about 7 per cent": "by" after where it changed
        where = 0 if by else _place_before_by(tokens, i)
        if by or where:
            size = _size_at(tokens, (by or where) + 1, measured)
        elif tok in _MOVED_BY_DIRECTLY or tok in _UP_DOWN:
            # "prices rose 2.8 per cent faster than the index", "sales fell 12%"
            by, size = i, _size_at(tokens, i + 1, measured)
        else:
            size = None
        if size is None or _not_found(tokens, i, size[3]) or _denied(tokens, i):
            continue
        before = outcome(tokens[max(0, i - _SUBJECT_REACH) : i])
        # "fell slightly, by around 3 per cent": how it moved says nothing of what moved;
        # nor does where ("went up at five of the eight tubes"): it is named before then
        about = set() if where else outcome([t for t in tokens[i + 1 : by] if not t.endswith("ly")])
        agent = outcome(tokens[max(0, i - _AGENT_REACH) : i]) if about else set()
        found.append(
            _Sized(axis[0], axis[1], *size[:3], frozenset(about or before), frozenset(agent))
        )
    return found


# Where a change happened, between its verb and its size ("went up at five of the
# eight tubes on the converted streets, by about 7 per cent"): a phrase opening with one
# of these, "by" at most `_PLACE_REACH` tokens on, no word of change between.
_PLACES: Final = frozenset({"at", "in", "on", "across", "among"})
_PLACE_REACH: Final = 12


def _place_before_by(tokens: Sequence[str], i: int) -> int:
    """Where "by" stands after a place the change at ``i`` happened in (0 for none)."""
    if i + 1 >= len(tokens) or tokens[i + 1] not in _PLACES:
        return 0
    for k in range(i + 2, min(len(tokens), i + 2 + _PLACE_REACH)):
        if tokens[k] == "by":
            return k
        if tokens[k].isalpha() and axis_of(tokens, k):
            return 0
    return 0


def _denied(tokens: Sequence[str], i: int) -> bool:
    """A negation comes right before the change at ``i`` ("did not fall by 10%")."""
    return any(is_cue(tokens, j) for j in range(max(0, i - 3), i))


def _not_found(tokens: Sequence[str], i: int, end: int) -> bool:
    """The change at ``i`` (its size ending at ``end``) is no finding: what a thing of a
    kind can do or should do ("a tax that raises the price by 20 percent", "taxes that
    would raise it by 20 percent"), or a step of a procedure ("increased by 15 minutes
    at a time")."""
    return (
        (i > 0 and tokens[i - 1] in _HYPOTHETICAL)
        or any(tokens[j] in _MODAL for j in range(max(0, i - 2), i))
        or tokens[end : end + 3] == ["at", "a", "time"]
    )


# "no clear evidence that ...": the words that may stand between the denial and
# "evidence", and how far after "that" the change it denies may stand.
_EVIDENCE_DENIALS = frozenset({"no", "little", "insufficient", "weak"})
_EVIDENCE_WORDS = frozenset({"evidenc", "sign", "indicat", "proof"})
_EVIDENCE_REACH = 8


def _unevidenced(tokens: Sequence[str]) -> list[_Sized]:
    """Each change a text finds no evidence of, without its size: "there is no clear
    evidence that hearing aids improve memory scores", "I can find no sign that menu
    prices ... rose any faster than general inflation"."""
    found = []
    for i, tok in enumerate(tokens):
        if tokens[i + 1 : i + 2] != ["that"] or stem(tok) not in _EVIDENCE_WORDS:
            continue
        before = range(max(0, i - 3), i)
        if not any(tokens[j] in _EVIDENCE_DENIALS or is_cue(tokens, j) for j in before):
            continue
        for k in range(i + 2, min(len(tokens), i + 2 + _EVIDENCE_REACH)):
            if tokens[k] in _UP_DOWN and tokens[k - 1] in _GONE:
                # "no clear evidence that sickness absence went down" (decision 0105)
                axis: tuple[str, int] | None = ("amount", _UP_DOWN[tokens[k]])
            elif tokens[k] in _SWITCHED and tokens[k + 1 : k + 2] == ["to"]:
                # more of what people switched to: "no evidence that shoppers have
                # switched to buying plastic bin liners" (decision 0107)
                axis = ("amount", 1)
            else:
                axis = axis_of(tokens, k) if tokens[k].isalpha() else None
            if axis and axis[0] in SIZED_AXES:
                # what changes, named before the verb or after it: "hearing aids improve
                # memory scores", "menu prices ... rose any faster than inflation"
                about = outcome(tokens[i + 2 : k]) | outcome(tokens[k + 1 : k + 1 + CUE_REACH])
                found.append(_Sized(axis[0], axis[1], "", 0.0, 0.0, frozenset(about)))
                break
    return found


def _other_agents(first: _Sized, second: _Sized) -> bool:
    """Each change is made by something the other does not name: "a diet low in saturated
    fat lowers LDL cholesterol by 5 to 10 percent" and "ezetimibe lowers LDL cholesterol
    by about 20 percent" size two things' effects, not one."""
    return (
        bool(first.agent - _GENERIC_AGENTS)
        and bool(second.agent - _GENERIC_AGENTS)
        and first.agent.isdisjoint(second.agent)
    )


def _far_apart(first: _Sized, second: _Sized) -> bool:
    small, large = sorted((first, second), key=lambda c: c.low)
    return small.high > 0 and large.low >= SIZES_APART * small.high


@dataclass(frozen=True)
class ChangeReading:
    """What the two rules read in one text, made once per text."""

    tokens: Sequence[str]
    negated: bool
    no_change: frozenset[str]  # what it finds did not change
    sized_change: frozenset[str]  # what it says changed by a stated size
    change: frozenset[str]  # what it says changed, sized or not
    comparisons: tuple[Comparison, ...]
    advice: AdviceReading  # where it calls a thing safe, where it advises against it
    sized: tuple[_Sized, ...] = ()  # each change given a size with "by"
    unevidenced: tuple[_Sized, ...] = ()  # each change it finds no evidence of
    groups: GroupReading = NO_GROUP  # the group it singles out for most of an effect
    share: Share | None = None  # the one share of people it gives ("1 in 100")
    share_about: frozenset[str] = frozenset()  # the words of what that share has
    cost: Cost | None = None  # the one cost it gives ("2,900 crowns per officer")
    dose: Dose | None = None  # the dose it gives for one age band ("aged 1 to 5 ... 2.5 ml")
    amounts: Amounts | None = None  # a floor it sets, or an amount it calls enough (0126)

    @functools.cached_property
    def names(self) -> frozenset[str]:
        """Stems of the words no lexicon knows, read only where a rule asks."""
        return _names(self.tokens)


# "one child in four" and "1 in 20 children" count the same people (decision 0106)
_ONE_OF: Final = {
    "children": "child",
    "women": "woman",
    "men": "man",
    "people": "person",
    # one outcome in the words writers give it: "overheating is rare: ... felt too warm"
    # against "feeling too hot was the most common complaint" (decision 0113)
    "felt": "feel",
    "warm": "hot",
    "overheat": "hot",
    # leaving work in other words: "leaving paid employment altogether was rare" against
    # "11 percent ... said they had quit their jobs outright" (decision 0115)
    "quit": "leav",
    "job": "employ",
    **OUTCOME_FOLDS,
}


# A task's sentences meet many others (each claim its candidates, each fragment the
# claims): each token list is read once while it is in use.
_READINGS_KEPT = 4096


def read_changes(tokens: Sequence[str]) -> ChangeReading:
    """What the change rules read in one sentence's tokens (kept for the next pair)."""
    return _read_changes(tuple(tokens))


@functools.lru_cache(maxsize=_READINGS_KEPT)
def _read_changes(key: tuple[str, ...]) -> ChangeReading:
    # a list, as the rules compare slices with lists ("tokens[i + 1 : i + 2] == ['by']")
    tokens = list(key)
    sized, changed = _changes(tokens)
    # a measure that differs between a trial's arms (decision 0106), or what one arm
    # gained over the other (decision 0126), or two shares set against each other (0114)
    measured = arms_differ(tokens) or extra_against_arm(tokens) or shares_compared(tokens)
    if measured:
        sized |= outcome(measured)
        changed |= sized
    negated = is_negated(tokens)
    comparisons = tuple(read_comparisons(tokens))
    sized_changes = tuple(_sized(tokens))
    # a share in a sentence that sizes no change and negates nothing (decision 0105),
    # beside a change or a comparison it counts the people of: "only 4 per cent of
    # victims who took part said they felt worse after the conference than before it"
    # (decision 0109)
    share = read_share(tokens) if not (negated or sized or sized_changes) else None
    share_tokens = tokens
    if share is None and not (sized or sized_changes):
        # the share of one clause, where the others negate or give shares too (0115)
        clause = share_clause(tokens)
        if len(clause) < len(tokens) and not is_negated(clause):
            share, share_tokens = read_share(clause), clause
    return ChangeReading(
        tokens=tokens,
        negated=negated,
        no_change=frozenset(no_change(tokens)),
        sized_change=frozenset(sized),
        change=frozenset(changed),
        comparisons=comparisons,
        advice=read_advice(tokens),
        sized=sized_changes,
        unevidenced=tuple(_unevidenced(tokens)),
        groups=read_groups(tokens),
        share=share,
        cost=read_cost(tokens),
        dose=read_dose(tokens),
        amounts=read_amounts(tokens),
        share_about=(
            frozenset(_ONE_OF.get(k, k) for k in outcome(share_tokens)) if share else frozenset()
        ),
    )


def no_change_against_change(hypothesis: ChangeReading, sentence: ChangeReading) -> bool:
    """One text finds that something did not change, and the other, which negates
    nothing, says that the same thing changed by a stated amount: "our organic matter
    hasn't budged" against "soil organic matter rose by roughly 0.3 percentage points",
    "no real change in traffic noise" against "the wall has cut noise ... by around a
    third" (decision 0101). The same thing is a word both name there, one more specific
    than "risk" or "rate" and no name of a place or person (decision 0104), that no
    word before it in each text sets apart: "diastolic
    blood pressure was unchanged" does not refute "lowered systolic blood pressure by 5
    mmHg"."""
    for null, moved in ((hypothesis, sentence), (sentence, hypothesis)):
        if moved.negated and _negated_before_than(moved.tokens):
            continue
        # in another form too: "no less agitated" and "agitation scores were 7.9 points
        # lower" (decision 0126)
        same = _alike(null.no_change, moved.sized_change) - GENERAL_OUTCOMES
        if not same:
            # what a change sized with "by" or a percentage is about, in two words:
            # "recorded juvenile crime in the pilot districts fell 23 per cent more than
            # in comparable districts with no curfew" (whose "no" names what it is
            # compared with: decision 0109); one word there ("cameras went national,
            # recorded complaints ... rose by 11%") may say where, not what
            about = frozenset().union(*(change.about for change in moved.sized))
            same = (null.no_change & about) - GENERAL_OUTCOMES
            if len(same - null.names - moved.names) < _UNSIZED_SHARED:
                same = frozenset()
        if same:
            same -= null.names | moved.names
        if not same:
            # A change of no stated size: two words of it named in both, one of them
            # neither who changed nor how often ("cut how often children need their
            # reliever" against "no real difference to how often children needed their
            # blue reliever inhaler").
            same = (null.no_change & moved.change) - GENERAL_OUTCOMES
            if same:
                same -= null.names | moved.names
            if len(same) < _UNSIZED_SHARED or same <= WHO_AND_HOW_OFTEN:
                continue
        if not any(_set_apart(null.tokens, moved.tokens, word) for word in same):
            return True
    return False


def _negated_before_than(tokens: Sequence[str]) -> bool:
    """A negation stands before the text's "than" (or "compared with"), or anywhere when
    it has neither: "with no curfew" after "than", "compared with placebo or no
    treatment", name what the change is compared with (decision 0122)."""
    than = tokens.index("than") if "than" in tokens else len(tokens)
    compared = next(
        (i for i in range(len(tokens) - 1) if tokens[i : i + 2] in (["compared", "with"],
                                                                      ["compared", "to"])),
        len(tokens),
    )  # fmt: skip
    return any(is_cue(tokens, i) for i in range(min(than, compared)))


# A trial's arm ends the phrase before what it measures ("In the cold-bath group,
# soreness ratings ...": the comma is gone from the tokens; decision 0109); how an
# outcome was taken sets no other outcome apart ("perceived soreness" is the "muscle
# soreness" a trial reduced: decision 0113).
_NO_MODIFIERS = frozenset(
    {"group", "groups", "arm", "arms", "perceived", "reported", "rated", "measured",
     "subjective", "self"}
)  # fmt: skip


def _modifiers(tokens: Sequence[str], word: str) -> frozenset[str]:
    """The content words right before each use of ``word`` (a key): in "systolic blood
    pressure", "systol" for "blood" and "blood" for "pressur"."""
    return _modified(tokens).get(word, frozenset())


@kept_per_tokens
def _modified(tokens: list[str]) -> dict[str, frozenset[str]]:
    """`_modifiers` of every content word of ``tokens`` at once, by key, up to "than":
    what follows it names the arm compared with ("64% more foraging bumblebees than the
    control verges"), which sets no outcome apart (decision 0123)."""
    found: dict[str, set[str]] = {}
    for i in range(1, len(tokens)):
        if tokens[i] == "than":
            break
        key = token_key(tokens[i])
        if key is not None and not _verb_only(tokens[i - 1]) and tokens[i - 1] not in _NO_MODIFIERS:
            found.setdefault(key, set()).update(outcome(tokens[i - 1 : i]))
    return {key: frozenset(words) for key, words in found.items()}


@functools.lru_cache(maxsize=16384)
def _verb_only(token: str) -> bool:
    """A verb that modifies nothing: a form of a verb other than its base or its past
    participle ("saw revenue jump"; "taxed drinks" and "stabilized buildings" are set
    apart by their participles), or a verb the lexicon knows as nothing else ("suffer
    muscle pain"; decision 0105)."""
    readings = lexicon_readings(token)
    lemmas = readings.get("VERB")
    if not lemmas:
        return False
    if lemmas[0] == token:
        return not ({"NOUN", "ADJ"} & readings.keys())
    return token not in past_participles(lemmas[0])


def _set_apart(first: Sequence[str], second: Sequence[str], word: str) -> bool:
    """Each text puts a different content word right before ``word``, which the other
    does not name at all: "systolic blood" and "diastolic blood", "LDL cholesterol" and
    "HDL cholesterol"; not "memory scores" and "memory test scores"."""
    before, after = _modifiers(first, word), _modifiers(second, word)
    return (
        bool(before)
        and bool(after)
        and before.isdisjoint(after)
        and before.isdisjoint(outcome(second))
        and after.isdisjoint(outcome(first))
    )


# Names are at least this long (shorter unknown words are abbreviations: "LDL", "NO2").
_NAME_MIN_LENGTH = 5


def _names(tokens: Sequence[str]) -> frozenset[str]:
    """Stems of the words no English lexicon knows: names of places and people, which
    say where or whose a change is, never what changed ("Eastfield", "Hartwell")."""
    return frozenset(
        stem(t) for t in tokens if len(t) >= _NAME_MIN_LENGTH and t.isalpha() and not _known(t)
    )


# Prefixes a known word takes ("rearrest", "reoffend", "nonsmoker", "misdiagnosed"); not
# "over", "under" or "co", which begin as many names ("Overton", "Underwood", "Coventry").
_PREFIXES: Final = ("re", "non", "pre", "post", "anti", "mis")


def _known(word: str) -> bool:
    """A lexicon knows the word or what it is made from ("reliever": "relieve"), or what
    follows a prefix ("rearrested": "arrest"; decision 0108)."""
    if any(lexicon_readings(word[: len(word) - cut]) for cut in range(4)):
        return True
    return any(
        word.startswith(prefix)
        and len(word) - len(prefix) >= _NAME_MIN_LENGTH - 1
        and any(lexicon_readings(word[len(prefix) : len(word) - cut]) for cut in range(4))
        for prefix in _PREFIXES
    )


def _same_thing(
    first: ChangeReading, second: ChangeReading, words: frozenset[str]
) -> frozenset[str]:
    """Of the words two readings share, those that can say what changed: none too
    general ("risk", "rate"), no name, none set apart by the words before it."""
    same = specific(words) - first.names - second.names
    if any(_set_apart(first.tokens, second.tokens, word) for word in same):
        return frozenset()
    return same


def sizes_differ(hypothesis: ChangeReading, sentence: ChangeReading) -> bool:
    """Both texts change one thing the same way, by sizes in one unit that are far apart
    (`SIZES_APART`): "motor traffic on internal streets fell by 47 per cent" against
    "the traffic on the streets inside the zone has fallen by a mere 12%"; "slowed the
    rate of cognitive decline by 41%" against "by about a quarter". The same thing is a
    word both name there, more specific than "rate", that no word before it in each
    text sets apart ("systolic" and "diastolic" blood pressure)."""
    for first in hypothesis.sized:
        for second in sentence.sized:
            if (first.axis, first.unit) != (second.axis, second.unit):
                continue
            if _other_agents(first, second):
                continue
            same = _same_thing(hypothesis, sentence, first.about & second.about)
            # opposite ways, each by a stated size: "traffic on the two parallel minor
            # roads ... fell slightly, by around 3 per cent" against "traffic up by roughly
            # a third" on the same back lanes (decision 0108)
            if same and first.sign != second.sign and first.axis == "amount":
                return True
            if first.sign == second.sign and same and _far_apart(first, second):
                return True
    return False


def unevidenced_against_sized(hypothesis: ChangeReading, sentence: ChangeReading) -> bool:
    """One text finds no evidence that a thing changes one way, and the other says it did,
    by a stated size: "there is no clear evidence that hearing aids improve memory
    scores" against "memory test scores improved by 12% after six months"."""
    for denied, moved in ((hypothesis, sentence), (sentence, hypothesis)):
        for first in denied.unevidenced:
            for second in moved.sized:
                if (first.axis, first.sign) != (second.axis, second.sign):
                    continue
                if _same_thing(denied, moved, first.about & second.about):
                    return True
    return False


# Two stems of one word in two forms share their first letters: "constipation" and
# "constipated" (decision 0109).
_ALIKE_PREFIX = 7


# A verb and its noun: "evicted" and "eviction", "abandon" and "abandonment" (0123).
_NOUN_ENDINGS: Final = ("ion", "ment", "al")
_NOUN_BASE = 4


def _alike(first: frozenset[str], second: frozenset[str]) -> frozenset[str]:
    """The words of ``first`` that ``second`` names too, as they stand, in another form
    of at least `_ALIKE_PREFIX` letters, or as the noun of its verb (`_NOUN_ENDINGS`)."""
    prefixes = {word[:_ALIKE_PREFIX] for word in second if len(word) >= _ALIKE_PREFIX}
    verbs = verbs_of_nouns(second)
    return frozenset(
        word
        for word in first
        if word in second
        or (len(word) >= _ALIKE_PREFIX and word[:_ALIKE_PREFIX] in prefixes)
        or word in verbs
        or not verbs_of_nouns(frozenset({word})).isdisjoint(second)
    )


def verbs_of_nouns(words: frozenset[str]) -> frozenset[str]:
    """The verb of each noun of ``words`` that `_NOUN_ENDINGS` make ("eviction": "evict"),
    for `_alike` and for the sweep to meet a text that names the verb."""
    return frozenset(
        word[: -len(end)]
        for word in words
        for end in _NOUN_ENDINGS
        if word.endswith(end) and len(word) - len(end) >= _NOUN_BASE
    )


# A harm called rare in one text and common in the other, this far apart, needs one
# word of it named in both; unless either grades how bad it is ("serious skin reactions
# are rare" and "mild skin redness is common" are two outcomes).
_SHARES_TENFOLD: Final = 10.0
_SEVERITIES: Final = frozenset(
    {"serious", "severe", "major", "mild", "minor", "slight", "moderate", "significant",
     "life", "fatal", "dangerous", "trivial", "bad", "worse", "worst"}
)  # fmt: skip


def shares_differ(hypothesis: ChangeReading, sentence: ChangeReading) -> bool:
    """Both texts give the share of people one outcome affects, far apart
    (`nli_shares`): "muscle pain judged to be caused by the statin itself affected
    roughly 1 in 100 participants" against "as many as 3 in 10 statin users suffer muscle
    pain caused directly by their medication"."""
    if hypothesis.share is None or sentence.share is None:
        return False
    if not shares_apart(hypothesis.share, sentence.share):
        return False
    if not same_arm(hypothesis.tokens, sentence.tokens):
        return False
    if share_bases_differ(hypothesis.tokens, sentence.tokens):
        return False  # "56% of annual rainfall", "one in five of the green roofs" (0115)
    # names count here too: a drug's name says whose outcome it is ("statin users")
    alike = _alike(hypothesis.share_about, sentence.share_about) - LIGHT_VERBS
    same = specific(alike)
    known = same - hypothesis.names - sentence.names
    if frequencies_opposed(hypothesis.tokens, sentence.tokens):
        # "side effects" are common against rare: two words of the outcome, not of who it
        # affects, one of them specific (decision 0113)
        outcome = alike - hypothesis.names - sentence.names - SHARE_FRAME
        if len(outcome) >= SHARED_WORDS_FAR and specific(outcome):
            return True
        # ten times as often, one specific word of the outcome named in both, neither
        # grading how bad it is ("skin irritation is rare, affecting fewer than 2 in every
        # 100 wearers" against "sore, reddened or broken skin ... was common, turning up
        # in 29 per cent": decision 0125)
        return (
            bool(specific(outcome))
            and shares_apart(hypothesis.share, sentence.share, _SHARES_TENFOLD)
            and _SEVERITIES.isdisjoint(hypothesis.tokens)
            and _SEVERITIES.isdisjoint(sentence.tokens)
        )
    if rarity_denied(hypothesis.tokens, hypothesis.share, sentence.tokens, sentence.share):
        # called rare against a share far larger: one specific word of the outcome, no
        # word of the count ("one in a thousand", "one patient in ten"): decision 0115
        outcome = alike - hypothesis.names - sentence.names - SHARE_FRAME - COUNT_KEYS
        return bool(specific(outcome))
    if shares_apart(hypothesis.share, sentence.share, SHARES_FAR_APART):
        return len(known) >= SHARED_WORDS_FAR
    return len(same) >= SHARED_WORDS and len(known) >= SHARED_KNOWN


def changes_contradict(hypothesis: ChangeReading, sentence: ChangeReading) -> bool:
    """No change against a change, two comparisons that cannot both hold, safe where
    the other advises against (`nli_advice`), most of one effect given to opposite
    groups (`nli_groups`), shares of one outcome, costs or doses for one age band far
    apart (`nli_shares`, `nli_costs`, `nli_doses`), an amount called enough well under
    the other's floor (`nli_enough`): at any overlap, for each names what it is about
    (`nli_heuristic._judge`)."""
    return (
        no_change_against_change(hypothesis, sentence)
        or comparisons_clash(hypothesis.comparisons, sentence.comparisons)
        or no_difference_against_comparison(
            hypothesis.tokens, hypothesis.no_change, sentence.comparisons, sentence.tokens
        )
        or no_difference_against_comparison(
            sentence.tokens, sentence.no_change, hypothesis.comparisons, hypothesis.tokens
        )
        or sizes_differ(hypothesis, sentence)
        or unevidenced_against_sized(hypothesis, sentence)
        or safe_against_advised(hypothesis.advice, sentence.advice)
        or groups_clash(hypothesis.groups, sentence.groups)
        or shares_differ(hypothesis, sentence)
        or costs_differ(hypothesis.cost, sentence.cost)
        or doses_differ(hypothesis.dose, sentence.dose)
        or enough_under_floor(hypothesis.amounts, sentence.amounts)
    )
