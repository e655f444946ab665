"""Lyra's metrics on Ray's Prometheus endpoint (issue 13 item 6).

A search over a loopback site runs through the MCP tools; then Ray's metrics endpoint
(the node's `metrics_export_port`, what `get_status`'s `metrics.instance` names) is
scraped until each of Lyra's metrics is there, with the values this search implies.
Ray exports a worker's records every few seconds, so the scrape polls.
"""

from __future__ import annotations

import re
import time
import urllib.request
from pathlib import Path

import pytest
import ray
from mcp import Client

from lyra.mcp_bridge.server import build_server
from tests.conftest import METRICS_REPORT_MS, make_settings
from tests.conftest_web import FixtureServer

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

PAGE = """<!doctype html><html><head><title>Tea and sleep {i}</title></head><body><article>
<h1>Tea and sleep {i}</h1><p>In a crossover study of {n} adults, two cups of black tea in
the evening delayed sleep onset by about {m} minutes compared with water.</p>
</article></body></html>"""
WANTED = [
    "ray_lyra_search_progress",
    "ray_lyra_searches_running",
    "ray_lyra_inference_batch_size_bucket",
    "ray_lyra_inference_latency_seconds_bucket",
    "ray_lyra_inference_items_total",
    "ray_lyra_graph_rows_written_total",
    "ray_lyra_fetch_requests_total",
    "ray_lyra_fetch_queue_depth",
]


HOST = "127.0.0.213"  # a loopback site no other test uses: its fetcher is this test's
# Ray exports a worker's records every METRICS_REPORT_MS (the session's Ray, conftest);
# a wait of two and a half intervals sees at least two exports.
EXPORT_S = 2.5 * METRICS_REPORT_MS / 1000


def scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
        text: str = resp.read().decode()
    return text


def total(text: str, name: str, **labels: str) -> float:
    """Sum of the samples of `name` carrying `labels` (one series per worker process)."""
    values = [
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith(name + "{") and all(f'{k}="{v}"' in line for k, v in labels.items())
    ]
    return sum(values)


# Counters this test compares before and after its search.
SETTLING = [
    ("ray_lyra_graph_rows_written_total", {"table": "pages"}),
    ("ray_lyra_inference_items_total", {"kind": "embed"}),
]


def steady(port: int) -> str:
    """A scrape that the next export does not change: every earlier record is in it."""
    text = scrape(port)
    for _ in range(10):
        time.sleep(EXPORT_S)
        again = scrape(port)
        if all(total(again, n, **tags) == total(text, n, **tags) for n, tags in SETTLING):
            return again
        text = again
    raise AssertionError("Ray's metrics never settled")


async def test_search_metrics_reach_the_prometheus_endpoint(lyra_home: Path) -> None:
    port = ray._private.worker._global_node.metrics_export_port
    before = steady(port)
    site = FixtureServer(HOST)
    site.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain")
    for i in range(3):
        site.route(f"/t{i}.html", body=PAGE.format(i=i, n=40 + i, m=10 + i).encode())
    settings = make_settings(lyra_home, corpus=None, fetch={"default_qps": 10.0})
    try:
        async with Client(build_server(settings)) as client:
            task = await client.call_tool("create_task", {"query": "tea and sleep"})
            task_id = task.structured_content["task_id"]
            res = await client.call_tool(
                "search",
                {
                    "task_id": task_id,
                    "query": "Does evening tea delay sleep?",
                    "options": {
                        "urls": [site.url(f"/t{i}.html") for i in range(3)],
                        "engines": [],
                        "wait_seconds": 110,
                    },
                },
            )
            assert res.is_error is False, res.content[0].text
            search_id = res.structured_content["search_id"]
            fragments = await client.call_tool(
                "query_graph",
                {
                    "sql": "SELECT count(*) FROM fragments f JOIN pages p ON p.id = f.page_id "
                    f"WHERE p.domain = '{HOST}'"
                },
            )
            stored_fragments = fragments.structured_content["rows"][0][0]
    finally:
        site.close()
    progress = re.compile(
        rf'^ray_lyra_search_progress{{[^}}]*search_id="{search_id}"[^}}]*}} 1\.0$', re.M
    )

    def complete(text: str) -> bool:
        names = all(re.search(f"^{name}{{", text, re.M) for name in WANTED)
        return names and progress.search(text) is not None

    deadline = time.monotonic() + 90
    text = scrape(port)
    while not complete(text):
        assert time.monotonic() < deadline, [n for n in WANTED if f"{n}{{" not in text]
        time.sleep(2)
        text = scrape(port)
    # A gauge is read from the scrape that showed it: Ray's agent drops a gauge series
    # whose last export is more than two intervals old, which a loaded machine's late
    # export can cause for one scrape. Counters are cumulative and read once settled.
    assert total(text, "ray_lyra_search_progress", task_id=task_id, search_id=search_id) == 1.0
    text = steady(port)
    # robots.txt and the three pages, all answered 200.
    assert total(text, "ray_lyra_fetch_requests_total", domain=HOST, status_class="2xx") == 4.0
    assert total(text, "ray_lyra_fetch_queue_depth", domain=HOST) == 0.0
    written = total(text, "ray_lyra_graph_rows_written_total", table="pages") - total(
        before, "ray_lyra_graph_rows_written_total", table="pages"
    )
    assert written == 3.0
    embedded = total(text, "ray_lyra_inference_items_total", kind="embed") - total(
        before, "ray_lyra_inference_items_total", kind="embed"
    )
    # Every new fragment's text was embedded (and the claims and the query with them).
    assert stored_fragments == 6  # per page: the heading and the paragraph
    assert embedded >= stored_fragments
