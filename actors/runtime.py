"""Starting or joining Ray, and finding Lyra's named actors.

Every actor lives in the ``lyra`` namespace under a fixed name (ARCHITECTURE §2):
``orchestrator``, ``graph``, ``inference``, ``browser`` and ``fetch:<domain>``.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import logging.handlers
import os
import socket
import time
import warnings
from pathlib import Path
from typing import Any

import ray

from lyra.actors.instance import (
    Instance,
    InstanceError,
    attach_or_start,
    choose_port,
    home_problem,
    live_clients,
    loopback_only,
    ports_lock,
)
from lyra.config.settings import Settings
from lyra.pipelines.errors import LyraError

log = logging.getLogger(__name__)

GRAPH = "graph"
INFERENCE = "inference"
ORCHESTRATOR = "orchestrator"
BROWSER = "browser"
# Orchestrator writes the bridge sends through `Orchestrator.once` with an id of its
# own, so that one sent again after a crash answers what the first call did
# (decision 0064).
ONCE_WRITES = frozenset(
    {"feedback", "resolve_auth", "cleanup_task", "notify_user", "calibrate", "calibrate_rollback"}
)
# Custom resource of the node that holds the DuckDB file (ray_cluster.yaml).
GRAPH_RESOURCE = "lyra_graph"

# Imported by every worker of a local Ray as it starts, before it takes work.
PRELOADED_MODULES = ["lyra.actors.preload"]
# How long a cluster address may take to accept a connection before Lyra says so
# (Ray itself retries a dead address for as long as the caller waits).
RAY_PROBE_SECONDS = 5.0
# The client's side of an HTTP/2 connection start (RFC 9113 §3.4): the preface, then an
# empty SETTINGS frame, which a gRPC server answers with its own SETTINGS at once.
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
_H2_EMPTY_SETTINGS = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
_H2_SETTINGS = 4  # the frame type a gRPC server sends first


# The shared instance this process joined (actors/instance.py), None otherwise.
_joined: Instance | None = None
# Whether this process joined a cluster that RAY_ADDRESS / ray.address named.
_cluster = False
# Why the shared local Ray could not be started or joined (a private one runs instead).
_share_failure: str | None = None


def ensure_ray(settings: Settings, role: str = "client", match_settings: bool = True) -> None:
    """Join Ray (idempotent): the cluster `RAY_ADDRESS` / `ray.address` names; else the
    local Ray shared by every Lyra process of this LYRA_HOME, started when none runs
    (actors/instance.py); else (`ray.share_instance: false`) a private local Ray.

    A local Ray gets no runtime_env: its workers inherit the environment of the process
    that started it (the LYRA_* variables included), and a job runtime_env would send
    every worker start through Ray's runtime-env agent, which doubled a fetcher's
    start-up and made the raylet's idle workers unusable for actors
    (docs/decisions/0013). Its workers import `PRELOADED_MODULES` as they start.
    ``match_settings`` false: join a shared instance whatever settings it runs with.
    """
    global _joined, _cluster, _share_failure
    if ray.is_initialized():
        return
    # Every actor keeps its state under LYRA_HOME: one that cannot hold it crashed them
    # one after another, and the caller saw a minute of restarts, then a traceback.
    problem = home_problem(settings.home_dir)
    if problem is not None:
        raise LyraError(
            "INTERNAL_ERROR",
            f"LYRA_HOME {settings.home_dir} cannot hold Lyra's state ({problem}): point "
            "LYRA_HOME at a folder you may write",
        )
    address = os.environ.get("RAY_ADDRESS") or settings.ray.address
    common: dict[str, Any] = {
        "namespace": settings.ray.namespace,
        "log_to_driver": settings.ray.log_to_driver,
        "ignore_reinit_error": True,
    }
    if address:
        unreachable = probe_ray_address(address)
        if unreachable is not None:
            raise LyraError(
                "INTERNAL_ERROR",
                f"the Ray cluster that RAY_ADDRESS / ray.address names ({address}) does not "
                f"answer ({unreachable}): start it (`ray start --head`) or unset the address "
                "to run Lyra on a local Ray",
            )
        # Actors read the same settings as the driver: pass the sources on explicitly,
        # because a joined cluster's workers do not inherit this process's environment.
        env_vars = {k: v for k, v in os.environ.items() if k.startswith("LYRA_")}
        log.info("joining Ray cluster at %s", address)
        runtime_env = {"env_vars": env_vars} if env_vars else None
        ray.init(address=address, runtime_env=runtime_env, **common)
        _cluster = True
        return
    if settings.ray.share_instance:
        try:
            instance = attach_or_start(
                settings.home_dir,
                shared_ray_options(settings),
                role,
                settings_fingerprint(settings) if match_settings else None,
            )
        except (InstanceError, OSError) as exc:
            # Lyra still runs, on a Ray of its own (other processes of this home
            # cannot share it): the log says why.
            log.warning("no shared Ray for %s (%s); starting a private one", settings.home, exc)
            _share_failure = f"{type(exc).__name__}: {exc}"
        else:
            with loopback_only():  # this machine's own instance, on 127.0.0.1
                ray.init(address=instance.gcs_address, **common)
            _joined = instance
            return
    with ports_lock(), loopback_only():
        ray.init(
            # "local": a new instance even when `ray start` left one running (Ray would
            # otherwise join that one, without this process's environment or settings).
            address="local",
            num_cpus=settings.ray.num_cpus,
            include_dashboard=settings.ray.include_dashboard,
            dashboard_host="127.0.0.1",
            dashboard_port=choose_port(settings.ray.dashboard_port, "Ray dashboard"),
            _node_ip_address="127.0.0.1",
            _system_config={"preload_python_modules": PRELOADED_MODULES},
            **common,
        )


def probe_ray_address(address: str, timeout: float = RAY_PROBE_SECONDS) -> str | None:
    """Why nothing at a cluster ``address`` answers as Ray, or None when something does
    (or the address is not a host and port: ``auto`` and ``local`` are Ray's own).

    ``ray.init`` on an address where nothing listens, or where a program other than
    Ray accepts the connection and stays silent, retries without end, so a tool call
    would hang. Ray's GCS is a gRPC server: it answers the HTTP/2 connection preface
    with its SETTINGS frame at once (a Ray with TLS closes the connection), so silence
    for ``timeout``, or an answer that is no HTTP/2 SETTINGS frame (an HTTP/1 server's
    "400 Bad Request"), is taken for "not Ray".
    """
    target = address.removeprefix("ray://")
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit():
        return None
    try:
        sock = socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout)
    except OSError as exc:
        return f"{type(exc).__name__}: {exc.strerror or exc}"
    with sock:
        try:
            sock.settimeout(timeout)
            sock.sendall(_H2_PREFACE + _H2_EMPTY_SETTINGS)
            head = _recv_exactly(sock, 9)
        except TimeoutError:
            return f"it accepted the connection and said nothing for {timeout:g} s: not Ray"
        except OSError:
            # It answered by closing: a Ray with TLS (RAY_USE_TLS) ends a plaintext start.
            return None
        if not head:
            return None  # closed without a word: a TLS Ray, as above
        # An HTTP/2 frame header: 3 bytes of length, then the type, SETTINGS (4) first.
        if len(head) == 9 and head[3] == _H2_SETTINGS:
            return None
        with contextlib.suppress(OSError):  # the rest of its first line, for the message
            sock.settimeout(0.5)
            head += sock.recv(200)
    said = head.split(b"\r\n")[0][:80].decode("ascii", "replace")
    return f"it answered, but not as Ray's gRPC server does ({said!r})"


def _recv_exactly(sock: socket.socket, size: int) -> bytes:
    """Up to ``size`` bytes: fewer only when the peer closed the connection."""
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def settings_fingerprint(settings: Settings) -> str:
    """A short hash of every setting: two processes with the same one run the same Lyra."""
    return hashlib.sha256(settings.model_dump_json().encode()).hexdigest()[:16]


def shared_ray_options(settings: Settings) -> dict[str, Any]:
    """The `ray` settings the host of a shared instance starts Ray with."""
    return {
        "namespace": settings.ray.namespace,
        "num_cpus": settings.ray.num_cpus,
        "include_dashboard": settings.ray.include_dashboard,
        "dashboard_port": settings.ray.dashboard_port,
        "idle_shutdown_seconds": settings.ray.idle_shutdown_seconds,
    }


def degraded_notes() -> list[str]:
    """This process's own fallbacks, for `_lyra_meta.degraded`."""
    if _share_failure is None:
        return []
    return [
        f"ray: the shared Ray of this LYRA_HOME could not be used ({_share_failure}); this "
        "process runs its own, so other Lyra processes of this home do not share its graph "
        "or fetchers (see LYRA_HOME/logs/ray-host.log)"
    ]


def joined_instance() -> Instance | None:
    """The shared local Ray this process joined, None for a private Ray or a cluster."""
    return _joined


def actor_lifetime() -> str | None:
    """``"detached"`` in a shared instance: the orchestrator must outlive the client
    process that happened to create it (the others keep using it); the host stops the
    whole instance when the last client has gone. None (owned by this process)
    otherwise."""
    return "detached" if _joined is not None else None


def orchestrator_options(settings: Settings) -> dict[str, Any]:
    """Options of the named orchestrator: found when it runs, created when it does not."""
    return {
        "name": ORCHESTRATOR,
        "namespace": settings.ray.namespace,
        "get_if_exists": True,
        "lifetime": actor_lifetime(),
        **head_node_options(),
    }


def instance_info() -> dict[str, Any]:
    """Where this process's Ray is and which ports it uses (doctor, get_status, log)."""
    if _joined is not None:
        info: dict[str, Any] = {"mode": "shared", "home": _joined.home}
        info |= _joined.ports()
        info["lyra_processes"] = len(live_clients(Path(_joined.home)))
        return info
    if not ray.is_initialized():
        return {"mode": "not started"}
    context = ray.get_runtime_context()
    node = ray._private.worker._global_node
    info = {"mode": "cluster" if _cluster else "private", "ray_address": context.gcs_address}
    if node is not None:
        info["metrics_export_port"] = node.metrics_export_port
    return info


def gpus_for_inference(settings: Settings) -> int:
    """GPUs the inference actor requests: 1 only when the cluster really has one.

    A ``num_gpus=1`` actor waits forever on a cluster without a GPU (ENVIRONMENT.md),
    so ``auto`` asks Ray what it detected instead of assuming.
    """
    wanted = settings.inference.num_gpus
    if wanted != "auto":
        return int(wanted)
    return 1 if ray.cluster_resources().get("GPU", 0) >= 1 else 0


def inference_actor_options(settings: Settings) -> dict[str, Any]:
    """Resources of the InferenceActor: the GPU when there is one, and no CPU.

    Ray holds every resource of an actor that names any (``num_gpus=0`` included)
    for the actor's whole life, with one CPU by default. Held, that CPU is one
    fewer for the creation of every other actor: on a two-core machine fetchers
    would start one at a time, and two stacks sharing a Ray (tests, notebooks)
    would leave none, so a third stack's actors would wait forever. The actor's
    threads are the OS scheduler's business, not Ray's.
    """
    return {"num_gpus": gpus_for_inference(settings), "num_cpus": 0}


def head_node_options() -> dict[str, Any]:
    """The graph actor stays on the node that holds the database file (ARCHITECTURE §8),
    and the orchestrator, which holds the running searches, beside it.

    A cluster marks that node with the custom resource ``lyra_graph``
    (ray_cluster.yaml); each actor asks for a sliver of it, so that a re-created actor
    can be placed while the old one is still being torn down. A local Ray has no such
    resource and no such choice.
    """
    if ray.cluster_resources().get(GRAPH_RESOURCE, 0) > 0:
        return {"resources": {GRAPH_RESOURCE: 0.01}}
    return {}


# (when, alive node ids) as last asked, asked again after NODES_TTL_S: a fetcher's
# creation should not wait on the GCS each time.
_nodes_seen: tuple[float, list[str]] | None = None
_placed = 0
NODES_TTL_S = 10.0


def fetcher_scheduling() -> dict[str, Any]:
    """Fetchers spread across the nodes of a cluster (ARCHITECTURE §8), in turn: each
    new one prefers the next alive node (soft, so that a fetcher whose node is lost is
    restarted on another). On one node Ray's default placement keeps them on the
    standby workers (actors/standby.py)."""
    global _nodes_seen, _placed
    now = time.monotonic()
    if _nodes_seen is None or now - _nodes_seen[0] > NODES_TTL_S:
        alive = sorted(node["NodeID"] for node in ray.nodes() if node.get("Alive"))
        _nodes_seen = (now, alive)
    nodes = _nodes_seen[1]
    if len(nodes) < 2:
        return {}
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    node = nodes[_placed % len(nodes)]
    _placed += 1
    return {"scheduling_strategy": NodeAffinitySchedulingStrategy(node, soft=True)}


def warm_serialization() -> bool:
    """Build this process's Ray serialization context now, not on its first task.

    Ray builds it on first use, per process: it imports ``pydantic.v1`` and registers
    its serializers, about 40 ms of CPU that a new actor's first call (or a driver's
    first ``.remote()``) would otherwise spend while its site waits. Uses a Ray
    internal (2.60); when that differs, nothing is warmed and Ray does it as before.
    """
    try:
        ray._private.worker.global_worker.get_serialization_context()
    except AttributeError:
        log.warning("could not prepare Ray's serialization ahead of use", exc_info=True)
        return False
    return True


def restarted_by_ray() -> bool:
    """In an actor: True when Ray started it again after its process ended (a crash, a
    kill with a restart left); False in its first life."""
    with warnings.catch_warnings():
        # Ray 2.60 implements this property with its own deprecated `actor_id`.
        warnings.simplefilter("ignore", DeprecationWarning)
        return bool(ray.get_runtime_context().was_current_actor_reconstructed)


def report_restart(actor: str, namespace: str) -> bool:
    """In an actor's constructor: when Ray restarted it, an `actor_restart` row in
    event_log from the actor itself, so that a kill between two calls, which no caller
    meets, is recorded too. Sent, not awaited (the graph actor may be restarting as
    well); True when sent."""
    if not restarted_by_ray():
        return False
    graph = get_actor(GRAPH, namespace)
    if graph is None:
        log.warning("%s restarted; no graph actor to record it", actor)
        return False
    graph.log_event.remote(
        kind="actor_restart",
        actor=actor,
        payload={"actor": actor, "reported_by": "itself"},
        # One row per restart, whatever Ray retries: the new process names it.
        event_id=f"restart-{actor}-{os.getpid()}-{int(time.time())}",
    )
    return True


def end_for_good(handle: Any) -> None:
    """Kill an actor with no restart, so that its name is free for a new one.

    An actor dead for good (its restarts spent) whose creator still runs keeps its name
    (Ray 2.60): a lookup by name, ``get_if_exists`` included, finds the dead actor again
    instead of making a new one. Killing it releases the name; killing an actor already
    gone does nothing.
    """
    try:
        ray.kill(handle, no_restart=True)
    except Exception:  # already gone: nothing to kill
        log.debug("kill of a dead actor failed", exc_info=True)


def get_actor(name: str, namespace: str) -> Any | None:
    """The named actor if it is alive, else None."""
    try:
        return ray.get_actor(name, namespace=namespace)
    except ValueError:
        return None


LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# In a file several processes may write, each line names its process.
FILE_LOG_FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"
# Warnings and errors of every actor process, appended to one file under LYRA_HOME/logs
# (no rotation: several processes write it, and only what went wrong goes there).
ACTORS_LOG = "actors.log"
# `lyra serve`'s own log (INFO and above; tool errors with their error_id).
SERVE_LOG = "serve.log"


def log_to_home(home: Path, filename: str, level: int, *, rotate: bool) -> Path:
    """Also write this process's log records of ``level`` and above to
    ``LYRA_HOME/logs/filename`` (ARCHITECTURE §2: the logs live under LYRA_HOME, and an
    error's details are found there under its ``error_id``). Idempotent per file.

    ``rotate``: 10 MB files, three kept (only for a file one process writes).
    """
    logs = Path(home) / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    path = (logs / filename).resolve()
    root = logging.getLogger()
    for handler in root.handlers:
        if isinstance(handler, logging.FileHandler) and Path(handler.baseFilename) == path:
            return path
    handler = (
        logging.handlers.RotatingFileHandler(
            path, maxBytes=10_000_000, backupCount=3, encoding="utf-8", delay=True
        )
        if rotate
        else logging.FileHandler(path, encoding="utf-8", delay=True)
    )
    handler.setLevel(level)
    handler.setFormatter(logging.Formatter(FILE_LOG_FORMAT))
    root.addHandler(handler)
    return path


def setup_actor_logging(home: Path) -> None:
    """Actor logs go to Ray's per-worker log files (visible on the dashboard); their
    warnings and errors also to LYRA_HOME/logs/actors.log."""
    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)
    try:
        log_to_home(home, ACTORS_LOG, logging.WARNING, rotate=False)
    except OSError:  # an unwritable home must not keep the actor from starting
        log.warning("cannot write %s under %s/logs", ACTORS_LOG, home, exc_info=True)
