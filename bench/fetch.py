"""Fetch layer at the politeness bound: Lyra's fetchers against Scrapy on one mini-web.

    .venv/bin/python bench/fetch.py [--pages 200] [--domains 5] [--qps 2]
                                    [--memory-domains 50] [--memory-pages 100] [--json PATH]

The mini-web is D loopback sites (127.0.0.2, 127.0.0.3, ...), each a threaded HTTP
server with a robots.txt and small pages, logging every request's arrival time on
its own clock. N pages spread evenly over the sites are fetched at q requests per
second per site:

- by Lyra: a `FetcherPool` (the orchestrator's) over `DomainFetcher` actors on a local
  Ray started as `lyra serve` starts it, every URL submitted at once; the wall time
  runs from the first call to the last result, the start of each site's fetcher
  included (on one of the pool's standby workers, which a server has up before its
  first search: the pool's `warm_up` runs before the clock starts);
- by Scrapy, in its own process, with DOWNLOAD_DELAY = 1/q,
  CONCURRENT_REQUESTS_PER_DOMAIN = 1, RANDOMIZE_DOWNLOAD_DELAY = False and
  ROBOTSTXT_OBEY = True: the same politeness, the reference crawler's way.

Both must fetch every page, and Lyra must leave at least 1/q - 50 ms between two
requests on every site's own log (robots.txt included), or the bench stops with an
error; for Scrapy the closest pair is printed.
No polite crawler can finish faster than N/(D·q): each site gets N/D pages plus its
robots.txt, one every 1/q seconds. Printed: both wall times, Lyra's ratio to that
bound (target ≤ 1.15) and to Scrapy (target ≤ 1.0), each round's and the medians over
`--rounds` rounds (3; a 20 s crawl on a small machine varies by ±0.1 s from run to
run, about the margin in question). Each round, Lyra crawls twice: cold (one new
fetcher actor per site, started inside the timed crawl) and then, as `lyra*`, the
same hosts on new ports (fresh logs and robots.txt) through the fetchers the first
crawl left running, as a server that has met these sites before would; it starts
1/q after the first crawl, because the sites' politeness spans both.

Memory: a second mini-web of `--memory-domains` sites (default 50), fetched the same
way by both; for Lyra the peak of the summed PSS of every Ray worker process but the
graph actor's (the fetcher actors and idle workers, sampled every 0.5 s) and each live
fetcher's PSS at the end, with a graph actor running as in `lyra serve` (each fetcher
looks it up and stores its politeness state there, decision 0044); for
Scrapy the peak PSS of its process, sampled the same way. Fetched with Lyra's default
`fetch.max_live_actors` (16) unless `--max-live` says otherwise, so with 50 sites
fetchers are retired and re-created, as in production.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import itertools
import json
import multiprocessing
import queue
import resource
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psutil
import ray

from lyra.actors.runtime import ensure_ray
from lyra.config.settings import load_settings

ROBOTS = b"User-agent: *\nDisallow: /private/\n"
MiB = 1024 * 1024
# Allowance for the two clocks (crawler and server thread) and scheduling.
GAP_SLACK_S = 0.05


class MiniSite:
    """One loopback site: robots.txt, pages /page-<i>.html, arrival times of requests."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.arrivals: list[tuple[float, str]] = []
        self._lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_GET(self) -> None:
                with site._lock:
                    site.arrivals.append((time.monotonic(), self.path))
                if self.path == "/robots.txt":
                    body, ctype = ROBOTS, "text/plain"
                elif self.path.startswith("/page-"):
                    body, ctype = _page(site.host, self.path), "text/html; charset=utf-8"
                else:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                return

        self._httpd = ThreadingHTTPServer((host, 0), Handler)
        self._httpd.daemon_threads = True
        self.port = int(self._httpd.server_address[1])
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def url(self, path: str) -> str:
        """Absolute URL of `path` on this site."""
        return f"http://{self.host}:{self.port}{path}"

    def min_gap(self) -> float:
        """Smallest time between two requests on this site's clock (inf below two requests)."""
        return self.closest_pair()[0]

    def closest_pair(self) -> tuple[float, str, str, str]:
        """The two requests closest in time: gap, host, earlier path, later path."""
        ordered = sorted(self.arrivals)
        pairs = [(b[0] - a[0], self.host, a[1], b[1]) for a, b in itertools.pairwise(ordered)]
        return min(pairs, default=(float("inf"), self.host, "", ""))

    def close(self) -> None:
        """Stop serving."""
        self._httpd.shutdown()
        self._httpd.server_close()


