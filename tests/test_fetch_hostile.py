"""The fetch layer against hostile loopback servers (ARCHITECTURE §3 step 6, §9; seed 003 §3.6).

Each case is a real server from `tests.hostile_servers` on 127.0.0.x and a real
`DomainFetcher` on the session Ray. A test states the exact outcome: the error
string, status, the body and its cut size, what reached the server (the server's
own log, not the client's word), that every response received has a WARC record
and that the archive reads back clean. Escalation to the browser is switched off
here (it has its own tests), and `network_retries` is 0 unless a case is about
retries, so the server's request counts are exact.

Private redirect targets: `check_url` refuses every private address when
`allow_private_targets` is false, the loopback test server included, so a test
cannot reach a server and be refused a 169.254/10.x redirect for being private.
The refusal of those redirects is shown here through `allowed_hosts` (the server's
own address only); the private-address reasons themselves are table-tested in
tests/test_net_guard.py.
"""

from __future__ import annotations

import gzip
import resource
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import ray
from mcp import Client
from warcio.archiveiterator import ArchiveIterator

from lyra.actors.fetch import get_fetcher
from lyra.config.settings import Settings
from lyra.mcp_bridge.server import build_server
from lyra.storage.warc import read_response, verify
from tests.conftest import CORPUS, SHARED, make_settings
from tests.hostile_servers import (
    SSH_BANNER,
    GzipBomb,
    HostileServer,
    gzip_bomb,
    not_http,
    redirect,
    reset_mid_body,
    respond,
    slowloris,
    stream,
)

pytestmark = [pytest.mark.ray]

MiB = 1024 * 1024
PAGE = (
    b"<!doctype html><html><head><title>Caffeine and sleep</title></head><body><article>"
    b"<p>Caffeine taken within six hours of bedtime shortens total sleep time by about one"
    b" hour in healthy adults, according to a controlled laboratory study.</p>"
    b"</article></body></html>"
)
CLOUDFLARE_CHALLENGE = b"""<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="refresh" content="390"></head><body><div class="main-wrapper" role="main">
<div class="main-content"><h1 class="zone-name-title h1">www.example.org</h1>
<h2 class="h2" id="challenge-running">Checking if the site connection is secure</h2>
<noscript><div id="challenge-error-title">Enable JavaScript and cookies to continue</div></noscript>
</div></div><script>(function(){window._cf_chl_opt={cvId: '3',cZone: "www.example.org",
cType: 'managed',cRay: '8a1b2c3d4e5f6a7b'};var cpo = document.createElement('script');
cpo.src = '/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8a1b2c3d4e5f6a7b';
document.getElementsByTagName('head')[0].appendChild(cpo);}());</script></body></html>"""
HCAPTCHA_WALL = b"""<!DOCTYPE html><html><head><title>One more step</title>
<script src="https://js.hcaptcha.com/1/api.js" async defer></script></head><body>
<h1>One more step</h1><p>Please verify you are human to continue.</p>
<form method="POST" action="/verify"><div class="h-captcha"
data-sitekey="10000000-ffff-ffff-ffff-000000000001"></div><button>Continue</button></form>
</body></html>"""
UTF8_PAGE = (
    '<!doctype html><html><head><meta charset="utf-8"><title>Café au lait</title></head>'
    "<body><article><p>The café au lait served in Lyon cafés contains about eighty milligrams"
    " of caffeine per cup, which is less than a double espresso.</p>"
    "<p>Drinking café au lait in the evening delays sleep onset in sensitive adults, as the"
    " caffeine reaches its peak concentration in the blood within an hour.</p>"
    "</article></body></html>"
).encode()
BROKEN_UTF8_PAGE = (
    b"<!doctype html><html><head><title>Coffee and sleep</title></head><body><article>"
    b"<p>Broken bytes \xff\xfe\xc3\x28 in the middle. Caffeine taken within six hours of"
    b" bedtime shortens total sleep time by about one hour in healthy adults.</p>"
    b"<p>Regular coffee drinkers develop a tolerance to the blood pressure effect of"
    b" caffeine within a few days, although the effect on sleep persists.</p>"
    b"</article></body></html>"
)
PDF = (CORPUS / "arxiv.org" / "coffee-heart-failure-cohort.pdf").read_bytes()
# Declared Content-Type and the body really sent.
MISLABELLED: dict[str, tuple[str, bytes]] = {
    "pdf-as-html": ("text/html; charset=utf-8", PDF),
    "html-as-octet-stream": ("application/octet-stream", PAGE),
    "unknown-charset": ("text/html; charset=foo-bar-99", UTF8_PAGE),
    "invalid-utf8": ("text/html; charset=utf-8", BROKEN_UTF8_PAGE),
}
REAL_CHALLENGES = SHARED / "realworld" / "challenges" / "embed-http-cache"


