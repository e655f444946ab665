"""Repository writes and reads, and the analysis views over a hand-built evidence graph."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest

from lyra.storage import repository as repo
from lyra.storage.connection import open_database
from lyra.storage.views import render_view


@pytest.fixture
def db(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = open_database(tmp_path / "lyra.duckdb", memory_limit="512MB", threads=2)
    yield con
    con.close()


def _rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    cur = con.execute(sql)
    names = [d[0] for d in cur.description or []]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


# --------------------------------------------------------------------------- tasks, searches


def test_task_lifecycle(db: duckdb.DuckDBPyConnection) -> None:
    assert repo.create_task(db, "t1", "is coffee bad?", config={"max_pages": 10}) is True
    assert repo.create_task(db, "t1", "another query") is False
    task = repo.get_task(db, "t1")
    assert task is not None
    assert (task["query"], task["status"], task["config"]) == (
        "is coffee bad?", "created", {"max_pages": 10},
    )  # fmt: skip
    repo.update_task_status(db, "t1", "exploring")
    updated = repo.get_task(db, "t1")
    assert updated is not None
    assert updated["status"] == "exploring"
    assert updated["updated_at"] >= task["updated_at"]
    assert repo.get_task(db, "missing") is None
    with pytest.raises(KeyError, match="missing"):
        repo.update_task_status(db, "missing", "completed")


def test_search_lifecycle(db: duckdb.DuckDBPyConnection) -> None:
    repo.create_task(db, "t1", "q")
    assert repo.create_search(db, "s1", "t1", "coffee blood pressure", options={"refute": True})
    assert repo.create_search(db, "s1", "t1", "again") is False
    repo.create_search(db, "s2", "t1", "coffee meta-analysis")
    repo.update_search(db, "s1", status="satisfied", metrics={"harvest_rate": 0.4},
                       finished=True)  # fmt: skip
    repo.update_search(db, "s2", error={"code": "TIMEOUT"})
    searches = repo.list_searches(db, "t1")
    assert [s["id"] for s in searches] == ["s1", "s2"]
    s1, s2 = searches
    assert (s1["status"], s1["options"], s1["metrics"], s1["error"]) == (
        "satisfied", {"refute": True}, {"harvest_rate": 0.4}, None,
    )  # fmt: skip
    assert isinstance(s1["finished_at"], dt.datetime)
    assert (s2["status"], s2["error"], s2["finished_at"]) == ("running", {"code": "TIMEOUT"}, None)
    with pytest.raises(KeyError, match="nope"):
        repo.update_search(db, "nope", status="failed")
    with pytest.raises(KeyError, match="nope"):
        repo.update_search(db, "nope")


# --------------------------------------------------------------------------- graph rows


def test_serp_items_are_idempotent(db: duckdb.DuckDBPyConnection) -> None:
    rows = [
        {"search_id": "s1", "engine": "ddg", "rank": i, "url": f"https://x.org/{i}",
         "title": f"T{i}", "snippet": "s"}
        for i in range(5)
    ]  # fmt: skip
    assert repo.insert_serp_items(db, rows) == 5
    assert repo.insert_serp_items(db, rows) == 0
    got = db.execute("SELECT id, rank FROM serp_items ORDER BY rank").fetchall()
    assert got[0] == (repo.make_id("serp", "s1", "ddg", "https://x.org/0"), 0)
    assert len(got) == 5


def test_upsert_pages_keeps_ids_and_known_values(db: duckdb.DuckDBPyConnection) -> None:
    first = repo.upsert_pages(
        db,
        [
            {"url": "https://a.org/x", "domain": "a.org", "title": "A", "simhash": 2**64 - 1},
            {"url": "https://b.org/y", "domain": "b.org"},
        ],
    )
    assert first == {
        "https://a.org/x": repo.make_id("page", "https://a.org/x"),
        "https://b.org/y": repo.make_id("page", "https://b.org/y"),
    }
    fetched = dt.datetime(2024, 1, 2, 12, 0, tzinfo=dt.timezone(dt.timedelta(hours=9)))
    second = repo.upsert_pages(
        db,
        [{"url": "https://a.org/x", "title": None, "http_status": 200, "fetched_at": fetched,
          "is_retracted": True}],
    )  # fmt: skip
    assert second == {"https://a.org/x": first["https://a.org/x"]}
    page = _rows(db, "SELECT * FROM pages WHERE url = 'https://a.org/x'")[0]
    assert (page["title"], page["domain"], page["simhash"], page["http_status"]) == (
        "A", "a.org", 2**64 - 1, 200,
    )  # fmt: skip
    assert page["fetched_at"] == dt.datetime(2024, 1, 2, 3, 0)
    assert page["is_retracted"] is True
    assert repo.table_counts(db)["pages"] == 2
    with pytest.raises(ValueError, match="url"):
        repo.upsert_pages(db, [{"domain": "c.org"}])


def test_fragments_claims_edges(db: duckdb.DuckDBPyConnection) -> None:
    pages = repo.upsert_pages(db, [{"url": "https://a.org/x", "domain": "a.org"}])
    pid = pages["https://a.org/x"]
    frags = [
        {"page_id": pid, "position": i, "text_content": f"Sentence {i}.", "char_start": i * 12,
         "char_end": i * 12 + 11, "fragment_type": "paragraph"}
        for i in range(3)
    ]  # fmt: skip
    assert repo.insert_fragments(db, frags) == 3
    assert repo.insert_fragments(db, frags) == 0
    stored = repo.fragments_for_pages(db, [pid, "unknown"])
    assert [f["position"] for f in stored] == [0, 1, 2]
    assert stored[1]["text_hash"] == repo.text_hash("Sentence 1.")
    assert stored[1]["id"] == repo.make_id("fragment", pid, 1, repo.text_hash("Sentence 1."))
    assert (stored[1]["url"], stored[1]["domain"], stored[1]["trust_level"]) == (
        "https://a.org/x", "a.org", "UNVERIFIED",
    )  # fmt: skip
    assert repo.fragments_for_pages(db, []) == []

    claims = [{"task_id": "t1", "claim_text": "A is B", "extraction_method": "llm",
               "extraction_confidence": 0.9}]  # fmt: skip
    assert repo.insert_claims(db, claims) == 1
    assert repo.insert_claims(db, claims) == 0
    cid = repo.make_id("claim", "t1", "A is B")
    edges = [
        {"task_id": "t1", "source_type": "fragment", "source_id": stored[0]["id"],
         "target_type": "claim", "target_id": cid, "relation": "origin"},
        {"task_id": "t1", "source_type": "fragment", "source_id": stored[2]["id"],
         "target_type": "claim", "target_id": cid, "relation": "supports",
         "nli_label": "entailment", "nli_confidence": 0.8, "source_trust_level": "LOW"},
        {"task_id": "t9", "source_type": "page", "source_id": pid,
         "target_type": "page", "target_id": "p-other", "relation": "cites"},
    ]  # fmt: skip
    assert repo.insert_edges(db, edges) == 3
    assert repo.insert_edges(db, edges) == 0
    got = repo.edges_for_task(db, "t1")
    assert [e["relation"] for e in got] == ["origin", "supports"]
    assert got[1]["id"] == repo.edge_id("t1", "fragment", stored[2]["id"], "claim", cid, "supports")
    assert [e["relation"] for e in repo.edges_for_task(db, "t1", relations=["supports"])] == [
        "supports"
    ]
    assert [e["relation"] for e in repo.edges_for_task(db, "t9")] == ["cites"]
    repo.insert_claims(db, [{"task_id": "t1", "claim_text": "Old", "status": "rejected"}])
    rejected = repo.make_id("claim", "t1", "Old")
    assert [c["id"] for c in repo.claims_for_task(db, "t1")] == [cid]
    assert [c["id"] for c in repo.claims_for_task(db, "t1", status="rejected")] == [rejected]
    assert sorted(c["id"] for c in repo.claims_for_task(db, "t1", status=None)) == sorted(
        [cid, rejected]
    )


def test_batch_is_all_or_nothing(db: duckdb.DuckDBPyConnection) -> None:
    rows = [
        {"id": "f1", "page_id": "p", "position": 0, "text_content": "ok"},
        {"id": "f2", "page_id": None, "position": 1, "text_content": "page_id is NOT NULL"},
    ]
    with pytest.raises(duckdb.ConstraintException):
        repo.insert_fragments(db, rows)
    assert repo.table_counts(db)["fragments"] == 0


def test_transaction_groups_calls(db: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(RuntimeError, match="abort"), repo.transaction(db):
        repo.create_task(db, "t1", "q")
        repo.insert_claims(db, [{"task_id": "t1", "claim_text": "x"}])
        raise RuntimeError("abort")
    assert repo.table_counts(db)["tasks"] == 0
    assert repo.table_counts(db)["claims"] == 0
    with repo.transaction(db):
        repo.create_task(db, "t1", "q")
        repo.insert_claims(db, [{"task_id": "t1", "claim_text": "x"}])
    assert repo.table_counts(db)["claims"] == 1


def test_unknown_columns_and_tables_are_refused(db: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(ValueError, match="claims has no column 'evil\"; DROP'"):
        repo.insert_claims(db, [{"task_id": "t", "claim_text": "x", 'evil"; DROP': 1}])
    with pytest.raises(ValueError, match="unknown table"):
        repo.insert_rows(db, "sqlite_master", [{"a": 1}])
    with pytest.raises(ValueError, match=re.escape("no key column 'domain) DO NOTHING; --'")):
        repo.upsert_rows(db, "domains", [{"domain": "a.org"}], key=["domain) DO NOTHING; --"])


def test_a_page_in_a_new_warc_file_does_not_keep_the_old_offset(
    db: duckdb.DuckDBPyConnection,
) -> None:
    url = "https://a.org/paper"
    repo.upsert_pages(db, [{"url": url, "warc_path": "/w/a.warc.gz", "warc_offset": 4096}])
    repo.upsert_pages(db, [{"url": url, "title": "Paper"}])  # says nothing of its archive
    where = f"SELECT warc_path, warc_offset FROM pages WHERE url = '{url}'"
    assert db.execute(where).fetchall() == [("/w/a.warc.gz", 4096)]
    repo.upsert_pages(db, [{"url": url, "warc_path": "/w/api.warc.gz"}])  # an API answer
    assert db.execute(where).fetchall() == [("/w/api.warc.gz", None)]
    repo.upsert_pages(db, [{"url": url, "warc_path": "/w/b.warc.gz", "warc_offset": 0}])
    assert db.execute(where).fetchall() == [("/w/b.warc.gz", 0)]


def test_generic_upsert_rows(db: duckdb.DuckDBPyConnection) -> None:
    repo.upsert_rows(db, "domains", [{"domain": "a.org", "trust_level": "LOW", "qps": 0.2}],
                     key=["domain"])  # fmt: skip
    repo.upsert_rows(db, "domains", [{"domain": "a.org", "blocked": True,
                                      "block_reason": "danger pattern", "state": {"open": 1}}],
                     key=["domain"])  # fmt: skip
    row = repo._query(db, "SELECT * FROM domains")[0]
    assert (row["trust_level"], row["qps"], row["blocked"], row["block_reason"], row["state"]) == (
        "LOW", 0.2, True, "danger pattern", {"open": 1},
    )  # fmt: skip


def test_log_event_and_counts(db: duckdb.DuckDBPyConnection) -> None:
    assert repo.log_event(db, "fetch.blocked", actor="fetch", payload={"n": 1},
                          event_id="e1") == "e1"  # fmt: skip
    assert repo.log_event(db, "fetch.blocked", event_id="e1") == "e1"
    generated = repo.log_event(db, "task.created", task_id="t1")
    assert len(generated) == 32
    counts = repo.table_counts(db)
    assert counts["event_log"] == 2
    assert counts == {**dict.fromkeys(counts, 0), "event_log": 2}
    assert repo._query(db, "SELECT payload FROM event_log WHERE id = 'e1'") == [
        {"payload": {"n": 1}}
    ]


# --------------------------------------------------------------------------- embeddings


def test_embeddings_roundtrip_and_replace(db: duckdb.DuckDBPyConnection) -> None:
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((50, 384)).astype(np.float32)
    rows = [(f"f{i}", f"h{i}", vectors[i]) for i in range(50)]
    assert repo.put_embeddings(db, "fragment", "minilm", rows) == 50
    got = repo.get_embeddings(db, "fragment", "minilm", ["f3", "f49", "absent"])
    assert sorted(got) == ["f3", "f49"]
    np.testing.assert_array_equal(got["f3"], vectors[3])
    assert got["f3"].dtype == np.float32
    assert repo.get_embeddings(db, "claim", "minilm", ["f3"]) == {}
    assert repo.get_embeddings(db, "fragment", "other-model", ["f3"]) == {}
    repo.put_embeddings(db, "fragment", "minilm", [("f3", "h3-new", np.full(384, 0.5))])
    np.testing.assert_array_equal(
        repo.get_embeddings(db, "fragment", "minilm", ["f3"])["f3"], np.full(384, 0.5)
    )
    assert repo.table_counts(db)["embeddings"] == 50


def test_find_embeddings_by_text_hash(db: duckdb.DuckDBPyConnection) -> None:
    vec = np.arange(8, dtype=np.float32)
    repo.put_embeddings(db, "fragment", "minilm", [("f1", repo.text_hash("same text"), vec)])
    found = repo.find_embeddings_by_text_hash(
        db, "minilm", [repo.text_hash("same text"), repo.text_hash("other")]
    )
    assert list(found) == [repo.text_hash("same text")]
    np.testing.assert_array_equal(found[repo.text_hash("same text")], vec)
    assert repo.find_embeddings_by_text_hash(db, "bge-m3", [repo.text_hash("same text")]) == {}


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([("a", None, np.ones(4)), ("b", None, np.ones(5))], "4 dimensions"),
        ([("a", None, np.array([1.0, np.nan]))], "NaN"),
        ([("a", None, np.array([]))], "dimensions"),
    ],
)
def test_put_embeddings_refuses_bad_vectors(
    db: duckdb.DuckDBPyConnection, rows: list[tuple[str, str | None, Any]], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        repo.put_embeddings(db, "fragment", "m", rows)
    assert repo.table_counts(db)["embeddings"] == 0


# --------------------------------------------------------------------------- views


@pytest.fixture
def graph(db: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """Two tasks; page D is a near-duplicate (another domain) of page A."""
    pages = repo.upsert_pages(
        db,
        [
            {"url": "https://a.org/study", "domain": "a.org", "title": "Study"},
            {"url": "https://b.org/report", "domain": "b.org", "title": "Report"},
            {"url": "https://c.com/blog", "domain": "c.com", "title": "Blog"},
            {"url": "https://e.org/unused", "domain": "e.org", "title": "Unused"},
        ],
    )
    pa, pb = pages["https://a.org/study"], pages["https://b.org/report"]
    pc, pe = pages["https://c.com/blog"], pages["https://e.org/unused"]
    repo.upsert_pages(db, [{"id": "pd", "url": "https://mirror.d.net/study", "domain": "d.net",
                            "dup_of": pa}])  # fmt: skip
    repo.insert_fragments(
        db,
        [
            {"id": "fa1", "page_id": pa, "position": 0, "text_content": "Coffee raises BP."},
            {"id": "fb1", "page_id": pb, "position": 0, "text_content": "BP rose with coffee."},
            {"id": "fc1", "page_id": pc, "position": 0, "text_content": "No BP change."},
            {"id": "fc2", "page_id": pc, "position": 1, "text_content": "Coffee is popular."},
            {"id": "fd1", "page_id": "pd", "position": 0, "text_content": "Coffee raises BP!"},
            {"id": "fe1", "page_id": pe, "position": 0, "text_content": "Unrelated."},
        ],
    )
    repo.insert_claims(
        db,
        [
            {"id": "c1", "task_id": "t1", "claim_text": "Coffee raises blood pressure"},
            {"id": "c2", "task_id": "t1", "claim_text": "Coffee is popular"},
            {"id": "c3", "task_id": "t2", "claim_text": "Coffee lowers blood pressure"},
            {"id": "c4", "task_id": "t1", "claim_text": "Rejected claim", "status": "rejected"},
        ],
    )

    def edge(task: str, src: str, claim: str, relation: str, conf: float | None) -> dict[str, Any]:
        return {"task_id": task, "source_type": "fragment", "source_id": src,
                "target_type": "claim", "target_id": claim, "relation": relation,
                "nli_confidence": conf}  # fmt: skip

    repo.insert_edges(
        db,
        [
            edge("t1", "fa1", "c1", "origin", None),
            edge("t1", "fc2", "c2", "origin", None),
            edge("t1", "fa1", "c1", "supports", 0.9),
            edge("t1", "fb1", "c1", "supports", 0.6),
            edge("t1", "fd1", "c1", "supports", 0.5),
            edge("t1", "fc1", "c1", "refutes", 0.8),
            edge("t1", "fc2", "c1", "neutral", 0.7),
            edge("t2", "fb1", "c3", "refutes", 0.9),
            edge("t1", "fc1", "c4", "refutes", 0.4),
            {"task_id": "t1", "source_type": "page", "source_id": pa, "target_type": "page",
             "target_id": pb, "relation": "cites"},
        ],
    )  # fmt: skip
    return db


def _beta(alpha: float, beta: float) -> tuple[float, float, float]:
    s = alpha + beta
    controversy = min(alpha - 1, beta - 1) / (s - 2) if s - 2 > 0 else 0.0
    return alpha / s, math.sqrt(alpha * beta / (s * s * (s + 1))), controversy


def test_claim_evidence_summary_exact(graph: duckdb.DuckDBPyConnection) -> None:
    rows = {r["claim_id"]: r for r in _rows(graph, "SELECT * FROM claim_evidence_summary")}
    # c4 was rejected by a person (the feedback tool): it leaves every view.
    assert sorted(rows) == ["c1", "c2", "c3"]
    c1 = rows["c1"]
    assert (c1["supporting"], c1["refuting"], c1["neutral"], c1["evidence_count"]) == (3, 1, 1, 5)
    assert c1["alpha"] == pytest.approx(3.0, abs=1e-12)
    assert c1["beta"] == pytest.approx(1.8, abs=1e-12)
    assert c1["confidence"] == pytest.approx(0.625, abs=1e-12)
    assert c1["uncertainty"] == pytest.approx(0.2010211002820865, abs=1e-12)
    assert c1["controversy"] == pytest.approx(0.8 / 2.8, abs=1e-12)
    # a.org, b.org and d.net support, but d.net's page is a near-duplicate of a.org's.
    assert c1["independent_sources"] == 2
    c2 = rows["c2"]
    assert (c2["alpha"], c2["beta"], c2["confidence"], c2["controversy"]) == (1.0, 1.0, 0.5, 0.0)
    assert c2["uncertainty"] == pytest.approx(math.sqrt(1 / 12), abs=1e-12)
    assert (c2["evidence_count"], c2["independent_sources"]) == (0, 0)
    conf3, unc3, contr3 = _beta(1.0, 1.9)
    c3 = rows["c3"]
    assert (c3["confidence"], c3["uncertainty"], c3["controversy"]) == pytest.approx(
        (conf3, unc3, contr3), abs=1e-12
    )
    assert contr3 == 0.0
    assert {r["status"] for r in rows.values()} == {"active"}


def test_claim_evidence_summary_by_task(graph: duckdb.DuckDBPyConnection) -> None:
    sql = render_view("claim_evidence_summary", {"task_id": "t2"})
    assert [(r["claim_id"], r["refuting"]) for r in _rows(graph, sql)] == [("c3", 1)]


def test_contradictions(graph: duckdb.DuckDBPyConnection) -> None:
    rows = _rows(
        graph,
        "SELECT claim_id, fragment_id, url, domain, nli_confidence, supporting, refuting "
        "FROM contradictions ORDER BY claim_id",
    )
    assert rows == [
        {"claim_id": "c1", "fragment_id": "fc1", "url": "https://c.com/blog", "domain": "c.com",
         "nli_confidence": 0.8, "supporting": 3, "refuting": 1},
        {"claim_id": "c3", "fragment_id": "fb1", "url": "https://b.org/report",
         "domain": "b.org", "nli_confidence": 0.9, "supporting": 0, "refuting": 1},
    ]  # fmt: skip


def test_unsupported_claims(graph: duckdb.DuckDBPyConnection) -> None:
    everywhere = _rows(graph, "SELECT claim_id, refuting FROM unsupported_claims ORDER BY 1")
    assert everywhere == [{"claim_id": "c2", "refuting": 0}, {"claim_id": "c3", "refuting": 1}]
    in_t1 = _rows(graph, render_view("unsupported_claims", {"task_id": "t1"}))
    assert [r["claim_id"] for r in in_t1] == ["c2"]


def test_evidence_chain(graph: duckdb.DuckDBPyConnection) -> None:
    sql = render_view("evidence_chain", {"claim_id": "c1"})
    rows = sorted((r["relation"], r["fragment_id"], r["domain"]) for r in _rows(graph, sql))
    assert rows == [
        ("neutral", "fc2", "c.com"),
        ("origin", "fa1", "a.org"),
        ("refutes", "fc1", "c.com"),
        ("supports", "fa1", "a.org"),
        ("supports", "fb1", "b.org"),
        ("supports", "fd1", "d.net"),
    ]


def test_hub_pages(graph: duckdb.DuckDBPyConnection) -> None:
    cols = "domain, claims_supported, claims_refuted, citation_count, cited_by_count"
    rows = graph.execute(f"SELECT {cols} FROM hub_pages ORDER BY domain").fetchall()
    assert rows == [
        ("a.org", 1, 0, 1, 0),
        ("b.org", 1, 1, 0, 1),
        ("c.com", 0, 1, 0, 0),  # its refutation of the rejected c4 does not count
        ("d.net", 1, 0, 0, 0),
    ]
    in_t2 = graph.execute(
        f"SELECT {cols} FROM ({render_view('hub_pages', {'task_id': 't2'})}) ORDER BY domain"
    ).fetchall()
    assert in_t2 == [("b.org", 0, 1, 0, 0)]


def test_orphan_sources(graph: duckdb.DuckDBPyConnection) -> None:
    rows = graph.execute("SELECT url, fragment_count FROM orphan_sources").fetchall()
    assert rows == [("https://e.org/unused", 1)]


def test_swallowed_error_inside_a_transaction_is_not_a_commit(
    db: duckdb.DuckDBPyConnection,
) -> None:
    with pytest.raises(duckdb.TransactionException, match="aborted"), repo.transaction(db):
        repo.create_task(db, "t1", "q")
        # The mistake under test: the block goes on after a failed statement.
        with pytest.raises(duckdb.ConstraintException):
            db.execute("INSERT INTO tasks (id, query) VALUES ('t2', NULL)")
    assert repo.table_counts(db)["tasks"] == 0
    repo.create_task(db, "t3", "q")
    assert repo.table_counts(db)["tasks"] == 1


@pytest.mark.parametrize("n", [1, repo.SMALL_BATCH_ROWS, repo.SMALL_BATCH_ROWS + 1, 60])
def test_both_write_paths_store_the_same_values(db: duckdb.DuckDBPyConnection, n: int) -> None:
    tz = dt.timezone(dt.timedelta(hours=-5))
    rows = [
        {"domain": f"d{i}.org", "trust_level": None if i % 2 else "ACADEMIC", "qps": i,
         "blocked": None if i % 3 else True, "blocked_at": dt.datetime(2024, 3, 1, 7, tzinfo=tz),
         "state": {"i": i, "tags": ["a"]}}
        for i in range(n)
    ]  # fmt: skip
    assert repo.upsert_rows(db, "domains", rows, key=["domain"]) == n
    got = repo._query(db, "SELECT * FROM domains ORDER BY qps")
    assert [r["domain"] for r in got] == [f"d{i}.org" for i in range(n)]
    assert [r["trust_level"] for r in got] == [
        "UNVERIFIED" if i % 2 else "ACADEMIC" for i in range(n)
    ]
    assert [r["blocked"] for r in got] == [i % 3 == 0 for i in range(n)]
    assert [r["qps"] for r in got] == [float(i) for i in range(n)]
    assert {r["blocked_at"] for r in got} == {dt.datetime(2024, 3, 1, 12)}
    assert [r["state"] for r in got] == [{"i": i, "tags": ["a"]} for i in range(n)]
    vectors = [(f"t{i}", None, np.full(3, i, dtype=np.float32)) for i in range(n)]
    assert repo.put_embeddings(db, "claim", "m", vectors) == n
    stored = repo.get_embeddings(db, "claim", "m", [f"t{i}" for i in range(n)])
    assert {k: v.tolist() for k, v in stored.items()} == {f"t{i}": [float(i)] * 3 for i in range(n)}
    pages = [{"url": f"https://p.org/{i}", "simhash": 2**64 - 1 - i} for i in range(n)]
    ids = repo.upsert_pages(db, pages)
    simhashes = dict(db.execute("SELECT url, simhash FROM pages").fetchall())
    assert simhashes == {f"https://p.org/{i}": 2**64 - 1 - i for i in range(n)}
    assert sorted(ids) == sorted(simhashes)
