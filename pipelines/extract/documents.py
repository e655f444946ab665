"""Documents and fragments: the shape every extractor produces.

An extractor (HTML, PDF, plain text / Markdown) turns its input into a list of
`Block`s in reading order. `assemble_document` is the one place that joins them into
the full document text, drops navigation and boilerplate crumbs, splits long
paragraphs at sentence boundaries and records the character offsets of every
fragment, so the invariant ``doc.text[f.char_start:f.char_end] == f.text`` holds for
every format alike (ARCHITECTURE §3 step 7: full documents, offsets per fragment).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from lyra.pipelines.extract.dedup import exact_text_hash, simhash64
from lyra.pipelines.extract.injection import (
    MASK,
    Detection,
    find_instructions,
    guard_text,
    is_only_masks,
    merge_detections,
    payload_head,
)
from lyra.pipelines.extract.sentences import append_stripped, sentence_spans
from lyra.pipelines.extract.sentences import split_sentences as split_sentences  # re-export

FragmentType = Literal[
    "paragraph", "heading", "list_item", "table", "quote", "pdf_block", "comment"
]
# "comment": a reader's comment under an article or a post, kept apart from its body
# (decision 0136)
FRAGMENT_TYPES: Final[frozenset[str]] = frozenset(
    {"paragraph", "heading", "list_item", "table", "quote", "pdf_block", "comment"}
)

# Blocks are joined with a blank line so the full text reads like the page and a
# fragment never runs into its neighbour.
FRAGMENT_SEPARATOR: Final = "\n\n"
# Long paragraphs are cut near this many characters: long enough for a claim with its
# context, short enough for the 256-token window of the packaged embedder and NLI.
MAX_FRAGMENT_CHARS: Final = 1200
# Non-heading fragments shorter than this are kept only when they look like content
# (a digit or sentence punctuation); the rest are menu items, buttons, share links.
MIN_FRAGMENT_CHARS: Final = 30
# Passages one document gives at most, in reading order (about 2.4 MB of text: a long
# book). A page of 20 MB of near-identical lines gave 221,922, and its search then
# spent ten minutes embedding them while its other pages waited.
MAX_DOCUMENT_FRAGMENTS: Final = 2000
# The warning a document cut there carries (a search repeats it with the URL).
CUT_WARNING: Final = (
    f"more than {MAX_DOCUMENT_FRAGMENTS} passages: kept the first {MAX_DOCUMENT_FRAGMENTS}"
)
# Headings longer than this in a chain are shortened; a chain is context, not content.
MAX_HEADING_CHARS: Final = 120
HEADING_SEPARATOR: Final = " > "


class ExtractionError(Exception):
    """The input cannot be turned into a document (corrupt, encrypted, unsupported)."""


@dataclass(frozen=True, slots=True)
class Fragment:
    """One passage of a document with its place in the document."""

    text: str
    heading_context: str | None
    fragment_type: str
    char_start: int
    char_end: int
    page_number: int | None
    position: int


@dataclass(frozen=True, slots=True)
class Document:
    """The full extracted text of one page or file, with its fragments."""

    url: str
    domain: str
    title: str | None
    content_type: str
    text: str
    fragments: list[Fragment]
    source_path: str | None
    byte_size: int
    content_hash: str
    simhash: int
    warnings: list[str] = field(default_factory=list)
    # What the injection guard found and removed (hidden text, instructions to AI
    # readers, invisible characters); the search job reports it with the URL.
    detections: list[Detection] = field(default_factory=list)
    # When the page was published and how we know (pipelines/extract/dates.py): an ISO
    # date and its source (jsonld, meta, htmldate, last_modified), or None.
    published_date: str | None = None
    date_source: str | None = None


@dataclass(frozen=True, slots=True)
class Block:
    """A structural unit found by an extractor, before offsets are known."""

    text: str
    fragment_type: str
    heading_context: str | None = None
    page_number: int | None = None


class HeadingTracker:
    """Keeps the chain of open headings ("Results > Adverse events")."""

    def __init__(self) -> None:
        """Start with no open heading."""
        self._stack: list[tuple[int, str]] = []

    def open(self, level: int, text: str) -> str | None:
        """Open a heading of `level` (1 = top) and return the chain of its parents."""
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        parents = self.context
        self._stack.append((level, _shorten(text, MAX_HEADING_CHARS)))
        return parents

    @property
    def context(self) -> str | None:
        """The chain of open headings, outermost first, or None when none is open."""
        if not self._stack:
            return None
        return HEADING_SEPARATOR.join(text for _, text in self._stack)


_WHITESPACE = re.compile(r"\s+")


def normalize_whitespace(text: str) -> str:
    """Collapse every run of whitespace to one space and strip the ends."""
    return _WHITESPACE.sub(" ", text).strip()


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip() + "…"


def sha256_text(text: str) -> str:
    """Hex sha256 of the UTF-8 bytes of `text` (the document's content hash)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def split_long_text(
    text: str, max_chars: int = MAX_FRAGMENT_CHARS, *, by_lines: bool = False
) -> list[tuple[int, int]]:
    """Spans that cut `text` into pieces of at most ~`max_chars` at sentence (or line) ends."""
    if len(text) <= max_chars:
        return [(0, len(text))] if text else []
    units = _line_spans(text) if by_lines else sentence_spans(text)
    pieces: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    for unit_start, unit_end in _hard_split(text, units, max_chars):
        if current is not None and unit_end - current[0] <= max_chars:
            current = (current[0], unit_end)
            continue
        if current is not None:
            pieces.append(current)
        current = (unit_start, unit_end)
    if current is not None:
        pieces.append(current)
    return pieces


