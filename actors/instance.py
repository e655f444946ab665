"""One local Ray per LYRA_HOME, shared by every Lyra process that uses that home.

Two MCP clients (Cursor and Claude Desktop, say) each start `lyra serve`; a notebook
and the `lyra` CLI start more. With the same LYRA_HOME they must share one graph (the
DuckDB file allows one writer) and one `DomainFetcher` per site (politeness is a
promise across clients). So the first process does not start Ray inside itself: it
spawns a small **host** process (`python -m lyra.actors.instance host`) that starts a
local Ray bound to 127.0.0.1 and writes its address to ``LYRA_HOME/run/ray.json``.
Every Lyra process of that home, the first included, is then a Ray driver of that
instance and registers itself under ``LYRA_HOME/run/clients/``. The named actors are
detached, so they outlive the process that created them; the host stops the instance
``ray.idle_shutdown_seconds`` after the last registered client has gone (a client
killed with SIGKILL counts as gone: its pid is checked, not trusted).

- A record whose host is dead, whose Ray does not answer, that names another home or
  that does not parse is stale: it is replaced, with a warning in the log.
- Different homes get independent instances; the dashboard takes the configured port
  when it is free and another free port otherwise; Ray chooses the GCS and metrics
  ports itself (free ones). The record, `lyra doctor`, `lyra instances` and
  `get_status`'s metrics say which.
- `lyra down` stops the home's instance (`--all`: every one on this machine).

docs/decisions/0021-shared-local-ray.md records the choices.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import fcntl
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import typing
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

RUN_DIR = "run"
RECORD = "ray.json"
LOCK = "ray.lock"
CLIENTS = "clients"
# Touched by each client as it exits: when the last one left (`quiet_seconds`).
LEFT_MARKER = ".last-left"
# `lyra serve --http` processes of the home: pid and port (doctor, `lyra instances`).
HTTP_SERVERS = "http"
HOST_LOG = "ray-host.log"
HOST_MODULE = "lyra.actors.instance"
RECORD_VERSION = 1
# How long a new process waits for the host's Ray to come up (cold start with the
# dashboard takes 5-10 s on two cores; a loaded machine several times that).
START_TIMEOUT_S = 120.0
HOST_POLL_S = 0.5


def home_problem(home: Path) -> str | None:
    """Why Lyra cannot keep its state under ``home`` (LYRA_HOME), or None when it can:
    the folder exists or can be made, and a file can be written in it."""
    try:
        home.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=home, prefix=".lyra-write-check-"):
            pass
    except OSError as exc:
        return f"{type(exc).__name__}: {exc.strerror or exc}"
    return None


@contextlib.contextmanager
def loopback_only() -> Iterator[None]:
    """Around a ``ray.init`` that starts a local Ray: it then listens on 127.0.0.1 only.

    Ray reads the node address 127.0.0.1 as "this machine" and swaps in the machine's
    routable address (``services.resolve_ip_for_localhost``), so the GCS, the raylet
    and every worker's gRPC port listened on all interfaces, and the metrics endpoint
    (whose labels name the sites a person researches) on 0.0.0.0. Ray keeps loopback
    where it holds clusters unsupported (``ray_constants.ENABLE_RAY_CLUSTER``, read
    when the node address is worked out): off for the start, restored after, so a
    later connection of this process to a real cluster (``RAY_ADDRESS``) is untouched.
    """
    from ray._private import ray_constants

    before = getattr(ray_constants, "ENABLE_RAY_CLUSTER", None)
    if before is None:
        log.warning("this Ray has no ENABLE_RAY_CLUSTER switch: it may listen on every interface")
        yield
        return
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = before


class InstanceError(RuntimeError):
    """The shared Ray of this LYRA_HOME could not be started or joined."""


class HostExited(InstanceError):
    """The host process exited before its Ray came up."""


HOST_START_TRIES = 3


@dataclass(frozen=True)
class Instance:
    """The record of one running shared Ray (``LYRA_HOME/run/ray.json``)."""

    home: str
    host_pid: int
    gcs_address: str
    namespace: str
    auth_mode: str
    metrics_export_port: int
    dashboard_port: int | None = None
    dashboard_url: str | None = None
    session_dir: str = ""
    started_at: float = 0.0
    idle_shutdown_seconds: float = 0.0
    settings_fingerprint: str = ""
    version: int = RECORD_VERSION
    clients: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def ports(self) -> dict[str, Any]:
        """The ports a person or a scraper needs, as `get_status` and doctor report them."""
        return {
            "ray_address": self.gcs_address,
            "gcs_port": int(self.gcs_address.rsplit(":", 1)[1]),
            "dashboard_url": self.dashboard_url,
            "dashboard_port": self.dashboard_port,
            "metrics_export_port": self.metrics_export_port,
        }


# --- files under LYRA_HOME/run ------------------------------------------------------


def run_dir(home: Path) -> Path:
    return Path(home) / RUN_DIR


def record_path(home: Path) -> Path:
    return run_dir(home) / RECORD


def read_record(home: Path) -> Instance | None:
    """The record under ``home``, None when there is none; ValueError when it is damaged."""
    path = record_path(home)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    data = json.loads(raw)
    if not isinstance(data, dict) or data.get("version") != RECORD_VERSION:
        raise ValueError(f"{path}: not a Lyra instance record (version {RECORD_VERSION})")
    data.pop("clients", None)
    instance = Instance(**data)  # TypeError for a field it does not have
    _check_types(path, instance)
    return instance


def _check_types(path: Path, instance: Instance) -> None:
    """ValueError (a damaged record, replaced like any stale one) for a field that is not
    of its declared type: `"host_pid": "abc"` had ended every command in a TypeError."""
    for name, declared in typing.get_type_hints(Instance).items():
        value = getattr(instance, name)
        if declared is float and isinstance(value, int):  # JSON writes 0.0 as 0
            continue
        # `int | None` checks as it is; `list[dict[...]]` as list
        checked = list if typing.get_origin(declared) is list else declared
        if isinstance(value, bool) or not isinstance(value, checked):
            raise ValueError(f"{path}: {name} is {value!r}, not of the type Lyra writes")
    if ":" not in instance.gcs_address or not instance.gcs_address.rsplit(":", 1)[1].isdigit():
        raise ValueError(f"{path}: gcs_address {instance.gcs_address!r} is no host:port")


def _write_record(home: Path, instance: Instance) -> None:
    path = record_path(home)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(json.dumps(instance.to_json(), indent=2), encoding="utf-8")
    os.replace(tmp, path)


@contextlib.contextmanager
def _locked(home: Path) -> Iterator[None]:
    """Serialise start, attach and shutdown of one home's instance across processes."""
    run = run_dir(home)
    run.mkdir(parents=True, exist_ok=True)
    with open(run / LOCK, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# How long a starting Ray waits for another to have bound its ports (`ports_lock`).
PORTS_LOCK_WAIT_S = 60.0


@contextlib.contextmanager
def ports_lock() -> Iterator[None]:
    """Serialise, across this user's Lyra processes of every home, the time from choosing
    a Ray's ports to their being bound (the length of a `ray.init`: seconds).

    Two homes started at the same moment both found the dashboard's 8265 free, and the
    one that lost the bind only learnt it when `ray.init` gave up on its dashboard,
    after about 55 s (then its host started again on another port). In turn, the second
    finds the port taken and chooses a free one at once. A Ray that does not come up
    within ``PORTS_LOCK_WAIT_S`` is not waited for any longer (the start retries), and
    a temporary folder that cannot hold the lock file only costs the lock.
    """
    path = Path(tempfile.gettempdir()) / f"lyra-ports-{os.getuid()}.lock"
    try:
        handle = open(path, "a+")  # noqa: SIM115  # closed below, after the yield
    except OSError as exc:
        log.warning("cannot open %s (%s); choosing Ray's ports without it", path, exc)
        yield
        return
    with handle:
        deadline = time.monotonic() + PORTS_LOCK_WAIT_S
        held = False
        while not held:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held = True
            except BlockingIOError:
                if time.monotonic() > deadline:
                    log.warning(
                        "another Lyra has held %s for %.0f s; going on", path, PORTS_LOCK_WAIT_S
                    )
                    break
                time.sleep(0.05)
        try:
            yield
        finally:
            if held:
                fcntl.flock(handle, fcntl.LOCK_UN)


def _proc_stat(pid: int) -> list[str] | None:
    """Fields of /proc/PID/stat after the command name (state first), None if unreadable."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _cmdline(pid: int) -> list[str]:
    """The process's argv ([] when it is gone or unreadable)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return []


def _host_home(argv: list[str]) -> Path | None:
    """The home a Lyra host command line serves, None for any other command line."""
    if HOST_MODULE not in argv or "host" not in argv or "--home" not in argv:
        return None
    index = argv.index("--home") + 1
    return Path(argv[index]) if index < len(argv) else None


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not yet reaped by its parent) is not alive.
    fields = _proc_stat(pid)
    return fields is None or fields[0] != "Z"


