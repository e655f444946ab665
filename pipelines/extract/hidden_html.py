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
on the backgrounds it declares itself, never on the white a page without one shows).
A rule that hides `<html>` or `<body>` is a loading trick and hides nothing.
"""

from __future__ import annotations

import colorsys
import json
import logging
import math
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
# Style rules read per page: enough for any page's own <style>, bounded for a hostile one.
_MAX_RULES: Final = 2000
# Moved this far right or up (px), text is off-screen: a page is rarely this wide.
_FAR_PX: Final = 5000.0
# Text blurred by this much (px) cannot be read.
_BLUR_PX: Final = 8.0
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
        found = _LENGTH.match(head)
        if head == "0" or (found is not None and found.group(2)):
            return head
        if head.startswith(("'", '"')):
            return None  # the family: the size comes before it
    return None


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


# The CSS named colours (CSS Color 4), as "name hex" pairs.
_NAMED_COLOURS: Final[dict[str, tuple[int, int, int]]] = {
    name: (int(hex_[0:2], 16), int(hex_[2:4], 16), int(hex_[4:6], 16))
    for name, hex_ in re.findall(
        r"([a-z]+) ([0-9a-f]{6})",
        "aliceblue f0f8ff antiquewhite faebd7 aqua 00ffff aquamarine 7fffd4 azure f0ffff "
        "beige f5f5dc bisque ffe4c4 black 000000 blanchedalmond ffebcd blue 0000ff "
        "blueviolet 8a2be2 brown a52a2a burlywood deb887 cadetblue 5f9ea0 chartreuse 7fff00 "
        "chocolate d2691e coral ff7f50 cornflowerblue 6495ed cornsilk fff8dc crimson dc143c "
        "cyan 00ffff darkblue 00008b darkcyan 008b8b darkgoldenrod b8860b darkgray a9a9a9 "
        "darkgreen 006400 darkgrey a9a9a9 darkkhaki bdb76b darkmagenta 8b008b "
        "darkolivegreen 556b2f darkorange ff8c00 darkorchid 9932cc darkred 8b0000 "
        "darksalmon e9967a darkseagreen 8fbc8f darkslateblue 483d8b darkslategray 2f4f4f "
        "darkslategrey 2f4f4f darkturquoise 00ced1 darkviolet 9400d3 deeppink ff1493 "
        "deepskyblue 00bfff dimgray 696969 dimgrey 696969 dodgerblue 1e90ff firebrick b22222 "
        "floralwhite fffaf0 forestgreen 228b22 fuchsia ff00ff gainsboro dcdcdc "
        "ghostwhite f8f8ff gold ffd700 goldenrod daa520 gray 808080 green 008000 "
        "greenyellow adff2f grey 808080 honeydew f0fff0 hotpink ff69b4 indianred cd5c5c "
        "indigo 4b0082 ivory fffff0 khaki f0e68c lavender e6e6fa lavenderblush fff0f5 "
        "lawngreen 7cfc00 lemonchiffon fffacd lightblue add8e6 lightcoral f08080 "
        "lightcyan e0ffff lightgoldenrodyellow fafad2 lightgray d3d3d3 lightgreen 90ee90 "
        "lightgrey d3d3d3 lightpink ffb6c1 lightsalmon ffa07a lightseagreen 20b2aa "
        "lightskyblue 87cefa lightslategray 778899 lightslategrey 778899 "
        "lightsteelblue b0c4de lightyellow ffffe0 lime 00ff00 limegreen 32cd32 linen faf0e6 "
        "magenta ff00ff maroon 800000 mediumaquamarine 66cdaa mediumblue 0000cd "
        "mediumorchid ba55d3 mediumpurple 9370db mediumseagreen 3cb371 "
        "mediumslateblue 7b68ee mediumspringgreen 00fa9a mediumturquoise 48d1cc "
        "mediumvioletred c71585 midnightblue 191970 mintcream f5fffa mistyrose ffe4e1 "
        "moccasin ffe4b5 navajowhite ffdead navy 000080 oldlace fdf5e6 olive 808000 "
        "olivedrab 6b8e23 orange ffa500 orangered ff4500 orchid da70d6 palegoldenrod eee8aa "
        "palegreen 98fb98 paleturquoise afeeee palevioletred db7093 papayawhip ffefd5 "
        "peachpuff ffdab9 peru cd853f pink ffc0cb plum dda0dd powderblue b0e0e6 "
        "purple 800080 rebeccapurple 663399 red ff0000 rosybrown bc8f8f royalblue 4169e1 "
        "saddlebrown 8b4513 salmon fa8072 sandybrown f4a460 seagreen 2e8b57 seashell fff5ee "
        "sienna a0522d silver c0c0c0 skyblue 87ceeb slateblue 6a5acd slategray 708090 "
        "slategrey 708090 snow fffafa springgreen 00ff7f steelblue 4682b4 tan d2b48c "
        "teal 008080 thistle d8bfd8 tomato ff6347 turquoise 40e0d0 violet ee82ee "
        "wheat f5deb3 white ffffff whitesmoke f5f5f5 yellow ffff00 yellowgreen 9acd32 ",
    )
}
Colour = tuple[float, float, float, float]


def _channel(part: str, scale: float) -> float | None:
    try:
        return float(part[:-1]) * scale / 100 if part.endswith("%") else float(part)
    except ValueError:
        return None


def parse_colour(value: str) -> Colour | None:
    """(r, g, b, alpha) of a CSS colour: names, #hex, rgb(a)(), hsl(a)(), hwb(), lab(),
    lch(), oklab(), oklch() and color(srgb …); None when the value is none of those (a
    variable, `inherit`, a gradient)."""
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
    found = _COLOUR_FUNCTION.fullmatch(value)
    if found is None:
        return None
    function = found.group(1)
    parts = [p for p in re.split(r"[\s,/]+", found.group(2).strip()) if p]
    if function == "color":  # color(srgb r g b): only the sRGB space is read
        if not parts or parts[0] != "srgb":
            return None
        parts = [str(_channel(p, 1.0)) if p.endswith("%") else p for p in parts[1:]]
        parts[:3] = [str(float(p) * 255) if _is_number(p) else p for p in parts[:3]]
        function = "rgb"
    if len(parts) not in (3, 4):
        return None
    parts = ["0" if p == "none" else p for p in parts]
    alpha: float | None = _channel(parts[3], 1.0) if len(parts) == 4 else 1.0
    if alpha is None:
        return None
    if function.startswith("rgb"):
        channels = [_channel(p, 255.0) for p in parts[:3]]
        if any(c is None for c in channels):
            return None
        r, g, b = (float(c or 0.0) for c in channels)
        return (r, g, b, alpha)
    rgb = _other_space(function, parts[:3])
    if rgb is None:
        return None
    r, g, b = (min(max(c, 0.0), 1.0) * 255 for c in rgb)
    return (r, g, b, alpha)


_COLOUR_FUNCTION = re.compile(r"(rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\(([^()]*)\)")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _hue(part: str) -> float | None:
    """A hue in degrees (deg, rad, grad, turn, or a bare number)."""
    for unit, scale in (("grad", 0.9), ("deg", 1.0), ("rad", 180 / math.pi), ("turn", 360.0)):
        if part.endswith(unit):
            number = _channel(part.removesuffix(unit), 1.0)
            return None if number is None else number * scale
    return _channel(part, 1.0)


def _other_space(function: str, parts: list[str]) -> tuple[float, float, float] | None:
    """sRGB (0-1 a channel, not clamped) of an hsl(), hwb(), lab(), lch(), oklab() or
    oklch() colour's three components."""
    if function in {"hsl", "hsla", "hwb"}:
        hue = _hue(parts[0])
        first, second = (_channel(p.rstrip("%"), 1.0) for p in parts[1:3])
        if hue is None or first is None or second is None:
            return None
        if function == "hwb":  # whiteness and blackness, in %
            white, black = first / 100, second / 100
            if white + black >= 1:
                grey = white / (white + black)
                return (grey, grey, grey)
            pure = colorsys.hls_to_rgb((hue % 360) / 360, 0.5, 1.0)
            return tuple(c * (1 - white - black) + white for c in pure)  # type: ignore[return-value]
        return colorsys.hls_to_rgb((hue % 360) / 360, second / 100, first / 100)
    ok = function.startswith("ok")
    # Lightness: 100% is 1 (oklab) or 100 (lab); a and b or chroma: 100% is 0.4
    # (oklab), 125 (lab a/b) or 150 (lch chroma).
    light = _channel(parts[0], 1.0 if ok else 100.0)
    span = 0.4 if ok else (150.0 if function == "lch" else 125.0)
    second = _channel(parts[1], span)
    if light is None or second is None:
        return None
    if function.endswith("lch"):
        hue = _hue(parts[2])
        if hue is None:
            return None
        a, b = second * math.cos(math.radians(hue)), second * math.sin(math.radians(hue))
    else:
        third = _channel(parts[2], span)
        if third is None:
            return None
        a, b = second, third
    linear = _oklab_to_linear(light, a, b) if ok else _lab_to_linear(light, a, b)
    return tuple(_gamma(c) for c in linear)  # type: ignore[return-value]


