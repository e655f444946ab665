"""Idle Ray worker processes kept ready, so a new domain's fetcher starts at once.

Every `DomainFetcher` is its own process (ARCHITECTURE §2). On a small machine,
starting a Python worker costs about half a second of CPU, and the raylet starts
only as many at a time as there are cores: the fifth new site of a search waited
more than a second for its first request (docs/decisions/0013-standby-workers.md).
The raylet hands an actor an idle worker of the same job when it has one, so
keeping `fetch.standby_workers` idle workers ready moves that cost out of the
search.

The raylet's `PrestartWorkers` call starts them, with a keep-alive so its idle
worker reaper leaves them alone. Ray (2.60) exposes that call only over gRPC, so
it is used here, guarded: when it is missing or fails, or on a node that is not
this machine's, standby is off and fetchers start as before, with one warning.
Idle workers are counted on the raylet's own process tree (titled ``ray::IDLE``),
so a top-up never asks for more than the target, whoever used the workers.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from typing import Any

import psutil
import ray

log = logging.getLogger(__name__)

IDLE_TITLE = "ray::IDLE"
# Idle workers outlive Ray's reaper this long; every top-up renews the pool anyway.
KEEP_ALIVE_SECONDS = 3600
# A top-up polls until the workers it asked for are up, at most this long.
TOP_UP_TIMEOUT_S = 30.0
POLL_S = 0.25
# A worker asked for and not idle after this long is asked for again.
WORKER_START_WAIT_S = 3.0
# An idle worker that used less CPU than this between two looks has settled.
SETTLED_CPU_S = 0.02


def _raylet_process() -> psutil.Process | None:
    """The local raylet: the parent of a worker, or a child of the driver that started Ray."""
    me = psutil.Process(os.getpid())
    try:
        for proc in [*me.parents(), *me.children(recursive=True)]:
            if proc.name() == "raylet":
                return proc
    except psutil.Error:
        return None
    return None


class StandbyWorkers:
    """Keeps up to `target` idle Python workers of this job on the local raylet."""

    def __init__(self, target: int) -> None:
        self.target = max(0, int(target))
        self.disabled_reason: str | None = None if self.target else "fetch.standby_workers is 0"
        self.requested = 0
        self._stub: Any = None
        self._raylet: psutil.Process | None = None
        self._job_id = b""
        self._cpu_seen: dict[int, float] = {}
        self._lock = asyncio.Lock()

    @property
    def enabled(self) -> bool:
        """Whether top-ups can run (False once anything they need turned out missing)."""
        return self.disabled_reason is None

    def idle_count(self) -> int:
        """Idle workers on the local raylet now (0 when it cannot be seen)."""
        return len(self._idle_workers())

    def ready_count(self) -> int:
        """Idle workers that have finished starting: no CPU used since the last look.

        A worker is titled ``ray::IDLE`` before it has imported its preloaded modules;
        an actor given it then waits for that import, so a top-up waits for this.
        """
        ready = 0
        seen: dict[int, float] = {}
        for proc in self._idle_workers():
            try:
                times = proc.cpu_times()
            except psutil.Error:
                continue
            used = times.user + times.system
            seen[proc.pid] = used
            before = self._cpu_seen.get(proc.pid)
            if before is not None and used - before < SETTLED_CPU_S:
                ready += 1
        self._cpu_seen = seen
        return ready

    def _idle_workers(self) -> list[psutil.Process]:
        raylet = self._raylet
        if raylet is None:
            return []
        try:
            children = raylet.children()
        except psutil.Error:
            return []
        idle = []
        for child in children:
            try:
                cmdline = child.cmdline()
            except psutil.Error:
                continue  # exited meanwhile
            if cmdline and cmdline[0].startswith(IDLE_TITLE):
                idle.append(child)
        return idle

    async def top_up(
        self, settle: float = POLL_S, keep_going: Callable[[], bool] | None = None
    ) -> int:
        """Ask for the missing idle workers and wait until they are up; the idle count then.

        `settle`: a pause first, so actors created just before have taken their
        workers. `keep_going`: asked before each new worker; False stops the top-up
        there. Never raises: a failure turns standby off.
        """
        if not self.enabled:
            return 0
        async with self._lock:
            if not self.enabled or not await asyncio.to_thread(self._connect):
                return 0
            loop = asyncio.get_running_loop()
            await asyncio.sleep(settle)
            deadline = loop.time() + TOP_UP_TIMEOUT_S
            await asyncio.to_thread(self.ready_count)
            idle = await self._idle_now()
            while loop.time() < deadline:
                # One worker at a time: a starting worker keeps a core busy for about
                # half a second, and a top-up that fetching interrupts stops after
                # one start (running fetchers must wake on time: on two cores, a
                # refill of two at a time made their intervals 30 ms late).
                if keep_going is not None and not keep_going():
                    return idle
                if idle < self.target and not await asyncio.to_thread(self._prestart, 1):
                    return idle
                await asyncio.sleep(POLL_S)
                idle = await self._idle_now()
                if idle >= self.target and await asyncio.to_thread(self.ready_count) >= self.target:
                    break
                if idle < self.target:
                    # Let the worker asked for register before asking again; the
                    # raylet drops a request while its start-up slots are full, so
                    # after a while it is asked again anyway.
                    retry_at = min(deadline, loop.time() + WORKER_START_WAIT_S)
                    while loop.time() < retry_at and await self._idle_now() == idle:
                        await asyncio.sleep(POLL_S)
                    idle = await self._idle_now()
            return idle

    async def _idle_now(self) -> int:
        """`idle_count` off the event loop: it reads every process's /proc entry (the
        raylet's children), which took up to 100 ms on two busy cores, and the loop
        meanwhile serves tool calls (decision 0082)."""
        return await asyncio.to_thread(self.idle_count)

    def _connect(self) -> bool:
        if self._stub is not None:
            return True
        try:
            from ray._private.grpc_utils import init_grpc_channel
            from ray.core.generated import node_manager_pb2_grpc

            context = ray.get_runtime_context()
            if context.runtime_env:
                # Idle workers started without it would not fit this job's actors.
                return self._disable("the job has a runtime_env")
            node_id = context.get_node_id()
            node = next(n for n in ray.nodes() if n["Alive"] and n["NodeID"] == node_id)
            self._raylet = _raylet_process()
            if self._raylet is None:
                return self._disable("the raylet is not a process of this machine's tree")
            address = f"{node['NodeManagerAddress']}:{node['NodeManagerPort']}"
            self._stub = node_manager_pb2_grpc.NodeManagerServiceStub(init_grpc_channel(address))
            self._job_id = bytes.fromhex(context.get_job_id())
        except (
            ImportError,
            AttributeError,
            StopIteration,
            KeyError,
            ValueError,
            ray.exceptions.RayError,
        ) as exc:
            return self._disable(f"{type(exc).__name__}: {exc}")
        return True

    def _prestart(self, count: int) -> bool:
        import grpc
        from ray.core.generated import common_pb2, node_manager_pb2

        try:
            request = node_manager_pb2.PrestartWorkersRequest(  # type: ignore[attr-defined]
                language=common_pb2.PYTHON,  # type: ignore[attr-defined]
                job_id=self._job_id,
                keep_alive_duration_secs=KEEP_ALIVE_SECONDS,
                num_workers=count,
            )
            self._stub.PrestartWorkers(request, timeout=5)
        except (grpc.RpcError, AttributeError, ValueError, TypeError) as exc:
            return self._disable(f"PrestartWorkers failed: {exc}")
        self.requested += count
        return True

    def _disable(self, reason: str) -> bool:
        self.disabled_reason = reason
        log.warning("standby workers are off (%s): new fetchers start their own process", reason)
        return False
