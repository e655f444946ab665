"""Issue 3 acceptance, end to end over MCP: every real challenge page in
``../shared/realworld/challenges/`` served from its own loopback host is classified,
never becomes a fragment, and reaches the auth queue; a person clears one domain in
the browser, `resolve_auth` moves the browser's cookies into the HTTP client and
re-queues the URL, and the re-fetch carries those cookies and is ingested.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from lyra.mcp_bridge.server import build_server
from lyra.storage.warc import verify
from tests.conftest import make_settings
from tests.conftest_web import FixtureServer, RequestRecord, Route
from tests.test_challenge import CHALLENGES, EXPECTED

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

# Response headers worth replaying from the captured meta files (not framing ones).
REPLAYED = ("cf-mitigated", "server", "cf-ray", "www-authenticate")
PERSON_COOKIE = "cf_clearance=person-solved-it"
SOLVED_FILE = "embed-http-cache/cloudflare_challenge_kickstarter_403.html"
ARTICLE = b"""<!doctype html><html><head><title>Veggie burgers</title></head><body><article>
<h1>Plant-based veggie burgers</h1>
<p>Veggie burgers made from black beans and oats provide about twelve grams of protein
per patty, according to the nutrition label of the small craft producer.</p>
<p>The producer sells the veggie burgers frozen in packs of four through local shops.</p>
</article></body></html>"""
QUERY = "How much protein do black bean veggie burgers provide?"


def _captured(name: str) -> Route:
    path = CHALLENGES / name
    meta_path = path.with_name(path.name.removesuffix(".html") + ".meta.json")
    if not meta_path.is_file():
        return Route(status=200, body=path.read_bytes())
    meta: dict[str, Any] = json.loads(meta_path.read_text(encoding="utf-8"))
    headers = {k: ", ".join(v) for k, v in meta["headers"].items() if k.lower() in REPLAYED}
    ctype = ", ".join(meta["headers"].get("content-type", ["text/html; charset=utf-8"]))
    return Route(
        status=int(meta["status"]), body=path.read_bytes(), content_type=ctype, headers=headers
    )


class PersonSolvable:
    """The site behind SOLVED_FILE: a challenge until the person's cookie comes back."""

    def __init__(self, challenge: Route) -> None:
        self.challenge = challenge
        self.person_at_the_browser = False

    def __call__(self, record: RequestRecord) -> Route:
        if PERSON_COOKIE in record.headers.get("Cookie", ""):
            return Route(body=ARTICLE)
        if self.person_at_the_browser:
            # The person solves the challenge in the window Lyra opened: the site
            # answers with its clearance cookie (what Cloudflare does after a solve).
            cookie = f"{PERSON_COOKIE}; Path=/; Max-Age=3600"
            return Route(
                status=self.challenge.status,
                body=self.challenge.body,
                content_type=self.challenge.content_type,
                headers={**self.challenge.headers, "Set-Cookie": cookie},
            )
        return self.challenge


@pytest.fixture(scope="module")
def sites() -> Iterator[dict[str, FixtureServer]]:
    if not CHALLENGES.is_dir():
        pytest.skip(f"third-party challenge pages not present at {CHALLENGES}")
    servers: dict[str, FixtureServer] = {}
    try:
        for i, name in enumerate(sorted(EXPECTED)):
            server = FixtureServer(f"127.0.0.{40 + i}")
            route = _captured(name)
            if name == SOLVED_FILE:
                server.route("/page", handler=PersonSolvable(route))
            else:
                server.route("/page", route)
            servers[name] = server
        yield servers
    finally:
        for server in servers.values():
            server.close()


