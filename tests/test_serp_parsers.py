"""SERP parsers: real pages against their upstream EXPECTED.json, synthetic pages for
engines with no real page on file (realworld PROVENANCE "Gaps"), and hostile input."""

# The synthetic pages keep each result's markup on one line, as the engines serve it;
# wrapping them at 100 columns would change the text nodes the parsers read.
# ruff: noqa: E501

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from lyra.pipelines.discover.serp_parsers import PARSERS, SerpItem, parse, source_tag, unwrap_url

SERP = Path(__file__).resolve().parents[2] / "shared" / "realworld" / "serp"
DDG = SERP / "duckduckgo-html"
ZLURAD = SERP / "zlurad-serp-parser"
SCHOLAR = SERP / "google-scholar-goscholar"


def _need(folder: Path) -> None:
    if not folder.is_dir():
        pytest.skip(f"realworld SERP data not present at {folder} (see realworld/PROVENANCE.md)")


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def _expected(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "EXPECTED.json").read_text(encoding="utf-8"))


# --- real pages --------------------------------------------------------------------------


def test_duckduckgo_html_matches_upstream_expectations() -> None:
    _need(DDG)
    expected = _expected(DDG)["ddg_html_antani_2020.html"]
    items = parse(
        "duckduckgo", _read(DDG / "ddg_html_antani_2020.html"), "https://html.duckduckgo.com/html/"
    )
    assert len(items) == expected["organic_count"] == 30
    for item, want in zip(items[:3], expected["first_3"], strict=True):
        assert (item.title, item.url, item.snippet) == (want["title"], want["url"], want["snippet"])
    assert [item.rank for item in items] == list(range(1, 31))
    assert {item.engine for item in items} == {"duckduckgo"}
    # The page's one ad (a y.js link) is the only result dropped.
    assert not [item for item in items if "duckduckgo.com" in item.url]
    assert items[1].source_tag == "encyclopedia"


GOOGLE_BASE = "https://www.google.com/search"
BING_BASE = "https://www.bing.com/search"

ZLURAD_CASES = [
    ("google-nojs/google-nojs.html", "google"),
    ("google-nojs/google100-nojs.html", "google"),
    ("google-nojs/matrix-nojs.html", "google"),
    ("google-nojs/no-results-nojs.html", "google"),
    ("bing-nojs/bing-nojs.html", "bing"),
    ("bing-nojs/bing50-nojs.html", "bing"),
    ("bing-nojs/matrix-nojs.html.gz", "bing"),
    ("bing-nojs/no-results-nojs.html", "bing"),
]


@pytest.mark.parametrize(("name", "parser"), ZLURAD_CASES)
def test_zlurad_pages_match_upstream_expectations(name: str, parser: str) -> None:
    _need(ZLURAD)
    expected = _expected(ZLURAD)[name]
    base = GOOGLE_BASE if parser == "google" else BING_BASE
    items = parse(parser, _read(ZLURAD / name), base)
    assert len(items) == expected["organic_count"]
    for index, want in expected.get("organic", {}).items():
        item = items[int(index)]
        fields = {
            "title": item.title,
            "url": item.url,
            "domain": item.url.split("/")[2],
            "snippet": item.snippet,
        }
        # The fields upstream asserted for this result, compared as one dict; sitelinks
        # are not extracted (upstream's has_sitelinks is not a field of SerpItem).
        compared = {k: v for k, v in want.items() if k in fields}
        assert {k: fields[k] for k in compared} == compared, index
        assert want.get("snippet_contains", "") in item.snippet, index


def test_google_nojs_unwraps_every_redirect_link() -> None:
    _need(ZLURAD)
    items = parse("google", _read(ZLURAD / "google-nojs/google100-nojs.html"), GOOGLE_BASE)
    assert [i for i in items if "/url?" in i.url or not i.url.startswith("http")] == []
    # EXPECTED.json: "all results have a non-empty domain".
    assert [i for i in items if not i.url.split("/")[2]] == []


