"""The planted evidence of examples/corpus shows up in the graph (EXPECTED.md).

Three client-designed queries on one task, as an AI client would issue them; then the
graph is checked: refutes edges for the planted contradictions, the contradictions
view, and the syndicated near-duplicate counted once among independent sources.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import ray

from lyra.actors.orchestrator import Orchestrator
from lyra.config.settings import Settings
from tests.conftest import DEMO_QUESTION, finished_search, make_settings

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

QUERIES = [
    DEMO_QUESTION,
    "What is the half-life of caffeine in healthy adults?",
    "Does switching from unfiltered to filtered coffee change serum cholesterol?",
]
C1 = (
    "Moderate coffee consumption raises long-term blood pressure in healthy adults.",
    "Moderate coffee consumption does not raise long-term blood pressure in healthy adults.",
)
C2 = (
    "The half-life of caffeine in healthy adults is about 12 hours.",
    "The half-life of caffeine in healthy adults is about 5 hours.",
)
C3 = (
    "Switching from unfiltered to filtered coffee increases serum cholesterol levels.",
    "Switching from unfiltered to filtered coffee reduces serum cholesterol levels.",
)
A1 = "three to four cups of coffee"


@pytest.fixture(scope="module")
def researched(lyra_home: Path) -> dict[str, Any]:
    settings: Settings = make_settings(lyra_home)
    orch = Orchestrator.options(name="orchestrator", namespace=settings.ray.namespace).remote(
        settings
    )
    task = ray.get(orch.create_task.remote(DEMO_QUESTION, {"budget": {"max_pages": 100}}))
    results = []
    for q in QUERIES:
        sid = ray.get(orch.start_search.remote(task["id"], q, {}))
        results.append(finished_search(orch, sid))
    status = ray.get(orch.get_status.remote(task["id"], 0))
    claims = {c["claim_text"]: c for c in status["claims"]}
    out = {"orch": orch, "task": task, "results": results, "claims": claims}
    yield out
    ray.kill(orch)


def sql(ctx: dict[str, Any], query: str) -> list[list[Any]]:
    res = ray.get(ctx["orch"].query_graph.remote(query, None, {}, 200, 2000, False))
    return list(res["rows"])


def test_every_search_ends_with_a_final_status(researched: dict[str, Any]) -> None:
    assert [r["status"] for r in researched["results"]] == ["satisfied", "satisfied", "satisfied"]
    assert researched["results"][0]["metrics"]["pages_fetched"] == 15


@pytest.mark.parametrize("pair", [C1, C2, C3], ids=["negation", "number", "antonym"])
def test_planted_contradictions_are_refutes_edges(
    researched: dict[str, Any], pair: tuple[str, str]
) -> None:
    claims = researched["claims"]
    first, second = (claims[text] for text in pair)
    assert first["refuting"] >= 1
    assert second["refuting"] >= 1
    refuting_domains = {u.split("/corpus/")[1].split("/")[0] for u in first["refuting_urls"]}
    assert second["source_domain"] in refuting_domains


def test_contradictions_view_lists_the_planted_claims(researched: dict[str, Any]) -> None:
    task_id = researched["task"]["id"]
    rows = sql(
        researched, f"SELECT DISTINCT claim_text FROM contradictions WHERE task_id = '{task_id}'"
    )
    texts = {r[0] for r in rows}
    for pair in (C1, C2, C3):
        assert set(pair) <= texts


def test_near_duplicate_counts_once_among_independent_sources(researched: dict[str, Any]) -> None:
    a1 = [
        c
        for t, c in researched["claims"].items()
        if A1 in t and c["source_domain"] in {"who.int", "cochranelibrary.com", "arxiv.org"}
    ]
    assert len(a1) == 1
    claim = a1[0]
    supporting_domains = {u.split("/corpus/")[1].split("/")[0] for u in claim["supporting_urls"]}
    assert {"newsdaily.example", "newsaggregator.example"} <= supporting_domains
    assert claim["independent_sources"] == len(supporting_domains) - 1
    dup = sql(researched, "SELECT p.domain, c.domain FROM pages p JOIN pages c ON c.id = p.dup_of")
    # One link between the two copies. Which one is the canonical is the one stored
    # first: content cannot tell an original from its copy (EXPECTED.md, D1: no
    # rel="canonical"), so the direction is not asserted.
    assert len(dup) == 1
    assert sorted(dup[0]) == ["newsaggregator.example", "newsdaily.example"]


def test_confidence_follows_the_beta_posterior(researched: dict[str, Any]) -> None:
    for claim in researched["claims"].values():
        alpha, beta = claim["alpha"], claim["beta"]
        assert claim["confidence"] == pytest.approx(alpha / (alpha + beta))
        total = alpha + beta
        assert claim["uncertainty"] == pytest.approx(
            (alpha * beta / (total**2 * (total + 1))) ** 0.5
        )
    task_id = researched["task"]["id"]
    rows = sql(
        researched,
        "SELECT claim_id, confidence, independent_sources FROM "
        f"claim_evidence_summary WHERE task_id = '{task_id}'",
    )
    by_id = {c["id"]: c for c in researched["claims"].values()}
    assert len(rows) == len(by_id)
    for claim_id, confidence, independent in rows:
        assert confidence == pytest.approx(by_id[claim_id]["confidence"])
        assert independent == by_id[claim_id]["independent_sources"]


def test_pdf_fragment_keeps_its_page_number(researched: dict[str, Any]) -> None:
    rows = sql(
        researched,
        "SELECT f.page_number, f.char_start < f.char_end FROM fragments f "
        "JOIN pages p ON p.id = f.page_id WHERE p.url LIKE '%.pdf' AND "
        f"f.text_content LIKE '%{A1}%'",
    )
    assert rows == [[2, True]]
