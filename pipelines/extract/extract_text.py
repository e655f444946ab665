"""Plain text and Markdown extraction, and byte decoding for every text format.

`decode_bytes` never raises: a local corpus or a fetched body may be in any legacy
encoding, or cut in the middle of a UTF-8 sequence by a size cap, and one odd file
must not stop the others from being indexed.
"""

from __future__ import annotations

import codecs
import re
from typing import Final

from charset_normalizer import from_bytes

from lyra.pipelines.extract.documents import (
    MAX_HEADING_CHARS,
    Block,
    Document,
    HeadingTracker,
    assemble_document,
    normalize_whitespace,
    word_text,
)
from lyra.pipelines.extract.hidden_html import hiding_rule
from lyra.pipelines.extract.injection import (
    Detection,
    find_instructions,
    hidden_detections,
    merge_detections,
)

# Longest BOMs first: the UTF-32-LE BOM starts with the UTF-16-LE one.
_BOMS: Final[tuple[tuple[bytes, str], ...]] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# A UTF-8 sequence is at most 4 bytes; a cap can cut off at most 3 of them.
_MAX_CUT_UTF8_BYTES: Final = 3
_LAST_RESORT_ENCODING: Final = "cp1252"
_TIE_TOLERANCE: Final = 0.01


def _codec_name(encoding: str) -> str | None:
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        return None


def decode_bytes(data: bytes, declared_encoding: str | None = None) -> tuple[str, str]:
    """Decode `data` to text; return (text, encoding used). Never raises.

    Order: byte-order mark, the declared encoding (HTTP header or HTML meta) when it
    decodes cleanly, strict UTF-8 (tolerating a sequence cut at the very end),
    charset-normalizer's best guess, and finally cp1252 with replacement characters.
    """
    if not data:
        return "", "utf-8"
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(encoding, errors="replace"), encoding
    if declared_encoding:
        codec = _codec_name(declared_encoding)
        if codec is not None:
            try:
                return data.decode(codec), codec
            except UnicodeDecodeError:
                pass  # a wrong declaration is common; fall through to detection
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as exc:
        cut_tail = exc.reason == "unexpected end of data"
        if cut_tail and exc.start >= len(data) - _MAX_CUT_UTF8_BYTES:
            try:
                return data[: exc.start].decode("utf-8"), "utf-8"
            except UnicodeDecodeError:
                pass  # invalid earlier too: not UTF-8 at all
    matches = from_bytes(data)
    best = matches.best()
    if best is not None:
        for match in matches:
            # Single-byte code pages tie on short texts (cp1250 reads "crème" as
            # "crčme" with the same chaos score). On a tie prefer windows-1252: the
            # WHATWG default for latin-1 labels and the commonest legacy web encoding.
            if (
                match.encoding == _LAST_RESORT_ENCODING
                and match.chaos <= best.chaos + _TIE_TOLERANCE
                and match.coherence >= best.coherence - _TIE_TOLERANCE
            ):
                return str(match), match.encoding
        return str(best), best.encoding
    return data.decode(_LAST_RESORT_ENCODING, errors="replace"), _LAST_RESORT_ENCODING


_ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_LIST_ITEM = re.compile(r"^ {0,6}(?:[-*+]|\d{1,9}[.)])[ \t]+(.*)$")
_QUOTE = re.compile(r"^ {0,3}>[ \t]?(.*)$")
_TABLE_ROW = re.compile(r"^ {0,3}\|.*\|[ \t]*$")
_TABLE_RULE = re.compile(r"^ {0,3}\|?[ \t]*:?-{3,}:?[ \t]*(\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_HR = re.compile(r"^ {0,3}([-*_])([ \t]*\1){2,}[ \t]*$")
_FRONT_MATTER_TITLE = re.compile(r"^title:\s*[\"']?(.*?)[\"']?\s*$", re.MULTILINE)

_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|~~)(?=\S)(.+?)(?<=\S)\1")
_CODE_SPAN = re.compile(r"`+([^`]+)`+")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_LINK_DEFINITION = re.compile(r"^ {0,3}\[(?!\^)[^\]]+\]:\s+\S+")
# A footnote's text ("[^2]: Drivers passed on average 8.5 cm closer ..."): a paragraph of
# its own, without its label (decision 0098).
_FOOTNOTE = re.compile(r"^ {0,3}\[\^[^\]]+\]:\s+(\S.*)$")


def strip_inline_markdown(text: str) -> str:
    """Remove inline Markdown markup (links, emphasis, code spans) and keep the words;
    an image is no words of the text (its alt text is read by `_hidden_markup`)."""
    text = _IMAGE.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _REF_LINK.sub(r"\1", text)
    text = _CODE_SPAN.sub(r"\1", text)
    text = _HTML_TAG.sub("", text)
    # Twice: emphasis nests ("**_both_**").
    text = _EMPHASIS.sub(r"\2", text)
    return _EMPHASIS.sub(r"\2", text)


