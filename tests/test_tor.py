"""Tor support against a real tor (pipelines/net/tor.py, docs/decisions/0008-tor.md).

Every tor started here runs with ``DisableNetwork 1`` and listens on 127.0.0.1 only
(ENVIRONMENT.md: a tor without it dials public relays). One launched tor serves the
module; a second one, started by hand with a hashed control password, stands in for
a user's already-running tor.
"""

from __future__ import annotations

import binascii
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import psutil
import pytest
from curl_cffi import CurlECode
from curl_cffi import requests as curl_requests

from lyra.pipelines.net.tor import (
    TorController,
    TorEndpoint,
    TorProcess,
    TorUnavailable,
    TorUsage,
    free_loopback_port,
    parse_control_port_file,
    socks_proxy_url,
    tor_endpoint_if_enabled,
    torrc_lines,
)
from tests.conftest import make_settings
from tests.conftest_web import (  # noqa: F401 - pytest fixture used by parameter name
    FixtureServer,
    fixture_server_fixture,
)

TOR = shutil.which("tor")
pytestmark = pytest.mark.skipif(TOR is None, reason="the tor binary is not installed")

PASSWORD = "correct horse"
WINDOW = 900.0


def _tor_children() -> list[int]:
    """PIDs of tor processes started by this test process (other sessions' tors excluded).

    A child that exits between the listing and the reading of its name (a Ray worker of
    an earlier test) is no tor of this test.
    """
    return _children_named("tor")


def _children_named(name: str) -> list[int]:
    """PIDs of this process's descendants called `name`; one that exits while they are
    listed is not one of them."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if child.name() == name:
                found.append(child.pid)
        except psutil.NoSuchProcess:
            continue
    return sorted(found)


def _tor_version() -> str:
    out = subprocess.run([str(TOR), "--version"], capture_output=True, text=True, check=True)
    return out.stdout.split()[2].rstrip(".")  # "Tor version 0.4.9.11."


def _raw_control(port: int, cookie_path: str, command: str) -> str:
    """One command on the control port, spoken by hand (independent of stem)."""
    cookie = binascii.hexlify(Path(cookie_path).read_bytes()).decode()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        stream = sock.makefile("rwb")
        stream.write(f"AUTHENTICATE {cookie}\r\nGETCONF {command}\r\nQUIT\r\n".encode())
        stream.flush()
        auth = stream.readline().decode().strip()
        assert auth == "250 OK"
        return stream.readline().decode().strip()


@pytest.fixture(scope="module")
def tor_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tor-home")


@pytest.fixture(scope="module")
def tor_process(tor_home: Path) -> Iterator[TorProcess]:
    """The module's launched tor (DisableNetwork 1, ports on 127.0.0.1).

    With the network disabled tor opens no SOCKS listener, so nothing holds its SOCKS
    port: a later control port (``auto``) or server could take it and answer a SOCKS
    greeting with its own bytes. The module holds the port bound, never listening, so a
    connection to it is refused for as long as the tor runs.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as reserved:
        reserved.bind(("127.0.0.1", 0))
        socks_port = reserved.getsockname()[1]
        settings = make_settings(
            tor_home,
            tor={"enabled": True, "bootstrap_timeout_seconds": 20, "socks_port": socks_port},
        )
        process, endpoint = tor_endpoint_if_enabled(settings, tor_home / "tor")
        assert process is not None
        assert endpoint == process.endpoint
        assert endpoint.socks_port == socks_port
        yield process
        process.stop()


