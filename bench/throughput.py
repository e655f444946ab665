"""Whole-pipeline throughput: K concurrent searches over a loopback frozen web.

    .venv/bin/python bench/throughput.py [--pages 100] [--domains 5] [--qps 2]
                                         [--k 1 4 16] [--server stdio|inprocess]
                                         [--json PATH]

The frozen web is bench/fetch.py's mini-web (D loopback sites 127.0.0.2, ...; each
logs every request on its own clock), run in a child process of its own so that this
process is only the MCP client, serving short articles with varied, informative
sentences, so every stage has real work: fetch → extract → embed → claims → stance →
graph. For each K, N pages (spread evenly over the sites) are split round-robin over K
searches, each in its own task, started together through the MCP tools of `lyra
serve`, run in its own process and driven over stdio by the official client as an MCP
client runs it (`--server inprocess`: the same server code in this process, sharing
the interpreter with the client), on a local Ray of 2 CPUs. Each run
serves articles of its own, so no run finds an earlier run's texts (and their stored
vectors) in the graph.

Printed per K:
- wall time from the first `search` call to the last search's end, and whole-pipeline
  pages/min against the politeness bound: no polite crawler fetches N pages from D
  sites at q requests/s in less than N/(D·q) seconds (robots.txt adds one request per
  site), so bound pages/min = 60·D·q; the ratio bound time / wall time is the figure
  of record (issue 13: ≥ 0.9 at K = 4);
- `get_status` and `query_graph` latency (p50 / p95 over calls every 0.25 s while the
  searches run);
- inference: texts embedded and pairs judged per second of inference time, and the
  mean batch size of each (from Lyra's metrics on Ray's Prometheus endpoint);
- peak PSS of this process and every process it started (Ray and its workers, the
  sites' process), sampled twice a second by the sites' process;
- the smallest gap between two requests on any site (must be at least 1/q - 50 ms).

Between runs the bench waits for Ray to export the metrics (about 10 s) and for the
sites' politeness gap; the fetchers stay, as they would on a server.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import psutil
import ray
import yaml
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetch as mini_web

from lyra.actors.runtime import ensure_ray
from lyra.config.settings import load_settings
from lyra.mcp_bridge.server import build_server

SUBJECTS = ["coffee", "green tea", "daily walking", "vitamin D", "intermittent fasting"]
OUTCOMES = ["blood pressure", "sleep duration", "type 2 diabetes", "bone density", "LDL"]
# Each run serves articles of its own: a run that found the texts of an earlier one
# would take their stored vectors and measure a cache, not the pipeline.
RUN = {"salt": ""}
EXPORT_WAIT_S = 12.0  # Ray exports workers' metrics every few seconds
POLL_S = 0.25
# Reading every process's smaps costs CPU (about 2 s of a K = 4 run at 0.5 s): the peak of
# a run whose processes live for its whole length is found at a coarser step.
PSS_INTERVAL_S = 2.0
# A search's stages in pipeline order (its metrics' stage_seconds).
STAGES = ["collect", "rank", "store", "embed", "passages", "claims", "stance", "finish"]


def article(host: str, path: str) -> bytes:
    """A short article of informative, varied sentences (seeded by host and path)."""
    rng = random.Random(f"{RUN['salt']}{host}{path}")
    sentences = []
    for _ in range(8):
        subject, outcome = rng.choice(SUBJECTS), rng.choice(OUTCOMES)
        n, pct = rng.randint(40, 4000), rng.randint(3, 40)
        verb = rng.choice(["lowered", "raised", "did not change", "slightly reduced"])
        sentences.append(
            f"In a trial of {n} adults, {subject} {verb} {outcome} by {pct} percent "
            f"over {rng.randint(2, 20)} weeks compared with placebo."
        )
    body = "".join(f"<p>{s}</p>" for s in sentences)
    head = f"<!doctype html><html><head><title>{subject} and {outcome}</title></head>"
    title = f"<h1>{subject} and {outcome}</h1>"
    return f"{head}<body><article>{title}{body}</article></body></html>".encode()


def scrape(port: int) -> dict[tuple[str, str], float]:
    """(metric, kind) → value of Lyra's inference counters on the metrics endpoint."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
        text = resp.read().decode()
    out: dict[tuple[str, str], float] = {}
    for line in text.splitlines():
        for name in (
            "ray_lyra_inference_items_total",
            "ray_lyra_inference_latency_seconds_sum",
            "ray_lyra_inference_latency_seconds_count",
        ):
            if line.startswith(name + "{") and 'kind="' in line:
                kind = line.split('kind="', 1)[1].split('"', 1)[0]
                key = (name, kind)
                out[key] = out.get(key, 0.0) + float(line.rsplit(" ", 1)[1])
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _web_child(conn: Connection, domains: int, salt: str, watched: int) -> None:
    """The loopback sites and the PSS sampler, in a process of their own: the bench's
    process is then only the MCP client, as a user's client is, and its tool latencies
    do not include the sites' threads or the sampler's reads of every process's smaps
    (a third to half of the slow calls' time when they shared the interpreter)."""
    mini_web._page = article
    RUN["salt"] = salt
    sites = mini_web._start_sites(domains)
    root = psutil.Process(watched)
    sampler = mini_web._PssSampler(
        lambda: [root, *root.children(recursive=True)], interval=PSS_INTERVAL_S
    )
    conn.send([(s.host, s.port) for s in sites])
    try:
        while True:
            command = conn.recv()
            if command == "pss_start":
                sampler.__enter__()
                conn.send(None)
            elif command == "pss_stop":
                sampler.__exit__()
                conn.send(sampler.peak / mini_web.MiB)
            elif command == "min_gap":
                conn.send(min(s.min_gap() for s in sites))
            elif command == "span":
                times = [t for s in sites for t, _ in s.arrivals]
                conn.send((min(times), max(times)) if times else None)
            else:
                conn.send(None)
                return
    finally:
        for site in sites:
            site.close()


