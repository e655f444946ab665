"""Hidden HTML removed before extraction, and the channels no reader sees, checked.

Issue 12 item 5 (decision 0016). A person reading a page never sees text under
`display:none`, `visibility:hidden`, zero opacity or size, off-screen positioning, the
`hidden` attribute, `aria-hidden="true"`, a `<template>` or a comment, nor text in
the colour of what is behind it; an AI reading the extracted text would.
`strip_hidden` drops those elements (with lxml, before trafilatura sees the page),
including elements hidden by the rules of a `<style>` block (any selector
`cssselect` reads: descendants, attributes, `:not()`), and reports each removal that
held text. It also reads the channels that are never main text (alt, title and
aria-label attributes, `<meta>` descriptions, JSON-LD) for instructions to AI readers,
reports them and blanks the attribute.

Not read: rules inside `@media` with a condition (a responsive rule hides for one
screen size, not for every reader; `@media all` or `screen` alone is read), states
(`:hover`), pseudo-elements, and external stylesheets (a page that links one is judged
on the backgrounds it declares itself, never on the white a page without one shows); a
stylesheet linked as a `data:` URL (text/css, text/plain or no type) is the page's own
and read like a `<style>`.
A rule that hides `<html>` or `<body>` is a loading trick and hides nothing.

Colours and backgrounds are read in `css_colour`; lengths, transforms and clips
(text shrunk, clipped or moved off-screen) in `css_geometry`.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import re
import time
import urllib.parse
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

import cssselect
import cssselect.xpath
import lxml.cssselect
import lxml.etree
import lxml.html

from lyra.pipelines.extract.css_colour import (
    SAME_COLOUR,
    background_colour,
    colours_of,
    near_any,
)
from lyra.pipelines.extract.css_colour import (
    parse_colour as parse_colour,  # read by tests through this module too
)
from lyra.pipelines.extract.css_geometry import (
    FAINT,
    LENGTH,
    font_px,
    fraction,
    geometry,
    length,
    no_line_height,
)
from lyra.pipelines.extract.injection import (
    Detection,
    find_instructions,
    hidden_detections,
    invisible_detections,
    merge_detections,
    remove_invisible,
)

log = logging.getLogger(__name__)

# Tags whose content is never shown, whatever the styles say.
_NEVER_SHOWN: Final[frozenset[str]] = frozenset({"template"})
# Shown only without scripts: dropped, and reported only when it holds an instruction.
_RARELY_SHOWN: Final[frozenset[str]] = frozenset({"noscript"})
# Never removed: a hidden <html> or <body> is a loading trick (anti-flicker snippets,
# fade-ins that scripts undo), not hidden text; dropping it would drop the page.
_PAGE_ROOTS: Final[frozenset[str]] = frozenset({"html", "head", "body"})
_TEXT_ATTRIBUTES: Final = ("alt", "title", "aria-label", "aria-description", "placeholder")
_META_NAMES: Final[frozenset[str]] = frozenset(
    {"description", "og:description", "twitter:description", "keywords", "abstract"}
)
# Text smaller than this (px) is unreadable: a common way to hide a sentence.
_TINY_FONT_PX: Final = 2.0
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
# At-rules whose rules apply to every reader (cascade layers; feature queries a
# browser that renders the page passes), read like top-level rules, so deep.
_EVERY_READER_AT_RULES: Final = ("@layer", "@supports")
_MAX_NESTING: Final = 4
# Bounds on what one page's styles may cost: a declaration's value, a selector, and
# the time all its rules may spend being matched against the page.
_MAX_VALUE_CHARS: Final = 2000
_MAX_SELECTOR_CHARS: Final = 300
_COMBINATOR = re.compile(r"\s*[>+~]\s*|\s+")
_MATCH_BUDGET_S: Final = 1.0
_VAR = re.compile(r"var\(\s*(--[\w-]+)\s*(?:,\s*([^()]*))?\)", re.IGNORECASE)
# Style rules read per page: enough for any page's own <style>, bounded for a hostile one.
_MAX_RULES: Final = 2000
# Characters of a data: URL stylesheet read (its rules count against _MAX_RULES too).
_MAX_DATA_SHEET_CHARS: Final = 400_000
# Text blurred by this much (px) cannot be read.
_BLUR_PX: Final = 8.0
_HAS_LETTER = re.compile(r"[^\W\d_]")
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class HiddenScan:
    """The page with its hidden parts removed, and what was found."""

    html: str
    detections: list[Detection] = field(default_factory=list)


def _declarations(style: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in _CSS_COMMENT.sub("", style).split(";"):
        name, sep, value = part.partition(":")
        if sep and len(value) <= _MAX_VALUE_CHARS:  # longer is no style a page needs
            name, value = _unescape(name).strip().lower(), _unescape(value).lower()
            value = " ".join(re.sub(r"!\s*important", "", value).split())
            out[name] = value
            if name == "font":  # the shorthand sets the size: `font: 0/0 a`
                size = _font_shorthand_size(value)
                if size is not None:
                    out["font-size"] = size
    return out


# A CSS escape: a backslash and up to six hex digits (and one white space after them),
# or a backslash and the character it escapes.
_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})[ \t\n\r\f]?|(.))", re.DOTALL)
_CSS_WIDE: Final = frozenset({"inherit", "initial", "unset", "revert", "revert-layer"})


def _unescape(text: str) -> str:
    """`text` with its CSS escapes read (`displ\\61 y` is `display`)."""
    if "\\" not in text:
        return text

    def char(match: re.Match[str]) -> str:
        if match.group(2) is not None:
            return match.group(2)
        point = int(match.group(1), 16)
        return chr(point) if 0 < point <= 0x10FFFF and not 0xD800 <= point <= 0xDFFF else "\ufffd"

    return _ESCAPE.sub(char, text)


def _font_shorthand_size(value: str) -> str | None:
    """The font size a `font` shorthand sets (`0` of `font: 0/0 a`), None when none."""
    if value in _CSS_WIDE:
        return value
    for token in re.sub(r"\s*/\s*", "/", value).split():
        head = token.split("/")[0]
        found = LENGTH.match(head)
        if head == "0" or (found is not None and found.group(2)):
            return head
        if head.startswith(("'", '"')):
            return None  # the family: the size comes before it
    return None


def hiding_rule(style: str) -> str | None:
    """The reason a set of CSS declarations hides its element's text, or None."""
    return hiding_rule_of(_declarations(style))


