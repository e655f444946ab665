"""The six MCP tools through the official in-process `mcp` Client (ARCHITECTURE §5)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray
from mcp import Client

from lyra.actors.orchestrator import Orchestrator
from lyra.config.settings import Settings
from lyra.mcp_bridge.server import build_server
from tests.conftest import DEMO_CONTRADICTIONS, DEMO_QUESTION, make_settings, sure_contradictions
from tests.conftest_web import FixtureServer

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

BLOOD_PRESSURE_PAIR = {
    "Moderate coffee consumption raises long-term blood pressure in healthy adults.",
    "Moderate coffee consumption does not raise long-term blood pressure in healthy adults.",
}
TOOLS = [
    "calibrate",
    "calibrate_rollback",
    "cleanup_task",
    "create_task",
    "export",
    "feedback",
    "get_auth_queue",
    "get_status",
    "notify_user",
    "query_graph",
    "resolve_auth",
    "search",
    "stop_task",
    "vector_search",
    "wait_for_user",
]


@pytest.fixture(scope="module")
def settings(lyra_home: Path) -> Iterator[Settings]:
    """The module's settings; the module holds a handle to its orchestrator so the
    actor outlives each test's in-process server (a non-detached actor dies with its
    last handle, and each test's server drops its own)."""
    settings = make_settings(lyra_home)
    orch = Orchestrator.options(
        name="orchestrator", namespace=settings.ray.namespace, get_if_exists=True
    ).remote(settings)
    yield settings
    ray.kill(orch)


def _error(result: Any) -> dict[str, Any]:
    assert result.is_error is True
    payload: dict[str, Any] = json.loads(result.content[0].text)
    assert payload["ok"] is False
    assert payload["error_id"].startswith("err_")
    # Every response carries _lyra_meta (ARCHITECTURE §5), an error's too.
    assert set(payload["_lyra_meta"]) == {
        "degraded",
        "security_warnings",
        "unverified_domains",
        "blocked_domains",
        "timestamp",
    }
    return payload["error"]


async def test_lists_exactly_the_contract_tools(settings: Settings) -> None:
    async with Client(build_server(settings)) as client:
        tools = await client.list_tools()
    assert sorted(t.name for t in tools.tools) == TOOLS
    by_name = {t.name: t for t in tools.tools}
    assert by_name["query_graph"].annotations.read_only_hint is True
    assert "task_id" in by_name["search"].input_schema["properties"]


