"""The Orchestrator's children: the graph, inference and browser actors.

Each is made (or found by name) on first use and called through :meth:`ChildActors.call`,
which waits for a crashed child, re-creating one that is dead for good or keeps
answering "unavailable", for up to ``CALL_RECOVERY_SECONDS``, then says PIPELINE_ERROR
(decisions 0007, 0022); :meth:`ChildActors.watch_nodes` places the inference and browser
actors again when a cluster node is lost (decision 0023). The InferenceActor's status
for ``_lyra_meta`` is kept here too, dropped whenever that actor restarts (decision
0037). The Orchestrator owns one ``ChildActors``; a restart it sees is reported back
through ``on_restart`` (the Orchestrator logs it for the searches it runs).
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
import time
from collections.abc import Callable
from typing import Any

import ray
from ray.exceptions import ActorDiedError, ActorUnavailableError, RayActorError, RayTaskError

import lyra.actors.telemetry as telemetry
from lyra.actors.graph import GraphActor
from lyra.actors.inference import InferenceActor
from lyra.actors.runtime import (
    BROWSER,
    GRAPH,
    INFERENCE,
    end_for_good,
    head_node_options,
    inference_actor_options,
)
from lyra.config.settings import Settings
from lyra.jobs.status_cache import StatusCache
from lyra.pipelines.errors import LyraError
from lyra.storage.disk import disk_full_error

log = logging.getLogger(__name__)

# How often the orchestrator looks for lost cluster nodes.
NODE_WATCH_SECONDS = 2.0
# How long a call waits for a crashed child actor to be back before PIPELINE_ERROR.
CALL_RECOVERY_SECONDS = 60.0
# How old the InferenceActor's status may be before it is asked again, in the background
# (jobs/status_cache.py; a restart or a reload drops it at once).
INFERENCE_STATUS_FRESH_SECONDS = 2.0

# (child name, method, errors seen) for a call that succeeded after its child restarted.
OnRestart = Callable[[str, str, list[str]], None]


class ChildActors:
    """The children of one Orchestrator, with the restarts each has had."""

    def __init__(self, settings: Settings, on_restart: OnRestart) -> None:
        self._settings = settings
        self._ns = settings.ray.namespace
        self._handles: dict[str, Any] = {}
        self._on_restart = on_restart
        self.restarts: dict[str, int] = {}
        # _lyra_meta of every tool response, from memory (decision 0037).
        self.inference_status = StatusCache(
            functools.partial(self.call, INFERENCE, "status"), INFERENCE_STATUS_FRESH_SECONDS
        )

    def _spawn(self, name: str) -> Any:
        opts: dict[str, Any] = {"name": name, "namespace": self._ns, "get_if_exists": True}
        if name == GRAPH:
            return GraphActor.options(**opts, **head_node_options()).remote(  # type: ignore[attr-defined]
                self._settings
            )
        if name == INFERENCE:
            resources = inference_actor_options(self._settings)
            return InferenceActor.options(**resources, **opts).remote(  # type: ignore[attr-defined]
                self._settings, use_gpu=resources["num_gpus"] > 0
            )
        if name == BROWSER:
            from lyra.actors.browser import BrowserActor  # Playwright only when needed

            return BrowserActor.options(**opts).remote(self._settings)  # type: ignore[attr-defined]
        raise KeyError(name)

    def handle(self, name: str) -> Any:
        """The child's handle, made (or found by name) on first use."""
        if name not in self._handles:
            self._handles[name] = self._spawn(name)
        return self._handles[name]

    async def call(self, name: str, method: str, *args: Any, **kwargs: Any) -> Any:
        """Call a child actor; when it crashed, wait for it to come back, up to a bound.

        A child dead for good (``ActorDiedError``) is re-created at once. One that keeps
        answering "unavailable" is re-created after its second failure in a row: its
        node may be lost, and Ray's own restart would wait on resources (a GPU) that
        are gone; until the cluster marks that node dead, a re-created actor may be
        placed there too, and `watch_nodes` kills it once the loss is known. Retried
        with backoff for ``CALL_RECOVERY_SECONDS`` (a node is marked dead after about
        15 s of missed heartbeats), then a PIPELINE_ERROR; a child whose constructor
        fails twice is not waited for.
        """
        failures: list[str] = []
        deadline: float | None = None
        init_failures = 0
        for attempt in itertools.count():
            handle = self.handle(name)
            try:
                result = await getattr(handle, method).remote(*args, **kwargs)
                if failures:
                    self._on_restart(name, method, failures)
                return result
            except RayTaskError as exc:
                # An exception inside the method, not a crash: re-raise the original.
                cause = getattr(exc, "cause", None)
                raise (cause if isinstance(cause, Exception) else exc) from None
            except (ActorDiedError, ActorUnavailableError, RayActorError) as exc:
                now = time.monotonic()
                if deadline is None:
                    deadline = now + CALL_RECOVERY_SECONDS
                    self.restarts[name] = self.restarts.get(name, 0) + 1
                    telemetry.actor_restart(name)
                    if name == INFERENCE:
                        self.inference_status.forget()
                failures.append(type(exc).__name__)
                log.warning(
                    "%s.%s failed (%s); attempt %d", name, method, type(exc).__name__, attempt
                )
                if isinstance(exc, ActorDiedError) and exc.actor_init_failed:
                    init_failures += 1
                if init_failures >= 2 or now >= deadline:
                    full = disk_full_error(exc)
                    if full is not None:  # its constructor could not write: say why
                        raise full from None
                    raise LyraError(
                        "PIPELINE_ERROR",
                        f"the {name} actor is unavailable after restarts ({', '.join(failures)})",
                    ) from None
                if isinstance(exc, ActorDiedError) or attempt % 2 == 1:
                    if self._handles.get(name) is handle:
                        self._handles.pop(name)
                    end_for_good(handle)
                await asyncio.sleep(min(0.2 * 2**attempt, 4.0))
        raise AssertionError("unreachable")

    async def watch_nodes(self) -> None:
        """When a node of the cluster is lost, place the inference and browser actors again.

        Their Ray restart would wait for the lost node's resources (a GPU) that may be
        gone for good, and the search with them. Killed here for good, they are
        re-created by `call` on the next use with the resources the cluster has now
        (`inference_actor_options`: no GPU left, the CPU). Fetchers need nothing
        special: Ray restarts them on another node.
        """
        seen: set[str] | None = None
        while True:
            try:
                alive = {n["NodeID"] for n in ray.nodes() if n.get("Alive")}
            except Exception:  # the GCS is briefly unreachable: look again later
                log.warning("could not list the cluster's nodes", exc_info=True)
                alive = seen or set()
            lost = (seen or set()) - alive
            if lost:
                log.warning(
                    "lost %d node(s): %s; re-placing inference and browser", len(lost), sorted(lost)
                )
                for name in (INFERENCE, BROWSER):
                    handle = self._handles.pop(name, None)
                    if handle is None:
                        continue
                    self.restarts[name] = self.restarts.get(name, 0) + 1
                    telemetry.actor_restart(name)
                    if name == INFERENCE:
                        self.inference_status.forget()
                    end_for_good(handle)
            seen = alive
            await asyncio.sleep(NODE_WATCH_SECONDS)