def _oklab_to_linear(light: float, a: float, b: float) -> tuple[float, float, float]:
    l_ = (light + 0.3963377774 * a + 0.2158037573 * b) ** 3
    m_ = (light - 0.1055613458 * a - 0.0638541728 * b) ** 3
    s_ = (light - 0.0894841775 * a - 1.2914855480 * b) ** 3
    return (
        4.0767416621 * l_ - 3.3077115913 * m_ + 0.2309699292 * s_,
        -1.2684380046 * l_ + 2.6097574011 * m_ - 0.3413193965 * s_,
        -0.0041960863 * l_ - 0.7034186147 * m_ + 1.7076147010 * s_,
    )


def _lab_to_linear(light: float, a: float, b: float) -> tuple[float, float, float]:
    """CIE Lab (D50) to linear sRGB (D65), as CSS Color 4 gives it."""
    epsilon, kappa = 216 / 24389, 24389 / 27
    fy = (light + 16) / 116
    fx, fz = fy + a / 500, fy - b / 200
    xr = fx**3 if fx**3 > epsilon else (116 * fx - 16) / kappa
    yr = fy**3 if light > kappa * epsilon else light / kappa
    zr = fz**3 if fz**3 > epsilon else (116 * fz - 16) / kappa
    x, y, z = xr * 0.96422, yr, zr * 0.82521
    # Bradford D50 to D65, then XYZ to linear sRGB.
    x, y, z = (
        0.9554734527 * x - 0.0230985369 * y + 0.0632593087 * z,
        -0.0283697070 * x + 1.0099954580 * y + 0.0210413990 * z,
        0.0123140017 * x - 0.0205076964 * y + 1.3303659366 * z,
    )
    return (
        3.2409699419 * x - 1.5373831776 * y - 0.4986107603 * z,
        -0.9692436363 * x + 1.8759675015 * y + 0.0415550574 * z,
        0.0556300797 * x - 0.2039769589 * y + 1.0569715142 * z,
    )


