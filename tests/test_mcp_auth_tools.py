"""get_auth_queue, resolve_auth, notify_user and get_status.auth_queue through the MCP Client.

Items are queued through the real graph actor (as a fetch that meets a challenge does);
URLs are never fetched here: resolve_auth is exercised with skipped / failed, whose
path runs no re-fetch (the resolved path and its hook: tests/test_auth_queue.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray
from mcp import Client
from mcp_types import LoggingMessageNotificationParams

from lyra.actors.orchestrator import Orchestrator
from lyra.config.settings import Settings
from lyra.mcp_bridge.server import build_server
from tests.conftest import make_settings
from tests.test_notify import fake_notifier, recorded

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

AUTH_TOOLS = {"get_auth_queue", "resolve_auth", "notify_user"}


@pytest.fixture(scope="module")
def notifier(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fake_notifier(tmp_path_factory.mktemp("notify-bin"))


@pytest.fixture(scope="module")
def stack(lyra_home: Path, notifier: Path) -> Iterator[tuple[Settings, Any]]:
    """Settings and the orchestrator handle; the orchestrator runs in a Ray worker, so
    the fake notify-send is named by absolute path rather than found on PATH."""
    settings = make_settings(lyra_home, auth={"notify_command": str(notifier)})
    orch = Orchestrator.options(
        name="orchestrator", namespace=settings.ray.namespace, get_if_exists=True
    ).remote(settings)
    yield settings, orch
    ray.kill(orch)


async def _queue(orch: Any, task_id: str, specs: list[tuple[str, str, str, str, str]]) -> list[str]:
    """Queue (search_id, url, domain, auth_type, priority) items for a task; their ids."""
    graph = await orch.graph_handle.remote()
    ids = []
    for search_id, url, domain, kind, priority in specs:
        item = await graph.enqueue_auth.remote(
            {
                "task_id": task_id,
                "search_id": search_id,
                "url": url,
                "domain": domain,
                "auth_type": kind,
                "priority": priority,
            }
        )
        ids.append(item["id"])
    return ids


async def _task(client: Client, query: str) -> str:
    created = await client.call_tool("create_task", {"query": query})
    assert created.is_error is False, created.content[0].text
    task_id: str = created.structured_content["task_id"]
    return task_id


def _error(result: Any) -> dict[str, Any]:
    assert result.is_error is True
    payload: dict[str, Any] = json.loads(result.content[0].text)
    assert payload["ok"] is False
    return payload["error"]


async def test_the_three_tools_are_listed(stack: tuple[Settings, Any]) -> None:
    settings, _ = stack
    async with Client(build_server(settings)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) >= AUTH_TOOLS
    assert tools["get_auth_queue"].annotations.read_only_hint is True
    assert tools["resolve_auth"].annotations.read_only_hint is False
    assert tools["notify_user"].annotations.read_only_hint is False
    queue_props = tools["get_auth_queue"].input_schema["properties"]
    assert set(queue_props) == {"task_id", "group_by", "priority_filter"}
    assert queue_props["group_by"]["enum"] == ["none", "domain", "type"]
    assert set(tools["resolve_auth"].input_schema["required"]) == {"target", "data"}
    assert set(tools["notify_user"].input_schema["required"]) == {"event", "payload"}


async def test_get_auth_queue_groupings(stack: tuple[Settings, Any]) -> None:
    settings, orch = stack
    async with Client(build_server(settings)) as client:
        task_id = await _task(client, "auth queue groupings")
        a, b, c = await _queue(
            orch,
            task_id,
            [
                ("s_1", "http://127.0.0.1:9/gov/a", "protected.go.jp", "cloudflare", "high"),
                ("s_1", "http://127.0.0.1:9/gov/b", "protected.go.jp", "captcha", "normal"),
                ("s_2", "http://127.0.0.1:9/blog/c", "blog.example", "login", "low"),
            ],
        )
        # A later search meets the same page: it joins the item's blocking searches.
        joined = ("s_3", "http://127.0.0.1:9/gov/a", "protected.go.jp", "cloudflare", "high")
        assert await _queue(orch, task_id, [joined]) == [a]

        flat = (await client.call_tool("get_auth_queue", {"task_id": task_id})).structured_content
        assert flat["ok"] is True
        assert "_lyra_meta" in flat
        assert (flat["group_by"], flat["total_pending"]) == ("none", 3)
        assert [q["id"] for q in flat["queue"]] == [a, b, c]
        first = flat["queue"][0]
        assert {k: first[k] for k in ("url", "domain", "auth_type", "priority", "task_id")} == {
            "url": "http://127.0.0.1:9/gov/a", "domain": "protected.go.jp",
            "auth_type": "cloudflare", "priority": "high", "task_id": task_id,
        }  # fmt: skip
        assert first["blocking_searches"] == ["s_1", "s_3"]
        assert first["queued_at"].endswith("Z")

        high = await client.call_tool(
            "get_auth_queue", {"task_id": task_id, "priority_filter": "high"}
        )
        assert [q["id"] for q in high.structured_content["queue"]] == [a]

        domains = await client.call_tool(
            "get_auth_queue", {"task_id": task_id, "group_by": "domain"}
        )
        d = domains.structured_content
        assert (d["total_domains"], d["total_pending"], d["queue"]) == (2, 3, None)
        assert d["domains"] == [
            {"domain": "protected.go.jp", "pending_count": 2, "high_priority_count": 1,
             "affected_tasks": [task_id], "auth_types": ["captcha", "cloudflare"]},
            {"domain": "blog.example", "pending_count": 1, "high_priority_count": 0,
             "affected_tasks": [task_id], "auth_types": ["login"]},
        ]  # fmt: skip

        types = await client.call_tool(
            "get_auth_queue",
            {"task_id": task_id, "group_by": "type", "priority_filter": "normal"},
        )
        assert types.structured_content["types"] == [
            {"auth_type": "captcha", "pending_count": 1, "domains": ["protected.go.jp"]},
            {"auth_type": "cloudflare", "pending_count": 1, "domains": ["protected.go.jp"]},
        ]


async def test_resolve_auth_item_and_domain(stack: tuple[Settings, Any]) -> None:
    settings, orch = stack
    async with Client(build_server(settings)) as client:
        task_id = await _task(client, "resolve auth")
        a, _, c = await _queue(
            orch,
            task_id,
            [
                ("s_1", "http://127.0.0.1:9/x/a", "login.example", "login", "normal"),
                ("s_2", "http://127.0.0.1:9/x/b", "login.example", "login", "normal"),
                ("s_2", "http://127.0.0.1:9/y/c", "cf.example", "cloudflare", "high"),
            ],
        )
        item = await client.call_tool(
            "resolve_auth", {"target": "item", "data": {"auth_id": c, "status": "failed"}}
        )
        assert item.is_error is False, item.content[0].text
        out = item.structured_content
        assert {k: out[k] for k in ("ok", "target", "auth_id", "status", "domain")} == {
            "ok": True, "target": "item", "auth_id": c, "status": "failed", "domain": "cf.example",
        }  # fmt: skip
        assert (out["unblocked_searches"], out["requeued_searches"]) == (["s_2"], [])
        assert out["session_stored"] is False

        whole = await client.call_tool(
            "resolve_auth",
            {"target": "domain", "data": {"domain": "login.example", "status": "skipped"}},
        )
        w = whole.structured_content
        assert (w["domain"], w["status"], w["resolved_count"]) == ("login.example", "skipped", 2)
        assert (w["affected_tasks"], w["unblocked_searches"]) == ([task_id], ["s_1", "s_2"])
        assert w["auth_id"] is None

        left = await client.call_tool("get_auth_queue", {"task_id": task_id})
        assert left.structured_content["total_pending"] == 0

        again = _error(
            await client.call_tool(
                "resolve_auth", {"target": "item", "data": {"auth_id": a, "status": "resolved"}}
            )
        )
        assert (again["code"], again["field"]) == ("INVALID_PARAMS", "data.auth_id")
        assert again["message"] == (
            f"already skipped: {a!r}; get_auth_queue lists the pending ones"
        )


@pytest.mark.parametrize(
    ("tool", "args", "code", "field"),
    [
        ("get_auth_queue", {"group_by": "site"}, "INVALID_PARAMS", "group_by"),
        ("get_auth_queue", {"priority_filter": "low"}, "INVALID_PARAMS", "priority_filter"),
        ("get_auth_queue", {"task_id": "task_nope"}, "TASK_NOT_FOUND", "task_id"),
        (
            "resolve_auth",
            {"target": "page", "data": {"auth_id": "a", "status": "resolved"}},
            "INVALID_PARAMS",
            "target",
        ),
        (
            "resolve_auth",
            {"target": "item", "data": {"auth_id": "a", "status": "done"}},
            "INVALID_PARAMS",
            "data.status",
        ),
        (
            "resolve_auth",
            {"target": "item", "data": {"auth_id": "a", "status": "resolved", "x": 1}},
            "INVALID_PARAMS",
            "data.x",
        ),
        (
            "resolve_auth",
            {"target": "item", "data": {"auth_id": "auth_unknown", "status": "resolved"}},
            "INVALID_PARAMS",
            "data.auth_id",
        ),
        (
            "resolve_auth",
            {"target": "item", "data": {"status": "resolved"}},
            "INVALID_PARAMS",
            "data.auth_id",
        ),
        (
            "resolve_auth",
            {"target": "domain", "data": {"domain": "none.example", "status": "skipped"}},
            "INVALID_PARAMS",
            "data.domain",
        ),
        ("notify_user", {"event": "shout", "payload": {"message": "x"}}, "INVALID_PARAMS", "event"),
        (
            "notify_user",
            {"event": "info", "payload": {"message": ""}},
            "INVALID_PARAMS",
            "payload.message",
        ),
        (
            "notify_user",
            {"event": "auth_required", "payload": {"message": "x", "url": "file:///etc/passwd"}},
            "INVALID_PARAMS",
            "payload.url",
        ),
    ],
)
async def test_bad_input_is_a_typed_error(
    stack: tuple[Settings, Any], tool: str, args: dict[str, Any], code: str, field: str
) -> None:
    settings, _ = stack
    async with Client(build_server(settings)) as client:
        err = _error(await client.call_tool(tool, args))
    assert (err["code"], err["field"]) == (code, field)


async def test_get_status_auth_queue_thresholds(stack: tuple[Settings, Any]) -> None:
    settings, orch = stack

    async def summary(client: Client, task_id: str) -> dict[str, Any]:
        st = await client.call_tool("get_status", {"task_id": task_id})
        assert st.is_error is False, st.content[0].text
        result: dict[str, Any] = st.structured_content["auth_queue"]
        return result

    def spec(i: int, priority: str = "normal") -> tuple[str, str, str, str, str]:
        return ("s_1", f"http://127.0.0.1:9/p/{i}", f"d{i % 2}.example", "captcha", priority)

    async with Client(build_server(settings)) as client:
        task_id = await _task(client, "threshold task")
        empty = await summary(client, task_id)
        assert empty == {
            "pending_count": 0, "high_priority_count": 0, "domains": [],
            "oldest_queued_at": None, "by_auth_type": {}, "warnings": [],
        }  # fmt: skip

        await _queue(orch, task_id, [spec(0), spec(1)])
        two = await summary(client, task_id)
        assert (two["pending_count"], two["warnings"]) == (2, [])
        assert two["domains"] == ["d0.example", "d1.example"]
        assert two["oldest_queued_at"].endswith("Z")

        await _queue(orch, task_id, [spec(2)])
        three = await summary(client, task_id)
        assert three["warnings"] == [
            {"level": "warning", "message": "3 pages wait for authentication (0 high priority)"}
        ]
        assert (three["domains"], three["by_auth_type"]) == (
            ["d0.example", "d1.example"], {"captcha": 3},
        )  # fmt: skip
        assert three["oldest_queued_at"] == two["oldest_queued_at"]

        await _queue(orch, task_id, [spec(3)])
        assert [w["level"] for w in (await summary(client, task_id))["warnings"]] == ["warning"]
        await _queue(orch, task_id, [spec(4)])
        five = await summary(client, task_id)
        assert (five["pending_count"], [w["level"] for w in five["warnings"]]) == (5, ["critical"])

        urgent = await _task(client, "two primary sources behind a login")
        await _queue(orch, urgent, [spec(10, "high"), spec(11, "high")])
        high = await summary(client, urgent)
        assert (high["pending_count"], high["high_priority_count"]) == (2, 2)
        assert high["warnings"] == [
            {
                "level": "critical",
                "message": "2 pages wait for authentication (2 high priority); ask the user "
                "to resolve them (get_auth_queue, resolve_auth)",
            }
        ]


async def test_notify_user_reaches_desktop_and_the_client_log(
    stack: tuple[Settings, Any], notifier: Path
) -> None:
    settings, _ = stack
    logs: list[LoggingMessageNotificationParams] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async with Client(build_server(settings), logging_callback=on_log, log_level="debug") as client:
        info = await client.call_tool(
            "notify_user", {"event": "info", "payload": {"message": "All 3 searches finished"}}
        )
        assert info.is_error is False, info.content[0].text
        out = info.structured_content
        assert (out["ok"], out["event"], out["shown"]) == (True, "info", True)
        assert out["channels"] == ["desktop", "mcp_log"]
        assert (out["opened_url"], out["message"]) == (None, "All 3 searches finished")
        assert out["notification_id"].startswith("n_")

        auth = await client.call_tool(
            "notify_user",
            {
                "event": "auth_required",
                "payload": {"message": "Sign-in needed; Authorization: Bearer abcdefghijkl",
                            "details": {"cookie": "secret"}, "timeout_seconds": 20},
            },
        )  # fmt: skip
        assert auth.structured_content["channels"] == ["desktop", "mcp_log"]
        assert auth.structured_content["message"] == "Sign-in needed; Authorization: [redacted]"

        # A URL with a password and a token: neither in the answer nor in any log.
        secret_url = "http://user:hunter2@127.0.0.1:9/login?token=SECRETTOKEN&next=/x"
        refused = await client.call_tool(
            "notify_user",
            {"event": "auth_required", "payload": {"message": "Sign in", "url": secret_url}},
        )
        assert refused.structured_content["warnings"] == [
            "the browser could not open http://127.0.0.1:9/login?token=[redacted]&next=%2Fx "
            "(target_refused:userinfo)"
        ]
    logged = "".join(p.read_text() for p in (settings.home_dir / "logs").glob("*.log*"))
    assert "could not open http://127.0.0.1:9/login?token=[redacted]" in logged
    assert ("hunter2" in logged, "SECRETTOKEN" in logged) == (False, False)

    assert [(p.level, p.logger, p.data) for p in logs][:2] == [
        ("info", "lyra.notify", "Lyra: All 3 searches finished"),
        ("warning", "lyra.notify",
         "Lyra: authentication needed: Sign-in needed; Authorization: [redacted]"),
    ]  # fmt: skip
    tail = recorded(notifier)[-3:-1]
    assert tail == [
        ["--app-name=Lyra", "--urgency=low", "--", "Lyra", "All 3 searches finished"],
        ["--app-name=Lyra", "--urgency=critical", "--expire-time=20000", "--",
         "Lyra: authentication needed", "Sign-in needed; Authorization: [redacted]"],
    ]  # fmt: skip