def hiding_rule_of(d: dict[str, str]) -> str | None:
    """`hiding_rule` of declarations already read."""
    if d.get("display") == "none":
        return "display:none"
    if d.get("visibility") in {"hidden", "collapse"}:
        return "visibility:hidden"
    if d.get("content-visibility") == "hidden":
        return "visibility:hidden"
    for opacity in (
        d.get("opacity", ""),
        *re.findall(r"\bopacity\(([^()]*)\)", d.get("filter", "")),
    ):
        level = fraction(opacity)
        if level is not None and level < FAINT:
            return "opacity:0"
    font = font_px(d.get("font-size", ""))
    if font is not None and font < _TINY_FONT_PX:
        return "font-size:0"
    colour = parse_colour(d.get("color", ""))
    if colour is not None and colour[3] == 0:
        return "color:transparent"
    fill = parse_colour(d.get("-webkit-text-fill-color", ""))
    clipped_to_text = "text" in (
        d.get("background-clip", "") + d.get("-webkit-background-clip", "")
    )
    if fill is not None and fill[3] == 0 and not clipped_to_text:
        # Transparent letters over a background clipped to them are gradient text.
        return "color:transparent"
    blur = max((length(b) or 0.0 for b in re.findall(r"\bblur\(([^()]*)\)", d.get("filter", ""))),
               default=0.0)  # fmt: skip
    if blur >= _BLUR_PX:
        return "filter:blur"
    return geometry(d)


def _css_rules(tree: lxml.html.HtmlElement) -> list[tuple[str, str]]:
    """(selector list, declarations) of every rule of the page's `<style>` blocks that
    applies to every reader: at top level, or inside `@layer`, `@supports` and a
    `@media` for every screen (a `@media` rule with a condition hides for one screen
    size, not every reader)."""
    rules: list[tuple[str, str]] = []
    # In document order, as the cascade reads them: a stylesheet linked as a data: URL
    # is the page's own text too (decision 0080).
    for node in tree.iter("style", "link"):
        css = (node.text or "") if node.tag == "style" else _data_stylesheet(node)
        if css:
            _parse_rules(_CSS_COMMENT.sub("", css), rules, depth_left=_MAX_NESTING)
    return rules


