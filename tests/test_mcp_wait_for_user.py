"""wait_for_user through the MCP Client (issue 14): elicitation, and the command line.

A client that declares elicitation gets a form (the choices as an enum); one that does
not gets the question on the desktop and in its log, and the person's answer arrives
through the orchestrator's ``answer_prompt`` (what `lyra answer` calls; the command
itself: tests/test_cli_e2e.py).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
import ray
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

from lyra.actors.orchestrator import Orchestrator
from lyra.config.settings import Settings
from lyra.mcp_bridge.server import build_server
from tests.conftest import make_settings
from tests.test_mcp_calibration import _error, _ok

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

CHOICES = ["Stop the search", "Go on with the primary sources", "Add the preprints"]


@pytest.fixture(scope="module")
def stack(lyra_home: Path) -> Iterator[tuple[Settings, Any]]:
    settings = make_settings(lyra_home, corpus=None, auth={"notify_command": "/nonexistent"})
    orch = Orchestrator.options(
        name="orchestrator", namespace=settings.ray.namespace, get_if_exists=True
    ).remote(settings)
    yield settings, orch
    ray.kill(orch)


async def test_a_client_that_shows_forms_gets_the_choices_as_a_form(
    stack: tuple[Settings, Any],
) -> None:
    settings, _ = stack
    asked: list[types.ElicitRequestParams] = []

    async def choose_second(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"answer": CHOICES[1]})

    async with Client(build_server(settings), elicitation_callback=choose_second) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools["wait_for_user"].input_schema["properties"]) == {"prompt", "options"}
        out = _ok(await client.call_tool(
            "wait_for_user", {"prompt": "The budget is half spent. Which way?",
                              "options": {"choices": CHOICES}},
        ))  # fmt: skip
    assert (out["response"], out["choice_index"], out["timed_out"]) == (CHOICES[1], 1, False)
    assert (out["channel"], out["action"], out["prompt_id"]) == ("elicitation", "accept", None)
    [params] = asked
    assert params.message == "The budget is half spent. Which way?"
    assert params.requested_schema["properties"]["answer"]["enum"] == CHOICES
    assert params.requested_schema["required"] == ["answer"]


async def test_a_declined_form_is_no_answer(stack: tuple[Settings, Any]) -> None:
    settings, _ = stack

    async def decline(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async with Client(build_server(settings), elicitation_callback=decline) as client:
        out = _ok(await client.call_tool("wait_for_user", {"prompt": "Why this source?"}))
    assert (out["response"], out["timed_out"], out["action"]) == (None, False, "decline")


async def test_a_form_accepted_without_an_answer_is_a_typed_error(
    stack: tuple[Settings, Any],
) -> None:
    """An accept with no answer: the tool's typed error, not INTERNAL_ERROR. (A client
    that answers the form with a JSON-RPC error: the same error object, where the
    server receives it; this client raises it on its own side first.)"""
    settings, _ = stack

    async def empty(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept")

    async with Client(build_server(settings), elicitation_callback=empty) as client:
        error = _error(await client.call_tool("wait_for_user", {"prompt": "Which way?"}))
        # The session goes on.
        out = _ok(await client.call_tool("query_graph", {"sql": "SELECT 42 AS n"}))
    assert (error["code"], error["message"]) == (
        "INVALID_PARAMS",
        "the client could not take the question (it accepted the question but sent no "
        "answer); a client without forms gets it on the desktop and answers with "
        "`lyra answer`",
    )
    assert out["rows"] == [[42]]


async def _wait_pending(orch: Any, count: int) -> list[dict[str, Any]]:
    for _ in range(200):
        pending: list[dict[str, Any]] = await orch.pending_prompts.remote()
        if len(pending) >= count:
            return pending
        await asyncio.sleep(0.05)
    raise AssertionError(f"{count} questions never appeared")


async def test_without_forms_the_question_waits_for_lyra_answer(
    stack: tuple[Settings, Any],
) -> None:
    settings, orch = stack
    logged: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logged.append(params)

    async with (
        Client(build_server(settings), logging_callback=on_log, log_level="debug") as first,
        Client(build_server(settings)) as second,
    ):
        a = asyncio.ensure_future(first.call_tool(
            "wait_for_user", {"prompt": "Which way?", "options": {"choices": CHOICES}},
        ))  # fmt: skip
        b = asyncio.ensure_future(second.call_tool("wait_for_user", {"prompt": "Why?"}))
        pending = await _wait_pending(orch, 2)
        ids = {q["prompt"]: q["prompt_id"] for q in pending}
        assert set(ids) == {"Which way?", "Why?"}
        assert {q["prompt"]: q["choices"] for q in pending} == {
            "Which way?": CHOICES, "Why?": None
        }  # fmt: skip
        # Answered out of order, each by its id; a choice by its number.
        said = await orch.answer_prompt.remote(ids["Why?"], "the trial stopped early")
        assert said["response"] == "the trial stopped early"
        chosen = await orch.answer_prompt.remote(ids["Which way?"], "3")
        assert (chosen["response"], chosen["choice_index"]) == (CHOICES[2], 2)
        with pytest.raises(ray.exceptions.RayTaskError, match="was already answered"):
            await orch.answer_prompt.remote(ids["Which way?"], "1")
        out_a, out_b = _ok(await a), _ok(await b)
    assert (out_a["response"], out_a["choice_index"], out_a["channel"]) == (
        CHOICES[2], 2, "command_line"
    )  # fmt: skip
    assert out_a["prompt_id"] == ids["Which way?"]
    assert out_a["how_to_answer"] == f'lyra answer {ids["Which way?"]} "..."'
    assert (out_b["response"], out_b["timed_out"]) == ("the trial stopped early", False)
    assert [m.data for m in logged if m.logger == "lyra.notify"] == [
        f'Lyra asks: Which way? Answer with: lyra answer {ids["Which way?"]} "..."'
    ]


async def test_no_answer_in_time_is_timed_out(stack: tuple[Settings, Any]) -> None:
    settings, orch = stack
    async with Client(build_server(settings)) as client:
        out = _ok(await client.call_tool(
            "wait_for_user", {"prompt": "Anyone there?", "options": {"timeout_seconds": 1}}
        ))  # fmt: skip
    assert (out["response"], out["timed_out"], out["channel"]) == (None, True, "command_line")
    assert await orch.pending_prompts.remote() == []


async def test_one_choice_is_still_a_list_to_pick_from(stack: tuple[Settings, Any]) -> None:
    settings, _ = stack
    asked: list[types.ElicitRequestParams] = []

    async def pick(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"answer": "Go on"})

    async with Client(build_server(settings), elicitation_callback=pick) as client:
        out = _ok(await client.call_tool(
            "wait_for_user", {"prompt": "Ready?", "options": {"choices": ["Go on"]}}
        ))  # fmt: skip
    assert (out["response"], out["choice_index"]) == ("Go on", 0)
    answer = asked[0].requested_schema["properties"]["answer"]
    assert (answer["enum"], answer["type"], "const" in answer) == (["Go on"], "string", False)


async def test_a_client_that_gives_up_leaves_no_question_behind(
    stack: tuple[Settings, Any],
) -> None:
    settings, orch = stack
    async with Client(build_server(settings)) as client:
        asked = asyncio.ensure_future(client.call_tool("wait_for_user", {"prompt": "Still?"}))
        [question] = await _wait_pending(orch, 1)
        asked.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asked
        for _ in range(100):
            if await orch.pending_prompts.remote() == []:
                break
            await asyncio.sleep(0.05)
        assert await orch.pending_prompts.remote() == []
        with pytest.raises(ray.exceptions.RayTaskError, match="no longer waited for"):
            await orch.answer_prompt.remote(question["prompt_id"], "yes")


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"prompt": ""}, "prompt"),
        ({"prompt": "   "}, "prompt"),
        ({"prompt": "Pick", "options": {"choices": ["Yes", "   "]}}, "options.choices"),
        ({"prompt": "Pick", "options": {"choices": [f"option {i}" for i in range(10_000)]}},
         "options.choices"),
        ({"prompt": "Pick", "options": {"choices": ["Yes", " yes "]}}, "options.choices"),
        ({"prompt": "Pick", "options": {"choices": []}}, "options.choices"),
        ({"prompt": "Wait", "options": {"timeout_seconds": 0}}, "options.timeout_seconds"),
    ],
)  # fmt: skip
async def test_bad_questions_are_refused(
    stack: tuple[Settings, Any], arguments: dict[str, Any], field: str
) -> None:
    settings, orch = stack
    async with Client(build_server(settings)) as client:
        error = _error(await client.call_tool("wait_for_user", arguments))
    assert error["code"] == "INVALID_PARAMS"
    assert error["field"] == field
    assert await orch.pending_prompts.remote() == []


async def test_a_json_rpc_error_in_place_of_the_answer_is_the_error_object(
    stack: tuple[Settings, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client on the older protocol answers the server's elicitation request with a
    JSON-RPC error, which the SDK raises in the server as MCPError: wait_for_user then
    gives its error object; other tools' MCPErrors stay protocol errors."""
    settings, _ = stack
    server = build_server(settings)

    async def client_refuses(self: Any, name: str, arguments: Any, context: Any = None) -> Any:
        raise MCPError(-32600, "client refuses")

    monkeypatch.setattr(MCPServer, "call_tool", client_refuses)
    result = await server.call_tool("wait_for_user", {"prompt": "Which way?"})
    assert result.is_error is True
    error = json.loads(result.content[0].text)["error"]
    assert (error["code"], error["message"]) == (
        "INVALID_PARAMS",
        "the client could not take the question (error -32600: client refuses); a client "
        "without forms gets it on the desktop and answers with `lyra answer`",
    )
    with pytest.raises(MCPError, match="client refuses"):
        await server.call_tool("get_status", {"task_id": "t"})
