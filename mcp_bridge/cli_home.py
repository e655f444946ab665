"""The `lyra` commands that work on LYRA_HOME itself, with or without a running Lyra:
`archive verify` (read every WARC back), `models pull` / `models list` (the model
registry, issue 12) and `models prepare` (the packaged embedder's ONNX export for this
installation).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from lyra.config.settings import load_settings
from lyra.mcp_bridge.cli_input import printable


def _warc_files(root: Path) -> list[Path]:
    """Every WARC file under `root` (any depth), gzip or plain, in name order."""
    if not root.is_dir():
        return []
    return sorted(
        p for p in root.rglob("*") if p.is_file() and p.name.endswith((".warc", ".warc.gz"))
    )


def _count_records(path: Path) -> int:
    """Records warcio can read from `path`; damage stops the count (verify reports it)."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    count = 0
    try:
        with open(path, "rb") as stream:
            for _record in ArchiveIterator(stream):
                count += 1
    except (ArchiveLoadFailed, OSError, EOFError, ValueError):
        return count  # the records before the damage; the error itself is verify's to name
    return count


def cmd_archive_verify(args: argparse.Namespace) -> int:
    """Read every WARC under LYRA_HOME/warc back: record counts and errors; exit 1 on any error."""
    from lyra.storage.warc import verify

    home = Path(args.home).expanduser() if args.home else load_settings().home_dir
    root = home / "warc"
    files = _warc_files(root)
    total_records = total_errors = 0
    for path in files:
        errors = verify(path)
        records = _count_records(path)
        total_records += records
        total_errors += len(errors)
        print(f"{path.relative_to(root)}: {records} records, {len(errors)} errors")
        for error in errors:
            print(f"  {printable(error)}")
    print(f"{len(files)} files, {total_records} records, {total_errors} errors")
    return 0 if total_errors == 0 else 1


def _entry_line(entry: Any) -> str:
    int8 = "-" if entry.int8 is None else ("used" if entry.int8.accepted else "rejected")
    return (
        f"{entry.kind:9s} {entry.served_id}  dims {entry.dims}  "
        f"parity {entry.probe_parity_max_abs_diff:.1e}  int8 {int8}  {entry.path}"
    )


def cmd_models_pull(args: argparse.Namespace) -> int:
    """Download, verify, export and register models; exit 3 when offline, 2 when refused."""
    from lyra.jobs.models_pull import pull_error_exit_code, pull_model
    from lyra.pipelines.evidence.model_registry import KINDS, HubUnavailable, ModelPullError

    if args.kind == "all" and (args.model or args.revision):
        print("lyra: --model and --revision name one model; give a kind, not all", file=sys.stderr)
        return 2
    home = Path(args.home).expanduser() if args.home else load_settings().home_dir
    kinds = list(KINDS) if args.kind == "all" else [args.kind]
    rc = 0
    pulled = []
    for kind in kinds:
        try:
            entry = pull_model(
                home,
                kind,
                model_id=args.model,
                revision=args.revision,
                int8=args.int8,
                say=lambda message: print(f"lyra: {message}", file=sys.stderr),
            )
        except ModelPullError as exc:
            print(f"lyra: models pull {kind}: {type(exc).__name__}: {exc}", file=sys.stderr)
            rc = rc or pull_error_exit_code(exc)
            if isinstance(exc, HubUnavailable):
                break  # the other kinds would meet the same closed door
            continue
        pulled.append(entry)
        if not args.json:
            print(_entry_line(entry))
    if args.json:
        print(json.dumps([e.to_json() | {"path": str(e.path)} for e in pulled]))
    return rc


def cmd_models_prepare(args: argparse.Namespace) -> int:
    """Export the packaged embedder to ONNX once for this installation (setup runs it);
    exit 1 when it cannot be written (each LYRA_HOME then exports its own)."""
    from lyra.pipelines.evidence.embedding import export_installed_embedder, installed_model_dir
    from lyra.pipelines.evidence.onnx_export import OnnxExportError

    try:
        path, made = export_installed_embedder()
    except (OnnxExportError, OSError) as exc:
        print(
            f"lyra: models prepare: cannot export to {installed_model_dir()}: {exc}; each "
            "LYRA_HOME exports its own copy on first use",
            file=sys.stderr,
        )
        return 1
    state = "exported now" if made else "already exported"
    print(f"embedder all-MiniLM-L6-v2: {path} ({state})")
    return 0


def cmd_models_list(args: argparse.Namespace) -> int:
    """The active pulled model of each kind (none: the offline default serves)."""
    from lyra.pipelines.evidence.model_registry import KINDS, read_registry

    home = Path(args.home).expanduser() if args.home else load_settings().home_dir
    entries = read_registry(home)
    if args.json:
        print(json.dumps({k: e.to_json() | {"path": str(e.path)} for k, e in entries.items()}))
        return 0
    for kind in KINDS:
        entry = entries.get(kind)
        print(_entry_line(entry) if entry else f"{kind:9s} none (offline default)")
    return 0
