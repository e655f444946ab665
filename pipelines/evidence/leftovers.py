"""What pages leave between their findings, and the English lexicon the claim rules read.

Issue 12, decisions 0089 and 0090. A page, and a paper's PDF more than most, holds
sentences that state nothing a source could support or refute, in shapes the claim
rules (``claims.py``) reject by name:

- ``boilerplate``: an author's affiliation, read as an address;
- ``incomplete``: a sentence cut where the page went on in an equation, a list or the
  next line;
- ``fragment``: the rest of a sentence an equation or a page break interrupted;
- ``reference``: an entry of a reference list.

A fragment under a reference list's heading is no passage at all
(:func:`under_reference_list`), a fragment that only asks (:func:`asks_only`: an FAQ's
question on its own line) is no stance evidence, and a sentence about the page's own
layout or a paper's road map scores no informativeness (:func:`points_elsewhere`). A
label or a dateline before a sentence's statement ("RESULTS:", "PHILADELPHIA —") is
dropped from the claim (``claim_frames.without_lead_label``). The lexicon
(lemminflect's, about 100,000 English forms) tells English words from names and
serves the claim rules' verb check.
"""

from __future__ import annotations

import functools
import re
import threading
from typing import Final

from lyra.pipelines.extract.sentences import split_sentences

# English function words: their presence says the verb heuristic applies (it is
# meaningless for other languages, whose claims are not rejected for lacking one).
# fmt: off
ENGLISH_MARKERS: Final[frozenset[str]] = frozenset((
    "the", "a", "an", "of", "and", "in", "to", "is", "are", "was", "were", "that", "with",
    "for", "on", "by",
))
# fmt: on

_LEXICON_LOCK = threading.Lock()

NUMBER_WORDS: Final = (
    r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
    r"forty|fifty|sixty|seventy|eighty|ninety|hundreds?|thousands?|millions?|billions?|"
    r"half|quarters?|thirds?|fifths?|tenths?|twice|threefold|fourfold|fivefold|tenfold"
)
MONTHS_PATTERN: Final = (
    r"january|february|march|april|may|june|july|august|september|october|november|"
    r"december"
)


@functools.lru_cache(maxsize=65536)
def lexicon_readings(word: str) -> dict[str, tuple[str, ...]]:
    """lemminflect's readings of ``word`` (lower case) by part of speech, empty when the
    lexicon (loaded on first use) does not know it."""
    from lemminflect import getAllLemmas

    # Claims are extracted in worker threads: the lexicon's first load happens once.
    with _LEXICON_LOCK:
        return dict(getAllLemmas(word))


@functools.lru_cache(maxsize=16384)
def past_participles(lemma: str) -> tuple[str, ...]:
    """lemminflect's past participles of the verb ``lemma`` ("see": "seen")."""
    from lemminflect import getInflection

    with _LEXICON_LOCK:
        return tuple(getInflection(lemma, tag="VBN"))


def warm_lexicon() -> None:
    """Load lemminflect's lemma and inflection tables now (about 0.8 s of CPU on first
    use), not when the first claim of a search is read: a process that reads claims
    calls this as it starts, or as its first search waits on the sites (decision 0111)."""
    lexicon_readings("tested")
    past_participles("test")


