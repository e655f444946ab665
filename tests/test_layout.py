"""The code's layout holds: import layers (import-linter), rooms, and the old import paths.

docs/architecture.md is the map; docs/decisions/0014-layout.md the reasons.
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FLOORS = ("actors", "jobs", "storage", "pipelines", "config", "mcp_bridge")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(tree: Path, config: Path) -> subprocess.CompletedProcess[str]:
    """import-linter over the `lyra` package found first on PYTHONPATH=tree."""
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(config), "--no-cache"],
        cwd=tree,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _copy_tree(tmp_path: Path) -> Path:
    """The six floors copied as one regular `lyra` package (it shadows the installed one)."""
    package = tmp_path / "lyra"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for floor in FLOORS:
        shutil.copytree(ROOT / floor, package / floor, ignore=shutil.ignore_patterns("__pycache__"))
    config = tmp_path / "contracts.toml"
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    lines = ["[tool.importlinter]", 'root_packages = ["lyra"]']
    for contract in contracts["contracts"]:
        lines += ["", "[[tool.importlinter.contracts]]"]
        lines += [f"{key} = {_toml(value)}" for key, value in contract.items()]
    config.write_text("\n".join(lines) + "\n")
    return package


def _toml(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return '"' + str(value).replace('"', '\\"') + '"'


@pytest.mark.parametrize(
    ("module", "upward_import", "broken"),
    [
        (
            "pipelines/net/robots.py",
            "import lyra.storage.warc",
            "lyra.pipelines is not allowed to import lyra.storage",
        ),
        (
            "storage/views.py",
            "from lyra.jobs import fetch_state",
            "lyra.storage is not allowed to import lyra.jobs",
        ),
        (
            "jobs/search_job.py",
            "from lyra.actors import runtime",
            "lyra.jobs is not allowed to import lyra.actors",
        ),
        (
            "pipelines/extract/documents.py",
            "from lyra.pipelines.llm import sanitize",
            "lyra.pipelines.extract is not allowed to import lyra.pipelines.llm",
        ),
        (
            "pipelines/net/body.py",
            "from lyra.pipelines.extract import dedup",
            "lyra.pipelines.net is not allowed to import lyra.pipelines.extract",
        ),
    ],
)
def test_the_import_contract_fails_on_an_upward_import(
    tmp_path: Path, module: str, upward_import: str, broken: str
) -> None:
    package = _copy_tree(tmp_path)
    clean = _lint_imports(tmp_path, tmp_path / "contracts.toml")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    target = package / module
    target.write_text(target.read_text() + f"\n{upward_import}  # noqa\n")
    result = _lint_imports(tmp_path, tmp_path / "contracts.toml")
    assert result.returncode == 1
    assert "BROKEN" in result.stdout
    assert broken in result.stdout


def test_pipelines_top_holds_only_shared_modules_and_actors_only_actors() -> None:
    top = sorted(p.name for p in (ROOT / "pipelines").glob("*.py"))
    assert top == ["__init__.py", "errors.py"]
    runtime = {
        "__init__.py",
        "runtime.py",
        "instance.py",
        "telemetry.py",
        "children.py",
        "fetch_pool.py",
        "fetch_routing.py",
        "standby.py",
        "preload.py",
    }
    for path in (ROOT / "actors").glob("*.py"):
        if path.name in runtime:
            continue
        assert "@ray.remote(" in path.read_text(), path.name


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("lyra.pipelines.nli", "lyra.pipelines.evidence.nli"),
        ("lyra.pipelines.net_guard", "lyra.pipelines.net.net_guard"),
        ("lyra.pipelines.extract_html", "lyra.pipelines.extract.extract_html"),
        ("lyra.pipelines.serp_parsers", "lyra.pipelines.discover.serp_parsers"),
        ("lyra.pipelines.sanitize", "lyra.pipelines.llm.sanitize"),
        ("lyra.actors.search_job", "lyra.jobs.search_job"),
        ("lyra.actors.fetch_http", "lyra.jobs.fetch_http"),
    ],
)
def test_old_import_paths_still_work_and_name_the_new_one(old: str, new: str) -> None:
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} has moved to {new}"):
        moved = importlib.import_module(old)
    assert moved is importlib.import_module(new)
    assert moved.__name__ == new


def test_the_llm_client_still_imports_from_the_package_it_became() -> None:
    from lyra.pipelines.llm import OllamaLLM
    from lyra.pipelines.llm.ollama import OllamaLLM as moved

    assert OllamaLLM is moved


def test_unknown_names_still_fail_as_missing_modules() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module("lyra.pipelines.no_such_module")
