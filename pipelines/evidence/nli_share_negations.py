"""Negations that a share's people did, which deny nothing: what those counted failed
to do ("fewer than 3 in every 100 ... fail to finish", decision 0127), never did, were
done without, or said they could not ("only 3 in every 100 young people said they could
not tell who the judge was", decision 0147). `nli_change` reads the share of such a
sentence. Moved from `nli_change` as it passed STYLE's 40 KB (decision 0147)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from lyra.pipelines.evidence.antonym_axes import ANTONYM_AXES
from lyra.pipelines.evidence.nli_halves import SAID
from lyra.pipelines.evidence.nli_numbers import measures, stem
from lyra.pipelines.evidence.nli_tokens import FAIL_WORDS, denies_rarity, is_cue

# What the people counted did not do, as they failed to: "drift into just listening
# ... without following the words on the page", "gazing out of the window ... and not
# following the page at all" (decision 0134).
_NOT_DOING: Final = frozenset({"not", "without", "never"})
# The words that grade how often a thing comes ("rare", "common").
_FREQUENCY: Final = frozenset().union(*ANTONYM_AXES["frequency"])


def only_failures_counted(tokens: Sequence[str]) -> bool:
    """Each negation of ``tokens`` is a failure ("fail to", "failed to", "not following",
    "without following") after its first share: what the people counted failed to do."""
    first = min((at for _, _, at in measures(tokens).get("%", [])), default=len(tokens))
    cues = [i for i in range(len(tokens)) if is_cue(tokens, i)]
    return bool(cues) and all(
        (
            i > first
            and (
                tokens[i] in FAIL_WORDS
                or (tokens[i] in _NOT_DOING and tokens[i + 1 : i + 2] != []
                    and tokens[i + 1].endswith("ing"))
                # what they never did: "only 3% of students ... never played their audio
                # feedback", "well over half of my lot ... never opened" (decision 0141)
                or (tokens[i] == "never" and tokens[i + 1 : i + 2] != []
                    and tokens[i + 1].endswith("ed"))
            )
        )
        # what the things counted were done without, named before a share that grades
        # them: "Reports being closed without the work done are rare, at fewer than 1 in
        # 250 jobs" (decision 0142)
        or (tokens[i] == "without" and i < first and not _FREQUENCY.isdisjoint(tokens[i:first]))
        # who they are, and that they are no rarity: "we see people who never got a
        # single email ..., and it's dozens of them, not the odd one" (decision 0139)
        or tokens[i - 1 : i] in (["who"], ["that"])
        or (tokens[i] == "not" and denies_rarity(tokens, i))
        for i in cues
    )  # fmt: skip


def failure_named(failed: Sequence[str], other: Sequence[str]) -> bool:
    """What the people of ``failed`` failed to do ("fail to finish") ``other`` names
    ("finished within a month"), or the failure is not said as "fail(ed) to" ("never
    received"): a share of those who failed meets only its like (decisions 0127, 0147)."""
    done = {stem(failed[i + 2]) for i in range(len(failed) - 2)
            if failed[i] in FAIL_WORDS and failed[i + 1] == "to"}  # fmt: skip
    return not done or not done.isdisjoint(stem(t) for t in other)


# How far before a negation the verb of saying stands: "said they could not" (decision
# 0147), "said they felt their own work was no longer being read" (decision 0148).
_SAID_REACH: Final = 8


def only_said_denials(tokens: Sequence[str]) -> bool:
    """Each negation of ``tokens`` follows their first share and, within `_SAID_REACH`
    words, a verb of saying and "they": what the people counted said of themselves (not
    "however many times I told them I wasn't")."""
    first = min((at for _, _, at in measures(tokens).get("%", [])), default=len(tokens))
    cues = [i for i in range(len(tokens)) if is_cue(tokens, i)]
    return bool(cues) and all(
        i > first
        and any(
            tokens[k] in SAID and tokens[k + 1] == "they"
            for k in range(max(first, i - _SAID_REACH), i - 1)
        )
        for i in cues
    )