def _gamma(linear: float) -> float:
    sign = -1.0 if linear < 0 else 1.0
    linear = abs(linear)
    return sign * (12.92 * linear if linear <= 0.0031308 else 1.055 * linear ** (1 / 2.4) - 0.055)


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
    blur = max((_length(b) or 0.0 for b in re.findall(r"\bblur\(([^()]*)\)", d.get("filter", ""))),
               default=0.0)  # fmt: skip
    if blur >= _BLUR_PX:
        return "filter:blur"
    return _geometry(d)


def _overflow_clipped(d: dict[str, str]) -> bool:
    return any(
        word in {"hidden", "clip"}
        for name in ("overflow", "overflow-x", "overflow-y")
        for word in d.get(name, "").split()
    )


def _geometry(d: dict[str, str]) -> str | None:
    """Text shrunk, clipped or moved to where no reader sees it."""
    if _clip_is_empty(d.get("clip", "")) or _clip_path_is_empty(d.get("clip-path", "")):
        return "zero-size"
    clipped = _overflow_clipped(d)
    if clipped and _squeezed(d):
        return "zero-size"
    if clipped and _no_line_height(d):
        return "line-height:0"
    zoom = _fraction(d.get("zoom", ""))
    if zoom is not None and 0 < zoom < _FAINT:  # `zoom: 0` is read as 1
        return "zero-size"
    transform = d.get("transform", "")
    # The individual transform properties, read as the functions they stand for.
    for name in ("scale", "rotate", "translate"):
        value = d.get(name, "")
        if value and value != "none":
            rotate = value.split()
            if name == "rotate" and len(rotate) == 2 and rotate[0] in {"x", "y"}:
                transform += f" rotate{rotate[0]}({rotate[1]})"
            elif name != "rotate":
                transform += f" {name}({value})"
    if _flattened(transform):
        return "zero-size"
    positioned = d.get("position") in {"absolute", "fixed"}
    for side in ("left", "top", "right", "bottom", "margin-left", "margin-top", "text-indent"):
        offset = _length(d.get(side, ""))
        if offset is not None and offset <= -_OFFSCREEN_PX and (positioned or side != "top"):
            return "off-screen"
    if positioned and _far_right_or_up(d):
        return "off-screen"
    # `text-indent: 100%` on one clipped line pushes it out of its own box.
    indent = _length(d.get("text-indent", ""))
    nowrap = d.get("white-space", "") in {"nowrap", "pre"}
    if clipped and nowrap and indent is not None and indent >= _OFFSCREEN_PX:
        return "off-screen"
    for axis, shift in _translations(transform):
        if shift <= -_OFFSCREEN_PX or (axis == "x" and shift >= _FAR_PX):
            return "off-screen"
    return None


