"""Standby workers: idle Ray workers kept ready, taken by new fetchers (actors/standby.py).

Against the session's real local Ray: a top-up leaves the target number of settled
idle workers on the raylet, a fetcher created afterwards runs in one of them, with
the preloaded modules already imported, and the pool refills the standby behind it.
Also the politeness wait that replaced the plain `asyncio.sleep`: it never ends
before its time, and the clock file it writes first is never earlier than the
departure.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
import ray

from lyra.actors.fetch_pool import FetcherPool
from lyra.actors.standby import IDLE_TITLE, StandbyWorkers
from lyra.jobs.fetch_http import CLOCK_MARGIN_S, HttpPath, sleep_precisely
from lyra.jobs.fetch_state import PolitenessClock
from lyra.pipelines.net.token_bucket import TokenBucket
from tests.conftest import make_settings
from tests.conftest_web import FixtureServer

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

TARGET = 3
# Measuring tolerances of the tests below, not product thresholds: the time between
# the clock record inside `_wait_for_slot` and the test's reading after it returns (a
# loaded two-core CI machine took over 1 ms), and how far the wall clock, which the
# record uses, may drift from the monotonic clock the wait uses over a 0.25 s wait
# (NTP slews by up to 500 ppm; a record 0.02 ms beyond the margin was seen here).
RETURN_S = 0.005
DRIFT_S = 0.001


def _idle_pids() -> set[int]:
    found = set()
    for proc in psutil.Process().children(recursive=True):
        try:
            cmdline = proc.cmdline()
        except psutil.Error:
            continue
        if cmdline and cmdline[0].startswith(IDLE_TITLE):
            found.add(proc.pid)
    return found


def test_top_up_leaves_the_target_of_settled_idle_workers() -> None:
    standby = StandbyWorkers(TARGET)

    idle = asyncio.run(standby.top_up())

    assert standby.disabled_reason is None
    assert idle >= TARGET
    assert standby.idle_count() >= TARGET
    assert len(_idle_pids()) >= TARGET
    # Settled: a later look finds them using no CPU (background Ray work aside).
    standby.ready_count()
    settled = 0
    for _ in range(20):
        time.sleep(0.3)
        settled = standby.ready_count()
        if settled >= TARGET:
            break
    assert settled >= TARGET


def test_a_target_of_zero_asks_for_nothing() -> None:
    standby = StandbyWorkers(0)

    assert asyncio.run(standby.top_up()) == 0
    assert standby.enabled is False
    assert standby.disabled_reason == "fetch.standby_workers is 0"
    assert standby.requested == 0


def test_a_top_up_told_to_stop_starts_nothing() -> None:
    """A refill interrupted by fetching (keep_going False) asks the raylet for nothing."""
    standby = StandbyWorkers(len(_idle_pids()) + 2)

    asyncio.run(standby.top_up(keep_going=lambda: False))

    assert standby.requested == 0
    assert standby.enabled is True


def test_a_new_fetcher_runs_in_a_standby_worker_and_the_pool_refills(lyra_home: Path) -> None:
    settings = make_settings(lyra_home, fetch={"standby_workers": TARGET, "default_qps": 5.0})
    server = FixtureServer("127.0.0.2")
    server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain")
    server.route("/a.html", body=b"<html><body><p>standby</p></body></html>")

    async def scenario() -> tuple[set[int], int, bool, int, dict[str, object]]:
        pool = FetcherPool(settings)
        await pool.warm_up()
        before = _idle_pids()
        result = await pool.fetch(server.url("/a.html"))
        handle = pool.live["127.0.0.2"]
        pid, preloaded = await handle.__ray_call__.remote(
            lambda self: (os.getpid(), "lyra.actors.preload" in sys.modules)
        )
        # The fetch's lease ended with the pool quiet: a refill is on its way.
        refill = pool.refill
        assert refill is not None
        idle_after = await refill
        ray.kill(handle, no_restart=True)
        return before, pid, preloaded, idle_after, {"status": result["status"]}

    try:
        before, pid, preloaded, idle_after, result = asyncio.run(scenario())
    finally:
        server.close()

    assert result == {"status": 200}
    assert pid in before
    assert preloaded is True
    assert idle_after >= TARGET


def test_the_refill_waits_until_no_search_runs(lyra_home: Path) -> None:
    """A search's extraction and models do not share the cores with worker start-ups
    (decision 0038): the refill after a lease waits while the pool's owner is busy, and
    runs once the owner says the search ended (`refill_later`)."""
    settings = make_settings(lyra_home, fetch={"standby_workers": TARGET, "default_qps": 5.0})
    server = FixtureServer("127.0.0.3")
    server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain")
    server.route("/b.html", body=b"<html><body><p>busy</p></body></html>")
    searching = {"now": True}

    async def scenario() -> tuple[set[int], int, set[int], int]:
        pool = FetcherPool(settings, busy=lambda: searching["now"])
        await pool.warm_up()
        idle_before = _idle_pids()
        await pool.fetch(server.url("/b.html"))
        handle = pool.live["127.0.0.3"]
        first = pool.refill
        assert first is not None
        started_while_busy = await first
        idle_while_busy = _idle_pids()
        searching["now"] = False
        pool.refill_later()  # the search ended
        second = pool.refill
        assert second is not None and second is not first
        idle_after = await second
        ray.kill(handle, no_restart=True)
        return idle_before, started_while_busy, idle_while_busy, idle_after

    try:
        idle_before, started_while_busy, idle_while_busy, idle_after = asyncio.run(scenario())
    finally:
        server.close()
    # While busy no worker was started: every idle worker then was one from before.
    assert started_while_busy == 0
    assert idle_while_busy - idle_before == set()
    assert idle_after >= TARGET


def _run_fresh_driver(script: str, home: Path) -> tuple[int, Any]:
    """Run `script` in a new Python process (its own Ray): exit code, last line as JSON."""
    env = {**os.environ, "LYRA_HOME": str(home), "RAY_AUTH_MODE": "disabled"}
    env.pop("RAY_ADDRESS", None)

    async def run() -> tuple[int, bytes]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", script, env=env, stdout=asyncio.subprocess.PIPE
        )
        out, _ = await asyncio.wait_for(proc.communicate(), timeout=120)
        return proc.returncode or 0, out

    code, out = asyncio.run(run())
    lines = out.decode().strip().splitlines()
    return code, json.loads(lines[-1]) if lines else None


def test_ensure_ray_starts_a_local_ray_without_runtime_env_and_with_preloads(
    tmp_path: Path,
) -> None:
    """In its own process: the session's Ray is not started by `ensure_ray`."""
    script = (
        "import json, os, sys, ray\n"
        "from lyra.actors.runtime import ensure_ray\n"
        "from lyra.config.settings import load_settings\n"
        "ensure_ray(load_settings(ray={'namespace': 'standby-test', 'num_cpus': 1,"
        " 'include_dashboard': False}))\n"
        "@ray.remote\n"
        "def probe():\n"
        "    return {'home': os.environ.get('LYRA_HOME'),"
        " 'preloaded': 'lyra.actors.preload' in sys.modules,"
        " 'serialization_ready': sys.modules['lyra.actors.preload'].SERIALIZATION_READY,"
        " 'runtime_env': dict(ray.get_runtime_context().runtime_env)}\n"
        "print(json.dumps(ray.get(probe.remote())))\n"
        "ray.shutdown()\n"
    )
    code, last = _run_fresh_driver(script, tmp_path)

    assert code == 0
    assert last == {
        "home": str(tmp_path),
        "preloaded": True,
        "serialization_ready": True,
        "runtime_env": {},
    }