def hostile_settings(home: Path, network: dict[str, Any] | None = None, **fetch: Any) -> Settings:
    """Loopback settings with short timeouts, no browser escalation and no retries."""
    base = {
        "default_qps": 50.0,
        "timeout_seconds": 3.0,
        "connect_timeout_seconds": 2.0,
        "network_retries": 0,
        "escalate_to_browser": False,
        "escalate_to_headful": False,
    }
    over: dict[str, Any] = {"fetch": {**base, **fetch}}
    if network is not None:
        over["network"] = network
    return make_settings(home, corpus=None, **over)


@pytest.fixture
def fetcher_for(ray_session: None, tmp_path: Path) -> Iterator[Callable[..., Any]]:
    """The named fetcher of a domain under `hostile_settings`; killed after the test."""
    made: list[Any] = []

    def make(domain: str, network: dict[str, Any] | None = None, **fetch: Any) -> Any:
        handle = get_fetcher(domain, hostile_settings(tmp_path, network, **fetch))
        made.append(handle)
        return handle

    yield make
    for handle in made:
        ray.kill(handle)


@pytest.fixture
def serve() -> Iterator[Callable[..., HostileServer]]:
    """Start hostile servers; all are closed after the test."""
    made: list[HostileServer] = []

    def make(host: str, routes: dict[str, Any] | None = None, **kwargs: Any) -> HostileServer:
        server = HostileServer(host, routes, **kwargs)
        made.append(server)
        return server

    yield make
    for server in made:
        server.close()


def fetch(handle: Any, url: str, timeout: float = 60.0) -> dict[str, Any]:
    """One fetch; a hung fetcher fails the test instead of hanging the suite."""
    result: dict[str, Any] = ray.get(handle.fetch.remote(url), timeout=timeout)
    return result


def peak_rss(handle: Any) -> int:
    """Peak resident memory (bytes) of the fetcher's worker process so far."""
    peak: int = ray.get(
        handle.__ray_call__.remote(
            lambda _actor: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        )
    )
    return peak


def archived_statuses(home: Path, url: str) -> list[int]:
    """HTTP statuses of the response records archived for `url`, oldest first."""
    statuses: list[int] = []
    for path in sorted((home / "warc").glob("*.warc.gz")):
        with open(path, "rb") as stream_in:
            for record in ArchiveIterator(stream_in):
                if (
                    record.rec_type == "response"
                    and record.rec_headers.get_header("WARC-Target-URI") == url
                ):
                    statuses.append(int(record.http_headers.get_statuscode()))
    return statuses


def assert_archive_sound(home: Path) -> None:
    """Every WARC file the fetcher wrote reads back without a problem."""
    files = sorted((home / "warc").glob("*.warc.gz"))
    assert files, "no WARC file written"
    assert {p.name: verify(p) for p in files} == {p.name: [] for p in files}


def test_gzip_bomb_helper_is_one_valid_gzip_member() -> None:
    bomb = GzipBomb.build(3 * MiB)

    data = b"".join(bomb.chunks())

    assert len(data) == bomb.compressed
    assert gzip.decompress(data) == bytes(3 * MiB)
    # A deflate stream of zeros is about 1000:1, the ratio real bombs use.
    assert GzipBomb.build(1100 * MiB).compressed < 1200 * 1024


