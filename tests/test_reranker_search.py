"""A pulled reranker re-orders each facet's best passages in a search (decision 0047)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import onnx
import pytest
import ray
from onnx import TensorProto, helper, numpy_helper

from lyra.actors.orchestrator import Orchestrator
from lyra.config.settings import Settings
from lyra.jobs.evidence_steps import choose_passages
from lyra.jobs.models_pull import pull_model
from lyra.jobs.search_context import SearchContext
from lyra.pipelines.errors import DEGRADED_PREFIX
from lyra.pipelines.evidence.facets import (
    Facet,
    facet_scores,
    question_facets,
    rerank_heads,
    select_across_facets,
)
from lyra.pipelines.evidence.model_registry import active_model
from lyra.pipelines.evidence.reranker import CrossEncoderReranker
from tests.conftest import DEMO_QUESTION, finished_search, make_settings
from tests.stand_in_hub import Repo, StandInHub, serve_hub
from tests.test_models_pull import RERANKER, RERANKER_COMMIT, reranker_folder

MODEL_ID = f"{RERANKER}@{RERANKER_COMMIT[:12]}"


def _home_with_reranker(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A home where `lyra models pull reranker` ran before Lyra started."""
    home = tmp_path_factory.mktemp(name)
    hub = StandInHub()
    folder = reranker_folder(tmp_path_factory.mktemp("hub") / "reranker")
    hub.repos[RERANKER] = Repo.from_folder(folder, RERANKER_COMMIT)
    with serve_hub(hub):
        pull_model(
            home, "reranker", model_id=RERANKER, revision=RERANKER_COMMIT, endpoint=hub.url,
            token=False, hf_cache=home / "hf-cache",
        )  # fmt: skip
    return home


def _stack(settings: Settings) -> Iterator[Any]:
    handle = Orchestrator.options(
        name="orchestrator", namespace=settings.ray.namespace, get_if_exists=True
    ).remote(settings)
    yield handle
    ray.kill(handle)


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return make_settings(_home_with_reranker(tmp_path_factory, "rerank-home"))


@pytest.fixture(scope="module")
def orch(settings: Settings) -> Iterator[Any]:
    yield from _stack(settings)


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
    assert metrics["reranker"] == MODEL_ID
    # One call for the six facets, each re-ordering its 20 best of 187 fragments.
    facets = question_facets(DEMO_QUESTION)
    assert [f["name"] for f in metrics["facets"]] == [f.name for f in facets]
    assert metrics["reranked_pairs"] == len(facets) * settings.search.rerank_depth == 120
    assert sum(f["fragments"] for f in metrics["facets"]) == metrics["useful_fragments"]


# Each a sentence that could be a claim: passages that could not are left out before
# the facets rank them when there are more passages than the budget (decision 0083).
TEXTS = [
    "Coffee is linked with heart health in adults of all ages.",
    "Coffee raises blood pressure for a few hours after a cup.",
    "The dose of caffeine in one cup of coffee is about 95 mg.",
    "Heart attack risk is lower with daily coffee in most studies.",
    "Coffee dose and timing during the day are what matter most.",
    "Aspirin reduces the risk of heart attack in adults over 50.",
    "Regular exercise lowers blood pressure by 5 to 8 mmHg.",
]


