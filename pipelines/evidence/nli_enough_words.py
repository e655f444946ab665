"""Words that call an amount enough (decisions 0129 to 0140): "is plenty", "is enough",
"is loads", "is all you need", "more than that adds nothing", "by itself", "ten minutes
tops", not denied
("isn't enough"). Read by `nli_enough` for where a text calls its amount enough.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from lyra.pipelines.evidence.nli_tokens import is_negated

# Words that call an amount enough, after it: "is plenty", "is enough".
ENOUGH: Final = frozenset({"plenty", "enough", "sufficient", "suffices", "ample"})
# How far before the word of enough a denial reaches: "was never going to be enough".
_DENIAL_REACH: Final = 5


def calls_enough(tokens: Sequence[str], i: int) -> bool:
    """``tokens[i]`` calls the amount before it enough, and is not denied."""
    return (
        tokens[i] in ENOUGH
        or _loads(tokens, i)
        or _all_needed(tokens, i)
        or _more_is_no_help(tokens, i)
        or on_its_own(tokens, i)
        or _at_most_it_took(tokens, i)
    ) and not _denied(tokens, i)


# A time that was all it took, "tops" or "max" after it: "Took me ten minutes tops"
# (decision 0147); not "bottle tops".
_AT_MOST: Final = frozenset({"tops", "max"})
_TIMES_TAKEN: Final = frozenset({"minute", "minutes", "mins", "hour", "hours", "day", "days",
                                 "week", "weeks"})  # fmt: skip


def _at_most_it_took(tokens: Sequence[str], i: int) -> bool:
    return tokens[i] in _AT_MOST and tokens[i - 1 : i] != [] and tokens[i - 1] in _TIMES_TAKEN


# "that's all a jury needs", "is all you need" (decision 0129)
_NEEDS: Final = frozenset({"need", "needs", "needed"})
_ALL_NEEDED_REACH: Final = 3


# "is loads" is plenty ("Four or five shoots to the square metre is loads": decision
# 0137); not "loads of", a great many.
_IS: Final = frozenset({"is", "was", "are", "were", "that's", "it's", "'s"})


def _loads(tokens: Sequence[str], i: int) -> bool:
    return (
        tokens[i] == "loads"
        and tokens[i - 1 : i] != []
        and tokens[i - 1] in _IS
        # "was loads of time for a straightforward invoice dispute" (decision 0143)
        and (tokens[i + 1 : i + 2] != ["of"] or tokens[i + 2 : i + 3] == ["time"])
    )


def _all_needed(tokens: Sequence[str], i: int) -> bool:
    return tokens[i] == "all" and not _NEEDS.isdisjoint(tokens[i + 1 : i + 1 + _ALL_NEEDED_REACH])


_ALONE: Final = frozenset({"herself", "himself", "itself", "themselves"})
ALONE_REACH: Final = 18


def on_its_own(tokens: Sequence[str], i: int) -> bool:
    """``tokens[i]`` ends "by herself", "by itself": one thing doing it all alone."""
    return tokens[i] in _ALONE and tokens[i - 1 : i] == ["by"]


# More said to do no good after an amount, which calls that amount enough: "is done and
# dusted in about forty minutes, and dragging it out longer doesn't help anyone", "more
# than that adds nothing" (decision 0131).
_MORE_OF_IT: Final = frozenset({"longer", "more", "further"})
_NO_GOOD: Final = frozenset({"help", "helps", "add", "adds", "difference"})
_NO_GOOD_REACH: Final = 4


def _more_is_no_help(tokens: Sequence[str], i: int) -> bool:
    """``tokens[i]`` ("longer", "more") is said to do no good in the next few words."""
    after = list(tokens[i + 1 : i + 1 + _NO_GOOD_REACH])
    return tokens[i] in _MORE_OF_IT and not _NO_GOOD.isdisjoint(after) and is_negated(after)


# A preposition before "no" makes it part of a condition: "a six-week go at no wigs".
_CONDITION_BEFORE_NO: Final = frozenset({"with", "at", "on", "in", "for", "of"})


def _denied(tokens: Sequence[str], i: int) -> bool:
    """The word of enough at ``i`` is denied: "is not enough", "isn't plenty"; not by a
    condition ("Two days skived without a note is plenty": decision 0140; "a six-week go
    at no wigs is plenty": decision 0147)."""
    start = max(0, i - _DENIAL_REACH)
    return is_negated(
        [
            t
            for k, t in enumerate(tokens[start:i], start)
            if t != "without" and not (t == "no" and k and tokens[k - 1] in _CONDITION_BEFORE_NO)
        ]
    )
