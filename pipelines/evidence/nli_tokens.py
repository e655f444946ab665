"""The words of the heuristic stance judge (`nli_heuristic`): tokens, negation cues,
antonym axes and content keys, as its contradiction rules (`nli_heuristic`,
`nli_change`) read them.

Tokens are lower-cased words, digits (a "%" kept on) and currency signs; a number word
before a unit is written in digits (`nli_numbers`). A content key is a word's stem, or
its antonym axis ("~amount") for a word on one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Final, TypeVar

from lyra.pipelines.evidence.antonym_axes import ANTONYM_AXES, PREFIXED_OPPOSITES
from lyra.pipelines.evidence.nli_digits import numbers_in_digits
from lyra.pipelines.evidence.nli_numbers import PERCENT_WORDS, number, stem
from lyra.pipelines.evidence.nli_spelling import FORMULAE, fold
from lyra.pipelines.evidence.nli_words import (
    ATTRIBUTION_TEXT,
    NEGATED_CONTRACTIONS_TEXT,
    STOPWORDS_TEXT,
)

STOPWORDS = frozenset(STOPWORDS_TEXT.split()) | frozenset(ATTRIBUTION_TEXT.split())

# "Unchanged" and "unaffected" say "did not change", "was not affected": a finding of no
# effect, read as a negation (so "turnover was unchanged" against "turnover fell" differs
# by it, and against "turnover did not change" does not).
NO_CHANGE_WORDS = frozenset({"unchanged", "unaltered", "unaffected"})
NEGATION_WORDS = (
    frozenset({"not", "no", "never", "none", "neither", "nor", "without", "cannot"})
    | NO_CHANGE_WORDS
)
# Contractions typed without the apostrophe still negate.
NEGATED_CONTRACTIONS = frozenset(NEGATED_CONTRACTIONS_TEXT.split())
# "failed to prevent", and "was unrelated to" (no association found): cues before "to".
FAIL_WORDS = frozenset({"fail", "fails", "failed", "failing", "unrelated"})

_ANTONYM_AXES = dict(ANTONYM_AXES)
for _plain, _opposite in PREFIXED_OPPOSITES:
    _ANTONYM_AXES[_plain] = ((_plain,), (_opposite,))

# Words, digits (a "%" kept on), and the currency signs a sum follows ("£1,150").
# A short word with digits in it is one token: "no2", "h13", "b12" (not "no", "2");
# "covid19" stays "covid", "19" as "COVID-19" reads.
_TOKEN_RE = re.compile(r"[£$€]|\d+(?:[.,]\d+)*\s?%?|[a-z]{1,3}\d[a-z\d]*|[a-z]+(?:'[a-z]+)*")


_AXIS_OF: dict[str, tuple[str, int]] = {
    stem(word): (axis, sign)
    for axis, (plus, minus) in _ANTONYM_AXES.items()
    for sign, words in ((1, plus), (-1, minus))
    for word in words
}


# The rules tokenise a claim once for each fragment it meets and a fragment once for
# each claim: each text's tokens are kept while it is in use.
_TEXTS_KEPT = 4096


_Read = TypeVar("_Read")


def kept_per_tokens(read: Callable[[list[str]], _Read]) -> Callable[[Sequence[str]], _Read]:
    """``read`` of a token list, kept by the tokens while they are in use: the rules read
    each sentence of a task against every claim it meets (decision 0112). ``read`` gets a
    list of its own (the rules compare slices with lists); what it returns is shared by
    every later caller, so it must be left unchanged: frozensets, tuples, numbers."""

    @functools.lru_cache(maxsize=2 * _TEXTS_KEPT)
    def kept(tokens: tuple[str, ...]) -> _Read:
        return read(list(tokens))

    @functools.wraps(read)
    def reading(tokens: Sequence[str]) -> _Read:
        return kept(tuple(tokens))

    return reading


def tokenize(text: str) -> list[str]:
    """Lower-cased word and number tokens; "12 %" and "12%" become "12%", a number word
    before a unit a number ("two weeks": "2", "weeks")."""
    return list(_tokens(text))


_NO_SHOW: Final = re.compile(r"\bno-shows?\b")
_PICKED_ON: Final = re.compile(
    r"\b(got|get|gets|getting|been|being|was|were|is|are)\s+picked\s+on\b(?!\s+(?:the|a)\s+basis)"
)


# Patients who "went home" from a ward were discharged; light-headed is dizzy (0136).
_WENT_HOME: Final = re.compile(r"\b(went|go|goes|going|gone|got|sent)\s+home\b")
_LIGHT_HEADED: Final = re.compile(r"\blight-?headed(ness)?\b")
# a tenant "booted out" or "turfed out" was evicted, and a "notice to quit" is an eviction
# notice (decision 0138)
_BOOTED_OUT: Final = re.compile(r"\b(?:booted|kicked|turfed|chucked|slung)\s+out\b")
_NOTICE_TO_QUIT: Final = re.compile(r"\bnotices?\s+to\s+quit\b")


@functools.lru_cache(maxsize=_TEXTS_KEPT)
def _tokens(text: str) -> tuple[str, ...]:
    # a minus sign is a dash ("95% CI \u22122 to 16" is "- 2": decision 0139)
    text = text.lower().replace("\u2019", "'").replace("\u2013", " - ").replace("\u2014", " ")
    text = text.replace("\u2212", " - ")
    # a "no-show" is a missed appointment, and denies nothing (decision 0135)
    text = _NO_SHOW.sub("missed appointments", text)
    # "got picked on" is bullied, not chosen
    text = _PICKED_ON.sub(r"\1 bullied", text)
    text = _WENT_HOME.sub(r"\1 discharged", text)
    text = _BOOTED_OUT.sub("evicted", text)
    text = _NOTICE_TO_QUIT.sub("eviction notice", text)
    text = _LIGHT_HEADED.sub(lambda m: "dizziness" if m.group(1) else "dizzy", text)
    tokens: list[str] = []
    for match in re.finditer(r"-|" + _TOKEN_RE.pattern, text):
        token = match.group(0).replace(" ", "")
        # a formula as its name: "no2" is "nitrogen dioxide" (decision 0114)
        tokens.extend(FORMULAE.get(token, (token,)))
    return tuple(numbers_in_digits(tokens))


# "no doubt" and "no question" affirm what follows ("I have no doubt that aspirin clearly
# lowers ...": decision 0107).
_CERTAIN_AFTER_NO = frozenset({"doubt", "doubts", "question"})
_GO_WITHOUT = frozenset({"go", "goes", "went", "gone", "going", "do", "did", "done", "doing"})


# "no" after these names what is compared with, it negates nothing: "compared with no
# irrigation, saline irrigation reduced SNOT-22 scores by 9.4 points" (decision 0113).
_COMPARED_WITH = frozenset({"versus", "vs", "than"})
_COMPARED = (["compared", "with"], ["compared", "to"], ["relative", "to"])


_NOT_ONLY: Final = (["only"], ["just"], ["merely"], ["simply"])


_FAILS: Final = frozenset({"fail", "fails", "failed"})


def denies_the_next_word(tokens: Sequence[str], j: int) -> bool:
    """``tokens[j]`` denies the verb right after it: "not", "never", a negated
    contraction, or the "to" of "failed to" ("did not ease", "failed to improve")."""
    tok = tokens[j]
    return (
        tok in ("not", "never")
        or tok.endswith("n't")
        or (tok == "to" and j > 0 and tokens[j - 1] in _FAILS)
    )


# What a "not" before it calls common: "not some once-in-a-blue-moon thing", "not a
# one-off".
_RARITY: Final = re.compile(
    r"(?:some |a |just a |an )?(?:once - in - a - blue - moon|one - off|freak|rare|isolated)"
    r" (?:thing|event|case|problem|occurrence)\b"
    # "it's dozens of them, not the odd one" (decision 0139)
    r"|(?:just )?the odd (?:one|case|person|family|tenant|client|patient)\b"
    # "that went on for weeks, not the odd bad day" (decision 0142)
    r"|(?:just )?the odd (?:bad |rough |off )?(?:day|week|night|shift|morning)\b"
    # "not just one or two" (decision 0140)
    r"|just (?:1|one) or (?:2|two)\b"
)
_RARITY_REACH: Final = 12


def denies_rarity(tokens: Sequence[str], i: int) -> bool:
    """The "not" at ``i`` calls a thing common: "not some once-in-a-blue-moon thing", "not
    a one-off" (decision 0138)."""
    return _RARITY.match(" ".join(tokens[i + 1 : i + 1 + _RARITY_REACH])) is not None


