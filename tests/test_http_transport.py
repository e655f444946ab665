"""`lyra serve --http` (issue 15, decision 0033): the SDK's streamable HTTP transport on
127.0.0.1 behind the bearer token in LYRA_HOME/run/http_token; a real SDK client over
HTTP completes a search; no token or a wrong one is 401; a non-loopback bind is
refused unless the configuration allows it."""

from __future__ import annotations

import json
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.conftest import CORPUS, DEMO_QUESTION, REPO, serve_env

LYRA = str(Path(sys.executable).with_name("lyra"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def served(lyra_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    home = tmp_path_factory.mktemp("http-home")
    (lyra_home / "models").mkdir(exist_ok=True)
    (home / "models").symlink_to(lyra_home / "models", target_is_directory=True)
    env = serve_env(home)
    port = _free_port()
    proc = subprocess.Popen(
        [LYRA, "serve", "--http", "--port", str(port), "--corpus", str(CORPUS)],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise AssertionError(f"lyra serve --http exited: {proc.stderr.read()[-2000:]}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.5)
        else:
            raise AssertionError("lyra serve --http did not listen within 120 s")
        yield {"url": f"http://127.0.0.1:{port}/mcp", "home": str(home), **env}
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        subprocess.run([LYRA, "down"], env=env, cwd=REPO, timeout=120, check=False)


def test_requests_without_the_token_are_401(served: dict[str, str]) -> None:
    token_file = Path(served["home"]) / "run" / "http_token"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    headers = {"Accept": "application/json, text/event-stream"}
    bare = httpx.post(served["url"], json=body, headers=headers, timeout=30)
    assert bare.status_code == 401
    assert bare.headers["www-authenticate"] == 'Bearer realm="lyra"'
    wrong = httpx.post(
        served["url"], json=body, headers={**headers, "Authorization": "Bearer nope"}, timeout=30
    )
    assert wrong.status_code == 401


async def test_an_sdk_client_over_http_completes_a_search(served: dict[str, str]) -> None:
    token = (Path(served["home"]) / "run" / "http_token").read_text().strip()
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with http, Client(streamable_http_client(served["url"], http_client=http)) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        assert {"create_task", "search", "export", "cleanup_task"} <= tools
        task = (await client.call_tool("create_task", {"query": DEMO_QUESTION})).structured_content
        res = await client.call_tool(
            "search",
            {"task_id": task["task_id"], "query": DEMO_QUESTION, "options": {"wait_seconds": 110}},
        )
        assert res.is_error is False, res.content[0].text
        assert res.structured_content["status"] == "satisfied"
        assert res.structured_content["pages_fetched"] == 15
        status = (
            await client.call_tool("get_status", {"task_id": task["task_id"]})
        ).structured_content
        assert status["metrics"]["instance"]["http_port"] == int(served["url"].split(":")[2][:-4])


def test_doctor_and_instances_name_the_http_port(served: dict[str, str]) -> None:
    """Issue 13: the `--http` port is reported in `lyra doctor` and `lyra instances`
    (after the search above, the home's instance runs)."""
    env = {k: v for k, v in served.items() if k not in ("url", "home")}
    port = int(served["url"].split(":")[2][: -len("/mcp")])
    listed = subprocess.run(
        [LYRA, "instances", "--json"], env=env, cwd=REPO, capture_output=True, text=True,
        timeout=60, check=True,
    )  # fmt: skip
    (row,) = [r for r in json.loads(listed.stdout) if r["home"] == served["home"]]
    assert [h["port"] for h in row["http"]] == [port]
    doctor = subprocess.run(
        [LYRA, "doctor"], env=env, cwd=REPO, capture_output=True, text=True, timeout=300,
        check=False,
    )  # fmt: skip
    assert f"MCP HTTP 127.0.0.1:{port} (pid {row['http'][0]['pid']})" in doctor.stdout


def test_a_non_loopback_bind_is_refused(served: dict[str, str]) -> None:
    env = {k: v for k, v in served.items() if k not in ("url", "home")}
    proc = subprocess.run(
        [LYRA, "serve", "--http", "--host", "0.0.0.0", "--port", "0"],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert "refusing to serve HTTP on 0.0.0.0" in proc.stderr
