"""Where CSS puts text out of sight: lengths, transforms and clips, read.

Part of the hidden-HTML check (`hidden_html`, decision 0016). A length is read in px,
with the units a page uses for hiding (em and rem count 16 px, % and the viewport units
10 px) and `calc()` sums of them; `geometry` says whether a set of declarations shrinks
its text to nothing (a box of a pixel with its overflow clipped, lines of no height, a
`scale()` or `matrix()` that flattens it, a turn that shows it edge-on, a `clip` or
`clip-path` that leaves no area) or moves it off-screen (negative offsets and indents,
far right or up, `translate()`).

Not read: products and quotients in `calc()`, arcs in a `path()` (taken to show), a
`rotate3d()` about an axis out of the page, and the size of the box a percentage is of
(a percentage counts 10 px; only `inset()` reads it as a share of the box).
"""

from __future__ import annotations

import math
import re
from typing import Final

# Off-screen: at least this far out (px; em and rem count 16 px, % and vw 10 px).
_OFFSCREEN_PX: Final = 500.0
# Text this faint (opacity, or a filter's) is unreadable.
FAINT: Final = 0.1
# A box at most this big (px) with its overflow clipped shows nothing.
_TINY_BOX_PX: Final = 1.0
_UNIT_PX: Final = {"px": 1.0, "pt": 4 / 3, "em": 16.0, "rem": 16.0, "%": 10.0, "vw": 10.0,
                   "vh": 10.0, "": 1.0}  # fmt: skip
LENGTH = re.compile(r"^(-?\d*\.?\d+)\s*(px|pt|em|rem|%|vw|vh)?$")
# Moved this far right or up (px), text is off-screen: a page is rarely this wide.
_FAR_PX: Final = 5000.0


def is_number(text: str) -> bool:
    """Whether `text` is a bare number (`1.5`, `-2`)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def fraction(value: str) -> float | None:
    """An opacity as a fraction (0.5, 50%), None when it is not a number."""
    value = value.strip()
    try:
        return float(value[:-1]) / 100 if value.endswith("%") else float(value)
    except ValueError:
        return None


def font_px(value: str) -> float | None:
    """A font size in px; a percentage or an em of the 16 px a browser starts from."""
    found = LENGTH.match(value.strip())
    if found is None:
        return None
    unit = found.group(2) or ""
    return float(found.group(1)) * (0.16 if unit == "%" else _UNIT_PX[unit])


def _px(value: str) -> float | None:
    found = LENGTH.match(value.strip())
    if found is None:
        return None
    return float(found.group(1)) * _UNIT_PX[found.group(2) or ""]


def _overflow_clipped(d: dict[str, str]) -> bool:
    return any(
        word in {"hidden", "clip"}
        for name in ("overflow", "overflow-x", "overflow-y")
        for word in d.get(name, "").split()
    )


def geometry(d: dict[str, str]) -> str | None:
    """Text shrunk, clipped or moved to where no reader sees it."""
    if _clip_is_empty(d.get("clip", "")) or _clip_path_is_empty(d.get("clip-path", "")):
        return "zero-size"
    clipped = _overflow_clipped(d)
    if clipped and _squeezed(d):
        return "zero-size"
    if clipped and no_line_height(d):
        return "line-height:0"
    zoom = fraction(d.get("zoom", ""))
    if zoom is not None and 0 < zoom < FAINT:  # `zoom: 0` is read as 1
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
        offset = length(d.get(side, ""))
        if offset is not None and offset <= -_OFFSCREEN_PX and (positioned or side != "top"):
            return "off-screen"
    if positioned and _far_right_or_up(d):
        return "off-screen"
    # `text-indent: 100%` on one clipped line pushes it out of its own box.
    indent = length(d.get("text-indent", ""))
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


def no_line_height(d: dict[str, str]) -> bool:
    """Lines that take no height (`line-height: 0`) in a box (its overflow clipped)
    with no height or padding of its own: the box is as high as its lines, nothing."""
    line = d.get("line-height", "")
    height = _px(line) if not is_number(line) else float(line) * 16
    if height is None or height > _TINY_BOX_PX:
        return False
    room = ("height", "min-height", "padding", "padding-top", "padding-bottom")
    return all(
        (length(part) or 0.0) <= _TINY_BOX_PX for name in room for part in d.get(name, "").split()
    )


def _far_right_or_up(d: dict[str, str]) -> bool:
    """A positioned box moved out of its container to the right (`left: 10000px`),
    left by its right edge (`right: 100%`), or far up (`bottom: 10000px`)."""
    right = d.get("right", "")
    offset = length(right)
    if offset is not None and (offset >= _FAR_PX or (right.endswith("%") and offset >= 1000)):
        return True  # 100% is 1,000 px as _UNIT_PX reads it
    return any((length(d.get(side, "")) or 0.0) >= _FAR_PX for side in ("left", "bottom"))


# A transform that scales text below this factor shrinks it to nothing.
_TINY_SCALE: Final = 0.05
_FUNCTION_ARGS = r"\(([^()]*(?:\([^()]*\)[^()]*)*)\)"
_CALC_TERM = re.compile(r"([+-]?)\s*(\d*\.?\d+)\s*(px|pt|em|rem|%|vw|vh)?")


def length(value: str) -> float | None:
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
    return [length(part) for part in re.split(r"\s*,\s*|\s+(?![^(]*\))", args.strip()) if part]


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
        values = [length(part) for part in match.group(2).split(",")]
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
            if len(parts) != 4 or length(parts[2]) != 0:
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
        values = [length(part) for part in match.group(2).split(",")]
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
            share = fraction(part)
            if share is None:
                return False
            sides.append((share, 0.0))
        else:
            px = length(part)
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
    xy = [[length(v) for v in point] for point in points]
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
