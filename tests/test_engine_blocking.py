"""Issue 4, engine health end to end over MCP: a CAPTCHA SERP is a health event and an
auth-queue item, never results; two in a row open the engine's circuit, and a search
with nothing else to use then fails with ALL_ENGINES_BLOCKED.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from lyra.mcp_bridge.server import build_server
from tests.conftest import make_settings
from tests.conftest_web import FixtureServer

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

CAPTCHA = b"""<html><head><title>Are you a robot?</title>
<script src="https://www.google.com/recaptcha/api.js" async defer></script></head>
<body><form method="post"><p>Please verify you are human to continue.</p>
<div class="g-recaptcha" data-sitekey="6Lc-test"></div></form></body></html>"""


async def test_captcha_serps_count_against_the_engine_until_all_engines_are_blocked(
    lyra_home: Path,
) -> None:
    engine = FixtureServer("127.0.0.74")
    try:
        engine.route("/html/", body=CAPTCHA)
        settings = make_settings(
            lyra_home,
            corpus=None,
            fetch={"default_qps": 20.0},
            engines={
                "local": {"enabled": False},
                "duckduckgo": {"enabled": True, "base_url": engine.url("/html/"), "qps": 10.0},
            },
        )
        args = {"engines": ["duckduckgo"], "academic_apis": [], "wait_seconds": 110}
        async with Client(build_server(settings)) as client:
            task = await client.call_tool("create_task", {"query": "tea and sleep"})
            task_id = task.structured_content["task_id"]
            first = await client.call_tool(
                "search", {"task_id": task_id, "query": "tea and sleep", "options": args}
            )
            health = await client.call_tool(
                "query_graph",
                {
                    "sql": "SELECT engine, success_ema_1h, captcha_ema, http_error_ema, "
                    "samples FROM engine_health"
                },
            )
            queue = await client.call_tool("get_auth_queue", {"task_id": task_id})
            second = await client.call_tool(
                "search", {"task_id": task_id, "query": "tea and sleep", "options": args}
            )
            third = await client.call_tool(
                "search", {"task_id": task_id, "query": "tea and sleep", "options": args}
            )
            serp_rows = await client.call_tool(
                "query_graph", {"sql": "SELECT count(*) FROM serp_items"}
            )
    finally:
        engine.close()

    assert first.is_error is False, first.content[0].text
    assert first.structured_content["pages_fetched"] == 0
    assert "duckduckgo: no results (challenge:captcha)" in first.structured_content["warnings"]
    assert health.structured_content["rows"] == [["duckduckgo", 0.0, 1.0, 0.0, 1]]
    items = queue.structured_content["queue"]
    assert [(i["domain"], i["auth_type"]) for i in items] == [("127.0.0.74", "captcha")]
    assert second.is_error is False, second.content[0].text
    # The second CAPTCHA opened the circuit: nothing named is usable any more.
    assert third.is_error is True
    error = json.loads(third.content[0].text)["error"]
    assert error["code"] == "ALL_ENGINES_BLOCKED"
    assert "duckduckgo: circuit_open" in error["message"]
    # Two SERP requests reached the engine; none was parsed as results.
    assert [r.path.split("?")[0] for r in engine.requests if r.path != "/robots.txt"] == [
        "/html/",
        "/html/",
    ]
    assert serp_rows.structured_content["rows"] == [[0]]