@pytest.mark.ray
@pytest.mark.usefixtures("ray_session")
async def test_the_passages_chosen_follow_the_rerankers_logits(
    orch: Any, settings: Settings
) -> None:
    """choose_passages sends each facet's head, as (facet query, heading + text), to the
    InferenceActor's reranker, and picks what select_across_facets picks with the
    logits the same model gives those pairs; without them it would pick otherwise."""
    inference = await orch.inference_handle.remote()

    async def call(actor: str, method: str, *args: Any) -> Any:
        assert actor == "inference"
        return await getattr(inference, method).remote(*args)

    ctx = SearchContext(
        settings=settings, task={}, search_id="s_test", query="coffee and the heart",
        options={}, call=call, progress=lambda *_: None, stop_requested=lambda: False,
        pages_left=10, deadline=0.0, domain_rules={}, corpus_cache={}, fetch_url=call,
    )  # fmt: skip
    facets = [
        Facet("question", "coffee heart", "question"),
        Facet("dosage", "coffee dose", "standard"),
    ]
    fragments = [
        {"id": f"f{i}", "fragment_type": "paragraph", "heading_context": "Coffee",
         "text_content": text, "_domain": "a.example"}
        for i, text in enumerate(TEXTS)
    ]  # fmt: skip
    job = SimpleNamespace(ctx=ctx, facets=facets, metrics={}, facet_fragments={})
    s = settings.search
    s = s.model_copy(update={"max_passages_per_search": 4, "rerank_depth": 3})
    ctx.settings = settings.model_copy(update={"search": s})

    useful = await choose_passages(job, fragments, np.zeros((len(TEXTS), 0)), None)

    texts = [f"Coffee\n{t}" for t in TEXTS]
    rank = {"bm25_weight": s.bm25_weight, "embedding_weight": s.embedding_weight, "bias": None}
    heads = rerank_heads(facet_scores(facets, texts, None, None, **rank), 3)
    entry = active_model(settings.home_dir, "reranker")
    assert entry is not None
    logits = CrossEncoderReranker(entry.path).score(
        [(f.query, texts[j]) for f, head in zip(facets, heads, strict=True) for j in head]
    )
    by_facet = [
        dict(zip(heads[0], logits[:3], strict=True)),
        dict(zip(heads[1], logits[3:], strict=True)),
    ]
    expected = select_across_facets(
        facets,
        texts,
        None,
        None,
        budget=4,
        min_k=s.kneedle_min,
        max_k=s.kneedle_max,
        rerank=by_facet,
        **rank,
    )
    plain = select_across_facets(facets, texts, None, None, budget=4, min_k=s.kneedle_min, **rank)
    assert [f["id"] for f in useful] == [f"f{i}" for i in expected.indices]
    assert [f["_facet"] for f in useful] == [expected.facet_of[i] for i in expected.indices]
    assert expected.indices != plain.indices
    assert (job.metrics["reranker"], job.metrics["reranked_pairs"]) == (MODEL_ID, 6)
    assert job.facet_fragments == expected.per_facet


def _break_output(model_path: Path) -> None:
    """The graph still loads, but answers one number per pair instead of a column: a
    model that fails when it is asked, not when it loads."""
    model = onnx.load(str(model_path))
    graph = model.graph
    name = graph.output[0].name
    for node in graph.node:
        node.output[:] = [f"{o}_2d" if o == name else o for o in node.output]
    graph.initializer.append(numpy_helper.from_array(np.array([1], dtype=np.int64), "axes_1"))
    graph.node.append(helper.make_node("Squeeze", [f"{name}_2d", "axes_1"], [name]))
    del graph.output[:]
    graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch"]))
    onnx.save(model, str(model_path))


@pytest.fixture(scope="module")
def broken_orch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    home = _home_with_reranker(tmp_path_factory, "broken-rerank-home")
    entry = active_model(home, "reranker")
    assert entry is not None
    _break_output(entry.path / "model.onnx")
    yield from _stack(make_settings(home))


@pytest.mark.ray
@pytest.mark.usefixtures("ray_session")
def test_a_reranker_that_fails_leaves_the_search_ranked_without_it(broken_orch: Any) -> None:
    task = ray.get(broken_orch.create_task.remote(DEMO_QUESTION, {}))
    sid = ray.get(broken_orch.start_search.remote(task["id"], DEMO_QUESTION, {}))
    result = finished_search(broken_orch, sid)
    assert result["status"] == "satisfied"
    assert "reranker" not in result["metrics"]
    assert [w for w in result["warnings"] if "reranker" in w] == [
        f"{DEGRADED_PREFIX}reranker: {MODEL_ID} failed (IndexError); passages ranked without it"
    ]
