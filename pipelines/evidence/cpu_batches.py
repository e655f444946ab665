"""Small batches on every core at once: how Lyra's ONNX models run on a CPU (decision 0074).

An encoder batch on a CPU is fastest when each core runs its own small batch with one
ONNX Runtime thread, rather than all cores splitting one larger batch: a MiniLM layer's
element-wise operations (the per-row quantisation of decision 0039, layer norms, GELU)
are too small to be worth splitting across threads, and a batch of 2 to 4 pairs keeps
its activations in the cache. On this project's 2-core machines the packaged stance
model judged HealthVer pairs at 184-209 pairs/s this way against 116-152 with one
2-thread session and batches of 16.

Results stay a function of each input alone: the packaged graphs quantise their
activations per row (decision 0039), so which batch a pair lands in changes nothing.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import onnxruntime as ort

T = TypeVar("T")
R = TypeVar("R")

# Inputs per batch on the CPU path (measured best of 2, 4, 8 and 16: decision 0074).
CPU_BATCH = 4


def cpu_batch_size(count: int, workers: int, batch_size: int) -> int:
    """Inputs per batch when ``count`` inputs run on ``workers`` cores: at most
    ``CPU_BATCH`` (and the configured ``batch_size``), and small enough that every core
    gets a batch (16 pairs on 16 cores run one per core, not four batches of four)."""
    return max(1, min(batch_size, CPU_BATCH, -(-count // workers)))


def cpu_workers() -> int:
    """Cores this process may run on (its affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def session_options(workers: int) -> ort.SessionOptions:
    """ONNX Runtime options for a session that ``workers`` threads call at once: one
    intra-op thread each when there are several, never spinning between runs (the
    InferenceActor shares its cores with the rest of the pipeline)."""
    options = ort.SessionOptions()
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if workers > 1:
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
    return options


class BatchRunner:
    """Runs a function over batches on ``workers`` threads, results in batch order.

    One runner per model, its threads kept between calls. ONNX Runtime releases the
    GIL while a session runs, and one session serves concurrent ``run`` calls.
    """

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.workers = workers
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def map(self, run: Callable[[T], R], batches: Sequence[T]) -> list[R]:
        """``run`` on each batch; in the calling thread when there is one worker or batch."""
        if self.workers == 1 or len(batches) <= 1:
            return [run(batch) for batch in batches]
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="lyra-onnx")
            pool = self._pool
        return list(pool.map(run, batches))