async def test_full_session_create_search_status_query_vector_stop(settings: Settings) -> None:
    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    async with Client(build_server(settings)) as client:
        created = await client.call_tool(
            "create_task", {"query": DEMO_QUESTION, "config": {"budget": {"max_pages": 40}}}
        )
        assert created.is_error is False
        task = created.structured_content
        assert task["ok"] is True
        assert task["task_id"].startswith("task_")
        assert task["budget"]["max_pages"] == 40
        assert "_lyra_meta" in task

        found = await client.call_tool(
            "search",
            {
                "task_id": task["task_id"],
                "query": DEMO_QUESTION,
                "options": {"max_pages": 20, "wait_seconds": 110},
            },
            progress_callback=on_progress,
        )
        assert found.is_error is False, found.content[0].text
        res = found.structured_content
        assert res["status"] in {"satisfied", "partial"}
        assert res["search_id"].startswith("s_")
        assert res["pages_fetched"] == 15
        texts = [c["text"] for c in res["claims_found"]]
        assert (
            "Moderate coffee consumption raises long-term blood pressure in healthy adults."
            in texts
        )
        assert (
            "Moderate coffee consumption does not raise long-term blood pressure in healthy adults."
            in texts
        )
        claim = res["claims_found"][0]
        assert set(claim) >= {
            "id",
            "text",
            "confidence",
            "uncertainty",
            "supports",
            "refutes",
            "source_url",
            "primary",
        }
        assert 0.0 < claim["confidence"] < 1.0
        assert res["budget_remaining"]["pages_remaining"] == 25
        degraded = " ".join(res["_lyra_meta"]["degraded"])
        assert "nli" in degraded and "llm" in degraded
        assert progress[-1] == 1.0

        status = await client.call_tool(
            "get_status", {"task_id": task["task_id"], "wait_seconds": 1, "detail": "full"}
        )
        st = status.structured_content
        assert [s["search_id"] for s in st["searches"]] == [res["search_id"]]
        assert st["searches"][0]["status"] == res["status"]
        assert st["metrics"]["pages_fetched"] == 15
        assert st["auth_queue"]["pending_count"] == 0
        # Not adopted: exactly the claims no other source supports or that the refuting
        # evidence outweighs, each with what would adopt it.
        not_adopted = {
            n["claim_id"]: (
                n["text"],
                n["status"],
                n["recovery"]["sources_needed"],
                bool(n["recovery"]["refuted_by"]),
            )
            for n in st["not_adopted"]
        }
        assert not_adopted == {
            c["id"]: (
                c["text"],
                "pending" if c["supports"] + c["refutes"] == 0 else "rejected",
                1 if c["supports"] == 0 else 0,
                c["refutes"] > 0,
            )
            for c in st["claims"]
            if c["supports"] == 0 or c["confidence"] < 0.5
        }
        assert st["metrics"]["not_adopted"] == len(not_adopted) >= 1

        rows = await client.call_tool(
            "query_graph",
            {
                "sql": "SELECT count(*) AS n FROM claims WHERE task_id = '" + task["task_id"] + "'",
                "options": {"include_schema": True},
            },
        )
        q = rows.structured_content
        assert q["columns"] == ["n"]
        assert q["rows"][0][0] == len(st["claims"])
        assert q["truncated"] is False
        assert "claims" in q["schema"] and "claim_evidence_summary" in q["schema"]

        view = await client.call_tool("query_graph", {"view": "contradictions"})
        assert view.is_error is False, view.content[0].text
        cols = view.structured_content["columns"]
        rows = view.structured_content["rows"]
        assert sure_contradictions(cols, rows) == DEMO_CONTRADICTIONS
        # Most certain first: the planted contradictions lead the view.
        assert sure_contradictions(cols, rows[: len(DEMO_CONTRADICTIONS)]) == DEMO_CONTRADICTIONS

        vec = await client.call_tool(
            "vector_search",
            {
                "query": "moderate coffee consumption and long-term blood pressure",
                "target": "claims",
                "task_id": task["task_id"],
                "top_k": 3,
                "min_similarity": 0.3,
            },
        )
        hits = vec.structured_content["results"]
        assert len(hits) == 3
        assert {hits[0]["text_preview"], hits[1]["text_preview"]} == BLOOD_PRESSURE_PAIR
        assert hits[0]["similarity"] >= hits[1]["similarity"] >= hits[2]["similarity"]
        # Each claim names the page it was extracted from (its origin edge).
        ids = ", ".join(f"'{h['id']}'" for h in hits)
        origins = await client.call_tool(
            "query_graph",
            {
                "sql": "SELECT e.target_id, p.url, p.domain FROM edges e "
                "JOIN fragments f ON f.id = e.source_id JOIN pages p ON p.id = f.page_id "
                f"WHERE e.relation = 'origin' AND e.target_id IN ({ids})"
            },
        )
        where = {r[0]: (r[1], r[2]) for r in origins.structured_content["rows"]}
        assert len(where) == 3
        assert [(h["url"], h["domain"], h["task_id"]) for h in hits] == [
            (*where[h["id"]], task["task_id"]) for h in hits
        ]

        stopped = await client.call_tool(
            "stop_task", {"task_id": task["task_id"], "reason": "done"}
        )
        assert stopped.structured_content["status"] == "stopped"
        assert stopped.structured_content["resumable"] is True