def _data_stylesheet(link: lxml.html.HtmlElement) -> str:
    """The CSS of a `<link rel=stylesheet>` whose href is a `data:` URL of CSS or text (plain,
    percent-encoded or base64) for every screen; "" for any other link."""
    if "stylesheet" not in (link.get("rel") or "").lower().split():
        return ""
    media = link.get("media")
    if media is not None and not _every_reader(f"@media {media}"):
        return ""
    href = (link.get("href") or "").strip()
    if href[:5].lower() != "data:" or "," not in href:
        return ""
    head, _, payload = href[5:].partition(",")
    params = [p.strip().lower() for p in head.split(";")]
    # Browsers apply text/plain (and a bare "data:,") in quirks mode too.
    if params[0] not in ("", "text/css", "text/plain"):
        return ""
    payload = payload[:_MAX_DATA_SHEET_CHARS]
    if "base64" in params[1:]:
        try:
            raw = base64.b64decode(urllib.parse.unquote(payload) + "==", validate=False)
        except (binascii.Error, ValueError):
            return ""
        return raw.decode("utf-8", errors="replace")
    return urllib.parse.unquote(payload)


def _parse_rules(css: str, rules: list[tuple[str, str]], *, depth_left: int) -> None:
    depth = 0
    start = 0
    selector = ""
    for index, char in enumerate(css):
        if char == ";" and depth == 0:
            start = index + 1  # the end of a statement (`@import …;`, `@layer a, b;`)
        elif char == "{":
            if depth == 0:
                selector = css[start:index].strip()
                start = index + 1
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                body = css[start:index]
                if not selector.startswith("@"):
                    rules.append((selector, body))
                elif _every_reader(selector) and depth_left > 0:
                    _parse_rules(body, rules, depth_left=depth_left - 1)
                start = index + 1
            depth = max(depth, 0)


def _every_reader(prelude: str) -> bool:
    """Whether an at-rule's rules apply to every reader: `@layer`, `@supports`, and a
    `@media` rule for every screen (`all`, `screen`, `not print`) with no condition."""
    prelude = " ".join(prelude.lower().split())
    if prelude.startswith(_EVERY_READER_AT_RULES):
        return True
    if not prelude.startswith("@media"):
        return False
    queries = [q.strip() for q in _split_top_level(prelude.removeprefix("@media"))]
    return any(q in _EVERY_SCREEN for q in queries)


_EVERY_SCREEN: Final = frozenset(
    {"", "all", "screen", "only all", "only screen", "not print", "not speech"}
)


def _split_top_level(text: str) -> list[str]:
    """`text` split at the commas outside brackets, quotes and escapes: `:is(.a, .b)`
    is one selector."""
    parts: list[str] = []
    depth = 0
    start = 0
    quote = ""
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "([":
            depth += 1
        elif char in ")]":
            depth = max(depth - 1, 0)
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
        index += 1
    parts.append(text[start:])
    return parts


def _not_lists(selector: str) -> str:
    """`:not(.a, .b)` as `:not(.a):not(.b)`, which `cssselect` reads (the same
    elements: those that are neither)."""
    lower = selector.lower()
    out: list[str] = []
    index = 0
    while (found := lower.find(":not(", index)) >= 0:
        depth = 0
        for end in range(found + 4, len(selector)):
            depth += {"(": 1, ")": -1}.get(selector[end], 0)
            if depth == 0:
                break
        else:
            return selector  # unbalanced: cssselect will refuse it
        args = _split_top_level(selector[found + 5 : end])
        out.append(selector[index:found])
        out.append("".join(f":not({arg.strip()})" for arg in args))
        index = end + 1
    out.append(selector[index:])
    return "".join(out)


def _matches(
    tree: lxml.html.HtmlElement, selectors: str, *, deadline: float
) -> list[lxml.html.HtmlElement]:
    """The elements each selector of the list picks (a bare tag name too: `cite`), but
    a selector with a state (`:hover`) or a pseudo-element (it hides for a while, or
    names text that is not in the page); none after `deadline` (each is a walk of the
    page, and a list may repeat one a thousand times)."""
    found: list[lxml.html.HtmlElement] = []
    seen: set[str] = set()
    for selector in _split_top_level(selectors):
        selector = selector.strip()
        if not selector or selector in seen or "::" in selector:
            continue
        seen.add(selector)
        if time.monotonic() > deadline:
            break
        if len(selector) > _MAX_SELECTOR_CHARS or len(_COMBINATOR.findall(selector)) > 8:
            continue  # "* * * * * .c" on a deep page walks the tree once per level
        compiled = _selector(_not_lists(selector) if ":not(" in selector.lower() else selector)
        if compiled is not None:
            found.extend(compiled(tree))
    return found