def _page(host: str, path: str) -> bytes:
    # About 2 KB, like a short article; varied so no layer can dedupe the bodies.
    text = f"Page {path} of {host}. " + "Caffeine shortens sleep when taken late. " * 40
    head = f"<!doctype html><html><head><title>{path}</title></head>"
    return f"{head}<body><p>{text}</p></body></html>".encode()


def _start_sites(count: int) -> list[MiniSite]:
    if not 1 <= count <= 250:
        raise SystemExit(f"--domains must be between 1 and 250, got {count}")
    return [MiniSite(f"127.0.0.{2 + i}") for i in range(count)]


def _urls(sites: list[MiniSite], pages: int) -> list[str]:
    """`pages` URLs spread evenly over the sites, interleaved site by site."""
    if pages % len(sites):
        raise SystemExit(f"--pages ({pages}) must be a multiple of the domain count")
    per_site = pages // len(sites)
    return [s.url(f"/page-{i}.html") for i in range(per_site) for s in sites]


@dataclass
class Crawl:
    """What one crawler did on one mini-web."""

    crawler: str
    pages: int
    ok: int
    wall_s: float
    span_s: float  # first to last request on the servers' clocks
    min_gap_s: float
    requests: int
    peak_pss_mib: float
    extra: dict[str, Any]


def _check(crawl: Crawl, sites: list[MiniSite], qps: float) -> Crawl:
    """Refuse figures from an incomplete crawl, or from an impolite Lyra crawl.

    Scrapy's delay is kept on its own clock when it hands a request to the
    downloader, so a request that waited for its connection can land closer to the
    next one on the server's clock; that is reported with the figures, not refused.
    """
    if crawl.ok != crawl.pages:
        raise SystemExit(f"{crawl.crawler}: only {crawl.ok} of {crawl.pages} pages fetched")
    gap, host, first, second = min(s.closest_pair() for s in sites)
    crawl.extra["closest_pair"] = f"{host}: {first} -> {second} ({gap:.3f} s)"
    crawl.extra["polite"] = gap >= 1.0 / qps - GAP_SLACK_S
    if crawl.crawler == "lyra" and not crawl.extra["polite"]:
        raise SystemExit(
            f"lyra: two requests {gap:.3f}s apart on {host} ({first}, {second}); "
            f"politeness needs {1.0 / qps:.3f}s"
        )
    return crawl


def mean_site_interval(sites: list[MiniSite]) -> float:
    """Mean interval between consecutive requests to one site (each site's own clock)."""
    gaps = []
    for site in sites:
        times = sorted(t for t, _ in site.arrivals)
        gaps.extend(b - a for a, b in itertools.pairwise(times))
    return sum(gaps) / len(gaps) if gaps else 0.0


def _server_figures(sites: list[MiniSite]) -> tuple[float, float, int]:
    times = [t for s in sites for t, _ in s.arrivals]
    span = max(times) - min(times) if times else 0.0
    return span, min(s.min_gap() for s in sites), len(times)


class _PssSampler:
    """Peak of the summed PSS of a set of processes, sampled in a thread.

    PSS (proportional set size) splits shared pages between the processes sharing
    them, so the sum over Ray workers is their real footprint; summed RSS would
    count Ray's shared libraries and object-store mapping once per worker.
    """

    def __init__(
        self,
        processes: Callable[[], list[psutil.Process]],
        interval: float = 0.5,
        enabled: bool = True,
    ):
        self.enabled = enabled
        self.peak = 0
        self.peak_processes = 0
        self._processes = processes
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> _PssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        # Reading smaps of every worker costs CPU; the speed run must not pay for it.
        if not self.enabled:
            return
        while not self._stop.wait(self._interval):
            procs = self._processes()
            total = 0
            for proc in procs:
                try:
                    total += proc.memory_full_info().pss
                except psutil.Error:
                    continue  # the process exited between listing and reading
            if total > self.peak:
                self.peak, self.peak_processes = total, len(procs)


def fetch_workers() -> list[psutil.Process]:
    """This run's Ray workers but the graph actor's: the fetchers and idle workers."""
    graph = {p.pid for p in ray_workers("GraphActor")}
    return [p for p in ray_workers() if p.pid not in graph]


def ray_workers(kind: str = "") -> list[psutil.Process]:
    """This run's Ray worker processes (titled ``ray::<Actor>``), optionally of one class.

    Only descendants of this process: the local Ray started here, not another one
    running on the machine.
    """
    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            cmdline = proc.cmdline()
        except psutil.Error:
            continue  # exited meanwhile
        if cmdline and cmdline[0].startswith(f"ray::{kind}"):
            found.append(proc)
    return found


