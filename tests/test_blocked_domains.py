"""A BLOCKED domain (ARCHITECTURE §4) is never fetched or cited, and get_status says so.

The user blocks a loopback site in `$LYRA_HOME/domains.yaml`; a search given its URL,
and a page of another site that redirects to it, sends it no request at all (its own
server log stays empty), names it in `_lyra_meta.blocked_domains`, and `get_status`
lists it with reason, time, cause and how to restore it. Removing the rule lifts the
block without a restart.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import ray
from mcp import Client

from lyra.actors.fetch import get_fetcher
from lyra.mcp_bridge.server import build_server
from lyra.pipelines.net.domains import (
    block_match,
    block_rule,
    blocked_listing,
    load_domain_rules,
)
from tests.conftest import make_settings
from tests.conftest_web import FixtureServer
from tests.test_domains_reload import _touch_later
from tests.test_search_urls import PAGE

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

BLOCKED_HOST = "127.0.0.3"
OTHER_PAGE = PAGE.replace("Caffeine and sleep", "Caffeine and naps")
RULE = f"user_overrides: {BLOCKED_HOST}"


def test_block_rules_and_listing(tmp_path: Path) -> None:
    user = tmp_path / "domains.yaml"
    user.write_text(
        "user_overrides:\n  spam.org: BLOCKED\n  ok.org: LOW\n"
        "patterns:\n  BLOCKED: ['*.farm.net', 'mill.net']\n",
        encoding="utf-8",
    )
    rules = load_domain_rules(user)
    assert block_rule("https://www.spam.org/a", rules) == "user_overrides: spam.org"
    assert block_rule("https://a.b.farm.net/x", rules) == "patterns.BLOCKED: *.farm.net"
    # Recorded under the name the rule matched: the site, or the one host it names.
    assert block_match("https://www.spam.org/a", rules) == ("spam.org", "user_overrides: spam.org")
    assert block_match("https://a.farm.net/x", rules) == (
        "a.farm.net",
        "patterns.BLOCKED: *.farm.net",
    )
    assert block_rule("ok.org", rules) is None
    assert block_rule("file:///etc/passwd", rules) is None

    stored = [
        {
            "domain": "a.farm.net",
            "block_reason": "domains.yaml patterns.BLOCKED: *.farm.net",
            "blocked_at": "t1",
        },
        # No rule blocks it any more: lifted, not listed.
        {
            "domain": "gone.org",
            "block_reason": "domains.yaml user_overrides: gone.org",
            "blocked_at": "t2",
        },
    ]
    listed, lifted = blocked_listing(stored, rules)
    assert lifted == {"gone.org": "UNVERIFIED"}
    assert [(e["domain"], e["reason"], e["blocked_at"]) for e in listed] == [
        ("a.farm.net", "domains.yaml patterns.BLOCKED: *.farm.net", "t1"),
        ("mill.net", "domains.yaml patterns.BLOCKED: mill.net", None),
        ("spam.org", "domains.yaml user_overrides: spam.org", None),
    ]
    assert {e["cause"] for e in listed} == {"domains.yaml"}
    assert listed[2]["restore"] == (
        "remove `user_overrides: spam.org` from $LYRA_HOME/domains.yaml or "
        "config/domains.yaml, or set `user_overrides: {spam.org: UNVERIFIED}` in "
        "$LYRA_HOME/domains.yaml; both files are re-read without a restart"
    )


async def test_a_blocked_site_gets_no_request_and_is_listed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    domains_file = home / "domains.yaml"
    _touch_later(domains_file, f"user_overrides:\n  {BLOCKED_HOST}: BLOCKED\n", 1)
    allowed = FixtureServer("127.0.0.1")
    blocked = FixtureServer(BLOCKED_HOST)
    try:
        for server in (allowed, blocked):
            server.route(
                "/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain"
            )
        allowed.route("/sleep.html", body=PAGE.encode())
        allowed.route("/moved", status=302, headers={"Location": blocked.url("/other.html")})
        blocked.route("/naps.html", body=OTHER_PAGE.encode())
        settings = make_settings(home, corpus=None, fetch={"default_qps": 5.0})

        # The fetcher itself refuses too, for callers that reach it without the pool.
        fetcher = get_fetcher(BLOCKED_HOST, settings)
        direct = await fetcher.fetch.remote(blocked.url("/naps.html"))
        assert (direct["error"], direct["block_rule"], direct["status"]) == (
            "domain_blocked",
            RULE,
            None,
        )
        ray.kill(fetcher)

        async with Client(build_server(settings)) as client:
            task = await client.call_tool("create_task", {"query": "caffeine and sleep"})
            task_id = task.structured_content["task_id"]
            res = await client.call_tool(
                "search",
                {
                    "task_id": task_id,
                    "query": "Does caffeine shorten sleep?",
                    "options": {
                        "urls": [
                            allowed.url("/sleep.html"),
                            allowed.url("/moved"),
                            blocked.url("/naps.html"),
                        ],
                        "wait_seconds": 110,
                    },
                },
            )
            assert res.is_error is False, res.content[0].text
            out = res.structured_content
            assert out["pages_fetched"] == 1
            assert out["metrics"]["blocked_urls"] == 2  # given, and redirected to
            assert out["_lyra_meta"]["blocked_domains"] == [BLOCKED_HOST]
            assert (
                f"{BLOCKED_HOST}: not fetched or cited (domain_blocked by {RULE})"
                in (out["warnings"])
            )
            assert {c["source_domain"] for c in out["claims_found"]} == {"127.0.0.1"}

            status = (await client.call_tool("get_status", {"task_id": task_id})).structured_content
            [entry] = status["blocked_domains"]
            assert entry["blocked_at"] is not None
            assert {k: v for k, v in entry.items() if k != "blocked_at"} == {
                "domain": BLOCKED_HOST,
                "trust_level": "BLOCKED",
                "reason": f"domains.yaml {RULE}",
                "cause": "domains.yaml",
                "restore": f"remove `{RULE}` from $LYRA_HOME/domains.yaml or "
                f"config/domains.yaml, or set `user_overrides: {{{BLOCKED_HOST}: UNVERIFIED}}` "
                "in $LYRA_HOME/domains.yaml; both files are re-read without a restart",
            }
            assert status["_lyra_meta"]["blocked_domains"] == [BLOCKED_HOST]

            # The block lifted in the file: no restart, the next search fetches it.
            _touch_later(domains_file, "user_overrides: {}\n", 2)
            status = (await client.call_tool("get_status", {"task_id": task_id})).structured_content
            assert (status["blocked_domains"], status["_lyra_meta"]["blocked_domains"]) == ([], [])
            again = await client.call_tool(
                "search",
                {
                    "task_id": task_id,
                    "query": "Does caffeine shorten naps?",
                    "options": {"urls": [blocked.url("/naps.html")], "wait_seconds": 110},
                },
            )
            assert again.is_error is False, again.content[0].text
            assert again.structured_content["pages_fetched"] == 1
            assert again.structured_content["_lyra_meta"]["blocked_domains"] == []
            events = (
                await client.call_tool(
                    "query_graph",
                    {
                        "sql": "SELECT kind, json_extract_string(payload, '$.domain') FROM "
                        "event_log WHERE kind LIKE 'domain_%blocked' ORDER BY ts"
                    },
                )
            ).structured_content["rows"]
            assert events == [["domain_blocked", BLOCKED_HOST], ["domain_unblocked", BLOCKED_HOST]]
        assert blocked.paths() == ["/robots.txt", "/naps.html"]
        assert allowed.paths().count("/moved") == 1
    finally:
        allowed.close()
        blocked.close()


async def test_a_blocked_sites_corpus_files_are_left_out(tmp_path: Path) -> None:
    """A corpus folder names its site: the files of a blocked one are not read, and the
    search says so as it does for a blocked URL."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "domains.yaml").write_text("user_overrides:\n  naps.example: BLOCKED\n")
    corpus = tmp_path / "corpus"
    for site, page in (("sleep.example", PAGE), ("www.naps.example", OTHER_PAGE)):
        (corpus / site).mkdir(parents=True)
        (corpus / site / "page.html").write_text(page)
    settings = make_settings(home, corpus=corpus)
    async with Client(build_server(settings)) as client:
        task = await client.call_tool("create_task", {"query": "caffeine and sleep"})
        res = await client.call_tool(
            "search",
            {
                "task_id": task.structured_content["task_id"],
                "query": "Does caffeine shorten sleep?",
                "options": {"engines": ["local"], "wait_seconds": 110},
            },
        )
    assert res.is_error is False, res.content[0].text
    out = res.structured_content
    assert (out["pages_fetched"], out["metrics"]["blocked_urls"]) == (1, 1)
    assert out["_lyra_meta"]["blocked_domains"] == ["naps.example"]
    rule = "user_overrides: naps.example"
    assert f"naps.example: not fetched or cited (domain_blocked by {rule})" in out["warnings"]
    assert {c["source_domain"] for c in out["claims_found"]} == {"sleep.example"}
