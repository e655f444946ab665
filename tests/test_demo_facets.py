"""The demo question alone finds every planted fact, on every facet (issue 12 item 3).

One search, the README's demo question, no client-designed follow-up queries: the
question's facets (safety, dosage, population, comparison, mechanism) must carry the
half-life, cholesterol, filter and tolerance facts that a single ranking against the
question cut away (examples/corpus/EXPECTED.md lists them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import ray

from lyra.actors.orchestrator import Orchestrator
from lyra.config.settings import Settings
from tests.conftest import DEMO_QUESTION, finished_search, make_settings
from tests.test_facets import INTERVENTION_FACET_NAMES

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

# Each planted fact, in every wording the corpus gives it (EXPECTED.md §3).
PLANTED = {
    "A1": (
        "Drinking three to four cups of coffee per day is associated with a lower risk of "
        "heart failure.",
        "Drinking three to four cups of coffee a day is associated with a lower risk of "
        "heart failure.",
    ),
    "A2": (
        "Regular coffee drinkers develop a tolerance to the blood pressure effect of caffeine "
        "within a few days.",
    ),
    "A3": (
        "Unfiltered coffee contains cafestol, a compound that raises LDL cholesterol.",
        "Unfiltered coffee contains cafestol, a compound which raises LDL cholesterol.",
    ),
    "A4": ("Paper filters remove most of the cafestol from brewed coffee.",),
    "C1 raises": (
        "Moderate coffee consumption raises long-term blood pressure in healthy adults.",
    ),
    "C1 does not raise": (
        "Moderate coffee consumption does not raise long-term blood pressure in healthy adults.",
    ),
    "C2 5 hours (A5)": ("The half-life of caffeine in healthy adults is about 5 hours.",),
    "C2 12 hours": ("The half-life of caffeine in healthy adults is about 12 hours.",),
    "C3 reduces": (
        "Switching from unfiltered to filtered coffee reduces serum cholesterol levels.",
    ),
    "C3 increases": (
        "Switching from unfiltered to filtered coffee increases serum cholesterol levels.",
    ),
}
CONTRADICTED = [name for name in PLANTED if name.startswith("C")]


@pytest.fixture(scope="module")
def demo(lyra_home: Path) -> dict[str, Any]:
    settings: Settings = make_settings(lyra_home)
    orch = Orchestrator.options(name="orchestrator", namespace=settings.ray.namespace).remote(
        settings
    )
    task = ray.get(orch.create_task.remote(DEMO_QUESTION, {"budget": {"max_pages": 100}}))
    sid = ray.get(orch.start_search.remote(task["id"], DEMO_QUESTION, {}))
    result = finished_search(orch, sid)
    status = ray.get(orch.get_status.remote(task["id"], 0))
    yield {
        "orch": orch,
        "task": task,
        "result": result,
        "claims": {c["claim_text"]: c for c in status["claims"]},
    }
    ray.kill(orch)


def _claim(demo: dict[str, Any], name: str) -> dict[str, Any]:
    found = [demo["claims"][t] for t in PLANTED[name] if t in demo["claims"]]
    assert found, f"planted fact {name} is not a claim"
    return found[0]


@pytest.mark.parametrize("name", list(PLANTED))
def test_every_planted_fact_is_a_claim(demo: dict[str, Any], name: str) -> None:
    assert _claim(demo, name)["claim_text"] in PLANTED[name]


def test_the_search_reports_its_facets(demo: dict[str, Any]) -> None:
    facets = demo["result"]["metrics"]["facets"]
    assert [f["name"] for f in facets] == INTERVENTION_FACET_NAMES
    assert all(f["fragments"] >= 3 for f in facets)
    assert sum(f["new_claims"] for f in facets) == demo["result"]["metrics"]["new_claims"]


@pytest.mark.parametrize("name", CONTRADICTED)
def test_planted_contradictions_are_refuted_by_another_source(
    demo: dict[str, Any], name: str
) -> None:
    claim = _claim(demo, name)
    own = claim["source_domain"]
    refuting_domains = {u.split("/corpus/")[1].split("/")[0] for u in claim["refuting_urls"]}
    assert refuting_domains - {own}, f"{name}: refuted by {refuting_domains}, own {own}"


@pytest.mark.parametrize("name", ["A1", "A2", "A3", "A4"])
def test_agreements_are_never_refuted(demo: dict[str, Any], name: str) -> None:
    claim = _claim(demo, name)
    assert claim["refuting"] == 0
    assert claim["supporting"] >= 1
