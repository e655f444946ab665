"""Hidden text by CSS from a third outside round, as tables (STYLE §7, decision 0016).

Bad inputs must be removed and reported; honest look-alikes (a responsive rule, a
hover zoom, a light blur, a small offset) must keep their text.
"""

from __future__ import annotations

import pytest

from lyra.pipelines.extract.hidden_html import hiding_rule, parse_colour, strip_hidden

HONEST = "In a 2019 trial of 1,200 adults, drug X lowered systolic pressure by 8 mmHg."


def _page(body: str, head: str = "") -> str:
    return f"<html><head>{head}</head><body><article><p>{HONEST}</p>{body}</article></body></html>"


@pytest.mark.parametrize(
    ("style", "reason"),
    [
        # CSS escapes in the property name or its value.
        ("displ\\61 y: none", "display:none"),
        ("\\64isplay:none", "display:none"),
        ("display: n\\6f ne", "display:none"),
        # The font shorthand's size.
        ("font: 0/0 a", "font-size:0"),
        ("font: 700 0 / 0 serif", "font-size:0"),
        # Transforms that leave no area, and zoom.
        ("transform: scale(0)", "zero-size"),
        ("transform: scaleY(0)", "zero-size"),
        ("transform: matrix(0, 0, 0, 0, 0, 0)", "zero-size"),
        ("transform: matrix(1, 0, 0, 0.01, 0, 0)", "zero-size"),
        ("transform: matrix3d(0,0,0,0, 0,0,0,0, 0,0,1,0, 0,0,0,1)", "zero-size"),
        ("transform: rotateX(90deg)", "zero-size"),
        ("transform: rotateY(-90deg)", "zero-size"),
        ("transform: rotate3d(1, 0, 0, 0.25turn)", "zero-size"),
        ("scale: 0", "zero-size"),
        ("rotate: y 90deg", "zero-size"),
        ("zoom: 0.01", "zero-size"),
        ("zoom: 1%", "zero-size"),
        # Off-screen to the right or up, as well as to the left.
        ("position: absolute; left: 100000px", "off-screen"),
        ("position: absolute; right: 100%; white-space: nowrap", "off-screen"),
        ("position: fixed; right: 9999px", "off-screen"),
        ("position: absolute; top: -5000px", "off-screen"),
        ("position: absolute; bottom: 9999px", "off-screen"),
        ("transform: translateX(10000px)", "off-screen"),
        ("transform: matrix(1, 0, 0, 1, -9999, 0)", "off-screen"),
        ("translate: -9999px", "off-screen"),
        ("text-indent: 100%; white-space: nowrap; overflow: hidden", "off-screen"),
        ("text-indent: 100%; white-space: nowrap; overflow: clip", "off-screen"),
        # overflow: clip reads as overflow: hidden.
        ("line-height: 0; overflow: hidden", "line-height:0"),
        ("line-height: 0; overflow: clip", "line-height:0"),
        ("max-height: 0; overflow: clip", "zero-size"),
        ("height: 0; overflow-y: clip", "zero-size"),
        # Clip paths that show nothing.
        ("clip-path: path('M0 0')", "zero-size"),
        ("clip-path: path('M 10 10 h 100 v 0 z')", "zero-size"),
        ("clip-path: polygon(0 0, 50% 50%, 100% 100%)", "zero-size"),
        ("clip-path: inset(0 9999px 0 0)", "zero-size"),
        ("clip-path: inset(50%)", "zero-size"),
        ("clip-path: xywh(0 0 0 0)", "zero-size"),
        ("clip-path: rect(0 0 0 0)", "zero-size"),
        # Blurred past reading.
        ("filter: blur(40px)", "filter:blur"),
        ("filter: blur(0.5em)", "filter:blur"),
    ],
)
def test_hiding_styles(style: str, reason: str) -> None:
    assert hiding_rule(style) == reason


@pytest.mark.parametrize(
    "style",
    ["transform: scale(1.05)", "transform: scaleZ(0)", "transform: scale3d(1, 1, 0)",
     "transform: matrix(1, 0, 0, 1, 20, 0)", "transform: rotateY(45deg)",
     "transform: perspective(2500px) rotateY(-100deg)", "transform: rotate(90deg)",
     "transform: translateY(9999px)", "zoom: 1.2", "zoom: 0", "zoom: normal",
     "filter: blur(2px)", "font: italic bold 12px/30px Georgia, serif", "font: inherit",
     "position: absolute; left: 20px", "position: absolute; left: 100%",
     "position: absolute; bottom: 100%", "position: absolute; right: 20px",
     "left: 100000px", "line-height: 0", "line-height: 1; overflow: hidden",
     "line-height: 0; overflow: hidden; height: 40px",
     "line-height: 0; overflow: hidden; padding: 0 0 10px",
     "text-indent: 100%; overflow: hidden", "text-indent: 2em; white-space: nowrap; "
     "overflow: clip", "clip-path: path('M0 0 L100 0 L100 100 Z')",
     "clip-path: path('M0 0 A 10 10 0 0 1 20 20')", "clip-path: inset(10px 20px)",
     "clip-path: inset(50% 0 0 0)", "clip-path: xywh(0 0 100% 100%)",
     "clip-path: polygon(evenodd, 0 0, 100% 0, 0 100%)", "overflow: clip"],
)  # fmt: skip
def test_visible_styles(style: str) -> None:
    assert hiding_rule(style) is None


