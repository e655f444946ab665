"""Shared fixtures: one session-scoped local Ray, settings in tmp dirs, the Lyra stack.

Every stack gets its own Ray namespace and database file, so named actors of one test
module never meet another's; every LYRA_HOME reads the embedder's ONNX export that setup
made for the installation (`lyra models prepare`), so no test home exports its own.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray

from lyra.actors.instance import loopback_only
from lyra.actors.runtime import PRELOADED_MODULES
from lyra.config.settings import Settings, load_settings
from lyra.jobs.search_context import SearchContext

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "examples" / "corpus"
SHARED = REPO.parent / "shared"
DEMO_QUESTION = "Does moderate coffee consumption affect cardiovascular health?"
# The sure rows of the contradictions view after one search of the demo question over
# examples/corpus: (refuted claim, domain of the refuting page), the three planted
# contradictions of examples/corpus/EXPECTED.md §4 (C2's "5 hours" claim is one claim
# for both pages).
DEMO_CONTRADICTIONS = {
    ("Moderate coffee consumption raises long-term blood pressure in healthy adults.", "nih.gov"),
    (
        "Moderate coffee consumption does not raise long-term blood pressure in healthy adults.",
        "healthblog.example",
    ),
    ("The half-life of caffeine in healthy adults is about 12 hours.", "nih.gov"),
    ("The half-life of caffeine in healthy adults is about 12 hours.", "en.wikipedia.org"),
    ("The half-life of caffeine in healthy adults is about 5 hours.", "healthblog.example"),
    (
        "Switching from unfiltered to filtered coffee reduces serum cholesterol levels.",
        "healthblog.example",
    ),
    (
        "Switching from unfiltered to filtered coffee increases serum cholesterol levels.",
        "cochranelibrary.com",
    ),
}

# The packaged stance model also calls some loosely related hedges "refutes", with
# confidence below this (0.62 at most in the demo); the planted contradictions (the
# lexical veto at its cap, 0.9, Platt-scaled to 0.69, decisions 0043 and 0079) are the
# only rows at or above it (docs/stance-model.md, "On examples/corpus").
SURE_REFUTATION = 0.65


def sure_contradictions(columns: list[str], rows: list[list[Any]]) -> set[tuple[str, str]]:
    """(claim, refuting domain) of the contradictions view's rows at SURE_REFUTATION+."""
    at = {name: columns.index(name) for name in ("claim_text", "domain", "nli_confidence")}
    return {
        (r[at["claim_text"]], r[at["domain"]])
        for r in rows
        if r[at["nli_confidence"]] >= SURE_REFUTATION
    }


os.environ.setdefault("RAY_AUTH_MODE", "disabled")


METRICS_REPORT_MS = 2000


@pytest.fixture(scope="session")
def ray_session() -> Iterator[None]:
    """One local Ray for the whole session (ARCHITECTURE §9)."""
    if not ray.is_initialized():
        with loopback_only():
            ray.init(
                # "local": a new Ray even if `ray start` left a cluster address behind in
                # /tmp/ray (the two-node test starts one), as ensure_ray does.
                address="local",
                num_cpus=2,
                include_dashboard=False,
                namespace="lyra-tests",
                log_to_driver=False,
                _node_ip_address="127.0.0.1",
                # As `ensure_ray` starts a local Ray (actors/runtime.py), but exporting
                # metrics every 2 s instead of Ray's 10 s: the Prometheus test waits
                # for two exports in a row to agree (tests/test_metrics_export.py).
                _system_config={
                    "preload_python_modules": PRELOADED_MODULES,
                    "metrics_report_interval_ms": METRICS_REPORT_MS,
                },
            )
    yield
    ray.shutdown()


@pytest.fixture(scope="session")
def lyra_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A LYRA_HOME shared by the session (holds the exported embedding model)."""
    return tmp_path_factory.mktemp("lyra-home")


def serve_env(home: Path) -> dict[str, str]:
    """The environment a user's `lyra serve` or `lyra` CLI runs with: LYRA_HOME and a
    LYRA_CONFIG of its own (no dashboard, no LLM), nothing inherited from this run."""
    cfg = home / "user.yaml"
    cfg.write_text("ray:\n  include_dashboard: false\nllm:\n  ollama_host: http://127.0.0.1:9\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LYRA_", "RAY_ADDRESS"))}
    env.update({"LYRA_HOME": str(home), "LYRA_CONFIG": str(cfg), "RAY_AUTH_MODE": "disabled"})
    return env


async def refused_create_task(client: Any, within_s: float) -> dict[str, str]:
    """The error object of a `create_task` the server refuses, answered within `within_s`."""
    started = time.monotonic()
    res = await client.call_tool("create_task", {"query": "does coffee raise blood pressure"})
    assert time.monotonic() - started < within_s
    assert res.is_error is True
    error: dict[str, str] = json.loads(res.content[0].text)["error"]
    return error


def step_context(settings: Settings, query: str, call: Any) -> SearchContext:
    """The context of one search of task "task-1" for a test of its evidence steps:
    every actor call (graph, inference, fetch) answered by ``call``."""
    return SearchContext(
        settings=settings, task={"id": "task-1", "tag": "t"}, search_id="s-1",
        query=query, options={}, call=call,
        progress=lambda *_: None, stop_requested=lambda: False, pages_left=10,
        deadline=time.monotonic() + 60, domain_rules={}, corpus_cache={}, fetch_url=call,
    )  # fmt: skip


def make_settings(home: Path, corpus: Path | None = CORPUS, **over: Any) -> Settings:
    """Settings for one isolated stack: own namespace and database file."""
    tag = uuid.uuid4().hex[:8]
    ray_cfg = {"namespace": f"lyra-{tag}", "include_dashboard": False}
    base: dict[str, Any] = {
        "home": home,
        "ray": ray_cfg,
        "storage": {"db_filename": f"graph-{tag}.duckdb"},
        "network": {"allow_private_targets": True, "allowed_hosts": ["127.0.0.0/8"]},
        "engines": {"local": {"enabled": True, "paths": [str(corpus)] if corpus else []}},
        "llm": {"ollama_host": "http://127.0.0.1:9", "enabled": True},
    }
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            base[key] = {**base[key], **value}
        else:
            base[key] = value
    return load_settings(**base)


def finished_search(orch: Any, sid: str, timeout: float = 300.0) -> dict[str, Any]:
    """The result of search ``sid`` on orchestrator ``orch``, polled until it ends."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        polled = ray.get(orch.wait_search.remote(sid, 5.0))
        if polled["done"]:
            return dict(polled["result"])
    raise AssertionError(f"search {sid} did not finish in {timeout:.0f} s")


@pytest.fixture(scope="module")
def stack_settings(lyra_home: Path) -> Settings:
    """Settings of the module's stack over the demo corpus."""
    return make_settings(lyra_home)
