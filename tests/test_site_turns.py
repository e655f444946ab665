"""Whose request a site serves next (pipelines/net/turns.py, decision 0045)."""

from __future__ import annotations

import asyncio

import pytest

from lyra.pipelines.net.turns import REMEMBERED_CAUSES, SiteTurns, TurnDropped


async def _serve(
    turns: SiteTurns,
    calls: list[tuple[str | None, str]],
    began: dict[str, float] | None = None,
) -> list[str]:
    """Queue `calls` (cause, name) behind a holder, in this order; the order served.

    `began`: each cause's start as a caller gives it (none: counted at this site).
    """
    began = began or {}
    served: list[str] = []
    release = asyncio.Event()

    async def holder() -> None:
        async with turns.turn("holder", began.get("holder")):
            await release.wait()

    async def call(cause: str | None, name: str) -> None:
        async with turns.turn(cause, began.get(cause or "")):
            served.append(name)
            await asyncio.sleep(0)

    first = asyncio.create_task(holder())
    await asyncio.sleep(0)
    tasks = []
    for cause, name in calls:
        tasks.append(asyncio.create_task(call(cause, name)))
        await asyncio.sleep(0)  # each is waiting before the next comes
    assert turns.waiting() == len(calls)
    release.set()
    await asyncio.gather(first, *tasks)
    assert (turns.locked(), turns.waiting()) == (False, 0)
    return served


def test_equal_searches_are_served_one_after_another_in_the_order_they_came() -> None:
    calls = [(f"s{j}", f"s{j}-{i}") for i in range(3) for j in range(3)]  # interleaved
    served = asyncio.run(_serve(SiteTurns(), calls))
    assert served == ["s0-0", "s0-1", "s0-2", "s1-0", "s1-1", "s1-2", "s2-0", "s2-1", "s2-2"]


def test_a_later_search_waits_for_the_earlier_and_calls_without_a_cause_go_first() -> None:
    calls = [("long", f"long-{i}") for i in range(4)] + [("short", "short-0"), (None, "robots")]
    served = asyncio.run(_serve(SiteTurns(), calls))
    assert served == ["robots", "long-0", "long-1", "long-2", "long-3", "short-0"]


def test_a_search_keeps_its_place_between_its_calls() -> None:
    # "early" came first (its call holds the turn); its next call comes after "late"'s.
    served = asyncio.run(_serve(SiteTurns(), [("late", "late-0"), ("holder", "holder-1")]))
    assert served == ["holder-1", "late-0"]


def test_the_oldest_causes_are_forgotten_beyond_the_limit() -> None:
    async def main() -> list[str]:
        turns = SiteTurns()
        for i in range(REMEMBERED_CAUSES):
            async with turns.turn(f"c{i}"):
                pass
        # _serve's holder is one cause more: "c0", the oldest, is forgotten, so its call
        # queues as new (forgetting "c1" in turn), behind "c2"'s although it came first.
        return await _serve(turns, [("c0", "c0"), ("c2", "c2")])

    assert asyncio.run(main()) == ["c2", "c0"]


def test_a_cause_keeps_the_arrival_order_of_its_own_calls() -> None:
    calls = [("a", "a-0"), ("b", "b-0"), ("a", "a-1"), ("b", "b-1"), ("b", "b-2"), ("a", "a-2")]
    served = asyncio.run(_serve(SiteTurns(), calls))
    assert served == ["a-0", "a-1", "a-2", "b-0", "b-1", "b-2"]


def test_one_holder_at_a_time() -> None:
    async def main() -> int:
        turns = SiteTurns()
        inside = 0
        most = 0

        async def call(cause: str) -> None:
            nonlocal inside, most
            async with turns.turn(cause):
                inside += 1
                most = max(most, inside)
                await asyncio.sleep(0.001)
                inside -= 1

        await asyncio.gather(*(call(f"s{i % 3}") for i in range(30)))
        return most

    assert asyncio.run(main()) == 1


def test_a_cancelled_waiter_leaves_the_queue_and_the_rest_are_served() -> None:
    async def main() -> tuple[list[str], int]:
        turns = SiteTurns()
        served: list[str] = []
        release = asyncio.Event()

        async def holder() -> None:
            async with turns.turn("h"):
                await release.wait()

        async def call(name: str) -> None:
            async with turns.turn(name):
                served.append(name)

        first = asyncio.create_task(holder())
        await asyncio.sleep(0)
        doomed = asyncio.create_task(call("doomed"))
        kept = asyncio.create_task(call("kept"))
        await asyncio.sleep(0)
        doomed.cancel()
        await asyncio.sleep(0)
        waiting = turns.waiting()
        release.set()
        await asyncio.gather(first, kept)
        with pytest.raises(asyncio.CancelledError):
            await doomed
        return served, waiting

    assert asyncio.run(main()) == (["kept"], 1)


