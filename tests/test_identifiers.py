"""Identifier extraction, normalisation and paper keys (issue 4, build item 5).

Conformance data is read in place from shared/realworld/identifiers (HTML pages, PMC JATS,
PubMed and arXiv API XML) and shared/realworld/academic (S2 and OpenAlex responses).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from lyra.pipelines.discover.identifiers import (
    Identifier,
    canonical_paper_key,
    extract_from_html,
    extract_from_jats,
    extract_from_text,
    extract_from_url,
    normalize_arxiv,
    normalize_doi,
    normalize_isbn,
    normalize_pmcid,
    normalize_pmid,
    record_ids,
    record_key,
    same_paper,
)

REALWORLD = Path(__file__).resolve().parents[2] / "shared" / "realworld"
IDENTIFIERS = REALWORLD / "identifiers"
ACADEMIC = REALWORLD / "academic"
ATOM = {"a": "http://www.w3.org/2005/Atom", "arxiv": "http://arxiv.org/schemas/atom"}


def _folder(path: Path) -> Path:
    if not path.is_dir():
        pytest.skip(f"third-party conformance data not present at {path}")
    return path


def _expected() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((_folder(IDENTIFIERS) / "IDENTIFIERS.json").read_text())
    return data


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _kinds(ids: list[Identifier], kind: str) -> set[str]:
    return {i.value for i in ids if i.kind == kind}


# --- normalisation tables ------------------------------------------------------------

DOI_CASES = [
    ("10.1371/journal.pone.0046493", "10.1371/journal.pone.0046493"),
    ("doi:10.1056/NEJMoa1715274", "10.1056/nejmoa1715274"),
    ("DOI: 10.1056/NEJMoa1715274.", "10.1056/nejmoa1715274"),
    ("https://doi.org/10.1038/35002501", "10.1038/35002501"),
    ("http://dx.doi.org/10.1038/35002501", "10.1038/35002501"),
    ("https://doi.org/10.1111%2Fbjd.12389", "10.1111/bjd.12389"),
    ("10.1111%2Fbjd.12389", "10.1111/bjd.12389"),
    ("https://doi.org/10.1111/bjd.12389?utm_source=x&b=2#refs", "10.1111/bjd.12389"),
    ("info:doi/10.1186/ar3911", "10.1186/ar3911"),
    ("urn:doi:10.1186/ar3911", "10.1186/ar3911"),
    # Balanced brackets belong to the DOI; an unbalanced closer is the sentence's.
    ("10.1016/0169-5347(93)90004-9", "10.1016/0169-5347(93)90004-9"),
    ("(see 10.1016/0169-5347(93)90004-9)", "10.1016/0169-5347(93)90004-9"),
    ("10.1016/S2542-5196(17)30185-7),", "10.1016/s2542-5196(17)30185-7"),
    ("[10.1007/s11926-017-0626-z]", "10.1007/s11926-017-0626-z"),
    ("{10.1186/ar3911};", "10.1186/ar3911"),
    ("'10.1186/ar3911'", "10.1186/ar3911"),
    ('"10.1186/ar3911":', "10.1186/ar3911"),
    # Unicode dashes from typeset pages and PDFs.
    ("10.1007/s11926\u2010017\u20110626\u2013z", "10.1007/s11926-017-0626-z"),
    ("10.1136/bmjopen\u22122016\u2014011092", "10.1136/bmjopen-2016-011092"),
    ("10.1136/bmjopen\u20122016\u2015011092", "10.1136/bmjopen-2016-011092"),
    # A soft hyphen is a line-break hint, not a character of the DOI.
    ("10.1111/bjd.12\u00ad389", "10.1111/bjd.12389"),
    # DOIs inside publisher URLs, with queries, fragments, views and file extensions.
    ("https://www.acpjournals.org/doi/abs/10.7326/M19-3075", "10.7326/m19-3075"),
    (
        "https://link.springer.com/article/10.1007/s11926-017-0626-z#Sec1",
        "10.1007/s11926-017-0626-z",
    ),
    (
        "https://link.springer.com/content/pdf/10.1007/s11926-017-0626-z.pdf",
        "10.1007/s11926-017-0626-z",
    ),
    ("https://onlinelibrary.wiley.com/doi/full/10.1111/bjd.12389/metrics?x=1", "10.1111/bjd.12389"),
    (
        "https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0046493",
        "10.1371/journal.pone.0046493",
    ),
    ("https://example.org/search?q=x&doi=doi%3A10.1186%2Far3911", "10.1186/ar3911"),
]


@pytest.mark.parametrize(("raw", "expected"), DOI_CASES)
def test_normalize_doi_good(raw: str, expected: str) -> None:
    assert normalize_doi(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "10.1000",
        "10.12/abc",
        "11.1000/abc",
        "doi:",
        "https://doi.org/",
        "10.1000/",
        "https://example.org/articles/12345",
        "PMC3460867",
    ],
)
def test_normalize_doi_bad(raw: str) -> None:
    assert normalize_doi(raw) is None


ARXIV_CASES = [
    ("2104.12255v1", ("2104.12255", "v1")),
    ("2104.12255", ("2104.12255", None)),
    ("arXiv:1707.08567", ("1707.08567", None)),
    ("arXiv: 1111.2011v2.", ("1111.2011", "v2")),
    ("0704.0001", ("0704.0001", None)),
    ("astro-ph/0601001", ("astro-ph/0601001", None)),
    ("quant-ph/0201082v1", ("quant-ph/0201082", "v1")),
    ("math.GT/0309136", ("math/0309136", None)),
    ("http://arxiv.org/abs/quant-ph/0201082v1", ("quant-ph/0201082", "v1")),
    ("https://arxiv.org/pdf/2104.12255v1.pdf", ("2104.12255", "v1")),
    ("//export.arxiv.org/abs/1512.01655", ("1512.01655", None)),
]


@pytest.mark.parametrize(("raw", "expected"), ARXIV_CASES)
def test_normalize_arxiv_good(raw: str, expected: tuple[str, str | None]) -> None:
    assert normalize_arxiv(raw) == expected


@pytest.mark.parametrize(
    "raw",
    # Month 13; 5-digit numbers before 1501; 4-digit numbers after 1412; before the new
    # scheme (0704); unknown archives; the arXiv API's own error id.
    [
        "abc",
        "2113.12345",
        "1412.12345",
        "1501.1234",
        "0612.1234",
        "foo-ph/0601001",
        "astro-ph/0613001",
        "https://arxiv.org/api/errors#incorrect_id_format_for_abc",
        "",
    ],
)
def test_normalize_arxiv_bad(raw: str) -> None:
    assert normalize_arxiv(raw) is None


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("978-0-306-40615-7", "9780306406157"),
        ("ISBN 0-306-40615-2", "9780306406157"),
        ("ISBN-10: 080442957X", "9780804429573"),
        ("979-10-90636-07-1", "9791090636071"),
        ("978 3 16 148410 0", "9783161484100"),
    ],
)
def test_normalize_isbn_good(raw: str, expected: str) -> None:
    assert normalize_isbn(raw) == expected


@pytest.mark.parametrize(
    "raw", ["978-0-306-40615-8", "0-306-40615-3", "977-0-306-40615-7", "12345", "080442957Y"]
)
def test_normalize_isbn_rejects_bad_check_digits(raw: str) -> None:
    assert normalize_isbn(raw) is None


@pytest.mark.parametrize(
    ("raw", "pmid"),
    [
        ("23029536", "23029536"),
        ("PMID: 23029536", "23029536"),
        ("https://pubmed.ncbi.nlm.nih.gov/10706275", "10706275"),
        ("0", None),
        ("23029536a", None),
        ("1234567890", None),
    ],
)
def test_normalize_pmid(raw: str, pmid: str | None) -> None:
    assert normalize_pmid(raw) == pmid


@pytest.mark.parametrize(
    ("raw", "pmcid"),
    [
        ("3460867", "PMC3460867"),
        ("PMC3460867", "PMC3460867"),
        ("https://www.ncbi.nlm.nih.gov/pmc/articles/5815332", "PMC5815332"),
        ("https://pmc.ncbi.nlm.nih.gov/articles/PMC2807447/", "PMC2807447"),
        ("PMCabc", None),
    ],
)
def test_normalize_pmcid(raw: str, pmcid: str | None) -> None:
    assert normalize_pmcid(raw) == pmcid


# --- URLs and text ---------------------------------------------------------------------

URL_CASES = [
    ("https://pubmed.ncbi.nlm.nih.gov/19153135", [("pmid", "19153135")]),
    ("//www.ncbi.nlm.nih.gov/pubmed/20175497", [("pmid", "20175497")]),
    (
        "http://www.ncbi.nlm.nih.gov/entrez/query.fcgi?cmd=Retrieve&db=PubMed&dopt=Abstract"
        "&list_uids=9042032",
        [("pmid", "9042032")],
    ),
    ("//www.ncbi.nlm.nih.gov/pmc/articles/PMC2807447", [("pmcid", "PMC2807447")]),
    ("https://europepmc.org/article/MED/29768149", [("pmid", "29768149")]),
    ("https://europepmc.org/article/PMC/PMC3460867", [("pmcid", "PMC3460867")]),
    ("//arxiv.org/abs/1512.01655", [("arxiv", "1512.01655")]),
    ("https://doi.org/10.48550/arXiv.2007.14454", [("doi", "10.48550/arxiv.2007.14454")]),
    ("https://en.wikipedia.org/wiki/PubMed_Identifier", []),
    ("https://www.ncbi.nlm.nih.gov/pubmed/?term=smoking", []),
]


@pytest.mark.parametrize(("url", "expected"), URL_CASES)
def test_extract_from_url(url: str, expected: list[tuple[str, str]]) -> None:
    ids = extract_from_url(url)
    assert [(i.kind, i.value) for i in ids] == expected
    assert {i.source for i in ids} <= {"url"}


def test_extract_from_url_keeps_arxiv_version_apart() -> None:
    assert extract_from_url("https://arxiv.org/abs/astro-ph/0601001v1") == [
        Identifier("arxiv", "astro-ph/0601001", "url", "v1")
    ]


def test_extract_from_text_prose_and_pdf_layout() -> None:
    text = (
        "As shown previously (doi:10.1016/0169-5347(93)90004-9), and in Smith et al.\u00a0"
        "https://doi.org/10.1111%2Fbjd.12389. See PMID: 23029536 and PMC3460867; the "
        "preprint is arXiv:2104.12255v1 and the older astro-ph/0601001. ISBN 978-0-306-40615-7 "
        "is the handbook. Page 23029537 and 2104.12256 are bare numbers.\n"
        "Published as 10.1136/bmjopen\u20122016\u2013011092."
    )
    ids = extract_from_text(text)
    assert [(i.kind, i.value, i.version) for i in ids] == [
        ("doi", "10.1016/0169-5347(93)90004-9", None),
        ("doi", "10.1111/bjd.12389", None),
        ("doi", "10.1136/bmjopen-2016-011092", None),
        ("pmid", "23029536", None),
        ("pmcid", "PMC3460867", None),
        ("arxiv", "2104.12255", "v1"),
        ("arxiv", "astro-ph/0601001", None),
        ("isbn", "9780306406157", None),
    ]
    assert {i.source for i in ids} == {"text"}


@pytest.mark.parametrize(
    "text",
    [
        "In 2019 we enrolled 23029536 patients over 1234.5678 days.",
        "ISBN 978-0-306-40615-8 (check digit wrong)",
        "version 10.2/abc and 10.12345 alone",
        "see foo-ph/0601001 and astro-ph/0613001",
    ],
)
def test_extract_from_text_finds_nothing_in_lookalikes(text: str) -> None:
    assert extract_from_text(text) == []


def test_same_doi_spelled_differently_dedupes_to_one() -> None:
    text = "doi:10.1007/S11926-017-0626-Z and https://doi.org/10.1007%2Fs11926\u2013017-0626-z."
    assert extract_from_text(text) == [Identifier("doi", "10.1007/s11926-017-0626-z", "text")]


def test_adversarial_megabyte_strings_finish() -> None:
    # Shapes that make backtracking regexes quadratic: long runs of near-matches and of
    # closing brackets after a DOI. These must just return; no timing assertion.
    near_dois = "10.1" * 250_000
    brackets = "10.1000/a" + ")" * 1_000_000
    digits = "PMID " + "9" * 1_000_000
    arxiv_like = "astro-ph/" * 120_000
    isbn_like = "ISBN " + "9-" * 500_000
    assert extract_from_text(near_dois) == []
    assert extract_from_text(brackets) == [Identifier("doi", "10.1000/a", "text")]
    assert extract_from_text(digits) == []
    assert extract_from_text(arxiv_like) == []
    assert extract_from_text(isbn_like) == []
    assert normalize_doi(brackets) == "10.1000/a"
    page = "<html><body><p>(doi:10.1000/a" + ")" * 1_000_000 + "</p></body></html>"
    assert extract_from_html(page) == [Identifier("doi", "10.1000/a", "text")]


# --- HTML ------------------------------------------------------------------------------


def test_extract_from_html_meta_jsonld_links_text() -> None:
    page = """<?xml version="1.0" encoding="utf-8"?>
    <html><head>
      <meta name="citation_doi" content="10.1007/S11926-017-0626-z">
      <meta name="citation_pmid" content="28500000">
      <meta name="citation_arxiv_id" content="2104.12255v1">
      <meta name="DC.Identifier" scheme="publisher-id" content="AIME202004070-M193075">
      <meta name="prism.doi" content="doi:10.1007/s11926-017-0626-z">
      <meta property="og:url" content="https://www.acpjournals.org/doi/abs/10.7326/M19-3075">
      <script type="application/ld+json">
        {"@context": "https://schema.org", "@type": "ScholarlyArticle",
         "@id": "https://doi.org/10.1038/35002501",
         "identifier": [{"@type": "PropertyValue", "propertyID": "PMID", "value": "10706275"},
                        {"@type": "PropertyValue", "propertyID": "ISBN", "value": "0-306-40615-2"}],
         "sameAs": ["https://www.ncbi.nlm.nih.gov/pmc/articles/PMC5815332/"]}
      </script>
      <script type="application/ld+json">{not json</script>
      <script>var fake = "PMID: 11111111";</script>
    </head><body>
      <a href="/pubmed/19153135">PubMed</a>
      <a href="https://arxiv.org/abs/quant-ph/0201082v1">arXiv</a>
      <p>Cited as doi:10.1186/ar3911. PMID: 21810267</p>
      <!-- PMID: 22222222 -->
    </body></html>"""
    ids = extract_from_html(page, base_url="https://www.ncbi.nlm.nih.gov/search/")
    assert [(i.kind, i.value, i.source, i.version) for i in ids] == [
        ("doi", "10.1007/s11926-017-0626-z", "meta", None),
        ("pmid", "28500000", "meta", None),
        ("arxiv", "2104.12255", "meta", "v1"),
        ("doi", "10.7326/m19-3075", "meta", None),
        ("doi", "10.1038/35002501", "jsonld", None),
        ("pmid", "10706275", "jsonld", None),
        ("isbn", "9780306406157", "jsonld", None),
        ("pmcid", "PMC5815332", "jsonld", None),
        ("pmid", "19153135", "link", None),
        ("arxiv", "quant-ph/0201082", "link", "v1"),
        ("doi", "10.1186/ar3911", "text", None),
        ("pmid", "21810267", "text", None),
    ]


def test_extract_from_html_empty_page() -> None:
    assert extract_from_html("   ") == []


HTML_FILES = [
    "acpjournals.org.3075.html",
    "en.wikipedia.org.tsne.html",
    "healthline.com.fat.html",
    "link.springer.com.1007.html",
    "readability_wikipedia-2_source.html.gz",
]


@pytest.mark.parametrize("name", HTML_FILES)
def test_real_pages_yield_every_listed_identifier(name: str) -> None:
    # IDENTIFIERS.json's _note: the html lists are a floor, not the full set.
    expected = _expected()[f"html/{name}"]
    raw = (IDENTIFIERS / "html" / name).read_bytes()
    page = (gzip.decompress(raw) if name.endswith(".gz") else raw).decode("utf-8", "replace")
    ids = extract_from_html(page)
    assert {d.lower() for d in expected["doi"]} <= _kinds(ids, "doi")
    assert set(expected["pmid"]) <= _kinds(ids, "pmid")
    assert set(expected["pmcid"]) <= _kinds(ids, "pmcid")
    assert set(expected["arxiv"]) <= _kinds(ids, "arxiv")


def test_springer_page_names_its_own_doi_in_meta() -> None:
    page = (_folder(IDENTIFIERS) / "html" / "link.springer.com.1007.html").read_text("utf-8")
    own = [i for i in extract_from_html(page) if i.source == "meta"]
    assert own == [Identifier("doi", "10.1007/s11926-017-0626-z", "meta")]


# --- JATS / PubMed XML -----------------------------------------------------------------


def _expected_ids(ids: dict[str, list[str]]) -> dict[str, list[str]]:
    """IDENTIFIERS.json spells ids as the XML does; map them to the normalised kinds."""
    out: dict[str, list[str]] = {}
    for kind, values in ids.items():
        if kind in ("pmid", "pubmed"):
            out["pmid"] = values
        elif kind == "pmc":
            out["pmcid"] = [f"PMC{v}" for v in values]
        elif kind == "doi":
            out["doi"] = [v.lower() for v in values]
        else:
            out[kind] = values
    return out


@pytest.mark.parametrize(
    "name", ["pone.0046493.nxml", "1471-2180-11-174.nxml", "pubmed-29768149.xml"]
)
def test_jats_and_pubmed_ids_match_exactly(name: str) -> None:
    expected = _expected()[f"pubmed-xml/{name}"]
    result = extract_from_jats((IDENTIFIERS / "pubmed-xml" / name).read_text("utf-8"))
    assert result["article"] == _expected_ids(expected["article_ids"])
    assert result["ref_count"] == expected["ref_count"]
    with_ids = [
        {"ref_id": ref["ref_id"], "ids": ref["ids"]} for ref in result["references"] if ref["ids"]
    ]
    listed = expected.get("refs_with_ids", expected.get("refs", []))
    assert with_ids == [{"ref_id": r["ref_id"], "ids": _expected_ids(r["ids"])} for r in listed]


def test_jats_without_ids_is_empty_not_an_error() -> None:
    assert extract_from_jats("<article><front/></article>") == {
        "article": {},
        "ref_count": 0,
        "references": [],
    }


# --- arXiv API Atom ----------------------------------------------------------------------

ATOM_FILES = {
    "id_1707.08567.atom.xml": [(("1707.08567", "v1"), None)],
    "id_2104.12255v1.atom.xml": [(("2104.12255", "v1"), None)],
    "id_astro-ph_0601001.atom.xml": [(("astro-ph/0601001", "v1"), None)],
    "id_quant-ph_0201082v1.atom.xml": [(("quant-ph/0201082", "v1"), None)],
    "id_list_1111.2011v2.atom.xml": [(("1111.2011", "v2"), "10.1103/physrevb.85.115117")],
    "id_list_0808.05394_1707.08567.atom.xml": [(("1707.08567", "v1"), None)],
    "id_0000.0000_notfound.atom.xml": [],
}


@pytest.mark.parametrize(("name", "expected"), sorted(ATOM_FILES.items()))
def test_arxiv_atom_entry_ids_parse(
    name: str, expected: list[tuple[tuple[str, str], str | None]]
) -> None:
    root = etree.parse(str(_folder(IDENTIFIERS) / "arxiv-api" / name)).getroot()
    entries = [
        (
            normalize_arxiv(e.findtext("a:id", namespaces=ATOM) or ""),
            normalize_doi(e.findtext("arxiv:doi", default="", namespaces=ATOM)),
        )
        for e in root.findall("a:entry", ATOM)
    ]
    assert entries == expected


def test_arxiv_search_feed_ids_and_dois_all_parse() -> None:
    root = etree.parse(
        str(_folder(IDENTIFIERS) / "arxiv-api" / "search_q_testing_start0_max10.atom.xml")
    ).getroot()
    entries = root.findall("a:entry", ATOM)
    raw_ids = [e.findtext("a:id", namespaces=ATOM) or "" for e in entries]
    raw_dois = [e.findtext("arxiv:doi", namespaces=ATOM) for e in entries]
    assert len(entries) == 10
    assert [normalize_arxiv(r) for r in raw_ids] == [
        (r.rsplit("/abs/", 1)[1].rsplit("v", 1)[0], "v" + r.rsplit("v", 1)[1]) for r in raw_ids
    ]
    present = [d for d in raw_dois if d is not None]
    assert len(present) == 6
    assert [normalize_doi(d) for d in present] == [d.lower() for d in present]


def test_arxiv_error_feed_id_is_not_an_arxiv_id() -> None:
    root = etree.parse(str(_folder(IDENTIFIERS) / "arxiv-api" / "id_abc_invalid.atom.xml"))
    ids = [e.findtext("a:id", namespaces=ATOM) for e in root.getroot().findall("a:entry", ATOM)]
    assert ids == ["https://arxiv.org/api/errors#incorrect_id_format_for_abc"]
    assert normalize_arxiv(ids[0] or "") is None


# --- paper keys ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "key"),
    [
        (
            ("10.1093/MIND/LIX.236.433", "1", "2104.12255", "T", 1950),
            "doi:10.1093/mind/lix.236.433",
        ),
        ((None, "PMID: 023029536", "2104.12255", "T", 2012), "pmid:23029536"),
        ((None, None, "arXiv:2104.12255v3", "T", 2021), "arxiv:2104.12255"),
        (("https://doi.org/10.48550/arXiv.2007.14454", None, None, None, None), "arxiv:2007.14454"),
        (
            ("not a doi", None, None, "The State of OA:  a Large\u2010Scale Analysis", 2018),
            "title:the state of oa a large scale analysis:2018",
        ),
        (
            (None, None, None, "\uff34he \uff33\uff34\uff21\uff34\uff25 of OA", None),
            "title:the state of oa:",
        ),
    ],
)
def test_canonical_paper_key(args: tuple[Any, ...], key: str) -> None:
    assert canonical_paper_key(*args) == key


@pytest.mark.parametrize(
    "args",
    [(None, None, None, None, None), ("", "", "", "  ...  ", 2020), ("x", "y", "z", None, 1)],
)
def test_canonical_paper_key_needs_something(args: tuple[Any, ...]) -> None:
    with pytest.raises(ValueError, match="no DOI, PMID, arXiv id or title"):
        canonical_paper_key(*args)


def test_openalex_and_s2_records_key_to_the_same_paper() -> None:
    openalex = _folder(ACADEMIC / "openalex")
    work = _json(openalex / "work_W2162348455.json")
    selected = _json(openalex / "works_filter_search_select_ids.json")["results"][0]
    assert record_ids(work) == {"doi": "10.1038/35002501", "pmid": "10706275"}
    assert record_key(work) == record_key(selected) == "doi:10.1038/35002501"
    # The S2 shape of the same paper: uppercase DOI, PubMed as a bare string.
    s2 = {
        "externalIds": {"DOI": "10.1038/35002501".upper(), "PubMed": "10706275"},
        "title": work["title"],
        "year": 2000,
    }
    assert record_key(s2) == record_key(work)
    assert same_paper(s2, work)


def test_s2_arxiv_paper_matches_openalex_arxiv_doi() -> None:
    oa = _json(_folder(ACADEMIC / "openalex") / "works_filter_openalex_ids_cursor.json")
    preprint = oa["results"][1]
    assert preprint["ids"]["doi"] == "https://doi.org/10.48550/arxiv.2007.14454"
    s2 = {"externalIds": {"ArXiv": "2007.14454", "DOI": "10.48550/arXiv.2007.14454"}}
    assert record_key(preprint) == record_key(s2) == "arxiv:2007.14454"
    assert same_paper(preprint, {"externalIds": {"ArXiv": "2007.14454v2"}})


def test_real_s2_objects_have_stable_keys() -> None:
    s2 = _folder(ACADEMIC / "semanticscholar")
    paper = _json(s2 / "objects" / "Paper.trimmed.json")
    assert record_key(paper) == "doi:10.1093/mind/lix.236.433"
    assert record_ids(paper) == {"doi": "10.1093/mind/lix.236.433"}
    openalex = _json(ACADEMIC / "openalex" / "work_W2741809807.json")
    assert record_ids(openalex) == {
        "doi": "10.7717/peerj.4375",
        "pmid": "29456894",
        "pmcid": "PMC5815332",
    }


def test_same_paper_under_different_ids() -> None:
    by_doi_and_pmid = {"doi": "https://doi.org/10.7717/PEERJ.4375", "pmid": "29456894"}
    by_pmid_only = {"pmid": "PMID: 29456894"}
    by_pmc_only = {"ids": {"pmcid": "https://www.ncbi.nlm.nih.gov/pmc/articles/5815332"}}
    with_pmc = {"externalIds": {"PubMedCentral": "5815332", "DOI": "10.7717/peerj.4375"}}
    assert same_paper(by_doi_and_pmid, by_pmid_only)
    assert same_paper(by_pmc_only, with_pmc)
    assert same_paper(with_pmc, by_doi_and_pmid)
    assert not same_paper(by_pmid_only, by_pmc_only)
    assert not same_paper({"doi": "10.1000/a"}, {"doi": "10.1000/b"})


def test_same_paper_by_title_only_when_neither_has_ids() -> None:
    a = {"title": "Biodiversity hotspots for conservation priorities.", "year": 2000}
    b = {
        "display_name": "BIODIVERSITY HOTSPOTS for Conservation Priorities",
        "publication_year": 2000,
    }
    assert same_paper(a, b)
    assert not same_paper(a, {**b, "publication_year": 2001})
    assert not same_paper(a, {**b, "doi": "10.1038/35002501"})
    assert not same_paper({"year": 2000}, {"year": 2000})
