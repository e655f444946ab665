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

Not read: rules inside at-rules (a `@media` rule hides for one screen size, not for
every reader), rules that hide a bare tag name, states (`:hover`), pseudo-elements,
and external stylesheets (a page that links one is judged on the backgrounds it
declares itself, never on the white a page without one shows).
"""

from __future__ import annotations

import colorsys
import json
import logging
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

import cssselect
import cssselect.xpath
import lxml.cssselect
import lxml.etree
import lxml.html

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
log = logging.getLogger(__name__)

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
# Text this faint (opacity, or a filter's) is unreadable.
_FAINT: Final = 0.1
# Text smaller than this (px) is unreadable: a common way to hide a sentence.
_TINY_FONT_PX: Final = 2.0
# A box at most this big (px) with its overflow clipped shows nothing.
_TINY_BOX_PX: Final = 1.0
_UNIT_PX: Final = {"px": 1.0, "pt": 4 / 3, "em": 16.0, "rem": 16.0, "%": 10.0, "vw": 10.0,
                   "vh": 10.0, "": 1.0}  # fmt: skip
_LENGTH = re.compile(r"^(-?\d*\.?\d+)\s*(px|pt|em|rem|%|vw|vh)?$")
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
_BARE_TAG = re.compile(r"^[a-z][a-z0-9]*$", re.IGNORECASE)
# Style rules read per page: enough for any page's own <style>, bounded for a hostile one.
_MAX_RULES: Final = 2000
# Two colours this close on every channel (of 255) read as one.
_SAME_COLOUR: Final = 8.0
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
            value = value.replace("!important", "").strip().lower()
            out[name.strip().lower()] = " ".join(value.split())
    return out


def _fraction(value: str) -> float | None:
    """An opacity as a fraction (0.5, 50%), None when it is not a number."""
    value = value.strip()
    try:
        return float(value[:-1]) / 100 if value.endswith("%") else float(value)
    except ValueError:
        return None


def _font_px(value: str) -> float | None:
    """A font size in px; a percentage or an em of the 16 px a browser starts from."""
    found = _LENGTH.match(value.strip())
    if found is None:
        return None
    unit = found.group(2) or ""
    return float(found.group(1)) * (0.16 if unit == "%" else _UNIT_PX[unit])


def _px(value: str) -> float | None:
    found = _LENGTH.match(value.strip())
    if found is None:
        return None
    return float(found.group(1)) * _UNIT_PX[found.group(2) or ""]


_NAMED_COLOURS: Final = {
    "white": (255, 255, 255), "black": (0, 0, 0), "silver": (192, 192, 192),
    "gray": (128, 128, 128), "grey": (128, 128, 128), "red": (255, 0, 0),
    "green": (0, 128, 0), "blue": (0, 0, 255), "yellow": (255, 255, 0),
    "snow": (255, 250, 250), "ivory": (255, 255, 240), "whitesmoke": (245, 245, 245),
}  # fmt: skip
Colour = tuple[float, float, float, float]


def _channel(part: str, scale: float) -> float | None:
    try:
        return float(part[:-1]) * scale / 100 if part.endswith("%") else float(part)
    except ValueError:
        return None


def parse_colour(value: str) -> Colour | None:
    """(r, g, b, alpha) of a CSS colour: names, #hex, rgb(a)() and hsl(a)(); None when
    the value is none of those (a variable, `inherit`, a gradient)."""
    value = value.strip().lower()
    if value == "transparent":
        return (0.0, 0.0, 0.0, 0.0)
    if value in _NAMED_COLOURS:
        named = _NAMED_COLOURS[value]
        return (float(named[0]), float(named[1]), float(named[2]), 1.0)
    if re.fullmatch(r"#[0-9a-f]{3,4}|#[0-9a-f]{6}|#[0-9a-f]{8}", value):
        digits = value[1:]
        if len(digits) <= 4:
            digits = "".join(ch * 2 for ch in digits)
        rgba = [int(digits[i : i + 2], 16) for i in range(0, len(digits), 2)]
        return (
            float(rgba[0]),
            float(rgba[1]),
            float(rgba[2]),
            rgba[3] / 255 if len(rgba) == 4 else 1.0,
        )
    found = re.fullmatch(r"(rgba?|hsla?)\(([^()]*)\)", value)
    if found is None:
        return None
    parts = [p for p in re.split(r"[\s,/]+", found.group(2).strip()) if p]
    if len(parts) not in (3, 4):
        return None
    alpha: float | None = _channel(parts[3], 1.0) if len(parts) == 4 else 1.0
    if alpha is None:
        return None
    if found.group(1).startswith("rgb"):
        channels = [_channel(p, 255.0) for p in parts[:3]]
        if any(c is None for c in channels):
            return None
        r, g, b = (float(c or 0.0) for c in channels)
        return (r, g, b, alpha)
    hue, sat, light = (_channel(p.removesuffix("deg").rstrip("%"), 1.0) for p in parts[:3])
    if hue is None or sat is None or light is None:
        return None
    r, g, b = colorsys.hls_to_rgb((hue % 360) / 360, light / 100, sat / 100)
    return (r * 255, g * 255, b * 255, alpha)


def hiding_rule(style: str) -> str | None:
    """The reason a set of CSS declarations hides its element's text, or None."""
    return hiding_rule_of(_declarations(style))


