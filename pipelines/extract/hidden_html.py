"""Hidden HTML removed before extraction, and the channels no reader sees, checked.

Issue 12 item 5 (decision 0016). A person reading a page never sees text under
`display:none`, `visibility:hidden`, zero opacity or size, off-screen positioning, the
`hidden` attribute, `aria-hidden="true"`, a `<template>` or a comment; an AI reading
the extracted text would. `strip_hidden` drops those elements (with lxml, before
trafilatura sees the page), including elements hidden by simple class or id rules of
a `<style>` block, and reports each removal that held text. It also reads the channels
that are never main text (alt, title and aria-label attributes, `<meta>` descriptions,
JSON-LD) for instructions to AI readers, reports them and blanks the attribute.

Only inline styles and simple selectors (`.a`, `#b`, `p.a`, lists of them) outside
at-rules are read: a `@media` rule hides for one screen size, not for every reader.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Final

import lxml.etree
import lxml.html

from lyra.pipelines.extract.injection import (
    Detection,
    find_instructions,
    invisible_detections,
    merge_detections,
    remove_invisible,
)

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
# Off-screen: at least this far out (px; em and rem count 16 px, % and vw 10 px).
_OFFSCREEN_PX: Final = 500.0
# Text smaller than this (px) is unreadable: a common way to hide a sentence.
_TINY_FONT_PX: Final = 2.0
# A box at most this big (px) with its overflow clipped shows nothing.
_TINY_BOX_PX: Final = 1.0
_UNIT_PX: Final = {"px": 1.0, "pt": 4 / 3, "em": 16.0, "rem": 16.0, "%": 10.0, "vw": 10.0,
                   "vh": 10.0, "": 1.0}  # fmt: skip
_LENGTH = re.compile(r"^(-?\d*\.?\d+)\s*(px|pt|em|rem|%|vw|vh)?$")
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_SIMPLE_SELECTOR = re.compile(r"^([a-z][a-z0-9]*)?((?:[.#][A-Za-z_][\w-]*)+)$")
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
        if sep:
            value = value.replace("!important", "").strip().lower()
            out[name.strip().lower()] = " ".join(value.split())
    return out


def _px(value: str) -> float | None:
    found = _LENGTH.match(value.strip())
    if found is None:
        return None
    return float(found.group(1)) * _UNIT_PX[found.group(2) or ""]


def hiding_rule(style: str) -> str | None:
    """The reason a set of CSS declarations hides its element's text, or None."""
    d = _declarations(style)
    if d.get("display") == "none":
        return "display:none"
    if d.get("visibility") in {"hidden", "collapse"}:
        return "visibility:hidden"
    opacity = d.get("opacity", "").rstrip("%")
    if opacity and _px(opacity) == 0:
        return "opacity:0"
    font = _px(d.get("font-size", ""))
    if font is not None and font < _TINY_FONT_PX:
        return "font-size:0"
    if d.get("color") in {"transparent", "rgba(0,0,0,0)", "rgba(0, 0, 0, 0)"}:
        return "color:transparent"
    clipped = d.get("overflow") in {"hidden", "clip"} or "rect(0" in d.get("clip", "")
    for box in ("width", "height", "max-width", "max-height"):
        size = _px(d.get(box, ""))
        if clipped and size is not None and size <= _TINY_BOX_PX:
            return "zero-size"
    if d.get("clip-path", "").replace(" ", "") in {"inset(50%)", "inset(100%)", "circle(0)"}:
        return "zero-size"
    if "scale(0" in d.get("transform", ""):
        return "zero-size"
    positioned = d.get("position") in {"absolute", "fixed"}
    for side in ("left", "top", "right", "bottom", "margin-left", "margin-top", "text-indent"):
        offset = _px(d.get(side, ""))
        if offset is not None and offset <= -_OFFSCREEN_PX and (positioned or side != "top"):
            return "off-screen"
    translate = re.search(
        r"translate[xy]?\(\s*(-[\d.]+\s*(?:px|em|rem|%|vw|vh)?)", d.get("transform", "")
    )
    if translate is not None and (_px(translate.group(1)) or 0) <= -_OFFSCREEN_PX:
        return "off-screen"
    return None


def _style_rules(tree: lxml.html.HtmlElement) -> list[tuple[str | None, set[str], str | None, str]]:
    """(tag, classes, id, reason) for each simple selector a `<style>` block hides."""
    rules: list[tuple[str | None, set[str], str | None, str]] = []
    for node in tree.iter("style"):
        css = _CSS_COMMENT.sub("", node.text or "")
        depth = 0
        start = 0
        selector = ""
        for index, char in enumerate(css):
            if char == "{":
                if depth == 0:
                    selector = css[start:index].strip()
                    start = index + 1
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    body = css[start:index]
                    start = index + 1
                    reason = None if selector.startswith("@") else hiding_rule(body)
                    if reason is not None:
                        rules.extend(_parse_selectors(selector, reason))
                depth = max(depth, 0)
    return rules


def _parse_selectors(
    selectors: str, reason: str
) -> list[tuple[str | None, set[str], str | None, str]]:
    out: list[tuple[str | None, set[str], str | None, str]] = []
    for selector in selectors.split(","):
        found = _SIMPLE_SELECTOR.match(selector.strip())
        if found is None:
            continue
        parts = re.findall(r"[.#][A-Za-z_][\w-]*", found.group(2))
        classes = {p[1:] for p in parts if p[0] == "."}
        ids = [p[1:] for p in parts if p[0] == "#"]
        out.append((found.group(1), classes, ids[0] if ids else None, f"style rule {reason}"))
    return out


def _rule_hides(
    element: lxml.html.HtmlElement, rules: list[tuple[str | None, set[str], str | None, str]]
) -> str | None:
    classes = set((element.get("class") or "").split())
    ident = element.get("id")
    for tag, wanted, rule_id, reason in rules:
        if tag is not None and element.tag != tag:
            continue
        if rule_id is not None and ident != rule_id:
            continue
        if wanted <= classes and (wanted or rule_id is not None):
            return reason
    return None


def _why_hidden(
    element: lxml.html.HtmlElement, rules: list[tuple[str | None, set[str], str | None, str]]
) -> str | None:
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
    if style:
        reason = hiding_rule(style)
        if reason is not None:
            return reason
    return _rule_hides(element, rules) if rules else None


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
    names = find_instructions(text)
    if names:
        found.extend(Detection("hidden_instruction", f"{n} in {reason}") for n in names)
    elif not quiet and _HAS_LETTER.search(text):
        found.append(Detection("hidden_text", reason))


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
    rules = _style_rules(tree)
    doomed: list[tuple[lxml.html.HtmlElement, str]] = []
    skip: set[lxml.html.HtmlElement] = set()
    for element in tree.iter():
        if not isinstance(element.tag, str) or element in skip:
            continue
        reason = _why_hidden(element, rules)
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
