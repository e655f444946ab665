"""The notebook API (`lyra.mcp_bridge.notebook.Lyra`, docs/api.md) and the README's example."""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any

import pytest
import ray

from lyra.mcp_bridge.notebook import Lyra
from lyra.pipelines.errors import LyraError
from tests.conftest import DEMO_CONTRADICTIONS, make_settings, sure_contradictions
from tests.test_mcp_tools import TOOLS

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

ROOT = Path(__file__).resolve().parents[1]
CONTRADICTIONS = DEMO_CONTRADICTIONS


def readme_notebook_example() -> list[str]:
    """The lines of the README's notebook example (the first python block of its section)."""
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("## Scripting Lyra from a notebook", 1)[1]
    block = re.search(r"```python\n(.*?)```", section, re.S)
    assert block is not None
    return block.group(1).strip().splitlines()


def _pairs(result: dict[str, Any]) -> set[tuple[str, str]]:
    return sure_contradictions(result["columns"], result["rows"])


def test_readme_example_runs_in_five_lines_and_finds_the_planted_contradiction(
    lyra_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = readme_notebook_example()
    assert len(lines) == 5
    tag = uuid.uuid4().hex[:8]
    monkeypatch.chdir(ROOT)  # the example names examples/corpus relative to the checkout
    monkeypatch.setenv("LYRA_HOME", str(lyra_home))
    monkeypatch.setenv("LYRA_RAY__NAMESPACE", f"lyra-nb-{tag}")
    monkeypatch.setenv("LYRA_STORAGE__DB_FILENAME", f"graph-nb-{tag}.duckdb")
    monkeypatch.setenv("LYRA_LLM__OLLAMA_HOST", "http://127.0.0.1:9")
    namespace: dict[str, Any] = {}
    exec(compile("\n".join(lines[:-1]), "README.md", "exec"), namespace)
    last = eval(compile(lines[-1], "README.md", "eval"), namespace)
    lyra: Lyra = namespace["lyra"]
    try:
        assert lyra.settings.ray.namespace == f"lyra-nb-{tag}"
        assert namespace["task"]["status"] == "created"
        cols = lyra.query_graph(view="contradictions")["columns"]
        assert sure_contradictions(cols, last) == CONTRADICTIONS
        status = lyra.get_status(task_id=namespace["task"]["task_id"])
        assert [s["status"] for s in status["searches"]] == ["satisfied"]
    finally:
        lyra.close()


@pytest.fixture(scope="module")
def lyra(lyra_home: Path) -> Any:
    settings = make_settings(lyra_home)
    with Lyra.start(
        home=settings.home,
        corpus=settings.engines["local"].paths,
        ray=settings.ray.model_dump(),
        storage=settings.storage.model_dump(),
        llm=settings.llm.model_dump(),
    ) as started:
        yield started


def test_methods_take_keywords_and_answer_as_the_mcp_tools(lyra: Lyra) -> None:
    task = lyra.create_task(
        query="Does moderate coffee consumption affect cardiovascular health?",
        config={"budget": {"max_pages": 40}},
    )
    assert task["ok"] is True
    assert task["budget"]["max_pages"] == 40
    degraded = task["_lyra_meta"]["degraded"]
    assert sorted(d.split(":")[0] for d in degraded) == ["llm", "nli"]
    done = lyra.search(task_id=task["task_id"], query=task["query"], max_pages=40)
    assert done["status"] == "satisfied"
    assert _pairs(lyra.view("contradictions", task_id=task["task_id"])) == CONTRADICTIONS
    assert lyra.view("contradictions", task_id="task_of_nobody")["rows"] == []
    counted = lyra.query_graph(sql="SELECT count(*) AS n FROM claims", limit=5)
    assert counted["columns"] == ["n"]
    assert counted["rows"][0][0] == len(
        lyra.get_status(task_id=task["task_id"], detail="full")["claims"]
    )
    hits = lyra.vector_search(
        query="moderate coffee consumption and long-term blood pressure",
        task_id=task["task_id"],
        top_k=3,
    )
    assert len(hits["results"]) == 3
    assert hits["results"][0]["similarity"] >= 0.5
    exported = lyra.export(task_id=task["task_id"], format="jsonl")
    assert exported["media_type"] == "application/jsonl"
    assert exported["content"].count("\n") == exported["claims"] == counted["rows"][0][0]
    stopped = lyra.stop_task(task_id=task["task_id"], reason="done")
    assert stopped["task_id"] == task["task_id"]


def test_views_lists_every_named_view_with_its_parameters(lyra: Lyra) -> None:
    views = {v["name"]: v for v in lyra.views()}
    assert {"contradictions", "claim_evidence_summary", "unsupported_claims"} <= set(views)
    assert views["contradictions"]["params"] == ["task_id"]


def test_tool_errors_are_raised_with_the_tools_code(lyra: Lyra) -> None:
    with pytest.raises(LyraError) as missing:
        lyra.get_status(task_id="task_does_not_exist")
    assert missing.value.code == "TASK_NOT_FOUND"
    with pytest.raises(LyraError) as both:
        lyra.query_graph(sql="SELECT 1", view="contradictions")
    assert (both.value.code, both.value.field) == ("INVALID_PARAMS", "sql")
    with pytest.raises(LyraError) as hostile:
        lyra.query_graph(sql="DROP TABLE claims")
    assert hostile.value.code == "INVALID_PARAMS"
    with pytest.raises(LyraError) as schema:
        lyra.vector_search(query="coffee", top_k=1000)
    assert schema.value.code == "INVALID_PARAMS"
    assert "top_k" in schema.value.message


def test_actor_handles_reach_ray_directly(lyra: Lyra) -> None:
    graph = lyra.graph()
    out = ray.get(graph.query_graph.remote("SELECT 41 + 1 AS n", None, {}, 5, 2000, False))
    assert out["rows"] == [[42]]
    vectors = ray.get(lyra.inference().embed.remote(["coffee"]))
    assert len(vectors[0]) == 384


def test_attach_finds_the_running_orchestrator_or_says_there_is_none(lyra: Lyra) -> None:
    with Lyra.attach(ray={"namespace": lyra.settings.ray.namespace}) as attached:
        assert attached.orchestrator._actor_id == lyra.orchestrator._actor_id
    with pytest.raises(LyraError) as none:
        Lyra.attach(ray={"namespace": f"lyra-none-{uuid.uuid4().hex[:8]}"})
    assert (none.value.code, none.value.field) == ("INVALID_PARAMS", "address")


def test_a_closed_object_refuses_calls(lyra_home: Path) -> None:
    settings = make_settings(lyra_home)
    opened = Lyra.start(
        home=settings.home, ray=settings.ray.model_dump(), storage=settings.storage.model_dump()
    )
    opened.close()
    with pytest.raises(LyraError, match="closed"):
        opened.get_status(task_id="t")


def test_every_mcp_tool_is_a_method(lyra: Lyra) -> None:
    assert [t for t in TOOLS if not callable(getattr(lyra, t, None))] == []


def test_the_researcher_in_the_loop_tools_as_methods(lyra: Lyra) -> None:
    blocked = lyra.feedback(action="domain_block", domain="https://farm.example.org/x",
                            reason="a content farm")  # fmt: skip
    assert (blocked["domain"], blocked["changed"], blocked["pages_affected"]) == (
        "example.org", True, 0
    )  # fmt: skip
    assert lyra.feedback(action="domain_unblock", domain="example.org")["changed"] is True
    with pytest.raises(LyraError) as unknown:
        lyra.feedback(action="claim_reject", claim_id="no-such-claim")
    assert (unknown.value.code, unknown.value.field) == ("INVALID_PARAMS", "claim_id")

    added = lyra.calibrate(action="add_sample", source="claims", prediction=0.8, actual=True)
    assert added["sample_count"] == 1
    stats = lyra.calibrate(action="get_stats", source="claims")
    assert (stats["sample_count"], stats["current_version"]) == (1, 0)
    with pytest.raises(LyraError) as nothing:
        lyra.calibrate_rollback(source="claims", reason="nothing to roll back")
    assert nothing.value.code == "CALIBRATION_ERROR"

    waited = lyra.wait_for_user(prompt="Go on?", choices=["yes", "no"], timeout_seconds=1)
    assert (waited["timed_out"], waited["response"], waited["channel"]) == (
        True, None, "command_line"
    )  # fmt: skip
