"""Brute-force cosine top-k over stored embeddings (no ``vss`` extension offline).

``VectorIndex`` holds every vector of one (target_type, model_id) as rows of a
normalised float32 matrix, loaded from DuckDB once and then kept current with ``add``
and ``remove`` by the GraphActor as it writes embeddings. A query is one
matrix-vector product: on 100k x 384 it is a few milliseconds in NumPy, against about
55 ms for the same top-10 in DuckDB SQL (ENVIRONMENT.md; bench/bench_vector_search.py
measures both sides on the machine at hand).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import duckdb
import numpy as np
import numpy.typing as npt

FloatMatrix = npt.NDArray[np.float32]

_INITIAL_CAPACITY = 1024


def normalise_rows(matrix: npt.ArrayLike) -> FloatMatrix:
    """Rows scaled to unit length as float32; all-zero rows stay zero (similarity 0)."""
    m = np.array(matrix, dtype=np.float32, copy=True, ndmin=2)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    np.divide(m, norms, out=m, where=norms > 0)
    return m


class VectorIndex:
    """In-memory cosine index of one (target_type, model_id); ids are target ids."""

    def __init__(
        self, dims: int | None = None, *, target_type: str = "", model_id: str = ""
    ) -> None:
        if dims is not None and dims < 1:
            raise ValueError("dims must be at least 1")
        # dims None: taken from the first add, so that an index of a model with nothing
        # stored yet can exist before its first vector.
        self.dims = dims
        self.target_type = target_type
        self.model_id = model_id
        self._matrix: FloatMatrix = np.zeros((0, 0), dtype=np.float32)
        self._ids: list[str] = []
        self._row: dict[str, int] = {}

    @classmethod
    def load(
        cls,
        con: duckdb.DuckDBPyConnection,
        target_type: str,
        model_id: str,
        *,
        dims: int | None = None,
    ) -> VectorIndex:
        """Every stored vector of (target_type, model_id); an empty index if none."""
        data = con.execute(
            "SELECT target_id, vector FROM embeddings "
            "WHERE target_type = ? AND model_id = ? ORDER BY target_id",
            [target_type, model_id],
        ).fetchnumpy()
        ids = [str(i) for i in data["target_id"].tolist()]
        if not ids:
            return cls(dims, target_type=target_type, model_id=model_id)
        # fetchnumpy gives one float32 array per FLOAT[] value; stacking them is the
        # only per-row Python work of the load.
        matrix = np.stack(list(data["vector"])).astype(np.float32, copy=False)
        if dims is not None and matrix.shape[1] != dims:
            raise ValueError(f"stored vectors have {matrix.shape[1]} dims, not {dims}")
        index = cls(int(matrix.shape[1]), target_type=target_type, model_id=model_id)
        index.add(ids, matrix)
        return index

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, target_id: object) -> bool:
        return target_id in self._row

    @property
    def ids(self) -> list[str]:
        """Ids in row order (a copy)."""
        return list(self._ids)

    def _reserve(self, rows: int, dims: int) -> None:
        capacity = self._matrix.shape[0]
        if rows <= capacity and self._matrix.shape[1] == dims:
            return
        # Doubling keeps a stream of small adds amortised O(1) per row.
        capacity = max(capacity, _INITIAL_CAPACITY)
        while capacity < rows:
            capacity *= 2
        grown = np.zeros((capacity, dims), dtype=np.float32)
        if self._ids:
            grown[: len(self._ids)] = self._matrix[: len(self._ids)]
        self._matrix = grown

    def add(self, ids: Sequence[str], vectors: npt.ArrayLike) -> None:
        """Insert vectors, replacing the vector of an id already present."""
        matrix = normalise_rows(vectors)
        if matrix.shape[0] != len(ids):
            raise ValueError(f"{len(ids)} ids but {matrix.shape[0]} vectors")
        if len(ids) == 0:
            return
        if self.dims is None:
            self.dims = int(matrix.shape[1])
        if matrix.shape[1] != self.dims:
            raise ValueError(f"vectors have {matrix.shape[1]} dims; the index has {self.dims}")
        new_rows: list[int] = []
        new_ids: list[str] = []
        pending: dict[str, int] = {}
        for i, target_id in enumerate(ids):
            row = self._row.get(target_id)
            if row is not None:
                self._matrix[row] = matrix[i]
            elif target_id in pending:
                # The same id twice in one call: the later vector wins, as in storage.
                new_rows[pending[target_id]] = i
            else:
                pending[target_id] = len(new_ids)
                new_ids.append(target_id)
                new_rows.append(i)
        start = len(self._ids)
        self._reserve(start + len(new_ids), self.dims)
        self._matrix[start : start + len(new_ids)] = matrix[new_rows]
        for offset, target_id in enumerate(new_ids):
            self._row[target_id] = start + offset
        self._ids.extend(new_ids)

    def remove(self, ids: Iterable[str]) -> int:
        """Drop the given ids (unknown ones ignored); returns how many were present."""
        removed = 0
        for target_id in ids:
            row = self._row.pop(target_id, None)
            if row is None:
                continue
            last = len(self._ids) - 1
            if row != last:
                # Move the last row into the hole so the live rows stay contiguous.
                moved = self._ids[last]
                self._matrix[row] = self._matrix[last]
                self._ids[row] = moved
                self._row[moved] = row
            self._ids.pop()
            removed += 1
        return removed

    def vector(self, target_id: str) -> FloatMatrix:
        """The normalised vector of one id (a copy); KeyError if absent."""
        return np.array(self._matrix[self._row[target_id]], copy=True)

    def search(
        self,
        query_vec: npt.ArrayLike,
        top_k: int = 10,
        min_similarity: float = -1.0,
        allowed_ids: set[str] | None = None,
    ) -> list[tuple[str, float]]:
        """Up to top_k (id, cosine) pairs at or above min_similarity, best first, ties by id."""
        if top_k < 1:
            raise ValueError("top_k must be at least 1")
        n = len(self._ids)
        if n == 0 or self.dims is None:
            return []
        query = normalise_rows(query_vec)
        if query.shape != (1, self.dims):
            raise ValueError(f"query has shape {query.shape[1:]}; the index has {self.dims} dims")
        q = query[0]
        if allowed_ids is None:
            rows = None
            sims = self._matrix[:n] @ q
        else:
            rows = np.fromiter(
                (self._row[i] for i in allowed_ids if i in self._row), dtype=np.int64
            )
            if rows.size == 0:
                return []
            # A small allowed set is cheaper as a gathered sub-matrix; a large one as
            # the full product then a gather of the scores.
            small = rows.size * 4 < n
            sims = self._matrix[rows] @ q if small else (self._matrix[:n] @ q)[rows]
        # Cosine is never below -1: skip the filter (a pass and a copy over every row)
        # when it cannot remove anything.
        keep = None if min_similarity <= -1.0 else np.flatnonzero(sims >= min_similarity)
        scores = sims if keep is None else sims[keep]
        count = int(scores.size)
        if count == 0:
            return []
        if count > top_k:
            # Take a margin past k so that ties at the cut can still be ordered by id.
            cut = min(count, top_k * 2)
            chosen = np.argpartition(scores, count - cut)[count - cut :]
        else:
            chosen = np.arange(count)
        positions = chosen if keep is None else keep[chosen]
        candidates = [
            (self._ids[int(rows[j]) if rows is not None else int(j)], float(sims[j]))
            for j in positions
        ]
        candidates.sort(key=lambda pair: (-pair[1], pair[0]))
        return candidates[:top_k]
