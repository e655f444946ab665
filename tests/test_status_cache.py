"""The InferenceActor's status served from memory (jobs/status_cache.py, decision 0037):
fresh answers from memory, stale ones while a new one is fetched beside them, and
nothing kept across a restart or a reload."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from lyra.jobs.status_cache import StatusCache


class Source:
    """A status source that answers 1, 2, 3, ... and can be held or made to fail."""

    def __init__(self) -> None:
        self.calls = 0
        self.gate = asyncio.Event()
        self.gate.set()
        self.fail = False

    async def fetch(self) -> dict[str, Any]:
        self.calls += 1
        answer = self.calls
        await self.gate.wait()
        if self.fail:
            raise RuntimeError("inference actor unavailable")
        return {"answer": answer}


async def test_a_fresh_answer_comes_from_memory() -> None:
    source = Source()
    cache = StatusCache(source.fetch, fresh_seconds=60.0)
    assert [await cache.get() for _ in range(3)] == [{"answer": 1}] * 3
    assert source.calls == 1


async def test_a_stale_answer_is_served_while_a_new_one_is_fetched() -> None:
    source = Source()
    cache = StatusCache(source.fetch, fresh_seconds=0.0)
    assert await cache.get() == {"answer": 1}
    source.gate.clear()
    # Stale: answered at once from memory; one refresh runs, however many ask.
    assert [await cache.get() for _ in range(3)] == [{"answer": 1}] * 3
    await asyncio.sleep(0.01)
    assert source.calls == 2
    assert await cache.get() == {"answer": 1}
    source.gate.set()
    await asyncio.sleep(0.01)
    assert await cache.get() == {"answer": 2}


async def test_after_forget_the_next_caller_waits_and_an_older_fetch_is_not_kept() -> None:
    source = Source()
    cache = StatusCache(source.fetch, fresh_seconds=0.0)
    assert await cache.get() == {"answer": 1}
    source.gate.clear()
    assert await cache.get() == {"answer": 1}  # starts refresh 2, held at the gate
    cache.forget()  # the actor restarted while refresh 2 was in flight
    waiting = asyncio.ensure_future(cache.get())  # fetch 3, waits for its answer
    await asyncio.sleep(0.01)
    assert not waiting.done()
    source.gate.set()
    assert await waiting == {"answer": 3}
    await asyncio.sleep(0.01)
    assert cache._value == {"answer": 3}  # refresh 2 ended after forget: dropped


async def test_a_failed_refresh_makes_the_next_caller_see_the_error() -> None:
    source = Source()
    cache = StatusCache(source.fetch, fresh_seconds=0.0)
    assert await cache.get() == {"answer": 1}
    source.fail = True
    assert await cache.get() == {"answer": 1}  # the refresh fails in the background
    await asyncio.sleep(0.01)
    with pytest.raises(RuntimeError, match="inference actor unavailable"):
        await cache.get()
