"""End to end through the real entry points: `lyra serve` over stdio with the official
MCP client, and the `lyra` CLI (research, sql, doctor), each in its own process with
LYRA_HOME set, as a user or an MCP client runs them."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from lyra.actors.runtime import probe_ray_address
from lyra.pipelines.evidence.stance_model import STANCE_MODEL_ID
from tests.conftest import (
    CORPUS,
    DEMO_CONTRADICTIONS,
    DEMO_QUESTION,
    REPO,
    SURE_REFUTATION,
    refused_create_task,
    serve_env,
)

LYRA = str(Path(sys.executable).with_name("lyra"))
BP_RAISES = "Moderate coffee consumption raises long-term blood pressure in healthy adults."
BP_NOT = "Moderate coffee consumption does not raise long-term blood pressure in healthy adults."


@pytest.fixture(scope="module")
def cli_env(lyra_home: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A LYRA_HOME of its own: the database file is locked by its owner process."""
    return serve_env(tmp_path_factory.mktemp("cli-home"))


def run(
    args: list[str], env: dict[str, str], timeout: float = 400
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LYRA, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        check=False,
    )


def test_research_json_then_sql(cli_env: dict[str, str]) -> None:
    proc = run(["research", "--corpus", str(CORPUS), "--json", DEMO_QUESTION], cli_env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out: dict[str, Any] = json.loads(proc.stdout)
    assert out["task_id"].startswith("task_")
    assert out["status"] == "satisfied"
    claims = {c["text"]: c for c in out["claims"]}
    for text in (BP_RAISES, BP_NOT):
        claim = claims[text]
        assert set(claim) >= {
            "id",
            "text",
            "confidence",
            "uncertainty",
            "supports",
            "refutes",
            "sources",
        }
        # Refuted once, by the other side's page (its confidence also counts the
        # passages the packaged stance model reads as consistent with it).
        assert claim["refutes"] == 1
    degraded = out["_lyra_meta"]["degraded"]
    assert [d.split(":")[0] for d in degraded] == ["nli", "llm"]

    edges_sql = (
        "SELECT count(*) FROM edges e JOIN claims c ON c.id = e.target_id WHERE "
        f"c.task_id = '{out['task_id']}' AND e.relation IN ('supports', 'refutes', 'neutral')"
    )
    # Five CLI processes at once, each attached to the instance research started.
    with ThreadPoolExecutor(5) as pool:
        sql, refused, exported, missing, counted = pool.map(
            lambda args: run(args, cli_env, timeout=120),
            [
                ["sql", "--json", "SELECT count(*) AS n FROM pages"],
                ["sql", "DELETE FROM pages"],
                ["export", out["task_id"], "--format", "csl-json"],
                ["export", "task_missing", "--format", "ris"],
                ["sql", "--json", edges_sql],
            ],
        )
    assert sql.returncode == 0, sql.stderr
    assert json.loads(sql.stdout)["rows"] == [[15]]
    assert refused.returncode == 2
    assert "refused" in refused.stderr.lower()

    assert exported.returncode == 0, exported.stderr[-2000:]
    items = json.loads(exported.stdout)
    # Every cited page: all 15 (the filler history page supports one claim about the
    # coffee trade, tests/test_export.py CITED_PAGES).
    assert len(items) == 15
    assert {i["type"] for i in items} == {"webpage"}
    assert missing.returncode == 2
    assert "TASK_NOT_FOUND" in missing.stderr

    assert counted.returncode == 0, counted.stderr[-2000:]
    edges = json.loads(counted.stdout)["rows"][0][0]
    replayed = run(["replay", out["task_id"]], cli_env, timeout=300)
    assert replayed.returncode == 0, replayed.stderr[-2000:]
    lines = replayed.stdout.splitlines()
    assert lines[0].startswith(f"{out['task_id']}: replayed 1 searches over 15 archived pages")
    assert lines[1:] == [
        f"models: stance {STANCE_MODEL_ID} -> {STANCE_MODEL_ID}, embedder all-MiniLM-L6-v2",
        f"claims: 0 added, 0 dropped; stance edges: {edges} unchanged, 0 moved, 0 added, 0 dropped",
    ]

    planned = run(["cleanup", out["task_id"], "--dry-run", "--json"], cli_env, timeout=120)
    assert planned.returncode == 0, planned.stderr[-2000:]
    plan = json.loads(planned.stdout)
    assert (plan["dry_run"], plan["hard"], plan["claims"]) == (True, False, len(out["claims"]))
    cleaned = run(["cleanup", out["task_id"]], cli_env, timeout=120)
    assert cleaned.returncode == 0, cleaned.stderr[-2000:]
    assert f"removed {len(out['claims'])} claims" in cleaned.stdout
    left = run(
        ["sql", "--json", f"SELECT count(*) FROM claims WHERE task_id = '{out['task_id']}'"],
        cli_env,
        timeout=60,
    )
    assert json.loads(left.stdout)["rows"] == [[0]]


def test_research_missing_and_empty_corpus_say_so(cli_env: dict[str, str], tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with ThreadPoolExecutor(2) as pool:
        missing, proc = pool.map(
            lambda corpus: run(["research", "--corpus", str(corpus), "q"], cli_env, timeout=120),
            [tmp_path / "nope", empty],
        )
    assert missing.returncode != 0
    assert f"{tmp_path / 'nope'} does not exist" in missing.stderr
    assert proc.returncode == 1
    assert "PIPELINE_ERROR" in proc.stderr
    assert str(empty) in proc.stderr


def test_a_lyra_home_that_cannot_hold_state_is_a_clear_error(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    """A LYRA_HOME that is a file: doctor said OK, and research spent a minute on actor
    restarts before a traceback. Both now name LYRA_HOME at once."""
    home = tmp_path / "a-file"
    home.write_text("not a folder")
    env = {**cli_env, "LYRA_HOME": str(home)}
    doctor = run(["doctor", "--json"], env, timeout=60)
    row = next(r for r in json.loads(doctor.stdout) if r["component"] == "home")
    assert row["ok"] is False
    assert row["detail"].startswith(f"LYRA_HOME {home} cannot hold Lyra's state (FileExistsError")
    assert doctor.returncode == 1
    research = run(["research", "--corpus", str(CORPUS), "q"], env, timeout=60)
    assert research.returncode == 1
    assert f"INTERNAL_ERROR: LYRA_HOME {home} cannot hold Lyra's state" in research.stderr
    assert "Traceback" not in research.stderr


def test_doctor_reports_each_component(cli_env: dict[str, str]) -> None:
    proc = run(["doctor", "--json"], cli_env, timeout=120)
    rows = {r["component"]: r for r in json.loads(proc.stdout)}
    assert sorted(rows) == ["chromium", "duckdb", "home", "models", "ollama", "ray", "tor"]
    assert rows["home"] == {
        "component": "home",
        "ok": True,
        "detail": f"{Path(cli_env['LYRA_HOME']).resolve()} (LYRA_HOME) is writable",
    }
    assert rows["ollama"]["ok"] is False
    assert "ollama pull" in rows["ollama"]["detail"]
    assert rows["duckdb"]["ok"] is True
    assert (
        "NLI: lyra-stance-minilm-l6-v2, packaged (the offline default" in rows["models"]["detail"]
    )
    assert proc.returncode == 0


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def _silent_listener() -> Iterator[str]:
    """A loopback port where a program other than Ray accepts connections and never
    answers (Ray retried such an address for minutes)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield f"127.0.0.1:{sock.getsockname()[1]}"


async def test_ray_address_where_nothing_answers_is_a_clear_error(
    cli_env: dict[str, str],
) -> None:
    """Issue 13, bad input: RAY_ADDRESS pointing at nothing. Ray itself retries such an
    address without end; Lyra says so at once, in doctor, the CLI and the tools."""
    address = f"127.0.0.1:{_closed_port()}"
    await _refused_everywhere(cli_env, address, "ConnectionRefusedError")


async def test_ray_address_where_another_program_listens_is_a_clear_error(
    cli_env: dict[str, str],
) -> None:
    """The same for a port where a program that is not Ray accepts the connection and
    stays silent: Ray retried it for minutes, and the tool call hung."""
    with _silent_listener() as address:
        await _refused_everywhere(
            cli_env, address, "it accepted the connection and said nothing for 5 s: not Ray"
        )


def _answering_listener(reply: bytes) -> tuple[socket.socket, str]:
    """A loopback port whose program reads the client's start and sends ``reply``."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)

    def serve() -> None:
        with contextlib.suppress(OSError):
            conn, _ = server.accept()
            with conn:
                conn.recv(1024)
                conn.sendall(reply)

    threading.Thread(target=serve, daemon=True).start()
    return server, f"127.0.0.1:{server.getsockname()[1]}"


def test_the_ray_probe_tells_a_grpc_server_from_an_http_one() -> None:
    """An HTTP/1 server answers the HTTP/2 preface with a status line: not Ray (Ray's
    join then hung for minutes); a gRPC server's SETTINGS frame, or a close (TLS), is."""
    http1, address = _answering_listener(b"HTTP/1.1 400 Bad Request\r\n\r\n")
    with http1:
        said = probe_ray_address(address, timeout=5)
    assert said == "it answered, but not as Ray's gRPC server does ('HTTP/1.1 400 Bad Request')"
    grpc, address = _answering_listener(b"\x00\x00\x06\x04\x00\x00\x00\x00\x00" + bytes(6))
    with grpc:
        assert probe_ray_address(address, timeout=5) is None
    closing, address = _answering_listener(b"")
    with closing:
        assert probe_ray_address(address, timeout=5) is None


async def _refused_everywhere(cli_env: dict[str, str], address: str, why: str) -> None:
    """doctor, the CLI and a tool call, at once (each on its own waits out the probe)."""
    env = {**cli_env, "RAY_ADDRESS": address}

    async def tool_error() -> dict[str, Any]:
        params = StdioServerParameters(command=LYRA, args=["serve"], env=env, cwd=str(REPO))
        async with Client(params, read_timeout_seconds=60) as client:
            return await refused_create_task(client, within_s=30)

    doctor, research, error = await asyncio.wait_for(
        asyncio.gather(
            _lyra(env, "doctor", "--json"),
            _lyra(env, "research", "--corpus", str(CORPUS), "q"),
            tool_error(),
        ),
        timeout=90,
    )
    ray_row = next(r for r in json.loads(doctor[1]) if r["component"] == "ray")
    assert ray_row["ok"] is False
    assert f"names {address}, where nothing answers ({why}" in ray_row["detail"]
    assert doctor[0] == 1

    assert research[0] == 1
    said = f"INTERNAL_ERROR: the Ray cluster that RAY_ADDRESS / ray.address names ({address})"
    assert f"{said} does not answer" in research[2]

    assert error["code"] == "INTERNAL_ERROR"
    assert f"names ({address}) does not answer" in error["message"]
    assert "ray start --head" in error["message"]


async def test_stdio_session_with_the_official_client(cli_env: dict[str, str]) -> None:
    params = StdioServerParameters(
        command=LYRA, args=["serve", "--corpus", str(CORPUS)], env=cli_env, cwd=str(REPO)
    )
    async with Client(params, read_timeout_seconds=300) as client:
        tools = await client.list_tools()
        assert sorted(t.name for t in tools.tools) == [
            "calibrate",
            "calibrate_rollback",
            "cleanup_task",
            "create_task",
            "export",
            "feedback",
            "get_auth_queue",
            "get_status",
            "notify_user",
            "query_graph",
            "resolve_auth",
            "search",
            "stop_task",
            "vector_search",
            "wait_for_user",
        ]
        task = (await client.call_tool("create_task", {"query": DEMO_QUESTION})).structured_content
        res = await client.call_tool(
            "search",
            {"task_id": task["task_id"], "query": DEMO_QUESTION, "options": {"wait_seconds": 110}},
        )
        assert res.is_error is False, res.content[0].text
        found = res.structured_content
        assert found["status"] == "satisfied"
        assert {BP_RAISES, BP_NOT} <= {c["text"] for c in found["claims_found"]}
        st = (await client.call_tool("get_status", {"task_id": task["task_id"]})).structured_content
        assert [s["status"] for s in st["searches"]] == ["satisfied"]
        q = (
            await client.call_tool(
                "query_graph",
                {
                    "sql": "SELECT count(*) FROM contradictions WHERE task_id = "
                    f"'{task['task_id']}' AND nli_confidence >= {SURE_REFUTATION}"
                },
            )
        ).structured_content
        assert q["rows"] == [[len(DEMO_CONTRADICTIONS)]]
        v = (
            await client.call_tool(
                "vector_search", {"query": BP_RAISES, "task_id": task["task_id"], "top_k": 1}
            )
        ).structured_content
        assert v["results"][0]["text_preview"] == BP_RAISES
        assert v["results"][0]["similarity"] == pytest.approx(1.0, abs=1e-3)
        stop = (
            await client.call_tool("stop_task", {"task_id": task["task_id"]})
        ).structured_content
        assert stop["status"] == "stopped"
        bad = await client.call_tool("get_status", {"task_id": "task_missing"})
        assert bad.is_error is True
        payload = json.loads(bad.content[0].text)
        assert payload["error"]["code"] == "TASK_NOT_FOUND"
    # The error's details are in the server's log under LYRA_HOME, by its error_id.
    serve_log = (Path(cli_env["LYRA_HOME"]) / "logs" / "serve.log").read_text()
    assert f"tool get_status: TASK_NOT_FOUND [{payload['error_id']}]" in serve_log


def test_sql_waits_for_the_file_a_stopping_instance_still_holds(tmp_path: Path) -> None:
    # An instance that stops removes its record first and lets go of the database file
    # when its graph actor exits; a `lyra sql` in between waits for the file.
    env = serve_env(tmp_path)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time\n"
            "con = duckdb.connect(sys.argv[1])\n"
            "print('held', flush=True)\n"
            "time.sleep(5)\n"
            "con.close()\n",
            str(tmp_path / "lyra.duckdb"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        out = run(["sql", "--json", "SELECT count(*) AS n FROM pages"], env, timeout=60)
    finally:
        holder.wait(timeout=30)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["rows"] == [[0]]


def test_calibration_plot_writes_the_reliability_diagram(tmp_path: Path) -> None:
    from lyra.storage import calibration as cs
    from lyra.storage.connection import open_database

    env = serve_env(tmp_path)
    con = open_database(tmp_path / "lyra.duckdb", memory_limit="256MB", threads=1)
    for p, right in zip([0.95, 0.9, 0.92, 0.85, 0.97, 0.88, 0.93, 0.9, 0.86, 0.94],
                        [1, 0, 1, 1, 0, 1, 0, 1, 1, 0], strict=True):  # fmt: skip
        cs.add_sample(con, {"source": "nli", "prediction": p, "actual": bool(right)}, 10)
    evaluation = cs.evaluate(con, {"source": "nli"}, False)
    con.close()
    png = tmp_path / "plots" / "nli.png"
    out = run(["calibration", "plot", "--source", "nli", "--out", str(png)], env, timeout=180)
    assert out.returncode == 0, out.stderr[-2000:]
    ece = evaluation["expected_calibration_error"]
    assert out.stdout.strip() == (f"{png} (ECE {ece:.4f}, 10 predictions, calibration version 1)")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 10_000
    unknown = run(["calibration", "plot", "--source", "weather"], env, timeout=180)
    assert unknown.returncode == 1
    # (Ray's own lines come first when the call attaches to the instance the first started.)
    assert unknown.stderr.strip().splitlines()[-1] == (
        "lyra: CALIBRATION_ERROR: unknown calibration source 'weather'; known: nli, claims"
    )


async def _lyra(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    """The CLI in its own process, without blocking the event loop the client runs on."""
    proc = await asyncio.create_subprocess_exec(
        LYRA, *args, env=env, cwd=str(REPO),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await proc.communicate()
    return int(proc.returncode or 0), out.decode(), err.decode()


async def test_wait_for_user_is_answered_with_lyra_answer(tmp_path: Path) -> None:
    # A client without forms (no elicitation): the person answers on the command line.
    env = serve_env(tmp_path)
    params = StdioServerParameters(command=LYRA, args=["serve"], env=env, cwd=str(REPO))
    async with Client(params, read_timeout_seconds=300) as client:
        task = await client.call_tool("create_task", {"query": "a question for the person"})
        assert task.is_error is False, task.content[0].text  # Lyra and its database are up
        asked = asyncio.ensure_future(client.call_tool(
            "wait_for_user",
            {"prompt": "Which way?", "options": {"choices": ["Stop", "Go on"],
                                                  "timeout_seconds": 240}},
        ))  # fmt: skip
        waiting: list[dict[str, Any]] = []
        for _ in range(60):
            rc, out, _ = await _lyra(env, "answer", "--json")
            waiting = json.loads(out) if rc == 0 else []
            if waiting:
                break
            await asyncio.sleep(0.5)
        [question] = waiting
        assert (question["prompt"], question["choices"]) == ("Which way?", ["Stop", "Go on"])
        pid = question["prompt_id"]
        rc, out, err = await _lyra(env, "answer", pid, "2")
        assert rc == 0, err[-2000:]
        assert out.strip() == f"{pid}: Go on"
        again = await _lyra(env, "answer", pid, "Stop")
        assert again[0] == 2
        assert again[2].strip().splitlines()[-1] == (
            f"lyra: INVALID_PARAMS: question {pid} was already answered: 'Go on'"
        )
        result = await asyncio.wait_for(asked, 60)
        assert result.is_error is False, result.content[0].text
        answer = result.structured_content
        assert (answer["response"], answer["choice_index"], answer["channel"]) == (
            "Go on", 1, "command_line"
        )  # fmt: skip
        assert answer["prompt_id"] == pid


def test_lyra_answer_without_a_running_lyra_says_so(tmp_path: Path) -> None:
    out = run(["answer"], serve_env(tmp_path), timeout=60)
    assert out.returncode == 1
    assert out.stderr.strip() == (
        f"lyra: no running Lyra shares {tmp_path.resolve()} (the questions are held by the "
        "`lyra serve` that asked them)"
    )
