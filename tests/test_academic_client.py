"""AcademicClient through the real fetch layer against loopback S2 / OpenAlex servers.

Bad input of issue 4: a 429 with Retry-After, 5xx answers, a truncated JSON body, an
unknown id, the same paper under different ids; and the API key stays out of the
archive.
"""

from __future__ import annotations

import gzip
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import ray

from lyra.actors.fetch_pool import FetcherPool
from lyra.config.settings import Settings
from lyra.jobs.academic import AcademicClient
from lyra.pipelines.discover.identifiers import Identifier
from lyra.pipelines.net.domains import registrable_domain
from tests.academic_servers import OpenAlexServer, S2Server, sample_world
from tests.conftest import make_settings

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

QPS = 20.0


@pytest.fixture
def servers() -> Iterator[tuple[S2Server, OpenAlexServer]]:
    world = sample_world()
    s2 = S2Server(world, "127.0.0.80", api_key="secret-test-key")
    openalex = OpenAlexServer(world, "127.0.0.81")
    yield s2, openalex
    s2.close()
    openalex.close()


def _settings(home: Path, s2: S2Server, openalex: OpenAlexServer, **over: Any) -> Settings:
    return make_settings(
        home,
        corpus=None,
        fetch={"backoff_base_seconds": 0.2, "backoff_max_seconds": 1.0},
        academic={
            "semantic_scholar": {"base_url": s2.base_url, "qps": QPS, "api_key": "secret-test-key"},
            "openalex": {"base_url": openalex.base_url, "qps": QPS},
        },
        **over,
    )


@pytest.fixture
async def pool(tmp_path: Path, servers: tuple[S2Server, OpenAlexServer]) -> AsyncIterator[Any]:
    settings = _settings(tmp_path, *servers)
    rates = {registrable_domain(s.base_url): QPS for s in servers}
    fetchers = FetcherPool(settings, api_qps=rates)
    yield settings, fetchers
    for handle in list(fetchers.live.values()):
        ray.kill(handle)


def _client(settings: Settings, fetchers: FetcherPool, apis: tuple[str, ...]) -> AcademicClient:
    async def fetch(url: str, **request: Any) -> dict[str, Any]:
        return dict(await fetchers.fetch(url, escalate=False, **request))

    return AcademicClient(settings, fetch, apis)


def _search_hits(server: S2Server | OpenAlexServer) -> list[Any]:
    return [h for h in server.requests if "search" in h.path]


async def test_a_429_with_retry_after_is_waited_out_and_the_search_answers(
    pool: tuple[Settings, FetcherPool], servers: tuple[S2Server, OpenAlexServer]
) -> None:
    settings, fetchers = pool
    s2, _ = servers
    s2.fail_next(429, retry_after="1")
    client = _client(settings, fetchers, ("semantic_scholar",))
    papers = await client.search("arterial stiffness")
    assert [p.title for p in papers] == [
        "A randomized trial of caffeinated coffee and arterial stiffness",
        "Coffee reverses arterial stiffening in hypertensive patients",
    ]
    hits = _search_hits(s2)
    assert len(hits) == 2
    assert hits[1].at - hits[0].at >= 1.0
    assert client.calls == {"semantic_scholar": 2}
    assert client.warnings == []


async def test_5xx_is_retried_with_backoff_then_reported_as_a_warning(
    pool: tuple[Settings, FetcherPool], servers: tuple[S2Server, OpenAlexServer]
) -> None:
    settings, fetchers = pool
    _, openalex = servers
    openalex.fail_next(502, count=1)
    client = _client(settings, fetchers, ("openalex",))
    assert [p.title for p in await client.search("arrhythmia proceedings")] == []
    assert len(_search_hits(openalex)) == 2  # the 502, then the answer (no match)
    openalex.fail_next(503, count=3)
    assert await client.search("coffee") == []
    assert len(_search_hits(openalex)) == 5
    assert client.warnings == [
        "openalex: openalex answered HTTP 503: 503 Service Unavailable: Server error"
    ]


async def test_a_truncated_json_body_is_a_warning_not_a_crash(
    pool: tuple[Settings, FetcherPool], servers: tuple[S2Server, OpenAlexServer]
) -> None:
    settings, fetchers = pool
    s2, _ = servers
    s2.fail_next(200, body='{"total": 2, "data": [{"paperId": "ab')
    client = _client(settings, fetchers, ("semantic_scholar",))
    assert await client.search("coffee") == []
    assert len(client.warnings) == 1
    assert client.warnings[0].startswith("semantic_scholar: unreadable answer (academic API sent")


