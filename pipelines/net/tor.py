"""Tor as an escalation path of the fetch layer (seed 003 §4.3.5, ARCHITECTURE §3 step 6).

Tor is used only when ``tor.enabled`` is set, and then only after the direct HTTP
path failed for a domain and while that domain's share of requests over Tor stays at
or below ``tor.max_usage_ratio`` (`TorUsage`). `tor_endpoint_if_enabled` is the one
entry point: disabled means nothing is started or contacted.

A launched tor gets a torrc written here: listeners on 127.0.0.1 only, cookie
authentication, and ``DisableNetwork 1`` unless ``tor.disable_network`` is false (the
packaged default keeps it on, so a fresh install never dials public relays; with the
network disabled tor opens no SOCKS listener, so the Tor path fails fast and the fetcher
escalates to the browser). ``__OwningControllerProcess`` names the launching process;
the first controller it opens then takes ownership (stem issues ``TAKEOWNERSHIP`` and
clears the option), and `TorProcess` keeps that connection open: tor exits by itself
when it closes, so a crashed orchestrator leaves no tor behind, and later short-lived
controllers of the same process no longer take ownership (which would stop tor when
they close).

Circuits are sticky per domain through Tor's ``IsolateSOCKSAuth`` (on by default):
streams with different SOCKS credentials never share a circuit, so `socks_proxy_url`
puts the domain and a ``tor.sticky_seconds`` time window in the username: one circuit
per domain per window, a fresh one in the next window (see docs/decisions/0008-tor.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import TracebackType
from typing import Any, TypedDict
from urllib.parse import quote

import stem
import stem.connection
from stem import Signal
from stem.control import Controller, EventType

from lyra.config.settings import Settings, TorSettings

LOOPBACK = "127.0.0.1"
# Tor answers a NEWNYM with "250 OK" either way; whether it applied it now or delayed
# it (rate limit: one per 10 s) only shows in the events that follow within milliseconds.
NEWNYM_EVENT_WAIT_SECONDS = 2.0
RATE_LIMITED_NOTICE = "Rate limiting NEWNYM"
# RFC 1929: the SOCKS5 username is at most 255 bytes.
MAX_SOCKS_USERNAME = 255
# Every isolation user shares this password: only the username has to differ.
SOCKS_PASSWORD = "lyra"
STOP_WAIT_SECONDS = 10.0
POLL_SECONDS = 0.05
LOG_TAIL_CHARS = 2000


class TorUnavailable(RuntimeError):
    """Tor could not be started or reached; the message names the setting to change."""


@dataclass(frozen=True)
class TorEndpoint:
    """Where a fetcher finds Tor; plain data so it pickles into Ray actors."""

    socks_port: int
    control_port: int
    cookie_path: str | None = None  # control auth cookie of a launched tor
    password: str | None = None  # controller password of a running tor


class TorStatus(TypedDict):
    """What `TorController.status` reports."""

    version: str
    bootstrap_phase: str
    bootstrap_progress: int
    network_disabled: bool
    socks_ports: list[str]  # configured (GETCONF SocksPort)
    socks_listeners: list[str]  # open now (none while the network is disabled)


def free_loopback_port() -> int:
    """A TCP port on 127.0.0.1 that is free now (tor binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


def torrc_lines(
    settings: TorSettings, data_dir: Path, socks_port: int, owner_pid: int
) -> list[str]:
    """The torrc of a launched tor: loopback-only listeners, cookie auth, network switch.

    A control port of 0 becomes ``auto`` and tor writes the port it chose to
    ``control_port`` (no race between picking and binding); the SOCKS port is concrete
    because with ``DisableNetwork 1`` tor opens no SOCKS listener and could not report it.
    """
    if "\n" in str(data_dir) or "\r" in str(data_dir):
        raise ValueError(f"a torrc path cannot contain a line break: {data_dir!r}")
    control = str(settings.control_port) if settings.control_port else "auto"
    lines = [
        f"DataDirectory {data_dir}",
        f"SocksPort {LOOPBACK}:{socks_port}",
        f"ControlPort {LOOPBACK}:{control}",
        f"ControlPortWriteToFile {data_dir / 'control_port'}",
        "CookieAuthentication 1",
        f"CookieAuthFile {data_dir / 'control_auth_cookie'}",
        f"SocksPolicy accept {LOOPBACK}",
        "SocksPolicy reject *",
        f"Log notice file {data_dir / 'tor.log'}",
        f"__OwningControllerProcess {owner_pid}",
    ]
    if settings.disable_network:
        lines.append("DisableNetwork 1")
    return lines


def parse_control_port_file(text: str) -> int:
    """The port from tor's ``ControlPortWriteToFile`` line ``PORT=127.0.0.1:NNNN``."""
    match = re.search(r"PORT=[^\s:]+:(\d+)", text)
    if match is None:
        raise ValueError(f"not a control port file: {text!r}")
    return int(match.group(1))


def _log_tail(*paths: Path) -> str:
    parts = []
    for path in paths:
        if path.exists():
            text = path.read_text(errors="replace").strip()
            if text:
                parts.append(text[-LOG_TAIL_CHARS:])
    return "\n".join(parts) or "(tor wrote no log)"


class TorProcess:
    """A private tor launched with a torrc of our own; `stop` ends it (idempotent)."""

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        endpoint: TorEndpoint,
        data_dir: Path,
        owner: TorController,
    ) -> None:
        self.process = process
        self.endpoint = endpoint
        self.data_dir = data_dir
        self.torrc_path = data_dir / "torrc"
        self._owner = owner  # the owning control connection; tor exits when it closes

    @classmethod
    def start(cls, settings: TorSettings, data_dir: Path) -> TorProcess:
        """Write the torrc, launch tor and wait until its control port authenticates.

        Does not wait for bootstrap: with ``DisableNetwork 1`` it never goes past 0 %.
        """
        executable = shutil.which(settings.executable)
        if executable is None:
            raise TorUnavailable(
                f"tor executable {settings.executable!r} not found: install tor "
                "or set tor.executable"
            )
        data_dir.mkdir(parents=True, exist_ok=True)
        data_dir.chmod(0o700)  # tor refuses a DataDirectory others can read
        port_file = data_dir / "control_port"
        port_file.unlink(missing_ok=True)  # a stale file would point at a dead tor
        socks_port = settings.socks_port or free_loopback_port()
        torrc = data_dir / "torrc"
        torrc.write_text("\n".join(torrc_lines(settings, data_dir, socks_port, os.getpid())) + "\n")
        stdout_path = data_dir / "tor.stdout"
        with stdout_path.open("wb") as stdout:
            # Own session: a terminal's Ctrl-C reaches us, and we stop tor in order.
            process = subprocess.Popen(
                [executable, "-f", str(torrc), "--ignore-missing-torrc"],
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            endpoint, owner = _wait_until_controllable(
                process, settings, data_dir, socks_port, stdout_path
            )
        except BaseException:
            _terminate(process)
            raise
        return cls(process, endpoint, data_dir, owner)

    def stop(self) -> None:
        """Terminate tor and wait for it; a second call does nothing."""
        self._owner.close()
        _terminate(self.process)

    def __enter__(self) -> TorProcess:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _wait_until_controllable(
    process: subprocess.Popen[bytes],
    settings: TorSettings,
    data_dir: Path,
    socks_port: int,
    stdout_path: Path,
) -> tuple[TorEndpoint, TorController]:
    """Poll until the launched tor accepts an authenticated controller; that one owns tor."""
    port_file = data_dir / "control_port"
    cookie = data_dir / "control_auth_cookie"
    deadline = time.monotonic() + settings.bootstrap_timeout_seconds
    last_error = "control port not open yet"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise TorUnavailable(
                f"tor exited with status {process.returncode} at start "
                f"(check tor.socks_port / tor.control_port):\n"
                f"{_log_tail(stdout_path, data_dir / 'tor.log')}"
            )
        if port_file.exists() and cookie.exists():
            with contextlib.suppress(ValueError):  # tor may be mid-write
                endpoint = TorEndpoint(
                    socks_port=socks_port,
                    control_port=parse_control_port_file(port_file.read_text()),
                    cookie_path=str(cookie),
                )
                try:
                    return endpoint, TorController(endpoint)
                except TorUnavailable as exc:
                    last_error = str(exc)
        time.sleep(POLL_SECONDS)
    raise TorUnavailable(
        f"tor did not answer on its control port within "
        f"{settings.bootstrap_timeout_seconds:g} s (raise tor.bootstrap_timeout_seconds): "
        f"{last_error}"
    )


def _terminate(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=STOP_WAIT_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class TorController:
    """A short-lived, authenticated stem controller: open, ask, close."""

    def __init__(self, endpoint: TorEndpoint) -> None:
        self.endpoint = endpoint
        try:
            self._controller = Controller.from_port(address=LOOPBACK, port=endpoint.control_port)
        except stem.SocketError as exc:
            raise TorUnavailable(
                f"no tor control port at {LOOPBACK}:{endpoint.control_port} "
                f"(check tor.control_port): {exc}"
            ) from exc
        try:
            self._authenticate()
        except (stem.connection.AuthenticationFailure, stem.ControllerError) as exc:
            self._controller.close()
            raise TorUnavailable(
                f"tor control port {endpoint.control_port} refused authentication "
                f"(check tor.control_password or the auth cookie): {exc}"
            ) from exc

    def _authenticate(self) -> None:
        controller = self._controller
        if self.endpoint.cookie_path is not None:
            stem.connection.authenticate_safecookie(controller, self.endpoint.cookie_path)
            # stem 1.8's explicit auth functions skip this bookkeeping (only the generic
            # `authenticate` does it); without it event subscriptions are never sent.
            controller._post_authentication()
        else:
            controller.authenticate(password=self.endpoint.password)

    def new_identity(self) -> bool:
        """SIGNAL NEWNYM: True when tor applied it now, False when rate-limited (delayed)."""
        controller = self._controller
        if not controller.is_newnym_available():
            return False
        outcome: list[bool] = []
        seen = threading.Event()

        def on_event(event: Any) -> None:
            if event.type == "SIGNAL" and event.signal == Signal.NEWNYM:
                outcome.append(True)
                seen.set()
            elif event.type == "NOTICE" and RATE_LIMITED_NOTICE in event.message:
                outcome.append(False)
                seen.set()

        controller.add_event_listener(on_event, EventType.SIGNAL, EventType.NOTICE)
        try:
            controller.signal(Signal.NEWNYM)
            seen.wait(NEWNYM_EVENT_WAIT_SECONDS)
        finally:
            controller.remove_event_listener(on_event)
        return bool(outcome) and outcome[0]

    def status(self) -> TorStatus:
        """Version, bootstrap phase, whether the network is disabled, SOCKS ports."""
        controller = self._controller
        phase = str(controller.get_info("status/bootstrap-phase"))
        progress = re.search(r"PROGRESS=(\d+)", phase)
        listeners = str(controller.get_info("net/listeners/socks", "")).split()
        return TorStatus(
            version=str(controller.get_version()).split()[0],
            bootstrap_phase=phase,
            bootstrap_progress=int(progress.group(1)) if progress else 0,
            network_disabled=controller.get_conf("DisableNetwork") == "1",
            socks_ports=[str(p) for p in controller.get_conf("SocksPort", multiple=True)],
            socks_listeners=[item.strip('"') for item in listeners],
        )

    def close(self) -> None:
        """Close the control connection (idempotent)."""
        self._controller.close()

    def __enter__(self) -> TorController:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def isolation_username(domain: str, now: float, sticky_seconds: float) -> str:
    """SOCKS username naming one circuit: this domain in this sticky window."""
    if sticky_seconds <= 0:
        raise ValueError(f"sticky_seconds must be positive, got {sticky_seconds}")
    name = f"lyra-{domain}-{int(now // sticky_seconds)}"
    if len(name.encode()) > MAX_SOCKS_USERNAME:
        name = f"lyra-{hashlib.sha256(domain.encode()).hexdigest()}-{int(now // sticky_seconds)}"
    return name


def socks_proxy_url(endpoint: TorEndpoint, domain: str, now: float, sticky_seconds: float) -> str:
    """The proxy URL of `domain`'s circuit at wall time `now`.

    ``socks5h``: the proxy resolves names, so DNS goes through Tor too (no DNS leak).
    """
    user = quote(isolation_username(domain, now, sticky_seconds), safe="")
    return f"socks5h://{user}:{SOCKS_PASSWORD}@{LOOPBACK}:{endpoint.socks_port}"


class TorUsage:
    """Per-domain share of requests that went over Tor, kept at or below `max_ratio`.

    A Tor request is allowed when, counting it, Tor's share stays ≤ `max_ratio`:
    ``(tor + 1) / (total + 1) <= max_ratio``. So a domain's first requests are never
    over Tor: with the default 0.2 the fifth request is the earliest (after four direct
    ones), which keeps Tor an escalation path rather than a first resort. Counts cover
    the domain's whole history (they persist with the fetcher's state).
    """

    def __init__(self, max_ratio: float = 0.2, state: dict[str, Any] | None = None) -> None:
        if not 0.0 <= max_ratio <= 1.0:
            raise ValueError(f"max_ratio must be within [0, 1], got {max_ratio}")
        self.max_ratio = max_ratio
        # Exact rational so 1/5 <= 0.2 holds at the boundary (no float drift).
        self._limit = Fraction(str(max_ratio))
        self._counts: dict[str, tuple[int, int]] = {}  # domain -> (total, tor)
        for domain, counts in (state or {}).items():
            total, tor = int(counts["total"]), int(counts["tor"])
            if not 0 <= tor <= total:
                raise ValueError(f"bad Tor usage counts for {domain}: {counts}")
            self._counts[domain] = (total, tor)

    def may_use(self, domain: str) -> bool:
        """Would one more request over Tor keep the domain's Tor share ≤ max_ratio?"""
        total, tor = self._counts.get(domain, (0, 0))
        return Fraction(tor + 1, total + 1) <= self._limit

    def record(self, domain: str, via_tor: bool) -> None:
        """Count one request to `domain`, over Tor or not."""
        total, tor = self._counts.get(domain, (0, 0))
        self._counts[domain] = (total + 1, tor + int(via_tor))

    def ratio(self, domain: str) -> float:
        """Tor's share of the domain's requests so far (0.0 before any)."""
        total, tor = self._counts.get(domain, (0, 0))
        return tor / total if total else 0.0

    def to_state(self) -> dict[str, Any]:
        """JSON-ready counts; `TorUsage(max_ratio, state=...)` restores them."""
        return {d: {"total": total, "tor": tor} for d, (total, tor) in self._counts.items()}


def tor_endpoint_if_enabled(
    settings: Settings, data_dir: Path
) -> tuple[TorProcess | None, TorEndpoint | None]:
    """The orchestrator's only way to Tor: nothing at all unless ``tor.enabled``.

    Launch: a private tor under `data_dir`. Otherwise: the running tor at the configured
    ports, checked once here so a wrong port or password fails at start, not per fetch.
    """
    cfg = settings.tor
    if not cfg.enabled:
        return None, None
    if cfg.launch:
        process = TorProcess.start(cfg, data_dir)
        return process, process.endpoint
    if not cfg.socks_port or not cfg.control_port:
        raise TorUnavailable(
            "tor.launch is false: set tor.socks_port and tor.control_port to the running tor's"
        )
    endpoint = TorEndpoint(
        socks_port=cfg.socks_port,
        control_port=cfg.control_port,
        cookie_path=None,
        password=cfg.control_password,
    )
    with TorController(endpoint):
        return None, endpoint
