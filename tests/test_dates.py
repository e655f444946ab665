"""Publication dates with their provenance (pipelines/extract/dates.py, issue 15):
JSON-LD, then <meta>, then htmldate, then the HTTP Last-Modified header; stored with
each page (pages.published_date, pages.published_date_source)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import ray
from mcp import Client

from lyra.actors.orchestrator import Orchestrator
from lyra.config.settings import Settings
from lyra.mcp_bridge.server import build_server
from lyra.pipelines.extract.dates import (
    PublicationDate,
    html_publication_date,
    last_modified_date,
)
from lyra.pipelines.extract.extract_html import extract_html
from tests.conftest import SHARED, make_settings
from tests.conftest_web import FixtureServer
from tests.test_search_urls import PAGE

READABILITY = SHARED / "realworld" / "articles" / "readability-testpages"


def test_pages_of_a_third_party_test_suite_give_their_expected_dates() -> None:
    if not READABILITY.is_dir():
        pytest.skip(f"third-party pages not present at {READABILITY}")
    found = {}
    for folder in sorted(READABILITY.iterdir()):
        expected = json.loads((folder / "expected-metadata.json").read_text()).get("publishedTime")
        if expected:
            html = (folder / "source.html").read_text(errors="replace")
            got = html_publication_date(html, f"https://example.org/{folder.name}")
            found[folder.name] = (expected[:10], got.date if got else None)
    # readability's expected metadata has a publication time for four of its pages.
    assert sorted(found) == ["aclu", "bbc-1", "gitlab-blog", "medium-2"]
    assert all(want == got for want, got in found.values()), found


def _page(head: str, body: str = "<p>Text.</p>") -> str:
    return f"<html><head>{head}</head><body>{body}</body></html>"


def test_json_ld_comes_first_then_meta() -> None:
    both = _page(
        '<meta property="article:published_time" content="2019-01-02T10:00:00Z">'
        '<script type="application/ld+json">{"@context": "https://schema.org", "@graph": '
        '[{"@type": "WebPage"}, {"@type": "NewsArticle", "datePublished": "2018-07-09"}]}'
        "</script>"
    )
    assert html_publication_date(both, "https://a.org/x") == PublicationDate("2018-07-09", "jsonld")
    meta_only = _page('<meta name="citation_publication_date" content="2016/05">')
    assert html_publication_date(meta_only, "https://a.org/x") == PublicationDate(
        "2016-05-01", "meta"
    )
    year_only = _page('<meta name="dc.date" content="2003">')
    assert html_publication_date(year_only, "https://a.org/x") == PublicationDate(
        "2003-01-01", "meta"
    )


def test_bad_dates_and_hostile_json_are_ignored() -> None:
    hostile = _page(
        '<script type="application/ld+json">{not json</script>'
        '<meta property="article:published_time" content="1066-10-14">'
        '<meta name="pubdate" content="2999-01-01">'
    )
    assert html_publication_date(hostile, "https://a.org/x") is None
    assert last_modified_date("Wed, 21 Oct 2015 07:28:00 GMT") == PublicationDate(
        "2015-10-21", "last_modified"
    )
    assert last_modified_date("yesterday") is None
    assert last_modified_date(None) is None


def test_extracted_documents_carry_the_date_and_its_source() -> None:
    doc = extract_html(
        _page('<meta property="article:published_time" content="2021-09-30">', PAGE),
        "https://a.org/x",
        "a.org",
    )
    assert (doc.published_date, doc.date_source) == ("2021-09-30", "meta")


@pytest.fixture(scope="module")
def settings(lyra_home: Path) -> Iterator[Settings]:
    settings = make_settings(lyra_home, fetch={"default_qps": 5.0})
    orch = Orchestrator.options(
        name="orchestrator", namespace=settings.ray.namespace, get_if_exists=True
    ).remote(settings)
    yield settings
    ray.kill(orch)


@pytest.mark.ray
@pytest.mark.usefixtures("ray_session")
async def test_stored_pages_keep_the_date_and_where_it_was_read(settings: Settings) -> None:
    server = FixtureServer("127.0.0.1")
    try:
        server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain")
        dated = PAGE.replace(
            "<title>", '<meta name="citation_publication_date" content="2012-06-01"><title>'
        )
        server.route("/dated.html", body=dated.encode())
        server.route(
            "/modified.html",
            body=PAGE.replace("Caffeine and sleep", "Caffeine at night").encode(),
            headers={"Last-Modified": "Tue, 03 Mar 2020 10:00:00 GMT"},
        )
        urls = [server.url("/dated.html"), server.url("/modified.html")]
        async with Client(build_server(settings)) as client:
            task = (await client.call_tool("create_task", {"query": "caffeine"})).structured_content
            res = await client.call_tool(
                "search",
                {
                    "task_id": task["task_id"],
                    "query": "caffeine and sleep",
                    "options": {"urls": urls, "wait_seconds": 110},
                },
            )
            assert res.is_error is False, res.content[0].text
            rows = (
                await client.call_tool(
                    "query_graph",
                    {
                        "sql": "SELECT url, CAST(published_date AS VARCHAR), "
                        "published_date_source FROM pages ORDER BY url"
                    },
                )
            ).structured_content["rows"]
        assert rows == [
            [urls[0], "2012-06-01", "meta"],
            [urls[1], "2020-03-03", "last_modified"],
        ]
    finally:
        server.close()
