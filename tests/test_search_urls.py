"""`search(options.urls)` fetches through the per-domain fetch layer (loopback site),
archives the response as WARC and runs the rest of the pipeline on it."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from lyra.mcp_bridge.server import build_server
from lyra.storage.warc import verify
from tests.conftest import make_settings
from tests.conftest_web import FixtureServer

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

PAGE = """<!doctype html><html><head><title>Caffeine and sleep</title></head><body>
<nav>Home | About | Contact</nav>
<article><h1>Caffeine and sleep</h1>
<p>Caffeine taken within six hours of bedtime shortens total sleep time by about one hour
in healthy adults, according to a controlled laboratory study of sleep.</p>
<p>Regular coffee drinkers develop a tolerance to the blood pressure effect of caffeine
within a few days, although the effect on sleep persists.</p>
</article><footer>All rights reserved.</footer></body></html>"""


async def test_search_fetches_given_urls_politely_and_archives_them(lyra_home: Path) -> None:
    server = FixtureServer("127.0.0.1")
    try:
        server.route(
            "/robots.txt", body=b"User-agent: *\nDisallow: /private\n", content_type="text/plain"
        )
        server.route("/sleep.html", body=PAGE.encode())
        server.route("/private/secret.html", body=PAGE.encode())
        settings = make_settings(lyra_home, corpus=None, fetch={"default_qps": 5.0})
        async with Client(build_server(settings)) as client:
            task = await client.call_tool("create_task", {"query": "caffeine and sleep"})
            task_id = task.structured_content["task_id"]
            res = await client.call_tool(
                "search",
                {
                    "task_id": task_id,
                    "query": "Does caffeine shorten sleep?",
                    "options": {
                        "urls": [server.url("/sleep.html"), server.url("/private/secret.html")],
                        "wait_seconds": 110,
                    },
                },
            )
            assert res.is_error is False, res.content[0].text
            out = res.structured_content
            assert out["pages_fetched"] == 1
            assert any("robots_disallowed" in w for w in out["warnings"])
            rows = (
                await client.call_tool(
                    "query_graph",
                    {
                        "sql": "SELECT url, domain, warc_path, http_status FROM pages "
                        f"WHERE url = '{server.url('/sleep.html')}'"
                    },
                )
            ).structured_content["rows"]
        assert server.paths().count("/private/secret.html") == 0
        assert server.paths().count("/sleep.html") == 1
        _url, domain, warc_path, status = rows[0]
        assert (domain, status) == ("127.0.0.1", 200)
        assert verify(Path(warc_path)) == []
        texts = [c["text"] for c in out["claims_found"]]
        assert any(t.startswith("Caffeine taken within six hours of bedtime") for t in texts)
    finally:
        server.close()


async def test_urls_and_named_engines_are_searched_together(lyra_home: Path) -> None:
    server = FixtureServer("127.0.0.1")
    try:
        server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain")
        server.route("/sleep.html", body=PAGE.encode())
        settings = make_settings(lyra_home, fetch={"default_qps": 5.0})
        async with Client(build_server(settings)) as client:
            task = await client.call_tool("create_task", {"query": "coffee"})
            res = await client.call_tool(
                "search",
                {
                    "task_id": task.structured_content["task_id"],
                    "query": "Does coffee affect blood pressure?",
                    "options": {
                        "urls": [server.url("/sleep.html")],
                        "engines": ["local"],
                        "max_pages": 30,
                        "wait_seconds": 110,
                    },
                },
            )
        assert res.is_error is False, res.content[0].text
        assert res.structured_content["pages_fetched"] == 16
    finally:
        server.close()
