"""Likenesses that find nothing changed (`nli_no_change`, decisions 0130-0135): a thing
that looks as it did ("look exactly like they did back when nobody got a reminder"), is
back where it was ("right back where it was before the floor price came in"), or is the
same as before or as a group that had none ("the same rate as the farms that hadn't",
"just as many tumbles", "every bit as much water ... as neighbours still on the waiting
list").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from lyra.pipelines.evidence.nli_about import OUTCOME_REACH, from_the_verb, words_before
from lyra.pipelines.evidence.nli_comparisons import outcome
from lyra.pipelines.evidence.nli_other_side import (
    earlier_after,
    same_time_before,
    untreated_after,
    word_within,
)

# "look exactly like they did back when", "looked much as they had before".
LOOKS: Final = frozenset({"look", "looks", "looked", "looking"})
_LOOK_STRESS: Final = frozenset({"exactly", "just", "much", "pretty", "about", "roughly"})
_THEY: Final = frozenset({"they", "it", "we", "things"})
_DID: Final = frozenset({"did", "had", "were", "was", "used"})
_THEN: Final = frozenset({"back", "when", "before", "in", "previously", "to"})


def looks_as_they_did(tokens: Sequence[str], i: int) -> int:
    """``i`` when the "look" there says that what comes before it looks as it did before
    ("... look exactly like they did back when nobody got a reminder"); 0 for none."""
    j = i + 1
    while j < len(tokens) and tokens[j] in _LOOK_STRESS:
        j += 1
    if tokens[j : j + 1] not in (["like"], ["as"]):
        return 0
    rest = tokens[j + 1 : j + 4]
    if len(rest) < 3 or rest[0] not in _THEY or rest[1] not in _DID or rest[2] not in _THEN:
        return 0
    return i


# "is right back where it was", "went straight back to where they were before".
_BACK_VERBS: Final = frozenset({"is", "are", "was", "were", "went", "gone", "got", "came"})
_BACK_STRESS: Final = frozenset({"right", "straight", "just"})
_AS_BEFORE: Final = frozenset({"was", "were", "before", "previously", "pre"})
_AS_BEFORE_REACH: Final = 5


def back_where_it_was(tokens: Sequence[str], i: int) -> int:
    """Where the verb before "back" at ``i`` stands, when what it says is back where it
    was before ("... is right back where it was before ..."); 0 for none."""
    j = i - 1
    while j > 0 and tokens[j] in _BACK_STRESS:
        j -= 1
    if j <= 0 or tokens[j] not in _BACK_VERBS:
        return 0
    after = tokens[i + 1 : i + 1 + _AS_BEFORE_REACH]
    if not after or after[0] not in ("where", "to") or _AS_BEFORE.isdisjoint(after[1:]):
        return 0
    return j


# "the same <what> as <who> <did> before": what stayed over time, named between "same"
# and "as" (the earlier time is read by `nli_other_side.same_time_before`).
_SAME_WHAT_REACH: Final = 8
_SAME_OF_WHAT_REACH: Final = 11


def _as_after_the_same(tokens: Sequence[str], i: int, reach: int = _SAME_WHAT_REACH) -> int:
    """Where the "as" of "the same <what> as" stands, for "same" at ``tokens[i]``; 0 for
    none."""
    if tokens[i - 1 : i] != ["the"]:
        return 0
    return next(
        (k for k in range(i + 2, min(len(tokens), i + 2 + reach)) if tokens[k] == "as"),
        0,
    )


def same_as_before(tokens: Sequence[str], i: int) -> int:
    """Where the "as" stands after "the same <what>" at ``tokens[i]`` when what follows
    it is an earlier time ("as they were before the caddies arrived", "as last year");
    0 for none."""
    as_at = _as_after_the_same(tokens, i)
    return as_at if as_at and same_time_before(tokens, as_at) else 0


# Measures one group can have the same of as another: "the same number of breeding
# pairs as", "the same rate as".
SAME_MEASURES: Final = frozenset(
    {"number", "rate", "share", "proportion", "percentage", "amount", "level"}
)


# A group on its own, with none of what the other had: "who stood in front of the judge
# alone".
_ON_THEIR_OWN: Final = frozenset({"alone", "unaided", "unrepresented"})


def same_measure_as(tokens: Sequence[str], i: int) -> set[str]:
    """What "the same <measure> (of <what>) as" at ``tokens[i]`` finds alike: what follows
    "of", or what comes before "the same" ("lost their homes at ... the same rate as");
    empty for none."""
    if tokens[i + 1 : i + 2] == [] or tokens[i + 1] not in SAME_MEASURES:
        return set()
    # what a measure is of may run longer: "the same share of their lambs to foxes and
    # feral dogs as those that did not" (decision 0131)
    of = tokens[i + 2 : i + 3] == ["of"]
    as_at = _as_after_the_same(tokens, i, _SAME_OF_WHAT_REACH if of else _SAME_WHAT_REACH)
    # the other group had none of it, or is the trial's other arm: "as the farms that
    # hadn't", "as tenants who stood in front of the judge alone"; not another arm of the
    # same kind ("the same amount of work as the fully remote teams")
    if not as_at or not untreated_after(tokens, as_at, _ON_THEIR_OWN):
        return set()
    if of:
        return outcome(tokens[i + 3 : as_at])
    before = [t for t in tokens[max(0, i - 1 - OUTCOME_REACH) : i - 1] if not t.endswith("ly")]
    return outcome(before)


# "just as many tumbles", "every bit as much water": an equality stressed so that it says
# nothing changed, its comparison named before; what is alike is the next few words. "just
# about as sore", "roughly as many" say so too (decision 0131).
_AS_STRESS: Final = frozenset({"just", "exactly", "equally", "bit"})
_ROUGHLY: Final = frozenset({"about", "roughly"})
_AS_MUCH: Final = frozenset({"many", "much", "long"})
_AS_MANY_REACH: Final = 3
_AS_ASIDE_REACH: Final = 14


def alike_as_much(tokens: Sequence[str], i: int) -> set[str]:
    """What a stressed "as many / much / long" or "as <adjective>" at ``tokens[i]`` finds
    alike: the next few words when its comparison was named before ("and took just as many
    tumbles over the following year"; not for an adjective); what stands before the second
    "as" (the adjective too), and the verb before the stress, when a group that had none
    follows it ("were paying just as much to heat their homes a year later as neighbours
    still on the waiting list", "ended up just about as sore two days later as the ones
    who put their feet up"), or an earlier time; else nothing."""
    if i < 2 or tokens[i - 1] != "as":
        return set()
    stress = i - 2
    if tokens[stress] in _ROUGHLY and stress and tokens[stress - 1] in _AS_STRESS:
        stress -= 1
    elif tokens[stress] not in _AS_STRESS | _ROUGHLY:
        return set()
    measure = tokens[i] in _AS_MUCH
    # "they take just as long to get there": as long is the same time (decision 0131)
    took = {_TIME} if tokens[i] == "long" else set()
    # a second likeness denied on the way ("every bit as sore, and no stronger in the grip,
    # at the two-month mark as the people who'd never bothered with one": 0132)
    reach = _AS_ASIDE_REACH if tokens[i + 1 : i + 3] in (["and", "no"], ["and", "not"]) else 0
    as_at = word_within(tokens, "as", i + 1, i + 1 + (reach or _SAME_WHAT_REACH))
    if not as_at and not measure:
        # a second adjective and a setting on the way, the second "as" an earlier time or
        # a group that had none ("just as stiff and sore on their first steps out of bed
        # three months later as when they started": 0132)
        far = word_within(tokens, "as", i + 1, i + 1 + _AS_ASIDE_REACH)
        if far and (
            untreated_after(tokens, far)
            or same_time_before(tokens, far)
            or earlier_after(tokens, far)
        ):
            as_at = far
    if not as_at:
        return took | outcome(tokens[i + 1 : i + 1 + _AS_MANY_REACH]) if measure else set()
    what = outcome(tokens[i + 1 if measure else i : as_at])
    if untreated_after(tokens, as_at):
        if tokens[i] == "often":
            # how often a thing happens is the rate of what is done before it: "come back
            # on drink-drive charges just as often as the ones who just got their
            # licence back the normal way with nothing fitted" (decision 0134)
            return what | outcome(from_the_verb(words_before(tokens, stress)))
        return took | what | outcome(tokens[max(0, stress - 1) : stress])
    if same_time_before(tokens, as_at) or (not measure and earlier_after(tokens, as_at)):
        # "were getting through just as many units of power as before" (decision 0131),
        # "just as stiff and sore ... as when they started" (0132)
        return took | what
    return set()


# The key of "time", which "as long" measures.
_TIME: Final = "tim"
