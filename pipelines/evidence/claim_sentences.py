"""The sentences of a fragment that claim extraction reads (`claims`): each sentence,
reference markers and lead labels dropped, a list item's lead-in too (decision 0115); a
sentence too long to be a claim in its parts; a table one statement per row."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from lyra.pipelines.evidence.claim_frames import without_lead_label
from lyra.pipelines.evidence.claim_signals import LIST_LEAD_IN
from lyra.pipelines.extract.documents import normalize_whitespace
from lyra.pipelines.extract.sentences import FOOTNOTE_NUMBER, REFERENCE_MARKER, sentence_spans

# Longer than this, a sentence bundles several claims.
MAX_CLAIM_CHARS: Final = 300
# Reference markers a sentence keeps from its page ("... in summer.[1]").
_REFERENCE_MARKERS = re.compile(rf"(?:{REFERENCE_MARKER})+|{FOOTNOTE_NUMBER}(?=\s|$)")


def claim_sentences(fragment_text: str) -> Iterator[tuple[int, str, bool]]:
    """(index, text, whether a part of a longer sentence) of each sentence of a
    fragment, reference markers, an FAQ's "A:" / "Q:" labels, a structured abstract's and
    a dateline dropped; a sentence too long to be a claim gives its parts instead
    (`_clauses`). A table gives one statement per row instead
    (:func:`table_row_statements`)."""
    rows = table_row_statements(fragment_text)
    if rows is not None:
        for index, row in enumerate(rows):
            yield index, without_lead_label(row), False
        return
    for index, (start, end) in enumerate(sentence_spans(fragment_text)):
        sentence = normalize_whitespace(_REFERENCE_MARKERS.sub("", fragment_text[start:end]))
        sentence = without_lead_label(sentence)
        lead = LIST_LEAD_IN.match(sentence)
        if lead is not None:
            sentence = sentence[lead.end() :]
        if len(sentence) <= MAX_CLAIM_CHARS:
            yield index, sentence, lead is not None
            continue
        for clause in _clauses(sentence):
            yield index, clause, True


def _clauses(sentence: str) -> list[str]:
    """A sentence too long to be a claim, in parts: its clauses where semicolons join
    them or a colon opens a list ("... three separate face-to-face conferences held over
    about six weeks: an opening meeting at which ...": decision 0109), a part still too
    long where a reason or a concession is added (", since officers who knew ...": 0106;
    ", whereas in low-crime suburban settings ...": 0113), and a part still too long as
    what its study found ("Our evaluation across 62 local highway authorities, using
    eleven years of ... data, found that switching lights off ... was not associated with
    any increase in night-time collisions": 0113)."""
    parts = [sentence]
    for breaks in (_CLAUSE_BREAK, _REASON_BREAK):
        parts = [
            clause.strip().rstrip(";:")
            for part in parts
            for clause in (breaks.split(part) if len(part) > MAX_CLAIM_CHARS else [part])
        ]
    return [_finding_of(part) if len(part) > MAX_CLAIM_CHARS else part for part in parts]


def _finding_of(part: str) -> str:
    """What a too-long part says was found, when that alone is short enough."""
    found = _FOUND_THAT.search(part)
    if found is None or len(part) - found.end() > MAX_CLAIM_CHARS:
        return part
    return part[found.end() :]


_CLAUSE_BREAK = re.compile(r"(?<=[;:])\s+")
_REASON_BREAK = re.compile(
    # a reason given in part ("..., largely because they intercepted runoff ...": 0123)
    r",\s+(?=(?:(?:largely|mainly|mostly|partly|chiefly|probably|possibly|perhaps)\s+)?"
    r"(?:since|because|although|though|whereas|which|while|adding)\s)"
)
_FOUND_THAT = re.compile(
    r"\b(?:found|finds|showed|shows|concluded|concludes|demonstrated|demonstrates|"
    r"suggested|suggests|indicated|indicates|reported|reports)\s+that\s+"
)
# A table fragment: one line per row, cells joined by " | " (extract_html, extract_text).
TABLE_CELL_SEPARATOR: Final = " | "


def table_row_statements(fragment_text: str) -> list[str] | None:
    """One sentence per row of a table fragment; None when the text is not a table
    (fewer than two rows, or rows of unequal width).

    A table of three or more columns is read against its header row: "Drug | Side
    effects | HbA1c change" over "Metformin | Nausea | -1.1%" gives "Metformin: the side
    effects are Nausea; the HbA1c change is -1.1%." A two-column table may have no
    header at all (an infobox: "Founded | February 28, 1998" under "Industry |
    Open-source software"), so each of its rows, the first included, is read as a key
    and its value: "Founded: February 28, 1998." Either way a row joined to the next as
    one sentence ("Group | Usual dose Adults with insomnia | 2 mg ... Jet lag | ...")
    states nothing a reader can check on its own; each row does.
    """
    if TABLE_CELL_SEPARATOR not in fragment_text:
        return None  # prose, nearly every fragment: nothing to split
    text = _REFERENCE_MARKERS.sub("", fragment_text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    rows = [[normalize_whitespace(cell) for cell in _CELL_BREAK.split(line)] for line in lines]
    # A row of one cell across a table is a note under it: a sentence of its own.
    notes = [_sentence(r[0]) for r in rows if len(r) == 1 and r[0]]
    rows = [r for r in rows if len(r) > 1]
    if len(rows) < 2 or len(rows[0]) < 2 or any(len(r) != len(rows[0]) for r in rows):
        return None
    if len(rows[0]) == 2 and not _numbers_under_a_header(rows):
        keyed: list[str] = []
        for k, v in rows:  # cells that are sentences ("Myth: ..." beside "Fact: ...")
            if _SENTENCE_CELL.match(k):
                keyed += [cell for cell in (k, v) if cell]
            elif k and v:
                keyed.append(_sentence(f"{k}: {v}"))
        return keyed + notes
    # A cell that is a sentence (a review's comment on its row) states it on its own. A
    # long table's later part has no header row: only its sentences are read (0098).
    header, body = rows[0], rows[1:]
    if sum(map(bool, map(_DIGIT.search, header[1:]))) * 2 > len(header) - 1:
        header, body = [""] * len(header), rows
    statements = []
    for row in body:
        said = [v for v in row[1:] if _SENTENCE_CELL.match(v)]
        parts = [
            f"the {_lower_title(name)} {_copula(name)} {value}"
            for name, value in zip(header[1:], row[1:], strict=True)
            if name and value and value not in said
        ]
        if row[0] and parts:
            statements.append(_sentence(f"{row[0]}: {'; '.join(parts)}"))
        statements += [v[a:b] for v in said for a, b in sentence_spans(v)]
    return statements + notes


# Cells of a row (an empty one, a spanned column, between two bars: "a | | b").
_CELL_BREAK = re.compile(r" ?\| ?")
_SENTENCE_CELL = re.compile(r"^[A-Z][^|]*(?:\s\S+){4}[^|]*[.!]$")


def _numbers_under_a_header(rows: list[list[str]]) -> bool:
    """A two-column table whose first row names its columns: no number in the first row,
    one in the second cell of every other row ("Life stage | Recommended amount" over
    "Adult men | 11 mg"). Its rows read against the header ("Adult men: the recommended
    amount is 11 mg."); an infobox's rows ("Founded | 1998", "Industry | Software") do not
    all hold numbers."""
    header, body = rows[0], rows[1:]
    return (
        len(body) >= 2
        and not any(_DIGIT.search(cell) for cell in header)
        and all(_DIGIT.search(row[1]) for row in body)
    )


_DIGIT = re.compile(r"\d")


def _sentence(text: str) -> str:
    return text.rstrip(".") + "."


def _lower_title(name: str) -> str:
    """A column name inside a sentence: "Usual dose" → "usual dose"; "BMI" stays."""
    first = name.split(" ", 1)[0]
    return name[0].lower() + name[1:] if first[1:].islower() else name


def _copula(name: str) -> str:
    """ "are" after a plural column name ("Side effects", not "Maximum in 24 hours")."""
    last = re.split(r" (?:in|of|per|between|for|at) ", name)[0].rsplit(" ", 1)[-1].lower()
    return "are" if last.endswith("s") and not last.endswith(("ss", "us", "is")) else "is"
