"""`stop_task` (ARCHITECTURE §5: graceful or immediate; summary; resumable).

A graceful stop while a search is still asking a slow site starts no new fetch: the
search stores and judges the pages it had, the server sees no further request, and
the summary counts it among the searches stopped. `resumable` says whether the task's
budget still allows a later search.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from mcp import Client

from lyra.mcp_bridge.server import build_server
from tests.conftest import make_settings
from tests.conftest_web import FixtureServer
from tests.test_search_urls import PAGE

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

PAGES = 8


def _pages(server: FixtureServer) -> list[str]:
    return [p for p in server.paths() if p != "/robots.txt"]


async def test_a_graceful_stop_asks_no_further_page(lyra_home: Path) -> None:
    server = FixtureServer("127.0.0.1")
    try:
        server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain")
        for i in range(PAGES):
            server.route(f"/p{i}.html", body=PAGE.replace("sleep", f"sleep {i}").encode())
        # One request a second: the eight pages would take about nine seconds.
        settings = make_settings(lyra_home, corpus=None, fetch={"default_qps": 1.0})
        async with Client(build_server(settings)) as client:
            task = await client.call_tool("create_task", {"query": "caffeine and sleep"})
            task_id = task.structured_content["task_id"]
            searching = asyncio.create_task(
                client.call_tool(
                    "search",
                    {
                        "task_id": task_id,
                        "query": "Does caffeine shorten sleep?",
                        "options": {
                            "urls": [server.url(f"/p{i}.html") for i in range(PAGES)],
                            "wait_seconds": 60,
                        },
                    },
                )
            )
            # The search runs in this event loop: wait without blocking it.
            for _ in range(600):
                if len(_pages(server)) >= 2:
                    break
                await asyncio.sleep(0.05)
            assert len(_pages(server)) >= 2
            stopped = (
                await client.call_tool(
                    "stop_task", {"task_id": task_id, "reason": "enough", "mode": "graceful"}
                )
            ).structured_content
            asked = len(_pages(server))
            result = await searching
        assert (stopped["status"], stopped["searches_stopped"], stopped["resumable"]) == (
            "stopped",
            1,
            True,
        )
        assert result.is_error is False, result.content[0].text
        out = result.structured_content
        assert out["status"] == "cancelled"
        # At most the fetch in flight when the stop came was answered after it.
        assert len(_pages(server)) - asked <= 1
        assert len(_pages(server)) < PAGES, [(r.path, round(r.at, 2)) for r in server.requests]
        # Every page the site answered was kept and judged, none fetched for nothing.
        assert out["pages_fetched"] == len(_pages(server))
        assert any(
            c["text"].startswith("Caffeine taken within six hours of bedtime")
            for c in out["claims_found"]
        )
        assert (
            "task stopped before ranking: nothing more was fetched, and the "
            f"{len(_pages(server))} documents in hand were processed"
        ) in out["warnings"]
    finally:
        server.close()


async def test_a_task_whose_budget_is_spent_is_not_resumable(lyra_home: Path) -> None:
    server = FixtureServer("127.0.0.1")
    try:
        server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain")
        server.route("/sleep.html", body=PAGE.encode())
        settings = make_settings(lyra_home, corpus=None, fetch={"default_qps": 5.0})
        async with Client(build_server(settings)) as client:
            task = await client.call_tool(
                "create_task",
                {"query": "caffeine and sleep", "config": {"budget": {"max_pages": 1}}},
            )
            task_id = task.structured_content["task_id"]
            res = await client.call_tool(
                "search",
                {
                    "task_id": task_id,
                    "query": "Does caffeine shorten sleep?",
                    "options": {"urls": [server.url("/sleep.html")], "wait_seconds": 110},
                },
            )
            assert res.structured_content["pages_fetched"] == 1
            stopped = (await client.call_tool("stop_task", {"task_id": task_id})).structured_content
        assert (stopped["searches_stopped"], stopped["resumable"]) == (0, False)
    finally:
        server.close()
