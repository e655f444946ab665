"""Paper records, id normalisation, merging across APIs and API error mapping."""

from __future__ import annotations

import pytest

from lyra.pipelines.discover.papers import (
    AcademicAPIError,
    ApiRequest,
    Paper,
    api_error,
    decode_json,
    merge_papers,
    normalize_doi,
    normalize_pmcid,
    normalize_pmid,
)
from lyra.pipelines.errors import LyraError

S2_SIDE = Paper(
    title="The state of OA",
    doi="10.7717/peerj.4375",
    s2_id="abc123",
    corpus_id=3634339,
    arxiv=None,
    authors=("H. Piwowar",),
    citation_count=1500,
    is_retracted=None,
    source_api=("semantic_scholar",),
    raw_ids={"s2:DOI": "10.7717/PEERJ.4375", "s2:paperId": "abc123"},
)
OA_SIDE = Paper(
    title="The state of OA: a large-scale analysis",
    abstract="Despite growing interest in Open Access",
    year=2018,
    doi="10.7717/peerj.4375",
    pmid="29456894",
    pmcid="PMC5815332",
    openalex_id="W2741809807",
    authors=("Heather Piwowar", "Jason Priem"),
    citation_count=962,
    is_retracted=False,
    referenced_works=("W1560783210",),
    source_api=("openalex",),
    raw_ids={"openalex:doi": "https://doi.org/10.7717/peerj.4375", "s2:DOI": "other"},
)


def test_merge_fills_gaps_and_keeps_provenance() -> None:
    merged = merge_papers(S2_SIDE, OA_SIDE)
    assert (merged.title, merged.authors, merged.s2_id, merged.corpus_id) == (
        "The state of OA",
        ("H. Piwowar",),
        "abc123",
        3634339,
    )
    assert (merged.abstract, merged.year, merged.pmid, merged.pmcid, merged.openalex_id) == (
        "Despite growing interest in Open Access",
        2018,
        "29456894",
        "PMC5815332",
        "W2741809807",
    )
    assert merged.referenced_works == ("W1560783210",)
    assert merged.source_api == ("semantic_scholar", "openalex")
    assert merged.raw_ids == {
        "s2:DOI": "10.7717/PEERJ.4375",
        "s2:paperId": "abc123",
        "openalex:doi": "https://doi.org/10.7717/peerj.4375",
    }


def test_merge_keeps_larger_citation_count_and_any_retraction() -> None:
    merged = merge_papers(S2_SIDE, OA_SIDE)
    assert (merged.citation_count, merged.is_retracted) == (1500, False)
    retracted = merge_papers(OA_SIDE, Paper(is_retracted=True, source_api=("openalex",)))
    assert (retracted.is_retracted, retracted.source_api) == (True, ("openalex",))
    one_count = merge_papers(Paper(), Paper(citation_count=4))
    assert one_count.citation_count == 4


def test_merge_leaves_inputs_untouched() -> None:
    merge_papers(S2_SIDE, OA_SIDE)
    assert (S2_SIDE.abstract, OA_SIDE.s2_id) == (None, None)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("https://doi.org/10.1038/35002501", "10.1038/35002501"),
        ("http://dx.doi.org/10.1038/35002501", "10.1038/35002501"),
        ("https://dx.doi.org/10.1093/MIND/LIX.236.433", "10.1093/mind/lix.236.433"),
        ("doi:10.3115/v1/D14-1162", "10.3115/v1/d14-1162"),
        (" 10.1002/(SICI)1097-4636 ", "10.1002/(sici)1097-4636"),
        ("W2741809807", None),
        ("", None),
        (None, None),
    ],
)
def test_normalize_doi(raw: str | None, expected: str | None) -> None:
    assert normalize_doi(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("https://pubmed.ncbi.nlm.nih.gov/10706275", "10706275"),
        ("pmid:29456894", "29456894"),
        (29456894, "29456894"),
        ("PMC5815332", None),
        (None, None),
    ],
)
def test_normalize_pmid(raw: str | int | None, expected: str | None) -> None:
    assert normalize_pmid(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("https://www.ncbi.nlm.nih.gov/pmc/articles/5815332", "PMC5815332"),
        ("PMC5815332", "PMC5815332"),
        ("pmc5815332", "PMC5815332"),
        ("5815332", "PMC5815332"),
        ("PMCabc", None),
        (None, None),
    ],
)
def test_normalize_pmcid(raw: str | None, expected: str | None) -> None:
    assert normalize_pmcid(raw) == expected


