"""PDF extraction with PyMuPDF: text blocks per page, headings from font size.

Every fragment keeps its 1-based page number and its character offsets in the
concatenated text of all pages (ARCHITECTURE §3 step 7). Headings are guessed from
font size relative to the body text, which is cheap (one pass over the spans) and
right for most papers and reports; no layout model is involved.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Final

from lyra.pipelines.extract.documents import (
    Block,
    Document,
    ExtractionError,
    HeadingTracker,
    assemble_document,
    normalize_whitespace,
)
from lyra.pipelines.extract.injection import Detection, hidden_detections, merge_detections

# A block whose font is at least this much larger than the body font is a heading.
HEADING_SIZE_RATIO: Final = 1.15
# Headings are short; a large-font block longer than this is a pull quote or an
# abstract set in a bigger font, and stays a paragraph.
MAX_HEADING_CHARS: Final = 200
MAX_HEADING_LINES: Final = 3
# Running headers and footers: a short block (digits ignored) repeated on at least
# this many pages and on at least half of them.
RUNNING_MIN_PAGES: Final = 3
RUNNING_MAX_CHARS: Final = 100
# The share of a page's height at its top and at its bottom where running headers,
# footers and page numbers sit.
_EDGE_SHARE: Final = 0.06
_BOLD_FLAG: Final = 16
_TEXT_BLOCK: Final = 0
# Sizes within half a point are one heading level (rounding noise between fonts).
_SIZE_QUANTUM: Final = 0.5
# Bold lines this much smaller than the body still count as headings: papers often
# set "I. INTRODUCTION" in small bold capitals.
BOLD_HEADING_MIN_RATIO: Final = 0.8
# Rotated text (arXiv's margin stamp, table headers) is never a heading.
_SKEW_TOLERANCE: Final = 0.05
_UPPER_HEADING_MAX_CHARS: Final = 80
_HEADER_WINDOW: Final = 1024
# TeX fonts emit ligature glyphs ("ﬁnd"); searching and NLI need the letters. Only
# these are mapped: full NFKC would also flatten "m²" to "m2".
_LIGATURES: Final = str.maketrans(
    {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
     "\ufb05": "st", "\ufb06": "st"}
)  # fmt: skip
# Some producers place every Japanese/Chinese glyph separately and MuPDF puts a space
# between them ("記 録 さ れ た"); those scripts use no spaces, Korean (Hangul) does.
_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef\u3000-\u303f"
_CJK_GAP = re.compile(rf"(?<=[{_CJK_CHARS}]) (?=[{_CJK_CHARS}])")
_HYPHENATED = re.compile(r"(?<=[a-zà-ÿ])-$")
_DIGITS = re.compile(r"\d+")
# Text no reader sees: under 2 pt, or drawn with every channel this light (of 1) on
# the white page.
_TINY_PDF_FONT: Final = 2.0
_LIGHT: Final = 0.94


@dataclass(frozen=True, slots=True)
class _PdfBlock:
    page_number: int
    text: str
    size: float
    bold: bool
    lines: int
    horizontal: bool
    # one line inside the page's top or bottom margin (``_EDGE_SHARE`` of its height)
    edge: bool = False


def _join_lines(lines: list[str]) -> str:
    """Join a block's lines; a word hyphenated across a line break is rejoined."""
    out = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if out and _HYPHENATED.search(out) and line[:1].islower():
            out = out[:-1] + line
        else:
            out = f"{out} {line}" if out else line
    return out


Box = tuple[float, float, float, float]


def _backdrops(page: Any) -> list[tuple[Box, bool, bool]]:
    """(box, dark, image) of what is painted on the page: filled drawings (dark when
    their fill is not near white) and images (which may be dark anywhere)."""
    painted: list[tuple[Box, bool, bool]] = []
    for drawing in page.get_drawings():
        fill = drawing.get("fill")
        if fill is not None and drawing.get("fill_opacity", 1.0) > 0:
            r = drawing["rect"]
            painted.append(((r.x0, r.y0, r.x1, r.y1), min(fill) < _LIGHT, False))
    for image in page.get_image_info():
        x0, y0, x1, y1 = image["bbox"]
        painted.append(((x0, y0, x1, y1), True, True))
    return painted


def _under(span: dict[str, Any], page: Any, cache: dict[str, Any]) -> list[tuple[bool, bool]]:
    """(dark, image) of what is painted under the centre of `span`, in paint order."""
    if "backdrops" not in cache:
        cache["backdrops"] = _backdrops(page)
    x0, y0, x1, y1 = span["bbox"]
    x, y = (x0 + x1) / 2, (y0 + y1) / 2
    return [
        (dark, image)
        for (bx0, by0, bx1, by1), dark, image in cache["backdrops"]
        if bx0 <= x <= bx1 and by0 <= y <= by1
    ]


