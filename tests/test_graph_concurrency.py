"""The GraphActor answers reads beside a bulk write, and every read sees every write that
returned before it (decision 0026): reads run in their own concurrency group, each
thread on its own DuckDB cursor; writes stay one at a time."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import ray

from lyra.actors.graph import READ_THREADS, GraphActor
from tests.conftest import make_settings

BULK_FRAGMENTS = 60_000
MODEL = "test-model"


@pytest.fixture
def graph(ray_session: None, lyra_home: Path) -> Iterator[Any]:
    actor = GraphActor.remote(make_settings(lyra_home))  # type: ignore[attr-defined]
    assert ray.get(actor.ping.remote()) == "ok"
    yield actor
    ray.kill(actor)


def test_a_read_is_answered_while_a_bulk_write_runs(graph: Any) -> None:
    ray.get(graph.create_task.remote("task-1", "coffee and blood pressure", {}))
    rows = [
        {
            "page_id": f"page-{i // 100}",
            "position": i % 100,
            "text_content": f"Fragment {i} of a long page about caffeine and blood pressure.",
        }
        for i in range(BULK_FRAGMENTS)
    ]
    write = graph.insert_fragments.remote(rows)
    # Submitted after the write, by the same caller: a one-thread actor would answer it
    # only once the write is done.
    read = graph.get_task.remote("task-1")
    assert ray.get(read)["query"] == "coffee and blood pressure"
    finished, _ = ray.wait([write], timeout=0)
    assert finished == []
    assert ray.get(write) == BULK_FRAGMENTS
    assert ray.get(graph.table_counts.remote())["fragments"] == BULK_FRAGMENTS


def test_every_read_sees_the_writes_before_it(graph: Any) -> None:
    """Alternating writes and reads land on different threads and connections; each
    read still sees every committed write."""
    ray.get(graph.create_task.remote("task-2", "q", {}))
    rng = np.random.default_rng(0)
    for i in range(READ_THREADS * 6):
        ray.get(graph.insert_claims.remote([{"task_id": "task-2", "claim_text": f"claim {i}"}]))
        claims = ray.get(graph.claims_for_task.remote("task-2"))
        assert sorted(c["claim_text"] for c in claims) == sorted(f"claim {j}" for j in range(i + 1))
        vector = rng.normal(size=8).astype(np.float32)
        ray.get(graph.put_embeddings.remote("claim", MODEL, [(f"c{i}", None, vector.tolist())]))
        hits = ray.get(graph.vector_search.remote(vector.tolist(), "claim", MODEL, 1, 0.0))
        assert hits[0][0] == f"c{i}"
        assert hits[0][1] == pytest.approx(1.0, abs=1e-5)


def test_reads_run_side_by_side(graph: Any) -> None:
    """A slow sandboxed query does not hold up the quick reads behind it."""
    slow = graph.query_graph.remote(
        "SELECT count(*) FROM range(300000000) a(x) WHERE x % 7 = 3", None, {}, 10, 20_000, False
    )
    for _ in range(READ_THREADS):
        assert ray.get(graph.ping.remote()) == "ok"
    finished, _ = ray.wait([slow], timeout=0)
    assert finished == []
    assert ray.get(slow)["rows"] == [[42857143]]
