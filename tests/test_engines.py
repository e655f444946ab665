"""Engines as data: engines.yaml defaults merged with settings, requests, dispatch to
parsers, and telling a blocked SERP from an empty one. No request leaves loopback."""

from __future__ import annotations

import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from lyra.pipelines.discover.engines import (
    EngineSpec,
    build_request,
    default_engines,
    load_engines,
    parse_serp,
    serp_blocked,
)
from tests.conftest import make_settings
from tests.conftest_web import FixtureServer, fixture_server_fixture  # noqa: F401

REALWORLD = Path(__file__).resolve().parents[2] / "shared" / "realworld"
SERP = REALWORLD / "serp"
CHALLENGES = REALWORLD / "challenges"


def _need(folder: Path) -> None:
    if not folder.is_dir():
        pytest.skip(f"realworld data not present at {folder} (see realworld/PROVENANCE.md)")


def test_engines_yaml_lists_every_engine_of_the_issue() -> None:
    assert sorted(default_engines()) == [
        "bing",
        "brave",
        "duckduckgo",
        "duckduckgo_lite",
        "google",
        "google_scholar",
        "local",
        "marginalia",
        "mojeek",
        "qwant",
        "startpage",
        "wikipedia",
    ]


def test_defaults_enable_the_block_tolerant_allowlist_only(tmp_path: Path) -> None:
    engines = load_engines(make_settings(tmp_path))
    assert sorted(n for n, s in engines.items() if s.enabled) == [
        "duckduckgo",
        "local",
        "marginalia",
        "mojeek",
        "wikipedia",
    ]
    assert sorted(n for n, s in engines.items() if s.last_resort) == [
        "brave",
        "google",
        "google_scholar",
    ]
    ddg = engines["duckduckgo"]
    assert (ddg.base_url, ddg.parser, ddg.query_param, ddg.method, ddg.qps) == (
        "https://html.duckduckgo.com/html/",
        "duckduckgo",
        "q",
        "GET",
        0.25,
    )
    assert engines["duckduckgo_lite"].base_url == "https://lite.duckduckgo.com/lite/"
    assert engines["local"].paths != ()


def test_settings_override_only_the_keys_they_name(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path,
        engines={
            "duckduckgo": {"base_url": "http://127.0.0.1:9/html/"},
            "google": {"enabled": True, "qps": 0.01},
            "wikipedia": {"base_url": "http://127.0.0.1:9/w/api.php", "page_step": 20},
        },
    )
    engines = load_engines(settings)
    ddg = engines["duckduckgo"]
    # EngineSettings defaults (enabled False, parser None) must not shadow engines.yaml.
    assert (ddg.enabled, ddg.parser, ddg.base_url, ddg.page_step) == (
        True,
        "duckduckgo",
        "http://127.0.0.1:9/html/",
        30,
    )
    google = engines["google"]
    assert (google.enabled, google.qps, google.weight, google.params) == (
        True,
        0.01,
        0.3,
        {"gbv": "1"},
    )
    assert (engines["wikipedia"].page_step, engines["wikipedia"].query_param) == (20, "srsearch")


def test_an_engine_named_only_in_settings_is_loaded(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path,
        engines={
            "ddg_mirror": {
                "enabled": True,
                "base_url": "http://127.0.0.1:9/html/",
                "parser": "duckduckgo",
                "method": "post",
            }
        },
    )
    spec = load_engines(settings)["ddg_mirror"]
    assert (spec.enabled, spec.parser, spec.method, spec.qps, spec.query_param) == (
        True,
        "duckduckgo",
        "POST",
        0.25,
        "q",
    )


def test_unknown_engine_key_is_a_configuration_error(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, engines={"mojeek": {"qpss": 3}})
    with pytest.raises(ValueError, match=r"engines.mojeek: unknown keys \['qpss'\]"):
        load_engines(settings)


REQUEST_CASES = [
    ("duckduckgo", 1, "https://html.duckduckgo.com/html/?q=ocean+pH"),
    ("duckduckgo", 2, "https://html.duckduckgo.com/html/?q=ocean+pH&s=30"),
    ("mojeek", 3, "https://www.mojeek.com/search?q=ocean+pH&s=21"),
    ("bing", 2, "https://www.bing.com/search?q=ocean+pH&first=11"),
    ("google", 1, "https://www.google.com/search?gbv=1&q=ocean+pH"),
    ("brave", 2, "https://search.brave.com/search?q=ocean+pH&offset=1"),
    ("startpage", 2, "https://www.startpage.com/sp/search?query=ocean+pH&page=2"),
    ("marginalia", 1, "https://search.marginalia.nu/search?query=ocean+pH"),
    ("qwant", 2, "https://lite.qwant.com/?q=ocean+pH&p=2"),
    (
        "wikipedia",
        2,
        "https://en.wikipedia.org/w/api.php?action=query&list=search&format=json"
        "&srlimit=10&utf8=1&srsearch=ocean+pH&sroffset=10",
    ),
]


@pytest.mark.parametrize(("name", "page", "url"), REQUEST_CASES)
def test_build_request(tmp_path: Path, name: str, page: int, url: str) -> None:
    spec = load_engines(make_settings(tmp_path))[name]
    assert build_request(spec, "ocean pH", page) == (url, None)


