"""`cleanup_task` / `lyra cleanup` (issue 15, decision 0032): soft cleanup removes a
task's claims and edges; hard cleanup also removes the pages, fragments and archive
files that only this task used, never what another task still uses; a dry run lists
what would go and changes nothing; a cleanup racing a running search is refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray
from mcp import Client

from lyra.actors.orchestrator import Orchestrator
from lyra.config.settings import Settings
from lyra.mcp_bridge.server import build_server
from tests.conftest import DEMO_QUESTION, make_settings
from tests.conftest_web import FixtureServer
from tests.test_search_urls import PAGE

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

OTHER_PAGE = PAGE.replace("Caffeine and sleep", "Caffeine and the heart").replace(
    "shortens total sleep time by about one hour",
    "raises resting heart rate by about three beats per minute",
)


@pytest.fixture(scope="module")
def settings(lyra_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """A LYRA_HOME of this module's own (WARC files live under the home and hard
    cleanup removes them), sharing the session's exported models."""
    home = tmp_path_factory.mktemp("cleanup-home")
    (lyra_home / "models").mkdir(exist_ok=True)
    (home / "models").symlink_to(lyra_home / "models", target_is_directory=True)
    settings = make_settings(home, fetch={"default_qps": 5.0})
    orch = Orchestrator.options(
        name="orchestrator", namespace=settings.ray.namespace, get_if_exists=True
    ).remote(settings)
    yield settings
    ray.kill(orch)


async def _call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    res = await client.call_tool(tool, args)
    assert res.is_error is False, res.content[0].text
    out: dict[str, Any] = res.structured_content
    return out


async def _rows(client: Client, sql: str) -> list[list[Any]]:
    return list((await _call(client, "query_graph", {"sql": sql}))["rows"])


async def _research_urls(client: Client, urls: list[str]) -> str:
    task = await _call(client, "create_task", {"query": "caffeine"})
    found = await _call(
        client,
        "search",
        {
            "task_id": task["task_id"],
            "query": "What does caffeine do?",
            "options": {"urls": urls, "wait_seconds": 110},
        },
    )
    assert found["pages_fetched"] == len(urls)
    return str(task["task_id"])


def _error(result: Any) -> dict[str, Any]:
    assert result.is_error is True
    error: dict[str, Any] = json.loads(result.content[0].text)["error"]
    return error