def _tree(pid: int) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


def _wait_for_no_fetchers(timeout: float = 30.0) -> None:
    """Killed actors' processes exit asynchronously; the next run must not count them."""
    deadline = time.monotonic() + timeout
    while ray_workers("DomainFetcher") and time.monotonic() < deadline:
        time.sleep(0.1)


def lyra_crawl(
    urls: list[str],
    sites: list[MiniSite],
    qps: float,
    max_live: int | None,
    memory: bool = True,
    again: tuple[list[str], list[MiniSite]] | None = None,
) -> list[Crawl]:
    """Fetch every URL through a FetcherPool on the running Ray; wall time and memory.

    With `again` (the same hosts on new ports: fresh server logs and robots.txt), a
    second crawl follows through the same pool, whose fetchers are then already
    running: the figure of a server that has met these sites before ("warm"). The
    first crawl pays for starting one actor process per site ("cold").
    """
    from lyra.actors.fetch_pool import FetcherPool
    from lyra.actors.graph import GraphActor
    from lyra.actors.runtime import GRAPH

    batches = [(urls, sites)] + ([again] if again is not None else [])
    with tempfile.TemporaryDirectory(prefix="lyra-bench-fetch-") as home:
        fetch_cfg: dict[str, Any] = {
            "default_qps": qps,
            "escalate_to_browser": False,
            "network_retries": 0,
            # The default, stated: standby workers for fast bursts of new sites (0013).
            "standby_workers": 8,
        }
        if max_live is not None:
            fetch_cfg["max_live_actors"] = max_live
        settings = load_settings(
            home=home,
            ray={"namespace": f"lyra-bench-{time.time_ns():x}"},
            network={"allow_private_targets": True, "allowed_hosts": ["127.0.0.0/8"]},
            fetch=fetch_cfg,
        )

        async def run() -> tuple[list[tuple[list[dict[str, Any]], float, int]], dict[str, float]]:
            # As in `lyra serve`, a graph actor is there: each fetcher looks it up and
            # stores its politeness state in it (what that costs a fetcher is counted).
            graph = GraphActor.options(name=GRAPH, namespace=settings.ray.namespace).remote(
                settings
            )
            await graph.ping.remote()
            pool = FetcherPool(settings)
            outcomes = []
            for i, (batch_urls, _sites) in enumerate(batches):
                if i:
                    # The same sites: their politeness spans crawls (1/q since the last
                    # request of the previous one), so the second starts after it.
                    await asyncio.sleep(1.0 / qps)
                # A running server: its standby workers are up before a search comes.
                standby = await pool.warm_up()
                started = time.perf_counter()
                results = await asyncio.gather(*(pool.fetch(u) for u in batch_urls))
                outcomes.append((list(results), time.perf_counter() - started, standby))
            pss = [p.memory_full_info().pss for p in ray_workers("DomainFetcher")]
            for handle in [*pool.live.values(), graph]:
                ray.kill(handle)
            memory = {
                "live_fetchers": len(pss),
                "fetcher_pss_mib_mean": round(sum(pss) / len(pss) / MiB, 1) if pss else 0.0,
                "retired": pool.retired,
            }
            return outcomes, memory

        _wait_for_no_fetchers()
        with _PssSampler(fetch_workers, enabled=memory) as sampler:
            outcomes, memory = asyncio.run(run())
        _wait_for_no_fetchers()
    crawls = []
    for (results, wall, standby), (batch_urls, batch_sites) in zip(outcomes, batches, strict=True):
        ok = sum(1 for r in results if r["error"] is None and r["status"] == 200)
        span, gap, requests = _server_figures(batch_sites)
        extra = dict(memory)
        extra["standby_workers_at_start"] = standby
        extra["peak_processes"] = sampler.peak_processes
        extra["mean_site_interval_s"] = round(mean_site_interval(batch_sites), 4)
        crawl = Crawl(
            "lyra", len(batch_urls), ok, wall, span, gap, requests, sampler.peak / MiB, extra
        )
        crawls.append(_check(crawl, batch_sites, qps))
    return crawls


