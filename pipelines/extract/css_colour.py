"""CSS colours read as (r, g, b, alpha), and what a background paints.

Part of the hidden-HTML check (`hidden_html`, decision 0016): text in the colour of
what is behind it is hidden. `parse_colour` reads the CSS named colours, #hex and the
colour functions (rgb, hsl, hwb, lab, lch, oklab, oklch and `color(srgb …)`),
converting the other spaces to sRGB as CSS Color 4 gives it; `background_colour` reads
what a `background` or `background-color` declaration paints (a gradient of one colour
paints that colour). Two colours within `SAME_COLOUR` on every channel read as one.

Not read: variables (the caller resolves them), `currentcolor`, relative colours,
`color-mix()`, and `color()` spaces other than sRGB.
"""

from __future__ import annotations

import colorsys
import math
import re
from collections.abc import Iterable
from typing import Final

from lyra.pipelines.extract.css_geometry import is_number

# Two colours this close on every channel (of 255) read as one.
SAME_COLOUR: Final = 8.0


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
        parts[:3] = [str(float(p) * 255) if is_number(p) else p for p in parts[:3]]
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


def colours_of(values: Iterable[str | None]) -> list[Colour]:
    """The colours `values` name that paint something (alpha above 0), each once."""
    found = {parse_colour(v) for v in values if v}
    return [c for c in found if c is not None and c[3] > 0]


def near_any(value: str | None, colours: list[Colour]) -> bool:
    """Whether `value` is a colour within `SAME_COLOUR` of one of `colours`."""
    colour = parse_colour(value) if value else None
    if colour is None:
        return False
    return any(
        all(abs(a - b) <= SAME_COLOUR for a, b in zip(colour[:3], other[:3], strict=True))
        for other in colours
    )


def background_colour(d: dict[str, str]) -> str | None:
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
        all(abs(a - b) <= SAME_COLOUR for a, b in zip(first[:3], colour[:3], strict=True))
        for _, colour in read
    ):
        return read[0][0]
    return None
