"""User mistakes on the `lyra` command line: one `lyra:` line on stderr and an exit code,
never a traceback, never a half-written file; and text from pages or MCP clients shown
on the terminal, never obeyed by it.

Most cases run `main(argv)` in-process with LYRA_HOME and LYRA_CONFIG of their own (the
mistakes are caught before Lyra starts); `lyra serve` and `lyra sql` also run as the
installed console script, and one stdio `lyra serve` with the official MCP client
covers what only a running Lyra shows (`lyra answer`, `lyra calibration plot`).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from lyra.mcp_bridge.cli import _plot_path, build_parser, main
from lyra.mcp_bridge.cli_input import json_text, terminal_safe, write_whole
from lyra.mcp_bridge.cli_research import print_table, settings_with_corpus
from lyra.mcp_bridge.models import LyraMeta
from lyra.storage.connection import open_database
from tests.conftest import REPO, serve_env

LYRA = str(Path(sys.executable).with_name("lyra"))
NO_TABLE = (
    "lyra: INVALID_PARAMS: query failed: Catalog Error: Table with name nosuchtable does not exist!"
)
HOSTILE_PROMPT = "Pick\x1b]0;PWNED\x07\x1b[2J"
HOSTILE_CHOICES = ["Stop\x9b2J", "Go \u202eno\u202c on"]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This process's environment as serve_env gives a user's: LYRA_HOME and LYRA_CONFIG
    of its own, no LYRA_ variable of this run."""
    for name in list(os.environ):
        if name.startswith(("LYRA_", "RAY_ADDRESS")):
            monkeypatch.delenv(name)
    for name, value in serve_env(tmp_path).items():
        if name.startswith("LYRA_"):
            monkeypatch.setenv(name, value)
    return tmp_path


def run(
    args: list[str], env: dict[str, str], timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LYRA, *args],
        env=env,
        input="",
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        check=False,
    )