def _colours(values: Iterable[str | None]) -> list[Colour]:
    found = {parse_colour(v) for v in values if v}
    return [c for c in found if c is not None and c[3] > 0]


def _near_any(value: str | None, colours: list[Colour]) -> bool:
    colour = parse_colour(value) if value else None
    if colour is None:
        return False
    return any(
        all(abs(a - b) <= _SAME_COLOUR for a, b in zip(colour[:3], other[:3], strict=True))
        for other in colours
    )


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
        level = _fraction(opacity)
        if level is not None and level < _FAINT:
            return "opacity:0"
    font = _font_px(d.get("font-size", ""))
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
    if _clip_is_empty(d.get("clip", "")):
        return "zero-size"
    clipped = d.get("overflow") in {"hidden", "clip"}
    for box in ("width", "height", "max-width", "max-height"):
        size = _px(d.get(box, ""))
        if clipped and size is not None and size <= _TINY_BOX_PX:
            return "zero-size"
    if _clip_path_is_empty(d.get("clip-path", "")):
        return "zero-size"
    transform = d.get("transform", "")
    if any(abs(f) < _TINY_SCALE for f in _scale_factors(transform)):
        return "zero-size"
    positioned = d.get("position") in {"absolute", "fixed"}
    for side in ("left", "top", "right", "bottom", "margin-left", "margin-top", "text-indent"):
        offset = _length(d.get(side, ""))
        if offset is not None and offset <= -_OFFSCREEN_PX and (positioned or side != "top"):
            return "off-screen"
    if any(shift <= -_OFFSCREEN_PX for shift in _translations(transform)):
        return "off-screen"
    return None


# A transform that scales text below this factor shrinks it to nothing.
_TINY_SCALE: Final = 0.05
_FUNCTION_ARGS = r"\(([^()]*(?:\([^()]*\)[^()]*)*)\)"
_CALC_TERM = re.compile(r"([+-]?)\s*(\d*\.?\d+)\s*(px|pt|em|rem|%|vw|vh)?")


def _length(value: str) -> float | None:
    """A length in px, `calc()` sums of lengths included (products are not read)."""
    value = value.strip()
    if value.startswith("calc(") and value.endswith(")"):
        inner = value[5:-1]
        if "*" in inner or "/" in inner:
            return None
        terms = _CALC_TERM.findall(inner)
        if not terms:
            return None
        return sum(
            (-1.0 if sign == "-" else 1.0) * float(number) * _UNIT_PX[unit]
            for sign, number, unit in terms
        )
    return _px(value)


def _numbers(args: str) -> list[float | None]:
    return [_length(part) for part in re.split(r"\s*,\s*|\s+(?![^(]*\))", args.strip()) if part]


def _scale_factors(transform: str) -> list[float]:
    factors: list[float] = []
    for match in re.finditer(r"\bscale(?:x|y|z|3d)?" + _FUNCTION_ARGS, transform):
        for part in re.split(r"[\s,]+", match.group(1).strip()):
            try:
                factors.append(float(part[:-1]) / 100 if part.endswith("%") else float(part))
            except ValueError:
                continue
    return factors


def _translations(transform: str) -> list[float]:
    shifts: list[float] = []
    for match in re.finditer(r"\btranslate(?:x|y|3d)?" + _FUNCTION_ARGS, transform):
        shifts.extend(n for n in _numbers(match.group(1)) if n is not None)
    return shifts


def _clip_is_empty(clip: str) -> bool:
    """`clip: rect(top right bottom left)` that leaves at most a pixel either way."""
    found = re.search(r"rect" + _FUNCTION_ARGS, clip)
    if found is None:
        return False
    sides = _numbers(found.group(1))
    if len(sides) != 4 or any(side is None for side in sides):
        return False
    top, right, bottom, left = (float(side or 0.0) for side in sides)
    return bottom - top <= _TINY_BOX_PX or right - left <= _TINY_BOX_PX


def _clip_path_is_empty(path: str) -> bool:
    """A `clip-path` shape that shows nothing: a circle or ellipse of radius 0, an
    inset of half the box or more, a polygon of at most two distinct points."""
    found = re.search(r"\b(circle|ellipse|inset|polygon)" + _FUNCTION_ARGS, path)
    if found is None:
        return False
    shape, args = found.group(1), found.group(2).split(" at ")[0].strip()
    if shape in {"circle", "ellipse"}:
        radii = _numbers(args)
        return bool(radii) and any(r is not None and r <= 0 for r in radii)
    if shape == "inset":
        # top, right, bottom, left as the margin shorthand gives them; in % only.
        parts = args.split(" round ")[0].split()[:4]
        values = [_fraction(p) if p.endswith("%") or p == "0" else None for p in parts]
        if not values or any(v is None for v in values):
            return False
        sides = [float(v or 0.0) for v in values]
        top = sides[0]
        right = sides[1] if len(sides) > 1 else top
        bottom = sides[2] if len(sides) > 2 else top
        left = sides[3] if len(sides) > 3 else right
        return top + bottom >= 1 or left + right >= 1
    points = {tuple(point.split()) for point in args.split(",") if point.strip()}
    return len(points) <= 2