@pytest.mark.parametrize(
    ("value", "rgb"),
    [
        ("ghostwhite", (248, 248, 255)),
        ("rebeccapurple", (102, 51, 153)),
        ("hwb(0 100% 0%)", (255, 255, 255)),
        ("hwb(120 20% 30%)", (51, 178, 51)),
        ("oklch(1 0 0)", (255, 255, 255)),
        ("oklab(100% 0 0)", (255, 255, 255)),
        ("lab(100 0 0)", (255, 255, 255)),
        ("lch(100% 0 0)", (255, 255, 255)),
        ("color(srgb 1 1 1)", (255, 255, 255)),
        ("oklch(0 0 0)", (0, 0, 0)),
    ],
)
def test_colours_are_read(value: str, rgb: tuple[int, int, int]) -> None:
    colour = parse_colour(value)
    assert colour is not None
    assert all(abs(a - b) <= 1 for a, b in zip(colour[:3], rgb, strict=True))


@pytest.mark.parametrize(
    ("body", "head", "detail"),
    [
        # @media for every screen, with no condition, reads like a top-level rule.
        ("<p class='q'>Secret words here.</p>", "<style>@media all { .q{display:none} }</style>",
         "style rule display:none"),
        ("<p class='q'>Secret words here.</p>", "<style>@media screen{.q{display:none}}</style>",
         "style rule display:none"),
        ("<p class='q'>Secret words here.</p>",
         "<style>@media only screen, print{.q{display:none}}</style>", "style rule display:none"),
        # A statement before a rule does not hide it from the parser.
        ("<p class='q'>Secret words here.</p>",
         "<style>@charset 'utf-8'; .q{display:none}</style>", "style rule display:none"),
        # Selector lists split at top-level commas only.
        ("<p class='q'>Secret words here.</p>", "<style>:is(.a, .q) { display: none }</style>",
         "style rule display:none"),
        ("<p class='q'>Secret words here.</p>", "<style>:where(.a,.q){display:none}</style>",
         "style rule display:none"),
        ("<p class='q'>Secret words here.</p>",
         "<style>p.q:not(.a, .b) { display: none }</style>", "style rule display:none"),
        # A bare type selector.
        ("<p><cite>Secret words here.</cite></p>", "<style>cite { display: none }</style>",
         "style rule display:none"),
        # Escapes, in a style attribute and in a rule.
        ("<p style='displ\\61 y: none'>Secret words here.</p>", "", "display:none"),
        ("<p class='q'>Secret words here.</p>", "<style>.q{\\76isibility:hidden}</style>",
         "style rule visibility:hidden"),
        ("<p style='font: 0/0 a'>Secret words here.</p>", "", "font-size:0"),
        ("<p style='transform: rotateX(90deg)'>Secret words here.</p>", "", "zero-size"),
        ("<p style='zoom: 0.01'>Secret words here.</p>", "", "zero-size"),
        ("<p style='position: absolute; right: 100%'>Secret words here.</p>", "", "off-screen"),
        ("<p style='line-height: 0; overflow: clip'>Secret words here.</p>", "", "line-height:0"),
        ("<p style=\"clip-path: path('M0 0')\">Secret words here.</p>", "", "zero-size"),
        ("<p style='filter: blur(40px)'>Secret words here.</p>", "", "filter:blur"),
        # A child that inherits or restates the hidden parent's value shows nothing.
        ("<div style='font-size:0'><p style='font-size:100%'>Secret words here.</p></div>", "",
         "font-size:0"),
        ("<div style='font-size:0'><p style='font-size:1em'>Secret words here.</p></div>", "",
         "font-size:0"),
        ("<div style='color:transparent'><p style='color:inherit'>Secret words here.</p></div>",
         "", "color:transparent"),
        ("<div style='color:transparent'><p style='color:currentColor'>Secret words here.</p>"
         "</div>", "", "color:transparent"),
        ("<div style='visibility:collapse'><p style='visibility:inherit'>Secret words here.</p>"
         "</div>", "", "visibility:hidden"),
        ("<div style='visibility:hidden'><p style='visibility:inherit'>Secret words here.</p>"
         "</div>", "", "visibility:hidden"),
        # Colours of every notation, and a background of one colour as a gradient.
        ("<p style='color: ghostwhite'>Secret words here.</p>", "", "color:background"),
        ("<p style='color: hwb(0 100% 0%)'>Secret words here.</p>", "", "color:background"),
        ("<p style='color: oklch(1 0 0)'>Secret words here.</p>", "", "color:background"),
        ("<p style='color: lab(99 0 0)'>Secret words here.</p>", "", "color:background"),
        ("<div style='background: linear-gradient(#fff, #fff)'><p style='color: #fff'>"
         "Secret words here.</p></div>", "", "color:background"),
        ("<div style='background-image: linear-gradient(to right, #111, #121212)'>"
         "<p style='color: #101010'>Secret words here.</p></div>", "", "color:background"),
        # A stylesheet linked as a data: URL is the page's own: percent-encoded, base64
        # (a URL-quoted one too), plain, for every screen.
        ("<p class='q'>Secret words here.</p>",
         "<link rel='stylesheet' href='data:text/css,.q%7Bdisplay%3Anone%7D'>",
         "style rule display:none"),
        ("<p class='q'>Secret words here.</p>",
         "<link rel='stylesheet' href='data:text/css;base64,LnF7ZGlzcGxheTpub25lfQ=='>",
         "style rule display:none"),
        ("<p class='q'>Secret words here.</p>",
         "<link rel='stylesheet' href='data:text/css;base64,LnF7ZGlzcGxheTpub25lfQ%3D%3D'>",
         "style rule display:none"),
        ("<p class='q'>Secret words here.</p>",
         "<link rel='Stylesheet' media='screen' href='data:text/css;charset=utf-8,"
         ".q{font-size:0}'>", "style rule font-size:0"),
        ("<p class='q'>Secret words here.</p>",
         "<link rel='stylesheet' href='data:,.q{visibility:hidden}'>",
         "style rule visibility:hidden"),
    ],
)  # fmt: skip
def test_hidden_elements_are_removed_and_reported(body: str, head: str, detail: str) -> None:
    scan = strip_hidden(_page(body, head))
    assert "Secret" not in scan.html
    assert HONEST in scan.html
    assert [(d.kind, d.detail) for d in scan.detections] == [("hidden_text", detail)]


