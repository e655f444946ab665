"""What a claim states, read on its own: the claim without the frame that reports it,
the reason given after it, a label, a linking word, a source or the writer's own view
before it, its time or study setting and bracketed statistics, and clause by clause
(decisions 0097, 0107, 0108, 0109); and the sentences of a premise. The heuristic judge
(`nli_heuristic`) reads each; a premise that refutes one refutes the claim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lyra.pipelines.evidence.claim_frames import WRITERS_ESTIMATE, stated_part
from lyra.pipelines.evidence.nli_counts import spans_zero
from lyra.pipelines.evidence.nli_numbers import measures
from lyra.pipelines.evidence.nli_tokens import content_keys, tokenize
from lyra.pipelines.extract.sentences import FOOTNOTE_NUMBER, REFERENCE_MARKER

_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+|\n+")
# A reference marker ("...first-time users.[7] The response ...") or a footnote's number
# ("... taken with meals.4 Because ...") hides where a sentence ends; neither is read.
_MARKERS = re.compile(rf"{REFERENCE_MARKER}|{FOOTNOTE_NUMBER}(?=\s)")
# Words that open a clause standing apart from the finding before it: a concession
# ("..., roughly 45 per cent of patients develop a low blood phosphate level ...,
# although in most cases it causes no symptoms"), a comparison, a comment ("..., raising
# questions about extra calories": decision 0108).
APART_CLAUSES = (
    r"although|though|whereas|compared\s+(?:with|to)|raising|prompting|suggesting|meaning|leaving"
)


def split_sentences(text: str) -> list[str]:
    """Sentences of a premise (split after . ! ? and at line breaks)."""
    return [s.strip() for s in _SENTENCE_RE.split(_MARKERS.sub("", text)) if s and s.strip()]


# The frame that reports a claim ("The paper also notes earlier research suggesting
# that ...", "the pharmacist told me that ...") and the reason given after it (",
# possibly because ...", ", which ..."): the claim's own statement lies between them.
_REPORTING_FRAME = re.compile(
    r"^.{0,100}?\b(?:notes?|noted|says?|said|suggests?|suggested|suggesting|finds?|"
    r"found|reports?|reported|shows?|showed|shown|concludes?|concluded|states?|stated|"
    r"claims?|claimed|argues?|argued|believes?|believed|warns?|warned|told\s+\w+)\s+that\s+"
    # a speaker's estimate ("In my own clinic I'd estimate something like one patient in
    # five has a noticeable flare": decision 0107)
    r"|^.{0,60}?\bI(?:'d|\s+would)?\s+(?:estimate|guess|reckon)\s+(?:that\s+)?",
    re.IGNORECASE | re.DOTALL,
)
_REASON_GIVEN = re.compile(
    r",?\s+(?:(?:possibly|probably|perhaps|partly|mainly|largely|mostly)\s+)?because\b.*$"
    r"|,\s+which\b.*$",
    re.IGNORECASE | re.DOTALL,
)
# A short label before a colon at the claim's start ("Over-the-counter aids: for mild
# to moderate loss ...", "But here's my honest experience: in the organisations ...").
_LEAD_LABEL = re.compile(r"^[^.;:!?]{1,60}?:\s+(?=\S)")
# A word or phrase that only links a claim to what came before ("Put another way, roughly
# 1 in 50 older people ...", "In fact, ...").
_LINKING_OPENER = re.compile(
    r"^(?:put\s+(?:another\s+way|simply)|simply\s+put|in\s+other\s+words|in\s+(?:short|sum|fact|"
    r"practice|total|addition|contrast|the\s+end)|overall|indeed|that\s+said|even\s+so|of\s+course|"
    r"on\s+balance|all\s+told|crucially|importantly|notably|by\s+contrast|on\s+the\s+other\s+hand|"
    r"moreover|furthermore|however|meanwhile|first(?:ly)?|second(?:ly)?|finally|"
    r"as\s+a\s+result)\s*,\s+",
    re.IGNORECASE,
)
# A source named before the claim, itself perhaps holding commas ("According to till data
# shared with the Courier by Norda Foods, a regional grocery chain with 46 stores in
# Saltreach and Northmarch, sales of pedal-bin liners ... rose by 34 per cent", "Based on
# the annual returns ..., single-use carrier bag sales ... have fallen by 90 per cent").
_SOURCE_OPENER = re.compile(r"^(?:according\s+to|based\s+on|drawing\s+on|citing)\b", re.IGNORECASE)
_SOURCE_COMMAS = 3
# Where a claim joins a second statement to its first (", and they cost a fraction of
# the price", ", so every meeting ... counts", "; ..."): the first is read alone.
_CLAUSE_JOIN = re.compile(
    r",\s+(?:and|so|with|whether|" + APART_CLAUSES + r")\s+|;\s+", re.IGNORECASE
)
# The writer's own view or experience before a statement ("in our experience, low
# phosphate levels are very rare", "on my reading of the district figures, ...").
_OWN_FRAME = re.compile(
    r"^(?:in\s+(?:my|our)\s+(?:own\s+)?(?:experience|view|practice|clinic)|"
    r"on\s+(?:my|our)\s+reading\s+of\s+[^,]{1,120}),\s+",
    re.IGNORECASE,
)
# The setting before the claim's subject that says when or in which study it was found
# ("Over the four-week treatment period,", "In a 2023 crossover study of 64 students,");
# not in whom ("In covid-19 patients especially old people," bounds what it claims).
_SETTING_OPENER = re.compile(
    r"^(?:over|across|during|after|by|in|within|at|for|throughout|pooled\s+across)\b"
    r"(?=[^,;:()]{0,80}?\b(?:(?:19|20)\d\d|days?|weeks?|months?|years?|seasons?|period|"
    r"trials?|study|studies|analysis|review|survey|audit)\b)[^,;:()]{0,80},\s+"
    r"(?=\S+(?:\s+\S+){4})",
    re.IGNORECASE,
)
_BRACKETED = re.compile(r"\s*\([^()]*\)")


def _unbracketed(text: str) -> str:
    """``text`` without its brackets, but for an interval that spans zero, which says the
    difference before it may be none ("a difference of 7 percentage points (95% CI -2 to
    16)": decision 0139)."""
    return _BRACKETED.sub(lambda m: m.group() if spans_zero(tokenize(m.group())) else "", text)


