"""What a verb, a comparative or a finding is about: the reaches `nli_no_change`'s
findings of no change, `nli_change`'s changes and `nli_sizes`' sized changes use to find
the outcome a word of change acts on (its object after it, else its subject before it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from lyra.pipelines.evidence.leftovers import lexicon_readings
from lyra.pipelines.evidence.nli_comparisons import outcome
from lyra.pipelines.evidence.nli_numbers import number
from lyra.pipelines.evidence.nli_tokens import DETERMINERS, STOPWORDS

# How far a finding of no change or a change reaches for what it is about (tokens).
OUTCOME_REACH = 6
# The axes a change of a stated size moves along: "fell by 47 per cent", "shortened ...
# by 19 minutes", "slowed ... by 41%", "improved by 12%".
SIZED_AXES = frozenset({"amount", "duration", "speed", "quality"})
# Verbs of being, between a subject and its size ("... was 2.1 points lower").
BE: Final = frozenset({"was", "were", "is", "are"})


# How far before a comparative its size may stand for "in" after it to name the measure.
_SIZE_WORDS: Final = 3
_WHERE: Final = frozenset({"arm", "arms", "group", "groups", "schools", "areas", "wards"})


def acted_on(tokens: Sequence[str], i: int, reach: int) -> set[str]:
    """What the verb or comparative at ``i`` is about: the words after it when a content
    word or "how" follows it (an object: "cut heart attacks", "higher function scores",
    "cut how often children need their reliever"), else
    those before it (its subject: "organic matter rose by", "turnover hardly changed")."""
    j = i + 1
    verb_at = i
    if (
        tokens[j : j + 1] == ["on"]
        or (
            # a size's measure: "3.4 standardised points higher in mathematics" (0133)
            tokens[j : j + 1] == ["in"]
            and any(number(t) is not None for t in tokens[max(0, i - _SIZE_WORDS) : i])
            # not where: "5.8 points lower in the advice arm", "in schools that ..."
            and tokens[j + 1 : j + 2] != []
            and tokens[j + 1] not in DETERMINERS
            and _WHERE.isdisjoint(tokens[j + 1 : j + 3])
        )
    ):  # "tutees improved on reading comprehension" (0116)
        i = j
        j += 1
    while j < len(tokens) and tokens[j] in DETERMINERS:
        j += 1
    if j < len(tokens) and (
        tokens[j] == "how" or (tokens[j] not in _OBJECT_ENDS and outcome(tokens[j : j + 1]))
    ):
        # a hyphen takes no word's place: "reduced self-reported muscle soreness" (0109),
        # nor does a stop word: "reduced the frequency of night-time coughing" is about
        # the coughing too (decision 0122)
        words = [t for t in tokens[i + 1 : i + 1 + 2 * reach] if t != "-"]
        kept: list[str] = []
        counted = 0
        for word in words:
            if word in _OBJECT_ENDS or counted == reach:
                break
            kept.append(word)
            counted += word not in STOPWORDS
        return outcome(kept)
    # the subject, past a bound on the verb ("crashes at junctions along the route have
    # more than trebled": decision 0128)
    verb = k = _past_size(tokens, _past_span(tokens, verb_at))
    while k > 0 and tokens[k - 1] in _VERB_BOUNDS:
        k -= 1
    subject = outcome(tokens[max(0, k - OUTCOME_REACH) : k])
    if k == verb:
        return subject
    # past a bound, back to the subject's fourth content word, a unit after its number
    # not counted ("drivers exceeding 24mph")
    wider = words_before(tokens, k)
    start = k - len(wider)
    kept = [t for j, t in enumerate(wider, start) if j == 0 or number(tokens[j - 1]) is None]
    return subject | outcome(kept)


def _past_size(tokens: Sequence[str], i: int) -> int:
    """Where the subject of the comparative at ``i`` ends, before the size and the verb
    of being between them ("mean shoulder pain on movement was 2.1 points lower":
    decision 0130); ``i`` where no size stands there."""
    j = i
    if j > 0 and tokens[j - 1].isalpha() and j > 1 and number(tokens[j - 2]) is not None:
        j -= 1  # the unit: "points", "degrees"
    if j == 0 or number(tokens[j - 1]) is None:
        return i
    j -= 1
    if j > 0 and tokens[j - 1] in BE:
        return j - 1
    # a measure's score named right before its size: "a mean Vancouver Scar Scale score 2.4
    # points lower than untreated halves" (decision 0133); not a group that "scored"
    return j if j > 0 and tokens[j - 1] in _SCORE_NOUNS else i


def sized_before(tokens: Sequence[str], i: int) -> bool:
    """A score and its size stand right before the comparative at ``i`` ("a mean
    Vancouver Scar Scale score 2.4 points lower than untreated halves"): a difference
    between groups, not a bound ("more than eight years"). Not after a verb of being
    ("defoliation in straw-mulched plots was 41% lower than"), whose subject may hold the
    arm: the full run found that wrong (decision 0133)."""
    at = _past_size(tokens, i)
    return at != i and tokens[at - 1] in _SCORE_NOUNS


_SCORE_NOUNS: Final = frozenset({"score", "scores"})


_SPAN_OPENS: Final = frozenset({"between", "from"})
_SPAN_JOINS: Final = frozenset({"and", "to", "-"})


def _past_span(tokens: Sequence[str], i: int) -> int:
    """Where the subject of the verb at ``i`` ends, before a span of hours or years
    between it and the verb ("alcohol-related injury collisions between 22:00 and 05:00
    fell by 27%": decision 0129); ``i`` where none stands there."""
    j = i
    while j > 0 and (number(tokens[j - 1]) is not None or tokens[j - 1] in _SPAN_JOINS):
        j -= 1
    numbers = sum(number(t) is not None for t in tokens[j:i])
    return j - 1 if j > 0 and tokens[j - 1] in _SPAN_OPENS and numbers >= 2 else i


# Words that end the object of a verb of change: "lower defect density than comparable
# teams" is about the defect density; "fell by 30 percent" about nothing after "by".
_OBJECT_ENDS: Final = frozenset(
    {"than", "by", "compared", "versus", "vs", "against", "after", "within", "among",
     "because", "while", "when", "but", "whereas", "since"}
)  # fmt: skip
_STATE_REACH = 4
_VERB_BOUNDS: Final = frozenset({"more", "less", "than", "nearly", "almost", "roughly", "well"})


def from_the_verb(words: Sequence[str]) -> list[str]:
    """``words`` from their last verb of doing on, where a subject stands before it: what
    was done is the outcome, not who did it ("my lambs off the solar site weighed up" is
    about weight, "the kids who'd been through the on-road course came off their bikes"
    about coming off: decision 0134). A verb of doing is an inflected form the lexicon
    knows only as a verb ("weighed", "came"; not "were", "bikes", "scored", nor "-ing")."""
    for k in range(len(words) - 1, 0, -1):
        word = words[k]
        readings = lexicon_readings(word) if word.isalpha() else {}
        if (
            set(readings) == {"VERB"}
            and word not in readings["VERB"]
            and not word.endswith("ing")
            # a verb, not a participle before its noun ("tutored pupils")
            and (k == len(words) - 1 or words[k + 1] in _AFTER_A_VERB)
        ):
            return list(words[k:])
    return list(words)


# What follows a verb of doing: its particle, a preposition, what or how, whose.
_AFTER_A_VERB: Final = frozenset({"up", "off", "out", "down", "in", "on", "at", "to", "for",
                                  "with", "what", "how", "their", "his", "her", "its", "the",
                                  "a", "an", "no", "just", "every", "about", "as", "by",
                                  "from", "into", "over", "through", "back", "away",
                                  "them", "it", "my", "our", "your"})  # fmt: skip


def words_before(tokens: Sequence[str], i: int) -> list[str]:
    """The tokens before ``tokens[i]`` back to the `_STATE_REACH`-th content word,
    hyphens, numbers and adverbs not counted: "soreness ratings at the 24-hour mark were
    statistically indistinguishable" is about soreness (decision 0109), "most
    participating firms reported that business results held roughly steady" about the
    results."""
    counted = 0
    j = i
    while j > 0 and counted < _STATE_REACH:
        j -= 1
        word = tokens[j]
        counted += word.isalpha() and word not in STOPWORDS and not word.endswith("ly")
    return list(tokens[j:i])
