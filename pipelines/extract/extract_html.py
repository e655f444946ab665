"""HTML extraction: trafilatura's main text with its structure, then fragments.

trafilatura finds the main content and returns it as XML (`head`, `p`, `list/item`,
`table/row/cell`, `quote`, `code`), which keeps the heading hierarchy that the
fragments' `heading_context` needs. When it finds nothing (tiny pages, odd markup), a
plain lxml walk over the block elements of the whole page stands in, with a warning.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from typing import Final

import lxml.etree
import lxml.html
import trafilatura

from lyra.pipelines.extract.dates import html_publication_date
from lyra.pipelines.extract.documents import (
    Block,
    Document,
    HeadingTracker,
    assemble_document,
    word_text,
)
from lyra.pipelines.extract.hidden_html import strip_hidden

# Tags whose content is never main text in the fallback walk.
_FALLBACK_DROP: Final = (
    "script", "style", "noscript", "template", "svg", "nav", "header", "footer", "aside",
    "form", "iframe", "button", "select", "head", "menu", "dialog",
)  # fmt: skip
_FALLBACK_BLOCKS: Final[frozenset[str]] = frozenset(
    {"h1", "h2", "h3", "h4", "h5", "h6", "p", "li", "dt", "dd", "blockquote", "pre",
     "table", "figcaption"}
)  # fmt: skip
# Elements of trafilatura's XML (and of HTML) that separate words when flattened.
_SEPARATING: Final[frozenset[str]] = frozenset(
    {"p", "lb", "br", "item", "row", "cell", "list", "head", "quote", "code", "div",
     "li", "td", "th", "tr", "ul", "ol", "table", "blockquote", "pre"}
)  # fmt: skip
# A line break (HTML's <br>, trafilatura's <lb/>) is kept through flattening as this
# character (Unicode's LINE SEPARATOR: whitespace to str.split and to \s) so that a
# paragraph can be cut where one was meant (`_break_paragraphs`).
LINE_BREAK: Final = "\u2028"
# Comments are read as a discussion page's content when the main text trafilatura took
# is shorter than DISCUSSION_MAIN_MAX_CHARS and they hold more text than it, and at
# least DISCUSSION_MIN_CHARS (`_discussion`).
DISCUSSION_MAIN_MAX_CHARS: Final = 1000
DISCUSSION_MIN_CHARS: Final = 400
# Markup that names replies (a thread's comments, a question's answers): only a page
# with it is asked again (a short article is not: a second trafilatura pass is 5-15 ms).
_MAY_HOLD_REPLIES: Final = re.compile(
    r"""(?:class|id)\s*=\s*["'][^"']*\b(?:comments?|commentarea|replies|reply|answers?|"""
    r"""posts?|thread|discussion)\b""",
    re.IGNORECASE,
)
# Class or id words of an <aside> that is the site's furniture, not the article's box.
_FURNITURE_NAMES: Final = re.compile(
    r"related|share|sharing|social|newsletter|subscribe|signup|sign-up|promo|advert|"
    r"\bads?\b|sponsor|banner|cookie|nav|menu|toc|comment|author|bio|more-",
    re.IGNORECASE,
)
# A figure's caption is read when it is a statement of its own ("About 1 in 20 patients
# needs a further operation on the same knee within five years."): a capital, six words
# or more, a full stop; not a news photo's description with its credit.
_CAPTION_STATEMENT: Final = re.compile(r"^[A-Z][^.!?]*(?:\s+\S+){5}[^!?]*\.$")
_PHOTO_CREDIT: Final = re.compile(
    r"\b(?:photo|photograph|image|picture|credit|courtesy|getty|reuters|afp|ap|"
    r"shutterstock|alamy|illustration)\b|\u00a9|\|",
    re.IGNORECASE,
)
# Where the main text stands in <span>s, the element holding it is found from the text
# node that holds the start of its longest paragraph (`_anchor`).
_PROBE_CHARS: Final = 12
_HOLDERS: Final = frozenset({"div", "section", "td", "article", "main", "body"})
# The line a forum's quote of an earlier post opens with ("Quote from RidgeTillRon:",
# "ann_b wrote:", "Originally posted by ann_b").
_QUOTE_LEAD: Final = re.compile(
    r"^(?:quote\s+from\s+\S+|\S+\s+wrote|originally\s+posted\s+by\s+\S+)\s*:?\s*",
    re.IGNORECASE,
)
_ELLIPSIS: Final = re.compile(r"\.\.\.|\u2026")
_LINE_BREAKS: Final = frozenset({"br", "lb"})
# What a line that ends a sentence ends with.
_SENTENCE_ENDS: Final = (".", "!", "?", "\u2026", ":", ";", '"', "'", "\u201d", "\u2019", ")")
_EDIT_LINK = re.compile(r"\s*\[\s*edit\s*\]\s*$", re.IGNORECASE)
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
# Characters no reader sees and lxml refuses in any string it builds (C0 controls but
# tab, newline and carriage return; DEL; the two noncharacters XML forbids): one stray
# \x01 after a comment made every tree edit raise, and the page was lost.
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f\ufffe\uffff]")
# Vertical tab and form feed separate words (form feed is HTML whitespace): spaces.
_SPACING_CONTROL = re.compile("[\x0b\x0c]")
_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.IGNORECASE
)
_CHARSET_SNIFF_BYTES: Final = 4096
# A footnote's number set as a superscript after punctuation ("at night.<sup>2</sup>"):
# bracketed, it reads as the reference marker it is ("night.[2]") instead of a digit
# glued to the sentence ("night.2"). After a letter or a digit a superscript may be an
# exponent ("km<sup>2</sup>", "10<sup>6</sup>"), so it is left as it is.
_FOOTNOTE_SUP = re.compile(
    r"(?<=[.,;:!?)\]\"'\u201d\u2019])(\s*)<sup\b[^>]*>\s*"
    r"(\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3})*)\s*</sup>",
    re.IGNORECASE,
)
_DEFAULT_HEADING_LEVEL: Final = 2
# A thread's posts: siblings of one tag and first class, at least this many; the post
# trafilatura took is found by this many characters of its longest paragraph.
SERIES_MIN: Final = 3
SERIES_KEY_CHARS: Final = 40
# A later member whose text is more than this share link text is navigation.
SERIES_MAX_LINK_SHARE: Final = 0.3


