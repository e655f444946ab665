"""`lyra replay TASK` (issue 15, decision 0035): a finished task's evidence rebuilt from
its own archives (local corpus files, WARC records) with the models installed now and
no request to any site; with unchanged models the same claims and stance edges come
back; the diff names what moved."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
import ray

from lyra.actors.orchestrator import Orchestrator
from lyra.actors.runtime import INFERENCE
from lyra.config.settings import Settings
from lyra.jobs.models_pull import pull_model
from lyra.jobs.replay import archived_documents
from lyra.pipelines.evidence.model_registry import REGISTRY_FILENAME, models_dir
from lyra.pipelines.evidence.nli import CrossEncoderNli
from lyra.pipelines.evidence.stance_model import STANCE_MODEL_ID
from lyra.storage import graph_queries as gq
from lyra.storage import repository as repo
from lyra.storage.connection import open_database
from lyra.storage.warc import read_response
from tests.conftest import DEMO_QUESTION, finished_search, make_settings
from tests.conftest_web import FixtureServer, Route
from tests.stand_in_hub import Repo, StandInHub, serve_hub
from tests.test_cleanup import OTHER_PAGE
from tests.test_models_pull import NLI, NLI_COMMIT, NLI_LABELS, _classifier
from tests.test_search_urls import PAGE


@pytest.fixture(scope="module")
def settings(lyra_home: Path) -> Settings:
    return make_settings(lyra_home, fetch={"default_qps": 5.0})


@pytest.fixture(scope="module")
def orch(settings: Settings) -> Iterator[Any]:
    handle = Orchestrator.options(
        name="orchestrator", namespace=settings.ray.namespace, get_if_exists=True
    ).remote(settings)
    yield handle
    ray.kill(handle)


def _search(orch: Any, query: str, options: dict[str, Any], status: str) -> str:
    task = ray.get(orch.create_task.remote(query, {}))
    sid = ray.get(orch.start_search.remote(task["id"], query, options))
    assert finished_search(orch, sid)["status"] == status
    return str(task["id"])


def _stance_edges(orch: Any, task_id: str) -> int:
    sql = (
        "SELECT count(*) FROM edges e JOIN claims c ON c.id = e.target_id "
        f"WHERE c.task_id = '{task_id}' AND e.relation IN ('supports', 'refutes', 'neutral')"
    )
    return int(ray.get(orch.query_graph.remote(sql, None, {}, 5, 2000, False))["rows"][0][0])


@pytest.fixture(scope="module")
def corpus_task(orch: Any) -> str:
    """A finished task over the shipped corpus, judged by the packaged stance model."""
    return _search(orch, DEMO_QUESTION, {}, "satisfied")


@pytest.mark.ray
@pytest.mark.usefixtures("ray_session")
def test_replaying_a_corpus_task_reproduces_its_claims_and_edges(
    orch: Any, corpus_task: str
) -> None:
    out = ray.get(orch.replay_task.remote(corpus_task))
    assert (out["searches"], out["pages_replayed"], out["warnings"]) == (1, 15, [])
    assert (out["claims_added"], out["claims_dropped"], out["edges_moved"]) == ([], [], [])
    assert (out["edges_added"], out["edges_dropped"]) == (0, 0)
    assert (
        out["edges_unchanged"]
        == _stance_edges(orch, corpus_task)
        == _stance_edges(orch, out["replay_task_id"])
    )
    assert out["models"] == {
        "nli": STANCE_MODEL_ID,
        "embedding": "all-MiniLM-L6-v2",
        "reloaded": False,
    }
    # Every stance edge of both tasks records the model that judged it.
    assert out["nli_models"] == {"before": [STANCE_MODEL_ID], "after": [STANCE_MODEL_ID]}


@pytest.mark.ray
@pytest.mark.usefixtures("ray_session")
def test_a_replay_after_a_model_pull_judges_with_the_new_model_and_reports_the_moves(
    orch: Any, corpus_task: str, settings: Settings, tmp_path: Path
) -> None:
    """`lyra models pull nli` while Lyra runs, then `lyra replay`: the replay loads the
    pulled model (a tiny random one from the stand-in hub) and every stance edge it
    reports as moved carries that model's own judgment of the pair."""
    hub = StandInHub()
    hub.repos[NLI] = Repo.from_folder(_classifier(tmp_path / "nli", NLI_LABELS), NLI_COMMIT)
    registry = models_dir(settings.home_dir) / REGISTRY_FILENAME
    assert not registry.exists()
    try:
        with serve_hub(hub):
            entry = pull_model(
                settings.home_dir, "nli", model_id=NLI, revision=NLI_COMMIT, endpoint=hub.url,
                token=False, hf_cache=tmp_path / "hf-cache",
            )  # fmt: skip
        out = ray.get(orch.replay_task.remote(corpus_task))
    finally:
        registry.unlink(missing_ok=True)
        # The module's InferenceActor goes back to the packaged model.
        inference = ray.get_actor(INFERENCE, namespace=settings.ray.namespace)
        assert ray.get(inference.reload_models.remote()) is True
    model_id = f"{NLI}@{NLI_COMMIT[:12]}"
    assert out["models"] == {"nli": model_id, "embedding": "all-MiniLM-L6-v2", "reloaded": True}
    assert out["nli_models"] == {"before": [STANCE_MODEL_ID], "after": [model_id]}
    # Same pages, same embedder: the same claims and the same (claim, fragment) pairs.
    assert (out["warnings"], out["claims_added"], out["claims_dropped"]) == ([], [], [])
    assert (out["edges_added"], out["edges_dropped"]) == (0, 0)
    moved, pairs = out["edges_moved"], _stance_edges(orch, corpus_task)
    assert len(moved) + out["edges_unchanged"] == pairs
    assert len(moved) >= pairs * 0.9
    texts = _fragment_texts(orch, [m["fragment_id"] for m in moved])
    tiny = CrossEncoderNli(entry.path, max_length=256, batch_size=len(moved))
    judged = tiny.judge([(texts[m["fragment_id"]], m["claim"]) for m in moved])
    assert [m["after"] for m in moved] == [
        {"relation": j.label, "confidence": pytest.approx(j.confidence, abs=1e-4)} for j in judged
    ]