def _scrapy_child(urls: list[str], qps: float, out: Any) -> None:
    """Run one Scrapy crawl in this (spawned) process and send back its figures."""
    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess

    items: list[int] = []

    class MiniWeb(scrapy.Spider):  # type: ignore[misc]
        name = "miniweb"

        async def start(self) -> Any:
            for url in urls:
                yield scrapy.Request(url, callback=self.parse, dont_filter=True)

        def parse(self, response: Any) -> Any:
            yield {"status": response.status}

    def scraped(item: dict[str, Any], **_: Any) -> None:
        items.append(int(item["status"]))

    process = CrawlerProcess(
        settings={
            "DOWNLOAD_DELAY": 1.0 / qps,
            "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
            "CONCURRENT_REQUESTS": max(16, len({u.split("/")[2] for u in urls})),
            "RANDOMIZE_DOWNLOAD_DELAY": False,
            "ROBOTSTXT_OBEY": True,
            "RETRY_ENABLED": False,
            "HTTPPROXY_ENABLED": False,
            "TELNETCONSOLE_ENABLED": False,
            "LOG_LEVEL": "ERROR",
            "USER_AGENT": "LyraBench-Scrapy",
        }
    )
    crawler = process.create_crawler(MiniWeb)
    crawler.signals.connect(scraped, signal=signals.item_scraped)
    started = time.perf_counter()
    process.crawl(crawler)
    process.start()
    wall = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    out.put(
        {
            "ok": sum(1 for s in items if s == 200),
            "wall": wall,
            "peak": peak,
            "v": scrapy.__version__,
        }
    )


