"""The graph's part of `get_status` while searches run: kept fresh beside the polls.

`get_status` reads a task's row, searches, claims with their confidence, extras and
evidence summary from the GraphActor in one call (`status_reads`). Those reads are
answered from memory while no table they read was written (decision 0080), but while
any search runs (of this task or another) the pipeline writes those tables every
fraction of a second, so each poll read them again on the cores the pipeline is using:
40 ms at the median and 120-156 ms at p95 in `bench/throughput.py` at K = 4 (issue 13:
tool p95 <= 100 ms under load).

While a search runs, a polled task's reads are renewed by a background loop every
`REFRESH_S`, and a poll answers from the latest read, copied; one older than
`MAX_STALE_S` is not served (the poll reads and waits). The loop ends once nobody polled
the task for `IDLE_S`, once it is not among the `MAX_LIVE_TASKS` polled last, or once no
search runs; with none running, every poll reads the graph (nothing but a tool writes
then, and the memo answers). A tool call that writes (a search of the task started or
finished, its stop or cleanup; for every task: feedback, calibration, an auth answer, a
domain block lifted) calls :meth:`LiveStatus.forget`: the next poll reads the graph
before it answers, so no answer misses what a response has acknowledged. What other
tasks' searches write to shared rows (a page's retraction, a site blocked) shows within
`MAX_STALE_S`. Decision 0086. A long poll (one that waited for a search to end) starts
no loop of its own (decision 0112).
"""

from __future__ import annotations

import asyncio
import copy
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

# Seconds between two background reads of a polled task's status.
REFRESH_S = 0.5
# The oldest read a poll is answered from.
MAX_STALE_S = 2.0
# A task nobody polled for this long is no longer read in the background.
IDLE_S = 30.0
# At most this many tasks are read in the background (the least recently polled goes
# first): a client polling many tasks must not keep the graph busy with their reads.
MAX_LIVE_TASKS = 16

Read = Callable[[str], Awaitable[dict[str, Any]]]


@dataclass
class _Live:
    value: dict[str, Any] | None = None
    read_at: float = 0.0
    polled_at: float = field(default_factory=time.monotonic)
    # Counts forget() calls: a read started before one is not kept.
    generation: int = 0
    loop: asyncio.Task[None] | None = None


class LiveStatus:
    """Per task, the last `status_reads` answer and the loop that renews it while
    ``busy()`` (a search runs)."""

    def __init__(
        self,
        read: Read,
        busy: Callable[[], bool],
        refresh_s: float = REFRESH_S,
        max_stale_s: float = MAX_STALE_S,
        idle_s: float = IDLE_S,
        max_tasks: int = MAX_LIVE_TASKS,
    ) -> None:
        self._read = read
        self._busy = busy
        self._refresh_s = refresh_s
        self._max_stale_s = max_stale_s
        self._idle_s = idle_s
        self._max_tasks = max_tasks
        self._tasks: dict[str, _Live] = {}

    async def get(self, task_id: str, *, waited: bool = False) -> dict[str, Any]:
        """The graph's status reads of ``task_id``: read now unless a search runs, then
        from the background loop's latest read when it is recent enough. The caller may
        change what it gets.

        A poll that ``waited`` (a long poll, answered when a search ended or its wait
        did) starts no loop and keeps none alive: its client asks again only once its
        next wait ends, so reads renewed for it meanwhile would be wasted, and at K = 16
        such reads made the GraphActor the busiest process (decision 0112). It reads the
        graph unless another client's polls keep the task's read fresh."""
        if not self._busy():
            self.stop()
            return await self._read(task_id)
        live = self._tasks.get(task_id)
        if waited:
            if live is not None and live.value is not None and self._fresh(live):
                return copy.deepcopy(live.value)
            return await self._read(task_id)
        if live is None:
            while len(self._tasks) >= self._max_tasks:
                self._drop(min(self._tasks, key=lambda t: self._tasks[t].polled_at))
            live = self._tasks[task_id] = _Live()
        live.polled_at = time.monotonic()
        if live.loop is None or live.loop.done():
            live.loop = asyncio.get_running_loop().create_task(self._renew(task_id, live))
        if live.value is not None and self._fresh(live):
            return copy.deepcopy(live.value)
        return copy.deepcopy(await self._read_into(task_id, live))

    def _fresh(self, live: _Live) -> bool:
        return time.monotonic() - live.read_at <= self._max_stale_s

    def forget(self, task_id: str | None = None) -> None:
        """Something was written that a tool response acknowledged, for ``task_id`` (None:
        for any task): the next poll of it reads the graph before it answers."""
        for tid, live in self._tasks.items():
            if task_id is None or tid == task_id:
                live.value = None
                live.generation += 1

    def stop(self) -> None:
        """End every background loop and forget every read."""
        for task_id in list(self._tasks):
            self._drop(task_id)

    def _drop(self, task_id: str) -> None:
        live = self._tasks.pop(task_id, None)
        if live is not None and live.loop is not None:
            live.loop.cancel()

    async def _read_into(self, task_id: str, live: _Live) -> dict[str, Any]:
        started, generation = time.monotonic(), live.generation
        value = await self._read(task_id)
        # Kept unless a forget() came during the read or a later read is kept already.
        if generation == live.generation and (live.value is None or live.read_at < started):
            live.value, live.read_at = value, started
        return value

    async def _renew(self, task_id: str, live: _Live) -> None:
        while self._tasks.get(task_id) is live:
            await asyncio.sleep(self._refresh_s)
            if time.monotonic() - live.polled_at > self._idle_s or not self._busy():
                self._tasks.pop(task_id, None)
                return
            try:
                await self._read_into(task_id, live)
            except Exception:  # a poll that finds no recent read reads and sees the error
                log.warning("background status read of task %s failed", task_id, exc_info=True)