def test_slowloris_is_cut_by_the_total_timeout(
    fetcher_for: Callable[..., Any], serve: Callable[..., HostileServer], tmp_path: Path
) -> None:
    # Two bytes a second: just above curl's low-speed floor (1 B/s), so only the
    # fetcher's own total limit can end the transfer before the 10,000 bytes.
    server = serve("127.0.0.2", {"/slow": slowloris(interval=0.5, declared=10_000)})
    fetcher = fetcher_for("127.0.0.2", timeout_seconds=2.0)

    result = fetch(fetcher, server.url("/slow"), timeout=30.0)

    assert result["error"] == "timeout"
    assert result["status"] == 200
    assert result["elapsed_ms"] < 5_000
    hits = server.wait_done()
    assert [h.path for h in hits] == ["/robots.txt", "/slow"]
    assert hits[1].aborted is True
    assert hits[1].bytes_sent < 12
    assert archived_statuses(tmp_path, server.url("/slow")) == [200]
    stored = read_response(Path(result["warc_path"]), result["warc_offset"])
    assert (b"<" + b"x" * hits[1].bytes_sent).startswith(stored.body)
    assert_archive_sound(tmp_path)


def test_connection_reset_mid_body_is_a_network_error(
    fetcher_for: Callable[..., Any], serve: Callable[..., HostileServer], tmp_path: Path
) -> None:
    server = serve("127.0.0.2", {"/reset": reset_mid_body(declared=200_000, sent=20_000)})
    fetcher = fetcher_for("127.0.0.2")

    result = fetch(fetcher, server.url("/reset"))

    assert result["error"].startswith("network_error:")
    assert result["status"] == 200
    assert result["truncated"] is False
    assert server.paths() == ["/robots.txt", "/reset"]
    assert archived_statuses(tmp_path, server.url("/reset")) == [200]
    stored = read_response(Path(result["warc_path"]), result["warc_offset"])
    assert (b"a" * 20_000).startswith(stored.body)
    assert_archive_sound(tmp_path)


def test_connection_error_is_retried_after_a_backoff(
    fetcher_for: Callable[..., Any], serve: Callable[..., HostileServer], tmp_path: Path
) -> None:
    server = serve("127.0.0.2", {"/reset": reset_mid_body(declared=200_000, sent=20_000)})
    fetcher = fetcher_for("127.0.0.2", network_retries=1, backoff_base_seconds=0.5)

    result = fetch(fetcher, server.url("/reset"))

    assert result["error"].startswith("network_error:")
    hits = server.wait_done()
    assert [h.path for h in hits] == ["/robots.txt", "/reset", "/reset"]
    # backoff_base_seconds * 2**0, minus the 10 % jitter.
    assert hits[2].at - hits[1].at >= 0.45
    assert archived_statuses(tmp_path, server.url("/reset")) == [200, 200]


@pytest.mark.parametrize("status", [429, 503])
def test_retry_after_is_honoured_without_asking_again(
    status: int,
    fetcher_for: Callable[..., Any],
    serve: Callable[..., HostileServer],
    tmp_path: Path,
) -> None:
    server = serve(
        "127.0.0.2",
        {
            "/limited": respond(status, b"slow down", "text/plain", {"Retry-After": "120"}),
            "/other": respond(200, PAGE),
        },
    )
    fetcher = fetcher_for("127.0.0.2")

    first = fetch(fetcher, server.url("/limited"))
    second = fetch(fetcher, server.url("/other"))

    assert first["error"] == "rate_limited"
    assert first["status"] == status
    assert first["retry_after"] == 120
    assert first["path"] == "http"
    assert second["error"] == "rate_limited"
    assert second["status"] is None
    assert 118 < second["retry_after"] <= 120
    assert server.paths() == ["/robots.txt", "/limited"]
    assert archived_statuses(tmp_path, server.url("/limited")) == [status]
    assert_archive_sound(tmp_path)


def test_short_retry_after_is_waited_out_on_the_server_clock(
    fetcher_for: Callable[..., Any], serve: Callable[..., HostileServer]
) -> None:
    server = serve(
        "127.0.0.2",
        {
            "/limited": respond(429, b"slow down", "text/plain", {"Retry-After": "2"}),
            "/other": respond(200, PAGE),
        },
    )
    fetcher = fetcher_for("127.0.0.2", timeout_seconds=5.0)

    first = fetch(fetcher, server.url("/limited"))
    second = fetch(fetcher, server.url("/other"))

    assert first["error"] == "rate_limited"
    assert second["error"] is None
    assert second["body"] == PAGE
    hits = server.hits
    assert [h.path for h in hits] == ["/robots.txt", "/limited", "/other"]
    assert hits[2].at - hits[1].at >= 2.0