class _Pacer(HttpPath):
    """The pacing part of a fetcher: its bucket, clock file and token bookkeeping."""

    def __init__(self, root: Path) -> None:
        self._bucket = TokenBucket(4.0)
        self._clock = PolitenessClock(root, "wait.example")
        self._last_request_at = None
        self._requests_made = 0


def test_warm_serialization_builds_the_jobs_serialization_context(tmp_path: Path) -> None:
    """In a fresh driver: before, the job has no serialization context; after, it has."""
    script = (
        "import json, sys\n"
        "from ray._private.worker import global_worker as w\n"
        "from lyra.actors.runtime import ensure_ray, warm_serialization\n"
        "from lyra.config.settings import load_settings\n"
        "ensure_ray(load_settings(ray={'namespace': 'warm-test', 'num_cpus': 1,"
        " 'include_dashboard': False}))\n"
        "before = w.current_job_id in w.serialization_context_map\n"
        "ok = warm_serialization()\n"
        "after = w.current_job_id in w.serialization_context_map\n"
        "print(json.dumps([before, ok, after, 'pydantic.v1' in sys.modules]))\n"
    )
    code, last = _run_fresh_driver(script, tmp_path)

    assert code == 0
    assert last == [False, True, True, True]


def test_politeness_wait_is_never_short_and_its_clock_never_early(tmp_path: Path) -> None:
    pacer = _Pacer(tmp_path)

    async def scenario() -> list[tuple[float, float, float]]:
        rows = []
        for _ in range(3):
            pacer._take_token()
            due = time.monotonic() + pacer._bucket.wait_time()
            await pacer._wait_for_slot()
            left_mono, left_wall = time.monotonic(), time.time()
            rows.append((left_mono - due, pacer._clock.read() or 0.0, left_wall))
        return rows

    rows = asyncio.run(scenario())

    assert len(rows) == 3
    for late_by, clock, departed in rows:
        assert late_by >= 0.0
        # `departed` is read just after the call returns; the record is made inside it.
        assert clock >= departed - RETURN_S
        assert clock - departed <= CLOCK_MARGIN_S + DRIFT_S


def test_a_wake_up_later_than_the_margin_records_the_real_departure(tmp_path: Path) -> None:
    """The loop is blocked past the wait's end (a loaded machine): the clock follows."""
    pacer = _Pacer(tmp_path)
    blocked_s = 5 * CLOCK_MARGIN_S

    async def scenario() -> tuple[float, float, float]:
        pacer._take_token()
        due = time.monotonic() + pacer._bucket.wait_time()

        async def block_the_loop() -> None:
            await asyncio.sleep(max(0.0, due - time.monotonic() - 0.01))
            time.sleep(blocked_s)  # holds the event loop, as a busy CPU would

        blocker = asyncio.create_task(block_the_loop())
        await pacer._wait_for_slot()
        left_mono, left_wall = time.monotonic(), time.time()
        await blocker
        return left_mono - due, pacer._clock.read() or 0.0, left_wall

    late_by, clock, departed = asyncio.run(scenario())

    assert late_by > CLOCK_MARGIN_S
    assert clock >= departed - RETURN_S
    assert clock <= departed


def test_sleep_precisely_never_ends_early() -> None:
    async def scenario() -> list[float]:
        short = []
        for seconds in (0.0005, 0.003, 0.02):
            start = time.monotonic()
            await sleep_precisely(seconds)
            short.append(time.monotonic() - start - seconds)
        return short

    assert min(asyncio.run(scenario())) >= 0.0
