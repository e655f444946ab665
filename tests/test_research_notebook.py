"""examples/research.ipynb runs top to bottom on a fresh kernel (issue 15): it starts
Lyra for a LYRA_HOME of its own, researches the demo question over the shipped corpus,
reads views and actors, draws the graph and a confidence chart, exports BibTeX; every
cell asserts what it shows."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.conftest import REPO, serve_env

NOTEBOOK = REPO / "examples" / "research.ipynb"
LYRA = str(Path(sys.executable).with_name("lyra"))


def test_the_research_notebook_runs_top_to_bottom(
    lyra_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (lyra_home / "models").mkdir(exist_ok=True)
    (home / "models").symlink_to(lyra_home / "models", target_is_directory=True)
    env = serve_env(home)
    # The kernel is a process of its own and inherits this environment.
    for key in [k for k in os.environ if k.startswith(("LYRA_", "RAY_ADDRESS"))]:
        monkeypatch.delenv(key)
    for key in ("LYRA_HOME", "LYRA_CONFIG", "RAY_AUTH_MODE"):
        monkeypatch.setenv(key, env[key])
    work = tmp_path / "examples"
    work.symlink_to(REPO / "examples", target_is_directory=True)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(REPO / "examples")}},
    )
    try:
        client.execute()
    finally:
        subprocess.run([LYRA, "down"], env=env, cwd=REPO, timeout=120, check=False)
        (REPO / "examples" / "research.bib").unlink(missing_ok=True)
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert [o for o in outputs if o.get("output_type") == "error"] == []
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 2
    printed = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    assert "satisfied 15 pages," in printed
