"""The fake S2 and OpenAlex servers speak what Lyra's real builders and parsers expect.

Every request here is built by pipelines/discover/academic_s2.py or academic_openalex.py, sent
over a loopback socket with urllib, and read back by the same modules' parsers, so a
later end-to-end test that uses these servers tests Lyra, not the fake.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any, Literal

import pytest

from lyra.config.settings import AcademicAPISettings
from lyra.pipelines.discover import academic_openalex as oa
from lyra.pipelines.discover import academic_s2 as s2
from lyra.pipelines.discover.papers import (
    AcademicAPIError,
    ApiRequest,
    Paper,
    PaperLink,
    merge_papers,
)
from tests.academic_servers import (
    AcademicWorld,
    FakePaper,
    OpenAlexServer,
    S2Server,
    sample_world,
)

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
COFFEE_ORDER = ["cohort", "review", "trial", "retracted", "preprint"]


def send(req: ApiRequest) -> tuple[int, bytes, dict[str, str]]:
    """Send an `ApiRequest` as the fetch layer would; HTTP errors come back as statuses."""
    data = json.dumps(req.json_body).encode() if req.json_body is not None else None
    headers = {**req.headers, **({"Content-Type": "application/json"} if data else {})}
    request = urllib.request.Request(req.full_url, data=data, headers=headers, method=req.method)
    try:
        with OPENER.open(request, timeout=5) as resp:
            return resp.status, resp.read(), dict(resp.headers.items())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), dict(exc.headers.items())


def failure(parse: Callable[..., Any], req: ApiRequest) -> AcademicAPIError:
    """The typed error the real parser raises for the server's answer to `req`."""
    with pytest.raises(AcademicAPIError) as caught:
        parse(*send(req))
    return caught.value


def s2_links(
    req: ApiRequest, anchor: str, direction: Literal["references", "citations"] = "references"
) -> tuple[list[PaperLink], int | None]:
    """A references/citations page of `anchor`, sent and parsed by the real parser."""
    status, body, headers = send(req)
    links: list[PaperLink]
    links, nxt = s2.parse_links_page(status, body, anchor, direction, headers)
    return links, nxt


@pytest.fixture
def world() -> AcademicWorld:
    return sample_world()


@pytest.fixture
def s2_server(world: AcademicWorld) -> Iterator[S2Server]:
    with S2Server(world, api_key="k-right") as server:
        yield server


@pytest.fixture
def oa_server(world: AcademicWorld) -> Iterator[OpenAlexServer]:
    with OpenAlexServer(world) as server:
        yield server


@pytest.fixture
def s2_api(s2_server: S2Server) -> AcademicAPISettings:
    return AcademicAPISettings(base_url=s2_server.base_url)


@pytest.fixture
def oa_api(oa_server: OpenAlexServer) -> AcademicAPISettings:
    return AcademicAPISettings(base_url=oa_server.base_url, mailto="lyra@example.org")


def keys(world: AcademicWorld, papers: list[Paper]) -> list[str]:
    return [world.key_of(p.s2_id or p.openalex_id) for p in papers]


def test_citations_are_the_inverse_of_references(world: AcademicWorld) -> None:
    assert [p.key for p in world.citations("cohort")] == ["trial", "retracted", "review"]
    assert [p.key for p in world.citations("preprint")] == ["review"]
    assert world.citations("review") == ()
    assert [p.key for p in world.references("pmid_only")] == ["trial", "retracted"]


BAD_PAPERS = [
    ({"s2_id": "ABC"}, "s2_id must be 40 lowercase hex"),
    ({"openalex_id": "123"}, "openalex_id must be W"),
    ({"pmcid": "PMCx1"}, "pmcid must be PMC"),
    ({"pmid": "pm1"}, "pmid must be digits"),
    ({"references": ["a", "a"]}, "repeat a key"),
    ({"references": ["x"]}, "cite the paper itself"),
    ({"references": ["a"], "influential": ["b"]}, r"influential names keys .*\['b'\]"),
    ({"intents": {"b": ["methodology"]}}, "intents names keys"),
]