@pytest.mark.parametrize(
    ("status", "headers", "code", "field", "retryable", "retry_after"),
    [
        (400, {}, "PIPELINE_ERROR", None, False, None),
        (401, {}, "AUTH_REQUIRED", "academic.openalex.api_key", False, None),
        (403, {}, "AUTH_REQUIRED", "academic.openalex.api_key", False, None),
        (404, {}, "PIPELINE_ERROR", None, False, None),
        (429, {"Retry-After": "30"}, "PIPELINE_ERROR", None, True, 30.0),
        (429, {}, "PIPELINE_ERROR", None, True, None),
        (500, {"retry-after": "5"}, "PIPELINE_ERROR", None, True, 5.0),
        (503, {}, "PIPELINE_ERROR", None, True, None),
    ],
)
def test_api_error_table(
    status: int,
    headers: dict[str, str],
    code: str,
    field: str | None,
    retryable: bool,
    retry_after: float | None,
) -> None:
    err = api_error("openalex", status, b'{"error": "x"}', headers)
    assert isinstance(err, LyraError)
    assert (err.code, err.field, err.retryable, err.retry_after, err.status) == (
        code,
        field,
        retryable,
        retry_after,
        status,
    )
    assert err.message == f"openalex answered HTTP {status}: x"


def test_api_error_without_body_names_the_status() -> None:
    assert api_error("semantic_scholar", 502, None).message == (
        "semantic_scholar answered HTTP 502: HTTP 502"
    )
    assert api_error("semantic_scholar", 502, b"[1, 2]").message == (
        "semantic_scholar answered HTTP 502: [1, 2]"
    )


def test_invalid_json_is_a_pipeline_error() -> None:
    with pytest.raises(LyraError) as caught:
        decode_json(b"<html>gateway</html>")
    assert caught.value.code == "PIPELINE_ERROR"
    assert decode_json('{"a": 1}') == {"a": 1}


def test_request_full_url() -> None:
    bare = ApiRequest("GET", "https://x.test/a", (), None, {})
    assert bare.full_url == "https://x.test/a"
    query = ApiRequest("GET", "https://x.test/a", (("q", "a b"), ("f", "x,y:*")), None, {})
    assert query.full_url == "https://x.test/a?q=a+b&f=x%2Cy%3A%2A"


def test_academic_error_not_found() -> None:
    err = AcademicAPIError("PIPELINE_ERROR", "m", api="openalex", status=404)
    assert (err.not_found, err.to_dict()) == (True, {"code": "PIPELINE_ERROR", "message": "m"})


def test_a_paper_page_lives_at_its_resolver_and_holds_title_and_abstract() -> None:
    from lyra.pipelines.discover.papers import Paper, paper_document, paper_page_url

    full = Paper(title="Coffee and sleep", abstract="Coffee delays sleep.", doi="10.1/x", pmid="5")
    assert paper_page_url(full) == "https://doi.org/10.1/x"
    assert paper_page_url(Paper(pmid="5")) == "https://pubmed.ncbi.nlm.nih.gov/5/"
    assert paper_page_url(Paper(arxiv="1901.01234")) == "https://arxiv.org/abs/1901.01234"
    assert paper_page_url(Paper(title="No ids")) is None
    doc = paper_document(full, "https://doi.org/10.1/x", "doi.org")
    assert doc is not None
    assert [(f.fragment_type, f.text, f.heading_context) for f in doc.fragments] == [
        ("heading", "Coffee and sleep", None),
        ("paragraph", "Coffee delays sleep.", "Abstract"),
    ]
    bare = Paper(title="Coffee and sleep", doi="10.1/y")
    assert paper_document(bare, "https://doi.org/10.1/y", "doi.org") is None
    titled = paper_document(bare, "https://doi.org/10.1/y", "doi.org", title_only=True)
    assert titled is not None
    assert [f.fragment_type for f in titled.fragments] == ["heading"]
    assert (
        paper_document(Paper(doi="10.1/z"), "https://doi.org/10.1/z", "doi.org", title_only=True)
        is None
    )
