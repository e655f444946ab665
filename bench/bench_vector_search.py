"""Vector search over 100k stored 384-d embeddings: VectorIndex against two baselines.

Run: .venv/bin/python bench/bench_vector_search.py [--rows N] [--dims D] [--queries Q]

Measured in one run on one DuckDB file in a temporary directory:
- store: repository.put_embeddings of all rows (one batch);
- load: VectorIndex.load (DuckDB -> normalised float32 matrix);
- search: VectorIndex.search top-10, median of the queries;
- NumPy baseline: a plain full product and full argsort on the same matrix;
- DuckDB baseline: list_cosine_similarity ... ORDER BY ... LIMIT 10 in SQL.
The figures printed are ratios against the baselines of the same run.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from lyra.storage import repository as repo
from lyra.storage.connection import open_database
from lyra.storage.vectors import VectorIndex, normalise_rows


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000.0


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--top-k", type=int, default=10)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    data = normalise_rows(rng.standard_normal((args.rows, args.dims)).astype(np.float32))
    ids = [f"f{i:07d}" for i in range(args.rows)]
    queries = normalise_rows(rng.standard_normal((args.queries, args.dims)).astype(np.float32))

    with tempfile.TemporaryDirectory(prefix="lyra-bench-") as tmp:
        con = open_database(Path(tmp) / "bench.duckdb", memory_limit="4GB", threads=2)
        started = time.perf_counter()
        rows = [(ids[i], None, data[i]) for i in range(args.rows)]
        repo.put_embeddings(con, "fragment", "bench-model", rows)
        store_s = time.perf_counter() - started

        started = time.perf_counter()
        index = VectorIndex.load(con, "fragment", "bench-model")
        load_s = time.perf_counter() - started

        index_times: list[float] = []
        numpy_times: list[float] = []
        duckdb_times: list[float] = []
        agree = 0
        for q in queries:
            t0 = time.perf_counter()
            hits = index.search(q, top_k=args.top_k)
            index_times.append(time.perf_counter() - t0)

            t0 = time.perf_counter()
            baseline = np.argsort(-(data @ q))[: args.top_k]
            numpy_times.append(time.perf_counter() - t0)

            t0 = time.perf_counter()
            sql_hits = con.execute(
                "SELECT target_id FROM embeddings WHERE target_type = 'fragment' "
                "AND model_id = 'bench-model' "
                "ORDER BY list_cosine_similarity(vector, ?::FLOAT[]) DESC LIMIT ?",
                [q.tolist(), args.top_k],
            ).fetchall()
            duckdb_times.append(time.perf_counter() - t0)

            expected = [ids[i] for i in baseline]
            agree += int([h[0] for h in hits] == expected == [r[0] for r in sql_hits])
        con.close()

    index_ms = _median_ms(index_times)
    numpy_ms = _median_ms(numpy_times)
    duckdb_ms = _median_ms(duckdb_times)
    print(f"rows={args.rows} dims={args.dims} queries={args.queries} top_k={args.top_k}")
    print(f"store (put_embeddings, one batch): {store_s:8.2f} s  "
          f"({args.rows / store_s:,.0f} rows/s)")  # fmt: skip
    print(f"VectorIndex.load:                  {load_s:8.2f} s")
    print(f"VectorIndex.search median:         {index_ms:8.2f} ms")
    print(f"NumPy full product + argsort:      {numpy_ms:8.2f} ms")
    print(f"DuckDB list_cosine_similarity SQL: {duckdb_ms:8.2f} ms")
    print(f"ratio NumPy baseline / index:      {numpy_ms / index_ms:8.2f}x")
    print(f"ratio DuckDB SQL / index:          {duckdb_ms / index_ms:8.2f}x")
    print(f"identical top-{args.top_k} in all three: {agree}/{args.queries} queries")


if __name__ == "__main__":
    main()
