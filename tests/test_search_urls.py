"""`search(options.urls)` fetches through the per-domain fetch layer (loopback site),
archives the response as WARC and runs the rest of the pipeline on it."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from lyra.mcp_bridge.server import build_server
from lyra.storage.warc import verify
from tests.conftest import make_settings
from tests.conftest_web import FixtureServer, Route
from tests.test_search_engines import serp_page

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
                        "urls": [
                            server.url("/sleep.html"),
                            server.url("/private/secret.html"),
                            # No host: refused like any URL no fetcher takes, the
                            # search goes on (it used to fail the whole search).
                            "file:///etc/passwd",
                        ],
                        "wait_seconds": 110,
                    },
                },
            )
            assert res.is_error is False, res.content[0].text
            out = res.structured_content
            assert out["pages_fetched"] == 1
            assert any("robots_disallowed" in w for w in out["warnings"])
            assert "file:///etc/passwd: not fetched (target_refused:scheme)" in out["warnings"]
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


# A stray control character after a comment (lxml refused every later tree edit, and
# the whole search failed with its message).
CONTROL_PAGE = """<!doctype html><html><head><title>Decaf and sleep</title></head><body>
<article><h1>Decaffeinated coffee</h1><!-- ad slot -->\x01
<p>Decaffeinated coffee did not change total sleep time in a crossover trial of
48 healthy adults who drank two cups every evening for three weeks.</p>
<p>Participants reported no difference in how rested they felt between the weeks with
decaffeinated coffee and the weeks with hot water.</p>
</article></body></html>"""


async def _search_given(
    lyra_home: Path, server: FixtureServer, urls: list[str], **options: Any
) -> tuple[dict[str, Any], list[str]]:
    """One search of `urls` on `server` (robots.txt allows all) in a new task: its result
    and the URL of every page stored."""
    server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain")
    settings = make_settings(lyra_home, corpus=None, fetch={"default_qps": 5.0})
    async with Client(build_server(settings)) as client:
        task = await client.call_tool("create_task", {"query": "caffeine and sleep"})
        res = await client.call_tool(
            "search",
            {
                "task_id": task.structured_content["task_id"],
                "query": "Does caffeine shorten sleep?",
                "options": {"urls": urls, "wait_seconds": 110, **options},
            },
        )
        assert res.is_error is False, res.content[0].text
        rows = (
            await client.call_tool("query_graph", {"sql": "SELECT url FROM pages ORDER BY url"})
        ).structured_content["rows"]
    return res.structured_content, [row[0] for row in rows]


async def test_a_hostile_page_costs_only_itself(lyra_home: Path) -> None:
    """Random bytes sent as HTML are not ingested, a page with a control character is
    read, and a URL's #fragment names the page it is in: the search keeps the rest."""
    server = FixtureServer("127.0.0.1")
    try:
        server.route("/sleep.html", body=PAGE.encode())
        server.route("/control.html", body=CONTROL_PAGE.encode())
        server.route("/binary", body=random.Random(3).randbytes(200_000))
        urls = ["/binary", "/control.html", "/sleep.html#method", "/sleep.html"]
        out, pages = await _search_given(lyra_home, server, [server.url(u) for u in urls])
        assert (out["status"], out["pages_fetched"]) == ("partial", 2)
        assert (
            f"{server.url('/binary')}: not ingested (content type application/octet-stream)"
            in out["warnings"]
        )
        assert pages == [server.url("/control.html"), server.url("/sleep.html")]
        assert server.paths().count("/sleep.html") == 1
        texts = [c["text"] for c in out["claims_found"]]
        assert any(t.startswith("Decaffeinated coffee did not change total sleep") for t in texts)
        assert all("\x01" not in t for t in texts)
    finally:
        server.close()


async def test_dois_with_no_academic_api_say_they_were_not_looked_up(lyra_home: Path) -> None:
    server = FixtureServer("127.0.0.1")
    try:
        server.route("/sleep.html", body=PAGE.encode())
        dois = ["10.1000/xyz123", "10.1000/xyz124"]
        out, pages = await _search_given(
            lyra_home, server, [server.url("/sleep.html")], dois=dois, academic_apis=[]
        )
        assert pages == [server.url("/sleep.html")]
        assert (
            "dois: 2 not looked up (no academic API: options.academic_apis is empty)"
            in out["warnings"]
        )
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


_WORDS = [
    "caffeine",
    "sleep",
    "latency",
    "adenosine",
    "cortisol",
    "melatonin",
    "evening",
    "dose",
    "trial",
    "cohort",
    "adults",
    "insomnia",
    "wakefulness",
    "alertness",
    "tolerance",
    "metabolism",
    "clearance",
    "liver",
    "genotype",
    "coffee",
    "tea",
    "espresso",
    "decaf",
    "bedtime",
    "circadian",
    "rhythm",
    "shift",
    "workers",
    "students",
    "athletes",
    "elderly",
    "pregnancy",
    "heart",
    "rate",
    "anxiety",
    "jitter",
    "withdrawal",
    "headache",
    "nap",
    "duration",
    "efficiency",
    "rem",
    "deep",
    "stage",
    "polysomnography",
    "actigraphy",
    "diary",
    "survey",
    "placebo",
    "crossover",
    "blinded",
    "dosage",
]