_HARDLY: Final = frozenset({"hardly", "barely", "scarcely", "never", "rarely", "seldom"})
_PASSES: Final = (["goes", "by"], ["went", "by"], ["go", "by"], ["passes"], ["passed"])
_PASSES_REACH: Final = 6


def _passes_without(tokens: Sequence[str], i: int) -> bool:
    """The "without" at ``i`` follows "hardly a week goes by" ("never a day passes")."""
    return any(list(tokens[i - len(p) : i]) == p for p in _PASSES) and not _HARDLY.isdisjoint(
        tokens[max(0, i - _PASSES_REACH) : i]
    )


# "more weeks than not", "more often than not": the "not" closes a share of most.
_MORE_THAN_NOT_REACH: Final = 3


def more_than_not(tokens: Sequence[str], i: int) -> bool:
    """The "not" at ``i`` closes "more <what> than not" (most of the time)."""
    return (
        i >= 2
        and tokens[i - 1] == "than"
        and "more" in tokens[max(0, i - 2 - _MORE_THAN_NOT_REACH) : i - 1]
    )


# "said no", "says no": a refusal given, where no noun follows the "no".
_ANSWERED: Final = frozenset({"said", "say", "says", "saying", "answered", "replied"})
_NO_NOUN: Final[tuple[list[str], ...]] = (
    [], ["the"], ["to"], ["and"], ["but"], ["when"], ["because"], ["straight"]
)  # fmt: skip


