"""Brute-force cosine index: exact rankings, filters, incremental updates, loading."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import numpy as np
import pytest

from lyra.storage import repository as repo
from lyra.storage.connection import open_database
from lyra.storage.vectors import VectorIndex, normalise_rows


@pytest.fixture
def db(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = open_database(tmp_path / "lyra.duckdb", memory_limit="512MB", threads=2)
    yield con
    con.close()


def _small_index() -> VectorIndex:
    index = VectorIndex(3, target_type="claim", model_id="m")
    index.add(
        ["x", "xy", "y", "z", "neg_x"],
        [[2, 0, 0], [1, 1, 0], [0, 3, 0], [0, 0, 1], [-1, 0, 0]],
    )
    return index


def test_search_ranks_by_cosine() -> None:
    hits = _small_index().search([1, 0, 0], top_k=5)
    assert [h[0] for h in hits] == ["x", "xy", "y", "z", "neg_x"]
    assert [h[1] for h in hits] == pytest.approx([1.0, 2**-0.5, 0.0, 0.0, -1.0], abs=1e-6)


def test_ties_are_ordered_by_id() -> None:
    hits = _small_index().search([1, 0, 0], top_k=4)
    # y and z both score 0.0; with k = 4 only the first of them by id survives.
    assert [h[0] for h in hits] == ["x", "xy", "y", "z"]
    assert [h[0] for h in _small_index().search([1, 0, 0], top_k=3)] == ["x", "xy", "y"]


def test_min_similarity_filters() -> None:
    hits = _small_index().search([1, 0, 0], top_k=10, min_similarity=0.5)
    assert [h[0] for h in hits] == ["x", "xy"]
    assert _small_index().search([1, 0, 0], top_k=10, min_similarity=1.01) == []


def test_allowed_ids_restrict_the_candidates() -> None:
    index = _small_index()
    hits = index.search([1, 0, 0], top_k=10, allowed_ids={"y", "neg_x", "not-indexed"})
    assert [h[0] for h in hits] == ["y", "neg_x"]
    assert index.search([1, 0, 0], top_k=10, allowed_ids=set()) == []
    assert index.search([1, 0, 0], top_k=10, allowed_ids={"unknown"}) == []


def test_add_replaces_and_remove_compacts() -> None:
    index = _small_index()
    index.add(["z"], [[1, 0, 0]])
    assert len(index) == 5
    assert [h[0] for h in index.search([1, 0, 0], top_k=2)] == ["x", "z"]
    index.add(["w", "w"], [[0, 1, 0], [0, 0, 1]])
    assert len(index) == 6
    np.testing.assert_allclose(index.vector("w"), [0, 0, 1])
    assert index.remove(["x", "missing", "xy"]) == 2
    assert len(index) == 4
    assert sorted(index.ids) == ["neg_x", "w", "y", "z"]
    assert "x" not in index
    assert [h[0] for h in index.search([1, 0, 0], top_k=1)] == ["z"]
    np.testing.assert_allclose(index.vector("w"), [0, 0, 1])


def test_growth_beyond_initial_capacity() -> None:
    rng = np.random.default_rng(3)
    index = VectorIndex(8)
    data = rng.standard_normal((3000, 8)).astype(np.float32)
    for start in range(0, 3000, 250):
        index.add([f"v{i}" for i in range(start, start + 250)], data[start : start + 250])
    assert len(index) == 3000
    expected = np.argsort(-(normalise_rows(data) @ normalise_rows(data[42])[0]))[:5]
    assert [h[0] for h in index.search(data[42], top_k=5)] == [f"v{i}" for i in expected]


def test_zero_vectors_score_zero() -> None:
    index = VectorIndex(2)
    index.add(["zero", "one"], [[0, 0], [1, 0]])
    assert index.search([1, 0], top_k=2) == [("one", pytest.approx(1.0)), ("zero", 0.0)]
    assert index.search([0, 0], top_k=2) == [("one", 0.0), ("zero", 0.0)]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda ix: ix.search([1, 0], top_k=1), "dims"),
        (lambda ix: ix.search([1, 0, 0], top_k=0), "top_k"),
        (lambda ix: ix.add(["a"], [[1, 0]]), "dims"),
        (lambda ix: ix.add(["a", "b"], [[1, 0, 0]]), "2 ids but 1 vectors"),
    ],
)
def test_bad_shapes_are_refused(call: Callable[[VectorIndex], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call(_small_index())


def test_empty_index_finds_nothing() -> None:
    assert VectorIndex(4).search([1, 2, 3, 4], top_k=3) == []


def test_load_matches_numpy_brute_force(db: duckdb.DuckDBPyConnection) -> None:
    rng = np.random.default_rng(11)
    data = rng.standard_normal((2000, 64)).astype(np.float32)
    ids = [f"f{i:04d}" for i in range(2000)]
    rows = [(i, None, v) for i, v in zip(ids, data, strict=True)]
    repo.put_embeddings(db, "fragment", "minilm", rows)
    repo.put_embeddings(db, "claim", "minilm", [("c0", None, data[0])])
    index = VectorIndex.load(db, "fragment", "minilm")
    assert (len(index), index.dims, index.target_type, index.model_id) == (
        2000, 64, "fragment", "minilm",
    )  # fmt: skip
    query = rng.standard_normal(64).astype(np.float32)
    sims = normalise_rows(data) @ normalise_rows(query)[0]
    order = np.argsort(-sims)[:10]
    hits = index.search(query, top_k=10)
    assert [h[0] for h in hits] == [ids[i] for i in order]
    assert [h[1] for h in hits] == pytest.approx([float(sims[i]) for i in order], abs=1e-5)
    # The same answer through the small-subset and the large-subset paths.
    allowed_small = {ids[i] for i in order[:3]} | {"f1999"}
    allowed_large = set(ids[:1500]) | {ids[i] for i in order[:3]}
    assert [h[0] for h in index.search(query, 3, allowed_ids=allowed_small)] == [
        ids[i] for i in order[:3]
    ]
    assert [h[0] for h in index.search(query, 3, allowed_ids=allowed_large)] == [
        ids[i] for i in order[:3]
    ]


def test_load_of_nothing_is_an_empty_index(db: duckdb.DuckDBPyConnection) -> None:
    empty = VectorIndex.load(db, "claim", "minilm")
    assert (len(empty), empty.dims) == (0, None)
    assert empty.search([1.0, 0.0], top_k=3) == []
    empty.add(["c9"], [[0.0, 2.0]])
    assert empty.dims == 2
    assert empty.search([0.0, 1.0], top_k=3) == [("c9", 1.0)]
    sized = VectorIndex.load(db, "claim", "minilm", dims=384)
    assert (len(sized), sized.dims) == (0, 384)
    repo.put_embeddings(db, "claim", "minilm", [("c1", None, np.ones(16))])
    with pytest.raises(ValueError, match="16 dims, not 384"):
        VectorIndex.load(db, "claim", "minilm", dims=384)