def test_plain_503_is_an_http_error_and_not_retried(
    fetcher_for: Callable[..., Any], serve: Callable[..., HostileServer], tmp_path: Path
) -> None:
    server = serve(
        "127.0.0.2",
        {"/down": respond(503, b"maintenance", "text/plain"), "/other": respond(200, PAGE)},
    )
    fetcher = fetcher_for("127.0.0.2")

    down = fetch(fetcher, server.url("/down"))
    other = fetch(fetcher, server.url("/other"))

    assert down["error"] == "http_error:503"
    assert down["status"] == 503
    assert down["retry_after"] is None
    # A 503 without Retry-After is an outage, not a request to back off.
    assert other["error"] is None
    assert server.paths() == ["/robots.txt", "/down", "/other"]
    stored = read_response(Path(down["warc_path"]), down["warc_offset"])
    assert (stored.status, stored.body) == (503, b"maintenance")
    assert_archive_sound(tmp_path)


@pytest.mark.parametrize(
    ("routes", "start", "expected_paths"),
    [
        ({"/loop": redirect("/loop")}, "/loop", ["/loop"] * 4),
        ({"/a": redirect("/b"), "/b": redirect("/a")}, "/a", ["/a", "/b", "/a", "/b"]),
    ],
    ids=["self", "two-hop"],
)
def test_redirect_loop_stops_at_max_redirects(
    routes: dict[str, Any],
    start: str,
    expected_paths: list[str],
    fetcher_for: Callable[..., Any],
    serve: Callable[..., HostileServer],
    tmp_path: Path,
) -> None:
    server = serve("127.0.0.2", routes)
    fetcher = fetcher_for("127.0.0.2", max_redirects=3)

    result = fetch(fetcher, server.url(start))

    assert result["error"] == "too_many_redirects"
    assert result["status"] == 302
    assert result["redirects"] == [server.url(p) for p in expected_paths[:3]]
    assert server.paths() == ["/robots.txt", *expected_paths]
    for path in sorted(set(expected_paths)):
        assert archived_statuses(tmp_path, server.url(path)) == [302] * expected_paths.count(path)
    assert_archive_sound(tmp_path)


# Redirect targets a server may try to bounce the fetcher to, and the refusal reason.
# {inner} is the address of a live server on 127.0.0.1 that must never be contacted.
REFUSED_REDIRECTS = [
    ("http://{inner}/admin", "http://{inner}/admin", "not_in_allowed_hosts"),
    ("http://localhost:{port}/admin", "http://localhost:{port}/admin", "not_in_allowed_hosts"),
    ("http://169.254.169.254/latest/meta-data/", None, "not_in_allowed_hosts"),
    ("//169.254.169.254/latest/meta-data/", "http://169.254.169.254/latest/meta-data/",
     "not_in_allowed_hosts"),
    ("http://10.0.0.1/", None, "not_in_allowed_hosts"),
    ("http://[::ffff:169.254.169.254]/", None, "not_in_allowed_hosts"),
    ("http://2130706433:{port}/admin", None, "noncanonical_ip"),
    ("http://0x7f.0.0.1:{port}/admin", None, "noncanonical_ip"),
    ("http://user@127.0.0.2/admin", None, "userinfo"),
    ("file:///etc/passwd", None, "scheme"),
    ("gopher://127.0.0.1:{port}/_GET", None, "scheme"),
]  # fmt: skip


@pytest.mark.parametrize(("location", "joined", "reason"), REFUSED_REDIRECTS)
def test_redirect_to_a_private_target_is_refused_before_any_contact(
    location: str,
    joined: str | None,
    reason: str,
    fetcher_for: Callable[..., Any],
    serve: Callable[..., HostileServer],
    tmp_path: Path,
) -> None:
    inner = serve("127.0.0.1", {"/admin": respond(200, b"secret")})
    fill = {"inner": f"127.0.0.1:{inner.port}", "port": inner.port}
    target = location.format(**fill)
    server = serve("127.0.0.2", {"/go": redirect(target)})
    # allow_private_targets stays true so the fetcher can reach its own loopback
    # server; allowed_hosts is what refuses every other address.
    fetcher = fetcher_for(
        "127.0.0.2", network={"allow_private_targets": True, "allowed_hosts": ["127.0.0.2/32"]}
    )

    result = fetch(fetcher, server.url("/go"))

    assert result["error"] == f"target_refused:{reason}"
    assert result["status"] == 302
    assert result["redirect_to"] == (joined or location).format(**fill)
    assert server.paths() == ["/robots.txt", "/go"]
    assert inner.hits == []
    assert archived_statuses(tmp_path, server.url("/go")) == [302]