# An author's affiliation in a paper's header ("1Institute for Quantum Matter and
# Department of Physics ..., Johns Hopkins University, Baltimore, Maryland 21218, USA").
# It opens with the institution and reads as an address: commas, and a postcode or a
# country (not "Department of Health figures show that university hospitals ...").
_AFFILIATION = re.compile(
    r"^\W*\d*\s*(?:department|institute|school|faculty|division|cent(?:er|re)|"
    r"laborator(?:y|ies)|unit|hospital|university|college)\b"
    r"(?=(?:[^,]*,){2})"
    r".*\b(?:university|institute|hospital|college|school|cent(?:er|re))\b"
    r".*(?:\b\d{4,6}\b|\b(?:USA|U\.S\.A\.|UK|United States|United Kingdom|Canada|Australia|"
    r"Germany|France|Japan|China|India|Italy|Spain|Netherlands|Sweden|Switzerland|Denmark|"
    r"Norway|Finland|Brazil|Korea|Singapore|Israel|Belgium|Austria|Ireland)\b)",
    re.IGNORECASE,
)
# A sentence cut where the page went on: it ends on a colon or in a word broken by a
# hyphen ("an effective ac-"), or, without its full stop, on a word that needs what
# follows ("... this effective action becomes", "... denoted by"). With its full stop a
# stranded preposition is complete ("... did not intend to give access to.").
_CUT = re.compile(r"(?::|[a-z]-)\s*$")
# A page's line about itself, in parts set apart by a middle dot, bar or bullet, one of
# which says when or by whom it was published ("KidneyCare Foundation patient information
# · Updated June 2025", "Published 14 March 2025 · Reviewed by the committee").
_META_PART = re.compile(
    r"^(?:published|updated|last updated|reviewed|last reviewed|posted|by|transcript|guest|"
    r"episode|\d+ (?:min(?:ute)?s?|comments?)\b)\b",
    re.IGNORECASE,
)
# A belief a page states under a label in order to correct it ("Myth: Helmets only help
# in low-speed falls ..."): as a claim it would state the myth (decision 0098).
_MYTH_LABEL = re.compile(r"^(?:myths?|misconceptions?)\s*(?:\d+\s*)?[:\u2014]", re.IGNORECASE)
# A newspaper's note on its own error ("Correction: An earlier version of this article
# said ..."): what it repeats was wrong.
_CORRECTION = re.compile(r"^(?:correction|clarification|editor['\u2019]s note)s?\s*[:\u2014]", re.I)
# A customer review's rating ("★★★★☆ Gained strength within two weeks. - Priya").
_RATING = re.compile(r"^[\u2605\u2606\u2b50\u2729-\u2730]{2,}")
_NEEDS_MORE = re.compile(
    r"\b(?:to|of|by|the|a|an|and|or|with|for|from|than|that|which|where|into|becomes|"
    r"become|yielding|leading|gives|reads|takes the form)\s*$",
    re.IGNORECASE,
)
# A sentence whose first word is an ordinary word in lower case starts mid-thought: the
# rest of a sentence an equation or a page break interrupted ("where g is a
# dimensionless parameter ...", "dimensions were then computed ..."). A name written
# so ("mRNA", "eGFR", "iPhone") has a capital inside and is no such start, and a word
# the English lexicon does not know is a name ("pipenv is another tool ...").
_LOWER_START = re.compile(r"^[a-z]+\b(?![-'\u2019]?[A-Z])")
# How a forum poster opens a sentence without a capital ("honestly about a third of the
# heifers came out of it with red raw skin ..."): their sentence, not a piece of one.
_CHATTY_OPENERS: Final = frozenset(
    {"honestly", "tbh", "imo", "imho", "ngl", "fwiw", "frankly", "personally", "basically",
     "seriously", "literally", "apparently", "anyway", "yeah", "ok", "okay"}
)  # fmt: skip
# The debris a PDF's equations leave before a sentence: a lone digit, then a bracket or
# a preposition ("8 from (39), this agrees ...", "0 (p) = p2 + r, ...").
_EQUATION_DEBRIS = re.compile(r"^\d\s+(?:\(|(?:from|at|and|with)\b)")
# An entry of a reference list ("11 S. Sachdev, Quantum Phase Transitions, Cambridge
# Univ.", "[4] Smith J, Lee K. Vitamin D and falls. BMJ 2019;365:l123.").
_REFERENCE_ENTRY = re.compile(
    r"^\[?\d{1,3}[\].]?\s*(?:(?:[A-Z]\.\s?){1,3}[A-Z][a-z]+|[A-Z][a-z]+\s+[A-Z]{1,3}),"
    # unnumbered, as a list of references gives them: "vanEngelsdorp D, et al. A survey
    # ...", "Smith J, Lee K. The disappearing bees."
    r"|^[A-Za-z][\w'-]+\s+[A-Z]{1,3},\s*(?:et al\.|[A-Z][\w'-]+\s+[A-Z]{1,3}[.,])"
)
# The headings a reference list or a reading list stands under: its entries name
# works, they state nothing a source could support or refute.
_REFERENCE_HEADINGS = re.compile(
    # ("Notes" and "Sources" are left out: a drug's notes and a nutrient's food sources
    # state facts)
    r"^(?:references?|bibliography|works cited|literature cited|citations|footnotes|"
    r"further reading|see also|external links|related (?:articles|links|posts|reading))$",
    re.IGNORECASE,
)

