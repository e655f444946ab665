"""An evidence pack as one self-contained HTML report: the Markdown report's sections
(contradictions first, adopted claims, claims not adopted and why, numbered sources)
and a drawing of the evidence graph as inline SVG (claims on the left, sources on the
right, an edge per stance: supports green, refutes red, the page a claim was taken
from dashed grey). No script, no font, no image is fetched: it opens offline.
"""

from __future__ import annotations

from html import escape
from typing import Any

from lyra.storage.export.report import (
    author_line,
    claim_groups,
    not_adopted_reason,
    short_quote,
)

ROW = 30
WIDTH = 960
LEFT_X = 40
RIGHT_X = 620
COLORS = {"supports": "#2e7d32", "refutes": "#c62828", "origin": "#9e9e9e"}

_STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; margin: 2em auto; max-width: 62em; color: #222; }
h1 { font-size: 1.5em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
.claim { margin: 1.2em 0; padding: .6em 1em; border-left: 4px solid #888; background: #fafafa; }
.contested { border-left-color: #c62828; } .adopted { border-left-color: #2e7d32; }
.meta { color: #555; font-size: .9em; } blockquote { margin: .3em 0 .3em 1em; color: #333; }
.supports { color: #2e7d32; } .refutes { color: #c62828; } .origin { color: #666; }
svg text { font: 12px system-ui, sans-serif; } .sources li { margin: .3em 0; }
.sources { list-style: none; padding-left: 0; }
"""


def _truncate(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def evidence_svg(pack: dict[str, Any], numbers: dict[str, int]) -> str:
    """The graph of claims and sources as an SVG element."""
    claims, sources = pack["claims"], pack["sources"]
    rows = max(len(claims), len(sources), 1)
    height = rows * ROW + 40
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="evidence-graph" width="{WIDTH}" '
        f'height="{height}" viewBox="0 0 {WIDTH} {height}" role="img" '
        'aria-label="Evidence graph: claims and the sources for and against them">'
    ]
    claim_y = {c["id"]: 30 + i * ROW for i, c in enumerate(claims)}
    source_y = {s["key"]: 30 + i * ROW for i, s in enumerate(sources)}
    for claim in claims:
        for e in claim["evidence"]:
            if e["relation"] not in COLORS or e["source_key"] not in source_y:
                continue
            dash = ' stroke-dasharray="4 3"' if e["relation"] == "origin" else ""
            y1, y2 = source_y[e["source_key"]], claim_y[claim["id"]]
            parts.append(
                f'<line class="edge {e["relation"]}" x1="{RIGHT_X}" y1="{y1}" '
                f'x2="{LEFT_X + 300}" y2="{y2}" stroke="{COLORS[e["relation"]]}" '
                f'stroke-width="1.5" opacity="0.7"{dash}/>'
            )
    for n, claim in enumerate(claims, start=1):
        y = claim_y[claim["id"]]
        parts.append(
            f'<circle class="claim-node" cx="{LEFT_X + 300}" cy="{y}" r="6" fill="#37474f">'
            f"<title>{escape(claim['text'])}</title></circle>"
            f'<text x="{LEFT_X}" y="{y + 4}">C{n} {escape(_truncate(claim["text"], 44))}</text>'
        )
    for source in sources:
        y = source_y[source["key"]]
        parts.append(
            f'<circle class="source-node" cx="{RIGHT_X}" cy="{y}" r="6" fill="#1565c0">'
            f"<title>{escape(source['url'])}</title></circle>"
            f'<text x="{RIGHT_X + 12}" y="{y + 4}">[{numbers[source["key"]]}] '
            f"{escape(_truncate(source['title'], 40))}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _claim_html(n: int, claim: dict[str, Any], css: str, numbers: dict[str, int]) -> str:
    out = [
        f'<section class="claim {css}" id="claim-{escape(claim["id"])}" data-claim-id="'
        f'{escape(claim["id"])}">',
        f'<h3>C{n}. <span class="claim-text">{escape(claim["text"])}</span></h3>',
        f'<p class="meta">Confidence {claim["confidence"]:.2f} ± {claim["uncertainty"]:.2f} '
        f"(supporting {claim['supporting']}, refuting {claim['refuting']}, neutral "
        f"{claim['neutral']}; {claim['independent_sources']} independent supporting sources)</p>",
    ]
    for relation, title in (("origin", "Stated in"), ("supports", "For"), ("refutes", "Against")):
        edges = [e for e in claim["evidence"] if e["relation"] == relation]
        if not edges:
            continue
        out.append(f'<p class="{relation}"><strong>{title}</strong></p>')
        for e in edges:
            number = numbers.get(e["source_key"] or "", 0)
            conf = f" ({e['confidence']:.2f})" if e["confidence"] is not None else ""
            out.append(
                f'<blockquote class="{relation}"><a href="#source-{number}">[{number or "?"}]'
                f"</a>{conf} “{escape(short_quote(e['quote']))}”</blockquote>"
            )
    out.append("</section>")
    return "\n".join(out)


def _source_html(n: int, s: dict[str, Any]) -> str:
    people = author_line(s)
    bits = [f'<li id="source-{n}" class="source">[{n}] ']
    if people:
        bits.append(f"{escape(people)} ")
    bits.append(f"({s['year']}). " if s["year"] else "(n.d.). ")
    bits.append(f"<em>{escape(s['title'])}</em>. ")
    if s["venue"] or s["domain"]:
        bits.append(f"{escape(s['venue'] or s['domain'])}. ")
    if s["doi"]:
        bits.append(f"doi:{escape(s['doi'])} ")
    bits.append(f'<a href="{escape(s["url"], quote=True)}">{escape(s["url"])}</a>')
    extra = []
    if s["accessed"]:
        extra.append(f"accessed {escape(s['accessed'][:10])}")
    if s["archive"]:
        extra.append(f"archived copy <code>{escape(s['archive'])}</code>")
    if s["dup_of"]:
        extra.append("near-duplicate of another source")
    if s["is_retracted"]:
        extra.append("<strong>retracted</strong>")
    if extra:
        bits.append(f" ({'; '.join(extra)})")
    bits.append("</li>")
    return "".join(bits)


def html_report(pack: dict[str, Any]) -> str:
    """The evidence report as one HTML document."""
    task = pack["task"]
    numbers = {s["key"]: i for i, s in enumerate(pack["sources"], start=1)}
    claims = pack["claims"]
    contested, adopted, rejected = claim_groups(claims)
    body = [
        f"<h1>Evidence report: {escape(task['query'])}</h1>",
        f'<p class="meta">Task <code>{escape(task["id"])}</code>, evidence as of '
        f"{escape(pack['as_of'])}: {len(claims)} claims, {len(pack['sources'])} sources. "
        "Confidence is the mean of a Beta posterior over the stance edges, ± its standard "
        "deviation.</p>",
        "<h2>Evidence graph</h2>",
        '<p class="meta">Claims (left) and sources (right): '
        '<span class="supports">supports</span>, <span class="refutes">refutes</span>, '
        '<span class="origin">stated in (dashed)</span>.</p>',
        evidence_svg(pack, numbers),
    ]
    n = 0
    for heading, group, css in (
        ("Contradictions", contested, "contested"),
        ("Claims", adopted, "adopted"),
    ):
        body.append(f"<h2>{heading}</h2>")
        if not group:
            body.append("<p>None.</p>")
        for claim in group:
            n += 1
            body.append(_claim_html(n, claim, css, numbers))
    body.append("<h2>Not adopted</h2>")
    body.append('<ul class="not-adopted">' if rejected else "<p>None.</p>")
    for claim in rejected:
        n += 1
        body.append(
            f'<li class="claim rejected" data-claim-id="{escape(claim["id"])}">C{n}. '
            f'<span class="claim-text">{escape(claim["text"])}</span> '
            f"({escape(not_adopted_reason(claim) or '')})</li>"
        )
    if rejected:
        body.append("</ul>")
    body.append("<h2>Sources</h2>")
    body.append('<ul class="sources">' if pack["sources"] else "<p>None.</p>")
    body.extend(_source_html(numbers[s["key"]], s) for s in pack["sources"])
    if pack["sources"]:
        body.append("</ul>")
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        # No request of any kind: not even a favicon.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
        '<link rel="icon" href="data:,">'
        f"<title>Evidence report: {escape(task['query'])}</title>"
        f"<style>{_STYLE}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )
