"""Lyra's own metrics on Ray's Prometheus endpoint (`ray.util.metrics`).

Ray exports every metric a worker records on its node's metrics port (the one `lyra
doctor`, `lyra instances` and `get_status`'s `metrics.instance.metrics_export_port`
name), with the prefix ``ray_``; the Ray dashboard's Metrics view and any Prometheus
read them there. What a person watching a search wants to see:

- ``lyra_search_progress`` (gauge, 0..1, per task and search) and ``lyra_searches_running``;
- ``lyra_actor_restarts`` (counter, per actor name): crashes the supervisor recovered;
- ``lyra_inference_batch_size`` and ``lyra_inference_latency_seconds`` (histograms, per
  kind: embed, nli), and ``lyra_inference_items`` (counter);
- ``lyra_graph_rows_written`` (counter, per table): the graph write rate;
- per site, from the fetch layer (jobs/site_fetcher.py): ``lyra_fetch_requests``
  (counter, per domain and status class: the request rate), ``lyra_fetch_queue_depth``
  (gauge: fetches waiting for the site's politeness slot), ``lyra_fetch_circuit_state``.

Each metric object is made once per process, on first use; outside Ray (a unit test
calling the code directly) recording does nothing.
"""

from __future__ import annotations

import functools
from typing import Any

import ray

BATCH_BOUNDARIES = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0]
LATENCY_BOUNDARIES = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0]


@functools.cache
def _metric(kind: str, name: str, description: str, tags: tuple[str, ...]) -> Any:
    from ray.util import metrics

    if kind == "counter":
        return metrics.Counter(name, description=description, tag_keys=tags)
    if kind == "gauge":
        return metrics.Gauge(name, description=description, tag_keys=tags)
    boundaries = BATCH_BOUNDARIES if name.endswith("batch_size") else LATENCY_BOUNDARIES
    return metrics.Histogram(name, description=description, boundaries=boundaries, tag_keys=tags)


def _on() -> bool:
    return ray.is_initialized()


def search_progress(task_id: str, search_id: str, progress: float) -> None:
    if _on():
        _metric(
            "gauge",
            "lyra_search_progress",
            "Progress of a search, 0 to 1.",
            ("task_id", "search_id"),
        ).set(float(progress), tags={"task_id": task_id, "search_id": search_id})


def searches_running(count: int) -> None:
    if _on():
        _metric("gauge", "lyra_searches_running", "Searches running now.", ()).set(float(count))


def actor_restart(actor: str) -> None:
    if _on():
        _metric(
            "counter",
            "lyra_actor_restarts",
            "Crashes of a Lyra actor that its supervisor recovered from.",
            ("actor",),
        ).inc(1, tags={"actor": actor})


def inference_batch(kind: str, size: int, seconds: float) -> None:
    if not _on():
        return
    tags = {"kind": kind}
    _metric(
        "histogram", "lyra_inference_batch_size", "Items per inference call.", ("kind",)
    ).observe(float(size), tags=tags)
    _metric(
        "histogram",
        "lyra_inference_latency_seconds",
        "Seconds per inference call.",
        ("kind",),
    ).observe(seconds, tags=tags)
    _metric("counter", "lyra_inference_items", "Texts or pairs inferred.", ("kind",)).inc(
        float(size), tags=tags
    )


def graph_rows_written(table: str, rows: int) -> None:
    if _on() and rows:
        _metric(
            "counter",
            "lyra_graph_rows_written",
            "Rows the graph actor wrote (offered; duplicates are ignored by id).",
            ("table",),
        ).inc(float(rows), tags={"table": table})