async def test_hard_cleanup_removes_only_what_no_other_task_uses(settings: Settings) -> None:
    server = FixtureServer("127.0.0.1")
    try:
        server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain")
        server.route("/sleep.html", body=PAGE.encode())
        server.route("/heart.html", body=OTHER_PAGE.encode())
        sleep_url, heart_url = server.url("/sleep.html"), server.url("/heart.html")
        async with Client(build_server(settings)) as client:
            first = await _research_urls(client, [sleep_url])
            second = await _research_urls(client, [heart_url])
            pages = dict(await _rows(client, "SELECT url, id FROM pages"))
            warc = (await _rows(client, f"SELECT warc_path FROM pages WHERE url = '{sleep_url}'"))[
                0
            ][0]
            # Both fetches went to one WARC file (one per site and day).
            assert await _rows(
                client, f"SELECT count(*) FROM pages WHERE warc_path = '{warc}'"
            ) == [[2]]
            claims_first = (
                await _rows(client, f"SELECT count(*) FROM claims WHERE task_id = '{first}'")
            )[0][0]
            claims_second = (
                await _rows(client, f"SELECT count(*) FROM claims WHERE task_id = '{second}'")
            )[0][0]
            assert (claims_first, claims_second) == (2, 2)
            fragments_first = (
                await _rows(
                    client,
                    f"SELECT count(*) FROM fragments WHERE page_id = '{pages[sleep_url]}'",
                )
            )[0][0]

            planned = await _call(
                client, "cleanup_task", {"task_id": first, "mode": "hard", "dry_run": True}
            )
            assert planned["dry_run"] is True
            assert (planned["claims"], planned["pages"], planned["files"]) == (
                2,
                [pages[sleep_url]],
                [],
            )
            assert planned["fragments"] == fragments_first
            assert await _rows(
                client, f"SELECT count(*) FROM claims WHERE task_id = '{first}'"
            ) == [[2]]

            done = await _call(
                client, "cleanup_task", {"task_id": first, "mode": "hard", "dry_run": False}
            )
            assert {k: done[k] for k in ("claims", "pages", "files", "fragments")} == {
                k: planned[k] for k in ("claims", "pages", "files", "fragments")
            }
            assert await _rows(client, "SELECT url FROM pages ORDER BY url") == [[heart_url]]
            assert await _rows(
                client,
                f"SELECT count(*) FROM fragments WHERE page_id = '{pages[sleep_url]}'",
            ) == [[0]]
            assert await _rows(
                client, f"SELECT count(*) FROM claims WHERE task_id = '{second}'"
            ) == [[2]]
            assert Path(warc).is_file()  # the other task's page is still in it
            assert await _rows(
                client,
                f"SELECT kind FROM event_log WHERE task_id = '{first}' AND kind = 'task_cleanup'",
            ) == [["task_cleanup"]]
            status = await _call(client, "get_status", {"task_id": first})
            assert status["claims"] == []

            last = await _call(
                client, "cleanup_task", {"task_id": second, "mode": "hard", "dry_run": False}
            )
            assert (last["pages"], last["files"]) == ([pages[heart_url]], [warc])
            assert not Path(warc).exists()
            assert await _rows(client, "SELECT count(*) FROM pages") == [[0]]
    finally:
        server.close()


async def test_soft_cleanup_keeps_shared_pages_and_a_running_search_is_refused(
    settings: Settings,
) -> None:
    async with Client(build_server(settings)) as client:
        first = await _call(client, "create_task", {"query": DEMO_QUESTION})
        await _call(
            client,
            "search",
            {"task_id": first["task_id"], "query": DEMO_QUESTION, "options": {"wait_seconds": 110}},
        )
        second = await _call(client, "create_task", {"query": DEMO_QUESTION})
        running = await _call(
            client,
            "search",
            {"task_id": second["task_id"], "query": DEMO_QUESTION, "options": {"wait_seconds": 0}},
        )
        assert running["status"] == "running"
        refused = _error(
            await client.call_tool("cleanup_task", {"task_id": second["task_id"], "dry_run": False})
        )
        assert refused["code"] == "INVALID_PARAMS"
        assert "running search" in refused["message"]
        # Another task's hard cleanup waits too: the search may be archiving.
        other_hard = _error(
            await client.call_tool(
                "cleanup_task", {"task_id": first["task_id"], "mode": "hard", "dry_run": False}
            )
        )
        assert (other_hard["code"], other_hard["field"]) == ("INVALID_PARAMS", "mode")
        await _call(client, "get_status", {"task_id": second["task_id"], "wait_seconds": 110})

        pages_before = (await _rows(client, "SELECT count(*) FROM pages"))[0][0]
        soft = await _call(client, "cleanup_task", {"task_id": first["task_id"], "dry_run": False})
        assert soft["hard"] is False
        assert soft["pages"] == []
        assert await _rows(
            client, f"SELECT count(*) FROM claims WHERE task_id = '{first['task_id']}'"
        ) == [[0]]
        assert await _rows(client, "SELECT count(*) FROM pages") == [[pages_before]]
        kept = await _call(
            client, "cleanup_task", {"task_id": first["task_id"], "mode": "hard", "dry_run": True}
        )
        # The other task took every page of the corpus: hard cleanup keeps them all.
        assert kept["pages"] == []
        assert len(kept["pages_kept"]) == pages_before
        missing = _error(await client.call_tool("cleanup_task", {"task_id": "task_nope"}))
        assert missing["code"] == "TASK_NOT_FOUND"