def _why_hidden_span(span: dict[str, Any], page: Any, cache: dict[str, Any]) -> str | None:
    """Why a reader of the page never sees `span`: no ink (invisible render mode or
    zero opacity) unless over a picture, a size no one reads, or white on the white
    page (on a dark box or an image, white text is read)."""
    if int(span.get("alpha", 255)) == 0:
        # Invisible text over a picture of the page is its OCR layer: what a reader
        # sees in the picture, the text of a scanned paper.
        if any(image for _, image in _under(span, page, cache)):
            return None
        return "pdf invisible text"
    if float(span.get("size", 0.0)) < _TINY_PDF_FONT:
        return "pdf tiny text"
    colour = int(span.get("color", 0))
    if min((colour >> 16) & 255, (colour >> 8) & 255, colour & 255) / 255 < _LIGHT:
        return None
    behind = [dark for dark, _ in _under(span, page, cache)]
    # The last thing painted under the text is what it is read against.
    return "pdf white text" if not behind or not behind[-1] else None


def _page_blocks(
    page: Any, page_number: int, found: list[Detection] | None = None
) -> list[_PdfBlock]:
    data = page.get_text("dict", sort=True)
    height = float(page.rect.height)
    cache: dict[str, Any] = {}
    blocks: list[_PdfBlock] = []
    for raw in data.get("blocks", []):
        if raw.get("type") != _TEXT_BLOCK:
            continue
        line_texts: list[str] = []
        sizes: Counter[float] = Counter()
        bold_chars = 0
        total_chars = 0
        horizontal = True
        for line in raw.get("lines", []):
            direction = line.get("dir", (1.0, 0.0))
            horizontal = horizontal and abs(direction[1]) < _SKEW_TOLERANCE
            spans = []
            for span in line.get("spans", []):
                hidden = (
                    _why_hidden_span(span, page, cache) if span.get("text", "").strip() else None
                )
                if hidden is None:
                    spans.append(span)
                elif found is not None:
                    found.extend(hidden_detections(span.get("text", ""), hidden))
            line_texts.append("".join(span.get("text", "") for span in spans))
            for span in spans:
                chars = len(span.get("text", "").strip())
                sizes[round(float(span.get("size", 0.0)) / _SIZE_QUANTUM) * _SIZE_QUANTUM] += chars
                total_chars += chars
                if int(span.get("flags", 0)) & _BOLD_FLAG:
                    bold_chars += chars
        joined = _join_lines(line_texts).translate(_LIGATURES)
        text = _CJK_GAP.sub("", normalize_whitespace(joined))
        if not text or total_chars == 0:
            continue
        blocks.append(
            _PdfBlock(
                page_number=page_number,
                text=text,
                size=sizes.most_common(1)[0][0],
                bold=bold_chars == total_chars,
                lines=len(line_texts),
                horizontal=horizontal,
                edge=len(line_texts) == 1 and _in_margin(raw.get("bbox"), height),
            )
        )
    return blocks


def _in_margin(bbox: Any, height: float) -> bool:
    """A block wholly inside the top or bottom ``_EDGE_SHARE`` of the page."""
    if not bbox or height <= 0:
        return False
    top, bottom = float(bbox[1]), float(bbox[3])
    return bottom <= height * _EDGE_SHARE or top >= height * (1 - _EDGE_SHARE)


def _body_size(blocks: list[_PdfBlock]) -> float:
    """The font size carrying the most characters: the body text."""
    weights: Counter[float] = Counter()
    for block in blocks:
        weights[block.size] += len(block.text)
    return weights.most_common(1)[0][0] if weights else 0.0


