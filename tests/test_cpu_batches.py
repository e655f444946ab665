"""How Lyra's ONNX models run on CPU cores: one small batch per core (decision 0074)."""

from __future__ import annotations

import os
import threading
import time

import pytest

from lyra.pipelines.evidence.cpu_batches import (
    CPU_BATCH,
    BatchRunner,
    cpu_batch_size,
    cpu_workers,
    session_options,
)


def test_workers_are_the_cores_this_process_may_use() -> None:
    assert cpu_workers() == len(os.sched_getaffinity(0))


def test_batches_are_small_and_leave_no_core_idle() -> None:
    assert CPU_BATCH == 4
    assert cpu_batch_size(1917, 2, 16) == 4  # a long list: CPU_BATCH
    assert cpu_batch_size(1917, 2, 2) == 2  # a smaller configured batch holds
    assert cpu_batch_size(5, 2, 16) == 3  # 3 + 2, not 4 + 1
    assert cpu_batch_size(16, 16, 16) == 1  # sixteen cores: one pair each
    assert cpu_batch_size(1, 2, 16) == 1


def test_results_come_back_in_batch_order_from_several_threads() -> None:
    """The later batch finishes first; its result still comes second."""
    runner = BatchRunner(2)
    threads: set[str] = set()

    def run(batch: list[int]) -> int:
        threads.add(threading.current_thread().name)
        time.sleep(0.2 if batch[0] == 1 else 0.0)
        return sum(batch)

    assert runner.map(run, [[1, 2], [3, 4], [5]]) == [3, 7, 5]
    assert len(threads) == 2
    assert all(name.startswith("lyra-onnx") for name in threads)


def test_one_worker_or_one_batch_runs_in_the_calling_thread() -> None:
    caller = threading.current_thread().name
    seen: list[str] = []

    def run(batch: list[int]) -> int:
        seen.append(threading.current_thread().name)
        return len(batch)

    assert BatchRunner(1).map(run, [[1], [2, 3]]) == [1, 2]
    assert BatchRunner(4).map(run, [[1, 2, 3]]) == [3]
    assert seen == [caller, caller, caller]


def test_an_error_in_a_batch_reaches_the_caller() -> None:
    def run(batch: list[int]) -> int:
        if batch == [2]:
            raise MemoryError("batch 2")
        return 1

    with pytest.raises(MemoryError, match="batch 2"):
        BatchRunner(2).map(run, [[1], [2], [3]])


def test_sessions_called_by_several_threads_use_one_thread_each() -> None:
    assert session_options(2).intra_op_num_threads == 1
    # One caller: ONNX Runtime's own default (every core for one batch).
    assert session_options(1).intra_op_num_threads == 0


def test_workers_must_be_positive() -> None:
    with pytest.raises(ValueError, match="workers must be >= 1"):
        BatchRunner(0)