# A press release's closing box about who published it ("About University Hospital",
# "About ScootCo"), and an article's note on its authors (decision 0090).
_ABOUT_BOX = re.compile(r"^About (?:(?i:the authors?|us)$|(?!(?i:the|this|these|our|its?)\b)[A-Z])")


# A sentence about the page's own layout ("Average daily amounts are listed below in
# milligrams", "The table below shows ..."): what it points at is the finding.
_POINTER = re.compile(
    r"\b(?:listed|shown|given|described|summari[sz]ed|set out)\s+(?:below|above)"
    # not a level ("doses given above 5 mg", "shown above the limit")
    r"(?=\s*(?:[.,;:()]|$|(?:in|and|for|are|is|were|was)\b))|"
    r"\b(?:the|this|these)\s+(?:tables?|figures?|charts?|lists?|box|pictures?|images?|"
    r"icons?|diagrams?|graphics?)\s+(?:below|above)\b|"
    # where a page's figures come from ("Figures are based on a 2024 review")
    r"^(?:the\s+)?(?:figures|numbers|estimates)\s+(?:here\s+|above\s+|below\s+)?"
    r"(?:are|were)\s+(?:based\s+on|taken\s+from)\b|"
    # what readers ask ("Many people ask us whether they should buy ...")
    r"\bask(?:s|ed)?\s+(?:us|me)\s+(?:whether|if|about|how|what|why)\b|"
    r"\bsee\s+(?:below|above)\b|"
    # a paper's own road map ("In Section IV we consider ...", "Finally, in Section V we
    # discuss ...") and a figure named as where something is ("The procedure is shown
    # schematically in Figure 1.")
    r"^(?:\w+,?\s+)?in\s+(?:section|chapter|appendix|part)\s+[\dIVX]+\b|"
    r"\b(?:is|are)\s+(?:shown|illustrated|depicted|plotted|drawn)\s+(?:\w+ly\s+)?in\s+"
    r"(?:fig(?:ure)?s?\.?|tables?|panels?)\s*[\dIVX]+[a-z]?\)?\.?$|"
    # a review's own aims and steps ("We wanted to find out whether ...", "We combined
    # the results and rated our confidence in the evidence"; decision 0097)
    r"^(?:we|this (?:review|study))\s+(?:wanted|aimed|set out|sought)\s+to\b|"
    r"^we\s+(?:combined|pooled|rated)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]+")


def points_elsewhere(text: str) -> bool:
    """A sentence about the page's own layout or a paper's road map: it scores no
    informativeness, whatever it names."""
    return _POINTER.search(text) is not None


def title_case(text: str) -> bool:
    """Every word of four letters or more capitalised, and at least three of them."""
    long_words = [w for w in _WORD.findall(text) if len(w) >= 4 and w.isalpha()]
    return len(long_words) >= 3 and all(w[0].isupper() for w in long_words)


def english_words(words: list[str]) -> bool:
    """Three or more words (lower case), all English by the lexicon: a line without the
    function words that mark English prose ("Cold Research Centre, evidence summaries
    series") is still English, not another language whose verbs cannot be checked."""
    alphabetic = [w for w in words if w.isalpha()]
    return len(alphabetic) >= 3 and all(lexicon_readings(w) for w in alphabetic)


def leftover_reason(text: str, *, part: bool = False) -> str | None:
    """Why ``text`` (one whitespace-normalised sentence, or a ``part`` of one too long to
    be a claim) is something a page left between its findings: "boilerplate",
    "incomplete", "fragment" or "reference"; else None."""
    if _AFFILIATION.match(text) or _RATING.match(text) or _CORRECTION.match(text):
        return "boilerplate"
    if _MYTH_LABEL.match(text):
        return "myth"
    if _LISTING.match(text) or _priced_item(text) or _FUNDING.search(text):
        return "boilerplate"
    if _publication_line(text):
        return "boilerplate"
    if _CUT.search(text) or (_NEEDS_MORE.search(text) and not text.endswith((".", "!", "\u2026"))):
        return "incomplete"
    start = _LOWER_START.match(text)
    if (
        start
        and not part
        and start.group() not in _CHATTY_OPENERS
        and (start.group() in ENGLISH_MARKERS or lexicon_readings(start.group()))
    ):
        return "fragment"
    if _EQUATION_DEBRIS.match(text):
        return "fragment"
    if _REFERENCE_ENTRY.match(text):
        return "reference"
    return None


