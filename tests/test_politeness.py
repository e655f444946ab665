"""The politeness invariant under load, retirement and a crash (ARCHITECTURE §3 step 6, §8).

Acceptance test: 200 URLs over five loopback sites (127.0.0.2 … 127.0.0.6) are
requested by four concurrent searches through the real `Orchestrator`, with
``fetch.max_live_actors`` 2 (so fetchers are retired and re-created all along) and
one site's fetcher killed mid-run. Each site's own server log, on the server's clock,
must show no two requests closer than 1/qps - 50 ms, robots.txt requests included,
and no request for a path its robots.txt disallows. The 50 ms is the allowance for
the two clocks (fetcher worker and server thread) and scheduling, nothing more.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray

from lyra.actors.orchestrator import Orchestrator
from lyra.config.settings import Settings
from tests.conftest import make_settings
from tests.conftest_web import FixtureServer

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

HOSTS = [f"127.0.0.{i}" for i in range(2, 7)]
KILLED = "127.0.0.3"
QPS = 4.0
MIN_GAP = 1.0 / QPS - 0.05
PAGES_PER_HOST = 36
PRIVATE_PER_HOST = 4
SEARCHES = 4
ROBOTS = b"User-agent: *\nDisallow: /private/\n"
TOPICS = [
    "Caffeine taken within six hours of bedtime shortens total sleep time",
    "Moderate coffee intake is associated with a lower risk of type 2 diabetes",
    "Regular coffee drinkers develop a tolerance to the blood pressure effect of caffeine",
    "Decaffeinated coffee still contains a few milligrams of caffeine per cup",
]


def page(host: str, i: int) -> bytes:
    """A small article that the extraction pipeline keeps as content."""
    topic = TOPICS[i % len(TOPICS)]
    return (
        f"<!doctype html><html><head><title>{topic} ({host} #{i})</title></head><body>"
        f"<article><h1>{topic}</h1><p>{topic}, according to study number {i} reported by"
        f" the site at {host}, which followed adults for several years.</p></article>"
        "</body></html>"
    ).encode()


@pytest.fixture
def sites() -> Iterator[dict[str, FixtureServer]]:
    """Five loopback sites with the same robots.txt, public pages and private pages."""
    servers = {host: FixtureServer(host) for host in HOSTS}
    for host, server in servers.items():
        server.route("/robots.txt", body=ROBOTS, content_type="text/plain")
        for i in range(PAGES_PER_HOST):
            server.route(f"/page-{i}.html", body=page(host, i))
        for i in range(PRIVATE_PER_HOST):
            server.route(f"/private/p-{i}.html", body=page(host, 100 + i))
    yield servers
    for server in servers.values():
        server.close()


@pytest.fixture
def settings(lyra_home: Path) -> Settings:
    """Four requests a second per site, at most two live fetchers, quick retirement.

    The session's LYRA_HOME holds the exported embedding model, so the pipeline
    behind the fetches does not export it again.
    """
    return make_settings(
        lyra_home,
        corpus=None,
        fetch={
            "default_qps": QPS,
            "max_live_actors": 2,
            "idle_retire_seconds": 1.0,
            "escalate_to_browser": False,
        },
    )


def all_urls(servers: dict[str, FixtureServer]) -> list[str]:
    """The 200 URLs, interleaved across sites the way a result list mixes them."""
    per_host = [
        [server.url(f"/page-{i}.html") for i in range(PAGES_PER_HOST)]
        + [server.url(f"/private/p-{i}.html") for i in range(PRIVATE_PER_HOST)]
        for server in servers.values()
    ]
    return [url for group in zip(*per_host, strict=True) for url in group]


def host_major(batch: list[str], first: int) -> list[str]:
    """A search's URLs site by site, starting at site `first`: searches start apart.

    Interleaved lists make every search touch every site at once, so two live
    fetchers thrash (each lease retires the other); site-by-site lists still make
    four searches over five sites share two fetchers, retirement included.
    """
    order = {host: (i - first) % len(HOSTS) for i, host in enumerate(HOSTS)}
    return sorted(batch, key=lambda url: order[url.split("/")[2].split(":")[0]])


def kill_live_fetcher(name: str, namespace: str, timeout: float = 30.0) -> None:
    """Kill the named fetcher as soon as it is alive (between retirements it may not be)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            handle = ray.get_actor(name, namespace=namespace)
        except ValueError:
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{name} never came alive within {timeout}s") from None
            time.sleep(0.01)
            continue
        ray.kill(handle)
        return


def wait_search(orch: Any, search_id: str, timeout: float = 120.0) -> dict[str, Any]:
    """Poll the orchestrator until the search is done; its result."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        polled = ray.get(orch.wait_search.remote(search_id, 5.0))
        if polled["done"]:
            result: dict[str, Any] = polled["result"]
            return result
    raise TimeoutError(f"search {search_id} not done within {timeout}s")


def gaps(server: FixtureServer) -> list[float]:
    """Seconds between consecutive requests on the server's own clock."""
    times = sorted(r.at for r in server.requests)
    return [later - earlier for earlier, later in itertools.pairwise(times)]


def test_politeness_holds_for_concurrent_searches_retirement_and_a_killed_fetcher(
    sites: dict[str, FixtureServer], settings: Settings
) -> None:
    urls = all_urls(sites)
    assert len(urls) == 200
    batches = [host_major(urls[k::SEARCHES], first=k) for k in range(SEARCHES)]
    ns = settings.ray.namespace
    orch = Orchestrator.options(name="orchestrator", namespace=ns, get_if_exists=True).remote(
        settings
    )
    try:
        search_ids = []
        for k, batch in enumerate(batches):
            task = ray.get(orch.create_task.remote(f"coffee and health {k}", {}))
            search_ids.append(
                ray.get(
                    orch.start_search.remote(
                        task["id"],
                        "What does coffee do to sleep, blood pressure and diabetes risk?",
                        {"urls": batch, "max_pages": 5},
                    )
                )
            )
        sites[KILLED].wait_for(
            lambda seen: sum(r.path.startswith("/page-") for r in seen) >= 6, timeout=60
        )
        kill_live_fetcher(f"fetch:{KILLED}", ns)
        results = [wait_search(orch, sid) for sid in search_ids]
        retired = ray.get(orch.__ray_call__.remote(lambda actor: actor._fetching.pool.retired))
    finally:
        ray.kill(orch)

    for host, server in sites.items():
        assert min(gaps(server)) >= MIN_GAP, (host, sorted(gaps(server))[:5])
        assert [p for p in server.paths() if p.startswith("/private/")] == [], host
    public = sorted(f"/page-{i}.html" for i in range(PAGES_PER_HOST))
    for host, server in sites.items():
        fetched = sorted(p for p in server.paths() if p.startswith("/page-"))
        if host == KILLED:
            # A request in flight when its fetcher died is sent again by the
            # replacement, so a page may arrive twice there; none is lost.
            assert sorted(set(fetched)) == public, host
        else:
            assert fetched == public, host
    for batch, result in zip(batches, results, strict=True):
        # The killed fetcher was replaced: every search ran to its end.
        assert result["status"] in {"satisfied", "partial"}, result.get("error")
        refused = sorted(w for w in result["warnings"] if "robots_disallowed" in w)
        assert refused == sorted(
            f"{url}: not fetched (robots_disallowed)" for url in batch if "/private/" in url
        )
    # Five sites through at most two live fetchers: at least two were retired (the
    # killed one is replaced, not retired), so retirement really happened.
    assert retired >= 2