@pytest.mark.parametrize(
    ("ratio", "max_bytes", "with_length"),
    [(10.0, 20 * MiB, True), (100.0, 4 * MiB, True), (100.0, 4 * MiB, False)],
    ids=["ratio-cut", "size-cut", "size-cut-no-length"],
)
def test_gzip_bomb_is_cut_and_memory_stays_bounded(
    ratio: float,
    max_bytes: int,
    with_length: bool,
    fetcher_for: Callable[..., Any],
    serve: Callable[..., HostileServer],
    tmp_path: Path,
) -> None:
    bomb = GzipBomb.build(1100 * MiB)
    server = serve(
        "127.0.0.2",
        {"/bomb": gzip_bomb(bomb, with_length=with_length), "/page": respond(200, PAGE)},
    )
    fetcher = fetcher_for("127.0.0.2", max_bytes=max_bytes, max_decompressed_ratio=ratio)
    assert fetch(fetcher, server.url("/page"))["error"] is None
    before = peak_rss(fetcher)

    result = fetch(fetcher, server.url("/bomb"))

    # With a Content-Length the ratio bounds the expansion: ratio x wire size.
    expected = min(max_bytes, int(bomb.compressed * ratio)) if with_length else max_bytes
    assert result["error"] is None
    assert result["truncated"] is True
    assert len(result["body"]) == expected
    assert result["body"] == bytes(expected)
    # Never the 1.1 GB the bomb expands to: a few copies of the cut body at most.
    assert peak_rss(fetcher) - before < 4 * expected + 64 * MiB
    stored = read_response(Path(result["warc_path"]), result["warc_offset"])
    assert stored.truncated == "length"
    assert stored.body == result["body"]
    assert ("X-Lyra-Original-Content-Encoding", "gzip") in stored.headers
    assert_archive_sound(tmp_path)


def test_hundred_megabyte_body_is_cut_at_the_cap_and_the_transfer_stopped(
    fetcher_for: Callable[..., Any], serve: Callable[..., HostileServer], tmp_path: Path
) -> None:
    total = 100 * MiB
    cap = 4 * MiB
    server = serve("127.0.0.2", {"/big": stream(total), "/page": respond(200, PAGE)})
    fetcher = fetcher_for("127.0.0.2", max_bytes=cap)
    assert fetch(fetcher, server.url("/page"))["error"] is None
    before = peak_rss(fetcher)

    result = fetch(fetcher, server.url("/big"))

    assert result["error"] is None
    assert result["truncated"] is True
    assert len(result["body"]) == cap
    assert result["body"] == b"x" * cap
    assert peak_rss(fetcher) - before < 4 * cap + 64 * MiB
    big = server.wait_done()[-1]
    assert big.path == "/big"
    # The client hung up: the server could not hand over the whole body.
    assert big.aborted is True
    assert big.bytes_sent < total // 2
    stored = read_response(Path(result["warc_path"]), result["warc_offset"])
    assert (stored.truncated, len(stored.body)) == ("length", cap)
    assert_archive_sound(tmp_path)


@pytest.mark.parametrize("case", sorted(MISLABELLED))
def test_mislabelled_bodies_are_fetched_byte_for_byte(
    case: str,
    fetcher_for: Callable[..., Any],
    serve: Callable[..., HostileServer],
    tmp_path: Path,
) -> None:
    declared, body = MISLABELLED[case]
    server = serve("127.0.0.2", {"/doc": respond(200, body, declared)})
    fetcher = fetcher_for("127.0.0.2")

    result = fetch(fetcher, server.url("/doc"))

    assert result["error"] is None
    assert result["status"] == 200
    assert result["body"] == body
    assert result["content_type"] == declared.split(";")[0]
    assert result["headers"]["content-type"] == declared
    assert result["challenge"] is None
    stored = read_response(Path(result["warc_path"]), result["warc_offset"])
    assert stored.body == body
    assert_archive_sound(tmp_path)


