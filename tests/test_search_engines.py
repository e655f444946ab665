"""Issue 4 acceptance (first part), end to end over MCP: with `engines.duckduckgo.base_url`
pointing at a loopback server that answers in DuckDuckGo's html markup, `search(...,
options={engines: ["duckduckgo"]})` stores the SERP rows in rank order and fetches,
extracts and draws claims from the result pages (through the fetch layer).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from mcp import Client

from lyra.config.settings import Settings
from lyra.mcp_bridge.server import build_server
from tests.conftest import make_settings
from tests.conftest_web import FixtureServer
from tests.fake_ollama import FakeOllama

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

QUERY = "Does green tea lower blood pressure?"
ARTICLES = {
    "/tea-trial.html": """<html><head><title>Green tea trial</title></head><body><article>
<h1>Green tea and blood pressure</h1>
<p>Daily green tea lowered systolic blood pressure by about three mmHg in a twelve week
randomised trial of adults with mild hypertension.</p></article></body></html>""",
    "/tea-review.html": """<html><head><title>Tea review</title></head><body><article>
<h1>Tea catechins review</h1>
<p>Green tea catechins modestly reduce blood pressure in adults, a meta-analysis of
randomised trials reported in its pooled estimate.</p></article></body></html>""",
}


def serp_page(results: list[tuple[str, str, str]], ad: str) -> bytes:
    """A results page in html.duckduckgo.com's markup (div.result, a.result__a, ...)."""
    blocks = [
        '<div class="result results_links result--ad"><div class="links_main">'
        f'<a class="result__a" href="https://duckduckgo.com/y.js?ad_domain=x&u3={ad}">Ad</a>'
        '<a class="result__snippet">Buy tea now</a></div></div>'
    ]
    for title, url, snippet in results:
        blocks.append(
            '<div class="result results_links results_links_deep web-result">'
            f'<div class="links_main"><h2 class="result__title"><a class="result__a" '
            f'href="//duckduckgo.com/l/?uddg={url}&amp;rut=abc">{title}</a></h2>'
            f'<a class="result__snippet" href="{url}">{snippet}</a></div></div>'
        )
    return ('<html><body><div id="links">' + "".join(blocks) + "</div></body></html>").encode()


def ddg_settings(
    home: Path, engine: FixtureServer, corpus: Path | None = None, **over: Any
) -> Settings:
    """DuckDuckGo answered by the loopback `engine`; the local corpus engine only with
    a `corpus`."""
    engines: dict[str, Any] = {
        "duckduckgo": {"enabled": True, "base_url": engine.url("/html/"), "qps": 10.0}
    }
    if corpus is None:
        engines["local"] = {"enabled": False}
    return make_settings(home, corpus=corpus, fetch={"default_qps": 20.0}, engines=engines,
                         **over)  # fmt: skip


async def test_engine_serp_is_stored_in_rank_order_and_its_pages_are_ingested(
    lyra_home: Path,
) -> None:
    engine = FixtureServer("127.0.0.60")
    site = FixtureServer("127.0.0.61")
    try:
        for path, html in ARTICLES.items():
            site.route(path, body=html.encode())
        # A #fragment is never sent: the second result is the first page, and the
        # review's row names the page as it is stored.
        results = [
            ("Green tea trial", site.url("/tea-trial.html"), "A twelve week trial."),
            ("Trial results", site.url("/tea-trial.html#results"), "Its results."),
            ("Tea review", site.url("/tea-review.html#abstract"), "Catechins and pressure."),
        ]
        engine.route("/html/", body=serp_page(results, site.url("/ad.html")))
        settings = ddg_settings(lyra_home, engine)
        async with Client(build_server(settings)) as client:
            task = await client.call_tool("create_task", {"query": QUERY})
            task_id = task.structured_content["task_id"]
            res = await client.call_tool(
                "search",
                {
                    "task_id": task_id,
                    "query": QUERY,
                    "options": {"engines": ["duckduckgo"], "wait_seconds": 110},
                },
            )
            assert res.is_error is False, res.content[0].text
            out = res.structured_content
            rows = (
                await client.call_tool(
                    "query_graph",
                    {"sql": "SELECT engine, rank, url, title FROM serp_items ORDER BY rank"},
                )
            ).structured_content["rows"]
            pages = (
                await client.call_tool("query_graph", {"sql": "SELECT url FROM pages ORDER BY url"})
            ).structured_content["rows"]
    finally:
        engine.close()
        site.close()

    serp_requests = [r for r in engine.requests if r.path.startswith("/html/")]
    assert len(serp_requests) == 1
    assert parse_qs(urlsplit(serp_requests[0].path).query)["q"] == [QUERY]
    assert rows == [
        ["duckduckgo", 1, site.url("/tea-trial.html"), "Green tea trial"],
        ["duckduckgo", 3, site.url("/tea-review.html"), "Tea review"],
    ]
    assert (site.paths().count("/tea-trial.html"), site.paths().count("/tea-review.html")) == (
        1,
        1,
    )
    assert [p[0] for p in pages] == [site.url("/tea-review.html"), site.url("/tea-trial.html")]
    assert out["pages_fetched"] == 2
    # The ad was dropped, never fetched.
    assert "/ad.html" not in site.paths()
    texts = [c["text"] for c in out["claims_found"]]
    assert any(t.startswith("Daily green tea lowered systolic blood pressure") for t in texts)