@pytest.mark.parametrize(
    ("tool", "args", "code", "field"),
    [
        ("get_status", {"task_id": "task_doesnotexist"}, "TASK_NOT_FOUND", "task_id"),
        ("search", {"task_id": "task_nope", "query": "x"}, "TASK_NOT_FOUND", "task_id"),
        ("stop_task", {"task_id": "task_nope"}, "TASK_NOT_FOUND", "task_id"),
        ("create_task", {"query": ""}, "INVALID_PARAMS", "query"),
        ("create_task", {"query": "   "}, "INVALID_PARAMS", "query"),
        ("create_task", {"query": "\x00\x01 ?"}, "INVALID_PARAMS", "query"),
        ("search", {"task_id": "t", "query": "\t\n"}, "INVALID_PARAMS", "query"),
        ("create_task", {}, "INVALID_PARAMS", "query"),
        (
            "create_task",
            {"query": "q", "config": {"budget": {"max_pages": 0}}},
            "INVALID_PARAMS",
            "config.budget.max_pages",
        ),
        ("create_task", {"query": "q", "config": {"bogus": 1}}, "INVALID_PARAMS", "config.bogus"),
        (
            "search",
            {"task_id": "t", "query": "q", "options": {"max_pages": "many"}},
            "INVALID_PARAMS",
            "options.max_pages",
        ),
        (
            "search",
            {"task_id": "t", "query": "q", "options": {"wait_seconds": -1}},
            "INVALID_PARAMS",
            "options.wait_seconds",
        ),
        ("vector_search", {"query": "q", "target": "pages"}, "INVALID_PARAMS", "target"),
        ("vector_search", {"query": "q", "top_k": 0}, "INVALID_PARAMS", "top_k"),
        ("vector_search", {"query": " \t\x00 "}, "INVALID_PARAMS", "query"),
        ("query_graph", {"sql": "DELETE FROM claims"}, "INVALID_PARAMS", "sql"),
        ("query_graph", {}, "INVALID_PARAMS", "sql"),
        ("query_graph", {"sql": "SELECT $x", "params": {"x y": 1}}, "INVALID_PARAMS", "params"),
        (
            "query_graph",
            {"sql": "SELECT $x", "params": {"x": {"nested": 1}}},
            "INVALID_PARAMS",
            "params",
        ),
        (
            "query_graph",
            {"sql": "SELECT 1", "options": {"limit": 500}},
            "INVALID_PARAMS",
            "options.limit",
        ),
        ("query_graph", {"view": "hub_pages", "params": {"task_id": ["a", "b"]}},
         "INVALID_PARAMS", "params"),
        ("query_graph", {"view": "outdated_evidence", "params": {"as_of_year": {"a": 1}}},
         "INVALID_PARAMS", "params"),
        ("query_graph", {"view": "contradictions", "params": {"limit": 5}},
         "INVALID_PARAMS", "params"),
        ("query_graph", {"view": "no_such_view"}, "INVALID_PARAMS", "view"),
    ],
)  # fmt: skip
async def test_bad_input_is_a_typed_error(
    settings: Settings, tool: str, args: dict[str, Any], code: str, field: str
) -> None:
    async with Client(build_server(settings)) as client:
        err = _error(await client.call_tool(tool, args))
    assert err["code"] == code
    assert err["field"] == field
    assert err["message"]


async def test_an_error_names_the_fallbacks_the_last_answer_named(settings: Settings) -> None:
    """An error's _lyra_meta is built without another call (the orchestrator may be the
    reason for the error): it repeats the fallbacks of the session's last answer."""
    async with Client(build_server(settings)) as client:
        created = await client.call_tool("create_task", {"query": "an error's meta"})
        missing = await client.call_tool("get_status", {"task_id": "task_missing"})
    degraded = created.structured_content["_lyra_meta"]["degraded"]
    assert any(d.startswith("nli:") for d in degraded), degraded
    assert json.loads(missing.content[0].text)["_lyra_meta"]["degraded"] == degraded


async def test_a_query_duckdb_rejects_says_what_to_fix(settings: Settings) -> None:
    """Unknown columns, tables and functions are the client's to fix: INVALID_PARAMS on
    `sql` with DuckDB's first line, not an internal error."""
    async with Client(build_server(settings)) as client:
        column = _error(
            await client.call_tool("query_graph", {"sql": "SELECT no_such_column FROM claims"})
        )
        table = _error(await client.call_tool("query_graph", {"sql": "SELECT * FROM nowhere"}))
        ok = await client.call_tool("query_graph", {"sql": "SELECT 41 + 1 AS n"})
    assert (column["code"], column["field"]) == ("INVALID_PARAMS", "sql")
    assert column["message"].startswith("query failed: Binder Error:")
    assert "no_such_column" in column["message"]
    assert (table["code"], table["field"]) == ("INVALID_PARAMS", "sql")
    assert "nowhere" in table["message"]
    assert ok.structured_content["rows"] == [[42]]