def _start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (/proc/PID/stat field 22)."""
    fields = _proc_stat(pid)
    try:
        return int(fields[19]) if fields else None
    except (IndexError, ValueError):
        return None


def _is_host_process(pid: int, home: Path) -> bool:
    """Whether ``pid`` is a Lyra host process of ``home`` (not a recycled pid)."""
    served = _host_home(_cmdline(pid))
    return served is not None and served.resolve() == Path(home).resolve()


def _port_answers(address: str, timeout: float = 1.0) -> bool:
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def instance_alive(home: Path, instance: Instance) -> bool:
    """The record's host runs for this home and its Ray answers."""
    return (
        Path(instance.home) == Path(home).resolve()
        and pid_alive(instance.host_pid)
        and _is_host_process(instance.host_pid, home)
        and _port_answers(instance.gcs_address)
    )


def live_record(home: Path) -> Instance | None:
    """The running instance of ``home`` with its live clients, or None."""
    try:
        instance = read_record(home)
    except (ValueError, TypeError, OSError):
        return None
    if instance is None or not instance_alive(home, instance):
        return None
    return Instance(**{**instance.to_json(), "clients": live_clients(home)})


# --- clients ------------------------------------------------------------------------


def _client_file(home: Path, pid: int) -> Path:
    return run_dir(home) / CLIENTS / f"{pid}.json"