def _css_rules(tree: lxml.html.HtmlElement) -> list[tuple[str, str]]:
    """(selector list, declarations) of every rule of the page's `<style>` blocks that
    applies to every reader: at top level, or inside `@layer` and `@supports` (a
    `@media` rule hides for one screen size, not every reader)."""
    rules: list[tuple[str, str]] = []
    for node in tree.iter("style"):
        _parse_rules(_CSS_COMMENT.sub("", node.text or ""), rules, depth_left=_MAX_NESTING)
    return rules


def _parse_rules(css: str, rules: list[tuple[str, str]], *, depth_left: int) -> None:
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
                if not selector.startswith("@"):
                    rules.append((selector, body))
                elif selector.startswith(_EVERY_READER_AT_RULES) and depth_left > 0:
                    _parse_rules(body, rules, depth_left=depth_left - 1)
                start = index + 1
            depth = max(depth, 0)


def _matches(
    tree: lxml.html.HtmlElement, selectors: str, *, bare_tags: bool
) -> list[lxml.html.HtmlElement]:
    """The elements each selector of the list picks, but a selector with a state
    (`:hover`) or a pseudo-element (it hides for a while, or names text that is not in
    the page), and a bare tag name ("p", "ul") unless `bare_tags` (a rule that hides a
    whole kind of element is a loading trick or a menu, not hidden text)."""
    found: list[lxml.html.HtmlElement] = []
    for selector in selectors.split(","):
        selector = selector.strip()
        if not selector or (not bare_tags and _BARE_TAG.match(selector)) or "::" in selector:
            continue
        if len(selector) > _MAX_SELECTOR_CHARS or len(_COMBINATOR.findall(selector)) > 8:
            continue  # "* * * * * .c" on a deep page walks the tree once per level
        compiled = _selector(selector)
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
    # Elements that declare a font size or a visibility of their own (rules or style):
    # a child may undo its parent's `font-size:0` or `visibility:hidden`.
    resets: dict[str, set[lxml.html.HtmlElement]] = field(
        default_factory=lambda: {"font-size": set(), "visibility": set(), "color": set()}
    )

    @classmethod
    def of(cls, tree: lxml.html.HtmlElement) -> _Styles:
        styles = cls(
            external=any(
                "stylesheet" in (link.get("rel") or "").lower() for link in tree.iter("link")
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
        grounds = _colours(_background_colour(d) for d in every)
        if not styles.external:
            grounds.append((255.0, 255.0, 255.0, 1.0))
        undoable = {"font-size:0", "visibility:hidden", "color:transparent"}
        resets_needed = any(hiding_rule_of(d) in undoable for d in every)
        deadline = time.monotonic() + _MATCH_BUDGET_S
        for selectors, d in parsed:
            if time.monotonic() > deadline:
                log.warning("style rules not all read: over %.1f s", _MATCH_BUDGET_S)
                break
            reason = hiding_rule_of(d)
            if reason is not None:
                for element in _matches(tree, selectors, bare_tags=False):
                    styles.hidden.setdefault(element, f"style rule {reason}")
            background = _background_colour(d)
            # Every background is matched: a dark page's white text is read against it
            # (a background far from every text colour still decides what is behind).
            wanted = (
                (resets_needed and bool(set(d) & set(styles.resets)))
                or _near_any(d.get("color"), grounds)
                or background is not None
            )
            if wanted:
                for element in _matches(tree, selectors, bare_tags=True):
                    styles._declare(element, d, background)
        for element, d in inline:
            styles._declare(element, d, _background_colour(d))
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
                elements.add(element)

    def undone_below(self, element: lxml.html.HtmlElement, reason: str) -> bool:
        """Whether a descendant declares its own value of what hides `element` (a row
        of links at `font-size:0` whose links set their size: a layout trick)."""
        prop = {"font-size:0": "font-size", "visibility:hidden": "visibility",
                "color:transparent": "color"}.get(reason.removeprefix("style rule "))  # fmt: skip
        if prop is None:
            return False
        below = self.resets[prop]
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
        return all(abs(a - b) <= _SAME_COLOUR for a, b in zip(colour[:3], paint[:3], strict=True))


def _background_colour(d: dict[str, str]) -> str | None:
    """The colour a `background-color` or `background` declaration paints; "?" when it
    paints an image or a gradient (text over it cannot be judged), None when unset."""
    if "background-color" in d:
        return d["background-color"]
    shorthand = d.get("background")
    if shorthand is None:
        return None
    if shorthand in {"none", "initial", "unset"}:
        return None
    if "url(" in shorthand or "gradient(" in shorthand:
        return "?"
    for token in re.findall(r"#[0-9a-f]{3,8}|(?:rgba?|hsla?)\([^()]*\)|[a-z]+", shorthand):
        if parse_colour(token) is not None:
            return str(token)
    return "?"


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