async def test_query_graph_binds_params_to_sql_placeholders(settings: Settings) -> None:
    async with Client(build_server(settings)) as client:
        created = await client.call_tool("create_task", {"query": "bound parameters"})
        task_id = created.structured_content["task_id"]
        sql = "SELECT id, query FROM tasks WHERE id = $task_id"
        bound = await client.call_tool("query_graph", {"sql": sql, "params": {"task_id": task_id}})
        hostile = await client.call_tool(
            "query_graph",
            {
                "sql": "SELECT count(*) FROM tasks WHERE id = $task_id",
                "params": {"task_id": "x' OR '1'='1"},
            },
        )
        listed = await client.call_tool(
            "query_graph",
            {
                "sql": "SELECT count(*) FROM tasks WHERE id = ANY($ids)",
                "params": {"ids": [task_id, "task_0000000000000000"]},
            },
        )
        missing = _error(await client.call_tool("query_graph", {"sql": sql}))
    assert bound.structured_content["rows"] == [[task_id, "bound parameters"]]
    assert hostile.structured_content["rows"] == [[0]]  # a value, never SQL
    assert listed.structured_content["rows"] == [[1]]
    assert (missing["code"], missing["field"]) == ("INVALID_PARAMS", "sql")
    assert "task_id" in missing["message"]


async def test_query_graph_timeout_is_typed(settings: Settings) -> None:
    async with Client(build_server(settings)) as client:
        err = _error(
            await client.call_tool(
                "query_graph",
                {
                    "sql": "SELECT count(*) FROM range(100000000) a, range(100000000) b",
                    "options": {"timeout_ms": 300},
                },
            )
        )
    assert err["code"] == "TIMEOUT"


async def test_search_answers_running_and_get_status_long_polls(settings: Settings) -> None:
    async with Client(build_server(settings)) as client:
        created = await client.call_tool("create_task", {"query": DEMO_QUESTION})
        task_id = created.structured_content["task_id"]
        res = await client.call_tool(
            "search",
            {"task_id": task_id, "query": DEMO_QUESTION, "options": {"wait_seconds": 0}},
        )
        started = res.structured_content
        assert started["status"] == "running"
        assert started["claims_found"] == []
        assert started["progress"]["stage"] in {"queued", "collect", "rank", "store", "embed"}
        # Partial metrics (ARCHITECTURE §5): the search's own, plus URLs fetched so far.
        assert set(started["metrics"]) == {
            "pages_fetched",
            "fragments_total",
            "useful_fragments",
            "claims_extracted",
            "new_claims",
            "edges_added",
            "harvest_rate",
            "novelty",
            "satisfaction",
            "urls_fetched",
        }
        assert started["pages_fetched"] == started["metrics"]["pages_fetched"]
        assert started["metrics"]["urls_fetched"] <= 15
        now = (
            await client.call_tool("get_status", {"task_id": task_id, "wait_seconds": 0})
        ).structured_content
        assert now["searches"][0]["status"] == "running"
        assert set(now["searches"][0]["metrics"]) == set(started["metrics"])
        st = (
            await client.call_tool("get_status", {"task_id": task_id, "wait_seconds": 100})
        ).structured_content
        assert [s["search_id"] for s in st["searches"]] == [started["search_id"]]
        assert st["searches"][0]["status"] == "satisfied"
        assert st["searches"][0]["metrics"]["pages_fetched"] == 15
        # Where the finished search's time went, stage by stage.
        stages = st["searches"][0]["metrics"]["stage_seconds"]
        assert set(stages) == {
            "collect", "rank", "store", "embed", "passages", "claims", "stance", "finish"
        }  # fmt: skip
        assert all(seconds >= 0 for seconds in stages.values())


async def test_stop_task_immediately_cancels_and_the_task_resumes(settings: Settings) -> None:
    async with Client(build_server(settings)) as client:
        created = await client.call_tool("create_task", {"query": DEMO_QUESTION})
        task_id = created.structured_content["task_id"]
        first = await client.call_tool(
            "search",
            {"task_id": task_id, "query": DEMO_QUESTION, "options": {"wait_seconds": 0}},
        )
        assert first.structured_content["status"] == "running"
        stopped = await client.call_tool(
            "stop_task", {"task_id": task_id, "mode": "immediate", "reason": "enough"}
        )
        assert stopped.structured_content["searches_stopped"] == 1
        st = (await client.call_tool("get_status", {"task_id": task_id})).structured_content
        assert st["status"] == "stopped"
        assert [s["status"] for s in st["searches"]] == ["cancelled"]
        again = await client.call_tool(
            "search",
            {"task_id": task_id, "query": DEMO_QUESTION, "options": {"wait_seconds": 110}},
        )
        assert again.structured_content["status"] == "satisfied"
        st = (await client.call_tool("get_status", {"task_id": task_id})).structured_content
        assert st["status"] == "active"
        assert [s["status"] for s in st["searches"]] == ["cancelled", "satisfied"]


