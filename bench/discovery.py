"""Discovery: SERP parse time per page and identifier extraction throughput.

Run: .venv/bin/python bench/discovery.py [--rounds 20] [--json PATH]

Reads the third-party pages in ``../shared/realworld/`` in place (the SERP pages with
an EXPECTED.json, the identifier-dense HTML pages) and measures, in one run:

- SERP: `serp_parsers.parse` per page, median of the rounds, against the baseline of
  only building the lxml tree of the same bytes (the floor any DOM parser pays);
- identifiers: `identifiers.extract_from_html` throughput in MB/s, against a baseline
  of one plain DOI regex `findall` over the same text (the cheapest scan possible);
  and `extract_from_text` over the pages' visible text.

API calls per paper for citation tracking need the citation tracker (not built yet);
this script says so instead of printing a number.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lxml.html

from lyra.pipelines.identifiers import extract_from_html, extract_from_text
from lyra.pipelines.serp_parsers import parse

REALWORLD = Path(__file__).resolve().parents[2] / "shared" / "realworld"
SERP_PAGES = {
    "duckduckgo": REALWORLD / "serp/duckduckgo-html/ddg_html_antani_2020.html",
    "google": REALWORLD / "serp/zlurad-serp-parser/google-nojs/google100-nojs.html",
    "bing": REALWORLD / "serp/zlurad-serp-parser/bing-nojs/bing-nojs.html",
}
NAIVE_DOI = re.compile(r"10\.\d{4,9}/[^\s\"'<>]+")


def _median_s(fn: Callable[[], Any], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def serp_figures(rounds: int) -> list[dict[str, Any]]:
    rows = []
    for parser, path in SERP_PAGES.items():
        if not path.is_file():
            print(f"skip {parser}: {path} is absent")
            continue
        body = path.read_bytes()
        items = parse(parser, body, "https://example.invalid/")
        ours = _median_s(lambda b=body, p=parser: parse(p, b, "https://example.invalid/"), rounds)
        tree = _median_s(lambda b=body: lxml.html.fromstring(b), rounds)
        rows.append(
            {
                "parser": parser,
                "bytes": len(body),
                "results": len(items),
                "parse_ms": round(ours * 1000, 2),
                "lxml_tree_ms": round(tree * 1000, 2),
                "ratio": round(ours / tree, 2),
            }
        )
    return rows


def identifier_figures(rounds: int) -> dict[str, Any]:
    pages = sorted((REALWORLD / "identifiers/html").glob("*.html"))
    if not pages:
        return {"skipped": f"{REALWORLD / 'identifiers/html'} is absent"}
    htmls = [p.read_text(encoding="utf-8", errors="replace") for p in pages]
    total = sum(len(h.encode("utf-8")) for h in htmls)
    found = sum(len(extract_from_html(h, "https://example.invalid/")) for h in htmls)
    ours = _median_s(
        lambda: [extract_from_html(h, "https://example.invalid/") for h in htmls], rounds
    )
    naive = _median_s(lambda: [NAIVE_DOI.findall(h) for h in htmls], rounds)
    texts = [lxml.html.fromstring(h).text_content() for h in htmls]
    text_bytes = sum(len(t.encode("utf-8")) for t in texts)
    text_s = _median_s(lambda: [extract_from_text(t) for t in texts], rounds)
    return {
        "pages": len(htmls),
        "bytes": total,
        "identifiers_found": found,
        "html_mb_per_s": round(total / ours / 1e6, 2),
        "naive_doi_regex_mb_per_s": round(total / naive / 1e6, 2),
        "ratio_to_naive": round(ours / naive, 1),
        "text_mb_per_s": round(text_bytes / text_s / 1e6, 2),
    }


def main() -> None:
    """Run both measurements and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if not REALWORLD.is_dir():
        raise SystemExit(f"the third-party pages are not at {REALWORLD}")
    serp = serp_figures(args.rounds)
    for row in serp:
        print(
            f"serp {row['parser']:10s} {row['bytes']:>8d} B {row['results']:>3d} results "
            f"{row['parse_ms']:7.2f} ms/page; lxml tree alone {row['lxml_tree_ms']:6.2f} ms "
            f"({row['ratio']:.2f}x)"
        )
    ids = identifier_figures(args.rounds)
    if "skipped" in ids:
        print(f"identifiers: skipped ({ids['skipped']})")
    else:
        print(
            f"identifiers: {ids['pages']} pages, {ids['bytes']} B, {ids['identifiers_found']} ids; "
            f"extract_from_html {ids['html_mb_per_s']} MB/s vs one naive DOI regex "
            f"{ids['naive_doi_regex_mb_per_s']} MB/s ({ids['ratio_to_naive']}x the time); "
            f"extract_from_text {ids['text_mb_per_s']} MB/s"
        )
    print("citation tracking API calls per paper: not measured (the tracker is not built yet)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"serp": serp, "identifiers": ids}, indent=1))


if __name__ == "__main__":
    main()
