"""A pulled reranker re-orders each facet's best passages in a search (decision 0047)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import ray

from lyra.actors.orchestrator import Orchestrator
from lyra.config.settings import Settings
from lyra.jobs.models_pull import pull_model
from lyra.pipelines.evidence.facets import question_facets
from tests.conftest import DEMO_QUESTION, finished_search, make_settings
from tests.stand_in_hub import Repo, StandInHub, serve_hub
from tests.test_models_pull import RERANKER, RERANKER_COMMIT, reranker_folder


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """A home where `lyra models pull reranker` ran before Lyra started."""
    home = tmp_path_factory.mktemp("rerank-home")
    hub = StandInHub()
    folder = reranker_folder(tmp_path_factory.mktemp("hub") / "reranker")
    hub.repos[RERANKER] = Repo.from_folder(folder, RERANKER_COMMIT)
    with serve_hub(hub):
        pull_model(
            home, "reranker", model_id=RERANKER, revision=RERANKER_COMMIT, endpoint=hub.url,
            token=False, hf_cache=home / "hf-cache",
        )  # fmt: skip
    return make_settings(home)


@pytest.fixture(scope="module")
def orch(settings: Settings) -> Iterator[Any]:
    handle = Orchestrator.options(
        name="orchestrator", namespace=settings.ray.namespace, get_if_exists=True
    ).remote(settings)
    yield handle
    ray.kill(handle)


@pytest.mark.ray
@pytest.mark.usefixtures("ray_session")
def test_a_search_ranks_each_facets_best_passages_with_the_pulled_reranker(
    orch: Any, settings: Settings
) -> None:
    task = ray.get(orch.create_task.remote(DEMO_QUESTION, {}))
    sid = ray.get(orch.start_search.remote(task["id"], DEMO_QUESTION, {}))
    result = finished_search(orch, sid)
    metrics = result["metrics"]
    assert result["status"] == "satisfied"
    assert metrics["reranker"] == f"{RERANKER}@{RERANKER_COMMIT[:12]}"
    # One call for the six facets, each re-ordering its 20 best of 187 fragments.
    facets = question_facets(DEMO_QUESTION)
    assert [f["name"] for f in metrics["facets"]] == [f.name for f in facets]
    assert metrics["reranked_pairs"] == len(facets) * settings.search.rerank_depth == 120
    assert sum(f["fragments"] for f in metrics["facets"]) == metrics["useful_fragments"]
