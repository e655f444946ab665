"""Writes sent once per request id: what a repeat of a write answers (decision 0064).

The bridge sends a write again, with the same request id, when it met the orchestrator
restarting; the repeat must answer what the first call answered instead of doing the
work again or describing the repeat ("already blocked", "nothing to remove"). The
orchestrator owns one :class:`OnceWrites` and routes its ``once`` method here.

- The graph's writes (:data:`GRAPH_ONCE`) record their answer in the graph's own call
  (``GraphStore.once``): the orchestrator's method runs again (its checks, readiness),
  and its one graph write, made through :meth:`OnceWrites.graph_write`, carries the id.
- The others (``notify_user``, ``resolve_auth``) are done here once, and their answer
  is kept in ``event_log`` as a ``call_answered`` row.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from lyra.pipelines.net.notify import safe_url
from lyra.storage.schema import CALL_ANSWERED

log = logging.getLogger(__name__)

# Orchestrator writes that end in one graph write, which records their answer itself.
GRAPH_ONCE = frozenset({"feedback", "calibrate", "calibrate_rollback", "cleanup_task"})

Graph = Callable[..., Awaitable[Any]]


class OnceWrites:
    """``method(*args)`` of the owner done once per request id.

    ``graph`` calls a method of the graph actor; ``method_of`` gives the owner's bound
    coroutine method for a name.
    """

    def __init__(self, graph: Graph, method_of: Callable[[str], Callable[..., Awaitable[Any]]]):
        self._graph = graph
        self._method_of = method_of
        # Writes still running here, by request id; and the request id of the task
        # running each graph write's method (`graph_write`).
        self._running: dict[str, asyncio.Future[Any]] = {}
        self._ids: dict[asyncio.Task[Any], str] = {}

    async def run(self, request_id: str, method: str, args: list[Any]) -> Any:
        """The answer of ``method(*args)`` for ``request_id``: done now, or the first
        call's (still running in this process, or recorded)."""
        work = self._running.get(request_id)
        if work is None:  # else the first call still runs in this process: its answer
            work = asyncio.ensure_future(self._work(request_id, method, args))
            self._running[request_id] = work
            work.add_done_callback(lambda _done: self._running.pop(request_id, None))
        return await asyncio.shield(work)

    async def _work(self, request_id: str, method: str, args: list[Any]) -> Any:
        if method in GRAPH_ONCE:
            # Its graph call carries the id (`graph_write`, awaited in this task); the
            # rest of the method (checks, readiness) is done again on a repeat.
            task = asyncio.current_task()  # the future `run` made: never None
            if task is not None:
                self._ids[task] = request_id
            try:
                return await self._method_of(method)(*args)
            finally:
                if task is not None:
                    self._ids.pop(task, None)
        answered = await self._graph("call_answer", request_id)
        if answered is not None:
            return answered["answer"]
        answer = await self._method_of(method)(*args)
        kept = answer
        if method == "notify_user" and answer.get("opened_url"):
            # The audit trail keeps no credential or token of the URL (as user_notified).
            kept = {**answer, "opened_url": safe_url(answer["opened_url"])}
        payload = {"method": method, "answer": kept}
        try:
            await self._graph("log_event", kind=CALL_ANSWERED, actor="orchestrator",
                              event_id=request_id, payload=payload)  # fmt: skip
        except Exception:  # done all the same: only a repeat after a crash would redo it
            log.warning("%s %s done but its answer not recorded", method, request_id,
                        exc_info=True)  # fmt: skip
        return answer

    async def graph_write(self, method: str, *args: Any) -> dict[str, Any]:
        """A write of the graph actor; under `run`, with its request id."""
        task = asyncio.current_task()
        request_id = self._ids.get(task) if task is not None else None
        if request_id is None:
            result: dict[str, Any] = await self._graph(method, *args)
        else:
            result = await self._graph("once", request_id, method, list(args))
        return result
