"""The feedback tool (issue 14, decision 0050): sites, claims and edges a person corrects.

Storage-level checks on a DuckDB file, then one session through the MCP Client against
two loopback sites: a blocked site gets no request (also after the orchestrator is
killed and started again), its pages leave confidence, get_status lists it, and
unblocking restores it; a rejected claim leaves the lists and stays in the database;
a corrected edge becomes a calibration sample.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
import ray
from mcp import Client

from lyra.mcp_bridge.server import build_server
from lyra.pipelines.errors import LyraError
from lyra.pipelines.net.domains import (
    FEEDBACK_DOMAINS_FILENAME,
    block_rule,
    blocked_listing,
    home_rules_watcher,
    registrable_domain,
)
from lyra.storage import feedback as fb
from lyra.storage.connection import open_database
from lyra.storage.graph_store import GraphStore
from lyra.storage.repository import claims_for_task
from lyra.storage.schema import CALL_ANSWERED
from tests.conftest import make_settings
from tests.conftest_web import FixtureServer
from tests.test_mcp_calibration import _error, _ok, _rows
from tests.test_search_urls import PAGE

BLOCKED_HOST = "127.0.0.5"
OTHER_PAGE = PAGE.replace("Caffeine and sleep", "Caffeine and naps").replace(
    "shortens total sleep time by about one hour", "shortens total sleep time by one hour"
)


@pytest.fixture
def db(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = open_database(tmp_path / "lyra.duckdb", memory_limit="256MB", threads=2)
    con.execute("INSERT INTO tasks (id, query) VALUES ('t1', 'q')")
    con.execute("INSERT INTO claims (id, task_id, claim_text) VALUES ('c1', 't1', 'Coffee helps.')")
    con.execute(
        "INSERT INTO edges (id, task_id, source_type, source_id, target_type, target_id, "
        "relation, nli_label, nli_confidence, nli_raw_confidence) VALUES "
        "('e1', 't1', 'fragment', 'f1', 'claim', 'c1', 'refutes', 'refutes', 0.58, 0.72), "
        "('o1', 't1', 'fragment', 'f1', 'claim', 'c1', 'origin', NULL, NULL, NULL)"
    )
    yield con
    con.close()


@pytest.mark.parametrize(
    ("given", "site"),
    [
        ("farm.example.org", "example.org"),
        ("https://www.content-farm.co.uk/page?x=1", "content-farm.co.uk"),
        ("Spam.ORG.", "spam.org"),
        ("127.0.0.5", "127.0.0.5"),
        # An internationalised name and a label with an underscore are sites too.
        ("bücher.de", "bücher.de"),
        ("my_host.example.com", "example.com"),
    ],
)
def test_a_block_names_the_whole_site(given: str, site: str) -> None:
    assert fb.site_of(given) == site


@pytest.mark.parametrize("given", ["", "   ", None, "not a domain"])
def test_a_block_needs_a_domain(given: str | None) -> None:
    with pytest.raises(LyraError) as exc:
        fb.site_of(given)
    assert (exc.value.code, exc.value.field) == ("INVALID_PARAMS", "domain")


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ("com", "a public suffix, not a site"),
        ("co.uk", "a public suffix, not a site"),
        ("999.999.999.999", "not a host name, nor an IP address"),
        ("-bad-.com", "not a host name (labels of 1-63 letters, digits and inner hyphens)"),
        ("a" * 64 + ".com", "not a host name (labels of 1-63 letters, digits and inner hyphens)"),
        ("a." * 127 + "com", "not a host name (1 to 253 characters)"),
    ],
)
def test_a_block_needs_a_name_that_is_a_site(given: str, why: str) -> None:
    """Blocking `com` would block every .com site; the others name no host at all."""
    with pytest.raises(LyraError) as exc:
        fb.site_of(given)
    shown = given if len(given) <= 80 else f"{given[:77]}..."
    assert (exc.value.code, exc.value.field, exc.value.message) == (
        "INVALID_PARAMS",
        "domain",
        f"{shown!r} is not a domain name or URL: {why}",
    )
    # A block stored before these checks can still be lifted by its name.
    assert fb.site_of(given, checked=False) == registrable_domain(given)


def test_domain_block_and_unblock_write_the_rules_and_the_record(
    db: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    watcher = home_rules_watcher(home)
    assert block_rule("https://www.content-farm.net/a", watcher.current()) is None
    out = fb.block_domain(db, home, "https://www.content-farm.net/a", "copies other sites")
    assert out == {"action": "domain_block", "domain": "content-farm.net",
                   "reason": "copies other sites", "changed": True,
                   "pages_affected": 0}  # fmt: skip
    assert block_rule("https://www.content-farm.net/a", watcher.current()) == (
        "user_overrides: content-farm.net"
    )
    # A second Lyra (or the same one after a restart) reads the same file.
    assert block_rule("content-farm.net", home_rules_watcher(home).current()) is not None
    row = db.execute(
        "SELECT trust_level, blocked, block_reason FROM domains WHERE domain = 'content-farm.net'"
    ).fetchone()
    assert row == ("BLOCKED", True, "feedback: copies other sites")
    listed, lifted = blocked_listing(
        [{"domain": "content-farm.net", "block_reason": row[2], "blocked_at": "t"}],
        watcher.current(),
    )
    assert lifted == {}
    assert listed == [{
        "domain": "content-farm.net", "trust_level": "BLOCKED",
        "reason": "feedback: copies other sites", "cause": "feedback", "blocked_at": "t",
        "restore": "feedback(action='domain_unblock', domain='content-farm.net') or "
                   "`lyra feedback domain_unblock --domain content-farm.net`",
    }]  # fmt: skip
    assert fb.block_domain(db, home, "content-farm.net", None)["changed"] is False

    undone = fb.unblock_domain(db, home, "content-farm.net", "a mistake", "UNVERIFIED")
    assert (undone["domain"], undone["changed"]) == ("content-farm.net", True)
    assert block_rule("content-farm.net", watcher.current()) is None
    assert db.execute(
        "SELECT trust_level, blocked, block_reason FROM domains WHERE domain = 'content-farm.net'"
    ).fetchone() == ("UNVERIFIED", False, None)
    events = db.execute(
        "SELECT kind, payload->>'action' FROM event_log ORDER BY ts, kind"
    ).fetchall()
    assert events == [
        ("domain_blocked", None), ("feedback", "domain_block"), ("feedback", "domain_block"),
        ("domain_unblocked", None), ("feedback", "domain_unblock"),
    ]  # fmt: skip
    # Unblocked already, or never blocked: it already is so.
    for site in ("content-farm.net", "never-blocked.example"):
        again = fb.unblock_domain(db, home, site, None, "UNVERIFIED")
        assert again == {"action": "domain_unblock", "domain": site, "reason": None,
                         "changed": False, "pages_affected": 0,
                         "still_blocked_by": None}  # fmt: skip
    # Blocked only by domains.yaml: feedback cannot lift it.
    with pytest.raises(LyraError) as exc:
        fb.unblock_domain(
            db, home, "content-farm.net", None, "BLOCKED", config_rule="patterns: *farm*"
        )
    assert exc.value.message == (
        "content-farm.net is not blocked by feedback (a block in domains.yaml is lifted by "
        "editing that file)"
    )
    assert (home / FEEDBACK_DOMAINS_FILENAME).read_text().endswith("user_overrides: {}\n")
    # Every action is an event row, the two that changed nothing too.
    assert db.execute(
        "SELECT count(*) FROM event_log WHERE kind = 'feedback' "
        "AND payload->>'action' = 'domain_unblock' AND payload->>'changed' = 'false'"
    ).fetchone() == (2,)
    # A block recorded in the domains table for another cause is not feedback's to lift.
    db.execute(
        "INSERT INTO domains (domain, trust_level, blocked, block_reason, updated_at) "
        "VALUES ('danger.example', 'BLOCKED', true, 'danger: phishing kit', now())"
    )
    with pytest.raises(LyraError) as exc:
        fb.unblock_domain(db, home, "danger.example", None, "UNVERIFIED")
    assert exc.value.message == (
        "danger.example is not blocked by feedback (blocked for: danger: phishing kit)"
    )


def test_a_rejected_claim_leaves_the_lists_and_stays_stored(db: duckdb.DuckDBPyConnection) -> None:
    out = fb.set_claim_status(db, "c1", True, "a misreading of the table")
    assert (out["status"], out["previous_status"], out["changed"]) == ("rejected", "active", True)
    assert claims_for_task(db, "t1") == []
    stored = db.execute("SELECT status, status_reason FROM claims WHERE id = 'c1'").fetchone()
    assert stored == ("rejected", "a misreading of the table")
    assert fb.set_claim_status(db, "c1", True, None)["changed"] is False
    back = fb.set_claim_status(db, "c1", False, "checked again")
    assert (back["status"], back["changed"]) == ("active", True)
    assert [c["id"] for c in claims_for_task(db, "t1")] == ["c1"]
    with pytest.raises(LyraError) as exc:
        fb.set_claim_status(db, "c404", True, None)
    assert (exc.value.code, exc.value.field, exc.value.message) == (
        "INVALID_PARAMS", "claim_id", "no claim 'c404'"
    )  # fmt: skip


def test_a_corrected_edge_keeps_the_model_answer_and_becomes_a_sample(
    db: duckdb.DuckDBPyConnection,
) -> None:
    out = fb.correct_edge(db, "e1", "supports", "the passage agrees", refit_every=10)
    assert (out["relation"], out["previous_relation"], out["model_label"]) == (
        "supports", "refutes", "refutes"
    )  # fmt: skip
    assert out["calibration_sample"]["sample_count"] == 1
    edge = db.execute(
        "SELECT relation, nli_label, nli_confidence, nli_raw_confidence FROM edges WHERE id = 'e1'"
    ).fetchone()
    assert edge == ("supports", "refutes", 1.0, 0.72)
    sample = db.execute(
        "SELECT predicted, label, predicted_label, actual_label, edge_id FROM calibration_samples"
    ).fetchone()
    assert sample == (0.72, "0", "refutes", "supports", "e1")
    # Corrected back: the model's answer (refutes) was right after all. One judgement
    # per edge: the new sample replaces the first.
    again = fb.correct_edge(db, "e1", "refutes", None, refit_every=10)
    assert again["calibration_sample"]["sample_count"] == 1
    assert db.execute(
        "SELECT predicted, label, predicted_label, actual_label FROM calibration_samples"
    ).fetchall() == [(0.72, "1", "refutes", "refutes")]
    assert db.execute(
        "SELECT relation, nli_label, nli_confidence, calibration_version FROM edges WHERE id = 'e1'"
    ).fetchone() == ("refutes", "refutes", 1.0, None)


def test_an_edge_sample_never_takes_a_copied_calibrated_number(
    db: duckdb.DuckDBPyConnection,
) -> None:
    from lyra.storage import calibration as cs

    with pytest.raises(LyraError) as exc:
        cs.add_sample(db, {"source": "nli", "edge_id": "e1", "prediction": 0.58,
                           "actual": "supports"}, 10)  # fmt: skip
    assert (exc.value.field, exc.value.message) == (
        "data.prediction",
        "prediction 0.58 differs from the edge's own (0.72); leave it out with edge_id",
    )
    assert db.execute("SELECT count(*) FROM calibration_samples").fetchone() == (0,)


def test_unblocking_a_site_domains_yaml_also_blocks_keeps_it_blocked(
    db: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "domains.yaml").write_text("user_overrides:\n  spam.org: BLOCKED\n")
    fb.block_domain(db, home, "spam.org", "farm")
    out = fb.unblock_domain(db, home, "spam.org", None, "BLOCKED", "user_overrides: spam.org")
    assert out["still_blocked_by"] == "user_overrides: spam.org"
    row = db.execute(
        "SELECT trust_level, blocked, block_reason FROM domains WHERE domain = 'spam.org'"
    ).fetchone()
    assert row == ("BLOCKED", True, "domains.yaml user_overrides: spam.org")
    rules = home_rules_watcher(home).current()
    assert block_rule("spam.org", rules) == "user_overrides: spam.org"
    listed, lifted = blocked_listing(
        [{"domain": "spam.org", "block_reason": row[2], "blocked_at": "t"}], rules
    )
    assert ([e["cause"] for e in listed], lifted) == (["domains.yaml"], {})
    kinds = db.execute("SELECT kind FROM event_log ORDER BY ts, kind").fetchall()
    assert kinds == [("domain_blocked",), ("feedback",), ("feedback",)]


def test_a_feedback_line_not_yet_recorded_is_listed_as_feedback(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / FEEDBACK_DOMAINS_FILENAME).write_text("user_overrides:\n  farm.net: BLOCKED\n")
    listed, _ = blocked_listing([], home_rules_watcher(home).current())
    assert [(e["domain"], e["cause"], e["reason"]) for e in listed] == [
        ("farm.net", "feedback", "feedback")
    ]


@pytest.mark.parametrize(
    ("edge_id", "relation", "field", "message"),
    [
        ("e404", "supports", "edge_id", "no edge 'e404'"),
        ("o1", "supports", "edge_id",
         "edge o1 is a 'origin' edge, not a stance edge (supports, refutes, neutral)"),
        ("e1", "maybe", "relation",
         "relation must be one of supports, refutes, neutral, got 'maybe'"),
        ("e1", None, "relation", "relation must be one of supports, refutes, neutral, got None"),
        (None, "supports", "edge_id", "edge_id is required"),
    ],
)  # fmt: skip
def test_edge_corrections_that_cannot_be_made(
    db: duckdb.DuckDBPyConnection,
    edge_id: str | None,
    relation: str | None,
    field: str,
    message: str,
) -> None:
    with pytest.raises(LyraError) as exc:
        fb.correct_edge(db, edge_id, relation, None, refit_every=10)
    assert (exc.value.code, exc.value.field, exc.value.message) == (
        "INVALID_PARAMS", field, message
    )  # fmt: skip
    assert db.execute("SELECT relation FROM edges WHERE id = 'e1'").fetchone() == ("refutes",)
    assert db.execute("SELECT count(*) FROM calibration_samples").fetchone() == (0,)


class _Died(Exception):
    """Stands for the graph process ending at this point."""


def _dies_before_the_answer(store: GraphStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """The next `call_answered` row is never written: the process ends just before."""
    log_event = store.log_event

    def dying(**fields: Any) -> None:
        if fields["kind"] == CALL_ANSWERED:
            monkeypatch.setattr(store, "log_event", log_event)
            raise _Died
        log_event(**fields)

    monkeypatch.setattr(store, "log_event", dying)


def _events(store: GraphStore) -> list[tuple[str, Any]]:
    rows = store.query_graph(
        "SELECT kind, payload->>'domain' FROM event_log WHERE kind <> 'call_answered' "
        "ORDER BY kind",
        None,
        {},
        50,
        5000,
        False,
    )["rows"]
    return [(r[0], r[1]) for r in rows]


def test_a_write_sent_once_whose_answer_a_crash_lost_is_done_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A block or an unblock sent once (decision 0064) whose process ends after the
    write and before its answer is recorded: the two commit together, so the call sent
    again with the same id does the write once, as a change (the feedback rules file,
    outside the transaction, already says it; the record decides)."""
    store = GraphStore(make_settings(tmp_path, corpus=None))
    block = ["domain_block", {"domain": "spam.example", "reason": "ads"}]
    _dies_before_the_answer(store, monkeypatch)
    with pytest.raises(_Died):
        store.once("call_1", "feedback", block)
    assert _events(store) == []  # nothing half-written
    first = store.once("call_1", "feedback", block)
    assert (first["changed"], store.once("call_1", "feedback", block)) == (True, first)
    assert _events(store) == [("domain_blocked", "spam.example"), ("feedback", "spam.example")]

    unblock = ["domain_unblock", {"domain": "spam.example", "reason": "fine"}]
    _dies_before_the_answer(store, monkeypatch)
    with pytest.raises(_Died):
        store.once("call_2", "feedback", unblock)
    lifted = store.once("call_2", "feedback", unblock)
    assert (lifted["changed"], lifted["still_blocked_by"]) == (True, None)
    assert _events(store) == [
        ("domain_blocked", "spam.example"),
        ("domain_unblocked", "spam.example"),
        ("feedback", "spam.example"),
        ("feedback", "spam.example"),
    ]
    blocked = store.query_graph(
        "SELECT blocked FROM domains WHERE domain = 'spam.example'", None, {}, 5, 5000, False
    )["rows"]
    assert blocked == [[False]]
    assert home_rules_watcher(tmp_path).current()["user_overrides"].get("spam.example") is None