@pytest.mark.parametrize(("kwargs", "message"), BAD_PAPERS)
def test_fake_paper_rejects_what_no_api_could_send(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        FakePaper(key="x", title="T", **kwargs)


def test_world_rejects_unknown_references_and_duplicate_keys() -> None:
    with pytest.raises(ValueError, match=r"'a' references unknown keys \['zz'\]"):
        AcademicWorld([FakePaper(key="a", title="A", references=["zz"])])
    with pytest.raises(ValueError, match="keys must be unique"):
        AcademicWorld([FakePaper(key="a", title="A"), FakePaper(key="a", title="B")])


def test_s2_search_pages_by_offset_until_next_is_absent(
    s2_server: S2Server, s2_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    found: list[str] = []
    offset: int | None = 0
    totals = []
    while offset is not None:
        req = s2.build_search(s2_api, "coffee and cardiovascular", offset=offset, limit=2)
        papers, offset, total = s2.parse_search_page(*send(req))
        found += keys(world, papers)
        totals.append(total)
    assert found == COFFEE_ORDER
    assert totals == [5, 5, 5]
    offsets = [p.split("&offset=")[1].split("&")[0] for p in s2_server.paths()]
    assert offsets == ["0", "2", "4"]


def test_s2_search_answers_only_the_requested_fields(
    s2_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    status, body, _ = send(s2.build_search(s2_api, "caffeine blood pressure", fields=("title",)))
    pmid_only = world["pmid_only"]
    assert status == 200
    assert json.loads(body) == {
        "total": 1,
        "offset": 0,
        "data": [{"paperId": pmid_only.s2_id, "title": pmid_only.title}],
    }


def test_s2_empty_search_leaves_data_out(s2_api: AcademicAPISettings) -> None:
    status, body, headers = send(s2.build_search(s2_api, "zebrafish telomeres"))
    assert json.loads(body) == {"total": 0, "offset": 0}
    assert s2.parse_search_page(status, body, headers) == ([], None, 0)


def test_s2_paper_has_the_real_external_ids_shape(
    s2_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    cohort = world["cohort"]
    status, body, headers = send(s2.build_paper(s2_api, cohort.s2_id))
    raw = json.loads(body)
    assert raw["externalIds"] == {
        "DOI": "10.5555/COHORT.2012.001",
        "PubMed": "22000001",
        "PubMedCentral": "3000001",
        "CorpusId": cohort.corpus_id,
    }
    paper = s2.parse_single(status, body, headers)
    assert paper.title == cohort.title
    assert paper.doi == "10.5555/cohort.2012.001"
    assert (paper.pmid, paper.pmcid, paper.corpus_id) == (
        "22000001",
        "PMC3000001",
        cohort.corpus_id,
    )
    assert paper.authors == ("Ana Duarte", "Kenji Sato")
    assert paper.oa_pdf_url == "https://repository.example.org/cohort.pdf"
    assert (paper.year, paper.venue, paper.citation_count) == (2012, "Journal of Cohort Studies", 3)
    assert paper.url == f"https://www.semanticscholar.org/paper/{cohort.s2_id}"
    assert paper.is_retracted is None  # S2 has no retraction flag
    assert paper.raw_ids["s2:DOI"] == "10.5555/COHORT.2012.001"


S2_IDS: list[tuple[Callable[[AcademicWorld], str], str]] = [
    (lambda w: w["pmid_only"].s2_id, "pmid_only"),
    (lambda w: s2.paper_id("DOI", "https://doi.org/10.5555/Cohort.2012.001"), "cohort"),
    (lambda w: s2.paper_id("PMID", "pmid:25000002"), "trial"),
    (lambda w: s2.paper_id("PMCID", "PMC3000001"), "cohort"),
    (lambda w: s2.paper_id("ARXIV", "1901.01234"), "preprint"),
    (lambda w: s2.paper_id("CorpusId", w["retracted"].corpus_id), "retracted"),
    (lambda w: "10.5555/trial.2015.002", "trial"),  # S2 also routes a bare DOI
]


@pytest.mark.parametrize(("make_id", "key"), S2_IDS)
def test_s2_paper_by_every_id_kind(
    make_id: Callable[[AcademicWorld], str],
    key: str,
    s2_api: AcademicAPISettings,
    world: AcademicWorld,
) -> None:
    paper = s2.parse_single(*send(s2.build_paper(s2_api, make_id(world))))
    assert (paper.s2_id, paper.title) == (world[key].s2_id, world[key].title)


def test_s2_arxiv_and_pmid_only_papers(s2_api: AcademicAPISettings) -> None:
    preprint = s2.parse_single(*send(s2.build_paper(s2_api, "ARXIV:1901.01234")))
    assert (preprint.arxiv, preprint.doi, preprint.venue) == ("1901.01234", None, "arXiv.org")
    pmid_only = s2.parse_single(*send(s2.build_paper(s2_api, "PMID:28000004")))
    assert (pmid_only.pmid, pmid_only.doi, pmid_only.pmcid) == ("28000004", None, None)


def test_s2_unknown_id_is_not_found(s2_api: AcademicAPISettings) -> None:
    error = failure(s2.parse_single, s2.build_paper(s2_api, "DOI:10.5555/none"))
    assert error.not_found
    assert error.retryable is False
    assert error.message == (
        "semantic_scholar answered HTTP 404: Paper with id DOI:10.5555/none not found"
    )


def test_s2_unknown_field_is_a_400_on_fields(
    s2_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    req = s2.build_paper(s2_api, world["trial"].s2_id, fields=("title", "unknown"))
    error = failure(s2.parse_single, req)
    assert (error.status, error.field) == (400, "fields")
    assert "Unrecognized or unsupported fields: [unknown]" in error.message


def test_s2_batch_answers_null_for_unknown_ids(
    s2_server: S2Server, s2_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    ids = [
        s2.paper_id("DOI", "10.5555/trial.2015.002"),
        "DOI:10.5555/none",
        world["pmid_only"].s2_id,
        s2.paper_id("CorpusId", world["review"].corpus_id),
    ]
    papers = s2.parse_batch(*send(s2.build_batch(s2_api, ids)))
    assert [p.title if p else None for p in papers] == [
        world["trial"].title,
        None,
        world["pmid_only"].title,
        world["review"].title,
    ]
    assert papers[3] is not None
    assert papers[3].abstract is None  # the review's abstract is withheld from S2
    assert json.loads(s2_server.requests[0].body) == {"ids": ids}


def test_s2_batch_over_500_ids_is_refused(s2_api: AcademicAPISettings) -> None:
    req = ApiRequest(
        "POST", f"{s2_api.base_url}/graph/v1/paper/batch", (), {"ids": ["x"] * 501}, {}
    )
    error = failure(s2.parse_batch, req)
    assert error.status == 400
    assert "Too many ids: 501" in error.message


def test_s2_references_keep_order_influence_and_unresolved(
    s2_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    review = world["review"]
    links, nxt = s2_links(s2.build_links(s2_api, review.s2_id, "references"), review.s2_id)
    assert nxt is None
    assert [world.key_of(link.cited_id) for link in links] == list(review.references)
    assert {link.citing_id for link in links} == {review.s2_id}
    assert [link.is_influential for link in links] == [True, True, False, False, False]
    assert links[0].intents == ("background",)
    assert links[0].contexts == (
        f"Earlier work reported related results ({world['cohort'].title}).",
    )
    assert links[4].paper is not None
    assert links[4].paper.arxiv == "1901.01234"


def test_s2_reference_pages_and_an_unresolved_reference(
    s2_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    preprint = world["preprint"]
    first = s2.build_links(s2_api, "ARXIV:1901.01234", "references", limit=2)
    page1, nxt = s2_links(first, preprint.s2_id)
    assert nxt == 2
    second = s2.build_links(s2_api, "ARXIV:1901.01234", "references", offset=2, limit=2)
    page2, last = s2_links(second, preprint.s2_id)
    assert last is None
    assert [world.key_of(link.cited_id) for link in page1] == ["trial", "retracted"]
    assert [link.is_influential for link in page1] == [True, False]
    assert world.key_of(page2[0].cited_id) == "pmid_only"
    unresolved = page2[1]
    assert unresolved.cited_id is None
    assert unresolved.paper is not None
    assert unresolved.paper.title == "Proceedings abstract on coffee and arrhythmia"
    assert unresolved.is_influential is False


def test_s2_citations_put_the_far_paper_on_the_citing_side(
    s2_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    cohort = world["cohort"]
    req = s2.build_links(s2_api, cohort.s2_id, "citations")
    links, nxt = s2_links(req, cohort.s2_id, "citations")
    assert nxt is None
    assert [world.key_of(link.citing_id) for link in links] == ["trial", "retracted", "review"]
    assert {link.cited_id for link in links} == {cohort.s2_id}
    assert [link.is_influential for link in links] == [True, False, True]
    assert links[0].intents == ("methodology",)
    assert links[0].contexts == ("We sampled participants as in the cohort study [1].",)


def test_s2_link_fields_follow_the_request(
    s2_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    trial = world["trial"]
    req = s2.build_links(s2_api, trial.s2_id, "references", fields=("isInfluential", "year"))
    assert json.loads(send(req)[1]) == {
        "offset": 0,
        "data": [
            {"isInfluential": True, "citedPaper": {"paperId": world["cohort"].s2_id, "year": 2012}}
        ],
    }


def test_s2_api_key_is_checked_only_when_sent(
    s2_server: S2Server, s2_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    trial_id = world["trial"].s2_id
    right = AcademicAPISettings(base_url=s2_server.base_url, api_key="k-right")
    wrong = AcademicAPISettings(base_url=s2_server.base_url, api_key="k-wrong")
    assert s2.parse_single(*send(s2.build_paper(right, trial_id))).s2_id == trial_id
    assert s2.parse_single(*send(s2.build_paper(s2_api, trial_id))).s2_id == trial_id
    error = failure(s2.parse_single, s2.build_paper(wrong, trial_id))
    assert (error.code, error.field) == ("AUTH_REQUIRED", "academic.semantic_scholar.api_key")
    assert [h.headers.get("x-api-key") for h in s2_server.requests] == ["k-right", None, "k-wrong"]


def test_s2_injected_429_is_retryable_after_retry_after(
    s2_server: S2Server, s2_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    s2_server.fail_next(429, retry_after="7")
    req = s2.build_paper(s2_api, world["trial"].s2_id)
    error = failure(s2.parse_single, req)
    assert (error.status, error.retryable, error.retry_after) == (429, True, 7.0)
    assert "Too Many Requests" in error.message
    assert s2.parse_single(*send(req)).title == world["trial"].title


def test_injected_500s_last_count_requests(
    s2_server: S2Server, s2_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    s2_server.fail_next(500, count=2)
    req = s2.build_paper(s2_api, world["trial"].s2_id)
    statuses = [send(req)[0] for _ in range(3)]
    assert statuses == [500, 500, 200]
    s2_server.fail_next(503)
    error = failure(s2.parse_single, req)
    assert (error.status, error.retryable, error.retry_after) == (503, True, None)
    s2_server.fail_next(502, body="<html><h1>502 Bad Gateway</h1></html>")
    status, body, headers = send(req)
    assert (status, body, headers["Content-Type"]) == (
        502,
        b"<html><h1>502 Bad Gateway</h1></html>",
        "text/html",
    )


def test_robots_txt_is_404_and_kept_apart(s2_server: S2Server, s2_api: AcademicAPISettings) -> None:
    s2_server.fail_next(429)
    status, _, _ = send(ApiRequest("GET", f"{s2_server.origin}/robots.txt", (), None, {}))
    assert status == 404
    assert [h.path for h in s2_server.robots_requests] == ["/robots.txt"]
    assert s2_server.requests == []
    assert send(s2.build_search(s2_api, "coffee"))[0] == 429  # the failure was still pending


def test_requests_carry_server_arrival_times(
    s2_server: S2Server, s2_api: AcademicAPISettings
) -> None:
    req = s2.build_search(s2_api, "coffee")
    send(req)
    with pytest.raises(ValueError, match="min_gap needs two requests, the server saw 1"):
        s2_server.min_gap()
    send(req)
    send(req)
    times = [h.at for h in s2_server.requests]
    assert s2_server.min_gap() == min(times[1] - times[0], times[2] - times[1])
    assert times == sorted(times)
    assert s2_server.requests[0].path == req.full_url.removeprefix(s2_server.origin)
    assert s2_server.requests[0].method == "GET"


def test_openalex_work_rebuilds_abstract_and_references(
    oa_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    review = world["review"]
    paper = oa.parse_single(*send(oa.build_work(oa_api, review.openalex_id)))
    assert paper.abstract == review.abstract
    assert paper.referenced_works == tuple(world[k].openalex_id for k in review.references)
    assert (paper.doi, paper.pmid, paper.is_retracted) == (
        "10.5555/review.2021.006",
        "33000006",
        False,
    )
    assert paper.authors == ("Sofia Lind", "Ana Duarte")
    assert (paper.venue, paper.year, paper.citation_count) == ("Cardiology Reviews", 2021, 0)
    assert [link.cited_id for link in oa.reference_links(paper)] == list(paper.referenced_works)


def test_openalex_work_object_shape(
    oa_server: OpenAlexServer, oa_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    cohort = world["cohort"]
    _, body, _ = send(oa.build_work(oa_api, f"https://openalex.org/{cohort.openalex_id}"))
    raw = json.loads(body)
    assert raw["id"] == f"https://openalex.org/{cohort.openalex_id}"
    assert raw["doi"] == "https://doi.org/10.5555/cohort.2012.001"
    assert raw["ids"] == {
        "openalex": f"https://openalex.org/{cohort.openalex_id}",
        "doi": "https://doi.org/10.5555/cohort.2012.001",
        "pmid": "https://pubmed.ncbi.nlm.nih.gov/22000001",
        "pmcid": "https://www.ncbi.nlm.nih.gov/pmc/articles/3000001",
    }
    assert raw["abstract_inverted_index"]["coffee"] == [8]
    assert raw["cited_by_count"] == 3
    assert oa_server.requests[0].path == f"/works/{cohort.openalex_id}?mailto=lyra%40example.org"
    paper = oa.parse_work(raw)
    assert (paper.pmcid, paper.oa_pdf_url) == (
        "PMC3000001",
        "https://repository.example.org/cohort.pdf",
    )


OA_LOOKUPS: list[tuple[Callable[[AcademicAPISettings], ApiRequest], str]] = [
    (lambda api: oa.build_work_by_doi(api, "https://doi.org/10.5555/COHORT.2012.001"), "cohort"),
    (lambda api: oa.build_work_by_doi(api, "10.48550/arXiv.1901.01234"), "preprint"),
    (lambda api: oa.build_work_by_pmid(api, "28000004"), "pmid_only"),
    (
        lambda api: ApiRequest("GET", f"{api.base_url}/works/pmcid:PMC3000001", (), None, {}),
        "cohort",
    ),
    (
        lambda api: ApiRequest(
            "GET", f"{api.base_url}/works/https://doi.org/10.5555/trial.2015.002", (), None, {}
        ),
        "trial",
    ),
]


@pytest.mark.parametrize(("make_request", "key"), OA_LOOKUPS)
def test_openalex_work_by_external_id(
    make_request: Callable[[AcademicAPISettings], ApiRequest],
    key: str,
    oa_api: AcademicAPISettings,
    world: AcademicWorld,
) -> None:
    paper = oa.parse_single(*send(make_request(oa_api)))
    assert (paper.openalex_id, paper.title) == (world[key].openalex_id, world[key].title)


def test_openalex_arxiv_pmid_only_and_retracted(oa_api: AcademicAPISettings) -> None:
    preprint = oa.parse_single(*send(oa.build_work_by_doi(oa_api, "10.48550/arxiv.1901.01234")))
    assert (preprint.doi, preprint.arxiv) == ("10.48550/arxiv.1901.01234", "1901.01234")
    pmid_only = oa.parse_single(*send(oa.build_work_by_pmid(oa_api, 28000004)))
    assert (pmid_only.doi, pmid_only.url) == (None, "https://pubmed.ncbi.nlm.nih.gov/28000004")
    retracted = oa.parse_single(*send(oa.build_work_by_doi(oa_api, "10.5555/retracted.2016.003")))
    assert retracted.is_retracted is True


def test_openalex_unknown_work_is_not_found(oa_api: AcademicAPISettings) -> None:
    error = failure(oa.parse_single, oa.build_work(oa_api, "W1"))
    assert error.not_found
    assert error.message.startswith("openalex answered HTTP 404: 404 Not Found: The requested URL")


def test_openalex_search_pages_by_cursor_to_the_empty_page(
    oa_server: OpenAlexServer, oa_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    found: list[str] = []
    cursor: str | None = "*"
    counts = []
    while cursor is not None:
        req = oa.build_search(oa_api, "coffee and cardiovascular", per_page=2, cursor=cursor)
        papers, cursor, count = oa.parse_list_page(*send(req))
        found += keys(world, papers)
        counts.append((len(papers), count))
    assert found == COFFEE_ORDER
    # OpenAlex hands out a cursor after every non-empty page; only the empty one ends.
    assert counts == [(2, 5), (2, 5), (1, 5), (0, 5)]
    assert all("mailto=lyra%40example.org" in path for path in oa_server.paths())


def test_openalex_page_mode_has_no_next_cursor(oa_api: AcademicAPISettings) -> None:
    status, body, headers = send(oa.build_search(oa_api, "coffee", per_page=2, cursor=None))
    raw = json.loads(body)
    assert raw["meta"] == {
        "count": 5,
        "db_response_time_ms": 1,
        "page": 1,
        "per_page": 2,
        "groups_count": None,
    }
    assert [r["relevance_score"] for r in raw["results"]] == [1.0, 1.0]
    papers, cursor, count = oa.parse_list_page(status, body, headers)
    assert (len(papers), cursor, count) == (2, None, 5)


def test_openalex_cites_is_forward_snowballing(
    oa_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    cohort_id = world["cohort"].openalex_id
    papers, cursor, count = oa.parse_list_page(*send(oa.build_cites(oa_api, [cohort_id])))
    assert keys(world, papers) == ["trial", "retracted", "review"]
    assert count == 3
    assert cursor is not None
    done, end, _ = oa.parse_list_page(*send(oa.build_cites(oa_api, [cohort_id], cursor=cursor)))
    assert (done, end) == ([], None)
    links = oa.citing_links(papers, cohort_id)
    assert {link.cited_id for link in links} == {cohort_id}


def test_openalex_cited_by_is_backward_snowballing(
    oa_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    ids = [world["trial"].openalex_id, world["pmid_only"].openalex_id]
    papers, _, count = oa.parse_list_page(*send(oa.build_cited_by(oa_api, ids)))
    assert keys(world, papers) == ["cohort", "trial", "retracted"]
    assert count == 3


FILTERS: list[tuple[Callable[[AcademicWorld], str], list[str]]] = [
    (
        lambda w: f"openalex_id:{w['trial'].openalex_id}|{w['preprint'].openalex_id}",
        ["trial", "preprint"],
    ),
    (lambda w: f"openalex:https://openalex.org/{w['review'].openalex_id}", ["review"]),
    (
        lambda w: "doi:https://doi.org/10.5555/trial.2015.002|10.5555/REVIEW.2021.006",
        ["trial", "review"],
    ),
    (lambda w: "pmid:28000004|https://pubmed.ncbi.nlm.nih.gov/22000001", ["cohort", "pmid_only"]),
    (lambda w: "is_retracted:true", ["retracted"]),
    (
        lambda w: f"cites:{w['trial'].openalex_id},is-retracted:false",
        ["pmid_only", "preprint", "review"],
    ),
]


@pytest.mark.parametrize(("make_filter", "expected"), FILTERS)
def test_openalex_filters(
    make_filter: Callable[[AcademicWorld], str],
    expected: list[str],
    oa_api: AcademicAPISettings,
    world: AcademicWorld,
) -> None:
    papers, _, _ = oa.parse_list_page(*send(oa.build_filter(oa_api, make_filter(world))))
    assert keys(world, papers) == expected


def test_openalex_bad_filter_and_select_name_their_field(
    oa_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    error = failure(oa.parse_list_page, oa.build_filter(oa_api, "DOESNTEXIST:1"))
    assert (error.status, error.field) == (400, "filter")
    assert "DOESNTEXIST is not a valid field" in error.message
    req = oa.build_work(oa_api, world["trial"].openalex_id)
    req = req._replace(params=(*req.params, ("select", "DOESNTEXIST")))
    error = failure(oa.parse_single, req)
    assert (error.status, error.field) == (400, "select")


def test_openalex_select_keeps_only_named_fields(
    oa_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    req = oa.build_work(oa_api, world["trial"].openalex_id)
    _, body, _ = send(req._replace(params=(*req.params, ("select", "id,is_retracted"))))
    assert json.loads(body) == {
        "id": f"https://openalex.org/{world['trial'].openalex_id}",
        "is_retracted": False,
    }


def test_openalex_injected_429_is_retryable(
    oa_server: OpenAlexServer, oa_api: AcademicAPISettings
) -> None:
    oa_server.fail_next(429, retry_after="3")
    error = failure(oa.parse_list_page, oa.build_search(oa_api, "coffee"))
    assert (error.status, error.retryable, error.retry_after) == (429, True, 3.0)


def test_merged_views_fill_gaps_and_keep_the_retraction(
    s2_api: AcademicAPISettings, oa_api: AcademicAPISettings, world: AcademicWorld
) -> None:
    doi = "10.5555/retracted.2016.003"
    from_s2 = s2.parse_single(*send(s2.build_paper(s2_api, s2.paper_id("DOI", doi))))
    from_oa = oa.parse_single(*send(oa.build_work_by_doi(oa_api, doi)))
    merged = merge_papers(from_s2, from_oa)
    assert (from_s2.is_retracted, merged.is_retracted) == (None, True)
    assert (merged.s2_id, merged.openalex_id) == (
        world["retracted"].s2_id,
        world["retracted"].openalex_id,
    )
    review_s2 = s2.parse_single(*send(s2.build_paper(s2_api, world["review"].s2_id)))
    review_oa = oa.parse_single(*send(oa.build_work(oa_api, world["review"].openalex_id)))
    assert merge_papers(review_s2, review_oa).abstract == world["review"].abstract
    assert merge_papers(review_s2, review_oa).source_api == ("semantic_scholar", "openalex")


def test_a_paper_one_api_lacks() -> None:
    world = AcademicWorld(
        [
            FakePaper(key="old", title="An old report only OpenAlex indexes", in_s2=False),
            FakePaper(key="new", title="A new paper only S2 indexes", in_openalex=False),
            FakePaper(key="both", title="A paper citing both", references=["old", "new"]),
        ]
    )
    with S2Server(world) as s2_fake, OpenAlexServer(world) as oa_fake:
        s2_api = AcademicAPISettings(base_url=s2_fake.base_url)
        oa_api = AcademicAPISettings(base_url=oa_fake.base_url)
        assert failure(s2.parse_single, s2.build_paper(s2_api, world["old"].s2_id)).not_found
        assert failure(oa.parse_single, oa.build_work(oa_api, world["new"].openalex_id)).not_found
        both = world["both"]
        links, _ = s2_links(s2.build_links(s2_api, both.s2_id, "references"), both.s2_id)
        # S2 lists the reference it cannot resolve by title, with a null paperId.
        assert [(link.cited_id, link.paper.title if link.paper else None) for link in links] == [
            (None, "An old report only OpenAlex indexes"),
            (world["new"].s2_id, "A new paper only S2 indexes"),
        ]
        work = oa.parse_single(*send(oa.build_work(oa_api, both.openalex_id)))
        assert work.referenced_works == (world["old"].openalex_id,)


def test_an_empty_world_answers_empty_pages() -> None:
    with S2Server(AcademicWorld([])) as s2_fake, OpenAlexServer(AcademicWorld([])) as oa_fake:
        s2_api = AcademicAPISettings(base_url=s2_fake.base_url)
        oa_api = AcademicAPISettings(base_url=oa_fake.base_url)
        assert s2.parse_search_page(*send(s2.build_search(s2_api, "coffee"))) == ([], None, 0)
        assert oa.parse_list_page(*send(oa.build_search(oa_api, "coffee"))) == ([], None, 0)
