"""Cookie jar in Playwright format: RFC 6265 parsing, matching and browser session transfer."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lyra.pipelines.net.cookies import (
    SESSION,
    CookieJar,
    domain_match,
    parse_cookie_date,
    parse_set_cookie,
    path_match,
)
from tests.conftest_web import FixtureServer, Route

CHALLENGES = Path(__file__).resolve().parents[2] / "shared" / "realworld" / "challenges"
CHROMIUM = Path("/usr/bin/chromium")
# 2024-06-10 15:56:40 UTC: just before the captured responses below were served.
CAPTURE_TIME = 1718035000.0
NOW = 1_700_000_000.0


def _meta(name: str) -> dict[str, Any]:
    path = CHALLENGES / "embed-http-cache" / f"{name}.meta.json"
    if not path.is_file():
        pytest.skip(f"third-party response headers not present at {path}")
    return dict(json.loads(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Mon, 10-Jun-24 16:28:49 GMT", 1718036929.0),
        ("Sat, 07-Dec-2024 15:59:25 GMT", 1733587165.0),
        ("Tue, 10 Jun 2025 15:59:26 GMT", 1749571166.0),
        ("Thu, 01 Jan 1970 00:00:01 GMT", 1.0),
        ("Sunday, 06-Nov-94 08:49:37 GMT", 784111777.0),
        ("Sun Nov  6 08:49:37 1994", 784111777.0),
        ("06 Nov 1994 08:49:37", 784111777.0),
    ],
)
def test_cookie_date_forms(value: str, expected: float) -> None:
    assert parse_cookie_date(value) == expected


@pytest.mark.parametrize(
    "value",
    ["", "never", "Mon, 32-Jun-24 16:28:49 GMT", "Mon, 10-Jun-24 25:00:00 GMT", "Mon, 10-Foo-24"],
)
def test_cookie_date_garbage(value: str) -> None:
    assert parse_cookie_date(value) is None


@pytest.mark.parametrize(
    ("host", "domain", "expected"),
    [
        ("example.com", "example.com", True),
        ("www.example.com", "example.com", False),  # host-only
        ("www.example.com", ".example.com", True),
        ("example.com", ".example.com", True),
        ("badexample.com", ".example.com", False),
        ("example.com.evil.org", ".example.com", False),
    ],
)
def test_domain_match_table(host: str, domain: str, expected: bool) -> None:
    assert domain_match(host, domain) is expected


@pytest.mark.parametrize(
    ("request_path", "cookie_path", "expected"),
    [
        ("/", "/", True),
        ("/docs", "/docs", True),
        ("/docs/", "/docs", True),
        ("/docs/web", "/docs", True),
        ("/docsearch", "/docs", False),
        ("/docs/web", "/docs/", True),
        ("/", "/docs", False),
    ],
)
def test_path_match_table(request_path: str, cookie_path: str, expected: bool) -> None:
    assert path_match(request_path, cookie_path) is expected


def test_real_cloudflare_bm_cookie_from_kickstarter() -> None:
    meta = _meta("cloudflare_challenge_kickstarter_403")
    jar = CookieJar()
    assert jar.update_from_response(meta["url"], meta["headers"]["set-cookie"], CAPTURE_TIME) == 1
    (cookie,) = jar.to_state()
    assert cookie["name"] == "__cf_bm"
    assert cookie["value"].startswith("P8dEBErXbWS5GXMsJ0T.Y4Da6ihrH7L_EoyGgeVFRpM-1718035129-")
    assert cookie["domain"] == ".kickstarter.com"
    assert cookie["path"] == "/"
    assert cookie["expires"] == 1718036929.0
    assert (cookie["httpOnly"], cookie["secure"], cookie["sameSite"]) == (True, True, "None")
    header = jar.header_for("https://www.kickstarter.com/projects/x", CAPTURE_TIME + 60)
    assert header == f"__cf_bm={cookie['value']}"
    assert jar.header_for("https://kickstarter.com/", CAPTURE_TIME) == header
    # Secure: never over plain http; expired 30 minutes later (expires attribute).
    assert jar.header_for("http://www.kickstarter.com/", CAPTURE_TIME) is None
    assert jar.header_for("https://www.kickstarter.com/", 1718036929.0) is None
    assert jar.header_for("https://www.kickstarter.com.evil.org/", CAPTURE_TIME) is None


def test_real_cookie_for_own_subdomain_politico() -> None:
    meta = _meta("cloudflare_challenge_politico_403")
    jar = CookieJar()
    assert jar.update_from_response(meta["url"], meta["headers"]["set-cookie"], CAPTURE_TIME) == 1
    assert jar.to_state()[0]["domain"] == ".www.politico.com"
    assert jar.header_for("https://www.politico.com/story", CAPTURE_TIME) is not None
    assert jar.header_for("https://politico.com/story", CAPTURE_TIME) is None


def test_real_hookem_max_age_and_deletions() -> None:
    meta = _meta("hookem_varnish_404")
    jar = CookieJar()
    stored = jar.update_from_response(meta["url"], meta["headers"]["set-cookie"], CAPTURE_TIME)
    # gnt_eid (Max-Age 60 days) and gnt_i (session) are kept; the four gup_* cookies
    # arrive with Max-Age=-1, i.e. as deletions.
    assert stored == 2
    by_name = {c["name"]: c for c in jar.to_state()}
    assert sorted(by_name) == ["gnt_eid", "gnt_i"]
    assert by_name["gnt_eid"]["expires"] == CAPTURE_TIME + 5184000
    assert by_name["gnt_eid"]["value"] == "(null)"
    assert by_name["gnt_eid"]["sameSite"] == "Lax"
    assert by_name["gnt_i"]["expires"] == SESSION
    assert (
        jar.header_for("https://www.hookem.com/story/", CAPTURE_TIME)
        == "gnt_eid=(null); gnt_i=69894212976833900198*12430*ES~C"
    )


def test_real_google_cookies_for_parent_domain() -> None:
    drive = _meta("google_drive_login_cookie_wall_401")
    consent = _meta("google_consent_wall_maps_es_200")
    jar = CookieJar()
    assert jar.update_from_response(drive["url"], drive["headers"]["set-cookie"], CAPTURE_TIME) == 1
    assert jar.to_state()[0]["domain"] == ".google.com"
    assert jar.to_state()[0]["sameSite"] == "None"
    # consent.google.es may set a cookie for .google.es (its registrable domain).
    assert (
        jar.update_from_response(consent["url"], consent["headers"]["set-cookie"], CAPTURE_TIME)
        == 1
    )
    assert {c["domain"] for c in jar.to_state()} == {".google.com", ".google.es"}
    assert jar.header_for("https://www.google.es/maps", CAPTURE_TIME) == "__Secure-BUCKET=CLUD"


def test_real_spotify_cookies() -> None:
    meta = _meta("spotify_unsupported_browser_403")
    jar = CookieJar()
    assert jar.update_from_response(meta["url"], meta["headers"]["set-cookie"], CAPTURE_TIME) == 2
    assert [c["name"] for c in jar.to_state()] == ["sp_t", "sp_landing"]
    assert jar.header_for("https://open.spotify.com/album/x", CAPTURE_TIME) == (
        "sp_t=8968befb66b4b45b6109ee6af3cfd569; sp_landing="
        "https%3A%2F%2Fopen.spotify.com%2Falbum%2F7s66wU1XJ2NsUuWM2NKiUV%3Fsp_cid%3D"
        "8968befb66b4b45b6109ee6af3cfd569%26device%3Ddesktop"
    )


@pytest.mark.parametrize(
    ("url", "header"),
    [
        ("https://example.com/", "a=1; Domain=evil.com"),
        ("https://example.com/", "a=1; Domain=ample.com"),
        ("https://www.example.com/", "a=1; Domain=com"),
        ("https://www.bbc.co.uk/", "a=1; Domain=co.uk"),
        ("https://www.bbc.co.uk/", "a=1; Domain=.co.uk"),
        ("https://sub.example.com/", "a=1; Domain=other.sub.example.com"),
        ("http://example.com/", "a=1; Secure"),
        ("https://example.com/", "__Secure-a=1"),
        ("https://example.com/", "__Host-a=1; Secure; Path=/; Domain=example.com"),
        ("https://example.com/", "__Host-a=1; Secure; Path=/x"),
        ("https://example.com/", "__Host-a=1; Path=/"),
        ("https://example.com/", "novalue"),
        ("https://example.com/", "=1"),
        ("https://example.com/", "a=1\x07"),
        ("http://127.0.0.1:8080/", "a=1; Domain=0.0.1"),
    ],
)
def test_refused_set_cookie(url: str, header: str) -> None:
    assert parse_set_cookie(header, url, NOW) is None
    jar = CookieJar()
    assert jar.update_from_response(url, [header], NOW) == 0
    assert len(jar) == 0


@pytest.mark.parametrize(
    ("url", "header", "domain"),
    [
        ("https://www.bbc.co.uk/", "a=1; Domain=bbc.co.uk", ".bbc.co.uk"),
        ("https://www.bbc.co.uk/", "a=1; Domain=.BBC.co.uk", ".bbc.co.uk"),
        ("https://www.example.com/", "a=1; Domain=www.example.com", ".www.example.com"),
        ("https://www.example.com/", "a=1", "www.example.com"),
        ("https://example.com/", "__Secure-a=1; Secure", "example.com"),
        ("https://example.com/", "__Host-a=1; Secure; Path=/", "example.com"),
        ("http://127.0.0.1:8080/", "a=1; Domain=127.0.0.1", "127.0.0.1"),
        ("https://example.com/", "a=1; Domain=", "example.com"),
    ],
)
def test_accepted_set_cookie_domain(url: str, header: str, domain: str) -> None:
    cookie = parse_set_cookie(header, url, NOW)
    assert cookie is not None
    assert cookie["domain"] == domain


def test_max_age_wins_over_expires_in_either_order() -> None:
    for header in (
        "a=1; Max-Age=100; Expires=Thu, 01 Jan 2099 00:00:00 GMT",
        "a=1; Expires=Thu, 01 Jan 2099 00:00:00 GMT; Max-Age=100",
    ):
        cookie = parse_set_cookie(header, "https://example.com/", NOW)
        assert cookie is not None
        assert cookie["expires"] == NOW + 100


def test_invalid_max_age_is_ignored_and_expires_used() -> None:
    cookie = parse_set_cookie(
        "a=1; Max-Age=soon; Expires=Thu, 01 Jan 2099 00:00:00 GMT", "https://example.com/", NOW
    )
    assert cookie is not None
    assert cookie["expires"] == 4070908800.0


def test_default_path_is_directory_of_request() -> None:
    cases = {
        "https://example.com/a/b/c": "/a/b",
        "https://example.com/a": "/",
        "https://example.com/": "/",
        "https://example.com": "/",
    }
    for url, expected in cases.items():
        cookie = parse_set_cookie("a=1", url, NOW)
        assert cookie is not None
        assert cookie["path"] == expected, url
    relative = parse_set_cookie("a=1; Path=relative", "https://example.com/x/y", NOW)
    assert relative is not None
    assert relative["path"] == "/x"


def test_attributes_are_case_insensitive_and_values_trimmed() -> None:
    cookie = parse_set_cookie(
        " sid = abc ; PATH=/app ; HTTPONLY ; SECURE ; SAMESITE=strict", "https://example.com/", NOW
    )
    assert cookie == {
        "name": "sid",
        "value": "abc",
        "domain": "example.com",
        "path": "/app",
        "expires": SESSION,
        "httpOnly": True,
        "secure": True,
        "sameSite": "Strict",
    }


def test_value_with_equals_and_quotes_kept_verbatim() -> None:
    cookie = parse_set_cookie('t="a=b=c"; Path=/', "https://example.com/", NOW)
    assert cookie is not None
    assert (cookie["name"], cookie["value"]) == ("t", '"a=b=c"')


def test_expired_set_cookie_deletes_stored_cookie() -> None:
    jar = CookieJar()
    assert jar.update_from_response("https://example.com/", ["sid=1; Path=/"], NOW) == 1
    assert jar.update_from_response("https://example.com/", ["sid=; Max-Age=0; Path=/"], NOW) == 0
    assert len(jar) == 0
    jar.update_from_response("https://example.com/", ["sid=2; Path=/"], NOW)
    deleted = jar.update_from_response(
        "https://example.com/", ["sid=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/"], NOW
    )
    assert deleted == 0
    assert len(jar) == 0


def test_deletion_only_hits_same_domain_and_path() -> None:
    jar = CookieJar()
    jar.update_from_response("https://example.com/", ["sid=1; Path=/"], NOW)
    jar.update_from_response("https://example.com/", ["sid=; Max-Age=0; Path=/other"], NOW)
    assert jar.header_for("https://example.com/", NOW) == "sid=1"


def test_header_orders_longer_paths_first_then_creation() -> None:
    jar = CookieJar()
    jar.update_from_response(
        "https://example.com/",
        ["a=1; Path=/", "b=2; Path=/docs/web", "c=3; Path=/docs", "d=4; Path=/"],
        NOW,
    )
    assert jar.header_for("https://example.com/docs/web/page", NOW) == "b=2; c=3; a=1; d=4"
    assert jar.header_for("https://example.com/docsearch", NOW) == "a=1; d=4"


def test_replacing_a_cookie_keeps_its_position_and_new_value() -> None:
    jar = CookieJar()
    jar.update_from_response("https://example.com/", ["a=1; Path=/", "b=2; Path=/"], NOW)
    assert jar.update_from_response("https://example.com/", ["a=9; Path=/"], NOW) == 1
    assert len(jar) == 2
    assert jar.header_for("https://example.com/", NOW) == "a=9; b=2"


def test_host_only_cookie_not_sent_to_subdomain() -> None:
    jar = CookieJar()
    jar.update_from_response("https://example.com/", ["h=1", "d=2; Domain=example.com"], NOW)
    assert jar.header_for("https://example.com/", NOW) == "h=1; d=2"
    assert jar.header_for("https://api.example.com/", NOW) == "d=2"


def test_expired_cookies_are_not_sent_and_can_be_purged() -> None:
    jar = CookieJar()
    jar.update_from_response("https://example.com/", ["short=1; Max-Age=10", "long=2"], NOW)
    assert jar.header_for("https://example.com/", NOW + 9) == "short=1; long=2"
    assert jar.header_for("https://example.com/", NOW + 10) == "long=2"
    assert jar.remove_expired(NOW + 10) == 1
    assert len(jar) == 1


def test_max_cookies_evicts_oldest() -> None:
    jar = CookieJar(max_cookies=3)
    jar.update_from_response("https://example.com/", [f"c{i}={i}" for i in range(5)], NOW)
    assert len(jar) == 3
    assert jar.header_for("https://example.com/", NOW) == "c2=2; c3=3; c4=4"


def test_oversized_cookie_is_refused() -> None:
    assert parse_set_cookie("big=" + "x" * 5000, "https://example.com/", NOW) is None


def test_add_validates_playwright_shape() -> None:
    good = {
        "name": "cf_clearance",
        "value": "tok",
        "domain": ".example.com",
        "path": "/",
        "expires": NOW + 3600,
        "httpOnly": True,
        "secure": True,
        "sameSite": "None",
        "partitionKey": None,
    }
    bad: list[dict[str, Any]] = [
        {"name": "", "value": "x", "domain": "example.com"},
        {"name": "n", "value": 5, "domain": "example.com"},
        {"name": "n", "value": "x"},
        {"name": "n", "value": "x", "domain": "example.com", "path": "relative"},
        {"name": "n", "value": "x", "domain": "example.com", "expires": "tomorrow"},
        {"name": "n", "value": "x", "domain": "example.com", "sameSite": "Sometimes"},
    ]
    jar = CookieJar()
    assert jar.add([good, *bad]) == 1
    (stored,) = jar.to_state()
    assert "partitionKey" not in stored
    assert stored["name"] == "cf_clearance"
    assert jar.header_for("https://www.example.com/", NOW) == "cf_clearance=tok"
    minimal = CookieJar([{"name": "n", "value": "v", "domain": "Example.com"}])
    assert minimal.to_state() == [
        {
            "name": "n",
            "value": "v",
            "domain": "example.com",
            "path": "/",
            "expires": SESSION,
            "httpOnly": False,
            "secure": False,
            "sameSite": "Lax",
        }
    ]


def test_state_round_trip_through_json() -> None:
    jar = CookieJar()
    jar.update_from_response(
        "https://www.example.com/app/x",
        ["a=1; Max-Age=60; Secure; HttpOnly", "b=2; Domain=example.com; Path=/; SameSite=None"],
        NOW,
    )
    restored = CookieJar.from_state(json.loads(json.dumps(jar.to_state())))
    assert restored.to_state() == jar.to_state()
    assert len(restored) == 2
    url = "https://www.example.com/app/y"
    assert restored.header_for(url, NOW) == jar.header_for(url, NOW) == "a=1; b=2"


def test_to_state_returns_copies() -> None:
    jar = CookieJar([{"name": "n", "value": "v", "domain": "example.com"}])
    jar.to_state()[0]["value"] = "changed"
    assert jar.header_for("http://example.com/", NOW) == "n=v"


@pytest.fixture
def cookie_server() -> Iterator[FixtureServer]:
    server = FixtureServer()
    yield server
    server.close()


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed")
def test_session_transfer_between_real_chromium_and_http_client(
    cookie_server: FixtureServer,
) -> None:
    from playwright.sync_api import sync_playwright

    from lyra.jobs.chromium import CHROMIUM_ARGS

    page_html = (
        b"<html><body><script>document.cookie='js_token=42; path=/'</script>ok</body></html>"
    )
    cookie_server.route(
        "/challenge",
        Route(
            body=page_html,
            headers={"Set-Cookie": "cf_clearance=abc123; Path=/; Max-Age=3600; HttpOnly"},
        ),
    )
    cookie_server.route("/article", Route(body=b"<html><body>content</body></html>"))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=[*CHROMIUM_ARGS, "--headless=new"]
        )
        try:
            context = browser.new_context()
            page = context.new_page()
            page.goto(cookie_server.url("/challenge"))
            page.wait_for_function("document.cookie.includes('js_token=42')")
            browser_cookies = context.cookies()

            # Browser → HTTP client: the jar takes Playwright's dicts unchanged.
            jar = CookieJar()
            assert jar.add(browser_cookies) == 2
            # Real browser cookies carry real expiry times: match them at the real time.
            header = jar.header_for(cookie_server.url("/article"), time.time())
            assert header is not None
            assert sorted(header.split("; ")) == ["cf_clearance=abc123", "js_token=42"]
            request = urllib.request.Request(
                cookie_server.url("/article"), headers={"Cookie": header}
            )
            with urllib.request.urlopen(request, timeout=10) as response:
                assert response.status == 200
            sent = cookie_server.requests[-1]
            assert sent.path == "/article"
            assert sorted(sent.headers["Cookie"].split("; ")) == [
                "cf_clearance=abc123",
                "js_token=42",
            ]

            # HTTP client → browser: jar state goes into a fresh context as is.
            jar.update_from_response(cookie_server.url("/article"), ["from_http=7; Path=/"], NOW)
            fresh = browser.new_context()
            fresh.add_cookies(jar.to_state())  # type: ignore[arg-type]
            fresh.new_page().goto(cookie_server.url("/article"))
            received = cookie_server.requests[-1].headers["Cookie"]
            assert sorted(received.split("; ")) == [
                "cf_clearance=abc123",
                "from_http=7",
                "js_token=42",
            ]
        finally:
            browser.close()
