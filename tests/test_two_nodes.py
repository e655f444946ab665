"""A real two-node Ray cluster on this machine, started with ray_cluster.yaml's own
commands (issue 13 item 2).

The head runs `head_start_ray_commands`, the worker `worker_start_ray_commands`, as
`ray up` would run them (their `ray stop` lines are left out: on a shared machine they
would stop every Ray, this test's session included). What the test adds is only what
`ray up` supplies or a test needs: a free GCS port for 6379, the head's address for
`$RAY_HEAD_IP`, the gpu_worker type's GPU count as `--num-gpus` (a logical GPU),
`--block` (so the test can stop exactly its own nodes), CPU counts and a free
dashboard port. Two `lyra serve` processes, each a driver joining the cluster through
`RAY_ADDRESS` and driven by the official MCP client, search three loopback sites at
once. Then:

- the inference actor runs on the GPU node, the graph actor on the `lyra_graph` node,
  fetchers on both nodes, one `DomainFetcher` per site across both drivers;
- each site's own log shows the configured gap between any two requests;
- the worker node is killed (SIGKILL of its raylet and workers) in the middle of a
  search: the search completes on the head, every page once, and nothing stored
  before is lost.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import Client, StdioServerParameters

from lyra.actors.instance import free_port
from tests.conftest import REPO
from tests.conftest_web import FixtureServer

BIN = Path(sys.executable).parent
LYRA = str(BIN / "lyra")
QPS = 2.0
MIN_GAP = 1 / QPS - 0.05  # the clock allowance of test_politeness
HOSTS = ["127.0.0.2", "127.0.0.3", "127.0.0.4"]
LOSS_HOST = "127.0.0.5"
PAGES = 3  # per site and driver
LOSS_PAGES = 8

PAGE = """<!doctype html><html><head><title>{title}</title></head><body><article>
<h1>{title}</h1><p>A cohort of {n} adults who walked {k} thousand steps a day had a
{pct} percent lower risk of cardiovascular events over eight years than those who
walked less than four thousand steps.</p></article></body></html>"""

PROBE = """
import json, sys, time, ray
from ray.util.state import list_actors
ray.init(address=%r, namespace="lyra", log_to_driver=False)
nodes = {n["NodeID"]: n["Resources"] for n in ray.nodes() if n["Alive"]}
actors = None
deadline = time.monotonic() + 60
while %r and actors is None:
    try:  # the state API answers once the head's dashboard is up
        actors = [
            {"name": a.name, "cls": a.class_name, "node": a.node_id}
            for a in list_actors(filters=[("state", "=", "ALIVE")], limit=1000)
            if a.ray_namespace == "lyra"
        ]
    except Exception as exc:
        if time.monotonic() > deadline:
            raise
        print(f"state API not ready: {exc}", file=sys.stderr)
        time.sleep(1)
print(json.dumps({"nodes": nodes, "actors": actors}))
"""


def yaml_commands() -> tuple[dict[str, Any], list[str], list[str]]:
    config = yaml.safe_load((REPO / "ray_cluster.yaml").read_text())
    head, worker = config["head_start_ray_commands"], config["worker_start_ray_commands"]
    assert head[:-1] == ["ray stop"] and worker[:-1] == ["ray stop"]
    return config, shlex.split(head[-1]), shlex.split(worker[-1])


def cluster_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LYRA_", "RAY_"))}
    env["RAY_AUTH_MODE"] = "disabled"  # as the session's own Ray (tests/conftest.py)
    return env


class Node:
    """One `ray start --block` process group: stopped exactly, leaving other Rays alone."""

    def __init__(self, argv: list[str], log: Path) -> None:
        assert argv[:2] == ["ray", "start"]
        self.log = log
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(
                [str(BIN / "ray"), *argv[1:]],
                env=cluster_env(),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def kill(self, sig: int = signal.SIGKILL) -> None:
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)


def _run_probe(address: str, actors: bool) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE % (address, actors)],
        env=cluster_env(),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def probe(address: str) -> dict[str, Any]:
    """Alive nodes (id → resources) and Lyra's live actors with their node."""
    out = _run_probe(address, actors=True)
    assert out.returncode == 0, out.stderr[-3000:]
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def alive_nodes(address: str) -> int:
    """Alive nodes, 0 while the cluster does not answer yet."""
    out = _run_probe(address, actors=False)
    if out.returncode != 0:
        return 0
    return len(json.loads(out.stdout.strip().splitlines()[-1])["nodes"])