def test_bing_nojs_splits_the_date_off_the_snippet() -> None:
    _need(ZLURAD)
    items = parse("bing", _read(ZLURAD / "bing-nojs/bing-nojs.html"), BING_BASE)
    assert items[1].date == "24/1/2013"
    assert items[1].snippet.startswith("8/10 (87 votos) - Descargar Bing para PC")


def test_google_scholar_first_results() -> None:
    _need(SCHOLAR)
    expected = _expected(SCHOLAR)
    first = expected["scholar_learning_deep_architectures_for_ai_2016.html"]["first_result"]
    items = parse(
        "google_scholar",
        _read(SCHOLAR / "scholar_learning_deep_architectures_for_ai_2016.html"),
        "https://scholar.google.co.jp/scholar",
    )
    assert (items[0].title, items[0].url, items[0].date) == (
        first["title"],
        first["title_url"],
        first["year"],
    )
    cluster = parse(
        "google_scholar",
        _read(SCHOLAR / "scholar_cluster_5362332738201102290_2016.html"),
        "https://scholar.google.co.jp/scholar",
    )
    assert cluster[0].title == "Deep learning"


def test_google_scholar_citation_without_link_is_not_a_result() -> None:
    """EXPECTED: this page's only record has title_url "" (a [CITATION] entry); a
    SERP item must lead somewhere, so the parser yields nothing."""
    _need(SCHOLAR)
    expected = _expected(SCHOLAR)["scholar_unsupervised_feature_learning_review_2016.html"]
    assert expected["first_result"]["title_url"] == ""
    page = SCHOLAR / "scholar_unsupervised_feature_learning_review_2016.html"
    assert parse("google_scholar", _read(page), "https://scholar.google.co.jp/scholar") == []


# --- synthetic pages (markup as the engines document/serve it; no real page on file) ----

DDG_LITE = """<html><body><form action="/lite/" method="post"></form><table>
<tr class="result-sponsored"><td>1.&nbsp;</td><td>
<a rel="nofollow" href="https://duckduckgo.com/y.js?ad_domain=shop.example&u3=x" class="result-link">Buy now</a></td></tr>
<tr class="result-sponsored"><td></td><td class="result-snippet">Ad text</td></tr>
<tr><td valign="top">1.&nbsp;</td><td>
<a rel="nofollow" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fen.wikipedia.org%2Fwiki%2FOcean_acidification&amp;rut=abc" class="result-link">Ocean acidification - Wikipedia</a></td></tr>
<tr><td></td><td class="result-snippet"><b>Ocean</b> acidification is the ongoing decrease in the pH of the Earth's ocean.</td></tr>
<tr><td></td><td><span class="link-text">en.wikipedia.org/wiki/Ocean_acidification</span></td></tr>
<tr><td>&nbsp;</td><td>&nbsp;</td></tr>
<tr><td valign="top">2.&nbsp;</td><td>
<a rel="nofollow" href="https://www.noaa.gov/education/ocean-acidification" class="result-link">Ocean acidification | NOAA</a></td></tr>
<tr><td></td><td class="result-snippet">Mar 4, 2024 - As levels of atmospheric CO2 increase, the ocean absorbs more.</td></tr>
</table></body></html>"""

MOJEEK = """<html><body><div class="serp-results"><ul class="results-standard">
<li class="r1"><a class="ob" href="https://arxiv.org/abs/2101.00001"><p class="i">arxiv.org/abs</p></a>
<h2><a class="title" href="https://arxiv.org/abs/2101.00001">Coral reef decline under warming</a></h2>
<p class="s">We measure <strong>coral</strong> cover across 40 reefs.</p><p class="mdate">12 Jan 2021</p></li>
<li class="r2"><a class="ob" href="https://reef.example.org/"><p class="i">reef.example.org</p></a>
<h2><a class="title" href="https://reef.example.org/">Reef Watch</a></h2><p class="s">Volunteer monitoring.</p></li>
</ul></div></body></html>"""