@lru_cache(maxsize=4096)
def _selector(selector: str) -> lxml.cssselect.CSSSelector | None:
    """A selector compiled once (pages of one site repeat their style blocks); None for
    one `cssselect` cannot read."""
    try:
        return lxml.cssselect.CSSSelector(selector)
    except (cssselect.SelectorError, cssselect.xpath.ExpressionError, lxml.etree.XPathError):
        return None


@dataclass(slots=True)
class _Styles:
    """What the page's style rules say of each element: the first rule that hides it,
    and the text and background colours the rules and its own style declare."""

    # A stylesheet of its own (<link rel=stylesheet>) may paint any background: then
    # only a background the page itself declares is known.
    external: bool = False
    hidden: dict[lxml.html.HtmlElement, str] = field(default_factory=dict)
    variables: dict[str, str] = field(default_factory=dict)
    colour: dict[lxml.html.HtmlElement, str] = field(default_factory=dict)
    background: dict[lxml.html.HtmlElement, str] = field(default_factory=dict)
    # Elements that declare a font size, visibility, colour or line height of their own
    # that shows text (rules or style): a child may undo its parent's `font-size:0` or
    # `visibility:hidden`; one that inherits (`100%`, `inherit`) undoes nothing.
    resets: dict[str, set[lxml.html.HtmlElement]] = field(
        default_factory=lambda: {
            "font-size": set(), "visibility": set(), "color": set(), "line-height": set()
        }
    )  # fmt: skip

    @classmethod
    def of(cls, tree: lxml.html.HtmlElement) -> _Styles:
        styles = cls(
            external=any(
                "stylesheet" in (link.get("rel") or "").lower()
                and (link.get("href") or "").strip()[:5].lower() != "data:"
                for link in tree.iter("link")
            )
        )
        rules = _css_rules(tree)[:_MAX_RULES]
        # Custom properties, wherever declared (one value each, the last): a colour
        # given as `var(--ink)` is read as the colour it names.
        for _, body in rules:
            styles.variables.update(
                (k, v) for k, v in _declarations(body).items() if k.startswith("--")
            )
        for element in tree.iter():
            if isinstance(element.tag, str) and element.get("style"):
                styles.variables.update(
                    (k, v)
                    for k, v in _declarations(element.get("style") or "").items()
                    if k.startswith("--")
                )
        parsed = [(sel, _declarations(styles.resolve(body))) for sel, body in rules]
        inline: list[tuple[lxml.html.HtmlElement, dict[str, str]]] = []
        for element in tree.iter():
            if not isinstance(element.tag, str):
                continue
            # The presentational attributes of old HTML: <font color>, bgcolor.
            legacy = {"color": element.get("color")} if element.tag == "font" else {}
            if element.get("bgcolor"):
                legacy["background-color"] = element.get("bgcolor")
            d = {k: v.strip().lower() for k, v in legacy.items() if v}
            if element.get("style"):
                d |= _declarations(styles.resolve(element.get("style") or ""))
            if d:
                inline.append((element, d))
        # Matching a rule costs a walk of the tree: only the rules that can matter are
        # matched: a text colour when it is close to a background the page declares
        # (or to the white of a page without a stylesheet of its own), every
        # background, and a rule that sets a size, visibility or colour only when
        # something is hidden that way.
        every = [d for _, d in parsed] + [d for _, d in inline]
        grounds = colours_of(background_colour(d) for d in every)
        if not styles.external:
            grounds.append((255.0, 255.0, 255.0, 1.0))
        undoable = set(_UNDONE_BY)
        resets_needed = any(hiding_rule_of(d) in undoable for d in every)
        deadline = time.monotonic() + _MATCH_BUDGET_S
        for selectors, d in parsed:
            if time.monotonic() > deadline:
                log.warning("style rules not all read: over %.1f s", _MATCH_BUDGET_S)
                break
            reason = hiding_rule_of(d)
            if reason is not None:
                for element in _matches(tree, selectors, deadline=deadline):
                    styles.hidden.setdefault(element, f"style rule {reason}")
            background = background_colour(d)
            # Every background is matched: a dark page's white text is read against it
            # (a background far from every text colour still decides what is behind).
            wanted = (
                (resets_needed and bool(set(d) & set(styles.resets)))
                or near_any(d.get("color"), grounds)
                or background is not None
            )
            if wanted:
                for element in _matches(tree, selectors, deadline=deadline):
                    styles._declare(element, d, background)
        for element, d in inline:
            styles._declare(element, d, background_colour(d))
        return styles

    def resolve(self, css: str) -> str:
        """`css` with each `var(--name[, fallback])` replaced by the property's value."""
        if "var(" not in css:
            return css

        def value(match: re.Match[str]) -> str:
            found = self.variables.get(match.group(1).lower())
            return found if found is not None else (match.group(2) or match.group())

        for _ in range(_MAX_NESTING):  # a property may name another
            css, count = _VAR.subn(value, css)
            if not count or "var(" not in css:
                break
        return css

    def _declare(
        self, element: lxml.html.HtmlElement, d: dict[str, str], background: str | None
    ) -> None:
        if "color" in d:
            self.colour[element] = d["color"]
        if background is not None:
            self.background[element] = background
        for name, elements in self.resets.items():
            if name in d:
                if _shows(name, d[name]):
                    elements.add(element)
                else:  # declared later (its own style after the rules): it inherits
                    elements.discard(element)

    def undone_below(self, element: lxml.html.HtmlElement, reason: str) -> bool:
        """Whether a descendant declares its own value of what hides `element` (a row
        of links at `font-size:0` whose links set their size: a layout trick)."""
        prop = _UNDONE_BY.get(reason.removeprefix("style rule "))
        if prop is None:
            return False
        below = self.resets[prop]
        if prop == "line-height" and any(
            isinstance(d.tag, str) and d.tag in _REPLACED for d in element.iterdescendants()
        ):
            return True  # an image gives the lines its height: the text beside it shows
        return any(d in below for d in element.iterdescendants())

    def same_colour_as_background(self, element: lxml.html.HtmlElement) -> bool:
        """Text in the colour of what is behind it: the nearest declared background, or
        the white of a page that declares none. Only an element that sets the colour
        itself, with no descendant setting another, is read (its text is all hidden)."""
        own = self.colour.get(element)
        colour = parse_colour(own) if own else None
        if colour is None or colour[3] == 0:
            return False
        if self.undone_below(element, "color:transparent"):
            return False
        behind: str | None = None if self.external else "white"
        node: lxml.html.HtmlElement | None = element
        while node is not None:
            if node in self.background:
                behind = self.background[node]
                break
            node = node.getparent()
        paint = parse_colour(behind) if behind else None
        if paint is None or paint[3] < 1:
            return False
        return all(abs(a - b) <= SAME_COLOUR for a, b in zip(colour[:3], paint[:3], strict=True))


