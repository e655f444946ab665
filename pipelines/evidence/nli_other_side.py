"""The other side of a comparison: who or when a finding sets its group against. The
trial's other arm ("than the people on the dummy tablets"), a group that had none of it
("than those who had used nothing at all", "as neighbours still on the waiting list"), or
an earlier time of the same people ("than when they started", "as last year"). Read by
`nli_no_change` after "than" and "as" (decisions 0126 to 0132).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from lyra.pipelines.evidence.nli_tokens import is_negated
from lyra.pipelines.evidence.nli_words import ARMS, AS_USUAL

# "as before", "as they did before", "as last year": the words, at most `_EARLIER_REACH`
# past "as", that say a comparison is with an earlier time.
_EARLIER_REACH: Final = 6
_EARLIER: Final = frozenset({"before", "previously", "formerly", "beforehand", "earlier"})
_EARLIER_PERIODS: Final = (["last", "year"], ["the", "year", "before"], ["a", "year", "ago"])

# A group that all but never had it: "as herds that hardly ever used a bath".
_SELDOM: Final = frozenset({"hardly", "barely", "scarcely", "rarely", "seldom"})


def same_time_before(tokens: Sequence[str], at: int) -> bool:
    """What follows the "as" at ``at`` is only an earlier time: "as before", "as they did
    before", "as last year"."""
    after = tokens[at + 1 : at + 1 + _EARLIER_REACH]
    return not _EARLIER.isdisjoint(after) or any(
        list(after[k : k + len(period)]) == period
        for period in _EARLIER_PERIODS
        for k in range(len(after))
    )


def word_within(tokens: Sequence[str], word: str, start: int, end: int) -> int:
    """Where ``word`` first stands in ``tokens[start:end]``; 0 for nowhere."""
    return next((j for j in range(start, min(len(tokens), end)) if tokens[j] == word), 0)


# When or where between "no better" and "than": "reading no better in September than
# classmates who had not" (decision 0132), where the other group may be told by what it
# did not do.
_SETTING_STARTS: Final = frozenset({"in", "at", "on", "by", "after"})
# Two such phrases may stand there: "no better at maths by the end than the kids who
# didn't" (decision 0133).
_SETTING_REACH: Final = 6


def than_past_setting(tokens: Sequence[str], at: int) -> int:
    """Where "than" stands past a short phrase of time or place opening at ``tokens[at]``
    ("in September", "at six months"); 0 for none."""
    if tokens[at : at + 1] == [] or tokens[at] not in _SETTING_STARTS:
        return 0
    return next(
        (
            j
            for j in range(at + 2, min(len(tokens), at + 1 + _SETTING_REACH))
            if tokens[j] == "than"
            and all(t.isalnum() and t not in ("than", "and") for t in tokens[at + 1 : j])
        ),
        0,
    )


_UNTREATED_REACH = 10

# An earlier time after "than": "than when they started", "than in the equivalent
# period of the previous three years", "than at baseline".
_EARLIER_THAN: Final = frozenset(
    {"before", "beforehand", "previously", "baseline", "outset", "previous", "preceding"}
)
_STARTED: Final = frozenset({"started", "began", "begun", "joined", "enrolled"})


def earlier_after(tokens: Sequence[str], at: int) -> bool:
    """What follows ``tokens[at]`` ("than") is an earlier time of the same people."""
    after = tokens[at + 1 : at + 1 + _UNTREATED_REACH]
    if not _EARLIER_THAN.isdisjoint(after):
        return True
    if after[:2] in (["they", "had"], ["they", "did"], ["we", "had"]) and not _MONTHS.isdisjoint(
        after[2:5]
    ):
        return True  # "than they had in September" (decision 0132)
    return after[:1] == ["when"] and not _STARTED.isdisjoint(after[1:4])


_MONTHS: Final = frozenset(
    {"january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december", "autumn", "spring", "summer", "winter"}
)  # fmt: skip


def untreated_after(tokens: Sequence[str], at: int, alone: frozenset[str] = frozenset()) -> bool:
    """The group named after ``tokens[at]`` ("than", "as") is the trial's other arm, or
    had none of it (a negation, the usual, or a word of ``alone``)."""
    # "than the people on the dummy tablets" (decision 0132)
    if not ARMS.isdisjoint(tokens[at + 1 : at + 1 + _GROUP_ARM_REACH]):
        return True
    after = tokens[at + 1 : at + 1 + _UNTREATED_REACH]
    waiting = any(
        after[k : k + 2] in (["waiting", "list"], ["wait", "list"]) for k in range(len(after))
    )
    feet_up = any(after[k : k + 2] == ["feet", "up"] for k in range(len(after)))
    # "than those who had used nothing at all" (decision 0132)
    had_none = any(
        after[k] == "nothing" and after[k - 1] in _HAD_NONE for k in range(1, len(after))
    )
    # "than classmates who were dropped off by car": the pupils beside them, who had none
    # of it (decision 0132)
    classmates = not _CLASSMATES.isdisjoint(after[:3])  # "those of classmates who" (0133)
    return (
        waiting
        or feet_up
        or had_none
        or classmates
        or "waitlist" in after
        or is_negated(list(after))
        or not (AS_USUAL | alone | _SELDOM | _RESTED).isdisjoint(after)
    )


# A group that rested instead: "as the ones who put their feet up" (decision 0131), "as
# those resting"; not "the rest", who are only the others.
_RESTED: Final = frozenset({"rested", "resting"})
_GROUP_ARM_REACH: Final = 6
_CLASSMATES: Final = frozenset({"classmates", "schoolmates"})
_HAD_NONE: Final = frozenset({"used", "took", "got", "received", "applied", "tried",
                               # "as the ones who slept with nothing on" (decision 0134)
                               "with", "wore"})  # fmt: skip