@pytest.mark.parametrize(
    ("body", "auth_type", "vendor", "needs_human"),
    [
        (CLOUDFLARE_CHALLENGE, "cloudflare", "cloudflare", False),
        (HCAPTCHA_WALL, "captcha", "hcaptcha", True),
    ],
    ids=["cloudflare-js", "hcaptcha"],
)
def test_challenge_page_served_with_200_is_not_content(
    body: bytes,
    auth_type: str,
    vendor: str,
    needs_human: bool,
    fetcher_for: Callable[..., Any],
    serve: Callable[..., HostileServer],
    tmp_path: Path,
) -> None:
    server = serve("127.0.0.2", {"/article": respond(200, body)})
    fetcher = fetcher_for("127.0.0.2")

    result = fetch(fetcher, server.url("/article"))

    assert result["error"] == f"challenge:{auth_type}"
    assert result["status"] == 200
    challenge = result["challenge"]
    assert (challenge["auth_type"], challenge["vendor"], challenge["needs_human"]) == (
        auth_type,
        vendor,
        needs_human,
    )
    assert result["path"] == "http"
    assert result["attempts"] == [{"path": "http", "status": 200, "error": None}]
    # The wall is evidence of what the site did, so it is archived like any response.
    assert read_response(Path(result["warc_path"]), result["warc_offset"]).body == body
    assert server.paths() == ["/robots.txt", "/article"]


@pytest.mark.parametrize("content_type", ["application/pdf", "application/octet-stream", None])
def test_a_challenge_page_labelled_as_a_download_is_still_a_challenge(
    content_type: str | None,
    fetcher_for: Callable[..., Any],
    serve: Callable[..., HostileServer],
) -> None:
    """Downstream the body is read as what it is (a web page), so the challenge check
    reads it as that too: an interstitial sent as a PDF is never content."""
    server = serve("127.0.0.2", {"/report.pdf": respond(200, CLOUDFLARE_CHALLENGE, content_type)})
    fetcher = fetcher_for("127.0.0.2")

    result = fetch(fetcher, server.url("/report.pdf"))

    assert result["error"] == "challenge:cloudflare"
    assert result["challenge"]["vendor"] == "cloudflare"


def test_real_cloudflare_challenge_served_with_200_is_detected(
    fetcher_for: Callable[..., Any], serve: Callable[..., HostileServer]
) -> None:
    page = REAL_CHALLENGES / "cloudflare_managed_challenge_codepen_403.html"
    if not page.is_file():
        pytest.skip(f"third-party challenge pages not present at {REAL_CHALLENGES}")
    body = page.read_bytes()
    server = serve("127.0.0.2", {"/pen": respond(200, body)})
    fetcher = fetcher_for("127.0.0.2")

    result = fetch(fetcher, server.url("/pen"))

    assert result["error"] == "challenge:cloudflare"
    assert result["challenge"]["needs_human"] is False


def test_robots_txt_of_html_garbage_allows_everything(
    fetcher_for: Callable[..., Any], serve: Callable[..., HostileServer]
) -> None:
    garbage = (
        b"<!doctype html><html><head><title>Welcome!</title></head><body>"
        b"<h1>Page not found, here is our home page instead</h1><ul><li><a href='/'>Home</a>"
        b"</li><li><a href='/shop'>Shop</a></li></ul><script>var x = {a: 1};</script>"
        b"</body></html>"
    )
    server = serve("127.0.0.2", {"/robots.txt": respond(200, garbage), "/page": respond(200, PAGE)})
    fetcher = fetcher_for("127.0.0.2")

    result = fetch(fetcher, server.url("/page"))
    policy = ray.get(fetcher.robots_policy.remote(server.url("/page")), timeout=30)

    assert result["error"] is None
    assert result["body"] == PAGE
    assert (policy["kind"], policy["status"], policy["allowed"]) == ("parsed", 200, True)
    assert policy["crawl_delay"] is None
    assert server.paths() == ["/robots.txt", "/page"]


def test_robots_txt_answering_500_disallows_everything(
    fetcher_for: Callable[..., Any], serve: Callable[..., HostileServer], tmp_path: Path
) -> None:
    server = serve(
        "127.0.0.2",
        {
            "/robots.txt": respond(500, b"Internal Server Error", "text/plain"),
            "/page": respond(200, PAGE),
        },
    )
    fetcher = fetcher_for("127.0.0.2")

    result = fetch(fetcher, server.url("/page"))
    policy = ray.get(fetcher.robots_policy.remote(server.url("/page")), timeout=30)

    assert result["error"] == "robots_disallowed"
    assert result["status"] is None
    assert (policy["kind"], policy["status"], policy["reason"]) == (
        "disallow_all",
        500,
        "server_error",
    )
    assert server.paths() == ["/robots.txt"]
    assert archived_statuses(tmp_path, server.url("/robots.txt")) == [500]