def _line_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    for match in re.finditer(r"\n", text):
        append_stripped(text, start, match.start(), spans)
        start = match.end()
    append_stripped(text, start, len(text), spans)
    return spans


def _hard_split(
    text: str, units: Iterable[tuple[int, int]], max_chars: int
) -> Iterable[tuple[int, int]]:
    """Cut any unit longer than `max_chars` at its last space before the limit."""
    for start, end in units:
        while end - start > max_chars:
            cut = text.rfind(" ", start + 1, start + max_chars)
            if cut <= start + max_chars // 2:
                cut = start + max_chars
            yield start, cut
            start = cut
            while start < end and text[start].isspace():
                start += 1
        if end > start:
            yield start, end


# Site furniture that condemns a fragment of up to `_STRONG_MAX_CHARS` characters.
_STRONG_BOILERPLATE = re.compile(
    r"all rights reserved|©|\(c\) ?(19|20)\d\d|copyright (19|20)\d\d|we use cookies|"
    r"cookie (policy|settings|preferences|consent)|accept (all )?cookies|subscribe to our|"
    r"sign up for (our|the) newsletter|"
    r"skip to (main )?content|back to top|enable javascript|javascript is (disabled|required)|"
    r"jump to (main )?content|cookie notice|uses (only )?(essential )?cookies|"
    r"advertise with us|^advertisement\b|page last (updated|reviewed)|"
    r"(did you find|was) this (article|page|information) (useful|helpful)",
    re.IGNORECASE,
)
# Menus, breadcrumbs and footers as a text file or Markdown writes them: short link
# labels between separators ("Home | Current issue | Archive", "Home > Travelers' Health
# > Jet Lag"). Labels are capitalised; a list in running text ("side effects: • headache
# • nausea"), a shell pipe or "age > 65 and eGFR > 60" are not.
_SEPARATOR = re.compile(r"\s[|\u203a\u00bb\u00b7\u2022>]\s")
_MENU_LABEL_WORDS = 5
# Words that are navigation only when they make up nearly the whole fragment.
# Phrases that content uses too ("Read the privacy policy and switch off features you
# do not need" answers "Is my data private?"; decision 0099): furniture only in a line
# this short.
_LINK_BOILERPLATE = re.compile(r"click here|privacy policy|terms of (use|service)", re.IGNORECASE)
_LINK_MAX_CHARS: Final = 80
_WEAK_BOILERPLATE = re.compile(
    r"\b(read more|share (this|on)|follow us|related (articles|posts|stories)|"
    r"advertisement|sign in|log in|login|subscribe|newsletter|comments?|menu|search)\b",
    re.IGNORECASE,
)
# A long paragraph that mentions cookies is usually about cookies: the phrase lists
# are trusted only on fragments shorter than these.
_STRONG_MAX_CHARS: Final = 200
_WEAK_MAX_CHARS: Final = 60