async def test_lookup_merges_both_views_and_an_unknown_id_is_no_paper(
    pool: tuple[Settings, FetcherPool], servers: tuple[S2Server, OpenAlexServer]
) -> None:
    settings, fetchers = pool
    client = _client(settings, fetchers, ("semantic_scholar", "openalex"))
    by_doi = await client.lookup(Identifier("doi", "10.5555/retracted.2016.003"))
    assert by_doi is not None
    assert by_doi.is_retracted is True  # only OpenAlex says so
    assert by_doi.s2_id is not None
    assert by_doi.openalex_id is not None
    assert set(by_doi.source_api) == {"semantic_scholar", "openalex"}
    # The same paper under another id: same identity, same merged record.
    by_pmid = await client.lookup(Identifier("pmid", "25000002"))
    by_trial_doi = await client.lookup(Identifier("doi", "10.5555/trial.2015.002"))
    assert by_pmid is not None
    assert by_trial_doi is not None
    assert (by_pmid.doi, by_pmid.s2_id, by_pmid.openalex_id) == (
        by_trial_doi.doi,
        by_trial_doi.s2_id,
        by_trial_doi.openalex_id,
    )
    assert await client.lookup(Identifier("doi", "10.5555/no.such.paper")) is None
    assert client.warnings == []


async def test_the_api_key_is_sent_but_never_archived(
    pool: tuple[Settings, FetcherPool], servers: tuple[S2Server, OpenAlexServer]
) -> None:
    settings, fetchers = pool
    s2, _ = servers
    client = _client(settings, fetchers, ("semantic_scholar",))
    # Five papers mention coffee where S2 shows them (the sixth, on caffeine, does not).
    assert len(await client.search("coffee")) == 5
    assert [h.headers.get("x-api-key") for h in s2.requests] == ["secret-test-key"]
    archived = b"".join(
        gzip.decompress(p.read_bytes()) for p in (settings.home_dir / "warc").rglob("*.warc.gz")
    )
    assert b"/graph/v1/paper/search" in archived
    assert b"secret-test-key" not in archived
    assert b"x-api-key: [redacted]" in archived


async def test_an_api_outside_allowed_hosts_is_skipped_without_a_request(
    tmp_path: Path, servers: tuple[S2Server, OpenAlexServer]
) -> None:
    _, openalex = servers
    settings = make_settings(
        tmp_path,
        corpus=None,
        academic={"openalex": {"base_url": openalex.base_url, "qps": QPS}},
    )

    async def fetch(url: str, **request: Any) -> dict[str, Any]:
        raise AssertionError(f"no request expected, got {url}")

    client = AcademicClient(settings, fetch, ("semantic_scholar", "openalex"))
    assert client.apis == ("openalex",)
    assert client.warnings == [
        "semantic_scholar: not used (not_in_allowed_hosts: see network.allowed_hosts)"
    ]


async def test_missing_abstracts_are_filled_by_one_batch_request_per_api(
    pool: tuple[Settings, FetcherPool], servers: tuple[S2Server, OpenAlexServer]
) -> None:
    from lyra.pipelines.discover.papers import Paper

    settings, fetchers = pool
    s2, openalex = servers
    world = sample_world()
    review, cohort = world["review"], world["cohort"]
    client = _client(settings, fetchers, ("semantic_scholar", "openalex"))
    filled = await client.fill_abstracts(
        [
            # S2 withholds this abstract; OpenAlex has it.
            Paper(title=review.title, s2_id=review.s2_id, openalex_id=review.openalex_id),
            Paper(title=cohort.title, s2_id=cohort.s2_id),
            Paper(title="Already complete", abstract="Kept as it is."),
        ]
    )
    assert [p.abstract for p in filled] == [review.abstract, cohort.abstract, "Kept as it is."]
    assert [(h.method, h.path.split("?")[0]) for h in s2.requests] == [
        ("POST", "/graph/v1/paper/batch")
    ]
    assert len(openalex.requests) == 1
    assert f"openalex_id%3A{review.openalex_id}" in openalex.requests[0].path
    assert client.warnings == []


async def test_an_unreachable_api_costs_one_warning_not_one_per_request(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path,
        corpus=None,
        fetch={"backoff_base_seconds": 0.1, "backoff_max_seconds": 0.2},
        academic={"semantic_scholar": {"base_url": "http://127.0.0.82:9", "qps": QPS}},
    )
    fetchers = FetcherPool(settings, api_qps={"127.0.0.82": QPS})
    try:
        client = _client(settings, fetchers, ("semantic_scholar",))
        assert await client.search("coffee") == []
        assert await client.lookup(Identifier("doi", "10.5555/trial.2015.002")) is None
    finally:
        for handle in list(fetchers.live.values()):
            ray.kill(handle)
    assert client.warnings == [
        "semantic_scholar: semantic_scholar unreachable: network_error:ConnectionError"
    ]
    assert client.calls == {"semantic_scholar": 1}  # the one attempt, then no more
