"""calibrate and calibrate_rollback through the MCP Client (issue 14).

Samples go in through the tool; the tenth fits version 1; a search run afterwards
stores stance edges whose confidence is that version's map of the model's own
probability; a rollback restores the earlier parameters exactly.
"""

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
from lyra.mcp_bridge.models import MAX_FREE_FORM_CHARS
from lyra.mcp_bridge.server import build_server
from lyra.pipelines.evidence.calibration import Calibration
from tests.conftest import make_settings

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

CORPUS = Path(__file__).parent / "corpora" / "heat_pumps"
QUESTION = "Do heat pumps reduce household heating costs in cold climates?"
# An overconfident judge: probabilities near 0.9, right 6 times in 10.
PREDICTIONS = [0.95, 0.9, 0.92, 0.85, 0.97, 0.88, 0.93, 0.9, 0.86, 0.94]
RIGHT = [True, False, True, True, False, True, False, True, True, False]
HELD_OUT = {"predictions": [0.91, 0.87, 0.96, 0.89, 0.93], "labels": [1, 0, 1, 0, 1]}


@pytest.fixture(scope="module")
def settings(lyra_home: Path) -> Iterator[Settings]:
    settings = make_settings(lyra_home, corpus=CORPUS)
    orch = Orchestrator.options(
        name="orchestrator", namespace=settings.ray.namespace, get_if_exists=True
    ).remote(settings)
    yield settings
    ray.kill(orch)


def _ok(result: Any) -> dict[str, Any]:
    assert result.is_error is False, result.content[0].text
    out: dict[str, Any] = result.structured_content
    assert out["ok"] is True
    assert "_lyra_meta" in out
    return out


def _rows(result: Any) -> list[dict[str, Any]]:
    out = _ok(result)
    return [dict(zip(out["columns"], row, strict=True)) for row in out["rows"]]


def _error(result: Any) -> dict[str, Any]:
    assert result.is_error is True
    payload: dict[str, Any] = json.loads(result.content[0].text)
    assert payload["ok"] is False
    return payload["error"]


