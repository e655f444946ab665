"""Negations the stance rules read: which cue denies a finding and which only says who a
group is ("people who haven't had one", "patients with no history of ulcers"), whether
two texts differ by a negation, whether one's negation bears on what the other names,
and negations that cross. Split from `nli_heuristic` (decision 0144)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from lyra.pipelines.evidence.leftovers import lexicon_readings
from lyra.pipelines.evidence.nli_numbers import stem
from lyra.pipelines.evidence.nli_tokens import (
    NEGATION_WORDS,
    STOPWORDS,
    axis_of,
    content_keys,
    is_cue,
    is_negated,
    kept_per_tokens,
)
from lyra.pipelines.evidence.nli_words import BENEFIT, NULL_RESULT


def _scope(tokens: Sequence[str], i: int) -> str:
    """The first content word after position ``i`` ("" when none follows)."""
    return next((min(keys) for keys in map(content_keys, tokens[i + 1 :]) if keys), "")


# A negation in a relative clause that says who: "adults over 70 who have never had a
# heart attack", "people who haven't had one", "those who did not take it".
_RELATIVES: Final = frozenset({"who", "who've", "who'd", "whom"})
_AUXILIARIES: Final = frozenset(
    {"have", "has", "had", "do", "does", "did", "are", "were", "is", "was", "could", "would",
     "will", "can", "may", "might", "still", "yet", "ever"}
)  # fmt: skip


# People a "without" after says who they are.
_GROUP_NOUNS = frozenset(
    {"people", "patients", "adults", "children", "women", "men", "participants", "those",
     "individuals", "pupils", "babies", "infants", "residents", "households", "drivers",
     "users", "smokers", "kids", "families", "anyone", "someone", "volunteers"}
)  # fmt: skip


def describes_a_group(tokens: Sequence[str], i: int) -> bool:
    """The negation cue at ``tokens[i]`` says who or what a group is, and denies no
    finding: in a relative clause ("adults over 70 who have never had a heart attack",
    "people who haven't had one") or after "with" beside a noun ("a depot with no speed
    limiters at all", "patients with no history of ulcers"; not "was associated with no
    change") (decision 0137); "without" after people ("stroke in people without heart
    disease"; not "vitamin D without calcium": decision 0138)."""
    before = tokens[i - 1] if i else ""
    if before in _RELATIVES:
        return True
    if i >= 2 and tokens[i - 2] in _RELATIVES and before in _AUXILIARIES:
        return True
    if tokens[i] == "without" and before in _GROUP_NOUNS:
        # "stroke in people without heart disease" (decision 0138)
        return True
    if tokens[i] != "no" or before != "with" or i < 2:
        return False
    noun = tokens[i - 2]
    readings = lexicon_readings(noun) if noun.isalpha() else {}
    return "NOUN" in readings and not noun.endswith("ed")


def negations_differ(hypothesis: Sequence[str], sentence: Sequence[str]) -> bool:
    """One side carries a negation and the other does not.

    "Without X" on both sides is a condition both state, not a finding either negates:
    "vitamin D without calcium had no effect" against "vitamin D without calcium lowered
    the risk" differ by "no effect" alone.
    """

    def withouts(tokens: Sequence[str]) -> set[str]:
        if "without" not in tokens:
            return set()
        return {_scope(tokens, i) for i, tok in enumerate(tokens) if tok == "without"} - {""}

    shared = withouts(hypothesis) & withouts(sentence)

    def negated(tokens: Sequence[str], other: Sequence[str]) -> bool:
        return any(
            is_cue(tokens, i)
            and not (shared and tok == "without" and _scope(tokens, i) in shared)
            and not describes_a_group(tokens, i)
            # two groups alike deny a change or a comparison, not a text that names
            # neither ("came back no better than the bottom field" against "Bale grazing
            # suckler cows in winter": decision 0144)
            and not (_no_better_than(tokens, i) and not _moves(other) and not is_negated(other))
            for i, tok in enumerate(tokens)
        )

    return negated(hypothesis, sentence) != negated(sentence, hypothesis)


def _moves(tokens: Sequence[str]) -> bool:
    """``tokens`` name a word of an antonym axis: a change or a comparison."""
    return any(key.startswith("~") for key in literal_keys(list(tokens)))


@kept_per_tokens
def literal_keys(tokens: list[str]) -> frozenset[str]:
    """Stems of content words, an antonym axis's words by axis and sign ("fell" and "fall"
    one key, "lower" and "increase" two)."""
    keys = set()
    for i, tok in enumerate(tokens):
        if not tok.isalpha() or tok in STOPWORDS or tok in NEGATION_WORDS:
            continue
        axis = axis_of(tokens, i)
        keys.add(f"~{axis[0]}{axis[1]:+d}" if axis else stem(tok))
    return frozenset(keys)


def negation_bears_on(negated: Sequence[str], other: Sequence[str]) -> bool:
    """A negation cue of ``negated`` bears on something ``other`` names: a content word
    after the cue (or, for a cue that ends its sentence, "was unchanged", before it) that
    ``other`` uses too, in the same sense: an antonym axis's word by axis and sign ("did
    not fall" bears on "fell", "do not increase" not on "lower"). "The minimum wage
    increase led to no measurable job losses" negates job losses, which "The minimum wage
    was raised to $15 in 2021" does not name; "Statins do not increase the risk of
    cancer" negates a risk of cancer, not "Statins lower LDL cholesterol"; "ibuprofen
    use was not associated with worse outcomes" negates the association that "ibuprofen
    is associated with higher mortality" states (decision 0090)."""
    named = literal_keys(other)
    for i in range(len(negated)):
        if not is_cue(negated, i) or describes_a_group(negated, i):
            continue
        scope = literal_keys(negated[i + 1 :]) or literal_keys(negated[:i])
        if not scope.isdisjoint(named):
            return True
        if stem(negated[i + 1] if i + 1 < len(negated) else "") in NULL_RESULT and any(
            stem(tok) in BENEFIT for tok in other
        ):
            return True
    return False


_CLAUSE_ENDS = frozenset({",", ";", ":", "."})
_THAN_REACH: Final = 8


def _no_better_than(tokens: Sequence[str], i: int) -> bool:
    """``tokens[i]`` opens "no <comparative> ... than": "no better than", "no quicker
    than"."""
    return (
        tokens[i] == "no"
        and tokens[i + 1 : i + 2] != []
        and tokens[i + 1].endswith("er")
        and "than" in tokens[i + 2 : i + 2 + _THAN_REACH]
    )


def _negations(tokens: Sequence[str]) -> tuple[set[str], set[str]]:
    """The literal key of the first content word each negation cue governs (for a cue
    that ends its clause, of the word before it), and the keys of every word within a
    cue's clause."""
    heads: set[str] = set()
    scope: set[str] = set()
    for i in range(len(tokens)):
        if not is_cue(tokens, i):
            continue
        window: list[str] = []
        for tok in tokens[i + 1 :]:
            if tok in _CLAUSE_ENDS:
                break
            window.append(tok)
        first = next((k for j in range(len(window)) for k in literal_keys(window[j : j + 1])), "")
        before = literal_keys(tokens[max(0, i - 1) : i])
        heads.update({first} if first else before)
        scope.update(literal_keys(window) | before)
    return heads, scope


def negations_cross(hypothesis: Sequence[str], sentence: Sequence[str]) -> bool:
    """Both texts negate something, and the word one negates first the other states
    outside any negation: "X is absorbed better than Y, so you get no bloating" against
    "X is not absorbed better than Y" (each carries a negation, so a difference of
    negation alone does not show it)."""
    h_heads, h_scope = _negations(hypothesis)
    s_heads, s_scope = _negations(sentence)
    h_stated = literal_keys(hypothesis) - h_scope
    s_stated = literal_keys(sentence) - s_scope
    return bool(s_heads & h_stated) or bool(h_heads & s_stated)