# Two comparatives of one scale, the second set aside: "wider, not narrower", "worse, not
# better" (decision 0143).
_COMPARATIVE_PAIRS: Final = frozenset(
    {("wider", "narrower"), ("narrower", "wider"), ("worse", "better"), ("better", "worse"),
     ("longer", "shorter"), ("shorter", "longer"), ("higher", "lower"), ("lower", "higher"),
     ("more", "less"), ("less", "more"), ("bigger", "smaller"), ("smaller", "bigger"),
     ("harder", "easier"), ("easier", "harder"), ("slower", "faster"), ("faster", "slower")}
)  # fmt: skip


def _corrects_a_comparative(tokens: Sequence[str], i: int) -> bool:
    return (
        i > 0
        and (tokens[i - 1], tokens[i + 1] if i + 1 < len(tokens) else "") in _COMPARATIVE_PAIRS
        and tokens[i + 2 : i + 3] in ([], ["."], [","], ["and"], ["but"])
    )


_FOR_US: Final = (["for", "us"], ["for", "me"], ["at", "all"], ["round", "here"])


def not_rare_for_us(tokens: Sequence[str], i: int) -> bool:
    """The negation at ``i`` denies a rarity the writer met: "weren't rare for us at all"."""
    tok = tokens[i]
    negation = tok in NEGATION_WORDS or tok in NEGATED_CONTRACTIONS or tok.endswith("n't")
    return negation and tokens[i + 1 : i + 2] == ["rare"] and tokens[i + 2 : i + 4] in _FOR_US


_PLACE_SUBJECTS: Final = frozenset(
    {"we", "we've", "we'd", "i", "i've", "i'd", "they", "they've", "you", "you've"}
)