def _fragment_texts(orch: Any, ids: list[str]) -> dict[str, str]:
    listed = ", ".join(f"'{i}'" for i in sorted(set(ids)))
    sql = f"SELECT id, text_content FROM fragments WHERE id IN ({listed})"
    rows = ray.get(orch.query_graph.remote(sql, None, {}, 2000, 5000, False))["rows"]
    return {row[0]: row[1] for row in rows}


@pytest.mark.ray
@pytest.mark.usefixtures("ray_session")
def test_replaying_fetched_pages_sends_no_request(orch: Any) -> None:
    server = FixtureServer("127.0.0.1")
    try:
        server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain")
        server.route("/sleep.html", body=PAGE.encode())
        server.route("/heart.html", body=OTHER_PAGE.encode())
        urls = [server.url("/sleep.html"), server.url("/heart.html")]
        task_id = _search(orch, "What does caffeine do?", {"urls": urls}, "partial")
        before = len(server.requests)
        out = ray.get(orch.replay_task.remote(task_id))
        assert len(server.requests) == before
    finally:
        server.close()
    assert (out["pages_replayed"], out["warnings"]) == (2, [])
    assert (out["claims_added"], out["claims_dropped"], out["edges_moved"]) == ([], [], [])
    assert out["edges_unchanged"] == _stance_edges(orch, task_id)
    # Every quote the evidence pack exports for these fetched pages is verbatim at its
    # offsets in the text extracted again from the page's WARC record.
    pack = ray.get(orch.export_task.remote(task_id, "jsonl"))["content"]
    evidence = [e for line in pack.splitlines() for e in json.loads(line)["evidence"]]
    sql = (
        "SELECT url, final_url, domain, warc_path, warc_offset, source_path FROM pages "
        "WHERE url IN (?, ?)"
    )
    result = ray.get(orch.query_graph.remote(sql.replace("?", "'{}'").format(*urls), None,
                                             {}, 5, 2000, False))  # fmt: skip
    pages = [dict(zip(result["columns"], row, strict=True)) for row in result["rows"]]
    # Each page names its own response record: its URL, the body the server sent.
    served = {urls[0]: PAGE.encode(), urls[1]: OTHER_PAGE.encode()}
    for page in pages:
        record = read_response(Path(page["warc_path"]), page["warc_offset"])
        assert (record.target_uri, record.status, record.body) == (
            page["url"],
            200,
            served[page["url"]],
        )
    docs, notes = archived_documents(pages, 10_000_000)
    texts = {doc.url: doc.text for doc in docs}
    assert (notes, sorted(texts)) == ([], sorted(urls))
    assert {e["archive"] for e in evidence} == {p["warc_path"] for p in pages}
    by_url = {p["url"]: (p["warc_path"], p["warc_offset"]) for p in pages}
    assert all((e["archive"], e["archive_offset"]) == by_url[e["url"]] for e in evidence)
    assert [texts[e["url"]][e["char_start"] : e["char_end"]] for e in evidence] == [
        e["quote"] for e in evidence
    ]
    stance = [e for e in evidence if e["relation"] != "origin"]
    assert len(stance) == out["edges_unchanged"]


