"""OpenAlex builders and parsers against real recorded API answers (academic/openalex)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lyra.config.settings import AcademicAPISettings
from lyra.pipelines.discover import academic_openalex as oa
from lyra.pipelines.discover.papers import AcademicAPIError, ApiRequest

REALWORLD = Path(__file__).resolve().parents[2] / "shared" / "realworld"
OA_DIR = REALWORLD / "academic" / "openalex"
POLITE = AcademicAPISettings(base_url="https://api.openalex.org", mailto="rainer@krugs.de")
BARE = AcademicAPISettings(base_url="https://api.openalex.org/")
CITES_CURSOR = "IlsnLUluZmluaXR5JywgMCwgJ2h0dHBzOi8vb3BlbmFsZXgub3JnL1c3MTA0NzI4MTM1J10i"
IDS_CURSOR = "IlsnLUluZmluaXR5JywgMCwgJ2h0dHBzOi8vb3BlbmFsZXgub3JnL1czMDQ1OTIxODkxJ10i"

# file -> (papers on the page, next cursor, count, first work id, first DOI)
LISTS = {
    "works_filter_openalex_ids_perpage1.json": (
        1,
        None,
        2,
        "W3046863325",
        "10.1145/3383583.3398584",
    ),
    "works_filter_openalex_ids_cursor.json": (
        2,
        IDS_CURSOR,
        2,
        "W3046863325",
        "10.1145/3383583.3398584",
    ),
    "works_filter_cites_perpage1.json": (
        1,
        None,
        5,
        "W4311043552",
        "10.36312/esaintika.v6i3.897",
    ),
    "works_filter_cites_cursor.json": (
        5,
        CITES_CURSOR,
        5,
        "W4311043552",
        "10.36312/esaintika.v6i3.897",
    ),
    "works_filter_cited_by_perpage1.json": (1, None, 38, "W2250539671", "10.3115/v1/d14-1162"),
    "works_filter_search_select_ids.json": (1, None, 145616, "W2162348455", "10.1038/35002501"),
    # group_by answers carry groups, not works; the cursor pages the groups.
    "works_group_by_type.json": (0, "InN1cHBsZW1lbnRhcnktbWF0ZXJpYWxzIg==", 145616, None, None),
    "works_cursor_exhausted.json": (0, None, 2, None, None),
}
# file -> (title, DOI, PMID, PMCID, venue, retracted, cited_by_count, references, authors)
WORKS = {
    "work_W4234567890.json": (
        None,
        "10.4018/jnn.20180101",
        None,
        None,
        "Journal of Nanotoxicology and Nanomedicine",
        None,
        0,
        0,
        1,
    ),
    "work_W2162348455.json": (
        "Biodiversity hotspots for conservation priorities",
        "10.1038/35002501",
        "10706275",
        None,
        "Nature",
        False,
        30625,
        230,
        5,
    ),
    "work_W2741809807.json": (
        "The state of OA: a large-scale analysis of the prevalence and impact of "
        "Open Access articles",
        "10.7717/peerj.4375",
        "29456894",
        "PMC5815332",
        "PeerJ",
        False,
        962,
        45,
        9,
    ),
    "work_older_schema_host_venue.json": (
        "GW170104: Observation of a 50-Solar-Mass Binary Black Hole Coalescence at Redshift 0.2",
        "10.1103/physrevlett.118.091101",
        None,
        None,
        "Physical Review Letters",
        False,
        850,
        5,
        1,
    ),
}
WORK_IDS = {
    "work_W4234567890.json": "W4234567890",
    "work_W2162348455.json": "W2162348455",
    "work_W2741809807.json": "W2741809807",
    "work_older_schema_host_venue.json": "W2755950973",
}
# file -> (status, code, field)
ERRORS = {
    "error_400_invalid_filter.json": (400, "PIPELINE_ERROR", "filter"),
    "error_400_invalid_select.json": (400, "PIPELINE_ERROR", "select"),
    "error_401_rate_limit_endpoint.json": (401, "AUTH_REQUIRED", "academic.openalex.api_key"),
}
# The account rate-limit endpoint answers about the key, not about works.
NOT_WORK_ENDPOINTS = {"rate_limit_status_200.json"}


def _require() -> None:
    if not OA_DIR.is_dir():
        pytest.skip(f"third-party conformance data absent: {OA_DIR}")


def _index() -> dict[str, dict[str, Any]]:
    _require()
    return {e["file"]: e for e in json.loads((OA_DIR / "INDEX.json").read_text())}


def _body(name: str) -> bytes:
    _require()
    return (OA_DIR / name).read_bytes()


def test_every_recorded_response_is_in_a_table() -> None:
    index = _index()
    assert set(index) == set(LISTS) | set(WORKS) | set(ERRORS) | NOT_WORK_ENDPOINTS
    assert {name for name, e in index.items() if e["status"] != 200} == set(ERRORS)
    assert {name for name, e in index.items() if "/rate-limit" in e["url"]} == (
        NOT_WORK_ENDPOINTS | {"error_401_rate_limit_endpoint.json"}
    )


@pytest.mark.parametrize("name", sorted(LISTS))
def test_list_pages(name: str) -> None:
    papers, next_cursor, count = oa.parse_list_page(_index()[name]["status"], _body(name))
    size, expected_cursor, expected_count, first_id, first_doi = LISTS[name]
    assert (len(papers), next_cursor, count) == (size, expected_cursor, expected_count)
    assert [(p.openalex_id, p.doi) for p in papers[:1]] == (
        [(first_id, first_doi)] if first_id else []
    )


def test_cursor_exhaustion_ends_paging() -> None:
    papers, next_cursor, count = oa.parse_list_page(200, _body("works_cursor_exhausted.json"))
    assert (papers, next_cursor, count) == ([], None, 2)


@pytest.mark.parametrize("name", sorted(WORKS))
def test_single_works(name: str) -> None:
    paper = oa.parse_single(200, _body(name))
    title, doi, pmid, pmcid, venue, retracted, cited_by, refs, authors = WORKS[name]
    assert (paper.title, paper.doi, paper.pmid, paper.pmcid, paper.venue) == (
        title,
        doi,
        pmid,
        pmcid,
        venue,
    )
    assert (paper.is_retracted, paper.citation_count, len(paper.referenced_works)) == (
        retracted,
        cited_by,
        refs,
    )
    assert len(paper.authors) == authors
    assert paper.openalex_id == WORK_IDS[name]
    assert paper.source_api == ("openalex",)


def test_work_details() -> None:
    paper = oa.parse_single(200, _body("work_W2741809807.json"))
    assert paper.authors[0] == "Heather Piwowar"
    assert paper.referenced_works[:3] == ("W1560783210", "W1724212071", "W1767272795")
    assert paper.oa_pdf_url == "https://peerj.com/articles/4375.pdf"
    assert paper.url == "https://doi.org/10.7717/peerj.4375"
    assert paper.year == 2018
    assert paper.raw_ids["openalex:pmcid"] == "https://www.ncbi.nlm.nih.gov/pmc/articles/5815332"
    links = oa.reference_links(paper)
    assert (len(links), links[0].citing_id, links[0].cited_id) == (45, "W2741809807", "W1560783210")


def test_older_schema_keeps_ids_without_ids_object() -> None:
    paper = oa.parse_single(200, _body("work_older_schema_host_venue.json"))
    assert (paper.openalex_id, paper.year) == ("W2755950973", 2017)
    assert paper.oa_pdf_url == "https://journals.aps.org/prl/pdf/10.1103/PhysRevLett.118.221101"


def _positions_hold(index: dict[str, list[int]], text: str) -> list[bool]:
    """Each recorded word sits at each of its recorded positions in `text`."""
    words = text.split(" ")
    return [words[pos] == word for word, positions in index.items() for pos in positions]


@pytest.mark.parametrize(
    ("name", "words", "start", "end"),
    [
        (
            "work_W2741809807.json",
            258,
            "Despite growing interest in Open Access (OA) to scholarly literature, there is",
            "as a way to inform OA policy and practice.",
        ),
        (
            "works_filter_cited_by_perpage1.json",
            145,
            "Recent methods for learning vector space representations of words have succeeded",
            "on similarity tasks and named entity recognition.",
        ),
    ],
)
def test_abstract_is_rebuilt_in_position_order(name: str, words: int, start: str, end: str) -> None:
    obj = json.loads(_body(name))
    work = obj["results"][0] if "results" in obj else obj
    index = work["abstract_inverted_index"]
    paper = oa.parse_work(work)
    assert paper.abstract is not None
    assert len(paper.abstract.split(" ")) == words
    assert paper.abstract.startswith(start)
    assert paper.abstract.endswith(end)
    assert set(_positions_hold(index, paper.abstract)) == {True}


def test_abstract_rebuild_ignores_dict_order() -> None:
    index = {"fox": [3], "The": [0], "brown": [2], "quick": [1], "the": [5], "over": [4, 6]}
    assert oa.rebuild_abstract(index) == "The quick brown fox over the over"
    assert oa.rebuild_abstract({}) is None
    assert oa.rebuild_abstract(None) is None


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_answers(name: str) -> None:
    status, code, field = ERRORS[name]
    assert _index()[name]["status"] == status
    with pytest.raises(AcademicAPIError) as caught:
        oa.parse_list_page(status, _body(name))
    err = caught.value
    assert (err.code, err.field, err.status, err.api, err.retryable) == (
        code,
        field,
        status,
        "openalex",
        False,
    )


def test_error_message_names_the_bad_field() -> None:
    with pytest.raises(AcademicAPIError) as caught:
        oa.parse_single(400, _body("error_400_invalid_select.json"))
    assert caught.value.message.startswith(
        "openalex answered HTTP 400: Invalid query parameters error.: "
        "DOESNTEXIST is not a valid select field."
    )


def test_rate_limited_answer_is_retryable() -> None:
    with pytest.raises(AcademicAPIError) as caught:
        oa.parse_list_page(429, b'{"error": "Too many requests"}', {"retry-after": "2"})
    assert (caught.value.retryable, caught.value.retry_after) == (True, 2.0)


def test_citing_links_point_at_the_cited_work() -> None:
    papers, _, _ = oa.parse_list_page(200, _body("works_filter_cites_cursor.json"))
    links = oa.citing_links(papers, "https://openalex.org/W3046863325")
    assert [ln.cited_id for ln in links] == ["W3046863325"] * 5
    assert links[0].citing_id == "W4311043552"
    assert links[0].paper is papers[0]


# --- builders ---------------------------------------------------------------------------

RECORDED_REQUESTS = [
    (oa.build_work(BARE, "W4234567890"), "work_W4234567890.json"),
    (
        oa.build_filter(POLITE, "openalex:W3045921891|W3046863325", per_page=1, cursor=None),
        "works_filter_openalex_ids_perpage1.json",
    ),
    (
        oa.build_filter(POLITE, "openalex:W3045921891|W3046863325"),
        "works_filter_openalex_ids_cursor.json",
    ),
    (
        oa.build_cites(
            POLITE, ["W3046863325", "https://openalex.org/W3045921891"], per_page=1, cursor=None
        ),
        "works_filter_cites_perpage1.json",
    ),
    (oa.build_cites(POLITE, ["W3046863325", "W3045921891"]), "works_filter_cites_cursor.json"),
    (
        oa.build_cited_by(POLITE, ["W3046863325", "W3045921891"], per_page=1, cursor=None),
        "works_filter_cited_by_perpage1.json",
    ),
]


@pytest.mark.parametrize(("request_", "name"), RECORDED_REQUESTS)
def test_builders_reproduce_recorded_requests(request_: ApiRequest, name: str) -> None:
    assert (request_.method, request_.full_url) == ("GET", _index()[name]["url"])


@pytest.mark.parametrize(
    ("request_", "url"),
    [
        (
            oa.build_search(POLITE, "climate change adaptation"),
            "https://api.openalex.org/works?search=climate+change+adaptation&per-page=25"
            "&mailto=rainer%40krugs.de&cursor=%2A",
        ),
        (
            oa.build_search(BARE, "q", per_page=50, cursor=CITES_CURSOR),
            f"https://api.openalex.org/works?search=q&per-page=50&cursor={CITES_CURSOR}",
        ),
        (
            oa.build_work_by_doi(BARE, "https://doi.org/10.7717/peerj.4375"),
            "https://api.openalex.org/works/doi:10.7717/peerj.4375",
        ),
        (
            oa.build_work_by_doi(
                POLITE, "10.1002/(SICI)1097-4636(199706)35:4<409::AID-JBM1>3.0.CO;2-9"
            ),
            "https://api.openalex.org/works/doi:10.1002/%28sici%291097-4636%28199706%2935"
            "%3A4%3C409%3A%3Aaid-jbm1%3E3.0.co%3B2-9?mailto=rainer%40krugs.de",
        ),
        (
            oa.build_work_by_pmid(BARE, "https://pubmed.ncbi.nlm.nih.gov/29456894"),
            "https://api.openalex.org/works/pmid:29456894",
        ),
        (
            oa.build_work(POLITE, "https://openalex.org/W2741809807"),
            "https://api.openalex.org/works/W2741809807?mailto=rainer%40krugs.de",
        ),
    ],
)
def test_builder_urls(request_: ApiRequest, url: str) -> None:
    assert request_.full_url == url
    assert (request_.method, request_.json_body, request_.headers) == ("GET", None, {})


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: oa.build_work_by_pmid(BARE, "PMC123"), "pmid"),
        (lambda: oa.build_cites(BARE, []), None),
    ],
)
def test_builders_reject_bad_input(call: Any, field: str | None) -> None:
    with pytest.raises(AcademicAPIError) as caught:
        call()
    assert (caught.value.code, caught.value.field) == ("INVALID_PARAMS", field)
