"""Chaos: a search of N pages over D loopback sites while every kind of actor is killed.

    .venv/bin/python bench/chaos.py [--pages 100] [--domains 5] [--qps 2] [--kills 20]
                                    [--seed 7] [--max-searches 10] [--json PATH]

A client (the MCP tools of an in-process server, the code of `lyra serve`, on a local
Ray of 2 CPUs) creates a task and searches the N URLs, polling `get_status` every
0.3 s. When a search ends without every page stored (an orchestrator killed in the
middle ends its searches "failed: interrupted", as a restarted server must), the
client searches again for the URLs not yet stored, as a researcher's client would, up
to `--max-searches` (10) searches. Meanwhile, at seeded moments, `--kills` kills cycle
over the five actor kinds (DomainFetcher of a random site, BrowserActor, InferenceActor, GraphActor,
Orchestrator), alternating `ray.kill(no_restart=False)` and SIGKILL of the actor's
worker process.

Afterwards, read from the database through `query_graph`:
- acknowledged rows: every claim id and page URL a tool response reported must be
  there (lost = acknowledged and missing);
- duplicates: pages per URL and fragments per (page, position) beyond one;
- politeness: on every site's own log, the smallest gap between two requests against
  1/q - 50 ms (violation = how far below);
- failed tool calls: every tool call that answered an error (reads wait for a
  restarting orchestrator; decision 0022; writes too: decisions 0046 and 0064);
- writes: meanwhile the client blocks a new unrelated domain (`feedback`
  domain_block, `chaos-N.example`) every `WRITE_EVERY_S`; each acknowledged block must
  have its `feedback` event (lost), and one only (repeated: a write done twice);
- `actor_restart` rows in event_log: those the restarted actors wrote themselves
  (`restart_events`; a restarted fetcher, graph, inference or browser actor from its
  constructor, the orchestrator on its first call) and those of calls that met a crash
  and waited for the actor (`calls_waited`, written by the orchestrator's supervisor).

`run_chaos` is what tests/test_chaos.py runs, shortened.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import ray
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetch as mini_web
import throughput

from lyra.actors.runtime import ensure_ray
from lyra.config.settings import Settings, load_settings
from lyra.mcp_bridge.server import build_server

KINDS = ["fetcher", "browser", "inference", "graph", "orchestrator"]
POLL_S = 0.3
WRITE_EVERY_S = 0.5
MAX_SEARCHES = 10
MAX_URLS_PER_SEARCH = 100


def settings_for(home: Path, qps: float, pages: int, namespace: str) -> Settings:
    return load_settings(
        home=home,
        ray={
            "namespace": namespace,
            "num_cpus": 2,
            "include_dashboard": False,
            "share_instance": False,
        },
        network={"allow_private_targets": True, "allowed_hosts": ["127.0.0.0/8"]},
        fetch={"default_qps": qps, "standby_workers": 2},
        llm={"ollama_host": "http://127.0.0.1:9"},
        task={"default_max_pages": pages * 4},
    )


def _pid_of(handle: Any) -> int:
    pid: int = ray.get(handle.__ray_call__.remote(lambda _self: os.getpid()), timeout=10)
    return pid


def _handle(kind: str, namespace: str, rng: random.Random) -> tuple[str, Any] | None:
    """A live actor of `kind`, waiting up to 15 s for one: a search may not have reached
    a site yet, and an orchestrator's children come back on their next use."""
    deadline = time.monotonic() + 15
    while True:
        names = sorted(
            a["name"]
            for a in ray.util.list_named_actors(all_namespaces=True)
            if a["namespace"] == namespace
            and (a["name"].startswith("fetch:") if kind == "fetcher" else a["name"] == kind)
        )
        if names:
            name = rng.choice(names)
            try:
                return name, ray.get_actor(name, namespace=namespace)
            except ValueError:
                pass  # gone between listing and lookup
        if time.monotonic() > deadline:
            return None
        time.sleep(0.2)


