"""DomainFetcher against real loopback servers on a real local Ray (ARCHITECTURE §3 step 6, §9)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import ray

from lyra.actors.fetch import DomainFetcher, get_fetcher
from lyra.actors.fetch_pool import fetch_url
from lyra.config.settings import Settings, load_settings
from lyra.storage.warc import read_response, verify
from tests.conftest_web import (  # noqa: F401 - pytest fixtures used by parameter name
    FixtureServer,
    fixture_server_factory_fixture,
    fixture_server_fixture,
)

pytestmark = pytest.mark.ray

PAGE = b"<html><head><title>Coffee</title></head><body><p>Moderate coffee intake.</p></body></html>"


def fetch_settings(home: Path, **fetch: Any) -> Settings:
    """Loopback-permitting settings with fetch overrides."""
    network = fetch.pop(
        "network", {"allow_private_targets": True, "allowed_hosts": ["127.0.0.0/8"]}
    )
    return load_settings(home=home, network=network, fetch={"default_qps": 50.0, **fetch})


@pytest.fixture
def make_fetcher(ray_session: None) -> Iterator[Callable[..., Any]]:
    """Create anonymous DomainFetcher actors; all are killed after the test."""
    made: list[Any] = []

    def make(domain: str, settings: Settings, qps: float | None = 50.0) -> Any:
        handle = DomainFetcher.remote(domain, settings, qps)  # type: ignore[attr-defined]
        made.append(handle)
        return handle

    yield make
    for handle in made:
        ray.kill(handle)


def test_page_is_fetched_and_archived(
    make_fetcher: Callable[..., Any], fixture_server: FixtureServer, tmp_path: Path
) -> None:
    fixture_server.route("/page", body=PAGE)
    fetcher = make_fetcher("127.0.0.1", fetch_settings(tmp_path))

    result = ray.get(fetcher.fetch.remote(fixture_server.url("/page")))

    assert result["error"] is None
    assert result["status"] == 200
    assert result["body"] == PAGE
    assert result["content_type"] == "text/html"
    assert result["final_url"] == fixture_server.url("/page")
    assert result["truncated"] is False
    assert fixture_server.paths() == ["/robots.txt", "/page"]
    warc_path = Path(result["warc_path"])
    assert warc_path.parent == tmp_path / "warc"
    stored = read_response(warc_path, result["warc_offset"])
    assert stored.body == PAGE
    assert stored.status == 200
    assert stored.target_uri == fixture_server.url("/page")
    assert verify(warc_path) == []


def test_qps_is_honoured_on_the_server_clock(
    make_fetcher: Callable[..., Any], fixture_server: FixtureServer, tmp_path: Path
) -> None:
    for name in ("p1", "p2", "p3"):
        fixture_server.route(f"/{name}", body=PAGE)
    fetcher = make_fetcher("127.0.0.1", fetch_settings(tmp_path), qps=5.0)

    # Submitted together: the actor must still space them, not the caller.
    refs = [fetcher.fetch.remote(fixture_server.url(f"/{name}")) for name in ("p1", "p2", "p3")]
    results = ray.get(refs)

    assert [r["status"] for r in results] == [200, 200, 200]
    seen = fixture_server.requests
    # An async actor does not promise submission order, only the spacing.
    assert seen[0].path == "/robots.txt"
    assert sorted(r.path for r in seen[1:]) == ["/p1", "/p2", "/p3"]
    gaps = [later.at - earlier.at for earlier, later in itertools.pairwise(seen)]
    assert min(gaps) >= 0.2, gaps


def test_the_search_that_began_first_is_served_first(
    make_fetcher: Callable[..., Any], fixture_server: FixtureServer, tmp_path: Path
) -> None:
    # Two searches' calls submitted interleaved, the later-begun one's first (decision
    # 0045): the site serves all of the earlier search's pages, then the later's.
    for i in range(3):
        fixture_server.route(f"/early-{i}", body=PAGE)
        fixture_server.route(f"/late-{i}", body=PAGE)
    fetcher = make_fetcher("127.0.0.1", fetch_settings(tmp_path), qps=2.0)
    ray.get(fetcher.fetch.remote(fixture_server.url("/early-0")))
    began = {"early": 100.0, "late": 200.0}

    refs = [
        fetcher.fetch.remote(
            fixture_server.url(f"/{cause}-{i}"), cause_id=cause, cause_since=began[cause]
        )
        for i in (1, 2)
        for cause in ("late", "early")
    ]
    results = ray.get(refs)

    assert [r["status"] for r in results] == [200, 200, 200, 200]
    served = [r.path for r in fixture_server.requests][2:]  # after robots.txt and early-0
    assert sorted(served) == ["/early-1", "/early-2", "/late-1", "/late-2"]
    # Whichever call reached the actor first took the free slot and waited there for
    # its token (0.5 s); the other three queued meanwhile and no "late" call went
    # before an "early" one.
    queued = [path.split("-")[0].strip("/") for path in served[1:]]
    assert queued == sorted(queued, key=began.__getitem__)


def test_robots_disallow_refuses_without_contacting_the_path(
    make_fetcher: Callable[..., Any], fixture_server: FixtureServer, tmp_path: Path
) -> None:
    fixture_server.route(
        "/robots.txt", body=b"User-agent: *\nDisallow: /private\n", content_type="text/plain"
    )
    fixture_server.route("/private/report", body=PAGE)
    fixture_server.route("/public", body=PAGE)
    fetcher = make_fetcher("127.0.0.1", fetch_settings(tmp_path))

    refused = ray.get(fetcher.fetch.remote(fixture_server.url("/private/report")))
    allowed = ray.get(fetcher.fetch.remote(fixture_server.url("/public")))

    assert refused["error"] == "robots_disallowed"
    assert refused["status"] is None
    assert refused["body"] == b""
    assert allowed["error"] is None
    assert allowed["body"] == PAGE
    # robots.txt fetched once (cached), the private path never requested.
    assert fixture_server.paths() == ["/robots.txt", "/public"]


def test_robots_server_error_disallows_everything(
    make_fetcher: Callable[..., Any], fixture_server: FixtureServer, tmp_path: Path
) -> None:
    fixture_server.route("/robots.txt", status=503, body=b"busy", content_type="text/plain")
    fixture_server.route("/page", body=PAGE)
    fetcher = make_fetcher("127.0.0.1", fetch_settings(tmp_path))

    result = ray.get(fetcher.fetch.remote(fixture_server.url("/page")))
    policy = ray.get(fetcher.robots_policy.remote(fixture_server.url("/page")))

    assert result["error"] == "robots_disallowed"
    assert policy["kind"] == "disallow_all"
    assert policy["status"] == 503
    assert fixture_server.paths() == ["/robots.txt"]


def test_crawl_delay_lowers_the_rate(
    make_fetcher: Callable[..., Any], fixture_server: FixtureServer, tmp_path: Path
) -> None:
    fixture_server.route(
        "/robots.txt", body=b"User-agent: *\nCrawl-delay: 0.5\n", content_type="text/plain"
    )
    fixture_server.route("/a", body=PAGE)
    fixture_server.route("/b", body=PAGE)
    fetcher = make_fetcher("127.0.0.1", fetch_settings(tmp_path), qps=20.0)

    ray.get(
        [
            fetcher.fetch.remote(fixture_server.url("/a")),
            fetcher.fetch.remote(fixture_server.url("/b")),
        ]
    )
    state = ray.get(fetcher.state.remote())

    assert state["qps"] == 2.0
    assert state["base_qps"] == 20.0
    seen = fixture_server.requests
    assert seen[0].path == "/robots.txt"
    assert sorted(r.path for r in seen[1:]) == ["/a", "/b"]
    assert seen[2].at - seen[1].at >= 0.5


def test_same_domain_redirect_is_followed_and_archived(
    make_fetcher: Callable[..., Any], fixture_server: FixtureServer, tmp_path: Path
) -> None:
    fixture_server.route("/old", status=301, headers={"Location": "/new"})
    fixture_server.route("/new", body=PAGE)
    fetcher = make_fetcher("127.0.0.1", fetch_settings(tmp_path))

    result = ray.get(fetcher.fetch.remote(fixture_server.url("/old")))

    assert result["error"] is None
    assert result["final_url"] == fixture_server.url("/new")
    assert result["redirects"] == [fixture_server.url("/old")]
    assert result["body"] == PAGE
    assert fixture_server.paths() == ["/robots.txt", "/old", "/new"]
    assert verify(Path(result["warc_path"])) == []


def test_redirect_limit(
    make_fetcher: Callable[..., Any], fixture_server: FixtureServer, tmp_path: Path
) -> None:
    fixture_server.route("/loop", status=302, headers={"Location": "/loop"})
    fetcher = make_fetcher("127.0.0.1", fetch_settings(tmp_path, max_redirects=2))

    result = ray.get(fetcher.fetch.remote(fixture_server.url("/loop")))

    assert result["error"] == "too_many_redirects"
    assert result["status"] == 302
    assert fixture_server.paths() == ["/robots.txt", "/loop", "/loop", "/loop"]


def test_redirect_to_a_host_outside_allowed_hosts_is_refused(
    make_fetcher: Callable[..., Any],
    fixture_server_factory: Callable[[str], FixtureServer],
    tmp_path: Path,
) -> None:
    allowed = fixture_server_factory("127.0.0.1")
    outside = fixture_server_factory("127.0.0.2")
    outside.route("/target", body=PAGE)
    allowed.route("/go", status=302, headers={"Location": outside.url("/target")})
    settings = fetch_settings(
        tmp_path, network={"allow_private_targets": True, "allowed_hosts": ["127.0.0.1"]}
    )
    fetcher = make_fetcher("127.0.0.1", settings)

    result = ray.get(fetcher.fetch.remote(allowed.url("/go")))

    assert result["error"] == "target_refused:not_in_allowed_hosts"
    assert result["status"] == 302
    assert result["redirect_to"] == outside.url("/target")
    assert allowed.paths() == ["/robots.txt", "/go"]
    assert outside.requests == []


def test_huge_body_is_capped(
    make_fetcher: Callable[..., Any], fixture_server: FixtureServer, tmp_path: Path
) -> None:
    cap = 1024 * 1024
    fixture_server.route(
        "/huge", stream_bytes=30 * 1024 * 1024, content_type="application/octet-stream"
    )
    fetcher = make_fetcher("127.0.0.1", fetch_settings(tmp_path, max_bytes=cap))

    result = ray.get(fetcher.fetch.remote(fixture_server.url("/huge")))

    assert result["error"] is None
    assert result["truncated"] is True
    assert len(result["body"]) == cap
    stored = read_response(Path(result["warc_path"]), result["warc_offset"])
    assert stored.truncated == "length"
    assert len(stored.body) == cap


def test_pdf_uses_its_own_cap(
    make_fetcher: Callable[..., Any], fixture_server: FixtureServer, tmp_path: Path
) -> None:
    fixture_server.route("/paper.pdf", stream_bytes=3 * 1024 * 1024, content_type="application/pdf")
    fetcher = make_fetcher(
        "127.0.0.1", fetch_settings(tmp_path, max_bytes=1024 * 1024, max_pdf_bytes=2 * 1024 * 1024)
    )

    result = ray.get(fetcher.fetch.remote(fixture_server.url("/paper.pdf")))

    assert result["content_type"] == "application/pdf"
    assert result["truncated"] is True
    assert len(result["body"]) == 2 * 1024 * 1024


def test_private_target_refused_without_allow_private(
    make_fetcher: Callable[..., Any], fixture_server: FixtureServer, tmp_path: Path
) -> None:
    fixture_server.route("/page", body=PAGE)
    settings = fetch_settings(
        tmp_path, network={"allow_private_targets": False, "allowed_hosts": []}
    )
    fetcher = make_fetcher("127.0.0.1", settings)

    result = ray.get(fetcher.fetch.remote(fixture_server.url("/page")))

    assert result["error"] == "target_refused:loopback"
    assert result["status"] is None
    assert fixture_server.requests == []


def test_url_of_another_domain_is_refused(
    make_fetcher: Callable[..., Any], fixture_server: FixtureServer, tmp_path: Path
) -> None:
    fetcher = make_fetcher("example.org", fetch_settings(tmp_path))

    result = ray.get(fetcher.fetch.remote(fixture_server.url("/page")))

    assert result["error"] == "wrong_domain"
    assert fixture_server.requests == []


def test_http_error_status_is_archived(
    make_fetcher: Callable[..., Any], fixture_server: FixtureServer, tmp_path: Path
) -> None:
    fixture_server.route("/gone", status=410, body=b"gone", content_type="text/plain")
    fetcher = make_fetcher("127.0.0.1", fetch_settings(tmp_path))

    result = ray.get(fetcher.fetch.remote(fixture_server.url("/gone")))

    assert result["status"] == 410
    assert result["error"] == "http_error:410"
    assert read_response(Path(result["warc_path"]), result["warc_offset"]).body == b"gone"


def test_connection_refused_is_a_network_error(
    make_fetcher: Callable[..., Any], fixture_server: FixtureServer, tmp_path: Path
) -> None:
    closed_url = fixture_server.url("/page")
    fixture_server.close()
    fetcher = make_fetcher("127.0.0.1", fetch_settings(tmp_path))

    result = ray.get(fetcher.fetch.remote(closed_url))

    # robots.txt unreachable -> disallow all (RFC 9309), so the page is never tried.
    assert result["error"] == "robots_disallowed"
    policy = ray.get(fetcher.robots_policy.remote(closed_url))
    assert policy["kind"] == "disallow_all"
    assert policy["reason"] == "unreachable"


def test_get_fetcher_returns_one_actor_per_domain(ray_session: None, tmp_path: Path) -> None:
    settings = load_settings(home=tmp_path, ray={"namespace": "lyra-fetch-tests"})
    first = get_fetcher("https://www.example.org/a", settings)
    second = get_fetcher("http://docs.example.org/b", settings)
    try:
        assert first._actor_id == second._actor_id
        named = ray.get_actor("fetch:example.org", namespace="lyra-fetch-tests")
        assert named._actor_id == first._actor_id
        state = ray.get(first.state.remote())
        assert state["domain"] == "example.org"
        assert state["base_qps"] == 0.2
    finally:
        ray.kill(first)


async def test_fetch_url_follows_a_cross_domain_redirect(
    ray_session: None, fixture_server_factory: Callable[[str], FixtureServer], tmp_path: Path
) -> None:
    first = fixture_server_factory("127.0.0.1")
    second = fixture_server_factory("127.0.0.3")
    second.route("/landing", body=PAGE)
    first.route("/moved", status=302, headers={"Location": second.url("/landing")})
    settings = load_settings(
        home=tmp_path,
        ray={"namespace": "lyra-fetch-redirect-tests"},
        network={"allow_private_targets": True, "allowed_hosts": ["127.0.0.0/8"]},
        fetch={"default_qps": 50.0},
    )
    fetchers: dict[str, Any] = {}
    try:
        result = await fetch_url(first.url("/moved"), settings, fetchers=fetchers)

        assert result["error"] is None
        assert result["url"] == first.url("/moved")
        assert result["final_url"] == second.url("/landing")
        assert result["redirects"] == [first.url("/moved")]
        assert result["domain"] == "127.0.0.3"
        assert result["body"] == PAGE
        assert first.paths() == ["/robots.txt", "/moved"]
        assert second.paths() == ["/robots.txt", "/landing"]
        assert sorted(fetchers) == ["127.0.0.1", "127.0.0.3"]
    finally:
        for handle in fetchers.values():
            ray.kill(handle)