BRAVE = """<html><body><div id="results">
<div class="snippet svelte-1" data-type="ad" data-pos="0"><a href="https://ads.example/">Sponsored</a></div>
<div class="snippet svelte-1" data-type="web" data-pos="1"><div class="result-wrapper">
<a href="https://www.rust-lang.org/" class="heading-serpresult"><div class="site-name-content">rust-lang.org</div>
<div class="title search-snippet-title" title="Rust Programming Language">Rust Programming Language</div></a>
<div class="generic-snippet"><div class="content desktop-default-regular">
<span class="t-secondary">May 3, 2023 -</span> A language empowering everyone to build reliable software.</div></div></div></div>
<div class="snippet svelte-1" data-type="web" data-pos="2"><div class="result-wrapper">
<a href="https://doc.rust-lang.org/book/" class="heading-serpresult">
<div class="title search-snippet-title">The Rust Book</div></a>
<div class="snippet-description">An introductory book about Rust.</div></div></div>
</div></body></html>"""

QWANT = """<html><body><section>
<article><span class="tooltip">Ad</span><h2><a href="https://ads.example/x">Sponsored link</a></h2><p>Buy.</p></article>
<article><span class="url partner">www.who.int/news</span>
<h2><a href="https://www.who.int/news/item/1">Malaria report 2023</a></h2><p>The World malaria report.</p></article>
<article><h2><a href="https://malaria.example.com/">Malaria facts</a></h2><p>Facts and figures.</p></article>
</section></body></html>"""

STARTPAGE = """<html><body><section class="w-gl">
<div class="w-gl__result"><a class="w-gl__result-title result-link" href="https://www.gov.uk/guidance/flood-risk">
<h3>Flood risk assessment - GOV.UK</h3></a>
<p class="w-gl__description">How to assess flood risk for planning.</p></div>
<div class="w-gl__result"><a class="w-gl__result-title" href="https://floods.example.net/">
<h3>Flood maps</h3></a><p class="w-gl__description">Interactive flood maps.</p></div>
</section></body></html>"""

MARGINALIA = """<html><body><section class="search-result">
<h2><a class="title" href="https://www.gwern.net/Spaced-repetition">Spaced Repetition for Efficient Learning</a></h2>
<div class="url"><a href="https://www.gwern.net/Spaced-repetition">www.gwern.net</a></div>
<p class="description">Efficient memorization using the spacing effect.</p></section>
<section class="search-result"><h2><a class="title" href="http://people.example.edu/~a/srs.html">SRS notes</a></h2>
<p class="description">Notes on spaced repetition systems.</p></section></body></html>"""

MARGINALIA_JSON = json.dumps(
    {
        "query": "spaced repetition",
        "license": "CC-BY-NC-SA 4.0",
        "results": [
            {
                "url": "https://www.gwern.net/Spaced-repetition",
                "title": "Spaced Repetition for Efficient Learning",
                "description": "Efficient memorization\nusing the spacing effect.",
                "quality": -3.2,
            }
        ],
    }
)

WIKIPEDIA = json.dumps(
    {
        "batchcomplete": "",
        "continue": {"sroffset": 10, "continue": "-||"},
        "query": {
            "searchinfo": {"totalhits": 5060},
            "search": [
                {
                    "ns": 0,
                    "title": "Ocean acidification",
                    "pageid": 1,
                    "size": 120000,
                    "wordcount": 9000,
                    "snippet": '<span class="searchmatch">Ocean</span> acidification is the &quot;ongoing&quot; decrease',
                    "timestamp": "2024-05-01T10:20:30Z",
                },
                {
                    "ns": 0,
                    "title": "Effects of climate change on oceans",
                    "pageid": 2,
                    "snippet": "Warming &amp; acidification",
                    "timestamp": "2023-12-31T00:00:00Z",
                },
            ],
        },
    }
)


def _rows(items: list[SerpItem]) -> list[tuple[int, str, str, str, str | None, str]]:
    return [(i.rank, i.title, i.url, i.snippet, i.date, i.source_tag) for i in items]


def test_duckduckgo_lite_drops_ads_and_unwraps_uddg() -> None:
    items = parse("duckduckgo_lite", DDG_LITE, "https://lite.duckduckgo.com/lite/")
    assert _rows(items) == [
        (
            1,
            "Ocean acidification - Wikipedia",
            "https://en.wikipedia.org/wiki/Ocean_acidification",
            "Ocean acidification is the ongoing decrease in the pH of the Earth's ocean.",
            None,
            "encyclopedia",
        ),
        (
            2,
            "Ocean acidification | NOAA",
            "https://www.noaa.gov/education/ocean-acidification",
            "As levels of atmospheric CO2 increase, the ocean absorbs more.",
            "Mar 4, 2024",
            "government",
        ),
    ]