async def test_the_tools_and_their_annotations(settings: Settings) -> None:
    async with Client(build_server(settings)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert tools["calibrate"].input_schema["properties"]["action"]["enum"] == [
        "add_sample", "get_stats", "evaluate", "get_evaluations", "get_diagram_data"
    ]  # fmt: skip
    assert tools["calibrate"].input_schema["required"] == ["action"]
    assert tools["calibrate_rollback"].input_schema["required"] == ["source"]
    assert tools["calibrate_rollback"].annotations.destructive_hint is True
    assert tools["calibrate"].annotations.destructive_hint is not True


async def test_samples_fit_a_version_that_new_stance_edges_carry_and_rollback_restores(
    settings: Settings,
) -> None:
    async with Client(build_server(settings)) as client:
        empty = _ok(await client.call_tool("calibrate", {"action": "get_stats"}))
        assert (empty["source"], empty["current_version"], empty["method"]) == (
            "nli", 0, "identity"
        )  # fmt: skip
        assert (empty["sample_count"], empty["brier_score"]) == (0, None)

        added = []
        for p, right in zip(PREDICTIONS, RIGHT, strict=True):
            data = {"source": "nli", "prediction": p, "actual": right}
            added.append(_ok(await client.call_tool("calibrate", {"action": "add_sample",
                                                                   "data": data})))  # fmt: skip
        assert [a["pending_count"] for a in added] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]
        assert all(a["refit"] is None for a in added[:9])
        refit = added[9]["refit"]
        assert (refit["version"], refit["previous_version"], refit["samples"]) == (1, 0, 10)
        assert refit["brier_after"] < refit["brier_before"]

        stats = _ok(
            await client.call_tool("calibrate", {"action": "get_stats", "data": {"source": "nli"}})
        )
        assert (stats["current_version"], stats["sample_count"], stats["pending_count"]) == (
            1, 10, 0
        )  # fmt: skip
        mapping = Calibration.from_json({"method": stats["method"], **stats["params"]})
        assert mapping.apply_one(0.9) < 0.85  # overconfident 0.9s come down

        first = _ok(await client.call_tool(
            "calibrate", {"action": "evaluate", "data": {"source": "nli", **HELD_OUT}}
        ))  # fmt: skip
        assert (first["calibration_version"], first["samples_evaluated"]) == (1, 5)
        assert first["brier_score_calibrated"] == pytest.approx(
            sum((q - y) ** 2 for q, y in zip(mapping.apply(HELD_OUT["predictions"]),
                                              HELD_OUT["labels"], strict=True)) / 5,
            abs=1e-6,
        )  # fmt: skip
        history = _ok(await client.call_tool("calibrate", {"action": "get_evaluations"}))
        assert history["total_count"] == 1
        assert history["evaluations"][0]["evaluation_id"] == first["evaluation_id"]
        diagram = _ok(await client.call_tool(
            "calibrate", {"action": "get_diagram_data", "data": {"source": "nli"}}
        ))  # fmt: skip
        assert (diagram["evaluation_id"], diagram["n_bins"]) == (first["evaluation_id"], 10)
        assert sum(b["count"] for b in diagram["bins"]) == 5
        assert diagram["overall_ece"] == first["expected_calibration_error"]

        # A search from now on stores calibrated stance confidences and the version.
        task = _ok(await client.call_tool("create_task", {"query": QUESTION}))
        found = _ok(await client.call_tool(
            "search",
            {"task_id": task["task_id"], "query": QUESTION, "options": {"wait_seconds": 110}},
        ))  # fmt: skip
        assert found["status"] in {"satisfied", "partial"}
        rows = _rows(await client.call_tool("query_graph", {
            "sql": "SELECT nli_confidence, nli_raw_confidence, calibration_version FROM edges "
                   "WHERE task_id = $task_id AND relation IN ('supports', 'refutes', 'neutral')",
            "params": {"task_id": task["task_id"]},
            "options": {"limit": 200},
        }))  # fmt: skip
        assert len(rows) >= 20
        assert {r["calibration_version"] for r in rows} == {1}
        for r in rows:
            assert r["nli_confidence"] == pytest.approx(
                mapping.apply_one(r["nli_raw_confidence"]), abs=1e-9
            )

        # A person says one edge was wrong: the edge's own raw probability is the sample.
        edge = _rows(await client.call_tool("query_graph", {
            "sql": "SELECT id, relation, nli_raw_confidence FROM edges "
                   "WHERE task_id = $task_id AND relation = 'supports' ORDER BY id LIMIT 1",
            "params": {"task_id": task["task_id"]},
        }))[0]  # fmt: skip
        sample = _ok(await client.call_tool("calibrate", {
            "action": "add_sample",
            "data": {"source": "nli", "edge_id": edge["id"], "actual": "neutral"},
        }))  # fmt: skip
        assert (sample["sample_count"], sample["pending_count"]) == (11, 1)

        back = _ok(await client.call_tool(
            "calibrate_rollback", {"source": "nli", "reason": "checking the raw figures"}
        ))  # fmt: skip
        assert (back["rolled_back_to"], back["previous_version"]) == (0, 1)
        raw = _ok(await client.call_tool(
            "calibrate", {"action": "evaluate", "data": {"source": "nli", **HELD_OUT}}
        ))  # fmt: skip
        assert (raw["calibration_version"], raw["brier_score_calibrated"]) == (0, None)
        assert raw["brier_score"] == first["brier_score"]
        again = _ok(await client.call_tool("calibrate_rollback", {"source": "nli", "version": 1}))
        assert (again["rolled_back_to"], again["previous_version"]) == (1, 0)
        restored = _ok(await client.call_tool(
            "calibrate", {"action": "evaluate", "data": {"source": "nli", **HELD_OUT}}
        ))  # fmt: skip
        assert restored["brier_score_calibrated"] == first["brier_score_calibrated"]
        audit = _rows(await client.call_tool("query_graph", {
            "sql": "SELECT payload->>'rolled_back_to' AS to_v, payload->>'reason' AS reason "
                   "FROM event_log WHERE kind = 'calibration_rollback' ORDER BY ts",
        }))  # fmt: skip
        assert audit == [
            {"to_v": "0", "reason": "checking the raw figures"},
            {"to_v": "1", "reason": None},
        ]


