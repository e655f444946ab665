"""Tool calls that arrive while the orchestrator restarts wait for it (issue 13 item 3).

The orchestrator is killed from outside (`ray.kill`, as a crash would end it) right
before a read tool is called: the call waits for the restart and answers from the
state in DuckDB, instead of failing with PIPELINE_ERROR. Killed for good
(`no_restart=True`), the next read finds a new orchestrator created under the same
name.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import ray
from mcp import Client

from lyra.actors.orchestrator import Orchestrator
from lyra.actors.runtime import ORCHESTRATOR
from lyra.mcp_bridge.lyra_runtime import LyraRuntime
from lyra.mcp_bridge.server import build_server
from lyra.pipelines.evidence.research import new_task_id
from tests.conftest import make_settings
from tests.conftest_web import FixtureServer

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]


@pytest.mark.parametrize("no_restart", [False, True])
async def test_a_read_waits_for_the_orchestrator_to_come_back(
    lyra_home: Path, no_restart: bool
) -> None:
    settings = make_settings(lyra_home)
    async with Client(build_server(settings)) as client:
        created = await client.call_tool("create_task", {"query": "coffee and sleep"})
        task_id = created.structured_content["task_id"]
        first = ray.get_actor(ORCHESTRATOR, namespace=settings.ray.namespace)
        ray.kill(first, no_restart=no_restart)
        # Every read tool, the reads of calibrate and cleanup_task, and a stop, sent at
        # once while the orchestrator is down: each waits for the same restart.
        calls = (
            ("get_status", {"task_id": task_id}),
            ("query_graph", {"sql": f"SELECT query FROM tasks WHERE id = '{task_id}'"}),
            ("calibrate", {"action": "get_stats"}),
            ("cleanup_task", {"task_id": task_id}),
            ("stop_task", {"task_id": task_id}),
        )
        answers = await asyncio.gather(*(client.call_tool(t, a) for t, a in calls))
        for (tool, _), res in zip(calls, answers, strict=True):
            assert res.is_error is False, (tool, res.content[0].text)
        status, rows, stats, cleanup, stopped = (a.structured_content for a in answers)
        assert (status["task_id"], status["query"]) == (task_id, "coffee and sleep")
        assert rows["rows"] == [["coffee and sleep"]]
        assert stats["sample_count"] == 0
        assert cleanup["dry_run"] is True
        assert stopped["task_id"] == task_id
    ray.kill(ray.get_actor(ORCHESTRATOR, namespace=settings.ray.namespace), no_restart=True)


async def test_an_orchestrator_whose_restarts_are_spent_is_made_anew(lyra_home: Path) -> None:
    """Killed once more than Ray restarts it, the orchestrator is dead for good; while a
    handle its creator made lives on (a call's frame, an error's traceback kept in a
    log), its name stays taken and a lookup finds the dead actor again (in the chaos
    bench every tool call then answered "unavailable" for a minute and failed). The
    bridge kills it for good, which frees the name, and the next call makes a new one."""
    settings = make_settings(lyra_home)
    restarts = Orchestrator._default_options["max_restarts"]  # type: ignore[attr-defined]
    rt = LyraRuntime(settings)
    task = await rt.call("create_task", "coffee and sleep", {}, new_task_id())
    held = rt.orchestrator()  # the creator's handle, kept alive here
    try:
        serving = []
        for _ in range(restarts + 1):
            ray.kill(held, no_restart=False)
            answers = await asyncio.gather(
                *(rt.call("get_status", task["id"], 0.0) for _ in range(3))
            )
            assert [a["task"]["query"] for a in answers] == ["coffee and sleep"] * 3
            serving.append(rt.orchestrator()._actor_id)
        # Restarted by Ray while it could be, then made anew.
        assert serving[:restarts] == [held._actor_id] * restarts
        assert serving[restarts] != held._actor_id
    finally:
        ray.kill(rt.orchestrator(), no_restart=True)


async def test_a_search_interrupted_by_a_crash_is_failed_with_the_reason(
    lyra_home: Path,
) -> None:
    site = FixtureServer("127.0.0.1")
    site.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain")
    for i in range(6):
        site.route(f"/slow{i}.html", body=b"<html><body><p>slow</p></body></html>", delay=2.0)
    settings = make_settings(lyra_home, corpus=None, fetch={"default_qps": 1.0})
    try:
        async with Client(build_server(settings)) as client:
            created = await client.call_tool("create_task", {"query": "slow pages"})
            task_id = created.structured_content["task_id"]
            urls = [site.url(f"/slow{i}.html") for i in range(6)]
            started = await client.call_tool(
                "search",
                {
                    "task_id": task_id,
                    "query": "slow pages",
                    "options": {"urls": urls, "engines": [], "wait_seconds": 0},
                },
            )
            assert started.is_error is False, started.content[0].text
            search_id = started.structured_content["search_id"]
            site.wait_for(lambda reqs: any(r.path == "/slow0.html" for r in reqs), timeout=60)
            orch = ray.get_actor(ORCHESTRATOR, namespace=settings.ray.namespace)
            ray.kill(orch, no_restart=False)
            # The restarted orchestrator does not run that search: it says so at once.
            res = await client.call_tool("get_status", {"task_id": task_id, "wait_seconds": 30})
            assert res.is_error is False, res.content[0].text
            [search] = res.structured_content["searches"]
            assert search["search_id"] == search_id
            assert search["status"] == "failed"
            assert search["error"]["message"] == "interrupted: the server restarted"
    finally:
        site.close()
    ray.kill(ray.get_actor(ORCHESTRATOR, namespace=settings.ray.namespace), no_restart=True)


async def test_a_search_a_restart_interrupts_while_its_call_waits_is_started_again(
    lyra_home: Path,
) -> None:
    """The `search` call still waits for its search when a restart of the orchestrator
    interrupts it: the call starts it again and answers for the new one, with a warning
    naming both; get_status keeps the interrupted one, failed with the reason."""
    site = FixtureServer("127.0.0.1")
    site.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain")
    for i in range(3):
        site.route(
            f"/slow{i}.html",
            body=f"<html><body><p>Slow page {i} on sleep and coffee.</p></body></html>".encode(),
            delay=1.0,
        )
    settings = make_settings(lyra_home, corpus=None, fetch={"default_qps": 1.0})
    ns = settings.ray.namespace

    def kill_once_asked() -> None:
        site.wait_for(lambda reqs: any(r.path == "/slow0.html" for r in reqs), timeout=60)
        ray.kill(ray.get_actor(ORCHESTRATOR, namespace=ns), no_restart=False)

    try:
        async with Client(build_server(settings)) as client:
            created = await client.call_tool("create_task", {"query": "slow pages"})
            task_id = created.structured_content["task_id"]
            urls = [site.url(f"/slow{i}.html") for i in range(3)]
            killer = asyncio.create_task(asyncio.to_thread(kill_once_asked))
            res = await client.call_tool(
                "search",
                {
                    "task_id": task_id,
                    "query": "slow pages",
                    "options": {"urls": urls, "engines": [], "wait_seconds": 100},
                },
            )
            await killer
            assert res.is_error is False, res.content[0].text
            out = res.structured_content
            [note] = [w for w in out["warnings"] if "interrupted" in w]
            first = note.split()[1]
            assert note == (
                f"search {first} was interrupted by a server restart; "
                f"started again as {out['search_id']}"
            )
            assert out["pages_fetched"] == 3
            status = await client.call_tool("get_status", {"task_id": task_id})
            searches = {
                s["search_id"]: (s["status"], (s["error"] or {}).get("message"))
                for s in status.structured_content["searches"]
            }
            assert searches == {
                first: ("failed", "interrupted: the server restarted"),
                out["search_id"]: (out["status"], None),
            }
    finally:
        site.close()
    ray.kill(ray.get_actor(ORCHESTRATOR, namespace=ns), no_restart=True)