def wait_for(predicate: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"not within {timeout}s: {what}")
        time.sleep(1.0)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    config, head_argv, worker_argv = yaml_commands()
    logs = tmp_path_factory.mktemp("two-nodes")
    port = free_port()
    assert "--port=6379" in head_argv
    head_argv = [f"--port={port}" if a == "--port=6379" else a for a in head_argv]
    head_argv += ["--block", "--num-cpus=2", f"--dashboard-port={free_port()}"]
    head_argv += ["--disable-usage-stats"]
    address = f"127.0.0.1:{port}"
    assert "--address=$RAY_HEAD_IP:6379" in worker_argv
    worker_argv = [f"--address={address}" if "RAY_HEAD_IP" in a else a for a in worker_argv]
    gpus = int(config["available_node_types"]["gpu_worker"]["resources"]["GPU"])
    worker_argv += ["--block", "--num-cpus=2", f"--num-gpus={gpus}", "--disable-usage-stats"]
    head = Node(head_argv, logs / "head.log")
    worker: Node | None = None
    try:
        wait_for(lambda: b"Ray runtime started" in head.log.read_bytes(), 120, "head up")
        # `ray start --head` records its address for argument-less `ray.init()` calls;
        # nothing else on this machine should join this cluster by accident.
        Path("/tmp/ray/ray_current_cluster").unlink(missing_ok=True)
        worker = Node(worker_argv, logs / "worker.log")
        wait_for(lambda: alive_nodes(address) == 2, 180, "two nodes alive")
        yield {"address": address, "head": head, "worker": worker, "logs": logs}
    finally:
        # SIGKILL of each node's process group, as the node loss does: a graceful
        # `ray stop` of the head took half a minute of the suite for nothing it checks.
        if worker is not None:
            worker.kill()
        head.kill()


def serve(address: str, home: Path) -> StdioServerParameters:
    cfg = home / "user.yaml"
    cfg.write_text(
        f"""
network:
  allow_private_targets: true
  allowed_hosts: ["127.0.0.0/8"]
fetch:
  default_qps: {QPS}
  standby_workers: 0
llm:
  ollama_host: http://127.0.0.1:9
"""
    )
    env = cluster_env()
    env.update({"LYRA_HOME": str(home), "LYRA_CONFIG": str(cfg), "RAY_ADDRESS": address})
    return StdioServerParameters(command=LYRA, args=["serve"], env=env, cwd=str(REPO))


def sites() -> dict[str, FixtureServer]:
    out = {}
    for host in [*HOSTS, LOSS_HOST]:
        server = FixtureServer(host)
        server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain")
        for i, side in itertools.product(range(LOSS_PAGES), "abc"):
            title = f"Walking and the heart, {host} {side}{i}"
            page = PAGE.format(title=title, n=1000 + i, k=6 + i, pct=10 + i)
            server.route(f"/{side}{i}.html", body=page.encode())
        out[host] = server
    return out


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    res = await client.call_tool(tool, args)
    assert res.is_error is False, res.content[0].text
    out: dict[str, Any] = res.structured_content
    return out


def search_args(task_id: str, urls: list[str], wait: float) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "query": "walking and cardiovascular risk",
        "options": {"urls": urls, "engines": [], "wait_seconds": wait, "max_pages": 30},
    }