def _squeezed(d: dict[str, str]) -> bool:
    """A box (its overflow clipped) at most a pixel wide or high."""
    for box in ("width", "height", "max-width", "max-height"):
        size = _px(d.get(box, ""))
        if size is not None and size <= _TINY_BOX_PX:
            return True
    return False


def _no_line_height(d: dict[str, str]) -> bool:
    """Lines that take no height (`line-height: 0`) in a box (its overflow clipped)
    with no height or padding of its own: the box is as high as its lines, nothing."""
    line = d.get("line-height", "")
    height = _px(line) if not _is_number(line) else float(line) * 16
    if height is None or height > _TINY_BOX_PX:
        return False
    room = ("height", "min-height", "padding", "padding-top", "padding-bottom")
    return all(
        (_length(part) or 0.0) <= _TINY_BOX_PX for name in room for part in d.get(name, "").split()
    )


def _far_right_or_up(d: dict[str, str]) -> bool:
    """A positioned box moved out of its container to the right (`left: 10000px`),
    left by its right edge (`right: 100%`), or far up (`bottom: 10000px`)."""
    right = d.get("right", "")
    offset = _length(right)
    if offset is not None and (offset >= _FAR_PX or (right.endswith("%") and offset >= 1000)):
        return True  # 100% is 1,000 px as _UNIT_PX reads it
    return any((_length(d.get(side, "")) or 0.0) >= _FAR_PX for side in ("left", "bottom"))


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
    """The x and y factors of every `scale*()` (a z factor shrinks no text)."""
    factors: list[float] = []
    for match in re.finditer(r"\bscale(x|y|z|3d)?" + _FUNCTION_ARGS, transform):
        if match.group(1) == "z":
            continue
        parts = re.split(r"[\s,]+", match.group(2).strip())
        for part in parts[:2] if match.group(1) == "3d" else parts:
            try:
                factors.append(float(part[:-1]) / 100 if part.endswith("%") else float(part))
            except ValueError:
                continue
    return factors