class LoopbackWeb:
    """D loopback sites serving this run's articles, and a sampler of the peak summed
    PSS of the bench's process tree, run by a child process (`_web_child`)."""

    def __init__(self, domains: int, salt: str) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(
            target=_web_child, args=(child, domains, salt, os.getpid()), daemon=True
        )
        self._proc.start()
        self.sites = [_SiteAddress(host, port) for host, port in self._conn.recv()]

    def _ask(self, command: str) -> Any:
        self._conn.send(command)
        return self._conn.recv()

    def start_pss(self) -> None:
        self._ask("pss_start")

    def peak_pss_mib(self) -> float:
        return float(self._ask("pss_stop"))

    def min_gap(self) -> float:
        """Smallest time between two requests on one site, on the sites' own clocks."""
        return float(self._ask("min_gap"))

    def request_span(self) -> tuple[float, float] | None:
        """time.monotonic() of the first and the last request on any site since start."""
        span = self._ask("span")
        return (float(span[0]), float(span[1])) if span else None

    def close(self) -> None:
        self._ask("close")
        self._proc.join(timeout=10)


@dataclass(frozen=True)
class _SiteAddress:
    host: str
    port: int

    def url(self, path: str) -> str:
        return f"http://{self.host}:{self.port}{path}"


def tree_cpu_seconds() -> dict[int, tuple[str, float]]:
    """(kind, CPU seconds so far, user + system) of this process and each descendant, by
    pid. The kind is Ray's process title up to the method (``ray::InferenceActor``),
    else the executable's name (``python``: the loopback sites' process); this process
    (the MCP client, and with ``--server inprocess`` the server) is ``bench``."""
    me = psutil.Process()
    out: dict[int, tuple[str, float]] = {}
    for proc in [me, *me.children(recursive=True)]:
        try:
            times = proc.cpu_times()
            title = " ".join(proc.cmdline()[:1]) if proc.pid != me.pid else "bench"
        except psutil.Error:  # exited while listed
            continue
        kind = title.split(".")[0] if title.startswith("ray::") else Path(title).name
        out[proc.pid] = (kind or "?", times.user + times.system)
    return out


