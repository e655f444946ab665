"""Tool calls that arrive while the orchestrator restarts wait for it (issue 13 item 3).

The orchestrator is killed from outside (`ray.kill`, as a crash would end it) right
before a read tool is called: the call waits for the restart and answers from the
state in DuckDB, instead of failing with PIPELINE_ERROR. Killed for good
(`no_restart=True`), the next read finds a new orchestrator created under the same
name.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import ray
from mcp import Client

from lyra.actors.runtime import ORCHESTRATOR
from lyra.mcp_bridge.server import build_server
from tests.conftest import make_settings

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
        res = await client.call_tool("get_status", {"task_id": task_id})
        assert res.is_error is False, res.content[0].text
        assert res.structured_content["task_id"] == task_id
        assert res.structured_content["query"] == "coffee and sleep"
        rows = await client.call_tool(
            "query_graph", {"sql": f"SELECT query FROM tasks WHERE id = '{task_id}'"}
        )
        assert rows.structured_content["rows"] == [["coffee and sleep"]]
    ray.kill(ray.get_actor(ORCHESTRATOR, namespace=settings.ray.namespace), no_restart=True)
