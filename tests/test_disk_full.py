"""A full disk while the graph writes (issue 13, bad input): a clear error, nothing
half-written, reads still answered, and the same call succeeds once there is room.

The disk is made full without privileges: the database's write-ahead log is a link to
/dev/full, where every write fails with ENOSPC, as on a full file system (DuckDB writes
each commit to the log first).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import duckdb
import pytest
import ray
from mcp import Client, StdioServerParameters

from lyra.actors.graph import GraphActor
from lyra.mcp_bridge.errors import to_lyra_error
from lyra.storage.connection import open_database
from tests.conftest import REPO, make_settings, refused_create_task, serve_env

LYRA = str(Path(sys.executable).with_name("lyra"))


def _full_disk_database(path: Path) -> Path:
    """A database with the current schema whose next commit finds no room; returns the
    log's path."""
    con = open_database(path, memory_limit="256MB", threads=1)
    con.execute("CHECKPOINT")
    con.close()
    wal = path.with_name(path.name + ".wal")
    assert not wal.exists()
    os.symlink("/dev/full", wal)
    return wal


def _released(path: Path, within_s: float = 30.0) -> None:
    """Wait until no process holds the database's lock: a killed actor's process exits a
    moment after `ray.kill` returns, and a new GraphActor opened before then finds the
    file locked."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            duckdb.connect(str(path), read_only=True).close()
            return
        except duckdb.IOException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _message(wal: Path) -> str:
    return (
        f"the disk is full: could not write {wal} (No space left on device); what that write "
        "held was not stored, nothing of it half-written: free space and call again"
    )


def test_graph_writes_on_a_full_disk_say_so_and_lose_nothing(
    ray_session: None, tmp_path: Path
) -> None:
    settings = make_settings(tmp_path)
    wal = _full_disk_database(settings.db_path)
    graph = GraphActor.remote(settings)  # type: ignore[attr-defined]
    # The graph opens (its views stay those stored last time) and answers reads.
    assert ray.get(graph.ping.remote()) == "ok"

    with pytest.raises(Exception) as failed:
        ray.get(graph.create_task.remote("task-full", "coffee and sleep", {}))
    err = to_lyra_error(failed.value)
    assert (err.code, err.message) == ("PIPELINE_ERROR", _message(wal))
    with pytest.raises(Exception) as failed_batch:
        ray.get(graph.insert_claims.remote([{"task_id": "task-full", "claim_text": "c"}] * 50))
    assert to_lyra_error(failed_batch.value).message == _message(wal)

    counts = ray.get(graph.table_counts.remote())
    assert (counts["tasks"], counts["claims"]) == (0, 0)
    answer = ray.get(
        graph.query_graph.remote("SELECT count(*) AS n FROM tasks", None, {}, 10, 5000, False)
    )
    assert answer["rows"] == [[0]]
    ray.kill(graph)

    # Room again: the same write succeeds on the same file.
    wal.unlink()
    _released(settings.db_path)
    graph = GraphActor.remote(settings)  # type: ignore[attr-defined]
    ray.get(graph.create_task.remote("task-full", "coffee and sleep", {}))
    assert ray.get(graph.get_task.remote("task-full"))["query"] == "coffee and sleep"
    ray.kill(graph)


async def test_tools_on_a_full_disk_answer_a_clear_error(tmp_path: Path) -> None:
    """Through `lyra serve` and the official MCP client: `create_task` is refused with the
    reason, `query_graph` still answers."""
    home = tmp_path / "home"
    home.mkdir()
    env = serve_env(home)
    wal = _full_disk_database(home / "lyra.duckdb")
    params = StdioServerParameters(command=LYRA, args=["serve"], env=env, cwd=str(REPO))
    async with Client(params, read_timeout_seconds=120) as client:
        error = await refused_create_task(client, within_s=60)
        assert error == {"code": "PIPELINE_ERROR", "message": _message(wal)}
        read = await client.call_tool("query_graph", {"sql": "SELECT count(*) AS n FROM tasks"})
        assert read.is_error is False, read.content[0].text
        assert read.structured_content["rows"] == [[0]]
