#!/usr/bin/env python3
"""Build the one PDF of the offline demo corpus.

Writes ``examples/corpus/arxiv.org/coffee-heart-failure-cohort.pdf``: a two-page,
fictional preprint used by ``lyra research --corpus examples/corpus``. The text is
original and synthetic (the cohort does not exist). One planted agreement sentence
sits on page 2 so that a PDF fragment with a page number can support a claim; see
``examples/corpus/EXPECTED.md``.

With ``--corpus honeybees`` it writes the PDF of a planted corpus of the tests instead,
``tests/corpora/honeybees/agriculture.gov.example/colony-loss-report-2023.pdf``: a
two-page, fictional agency report with a running title and page numbers, some of whose
findings contradict other sources of that corpus on purpose (its README.txt says which).

Usage::

    python scripts/make_corpus_pdf.py [--corpus demo|honeybees] [--out PATH]

Requires PyMuPDF (``pip install pymupdf``). The output is deterministic: fixed
metadata dates and no random file identifier, so re-running it does not change the
file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pymupdf

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "examples" / "corpus" / "arxiv.org" / "coffee-heart-failure-cohort.pdf"

# The planted sentence (EXPECTED.md, agreement A1). Keep it verbatim.
PLANTED_A1 = "Drinking three to four cups of coffee per day is associated with a lower risk of heart failure."

PAGE_WIDTH, PAGE_HEIGHT = 595, 842  # A4 in points
MARGIN = 60

# Each page is a list of (style, text) blocks laid out top to bottom with the base-14
# Helvetica fonts. Base-14 text is not shaped, so extraction yields plain "ff"/"fi"
# rather than typographic ligatures that would break word matching.
STYLES = {
    "title": ("hebo", 15, 0, 8),  # font, size, align (0 left, 3 justify), space after
    "authors": ("heit", 10, 0, 10),
    "h2": ("hebo", 12, 0, 4),
    "p": ("helv", 10.5, 3, 8),
}

PAGE_1 = [
    (
        "title",
        "Habitual coffee intake and incident heart failure in the Harrow Valley Cohort: "
        "a prospective analysis",
    ),
    (
        "authors",
        "L. Fairweather, S. Adeyemi-Holt, K. Nakamura-Berg (fictional authors). Demo preprint.",
    ),
    ("h2", "Abstract"),
    (
        "p",
        "Heart failure is a growing cause of hospital admission among older adults, and everyday "
        "dietary exposures that shift its risk are of interest to public health. We analysed the "
        "coffee intake that 21,400 adults of the fictional Harrow Valley Cohort reported at "
        "enrolment and followed them for a first admission with heart failure through linked "
        "hospital records. Participants in the middle intake categories had fewer admissions than "
        "non-drinkers, and the pattern survived adjustment for the main lifestyle factors.",
    ),
    ("h2", "1. Introduction"),
    (
        "p",
        "Several features of coffee could plausibly influence the failing heart. Caffeine has a "
        "mild diuretic action and stimulates the sympathetic nervous system, while chlorogenic "
        "acids and other polyphenols have antioxidant and anti-inflammatory properties in "
        "laboratory models. Earlier cohorts gave inconsistent answers, partly because they grouped "
        "all drinkers together and partly because heart failure was recorded less carefully than "
        "heart attack or stroke.",
    ),
    ("h2", "2. Methods"),
    (
        "p",
        "At enrolment, participants completed a food frequency questionnaire that asked how many "
        "cups of caffeinated and decaffeinated coffee they usually drank. Intake was grouped into "
        "five categories: none, less than one cup, one to two cups, three to four cups, and five "
        "or more cups. Cases were identified from hospital discharge codes and confirmed by chart "
        "review in a random subsample.",
    ),
    (
        "p",
        "We fitted proportional hazards models with age as the time scale, adjusting for sex, "
        "smoking, alcohol, physical activity, body mass index, diabetes and treated hypertension. "
        "Sensitivity analyses excluded the first two years of follow-up to limit reverse "
        "causation from undiagnosed illness.",
    ),
]

PAGE_2 = [
    ("h2", "3. Results"),
    (
        "p",
        "During follow-up, first admissions with heart failure were recorded in every intake "
        "category. Risk fell from the lowest to the middle categories and then levelled off, so "
        "that participants in the top category looked much like those drinking one to two cups. "
        "Results were similar for men and women and for caffeinated and mixed intake.",
    ),
    ("h2", "4. Discussion"),
    (
        "p",
        PLANTED_A1
        + " The association remained after adjustment for smoking and body mass index, and it did "
        "not depend on whether participants were treated for hypertension at enrolment.",
    ),
    (
        "p",
        "Our findings fit with the view that habitual coffee is compatible with a healthy heart "
        "in people without established disease. They do not justify advising non-drinkers to "
        "start, because observational data cannot exclude residual confounding by "
        "health-conscious behaviour.",
    ),
    ("h2", "5. Limitations"),
    (
        "p",
        "Intake was reported once, at enrolment, and cup size was not standardised. The cohort "
        "was drawn from a single region with a largely urban population, so the results may not "
        "transfer to settings with different brewing traditions.",
    ),
    ("h2", "Note"),
    (
        "p",
        "This manuscript is a synthetic document written for the Lyra demonstration corpus. The "
        "Harrow Valley Cohort and its authors are invented, and nothing here is medical advice.",
    ),
]

FIXED_DATE = "D:20240101000000Z"

HONEYBEES_OUT = (
    REPO_ROOT
    / "tests"
    / "corpora"
    / "honeybees"
    / "agriculture.gov.example"
    / "colony-loss-report-2023.pdf"
)
HONEYBEES_TITLE = "Honey Bee Health: Annual Colony Loss Report 2023"
HONEYBEES_PAGES = [
    [
        ("title", HONEYBEES_TITLE),
        ("authors", "Agriculture Department, Pollinator Programme. Report PP-2023-07."),
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


def write_pdf(
    out: Path, pages: list[list[tuple[str, str]]], header: str, metadata: dict[str, str]
) -> Path:
    """Lay ``pages`` out top to bottom under a small ``header`` line, with "Page n of N"
    at the foot of each page, and save deterministically."""
    doc = pymupdf.open()
    for number, blocks in enumerate(pages, start=1):
        page = doc.new_page(width=PAGE_WIDTH, height=PAGE_HEIGHT)
        top = pymupdf.Rect(MARGIN, 25, PAGE_WIDTH - MARGIN, 45)
        page.insert_textbox(top, header, fontsize=8, fontname="helv")
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
            footer, f"Page {number} of {len(pages)}", fontsize=8, fontname="helv", align=1
        )
    doc.set_metadata(
        {
            **metadata,
            "creator": "scripts/make_corpus_pdf.py",
            "producer": "PyMuPDF",
            "creationDate": FIXED_DATE,
            "modDate": FIXED_DATE,
        }
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    doc.save(out, garbage=4, deflate=True, no_new_id=True)
    doc.close()
    return out


def build(out: Path) -> Path:
    """The demo corpus's preprint."""
    return write_pdf(
        out,
        [PAGE_1, PAGE_2],
        "Demo preprint - Lyra offline corpus",
        {
            "title": "Habitual coffee intake and incident heart failure in the Harrow Valley Cohort",
            "author": "L. Fairweather; S. Adeyemi-Holt; K. Nakamura-Berg (fictional)",
            "subject": "Synthetic demo preprint for the Lyra offline corpus",
            "keywords": "coffee; heart failure; cohort; demo",
        },
    )