def test_mojeek() -> None:
    items = parse("mojeek", MOJEEK, "https://www.mojeek.com/search")
    assert _rows(items) == [
        (
            1,
            "Coral reef decline under warming",
            "https://arxiv.org/abs/2101.00001",
            "We measure coral cover across 40 reefs.",
            "12 Jan 2021",
            "academic",
        ),
        (2, "Reef Watch", "https://reef.example.org/", "Volunteer monitoring.", None, "web"),
    ]


def test_brave_keeps_web_results_only() -> None:
    items = parse("brave", BRAVE, "https://search.brave.com/search")
    assert _rows(items) == [
        (
            1,
            "Rust Programming Language",
            "https://www.rust-lang.org/",
            "A language empowering everyone to build reliable software.",
            "May 3, 2023",
            "web",
        ),
        (
            2,
            "The Rust Book",
            "https://doc.rust-lang.org/book/",
            "An introductory book about Rust.",
            None,
            "web",
        ),
    ]


def test_qwant_lite_drops_ads() -> None:
    items = parse("qwant", QWANT, "https://lite.qwant.com/")
    assert [(i.rank, i.title, i.url, i.snippet) for i in items] == [
        (1, "Malaria report 2023", "https://www.who.int/news/item/1", "The World malaria report."),
        (2, "Malaria facts", "https://malaria.example.com/", "Facts and figures."),
    ]
    assert items[0].source_tag == "government"


def test_startpage() -> None:
    items = parse("startpage", STARTPAGE, "https://www.startpage.com/sp/search")
    assert [(i.title, i.url, i.snippet) for i in items] == [
        (
            "Flood risk assessment - GOV.UK",
            "https://www.gov.uk/guidance/flood-risk",
            "How to assess flood risk for planning.",
        ),
        ("Flood maps", "https://floods.example.net/", "Interactive flood maps."),
    ]


def test_marginalia_html_and_api_json() -> None:
    html_items = parse("marginalia", MARGINALIA, "https://search.marginalia.nu/search")
    assert [(i.title, i.url, i.source_tag) for i in html_items] == [
        (
            "Spaced Repetition for Efficient Learning",
            "https://www.gwern.net/Spaced-repetition",
            "web",
        ),
        ("SRS notes", "http://people.example.edu/~a/srs.html", "academic"),
    ]
    json_items = parse("marginalia", MARGINALIA_JSON, "https://api.marginalia.nu/public/search/x")
    assert _rows(json_items) == [
        (
            1,
            "Spaced Repetition for Efficient Learning",
            "https://www.gwern.net/Spaced-repetition",
            "Efficient memorization using the spacing effect.",
            None,
            "web",
        )
    ]


def test_wikipedia_search_api_json() -> None:
    items = parse("wikipedia", WIKIPEDIA.encode(), "https://ja.wikipedia.org/w/api.php")
    assert _rows(items) == [
        (
            1,
            "Ocean acidification",
            "https://ja.wikipedia.org/wiki/Ocean_acidification",
            'Ocean acidification is the "ongoing" decrease',
            "2024-05-01",
            "encyclopedia",
        ),
        (
            2,
            "Effects of climate change on oceans",
            "https://ja.wikipedia.org/wiki/Effects_of_climate_change_on_oceans",
            "Warming & acidification",
            "2023-12-31",
            "encyclopedia",
        ),
    ]


def test_relative_links_resolve_against_the_serp_url() -> None:
    page = (
        '<ul class="results-standard"><li><h2><a class="title" href="/r/1">One</a></h2></li></ul>'
    )
    items = parse("mojeek", page, "http://127.0.0.1:8123/search?q=x")
    assert [i.url for i in items] == ["http://127.0.0.1:8123/r/1"]


# --- redirect unwrapping and tags, as tables ----------------------------------------------