async def test_two_nodes_placement_politeness_and_node_loss(
    cluster: dict[str, Any], tmp_path: Path
) -> None:
    servers = sites()
    home = tmp_path / "home"
    home.mkdir()
    try:
        params = serve(cluster["address"], home)
        async with (
            Client(params, read_timeout_seconds=300) as one,
            Client(params, read_timeout_seconds=300) as two,
        ):
            t1 = await call(one, "create_task", {"query": "walking and the heart"})
            t2 = await call(two, "create_task", {"query": "walking and the heart"})
            urls = {
                side: [servers[h].url(f"/{side}{i}.html") for h in HOSTS for i in range(PAGES)]
                for side in "ab"
            }
            r1, r2 = await asyncio.gather(
                call(one, "search", search_args(t1["task_id"], urls["a"], 110)),
                call(two, "search", search_args(t2["task_id"], urls["b"], 110)),
            )
            assert (r1["pages_fetched"], r2["pages_fetched"]) == (3 * PAGES, 3 * PAGES)

            placed = probe(cluster["address"])
            nodes = placed["nodes"]
            by_name = {a["name"]: a for a in placed["actors"] if a["name"]}
            gpu_node = next(n for n, r in nodes.items() if r.get("GPU"))
            graph_node = next(n for n, r in nodes.items() if r.get("lyra_graph"))
            assert gpu_node != graph_node
            assert by_name["inference"]["node"] == gpu_node
            assert by_name["graph"]["node"] == graph_node
            assert by_name["orchestrator"]["node"] == graph_node
            fetchers = [a for a in placed["actors"] if a["cls"] == "DomainFetcher"]
            assert sorted(a["name"] for a in fetchers) == [f"fetch:{h}" for h in HOSTS]
            assert {a["node"] for a in fetchers} == {gpu_node, graph_node}

            stored = await call(
                two, "query_graph", {"sql": "SELECT count(*), count(DISTINCT url) FROM pages"}
            )
            assert stored["rows"] == [[6 * PAGES, 6 * PAGES]]

            # The worker node is lost in the middle of a search on a new site.
            loss_urls = [servers[LOSS_HOST].url(f"/c{i}.html") for i in range(LOSS_PAGES)]
            running = await call(one, "search", search_args(t1["task_id"], loss_urls, 0))
            servers[LOSS_HOST].wait_for(lambda reqs: len(reqs) >= 3, timeout=60)
            cluster["worker"].kill(signal.SIGKILL)
            for _ in range(2):  # a call may wait up to 60 s for the lost inference actor
                done = await call(
                    one, "get_status", {"task_id": t1["task_id"], "wait_seconds": 110}
                )
                loss = next(s for s in done["searches"] if s["search_id"] == running["search_id"])
                if loss["status"] != "running":
                    break
            # One site is one independent source: "partial", with every page stored.
            assert (loss["status"], loss["metrics"]["pages_fetched"]) == ("partial", LOSS_PAGES)
            after = await call(
                one, "query_graph", {"sql": "SELECT count(*), count(DISTINCT url) FROM pages"}
            )
            assert after["rows"] == [[6 * PAGES + LOSS_PAGES, 6 * PAGES + LOSS_PAGES]]
            placed = probe(cluster["address"])
            assert list(placed["nodes"]) == [graph_node]
            by_name = {a["name"]: a for a in placed["actors"] if a["name"]}
            # The inference actor lost its GPU node and was placed again, on the CPU.
            assert by_name["inference"]["node"] == graph_node
            assert by_name[f"fetch:{LOSS_HOST}"]["node"] == graph_node
    finally:
        for server in servers.values():
            server.close()
    # A page whose request was in flight on the lost node when it died may be asked for
    # again by the fetcher made anew on the head (its answer never came back): one at most,
    # on the site whose fetcher was lost; every other page is asked for once.
    in_flight = {host: int(host == LOSS_HOST) for host in servers}
    for host, server in servers.items():
        times = sorted(r.at for r in server.requests)
        gaps = [b - a for a, b in itertools.pairwise(times)]
        assert min(gaps) >= MIN_GAP, (host, sorted(gaps)[:3])
        pages = [r.path for r in server.requests if r.path != "/robots.txt"]
        assert len(pages) - len(set(pages)) <= in_flight[host], (host, sorted(pages))