async def test_priority_sites_are_asked_for_first_and_take_the_room_first(
    lyra_home: Path,
) -> None:
    engine = FixtureServer("127.0.0.63")
    other = FixtureServer("127.0.0.64")
    preferred = FixtureServer("127.0.0.65")
    try:
        for server in (other, preferred):
            for path, html in ARTICLES.items():
                server.route(path, body=html.encode())
        results = [
            ("Green tea trial", other.url("/tea-trial.html"), "A twelve week trial."),
            ("Tea review", other.url("/tea-review.html"), "Catechins and blood pressure."),
            ("Tea review", preferred.url("/tea-review.html"), "The same review."),
        ]
        engine.route("/html/", body=serp_page(results, other.url("/ad.html")))
        settings = ddg_settings(lyra_home, engine)
        async with Client(build_server(settings)) as client:
            created = await client.call_tool("create_task", {"query": QUERY, "config": {
                "priority_domains": [preferred.url("/anything")], "language": "en",
            }})  # fmt: skip
            assert created.is_error is False, created.content[0].text
            task_id = created.structured_content["task_id"]
            res = await client.call_tool("search", {
                "task_id": task_id, "query": QUERY,
                "options": {"engines": ["duckduckgo"], "max_pages": 2, "wait_seconds": 110},
            })  # fmt: skip
            assert res.is_error is False, res.content[0].text
            status = (await client.call_tool("get_status", {"task_id": task_id})).structured_content
            bad = await client.call_tool(
                "create_task", {"query": QUERY, "config": {"language": "not a language"}}
            )
            no_site = await client.call_tool(
                "create_task", {"query": QUERY, "config": {"priority_domains": ["   "]}}
            )
            two_words = await client.call_tool(
                "create_task", {"query": QUERY, "config": {"priority_domains": ["nih gov"]}}
            )
    finally:
        engine.close()
        other.close()
        preferred.close()

    serps = [r for r in engine.requests if r.path.startswith("/html/")]
    asked = [parse_qs(urlsplit(r.path).query) for r in serps]
    assert [q["q"] for q in asked] == [[f"site:127.0.0.65 {QUERY}"], [QUERY]]
    # The task's language sets the engine's locale (DuckDuckGo's region).
    assert [q["kl"] for q in asked] == [["us-en"], ["us-en"]]
    # Two pages of room: the priority site's result first, then the best other one.
    assert preferred.paths().count("/tea-review.html") == 1
    assert other.paths().count("/tea-trial.html") == 1
    assert "/tea-review.html" not in other.paths()
    assert (status["priority_domains"], status["language"]) == (["127.0.0.65"], "en")
    assert json.loads(bad.content[0].text)["error"]["code"] == "INVALID_PARAMS"
    assert json.loads(no_site.content[0].text)["error"] == {
        "code": "INVALID_PARAMS", "field": "config.priority_domains",
        "message": "'   ' is not a domain name or URL",
    }  # fmt: skip
    assert json.loads(two_words.content[0].text)["error"]["message"] == (
        "'nih gov' is not a domain name or URL"
    )