# The property a descendant must set, to a value that shows text, to undo each reason.
_UNDONE_BY: Final = {"font-size:0": "font-size", "visibility:hidden": "visibility",
                     "color:transparent": "color", "line-height:0": "line-height"}  # fmt: skip
# Elements that take room of their own, whatever the line height.
_REPLACED: Final = frozenset(
    {"img", "svg", "video", "picture", "iframe", "object", "embed", "canvas", "input",
     "button", "select", "textarea", "audio"}
)  # fmt: skip
# Values that inherit the parent's (or a share of it): of a parent's 0, still 0.
_INHERITING: Final = frozenset({"inherit", "unset", "revert-layer", "currentcolor"})


def _shows(name: str, value: str) -> bool:
    """Whether a descendant's `name: value` shows the text its parent hid that way
    (`font-size: 14px` does; `font-size: 100%`, `inherit` or `1em` of 0 do not)."""
    if value in _INHERITING:
        return False
    if name == "font-size":
        if value in {"smaller", "larger", "revert"}:
            return False
        found = LENGTH.match(value)
        if found is not None and found.group(2) in {"%", "em"}:
            # A share of the parent's size: of 0, 0; of a tiny size, shown when it
            # multiplies it at least twice.
            factor = float(found.group(1)) / (100 if found.group(2) == "%" else 1)
            return factor >= 2
        size = font_px(value)
        return size is None or size >= _TINY_FONT_PX
    if name == "visibility":
        return value not in {"hidden", "collapse"}
    if name == "color":
        colour = parse_colour(value)
        return colour is None or colour[3] > 0
    if name == "line-height":
        return not no_line_height({"line-height": value})
    return True


