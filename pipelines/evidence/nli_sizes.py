"""Changes a text gives a size, and what it says changed at all (`nli_change`, decisions
0101, 0106, 0108, 0109, 0116).

- What changed, sized or not: the words around a verb or a comparative of change, sized
  where a number or a fraction follows it ("cut heart attacks by about a fifth") or a
  degree comes before it ("markedly higher function scores"); a multiple of how often
  ("half as likely to vomit as"), a duration sooner or later ("14 weeks sooner than").
- Each change given a size, its direction, unit and interval, what changed and what
  changed it: "motor traffic on internal streets fell by 47 per cent", "has gone up by
  about 9 per cent", "added less than 3 per cent to total running costs".
- Each change a text finds no evidence of: "there is no clear evidence that hearing aids
  improve memory scores".

`nli_change` sets these readings of two texts against each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from lyra.pipelines.evidence.nli_about import (
    OUTCOME_REACH,
    SIZED_AXES,
    acted_on,
    sized_before,
    words_before,
)
from lyra.pipelines.evidence.nli_comparisons import CUE_REACH, THAN_REACH, outcome
from lyra.pipelines.evidence.nli_digits import number_or_word
from lyra.pipelines.evidence.nli_halves import looks_plural
from lyra.pipelines.evidence.nli_no_change import change_noun
from lyra.pipelines.evidence.nli_numbers import (
    CARDINALS,
    PERCENT_WORDS,
    TIME_UNITS,
    Measures,
    measures,
    number,
    stem,
)
from lyra.pipelines.evidence.nli_tokens import axis_of, is_cue
from lyra.pipelines.evidence.nli_words import CHANGE_DEGREES, CHANGE_SIZES, CHANGE_VERBS

_CHANGE_AXES = frozenset({"amount", "quality"})


def changed_words(tokens: Sequence[str]) -> tuple[set[str], set[str]]:
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
        if not ((axis and axis[0] in _CHANGE_AXES) or stem(tok) in CHANGE_VERBS) or _drops_out(
            tokens, i
        ):
            continue
        if (tokens[i + 1 : i + 2] == ["than"] and not sized_before(tokens, i)) or tokens[
            i - 1 : i
        ] == ["or"]:
            # a bound, not a change: "more than eight years", "800 IU or more"; not "were
            # 23% lower than" (decision 0133)
            continue
        if _cuts_a_thing(tokens, i):
            continue
        sized = (
            _sized_before(tokens, i)
            or any(
                # not a count of those named ("got worse in the month after the two
                # households met": decision 0144)
                (number(t) is not None and tokens[j - 1] not in ("-", "the")) or t in CHANGE_SIZES
                for j, t in enumerate(tokens[i + 1 : i + 1 + 2 * OUTCOME_REACH], start=i + 1)
            )
            or _size_after_by(tokens, i)
        )
        if "than" in tokens[i + 1 : i + 1 + THAN_REACH] and _no_measure_compared(tokens, i):
            # a comparison of two things, not a change: "more effective at reducing
            # traffic than" ("markedly higher function scores ... than" compares a measure)
            continue
        if sized or (i and tokens[i - 1] in CHANGE_DEGREES):
            found |= (
                acted_on(tokens, i, CUE_REACH) | _what_was_lost(tokens, i) | _counted_per(tokens, i)
            )
            if _sized_before(tokens, i):
                # what gave the size: "plots ... yielded 14 percent more grain" (0109)
                found |= _verb_before_size(tokens, i)
        else:
            unsized |= acted_on(tokens, i, OUTCOME_REACH)
    return found, found | unsized


# "Predation losses were 3.1 lambs per 100": a count of losses names what was lost after
# its number (decision 0131).
_LOSSES: Final = frozenset({"loss", "losses"})
_WERE: Final = frozenset({"was", "were", "is", "are", "averaged", "totalled", "totaled"})


def _what_was_lost(tokens: Sequence[str], i: int) -> set[str]:
    """What the losses at ``i`` counted, when a number of it follows: "losses were 3.1
    lambs per 100" lost lambs; nothing otherwise."""
    after = tokens[i + 1 : i + 4]
    if tokens[i] not in _LOSSES or len(after) < 3 or after[0] not in _WERE:
        return set()
    return outcome(after[2:3]) if number(after[1]) is not None else set()


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
class Sized:
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


def _ordinal(tokens: Sequence[str], j: int) -> bool:
    """The fraction word at ``j`` is an ordinal: "the third day", "the fifth session"."""
    return j > 0 and tokens[j - 1] == "the" and tokens[j + 1 : j + 2] not in ([], ["of"])


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
    value = number_or_word(tokens[j])
    fraction = stem(tokens[j + 1]) if j + 1 < len(tokens) else ""
    if fraction == "-" and j + 2 < len(tokens):  # "two-thirds"
        fraction = stem(tokens[j + 2])
        j += 1
    if tokens[j] in _FRACTIONS and _ordinal(tokens, j):
        return None  # "by the third day" counts days (decision 0136)
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