@pytest.mark.parametrize(
    ("tool", "arguments", "code", "message"),
    [
        ("calibrate_rollback", {"source": "weather"}, "CALIBRATION_ERROR",
         "unknown calibration source 'weather'; known: nli, claims"),
        ("calibrate_rollback", {"source": "claims"}, "CALIBRATION_ERROR",
         "claims has no active calibration version to roll back from"),
        ("calibrate_rollback", {"source": "claims", "version": 4}, "CALIBRATION_ERROR",
         "claims has no calibration version 4 (versions: none; 0 = raw)"),
        ("calibrate", {"action": "add_sample",
                       "data": {"source": "claims", "prediction": 1.5, "actual": True}},
         "INVALID_PARAMS", "prediction 1.5 is not a probability in [0, 1]"),
        ("calibrate", {"action": "add_sample",
                       "data": {"source": "claims", "prediction": 0.5, "actual": "true-ish",
                                "predicted_label": "valid"}},
         "INVALID_PARAMS",
         "actual 'true-ish' is not a claims class (valid, invalid), nor true / false"),
        ("calibrate", {"action": "evaluate",
                       "data": {"source": "claims", "predictions": [0.4, 0.8],
                                "labels": [0, 1]}},
         "CALIBRATION_ERROR", "an evaluation needs at least 3 samples; 2 given"),
        ("calibrate", {"action": "get_diagram_data", "data": {"source": "claims"}},
         "CALIBRATION_ERROR", "no evaluation and no samples for source 'claims' yet"),
        # no source at all: the argument is missing, not unknown
        ("calibrate", {"action": "add_sample"}, "INVALID_PARAMS",
         "data.source is required: one of nli, claims"),
        ("calibrate", {"action": "evaluate", "data": {"predictions": [0.5]}},
         "INVALID_PARAMS", "data.source is required: one of nli, claims"),
    ],
)  # fmt: skip
async def test_bad_calls_get_a_clear_error(
    settings: Settings, tool: str, arguments: dict[str, Any], code: str, message: str
) -> None:
    async with Client(build_server(settings)) as client:
        error = _error(await client.call_tool(tool, arguments))
        assert (error["code"], error["message"]) == (code, message)
        data = {"source": "claims"}
        stats = _ok(await client.call_tool("calibrate", {"action": "get_stats", "data": data}))
        assert (stats["sample_count"], stats["current_version"]) == (0, 0)


async def test_an_unknown_action_or_field_is_invalid_params(settings: Settings) -> None:
    async with Client(build_server(settings)) as client:
        unknown = _error(await client.call_tool("calibrate", {"action": "fit"}))
        assert unknown["code"] == "INVALID_PARAMS"
        extra = _error(await client.call_tool(
            "calibrate", {"action": "get_stats", "data": {"source": "nli", "colour": "red"}}
        ))  # fmt: skip
        assert extra["code"] == "INVALID_PARAMS"


async def test_free_form_data_has_a_size_limit(settings: Settings) -> None:
    """A megabyte of a sample's context or a notification's details was stored whole."""
    big = {"note": "x" * MAX_FREE_FORM_CHARS}
    async with Client(build_server(settings)) as client:
        sample = _error(await client.call_tool(
            "calibrate",
            {"action": "add_sample", "data": {"source": "nli", "prediction": 0.7,
                                              "actual": True, "context": big}},
        ))  # fmt: skip
        note = _error(await client.call_tool(
            "notify_user", {"event": "info", "payload": {"message": "m", "details": "y" * 16_001}}
        ))  # fmt: skip
    assert (sample["code"], sample["field"]) == ("INVALID_PARAMS", "data.context")
    assert f"at most {MAX_FREE_FORM_CHARS}" in sample["message"]
    assert (note["code"], note["field"]) == ("INVALID_PARAMS", "payload.details")
    assert "details is 16001 characters; at most 16000" in note["message"]