def build_honeybees(out: Path = HONEYBEES_OUT) -> Path:
    """The honeybees planted corpus's agency report (tests/corpora/honeybees)."""
    return write_pdf(
        out,
        HONEYBEES_PAGES,
        HONEYBEES_TITLE,
        {
            "title": HONEYBEES_TITLE,
            "author": "Pollinator Programme (fictional)",
            "subject": "Synthetic report for a Lyra planted corpus",
        },
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=("demo", "honeybees"), default="demo")
    parser.add_argument("--out", type=Path, default=None, help="output PDF path")
    args = parser.parse_args(argv)
    if args.corpus == "honeybees":
        path = build_honeybees(args.out or HONEYBEES_OUT)
        print(f"wrote {path} ({path.stat().st_size} bytes, {len(HONEYBEES_PAGES)} pages)")
        return 0
    path = build(args.out or DEFAULT_OUT)
    # Self-check: two pages, and the planted sentence is extractable from page 2 only.
    with pymupdf.open(path) as doc:
        if doc.page_count != 2:
            raise SystemExit(f"expected 2 pages, got {doc.page_count}")
        texts = [" ".join(page.get_text().split()) for page in doc]
    if PLANTED_A1 not in texts[1] or PLANTED_A1 in texts[0]:
        raise SystemExit("planted sentence must be extractable from page 2 only")
    print(f"wrote {path} ({path.stat().st_size} bytes, 2 pages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
