"""Issue 4 acceptance, end to end over MCP: academic APIs, one paper per identity, citations.

With `engines.duckduckgo.base_url` and the two academic base URLs pointing at loopback
servers that answer in the engines' and APIs' own shapes (tests/academic_servers.py),
`search(..., options={engines: ["duckduckgo"]})` stores a paper reached both through a
SERP result's DOI and through the API search once, tracks its citations into pages
with `cites` edges, marks the retracted paper, and never calls an API faster than its
configured rate (the servers' own logs).
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from lyra.mcp_bridge.server import build_server
from tests.academic_servers import OpenAlexServer, S2Server, sample_world
from tests.conftest import make_settings
from tests.conftest_web import FixtureServer
from tests.test_search_engines import serp_page

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

QUERY = "randomized trial of caffeinated coffee and arterial stiffness"
API_QPS = 4.0
TRIAL_DOI = "10.5555/trial.2015.002"
RETRACTED_PAGE = "https://doi.org/10.5555/retracted.2016.003"
LANDING = f"""<html><head><title>Caffeinated coffee and arterial stiffness</title>
<meta name="citation_doi" content="{TRIAL_DOI}">
<meta name="citation_title" content="A randomized trial of caffeinated coffee and stiffness">
</head><body><article><h1>A randomized trial of caffeinated coffee and arterial stiffness</h1>
<p>In this randomized crossover trial, caffeinated coffee did not change arterial stiffness
in healthy volunteers after eight weeks of daily drinking.</p></article></body></html>"""


async def _sql(client: Client, sql: str) -> list[list[Any]]:
    res = await client.call_tool("query_graph", {"sql": sql})
    assert res.is_error is False, res.content[0].text
    rows: list[list[Any]] = res.structured_content["rows"]
    return rows


async def test_a_paper_met_by_serp_doi_and_api_search_is_stored_once_with_its_citations(
    lyra_home: Path,
) -> None:
    world = sample_world()
    s2 = S2Server(world, "127.0.0.70")
    openalex = OpenAlexServer(world, "127.0.0.71")
    engine = FixtureServer("127.0.0.72")
    site = FixtureServer("127.0.0.73")
    try:
        site.route("/coffee-trial.html", body=LANDING.encode())
        snippet = f"A crossover trial. doi:{TRIAL_DOI}."
        results = [("Coffee trial", site.url("/coffee-trial.html"), snippet)]
        engine.route("/html/", body=serp_page(results, site.url("/ad.html")))
        settings = make_settings(
            lyra_home,
            corpus=None,
            fetch={"default_qps": 20.0},
            engines={
                "local": {"enabled": False},
                "duckduckgo": {"enabled": True, "base_url": engine.url("/html/"), "qps": 10.0},
            },
            academic={
                "semantic_scholar": {"base_url": s2.base_url, "qps": API_QPS},
                "openalex": {
                    "base_url": openalex.base_url,
                    "qps": API_QPS,
                    "mailto": "lyra-tests@example.org",
                },
            },
        )
        async with Client(build_server(settings)) as client:
            task = await client.call_tool("create_task", {"query": QUERY})
            task_id = task.structured_content["task_id"]
            res = await client.call_tool(
                "search",
                {
                    "task_id": task_id,
                    "query": QUERY,
                    "options": {"engines": ["duckduckgo"], "max_pages": 20, "wait_seconds": 110},
                },
            )
            assert res.is_error is False, res.content[0].text
            out = res.structured_content
            papers = await _sql(client, f"SELECT id, page_id FROM papers WHERE doi = '{TRIAL_DOI}'")
            routes = await _sql(
                client,
                "SELECT s.route FROM paper_sightings s JOIN papers p ON p.id = s.paper_id "
                f"WHERE p.doi = '{TRIAL_DOI}' ORDER BY s.route",
            )
            trial_pages = await _sql(
                client,
                "SELECT id, doi, domain, trust_level, warc_path FROM pages "
                f"WHERE doi = '{TRIAL_DOI}'",
            )
            trial_fragments = await _sql(
                client,
                "SELECT f.text_content FROM fragments f JOIN pages p ON p.id = f.page_id "
                f"WHERE p.doi = '{TRIAL_DOI}' ORDER BY f.position",
            )
            cites = await _sql(
                client,
                "SELECT a.doi, b.doi FROM edges e JOIN pages a ON a.id = e.source_id "
                "JOIN pages b ON b.id = e.target_id WHERE e.relation = 'cites' "
                "AND e.task_id = '" + task_id + "' ORDER BY 1, 2",
            )
            retracted = await _sql(client, "SELECT doi FROM pages WHERE is_retracted ORDER BY 1")
            pmid_page = await _sql(
                client,
                "SELECT p.title, s.route FROM pages p JOIN papers x ON x.page_id = p.id "
                "JOIN paper_sightings s ON s.paper_id = x.id "
                "WHERE p.url = 'https://pubmed.ncbi.nlm.nih.gov/28000004/'",
            )
            landing_claims = await _sql(
                client,
                "SELECT count(*) FROM edges e JOIN fragments f ON f.id = e.source_id "
                "JOIN pages p ON p.id = f.page_id WHERE e.relation = 'origin' "
                f"AND p.url = '{site.url('/coffee-trial.html')}'",
            )
            cited_sources = await _sql(
                client,
                "SELECT s.engine, s.url FROM serp_items s JOIN searches q ON q.id = s.search_id "
                f"WHERE q.task_id = '{task_id}' AND s.engine = 'citation'",
            )
            status = await client.call_tool("get_status", {"task_id": task_id, "detail": "full"})
            assert status.is_error is False, status.content[0].text
            candidates = status.structured_content["reference_candidates"]
    finally:
        for server in (s2, openalex, engine, site):
            server.close()

    # Stored once: one index row, one page at the DOI resolver, reached by both routes.
    assert len(papers) == 1
    assert routes == [
        ["api_search:openalex"],
        ["api_search:semantic_scholar"],
        ["page"],
        ["serp"],
    ]
    assert len(trial_pages) == 1
    assert trial_pages[0][1:4] == [TRIAL_DOI, "doi.org", "ACADEMIC"]
    # Its provenance is the API answer it shows, archived like any fetched body.
    archived = gzip.decompress(Path(trial_pages[0][4]).read_bytes())
    assert TRIAL_DOI.encode() in archived
    assert b"arterial" in archived
    assert papers[0][1] == trial_pages[0][0]
    assert trial_fragments == [
        ["A randomized trial of caffeinated coffee and arterial stiffness"],
        [
            "In a randomized crossover trial of 120 volunteers, caffeinated coffee did not "
            "change arterial stiffness after eight weeks."
        ],
    ]
    # Citation tracking: the trial cites the cohort; the retracted study and the review
    # cite the trial (each pair seen from both of its ends is one edge).
    assert ["10.5555/trial.2015.002", "10.5555/cohort.2012.001"] in cites
    assert ["10.5555/review.2021.006", "10.5555/trial.2015.002"] in cites
    assert ["10.5555/retracted.2016.003", "10.5555/trial.2015.002"] in cites
    assert retracted == [["10.5555/retracted.2016.003"]]
    claims = status.structured_content["claims"]
    from_retracted = [c for c in claims if c["source_url"] == RETRACTED_PAGE]
    assert len(from_retracted) >= 1
    assert {c["source_retracted"] for c in from_retracted} == {True}
    assert {c["source_retracted"] for c in claims if c["source_url"] != RETRACTED_PAGE} == {False}
    cohort = [
        c
        for c in candidates
        if c["doi"] == "10.5555/cohort.2012.001" and c["anchor_title"] == world["trial"].title
    ]
    assert len(cohort) == 1
    assert (cohort[0]["direction"], cohort[0]["is_influential"], cohort[0]["kept"]) == (
        "references",
        True,
        True,
    )
    assert out["metrics"]["cites_edges"] == len(cites)
    # Citation relevance without an LLM is a fallback, named where every fallback is.
    assert "degraded: citation relevance: embedding only (no LLM)" in out["warnings"]
    assert "citation relevance: embedding only (no LLM)" in out["_lyra_meta"]["degraded"]
    # A paper no query matched came in only through citation tracking, as a page of its own.
    assert out["metrics"]["citation_pages"] == 1
    assert pmid_page == [["Caffeine intake and blood pressure in older adults", "citation"]]
    # It is one of the search's sources, so the task's stance step reads its fragments.
    assert cited_sources == [["citation", "https://pubmed.ncbi.nlm.nih.gov/28000004/"]]
    # The result page of the SERP was fetched, extracted and drew claims.
    assert landing_claims[0][0] >= 1
    assert "/ad.html" not in site.paths()
    # Politeness on the APIs' own clocks, robots.txt never asked of an API.
    assert s2.min_gap() >= 1 / API_QPS - 0.01
    assert openalex.min_gap() >= 1 / API_QPS - 0.01
    assert s2.robots_requests == []
    assert openalex.robots_requests == []
    assert all("mailto=lyra-tests%40example.org" in hit.path for hit in openalex.requests)
    assert out["metrics"]["api_calls"] == {
        "semantic_scholar": len(s2.requests),
        "openalex": len(openalex.requests),
    }
