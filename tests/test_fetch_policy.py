"""DomainFetcher policies on real loopback servers: conditional GET, cookies, circuit
breaker, Retry-After, challenge pages and persisted state (ARCHITECTURE §3 step 6).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import ray

from lyra.actors.fetch import DomainFetcher, http_date
from lyra.actors.fetch_pool import FetcherPool
from lyra.actors.graph import GraphActor
from lyra.actors.runtime import GRAPH
from lyra.config.settings import Settings
from lyra.pipelines.net.domains import home_rules_watcher
from lyra.storage.warc import verify
from tests.conftest import make_settings
from tests.conftest_web import (  # noqa: F401 - pytest fixtures used by parameter name
    FixtureServer,
    Route,
    fixture_server_factory_fixture,
    fixture_server_fixture,
)

pytestmark = pytest.mark.ray

PAGE = (
    b"<html><head><title>Tea</title></head><body><p>Green tea contains catechins.</p></body></html>"
)
CONSENT = (
    b"<html><head><title>Before you continue</title></head><body>"
    b'<form action="https://consent.google.com/save" method="POST">'
    b"<p>We use cookies and data to deliver and maintain Google services.</p>"
    b"<button>Reject all</button><button>Accept all</button></form></body></html>"
)


def policy_settings(home: Path, **fetch: Any) -> Settings:
    """Loopback settings with no browser escalation unless a test asks for it."""
    base = {"default_qps": 20.0, "escalate_to_browser": False, "network_retries": 0}
    return make_settings(home, corpus=None, fetch={**base, **fetch})


@pytest.fixture
def stack(ray_session: None) -> Iterator[Callable[[Settings], Any]]:
    """A named graph actor for the settings' namespace (the fetcher persists into it)."""
    made: list[Any] = []

    def start(settings: Settings) -> Any:
        graph = GraphActor.options(name=GRAPH, namespace=settings.ray.namespace).remote(settings)
        ray.get(graph.ping.remote())
        made.append(graph)
        return graph

    yield start
    for handle in made:
        ray.kill(handle)


def new_fetcher(domain: str, settings: Settings) -> Any:
    return DomainFetcher.options(namespace=settings.ray.namespace).remote(domain, settings)  # type: ignore[attr-defined]


def test_second_fetch_of_an_unchanged_page_is_conditional_and_stores_no_body(
    fixture_server: FixtureServer, stack: Callable[[Settings], Any], tmp_path: Path
) -> None:
    settings = policy_settings(tmp_path)
    stack(settings)
    etag = '"v1-tea"'
    modified = http_date(1_700_000_000)

    def answer(record: Any) -> Route:
        if record.headers.get("If-None-Match") == etag:
            return Route(status=304, body=b"", headers={"ETag": etag})
        return Route(body=PAGE, headers={"ETag": etag, "Last-Modified": modified})

    fixture_server.route("/tea", handler=answer)
    fetcher = new_fetcher("127.0.0.1", settings)
    try:
        first = ray.get(fetcher.fetch.remote(fixture_server.url("/tea")))
        second = ray.get(fetcher.fetch.remote(fixture_server.url("/tea")))
    finally:
        ray.kill(fetcher)

    page_requests = [r for r in fixture_server.requests if r.path == "/tea"]
    assert [r.headers.get("If-None-Match") for r in page_requests] == [None, etag]
    assert page_requests[1].headers.get("If-Modified-Since") == modified
    assert first["status"] == 200 and first["not_modified"] is False
    assert second["status"] == 304
    assert second["not_modified"] is True
    assert second["error"] is None
    assert second["body"] == PAGE
    assert second["stored_warc_path"] == first["warc_path"]
    assert second["stored_warc_offset"] == first["warc_offset"]
    # The 304 exchange is archived too, with an empty payload: no new body stored.
    assert verify(Path(second["warc_path"])) == []
    assert second["warc_offset"] > first["warc_offset"]