def _why_hidden(element: lxml.html.HtmlElement, styles: _Styles) -> str | None:
    tag = element.tag
    if tag in _PAGE_ROOTS:
        return None
    if tag in _NEVER_SHOWN or tag in _RARELY_SHOWN:
        return str(tag)
    if element.get("hidden") is not None:
        return "hidden attribute"
    if (element.get("aria-hidden") or "").strip().lower() == "true":
        return "aria-hidden"
    style = element.get("style")
    reason = hiding_rule(styles.resolve(style)) if style else None
    if reason is None:
        reason = styles.hidden.get(element)
    if reason is not None and not styles.undone_below(element, reason):
        return reason
    if styles.same_colour_as_background(element):
        return "color:background"
    return None


def _strings(value: object) -> list[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _check_channels(tree: lxml.html.HtmlElement, found: list[Detection]) -> None:
    """Instructions in alt / title attributes, meta descriptions and JSON-LD."""
    for element in tree.iter():
        if not isinstance(element.tag, str):
            continue
        for attribute in _TEXT_ATTRIBUTES:
            value = element.get(attribute)
            if value and _HAS_LETTER.search(value):
                names = find_instructions(value)
                if names:
                    found.extend(
                        Detection("hidden_instruction", f"{n} in {attribute}") for n in names
                    )
                    element.set(attribute, "")
    for meta in tree.iter("meta"):
        name = (meta.get("name") or meta.get("property") or "").lower()
        content = meta.get("content") or ""
        if name in _META_NAMES and content:
            names = find_instructions(content)
            if names:
                found.extend(Detection("hidden_instruction", f"{n} in meta") for n in names)
                meta.set("content", "")
    for script in tree.iter("script"):
        if (script.get("type") or "").lower() != "application/ld+json":
            continue
        try:
            strings = _strings(json.loads(script.text or ""))
        except ValueError:
            strings = [script.text or ""]
        names = [n for s in strings for n in find_instructions(s)]
        if names:
            found.extend(Detection("hidden_instruction", f"{n} in json-ld") for n in names)
            script.text = ""


def _clean_invisible(tree: lxml.html.HtmlElement, found: list[Detection]) -> bool:
    """Report and drop invisible characters in the page's text (trafilatura would drop
    some silently, and the tag characters hide a whole sentence)."""
    changed = False
    for element in tree.iter():
        if not isinstance(element.tag, str) or element.tag in {"script", "style"}:
            continue
        for attribute in ("text", "tail"):
            value = getattr(element, attribute)
            if not value:
                continue
            cleaned = remove_invisible(value)
            if cleaned != value:
                found.extend(invisible_detections(value))
                setattr(element, attribute, cleaned)
                changed = True
    return changed


def _report_removed(text: str, reason: str, found: list[Detection], *, quiet: bool) -> None:
    reported = hidden_detections(text, reason)
    if not quiet or any(d.kind == "hidden_instruction" for d in reported):
        found.extend(reported)


def strip_hidden(html: str) -> HiddenScan:
    """`html` without the parts no reader sees; the page itself when nothing was hidden."""
    if not html.strip():
        return HiddenScan(html)
    try:
        tree = lxml.html.document_fromstring(_XML_DECLARATION.sub("", html, count=1))
    except (lxml.etree.ParserError, ValueError):
        return HiddenScan(html)
    found: list[Detection] = []
    _check_channels(tree, found)
    changed = bool(found)
    for comment in list(tree.iter(lxml.etree.Comment)):
        _report_removed(comment.text or "", "comment", found, quiet=True)
        parent = comment.getparent()
        if parent is not None:
            comment.drop_tree()
            changed = True
    changed = _clean_invisible(tree, found) or changed
    styles = _Styles.of(tree)
    doomed: list[tuple[lxml.html.HtmlElement, str]] = []
    skip: set[lxml.html.HtmlElement] = set()
    for element in tree.iter():
        if not isinstance(element.tag, str) or element in skip:
            continue
        reason = _why_hidden(element, styles)
        if reason is None:
            continue
        doomed.append((element, reason))
        skip.update(element.iterdescendants())
    for element, reason in doomed:
        _report_removed(
            str(element.text_content()), reason, found, quiet=element.tag in _RARELY_SHOWN
        )
        if element.getparent() is not None:
            element.drop_tree()
            changed = True
    if not changed:
        return HiddenScan(html)
    return HiddenScan(lxml.html.tostring(tree, encoding="unicode"), merge_detections(found))
