"""A planted corpus on another question finds every fact on every facet (issue 12 item 3).

tests/corpora/vitamin_d: six sources on vitamin D and fractures, written so that the
claim and stance rules are not only measured on the corpus they were developed on
(examples/corpus). One search of its question: every planted fact (efficacy, safety,
dosage, who should not take it, comparison with alternatives) becomes a claim, and the
contradictions the rules can see are refuted by a source other than the claim's own.
The one contradiction found by no rule today is listed in the corpus's README.txt.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray

from lyra.actors.orchestrator import Orchestrator
from tests.conftest import finished_search, make_settings

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

CORPUS = Path(__file__).parent / "corpora" / "vitamin_d"
QUESTION = "Does vitamin D supplementation prevent fractures in older adults?"
# Each planted fact as a piece of its claim's text, with its facet.
FACTS = {
    "efficacy: pooled trials": "vitamin D at 800 IU or more reduced hip fractures by 30 percent",
    "efficacy: nursing homes": "reduced hip fractures by 43 percent",
    "efficacy: review": "did not reduce hip fractures in people aged 65 and older",
    "efficacy: alone": "had no effect on the risk of fracture",
    "efficacy: alone, blog": "lowered the risk of any fracture by 12 percent",
    "safety: falls": "had 15 percent more falls than women given placebo",
    "safety: fractures after a dose": "Fractures were also 26 percent more frequent",
    "safety: hypercalcaemia": "Too much vitamin D causes hypercalcaemia",
    "safety: kidney stones": "raised the risk of kidney stones by 17 percent",
    "safety: kidneys, blog": "safe for the kidneys and do not cause kidney stones",
    "safety: thiazides": "Thiazide diuretics taken with vitamin D and calcium",
    "dosage: 800 IU": "The recommended daily intake of vitamin D for adults over 70 is 800 IU",
    "dosage: 400 IU": "The recommended daily intake of vitamin D for adults over 70 is 400 IU",
    "dosage: upper level": "The tolerable upper intake level for adults is 4,000 IU per day",
    "dosage: with a meal": "Take vitamin D with a meal that contains some fat",
    "dosage: annual dose": "reduced the number of falls in women over 70",
    "population: sarcoidosis": "People with sarcoidosis or other granulomatous diseases should not",
    "population: nursing homes": "Residents of nursing homes benefit most from supplements",
    "population: healthy adults": "not recommended for fracture prevention in healthy adults",
    "comparison: bisphosphonates": "Bisphosphonates such as alendronate reduce hip fractures",
    "comparison: D3 and D2": "Vitamin D3 (colecalciferol) raises blood levels more than",
    "comparison: price": "Vitamin D drops are cheaper than most prescription medicines",
}
# (piece of the claim, domain whose fragment must refute it)
REFUTED = {
    "hip fractures, review": ("did not reduce hip fractures in people aged 65", "ods.nih.gov"),
    "hip fractures, pooled": ("reduced hip fractures by 30 percent", "bonehealth.example"),
    "800 IU": ("adults over 70 is 800 IU", "pharmacist.example"),
    "400 IU": ("adults over 70 is 400 IU", "ods.nih.gov"),
    "kidneys": ("safe for the kidneys", "dailynews.example"),
    "falls, trial": ("had 15 percent more falls", "bonehealth.example"),
    "falls, blog": ("reduced the number of falls", "trials.example"),
}


@pytest.fixture(scope="module")
def search(lyra_home: Path) -> Iterator[dict[str, Any]]:
    settings = make_settings(lyra_home, corpus=CORPUS)
    orch = Orchestrator.options(name="orchestrator", namespace=settings.ray.namespace).remote(
        settings
    )
    task = ray.get(orch.create_task.remote(QUESTION, {}))
    sid = ray.get(orch.start_search.remote(task["id"], QUESTION, {}))
    result = finished_search(orch, sid)
    status = ray.get(orch.get_status.remote(task["id"], 0))
    yield {"result": result, "claims": status["claims"]}
    ray.kill(orch)


def _claim(search: dict[str, Any], piece: str) -> dict[str, Any]:
    found = [c for c in search["claims"] if piece in c["claim_text"]]
    assert len(found) == 1, f"{piece!r}: {len(found)} claims"
    return found[0]


def test_every_source_is_read(search: dict[str, Any]) -> None:
    assert search["result"]["status"] == "satisfied"
    assert {c["source_domain"] for c in search["claims"]} == {
        "ods.nih.gov",
        "trials.example",
        "bonehealth.example",
        "dailynews.example",
        "pharmacist.example",
        "nice.org.uk",
    }


@pytest.mark.parametrize("name", list(FACTS))
def test_every_planted_fact_is_a_claim(search: dict[str, Any], name: str) -> None:
    assert FACTS[name] in _claim(search, FACTS[name])["claim_text"]


@pytest.mark.parametrize("name", list(REFUTED))
def test_planted_contradictions_are_refuted_by_the_other_source(
    search: dict[str, Any], name: str
) -> None:
    piece, domain = REFUTED[name]
    claim = _claim(search, piece)
    # a local page's URL ends in <domain>/<file>
    refuting_domains = {u.split("/")[-2] for u in claim["refuting_urls"]}
    assert domain in refuting_domains
    assert claim["source_domain"] != domain