# A paper's statement of who paid for or supplied it ("Active and placebo patches were
# supplied free of charge by the manufacturer, which had no role in the design ...",
# "This trial was funded by ..."; decision 0097).
_FUNDING = re.compile(
    r"\b(?:had|played)\s+no\s+(?:role|part)\s+in\s+(?:the\s+)?(?:study\s+|trial\s+)?"
    r"(?:design|conduct|analysis|decision|writing|reporting|interpretation)"
    r"|^(?:this|the)\s+(?:study|trial|review|work|research)\s+was\s+(?:funded|supported|"
    r"sponsored|paid for)\s+by\b",
    re.IGNORECASE,
)
# A list of other pages under its label ("Related abstracts: ... · ...", "See also: ...").
_LISTING = re.compile(
    r"^(?:related|see also|more (?:from|on|like this)|you (?:may|might) also like|most "
    r"(?:read|popular|viewed)|popular|trending|tags|topics|categories|further reading|read "
    r"next|links?|useful links|show notes|resources)\b[^:.]{0,30}:\s"
    # who made the page ("Developed by the editorial team with two patient reviewers")
    r"|^(?:developed|written|produced|prepared|compiled|edited)\s+by\b",
    re.IGNORECASE,
)
# A shop's item and its price ("Greenleaf Ibuprofen 200 mg Tablets x16 - £0.79").
_PRICE_END = re.compile(
    r"(?:[-\u2013\u2014:]|,[^,]*\s)\s*[$\u00a3\u20ac\u00a5]\s?\d[\d,]*(?:\.\d{2})?"
    r"(?:\s+was\s+[$\u00a3\u20ac\u00a5]\s?\d[\d,]*(?:\.\d{2})?)?\s*$",  # "... £26.99 Was £31.50"
    re.IGNORECASE,
)
_WAS_PRICE = re.compile(r"\s+was\s+[$\u00a3\u20ac\u00a5]\s?\d[\d,.]*\s*$", re.IGNORECASE)
# A table's header row as a PDF gives it ("Outcome Nicotine patch, n/N (%) Placebo
# patch, n/N (%) Risk ratio (95% CI)"): column names, no number of its own.
_COLUMN_NAMES = re.compile(r"\(%\)|\bn/N\b|\(95% CI\)")


def _priced_item(text: str) -> bool:
    words = {w.lower() for w in _WORD.findall(_WAS_PRICE.sub("", text))}
    if words & ENGLISH_MARKERS:
        return False
    header = _COLUMN_NAMES.search(text) and not re.search(r"\d", text.replace("95%", ""))
    return bool(header) or _PRICE_END.search(text) is not None


def _publication_line(text: str) -> bool:
    parts = re.split(r"\s[\u00b7|\u2022]\s", text)
    return len(parts) > 1 and any(_META_PART.match(part.strip()) for part in parts)


def under_reference_list(heading_context: str | None, text: str = "") -> bool:
    """True for a fragment under a "References", "See also", "Further reading" ...
    heading, or under a press release's box about its publisher ("About University
    Hospital", "About the authors"; not "About the study"): no finding of the page's own
    (``heading_context`` is "Page title > Section > Subsection"). A question answered
    there (the fragment's ``text``) is an FAQ's section on a product, no publisher's box
    ("About LayerWell 4 > Is it safe? ... Pressure damage under the bandage is uncommon
    ...": decision 0135)."""
    if not heading_context:
        return False
    last = heading_context.rsplit(">", 1)[-1].strip().rstrip(":")
    if _REFERENCE_HEADINGS.match(last) is not None:
        return True
    return _ABOUT_BOX.match(last) is not None and not _answers_a_question(text)


def _answers_a_question(text: str) -> bool:
    """``text`` opens with a question and goes on to answer it."""
    sentences = split_sentences(text.strip())
    return (
        len(sentences) > 1
        and sentences[0].rstrip().endswith(("?", "\uff1f"))
        and not asks_only(text)
    )


def asks_only(text: str) -> bool:
    """True for text whose every sentence is a question ("How do I take zinc lozenges?",
    an FAQ's question standing on its own line): it asserts nothing, so it can neither
    support nor refute a claim."""
    sentences = split_sentences(text.strip())
    return bool(sentences) and all(s.rstrip().endswith(("?", "\uff1f")) for s in sentences)