_WIDE = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def _display_length(text: str) -> int:
    """Length with CJK characters counted twice: one carries about a word's worth."""
    return len(text) + len(_WIDE.findall(text))


def _is_menu(text: str) -> bool:
    labels = [label.strip() for label in _SEPARATOR.split(text)]
    return len(labels) >= 3 and all(
        label
        and len(label.split()) <= _MENU_LABEL_WORDS
        and (label[0].isupper() or not label[0].isalnum())
        for label in labels
    )


def word_text(text: str) -> str:
    """``text`` lower-cased to its words, one space apart: what two copies of a passage
    share whatever their punctuation (a quote of a post, a message quoted in a reply)."""
    return " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())


def is_boilerplate(text: str, fragment_type: str) -> bool:
    """True for navigation crumbs and site furniture that should not become fragments."""
    if len(text) < _STRONG_MAX_CHARS and _STRONG_BOILERPLATE.search(text):
        return True
    if len(text) < _WEAK_MAX_CHARS and _WEAK_BOILERPLATE.search(text):
        return True
    if len(text) < _LINK_MAX_CHARS and _LINK_BOILERPLATE.search(text):
        return True
    if fragment_type != "table" and _is_menu(text):
        return True
    if fragment_type == "heading" or _display_length(text) >= MIN_FRAGMENT_CHARS:
        return False
    # A short crumb is content only if it carries a number or reads as a sentence
    # ("Dose: 100 mg", "Headache was rare."); "Home", "Next article" do not.
    has_digit = any(ch.isdigit() for ch in text)
    ends_like_sentence = text.rstrip()[-1:] in {".", "!", "?", ":", "\u3002", "\uff01", "\uff1f"}
    return not (has_digit or ends_like_sentence)


# C0/C1 controls other than tab and newline: PDFs with broken font maps emit them.
# An instruction cut across elements ("<li>Ignore all</li><li>previous</li><li>
# instructions and…"): blocks this short that end without a sentence's end are read
# with the next ones, up to this many blocks in all.
_UNENDED_MAX_CHARS: Final = 80
_SPLIT_WINDOW: Final = 3
_SENTENCE_END = (".", "!", "?", "\u3002", "\uff01", "\uff1f")


def _unended(text: str) -> bool:
    stripped = text.strip()
    return 0 < len(stripped) <= _UNENDED_MAX_CHARS and not stripped.endswith(_SENTENCE_END)


def split_instructions(texts: Sequence[str]) -> dict[int, list[str]]:
    """Blocks (by index) that an instruction runs across: each block but the last of the
    run is short and unended, the run read as one text is an instruction, and no block
    of it is one alone (that one is masked on its own). The first block of a run maps
    to the instruction's pattern names, the others to none (one detection per run)."""
    found: dict[int, list[str]] = {}
    for i, first in enumerate(texts):
        if i in found or not _unended(first):
            continue
        joined = first
        for j in range(i + 1, min(i + _SPLIT_WINDOW, len(texts))):
            joined = f"{joined} {texts[j]}"
            names = find_instructions(joined)
            if names:
                if not any(find_instructions(texts[k]) for k in range(i, j + 1)):
                    found.update((k, names if k == i else []) for k in range(i, j + 1))
                break
            if not _unended(texts[j]):
                break
    return found


_CONTROL_CHARS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _clean_block_text(text: str, fragment_type: str) -> str:
    text = unicodedata.normalize("NFC", text).replace("\u00ad", "")
    text = _CONTROL_CHARS.sub("", text)
    if fragment_type == "table":
        lines = (normalize_whitespace(line) for line in text.split("\n"))
        return "\n".join(line for line in lines if line)
    return normalize_whitespace(text)


