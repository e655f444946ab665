"""Loading an actor's class must not import what only the actor's own process needs.

Ray unpickles an actor's class in every process that gets a handle to the actor, with
whatever the class's methods name. Each `DomainFetcher` holds a handle to the
GraphActor (it stores its politeness state there); when the GraphActor's methods named
the storage modules, every fetcher imported DuckDB and NumPy: 0.9 s of CPU before its
site's first request, about 20 MiB more per fetcher (docs/decisions/0044).

The class is pickled here exactly as Ray exports it (`pickle_dumps` of the modified
class) and unpickled in a fresh interpreter, which then reports what it imported.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lyra.storage.graph_store import GraphStore

HEAVY = ("duckdb", "numpy", "lyra.storage.graph_store", "lyra.storage.repository")

EXPORT = """
import sys
from ray._common.serialization import pickle_dumps
from lyra.actors.graph import GraphActor
blob = pickle_dumps(GraphActor.__ray_metadata__.modified_class, "GraphActor")
sys.stdout.buffer.write(blob)
"""

LOAD = """
import json, sys
from ray import cloudpickle
before = set(sys.modules)
cls = cloudpickle.loads(sys.stdin.buffer.read())
print(json.dumps({
    "methods": sorted(m for m in vars(cls.__ray_actor_class__) if not m.startswith("_")),
    "imported": sorted(set(sys.modules) - before),
}))
"""


def _python(code: str, stdin: bytes = b"") -> bytes:
    done = subprocess.run(
        [sys.executable, "-c", code], input=stdin, capture_output=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done.stdout


@pytest.fixture(scope="module")
def loaded() -> dict[str, list[str]]:
    result: dict[str, list[str]] = json.loads(_python(LOAD, _python(EXPORT)))
    return result


def test_loading_the_graph_actor_class_imports_no_database_or_numpy(
    loaded: dict[str, list[str]],
) -> None:
    assert [m for m in HEAVY if m in loaded["imported"]] == []


def test_the_loaded_class_still_has_every_graph_method(loaded: dict[str, list[str]]) -> None:
    # Every public method of the store is reachable through the actor, and the actor
    # adds only its liveness probe.
    store_methods = [m for m in vars(GraphStore) if not m.startswith("_")]
    assert len(store_methods) == 64
    assert loaded["methods"] == sorted([*store_methods, "ping"])


# What only extraction needs: a fetcher sniffs content types and never decodes or
# extracts; they cost each live fetcher about 9 MiB of PSS (issue 13 item 5, decision 0024).
FETCHER_HEAVY = (
    "duckdb",
    "numpy",
    "lxml",
    "cssselect",
    "lyra.pipelines.extract.extract_text",
    "lyra.pipelines.extract.injection",
    "onnxruntime",
    "torch",
)

FETCHER_PROCESS = """
import json, sys
import lyra.actors.preload  # every Lyra worker imports it as it starts
from lyra.actors.fetch import DomainFetcher  # the class a fetcher's worker loads
print(json.dumps(sorted(sys.modules)))
"""


def test_a_fetchers_process_imports_no_extractor_numpy_or_database() -> None:
    imported = json.loads(_python(FETCHER_PROCESS))
    assert [m for m in FETCHER_HEAVY if m in imported] == []
    # What it does need is there: the fetch stack and the site's politeness state.
    assert {"curl_cffi", "lyra.jobs.site_fetcher", "warcio"} <= set(imported)


# A `lyra` command that asks the running Lyra (sql, export, cleanup, replay, research)
# loads the CLI, the runtime and the error mapping; the MCP SDK (about 0.75 s of CPU)
# is only for `lyra serve`, MuPDF (about 0.7 s) only for the first PDF read.
CLI_HEAVY = ("mcp", "mcp_types", "pymupdf", "onnxruntime", "torch")

CLI_PROCESS = """
import json, sys
from lyra.mcp_bridge.cli import build_parser
from lyra.mcp_bridge.errors import to_lyra_error
from lyra.mcp_bridge.lyra_runtime import LyraRuntime
from lyra.actors.instance import live_record
print(json.dumps(sorted(sys.modules)))
"""


def test_a_cli_command_imports_no_mcp_sdk_or_pdf_reader() -> None:
    imported = json.loads(_python(CLI_PROCESS))
    assert [m for m in CLI_HEAVY if m in imported] == []
    assert {"ray", "lyra.config.settings", "lyra.mcp_bridge.models"} <= set(imported)
