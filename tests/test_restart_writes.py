"""Writes sent while the orchestrator restarts wait for it and happen once (decisions
0046 and 0064).

The bridge names what `create_task` and `start_search` make (a new task or search id);
a call that meets an orchestrator killed a moment before is sent again once it is back,
and a call sent again with an id already stored returns what the first one made. The
other writes (feedback, resolve_auth, cleanup_task, notify_user, calibrate) go through
`Orchestrator.once` with a request id: a repeat answers what the first call answered.
Driven through the SDK's client, as a user's MCP client would.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest
import ray
from mcp import Client

from lyra.actors.orchestrator import Orchestrator
from lyra.actors.runtime import ORCHESTRATOR
from lyra.mcp_bridge.lyra_runtime import LyraRuntime
from lyra.mcp_bridge.server import build_server
from lyra.pipelines.errors import LyraError
from lyra.pipelines.evidence.research import new_search_id, new_task_id
from tests.conftest import make_settings

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

QUESTION = "Does green tea lower blood pressure in adults?"


def kill_orchestrator(namespace: str) -> int:
    """SIGKILL the orchestrator's process (Ray restarts it); the pid killed."""
    orch = ray.get_actor(ORCHESTRATOR, namespace=namespace)
    pid: int = ray.get(orch.__ray_call__.remote(lambda _self: os.getpid()), timeout=30)
    os.kill(pid, signal.SIGKILL)
    return pid


def rows(namespace: str, sql: str) -> list[Any]:
    orch = ray.get_actor(ORCHESTRATOR, namespace=namespace)
    out = ray.get(orch.query_graph.remote(sql, None, {}, 100, 5000, False), timeout=120)
    return list(out["rows"])


async def test_create_task_and_search_sent_just_after_a_kill_succeed_once(
    lyra_home: Path,
) -> None:
    settings = make_settings(lyra_home)
    ns = settings.ray.namespace
    try:
        async with Client(build_server(settings)) as client:
            warm = await client.call_tool("create_task", {"query": "warm up"})
            assert warm.is_error is False
            first_pid = kill_orchestrator(ns)
            created = await client.call_tool("create_task", {"query": QUESTION})
            assert created.is_error is False, created.content
            task_id = created.structured_content["task_id"]

            second_pid = kill_orchestrator(ns)
            searched = await client.call_tool(
                "search",
                {"task_id": task_id, "query": QUESTION, "options": {"wait_seconds": 0}},
            )
            assert searched.is_error is False, searched.content
            search_id = searched.structured_content["search_id"]
            stopped = await client.call_tool("stop_task", {"task_id": task_id, "mode": "immediate"})
            assert stopped.is_error is False
        assert first_pid != second_pid  # the second kill met the restarted process
        assert rows(ns, f"SELECT query FROM tasks WHERE query = '{QUESTION}'") == [[QUESTION]]
        assert rows(ns, f"SELECT id FROM searches WHERE task_id = '{task_id}'") == [[search_id]]
    finally:
        ray.kill(ray.get_actor(ORCHESTRATOR, namespace=ns))


def test_the_same_ids_sent_again_return_what_the_first_call_made(lyra_home: Path) -> None:
    settings = make_settings(lyra_home)
    orch = Orchestrator.options(name=ORCHESTRATOR, namespace=settings.ray.namespace).remote(
        settings
    )
    try:
        task_id = new_task_id()
        task = ray.get(orch.create_task.remote(QUESTION, {}, task_id), timeout=120)
        again = ray.get(orch.create_task.remote("another question", {}, task_id))
        assert (task["id"], again["id"], again["query"]) == (task_id, task_id, QUESTION)
        assert again["created_at"] == task["created_at"]

        search_id = new_search_id()
        # Two at once (the second while the first is still starting), then once more.
        both = [orch.start_search.remote(task_id, QUESTION, {}, None, search_id) for _ in "ab"]
        started = [
            *ray.get(both),
            ray.get(orch.start_search.remote(task_id, QUESTION, {}, None, search_id)),
        ]
        assert started == [search_id, search_id, search_id]
        other = ray.get(orch.create_task.remote("another task", {}, new_task_id()))
        with pytest.raises(LyraError, match="belongs to another task"):
            ray.get(orch.start_search.remote(other["id"], QUESTION, {}, None, search_id))
        ray.get(orch.stop_task.remote(task_id, None, "immediate"))
        searches = ray.get(
            orch.query_graph.remote(
                f"SELECT id FROM searches WHERE task_id = '{task_id}'", None, {}, 10, 5000, False
            )
        )
        assert searches["rows"] == [[search_id]]
    finally:
        ray.kill(orch)