def assemble_document(
    blocks: Sequence[Block],
    *,
    url: str,
    domain: str,
    title: str | None,
    content_type: str,
    byte_size: int,
    warnings: Sequence[str] = (),
    source_path: str | None = None,
    detections: Sequence[Detection] = (),
) -> Document:
    """Join blocks into a `Document`: filter boilerplate, split long ones, set offsets.

    Every block and the title pass the injection guard first (`injection.guard_text`:
    NFKC, invisible characters, look-alikes, instructions to AI readers masked), so
    no fragment holds text that was not checked; `detections` are the extractor's own
    (hidden HTML) and are reported with the guard's.
    """
    found: list[Detection] = list(detections)
    kept: list[Block] = []
    seen: set[str] = set()
    cut = False
    contexts: dict[str | None, str | None] = {}
    after_mask = False
    blocks = list(blocks)
    split = split_instructions([b.text for b in blocks])
    for index, block in enumerate(blocks):
        if len(kept) >= MAX_DOCUMENT_FRAGMENTS:  # each block is at least one passage
            cut = True
            break
        if block.fragment_type not in FRAGMENT_TYPES:
            raise ValueError(f"unknown fragment type {block.fragment_type!r}")
        is_table = block.fragment_type == "table"
        guarded = guard_text(block.text, cell_separator="|" if is_table else None)
        found.extend(guarded.detections)
        guarded_text = guarded.text
        if index in split:
            guarded_text = MASK
            found.extend(Detection("instruction", f"{n} across elements") for n in split[index])
        # An instruction that ends one element may have its payload in the next (a
        # list item cut in two): a first sentence with a code-like token goes too.
        head = payload_head(guarded_text) if after_mask else 0
        if head:
            guarded_text = MASK + guarded_text[head:]
            found.append(Detection("instruction", "payload_token"))
        after_mask = guarded_text.rstrip().endswith(MASK)
        text = _clean_block_text(guarded_text, block.fragment_type)
        if not text or is_only_masks(text) or is_boilerplate(text, block.fragment_type):
            continue
        # A passage repeated on one page (pull quotes, sticky banners) is one passage.
        if block.fragment_type != "heading":
            key = exact_text_hash(text)
            if key in seen:
                continue
            seen.add(key)
        # The headings above a block were guarded as blocks (and reported there); the
        # context each fragment carries is their guarded text too.
        if block.heading_context not in contexts:
            contexts[block.heading_context] = _guarded_context(block.heading_context)
        context = contexts[block.heading_context]
        kept.append(Block(text, block.fragment_type, context, block.page_number))
    kept = _drop_trailing_headings(kept)

    parts: list[str] = []
    fragments: list[Fragment] = []
    offset = 0
    for block in kept:
        if len(fragments) >= MAX_DOCUMENT_FRAGMENTS:
            cut = True
            break
        if parts:
            offset += len(FRAGMENT_SEPARATOR)
        by_lines = block.fragment_type == "table"
        text = block.text
        for start, end in split_long_text(block.text, by_lines=by_lines):
            if len(fragments) >= MAX_DOCUMENT_FRAGMENTS:
                cut = True
                text = block.text[:start]
                break
            fragments.append(
                Fragment(
                    text=block.text[start:end],
                    heading_context=block.heading_context,
                    fragment_type=block.fragment_type,
                    char_start=offset + start,
                    char_end=offset + end,
                    page_number=block.page_number,
                    position=len(fragments),
                )
            )
        parts.append(text)
        offset += len(text)
    full_text = FRAGMENT_SEPARATOR.join(parts)
    doc_warnings = list(warnings)
    if cut:
        doc_warnings.append(CUT_WARNING)
    if not fragments:
        doc_warnings.append("no text extracted")
    if title and title.strip():
        guarded_title = guard_text(title)
        found.extend(guarded_title.detections)
        title = guarded_title.text
    return Document(
        url=url,
        domain=domain,
        title=normalize_whitespace(title) if title and title.strip() else None,
        content_type=content_type,
        text=full_text,
        fragments=fragments,
        source_path=source_path,
        byte_size=byte_size,
        content_hash=sha256_text(full_text),
        simhash=simhash64(full_text),
        warnings=doc_warnings,
        detections=merge_detections(found),
    )


def _guarded_context(context: str | None) -> str | None:
    """A heading path ("A > B") with every heading that is an instruction masked."""
    if not context:
        return context
    return HEADING_SEPARATOR.join(
        guard_text(part).text for part in context.split(HEADING_SEPARATOR)
    )


def _drop_trailing_headings(blocks: list[Block]) -> list[Block]:
    """Headings with nothing after them (end of an article, empty sections) say nothing."""
    end = len(blocks)
    while end and blocks[end - 1].fragment_type == "heading":
        end -= 1
    return blocks[:end]