@pytest.mark.parametrize(
    ("body", "head"),
    [
        # A responsive rule hides for one screen size, and print is no screen.
        ("<nav class='nav'>Visible words here.</nav>",
         "<style>@media (max-width:600px){.nav{display:none}}</style>"),
        ("<p class='q'>Visible words here.</p>",
         "<style>@media screen and (max-width:600px){.q{display:none}}</style>"),
        ("<p class='q'>Visible words here.</p>", "<style>@media print{.q{display:none}}</style>"),
        # A list that only paints, and a :not() list that excludes the element.
        ("<p class='a'>Visible words here.</p>", "<style>:is(.a,.b){color:red}</style>"),
        ("<p class='q a'>Visible words here.</p>",
         "<style>p.q:not(.a, .b){display:none}</style>"),
        ("<p class='q'>Visible words here.</p>", "<style>.x, :is(.a, .b) .q{display:none}</style>"),
        # Hover zooms, light blurs, small offsets, a zoom in.
        ("<p style='transform: scale(1.05)'>Visible words here.</p>", ""),
        ("<p style='zoom: 1.2'>Visible words here.</p>", ""),
        ("<div style='filter: blur(2px)'><p>Visible words here.</p></div>", ""),
        ("<p style='position: absolute; left: 20px'>Visible words here.</p>", ""),
        ("<p style='position: absolute; left: 100%'>Visible words here.</p>", ""),
        # Children that set a size, visibility, colour or line height of their own.
        ("<div style='font-size:0'><p style='font-size:14px'>Visible words here.</p></div>", ""),
        ("<div style='visibility:hidden'><p style='visibility:visible'>Visible words here.</p>"
         "</div>", ""),
        ("<div style='color:transparent'><p style='color:#333'>Visible words here.</p></div>", ""),
        ("<div style='line-height:0; overflow:hidden'><p style='line-height:1.5'>"
         "Visible words here.</p></div>", ""),
        # An image gives a line-height:0 box its height (a gap-free image wrapper).
        ("<div style='line-height:0; overflow:hidden'><img src='a.png'> Visible words here."
         "</div>", ""),
        # A gradient of several colours, or see-through, is not judged.
        ("<div style='background: linear-gradient(#fff, #000)'><p style='color: #fff'>"
         "Visible words here.</p></div>", ""),
        ("<div style='background: linear-gradient(#fff, transparent)'><p style='color: #fff'>"
         "Visible words here.</p></div>", ""),
        ("<p style='color: oklch(0.4 0.1 200)'>Visible words here.</p>", ""),
        # A data: stylesheet for print, of another type, or not a stylesheet at all.
        ("<p class='q'>Visible words here.</p>",
         "<link rel='stylesheet' media='print' href='data:text/css,.q{display:none}'>"),
        ("<p class='q'>Visible words here.</p>",
         "<link rel='stylesheet' href='data:image/png;base64,LnF7ZGlzcGxheTpub25lfQ=='>"),
        ("<p class='q'>Visible words here.</p>",
         "<link rel='preload' href='data:text/css,.q{display:none}'>"),
    ],
)  # fmt: skip
def test_visible_text_is_kept(body: str, head: str) -> None:
    scan = strip_hidden(_page(body, head))
    assert "Visible words here." in scan.html
    assert scan.detections == []
