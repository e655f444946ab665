"""get_status's graph reads of a task whose search runs (jobs/live_status.py, decision
0086): answered from a read renewed in the background, never older than the bound, and
read again before answering once a tool acknowledged a write."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from lyra.jobs.live_status import LiveStatus


class Graph:
    """A status source whose reads answer 1, 2, 3, ...; reads can be held at a gate or
    made to fail."""

    def __init__(self) -> None:
        self.reads = 0
        self.gate = asyncio.Event()
        self.gate.set()
        self.fail = False
        self.searching = True
        self.per_task: dict[str, int] = {}

    def busy(self) -> bool:
        return self.searching

    async def status_reads(self, task_id: str) -> dict[str, Any]:
        self.reads += 1
        self.per_task[task_id] = self.per_task.get(task_id, 0) + 1
        answer = self.reads
        await self.gate.wait()
        if self.fail:
            raise RuntimeError("graph actor restarting")
        return {"task": task_id, "read": answer, "claims": [{"id": "c1"}]}


async def test_with_no_search_running_a_task_is_read_on_every_call() -> None:
    graph = Graph()
    graph.searching = False
    live = LiveStatus(graph.status_reads, graph.busy, refresh_s=0.01)
    got = [(await live.get("t1"))["read"] for _ in range(3)]
    assert got == [1, 2, 3]
    await asyncio.sleep(0.05)
    assert graph.reads == 3  # and nothing reads it in the background


async def test_while_a_search_runs_a_poll_is_answered_from_the_background_read() -> None:
    graph = Graph()
    live = LiveStatus(graph.status_reads, graph.busy, refresh_s=0.05, max_stale_s=10.0)
    assert (await live.get("t1"))["read"] == 1
    graph.gate.clear()  # the next background read is held: polls answer at once
    answers = [(await live.get("t1"))["read"] for _ in range(5)]
    assert answers == [1] * 5
    await asyncio.sleep(0.08)
    assert graph.reads == 2
    graph.gate.set()
    await asyncio.sleep(0.01)
    assert (await live.get("t1"))["read"] == 2
    live.stop()


async def test_each_caller_gets_its_own_copy() -> None:
    graph = Graph()
    live = LiveStatus(graph.status_reads, graph.busy, refresh_s=10.0, max_stale_s=10.0)
    first = await live.get("t1")
    first["claims"].append({"id": "changed by the caller"})
    assert (await live.get("t1"))["claims"] == [{"id": "c1"}]
    live.stop()


async def test_a_read_older_than_the_bound_is_not_served() -> None:
    graph = Graph()
    # The loop would renew it only after a minute: the poll reads itself.
    live = LiveStatus(graph.status_reads, graph.busy, refresh_s=60.0, max_stale_s=0.05)
    assert (await live.get("t1"))["read"] == 1
    await asyncio.sleep(0.08)
    assert (await live.get("t1"))["read"] == 2
    live.stop()


async def test_after_forget_the_next_poll_waits_and_a_read_begun_before_is_dropped() -> None:
    graph = Graph()
    live = LiveStatus(graph.status_reads, graph.busy, refresh_s=0.02, max_stale_s=10.0)
    assert (await live.get("t1"))["read"] == 1
    graph.gate.clear()
    await asyncio.sleep(0.04)  # background read 2 begins, held at the gate
    assert graph.reads == 2
    live.forget()  # a tool acknowledged a write that read 2 may not hold
    poll = asyncio.create_task(live.get("t1"))
    await asyncio.sleep(0.01)
    assert not poll.done()  # it does not answer read 1 any more
    graph.gate.set()
    assert (await poll)["read"] == 3  # its own read; read 2 finished too, and was dropped
    assert (await live.get("t1"))["read"] == 3
    live.stop()


async def test_a_failed_background_read_keeps_the_last_answer_and_the_loop() -> None:
    graph = Graph()
    live = LiveStatus(graph.status_reads, graph.busy, refresh_s=0.02, max_stale_s=10.0)
    assert (await live.get("t1"))["read"] == 1
    graph.fail = True
    await asyncio.sleep(0.05)
    assert (await live.get("t1"))["read"] == 1
    graph.fail = False
    await asyncio.sleep(0.05)
    # Reads answer at once here, so the loop's latest one is the last read made.
    assert (await live.get("t1"))["read"] == graph.reads
    assert graph.reads >= 3
    live.stop()


async def test_a_failed_read_reaches_the_poll_that_waits_for_it() -> None:
    graph = Graph()
    graph.fail = True
    live = LiveStatus(graph.status_reads, graph.busy, refresh_s=60.0)
    with pytest.raises(RuntimeError, match="graph actor restarting"):
        await live.get("t1")
    live.stop()


async def test_a_task_nobody_polls_is_no_longer_read() -> None:
    graph = Graph()
    live = LiveStatus(graph.status_reads, graph.busy, refresh_s=0.01, idle_s=0.03)
    await live.get("t1")
    await asyncio.sleep(0.1)
    reads = graph.reads
    await asyncio.sleep(0.05)
    assert graph.reads == reads
    assert reads <= 5


async def test_once_no_search_runs_a_task_is_read_at_once_and_the_loops_end() -> None:
    graph = Graph()
    live = LiveStatus(graph.status_reads, graph.busy, refresh_s=0.01, max_stale_s=10.0)
    await live.get("t1")
    await asyncio.sleep(0.03)
    graph.searching = False
    done = await live.get("t1")
    assert done["read"] == graph.reads
    await asyncio.sleep(0.05)
    assert graph.reads == done["read"]


async def test_the_loop_ends_when_the_last_search_ends_with_nobody_polling() -> None:
    graph = Graph()
    live = LiveStatus(graph.status_reads, graph.busy, refresh_s=0.01, max_stale_s=10.0)
    await live.get("t1")
    await asyncio.sleep(0.03)
    graph.searching = False
    await asyncio.sleep(0.03)
    reads = graph.reads
    await asyncio.sleep(0.05)
    assert graph.reads == reads


async def test_each_polled_task_has_its_own_read() -> None:
    graph = Graph()
    live = LiveStatus(graph.status_reads, graph.busy, refresh_s=10.0, max_stale_s=10.0)
    assert (await live.get("t1"))["task"] == "t1"
    assert (await live.get("t2"))["task"] == "t2"
    assert (await live.get("t1"))["task"] == "t1"
    assert graph.reads == 2
    live.stop()


async def test_a_write_for_one_task_makes_only_that_task_read_again() -> None:
    graph = Graph()
    live = LiveStatus(graph.status_reads, graph.busy, refresh_s=10.0, max_stale_s=10.0)
    await live.get("t1")
    await live.get("t2")
    live.forget("t2")
    assert (await live.get("t1"))["read"] == 1
    assert (await live.get("t2"))["read"] == 3
    live.forget()
    assert (await live.get("t1"))["read"] == 4
    live.stop()


async def test_only_the_most_recently_polled_tasks_are_read_in_the_background() -> None:
    graph = Graph()
    live = LiveStatus(graph.status_reads, graph.busy, refresh_s=0.02, max_tasks=2)
    for task in ("t1", "t2", "t3"):  # no loop runs between these polls
        await live.get(task)
    await asyncio.sleep(0.1)
    live.stop()
    # t1, the least recently polled, was dropped when t3 came: read once, by its poll.
    assert graph.per_task["t1"] == 1
    assert graph.per_task["t2"] > 1
    assert graph.per_task["t3"] > 1


async def test_a_poll_that_waited_reads_the_graph_and_starts_no_loop() -> None:
    """A long poll's client asks again only once its next wait ends: nothing is read for
    it in the background (decision 0112); it is answered from the loop another client's
    polls keep, where there is one."""
    graph = Graph()
    live = LiveStatus(graph.status_reads, graph.busy, refresh_s=0.01, max_stale_s=10.0)
    assert (await live.get("t1", waited=True))["read"] == 1
    assert (await live.get("t1", waited=True))["read"] == 2
    await asyncio.sleep(0.05)
    assert graph.per_task == {"t1": 2}
    await live.get("t2")  # polled without waiting: kept fresh in the background
    await asyncio.sleep(0.05)
    graph.gate.clear()  # a read of the graph now would wait
    kept = await asyncio.wait_for(live.get("t2", waited=True), timeout=1)
    assert (kept["task"], kept["read"] > 3) == ("t2", True)
    graph.gate.set()
    live.stop()
