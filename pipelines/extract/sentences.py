"""Sentence boundaries, shared by fragmenting, the injection guard and claim extraction.

One splitter for all three, so that a sentence the guard masks is exactly a sentence
the claim extractor would have picked: a different cut would leave the tail of an
instruction (or its canary token) behind as a sentence of its own.
"""

from __future__ import annotations

import re
from typing import Final

# Words after which a period does not end a sentence ("Dr. Smith", "et al. 2020").
_ABBREVIATIONS: Final[frozenset[str]] = frozenset(
    {
        "al", "approx", "ca", "cf", "co", "corp", "dept", "dr", "e.g", "eg", "eq", "est",
        "fig", "figs", "gen", "i.e", "ie", "inc", "jr", "lt", "ltd", "mr", "mrs", "ms",
        "mt", "nos", "p", "pp", "ph.d", "prof", "ref", "refs", "rev", "sec", "sen",
        "sr", "st", "tab", "u.k", "u.n", "u.s", "u.s.a", "vol", "vols", "vs",
        "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    }
)  # fmt: skip
# A sentence ends at . ! ? (with closing quotes or brackets) before whitespace and a
# capital, digit or opening quote (or a chatty opener typed in lower case); or at the CJK
# full stops, which need no space.
# A reference marker ("[1]", "[2-4]", "[a]", "[citation needed]"). After the full stop
# ("... in summer.[1] When ...") it stays with the sentence it cites.
REFERENCE_MARKER: Final = r"\[(?:\d{1,3}(?:[,\u2013-]\s*\d{1,3})*|[a-z]|citation needed)\]"
# A footnote's number set right after a word's full stop ("... taken with meals.4 Because
# laboratory studies ..."): after a lower-case letter, so "2.5 mg" keeps its decimal.
FOOTNOTE_NUMBER: Final = r"(?<=[a-z][.!?])\d{1,2}"
_SENTENCE_END = re.compile(
    rf"[.!?…]+[\"'\u201d\u2019)\]]*(?:{REFERENCE_MARKER}|{FOOTNOTE_NUMBER})*"
    r"(?=\s+[\"'\u201c\u2018(\[]?[\dA-Z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]"
    # or a forum poster's sentence begun without a capital ("... than the charity made
    # out. tbh by week three about a third of my group ...")
    r"|\s+(?:tbh|imo|imho|ngl|fwiw|btw|honestly|anyway)\b)"
    r"|[\u3002\uff01\uff1f]+[\u300d\u300f\uff09]*"
)
# "No." abbreviates "number" only before one ("No. 10 Downing Street"); before a word
# it is the answer: "So the short version ... is no. When we looked at ...".
_NUMBER_SIGN = "no"
# The word before a period; a contraction's last letter is no initial ("... as the farms
# that hadn't. We looked ...": decision 0127), so a word after an apostrophe is none.
_WORD_BEFORE = re.compile(r"(?<![\w'\u2019])([\w.]+)\.$")
# A unit after a degree sign ("-15 °C.") or a lower-case one after a number ("5 h.",
# "3 g.") is no initial; "In 2015 M. Jones" keeps its initial.
_UNIT_BEFORE = re.compile(r"(?:°\s?[CFK]|\d\s?[a-z])\.$")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of `text`, each stripped of outer whitespace."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.end()
        if match.group().startswith(".") and _is_abbreviation(
            text[start : match.start() + 1], text[end : end + 8].lstrip()
        ):
            continue
        append_stripped(text, start, end, spans)
        start = end
    append_stripped(text, start, len(text), spans)
    return spans


def _is_abbreviation(sentence: str, following: str) -> bool:
    found = _WORD_BEFORE.search(sentence.rstrip("\"'\u201d\u2019)]"))
    if found is None:
        return False
    word = found.group(1).lower()
    if word == _NUMBER_SIGN:
        return following[:1].isdigit()
    if word in _ABBREVIATIONS:  # "p. 45", "Fig. 2"
        return True
    # A single capital before the period is an initial ("J. Smith"), not an ending;
    # a unit is not ("-15 °C.", "for 5 h.").
    return len(word) == 1 and word.isalpha() and not _UNIT_BEFORE.search(sentence)


def append_stripped(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    """Append the span `text[start:end]` without its outer whitespace, if anything is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append((start, end))


def split_sentences(text: str) -> list[str]:
    """The sentences of `text` in order."""
    return [text[s:e] for s, e in sentence_spans(text)]