def test_cookies_set_by_the_site_are_sent_back(
    fixture_server: FixtureServer, stack: Callable[[Settings], Any], tmp_path: Path
) -> None:
    settings = policy_settings(tmp_path)
    stack(settings)
    fixture_server.route("/login", body=PAGE, headers={"Set-Cookie": "session=abc123; Path=/"})
    fixture_server.route("/next", body=PAGE)
    fetcher = new_fetcher("127.0.0.1", settings)
    try:
        ray.get(fetcher.fetch.remote(fixture_server.url("/login")))
        ray.get(fetcher.fetch.remote(fixture_server.url("/next")))
        jar = ray.get(fetcher.cookies.remote())
    finally:
        ray.kill(fetcher)
    sent = {r.path: r.headers.get("Cookie") for r in fixture_server.requests}
    assert sent["/login"] is None
    assert sent["/next"] == "session=abc123"
    assert [(c["name"], c["value"], c["domain"]) for c in jar] == [
        ("session", "abc123", "127.0.0.1")
    ]


def test_two_403s_open_the_circuit_and_a_half_open_probe_closes_it(
    fixture_server: FixtureServer, stack: Callable[[Settings], Any], tmp_path: Path
) -> None:
    settings = policy_settings(tmp_path, circuit_cooldown_seconds=1.5)
    graph = stack(settings)
    fixture_server.route("/a", status=403, body=b"<html><body>Forbidden</body></html>")
    fixture_server.route("/b", status=403, body=b"<html><body>Forbidden</body></html>")
    fixture_server.route("/c", body=PAGE)
    fetcher = new_fetcher("127.0.0.1", settings)
    try:
        first = ray.get(fetcher.fetch.remote(fixture_server.url("/a")))
        second = ray.get(fetcher.fetch.remote(fixture_server.url("/b")))
        refused = ray.get(fetcher.fetch.remote(fixture_server.url("/c")))
        assert [r.path for r in fixture_server.requests] == ["/robots.txt", "/a", "/b"]
        time.sleep(1.6)
        probe = ray.get(fetcher.fetch.remote(fixture_server.url("/c")))
        state = ray.get(fetcher.state.remote())
        # The fetcher sends its events without waiting, and the graph answers reads
        # beside its queued writes: wait for the three, with the fetcher still alive.
        moves = _circuit_moves(graph, 3)
    finally:
        ray.kill(fetcher)
    assert first["error"] == "http_error:403"
    assert second["error"] == "http_error:403"
    assert second["circuit_state"] == "open"
    assert refused["error"] == "circuit_open"
    assert refused["status"] is None
    assert 0.0 < refused["retry_after"] <= 1.5
    assert probe["error"] is None and probe["status"] == 200
    assert state["circuit_state"] == "closed"
    assert moves == [("closed", "open"), ("open", "half_open"), ("half_open", "closed")]


def _circuit_moves(graph: Any, count: int, timeout: float = 10.0) -> list[tuple[str, str]]:
    """The circuit transitions in event_log, polled until `count` are there (or the time
    is up: then what is there, for the assertion to show)."""
    deadline = time.monotonic() + timeout
    while True:
        events = ray.get(
            graph.query_graph.remote(
                # Ordered by the transition's own time: the graph actor may write two
                # events sent in one instant either way.
                "SELECT payload FROM event_log WHERE kind = 'circuit_transition' "
                "ORDER BY CAST(payload->>'at' AS DOUBLE)",
                None,
                {},
                50,
                2000,
                False,
            )
        )
        moves = [(r[0]["from"], r[0]["to"]) for r in events["rows"]]
        if len(moves) >= count or time.monotonic() > deadline:
            return moves
        time.sleep(0.05)


