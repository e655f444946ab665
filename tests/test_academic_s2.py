"""Semantic Scholar builders and parsers against real recorded API answers (academic/)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lyra.config.settings import AcademicAPISettings
from lyra.pipelines.discover import academic_s2 as s2
from lyra.pipelines.discover.papers import AcademicAPIError, ApiRequest

REALWORLD = Path(__file__).resolve().parents[2] / "shared" / "realworld"
S2_DIR = REALWORLD / "academic" / "semanticscholar"
API = AcademicAPISettings(base_url="https://api.semanticscholar.org")
KEYED = AcademicAPISettings(base_url="https://api.semanticscholar.org/", api_key="k-123")

# file -> (papers on the page, next offset, total, first paperId)
SEARCH = {
    "responses/search_paper.0.json": (100, 100, 70499, "7cbc2a7843411a1768ab762930707af0a3c33a19"),
    "responses/search_paper_next_page.1.json": (
        100,
        200,
        70498,
        "ac7a3d2983b75bd4f44903892a5df295a0f859ff",
    ),
    "responses/search_paper_open_access_pdf.0.json": (
        100,
        100,
        11054,
        "f1328e67a62218c365a5945d58123634db1895be",
    ),
    "responses/search_paper_fields_of_study.0.json": (
        100,
        100,
        11683,
        "6b0f06617d9f5256a80ed62d9398acb92a55a6bd",
    ),
    "responses/search_paper_year.0.json": (
        21,
        None,
        21,
        "0f34fcab599aabf0ab46d91c21703a9a86b5f048",
    ),
    "responses/search_paper_match_title.0.json": (
        1,
        None,
        None,
        "6fe8c5bf8dddaadf10c765133d38dfef5714347f",
    ),
    # bulk search pages by `token`, not offset: next offset is None on both pages.
    "responses/search_paper_bulk_retrieval_sorted_results_asc.0.json": (
        1000,
        None,
        3027,
        "0020825b272b31f63359eadf0d714d49590095f4",
    ),
    "responses/search_paper_bulk_retrieval_sorted_results_desc.3.json": (
        27,
        None,
        3027,
        "048f5933dc36b0b9125a11bad24c6826226ec383",
    ),
    "responses/empty_paginated_results.0.json": (0, None, 0, None),
}
# file -> (direction, edges, next offset, first far paperId, far papers without paperId)
LINKS = {
    "responses/get_paper_references.0.json": (
        "references",
        50,
        50,
        "e945ca4fdcf45b1a118f1462db7afa12629a131f",
        10,
    ),
    "responses/get_paper_references.1.json": ("references", 17, None, None, 13),
    "responses/get_paper_citations.0.json": (
        "citations",
        100,
        100,
        "344e7fb2000d9063cbc9deb550e46946bafe3c90",
        0,
    ),
    "responses/get_paper_citations.18.json": (
        "citations",
        81,
        None,
        "57ca0060418e8a4d972905f3cfbae330b111f21e",
        4,
    ),
}
# file -> (status, code, field, retryable)
ERRORS = {
    "responses/not_found.0.json": (404, "PIPELINE_ERROR", None, False),
    "responses/not_found.1.json": (404, "PIPELINE_ERROR", None, False),
    "responses/bad_query_parameters.0.json": (400, "PIPELINE_ERROR", "fields", False),
    "responses/debug.0.json": (403, "AUTH_REQUIRED", "academic.semantic_scholar.api_key", False),
    "responses/get_recommended_papers_from_lists_negative_only.0.json": (
        400,
        "PIPELINE_ERROR",
        None,
        False,
    ),
}
OTHER_OK = {
    "responses/get_paper.0.json",
    "responses/get_papers.0.json",
    "responses/get_papers_not_found_warning.0.json",
    "responses/get_recommended_papers.0.json",
}
# Author and snippet endpoints: Lyra tracks papers, not authors (seed 001).
NOT_PAPER_ENDPOINTS = {
    "responses/get_paper_authors.0.json",
    "responses/search_snippet.0.json",
    "responses/search_author.0.json",
    "responses/get_author.0.json",
}


def _require() -> None:
    if not S2_DIR.is_dir():
        pytest.skip(f"third-party conformance data absent: {S2_DIR}")


def _index() -> dict[str, dict[str, Any]]:
    _require()
    return {e["file"]: e for e in json.loads((S2_DIR / "responses/INDEX.json").read_text())}


def _body(name: str) -> bytes:
    _require()
    return (S2_DIR / name).read_bytes()


def _status(name: str) -> int:
    return int(_index()[name]["status"])


def _object(name: str) -> Any:
    _require()
    return json.loads((S2_DIR / "objects" / name).read_text())


def test_every_recorded_response_is_in_a_table() -> None:
    tables = set(SEARCH) | set(LINKS) | set(ERRORS) | OTHER_OK | NOT_PAPER_ENDPOINTS
    assert set(_index()) == tables
    not_paper_paths = {
        name for name, e in _index().items() if "/author" in e["url"] or "/snippet/" in e["url"]
    }
    assert not_paper_paths == NOT_PAPER_ENDPOINTS | {"responses/not_found.1.json"}


@pytest.mark.parametrize("name", sorted(SEARCH))
def test_search_pages(name: str) -> None:
    papers, next_offset, total = s2.parse_search_page(_status(name), _body(name))
    count, expected_next, expected_total, first_id = SEARCH[name]
    assert (len(papers), next_offset, total) == (count, expected_next, expected_total)
    assert [p.s2_id for p in papers[:1]] == ([first_id] if first_id else [])
    assert [p.source_api for p in papers] == [("semantic_scholar",)] * count


def test_search_page_fields() -> None:
    papers, _, _ = s2.parse_search_page(200, _body("responses/search_paper.0.json"))
    assert papers[0].title == (
        "Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B, "
        "A Large-Scale Generative Language Model"
    )
    pdfs, _, _ = s2.parse_search_page(200, _body("responses/search_paper_open_access_pdf.0.json"))
    assert pdfs[0].oa_pdf_url == "https://mededu.jmir.org/2023/1/e46939/PDF"
    years, _, _ = s2.parse_search_page(200, _body("responses/search_paper_year.0.json"))
    assert {p.year for p in years} == {1936}


@pytest.mark.parametrize("name", sorted(LINKS))
def test_link_pages(name: str) -> None:
    direction, count, expected_next, first_far, unresolved = LINKS[name]
    links, next_offset = s2.parse_links_page(_status(name), _body(name), "ANCHOR", direction)
    assert (len(links), next_offset) == (count, expected_next)
    far_ids = [(ln.cited_id if direction == "references" else ln.citing_id) for ln in links]
    anchors = {(ln.citing_id if direction == "references" else ln.cited_id) for ln in links}
    assert anchors == {"ANCHOR"}
    assert far_ids[0] == first_far
    assert far_ids.count(None) == unresolved
    assert [ln.paper.s2_id for ln in links if ln.paper] == far_ids


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_answers(name: str) -> None:
    status, code, field, retryable = ERRORS[name]
    assert _status(name) == status
    with pytest.raises(AcademicAPIError) as caught:
        s2.parse_single(status, _body(name))
    err = caught.value
    assert (err.code, err.field, err.retryable, err.status, err.api) == (
        code,
        field,
        retryable,
        status,
        "semantic_scholar",
    )
    assert err.not_found is (status == 404)


def test_error_messages_carry_the_api_text() -> None:
    with pytest.raises(AcademicAPIError) as caught:
        s2.parse_single(404, _body("responses/not_found.0.json"))
    assert caught.value.message == "semantic_scholar answered HTTP 404: Paper with id 0 not found"


def test_rate_limit_gives_retry_hint() -> None:
    # No real S2 429 body was recorded (PROVENANCE gaps); this is the documented shape.
    body = b'{"message": "Too Many Requests. Please wait and try again."}'
    with pytest.raises(AcademicAPIError) as caught:
        s2.parse_search_page(429, body, {"Retry-After": "7"})
    err = caught.value
    assert (err.code, err.retryable, err.retry_after, err.status) == (
        "PIPELINE_ERROR",
        True,
        7.0,
        429,
    )
    with pytest.raises(AcademicAPIError) as server:
        s2.parse_batch(503, b"upstream timeout", {})
    assert (server.value.retryable, server.value.retry_after) == (True, None)
    assert server.value.message == "semantic_scholar answered HTTP 503: upstream timeout"


def test_single_paper() -> None:
    paper = s2.parse_single(200, _body("responses/get_paper.0.json"))
    assert (paper.s2_id, paper.title) == (
        "2d5673caa9e6af3a7b82a43f19ee920992db07ad",
        "Computing Machinery and Intelligence",
    )


def test_batch_with_authors() -> None:
    papers = s2.parse_batch(200, _body("responses/get_papers.0.json"))
    assert [p.s2_id if p else None for p in papers] == [
        "c31c87c591a25c64fbaa82e8ac6a81831b6ac7ce",
        "cb1ebd913c3724c599f6b276b14b5c6253da68f3",
        "0f40b1f08821e22e859c6050916cec3667778613",
    ]
    assert papers[0] is not None
    assert papers[0].authors == ("Marianne Bertrand", "E. Duflo", "S. Mullainathan")


def test_batch_not_found_is_none_in_place() -> None:
    papers = s2.parse_batch(200, _body("responses/get_papers_not_found_warning.0.json"))
    assert papers[0] is None
    found = [(p.doi, p.corpus_id, p.title) for p in papers[1:] if p]
    assert found == [
        (
            "10.2139/ssrn.288970",
            470667,
            "How Much Should We Trust Differences-in-Differences Estimates?",
        ),
        (
            "10.2139/ssrn.2250500",
            3142471,
            "The Miracle of Microfinance? Evidence from a Randomized Evaluation",
        ),
        (
            "10.1257/rct.1355",
            255313304,
            "Improving Third-Party Audits and Regulatory Compliance in India",
        ),
    ]


def test_recommendations() -> None:
    papers = s2.parse_recommendations(200, _body("responses/get_recommended_papers.0.json"))
    assert len(papers) == 100
    assert papers[0].title == (
        "Report shows slight improvement on grantmaker diversity, "
        "but compensation lagging behind inflation"
    )


def test_full_paper_object() -> None:
    _require()
    obj = _object("Paper.trimmed.json")
    paper = s2.parse_paper(obj)
    assert (paper.doi, paper.corpus_id, paper.year, paper.venue, paper.citation_count) == (
        "10.1093/mind/lix.236.433",
        14636783,
        1950,
        "The Philosophy of Artificial Intelligence",
        10059,
    )
    assert paper.authors == ("A. Turing",)
    assert paper.raw_ids["s2:DOI"] == "10.1093/MIND/LIX.236.433"
    assert paper.raw_ids["s2:MAG"] == "2145482038"
    assert paper.is_retracted is None
    assert paper.oa_pdf_url is None


def test_null_values_parse() -> None:
    _require()
    obj = _object("PaperWithNullValues.json")
    paper = s2.parse_paper(obj)
    assert (paper.s2_id, paper.authors, paper.title, paper.doi) == (
        "2d5673caa9e6af3a7b82a43f19ee920992db07ad",
        (),
        None,
        None,
    )


@pytest.mark.parametrize(
    ("obj_file", "edge_key", "influential", "intents", "contexts", "far_id", "arxiv"),
    [
        (
            "Citation.json",
            "citingPaper",
            True,
            ("result", "background", "methodology"),
            4,
            "bdcbc589c8d1e4dd0c6572630f8511557406ad2f",
            None,
        ),
        (
            "Reference.json",
            "citedPaper",
            False,
            ("background",),
            1,
            "331f0fb3b6176c6e463e0401025b04f6ace9ccd3",
            "1402.0030",
        ),
    ],
)
def test_edge_objects(
    obj_file: str,
    edge_key: str,
    influential: bool,
    intents: tuple[str, ...],
    contexts: int,
    far_id: str,
    arxiv: str | None,
) -> None:
    _require()
    edge = _object(obj_file)
    direction = "citations" if edge_key == "citingPaper" else "references"
    links, next_offset = s2.parse_links_page(200, {"offset": 0, "data": [edge]}, "A", direction)
    link = links[0]
    assert (link.is_influential, link.intents, len(link.contexts), next_offset) == (
        influential,
        intents,
        contexts,
        None,
    )
    expected_pair = (far_id, "A") if direction == "citations" else ("A", far_id)
    assert (link.citing_id, link.cited_id) == expected_pair
    assert link.paper is not None
    assert link.paper.arxiv == arxiv


# --- builders ---------------------------------------------------------------------------

RECORDED_REQUESTS = [
    (
        s2.build_paper(API, "10.1093/mind/lix.236.433", fields=("title",)),
        "responses/get_paper.0.json",
    ),
    (
        s2.build_search(API, "turing", fields=("title",), offset=100, limit=100),
        "responses/search_paper_next_page.1.json",
    ),
    (
        s2.build_links(API, "10.2139/ssrn.2250500", "references", fields=("title",), limit=50),
        "responses/get_paper_references.0.json",
    ),
    (
        s2.build_links(
            API, "CorpusID:14514057", "citations", fields=("title",), offset=1800, limit=100
        ),
        "responses/get_paper_citations.18.json",
    ),
    (
        s2.build_batch(
            API,
            ["CorpusId:470667", "10.2139/ssrn.2250500", "0f40b1f08821e22e859c6050916cec3667778613"],
            fields=("authors",),
        ),
        "responses/get_papers.0.json",
    ),
]


@pytest.mark.parametrize(("request_", "name"), RECORDED_REQUESTS)
def test_builders_reproduce_recorded_requests(request_: ApiRequest, name: str) -> None:
    entry = _index()[name]
    assert (request_.method, request_.full_url) == (entry["method"], entry["url"])
    expected_body = json.loads(entry["request_body"]) if entry["request_body"] else None
    assert request_.json_body == expected_body
    assert request_.headers == {}


@pytest.mark.parametrize(
    ("kind", "value", "expected"),
    [
        ("DOI", "https://doi.org/10.1093/MIND/LIX.236.433", "DOI:10.1093/mind/lix.236.433"),
        ("PMID", "https://pubmed.ncbi.nlm.nih.gov/29456894", "PMID:29456894"),
        ("PMCID", "PMC5815332", "PMCID:5815332"),
        ("ARXIV", "1402.0030", "ARXIV:1402.0030"),
        ("CorpusId", 14636783, "CorpusId:14636783"),
    ],
)
def test_external_id_forms(kind: s2.IdKind, value: str | int, expected: str) -> None:
    assert s2.paper_id(kind, value) == expected


def test_special_character_doi_is_encoded_in_path() -> None:
    doi = "10.1002/(SICI)1097-4636(199706)35:4<409::AID-JBM1>3.0.CO;2-9"
    request = s2.build_paper(KEYED, s2.paper_id("DOI", doi), fields=("title", "year"))
    assert request.full_url == (
        "https://api.semanticscholar.org/graph/v1/paper/"
        "DOI:10.1002/%28sici%291097-4636%28199706%2935:4%3C409::aid-jbm1%3E3.0.co%3B2-9"
        "?fields=title%2Cyear"
    )
    assert request.headers == {"x-api-key": "k-123"}


def test_default_link_fields_ask_for_edge_context() -> None:
    request = s2.build_links(API, "abc", "citations")
    assert request.params[0] == (
        "fields",
        "contexts,intents,isInfluential,paperId,title,year,externalIds",
    )
    assert request.full_url.endswith(
        "/graph/v1/paper/abc/citations?fields=contexts%2Cintents"
        "%2CisInfluential%2CpaperId%2Ctitle%2Cyear%2CexternalIds"
        "&offset=0&limit=100"
    )


def test_batch_size_is_bounded() -> None:
    with pytest.raises(AcademicAPIError) as caught:
        s2.build_batch(API, [])
    assert (caught.value.code, caught.value.field) == ("INVALID_PARAMS", "ids")
    with pytest.raises(AcademicAPIError):
        s2.build_batch(API, [f"CorpusId:{i}" for i in range(501)])
    full = s2.build_batch(API, [f"CorpusId:{i}" for i in range(500)])
    assert full.json_body == {"ids": [f"CorpusId:{i}" for i in range(500)]}