def _register(path: Path, **entry: Any) -> None:
    """Write this process's entry at ``path``, removed when the process exits."""
    path.parent.mkdir(parents=True, exist_ok=True)
    entry |= {"pid": os.getpid(), "since": time.time(), "started": _start_time(os.getpid())}
    path.write_text(json.dumps(entry), encoding="utf-8")
    atexit.register(_unregister, path)


def register_client(home: Path, role: str) -> None:
    """Count this process as a client of the home's instance until it exits; at its exit
    it also marks when the last client left (``quiet_seconds``)."""
    _register(_client_file(home, os.getpid()), role=role, argv=sys.argv)
    atexit.register(_mark_client_left, home)


def _left_marker(home: Path) -> Path:
    return run_dir(home) / CLIENTS / LEFT_MARKER


def _mark_client_left(home: Path) -> None:
    with contextlib.suppress(OSError):
        _left_marker(home).touch()


def quiet_seconds(home: Path, idle_since: float) -> float:
    """How long the home has had no client: since ``idle_since`` (the host's first poll
    that found none, ``time.monotonic``), and at most since the last client left.

    A `lyra sql` or `lyra export` is a client for a tenth of a second (its import and
    the Ray connection come first), so the host's polls, every ``HOST_POLL_S``, seldom
    see one; without the marker a person's run of short commands let the instance stop
    after its grace and every later command waited for a new Ray.
    """
    since_poll = time.monotonic() - idle_since
    try:
        since_left = time.time() - _left_marker(home).stat().st_mtime
    except OSError:
        return since_poll
    return max(0.0, min(since_poll, since_left))


def register_http_server(home: Path, port: int) -> None:
    """Record that this process serves MCP over HTTP on 127.0.0.1:``port``."""
    _register(run_dir(home) / HTTP_SERVERS / f"{os.getpid()}.json", port=port)


