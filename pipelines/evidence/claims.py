"""Claim extraction: LLM prompt and response parsing, and the extractive fallback.

ARCHITECTURE §3 step 9. With an LLM, `build_claim_prompt` fences the instructions
with the task's tag (L3) and sets the L2-cleaned passage apart as data;
`parse_claims_response` reads the JSON list out of whatever the model answered.
Without an LLM, `extract_claims_extractive` picks claim-like sentences from the
fragment (the caller flags the result as degraded). Both paths drop claims that only
repeat the task's question, boilerplate and navigation text, and any that holds an
instruction to AI readers or a mask of one (`is_rejected_claim`).
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Final

from lyra.pipelines.evidence.ranking import tokenize
from lyra.pipelines.extract.documents import normalize_whitespace
from lyra.pipelines.extract.injection import MASK, find_instructions
from lyra.pipelines.extract.sentences import sentence_spans
from lyra.pipelines.llm.prompts import load_prompt_module
from lyra.pipelines.llm.sanitize import is_task_tag, sanitize_untrusted

# Extractive sentences shorter than this are fragments of lists and captions; longer
# than the maximum they bundle several claims (measured on the example corpus).
EXTRACTIVE_MIN_CHARS: Final = 40
MAX_CLAIM_CHARS: Final = 300
# LLM claims are rewritten to be atomic, so short ones ("Aspirin reduces fever.") are
# legitimate.
LLM_MIN_CLAIM_CHARS: Final = 15
# A claim sharing this share of content words with the question, in both
# directions, restates the question rather than answering it.
REPEAT_OVERLAP: Final = 0.8
DEFAULT_MAX_CLAIMS: Final = 5
# Confidence of an extractive claim spans [0.2, 0.8]: heuristics never earn the
# certainty of a model, and the caller marks the path as degraded anyway.
_BASE_CONFIDENCE: Final = 0.2
_CONFIDENCE_SPAN: Final = 0.6
_OVERLAP_WEIGHT: Final = 0.6
_FACTUAL_WEIGHT: Final = 0.4

_BOILERPLATE = re.compile(
    r"\b(cookies?|subscribe|subscription|newsletter|click here|all rights reserved|"
    r"sign up|sign in|log in|privacy policy|terms of (use|service)|advertisement|"
    r"share this|follow us|read more|related articles|enable javascript)\b|©",
    re.IGNORECASE,
)
_NAVIGATION = re.compile(
    r"\b(skip to (main )?content|back to top|next (article|page|post)|previous "
    r"(article|page|post)|table of contents|main menu|home page|go to)\b",
    re.IGNORECASE,
)
_NAV_SEPARATORS = re.compile(r"[|\u203a\u00bb>/\u00b7\u2022]")
_NUMBER = re.compile(r"\d")
_FACTUAL_CUES = re.compile(
    r"\b(is|are|was|were|has|have|had|reduces?|reduced|increases?|increased|decreases?|"
    r"decreased|causes?|caused|leads? to|led to|associated with|linked to|results? in|"
    r"resulted in|shows?|showed|shown|found|finds|reported|demonstrated|indicates?|"
    r"suggests?|contains?|prevents?|improves?|lowers?|raises?|affects?|estimated)\b|%",
    re.IGNORECASE,
)
# fmt: off
_AUXILIARIES: Final[frozenset[str]] = frozenset((
    "is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had", "do",
    "does", "did", "can", "could", "may", "might", "will", "would", "shall", "should",
    "must",
))
# fmt: on
# English function words: their presence says the verb heuristic applies (it is
# meaningless for other languages, whose claims are not rejected for lacking one).
# fmt: off
_ENGLISH_MARKERS: Final[frozenset[str]] = frozenset((
    "the", "a", "an", "of", "and", "in", "to", "is", "are", "was", "were", "that", "with",
    "for", "on", "by",
))
# fmt: on
# Third-person and past forms; "-ens", "-izes", "-ates", "-ifies" cover verbs such as
# shortens, minimizes, stimulates, intensifies that no closed list keeps up with.
_VERB_SUFFIX = re.compile(r"^[a-z]{3,}(ed|es|ied|ens|izes|ises|ates|ifies)$")
# fmt: off
_COMMON_VERBS: Final[frozenset[str]] = frozenset((
    "reduces", "increases", "decreases", "causes", "shows", "suggests", "indicates",
    "contains", "prevents", "improves", "lowers", "raises", "affects", "includes",
    "requires", "remains", "appears", "leads", "results", "occurs", "depends", "provides",
    "makes", "takes", "gives", "helps", "allows", "means", "lasts", "kills", "protects",
    "cures", "treats", "inhibits", "binds", "blocks", "activates", "produces", "exceeds",
    "reaches", "costs", "grows", "falls", "rises", "drops", "declines", "doubles",
    "halves", "cuts", "stops", "keeps", "needs", "works", "acts", "supports", "predicts",
    "explains", "changes", "extends", "delays", "triggers", "worsens", "shortens",
))
# fmt: on
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
_JAPANESE_PREDICATE = re.compile(
    r"(である|であった|です|でした|ます|ました|いる|いた|ある|あった|ない|なかった|れる|れた|"
    r"する|した|なる|なった|られる|られた)[\u3002\uff01]?$"
)


@dataclass(frozen=True, slots=True)
class ExtractedClaim:
    """A claim picked by the extractive fallback, with a heuristic confidence."""

    text: str
    confidence: float
    sentence_index: int


_SUFFIXES: Final = (("ing", ""), ("ied", "y"), ("ies", "y"), ("ed", ""), ("es", ""), ("s", ""))
_MIN_STEM: Final = 3


def _stem(word: str) -> str:
    """Crude English suffix stripping: "reduces", "reduced", "reducing" → "reduc".

    Enough to see that "Aspirin reduces fever" restates "Does aspirin reduce
    fever?"; a real stemmer would be a dependency for one comparison.
    """
    if not word.isascii() or not word.isalpha():
        return word
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and not word.endswith("ss"):
            base = word[: -len(suffix)] + replacement
            if len(base) >= _MIN_STEM:
                word = base
                break
    if word.endswith("e") and len(word) > _MIN_STEM:
        word = word[:-1]
    return word


def _content_words(text: str) -> set[str]:
    return {_stem(word) for word in tokenize(text)}


def _has_verb(text: str) -> bool:
    """Verb-ish check: only decides for English and Japanese, accepts other languages."""
    if _CJK.search(text):
        return _JAPANESE_PREDICATE.search(text.strip()) is not None or "は" in text
    words = [w.lower() for w in _WORD.findall(text)]
    if not any(w in _ENGLISH_MARKERS for w in words):
        return True
    return any(w in _AUXILIARIES or w in _COMMON_VERBS or _VERB_SUFFIX.match(w) for w in words)


def _is_navigation(text: str) -> bool:
    if _NAVIGATION.search(text):
        return True
    # Breadcrumbs and menus: many separators between few words ("Home > News > Health").
    separators = len(_NAV_SEPARATORS.findall(text))
    return separators >= 3 and separators * 4 >= len(_WORD.findall(text))


def _mostly_digits(text: str) -> bool:
    letters = sum(1 for ch in text if ch.isalpha())
    visible = sum(1 for ch in text if not ch.isspace())
    return visible > 0 and letters * 2 < visible


def repeats_question(claim: str, question: str) -> bool:
    """True when claim and question share >= 80 % of their content words both ways."""
    claim_words, question_words = _content_words(claim), _content_words(question)
    if not claim_words or not question_words:
        return False
    shared = len(claim_words & question_words)
    return (
        shared / len(claim_words) >= REPEAT_OVERLAP
        and shared / len(question_words) >= REPEAT_OVERLAP
    )


def is_rejected_claim(
    claim: str,
    question: str,
    *,
    min_chars: int = LLM_MIN_CLAIM_CHARS,
    max_chars: int = MAX_CLAIM_CHARS,
) -> str | None:
    """Why `claim` is not a usable claim (a short reason code), or None when it is."""
    text = normalize_whitespace(claim)
    if not text:
        return "empty"
    # Instructions to AI readers never become claims, whichever path wrote them
    # (decision 0016); fragments are masked already, an LLM's answer may not be.
    if MASK in text:
        return "masked"
    if find_instructions(text):
        return "instruction"
    if len(text) < min_chars:
        return "too_short"
    if len(text) > max_chars:
        return "too_long"
    if text.endswith(("?", "\uff1f")):
        return "question"
    if _BOILERPLATE.search(text):
        return "boilerplate"
    if _mostly_digits(text):
        return "mostly_digits"
    if _is_navigation(text):
        return "navigation"
    if repeats_question(text, question):
        return "repeats_question"
    if not _has_verb(text):
        return "no_verb"
    return None


def _factual_score(text: str) -> float:
    """0..1: a number and a factual verb are the marks of a checkable statement."""
    score = 0.5 if _NUMBER.search(text) else 0.0
    if _FACTUAL_CUES.search(text):
        score += 0.5
    return score


def extract_claims_extractive(
    fragment_text: str, question: str, max_claims: int = DEFAULT_MAX_CLAIMS
) -> list[ExtractedClaim]:
    """Pick up to `max_claims` claim-like sentences, best first (no LLM needed)."""
    if max_claims <= 0:
        return []
    question_words = _content_words(question)
    candidates: list[tuple[float, int, str]] = []
    for index, (start, end) in enumerate(sentence_spans(fragment_text)):
        sentence = normalize_whitespace(fragment_text[start:end])
        if is_rejected_claim(sentence, question, min_chars=EXTRACTIVE_MIN_CHARS):
            continue
        words = _content_words(sentence)
        overlap = len(words & question_words) / len(question_words) if question_words else 0.0
        score = _OVERLAP_WEIGHT * overlap + _FACTUAL_WEIGHT * _factual_score(sentence)
        # A sentence with neither topical overlap nor a factual cue is prose, not a claim.
        if score <= 0.0:
            continue
        candidates.append((score, index, sentence))
    candidates.sort(key=lambda c: (-c[0], c[1]))
    return [
        ExtractedClaim(
            text=sentence,
            confidence=round(_BASE_CONFIDENCE + _CONFIDENCE_SPAN * score, 4),
            sentence_index=index,
        )
        for score, index, sentence in candidates[:max_claims]
    ]


# Runs of angle brackets could forge the passage's end marker ("UNTRUSTED_PASSAGE>>>").
_MARKER_BRACKETS = re.compile(r"<{2,}|>{2,}")


def build_claim_prompt(
    fragment_text: str, question: str, tag: str, *, max_claims: int = DEFAULT_MAX_CLAIMS
) -> tuple[str, str]:
    """(system, user) messages asking the LLM for a JSON list of atomic claims (L2 + L3).

    The passage and the question go through `sanitize_untrusted` here, so no caller
    can forget it; call it yourself first to collect its warnings (it is idempotent).
    """
    if not is_task_tag(tag):
        raise ValueError("tag must be a task tag made by new_task_tag()")
    if max_claims <= 0:
        raise ValueError(f"max_claims must be positive, got {max_claims}")
    passage = _MARKER_BRACKETS.sub(" ", sanitize_untrusted(fragment_text).text)
    asked = _MARKER_BRACKETS.sub(" ", sanitize_untrusted(question, max_chars=1000).text)
    module = load_prompt_module("claims")
    system = str(module.system(tag, max_claims)).strip()
    user = str(module.user(asked, passage)).strip()
    return system, user


_FENCE = re.compile(r"```[a-zA-Z0-9_-]*")
_LIST_LINE = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)])\s+(.+?)\s*$")
_CLAIM_KEYS: Final = ("claim", "text", "statement", "content")


def _claims_from_json(value: Any) -> list[str] | None:
    if isinstance(value, dict):
        for key in ("claims", "facts", "items", "results"):
            if isinstance(value.get(key), list):
                return _claims_from_json(value[key])
        return None
    if not isinstance(value, list):
        return None
    claims: list[str] = []
    for item in value:
        if isinstance(item, str):
            claims.append(item)
        elif isinstance(item, dict):
            text = next((item[k] for k in _CLAIM_KEYS if isinstance(item.get(k), str)), None)
            if text is not None:
                claims.append(text)
    # "[1]" in prose is a citation, not the answer: keep looking for a list of claims.
    return claims if claims or not value else None


def _first_json(text: str) -> list[str] | None:
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[\[{]", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        claims = _claims_from_json(value)
        if claims is not None:
            return claims
    return None


def parse_claims_response(text: str) -> list[str]:
    """Claims from an LLM answer: the first JSON list (fences, prose around it ignored).

    Falls back to bullet or numbered lines when the model wrote no JSON. Never raises;
    returns unique, whitespace-normalised, non-empty claims in order.
    """
    cleaned = _FENCE.sub("", unicodedata.normalize("NFC", text or ""))
    claims = _first_json(cleaned)
    if claims is None:
        claims = [m.group(1) for line in cleaned.splitlines() if (m := _LIST_LINE.match(line))]
    unique: list[str] = []
    seen: set[str] = set()
    for claim in claims:
        normalised = normalize_whitespace(claim).strip("\"'")
        key = normalised.casefold()
        if normalised and key not in seen:
            seen.add(key)
            unique.append(normalised)
    return unique