def sniff_html_charset(data: bytes) -> str | None:
    """The charset named by a `<meta charset>` or `http-equiv` tag near the top, if any."""
    found = _META_CHARSET.search(data[:_CHARSET_SNIFF_BYTES])
    return found.group(1).decode("ascii").lower() if found else None


def _flatten(element: lxml.etree._Element) -> str:
    """Text of an element with a space wherever a block or line break separated words."""
    parts: list[str] = []

    def visit(node: lxml.etree._Element) -> None:
        if not isinstance(node.tag, str):  # comments, processing instructions
            if node.tail:
                parts.append(node.tail)
            return
        tag = node.tag.lower()
        separating = tag in _SEPARATING
        if tag in _LINE_BREAKS:
            parts.append(LINE_BREAK)
        elif separating:
            parts.append(" ")
        if node.text:
            parts.append(node.text)
        for child in node:
            visit(child)
        if separating and tag not in _LINE_BREAKS:
            parts.append(" ")
        if node.tail:
            parts.append(node.tail)

    if element.text:
        parts.append(element.text)
    for child in element:
        visit(child)
    return "".join(parts)


def _break_paragraphs(text: str) -> list[str]:
    """The paragraphs of a block's text whose line breaks part them: a line that ends no
    sentence, followed by one that opens with a capital ("... that's the first step<br>
    <br>Can't help on the pregnancy side"), is a paragraph of its own, as a forum post
    or an older page writes paragraphs with <br> (trafilatura keeps one <lb/> for
    two). Every other break is a space: a line that ends a sentence is split from the
    next by the sentence splitter, and a lower-case line goes on the one before."""
    pieces = text.split(LINE_BREAK)
    out = [pieces[0]]
    for piece in pieces[1:]:
        before = out[-1].rstrip()
        if before and not before.endswith(_SENTENCE_ENDS) and piece.lstrip()[:1].isupper():
            out.append(piece)
        else:
            out[-1] = f"{out[-1]} {piece}"
    return out


def _heading_level(rend: str | None, tag: str) -> int:
    for name in (rend or "", tag):
        if len(name) == 2 and name[0] in "hH" and name[1].isdigit():
            return max(1, min(6, int(name[1])))
    return _DEFAULT_HEADING_LEVEL