_ANGLE_UNITS: Final = {"deg": 1.0, "grad": 0.9, "rad": 180 / math.pi, "turn": 360.0}


def _degrees(value: str) -> float | None:
    found = re.fullmatch(r"(-?\d*\.?\d+)(deg|grad|rad|turn)?", value.strip())
    if found is None:
        return None
    return float(found.group(1)) * _ANGLE_UNITS.get(found.group(2) or "deg", 1.0)


def _flattened(transform: str) -> bool:
    """A transform that leaves the text no area: a scale under `_TINY_SCALE`, a
    `matrix()` that collapses the plane onto a line, a turn of 90 degrees about the x
    or y axis (seen edge-on)."""
    if any(abs(f) < _TINY_SCALE for f in _scale_factors(transform)):
        return True
    for match in re.finditer(r"\b(matrix|matrix3d)" + _FUNCTION_ARGS, transform):
        values = [_length(part) for part in match.group(2).split(",")]
        if any(v is None for v in values) or len(values) not in (6, 16):
            continue
        a, b, c, e = (float(values[i] or 0.0) for i in ((0, 1, 4, 5) if len(values) == 16
                                                       else (0, 1, 2, 3)))  # fmt: skip
        # The smaller singular value of [[a, c], [b, e]]: how thin the text becomes.
        total, det = a * a + b * b + c * c + e * e, abs(a * e - b * c)
        smallest = math.sqrt(max(total - math.sqrt(max(total * total - 4 * det * det, 0)), 0) / 2)
        if smallest < _TINY_SCALE:
            return True
    for match in re.finditer(r"\brotate(x|y|3d)" + _FUNCTION_ARGS, transform):
        parts = [p.strip() for p in match.group(2).split(",")]
        if match.group(1) == "3d":  # about an axis in the plane of the page only
            if len(parts) != 4 or _length(parts[2]) != 0:
                continue
            parts = parts[3:]
        angle = _degrees(parts[0]) if len(parts) == 1 else None
        if angle is not None and abs(math.cos(math.radians(angle))) < _TINY_SCALE:
            return True
    return False