def cpu_figures(
    before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]], bound_s: float
) -> dict[str, Any]:
    """CPU the run used in every process (Lyra, Ray, the sites, the client), by kind of
    process, and the best ratio to the bound these cores allow even with perfect overlap:
    bound / (cpu / cores). A process that exited during the run is not counted, so this
    is a lower bound."""
    by_kind: dict[str, float] = {}
    for pid, (kind, t) in after.items():
        by_kind[kind] = by_kind.get(kind, 0.0) + t - before.get(pid, ("", 0.0))[1]
    used = sum(by_kind.values())
    cores = len(os.sched_getaffinity(0))
    floor = used / cores
    return {
        "cpu_s": round(used, 1),
        "cpu_s_by_process": {
            k: round(v, 1) for k, v in sorted(by_kind.items(), key=lambda kv: -kv[1]) if v >= 0.05
        },
        "cores": cores,
        "cpu_floor_s": round(floor, 1),
        "best_ratio_on_these_cores": round(min(1.0, bound_s / floor), 3) if floor else 1.0,
    }


async def run_k(client: Client, sites: list[Any], pages: int, k: int, qps: float) -> dict[str, Any]:
    urls = mini_web._urls(sites, pages)
    chunks = [urls[j::k] for j in range(k)]
    tasks = []
    for j in range(k):
        created = await client.call_tool(
            "create_task",
            {"query": f"throughput {k}/{j}", "config": {"budget": {"max_pages": pages}}},
        )
        tasks.append(created.structured_content["task_id"])
    latencies: dict[str, list[float]] = {"get_status": [], "query_graph": []}
    running = True

    async def poll() -> None:
        while running:
            started = time.perf_counter()
            await client.call_tool("get_status", {"task_id": tasks[0]})
            latencies["get_status"].append(time.perf_counter() - started)
            started = time.perf_counter()
            await client.call_tool("query_graph", {"sql": "SELECT count(*) FROM pages"})
            latencies["query_graph"].append(time.perf_counter() - started)
            await asyncio.sleep(POLL_S)

    async def search(task_id: str, chunk: list[str]) -> dict[str, Any]:
        res = await client.call_tool(
            "search",
            {
                "task_id": task_id,
                "query": "What do trials say about these habits and health outcomes?",
                "options": {
                    "urls": chunk,
                    "engines": [],
                    "max_pages": len(chunk),
                    "wait_seconds": 0,
                },
            },
        )
        if res.is_error:
            raise RuntimeError(res.content[0].text)
        search_id = res.structured_content["search_id"]
        while True:
            st = await client.call_tool("get_status", {"task_id": task_id, "wait_seconds": 30})
            found = next(
                s for s in st.structured_content["searches"] if s["search_id"] == search_id
            )
            if found["status"] != "running":
                ends.append((time.perf_counter(), found["metrics"].get("stage_seconds", {})))
                return dict(found)

    ends: list[tuple[float, dict[str, float]]] = []
    poller = asyncio.create_task(poll())
    started = time.perf_counter()
    started_monotonic = time.monotonic()
    results = await asyncio.gather(*(search(t, c) for t, c in zip(tasks, chunks, strict=True)))
    wall = time.perf_counter() - started
    running = False
    await poller
    fetched = sum(int(r["metrics"].get("pages_fetched", 0)) for r in results)
    bound = pages / (len(sites) * qps)
    return {
        "k": k,
        "pages": pages,
        "pages_fetched": fetched,
        "statuses": sorted({r["status"] for r in results}),
        "wall_s": round(wall, 2),
        "bound_s": round(bound, 2),
        "pages_per_min": round(fetched / wall * 60, 1),
        "bound_pages_per_min": round(len(sites) * qps * 60, 1),
        "ratio_to_bound": round(bound / wall, 3),
        # time.monotonic() at the first search call: the sites' first and last requests
        # are placed against it (the fetching's own span, and the tail after it)
        "started_monotonic": started_monotonic,
        # The stance pairs the searches judged, and when each search ended: the last
        # one's tail after its last page is what keeps a run from the bound.
        "stance_pairs": sum(int(r["metrics"].get("edges_added", 0)) for r in results),
        "search_ends_s": sorted(round(end - started, 2) for end, _ in ends),
        # Where the last search's time went, stage by stage (its tail: after "collect").
        "last_search_stage_s": max(ends, key=lambda e: e[0])[1] if ends else {},
        "get_status_ms": {
            "p50": round(1000 * statistics.median(latencies["get_status"]), 1),
            "p95": round(1000 * percentile(latencies["get_status"], 0.95), 1),
            "calls": len(latencies["get_status"]),
        },
        "query_graph_ms": {
            "p50": round(1000 * statistics.median(latencies["query_graph"]), 1),
            "p95": round(1000 * percentile(latencies["query_graph"], 0.95), 1),
            "calls": len(latencies["query_graph"]),
        },
    }