def _child_result(child: Any, out: Any, limit_s: float = 3600.0) -> dict[str, Any]:
    """The child's figures, or an error as soon as it has died without sending them."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        try:
            return out.get(timeout=1.0)
        except queue.Empty:
            if not child.is_alive():
                raise SystemExit(
                    f"the Scrapy crawl exited with code {child.exitcode} before reporting"
                ) from None
    raise SystemExit(f"the Scrapy crawl reported nothing within {limit_s:.0f} s")


def scrapy_crawl(urls: list[str], sites: list[MiniSite], qps: float, memory: bool = True) -> Crawl:
    """The Scrapy baseline, in a spawned process (Twisted's reactor runs once per process)."""
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    child = ctx.Process(target=_scrapy_child, args=(urls, qps, out))
    child.start()
    with _PssSampler(lambda: _tree(child.pid or 0), enabled=memory) as sampler:
        figures = _child_result(child, out)
    child.join()
    span, gap, requests = _server_figures(sites)
    crawl = Crawl(
        "scrapy",
        len(urls),
        figures["ok"],
        figures["wall"],
        span,
        gap,
        requests,
        sampler.peak / MiB,
        {
            "scrapy": figures["v"],
            "peak_rss_mib": round(figures["peak"] / MiB, 1),
            "mean_site_interval_s": round(mean_site_interval(sites), 4),
        },
    )
    return _check(crawl, sites, qps)


def _run_both(
    domains: int, pages: int, qps: float, max_live: int | None, memory: bool, warm: bool = False
) -> tuple[list[Crawl], Crawl]:
    """One mini-web per crawl (fresh logs, no shared politeness state), same shape.

    Lyra's crawls: cold, then (with `warm`) the same hosts again on new ports through
    the same, already running, fetchers.
    """
    scrapy_sites = _start_sites(domains)
    try:
        scrapy_run = scrapy_crawl(_urls(scrapy_sites, pages), scrapy_sites, qps, memory)
    finally:
        for site in scrapy_sites:
            site.close()
    sites = _start_sites(domains)
    again_sites = _start_sites(domains) if warm else []
    try:
        again = (_urls(again_sites, pages), again_sites) if warm else None
        lyra_runs = lyra_crawl(_urls(sites, pages), sites, qps, max_live, memory, again)
    finally:
        for site in sites + again_sites:
            site.close()
    return lyra_runs, scrapy_run


def _line(crawl: Crawl) -> str:
    return (
        f"{crawl.crawler:6s} {crawl.wall_s:7.2f} s wall, first-to-last request "
        f"{crawl.span_s:6.2f} s, {crawl.ok}/{crawl.pages} pages, {crawl.requests} requests, "
        f"closest pair {crawl.extra['closest_pair']}"
    )


def main() -> None:
    """Run both scenarios and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=200, help="N pages of the speed run")
    parser.add_argument("--domains", type=int, default=5, help="D sites of the speed run")
    parser.add_argument("--qps", type=float, default=2.0, help="q requests/s per site")
    parser.add_argument("--memory-domains", type=int, default=50)
    parser.add_argument("--memory-pages", type=int, default=100)
    parser.add_argument("--max-live", type=int, default=None, help="fetch.max_live_actors")
    parser.add_argument("--rounds", type=int, default=3, help="speed runs; medians reported")
    parser.add_argument("--json", type=Path, default=None, help="also write figures here")
    args = parser.parse_args()
    if args.rounds < 1:
        raise SystemExit(f"--rounds must be at least 1, got {args.rounds}")
    if importlib.util.find_spec("scrapy") is None:
        raise SystemExit("Scrapy is not installed: run `scripts/setup.sh bench` first")
    # Ray as `lyra serve` starts it (no runtime_env, the worker start-up hook).
    ensure_ray(
        load_settings(
            home=tempfile.mkdtemp(prefix="lyra-bench-ray-"),
            ray={"namespace": "lyra-bench", "num_cpus": 2, "include_dashboard": False},
        )
    )
    try:
        bound = args.pages / (args.domains * args.qps)
        print(
            f"speed: {args.pages} pages over {args.domains} loopback sites at {args.qps:g} "
            f"req/s per site; politeness bound N/(D*q) = {bound:.2f} s; {args.rounds} rounds"
        )
        rounds = []
        for number in range(1, args.rounds + 1):
            (lyra, lyra_warm), scrapy_run = _run_both(
                args.domains, args.pages, args.qps, args.max_live, memory=False, warm=True
            )
            rounds.append((lyra, lyra_warm, scrapy_run))
            print(f"round {number}")
            print("  " + _line(scrapy_run))
            print("  " + _line(lyra))
            print("  " + _line(lyra_warm).replace("lyra  ", "lyra* ", 1))
            print(
                f"  lyra / scrapy {lyra.wall_s / scrapy_run.wall_s:5.3f}, "
                f"lyra* / scrapy {lyra_warm.wall_s / scrapy_run.wall_s:5.3f}, "
                f"lyra / bound {lyra.wall_s / bound:5.3f}; mean interval to one site: "
                f"lyra {lyra.extra['mean_site_interval_s']:.4f} s, "
                f"scrapy {scrapy_run.extra['mean_site_interval_s']:.4f} s"
            )
        cold = statistics.median(r[0].wall_s for r in rounds)
        warm = statistics.median(r[1].wall_s for r in rounds)
        scrapy_wall = statistics.median(r[2].wall_s for r in rounds)
        to_bound = cold / bound
        to_scrapy = cold / scrapy_wall
        print(
            f"medians over {args.rounds} rounds: scrapy {scrapy_wall:.2f} s, lyra {cold:.2f} s, "
            f"lyra* {warm:.2f} s"
        )
        print(f"lyra / bound  {to_bound:5.3f}  (target <= 1.15)")
        print(f"lyra / scrapy {to_scrapy:5.3f}  (target <= 1.0)")
        print(
            f"lyra* (the same sites again, fetchers already running): / bound "
            f"{warm / bound:5.3f}, / scrapy {warm / scrapy_wall:5.3f}"
        )
        print(
            "per round, lyra / scrapy: "
            + ", ".join(f"{r[0].wall_s / r[2].wall_s:.3f}" for r in rounds)
        )

        print(
            f"memory: {args.memory_pages} pages over {args.memory_domains} loopback sites "
            f"at {args.qps:g} req/s per site"
        )
        (lyra_mem,), scrapy_mem = _run_both(
            args.memory_domains, args.memory_pages, args.qps, args.max_live, memory=True
        )
        print(_line(scrapy_mem))
        print(_line(lyra_mem))
        extra = lyra_mem.extra
        print(
            f"scrapy process peak PSS {scrapy_mem.peak_pss_mib:8.1f} MiB\n"
            f"lyra Ray workers peak PSS {lyra_mem.peak_pss_mib:8.1f} MiB summed over "
            f"{extra['peak_processes']} processes; {extra['live_fetchers']} fetchers live at "
            f"the end, {extra['fetcher_pss_mib_mean']} MiB PSS each; {extra['retired']} retired\n"
            f"lyra / scrapy peak memory {lyra_mem.peak_pss_mib / scrapy_mem.peak_pss_mib:6.1f}x"
        )
    finally:
        ray.shutdown()
    if args.json:
        figures = {
            "args": vars(args) | {"json": str(args.json)},
            "bound_s": bound,
            "speed": [[asdict(c) for c in r] for r in rounds],
            "memory": [asdict(lyra_mem), asdict(scrapy_mem)],
            "lyra_over_bound": round(to_bound, 3),
            "lyra_over_scrapy": round(to_scrapy, 3),
            "lyra_warm_over_scrapy": round(warm / scrapy_wall, 3),
            "python": sys.version.split()[0],
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
