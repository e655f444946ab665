"""BrowserActor with real Debian Chromium against loopback servers (ARCHITECTURE §2, §9)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import ray

from lyra.actors.browser import BrowserActor
from lyra.config.settings import Settings, load_settings
from tests.conftest_web import (  # noqa: F401 - pytest fixtures used by parameter name
    FixtureServer,
    fixture_server_factory_fixture,
    fixture_server_fixture,
)

CHROMIUM = Path("/usr/bin/chromium")

pytestmark = [
    pytest.mark.ray,
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="Debian chromium not installed (apt-get install chromium)"
    ),
]

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)
JS_PAGE = b"""<!doctype html><html><head><title>Rendered by JS</title></head>
<body><div id="out">static</div>
<script>
document.getElementById("out").textContent = "JS-WROTE-" + (6 * 7);
</script></body></html>"""


def browser_settings(home: Path, allowed_hosts: list[str]) -> Settings:
    """Loopback-permitting settings with the given allow list."""
    return load_settings(
        home=home,
        network={"allow_private_targets": True, "allowed_hosts": allowed_hosts},
        browser={"executable_path": str(CHROMIUM), "navigation_timeout_seconds": 20},
    )


@pytest.fixture
def make_browser(ray_session: None) -> Iterator[Callable[[Settings], Any]]:
    """Create BrowserActors; each is closed and killed after the test."""
    made: list[Any] = []

    def make(settings: Settings) -> Any:
        handle = BrowserActor.remote(settings)  # type: ignore[attr-defined]
        made.append(handle)
        return handle

    yield make
    for handle in made:
        ray.get(handle.close.remote())
        ray.kill(handle)


def page_paths(server: FixtureServer) -> list[str]:
    """Requests other than the favicon, which Chromium asks for on its own."""
    return [p for p in server.paths() if p != "/favicon.ico"]


def test_render_runs_javascript_and_saves_a_screenshot(
    make_browser: Callable[[Settings], Any], fixture_server: FixtureServer, tmp_path: Path
) -> None:
    fixture_server.route("/js", body=JS_PAGE)
    browser = make_browser(browser_settings(tmp_path, ["127.0.0.0/8"]))

    result = ray.get(browser.render.remote(fixture_server.url("/js")))

    assert result["error"] is None
    assert result["status"] == 200
    assert result["final_url"] == fixture_server.url("/js")
    assert result["title"] == "Rendered by JS"
    assert '<div id="out">JS-WROTE-42</div>' in result["html"]
    shot = Path(result["screenshot_path"])
    assert shot.parent == tmp_path / "screenshots"
    assert shot.read_bytes()[:8] == PNG_MAGIC
    assert result["blocked_requests"] == []
    assert page_paths(fixture_server) == ["/js"]


def test_subresource_on_a_refused_host_is_aborted(
    make_browser: Callable[[Settings], Any],
    fixture_server_factory: Callable[[str], FixtureServer],
    tmp_path: Path,
) -> None:
    allowed = fixture_server_factory("127.0.0.1")
    refused = fixture_server_factory("127.0.0.2")
    refused.route("/pixel.png", body=PIXEL, content_type="image/png")
    refused.route("/data.json", body=b"{}", content_type="application/json")
    allowed.route("/ok.png", body=PIXEL, content_type="image/png")
    page = f"""<!doctype html><html><head><title>mixed</title></head><body>
<img src="/ok.png"><img src="{refused.url("/pixel.png")}">
<script>fetch("{refused.url("/data.json")}").catch(() => null);</script>
</body></html>""".encode()
    allowed.route("/page", body=page)
    browser = make_browser(browser_settings(tmp_path, ["127.0.0.1"]))

    result = ray.get(browser.render.remote(allowed.url("/page")))

    assert result["error"] is None
    assert result["status"] == 200
    assert sorted(page_paths(allowed)) == ["/ok.png", "/page"]
    assert refused.requests == []
    route_blocks = sorted(b["url"] for b in result["blocked_requests"] if b["layer"] == "route")
    assert route_blocks == [refused.url("/data.json"), refused.url("/pixel.png")]
    assert {b["reason"] for b in result["blocked_requests"]} == {"not_in_allowed_hosts"}


def test_redirect_hop_to_a_refused_host_is_stopped_by_the_proxy(
    make_browser: Callable[[Settings], Any],
    fixture_server_factory: Callable[[str], FixtureServer],
    tmp_path: Path,
) -> None:
    allowed = fixture_server_factory("127.0.0.1")
    refused = fixture_server_factory("127.0.0.2")
    refused.route("/pixel.png", body=PIXEL, content_type="image/png")
    allowed.route("/hop.png", status=302, headers={"Location": refused.url("/pixel.png")})
    allowed.route("/page", body=b'<!doctype html><html><body><img src="/hop.png"></body></html>')
    browser = make_browser(browser_settings(tmp_path, ["127.0.0.1"]))

    result = ray.get(browser.render.remote(allowed.url("/page")))

    assert result["status"] == 200
    assert sorted(page_paths(allowed)) == ["/hop.png", "/page"]
    assert refused.requests == []
    assert {
        "url": refused.url("/pixel.png"),
        "reason": "not_in_allowed_hosts",
        "layer": "proxy",
    } in result["blocked_requests"]


def test_navigation_redirect_to_a_refused_host_is_an_error(
    make_browser: Callable[[Settings], Any],
    fixture_server_factory: Callable[[str], FixtureServer],
    tmp_path: Path,
) -> None:
    allowed = fixture_server_factory("127.0.0.1")
    refused = fixture_server_factory("127.0.0.2")
    refused.route("/landing", body=b"<html><body>secret</body></html>")
    allowed.route("/go", status=302, headers={"Location": refused.url("/landing")})
    browser = make_browser(browser_settings(tmp_path, ["127.0.0.1"]))

    result = ray.get(browser.render.remote(allowed.url("/go")))

    assert result["error"] == "target_refused:not_in_allowed_hosts"
    assert "secret" not in result["html"]
    assert refused.requests == []
    assert page_paths(allowed) == ["/go"]


def test_refused_start_url_launches_nothing(
    make_browser: Callable[[Settings], Any], fixture_server: FixtureServer, tmp_path: Path
) -> None:
    browser = make_browser(browser_settings(tmp_path, ["10.0.0.0/8"]))

    result = ray.get(browser.render.remote(fixture_server.url("/page")))
    status = ray.get(browser.status.remote())

    assert result["error"] == "target_refused:not_in_allowed_hosts"
    assert result["html"] == ""
    assert status["connected"] is False
    assert fixture_server.requests == []