def inference_figures(before: dict[Any, float], after: dict[Any, float]) -> dict[str, Any]:
    out = {}
    for kind in ("embed", "nli"):

        def delta(name: str, kind: str = kind) -> float:
            return after.get((name, kind), 0.0) - before.get((name, kind), 0.0)

        items = delta("ray_lyra_inference_items_total")
        seconds = delta("ray_lyra_inference_latency_seconds_sum")
        calls = delta("ray_lyra_inference_latency_seconds_count")
        out[kind] = {
            "items": int(items),
            "per_s": round(items / seconds, 1) if seconds else None,
            "mean_batch": round(items / calls, 1) if calls else None,
        }
    return out


@contextlib.asynccontextmanager
async def lyra_client(args: argparse.Namespace) -> AsyncIterator[tuple[Client, int]]:
    """An MCP client on a warmed Lyra, and the Prometheus port of its Ray.

    ``--server stdio`` (the default): `lyra serve` in its own process, driven over stdio
    as an MCP client runs it, with LYRA_HOME and LYRA_CONFIG; ``inprocess``: the same
    server code in this process (it then shares the interpreter with the client and the
    loopback sites, which adds to the tool latency measured).
    """
    home = Path(tempfile.mkdtemp(prefix="lyra-bench-throughput-"))
    config: dict[str, Any] = {
        "ray": {
            "namespace": "lyra-throughput",
            "num_cpus": 2,
            "include_dashboard": False,
            "share_instance": False,
        },
        "network": {"allow_private_targets": True, "allowed_hosts": ["127.0.0.0/8"]},
        "fetch": {"default_qps": args.qps},
        "llm": {"ollama_host": "http://127.0.0.1:9"},
        "task": {"default_max_pages": args.pages},
    }
    if args.server == "inprocess":
        settings = load_settings(home=home, **config)
        ensure_ray(settings)
        async with Client(build_server(settings)) as client:
            yield await _warm(client), ray._private.worker._global_node.metrics_export_port
        return
    user = home / "user.yaml"
    user.write_text(yaml.safe_dump(config))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LYRA_", "RAY_ADDRESS"))}
    env.update({"LYRA_HOME": str(home), "LYRA_CONFIG": str(user)})
    lyra = str(Path(sys.executable).with_name("lyra"))
    params = StdioServerParameters(command=lyra, args=["serve"], env=env)
    async with Client(params, read_timeout_seconds=300) as client:
        await _warm(client)
        task = await client.call_tool("create_task", {"query": "metrics port"})
        status = await client.call_tool(
            "get_status", {"task_id": task.structured_content["task_id"]}
        )
        yield client, int(status.structured_content["metrics"]["instance"]["metrics_export_port"])


