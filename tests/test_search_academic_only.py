"""A literature search with no engine at all: `engines: []` with academic APIs only.

Issue 13: `options.engines: []` used to fall back to the local corpus engine (and, with
no corpus configured, fail with PIPELINE_ERROR). An empty list names no engine: the
corpus is not read even when one is configured, only the named academic APIs are
asked, and an empty list with nothing else to read (no academic_apis, urls or dois) is
refused up front (decision 0020).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from lyra.mcp_bridge.server import build_server
from tests.academic_servers import OpenAlexServer, S2Server, sample_world
from tests.conftest import make_settings
from tests.test_search_academic import _sql

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

QUERY = "randomized trial of caffeinated coffee and arterial stiffness"
TRIAL_DOI = "10.5555/trial.2015.002"


async def test_no_engines_reads_the_academic_apis_only(lyra_home: Path) -> None:
    world = sample_world()
    s2 = S2Server(world, "127.0.0.76")
    openalex = OpenAlexServer(world, "127.0.0.77")
    try:
        # The demo corpus is configured (make_settings' default): it must not be read.
        settings = make_settings(
            lyra_home,
            fetch={"default_qps": 20.0},
            academic={
                "semantic_scholar": {"base_url": s2.base_url, "qps": 4.0},
                "openalex": {"base_url": openalex.base_url, "qps": 4.0, "mailto": "t@example.org"},
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
                    "options": {
                        "engines": [],
                        "academic_apis": ["semantic_scholar", "openalex"],
                        "max_pages": 20,
                        "wait_seconds": 110,
                    },
                },
            )
            assert res.is_error is False, res.content[0].text
            out = res.structured_content
            trial = await _sql(
                client,
                "SELECT s.route FROM paper_sightings s JOIN papers p ON p.id = s.paper_id "
                f"WHERE p.doi = '{TRIAL_DOI}' ORDER BY s.route",
            )
            corpus_pages = await _sql(
                client, "SELECT count(*) FROM pages WHERE url LIKE '%/corpus/%'"
            )
            refused = [
                await client.call_tool(
                    "search", {"task_id": task_id, "query": QUERY, "options": options}
                )
                for options in ({"engines": []}, {"engines": [], "academic_apis": []})
            ]
    finally:
        s2.close()
        openalex.close()

    # The six papers of the stand-in world, each a page at its resolver URL.
    assert (out["status"], out["pages_fetched"]) == ("satisfied", 6)
    assert out["metrics"]["api_calls"] == {
        "semantic_scholar": len(s2.requests),
        "openalex": len(openalex.requests),
    }
    assert len(s2.requests) >= 1
    assert len(openalex.requests) >= 1
    assert trial[:2] == [["api_search:openalex"], ["api_search:semantic_scholar"]]
    assert corpus_pages == [[0]]
    for answer in refused:
        assert answer.is_error is True
        error = json.loads(answer.content[0].text)["error"]
        assert error["code"] == "INVALID_PARAMS"
        assert error["message"] == (
            "invalid arguments (options: Value error, nothing to search: engines is empty and "
            "no academic_apis, urls or dois are given (name academic_apis for a search of the "
            "academic APIs only))"
        )