def test_retry_after_is_honoured_before_the_next_request(
    fixture_server: FixtureServer, stack: Callable[[Settings], Any], tmp_path: Path
) -> None:
    settings = policy_settings(tmp_path)
    stack(settings)
    fixture_server.route("/busy", status=429, body=b"slow down", headers={"Retry-After": "2"})
    fixture_server.route("/ok", body=PAGE)
    fetcher = new_fetcher("127.0.0.1", settings)
    try:
        limited = ray.get(fetcher.fetch.remote(fixture_server.url("/busy")))
        ok = ray.get(fetcher.fetch.remote(fixture_server.url("/ok")))
    finally:
        ray.kill(fetcher)
    assert limited["error"] == "rate_limited"
    assert limited["retry_after"] == pytest.approx(2.0, abs=0.05)
    assert [a["path"] for a in limited["attempts"]] == ["http"]
    assert ok["status"] == 200
    arrivals = {r.path: r.at for r in fixture_server.requests}
    assert arrivals["/ok"] - arrivals["/busy"] >= 2.0 - 0.05


def test_a_consent_wall_served_with_200_is_a_challenge_not_content(
    fixture_server: FixtureServer, stack: Callable[[Settings], Any], tmp_path: Path
) -> None:
    settings = policy_settings(tmp_path, escalate_to_browser=True)
    stack(settings)
    fixture_server.route("/article", body=CONSENT)
    fetcher = new_fetcher("127.0.0.1", settings)
    try:
        result = ray.get(fetcher.fetch.remote(fixture_server.url("/article")))
    finally:
        ray.kill(fetcher)
    assert result["status"] == 200
    assert result["error"] == "challenge:consent"
    assert result["challenge"]["needs_human"] is True
    # Only a person gets through a consent wall: no browser attempt is wasted on it.
    assert [a["path"] for a in result["attempts"]] == ["http"]


def test_state_survives_a_killed_fetcher(
    fixture_server: FixtureServer, stack: Callable[[Settings], Any], tmp_path: Path
) -> None:
    settings = policy_settings(tmp_path, default_qps=1.0)
    graph = stack(settings)
    etag = '"v7"'

    def answer(record: Any) -> Route:
        if record.headers.get("If-None-Match") == etag:
            return Route(status=304, body=b"", headers={"ETag": etag})
        return Route(body=PAGE, headers={"ETag": etag, "Set-Cookie": "sid=42; Path=/"})

    fixture_server.route("/doc", handler=answer)
    first = new_fetcher("127.0.0.1", settings)
    ray.get(first.fetch.remote(fixture_server.url("/doc")))
    ray.get(first.persist.remote())
    ray.kill(first, no_restart=True)
    second = new_fetcher("127.0.0.1", settings)
    try:
        again = ray.get(second.fetch.remote(fixture_server.url("/doc")))
    finally:
        ray.kill(second)
    doc = [r for r in fixture_server.requests if r.path == "/doc"]
    assert len(doc) == 2
    # No second robots.txt request: the policy came back from the domains table.
    assert [r.path for r in fixture_server.requests] == ["/robots.txt", "/doc", "/doc"]
    assert doc[1].headers.get("If-None-Match") == etag
    assert doc[1].headers.get("Cookie") == "sid=42"
    assert again["not_modified"] is True and again["body"] == PAGE
    # A new actor still keeps the site's 1 request/s (politeness clock).
    assert doc[1].at - doc[0].at >= 1.0 - 0.05
    stored = ray.get(graph.load_domain_state.remote("127.0.0.1"))
    assert stored["cookies"][0]["value"] == "42"


