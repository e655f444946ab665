"""The reads every get_status makes are kept until a table they read is written (decision 0080).

`written_tables` reads a statement's targets from its SQL; `VersionedConnection` counts
them (inside a transaction again at COMMIT); the GraphStore answers `claim_confidences`,
`evidence_summary` and `status_extras` from memory while those counts stand, and never
serves an answer that a write, a block, a rejected claim or a changed domains.yaml
has made wrong.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lyra.storage.graph_store import GraphStore
from lyra.storage.table_versions import (
    ALL,
    ReadMemo,
    TableVersions,
    VersionedConnection,
    written_tables,
)
from tests.conftest import make_settings


@pytest.mark.parametrize(
    ("sql", "tables"),
    [
        ("SELECT count(*) FROM claims", set()),
        ("  -- a comment\n select 1", set()),
        ("WITH a AS (SELECT 1) SELECT * FROM a", set()),
        ("BEGIN TRANSACTION", set()),
        ("CHECKPOINT", set()),
        ("INSERT INTO claims (id, task_id) VALUES (?, ?)", {"claims"}),
        ('INSERT OR REPLACE INTO main."Edges" VALUES (1)', {"edges"}),
        ("UPDATE claims SET status = ? WHERE id = ?", {"claims"}),
        ("DELETE FROM edges WHERE id IN (SELECT id FROM edges)", {"edges"}),
        ("WITH x AS (SELECT 1) INSERT INTO pages SELECT * FROM x", {"pages"}),
        # The fetchers' politeness upsert names only the side columns of `domains`.
        (
            'INSERT INTO domains ("domain", "state", "qps", "updated_at") SELECT * FROM v '
            'ON CONFLICT (domain) DO UPDATE SET "state" = COALESCE(EXCLUDED."state", '
            'domains."state")',
            {"domains.side"},
        ),
        ('INSERT INTO domains ("domain", "blocked") VALUES (?, true)', {"domains"}),
        ("INSERT INTO domains SELECT * FROM v", {"domains"}),
        ("UPDATE domains SET state = NULL", {"domains"}),
        ("CREATE TABLE x (a INTEGER)", {ALL}),
        ("ALTER TABLE domains ADD COLUMN y INTEGER", {ALL}),
        ("COPY pages FROM 'pages.csv'", {ALL}),
    ],
)
def test_the_tables_a_statement_writes(sql: str, tables: set[str]) -> None:
    assert written_tables(sql) == tables


def test_a_transaction_counts_its_tables_again_at_commit() -> None:
    versions = TableVersions()
    con = VersionedConnection(duckdb.connect(), versions)
    con.execute("CREATE TABLE claims (id VARCHAR)")
    con.execute("CREATE TABLE edges (id VARCHAR)")
    start = versions.stamp(["claims", "edges"])
    con.execute("BEGIN TRANSACTION")
    con.execute("INSERT INTO claims VALUES ('c1')")
    during = versions.stamp(["claims", "edges"])
    con.execute("COMMIT")
    after = versions.stamp(["claims", "edges"])
    # Counted when written and again once visible to other cursors; edges untouched.
    assert (start[1:], during[1:], after[1:]) == ((0, 0), (1, 0), (2, 0))
    # A cursor made from it counts too; a rolled-back write is counted as well.
    cur = con.cursor()
    cur.execute("BEGIN TRANSACTION")
    cur.execute("DELETE FROM edges")
    cur.execute("ROLLBACK")
    assert versions.stamp(["claims", "edges"])[1:] == (2, 2)
    assert cur.execute("SELECT count(*) FROM claims").fetchone() == (1,)


def test_a_failed_statement_is_counted_all_the_same() -> None:
    versions = TableVersions()
    con = VersionedConnection(duckdb.connect(), versions)
    con.execute("CREATE TABLE claims (id VARCHAR PRIMARY KEY)")
    con.execute("INSERT INTO claims VALUES ('c1')")
    before = versions.stamp(["claims"])
    with pytest.raises(duckdb.ConstraintException):
        con.execute("INSERT INTO claims VALUES ('c1')")
    assert versions.stamp(["claims"])[1] == before[1] + 1


def test_the_memo_hands_out_copies() -> None:
    versions = TableVersions()
    memo = ReadMemo(versions)
    calls: list[int] = []

    def compute() -> list[dict[str, Any]]:
        calls.append(1)
        return [{"id": "c1", "urls": ["u"]}]

    first = memo.get("k", ["claims"], compute)
    first[0]["urls"].append("changed by a caller")
    assert memo.get("k", ["claims"], compute) == [{"id": "c1", "urls": ["u"]}]
    assert len(calls) == 1
    versions.bump(["pages"])  # a table it did not read
    memo.get("k", ["claims"], compute)
    assert len(calls) == 1
    versions.bump([ALL])  # a statement whose targets are unknown
    memo.get("k", ["claims"], compute)
    assert len(calls) == 2
    assert memo.get("k", ["claims"], compute, extra=(2,)) == [{"id": "c1", "urls": ["u"]}]
    assert len(calls) == 3


# --------------------------------------------------------------------------- the store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GraphStore]:
    home = tmp_path / "home"
    home.mkdir()
    gs = GraphStore(make_settings(home, corpus=None))
    gs.create_task("t1", "q", {})
    gs.upsert_pages([
        {"id": pid, "url": f"http://{host}:8080/{pid}.html", "domain": host}
        for pid, host in (("pa", "127.0.0.31"), ("pb", "127.0.0.32"), ("pc", "127.0.0.33"))
    ])  # fmt: skip
    gs.insert_fragments([
        {"id": f"f-{pid}", "page_id": pid, "position": 0, "text_content": f"text {pid}"}
        for pid in ("pa", "pb", "pc")
    ])  # fmt: skip
    gs.insert_claims([{"id": "c1", "task_id": "t1", "claim_text": "Caffeine shortens sleep."}])
    gs.insert_edges([_edge("o1", "f-pa", "origin", None), _edge("s1", "f-pb", "supports", 0.9)])
    yield gs


def _edge(eid: str, frag: str, relation: str, conf: float | None) -> dict[str, Any]:
    return {"id": eid, "task_id": "t1", "source_type": "fragment", "source_id": frag,
            "target_type": "claim", "target_id": "c1", "relation": relation,
            "nli_label": None if relation == "origin" else relation,
            "nli_confidence": conf}  # fmt: skip


def _counted(store: GraphStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The task ids `claim_confidences` was computed for (not served from memory)."""
    computed: list[str] = []
    compute = store._claim_confidences

    def counting(task_id: str) -> list[dict[str, Any]]:
        computed.append(task_id)
        return compute(task_id)

    monkeypatch.setattr(store, "_claim_confidences", counting)
    return computed