def kill_one(kind: str, method: str, namespace: str, rng: random.Random) -> str | None:
    """Kill one actor of `kind`; the name killed, None when none runs."""
    if kind == "browser":
        # The searches never need a browser; start it so that it can be killed. The
        # orchestrator may itself be restarting (killed just before): wait for it.
        deadline = time.monotonic() + 60
        while True:
            try:
                orch = ray.get_actor("orchestrator", namespace=namespace)
                ray.get(orch.browser_handle.remote(), timeout=60)
                break
            except (ray.exceptions.RayActorError, ValueError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
    found = _handle(kind, namespace, rng)
    if found is None:
        return None
    name, handle = found
    if method == "sigkill":
        try:
            os.kill(_pid_of(handle), signal.SIGKILL)
            return name
        except (ray.exceptions.RayError, ProcessLookupError):
            pass  # restarting already: kill it the other way
    ray.kill(handle, no_restart=False)
    return name


async def run_chaos(
    pages: int,
    domains: int,
    qps: float,
    kills: int,
    seed: int,
    say: Any = print,
    home: Path | None = None,
    max_searches: int = MAX_SEARCHES,
) -> dict[str, Any]:
    """The whole run; returns the figures (see the module docstring)."""
    mini_web._page = throughput.article
    namespace = f"lyra-chaos-{seed}-{os.getpid()}"
    home = home or Path(tempfile.mkdtemp(prefix="lyra-chaos-"))
    settings = settings_for(home, qps, pages, namespace)
    ensure_ray(settings)
    rng = random.Random(seed)
    sites = mini_web._start_sites(domains)
    urls = mini_web._urls(sites, pages)
    bound = pages / (domains * qps)
    failed_calls: list[str] = []
    acknowledged_claims: set[str] = set()
    acknowledged_blocks: list[str] = []
    killed: list[dict[str, Any]] = []
    progress: dict[str, Any] = {}
    searches = 0
    try:
        async with Client(build_server(settings)) as client:

            async def tool(name: str, args: dict[str, Any]) -> dict[str, Any] | None:
                res = await client.call_tool(name, args)
                if res.is_error:
                    failed_calls.append(f"{name}: {res.content[0].text[:200]}")
                    say(f"  failed: {failed_calls[-1]}")
                    return None
                out: dict[str, Any] = res.structured_content
                return out

            created = await tool("create_task", {"query": "habits and health outcomes"})
            if created is None:
                raise SystemExit(f"create_task failed: {failed_calls}")
            task_id = created["task_id"]

            async def stored_urls() -> set[str]:
                out: set[str] = set()
                for offset in range(0, len(urls), 200):  # query_graph answers 200 rows at most
                    got = await tool(
                        "query_graph",
                        {
                            "sql": f"SELECT url FROM pages ORDER BY url LIMIT 200 OFFSET {offset}",
                            "options": {"limit": 200},
                        },
                    )
                    out |= {row[0] for row in got["rows"]} if got else set()
                return out

            async def client_loop() -> None:
                nonlocal searches
                while searches < max_searches:
                    stored = await stored_urls()
                    # A search takes 100 URLs at most (the search tool's limit).
                    missing = [u for u in urls if u not in stored][:MAX_URLS_PER_SEARCH]
                    if not missing:
                        return
                    searches += 1
                    started = await tool(
                        "search",
                        {
                            "task_id": task_id,
                            "query": "What do trials say about these habits?",
                            "options": {
                                "urls": missing,
                                "engines": [],
                                "max_pages": len(missing),
                                "wait_seconds": 0,
                            },
                        },
                    )
                    if started is None:
                        continue
                    while True:
                        await asyncio.sleep(POLL_S)
                        st = await tool("get_status", {"task_id": task_id, "detail": "full"})
                        if st is None:
                            continue
                        acknowledged_claims.update(c["id"] for c in st["claims"])
                        mine = [s for s in st["searches"] if s["search_id"] == started["search_id"]]
                        progress["last"] = mine[0] if mine else None
                        if mine and mine[0]["status"] != "running":
                            say(
                                f"  search {searches}: {mine[0]['status']} "
                                f"({(mine[0].get('error') or {}).get('message', '')}), "
                                f"{mine[0]['metrics'].get('pages_fetched', 0)} pages"
                            )
                            for warning in mine[0]["warnings"]:
                                if "not fetched" in warning:  # a page this search lost
                                    say(f"    {warning}")
                            break

            async def killer() -> None:
                # The kills begin once the first search runs (actors up, models loaded).
                while not (progress.get("last") or {}).get("progress"):
                    await asyncio.sleep(0.1)
                order = [KINDS[i % len(KINDS)] for i in range(kills)]
                rng.shuffle(order)
                spacing = 1.5 * bound / max(kills, 1)
                for i, kind in enumerate(order):
                    await asyncio.sleep(spacing * rng.uniform(0.5, 1.5))
                    method = "ray.kill" if i % 2 else "sigkill"
                    name = await asyncio.to_thread(kill_one, kind, method, namespace, rng)
                    killed.append({"kind": kind, "method": method, "name": name})
                    last = progress.get("last") or {}
                    stage = (last.get("progress") or {}).get("stage")
                    say(f"  kill {i + 1:2d}/{kills}: {kind:12s} {method:8s} {name} ({stage})")

            async def writer(done: asyncio.Event) -> None:
                while not done.is_set():
                    domain = f"chaos-{len(acknowledged_blocks) + 1}.example"
                    args = {"action": "domain_block", "domain": domain, "reason": "chaos"}
                    if await tool("feedback", args) is not None:
                        acknowledged_blocks.append(domain)
                    await asyncio.sleep(WRITE_EVERY_S)

            async def searching_then_done(done: asyncio.Event) -> None:
                try:
                    await asyncio.gather(client_loop(), killer())
                finally:
                    done.set()

            started_at = time.perf_counter()
            done = asyncio.Event()
            await asyncio.gather(searching_then_done(done), writer(done))
            wall = time.perf_counter() - started_at
            # Once every kill is done the client finishes what is missing.
            await client_loop()
            wall_all = time.perf_counter() - started_at

            stored = await stored_urls()
            ack = sorted(acknowledged_claims)
            found: set[str] = set()
            for i in range(0, len(ack), 100):
                ids = ",".join(f"'{c}'" for c in ack[i : i + 100])
                got = await tool(
                    "query_graph",
                    {
                        "sql": f"SELECT id FROM claims WHERE id IN ({ids})",
                        "options": {"limit": 200},
                    },
                )
                found |= {r[0] for r in got["rows"]} if got else set()
            dup = await tool(
                "query_graph",
                {
                    "sql": "SELECT (SELECT count(*) - count(DISTINCT url) FROM pages), "
                    "(SELECT count(*) - count(DISTINCT (page_id, position)) FROM fragments)"
                },
            )
            # An actor's own row (its restart, recorded by its new process) or a
            # supervisor's (a call that met the crash and waited: it names the method).
            events = await tool(
                "query_graph",
                {
                    "sql": "SELECT actor, count(*) FILTER (WHERE payload->>'method' IS NULL), "
                    "count(*) FILTER (WHERE payload->>'method' IS NOT NULL) FROM event_log "
                    "WHERE kind = 'actor_restart' GROUP BY actor ORDER BY actor"
                },
            )
            recorded: dict[str, int] = {}
            for offset in range(0, len(acknowledged_blocks) + 200, 200):
                got = await tool(
                    "query_graph",
                    {
                        "sql": "SELECT payload->>'domain', count(*) FROM event_log "
                        "WHERE kind = 'feedback' AND payload->>'domain' LIKE 'chaos-%' "
                        f"GROUP BY 1 ORDER BY 1 LIMIT 200 OFFSET {offset}",
                        "options": {"limit": 200},
                    },
                )
                recorded |= {row[0]: row[1] for row in got["rows"]} if got else {}
    finally:
        for site in sites:
            site.close()
    min_gap = min(s.min_gap() for s in sites)
    floor = 1 / qps - mini_web.GAP_SLACK_S
    dup_pages, dup_fragments = dup["rows"][0] if dup else (None, None)
    return {
        "pages": pages,
        "domains": domains,
        "qps": qps,
        "seed": seed,
        "kills": Counter(k["kind"] for k in killed if k["name"]),
        "kills_skipped": [k for k in killed if not k["name"]],
        "searches": searches,
        "pages_stored": len(stored & set(urls)),
        "claims_acknowledged": len(ack),
        "claims_found": len(found),
        "claims_lost": len(set(ack) - found),
        "duplicate_pages": dup_pages,
        "duplicate_fragments": dup_fragments,
        "failed_tool_calls": failed_calls,
        "writes_acknowledged": len(acknowledged_blocks),
        "writes_recorded": len(recorded),
        "writes_lost": len([d for d in acknowledged_blocks if d not in recorded]),
        "writes_repeated": sum(n - 1 for n in recorded.values()),
        "min_gap_s": round(min_gap, 4),
        "max_politeness_violation_s": round(max(0.0, floor - min_gap), 4),
        "restart_events": {row[0]: row[1] for row in events["rows"] if row[1]} if events else {},
        "calls_waited": {row[0]: row[2] for row in events["rows"] if row[2]} if events else {},
        "wall_s": round(wall, 1),
        "wall_all_s": round(wall_all, 1),
        "bound_s": round(bound, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--domains", type=int, default=5)
    parser.add_argument("--qps", type=float, default=2.0)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--max-searches",
        type=int,
        default=MAX_SEARCHES,
        help="searches the client may start (each orchestrator kill can end one)",
    )
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    print(
        f"{args.pages} pages over {args.domains} loopback sites at {args.qps:g} req/s, "
        f"{args.kills} kills (seed {args.seed})",
        flush=True,
    )
    out = asyncio.run(
        run_chaos(
            args.pages,
            args.domains,
            args.qps,
            args.kills,
            args.seed,
            max_searches=args.max_searches,
        )
    )
    out["kills"] = dict(out["kills"])
    print(json.dumps(out, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