def http_servers(home: Path) -> list[dict[str, Any]]:
    """The home's live `lyra serve --http` processes: pid and port."""
    return [
        {"pid": e["pid"], "port": e.get("port")}
        for e in _live_entries(run_dir(home) / HTTP_SERVERS)
    ]


def _unregister(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def live_clients(home: Path) -> list[dict[str, Any]]:
    """The registered clients whose process still runs; the files of dead ones go."""
    return [
        {"pid": e["pid"], "role": e.get("role"), "since": e.get("since")}
        for e in _live_entries(run_dir(home) / CLIENTS)
    ]


def _live_entries(folder: Path) -> list[dict[str, Any]]:
    """The entries in ``folder`` whose process still runs; the files of dead ones go."""
    out: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            pid = int(entry["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            _unregister(path)
            continue
        # A pid that runs but started after the client registered is another process.
        same = entry.get("started") in (None, _start_time(pid))
        if pid_alive(pid) and same:
            out.append({**entry, "pid": pid})
        else:
            _unregister(path)
    return out


# --- ports --------------------------------------------------------------------------


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
    return port


def choose_port(preferred: int, what: str) -> int:
    """``preferred`` when it is free (0: any), else a free one, with a log line saying so."""
    if preferred and port_free(preferred):
        return preferred
    chosen = free_port()
    if preferred:
        log.warning("%s port %d is taken; using free port %d", what, preferred, chosen)
    return chosen


# --- attach or start ----------------------------------------------------------------


def _auth_mode() -> str:
    return os.environ.get("RAY_AUTH_MODE", "").lower() or "token"


def _use_auth_mode(mode: str) -> None:
    """Speak the instance's authentication mode (Ray reads it from the environment)."""
    if os.environ.get("RAY_AUTH_MODE", "").lower() == mode:
        return
    os.environ["RAY_AUTH_MODE"] = mode
    from ray._raylet import Config  # type: ignore[attr-defined]

    Config.initialize("")  # Ray caches its configuration; re-read it (as Ray itself does)


def attach_or_start(
    home: Path, ray_options: dict[str, Any], role: str, fingerprint: str | None = None
) -> Instance:
    """Join the running instance of ``home``, starting one when there is none.

    ``ray_options``: namespace, num_cpus, include_dashboard, dashboard_port,
    idle_shutdown_seconds (the `ray` settings). ``fingerprint``: of this process's
    settings; an instance that outlived its clients (the idle grace) with other
    settings (another corpus, say) is replaced rather than joined, since its actors run
    with the settings of the process that started them. None: any settings do (a
    query of the running Lyra). Registers this process as a client.
    """
    home = Path(home).resolve()
    with _locked(home):
        try:
            instance = read_record(home)
        except (ValueError, TypeError, OSError) as exc:
            log.warning("replacing an unreadable Ray record under %s: %s", home, exc)
            instance = None
        if instance is not None and not instance_alive(home, instance):
            log.warning(
                "replacing a stale Ray record under %s (host %d, %s no longer runs)",
                home,
                instance.host_pid,
                instance.gcs_address,
            )
            instance = None
        if (
            instance is not None
            and fingerprint is not None
            and instance.settings_fingerprint != fingerprint
        ):
            if live_clients(home):
                log.warning(
                    "joining Lyra's running Ray for %s although its settings differ from "
                    "this process's: its actors keep the settings of the process that "
                    "started them",
                    home,
                )
            else:
                log.info("restarting Lyra's idle Ray for %s with this process's settings", home)
                _stop_host(home, instance.host_pid)
                instance = None
        if instance is None:
            with contextlib.suppress(FileNotFoundError):
                record_path(home).unlink()
            options = {**ray_options, "settings_fingerprint": fingerprint or ""}
            instance = _start_host_retrying(home, options)
            log.info("started Lyra's Ray for %s at %s", home, instance.gcs_address)
        else:
            log.info("joining Lyra's running Ray for %s at %s", home, instance.gcs_address)
        register_client(home, role)
    _use_auth_mode(instance.auth_mode)
    return instance


def _start_host_retrying(home: Path, ray_options: dict[str, Any]) -> Instance:
    """``_start_host``, again when the host exited before Ray came up: two homes that
    start at the same moment both find a port free (the dashboard's 8265) and one loses
    it when binding; the next try picks another."""
    for attempt in range(1, HOST_START_TRIES + 1):
        try:
            return _start_host(home, ray_options)
        except HostExited as exc:
            if attempt == HOST_START_TRIES:
                raise
            log.warning("Lyra's Ray host for %s: %s; starting it again", home, exc)
    raise AssertionError("unreachable")


def _start_host(home: Path, ray_options: dict[str, Any]) -> Instance:
    logs = home / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["LYRA_HOME"] = str(home)
    with open(logs / HOST_LOG, "ab") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                HOST_MODULE,
                "host",
                "--home",
                str(home),
                "--options",
                json.dumps(ray_options),
            ],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # not in the client's process group: outlives it
            close_fds=True,
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        code = proc.poll()
        if code is not None:
            raise HostExited(
                f"Lyra's Ray host exited with code {code} before Ray came up; "
                f"see {logs / HOST_LOG}: {_tail(logs / HOST_LOG)}"
            )
        try:
            instance = read_record(home)
        except (ValueError, TypeError, OSError):
            instance = None
        if instance is not None and instance.host_pid == proc.pid:
            return instance
        time.sleep(HOST_POLL_S)
    proc.kill()
    raise InstanceError(
        f"Lyra's Ray did not come up within {START_TIMEOUT_S:.0f} s; see {logs / HOST_LOG}"
    )


def _tail(path: Path, lines: int = 5) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(text[-lines:])


# --- the host process ---------------------------------------------------------------


def host_main(home: Path, options: dict[str, Any]) -> int:
    """Start a local Ray, publish its record, stop it when no client is left."""
    import ray

    from lyra.actors.runtime import PRELOADED_MODULES

    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    home = Path(home).resolve()
    stopping = False

    def stop(signum: int, _frame: Any) -> None:
        nonlocal stopping
        log.info("signal %d: stopping", signum)
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    include_dashboard = bool(options.get("include_dashboard", True))
    mode = _auth_mode()
    with ports_lock(), loopback_only():
        dashboard_port = (
            choose_port(int(options.get("dashboard_port") or 0), "Ray dashboard")
            if include_dashboard
            else None
        )
        metrics_port = free_port()
        ctx = ray.init(
            address="local",
            namespace=options.get("namespace") or "lyra",
            num_cpus=options.get("num_cpus"),
            include_dashboard=include_dashboard,
            dashboard_host="127.0.0.1",
            dashboard_port=dashboard_port or 8265,
            _node_ip_address="127.0.0.1",
            _metrics_export_port=metrics_port,
            _system_config={"preload_python_modules": PRELOADED_MODULES},
            log_to_driver=False,
        )
    node = ray._private.worker._global_node
    if node is None:
        raise InstanceError("ray.init returned without a local node")
    dashboard_url = ctx.dashboard_url or None
    instance = Instance(
        home=str(home),
        host_pid=os.getpid(),
        gcs_address=node.gcs_address,
        namespace=options.get("namespace") or "lyra",
        auth_mode=mode,
        metrics_export_port=int(node.metrics_export_port),
        dashboard_port=dashboard_port,
        dashboard_url=f"http://{dashboard_url}" if dashboard_url else None,
        session_dir=str(node.get_session_dir_path()),
        started_at=time.time(),
        idle_shutdown_seconds=float(options.get("idle_shutdown_seconds", 10.0)),
        settings_fingerprint=str(options.get("settings_fingerprint") or ""),
    )
    _write_record(home, instance)
    log.info("Ray for %s: %s", home, json.dumps(instance.ports()))
    grace = instance.idle_shutdown_seconds
    idle_since: float | None = None
    try:
        while not stopping:
            time.sleep(HOST_POLL_S)
            if not home.is_dir():
                log.info("%s is gone: stopping", home)
                break
            try:
                current = read_record(home)
            except (ValueError, TypeError, OSError):
                current = None
            if current is None or current.host_pid != os.getpid():
                log.info("the record no longer names this host: stopping")
                break
            if live_clients(home):
                idle_since = None
                continue
            idle_since = idle_since or time.monotonic()
            if quiet_seconds(home, idle_since) < grace:
                continue
            with _locked(home):  # no client may join while the instance goes
                if live_clients(home):
                    idle_since = None
                    continue
                _remove_own_record(home)
                log.info("no client for %.0f s: stopping", grace)
                break
    finally:
        # Without the lock: a process that stops this host may hold it while it waits.
        _remove_own_record(home)
        ray.shutdown()
    return 0


def _remove_own_record(home: Path) -> None:
    try:
        current = read_record(home)
    except (ValueError, TypeError, OSError):
        return
    if current is not None and current.host_pid == os.getpid():
        with contextlib.suppress(OSError):
            record_path(home).unlink(missing_ok=True)


def _stop_host(home: Path, pid: int, timeout: float = 60.0) -> None:
    """SIGTERM a host of ``home`` and wait until it has exited (SIGKILL at the end)."""
    if not (pid_alive(pid) and _is_host_process(pid, home)):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if pid_alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


# --- every instance on this machine -------------------------------------------------


def host_processes() -> list[tuple[int, Path]]:
    """(pid, home) of every Lyra host process of this user on this machine."""
    out: list[tuple[int, Path]] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        home = _host_home(_cmdline(int(entry.name)))
        if home is not None and pid_alive(int(entry.name)):
            out.append((int(entry.name), home))
    return sorted(out)


def list_instances() -> list[dict[str, Any]]:
    """Every running Lyra instance: home, host pid, ports, clients."""
    out = []
    for pid, home in host_processes():
        instance = live_record(home)
        row: dict[str, Any] = {"home": str(home), "host_pid": pid}
        if instance is not None and instance.host_pid == pid:
            row |= instance.ports() | {"clients": instance.clients}
            row["http"] = http_servers(home)
        else:
            row |= {"state": "starting or stopping (no live record)"}
        out.append(row)
    return out


def stop_clients(home: Path, timeout: float = 10.0) -> list[int]:
    """SIGTERM the Lyra processes that use ``home``'s instance (`lyra down --force`),
    SIGKILL after ``timeout``; the pids signalled. Without this, a client whose Ray is
    stopped under it blocks on its next call until Ray's driver gives the GCS up (60 s)
    and then exits anyway. A pid is signalled only while it is still the process that
    registered (same start time), and one this user may not signal is left alone."""

    def signal_if_same(pid: int, started: Any, sig: int) -> bool:
        if started is not None and _start_time(pid) != started:
            return False  # gone, and the pid taken by another process
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    clients = [
        (int(c["pid"]), c.get("started"))
        for c in _live_entries(run_dir(home) / CLIENTS)
        if int(c["pid"]) != os.getpid()
    ]
    signalled = [
        (pid, started) for pid, started in clients if signal_if_same(pid, started, signal.SIGTERM)
    ]
    deadline = time.monotonic() + timeout
    while any(pid_alive(p) for p, _ in signalled) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid, started in signalled:
        if pid_alive(pid):
            signal_if_same(pid, started, signal.SIGKILL)
    return [pid for pid, _ in signalled]


def stop_instance(home: Path, timeout: float = 60.0) -> bool:
    """Stop the host of ``home`` (SIGTERM, then SIGKILL); False when none ran."""
    home = Path(home).resolve()
    pids = [pid for pid, h in host_processes() if h.resolve() == home]
    for pid in pids:
        _stop_host(home, pid, timeout)
    with contextlib.suppress(OSError), _locked(home):
        instance = None
        with contextlib.suppress(ValueError, TypeError, OSError):
            instance = read_record(home)
        if instance is not None and not instance_alive(home, instance):
            record_path(home).unlink(missing_ok=True)
    return bool(pids)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=f"python -m {HOST_MODULE}")
    sub = p.add_subparsers(dest="command", required=True)
    h = sub.add_parser("host", help="run the shared Ray of one LYRA_HOME (started by Lyra)")
    h.add_argument("--home", required=True)
    h.add_argument("--options", default="{}", help="the `ray` settings as JSON")
    args = p.parse_args(argv)
    return host_main(Path(args.home), json.loads(args.options))


if __name__ == "__main__":
    raise SystemExit(main())