def _support(store: GraphStore) -> tuple[int, list[str]]:
    (claim,) = store.claim_confidences("t1")
    return claim["supporting"], claim["supporting_urls"]


def test_a_new_edge_is_read_at_once(store: GraphStore, monkeypatch: pytest.MonkeyPatch) -> None:
    computed = _counted(store, monkeypatch)
    assert _support(store) == (1, ["http://127.0.0.32:8080/pb.html"])
    assert _support(store) == (1, ["http://127.0.0.32:8080/pb.html"])
    assert computed == ["t1"]
    assert store.evidence_summary("t1")["edges_by_relation"] == {"origin": 1, "supports": 1}
    store.insert_edges([_edge("s2", "f-pc", "supports", 0.8)])
    assert _support(store) == (
        2,
        ["http://127.0.0.32:8080/pb.html", "http://127.0.0.33:8080/pc.html"],
    )
    assert store.evidence_summary("t1")["edges_by_relation"] == {"origin": 1, "supports": 2}
    assert computed == ["t1", "t1"]


def test_politeness_state_keeps_the_answer_and_a_block_does_not(
    store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    computed = _counted(store, monkeypatch)
    assert _support(store)[0] == 1
    # A fetcher's politeness state, for a site with evidence and for a new one.
    store.save_domain_state("127.0.0.32", {"next_at": 1.0}, 2.0)
    store.save_domain_state("127.0.0.99", {"next_at": 1.0}, None)
    assert _support(store)[0] == 1
    assert computed == ["t1"]
    # A blocked site's pages are no evidence (decision 0050): read again, at once.
    store.record_blocked_domains([{"domain": "127.0.0.32", "rule": "127.0.0.32"}], "t1", None)
    assert _support(store) == (0, [])
    assert store.evidence_summary("t1")["edges_by_relation"] == {"origin": 1}
    assert [b["domain"] for b in store.status_extras("t1")["blocked_domains"]] == ["127.0.0.32"]
    assert computed == ["t1", "t1"]


def test_a_rejected_claim_leaves_the_answer_at_once(store: GraphStore) -> None:
    assert [c["id"] for c in store.claim_confidences("t1")] == ["c1"]
    store.feedback("claim_reject", {"claim_id": "c1", "reason": "wrong"})
    assert store.claim_confidences("t1") == []
    assert store.evidence_summary("t1")["edges_by_relation"] == {}
