"""Challenge / CAPTCHA / login / consent / block detection on real and synthetic pages."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from lyra.pipelines.net.challenge import AUTH_TYPES, MAX_SCAN_BYTES, Challenge, detect_challenge

REALWORLD = Path(__file__).resolve().parents[2] / "shared" / "realworld"
CHALLENGES = REALWORLD / "challenges"
ARTICLES = REALWORLD / "articles"

CF_JS = ("cloudflare", "cloudflare", False)
# file (relative to realworld/challenges) -> (auth_type, vendor, needs_human), None = content.
EXPECTED: dict[str, tuple[str, str, bool] | None] = {
    "cloudscraper-fixtures/bfm_07_01_2021.html": CF_JS,
    "cloudscraper-fixtures/js_challenge-27-05-2020.html": CF_JS,
    "cloudscraper-fixtures/js_challenge1_16_05_2020.html": CF_JS,
    "cloudscraper-fixtures/js_challenge2_16_05_2020.html": CF_JS,
    "cloudscraper-fixtures/js_challenge_11_12_2019.html": CF_JS,
    "cloudscraper-fixtures/reCaptcha_challenge_12_12_2019.html": ("captcha", "cloudflare", True),
    "embed-http-cache/cloudflare_challenge_kickstarter_403.html": CF_JS,
    "embed-http-cache/cloudflare_challenge_politico_403.html": CF_JS,
    "embed-http-cache/cloudflare_managed_challenge_codepen_403.html": CF_JS,
    "embed-http-cache/google_consent_wall_maps_es_200.html": ("consent", "google", True),
    # A Google 404 served on consent.youtube.com: missing, not a wall.
    "embed-http-cache/google_consent_youtube_404.html": None,
    "embed-http-cache/google_drive_login_cookie_wall_401.html": ("login", "google", True),
    "embed-http-cache/hookem_varnish_404.html": None,
    "embed-http-cache/spotify_unsupported_browser_403.html": (
        "unsupported_browser",
        "generic",
        False,
    ),
    "google-sorry/google_recaptcha_unusual_traffic.html": ("captcha", "google", True),
    # ALTCHA is proof-of-work: a JavaScript-capable browser completes it alone.
    "mojeek/mojeek_altcha_captcha_rust_programming_language.html": ("captcha", "altcha", False),
}
# The same pages seen without status, headers or URL (e.g. a body handed over by the
# browser): only what the body itself proves. The Drive wall is a 401 with a sign-in
# *link* and no password field, so its body alone reads as an ordinary small page.
BODY_ONLY_DIFFERENCES: dict[str, tuple[str, str, bool] | None] = {
    "embed-http-cache/google_drive_login_cookie_wall_401.html": None,
}


def _require(folder: Path) -> None:
    if not folder.is_dir():
        pytest.skip(f"third-party pages not present at {folder}")


def _response(name: str) -> tuple[int | None, dict[str, str], bytes, str]:
    path = CHALLENGES / name
    meta_path = path.with_name(path.name.removesuffix(".html") + ".meta.json")
    if not meta_path.is_file():
        return None, {}, path.read_bytes(), ""
    meta: dict[str, Any] = json.loads(meta_path.read_text(encoding="utf-8"))
    headers = {key: ", ".join(values) for key, values in meta["headers"].items()}
    return int(meta["status"]), headers, path.read_bytes(), str(meta["url"])


def _kind(found: Challenge | None) -> tuple[str, str, bool] | None:
    return None if found is None else (found.auth_type, found.vendor, found.needs_human)


def test_every_realworld_challenge_file_is_in_the_table() -> None:
    _require(CHALLENGES)
    on_disk = {p.relative_to(CHALLENGES).as_posix() for p in CHALLENGES.rglob("*.html")}
    assert on_disk == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_realworld_challenge_classification(name: str) -> None:
    _require(CHALLENGES)
    status, headers, body, url = _response(name)
    found = detect_challenge(status, headers, body, url)
    assert _kind(found) == EXPECTED[name]
    # Every challenge names its evidence (a page that is none has nothing to name).
    assert (found is None) == (EXPECTED[name] is None)
    assert {found.auth_type if found else None} <= {*AUTH_TYPES, None}
    assert (found.marker != "") if found else EXPECTED[name] is None


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_realworld_challenge_body_alone(name: str) -> None:
    _require(CHALLENGES)
    _, _, body, _ = _response(name)
    expected = BODY_ONLY_DIFFERENCES.get(name, EXPECTED[name])
    assert _kind(detect_challenge(None, {}, body)) == expected


def test_realworld_markers_name_the_evidence() -> None:
    _require(CHALLENGES)
    markers = {
        name: found.marker
        for name in EXPECTED
        if (found := detect_challenge(*_response(name))) is not None
    }
    assert markers == {
        "cloudscraper-fixtures/bfm_07_01_2021.html": "__CF$cv$params",
        "cloudscraper-fixtures/js_challenge-27-05-2020.html": "jschl_vc",
        "cloudscraper-fixtures/js_challenge1_16_05_2020.html": "jschl_vc",
        "cloudscraper-fixtures/js_challenge2_16_05_2020.html": "jschl_vc",
        "cloudscraper-fixtures/js_challenge_11_12_2019.html": "jschl_vc",
        "cloudscraper-fixtures/reCaptcha_challenge_12_12_2019.html": "cf_chl_captcha_tk",
        "embed-http-cache/cloudflare_challenge_kickstarter_403.html": "cf-mitigated: challenge",
        "embed-http-cache/cloudflare_challenge_politico_403.html": "cf-mitigated: challenge",
        "embed-http-cache/cloudflare_managed_challenge_codepen_403.html": (
            "cf-mitigated: challenge"
        ),
        "embed-http-cache/google_consent_wall_maps_es_200.html": "consent.google.es consent form",
        "embed-http-cache/google_drive_login_cookie_wall_401.html": "401 + accounts.google.com",
        "embed-http-cache/spotify_unsupported_browser_403.html": "unsupported browser",
        "google-sorry/google_recaptcha_unusual_traffic.html": (
            "unusual traffic from your computer network"
        ),
        "mojeek/mojeek_altcha_captcha_rust_programming_language.html": "altcha.js",
    }


def _article_files() -> list[Path]:
    _require(ARTICLES)
    files = [
        *sorted((ARTICLES / "trafilatura-eval" / "html").glob("*.html")),
        *sorted((ARTICLES / "readability-testpages").glob("*/source.html")),
        *sorted((ARTICLES / "scrapinghub-aeb" / "html").glob("*.html.gz")),
    ]
    return files


def _read_article(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


def test_article_corpus_has_expected_size() -> None:
    files = _article_files()
    counts = {
        "trafilatura-eval": sum("trafilatura-eval" in p.parts for p in files),
        "readability-testpages": sum("readability-testpages" in p.parts for p in files),
        "scrapinghub-aeb": sum("scrapinghub-aeb" in p.parts for p in files),
    }
    assert counts == {"trafilatura-eval": 19, "readability-testpages": 15, "scrapinghub-aeb": 16}


@pytest.mark.parametrize("status", [200, None, 403])
def test_no_realworld_article_is_a_challenge(status: int | None) -> None:
    # Includes pages with reCAPTCHA comment forms (threatpost), reCAPTCHA scripts
    # (boingboing, politico), hidden login modals and cookie banners. Served even
    # with 403, an article is content: the 403 is the circuit breaker's business.
    flagged = {
        path.name: detect_challenge(status, {"content-type": "text/html"}, _read_article(path))
        for path in _article_files()
    }
    assert {name: found for name, found in flagged.items() if found is not None} == {}


def _page(title: str, body: str, head: str = "") -> str:
    return (
        f"<!doctype html><html><head><title>{title}</title>{head}</head><body>{body}</body></html>"
    )


LONG_TEXT = "<p>" + " ".join(["The committee reviewed the evidence in detail."] * 80) + "</p>"


@pytest.mark.parametrize(
    ("status", "headers", "body", "url", "expected"),
    [
        pytest.param(
            403,
            {"Content-Type": "text/html", "X-DataDome": "protected"},
            _page(
                "example.com",
                "<script>var dd={'rt':'c','cid':'AHrl','hsh':'2211F','t':'fe','host':"
                "'geo.captcha-delivery.com'}</script>"
                '<script src="https://ct.captcha-delivery.com/c.js"></script>',
            ),
            "https://www.example.com/",
            ("captcha", "datadome", True),
            id="datadome-captcha",
        ),
        pytest.param(
            403,
            {"x-datadome": "protected"},
            _page(
                "example.com",
                "<script>var dd={'rt':'i','cid':'AHrl','host':'geo.captcha-delivery.com'}</script>",
            ),
            "https://www.example.com/",
            ("bot_protection", "datadome", False),
            id="datadome-interstitial",
        ),
        pytest.param(
            403,
            {"Set-Cookie": "datadome=abc; Max-Age=31536000; Domain=.example.com; Path=/"},
            "",
            "https://www.example.com/",
            ("bot_protection", "datadome", False),
            id="datadome-headers-only",
        ),
        pytest.param(
            403,
            {},
            _page(
                "Access to this page has been denied",
                '<div id="px-captcha"></div><p>Press &amp; Hold to confirm you are a human '
                "(and not a bot).</p><script>window._pxAppId='PXu6b0qd2S';</script>",
            ),
            "https://www.example.com/",
            ("captcha", "perimeterx", True),
            id="perimeterx-press-and-hold",
        ),
        pytest.param(
            200,
            {},
            _page(
                "Please verify",
                "<p>Press & Hold</p><script src='/_px/client/main.min.js'></script>",
            ),
            "https://shop.example.com/",
            ("captcha", "perimeterx", True),
            id="perimeterx-press-and-hold-wording",
        ),
        pytest.param(
            403,
            {"Server": "AkamaiGHost"},
            _page(
                "Access Denied",
                "<h1>Access Denied</h1>You don't have permission to access \"http://www.example"
                '.com/" on this server.<p>Reference #18.6b2d1402.1718035131.1c2a3b4</p>'
                "<p>https://errors.edgesuite.net/18.6b2d1402.1718035131.1c2a3b4</p>",
            ),
            "https://www.example.com/",
            ("bot_protection", "akamai", False),
            id="akamai-access-denied",
        ),
        pytest.param(
            403,
            {},
            _page(
                "One moment",
                '<form method="post"><div class="h-captcha" data-sitekey="10000000-ffff">'
                '</div></form><script src="https://js.hcaptcha.com/1/api.js" async></script>',
            ),
            "https://forum.example.org/",
            ("captcha", "hcaptcha", True),
            id="hcaptcha-wall",
        ),
        pytest.param(
            200,
            {},
            _page(
                "Security check",
                "<p>Please verify you are human to continue.</p>"
                '<script src="https://www.google.com/recaptcha/api.js"></script>'
                '<div class="g-recaptcha" data-sitekey="6Lc_aX0UAAAAABx"></div>',
            ),
            "https://www.example.com/",
            ("captcha", "recaptcha", True),
            id="recaptcha-wall",
        ),
        pytest.param(
            200,
            {},
            _page(
                "Verifying",
                '<div class="cf-turnstile" data-sitekey="0x4AAAAAAA"></div><script '
                'src="https://challenges.cloudflare.com/turnstile/v0/api.js" defer></script>',
            ),
            "https://www.example.com/",
            ("turnstile", "turnstile", True),
            id="turnstile-wall",
        ),
        pytest.param(
            403,
            {"cf-ray": "1"},
            _page(
                "Attention Required! | Cloudflare",
                '<div class="cf-error-details"><h1>Sorry, you have been blocked</h1>'
                "<h2>You are unable to access example.com</h2></div>",
            ),
            "https://example.com/",
            ("bot_protection", "cloudflare", False),
            id="cloudflare-firewall-block",
        ),
        pytest.param(
            403,
            {"CF-Mitigated": "Challenge"},
            "",
            "https://example.com/",
            ("cloudflare", "cloudflare", False),
            id="cf-mitigated-header-any-case",
        ),
        pytest.param(
            503,
            {"server": "cloudflare"},
            _page(
                "Just a moment...",
                "<p>Checking your browser</p><div id='cf-content'>"
                "</div><script src='/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1'>"
                "</script>",
            ),
            "https://example.com/",
            ("cloudflare", "cloudflare", False),
            id="cloudflare-iuam-2022",
        ),
        pytest.param(
            200,
            {},
            '<html><head><META NAME="robots" CONTENT="noindex,nofollow"><script '
            'src="/_Incapsula_Resource?SWJIYLWA=5074a744e2e3d891814e9a2dace20bd4,719d34d31c8e3a6'
            'e6fffd425f7e032f3"></script></head><body><iframe src="/_Incapsula_Resource?CWUDNSAI'
            '=9"></iframe></body></html>',
            "https://www.example.com/",
            ("bot_protection", "imperva", False),
            id="imperva-incapsula",
        ),
        pytest.param(
            200,
            {},
            "",
            "https://www.google.com/sorry/index?continue=https://www.google.com/search%3Fq%3Dx",
            ("captcha", "google", True),
            id="google-sorry-url",
        ),
        pytest.param(
            200,
            {},
            _page("Sign in - Google Accounts", "<form><input type='email'></form>"),
            "https://accounts.google.com/v3/signin/identifier?continue=https://docs.google.com/",
            ("login", "google", True),
            id="google-accounts-redirect",
        ),
        pytest.param(
            401,
            {"WWW-Authenticate": 'Basic realm="intranet"'},
            "Unauthorized",
            "https://intranet.example.com/",
            ("login", "generic", True),
            id="http-basic-auth",
        ),
        pytest.param(
            200,
            {},
            _page(
                "Members area",
                "<h1>Log in to continue reading</h1><form action='/session' method='post'>"
                "<input type='text' name='user'><input type='password' name='pw'>"
                "<button>Sign in</button></form>",
            ),
            "https://news.example.com/members/article-1",
            ("login", "generic", True),
            id="small-login-wall",
        ),
        pytest.param(
            200,
            {},
            _page(
                "Yahoo is part of the Yahoo family of brands",
                "<p>We and our partners use cookies to store and access personal data.</p>"
                "<form method='post' action='/consent'><button name='agree'>Accept all"
                "</button><button name='reject'>Reject all</button></form>",
            ),
            "https://guce.yahoo.com/consent?brandType=nonEu&gcrumb=x",
            ("consent", "generic", True),
            id="yahoo-guce-consent",
        ),
        pytest.param(
            200,
            {},
            _page(
                "Before you continue to YouTube",
                "<p>We use cookies and data to deliver and maintain services.</p>"
                '<form action="https://consent.youtube.com/save" method="POST">'
                "<button>Accept all</button></form>",
            ),
            "https://www.youtube.com/watch?v=x",
            ("consent", "google", True),
            id="youtube-consent-before-redirect-url",
        ),
        pytest.param(
            403,
            {},
            _page(
                "Browser not supported",
                "<p>Your browser is no longer supported. Please update.</p>",
            ),
            "https://app.example.com/",
            ("unsupported_browser", "generic", False),
            id="unsupported-browser",
        ),
        pytest.param(
            429,
            {},
            _page(
                "Too many requests",
                "<p>Please confirm you are human by completing the "
                "form below.</p><p>Are you a robot?</p>",
            ),
            "https://www.example.com/",
            ("captcha", "generic", True),
            id="vendorless-human-check-429",
        ),
    ],
)
def test_synthetic_positives(
    status: int | None,
    headers: dict[str, str],
    body: str,
    url: str,
    expected: tuple[str, str, bool],
) -> None:
    assert _kind(detect_challenge(status, headers, body, url)) == expected
    assert _kind(detect_challenge(status, headers, body.encode("utf-8"), url)) == expected


@pytest.mark.parametrize(
    ("status", "body", "url"),
    [
        pytest.param(
            200,
            _page(
                "How CAPTCHAs work",
                LONG_TEXT + "<p>A CAPTCHA such as reCAPTCHA asks: are you a robot? Press & Hold "
                "buttons and hCaptcha are alternatives; verify you are human prompts.</p>",
            ),
            "https://blog.example.com/captchas",
            id="article-about-captchas",
        ),
        pytest.param(
            200,
            _page(
                "Local news",
                "<div class='cookie-banner'>We use cookies. <form><button>Accept</button>"
                "</form></div>" + LONG_TEXT,
            ),
            "https://news.example.com/story",
            id="article-with-cookie-banner",
        ),
        pytest.param(
            200,
            _page(
                "Before you continue reading: a primer",
                "<form><button>Accept cookies</button></form>" + LONG_TEXT,
            ),
            "https://news.example.com/primer",
            id="article-titled-before-you-continue",
        ),
        pytest.param(
            200,
            _page(
                "Markets today",
                "<header><a href='/login'>Log in</a><div class='modal' hidden><form>"
                "<input type='password' name='pw'><button>Sign in</button></form></div>"
                "</header>" + LONG_TEXT,
            ),
            "https://news.example.com/markets",
            id="article-with-hidden-login-modal",
        ),
        pytest.param(
            200,
            _page("Report", LONG_TEXT)
            + "<script>(function(){window['__CF$cv$params']={r:'8a1',t:'MTcx'};var a=document."
            "createElement('script');a.src='/cdn-cgi/challenge-platform/scripts/jsd/main.js';"
            "document.getElementsByTagName('head')[0].appendChild(a);})();</script>",
            "https://www.example.com/report",
            id="article-with-cloudflare-jsd-injection",
        ),
        pytest.param(
            200,
            _page(
                "Contact us",
                LONG_TEXT + "<form><div class='g-recaptcha' data-sitekey='6Lc'></div></form>",
                head='<script src="https://www.google.com/recaptcha/api.js?render=6Lc"></script>',
            ),
            "https://www.example.com/contact",
            id="article-with-recaptcha-form",
        ),
        pytest.param(
            200,
            _page(
                "Why you see 'unsupported browser' errors",
                LONG_TEXT + "<p>An unsupported browser message means the site dropped it.</p>",
            ),
            "https://blog.example.com/browsers",
            id="article-about-unsupported-browsers",
        ),
        pytest.param(
            404,
            _page("404 Not Found", "<h1>404 Not Found</h1><hr><center>nginx</center>"),
            "https://www.example.com/missing",
            id="plain-404",
        ),
        pytest.param(
            410,
            _page("Gone", "<p>This page is gone. Sign in to see more.</p>"),
            "https://consent.google.com/ml",
            id="plain-410-on-consent-host",
        ),
        pytest.param(
            500,
            _page("Internal Server Error", "<p>Something broke.</p>"),
            "https://www.example.com/",
            id="plain-500",
        ),
        pytest.param(
            403,
            _page("Forbidden", "<h1>403 Forbidden</h1><p>nginx</p>"),
            "https://www.example.com/private/",
            id="plain-403",
        ),
        pytest.param(None, "", "", id="empty"),
        pytest.param(200, b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj".decode("latin-1"), "", id="pdf"),
    ],
)
def test_synthetic_negatives(status: int | None, body: str, url: str) -> None:
    assert detect_challenge(status, {}, body, url) is None


def test_article_quoting_google_block_message_is_content() -> None:
    body = _page(
        "Why Google shows a reCAPTCHA",
        LONG_TEXT + "<blockquote>Our systems have detected unusual traffic from your computer "
        "network.</blockquote><p>The page then shows a g-recaptcha widget.</p>",
    )
    assert detect_challenge(200, {}, body, "https://blog.example.com/google") is None


def test_datadome_protected_page_that_was_served_is_content() -> None:
    # DataDome tags every response of a protected site; a 200 article is content.
    headers = {
        "X-DataDome": "protected",
        "Set-Cookie": "datadome=abc; Max-Age=31536000; Domain=.example.com; Path=/",
    }
    body = _page("Story", LONG_TEXT + '<script src="https://js.datadome.co/tags.js"></script>')
    assert detect_challenge(200, headers, body, "https://www.example.com/story") is None


def test_only_the_first_256_kib_are_read() -> None:
    marker = "<script>window._cf_chl_opt={cvId: '3'}</script>"
    padding = "<!-- " + "x" * MAX_SCAN_BYTES + " -->"
    assert detect_challenge(200, {}, marker + padding) is not None
    assert detect_challenge(200, {}, padding + marker) is None


def test_undecodable_bytes_do_not_raise() -> None:
    body = b"\xff\xfe\x00<title>Just a moment...</title>\x81\x82 cloudflare"
    found = detect_challenge(503, {}, body)
    assert _kind(found) == CF_JS
