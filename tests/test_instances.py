"""Many Lyra processes on one machine (issue 13 item 1), through the real entry points.

Same LYRA_HOME: two `lyra serve`, each driven by the official MCP client over stdio,
share one Ray, one graph and one `DomainFetcher` per site; the loopback site's own log
shows one politeness schedule across both; the first exits, a third is killed with
SIGKILL while the second searches, and the second still answers and completes.
Different LYRA_HOMEs: independent instances on different ports, a port held by
another program and stale or foreign records under LYRA_HOME included.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import psutil
import pytest
from mcp import Client, StdioServerParameters

from lyra.actors import instance
from lyra.actors.instance import (
    attach_or_start,
    free_port,
    live_clients,
    live_record,
    ports_lock,
    quiet_seconds,
    read_record,
    record_path,
    stop_instance,
)
from lyra.actors.instance import pid_alive as alive
from tests.conftest import REPO
from tests.conftest_web import FixtureServer

LYRA = str(Path(sys.executable).with_name("lyra"))
QPS = 2.0
# The allowance for two clocks (fetcher worker, server thread), as in test_politeness.
MIN_GAP = 1 / QPS - 0.05
PAGES = 4

PAGE = """<!doctype html><html><head><title>{title}</title></head><body><article>
<h1>{title}</h1>
<p>In a randomised trial of {n} adults, daily coffee intake of three cups lowered the risk
of type 2 diabetes by about {pct} percent over ten years compared with no coffee.</p>
<p>Participants who drank decaffeinated coffee showed a similar reduction of {pct2} percent,
which suggests that compounds other than caffeine are responsible.</p>
</article></body></html>"""


def page(i: int, side: str) -> bytes:
    title = f"Coffee and diabetes, report {side}{i}"
    return PAGE.format(title=title, n=100 + i, pct=10 + i, pct2=5 + i).encode()


def lyra_env(home: Path, config: str) -> dict[str, str]:
    """The environment of a user's MCP client: no Ray or Lyra variables but these."""
    home.mkdir(parents=True, exist_ok=True)
    cfg = home / "user.yaml"
    cfg.write_text(config)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LYRA_", "RAY_"))}
    env.update({"LYRA_HOME": str(home), "LYRA_CONFIG": str(cfg)})
    return env


def serve(env: dict[str, str], *extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=LYRA, args=["serve", *extra], env=env, cwd=str(REPO))