def argparse_refusal(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The error line argparse prints for `argv`; its exit status must be 2."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    return capsys.readouterr().err.splitlines()[-1]


# --- 1. a bad LYRA_CONFIG ------------------------------------------------------------------
CONFIG_PROBLEMS = [
    ("ray:\n  bogus: 1\n", "ray.bogus: Extra inputs are not permitted"),
    (
        "ray:\n  include_dashboard: maybe\n",
        "ray.include_dashboard: Input should be a valid boolean, unable to interpret input "
        "(got 'maybe')",
    ),
    (
        "query_graph:\n  max_limit: many\nsurprise: 1\n",
        "query_graph.max_limit: Input should be a valid integer, unable to parse string as an "
        "integer (got 'many'); surprise: Extra inputs are not permitted",
    ),
    (
        "ray: [\n",
        "invalid YAML at line 2, column 1: while parsing a flow node; expected the node "
        "content, but found '<stream end>'",
    ),
    ("ray: a: b\n", "invalid YAML at line 1, column 7: mapping values are not allowed here"),
    ("- ray\n- fetch\n", "the top level must be a mapping of settings (key: value), not a list"),
    ("just words\n", "the top level must be a mapping of settings (key: value), not a string"),
]

EVERY_COMMAND = [
    ["serve"],
    ["serve", "--http", "--port", "0"],
    ["research", "does coffee raise blood pressure"],
    ["sql", "SELECT 1"],
    ["export", "task_x", "--format", "ris"],
    ["cleanup", "task_x"],
    ["replay", "task_x"],
    ["doctor"],
    ["down"],
    ["archive", "verify"],
    ["answer"],
    ["feedback", "domain_block", "--domain", "example.org"],
    ["calibration", "plot"],
    ["models", "pull", "nli"],
    ["models", "list"],
]


@pytest.mark.parametrize(
    "argv",
    # (`down --all` too, not run here: it would stop every Lyra on the machine.)
    [["instances", "--json"], ["models", "list", "--home", "HOME"]],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_commands_that_read_no_settings_work_with_a_bad_config(
    home: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Listing every Lyra and a command told its LYRA_HOME need no settings: a bad
    LYRA_CONFIG must not lock a person out of them."""
    (home / "user.yaml").write_text("fetch:\n  politeness: high\n")
    code = main([str(home) if a == "HOME" else a for a in argv])
    assert code == 0
    assert "LYRA_CONFIG" not in capsys.readouterr().err


@pytest.mark.parametrize(("content", "problem"), CONFIG_PROBLEMS)
def test_bad_config_file_is_named_with_its_key(
    home: Path, content: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = home / "user.yaml"
    config.write_text(content)

    code = main(["doctor", "--json"])

    assert capsys.readouterr() == ("", f"lyra: LYRA_CONFIG {config}: {problem}\n")
    assert code == 2


@pytest.mark.parametrize("argv", EVERY_COMMAND, ids=lambda argv: " ".join(argv[:2]))
def test_every_command_checks_the_config_first(
    home: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    config = home / "user.yaml"
    config.write_text("ray:\n  include_dashboard: false\nfetch:\n  politeness: high\n")

    code = main(argv)

    said = f"lyra: LYRA_CONFIG {config}: fetch.politeness: Extra inputs are not permitted\n"
    assert capsys.readouterr() == ("", said)
    assert code == 2


def test_config_path_that_is_missing_or_a_folder(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = home / "nope.yaml"
    monkeypatch.setenv("LYRA_CONFIG", str(missing))
    assert main(["doctor"]) == 2
    assert capsys.readouterr().err == (
        f"lyra: LYRA_CONFIG {missing}: no such file (point LYRA_CONFIG at a YAML file, "
        "or unset it)\n"
    )
    monkeypatch.setenv("LYRA_CONFIG", str(home))
    assert main(["doctor"]) == 2
    assert capsys.readouterr().err == (
        f"lyra: LYRA_CONFIG {home}: not a regular file (point LYRA_CONFIG at a YAML file)\n"
    )


def test_a_bad_environment_override_is_named_not_the_file(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LYRA_QUERY_GRAPH__MAX_LIMIT", "lots")

    code = main(["sql", "SELECT 1"])

    assert capsys.readouterr().err == (
        "lyra: LYRA_QUERY_GRAPH__MAX_LIMIT: query_graph.max_limit: Input should be a valid "
        "integer, unable to parse string as an integer (got 'lots')\n"
    )
    assert code == 2


def test_serve_says_it_on_stderr_and_never_starts(tmp_path: Path) -> None:
    env = serve_env(tmp_path)
    config = Path(env["LYRA_CONFIG"])
    config.write_text("ray:\n  bogus: 1\n")

    proc = run(["serve"], env)

    # The whole of stderr: no traceback, no server log line before it.
    assert proc.stderr == f"lyra: LYRA_CONFIG {config}: ray.bogus: Extra inputs are not permitted\n"
    assert (proc.returncode, proc.stdout) == (2, "")


# --- 2, 3. lyra sql --------------------------------------------------------------------
def test_sql_on_a_missing_table_without_a_running_lyra(tmp_path: Path) -> None:
    open_database(tmp_path / "lyra.duckdb", memory_limit="256MB", threads=1).close()

    proc = run(["sql", "SELECT * FROM nosuchtable"], serve_env(tmp_path))

    # The line query_graph's error gives when a running Lyra answers (see the served test).
    assert proc.stderr == NO_TABLE + "\n"
    assert (proc.returncode, proc.stdout) == (2, "")


@pytest.mark.parametrize(
    ("limit", "said"),
    [
        ("0", "0 is out of range: give 1 to 200"),
        ("-3", "-3 is out of range: give 1 to 200"),
        ("201", "201 is out of range: give 1 to 200"),
        ("ten", "'ten' is not a whole number"),
    ],
)
def test_sql_limit_outside_query_graphs_range(
    limit: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    refusal = argparse_refusal(["sql", "--limit", limit, "SELECT 1"], capsys)
    assert refusal == f"lyra sql: error: argument --limit: {said}"


# --- 4, 5. files the CLI writes --------------------------------------------------------
@pytest.mark.parametrize(
    ("where", "strerror"),
    [
        ("missing/out.bib", "No such file or directory"),
        (".", "Is a directory"),
        ("a-file/out.bib", "Not a directory"),
    ],
)
def test_export_to_a_place_that_cannot_be_written(
    home: Path, where: str, strerror: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (home / "a-file").write_text("kept\n")
    before = sorted(p.name for p in home.iterdir())
    target = home / where

    code = main(["export", "task_x", "--format", "bibtex", "-o", str(target)])

    assert capsys.readouterr() == ("", f"lyra: cannot write {target}: {strerror}\n")
    assert code == 2
    assert sorted(p.name for p in home.iterdir()) == before
    assert (home / "a-file").read_text() == "kept\n"


def test_a_whole_write_replaces_the_old_file_and_a_failed_one_leaves_nothing(
    tmp_path: Path,
) -> None:
    done = tmp_path / "refs.bib"
    done.write_text("old")
    write_whole(done, b"new")
    assert done.read_text() == "new"

    folder = tmp_path / "refs-folder.bib"
    folder.mkdir()
    with pytest.raises(IsADirectoryError):
        write_whole(folder, b"never half-written")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["refs-folder.bib", "refs.bib"]
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize(
    ("out", "strerror"),
    [
        ("/proc/nope/x.png", "No such file or directory"),
        ("{home}/a-file/plots/x.png", "Not a directory"),
    ],
)
def test_calibration_plot_to_a_place_that_cannot_be_written(
    home: Path, out: str, strerror: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (home / "a-file").write_text("kept\n")
    target = out.format(home=home)

    code = main(["calibration", "plot", "--out", target])

    assert capsys.readouterr() == ("", f"lyra: cannot write {target}: {strerror}\n")
    assert code == 2
    assert sorted(p.name for p in home.iterdir()) == ["a-file", "user.yaml"]


def test_calibration_plot_path(tmp_path: Path) -> None:
    (tmp_path / "plots").mkdir()
    assert _plot_path(None, "nli") == Path("calibration-nli.png")
    assert (
        _plot_path(str(tmp_path / "plots"), "claims") == tmp_path / "plots/calibration-claims.png"
    )
    assert _plot_path(str(tmp_path / "plots/mine"), "nli") == tmp_path / "plots/mine"
    assert _plot_path(str(tmp_path / "new/x.png"), "nli") == tmp_path / "new/x.png"


# --- 6. lyra serve --port --------------------------------------------------------------
@pytest.mark.parametrize(
    ("port", "said"),
    [
        ("99999", "99999 is out of range: give 0 to 65535"),
        ("65536", "65536 is out of range: give 0 to 65535"),
        ("-5", "-5 is out of range: give 0 to 65535"),
        ("http", "'http' is not a whole number"),
    ],
)
def test_serve_port_outside_the_tcp_range(
    port: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    refusal = argparse_refusal(["serve", "--http", "--port", port], capsys)
    assert refusal == f"lyra serve: error: argument --port: {said}"


# --- 7. lyra research -------------------------------------------------------------------
@pytest.mark.parametrize("pages", ["0", "-1", "501", "1000000000"])
def test_research_max_pages_outside_the_search_tools_range(
    pages: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # 500: SearchOptions.max_pages; the task budget allows more, one search no more.
    refusal = argparse_refusal(["research", "--max-pages", pages, "why?"], capsys)
    assert refusal == (
        f"lyra research: error: argument --max-pages: {pages} is out of range: give 1 to 500"
    )


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("", "the question has no words; ask something"),
        (" \t\n ", "the question has no words; ask something"),
        ("\x01 ???", "the question has no words; ask something"),
        ("q" * 2001, "the question is 2001 characters long; at most 2000"),
    ],
    ids=["empty", "blank", "no-words", "too-long"],
)
def test_research_question_create_task_would_refuse(
    question: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    refusal = argparse_refusal(["research", question], capsys)
    assert refusal == f"lyra research: error: argument question: {said}"


def test_research_arguments_at_the_bounds_are_taken() -> None:
    parser = build_parser()
    longest = parser.parse_args(["research", "q" * 2000, "--max-pages", "500"])
    assert (longest.question, longest.max_pages) == ("q" * 2000, 500)
    fewest = parser.parse_args(["research", "  why?\n", "--max-pages", "1"])
    assert (fewest.question, fewest.max_pages) == ("why?", 1)
    assert parser.parse_args(["research", "why?"]).max_pages is None


def test_research_corpus_that_does_not_exist_or_is_no_file(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = home / "nope"
    assert main(["research", "--corpus", str(missing), "why?"]) == 2
    assert capsys.readouterr() == ("", f"lyra: corpus path {missing} does not exist\n")
    fifo = home / "pipe"
    os.mkfifo(fifo)
    assert main(["research", "--corpus", str(fifo), "why?"]) == 2
    assert capsys.readouterr() == ("", f"lyra: corpus path {fifo} is neither a folder nor a file\n")


def test_research_corpus_may_be_one_document(home: Path) -> None:
    # The scanner takes one file as a corpus of one (tests/test_local_corpus.py).
    document = home / "summary.md"
    document.write_text("# Coffee\n\nModerate coffee intake is common.\n")

    settings = settings_with_corpus(str(document))

    assert settings.engine("local").paths == [str(document.resolve())]
    assert settings.engine("local").enabled is True


# --- 8. text from pages and clients on the terminal -------------------------------------
@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (HOSTILE_PROMPT, "Pick\\x1b]0;PWNED\\x07\\x1b[2J"),
        ("line one\n\tindented", "line one\n\tindented"),
        ("over\rwrite", "over\\x0dwrite"),
        ("back\x08space\x7f", "back\\x08space\\x7f"),
        ("c1 \x9b31m csi", "c1 \\x9b31m csi"),
        ("abc\u202edcba\u2066x\u2069", "abc\\u202edcba\\u2066x\\u2069"),
        ("café ☕ 東京 \u200d", "café ☕ 東京 \u200d"),
    ],
)
def test_terminal_safe_shows_controls_as_escapes(text: str, shown: str) -> None:
    assert terminal_safe(text) == shown


def test_research_json_keeps_text_readable_and_controls_escaped() -> None:
    value = {"text": "café\x1b[2J\x9b1m\u202eend"}

    line = json_text(value)

    assert line == '{"text": "café\\u001b[2J\\u009b1m\\u202eend"}'
    assert json.loads(line) == value


def test_claims_table_shows_page_text_without_obeying_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    claim = {
        "id": "c_1",
        "claim_text": "[/]Coffee[bold] raises\x1b]0;PWNED\x07 pressure",
        "confidence": 0.5,
        "uncertainty": 0.25,
        "supporting": 1,
        "refuting": 0,
        "source_domain": "evil\x1b[2J.example",
        "supporting_urls": ["https://news.example/a"],
        "refuting_urls": [],
    }
    out = {
        "task": {"id": "task_1", "query": "does [red]coffee\x07 matter"},
        "search": {"status": "satisfied", "metrics": {"pages_fetched": 1}},
        "meta": LyraMeta(degraded=["nli: [/]fallback\x1b[0m"]),
    }

    print_table(out, [claim], 1.0)

    shown = capsys.readouterr().out
    assert "\x1b" not in shown
    assert "\x07" not in shown
    assert "Claims for: does [red]coffee\\x07 matter" in shown
    assert "[/]Coffee[bold] raises\\x1b]0;PWNED\\x07 pressure" in shown
    assert "from evil\\x1b[2J.example" in shown
    assert "degraded: nli: [/]fallback\\x1b[0m" in shown


async def _lyra(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    """The CLI in its own process, without blocking the event loop the client runs on."""
    proc = await asyncio.create_subprocess_exec(
        LYRA, *args, env=env, cwd=str(REPO),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await proc.communicate()
    return int(proc.returncode or 0), out.decode(), err.decode()


def _ok(result: Any) -> dict[str, Any]:
    assert result.is_error is False, result.content[0].text
    data: dict[str, Any] = result.structured_content
    return data


async def test_with_a_running_lyra(tmp_path: Path) -> None:
    """What only a served Lyra shows: its prompts in `lyra answer`, its query errors in
    `lyra sql`, and `lyra calibration plot` into a folder."""
    env = serve_env(tmp_path)
    params = StdioServerParameters(command=LYRA, args=["serve"], env=env, cwd=str(REPO))
    try:
        async with Client(params, read_timeout_seconds=300) as client:
            _ok(await client.call_tool("create_task", {"query": "a question for the person"}))
            asked = asyncio.ensure_future(client.call_tool(
                "wait_for_user",
                {"prompt": HOSTILE_PROMPT, "options": {"choices": HOSTILE_CHOICES,
                                                        "timeout_seconds": 240}},
            ))  # fmt: skip
            listed = ""
            for _ in range(60):
                rc, listed, err = await _lyra(env, "answer")
                assert rc == 0, err[-2000:]
                if listed != "no question is waiting\n":
                    break
                await asyncio.sleep(0.5)
            pid = listed.split()[0]
            assert listed == (
                f"{pid}  Pick\\x1b]0;PWNED\\x07\\x1b[2J\n"
                "    1. Stop\\x9b2J\n"
                "    2. Go \\u202eno\\u202c on\n"
            )
            rc, said, err = await _lyra(env, "answer", pid, "2")
            assert rc == 0, err[-2000:]
            assert said == f"{pid}: Go \\u202eno\\u202c on\n"
            assert _ok(await asyncio.wait_for(asked, 60))["response"] == HOSTILE_CHOICES[1]

            rc, _, err = await _lyra(env, "sql", "SELECT * FROM nosuchtable")
            # (Ray's own lines come first when the call attaches to the instance.)
            assert (rc, err.splitlines()[-1]) == (2, NO_TABLE)

            for p, right in zip([0.95, 0.9, 0.92, 0.85, 0.97, 0.88, 0.93, 0.9, 0.86, 0.94],
                                [1, 0, 1, 1, 0, 1, 0, 1, 1, 0], strict=True):  # fmt: skip
                data = {"source": "nli", "prediction": p, "actual": bool(right)}
                _ok(await client.call_tool("calibrate", {"action": "add_sample", "data": data}))
            diagram = _ok(await client.call_tool(
                "calibrate", {"action": "get_diagram_data", "data": {"source": "nli"}}
            ))  # fmt: skip
            plots = tmp_path / "plots"
            plots.mkdir()
            rc, said, err = await _lyra(env, "calibration", "plot", "--out", str(plots))
            assert rc == 0, err[-2000:]
            png = plots / "calibration-nli.png"
            assert said == (
                f"{png} (ECE {diagram['overall_ece']:.4f}, 10 predictions, calibration version 1)\n"
            )
            assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            # A name without .png is the file written, not the name with .png added.
            rc, said, err = await _lyra(env, "calibration", "plot", "--out", str(plots / "mine"))
            assert rc == 0, err[-2000:]
            assert said.startswith(f"{plots / 'mine'} (ECE ")
            assert sorted(p.name for p in plots.iterdir()) == ["calibration-nli.png", "mine"]
            assert not (tmp_path / "plots.png").exists()
    finally:
        await _lyra(env, "down", "--force")