async def test_a_polling_client_sees_why_a_url_gave_no_page(tmp_path: Path) -> None:
    """get_status names, per search, what happened to each URL that gave no page, as
    the search's own answer does: a client that polls (wait_seconds 0) sees it too."""
    site = FixtureServer("127.0.0.1")
    site.route(
        "/robots.txt", body=b"User-agent: *\nDisallow: /private\n", content_type="text/plain"
    )
    site.route(
        "/ok.html", body=b"<html><body><p>Green tea lowered LDL by 5% in 2019.</p></body></html>"
    )
    site.route("/gone.html", status=404, body=b"gone")
    site.route("/logo.png", body=b"\x89PNG\r\n\x1a\n", content_type="image/png")
    site.route("/empty.html", body=b"")
    site.route(
        "/notes.md",
        body=b"# Notes\n\nIn 2020, **green tea** lowered LDL by 4% in 300 adults.\n",
        content_type="text/markdown; charset=utf-8",
    )
    settings = make_settings(tmp_path, corpus=None, fetch={"default_qps": 20.0})
    paths = ("/ok.html", "/gone.html", "/private/a.html", "/logo.png", "/empty.html", "/notes.md")
    urls = [site.url(p) for p in paths]
    try:
        async with Client(build_server(settings)) as client:
            created = await client.call_tool("create_task", {"query": "green tea and LDL"})
            task_id = created.structured_content["task_id"]
            started = await client.call_tool(
                "search",
                {
                    "task_id": task_id,
                    "query": "green tea and LDL",
                    "options": {"urls": urls, "engines": [], "wait_seconds": 0},
                },
            )
            assert started.is_error is False, started.content[0].text
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline:
                polled = await client.call_tool(
                    "get_status", {"task_id": task_id, "wait_seconds": 30}
                )
                [search] = polled.structured_content["searches"]
                if search["status"] != "running":
                    break
    finally:
        site.close()
        ray.kill(ray.get_actor("orchestrator", namespace=settings.ray.namespace))
    assert search["metrics"]["pages_fetched"] == 2  # the page and the Markdown notes
    assert "warnings" not in search["metrics"]
    assert sorted(w for w in search["warnings"] if w.startswith("http")) == sorted(
        [
            f"{urls[1]}: not fetched (http_error:404)",
            f"{urls[2]}: not fetched (robots_disallowed)",
            f"{urls[3]}: not ingested (content type image/png)",
            f"{urls[4]}: not ingested (no text extracted)",
        ]
    )


async def test_a_question_in_japanese_is_answered_and_flagged_degraded(tmp_path: Path) -> None:
    """The packaged embedder and stance model read English only: a Japanese question is
    still answered with Japanese claims (decision 0089: a Japanese character weighs as
    three letters in a claim's minimum length), and the search's answer and get_status
    both say, in ``_lyra_meta.degraded``, what reads it poorly."""
    corpus = tmp_path / "corpus"
    (corpus / "health.example").mkdir(parents=True)
    (corpus / "health.example" / "zinc.md").write_text(
        "# 亜鉛と風邪\n\n"
        "酢酸亜鉛のトローチは成人の風邪の期間を33%短縮した。\n\n"
        "成人の亜鉛の耐容上限量は1日40mgである。\n",
        encoding="utf-8",
    )
    settings = make_settings(tmp_path, corpus=corpus)
    question = "亜鉛トローチは風邪の期間を短縮しますか\uff1f"
    try:
        async with Client(build_server(settings)) as client:
            created = await client.call_tool("create_task", {"query": question})
            task_id = created.structured_content["task_id"]
            found = await client.call_tool(
                "search", {"task_id": task_id, "query": question, "options": {"wait_seconds": 110}}
            )
            status = await client.call_tool("get_status", {"task_id": task_id})
    finally:
        ray.kill(ray.get_actor("orchestrator", namespace=settings.ray.namespace))
    assert found.is_error is False, found.content[0].text
    res = found.structured_content
    assert sorted(c["text"] for c in res["claims_found"]) == [
        "成人の亜鉛の耐容上限量は1日40mgである。",
        "酢酸亜鉛のトローチは成人の風邪の期間を33%短縮した。",
    ]
    [language] = [d for d in res["_lyra_meta"]["degraded"] if d.startswith("language:")]
    assert "read English only" in language and "bge-m3" in language
    assert language in status.structured_content["_lyra_meta"]["degraded"]
