"""Write throughput of the repository: one batched call against one transaction per row.

Run: .venv/bin/python bench/bench_graph_writes.py [--batch N] [--single M]

The batched side inserts N fragments (then N edges) in one repository call, i.e. one
transaction and one INSERT ... SELECT; the baseline inserts M rows through the same
functions one call, hence one transaction, per row. Both sides write to a fresh DuckDB
file opened by open_database, in a temporary directory. Printed: rows/s and the ratio.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import duckdb

from lyra.storage import repository as repo
from lyra.storage.connection import open_database

Writer = Callable[[duckdb.DuckDBPyConnection, Sequence[dict[str, Any]]], int]


def _fragments(n: int, offset: int) -> list[dict[str, Any]]:
    text = "Caffeine intake was associated with a short rise in systolic pressure. " * 6
    return [
        {"page_id": f"p{(offset + i) // 40}", "position": (offset + i) % 40,
         "text_content": f"{i + offset}: {text}", "heading_context": "Results",
         "fragment_type": "paragraph", "char_start": i * 430, "char_end": i * 430 + 429}
        for i in range(n)
    ]  # fmt: skip


def _edges(n: int, offset: int) -> list[dict[str, Any]]:
    return [
        {"task_id": "t1", "source_type": "fragment", "source_id": f"f{offset + i}",
         "target_type": "claim", "target_id": f"c{(offset + i) % 500}", "relation": "supports",
         "nli_label": "entailment", "nli_confidence": 0.8, "method": "nli"}
        for i in range(n)
    ]  # fmt: skip


def _measure(
    path: Path,
    writer: Writer,
    rows_of: Callable[[int, int], list[dict[str, Any]]],
    batch: int,
    single: int,
) -> tuple[float, float]:
    con = open_database(path, memory_limit="2GB", threads=2)
    rows = rows_of(batch, 0)
    started = time.perf_counter()
    written = writer(con, rows)
    batched_s = time.perf_counter() - started
    if written != batch:
        raise RuntimeError(f"batched call wrote {written} rows, expected {batch}")
    singles = rows_of(single, batch)
    started = time.perf_counter()
    for row in singles:
        writer(con, [row])
    single_s = time.perf_counter() - started
    counted = repo.table_counts(con)
    con.close()
    total = batch + single
    if max(counted["fragments"], counted["edges"]) != total:
        raise RuntimeError(f"expected {total} rows, found {counted}")
    return batch / batched_s, single / single_s


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=20_000)
    parser.add_argument("--single", type=int, default=1_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lyra-bench-") as tmp:
        for name, writer, rows_of in (
            ("fragments", repo.insert_fragments, _fragments),
            ("edges", repo.insert_edges, _edges),
        ):
            batched, single = _measure(
                Path(tmp) / f"{name}.duckdb", writer, rows_of, args.batch, args.single
            )
            print(f"{name:9s} batched ({args.batch} rows, one call): {batched:10,.0f} rows/s")
            print(f"{name:9s} one transaction per row ({args.single} rows): {single:10,.0f} rows/s")
            print(f"{name:9s} ratio batched / per-row: {batched / single:8.1f}x")


if __name__ == "__main__":
    main()