@pytest.mark.parametrize("hold_open", [False, True], ids=["closes", "stays-open"])
def test_ssh_server_is_unreachable_for_robots_and_never_asked_for_the_page(
    hold_open: bool,
    fetcher_for: Callable[..., Any],
    serve: Callable[..., HostileServer],
    tmp_path: Path,
) -> None:
    server = serve("127.0.0.2", greeting=SSH_BANNER, hold_open=hold_open)
    fetcher = fetcher_for("127.0.0.2")

    result = fetch(fetcher, server.url("/page"))
    policy = ray.get(fetcher.robots_policy.remote(server.url("/page")), timeout=30)

    assert result["error"] == "robots_disallowed"
    assert (policy["kind"], policy["reason"]) == ("disallow_all", "unreachable")
    # One connection: the robots.txt attempt (retries are off); the page never went out.
    assert len(server.hits) == 1
    assert list((tmp_path / "warc").glob("*.warc.gz")) == []


@pytest.mark.parametrize("hold_open", [False, True], ids=["closes", "stays-open"])
def test_page_answered_in_another_protocol_is_a_network_error(
    hold_open: bool,
    fetcher_for: Callable[..., Any],
    serve: Callable[..., HostileServer],
    tmp_path: Path,
) -> None:
    server = serve("127.0.0.2", {"/page": not_http(SSH_BANNER, hold_open=hold_open)})
    fetcher = fetcher_for("127.0.0.2")

    result = fetch(fetcher, server.url("/page"))

    assert result["error"].startswith("network_error:")
    assert result["status"] is None
    assert result["body"] == b""
    assert result["warc_path"] is None
    assert server.paths() == ["/robots.txt", "/page"]
    # Only the robots.txt answer was an HTTP response, so only it is archived.
    assert archived_statuses(tmp_path, server.url("/robots.txt")) == [404]
    assert archived_statuses(tmp_path, server.url("/page")) == []


async def test_search_extracts_mislabelled_pages_by_what_they_are(
    ray_session: None, lyra_home: Path, serve: Callable[..., HostileServer]
) -> None:
    server = serve(
        "127.0.0.2",
        {
            "/robots.txt": respond(200, b"User-agent: *\nAllow: /\n", "text/plain"),
            **{
                f"/{case}": respond(200, body, declared)
                for case, (declared, body) in MISLABELLED.items()
            },
        },
    )
    urls = {case: server.url(f"/{case}") for case in MISLABELLED}
    settings = make_settings(
        lyra_home,
        corpus=None,
        fetch={"default_qps": 20.0, "escalate_to_browser": False, "network_retries": 0},
    )
    async with Client(build_server(settings)) as client:
        task = await client.call_tool("create_task", {"query": "coffee, caffeine and health"})
        res = await client.call_tool(
            "search",
            {
                "task_id": task.structured_content["task_id"],
                "query": "How does coffee and caffeine affect the heart and sleep?",
                "options": {"urls": list(urls.values()), "wait_seconds": 110},
            },
        )
        assert res.is_error is False, res.content[0].text
        assert res.structured_content["pages_fetched"] == 4
        listed = ", ".join(f"'{u}'" for u in urls.values())
        rows = (
            await client.call_tool(
                "query_graph",
                {
                    "sql": "SELECT p.url, string_agg(f.text_content, ' ') FROM pages p "
                    f"JOIN fragments f ON f.page_id = p.id WHERE p.url IN ({listed}) "
                    "GROUP BY p.url",
                },
            )
        ).structured_content["rows"]
    text = dict(rows)
    assert sorted(text) == sorted(urls.values())
    assert "Harrow Valley Cohort" in text[urls["pdf-as-html"]]
    assert "%PDF" not in text[urls["pdf-as-html"]]
    assert "shortens total sleep time by about one hour" in text[urls["html-as-octet-stream"]]
    assert "The café au lait served in Lyon cafés" in text[urls["unknown-charset"]]
    assert "shortens total sleep time by about one hour" in text[urls["invalid-utf8"]]