def _table_rows(table: lxml.etree._Element, row_tag: str, cell_tags: set[str]) -> list[list[str]]:
    """A table's rows as lists of cell texts, each cell in its column.

    A cell that spans columns leaves the columns it covers empty (trafilatura writes
    them so; an HTML ``colspan`` is read so here). Cells a rowspan carried down are
    taken from the row above: trafilatura leaves them empty at the row's start; an
    HTML row leaves them out, so a row of fewer cells than the one above (but more
    than one) takes its first cells from that row ("General disorders | Very common |
    Injection-site pain" over "Common | Pyrexia, fatigue"), and every row reads against
    the header (decisions 0097, 0098). A second header row under cells that span it
    ("Anticipated absolute effects" over "Risk with placebo | Risk with probiotics")
    names those columns. A row of one cell (a note across the table) is one cell;
    columns empty in every row are left out."""
    rows: list[list[str]] = []
    heads: list[bool] = []
    full: list[str] = []
    carried: dict[int, tuple[str, int]] = {}  # column: (text, rows still to fill)
    for row in table.iter(row_tag):
        cells: list[str] = []
        head = True
        for cell in row:
            if cell.tag not in cell_tags:
                continue
            _carry(cells, carried)
            head = head and (cell.tag == "th" or cell.get("role") == "head")
            text = " ".join(_flatten(cell).split())
            down = _span(cell.get("rowspan"))
            for _ in range(_span(cell.get("colspan"))):
                if down > 1:
                    carried[len(cells)] = (text, down - 1)
                cells.append(text)
                text = ""
        _carry(cells, carried)
        if not any(cells):
            continue
        lead = next(i for i, c in enumerate(cells) if c)
        if not any(cells[lead + 1 :]):
            cells = [cells[lead]]
        elif lead and rows and len(rows[-1]) == len(cells):
            cells = rows[-1][:lead] + cells[lead:]
        elif 1 < len(cells) < len(full):
            cells = full[: len(full) - len(cells)] + cells
        if len(cells) >= len(full):
            full = cells
        rows.append(cells)
        heads.append(head)
    if len(rows) > 2 and heads[0] and _names_spanned_columns(rows[0], rows[1]):
        rows[:2] = [[low or top for top, low in zip(rows[0], rows[1], strict=True)]]
    width = max((len(r) for r in rows), default=0)
    used = [any(k < len(r) and r[k] for r in rows if len(r) > 1) for k in range(width)]
    return [[c for k, c in enumerate(r) if used[k]] if len(r) > 1 else r for r in rows]


def _span(value: str | None) -> int:
    """A ``colspan`` or ``rowspan`` attribute's count (1 when absent or odd; at most 64)."""
    return min(int(value), 64) if value and value.isdigit() and value != "0" else 1


def _carry(cells: list[str], carried: dict[int, tuple[str, int]]) -> None:
    """Append to ``cells`` the texts that rowspans of rows above carry into its next
    columns."""
    while len(cells) in carried:
        text, left = carried.pop(len(cells))
        if left > 1:
            carried[len(cells)] = (text, left - 1)
        cells.append(text)


def _names_spanned_columns(top: list[str], low: list[str]) -> bool:
    """``low`` is a second header row: no number, as wide as ``top``, and naming a column
    that a cell of ``top`` spans (left empty there)."""
    return (
        len(top) == len(low)
        and not any(ch.isdigit() for cell in low for ch in cell)
        and any(low[k] and not top[k] for k in range(len(top)))
    )


def _table_blocks(
    table: lxml.etree._Element, row_tag: str, cell_tags: set[str], context: str | None
) -> list[Block]:
    """The table's block, after its caption's: a first row of one cell over rows of
    more ("Table 1: Adverse reactions ...", as trafilatura gives a <caption>) is the
    table's title, not a row of it."""
    rows = _table_rows(table, row_tag, cell_tags)
    blocks = []
    caption = table.find("caption")
    if caption is not None and " ".join(_flatten(caption).split()):
        blocks.append(Block(" ".join(_flatten(caption).split()), "paragraph", context))
    if len(rows) > 2 and len(rows[0]) == 1 and all(len(r) > 1 for r in rows[1:3]):
        blocks.append(Block(rows.pop(0)[0], "paragraph", context))
    if rows:
        blocks.append(Block("\n".join(" | ".join(r) for r in rows), "table", context))
    return blocks