def lyra(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LYRA, *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def clients(home: Path) -> dict[int, dict[str, Any]]:
    folder = home / "run" / "clients"
    return {int(p.stem): json.loads(p.read_text()) for p in folder.glob("*.json")}


def wait_until(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"not within {timeout}s: {what}")
        time.sleep(0.2)


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    res = await client.call_tool(tool, args)
    assert res.is_error is False, res.content[0].text
    out: dict[str, Any] = res.structured_content
    return out


SHARED_CONFIG = f"""
ray:
  include_dashboard: false
  idle_shutdown_seconds: 2
network:
  allow_private_targets: true
  allowed_hosts: ["127.0.0.0/8"]
fetch:
  default_qps: {QPS}
  standby_workers: 1
llm:
  ollama_host: http://127.0.0.1:9
"""


async def test_two_serves_with_one_home_share_ray_graph_and_politeness(tmp_path: Path) -> None:
    site = FixtureServer("127.0.0.1")
    site.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", content_type="text/plain")
    for i, side in itertools.product(range(PAGES), "abc"):
        site.route(f"/{side}{i}.html", body=page(i, side))
    home = tmp_path / "home"
    env = lyra_env(home, SHARED_CONFIG)
    try:
        async with Client(serve(env), read_timeout_seconds=300) as second:
            async with Client(serve(env), read_timeout_seconds=300) as first:
                task_a = await call(first, "create_task", {"query": "coffee and diabetes"})
                task_b = await call(second, "create_task", {"query": "coffee and diabetes"})
                registered = clients(home)
                assert sorted(c["role"] for c in registered.values()) == ["mcp", "mcp"]
                first_pid = min(registered, key=lambda pid: registered[pid]["since"])
                second_pid = max(registered, key=lambda pid: registered[pid]["since"])

                def search(client: Client, task: dict[str, Any], side: str) -> Any:
                    urls = [site.url(f"/{side}{i}.html") for i in range(PAGES)]
                    args = {"urls": urls, "engines": [], "wait_seconds": 110}
                    return call(
                        client,
                        "search",
                        {"task_id": task["task_id"], "query": "coffee diabetes", "options": args},
                    )

                found_a, found_b = await asyncio.gather(
                    search(first, task_a, "a"), search(second, task_b, "b")
                )
                # One site is one independent source: "partial" (3 make "satisfied").
                assert (found_a["status"], found_a["pages_fetched"]) == ("partial", PAGES)
                assert (found_b["status"], found_b["pages_fetched"]) == ("partial", PAGES)
                st_a = await call(first, "get_status", {"task_id": task_a["task_id"]})
                st_b = await call(second, "get_status", {"task_id": task_b["task_id"]})
                inst_a, inst_b = st_a["metrics"]["instance"], st_b["metrics"]["instance"]
                assert inst_a["mode"] == inst_b["mode"] == "shared"
                assert inst_a["ray_address"] == inst_b["ray_address"]
                assert inst_a["lyra_processes"] == 2

            # The first client has closed its `lyra serve`; that process exits.
            wait_until(lambda: not alive(first_pid), 60, "the first lyra serve exits")
            # A third `lyra serve` joins, and is killed with SIGKILL while the second
            # searches again.
            async with Client(serve(env), read_timeout_seconds=300) as third:
                await call(third, "create_task", {"query": "decaffeinated coffee"})
                (third_pid,) = set(clients(home)) - {second_pid}
                urls = [site.url(f"/c{i}.html") for i in range(PAGES)]
                running = await call(
                    second,
                    "search",
                    {
                        "task_id": task_b["task_id"],
                        "query": "decaffeinated coffee",
                        "options": {"urls": urls, "engines": [], "wait_seconds": 0},
                    },
                )
                os.kill(third_pid, signal.SIGKILL)
                wait_until(lambda: not alive(third_pid), 30, "the third lyra serve is gone")
            done = await call(
                second,
                "get_status",
                {"task_id": task_b["task_id"], "wait_seconds": 110},
            )
            by_id = {s["search_id"]: s for s in done["searches"]}
            assert by_id[running["search_id"]]["status"] == "partial"
            assert by_id[running["search_id"]]["metrics"]["pages_fetched"] == PAGES
            # One graph: the second client sees the pages the first one's search stored.
            rows = await call(
                second,
                "query_graph",
                {
                    "sql": f"SELECT count(*), count(DISTINCT url) FROM pages "
                    f"WHERE url LIKE '{site.origin}/%'"
                },
            )
            assert rows["rows"] == [[3 * PAGES, 3 * PAGES]]
    finally:
        site.close()
    # One DomainFetcher for the site across both clients: one politeness schedule.
    times = sorted(r.at for r in site.requests)
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert len(times) == 3 * PAGES + 1  # every page once, robots.txt once
    assert min(gaps) >= MIN_GAP, sorted(gaps)[:3]
    # With no client left the instance stops after its idle grace.
    wait_until(lambda: not record_path(home).exists(), 60, "the shared Ray stops")


def listening_socket() -> socket.socket:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    return s


def _listening(home: Path) -> set[tuple[str, int]]:
    """(address, port) of every socket listening in the Ray instance of `home`."""
    record = read_record(home)
    assert record is not None
    host = psutil.Process(record.host_pid)
    found = set()
    for proc in [host, *host.children(recursive=True)]:
        try:
            sockets = proc.net_connections(kind="inet")
        except psutil.NoSuchProcess:  # a worker that exited meanwhile listens nowhere
            continue
        found |= {(c.laddr.ip, c.laddr.port) for c in sockets if c.status == psutil.CONN_LISTEN}
    return found


async def test_two_homes_run_independent_instances_on_free_ports(tmp_path: Path) -> None:
    held = listening_socket()  # "another program" on the configured dashboard port
    port = held.getsockname()[1]
    config = f"""
ray:
  dashboard_port: {port}
  idle_shutdown_seconds: 600
fetch:
  standby_workers: 0
llm:
  ollama_host: http://127.0.0.1:9
"""
    env1, env2 = lyra_env(tmp_path / "one", config), lyra_env(tmp_path / "two", config)
    # A damaged record and the record of a Lyra that died: both stale, both replaced.
    record_path(tmp_path / "one").parent.mkdir(parents=True)
    record_path(tmp_path / "one").write_text("{not json")
    stale = {
        "home": str((tmp_path / "two").resolve()),
        "host_pid": 2**22 + 17,  # above Linux's largest pid: a process that is gone
        "gcs_address": "127.0.0.1:9",
        "namespace": "lyra",
        "auth_mode": "token",
        "metrics_export_port": 9,
        "version": 1,
    }
    record_path(tmp_path / "two").parent.mkdir(parents=True)
    record_path(tmp_path / "two").write_text(json.dumps(stale))
    try:
        async with (
            Client(serve(env1), read_timeout_seconds=300) as one,
            Client(serve(env2), read_timeout_seconds=300) as two,
        ):
            tasks = await asyncio.gather(
                call(one, "create_task", {"query": "q one"}),
                call(two, "create_task", {"query": "q two"}),
            )
            st1 = await call(one, "get_status", {"task_id": tasks[0]["task_id"]})
            st2 = await call(two, "get_status", {"task_id": tasks[1]["task_id"]})
            i1, i2 = st1["metrics"]["instance"], st2["metrics"]["instance"]
            assert (i1["home"], i2["home"]) == (
                str((tmp_path / "one").resolve()),
                str((tmp_path / "two").resolve()),
            )
            for key in ("gcs_port", "dashboard_port", "metrics_export_port"):
                assert i1[key] != i2[key], key
            assert port not in (i1["dashboard_port"], i2["dashboard_port"])
            for info in (i1, i2):
                with urllib.request.urlopen(info["dashboard_url"], timeout=10) as resp:
                    assert resp.status == 200
                metrics = f"http://127.0.0.1:{info['metrics_export_port']}/metrics"
                with urllib.request.urlopen(metrics, timeout=10) as resp:
                    assert resp.status == 200
            # Ray listens on loopback only: its GCS, raylet, workers and metrics.
            listening = _listening(tmp_path / "one")
            assert {i1["gcs_port"], i1["metrics_export_port"]} <= {p for _, p in listening}
            assert {ip for ip, _ in listening} <= {"127.0.0.1", "::ffff:127.0.0.1"}
            # Each home's task lives in its own graph.
            other = await one.call_tool("get_status", {"task_id": tasks[1]["task_id"]})
            assert other.is_error is True
            assert "TASK_NOT_FOUND" in other.content[0].text
            doctor = json.loads(lyra(["doctor", "--json"], env1).stdout)
            ray_row = next(r for r in doctor if r["component"] == "ray")
            assert f"dashboard {i1['dashboard_url']}" in ray_row["detail"]
            listed = json.loads(lyra(["instances", "--json"], env1).stdout)
            mine = {r["home"]: r for r in listed if r["home"] in (i1["home"], i2["home"])}
            assert {h: r["dashboard_port"] for h, r in mine.items()} == {
                i1["home"]: i1["dashboard_port"],
                i2["home"]: i2["dashboard_port"],
            }
            refused = lyra(["down"], env1)
            assert refused.returncode == 1
            assert "1 Lyra process(es) still use it" in refused.stderr
            # --force stops the home's clients first: none is left blocking on its Ray.
            [serve_two] = clients(tmp_path / "two")
            forced = lyra(["down", "--force"], env2)
            assert forced.returncode == 0, forced.stderr
            assert forced.stdout.splitlines() == [
                f"stopped 1 Lyra process(es) that used {i2['home']} (pid {serve_two})",
                f"stopped the Lyra instance of {i2['home']}",
            ]
            assert not alive(serve_two)
        record = read_record(tmp_path / "one")
        assert record is not None
        down = lyra(["down"], env1)
        assert down.returncode == 0, down.stderr
        assert down.stdout.strip() == f"stopped the Lyra instance of {i1['home']}"
        assert not alive(record.host_pid)
        assert not record_path(tmp_path / "one").exists()
        assert lyra(["stop"], env2).stdout.strip() == f"no Lyra instance runs for {i2['home']}"
        running = {r["home"] for r in json.loads(lyra(["instances", "--json"], env2).stdout)}
        assert running & {i1["home"], i2["home"]} == set()
    finally:
        held.close()
        for home in (tmp_path / "one", tmp_path / "two"):
            stop_instance(home)  # nothing lingers after a failure (idle grace 600 s)


def test_a_host_that_cannot_start_falls_back_to_a_private_ray_and_says_so(
    tmp_path: Path,
) -> None:
    """In its own process: the shared Ray cannot start, Lyra runs on a private one and
    every response's `_lyra_meta.degraded` says why."""
    script = (
        "import json\n"
        "import lyra.actors.instance as inst\n"
        "import lyra.actors.runtime as rt\n"
        "from lyra.config.settings import load_settings\n"
        "def refuse(*args, **kwargs):\n"
        "    raise inst.InstanceError('host exited with code 1')\n"
        "rt.attach_or_start = refuse\n"
        "rt.ensure_ray(load_settings(ray={'include_dashboard': False, 'num_cpus': 1}))\n"
        "print(json.dumps([rt.instance_info()['mode'], rt.degraded_notes()]))\n"
    )
    env = lyra_env(tmp_path / "home", "llm:\n  ollama_host: http://127.0.0.1:9\n")
    proc = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    mode, notes = json.loads(proc.stdout.strip().splitlines()[-1])
    assert mode == "private"
    assert len(notes) == 1
    assert notes[0].startswith(
        "ray: the shared Ray of this LYRA_HOME could not be used "
        "(InstanceError: host exited with code 1)"
    )
    assert not record_path(tmp_path / "home").exists()


def test_two_homes_started_at_the_same_moment_each_get_their_shared_ray(
    tmp_path: Path,
) -> None:
    """Both want the configured dashboard port. They choose their ports one at a time
    (`ports_lock`): the second finds it taken and takes a free one at once. Before, both
    found it free, and the one that lost the bind only learnt it when Ray gave up on its
    dashboard, about 55 s later, before its host started again on another port."""
    port = free_port()
    options = {"namespace": "lyra", "num_cpus": 1, "include_dashboard": True,
               "dashboard_port": port, "idle_shutdown_seconds": 600}  # fmt: skip
    homes = [tmp_path / "a", tmp_path / "b"]
    try:
        with ThreadPoolExecutor(2) as pool:
            started = list(pool.map(lambda home: attach_or_start(home, options, "test"), homes))
        assert [i.home for i in started] == [str(h.resolve()) for h in homes]
        assert sorted(i.dashboard_port == port for i in started) == [False, True]
        assert started[0].dashboard_port != started[1].dashboard_port
        assert started[0].gcs_address != started[1].gcs_address
        assert [alive(i.host_pid) for i in started] == [True, True]
        # Each host started once: no Ray of theirs failed to bind and started again.
        logs = [(h / "logs" / "ray-host.log").read_text() for h in homes]
        assert [log.count("Ray for ") for log in logs] == [1, 1]
        assert [log.count("address already in use") for log in logs] == [0, 0]
    finally:
        for home in homes:
            stop_instance(home)


def test_a_record_with_fields_of_the_wrong_type_is_stale(tmp_path: Path) -> None:
    """`"host_pid": "abc"` had ended doctor, down and research in a TypeError; it is a
    damaged record like any other: not an instance, replaced at the next start."""
    home = tmp_path / "home"
    record_path(home).parent.mkdir(parents=True)
    record_path(home).write_text(json.dumps({
        "version": 1, "home": str(home), "host_pid": "abc", "gcs_address": 12345,
        "namespace": "lyra", "auth_mode": "token", "metrics_export_port": 9,
    }))  # fmt: skip
    with pytest.raises(ValueError, match="host_pid is 'abc', not of the type Lyra writes"):
        read_record(home)
    assert live_record(home) is None
    assert stop_instance(home) is False
    doctor = lyra(["doctor", "--json"], lyra_env(home, "llm:\n  enabled: false\n"))
    ray_row = next(r for r in json.loads(doctor.stdout) if r["component"] == "ray")
    assert "Traceback" not in doctor.stderr
    assert ray_row["ok"] is True


def test_doctor_fails_when_the_record_is_a_folder(tmp_path: Path) -> None:
    """A folder where the record goes would leave every Lyra process of the home on a
    Ray of its own: doctor says so instead of OK."""
    home = tmp_path / "home"
    record_path(home).mkdir(parents=True)
    doctor = lyra(["doctor", "--json"], lyra_env(home, "llm:\n  enabled: false\n"))
    ray_row = next(r for r in json.loads(doctor.stdout) if r["component"] == "ray")
    assert ray_row["ok"] is False
    assert ray_row["detail"] == (
        f"{record_path(home)} is not a file: Lyra cannot record the shared Ray of this home "
        "there, so every Lyra process would run a Ray of its own; remove it"
    )


def test_a_client_that_was_there_between_two_polls_counts(tmp_path: Path) -> None:
    """A `lyra sql` is registered for about a tenth of a second; the host polls every
    half second. Its exit marks when the last client left, so a run of short commands
    keeps the instance for the grace after the last of them."""
    code = (
        "import sys; from pathlib import Path; from lyra.actors.instance import "
        "register_client; register_client(Path(sys.argv[1]), 'cli')"
    )
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True, timeout=60)
    assert live_clients(tmp_path) == []  # it has gone: no poll would have seen it

    idle_since = time.monotonic() - 30.0  # the host's first poll without a client
    assert quiet_seconds(tmp_path, idle_since) < 5.0
    left = tmp_path / "run" / "clients" / ".last-left"
    os.utime(left, (time.time() - 12.0, time.time() - 12.0))
    assert quiet_seconds(tmp_path, idle_since) == pytest.approx(12.0, abs=1.0)
    # Without any client's exit recorded, the polls alone count.
    left.unlink()
    assert quiet_seconds(tmp_path, idle_since) == pytest.approx(30.0, abs=1.0)


def test_ports_are_chosen_one_start_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A second start enters only once the first has bound its ports (left the lock);
    a temporary folder that cannot hold the lock file costs the lock, not the start."""
    monkeypatch.setattr(instance.tempfile, "gettempdir", lambda: str(tmp_path))
    events: list[str] = []

    def second() -> None:
        with ports_lock():
            events.append("second in")

    with ports_lock():
        events.append("first in")
        worker = threading.Thread(target=second)
        worker.start()
        worker.join(timeout=0.5)
        assert worker.is_alive()  # waiting for the first
        events.append("first out")
    worker.join(timeout=10)
    assert events == ["first in", "first out", "second in"]

    monkeypatch.setattr(instance.tempfile, "gettempdir", lambda: str(tmp_path / "missing"))
    with ports_lock():
        events.append("without the lock")
    assert events[-1] == "without the lock"
    assert f"cannot open {tmp_path / 'missing'}" in caplog.text