_BING_TARGET = base64.urlsafe_b64encode(b"https://example.org/a?b=c").decode().rstrip("=")

UNWRAP_CASES = [
    ("https://example.org/x", "https://example.org/x"),
    (
        "//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2Fp%3Fq%3D1&rut=f",
        "https://example.org/p?q=1",
    ),
    ("https://duckduckgo.com/y.js?ad_provider=bingv7aa&u3=x", None),
    (f"https://www.bing.com/ck/a?!&&p=abc&u=a1{_BING_TARGET}&ntb=1", "https://example.org/a?b=c"),
    ("https://www.bing.com/ck/a?!&&p=abc&u=zz&ntb=1", None),
    ("https://www.bing.com/ck/a?!&&p=abc&u=a1%%%%&ntb=1", None),
    ("/url?q=https://example.org/g&sa=U&ved=x", "https://example.org/g"),
    ("/search?q=related+query", "https://www.google.com/search?q=related+query"),
    ("javascript:void(0)", None),
    ("mailto:someone@example.org", None),
    ("", None),
]


@pytest.mark.parametrize(("href", "want"), UNWRAP_CASES)
def test_unwrap_url(href: str, want: str | None) -> None:
    assert unwrap_url(href, "https://www.google.com/search?q=x") == want


@pytest.mark.parametrize(
    ("url", "tag"),
    [
        ("https://en.wikipedia.org/wiki/X", "encyclopedia"),
        ("https://arxiv.org/abs/1234.5678", "academic"),
        ("https://pubmed.ncbi.nlm.nih.gov/1/", "academic"),
        ("https://www.u-tokyo.ac.jp/x", "academic"),
        ("https://www.mhlw.go.jp/x", "government"),
        ("https://www.cdc.gov/x", "government"),
        ("https://www.who.int/x", "government"),
        ("https://notarxiv.org.example.com/", "web"),
        ("https://blog.example.com/", "web"),
    ],
)
def test_source_tag(url: str, tag: str) -> None:
    assert source_tag(url) == tag


# --- hostile input never raises ------------------------------------------------------------

HOSTILE = [
    b"",
    "   ",
    b"\x00\xff\xfe garbage \x80",
    '<?xml version="1.0" encoding="utf-8"?><html><body></body></html>',
    "<html><body><div class='result'><a class='result__a' href='https://a.example/'>",
    "{not json",
    '{"query": {"search": "not a list of entries"}}',
    "<" * 5000,
]


@pytest.mark.parametrize("parser", sorted(PARSERS))
@pytest.mark.parametrize("body", HOSTILE, ids=range(len(HOSTILE)))
def test_malformed_input_never_raises(parser: str, body: bytes | str) -> None:
    assert parse(parser, body, "https://en.wikipedia.org/w/api.php") == []


def test_wikipedia_skips_malformed_entries() -> None:
    body = '{"query": {"search": [{"title": null}, "x", {"title": "T"}]}}'
    items = parse("wikipedia", body, "https://en.wikipedia.org/w/api.php")
    assert [(i.title, i.url, i.snippet, i.date) for i in items] == [
        ("T", "https://en.wikipedia.org/wiki/T", "", None)
    ]


def test_truncated_page_yields_the_results_before_the_cut() -> None:
    _need(DDG)
    page = _read(DDG / "ddg_html_antani_2020.html")
    cut = page.index(b"Supercazzola - Wikipedia") + 40
    items = parse("duckduckgo", page[:cut], "https://html.duckduckgo.com/html/")
    assert [i.url for i in items] == [
        "https://www.lettera43.it/howto/come-se-fosse-antani-significato/",
        "https://it.wikipedia.org/wiki/Supercazzola",
    ]


def test_truncated_wikipedia_json_yields_nothing() -> None:
    assert parse("wikipedia", WIKIPEDIA[: len(WIKIPEDIA) // 2], "https://en.wikipedia.org/") == []


def test_unknown_parser_is_named() -> None:
    with pytest.raises(KeyError, match="no SERP parser named 'altavista'"):
        parse("altavista", "<html></html>", "https://example.org/")
