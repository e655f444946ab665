"""robots.txt policy (RFC 9309) and protego conformance on Google's specification examples."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lyra.pipelines.net.robots import (
    MAX_ROBOTS_BYTES,
    UNREACHABLE_RETRY_SECONDS,
    RobotsPolicy,
    effective_qps,
    origin_of,
    robots_url,
)

REALWORLD = Path(__file__).resolve().parents[2] / "shared" / "realworld" / "robots"
SPEC_CASES = REALWORLD / "protego_google_spec_cases.json"
UA = "LyraResearchBot"


def _spec_table(name: str) -> dict[str, Any]:
    if not SPEC_CASES.is_file():
        pytest.skip(f"third-party robots.txt cases not present at {SPEC_CASES}")
    data = json.loads(SPEC_CASES.read_text(encoding="utf-8"))
    tables = {t["test"]: t for t in data["tests"]}
    return tables[name]


def _cases(name: str) -> list[Any]:
    # Collected lazily inside the tests so a missing folder skips, not errors.
    return list(_spec_table(name)["cases"])


def test_google_spec_user_agent_precedence() -> None:
    table = _spec_table("test_user_agent_precedence")
    policy = RobotsPolicy.parse(table["robotstxt_content"])
    assert len(table["cases"]) == 6
    for path, user_agent in table["cases"]:
        first_allowed = next(
            p
            for p in ("/group1", "/group2", "/group3")
            if policy.allowed(f"http://example.com{p}", user_agent)
        )
        assert first_allowed == path, (path, user_agent)


def test_google_spec_path_matching() -> None:
    cases = _cases("test_path_matching")
    assert len(cases) == 49
    mismatches = []
    for pattern, path, match in cases:
        policy = RobotsPolicy.parse(f"User-Agent: *\ndisallow: {pattern}\n")
        if (not policy.allowed(f"http://example.com{path}", "*")) != match:
            mismatches.append((pattern, path, match))
    assert mismatches == []


def test_google_spec_record_precedence() -> None:
    cases = _cases("test_record_precedence")
    assert len(cases) == 4
    results = [
        (RobotsPolicy.parse(f"User-Agent: *\n{rules}\n").allowed(url, "*"), allowed)
        for rules, url, allowed in cases
    ]
    assert [got for got, _ in results] == [want for _, want in results]


def test_real_robots_files_parse() -> None:
    folder = REALWORLD / "robotstxt"
    if not folder.is_dir():
        pytest.skip(f"third-party robots.txt files not present at {folder}")
    wikipedia = RobotsPolicy.parse((folder / "en.wikipedia.org.robots.txt").read_bytes())
    assert wikipedia.allowed("https://en.wikipedia.org/wiki/Coffee", UA) is True
    assert (
        wikipedia.allowed("https://en.wikipedia.org/w/index.php?title=Special:Search", UA) is False
    )
    # GitHub lets only named crawlers in; "*" gets humans.txt alone.
    github = RobotsPolicy.parse((folder / "github.com.robots.txt").read_bytes())
    assert github.allowed("https://github.com/scrapy/protego", UA) is False
    assert github.allowed("https://github.com/humans.txt", UA) is True
    arxiv = RobotsPolicy.parse((folder / "arxiv.org.robots.txt").read_bytes())
    assert arxiv.allowed("https://arxiv.org/abs/2101.00001", UA) is True
    assert arxiv.crawl_delay(UA) == 15.0
    assert effective_qps(0.2, arxiv, UA) == pytest.approx(1 / 15)


def test_parsed_rules_and_rates() -> None:
    policy = RobotsPolicy.parse(
        "User-agent: *\nDisallow: /private\nCrawl-delay: 4\nRequest-rate: 1/10s\n"
        "Sitemap: https://example.com/sitemap.xml\n",
        fetched_at=100.0,
    )
    assert policy.kind == "parsed"
    assert policy.allowed("https://example.com/private/x", UA) is False
    assert policy.allowed("https://example.com/public", UA) is True
    assert policy.allowed("https://example.com/robots.txt", UA) is True
    assert policy.crawl_delay(UA) == 4.0
    assert policy.request_rate(UA) == 0.1
    assert policy.sitemaps() == ["https://example.com/sitemap.xml"]
    assert policy.fetched_at == 100.0


def test_specific_group_wins_for_our_agent() -> None:
    policy = RobotsPolicy.parse(
        "User-agent: *\nDisallow: /\n\nUser-agent: LyraResearchBot\nAllow: /\n"
    )
    assert policy.allowed("https://example.com/page", UA) is True
    assert policy.allowed("https://example.com/page", "OtherBot") is False


STATUS_TABLE = [
    (200, "parsed"),
    (204, "parsed"),
    (301, "allow_all"),
    (401, "allow_all"),
    (403, "allow_all"),
    (404, "allow_all"),
    (410, "allow_all"),
    (429, "disallow_all"),
    (500, "disallow_all"),
    (503, "disallow_all"),
    (None, "disallow_all"),
]


@pytest.mark.parametrize(("status", "kind"), STATUS_TABLE)
def test_rfc9309_status_mapping(status: int | None, kind: str) -> None:
    policy = RobotsPolicy.from_response(status, b"User-agent: *\nDisallow: /x\n", fetched_at=0.0)
    assert policy.kind == kind
    assert policy.status == status


@pytest.mark.parametrize(("status", "allowed"), [(404, True), (503, False), (None, False)])
def test_status_policy_decides_every_path(status: int | None, allowed: bool) -> None:
    policy = RobotsPolicy.from_response(status, None, fetched_at=0.0)
    assert policy.allowed("https://example.com/any/path", UA) is allowed
    assert policy.allowed("https://example.com/robots.txt", UA) is True


def test_cache_lifetimes() -> None:
    ok = RobotsPolicy.from_response(200, b"", fetched_at=1000.0)
    down = RobotsPolicy.from_response(503, b"", fetched_at=1000.0)
    assert ok.max_age(86400) == 86400.0
    assert ok.max_age(10 * 86400) == 86400.0  # RFC 9309: at most 24 h
    assert down.max_age(86400) == UNREACHABLE_RETRY_SECONDS
    assert ok.is_fresh(86400, now=1000.0 + 86399) is True
    assert ok.is_fresh(86400, now=1000.0 + 86400) is False
    assert down.is_fresh(86400, now=1000.0 + UNREACHABLE_RETRY_SECONDS) is False
    assert ok.is_fresh(86400, now=999.0) is False


def test_oversized_file_is_cut_at_500_kib() -> None:
    padding = b"# " + b"x" * MAX_ROBOTS_BYTES + b"\n"
    policy = RobotsPolicy.parse(padding + b"User-agent: *\nDisallow: /\n")
    # The Disallow lies beyond the parse limit and is ignored.
    assert policy.allowed("https://example.com/page", UA) is True


def test_bom_is_ignored() -> None:
    policy = RobotsPolicy.parse(b"\xef\xbb\xbfUser-agent: *\nDisallow: /secret\n")
    assert policy.allowed("https://example.com/secret", UA) is False


EFFECTIVE_QPS = [
    ("", 0.2, 0.2),
    ("User-agent: *\nCrawl-delay: 10\n", 0.2, 0.1),
    ("User-agent: *\nCrawl-delay: 1\n", 0.2, 0.2),
    ("User-agent: *\nRequest-rate: 1/20s\n", 0.2, 0.05),
    ("User-agent: *\nCrawl-delay: 2\nRequest-rate: 1/10s\n", 5.0, 0.1),
    ("User-agent: *\nRequest-rate: 100/1s\n", 0.2, 0.2),
]


@pytest.mark.parametrize(("content", "default", "expected"), EFFECTIVE_QPS)
def test_effective_qps_only_lowers(content: str, default: float, expected: float) -> None:
    assert effective_qps(default, RobotsPolicy.parse(content), UA) == pytest.approx(expected)


def test_effective_qps_without_policy_and_invalid_default() -> None:
    assert effective_qps(0.25, None) == 0.25
    assert effective_qps(0.25, RobotsPolicy.from_response(404, None)) == 0.25
    with pytest.raises(ValueError):
        effective_qps(0.0, None)


def test_robots_url_and_origin() -> None:
    assert robots_url("HTTPS://Example.COM:8443/a/b?c=d#e") == "https://example.com:8443/robots.txt"
    assert origin_of("http://Sub.Example.com/x") == "http://sub.example.com"


HANDLED_SPEC_TABLES = {"test_user_agent_precedence", "test_path_matching", "test_record_precedence"}


def test_every_google_spec_table_is_checked() -> None:
    if not SPEC_CASES.is_file():
        pytest.skip(f"third-party robots.txt cases not present at {SPEC_CASES}")
    data = json.loads(SPEC_CASES.read_text(encoding="utf-8"))
    assert {t["test"] for t in data["tests"]} == HANDLED_SPEC_TABLES
    assert sum(len(t["cases"]) for t in data["tests"]) == 6 + 49 + 4


def test_google_spec_user_agent_precedence_exactly_one_group() -> None:
    # Stricter than "first allowed": the agent's own group is the only one it may read.
    table = _spec_table("test_user_agent_precedence")
    policy = RobotsPolicy.parse(table["robotstxt_content"])
    decisions = {
        (path, agent): {
            group
            for group in ("/group1", "/group2", "/group3")
            if policy.allowed(f"http://example.com{group}", agent)
        }
        for path, agent in table["cases"]
    }
    assert decisions == {(path, agent): {path} for path, agent in table["cases"]}


def test_google_spec_record_precedence_each_case() -> None:
    decisions = [
        (rules, url, RobotsPolicy.parse(f"User-Agent: *\n{rules}\n").allowed(url, "*"))
        for rules, url, _ in _cases("test_record_precedence")
    ]
    assert decisions == [tuple(case) for case in _cases("test_record_precedence")]


SITEMAPS = {
    "arxiv.org.robots.txt": [],
    "duckduckgo.com.robots.txt": ["https://duckduckgo.com/sitemap.xml"],
    "en.wikipedia.org.robots.txt": [],
    "github.com.robots.txt": [],
    "misuse.ncbi.nlm.nih.gov.robots.txt": [],
    "onlinelibrary.wiley.com.robots.txt": [],
    "stackoverflow.com.robots.txt": ["https://stackoverflow.com/sitemap.xml"],
    "twitter.com.robots.txt": ["https://twitter.com/sitemap.xml"],
    "www.amazon.com.robots.txt": [],
    # bbc.co.uk lists http://www.bbc.co.uk/sitemap.xml three times.
    "www.bbc.co.uk.robots.txt": [
        "http://www.bbc.co.uk/sitemaps/index-uk-archive.xml",
        "http://www.bbc.co.uk/sitemaps/index-uk-news.xml",
        "http://www.bbc.co.uk/video_sitemap.xml",
        "http://www.bbc.co.uk/sitemap.xml",
        "https://www.bbc.co.uk/food/sitemap.xml",
        "http://www.bbc.co.uk/mobile_sitemap.xml",
    ],
    "www.bing.com.robots.txt": [
        "http://cn.bing.com/dict/sitemap-index.xml",
        "http://cached.blob.core.windows.net/tmp/sitemap_all_v2.xml",
        "https://www.bing.com/api/maps/mapcontrol/isdk/sitemap.xml",
        "https://www.bing.com/travelguide/sitemaps/sitemap.xml",
        "https://www.bing.com/maps/sitemap.xml",
        "https://bingknowsblob.blob.core.windows.net/bingknows/sitemaps/sitemapIndex.xml.gz",
    ],
    "www.google.com.robots.txt": ["https://www.google.com/sitemap.xml"],
    "www.nature.com.robots.txt": [
        "https://www.nature.com/sitemap.xml",
        "https://www.nature.com/subjects/sitemap.xml",
        "https://www.nature.com/naturecareers/sitemap.xml",
    ],
    "www.nytimes.com.robots.txt": [
        "https://www.nytimes.com/sitemaps/www.nytimes.com/sitemap.xml.gz",
        "https://www.nytimes.com/sitemaps/sitemap_news/sitemap.xml.gz",
        "https://www.nytimes.com/sitemaps/sitemap_video/sitemap.xml.gz",
        "https://www.nytimes.com/sitemaps/www.nytimes.com_realestate/sitemap.xml.gz",
        "https://www.nytimes.com/sitemaps/www.nytimes.com/2016_election_sitemap.xml.gz",
        "https://www.nytimes.com/elections/2018/sitemap",
    ],
    "www.reddit.com.robots.txt": [],
    "www.researchgate.net.robots.txt": [],
    "www.sciencedirect.com.robots.txt": [
        "https://www.sciencedirect.com/sitemap.xml",
        "https://www.sciencedirect.com/topics/sitemap-topics.xml",
        "https://www.sciencedirect.com/journal/sitemap-0.xml",
        "https://www.sciencedirect.com/bookseries/sitemap-0.xml",
        "https://www.sciencedirect.com/handbook/sitemap-0.xml",
        "https://www.sciencedirect.com/book/sitemap-0.xml",
        "https://www.sciencedirect.com/referencework/sitemap-0.xml",
        "https://www.sciencedirect.com/browse/sitemap.xml",
    ],
}


def test_sitemap_discovery_on_real_robots_files() -> None:
    folder = REALWORLD / "robotstxt"
    if not folder.is_dir():
        pytest.skip(f"third-party robots.txt files not present at {folder}")
    found = {
        path.name: RobotsPolicy.parse(path.read_bytes()).sitemaps()
        for path in sorted(folder.glob("*.robots.txt"))
    }
    assert found == SITEMAPS


def test_sitemaps_skip_relative_and_non_http_entries() -> None:
    policy = RobotsPolicy.parse(
        "User-agent: *\nDisallow:\nSitemap: /relative.xml\nSitemap: ftp://example.com/s.xml\n"
        "sitemap:   https://example.com/a.xml  \nSITEMAP: https://example.com/a.xml\n"
        "Sitemap: http://example.com/b.xml\n"
    )
    assert policy.sitemaps() == ["https://example.com/a.xml", "http://example.com/b.xml"]


@pytest.mark.parametrize("status", [404, 503, None])
def test_sitemaps_empty_without_a_file(status: int | None) -> None:
    body = b"Sitemap: https://example.com/s.xml\n"
    assert RobotsPolicy.from_response(status, body, fetched_at=0.0).sitemaps() == []
    assert RobotsPolicy.allow_all(fetched_at=0.0).sitemaps() == []