def test_a_fetcher_restarting_mid_request_keeps_its_requests_and_the_sites_rate(
    fixture_server: FixtureServer, stack: Callable[[Settings], Any], tmp_path: Path
) -> None:
    """A fetcher killed with a restart left (`ray.kill(no_restart=False)`, as a lost
    process): the requests it held are asked again of the same fetcher once it is back
    (the pool's handle is its creator's: a new handle by name would not keep it alive),
    at the rate domains.yaml set after it was made, which its restart forgot; killed
    again while idle, its next request tells it that rate too."""
    settings = policy_settings(tmp_path, default_qps=20.0, standby_workers=0)
    stack(settings)
    for i in range(9):
        fixture_server.route(f"/p{i}", body=PAGE)

    async def scenario() -> tuple[Any, Any, list[Any], list[Any]]:
        pool = FetcherPool(settings, rules=home_rules_watcher(tmp_path))
        await pool.fetch(fixture_server.url("/p0"))  # the fetcher is made at 20 requests/s
        made = pool.live["127.0.0.1"]._actor_id  # not a handle: the pool's alone keeps it
        (tmp_path / "domains.yaml").write_text("qps:\n  127.0.0.1: 4\n")
        urls = [fixture_server.url(f"/p{i}") for i in (1, 2, 3, 4, 5)]
        waiting = [asyncio.create_task(pool.fetch(url)) for url in urls]
        deadline = time.monotonic() + 60
        while "/p2" not in fixture_server.paths():  # at 4 requests/s, three still wait
            assert time.monotonic() < deadline, "the second page was never asked"
            await asyncio.sleep(0.01)
        ray.kill(pool.live["127.0.0.1"], no_restart=False)
        results = await asyncio.gather(*waiting)
        await asyncio.sleep(1.0)  # the failed calls' handles are gone by now
        ray.kill(pool.live["127.0.0.1"], no_restart=False)  # idle: no call meets it
        await asyncio.sleep(1.0)
        later = [await pool.fetch(fixture_server.url(f"/p{i}")) for i in (6, 7, 8)]
        return made, pool.live["127.0.0.1"], results, later

    made, live, results, later = asyncio.run(scenario())
    try:
        assert [(r["error"], r["body"]) for r in results + later] == [(None, PAGE)] * 8
        assert live._actor_id == made  # restarted twice, never replaced
        assert ray.get(live.state.remote())["domain"] == "127.0.0.1"
        pages = [r for r in fixture_server.requests if r.path.startswith("/p")]
        # Each page asked once, but for the one the kill may have cut short (asked
        # again); never faster than 4 requests/s once the rule was read, across both
        # restarts.
        asked = Counter(r.path for r in pages)
        assert set(asked) == {f"/p{i}" for i in range(9)}
        assert sum(asked.values()) - len(asked) <= 1
        times = sorted(r.at for r in pages[1:])
        assert min(b - a for a, b in itertools.pairwise(times)) >= 0.25 - 0.05
    finally:
        ray.kill(live)


def test_a_403_escalates_through_tor_when_it_is_configured(
    fixture_server: FixtureServer, stack: Callable[[Settings], Any], tmp_path: Path
) -> None:
    from lyra.pipelines.net.tor import TorProcess

    settings = policy_settings(tmp_path)
    stack(settings)
    for i in range(4):
        fixture_server.route(f"/ok{i}", body=PAGE)
    fixture_server.route("/blocked", status=403, body=b"<html><body>Forbidden</body></html>")
    with TorProcess.start(settings.tor, tmp_path / "tor") as tor:
        fetcher = DomainFetcher.options(namespace=settings.ray.namespace).remote(  # type: ignore[attr-defined]
            "127.0.0.1", settings, None, None, tor.endpoint
        )
        try:
            for i in range(4):
                ray.get(fetcher.fetch.remote(fixture_server.url(f"/ok{i}")))
            result = ray.get(fetcher.fetch.remote(fixture_server.url("/blocked")))
        finally:
            ray.kill(fetcher)
    assert [a["path"] for a in result["attempts"]] == ["http", "tor"]
    # DisableNetwork 1: the Tor path fails at once (no SOCKS listener), nothing hangs.
    assert result["attempts"][1]["error"].startswith("network_error:")
    assert result["error"] == "http_error:403"
    assert fixture_server.paths().count("/blocked") == 1
