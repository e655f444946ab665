"""Crashing the graph or the inference actor in the middle of a search (ARCHITECTURE §2).

A crash is `os._exit` inside a method (`__ray_call__` runs a function in the actor's
process). The search must still finish, or fail with a clear error, and every row
committed before the crash must still be there.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
import ray
from ray.exceptions import RayActorError

from lyra.actors.orchestrator import Orchestrator
from tests.conftest import DEMO_QUESTION, make_settings

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]


def _crash(_actor: Any) -> None:
    os._exit(1)


def _wait_for_stage(orch: Any, search_id: str, stages: set[str]) -> None:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        polled = ray.get(orch.wait_search.remote(search_id, 0.05))
        assert polled["done"] is False, "search ended before the crash point"
        if polled["progress"].get("stage") in stages:
            return
    raise AssertionError(f"search never reached {stages}")


def _finish(orch: Any, search_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        polled = ray.get(orch.wait_search.remote(search_id, 5.0))
        if polled["done"]:
            return dict(polled["result"])
    raise AssertionError("search did not end after the crash")


@pytest.mark.parametrize(
    ("victim", "stages"),
    [("graph", {"embed", "claims"}), ("inference", {"embed", "claims"})],
)
def test_crash_mid_search_loses_nothing_committed(
    lyra_home: Path, victim: str, stages: set[str]
) -> None:
    settings = make_settings(lyra_home)
    orch = Orchestrator.options(name="orchestrator", namespace=settings.ray.namespace).remote(
        settings
    )
    try:
        # Warm the actors so the crash lands inside the pipeline, not in model loading.
        ray.get(orch.ensure_ready.remote())
        task = ray.get(orch.create_task.remote(DEMO_QUESTION, {}))
        search_id = ray.get(orch.start_search.remote(task["id"], DEMO_QUESTION, {}))
        _wait_for_stage(orch, search_id, stages)
        graph = ray.get(orch.graph_handle.remote())
        before = ray.get(
            graph.query_graph.remote("SELECT id FROM pages ORDER BY id", None, {}, 200, 2000, False)
        )["rows"]
        assert len(before) == 15
        handle = ray.get(getattr(orch, f"{victim}_handle").remote())
        with pytest.raises(RayActorError):
            ray.get(handle.__ray_call__.remote(_crash))

        result = _finish(orch, search_id)
        # The crashed actor restarts and Ray retries the idempotent call in flight,
        # so the search completes as if nothing happened.
        assert result["status"] == "satisfied"
        assert result["metrics"]["pages_fetched"] == 15
        after = ray.get(
            graph.query_graph.remote("SELECT id FROM pages ORDER BY id", None, {}, 200, 2000, False)
        )["rows"]
        assert after == before
        searches = ray.get(graph.list_searches.remote(task["id"]))
        assert [s["status"] for s in searches] == [result["status"]]
    finally:
        ray.kill(orch)


def _back(actor: Any, timeout: float = 60.0) -> None:
    """Wait until a restarting actor answers (a call that met the kill fails first)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            ray.get(actor.__ray_call__.remote(lambda _self: os.getpid()), timeout=timeout)
            return
        except ray.exceptions.ActorUnavailableError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_actors_killed_between_calls_record_their_own_restart(tmp_path: Path) -> None:
    """A kill between two calls meets no caller, so no supervisor sees it: the graph,
    browser and fetcher actors that Ray restarts record an `actor_restart` row
    themselves, from their constructor (issue 13: the task reports the kills)."""
    from lyra.actors.browser import BrowserActor
    from lyra.actors.fetch import DomainFetcher
    from lyra.actors.graph import GraphActor
    from lyra.actors.runtime import BROWSER, GRAPH

    settings = make_settings(tmp_path, corpus=None)
    ns = settings.ray.namespace
    graph = GraphActor.options(name=GRAPH, namespace=ns).remote(settings)
    browser = BrowserActor.options(name=BROWSER, namespace=ns).remote(settings)
    fetcher = DomainFetcher.options(name="fetch:127.0.0.9", namespace=ns).remote(
        "127.0.0.9", settings
    )
    sql = (
        "SELECT actor, payload->>'reported_by' FROM event_log "
        "WHERE kind = 'actor_restart' ORDER BY actor"
    )
    try:
        for actor in (graph, browser, fetcher):
            ray.get(actor.__ray_call__.remote(lambda _self: os.getpid()), timeout=60)
        assert ray.get(graph.query_graph.remote(sql, None, {}, 10, 5000, False))["rows"] == []
        for actor in (browser, fetcher, graph):
            ray.kill(actor, no_restart=False)
            _back(actor)
        deadline = time.monotonic() + 30
        while True:
            rows = ray.get(graph.query_graph.remote(sql, None, {}, 10, 5000, False))["rows"]
            if len(rows) == 3 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert rows == [["browser", "itself"], ["fetch:127.0.0.9", "itself"], ["graph", "itself"]]
    finally:
        for actor in (fetcher, browser, graph):
            ray.kill(actor, no_restart=True)
