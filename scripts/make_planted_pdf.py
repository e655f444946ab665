#!/usr/bin/env python3
"""Build the PDF of the honeybees planted corpus (tests/corpora/honeybees).

Writes ``tests/corpora/honeybees/agriculture.gov.example/colony-loss-report-2023.pdf``: a
two-page, fictional agency report with a running header, page numbers, headings and
one finding per paragraph. The text is original and synthetic (written for Lyra's tests);
some of it contradicts other sources of the corpus on purpose (its README.txt says
which).

Usage::

    python scripts/make_planted_pdf.py [--out PATH]

Deterministic like ``make_corpus_pdf.py``: fixed metadata dates and no random file id.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pymupdf

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = (
    REPO_ROOT
    / "tests"
    / "corpora"
    / "honeybees"
    / "agriculture.gov.example"
    / "colony-loss-report-2023.pdf"
)
TITLE = "Honey Bee Health: Annual Colony Loss Report 2023"
PAGE_WIDTH, PAGE_HEIGHT = 595, 842  # A4 in points
MARGIN = 60
FIXED_DATE = "D:20240101000000Z"
STYLES = {
    "title": ("hebo", 16, 0, 6),  # font, size, align (0 left, 3 justify), space after
    "meta": ("heit", 9, 0, 12),
    "h2": ("hebo", 12, 0, 4),
    "p": ("helv", 10.5, 3, 8),
}
PAGES = [
    [
        ("title", TITLE),
        ("meta", "Agriculture Department, Pollinator Programme. Report PP-2023-07."),
        ("h2", "Summary"),
        (
            "p",
            "Beekeepers in the United States lost 48 percent of their managed honey bee "
            "colonies between April 2022 and April 2023, the second highest loss since the "
            "survey began in 2010.",
        ),
        (
            "p",
            "Winter losses alone were 37 percent, above the 21 percent that beekeepers "
            "consider acceptable.",
        ),
        ("h2", "Causes of colony loss"),
        (
            "p",
            "The parasitic mite Varroa destructor is the leading cause of colony loss in "
            "managed honey bees.",
        ),
        (
            "p",
            "Varroa mites spread deformed wing virus, which kills developing bees and "
            "shortens the life of adult workers.",
        ),
        (
            "p",
            "Poor nutrition weakens colonies: landscapes planted with a single crop offer bees "
            "pollen for only a few weeks of the year.",
        ),
    ],
    [
        ("h2", "Pesticides"),
        (
            "p",
            "Neonicotinoid pesticides impair the ability of foraging honey bees to find their "
            "way back to the hive.",
        ),
        (
            "p",
            "Residues of at least one pesticide were found in 98 percent of wax samples taken "
            "from commercial hives.",
        ),
        ("h2", "Colony collapse disorder"),
        (
            "p",
            "Colony collapse disorder, in which most adult bees disappear from a hive, has been "
            "rare since 2010.",
        ),
        ("h2", "Recommendations"),
        (
            "p",
            "Beekeepers should check mite levels at least once a month from spring to autumn.",
        ),
    ],
]


def build(out: Path) -> Path:
    doc = pymupdf.open()
    for number, blocks in enumerate(PAGES, start=1):
        page = doc.new_page(width=PAGE_WIDTH, height=PAGE_HEIGHT)
        header = pymupdf.Rect(MARGIN, 25, PAGE_WIDTH - MARGIN, 45)
        page.insert_textbox(header, TITLE, fontsize=8, fontname="helv")
        y = MARGIN
        for style, text in blocks:
            fontname, size, align, after = STYLES[style]
            rect = pymupdf.Rect(MARGIN, y, PAGE_WIDTH - MARGIN, PAGE_HEIGHT - MARGIN)
            spare = page.insert_textbox(rect, text, fontsize=size, fontname=fontname, align=align)
            if spare < 0:
                raise SystemExit(f"page {number}: text does not fit")
            y += rect.height - spare + after
        footer = pymupdf.Rect(MARGIN, PAGE_HEIGHT - 40, PAGE_WIDTH - MARGIN, PAGE_HEIGHT - 20)
        page.insert_textbox(
            footer, f"Page {number} of {len(PAGES)}", fontsize=8, fontname="helv", align=1
        )
    doc.set_metadata(
        {
            "title": TITLE,
            "author": "Pollinator Programme (fictional)",
            "subject": "Synthetic report for a Lyra planted corpus",
            "creator": "scripts/make_planted_pdf.py",
            "producer": "PyMuPDF",
            "creationDate": FIXED_DATE,
            "modDate": FIXED_DATE,
        }
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    doc.save(out, garbage=4, deflate=True, no_new_id=True)
    doc.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output PDF path")
    path = build(parser.parse_args(argv).out)
    with pymupdf.open(path) as doc:
        if doc.page_count != len(PAGES):
            raise SystemExit(f"expected {len(PAGES)} pages, got {doc.page_count}")
    print(f"wrote {path} ({path.stat().st_size} bytes, {len(PAGES)} pages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