# The writer's estimate after what they did to know it ("I kept a log for the first full
# year ..., and I'd say roughly one session in five ended with ...": decision 0125).
_ESTIMATE_GIVEN = re.compile(
    rf"(?:^|,\s+(?:and|but|so)\s+){WRITERS_ESTIMATE}\s+(?:that\s+)?", re.IGNORECASE
)
# The statement judged on its own has at least this many content words.
_MIN_STATEMENT_KEYS = 3


def claim_statement(hypothesis: str) -> str:
    """``hypothesis`` without a reporting frame before it or a reason after it."""
    return _REASON_GIVEN.sub("", _REPORTING_FRAME.sub("", hypothesis, count=1))


def _measures_something(tokens: Sequence[str]) -> bool:
    """A number with its unit, not one in a name ("covid-19 disease")."""
    return any(
        not (at and tokens[at - 1] == "-")
        for values in measures(tokens).values()
        for *_, at in values
    )


def claim_statements(hypothesis: str) -> list[str]:
    """What ``hypothesis`` states, each read on its own where it differs from the whole:
    the statement without its frame and reason (`claim_statement`), without a label
    before a colon, a linking word, a source or the writer's own view named before it,
    its first sentence, the first of the clauses a conjunction joins, and each clause
    after a semicolon; each with at least `_MIN_STATEMENT_KEYS` content words. A premise
    that refutes one of them refutes the claim: "A, and B" does not stand if A does not
    (decisions 0107, 0108)."""
    statement = claim_statement(hypothesis)
    unlabelled = _LINKING_OPENER.sub("", _LEAD_LABEL.sub("", statement, count=1), count=1)
    openings = [unlabelled]
    framed = _OWN_FRAME.sub("", unlabelled, count=1)
    if framed != unlabelled:
        openings.append(framed)
    # the writer's frames the claim extractor reads past ("I know some people get
    # nervous about amounts, but from everything I've read you can safely take ...",
    # "I'm completely convinced that ...": `claim_frames.stated_part`, decision 0109)
    stated = stated_part(unlabelled)
    if stated not in openings:
        openings.append(stated)
    # (searched in the whole claim: a reason before it, "because ...", is cut from
    # the statement with all that follows)
    if estimate := _ESTIMATE_GIVEN.search(hypothesis):
        openings.append(hypothesis[estimate.end() :])
    # without the setting before it and the statistics in brackets ("Over the four-week
    # treatment period, participants ... fell asleep on average 7 minutes sooner than
    # those given clear placebo lenses (95% CI 2 to 12 minutes)": decision 0109)
    bare = _unbracketed(_SETTING_OPENER.sub("", unlabelled, count=1))
    if bare not in openings:
        openings.append(bare)
    # the first sentence of a claim that holds more (a list item's: "A temporary flare of
    # pain ... happens after about 2 in every 100 injections. It usually settles within
    # 2 days. Use an ice pack ..."), where it measures something: a first sentence that
    # does not is often a lead-in ("Here is what you should do to protect yourself from the
    # covid-19 disease.") or a question
    sentences = split_sentences(unlabelled)
    if (
        len(sentences) > 1
        and not sentences[0].rstrip().endswith("?")
        and _measures_something(tokenize(sentences[0]))
    ):
        openings.append(sentences[0])
    if _SOURCE_OPENER.match(unlabelled):
        parts = unlabelled.split(", ", _SOURCE_COMMAS)
        openings += [", ".join(parts[n:]) for n in range(1, len(parts))]
    # the first clause only: what a claim adds after ", and" dilutes its statement, but
    # read alone it often leans on the first ("..., and footfall ... fell by 4 percent,
    # although retail sales ... were steady")
    clauses = [_CLAUSE_JOIN.split(opening, maxsplit=1)[0].strip(" ,.") for opening in openings]
    # what follows a semicolon stands on its own (decision 0108), its frame aside
    for after in re.split(r";\s+", unlabelled)[1:]:
        after = _LINKING_OPENER.sub("", _OWN_FRAME.sub("", after, count=1), count=1)
        clauses += [after, _CLAUSE_JOIN.split(after, maxsplit=1)[0].strip(" ,.")]
    whole = hypothesis.strip(" ,.")
    found: dict[str, str] = {}  # each reading once, whatever its closing stop
    for text in (statement, *openings, *clauses):
        if text.strip(" ,.") != whole:
            found.setdefault(text.strip(" ,."), text)
    return [
        text for text in found.values() if len(content_keys(tokenize(text))) >= _MIN_STATEMENT_KEYS
    ]