@pytest.fixture(scope="module")
def password_tor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TorEndpoint]:
    """A tor we did not launch through Lyra: password auth only, like a system tor."""
    data_dir = tmp_path_factory.mktemp("password-tor")
    data_dir.chmod(0o700)
    hashed = subprocess.run(
        [str(TOR), "--quiet", "--hash-password", PASSWORD],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    socks_port = free_loopback_port()
    torrc = data_dir / "torrc"
    torrc.write_text(
        "\n".join(
            [
                f"DataDirectory {data_dir}",
                f"SocksPort 127.0.0.1:{socks_port}",
                "ControlPort 127.0.0.1:auto",
                f"ControlPortWriteToFile {data_dir / 'control_port'}",
                f"HashedControlPassword {hashed}",
                f"Log notice file {data_dir / 'tor.log'}",
                "DisableNetwork 1",
            ]
        )
        + "\n"
    )
    proc = subprocess.Popen(
        [str(TOR), "-f", str(torrc), "--ignore-missing-torrc"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    port_file = data_dir / "control_port"
    deadline = time.monotonic() + 20
    while not port_file.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert port_file.exists(), (data_dir / "tor.log").read_text()
    yield TorEndpoint(
        socks_port=socks_port,
        control_port=parse_control_port_file(port_file.read_text()),
        password=PASSWORD,
    )
    proc.terminate()
    proc.wait(timeout=10)


# --- torrc ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("disable_network", "control_port", "expected_control"),
    [
        (True, 0, "ControlPort 127.0.0.1:auto"),
        (True, 9151, "ControlPort 127.0.0.1:9151"),
        (False, 0, "ControlPort 127.0.0.1:auto"),
    ],
)
def test_torrc_lines_bind_loopback_and_switch_network(
    tmp_path: Path, disable_network: bool, control_port: int, expected_control: str
) -> None:
    settings = make_settings(
        tmp_path, tor={"disable_network": disable_network, "control_port": control_port}
    ).tor
    lines = torrc_lines(settings, tmp_path, 9150, 4242)
    assert ("DisableNetwork 1" in lines) is disable_network
    assert "SocksPort 127.0.0.1:9150" in lines
    assert expected_control in lines
    assert [line for line in lines if line.split()[0] in {"SocksPort", "ControlPort"}] == [
        "SocksPort 127.0.0.1:9150",
        expected_control,
    ]
    assert f"Log notice file {tmp_path / 'tor.log'}" in lines
    assert "__OwningControllerProcess 4242" in lines
    assert "SocksPolicy accept 127.0.0.1" in lines
    assert "SocksPolicy reject *" in lines
    assert "CookieAuthentication 1" in lines


def test_torrc_refuses_line_breaks_in_paths(tmp_path: Path) -> None:
    settings = make_settings(tmp_path).tor
    with pytest.raises(ValueError, match="line break"):
        torrc_lines(settings, tmp_path / "x\nDisableNetwork 0", 9150, 4242)


def test_launched_torrc_file_disables_network_and_binds_loopback_only(
    tor_process: TorProcess,
) -> None:
    lines = tor_process.torrc_path.read_text().splitlines()
    assert "DisableNetwork 1" in lines
    binds = [line for line in lines if line.split()[0] in {"SocksPort", "ControlPort"}]
    assert binds == [
        f"SocksPort 127.0.0.1:{tor_process.endpoint.socks_port}",
        "ControlPort 127.0.0.1:auto",
    ]
    assert f"DataDirectory {tor_process.data_dir}" in lines
    # What the kernel says tor listens on: only the control port, only on loopback
    # (with the network disabled tor opens no SOCKS listener at all).
    listening = {
        (c.laddr.ip, c.laddr.port)
        for c in psutil.Process(tor_process.process.pid).net_connections(kind="inet")
        if c.status == psutil.CONN_LISTEN
    }
    assert listening == {("127.0.0.1", tor_process.endpoint.control_port)}


# --- controller ----------------------------------------------------------------------------


def test_cookie_auth_status_reports_disabled_network(tor_process: TorProcess) -> None:
    endpoint = tor_process.endpoint
    assert endpoint.cookie_path == str(tor_process.data_dir / "control_auth_cookie")
    assert _raw_control(endpoint.control_port, endpoint.cookie_path, "DisableNetwork") == (
        "250 DisableNetwork=1"
    )
    with TorController(endpoint) as controller:
        status = controller.status()
    assert status == {
        "version": _tor_version(),
        "bootstrap_phase": 'NOTICE BOOTSTRAP PROGRESS=0 TAG=starting SUMMARY="Starting"',
        "bootstrap_progress": 0,
        "network_disabled": True,
        "socks_ports": [f"127.0.0.1:{endpoint.socks_port}"],
        "socks_listeners": [],
    }
    # A short-lived controller of the launching process must not own tor.
    assert tor_process.process.poll() is None


def test_new_identity_applies_then_is_rate_limited(tor_process: TorProcess) -> None:
    with TorController(tor_process.endpoint) as controller:
        assert controller.new_identity() is True
        assert controller.new_identity() is False  # stem's own 10 s rule
    with TorController(tor_process.endpoint) as controller:
        assert controller.new_identity() is False  # tor's rate limit, seen in its notice


@pytest.mark.parametrize("cookie", ["wrong", "missing"])
def test_wrong_or_missing_cookie_is_tor_unavailable(
    tor_process: TorProcess, tmp_path: Path, cookie: str
) -> None:
    path = tmp_path / "control_auth_cookie"
    if cookie == "wrong":
        path.write_bytes(os.urandom(32))
    endpoint = TorEndpoint(
        socks_port=tor_process.endpoint.socks_port,
        control_port=tor_process.endpoint.control_port,
        cookie_path=str(path),
    )
    with pytest.raises(TorUnavailable, match="refused authentication"):
        TorController(endpoint)


def test_closed_control_port_is_tor_unavailable() -> None:
    endpoint = TorEndpoint(socks_port=free_loopback_port(), control_port=free_loopback_port())
    with pytest.raises(TorUnavailable, match=r"no tor control port .*tor\.control_port"):
        TorController(endpoint)


# --- a running tor (launch: false) --------------------------------------------------------


def test_running_tor_with_password(password_tor: TorEndpoint, tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path,
        tor={
            "enabled": True,
            "launch": False,
            "socks_port": password_tor.socks_port,
            "control_port": password_tor.control_port,
            "control_password": PASSWORD,
        },
    )
    before = _tor_children()
    process, endpoint = tor_endpoint_if_enabled(settings, tmp_path / "tor")
    assert process is None
    assert endpoint == password_tor
    assert _tor_children() == before
    with TorController(endpoint) as controller:
        status = controller.status()
    assert status["network_disabled"] is True
    assert status["socks_ports"] == [f"127.0.0.1:{password_tor.socks_port}"]


def test_running_tor_wrong_password_is_tor_unavailable(
    password_tor: TorEndpoint, tmp_path: Path
) -> None:
    settings = make_settings(
        tmp_path,
        tor={
            "enabled": True,
            "launch": False,
            "socks_port": password_tor.socks_port,
            "control_port": password_tor.control_port,
            "control_password": "wrong horse",
        },
    )
    with pytest.raises(TorUnavailable, match=r"refused authentication .*tor\.control_password"):
        tor_endpoint_if_enabled(settings, tmp_path / "tor")


def test_running_tor_needs_its_ports(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, tor={"enabled": True, "launch": False})
    with pytest.raises(TorUnavailable, match=r"tor\.socks_port and tor\.control_port"):
        tor_endpoint_if_enabled(settings, tmp_path / "tor")


# --- starting and stopping -----------------------------------------------------------------


def test_disabled_tor_starts_nothing(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, tor={"enabled": False})
    before = _tor_children()
    assert tor_endpoint_if_enabled(settings, tmp_path / "tor") == (None, None)
    assert _tor_children() == before
    assert not (tmp_path / "tor").exists()


def test_stop_ends_tor_and_is_idempotent(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, tor={"enabled": True}).tor
    with TorProcess.start(settings, tmp_path / "tor") as process:
        pid = process.process.pid
        assert pid in _tor_children()
    assert process.process.returncode == 0
    assert pid not in _tor_children()
    process.stop()
    assert process.process.returncode == 0


def test_missing_executable_is_tor_unavailable(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, tor={"enabled": True, "executable": "no-such-tor"}).tor
    with pytest.raises(TorUnavailable, match=r"'no-such-tor' not found.*tor\.executable"):
        TorProcess.start(settings, tmp_path / "tor")


def test_busy_control_port_is_tor_unavailable_with_tors_reason(tmp_path: Path) -> None:
    before = _tor_children()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        settings = make_settings(tmp_path, tor={"enabled": True, "control_port": port}).tor
        with pytest.raises(TorUnavailable) as info:
            TorProcess.start(settings, tmp_path / "tor")
    assert "tor exited with status 1" in str(info.value)
    assert f"Could not bind to 127.0.0.1:{port}: Address already in use" in str(info.value)
    assert _tor_children() == before


def test_silent_tor_times_out_and_is_killed(tmp_path: Path) -> None:
    fake = tmp_path / "fake-tor"
    fake.write_text("#!/bin/sh\nexec sleep 60\n")
    fake.chmod(0o755)
    settings = make_settings(
        tmp_path, tor={"enabled": True, "executable": str(fake), "bootstrap_timeout_seconds": 0.5}
    ).tor
    with pytest.raises(TorUnavailable, match=r"within 0\.5 s .*tor\.bootstrap_timeout_seconds"):
        TorProcess.start(settings, tmp_path / "tor")
    assert _children_named("sleep") == []


# --- sticky circuits -----------------------------------------------------------------------

ENDPOINT = TorEndpoint(socks_port=9150, control_port=9151)
T0 = 2_000 * WINDOW  # the start of a sticky window


@pytest.mark.parametrize(
    ("domain_a", "t_a", "domain_b", "t_b", "same"),
    [
        ("example.org", T0, "example.org", T0, True),
        ("example.org", T0, "example.org", T0 + WINDOW - 0.001, True),
        ("example.org", T0, "example.org", T0 + WINDOW, False),
        ("example.org", T0 - 0.001, "example.org", T0, False),
        ("example.org", T0, "example.net", T0, False),
        ("a.example.org", T0, "b.example.org", T0, False),
    ],
)
def test_socks_proxy_url_is_sticky_per_domain_and_window(
    domain_a: str, t_a: float, domain_b: str, t_b: float, same: bool
) -> None:
    url_a = socks_proxy_url(ENDPOINT, domain_a, t_a, WINDOW)
    url_b = socks_proxy_url(ENDPOINT, domain_b, t_b, WINDOW)
    assert (url_a == url_b) is same


def test_socks_proxy_url_shape() -> None:
    parts = urlsplit(socks_proxy_url(ENDPOINT, "example.org", T0 + 5, WINDOW))
    assert parts.scheme == "socks5h"  # names resolved through Tor: no DNS leak
    assert (parts.hostname, parts.port) == ("127.0.0.1", 9150)
    assert parts.username == "lyra-example.org-2000"
    assert parts.password == "lyra"


def test_socks_username_fits_rfc1929() -> None:
    domain = ".".join(["a" * 63] * 4)[:253]
    user = urlsplit(socks_proxy_url(ENDPOINT, domain, T0, WINDOW)).username
    assert user is not None
    assert len(user) == len("lyra-") + 64 + len("-2000")
    assert user.endswith("-2000")


def test_socks_proxy_url_rejects_zero_window() -> None:
    with pytest.raises(ValueError, match="sticky_seconds must be positive"):
        socks_proxy_url(ENDPOINT, "example.org", T0, 0)


def test_fetch_over_disabled_tor_fails_fast_with_curl_error(
    tor_process: TorProcess, fixture_server: FixtureServer
) -> None:
    fixture_server.route("/page", body=b"<html>hello</html>")
    proxy = socks_proxy_url(tor_process.endpoint, "127.0.0.1", time.time(), WINDOW)
    with pytest.raises(curl_requests.exceptions.ConnectionError) as info:
        curl_requests.get(fixture_server.url("/page"), proxy=proxy, timeout=(3, 5))
    assert info.value.code == CurlECode.COULDNT_CONNECT
    assert f"Failed to connect to 127.0.0.1:{fixture_server.port} over proxy 127.0.0.1" in str(
        info.value
    )
    assert fixture_server.requests == []


# --- usage cap -----------------------------------------------------------------------------


def test_usage_first_requests_are_direct_and_cap_holds_at_boundary() -> None:
    usage = TorUsage(0.2)
    assert usage.may_use("example.org") is False  # 1/1 over Tor would be 100 %
    for _ in range(3):
        usage.record("example.org", via_tor=False)
        assert usage.may_use("example.org") is False
    usage.record("example.org", via_tor=False)
    assert usage.may_use("example.org") is True  # 1/5 == 0.2 exactly
    usage.record("example.org", via_tor=True)
    assert usage.ratio("example.org") == 0.2
    assert usage.may_use("example.org") is False  # 2/6 > 0.2
    for _ in range(3):
        usage.record("example.org", via_tor=False)
        assert usage.may_use("example.org") is False
    usage.record("example.org", via_tor=False)
    assert usage.may_use("example.org") is True  # 2/10 == 0.2
    assert usage.ratio("example.org") == pytest.approx(1 / 9)


def test_usage_is_per_domain_and_roundtrips() -> None:
    usage = TorUsage(0.2)
    for _ in range(4):
        usage.record("example.org", via_tor=False)
    usage.record("example.org", via_tor=True)
    assert usage.may_use("example.net") is False
    assert usage.ratio("example.net") == 0.0
    state = usage.to_state()
    assert state == {"example.org": {"total": 5, "tor": 1}}
    restored = TorUsage(0.2, state=state)
    assert restored.ratio("example.org") == 0.2
    assert restored.may_use("example.org") is False
    assert restored.to_state() == state


@pytest.mark.parametrize(
    ("max_ratio", "direct_before", "allowed"),
    [(0.0, 100, False), (0.5, 1, True), (0.5, 0, False), (1.0, 0, True), (0.1, 9, True)],
)
def test_usage_ratio_table(max_ratio: float, direct_before: int, allowed: bool) -> None:
    usage = TorUsage(max_ratio)
    for _ in range(direct_before):
        usage.record("example.org", via_tor=False)
    assert usage.may_use("example.org") is allowed


@pytest.mark.parametrize(
    "state",
    [{"example.org": {"total": 1, "tor": 2}}, {"example.org": {"total": 3, "tor": -1}}],
)
def test_usage_rejects_bad_state(state: dict[str, dict[str, int]]) -> None:
    with pytest.raises(ValueError, match="bad Tor usage counts"):
        TorUsage(0.2, state=state)
