"""Two contradiction rules of the heuristic stance judge (`nli_heuristic`, decision 0101).

- A finding of no change against a change of a stated size: "our organic matter hasn't
  budged" against "soil organic matter rose by roughly 0.3 percentage points"; "no real
  change in traffic noise" against "the wall has cut noise ... by around a third";
  "function scores practically identical to surgery" against "markedly higher function
  scores".
- Comparisons that cannot both hold: "green tea burns no more fat than ... coffee"
  against "green tea far outperforms coffee"; A ahead of B against B ahead of A.

Such pairs share little beyond what changed or what is compared, so the overlap rules of
`nli_heuristic` call them neutral, and the packaged stance model reads their shared
subject as support. Each rule names what it is about, so it applies at any overlap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lyra.pipelines.evidence.nli_advice import AdviceReading, read_advice, safe_against_advised
from lyra.pipelines.evidence.nli_numbers import number, stem
from lyra.pipelines.evidence.nli_tokens import (
    DETERMINERS,
    axis_of,
    content_keys,
    is_cue,
    is_negated,
)
from lyra.pipelines.evidence.nli_words import (
    CHANGE_DEGREES,
    CHANGE_SIZES,
    CHANGE_VERBS,
    GENERAL_OUTCOMES,
    NULL_DETERMINERS,
    NULL_NOUNS,
    NULL_STATES,
    STAYED_STATES,
    STAYING,
    WHO_AND_HOW_OFTEN,
)

# How far a verb of change reaches for its object, and a negation for the comparison it
# denies (tokens).
_CUE_REACH = 4
# How far a finding of no change or a change reaches for what it is about (tokens).
_OUTCOME_REACH = 6
# After a null noun, through "to the risk of having a heart attack".
_NULL_REACH = 8
_CHANGE_AXES = frozenset({"amount", "quality"})
# Words of a change of no stated size that the finding of no change names too.
_UNSIZED_SHARED = 2


def _outcome(tokens: Sequence[str]) -> set[str]:
    return {k for k in content_keys(tokens) if not k.startswith("~")}


def _acted_on(tokens: Sequence[str], i: int, reach: int) -> set[str]:
    """What the verb or comparative at ``i`` is about: the words after it when a content
    word or "how" follows it (an object: "cut heart attacks", "higher function scores",
    "cut how often children need their reliever"), else
    those before it (its subject: "organic matter rose by", "turnover hardly changed")."""
    j = i + 1
    while j < len(tokens) and tokens[j] in DETERMINERS:
        j += 1
    if j < len(tokens) and (tokens[j] == "how" or _outcome(tokens[j : j + 1])):
        return _outcome(tokens[i + 1 : i + 1 + reach])
    return _outcome(tokens[max(0, i - _OUTCOME_REACH) : i])


def _no_change(tokens: Sequence[str]) -> set[str]:
    """What the text finds did not change: the words after a null noun ("no real change
    in traffic noise", "little or no difference to the risk of a heart attack") and
    before a state of no change ("organic matter hasn't budged", "spending held steady",
    "function scores ... practically identical", "noise was about the same")."""
    found: set[str] = set()
    for i, tok in enumerate(tokens):
        stemmed = stem(tok)
        before = range(max(0, i - 3), i)
        if stemmed in NULL_NOUNS and any(
            tokens[j] in NULL_DETERMINERS or is_cue(tokens, j) for j in before
        ):
            if any(tokens[j] in ("no", "little") for j in before):
                found |= _outcome(tokens[i + 1 : i + 1 + _NULL_REACH])
            else:
                # a verb: "did not change cancer rates", "turnover hardly changed"
                found |= _acted_on(tokens, i, _NULL_REACH)
        elif (
            stemmed in NULL_STATES
            or (stemmed == "budg" and is_negated(tokens[max(0, i - 3) : i]))
            or (stemmed in STAYED_STATES and not STAYING.isdisjoint(tokens[max(0, i - 3) : i]))
        ):
            found |= _outcome(tokens[max(0, i - _OUTCOME_REACH) : i])
    return found


def _changes(tokens: Sequence[str]) -> tuple[set[str], set[str]]:
    """What the text says changed by a stated amount, and what it says changed at all:
    the words around a verb or a comparative of change, sized where a number (not part
    of a name: "COVID-19") or a fraction follows it ("cut heart attacks by about a
    fifth", "organic matter rose by roughly 0.3 points") or a degree comes before it
    ("markedly higher function scores")."""
    found: set[str] = set()
    unsized: set[str] = set()
    for i, tok in enumerate(tokens):
        axis = axis_of(tokens, i) if tok.isalpha() else None
        if not ((axis and axis[0] in _CHANGE_AXES) or stem(tok) in CHANGE_VERBS):
            continue
        if tokens[i + 1 : i + 2] == ["than"] or tokens[i - 1 : i] == ["or"]:
            # a bound, not a change: "more than eight years", "800 IU or more"
            continue
        sized = any(
            (number(t) is not None and tokens[j - 1] != "-") or t in CHANGE_SIZES
            for j, t in enumerate(tokens[i + 1 : i + 1 + 2 * _OUTCOME_REACH], start=i + 1)
        )
        if sized or (i and tokens[i - 1] in CHANGE_DEGREES):
            found |= _acted_on(tokens, i, _CUE_REACH)
        else:
            unsized |= _acted_on(tokens, i, _OUTCOME_REACH)
    return found, found | unsized


# A comparison: a word of the amount, quality or performance axes ("more", "better",
# "outperforms") with "than" at most this many tokens after it.
_THAN_REACH = 8
# What leads is named right before the comparison ("call-centre agents gain", "green
# tea burns"); a wider window takes in the sentence's setting ("after having their
# wisdom teeth out get more ..."). A cue this far before it denies the comparison ("does
# not slow the metabolism more than").
_LEADER_REACH = 3
_COMPARING_AXES = frozenset({"amount", "quality", "performance"})


# "A is as effective as B": an equality of these axes, or of these words.
_EQUAL_AXES = frozenset({"efficacy", "safety", "benefit", "quality", "performance"})
_EQUAL_WORDS = frozenset({"good", "well", "potent", "strong"})
# Before the first "as", words that make it no equality: "at least as effective as" (or
# better), "nearly as good as" (a little worse), "twice as effective as" (a multiple).
_NOT_EQUAL = frozenset({"least", "nearly", "almost", "quite", "twice", "times", "half"})


@dataclass(frozen=True)
class _Comparison:
    sign: int  # +1: the leader has more, does better; -1: less, worse; 0: as well as
    denied: bool  # "no more ... than", "not better than"
    leader: frozenset[str]  # what comes first: "green tea", "call-centre agents"
    compared: frozenset[str]  # what it is compared with: "coffee", "programmers"
    measure: frozenset[str]  # what they are compared in: "fat", "from a standing desk"


def _equalities(tokens: Sequence[str]) -> list[_Comparison]:
    """Each "A is (just) as effective as B" of the text that no word before denies or
    bounds ("not as good as", "at least as effective as", "twice as effective as")."""
    found = []
    for i in range(1, len(tokens) - 2):
        if tokens[i - 1] != "as" or tokens[i + 1] != "as":
            continue
        axis = axis_of(tokens, i) if tokens[i].isalpha() else None
        if not ((axis and axis[0] in _EQUAL_AXES) or tokens[i] in _EQUAL_WORDS):
            continue
        before = tokens[max(0, i - 1 - _CUE_REACH) : i - 1]
        if not _NOT_EQUAL.isdisjoint(before) or any(number(t) is not None for t in before):
            continue
        if any(is_cue(tokens, j) for j in range(max(0, i - 1 - _CUE_REACH), i - 1)):
            continue
        found.append(
            _Comparison(
                sign=0,
                denied=False,
                leader=frozenset(_outcome(tokens[max(0, i - 1 - _LEADER_REACH) : i - 1])),
                compared=frozenset(_outcome(tokens[i + 2 : i + 2 + _NULL_REACH])),
                measure=frozenset(_outcome(tokens[i : i + 1])),
            )
        )
    return found


def _comparisons(tokens: Sequence[str]) -> list[_Comparison]:
    """Each "A <more / better / less ...> X than B" and "A outperforms B" of the text; a
    bound ("no more than 4 grams") is none. Then its equalities (`_equalities`)."""
    found = []
    for i, tok in enumerate(tokens):
        axis = axis_of(tokens, i) if tok.isalpha() else None
        if not axis or axis[0] not in _COMPARING_AXES:
            continue
        if axis[0] == "performance":
            than = i
        else:
            ahead = range(i + 1, min(len(tokens), i + 1 + _THAN_REACH))
            than = next((k for k in ahead if tokens[k] == "than"), 0)
            if not than or any(number(t) is not None for t in tokens[than + 1 : than + 2]):
                continue
        found.append(
            _Comparison(
                sign=axis[1],
                denied=any(is_cue(tokens, j) for j in range(max(0, i - _CUE_REACH), i)),
                leader=frozenset(_outcome(tokens[max(0, i - _LEADER_REACH) : i])),
                compared=frozenset(_outcome(tokens[than + 1 : than + 1 + _NULL_REACH])),
                measure=frozenset(_outcome(tokens[i + 1 : than])),
            )
        )
    return found + _equalities(tokens)


@dataclass(frozen=True)
class ChangeReading:
    """What the two rules read in one text, made once per text."""

    tokens: Sequence[str]
    negated: bool
    no_change: frozenset[str]  # what it finds did not change
    sized_change: frozenset[str]  # what it says changed by a stated size
    change: frozenset[str]  # what it says changed, sized or not
    comparisons: tuple[_Comparison, ...]
    advice: AdviceReading  # where it calls a thing safe, where it advises against it


def read_changes(tokens: Sequence[str]) -> ChangeReading:
    sized, changed = _changes(tokens)
    return ChangeReading(
        tokens=tokens,
        negated=is_negated(tokens),
        no_change=frozenset(_no_change(tokens)),
        sized_change=frozenset(sized),
        change=frozenset(changed),
        comparisons=tuple(_comparisons(tokens)),
        advice=read_advice(tokens),
    )


def no_change_against_change(hypothesis: ChangeReading, sentence: ChangeReading) -> bool:
    """One text finds that something did not change, and the other, which negates
    nothing, says that the same thing changed by a stated amount: "our organic matter
    hasn't budged" against "soil organic matter rose by roughly 0.3 percentage points",
    "no real change in traffic noise" against "the wall has cut noise ... by around a
    third" (decision 0101). The same thing is a word both name there, one more specific
    than "risk" or "rate", that no word before it in each text sets apart: "diastolic
    blood pressure was unchanged" does not refute "lowered systolic blood pressure by 5
    mmHg"."""
    for null, moved in ((hypothesis, sentence), (sentence, hypothesis)):
        if moved.negated:
            continue
        same = (null.no_change & moved.sized_change) - GENERAL_OUTCOMES
        if not same:
            # A change of no stated size: two words of it named in both, one of them
            # neither who changed nor how often ("cut how often children need their
            # reliever" against "no real difference to how often children needed their
            # blue reliever inhaler").
            same = (null.no_change & moved.change) - GENERAL_OUTCOMES
            if len(same) < _UNSIZED_SHARED or same <= WHO_AND_HOW_OFTEN:
                continue
        if not any(_set_apart(null.tokens, moved.tokens, word) for word in same):
            return True
    return False


def _modifiers(tokens: Sequence[str], word: str) -> set[str]:
    """The content words right before each use of ``word`` (a key): in "systolic blood
    pressure", "systol" for "blood" and "blood" for "pressur"."""
    found = set()
    for i in range(1, len(tokens)):
        if word in content_keys(tokens[i : i + 1]):
            found |= _outcome(tokens[i - 1 : i])
    return found


def _set_apart(first: Sequence[str], second: Sequence[str], word: str) -> bool:
    """Each text puts a different content word right before ``word``: "systolic blood"
    and "diastolic blood", "LDL cholesterol" and "HDL cholesterol"."""
    before, after = _modifiers(first, word), _modifiers(second, word)
    return bool(before) and bool(after) and before.isdisjoint(after)


def _specific(words: frozenset[str]) -> frozenset[str]:
    return words - GENERAL_OUTCOMES


def comparisons_clash(hypothesis: ChangeReading, sentence: ChangeReading) -> bool:
    """Two comparisons in the same direction and measure that cannot both hold: one denies
    that A leads B and the other says it does ("green tea burns no more fat than the same
    amount of caffeine from coffee" against "green tea far outperforms coffee when it
    comes to burning fat"), or the two put A and B in opposite places ("call-centre
    agents gain far more from a standing desk than programmers do" against "software
    developers gain more from sit-stand desks than call-centre agents do"). Where both
    name what they compare in ("fat", "from a standing desk"), they share a word of it;
    a swap needs both to name it."""
    for first in hypothesis.comparisons:
        for second in sentence.comparisons:
            if first.measure and second.measure and not first.measure & second.measure:
                continue
            if (first.sign == 0) != (second.sign == 0):
                if _equal_against_lead(first, second):
                    return True
                continue
            if first.sign != second.sign:
                continue
            same_order = _specific(first.leader & second.leader) and _specific(
                first.compared & second.compared
            )
            if same_order and first.denied != second.denied:
                return True
            # A in one is B in the other: compared with what the other puts first, and
            # never with what the other compares with ("programmers" and "software
            # developers" may name one group; no word says so).
            crossed = _specific(first.leader & second.compared)
            crossed_back = _specific(first.compared & second.leader)
            swapped = (
                (crossed or crossed_back)
                and first.measure & second.measure
                and not first.compared & second.compared
                and not crossed & second.leader
                and not crossed_back & first.leader
            )
            if swapped and not (first.denied or second.denied):
                return True
    return False


def _equal_against_lead(first: _Comparison, second: _Comparison) -> bool:
    """One says A does as well as B, the other, denying nothing, that one of them leads:
    "magnesium was just as effective as propranolol at cutting the number of attacks"
    against "Propranolol is more effective than magnesium at reducing attack frequency"."""
    if first.denied or second.denied:
        return False
    forward = _specific(first.leader & second.leader) and _specific(
        first.compared & second.compared
    )
    crossed = _specific(first.leader & second.compared) and _specific(
        first.compared & second.leader
    )
    return bool(forward or crossed)


def changes_contradict(hypothesis: ChangeReading, sentence: ChangeReading) -> bool:
    """No change against a change, two comparisons that cannot both hold, or safe where
    the other advises against (`nli_advice`): at any overlap, for each names what it is
    about (`nli_heuristic._judge`)."""
    return (
        no_change_against_change(hypothesis, sentence)
        or comparisons_clash(hypothesis, sentence)
        or safe_against_advised(hypothesis.advice, sentence.advice)
    )