class _XmlWalker:
    """Turns trafilatura's XML `<main>` into blocks with heading chains."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.headings = HeadingTracker()

    def walk(self, container: lxml.etree._Element) -> None:
        # trafilatura puts loose text straight into <main> (a page that is one
        # heading, or text between blocks): it is a paragraph of its own.
        self._emit(container.text or "", "paragraph")
        for element in container:
            if isinstance(element.tag, str):
                self._element(element)
            self._emit(element.tail or "", "paragraph")

    def _emit(self, text: str, kind: str) -> None:
        pieces = _break_paragraphs(text) if kind == "paragraph" else [text]
        for piece in pieces:
            if piece.strip():
                self.blocks.append(
                    Block(piece.replace(LINE_BREAK, " "), kind, self.headings.context)
                )

    def _element(self, element: lxml.etree._Element) -> None:
        tag = element.tag
        if tag == "head":
            text = _EDIT_LINK.sub("", " ".join(_flatten(element).split()))
            if text:
                level = _heading_level(element.get("rend"), tag)
                parents = self.headings.open(level, text)
                self.blocks.append(Block(text, "heading", parents))
        elif tag == "list":
            self._list(element)
        elif tag == "table":
            for block in _table_blocks(element, "row", {"cell"}, self.headings.context):
                self._emit(block.text, block.fragment_type)
        elif tag == "quote":
            self._emit(_flatten(element), "quote")
        elif tag in {"div", "main", "section"}:
            self.walk(element)
        else:
            self._emit(_flatten(element), "paragraph")

    def _list(self, element: lxml.etree._Element) -> None:
        # A definition list's term ("dt-1") is read with its definition ("dd-1"):
        # "E-scooter: A standing scooter with an electric motor ...", not a definition
        # without its subject (decision 0090).
        term = ""
        for item in element:
            if item.tag != "item":
                if isinstance(item.tag, str):
                    self._element(item)
                continue
            nested = [child for child in item if child.tag == "list"]
            own = " ".join(_flatten_without(item, nested).split())
            rend = item.get("rend") or ""
            if rend.startswith("dt") and not nested:
                self._emit(term, "list_item")
                term = own
                continue
            if term and rend.startswith("dd") and own:
                own = f"{term.rstrip(':')}: {own}"
            else:
                self._emit(term, "list_item")
            term = ""
            self._emit(own, "list_item")
            for sub in nested:
                self._list(sub)
        self._emit(term, "list_item")


def _flatten_without(element: lxml.etree._Element, skip: list[lxml.etree._Element]) -> str:
    parts = [element.text or ""]
    for child in element:
        if child in skip:
            parts.append(child.tail or "")
        else:
            parts.append(" " + _flatten(child) + " " + (child.tail or ""))
    return "".join(parts)


def _trafilatura_xml(html: str, url: str, *, comments: bool) -> lxml.etree._Element | None:
    xml = trafilatura.extract(
        html,
        url=url or None,
        output_format="xml",
        with_metadata=True,
        include_tables=True,
        include_comments=comments,
        include_images=False,
        include_links=False,
        include_formatting=False,
        # Recall over precision: ranking and NLI downstream judge relevance, but text
        # dropped here is lost for good (measured on ../shared/realworld/articles).
        favor_recall=True,
    )
    return lxml.etree.fromstring(xml.encode("utf-8")) if xml else None


def _walked(root: lxml.etree._Element | None, tag: str) -> list[Block]:
    walker = _XmlWalker()
    for element in root.iter(tag) if root is not None else ():
        walker.walk(element)
    return walker.blocks


def _trafilatura_blocks(html: str, url: str) -> tuple[list[Block], str | None]:
    root = _trafilatura_xml(html, url, comments=False)
    if root is None:
        return [], None
    blocks = _walked(root, "main")
    if _text_size(blocks) < DISCUSSION_MAIN_MAX_CHARS and _MAY_HOLD_REPLIES.search(html):
        # Little main text: perhaps a discussion whose replies trafilatura set apart as
        # comments. Asked again for them (asking with comments from the start changes
        # what it takes for the main text of some articles).
        replies = _discussion(
            blocks, _walked(_trafilatura_xml(html, url, comments=True), "comments")
        )
        blocks += replies or _discussion(blocks, _thread_posts(html, blocks))
    return blocks, root.get("title")


def _thread_posts(html: str, main: list[Block]) -> list[Block]:
    """The paragraphs of a thread's posts, where trafilatura took the first post as the
    main text and set none of the replies apart as comments (a forum of nested
    ``<article class="post">``s, decision 0102): each ``<p>`` inside an element whose
    class or id names a post, a reply, a comment or an answer, once, less what the main
    text holds."""
    tree = _parse_html(html)
    if tree is None:
        return []
    _drop_furniture(tree)
    taken = {_normal(b.text) for b in main}
    found: list[Block] = []
    for node in tree.iter("p"):
        marked = any(
            _MAY_HOLD_REPLIES.search(f'class="{a.get("class", "")}" id="{a.get("id", "")}"')
            for a in node.iterancestors()
        )
        text = _flatten(node).replace(LINE_BREAK, " ").strip()
        if marked and text and _normal(text) not in taken:
            taken.add(_normal(text))
            found.append(Block(text, "paragraph", None))
    return found


# An element that is a reader's comment, or holds them, by its class or id ("comment",
# "comments", "comment-list", "commentlist", "comment-content"); and the words of a
# comment's furniture, who wrote it, when, its votes and links (decision 0136).
_COMMENT_NAME_WORDS: Final = frozenset({"comment", "comments", "commentlist", "commentarea"})
_COMMENT_FURNITURE_WORDS: Final = frozenset(
    {"author", "commenter", "user", "username", "meta", "metadata", "time", "date", "score",
     "rep", "reputation", "votes", "vote", "likes", "like", "actions", "action", "policy",
     "note", "rules", "count", "title", "respond", "form", "link", "more", "closed", "says",
     "avatar", "byline", "share", "report", "rating", "tagline"}
)  # fmt: skip
# A comment's text standing in an element of its own rather than in <p>s.
_COMMENT_TEXT_WORDS: Final = frozenset({"copy", "text", "content", "body"})
_NAME_WORD: Final = re.compile(r"[^\W_]+")
# The heading context of every comment fragment.
READER_COMMENTS: Final = "Reader comments"


def _name_words(element: lxml.etree._Element) -> set[str]:
    """The words of an element's class and id: "comment-author vcard" -> comment, author,
    vcard."""
    return set(_NAME_WORD.findall(f"{element.get('class', '')} {element.get('id', '')}".lower()))


def _comment_text_node(node: lxml.etree._Element) -> bool:
    """A paragraph, or an element whose class names a comment's text ("comment-copy",
    "comment-content") with no paragraph inside."""
    if node.tag == "p":
        return True
    words = _name_words(node)
    return (
        "comment" in words
        and not _COMMENT_TEXT_WORDS.isdisjoint(words)
        and next(node.iter("p"), None) is None
    )


def _reader_comments(
    tree: lxml.html.HtmlElement | None, main: list[Block], anchor: lxml.etree._Element | None
) -> list[Block]:
    """Readers' comments under an article, a post or an answer, each a "comment" fragment
    apart from the body trafilatura took (decision 0136): the text of every paragraph
    inside an element whose class or id names comments, less their furniture (who, when,
    votes, links) and less what the main text already holds. A comment is a reader's
    account, which another source may contradict ("One call a day while it's properly
    hot is plenty"); kept apart, the page's body reads as before. An element that holds
    the main text is no comment, whatever its class says ("comments-open")."""
    if tree is None:
        return []
    wrappers = {anchor, *anchor.iterancestors()} if anchor is not None else set()
    taken = {_normal(b.text) for b in main}
    found: list[Block] = []
    for node in tree.iter():
        if not isinstance(node.tag, str) or not _comment_text_node(node):
            continue
        chain = [node, *node.iterancestors()]
        # up to the nearest element that names a comment
        at = next((i for i, a in enumerate(chain) if _COMMENT_NAME_WORDS & _name_words(a)), None)
        if at is None or chain[at] in wrappers or chain[at].tag in ("html", "body"):
            continue
        if any(a.tag in _FALLBACK_DROP for a in chain) or any(
            _COMMENT_FURNITURE_WORDS & _name_words(a) for a in chain[: at + 1]
        ):
            continue
        # a comment's text in an element of its own, less the name, date and votes in it
        skip = [c for c in node if _COMMENT_FURNITURE_WORDS & _name_words(c)]
        text = _normal(_flatten_without(node, skip).replace(LINE_BREAK, " "))
        if text and text not in taken:
            taken.add(text)
            found.append(Block(text, "comment", READER_COMMENTS))
    return found


def _text_size(blocks: list[Block]) -> int:
    return sum(len(b.text) for b in blocks if b.fragment_type != "heading")


def _discussion(main: list[Block], comments: list[Block]) -> list[Block]:
    """The comments trafilatura set apart, where they are the page's content: a thread
    whose replies say more than the little text it took for the main one (decision
    0097). On an article or a blog post the readers' comments stay out, as they always
    did; on a discussion page (nested replies, a question's answers) they are what it
    says, and a planted wrong side may stand in a reply."""
    if _text_size(comments) <= max(DISCUSSION_MIN_CHARS, _text_size(main)):
        return []
    return comments


def _parse_html(html: str) -> lxml.html.HtmlElement | None:
    cleaned = _XML_DECLARATION.sub("", html, count=1)
    if not cleaned.strip():
        return None
    try:
        return lxml.html.document_fromstring(cleaned)
    except (lxml.etree.ParserError, ValueError):
        return None


def _page_title(tree: lxml.html.HtmlElement | None) -> str | None:
    if tree is None:
        return None
    for xpath in ("//title", "//h1"):
        for node in tree.xpath(xpath):
            text = " ".join(node.text_content().split())
            if text:
                return text
    return None


def _fallback_blocks(tree: lxml.html.HtmlElement | None) -> list[Block]:
    """Block elements of the whole page in document order, minus obvious furniture."""
    if tree is None:
        return []
    _drop_furniture(tree)
    blocks = _walk_blocks(tree, HeadingTracker())
    if not any(b.fragment_type != "heading" for b in blocks):
        # Pages of bare text in <div>s: one paragraph per non-empty line of the body.
        body = tree.find("body")
        source = body if body is not None else tree
        for line in source.text_content().split("\n"):
            if line.strip():
                blocks.append(Block(line, "paragraph", None))
    return blocks


def _drop_furniture(tree: lxml.etree._Element) -> None:
    for node in tree.xpath("|".join(f".//{tag}" for tag in _FALLBACK_DROP)):
        node.drop_tree()


def _walk_blocks(
    root: lxml.etree._Element, headings: HeadingTracker, context: str | None = None
) -> list[Block]:
    """The block elements under `root` in document order (none inside another); those
    before any heading under `root` take `context`."""
    blocks: list[Block] = []
    emitted: set[lxml.etree._Element] = set()
    for node in root.iter():
        if not isinstance(node.tag, str) or node.tag not in _FALLBACK_BLOCKS:
            continue
        if any(ancestor in emitted for ancestor in node.iterancestors()):
            continue
        emitted.add(node)
        tag = node.tag
        here = headings.context or context
        if tag[0] == "h" and tag[1:].isdigit():
            text = _EDIT_LINK.sub("", " ".join(node.text_content().split()))
            if text:
                parents = headings.open(int(tag[1]), text)
                blocks.append(Block(text, "heading", parents or context))
        elif tag == "table":
            blocks.extend(_table_blocks(node, "tr", {"td", "th"}, here))
        elif tag == "li":
            blocks.append(Block(_flatten(node).replace(LINE_BREAK, " "), "list_item", here))
        elif tag == "blockquote":
            blocks.append(Block(_flatten(node).replace(LINE_BREAK, " "), "quote", here))
        else:
            blocks.extend(Block(p, "paragraph", here) for p in _break_paragraphs(_flatten(node)))
    return blocks


def _normal(text: str) -> str:
    return " ".join(text.split())


def _anchor(
    tree: lxml.html.HtmlElement | None, paragraphs: list[str]
) -> lxml.etree._Element | None:
    """The element of the page that holds the longest paragraph trafilatura took."""
    if tree is None or not paragraphs:
        return None
    key = _normal(max(paragraphs, key=len))[:SERIES_KEY_CHARS]
    found = next(
        (n for n in tree.iter(*_FALLBACK_BLOCKS) if key in _normal(n.text_content())), None
    )
    if found is not None:
        return found
    # Text in <div>s and <span>s (a page exported from a word processor): from the text
    # node where the paragraph starts, up to the first <div>, <section> or <td> that holds
    # all of it (found in one pass: a page of nested <div>s must not read each one's text).
    probe = key[:_PROBE_CHARS]
    for node in tree.iter():
        if not isinstance(node.tag, str):
            continue
        if node.text and probe in _normal(node.text):
            start = node
        elif node.tail and probe in _normal(node.tail) and node.getparent() is not None:
            start = node.getparent()
        else:
            continue
        return next(
            (
                n
                for n in [start, *start.iterancestors()]
                if n.tag in _HOLDERS and key in _normal(n.text_content())
            ),
            None,
        )
    return None


def _callout_blocks(blocks: list[Block], anchor: lxml.etree._Element | None) -> list[Block]:
    """The text of the boxes an article sets beside its own text: a fact sheet's "Quick
    facts" and "Tip", a product monograph's "Directions" and "Warnings", and the figure
    captions that state something (decision 0099).

    trafilatura drops every <aside>, and a page's own boxes with the site's sidebars. An
    <aside> is the article's own when it lies inside the <article> (else the <main>, or
    the element with role="main") that holds the main text trafilatura took; one whose
    class or id names furniture (related links, sharing, a newsletter, an advert) or
    whose text is mostly links is left out, as are a box's labels ("Advertisement") and
    what the main text already says (a pull quote).
    """
    if anchor is None:
        return []
    root = next(
        (
            n
            for tag in ("article", "main")
            for n in anchor.iterancestors()
            if n.tag == tag or (tag == "main" and n.get("role") == "main")
        ),
        None,
    )
    if root is None:
        return []
    seen = {_normal(b.text) for b in blocks}
    said = " ".join(word_text(b.text) for b in blocks)
    out: list[Block] = []
    for aside in root.iter("aside"):
        if any(a.tag == "aside" for a in aside.iterancestors()):
            continue
        names = f"{aside.get('class') or ''} {aside.get('id') or ''}"
        if _FURNITURE_NAMES.search(names):
            continue
        box = copy.deepcopy(aside)
        _drop_furniture(box)
        for figure in list(box.iter("figure")):
            figure.drop_tree()  # its caption is read as every caption is, below
        text = _normal(box.text_content())
        links = sum(len(_normal(a.text_content())) for a in box.iter("a"))
        if not text or links > SERIES_MAX_LINK_SHARE * len(text):
            continue
        for block in _walk_blocks(box, HeadingTracker()):
            text = _normal(block.text)
            if text in seen or (block.fragment_type != "heading" and len(text.split()) < 4):
                continue  # empty, said already, or a label ("Advertisement")
            if all(word_text(part) in said for part in _ELLIPSIS.split(text)):
                continue  # a pull quote: the article's own words again
            seen.add(text)
            out.append(block)
    for caption in root.iter("figcaption"):
        text = _normal(caption.text_content())
        if _CAPTION_STATEMENT.match(text) and not _PHOTO_CREDIT.search(text) and text not in seen:
            seen.add(text)
            out.append(Block(text, "paragraph", None))
    return out


def _without_requotes(blocks: list[Block]) -> list[Block]:
    """``blocks`` less the quotes that repeat what the page said before them: a forum
    reply quoting an earlier post ("Quote from RidgeTillRon: our organic matter hasn't
    budged ...") is that post's words again, not a second statement (decision 0099)."""
    if not any(block.fragment_type == "quote" for block in blocks):
        return blocks
    out: list[Block] = []
    said = ""
    for block in blocks:
        if block.fragment_type == "quote":
            quoted = _QUOTE_LEAD.sub("", _normal(block.text), count=1)
            if word_text(quoted) and word_text(quoted) in said:
                continue
        said += " " + word_text(block.text)
        out.append(block)
    return out


def _series_blocks(
    tree: lxml.html.HtmlElement | None,
    blocks: list[Block],
    anchor: lxml.etree._Element | None = None,
) -> list[Block]:
    """The blocks of the rest of a series whose first member trafilatura took for the
    page's main text: a forum thread's replies, a how-to's steps (decision 0096).

    trafilatura keeps the first element its body XPaths match; on a forum thread with
    no <main> that is the first post's body (phpBB's `div.postbody`), and every reply
    was lost. The element it took is found by its longest paragraph; where that
    element, or one around it, is the first of at least `SERIES_MIN` siblings of its
    tag and first class (`div.post`, `div.post bg2`, `div.step`), the later siblings
    are read by the fallback walk, minus furniture, minus what was already extracted,
    and minus siblings that are mostly links (a "related stories" strip). A series
    whose first member is not the one taken (the article beside its teasers) is left.
    """
    paragraphs = [b.text for b in blocks if b.fragment_type == "paragraph"]
    anchor = anchor if anchor is not None else _anchor(tree, paragraphs)
    if anchor is None:
        return []
    for node in [anchor, *anchor.iterancestors()]:
        parent = node.getparent()
        if parent is None or node.tag in {"body", "html"}:
            return []
        first = (node.get("class") or "").split()[:1]
        if not first:
            continue
        series = [
            s for s in parent if s.tag == node.tag and (s.get("class") or "").split()[:1] == first
        ]
        if len(series) >= SERIES_MIN:
            break
    else:
        return []
    if series[0] is not node:
        return []
    seen = {_normal(b.text) for b in blocks}
    context = next((b.heading_context for b in blocks if b.text in paragraphs), None)
    out: list[Block] = []
    for member in series[1:]:
        member = copy.deepcopy(member)
        _drop_furniture(member)
        text = _normal(member.text_content())
        links = sum(len(_normal(a.text_content())) for a in member.iter("a"))
        if not text or links > SERIES_MAX_LINK_SHARE * len(text):
            continue
        for block in _walk_blocks(member, HeadingTracker(), context):
            if _normal(block.text) and _normal(block.text) not in seen:
                seen.add(_normal(block.text))
                out.append(block)
    return out


def extract_html(html: str, url: str, domain: str, *, byte_size: int | None = None) -> Document:
    """Extract the main text of an HTML page into a `Document` with fragments.

    Hidden elements are removed first (`hidden_html.strip_hidden`), so neither
    trafilatura nor the fallback walk ever sees text a reader of the page would not.
    """
    warnings: list[str] = []
    size = byte_size if byte_size is not None else len(html.encode("utf-8", errors="replace"))
    scan = strip_hidden(_SPACING_CONTROL.sub(" ", _CONTROL.sub("", html)))
    html = _FOOTNOTE_SUP.sub(r"\1<sup>[\2]</sup>", scan.html)
    blocks: list[Block] = []
    title: str | None = None
    try:
        blocks, title = _trafilatura_blocks(html, url)
    except (lxml.etree.LxmlError, ValueError, TypeError, RecursionError) as exc:
        # Hostile or broken markup can trip trafilatura or its XML round trip; the
        # fallback walk still gets the text, and the warning says why.
        warnings.append(f"trafilatura failed ({type(exc).__name__}); used the fallback")
    tree = _parse_html(html)
    # Read the <title> before the fallback walk drops <head> from the tree.
    title = title or _page_title(tree)
    if not any(b.fragment_type != "heading" for b in blocks):
        if not warnings:
            warnings.append("trafilatura found no main text; used the whole-page fallback")
        blocks = _fallback_blocks(tree)
    else:
        # the element holding the main text, found once for both readings below
        anchor = _anchor(tree, [b.text for b in blocks if b.fragment_type == "paragraph"])
        blocks = [*blocks, *_series_blocks(tree, blocks, anchor)]
        blocks += _callout_blocks(blocks, anchor)
        blocks = _without_requotes(blocks)
        blocks += _reader_comments(tree, blocks, anchor)
    doc = assemble_document(
        blocks,
        url=url,
        domain=domain,
        title=title,
        content_type="text/html",
        byte_size=size,
        warnings=warnings,
        detections=scan.detections,
    )
    dated = html_publication_date(html, url)
    if dated is None:
        return doc
    return dataclasses.replace(doc, published_date=dated.date, date_source=dated.source)