async def test_a_restarted_orchestrator_summarises_a_search_the_killed_one_started(
    lyra_home: Path,
) -> None:
    """The `search` tool answers a search still running when its wait is over with
    `search_summary`: an orchestrator restarted since the search began finds its task
    by the stored row (it answered a KeyError, a failed tool call, in the chaos bench)."""
    settings = make_settings(lyra_home, task={"default_max_pages": 30})
    rt = LyraRuntime(settings)
    try:
        task = await rt.call("create_task", QUESTION, {}, new_task_id())
        search_id = await rt.call("start_search", task["id"], QUESTION, {}, None, new_search_id())
        kill_orchestrator(settings.ray.namespace)
        budget = (await rt.call("search_summary", search_id))["budget"]
        # The search was interrupted before it stored a page.
        assert (budget["max_pages"], budget["pages_used"], budget["pages_remaining"]) == (30, 0, 30)
        with pytest.raises(LyraError, match="no search 's_unknown'"):
            await rt.call("search_summary", "s_unknown")
    finally:
        ray.kill(rt.orchestrator(), no_restart=True)


async def test_feedback_sent_just_after_a_kill_succeeds_once(lyra_home: Path) -> None:
    settings = make_settings(lyra_home)
    ns = settings.ray.namespace
    try:
        async with Client(build_server(settings)) as client:
            warm = await client.call_tool("create_task", {"query": "warm up"})
            assert warm.is_error is False
            killed = kill_orchestrator(ns)
            blocked = await client.call_tool(
                "feedback", {"action": "domain_block", "domain": "spam.example", "reason": "ads"}
            )
            assert blocked.is_error is False, blocked.content
            out = blocked.structured_content
            assert (out["domain"], out["changed"]) == ("spam.example", True)
        orch = ray.get_actor(ORCHESTRATOR, namespace=ns)
        now = ray.get(orch.__ray_call__.remote(lambda _self: os.getpid()), timeout=30)
        assert now != killed  # the feedback met the killed process and waited for its heir
        assert rows(ns, "SELECT count(*) FROM event_log WHERE kind = 'feedback'") == [[1]]
        assert rows(
            ns, "SELECT actor, payload->>'method' FROM event_log WHERE kind = 'call_answered'"
        ) == [["graph", "feedback"]]
    finally:
        ray.kill(ray.get_actor(ORCHESTRATOR, namespace=ns))


def test_a_write_sent_again_answers_what_the_first_call_did(lyra_home: Path) -> None:
    """A repeat of `domain_block` done plainly would answer changed: false (the domain
    is blocked by then); sent once with the same request id, it answers the first
    call's changed: true and blocks nothing again: through the orchestrator, and
    straight to the graph actor (as Ray's own retry of a graph task would). A write
    that is not the graph's (notify_user) is recorded by the orchestrator: its repeat
    answers the first notification's id."""
    settings = make_settings(lyra_home, auth={"notify_command": "/nonexistent"})
    orch = Orchestrator.options(name=ORCHESTRATOR, namespace=settings.ray.namespace).remote(
        settings
    )
    args = ["domain_block", {"domain": "junk.example", "reason": "ads"}]

    def sql(query: str) -> list[Any]:
        out = ray.get(orch.query_graph.remote(query, None, {}, 10, 5000, False), timeout=60)
        return list(out["rows"])

    try:
        first = ray.get(orch.once.remote("call_1", "feedback", args), timeout=120)
        again = ray.get(orch.once.remote("call_1", "feedback", args), timeout=60)
        plain = ray.get(orch.feedback.remote(*args), timeout=60)
        assert (first["changed"], again, plain["changed"]) == (True, first, False)
        graph = ray.get(orch.graph_handle.remote(), timeout=60)
        straight = ray.get(graph.once.remote("call_1", "feedback", args), timeout=60)
        assert straight == first
        note = ["decision_required", {"message": "Look at the queue"}]
        told = ray.get(orch.once.remote("call_2", "notify_user", note), timeout=60)
        told_again = ray.get(orch.once.remote("call_2", "notify_user", note), timeout=60)
        assert told_again == told
        with pytest.raises(LyraError, match="not a write sent once"):
            ray.get(orch.once.remote("call_3", "stop_task", ["task_x", None, "immediate"]))
        with pytest.raises(LyraError, match="not a write sent once"):
            ray.get(graph.once.remote("call_4", "put_embeddings", ["fragment", "m", []]))
        assert sql(
            "SELECT id, actor, payload->>'method' FROM event_log WHERE kind = 'call_answered' "
            "ORDER BY id"
        ) == [["call_1", "graph", "feedback"], ["call_2", "orchestrator", "notify_user"]]
        assert sql("SELECT count(*) FROM event_log WHERE kind = 'feedback'") == [[2]]
        assert sql("SELECT count(*) FROM event_log WHERE kind = 'user_notified'") == [[1]]
    finally:
        ray.kill(orch)