async def _warm(client: Client) -> Client:
    """Start the actors and load the models, as a server that has answered before.

    create_task starts the actors; vector_search embeds its query, so it returns once
    the InferenceActor has loaded its models (a fresh LYRA_HOME exports the packaged
    embedder first, about 5 s of CPU that a server which has answered before has paid).
    """
    warm = await client.call_tool("create_task", {"query": "warm up"})
    assert warm.is_error is False, warm.content[0].text
    ready = await client.call_tool("vector_search", {"query": "warm up"})
    assert ready.is_error is False, ready.content[0].text
    return client


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    figures = []
    async with lyra_client(args) as (client, port):
        for i, k in enumerate(args.k):
            # The salt makes every run's articles its own, repeated K values included.
            web = LoopbackWeb(args.domains, f"run {i} K={k} ")
            try:
                await asyncio.sleep(EXPORT_WAIT_S)
                before = scrape(port)
                cpu_before = tree_cpu_seconds()
                web.start_pss()
                run = await run_k(client, web.sites, args.pages, k, args.qps)
                run["peak_pss_mib"] = round(web.peak_pss_mib(), 1)
                run["cpu"] = cpu_figures(cpu_before, tree_cpu_seconds(), run["bound_s"])
                await asyncio.sleep(EXPORT_WAIT_S)
                run["inference"] = inference_figures(before, scrape(port))
                run["min_gap_s"] = round(web.min_gap(), 4)
                span = web.request_span()
                begun = run.pop("started_monotonic")
                run["requests_s"] = (
                    [round(span[0] - begun, 2), round(span[1] - begun, 2)] if span else None
                )
            finally:
                web.close()
            figures.append(run)
            gs, qg = run["get_status_ms"], run["query_graph_ms"]
            inf = run["inference"]
            print(
                f"K={k:2d}: {run['pages_fetched']}/{args.pages} pages in {run['wall_s']:.1f} s "
                f"(bound {run['bound_s']:.1f} s): {run['pages_per_min']:.0f} pages/min, "
                f"{run['ratio_to_bound']:.2f} of the bound; get_status p50/p95 "
                f"{gs['p50']:.0f}/{gs['p95']:.0f} ms, "
                f"query_graph {qg['p50']:.0f}/{qg['p95']:.0f} ms; "
                f"embed {inf['embed']['per_s']} texts/s (batch {inf['embed']['mean_batch']}), "
                f"nli {inf['nli']['per_s']} pairs/s (batch {inf['nli']['mean_batch']}); "
                f"peak PSS {run['peak_pss_mib']:.0f} MiB; min gap {run['min_gap_s']:.3f} s; "
                f"CPU {run['cpu']['cpu_s']:.0f} s on {run['cpu']['cores']} cores, so at best "
                f"{run['cpu']['best_ratio_on_these_cores']:.2f} of the bound here; "
                f"status {run['statuses']}",
                flush=True,
            )
            print(
                f"       requests from {run['requests_s'][0]} to {run['requests_s'][1]} s; "
                f"searches ended at {run['search_ends_s']} s; "
                f"{run['stance_pairs']} stance pairs judged; the last one's stages (s): "
                + ", ".join(
                    f"{k} {run['last_search_stage_s'][k]}"
                    for k in STAGES
                    if k in run["last_search_stage_s"]
                )
            )
            top = list(run["cpu"]["cpu_s_by_process"].items())[:6]
            print("       CPU s by process: " + ", ".join(f"{k} {v:.1f}" for k, v in top))
            if run["min_gap_s"] < 1 / args.qps - mini_web.GAP_SLACK_S:
                raise SystemExit(f"politeness violated: min gap {run['min_gap_s']} s")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--domains", type=int, default=5)
    parser.add_argument("--qps", type=float, default=2.0)
    parser.add_argument("--k", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--server", choices=["stdio", "inprocess"], default="stdio")
    args = parser.parse_args()
    print(
        f"{args.pages} pages over {args.domains} loopback sites at {args.qps:g} req/s per "
        f"site; politeness bound {args.pages / (args.domains * args.qps):.1f} s "
        f"({args.domains * args.qps * 60:.0f} pages/min)",
        flush=True,
    )
    figures = asyncio.run(main_async(args))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