@pytest.mark.parametrize(
    ("name", "language", "url"),
    [
        ("duckduckgo", "ja", "https://html.duckduckgo.com/html/?q=ocean+pH&kl=jp-jp"),
        ("duckduckgo", "pt-BR", "https://html.duckduckgo.com/html/?q=ocean+pH&kl=br-pt"),
        ("duckduckgo", "pt", "https://html.duckduckgo.com/html/?q=ocean+pH&kl=pt-pt"),
        # A language DuckDuckGo's map does not name: no region sent, never a guess.
        ("duckduckgo", "eu", "https://html.duckduckgo.com/html/?q=ocean+pH"),
        ("google", "de-AT", "https://www.google.com/search?gbv=1&q=ocean+pH&hl=de"),
        ("bing", "fr", "https://www.bing.com/search?q=ocean+pH&setlang=fr"),
        ("mojeek", "en", "https://www.mojeek.com/search?q=ocean+pH&lb=en"),
        # An engine with no locale parameter is asked as before.
        ("marginalia", "ja", "https://search.marginalia.nu/search?query=ocean+pH"),
    ],
)
def test_a_task_language_sets_the_engine_locale(
    tmp_path: Path, name: str, language: str, url: str
) -> None:
    spec = load_engines(make_settings(tmp_path))[name]
    assert build_request(spec, "ocean pH", 1, language=language) == (url, None)


def test_post_engine_sends_a_form() -> None:
    spec = EngineSpec(
        name="x",
        base_url="http://127.0.0.1:9/html/",
        parser="duckduckgo",
        method="POST",
        page_param="s",
        page_step=30,
    )
    assert build_request(spec, "日本 海", 2) == (
        "http://127.0.0.1:9/html/",
        {"q": "日本 海", "s": "30"},
    )


def test_build_request_keeps_a_base_url_query() -> None:
    spec = EngineSpec(name="x", base_url="http://127.0.0.1:9/s?lang=ja", parser="mojeek")
    assert build_request(spec, "a", 1) == ("http://127.0.0.1:9/s?lang=ja&q=a", None)


def test_build_request_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match=r"engines.x.base_url is not set"):
        build_request(EngineSpec(name="x"), "a")
    with pytest.raises(ValueError, match="page must be 1 or more, got 0"):
        build_request(EngineSpec(name="x", base_url="http://127.0.0.1:9/"), "a", 0)


def test_serp_from_a_loopback_engine(tmp_path: Path, fixture_server: FixtureServer) -> None:
    """The whole data path: settings point the engine at loopback, the request is built,
    sent, and the body parsed with the engine's name on every item."""
    _need(SERP)
    page = (SERP / "duckduckgo-html" / "ddg_html_antani_2020.html").read_bytes()
    fixture_server.route("/html/", body=page)
    settings = make_settings(
        tmp_path, engines={"duckduckgo": {"base_url": fixture_server.url("/html/")}}
    )
    spec = load_engines(settings)["duckduckgo"]
    url, form = build_request(spec, "antani", 2)
    assert form is None
    with urllib.request.urlopen(url, timeout=10) as response:
        status, headers, body = response.status, dict(response.headers), response.read()
    assert serp_blocked(body, status, headers, url) is None
    items = parse_serp(spec, body, url)
    assert (len(items), items[0].engine, items[0].rank, items[0].url) == (
        30,
        "duckduckgo",
        1,
        "https://www.lettera43.it/howto/come-se-fosse-antani-significato/",
    )
    (request,) = fixture_server.requests
    assert parse_qs(urlsplit(request.path).query) == {"q": ["antani"], "s": ["30"]}


def test_parse_serp_needs_a_parser() -> None:
    with pytest.raises(ValueError, match=r"engines.x.parser is not set"):
        parse_serp(EngineSpec(name="x"), "<html></html>", "http://127.0.0.1:9/")


@pytest.mark.parametrize(
    ("name", "status", "reason"),
    [
        ("google-sorry/google_recaptcha_unusual_traffic.html", 429, "challenge:captcha"),
        (
            "mojeek/mojeek_altcha_captcha_rust_programming_language.html",
            403,
            "challenge:captcha",
        ),
        ("cloudscraper-fixtures/js_challenge1_16_05_2020.html", 503, "challenge:cloudflare"),
    ],
)
def test_challenge_pages_are_blocks_and_parse_to_nothing(
    name: str, status: int, reason: str
) -> None:
    _need(CHALLENGES)
    body = (CHALLENGES / name).read_bytes()
    blocked = serp_blocked(body, status, {"content-type": "text/html"})
    assert blocked is not None
    assert blocked.reason == reason
    for parser in ("google", "mojeek", "duckduckgo", "bing"):
        assert parse_serp(EngineSpec(name=parser, parser=parser), body, "https://x.example/") == []


def test_refusing_status_without_marker_is_a_block() -> None:
    blocked = serp_blocked(b"", 429, {})
    assert blocked is not None
    assert (blocked.reason, blocked.challenge) == ("status:429", None)


@pytest.mark.parametrize(
    ("name", "parser"),
    [
        ("zlurad-serp-parser/google-nojs/no-results-nojs.html", "google"),
        ("zlurad-serp-parser/bing-nojs/no-results-nojs.html", "bing"),
    ],
)
def test_no_results_page_is_empty_not_blocked(name: str, parser: str) -> None:
    _need(SERP)
    body = (SERP / name).read_bytes()
    assert serp_blocked(body, 200, {"content-type": "text/html; charset=utf-8"}) is None
    assert parse_serp(EngineSpec(name=parser, parser=parser), body, "https://x.example/") == []