def is_cue(tokens: Sequence[str], i: int) -> bool:
    tok = tokens[i]
    if tok in {"no", "without"} and i + 1 < len(tokens) and tokens[i + 1] in _CERTAIN_AFTER_NO:
        return False
    if tok == "not" and tokens[i - 1 : i] == ["or"] and tokens[i + 1 : i + 2] in ([], ["."], [","]):
        # regardless, no denial: "guard plates or not" (decision 0142)
        return False
    if tok == "not" and _corrects_a_comparative(tokens, i):
        # "the gap between offers got wider, not narrower" asserts the wider (0143)
        return False
    if i >= 2 and tokens[i - 2] == "where" and tokens[i - 1] in _PLACE_SUBJECTS:
        # what a place or a thing is like, no denial: "the bottom field, where we've never
        # put a bale out", "that panicky gasping thing where you can't get your breath"
        # (decision 0144)
        return False
    if tok == "no" and tokens[max(0, i - 2) : i] == ["yes", "or"]:
        return False  # a decision awaited: "waiting on a yes or no" (decision 0144)
    if tok == "no" and tokens[i + 1 : i + 3] == ["further", "action"]:
        # what police may decide, an outcome named: "let off with a caution or no further
        # action" (decision 0142)
        return False
    if tok == "without" and _passes_without(tokens, i):
        # "hardly a week goes by without two or three of our regulars showing up": it
        # happens nearly every week (decision 0138)
        return False
    if tok == "without" and i and tokens[i - 1] in _GO_WITHOUT:
        # "had gone without food or heating": to lack something, no denial (0130)
        return False
    if (
        tok == "no"
        and i
        and (tokens[i - 1] in _COMPARED_WITH or list(tokens[max(0, i - 2) : i]) in _COMPARED)
    ):
        return False
    negation = tok in NEGATION_WORDS or tok in NEGATED_CONTRACTIONS or tok.endswith("n't")
    if negation and tok != "no" and tokens[i + 1 : i + 2] in _NOT_ONLY:
        # "Speed does not just make crashes more likely; it makes them more deadly"
        # asserts both (decision 0128)
        return False
    if (
        tok == "not"
        and i
        and tokens[i - 1] in _ABOUT
        and tokens[i + 1 : i + 2] != []
        and tokens[i + 1].endswith("ing")
    ):
        # what a worry is about: "lying awake worrying about not getting enough sleep",
        # "the fear of not finding work" (decision 0132)
        return False
    if negation and sets_a_bound(tokens, i):
        return False
    if tok == "not" and more_than_not(tokens, i):
        # "we were getting rained off more weeks than not": most of them (decision 0139)
        return False
    if tok == "no" and i and tokens[i - 1] in _ANSWERED and tokens[i + 1 : i + 2] in _NO_NOUN:
        # an answer, no denial: "every letting agent I rang said no the second I told
        # them" (decision 0140)
        return False
    if tok == "no" and tokens[i + 1 : i + 2] == ["-"] and tokens[i + 2 : i + 3] != ["one"]:
        # a compound's first word: "a no-fault eviction notice", "no-till" (decision 0138)
        return False
    if not_rare_for_us(tokens, i):
        # "Tails caught in the brush weren't rare for us at all": common (decision 0143)
        return False
    if tok == "not" and denies_rarity(tokens, i):
        # "so it's not some once-in-a-blue-moon thing": it is common (decision 0138)
        return False
    if negation and _denies_a_denial(tokens, i):
        # "He does not dispute that the machines use far less power" grants what follows
        # (decision 0131)
        return False
    if negation:
        return True
    return tok in FAIL_WORDS and i + 1 < len(tokens) and tokens[i + 1] == "to"


_BOUND_WORDS: Final = frozenset(
    {"more", "less", "fewer", "greater", "higher", "lower", "longer", "shorter", "bigger",
     "larger", "smaller", "over", "above", "under", "below", "beyond", "exceeding"}
)  # fmt: skip


_BOUNDS_WITHOUT_THAN: Final = frozenset({"over", "above", "under", "below", "beyond", "exceeding"})
# figures the tokenizer keeps as words ("no more than one or two decibels", "a third")
_SMALL_FIGURES: Final = frozenset({"one", "a", "an", "half", "twice"})


def sets_a_bound(tokens: Sequence[str], i: int) -> bool:
    """The negation at ``i`` bounds a figure, it denies nothing: "no more than 3 g" is
    "at most 3 g", "not less than 150 minutes" "at least 150 minutes", "no longer than
    ten days" (decision 0138)."""
    after = list(tokens[i + 1 : i + 5])
    if not after or after[0] not in _BOUND_WORDS:
        return False
    if after[1:2] != ["than"] and after[0] not in _BOUNDS_WITHOUT_THAN:
        return False  # "no longer a problem" has stopped, it bounds nothing
    rest = after[2:] if after[1:2] == ["than"] else after[1:]
    if rest[:1] in (["about"], ["around"], ["roughly"]):
        rest = rest[1:]
    return rest[:1] != [] and (rest[0][:1].isdigit() or rest[0] in _SMALL_FIGURES)


_ABOUT: Final = frozenset({"about", "of"})
# Verbs of disputing: denied, they grant what follows ("does not dispute that", "no one
# denies that").
_DISPUTING: Final = frozenset(
    {"dispute", "disputes", "disputed", "deny", "denies", "denied", "contest", "contests"}
)