_OPENING_TAG = re.compile(r"<([A-Za-z][\w-]{0,30})\b([^<>]{0,2000})>")
_HIDDEN_ATTRIBUTE = re.compile(r"(?:^|\s)(?:hidden(?:\s|=|$)|aria-hidden\s*=\s*[\"']?true)", re.I)
_STYLE_ATTRIBUTE = re.compile(r"\bstyle\s*=\s*(?:\"([^\"]*)\"|'([^']*)')", re.IGNORECASE)


def _blanked(span: str) -> str:
    """A removed span as the line breaks it held, so the lines around it stay apart."""
    return "\n" * span.count("\n")


def _hidden_markup(text: str) -> tuple[str, list[Detection]]:
    """What a rendered Markdown page never shows, removed and reported: HTML comments
    and raw HTML elements hidden by `hidden`, `aria-hidden` or a hiding style; and any
    instruction in an image's alt text (the image itself is no text).

    Scanned with `str.find`, once over the text: a regex that looked for each tag's
    end from each tag took minutes over a long table of `<br>`s.
    """
    found: list[Detection] = []
    pieces: list[str] = []
    cursor = look = 0
    closes = True  # once no "-->" follows, none follows any later "<!--" either
    while (start := text.find("<!--", look)) >= 0:
        end = text.find("-->", start + 4) if closes else -1
        closes = end >= 0
        at_line_start = not text[text.rfind("\n", 0, start) + 1 : start].strip()
        if end < 0 and not at_line_start:
            look = start + 4  # an inline "<!--" never closed is shown as it is
            continue
        stop = len(text) if end < 0 else end + 3
        found.extend(hidden_detections(text[start + 4 : end if end >= 0 else stop], "comment"))
        pieces.extend((text[cursor:start], _blanked(text[start:stop])))
        cursor = look = stop
    text = "".join((*pieces, text[cursor:]))
    lower = text.lower()
    pieces, cursor = [], 0
    for tag in _OPENING_TAG.finditer(text):
        if tag.start() < cursor:
            continue  # inside an element already removed
        attributes = tag.group(2)
        style = _STYLE_ATTRIBUTE.search(attributes)
        reason = hiding_rule(style.group(1) or style.group(2) or "") if style else None
        if reason is None and _HIDDEN_ATTRIBUTE.search(attributes):
            reason = "hidden attribute"
        if reason is None:
            continue
        close = lower.find(f"</{tag.group(1).lower()}", tag.end())
        if close < 0:
            continue
        stop = lower.find(">", close)
        stop = len(text) if stop < 0 else stop + 1
        found.extend(hidden_detections(text[tag.end() : close], reason))
        pieces.extend((text[cursor : tag.start()], _blanked(text[tag.start() : stop])))
        cursor = stop
    text = "".join((*pieces, text[cursor:]))
    for image in _IMAGE.finditer(text):
        found.extend(
            Detection("hidden_instruction", f"{name} in alt")
            for name in find_instructions(image.group(1))
        )
    return text, found


def _split_front_matter(lines: list[str]) -> tuple[list[str], str | None]:
    if not lines or lines[0].strip() != "---":
        return lines, None
    for index in range(1, min(len(lines), 200)):
        if lines[index].strip() in {"---", "..."}:
            found = _FRONT_MATTER_TITLE.search("\n".join(lines[1:index]))
            title = found.group(1).strip() if found else None
            return lines[index + 1 :], title or None
    return lines, None