def _translations(transform: str) -> list[tuple[str, float]]:
    """(axis, px) of every shift a transform makes: `translate*()` and a matrix's."""
    shifts: list[tuple[str, float]] = []
    for match in re.finditer(r"\btranslate(x|y|z|3d)?" + _FUNCTION_ARGS, transform):
        axes = {"x": "x", "y": "y", "z": "z"}.get(match.group(1) or "", "xyz")
        shifts.extend(
            (axis, n) for axis, n in zip(axes, _numbers(match.group(2)), strict=False)
            if n is not None and axis != "z"
        )  # fmt: skip
    for match in re.finditer(r"\b(matrix|matrix3d)" + _FUNCTION_ARGS, transform):
        values = [_length(part) for part in match.group(2).split(",")]
        if len(values) in (6, 16):
            x, y = values[4:6] if len(values) == 6 else values[12:14]
            shifts.extend((axis, n) for axis, n in (("x", x), ("y", y)) if n is not None)
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
    inset of half the box or more (or 5,000 px), a polygon or path with no area."""
    found = re.search(r"\b(circle|ellipse|inset|polygon|path|xywh|rect)" + _FUNCTION_ARGS, path)
    if found is None:
        return False
    shape, args = found.group(1), found.group(2).split(" at ")[0].strip()
    if shape in {"circle", "ellipse"}:
        radii = _numbers(args)
        return bool(radii) and any(r is not None and r <= 0 for r in radii)
    if shape == "rect":
        return _clip_is_empty(found.group())
    if shape == "xywh":
        sizes = _numbers(args.split(" round ")[0])[2:4]
        return len(sizes) == 2 and any(size is not None and size <= 0 for size in sizes)
    if shape == "inset":
        return _inset_is_empty(args.split(" round ")[0].split()[:4])
    if shape == "path":
        return _path_is_empty(args)
    return _polygon_is_empty(args)


def _inset_is_empty(parts: list[str]) -> bool:
    """`inset()` sides (top, right, bottom, left as the margin shorthand gives them)
    that meet across the box: 100% or more, or `_FAR_PX`, on one axis."""
    sides: list[tuple[float, float]] = []  # (fraction of the box, px)
    for part in parts:
        if part.endswith("%"):
            fraction = _fraction(part)
            if fraction is None:
                return False
            sides.append((fraction, 0.0))
        else:
            px = _length(part)
            if px is None:
                return False
            sides.append((0.0, px))
    if not sides:
        return False
    top = sides[0]
    right = sides[1] if len(sides) > 1 else top
    bottom = sides[2] if len(sides) > 2 else top
    left = sides[3] if len(sides) > 3 else right
    return any(
        one[0] + other[0] >= 1 or one[1] + other[1] >= _FAR_PX
        for one, other in ((top, bottom), (left, right))
    )


def _polygon_is_empty(args: str) -> bool:
    """A polygon of at most two distinct points, or whose points enclose no area."""
    points = [point.split() for point in args.split(",") if point.strip()]
    if points and len(points[0]) == 1 and points[0][0] in {"nonzero", "evenodd"}:
        points = points[1:]
    if len({tuple(point) for point in points}) <= 2:
        return True
    xy = [[_length(v) for v in point] for point in points]
    if any(len(point) != 2 or None in point for point in xy):
        return False
    corners = [(float(x or 0.0), float(y or 0.0)) for x, y in xy]
    area = sum(
        x0 * y1 - x1 * y0
        for (x0, y0), (x1, y1) in zip(corners, corners[1:] + corners[:1], strict=True)
    )
    return abs(area) / 2 <= _TINY_BOX_PX


_PATH_TOKEN = re.compile(r"[a-z]|[-+]?(?:\d*\.\d+|\d+\.?)(?:e[-+]?\d+)?", re.IGNORECASE)
# The numbers each path command takes; an arc (radii and flags) is not read.
_PATH_ARGS: Final = {"m": 2, "l": 2, "t": 2, "s": 4, "q": 4, "c": 6, "h": 1, "v": 1, "z": 0}


def _path_is_empty(args: str) -> bool:
    """`path('…')` data that draws nothing, or a box at most a pixel wide or high (the
    points a curve is drawn through hold it; an arc is taken to show)."""
    tokens = _PATH_TOKEN.findall(args.strip().strip("'\""))
    x = y = 0.0
    xs: list[float] = []
    ys: list[float] = []
    drawn = False
    index = 0
    while index < len(tokens):
        command = tokens[index]
        if command.lower() not in _PATH_ARGS:
            return False
        count = _PATH_ARGS[command.lower()]
        index += 1
        relative = command.islower()
        drawn = drawn or command.lower() not in {"m", "z"}
        while True:
            numbers = tokens[index : index + count]
            if count == 0 or len(numbers) < count or any(n.isalpha() for n in numbers):
                break
            index += count
            values = [float(n) for n in numbers]
            if command.lower() == "h":
                x = x * relative + values[0]
            elif command.lower() == "v":
                y = y * relative + values[0]
            else:
                pairs = list(zip(values[::2], values[1::2], strict=True))
                xs.extend(px + x * relative for px, _ in pairs)
                ys.extend(py + y * relative for _, py in pairs)
                x, y = xs[-1], ys[-1]
            xs.append(x)
            ys.append(y)
        if count and index < len(tokens) and not tokens[index].isalpha():
            return False  # a number left over: not path data as written here
    if not drawn or not xs:
        return True
    return max(xs) - min(xs) <= _TINY_BOX_PX or max(ys) - min(ys) <= _TINY_BOX_PX


def _css_rules(tree: lxml.html.HtmlElement) -> list[tuple[str, str]]:
    """(selector list, declarations) of every rule of the page's `<style>` blocks that
    applies to every reader: at top level, or inside `@layer`, `@supports` and a
    `@media` for every screen (a `@media` rule with a condition hides for one screen
    size, not every reader)."""
    rules: list[tuple[str, str]] = []
    for node in tree.iter("style"):
        _parse_rules(_CSS_COMMENT.sub("", node.text or ""), rules, depth_left=_MAX_NESTING)
    return rules


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
            background = _background_colour(d)
            # Every background is matched: a dark page's white text is read against it
            # (a background far from every text colour still decides what is behind).
            wanted = (
                (resets_needed and bool(set(d) & set(styles.resets)))
                or _near_any(d.get("color"), grounds)
                or background is not None
            )
            if wanted:
                for element in _matches(tree, selectors, deadline=deadline):
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
        return all(abs(a - b) <= _SAME_COLOUR for a, b in zip(colour[:3], paint[:3], strict=True))


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
        found = _LENGTH.match(value)
        if found is not None and found.group(2) in {"%", "em"}:
            # A share of the parent's size: of 0, 0; of a tiny size, shown when it
            # multiplies it at least twice.
            factor = float(found.group(1)) / (100 if found.group(2) == "%" else 1)
            return factor >= 2
        size = _font_px(value)
        return size is None or size >= _TINY_FONT_PX
    if name == "visibility":
        return value not in {"hidden", "collapse"}
    if name == "color":
        colour = parse_colour(value)
        return colour is None or colour[3] > 0
    if name == "line-height":
        return not _no_line_height({"line-height": value})
    return True


def _background_colour(d: dict[str, str]) -> str | None:
    """The colour a `background-color` or `background` declaration paints (a gradient of
    one colour paints that colour); "?" when it paints an image or a gradient of
    several colours (text over it cannot be judged), None when unset."""
    image = d.get("background-image", "")
    shorthand = d.get("background")
    if "gradient(" in image and "url(" not in image:
        return _gradient_colour(image) or "?"
    if "background-color" in d:
        return d["background-color"]
    if shorthand is None:
        return None
    if shorthand in {"none", "initial", "unset"}:
        return None
    if "url(" in shorthand:
        return "?"
    if "gradient(" in shorthand:
        return _gradient_colour(shorthand) or "?"
    for token in _COLOUR_TOKEN.findall(shorthand):
        if parse_colour(token) is not None:
            return str(token)
    return "?"


_COLOUR_TOKEN = re.compile(
    r"#[0-9a-f]{3,8}\b|(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\([^()]*\)|[a-z]+"
)


def _gradient_colour(value: str) -> str | None:
    """The one colour every stop of a gradient paints (`linear-gradient(#fff, #fff)`),
    None when its stops differ, are see-through or are not all read."""
    if "var(" in value or "currentcolor" in value:
        return None
    colours = [(str(t), parse_colour(t)) for t in _COLOUR_TOKEN.findall(value)]
    read = [(token, colour) for token, colour in colours if colour is not None]
    if not read or any(colour[3] < 1 for _, colour in read):
        return None
    first = read[0][1]
    if all(
        all(abs(a - b) <= _SAME_COLOUR for a, b in zip(first[:3], colour[:3], strict=True))
        for _, colour in read
    ):
        return read[0][0]
    return None


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