@pytest.mark.ray
@pytest.mark.usefixtures("ray_session")
def test_a_page_confirmed_by_a_304_names_the_record_that_holds_its_body(orch: Any) -> None:
    """Fetched again with its validator, a page comes back 304 with no body; its row
    points at the earlier 200 record whose body it shows, and a replay reads that."""
    server = FixtureServer("127.0.0.1")
    etag = '"v1-sleep"'

    def answer(record: Any) -> Route:
        if record.headers.get("If-None-Match") == etag:
            return Route(status=304, body=b"", headers={"ETag": etag})
        return Route(body=PAGE.encode(), headers={"ETag": etag})

    try:
        server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain")
        server.route("/sleep304.html", handler=answer)
        url = server.url("/sleep304.html")
        _search(orch, "What does caffeine do?", {"urls": [url]}, "partial")
        second = _search(orch, "Does caffeine affect sleep?", {"urls": [url]}, "partial")
        page = [r for r in server.requests if r.path == "/sleep304.html"]
        asked = [r.headers.get("If-None-Match") for r in page]
        assert asked == [None, etag]
        before = len(server.requests)
        out = ray.get(orch.replay_task.remote(second))
        assert len(server.requests) == before
    finally:
        server.close()
    sql = f"SELECT warc_path, warc_offset FROM pages WHERE url = '{url}'"
    row = ray.get(orch.query_graph.remote(sql, None, {}, 5, 2000, False))["rows"]
    assert len(row) == 1
    record = read_response(Path(row[0][0]), row[0][1])
    assert (record.target_uri, record.status, record.body) == (url, 200, PAGE.encode())
    assert (out["pages_replayed"], out["warnings"]) == (1, [])


def test_the_diff_names_claims_added_and_dropped_and_edges_moved(tmp_path: Path) -> None:
    con: duckdb.DuckDBPyConnection = open_database(
        tmp_path / "lyra.duckdb", memory_limit="256MB", threads=1
    )
    repo.insert_claims(
        con,
        [
            {"id": "a1", "task_id": "old", "claim_text": "kept"},
            {"id": "a2", "task_id": "old", "claim_text": "dropped"},
            {"id": "b1", "task_id": "new", "claim_text": "kept"},
            {"id": "b2", "task_id": "new", "claim_text": "added"},
        ],
    )

    def edge(claim: str, frag: str, relation: str, conf: float) -> dict[str, Any]:
        model = "m-old" if claim.startswith("a") else "m-new"
        return {"source_type": "fragment", "source_id": frag, "target_type": "claim",
                "target_id": claim, "relation": relation, "nli_confidence": conf,
                "nli_model": model}  # fmt: skip

    repo.insert_edges(
        con,
        [
            edge("a1", "f1", "supports", 0.8),
            edge("a1", "f2", "supports", 0.7),
            edge("a1", "f3", "neutral", 0.5),
            edge("a2", "f1", "refutes", 0.9),
            edge("b1", "f1", "supports", 0.8),
            edge("b1", "f2", "refutes", 0.6),
            edge("b1", "f3", "neutral", 0.52),
            edge("b2", "f4", "supports", 0.9),
        ],
    )
    diff = gq.replay_diff(con, "old", "new")
    con.close()
    assert diff == {
        "nli_models": {"before": ["m-old"], "after": ["m-new"]},
        "claims_added": ["added"],
        "claims_dropped": ["dropped"],
        "edges_added": 1,
        "edges_dropped": 1,
        "edges_moved": [
            {
                "claim": "kept",
                "fragment_id": "f2",
                "before": {"relation": "supports", "confidence": 0.7},
                "after": {"relation": "refutes", "confidence": 0.6},
            },
            {
                "claim": "kept",
                "fragment_id": "f3",
                "before": {"relation": "neutral", "confidence": 0.5},
                "after": {"relation": "neutral", "confidence": 0.52},
            },
        ],
        "edges_unchanged": 1,
    }