class _MarkdownReader:
    """Line-based Markdown block reader: enough structure for fragments, no rendering."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.headings = HeadingTracker()
        self.first_h1: str | None = None
        self._paragraph: list[str] = []
        self._kind = "paragraph"

    def flush(self) -> None:
        if self._paragraph:
            joiner = "\n" if self._kind == "table" else " "
            text = joiner.join(self._paragraph)
            if self._kind != "table":
                text = strip_inline_markdown(text)
            self.blocks.append(Block(text, self._kind, self.headings.context))
        self._paragraph = []
        self._kind = "paragraph"

    def add(self, kind: str, line: str) -> None:
        if self._kind != kind:
            self.flush()
            self._kind = kind
        self._paragraph.append(line)

    def heading(self, level: int, raw: str) -> None:
        self.flush()
        text = normalize_whitespace(strip_inline_markdown(raw))
        if not text:
            return
        if level == 1 and self.first_h1 is None:
            self.first_h1 = text
        parents = self.headings.open(level, text)
        self.blocks.append(Block(text, "heading", parents))

    def read(self, lines: list[str]) -> None:
        in_fence = False
        for index, line in enumerate(lines):
            if _FENCE.match(line):
                # Code is kept as a paragraph: claims are rarely in code, but a
                # command or a config value may be what the user is looking for.
                if in_fence:
                    self.flush()
                in_fence = not in_fence
                continue
            if in_fence:
                self.add("code", line.strip())
                continue
            self._read_line(line, lines[index + 1] if index + 1 < len(lines) else "")
        self.flush()
        self.blocks = [
            Block(
                b.text,
                "paragraph" if b.fragment_type == "code" else b.fragment_type,
                b.heading_context,
            )
            for b in self.blocks
        ]

    def _read_line(self, line: str, next_line: str) -> None:
        if not line.strip():
            self.flush()
            return
        if self._kind == "setext_skip":
            self._kind = "paragraph"
            return
        atx = _ATX_HEADING.match(line)
        if atx:
            self.heading(len(atx.group(1)), atx.group(2) or "")
            return
        if (
            self._kind == "paragraph"
            and not self._paragraph
            and _SETEXT_UNDERLINE.match(next_line)
            and not _LIST_ITEM.match(line)
        ):
            self.heading(1 if next_line.strip().startswith("=") else 2, line)
            self._kind = "setext_skip"
            return
        if _HR.match(line) or _LINK_DEFINITION.match(line) or _TABLE_RULE.match(line):
            if _TABLE_RULE.match(line) and self._kind == "table":
                return
            self.flush()
            return
        if _TABLE_ROW.match(line):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            self.add("table", " | ".join(strip_inline_markdown(c) for c in cells))
            return
        footnote = _FOOTNOTE.match(line)
        if footnote:
            self.flush()
            self.add("paragraph", footnote.group(1).strip())
            self.flush()
            return
        item = _LIST_ITEM.match(line)
        if item:
            self.flush()
            self.add("list_item", item.group(1).strip())
            return
        quote = _QUOTE.match(line)
        if quote:
            self.add("quote", quote.group(1).strip())
            return
        # A continuation line of a list item or a quote belongs to it (lazy lines).
        kind = self._kind if self._kind in {"list_item", "quote"} else "paragraph"
        self.add(kind, line.strip())


# A line standing alone, short and with no closing punctuation, is a title or a section
# heading ("Working hours and productivity: evidence from a natural experiment"), as an
# <h1> is in HTML: it names what follows and states nothing.
_PLAIN_HEADING_MAX_WORDS: Final = 16
_SENTENCE_END = (".", "!", "?", "\u3002", "\uff01", "\uff1f")
_CLAUSE_END = (*_SENTENCE_END, ":", ";", ",")


def _is_plain_heading(chunk: str) -> bool:
    line = chunk.strip()
    return (
        bool(line)
        and "\n" not in line
        and not line.endswith(_CLAUSE_END)
        and len(line.split()) <= _PLAIN_HEADING_MAX_WORDS
        and len(line) <= MAX_HEADING_CHARS
        and any(ch.isalpha() for ch in line)
    )


# A line of one character repeated that rules a plain-text page into sections (a notice's
# "-----" above and below "B. WHAT THE RULE SHOULD SAY"): a break between paragraphs, not
# words of the sentence under it (decision 0113).
_RULE_LINE: Final = re.compile(r"(?m)^[ \t]*([-=_~*#])\1{2,}[ \t]*$")


def _plain_blocks(text: str) -> list[Block]:
    """Paragraphs separated by blank lines; hard-wrapped lines are joined; a short line
    standing alone without closing punctuation is a heading."""
    blocks: list[Block] = []
    # Plain text has no heading levels: each heading replaces the one before it.
    headings = HeadingTracker()
    chunks = [
        c for c in re.split(r"\n[ \t]*\n", _RULE_LINE.sub("", text)) if normalize_whitespace(c)
    ]
    for i, chunk in enumerate(chunks):
        # A heading names what follows: the last chunk (a one-line note, a text cut at
        # the size cap mid-sentence) is never one.
        last = i == len(chunks) - 1
        lines = [line for line in map(normalize_whitespace, chunk.split("\n")) if line]
        if not last and all(map(_is_plain_heading, lines)):
            # a title block ("CITY COUNCIL - TRANSPORT COMMITTEE" over "Minutes of the
            # meeting held on 12 January 2026"): hard-wrapped prose ends a sentence
            blocks.extend(Block(line, "heading", headings.open(1, line)) for line in lines)
            continue
        if len(lines) > 1 and _heads_its_chunk(lines):
            # a section's heading on the line above its sentences ("Item 2. Shared
            # e-scooter scheme: annual review"), as meeting minutes and notes have them
            blocks.append(Block(lines[0], "heading", headings.open(1, lines[0])))
            chunk = "\n".join(lines[1:])
        blocks.extend(
            Block(paragraph, "paragraph", headings.context)
            for paragraph in _plain_paragraphs(chunk)
        )
    return blocks


# Words a hard-wrapped line may end on and a heading does not ("The committee met in
# the Town Hall on" / "Monday and agreed the budget.").
_LINE_BREAK_WORDS: Final = frozenset(
    {"a", "an", "the", "of", "to", "in", "on", "at", "by", "for", "from", "with", "and",
     "or", "but", "as", "is", "are", "was", "were"}
)  # fmt: skip


def _heads_its_chunk(lines: list[str]) -> bool:
    """The first line reads as a heading and every line under it is a sentence of its own,
    starting with a capital. Hard-wrapped prose breaks lines mid-sentence, fills its
    first line to the wrap width (so the line under it is no longer) and may break after
    an article or a preposition, which ends no heading."""
    first = lines[0]
    return (
        _is_plain_heading(first)
        and lines[1][:1].isupper()
        and len(first) < len(lines[1])
        and first.rsplit(" ", 1)[-1].lower() not in _LINE_BREAK_WORDS
        and all(line.endswith(_SENTENCE_END) for line in lines[1:])
    )


# A list item's mark at the start of a line of plain text: "- Advise the customer ...".
_BULLET: Final = re.compile(r"^[-*\u2022\u2013]\s+")


def _plain_paragraphs(chunk: str) -> list[str]:
    """A chunk's paragraphs: its lines joined (hard-wrapped prose), unless every line ends
    a sentence; then each line is a paragraph of its own (a list of findings written one
    per line, as a working paper's abstract or a notes file has them). In a list of two
    or more items marked "- ", each item (its wrapped lines joined) is a paragraph, and
    so is the line that leads it (decision 0110): a pharmacist's checklist joined into
    one paragraph had a dose, a caution and a question in one "sentence"."""
    lines = [normalize_whitespace(line) for line in chunk.split("\n")]
    lines = [line for line in lines if line]
    if sum(_BULLET.match(line) is not None for line in lines) >= 2:
        items: list[str] = []
        for line in lines:
            if _BULLET.match(line) or not items:
                items.append(_BULLET.sub("", line))
            else:
                items[-1] += " " + line
        return items
    if len(lines) > 1 and all(line.endswith(_SENTENCE_END) for line in lines):
        return lines
    return [normalize_whitespace(chunk)]


# An e-mail thread's quoted lines ("> Thanks, that all makes sense.", ">> A steroid
# injection can calm the pain ..."): at least two lines that open with ">" (decision 0099).
_MAIL_QUOTE: Final = re.compile(r"(?m)(?:^[ \t]*>.*\n){2}")
_QUOTE_MARKS: Final = re.compile(r"^((?:[ \t]*>)+)[ \t]?")


def _unquoted_mail(text: str) -> str:
    """``text`` with an e-mail thread's quote marks taken off its lines; where the depth
    of quoting changes, a paragraph ends (an earlier message starts)."""
    out: list[str] = []
    depth = 0
    for line in text.split("\n"):
        marks = _QUOTE_MARKS.match(line)
        level = marks.group(1).count(">") if marks else 0
        if level != depth:
            out.append("")
            depth = level
        out.append(line[marks.end() :] if marks else line)
    return "\n".join(out)


def _said_once(blocks: list[Block]) -> list[Block]:
    """``blocks`` less the paragraphs a thread repeats: a reply quotes the message before
    it, and the messages quoted in that one again."""
    out: list[Block] = []
    said = ""
    for block in blocks:
        words = word_text(block.text)
        if block.fragment_type != "heading" and words and words in said:
            continue
        said += " " + words
        out.append(block)
    return out


def extract_plain(
    text: str, url: str, domain: str, markdown: bool, *, byte_size: int | None = None
) -> Document:
    """Extract a plain text or Markdown document into paragraph fragments."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    size = byte_size if byte_size is not None else len(text.encode("utf-8"))
    if not markdown:
        thread = _MAIL_QUOTE.search(text) is not None
        blocks = _plain_blocks(_unquoted_mail(text) if thread else text)
        return assemble_document(
            _said_once(blocks) if thread else blocks,
            url=url,
            domain=domain,
            title=None,
            content_type="text/plain",
            byte_size=size,
        )
    text, hidden = _hidden_markup(text)
    lines, front_title = _split_front_matter(text.split("\n"))
    reader = _MarkdownReader()
    reader.read(lines)
    return assemble_document(
        reader.blocks,
        url=url,
        domain=domain,
        title=front_title or reader.first_h1,
        content_type="text/markdown",
        byte_size=size,
        detections=merge_detections(hidden),
    )