# --------------------------------------------------------------------------- MCP session


@pytest.mark.ray
@pytest.mark.usefixtures("ray_session")
async def test_feedback_through_the_mcp_client(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    allowed = FixtureServer("127.0.0.1")
    blocked = FixtureServer(BLOCKED_HOST)
    try:
        for server in (allowed, blocked):
            server.route(
                "/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain"
            )
        allowed.route("/sleep.html", body=PAGE.encode())
        blocked.route("/naps.html", body=OTHER_PAGE.encode())
        blocked.route("/later.html", body=OTHER_PAGE.encode())
        settings = make_settings(home, corpus=None, fetch={"default_qps": 5.0})
        urls = [allowed.url("/sleep.html"), blocked.url("/naps.html")]
        async with Client(build_server(settings)) as client:
            task_id = _ok(await client.call_tool("create_task", {"query": "caffeine"}))["task_id"]
            first = _ok(await client.call_tool("search", {
                "task_id": task_id, "query": "Does caffeine shorten sleep?",
                "options": {"urls": urls, "wait_seconds": 110},
            }))  # fmt: skip
            assert first["pages_fetched"] == 2
            from_blocked = _rows(await client.call_tool("query_graph", {
                "sql": "SELECT count(*) AS n FROM edges e JOIN fragments f ON f.id = e.source_id "
                       "JOIN pages p ON p.id = f.page_id WHERE e.task_id = $t AND p.domain = $d "
                       "AND e.relation IN ('supports', 'refutes', 'neutral')",
                "params": {"t": task_id, "d": BLOCKED_HOST},
            }))[0]["n"]  # fmt: skip
            assert from_blocked >= 1

            blocking = _ok(await client.call_tool("feedback", {
                "action": "domain_block", "domain": blocked.url("/naps.html"),
                "reason": "a content farm",
            }))  # fmt: skip
            assert (blocking["domain"], blocking["changed"], blocking["pages_affected"]) == (
                BLOCKED_HOST, True, 1
            )  # fmt: skip
            assert blocking["_lyra_meta"]["blocked_domains"] == [BLOCKED_HOST]
            status = _ok(await client.call_tool("get_status", {"task_id": task_id}))
            [entry] = status["blocked_domains"]
            assert (entry["domain"], entry["cause"], entry["reason"]) == (
                BLOCKED_HOST, "feedback", "feedback: a content farm"
            )  # fmt: skip
            assert status["_lyra_meta"]["blocked_domains"] == [BLOCKED_HOST]
            # Every response names it, a graph query's too.
            graph = _ok(await client.call_tool("query_graph", {"sql": "SELECT 1 AS one"}))
            assert graph["_lyra_meta"]["blocked_domains"] == [BLOCKED_HOST]
            # Its pages leave confidence: the counts are those of the other site's edges.
            counted = sum(c["supports"] + c["refutes"] + c["neutral"] for c in status["claims"])
            kept = _rows(await client.call_tool("query_graph", {
                "sql": "SELECT count(*) AS n FROM edges e JOIN fragments f ON f.id = e.source_id "
                       "JOIN pages p ON p.id = f.page_id JOIN claims c ON c.id = e.target_id "
                       "WHERE c.task_id = $t AND p.domain <> $d "
                       "AND e.relation IN ('supports', 'refutes', 'neutral')",
                "params": {"t": task_id, "d": BLOCKED_HOST},
            }))[0]["n"]  # fmt: skip
            assert counted == kept
            top = {d["domain"] for d in status["evidence_summary"]["top_domains"]}
            assert BLOCKED_HOST not in top
            summary = _rows(await client.call_tool("query_graph", {
                "view": "claim_evidence_summary", "params": {"task_id": task_id},
            }))  # fmt: skip
            assert sum(r["evidence_count"] for r in summary) == kept

            served = blocked.paths()
            later = _ok(await client.call_tool("search", {
                "task_id": task_id, "query": "Does caffeine shorten naps?",
                "options": {"urls": [blocked.url("/later.html")], "wait_seconds": 110},
            }))  # fmt: skip
            assert later["pages_fetched"] == 0
            assert later["metrics"]["blocked_urls"] == 1
            assert later["_lyra_meta"]["blocked_domains"] == [BLOCKED_HOST]

            # Claims: one rejected leaves the lists, stays stored, and comes back.
            claim = status["claims"][0]
            rejected = _ok(await client.call_tool("feedback", {
                "action": "claim_reject", "claim_id": claim["id"], "reason": "misread",
            }))  # fmt: skip
            assert (rejected["status"], rejected["task_id"]) == ("rejected", task_id)
            status = _ok(await client.call_tool("get_status", {"task_id": task_id}))
            assert claim["id"] not in {c["id"] for c in status["claims"]}
            assert claim["id"] not in {r["claim_id"] for r in _rows(await client.call_tool(
                "query_graph", {"view": "claim_evidence_summary", "params": {"task_id": task_id}}
            ))}  # fmt: skip
            hits = _ok(await client.call_tool("vector_search", {
                "query": claim["text"], "target": "claims", "top_k": 20,
            }))["results"]  # fmt: skip
            assert hits and claim["id"] not in {h["id"] for h in hits}
            stored = _rows(await client.call_tool("query_graph", {
                "sql": "SELECT status, status_reason FROM claims WHERE id = $c",
                "params": {"c": claim["id"]},
            }))  # fmt: skip
            assert stored == [{"status": "rejected", "status_reason": "misread"}]
            _ok(await client.call_tool("feedback", {"action": "claim_restore",
                                                    "claim_id": claim["id"]}))  # fmt: skip
            status = _ok(await client.call_tool("get_status", {"task_id": task_id}))
            assert claim["id"] in {c["id"] for c in status["claims"]}

            # An edge corrected: the relation changes, the model's answer is a sample.
            edge = _rows(await client.call_tool("query_graph", {
                "sql": "SELECT id, relation FROM edges WHERE task_id = $t AND relation IN "
                       "('supports', 'refutes', 'neutral') ORDER BY id LIMIT 1",
                "params": {"t": task_id},
            }))[0]  # fmt: skip
            wanted = "neutral" if edge["relation"] != "neutral" else "supports"
            corrected = _ok(await client.call_tool("feedback", {
                "action": "edge_correct", "edge_id": edge["id"], "relation": wanted,
            }))  # fmt: skip
            assert (corrected["previous_relation"], corrected["relation"]) == (
                edge["relation"], wanted
            )  # fmt: skip
            stats = _ok(await client.call_tool("calibrate", {"action": "get_stats"}))
            assert stats["sample_count"] == 1

            for arguments, field in (
                ({"action": "claim_reject", "claim_id": "nope"}, "claim_id"),
                ({"action": "edge_correct", "edge_id": edge["id"]}, "relation"),
                ({"action": "edge_correct", "edge_id": edge["id"], "relation": "maybe"},
                 "relation"),
                ({"action": "domain_unblock", "domain": "http://"}, "domain"),
                ({"action": "domain_block"}, "domain"),
            ):  # fmt: skip
                error = _error(await client.call_tool("feedback", arguments))
                assert (error["code"], error.get("field")) == ("INVALID_PARAMS", field)
            kinds = _rows(await client.call_tool("query_graph", {
                "sql": "SELECT payload->>'action' AS action FROM event_log "
                       "WHERE kind = 'feedback' ORDER BY ts",
            }))  # fmt: skip
            assert [k["action"] for k in kinds] == [
                "domain_block", "claim_reject", "claim_restore", "edge_correct"
            ]  # fmt: skip
            # Handles taken while the server holds the actors: once the client closes,
            # nothing else may keep them (a handle looked up then can race their end).
            orchestrator = ray.get_actor("orchestrator", namespace=settings.ray.namespace)
            graph = await orchestrator.graph_handle.remote()

        # A restart: the orchestrator and its children are killed and made again.
        ray.kill(graph)
        ray.kill(orchestrator)
        async with Client(build_server(settings)) as client:
            again = _ok(await client.call_tool("search", {
                "task_id": task_id, "query": "Does caffeine shorten naps?",
                "options": {"urls": [blocked.url("/later.html")], "wait_seconds": 110},
            }))  # fmt: skip
            assert (again["pages_fetched"], again["_lyra_meta"]["blocked_domains"]) == (
                0, [BLOCKED_HOST]
            )  # fmt: skip
            assert blocked.paths() == served
            unblocked = _ok(await client.call_tool("feedback", {
                "action": "domain_unblock", "domain": BLOCKED_HOST,
            }))  # fmt: skip
            assert unblocked["changed"] is True
            status = _ok(await client.call_tool("get_status", {"task_id": task_id}))
            assert (status["blocked_domains"], status["_lyra_meta"]["blocked_domains"]) == ([], [])
            restored = _ok(await client.call_tool("search", {
                "task_id": task_id, "query": "Does caffeine shorten naps?",
                "options": {"urls": [blocked.url("/later.html")], "wait_seconds": 110},
            }))  # fmt: skip
            assert restored["pages_fetched"] == 1
        assert blocked.paths() == [*served, "/later.html"]
    finally:
        allowed.close()
        blocked.close()