def _running_keys(blocks: list[_PdfBlock], page_count: int) -> set[str]:
    pages_by_key: dict[str, set[int]] = {}
    for block in blocks:
        if len(block.text) <= RUNNING_MAX_CHARS:
            key = _DIGITS.sub("#", block.text.casefold())
            pages_by_key.setdefault(key, set()).add(block.page_number)
    threshold = max(RUNNING_MIN_PAGES, (page_count + 1) // 2)
    return {key for key, pages in pages_by_key.items() if len(pages) >= threshold}


def _is_heading_shape(block: _PdfBlock) -> bool:
    return (
        block.horizontal
        and len(block.text) <= MAX_HEADING_CHARS
        and block.lines <= MAX_HEADING_LINES
        and any(ch.isalpha() for ch in block.text)
        and not block.text.endswith((".", ",", ";"))
    )


def _heading_levels(blocks: list[_PdfBlock], body: float) -> dict[float, int]:
    """Level per heading font size: the largest size is level 1."""
    sizes = sorted(
        {b.size for b in blocks if b.size >= body * HEADING_SIZE_RATIO and _is_heading_shape(b)},
        reverse=True,
    )
    return {size: level for level, size in enumerate(sizes, start=1)}


def _classify(blocks: list[_PdfBlock]) -> list[int | None]:
    """Heading level per block (None for body text)."""
    body = _body_size(blocks)
    levels = _heading_levels(blocks, body)
    minor_level = len(levels) + 1
    result: list[int | None] = []
    for block in blocks:
        if not _is_heading_shape(block):
            result.append(None)
        elif block.size in levels:
            result.append(levels[block.size])
        elif (block.bold and block.size >= body * BOLD_HEADING_MIN_RATIO) or _is_upper_heading(
            block.text
        ):
            result.append(minor_level)
        else:
            result.append(None)
    return result


def _is_upper_heading(text: str) -> bool:
    """Short all-capitals lines ("II. METHODS") are section headings in many papers."""
    letters = [ch for ch in text if ch.isalpha()]
    return (
        len(text) <= _UPPER_HEADING_MAX_CHARS
        and len(letters) >= 4
        and all(ch.isupper() for ch in letters)
    )


def _title_from_metadata(metadata: dict[str, Any] | None) -> str | None:
    title = normalize_whitespace(str((metadata or {}).get("title") or ""))
    # Word processors fill the title with the file name; that is not a title.
    if not title or re.search(r"\.(docx?|pdf|tex|odt|rtf|txt)$", title, re.IGNORECASE):
        return None
    return str(title)


def _open(data: bytes) -> Any:
    if not data:
        raise ExtractionError("empty PDF: no bytes to read")
    # MuPDF "repairs" almost anything into a blank page; readers require the header
    # within the first 1024 bytes (PDF 32000-1 annex H), so that is the test here.
    if b"%PDF-" not in data[:_HEADER_WINDOW]:
        raise ExtractionError("corrupt or unreadable PDF: no %PDF- header")
    # MuPDF on the first PDF: its import takes about 0.7 s of CPU, which the processes
    # that import this module (the orchestrator, the CLI) need not pay without a PDF.
    import pymupdf

    try:
        # pymupdf has no annotations on open(); the handle is used as Any here.
        doc: Any = pymupdf.open(stream=data, filetype="pdf")  # type: ignore[no-untyped-call]
    except (pymupdf.FileDataError, RuntimeError, ValueError) as exc:
        raise ExtractionError(f"corrupt or unreadable PDF: {exc}") from exc
    if doc.needs_pass:
        doc.close()
        raise ExtractionError("encrypted PDF: it needs a password and was not indexed")
    if doc.page_count == 0:
        doc.close()
        raise ExtractionError("PDF has no pages")
    return doc


def extract_pdf(data: bytes, url: str, domain: str) -> Document:
    """Extract every page of a PDF into fragments with page numbers and offsets."""
    doc = _open(data)
    warnings: list[str] = []
    hidden: list[Detection] = []
    raw_blocks: list[_PdfBlock] = []
    try:
        page_count = doc.page_count
        metadata = doc.metadata
        for index in range(page_count):
            try:
                raw_blocks.extend(_page_blocks(doc[index], index + 1, hidden))
            except (RuntimeError, ValueError) as exc:
                # One damaged page (a broken content stream) should not cost the others.
                warnings.append(f"page {index + 1}: text extraction failed: {exc}")
    finally:
        doc.close()
    if not raw_blocks:
        warnings.append("PDF has no text layer (scanned?); OCR is not performed")

    running = _running_keys(raw_blocks, page_count)
    # A line of small print in the top or bottom margin is a running header, a footer or
    # a page number, also where the document is too short for them to repeat on
    # ``RUNNING_MIN_PAGES`` pages (a two-page report's "Page 1 of 2" and its title line).
    body = _body_size(raw_blocks)
    kept = [
        b
        for b in raw_blocks
        if _DIGITS.sub("#", b.text.casefold()) not in running and not (b.edge and b.size < body)
    ]
    levels = _classify(kept)
    headings = HeadingTracker()
    blocks: list[Block] = []
    first_heading: str | None = None
    index = 0
    while index < len(kept):
        raw, level = kept[index], levels[index]
        if level is None:
            blocks.append(Block(raw.text, "pdf_block", headings.context, raw.page_number))
            index += 1
            continue
        # A title set over two lines often comes as two blocks of one size: one heading.
        text = raw.text
        index += 1
        while (
            index < len(kept)
            and levels[index] == level
            and kept[index].page_number == raw.page_number
            and kept[index].size == raw.size
            and len(text) + len(kept[index].text) < MAX_HEADING_CHARS
        ):
            text = f"{text} {kept[index].text}"
            index += 1
        if first_heading is None and raw.page_number == 1:
            first_heading = text
        parents = headings.open(level, text)
        blocks.append(Block(text, "heading", parents, raw.page_number))
    return assemble_document(
        blocks,
        url=url,
        domain=domain,
        title=_title_from_metadata(metadata) or first_heading,
        content_type="application/pdf",
        byte_size=len(data),
        warnings=warnings,
        detections=merge_detections(hidden),
    )