def test_a_turn_granted_to_a_cancelled_waiter_passes_on() -> None:
    async def main() -> list[str]:
        turns = SiteTurns()
        served: list[str] = []
        release = asyncio.Event()
        waiters: list[asyncio.Task[None]] = []

        async def holder() -> None:
            async with turns.turn("h"):
                await release.wait()
            # The turn was just handed to "a", which has not run yet: cancel it now.
            waiters[0].cancel()

        async def call(name: str) -> None:
            async with turns.turn(name):
                served.append(name)

        first = asyncio.create_task(holder())
        await asyncio.sleep(0)
        waiters.append(asyncio.create_task(call("a")))
        await asyncio.sleep(0)
        waiters.append(asyncio.create_task(call("b")))
        await asyncio.sleep(0)
        release.set()
        await asyncio.wait_for(asyncio.gather(first, waiters[1]), 5)
        with pytest.raises(asyncio.CancelledError):
            await waiters[0]
        assert (turns.locked(), turns.waiting()) == (False, 0)
        return served

    assert asyncio.run(main()) == ["b"]


def test_every_site_serves_the_search_that_began_first_first() -> None:
    began = {"holder": 0.0, "a": 1.0, "b": 2.0}  # as the orchestrator passes them
    one_site = asyncio.run(_serve(SiteTurns(), [("b", "b"), ("a", "a")], began))
    other_site = asyncio.run(_serve(SiteTurns(), [("a", "a"), ("b", "b")], began))
    assert (one_site, other_site) == (["a", "b"], ["a", "b"])


def test_a_waiter_cancelled_as_the_holder_leaves_is_skipped() -> None:
    async def main() -> tuple[list[str], bool, int]:
        turns = SiteTurns()
        served: list[str] = []

        async def holder() -> None:
            async with turns.turn("h"):
                await asyncio.Event().wait()

        async def call(name: str) -> None:
            async with turns.turn(name):
                served.append(name)

        held = asyncio.create_task(holder())
        await asyncio.sleep(0)
        doomed = asyncio.create_task(call("a"))
        await asyncio.sleep(0)
        kept = asyncio.create_task(call("b"))
        await asyncio.sleep(0)
        # In one step: the holder leaves first, while "a", next in line, is cancelled.
        held.cancel()
        doomed.cancel()
        await asyncio.wait_for(kept, 5)
        for task in (held, doomed):
            with pytest.raises(asyncio.CancelledError):
                await task
        return served, turns.locked(), turns.waiting()

    assert asyncio.run(main()) == (["b"], False, 0)


def test_a_start_given_later_replaces_the_first_seen_time() -> None:
    async def main() -> list[str]:
        turns = SiteTurns()
        async with turns.turn("late"):  # first seen without a start: "now"
            pass
        return await _serve(turns, [("late", "late"), ("early", "early")], {"late": 1.0})

    assert asyncio.run(main()) == ["late", "early"]


def test_a_dropped_cause_leaves_the_queue_and_the_others_are_served() -> None:
    async def scenario() -> tuple[list[str], list[str], int]:
        turns = SiteTurns()
        served: list[str] = []
        dropped: list[str] = []
        release = asyncio.Event()

        async def holder() -> None:
            async with turns.turn("stopped"):
                await release.wait()
                served.append("stopped-held")

        async def call(cause: str, name: str) -> None:
            try:
                async with turns.turn(cause):
                    served.append(name)
            except TurnDropped:
                dropped.append(name)

        first = asyncio.create_task(holder())
        await asyncio.sleep(0)
        calls = [("stopped", "stopped-1"), ("other", "other-1"), ("stopped", "stopped-2")]
        tasks = [asyncio.create_task(call(c, n)) for c, n in calls]
        await asyncio.sleep(0)
        count = turns.drop("stopped")
        release.set()
        await asyncio.gather(first, *tasks)
        assert (turns.locked(), turns.waiting()) == (False, 0)
        # A call of the dropped cause that comes later is dropped at once; others run.
        await call("stopped", "stopped-3")
        await call("other", "other-2")
        return served, dropped, count

    served, dropped, count = asyncio.run(scenario())
    # The call that held the turn finishes; the waiting ones of the cause never run.
    assert (served, sorted(dropped), count) == (
        ["stopped-held", "other-1", "other-2"],
        ["stopped-1", "stopped-2", "stopped-3"],
        2,
    )


def test_a_waiter_cancelled_after_its_drop_hands_on_no_turn() -> None:
    async def scenario() -> tuple[bool, int]:
        turns = SiteTurns()
        release = asyncio.Event()

        async def holder() -> None:
            async with turns.turn("a"):
                await release.wait()

        async def waiter() -> None:
            async with turns.turn("b"):
                pass

        first = asyncio.create_task(holder())
        await asyncio.sleep(0)
        second = asyncio.create_task(waiter())
        await asyncio.sleep(0)
        turns.drop("b")
        second.cancel()  # before it resumes with the drop
        with pytest.raises(asyncio.CancelledError):
            await second
        held = turns.locked()  # "a" still holds it
        release.set()
        await first
        return held, turns.waiting()

    assert asyncio.run(scenario()) == (True, 0)