def _page(title: str, seed: int) -> bytes:
    """An on-topic page whose wording differs from every other one (no near-duplicates)."""
    rng = random.Random(seed)
    paragraphs = "".join(
        f"<p>Caffeine and sleep: {' '.join(rng.sample(_WORDS, 24))}.</p>" for _ in range(3)
    )
    return (
        f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
        f"{paragraphs}</article></body></html>"
    ).encode()


def _serps(engine: FixtureServer) -> int:
    """Results pages the stand-in engine has served (robots.txt not counted)."""
    return sum(p.startswith("/html/") for p in engine.paths())


async def test_given_urls_are_all_kept_and_nothing_is_fetched_that_cannot_be_kept(
    lyra_home: Path,
) -> None:
    """Issue 13: the client's URLs count against max_pages first and are all kept; an
    engine fetches only into the room they leave, and is not asked when there is none."""
    site = FixtureServer("127.0.0.81")
    other = FixtureServer("127.0.0.82")
    engine = FixtureServer("127.0.0.83")
    try:
        for server in (site, other):
            server.route(
                "/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain"
            )
        given = []
        for i in range(25):
            site.route(f"/u{i}.html", body=_page(f"Caffeine study {i}", i))
            given.append(site.url(f"/u{i}.html"))
        results = []
        for j in range(10):
            other.route(f"/e{j}.html", body=_page(f"Sleep review {j}", 100 + j))
            results.append((f"Sleep review {j}", other.url(f"/e{j}.html"), "caffeine and sleep"))
        engine.route("/html/", body=serp_page(results, other.url("/ad.html")))
        settings = make_settings(
            lyra_home,
            corpus=None,
            fetch={"default_qps": 20.0},
            engines={
                "local": {"enabled": False},
                "duckduckgo": {"enabled": True, "base_url": engine.url("/html/"), "qps": 10.0},
            },
        )
        query = "Does caffeine affect sleep?"
        async with Client(build_server(settings)) as client:
            outs = []
            for max_pages in (30, 20):
                task = await client.call_tool(
                    "create_task", {"query": query, "config": {"budget": {"max_pages": 200}}}
                )
                serps_before = _serps(engine)
                res = await client.call_tool(
                    "search",
                    {
                        "task_id": task.structured_content["task_id"],
                        "query": query,
                        "options": {
                            "urls": given,
                            "engines": ["duckduckgo"],
                            "max_pages": max_pages,
                            "wait_seconds": 110,
                        },
                    },
                )
                assert res.is_error is False, res.content[0].text
                outs.append((res.structured_content, _serps(engine) - serps_before))
        page_hits = [p for p in other.paths() if p.startswith("/e")]
    finally:
        for server in (site, other, engine):
            server.close()
    (roomy, serps_roomy), (full, serps_full) = outs
    # max_pages 30: the 25 given URLs, then 5 of the engine's 10 results, fetched once each.
    assert roomy["pages_fetched"] == 30
    assert serps_roomy == 1
    assert sorted(set(page_hits)) == sorted(page_hits)
    assert len(page_hits) == 5
    # max_pages 20: all 25 given URLs are kept; no room is left, so the engine is not asked.
    assert full["pages_fetched"] == 25
    assert serps_full == 0
    assert "duckduckgo: not asked (the given urls fill max_pages)" in full["warnings"]


async def test_a_page_the_site_asks_to_wait_for_is_asked_again_after_the_wait(
    lyra_home: Path,
) -> None:
    """A 429 with Retry-After is answered by waiting, then asking once more: the page is
    kept, and the site saw the second ask no sooner than it said. A 503 with no
    Retry-After (an outage, not a pace) is not asked again."""
    server = FixtureServer("127.0.0.1")
    answers = [
        Route(status=429, body=b"slow down", headers={"Retry-After": "1"}),
        Route(body=PAGE.encode()),
    ]
    try:
        server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain")
        server.route("/busy.html", handler=lambda _record: answers.pop(0))
        server.route("/down.html", status=503, body=b"down", content_type="text/plain")
        settings = make_settings(lyra_home, corpus=None, fetch={"default_qps": 5.0})
        async with Client(build_server(settings)) as client:
            task = await client.call_tool("create_task", {"query": "caffeine and sleep"})
            res = await client.call_tool(
                "search",
                {
                    "task_id": task.structured_content["task_id"],
                    "query": "Does caffeine shorten sleep?",
                    "options": {
                        "urls": [server.url("/busy.html"), server.url("/down.html")],
                        "engines": [],
                        "wait_seconds": 110,
                    },
                },
            )
        assert res.is_error is False, res.content[0].text
        out = res.structured_content
        assert out["pages_fetched"] == 1
        assert f"{server.url('/down.html')}: not fetched (http_error:503)" in out["warnings"]
        assert [w for w in out["warnings"] if "busy.html" in w] == []
        busy = [r.at for r in server.requests if r.path == "/busy.html"]
        assert len(busy) == 2
        assert busy[1] - busy[0] >= 1.0
        assert server.paths().count("/down.html") == 1
    finally:
        server.close()