_DROPS: Final = frozenset({"drop", "drops", "dropped", "dropping"})


def _drops_out(tokens: Sequence[str], i: int) -> bool:
    """``tokens[i]`` drops out, no fall: "the video link drops out on me in about half my
    sessions" (decision 0140); or names the things that dropped at the sentence's
    opening, no change found: "Dropped connections are rare"; and what was "cut off
    early" was disconnected, no cut (decision 0143)."""
    if tokens[i] in ("cut", "cuts") and tokens[i + 1 : i + 2] == ["off"]:
        return True
    return tokens[i] in _DROPS and (
        tokens[i + 1 : i + 2] == ["out"]
        or (
            i == 0
            and tokens[i] == "dropped"
            and looks_plural(tokens[i + 1] if len(tokens) > 1 else "")
        )
    )


def sized_changes(tokens: Sequence[str]) -> list[Sized]:
    """Each change the text gives a size, its direction and what changed: "fell by 47 per
    cent", "has gone up by about 9 per cent", "added less than 3 per cent to total running
    costs"; a change a negation comes right before is none ("did not fall by 10%")."""
    found: list[Sized] = []
    digits = any(number(t) is not None for t in tokens)
    if not digits and not any(t in CARDINALS or stem(t) in _FRACTIONS for t in tokens):
        return found  # no size to give a change
    measured = measures(tokens) if digits else {}
    for i, tok in enumerate(tokens):
        if not tok.isalpha() or _drops_out(tokens, i):
            continue
        if tok in _SIZE_VERBS:
            size = _size_at(tokens, i + 1, measured)
            if size is None or size[3] >= len(tokens) or tokens[size[3]] not in _WHAT_AFTER_SIZE:
                continue
            if _denied(tokens, i):
                continue
            what = tokens[size[3] + 1 : size[3] + 2 + CUE_REACH]
            about = outcome(what) | outcome(tokens[max(0, i - CUE_REACH) : i])
            found.append(Sized("amount", _SIZE_VERBS[tok], *size[:3], frozenset(about)))
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
            Sized(axis[0], axis[1], *size[:3], frozenset(about or before), frozenset(agent))
        )
    return found


# "households that had cut a gap": a thing cut out, no amount cut down (decision 0132)
_CUTS: Final = frozenset({"cut", "cuts", "cutting"})


def _cuts_a_thing(tokens: Sequence[str], i: int) -> bool:
    """``tokens[i]`` cuts a thing ("cut a gap", "cutting a hole"), not an amount ("cut a
    third of", "cut a few minutes off")."""
    after = tokens[i + 1 : i + 3]
    return (
        tokens[i] in _CUTS
        and after[:1] in (["a"], ["an"])
        and len(after) == 2
        and after[1].isalpha()
        and after[1] not in CHANGE_SIZES
        and stem(after[1]) not in _FRACTIONS
        and after[1] not in ("few", "couple", "little", "bit", "lot", "quarter", "third", "half")
    )


def _counted_per(tokens: Sequence[str], i: int) -> set[str]:
    """What a rate before the change at ``i`` counts, named before its "per": "Hedgehog
    detections per 100 camera-trap nights were 47% higher" is about hedgehog detections
    as much as about nights (decision 0132)."""
    window = range(max(0, i - _SUBJECT_REACH), i)
    per = next((k for k in window if tokens[k] == "per"), None)
    if per is None:
        return set()
    return outcome(tokens[max(0, per - _PER_REACH) : per])


_PER_REACH: Final = 3


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


def unevidenced_changes(tokens: Sequence[str]) -> list[Sized]:
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
                found.append(Sized(axis[0], axis[1], "", 0.0, 0.0, frozenset(about)))
                break
    return found


def other_agents(first: Sized, second: Sized) -> bool:
    """Each change is made by something the other does not name: "a diet low in saturated
    fat lowers LDL cholesterol by 5 to 10 percent" and "ezetimibe lowers LDL cholesterol
    by about 20 percent" size two things' effects, not one."""
    return (
        bool(first.agent - _GENERIC_AGENTS)
        and bool(second.agent - _GENERIC_AGENTS)
        and first.agent.isdisjoint(second.agent)
    )


def far_apart(first: Sized, second: Sized) -> bool:
    small, large = sorted((first, second), key=lambda c: c.low)
    return small.high > 0 and large.low >= SIZES_APART * small.high