def _german_mirror(path: str, body: dict[str, object]) -> str:
    system = str(body.get("system") or "")
    if "translate one web search query into German" in system:
        return json.dumps({"query": "Senkt grüner Tee den Blutdruck?"})
    return json.dumps({"claims": []})


async def test_the_task_language_chooses_the_mirror_query(lyra_home: Path) -> None:
    engine = FixtureServer("127.0.0.66")
    site = FixtureServer("127.0.0.67")
    try:
        for path, html in ARTICLES.items():
            site.route(path, body=html.encode())
        results = [("Green tea trial", site.url("/tea-trial.html"), "A twelve week trial.")]
        engine.route("/html/", body=serp_page(results, site.url("/ad.html")))
        with FakeOllama(models=["qwen2.5:3b"], responder=_german_mirror) as llm:
            settings = ddg_settings(
                lyra_home, engine, llm={"ollama_host": llm.url, "enabled": True}
            )
            async with Client(build_server(settings)) as client:
                created = await client.call_tool(
                    "create_task", {"query": QUERY, "config": {"language": "de-DE"}}
                )
                task_id = created.structured_content["task_id"]
                res = await client.call_tool("search", {
                    "task_id": task_id, "query": QUERY,
                    "options": {"engines": ["duckduckgo"], "max_pages": 1, "wait_seconds": 110},
                })  # fmt: skip
                assert res.is_error is False, res.content[0].text
            prompts = [str(b.get("system")) for p, b in llm.requests if p == "/api/generate"]
    finally:
        engine.close()
        site.close()
    asked = [
        parse_qs(urlsplit(r.path).query) for r in engine.requests if r.path.startswith("/html/")
    ]
    assert [(q["q"], q["kl"]) for q in asked] == [
        ([QUERY], ["de-de"]), (["Senkt grüner Tee den Blutdruck?"], ["de-de"])
    ]  # fmt: skip
    assert sum("into German" in p for p in prompts) == 1


async def test_a_priority_site_keeps_its_room_against_a_better_scored_corpus_file(
    lyra_home: Path, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "tea.md").write_text(
        "# Does green tea lower blood pressure?\n\nGreen tea lowers blood pressure: does green "
        "tea lower blood pressure in adults with hypertension? Daily green tea lowered "
        "systolic blood pressure by four mmHg in a randomised trial of green tea.\n",
        encoding="utf-8",
    )
    engine = FixtureServer("127.0.0.68")
    preferred = FixtureServer("127.0.0.69")
    try:
        preferred.route("/tea-review.html", body=ARTICLES["/tea-review.html"].encode())
        results = [("Tea review", preferred.url("/tea-review.html"), "Catechins.")]
        engine.route("/html/", body=serp_page(results, preferred.url("/ad.html")))
        settings = ddg_settings(lyra_home, engine, corpus=corpus)
        async with Client(build_server(settings)) as client:
            outcomes = []
            for config in ({}, {"priority_domains": [preferred.origin]}):
                created = await client.call_tool("create_task", {"query": QUERY, "config": config})
                task_id = created.structured_content["task_id"]
                res = await client.call_tool("search", {
                    "task_id": task_id, "query": QUERY,
                    "options": {"engines": ["local", "duckduckgo"], "max_pages": 1,
                                "wait_seconds": 110},
                })  # fmt: skip
                assert res.is_error is False, res.content[0].text
                pages = await client.call_tool("query_graph", {
                    "sql": "SELECT DISTINCT p.url FROM claims c JOIN edges e ON e.target_id "
                           "= c.id AND e.relation = 'origin' JOIN fragments f ON f.id = "
                           "e.source_id JOIN pages p ON p.id = f.page_id WHERE c.search_id = $s",
                    "params": {"s": res.structured_content["search_id"]},
                })  # fmt: skip
                outcomes.append([row[0] for row in pages.structured_content["rows"]])
    finally:
        engine.close()
        preferred.close()
    # Scored alone, the corpus file wins the one page of room; a priority site's page
    # goes ahead of it (the pages its claims come from).
    assert outcomes[0] == [(corpus / "tea.md").resolve().as_uri()]
    assert outcomes[1] == [preferred.url("/tea-review.html")]