def _denies_a_denial(tokens: Sequence[str], i: int) -> bool:
    """The negation at ``i`` denies a verb of disputing: "does not dispute", "doesn't
    deny", "no one disputes", "nobody denies"."""
    after = tokens[i + 1 : i + 3]
    if tokens[i] == "no" and after[:1] == ["one"]:
        after = after[1:]
    return after[:1] != [] and after[0] in _DISPUTING


@kept_per_tokens
def is_negated(tokens: list[str]) -> bool:
    """True when the token list carries a negation cue."""
    return any(is_cue(tokens, i) for i in range(len(tokens)))


# A word right before one of these is a verb acting on what follows ("statins lower the
# risk", "slightly raise the risk"), never an adjective ("lower mortality"); its -ing
# form is left out ("vitamin D deficiency ... increased risk" against "vitamin D
# reducing the risk" agree; "GDP growing an average ..."): decision 0094.
DETERMINERS = frozenset({"the", "a", "an", "their", "its", "his", "her", "your", "our"})


# "falls" after one of these words (or a number) is the accident, not a decrease: "the
# risk of falls", "15 percent more falls", "prevents falls", "recurrent falls".
_FALLS_NOUN_AFTER = frozenset(
    [
        "of",
        "more",
        "fewer",
        "less",
        "the",
        "and",
        "or",
        "no",
        "any",
        "had",
        "many",
        "took",
        "recurrent",
        "serious",
        "injurious",
        "frequent",
        "prevent",
        "prevents",
        "prevented",
        "preventing",
        "reduce",
        "reduces",
        "reduced",
        "reducing",
        "increase",
        "increases",
        "increased",
        "increasing",
        "cause",
        "causes",
        "caused",
    ]
)


# "went up", "has gone down": a rise or a fall (decision 0117).
_MOVED: Final = {"up": 1, "down": -1}
_GONE: Final = frozenset({"went", "gone", "go", "goes", "going"})


def axis_of(tokens: Sequence[str], i: int) -> tuple[str, int] | None:
    """The antonym axis and sign of ``tokens[i]``, None for a word on no axis or a use
    of it that has no direction (the accident in "the risk of falls")."""
    tok = tokens[i]
    before = tokens[i - 1] if i > 0 else ""
    after = tokens[i + 1] if i + 1 < len(tokens) else ""
    if tok == "falls" and (before in _FALLS_NOUN_AFTER or number(before)):
        return None
    # not a frequency or a causing: "the common cold", "the cause of", "all-cause",
    # "caused by SARS-CoV-2" (what causes the disease, not what the subject causes),
    # "human-caused"
    if tok == "common" and after in ("cold", "colds"):
        return None
    if tok in _MOVED and before in _GONE:  # "went up", "has gone down" (0117)
        return ("amount", _MOVED[tok])
    stemmed = stem(tok)
    if stemmed == "caus" and (after in ("of", "by") or before == "-" or before == "all"):
        return None
    axis = _AXIS_OF.get(stemmed)
    # "less expensive" is cheaper, "less cheap" dearer: a comparison whose direction the
    # word alone does not give
    if axis and axis[0] == "cost" and before == "less":
        return None
    if tok == "few" and before in ("a", "quite"):
        return None
    if axis and axis[0] == "manner" and not (after.endswith("ed") and len(after) > 4):
        return None
    return axis


def content_keys(tokens: Iterable[str]) -> set[str]:
    """Stems of content words, antonyms folded onto their axis ("~amount").

    Every use of an axis word folds (the noun uses that ``_axis`` sets apart included), so
    "the cause of" and "causes" still count as one shared word.
    """
    keys = set()
    for tok in tokens:
        key = token_key(tok)
        if key is not None:
            keys.add(key)
    return keys


@functools.lru_cache(maxsize=4 * _TEXTS_KEPT)
def token_key(tok: str) -> str | None:
    """The content key of one token (`content_keys`); None for a token that is no
    content word (a stop word, a negation or failure cue, a unit, a number)."""
    if not tok.isalpha() or tok in STOPWORDS or tok in NEGATION_WORDS:
        return None
    if tok in NEGATED_CONTRACTIONS or tok in FAIL_WORDS or tok in PERCENT_WORDS:
        # Cues and units are compared by their own rules, not as shared content.
        return None
    stemmed = stem(tok)
    axis = _AXIS_OF.get(stemmed)
    # one key for a word's spellings and an outcome's other names (decision 0114)
    return f"~{axis[0]}" if axis else fold(stemmed)