async def test_challenges_are_queued_never_ingested_and_a_person_clears_one(
    sites: dict[str, FixtureServer], lyra_home: Path
) -> None:
    settings = make_settings(
        lyra_home,
        corpus=None,
        fetch={"default_qps": 20.0, "escalate_to_headful": False, "network_retries": 0},
    )
    urls = {name: server.url("/page") for name, server in sites.items()}
    async with Client(build_server(settings)) as client:
        task = await client.call_tool("create_task", {"query": QUERY})
        task_id = task.structured_content["task_id"]
        res = await client.call_tool(
            "search",
            {
                "task_id": task_id,
                "query": QUERY,
                "options": {"urls": list(urls.values()), "wait_seconds": 110},
            },
        )
        assert res.is_error is False, res.content[0].text
        assert res.structured_content["pages_fetched"] == 0

        queue = await client.call_tool("get_auth_queue", {"task_id": task_id})
        items = {i["url"]: i for i in queue.structured_content["queue"]}
        expected_queue = {
            urls[name]: kind[0] for name, kind in EXPECTED.items() if kind is not None
        }
        assert {u: i["auth_type"] for u, i in items.items()} == expected_queue
        assert {i["priority"] for i in items.values()} == {"normal"}
        fragments = await client.call_tool(
            "query_graph",
            {"sql": "SELECT count(*) FROM fragments f JOIN pages p ON p.id = f.page_id"},
        )
        assert fragments.structured_content["rows"] == [[0]]

        # A person clears the Cloudflare challenge of one site in the window Lyra opens.
        solved_url = urls[SOLVED_FILE]
        solved_host = solved_url.split("/")[2].split(":")[0]
        handler = sites[SOLVED_FILE]._lookup("/page").handler  # type: ignore[union-attr]
        assert isinstance(handler, PersonSolvable)
        handler.person_at_the_browser = True
        shown = await client.call_tool(
            "notify_user",
            {
                "event": "auth_required",
                "payload": {
                    "message": "Please clear the check",
                    "auth_id": items[solved_url]["id"],
                },
            },
        )
        assert shown.is_error is False, shown.content[0].text
        assert shown.structured_content["opened_url"] == solved_url, shown.structured_content
        handler.person_at_the_browser = False

        resolved = await client.call_tool(
            "resolve_auth",
            {"target": "domain", "data": {"domain": solved_host, "status": "resolved"}},
        )
        assert resolved.is_error is False, resolved.content[0].text
        out = resolved.structured_content
        assert out["resolved_count"] == 1
        assert out["session_stored"] is True
        assert len(out["requeued_searches"]) == 1

        for _ in range(30):
            status = await client.call_tool("get_status", {"task_id": task_id, "wait_seconds": 5})
            searches = status.structured_content["searches"]
            if all(s["status"] != "running" for s in searches):
                break
            await asyncio.sleep(0.5)
        rows = await client.call_tool(
            "query_graph",
            {
                "sql": "SELECT p.url, count(f.id) FROM pages p "
                "JOIN fragments f ON f.page_id = p.id GROUP BY p.url"
            },
        )
        assert [r[0] for r in rows.structured_content["rows"]] == [solved_url]
        assert rows.structured_content["rows"][0][1] >= 1
        queue_after = await client.call_tool("get_auth_queue", {"task_id": task_id})
        assert solved_url not in {i["url"] for i in queue_after.structured_content["queue"]}
        assert queue_after.structured_content["total_pending"] == len(expected_queue) - 1

    last = [r for r in sites[SOLVED_FILE].requests if r.path == "/page"][-1]
    assert PERSON_COOKIE in last.headers.get("Cookie", "")
    # The 404 pages were fetched once each, never escalated, never queued.
    plain_pages = sorted(name for name, kind in EXPECTED.items() if kind is None)
    assert len(plain_pages) == 2
    assert {n: sites[n].paths() for n in plain_pages} == {
        n: ["/robots.txt", "/page"] for n in plain_pages
    }
    # Every exchange and every browser capture was archived and reads back clean.
    archives = sorted((lyra_home / "warc").rglob("*.warc.gz"))
    assert {p.name.split("-")[0] for p in archives} >= {"browser", "127.0.0.40"}
    assert {str(p): verify(p) for p in archives} == {str(p): [] for p in archives}
