"""`lyra models pull`: download, verify, export, measure and register one model.

The steps, each of which either completes or leaves nothing behind:

1. Ask the hub (``huggingface_hub``; ``HF_ENDPOINT`` names a mirror) which commit the
   revision is and the size and hash of every file (``model_info(files_metadata=True)``).
2. Refuse, before the weights are fetched, a repository Lyra cannot serve: no tokenizer,
   no single weights file, an NLI model whose ``id2label`` does not name entailment,
   neutral and contradiction, or one too large for this machine's memory or disk.
3. Download the chosen files into ``$LYRA_HOME/models/.staging`` and check each against
   the hub's hash (sha256 for LFS files, the git blob id for the others).
4. Export to ONNX (``pipelines/evidence/onnx_export``), measure parity with PyTorch on a
   fixed probe set, and with ``--int8`` measure the quantised variant too
   (``pipelines/evidence/model_checks``).
5. Move the finished folder into place with one rename and rewrite ``registry.json``
   atomically. Any failure before that removes the staging folder: the registry and
   the installed models are as they were.

This is a job, not a pipeline, because it does network I/O (the same border as
``fetch_http``; docs/decisions/0014-layout.md). torch and transformers are needed here,
once per pull; serving the result needs neither.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from lyra.pipelines.evidence import model_checks
from lyra.pipelines.evidence.model_registry import (
    CONFIG_FILE,
    DEFAULTS,
    ENTRY_FILENAME,
    INT8_DIRNAME,
    STAGING_DIRNAME,
    TOKENIZER_FILES,
    TOKENIZER_SOURCES,
    DownloadInterrupted,
    ExportAs,
    FileRecord,
    HubError,
    HubFile,
    HubUnavailable,
    Int8Record,
    ModelKind,
    ModelPullError,
    ModelRefused,
    ParityError,
    Pooling,
    RegistryEntry,
    check_config,
    install_folder,
    is_commit,
    models_dir,
    pooling_of,
    read_registry,
    select_files,
    verify_file,
    write_json_atomic,
    write_registry,
)
from lyra.pipelines.evidence.onnx_export import (
    ONNX_FILENAME,
    OnnxExportError,
    export_classifier_onnx,
    export_minilm_onnx,
    read_manifest,
)

log = logging.getLogger(__name__)

Say = Callable[[str], None]

# Exporting holds the PyTorch model, the traced graph being serialised and an ONNX
# Runtime session for the parity check at once: about three copies of the weights.
EXPORT_MEMORY_FACTOR = 3.0
# On disk: the hub weights, the fp32 export, an int8 variant (a quarter) and slack.
DISK_FACTOR = 2.5
LOCK_FILENAME = ".pull.lock"
# Seconds the hub may take to answer the listing of a model (a silent endpoint hung the
# pull for good); each file's download has huggingface_hub's own read timeout.
HUB_TIMEOUT_S = 30.0
# Small files an int8 folder needs beside its model.onnx to be loadable on its own.
_INT8_COMPANIONS = (CONFIG_FILE, *TOKENIZER_FILES, "1_Pooling/config.json")


def _quiet(_: str) -> None:
    return None


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        yield cur
        cur = cur.__cause__ or cur.__context__


def _translate(
    exc: BaseException, model_id: str, revision: str, hub: str, what: str, downloading: bool
) -> ModelPullError | None:
    """Lyra's error for a huggingface_hub or httpx failure, or None for anything else."""
    import httpx2
    from huggingface_hub.errors import (
        EntryNotFoundError,
        HfHubHTTPError,
        OfflineModeIsEnabled,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    chain = list(_chain(exc))

    def has(*types: type[BaseException]) -> bool:
        return any(isinstance(e, types) for e in chain)

    if has(OfflineModeIsEnabled):
        return HubUnavailable(
            model_id, revision, "HF_HUB_OFFLINE is set, so the hub is not asked; unset it"
        )
    if has(RevisionNotFoundError):
        return HubError(model_id, revision, f"revision {revision!r} does not exist on {hub}", 404)
    if has(RepositoryNotFoundError):
        return HubError(
            model_id,
            revision,
            f"model {model_id!r} not found on {hub} (or it is private or gated: "
            "log in with `hf auth login`)",
            404,
        )
    if has(EntryNotFoundError) and has(HfHubHTTPError):
        return HubError(model_id, revision, f"{what} not found on {hub}", 404)
    http = next((e for e in chain if isinstance(e, HfHubHTTPError)), None)
    if http is not None and http.response is not None:
        status = int(http.response.status_code)
        message = f"{hub} answered HTTP {status} for {what}; try again later"
        return HubError(model_id, revision, message, status)
    last = chain[-1]
    if downloading and has(
        httpx2.RemoteProtocolError, httpx2.ReadError, httpx2.TimeoutException, httpx2.ConnectError
    ):
        return DownloadInterrupted(
            model_id,
            revision,
            f"downloading {what} was interrupted ({type(last).__name__}: {last}); "
            "nothing was installed, run the same pull again",
        )
    if has(httpx2.ConnectError, httpx2.ConnectTimeout):
        return HubUnavailable(
            model_id,
            revision,
            f"cannot reach {hub}: offline (or a wrong HF_ENDPOINT). Lyra keeps its offline "
            "models (MiniLM embeddings, the packaged stance model); run `lyra models pull` "
            "again when online",
        )
    if has(httpx2.TimeoutException):
        return HubUnavailable(
            model_id,
            revision,
            f"{hub} accepted the connection but did not answer within {HUB_TIMEOUT_S:g} s "
            "(a wrong HF_ENDPOINT, or a proxy that holds requests); run the pull again later",
        )
    if isinstance(exc, OSError) and "Consistency check failed" in str(exc):
        return DownloadInterrupted(
            model_id, revision, f"{what} arrived truncated ({exc}); run the pull again"
        )
    return None


@contextmanager
def _hub_errors(
    model_id: str, revision: str, hub: str, what: str, *, downloading: bool = False
) -> Iterator[None]:
    """Turn huggingface_hub's and httpx's errors into Lyra's, naming model and revision."""
    try:
        yield
    except ModelPullError:
        raise
    except Exception as exc:
        error = _translate(exc, model_id, revision, hub, what, downloading)
        if error is None:
            raise
        raise error from exc


@contextmanager
def _pull_lock(base: Path, model_id: str, revision: str) -> Iterator[None]:
    base.mkdir(parents=True, exist_ok=True)
    with (base / LOCK_FILENAME).open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise ModelPullError(
                model_id, revision, f"another `lyra models pull` holds {base / LOCK_FILENAME}"
            ) from exc
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _listing(info: Any) -> dict[str, HubFile]:
    files: dict[str, HubFile] = {}
    for sibling in info.siblings or []:
        lfs = sibling.lfs
        files[sibling.rfilename] = HubFile(
            path=sibling.rfilename,
            size=lfs.size if lfs is not None else sibling.size,
            git_oid=sibling.blob_id,
            lfs_sha256=lfs.sha256 if lfs is not None else None,
        )
    return files


def _check_room(
    base: Path,
    weights: HubFile,
    model_id: str,
    commit: str,
    memory_available: int | None,
) -> None:
    """Refuse a model that cannot be exported in this machine's memory or stored on disk."""
    import psutil

    size = weights.size or 0
    memory = psutil.virtual_memory().available if memory_available is None else memory_available
    need = int(size * EXPORT_MEMORY_FACTOR)
    if need > memory:
        raise ModelRefused(
            model_id,
            commit,
            f"{weights.path} is {size / 2**20:.0f} MiB; exporting it needs about "
            f"{need / 2**20:.0f} MiB of memory and {memory / 2**20:.0f} MiB are available. "
            "Pull it on a larger machine and copy $LYRA_HOME/models, or choose a smaller "
            "model with --model",
        )
    disk = shutil.disk_usage(base).free
    if int(size * DISK_FACTOR) > disk:
        raise ModelRefused(
            model_id,
            commit,
            f"{weights.path} needs about {size * DISK_FACTOR / 2**20:.0f} MiB on disk and "
            f"{base} has {disk / 2**20:.0f} MiB free",
        )


def _ensure_tokenizer_json(folder: Path, model_id: str, commit: str) -> None:
    """tokenizer.json is what Lyra serves with; convert a slow tokenizer's files once."""
    if (folder / "tokenizer.json").is_file():
        return
    source = next(n for n in TOKENIZER_SOURCES if (folder / n).is_file())
    try:
        from transformers import AutoTokenizer

        with tempfile.TemporaryDirectory(dir=folder.parent) as tmp:
            tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
            tokenizer.save_pretrained(tmp)
            shutil.copyfile(Path(tmp) / "tokenizer.json", folder / "tokenizer.json")
    except Exception as exc:  # any conversion failure is a refusal, with its cause
        raise ModelRefused(
            model_id,
            commit,
            f"the repository has {source} but no tokenizer.json, and converting it failed "
            f"({type(exc).__name__}: {exc}); install sentencepiece and pull again",
        ) from exc


def _export(folder: Path, export_as: ExportAs, model_id: str, commit: str) -> float:
    try:
        if export_as == "encoder":
            export_minilm_onnx(folder, folder, model_id=model_id, force=True)
        else:
            export_classifier_onnx(folder, model_id=model_id, force=True)
    except OnnxExportError as exc:
        raise ParityError(model_id, commit, str(exc)) from exc
    manifest = read_manifest(folder)
    if manifest is None:
        raise ParityError(model_id, commit, f"the export left no manifest in {folder}")
    return manifest.parity_max_abs_diff


def _measure(
    folder: Path, onnx_path: Path, export_as: ExportAs, pooling: Pooling | None
) -> tuple[model_checks.ProbeParity, np.ndarray]:
    classifier = export_as == "sequence-classification"
    feed = model_checks.probe_feed(folder, pairs=classifier)
    reference = model_checks.run_torch(folder, feed, classifier)
    if classifier:
        return model_checks.classifier_parity(folder, onnx_path, reference), reference
    vectors = model_checks.pool(reference, feed["attention_mask"], pooling or "mean")
    return model_checks.encoder_parity(folder, onnx_path, vectors, pooling or "mean"), vectors


def _int8(
    folder: Path, export_as: ExportAs, pooling: Pooling | None, reference: np.ndarray, say: Say
) -> Int8Record:
    target = folder / INT8_DIRNAME
    model_checks.quantize_int8(folder / ONNX_FILENAME, target / ONNX_FILENAME)
    for name in _INT8_COMPANIONS:
        if (folder / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(folder / name, target / name)
    encoder = export_as == "encoder"
    if encoder:
        parity = model_checks.encoder_parity(
            folder, target / ONNX_FILENAME, reference, pooling or "mean"
        )
    else:
        parity = model_checks.classifier_parity(folder, target / ONNX_FILENAME, reference)
    record = Int8Record(
        max_abs_diff=parity.max_abs_diff,
        agreement=parity.agreement,
        accepted=model_checks.int8_accepted(parity.agreement, encoder),
        bytes=model_checks.onnx_bytes(target / ONNX_FILENAME),
        fp32_bytes=model_checks.onnx_bytes(folder / ONNX_FILENAME),
    )
    say(
        f"int8: {record.bytes / 2**20:.1f} MiB (fp32 {record.fp32_bytes / 2**20:.1f} MiB), "
        f"max diff {record.max_abs_diff:.3g}, agreement {record.agreement:.3f}: "
        + ("used" if record.accepted else "below the floor, fp32 kept")
    )
    if not record.accepted:
        shutil.rmtree(target)
    return record


def _install(staged: Path, target: Path, trash_dir: Path) -> None:
    """Move ``staged`` to ``target`` with one rename; an older copy goes to the trash."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        os.replace(target, trash_dir / "previous")
    os.replace(staged, target)


def pull_model(
    home: Path,
    kind: ModelKind,
    *,
    model_id: str | None = None,
    revision: str | None = None,
    int8: bool = False,
    endpoint: str | None = None,
    token: str | bool | None = None,
    hf_cache: Path | None = None,
    memory_available: int | None = None,
    say: Say = _quiet,
) -> RegistryEntry:
    """Pull one model and make it the active one of its kind; return its registry entry.

    ``model_id`` and ``revision`` default to :data:`DEFAULTS`; a ``model_id`` without a
    revision takes ``main`` and records the commit it resolved to. ``endpoint`` (default:
    ``HF_ENDPOINT`` or huggingface.co) and ``hf_cache`` (default: the Hugging Face cache,
    whose files are reused after verification) are for mirrors and tests.
    """
    default = DEFAULTS[kind]
    model_id = model_id or default.model_id
    if revision is None:
        revision = default.revision if model_id == default.model_id else "main"
    base = models_dir(home)
    from huggingface_hub import HfApi, hf_hub_download
    from huggingface_hub import constants as hf_constants

    hub = (endpoint or hf_constants.ENDPOINT).rstrip("/")
    api = HfApi(endpoint=endpoint, token=token)
    with _pull_lock(base, model_id, revision):
        staging_root = base / STAGING_DIRNAME
        # Under the lock nothing else uses the staging folder: leftovers are from a
        # pull that was killed.
        shutil.rmtree(staging_root, ignore_errors=True)
        staging_root.mkdir(parents=True)
        try:
            entries = read_registry(home)
        except (OSError, ValueError, TypeError, KeyError) as exc:
            raise ModelPullError(
                model_id,
                revision,
                f"{base / 'registry.json'} cannot be read ({exc}); move it away and pull again",
            ) from exc
        work = Path(tempfile.mkdtemp(prefix="pull-", dir=staging_root))
        try:
            say(f"{kind}: asking {hub} for {model_id}@{revision}")
            with _hub_errors(model_id, revision, hub, f"{model_id}@{revision}"):
                info = api.model_info(
                    model_id, revision=revision, files_metadata=True, timeout=HUB_TIMEOUT_S
                )
            commit = str(info.sha)
            if not is_commit(commit):
                raise HubError(model_id, revision, f"{hub} gave no commit for it", None)
            listed = _listing(info)
            wanted = select_files(kind, listed, model_id, commit)
            _check_room(base, listed[wanted[-1]], model_id, commit, memory_available)
            folder = work / "model"
            records: dict[str, FileRecord] = {}
            labels: list[str] | None = None
            for name in wanted:
                size = listed[name].size or 0
                say(f"{kind}: downloading {name} ({size / 2**20:.1f} MiB)")
                what = f"the file {name} of {model_id}@{commit}"
                with _hub_errors(model_id, commit, hub, what, downloading=True):
                    path = hf_hub_download(
                        model_id,
                        name,
                        revision=commit,
                        local_dir=folder,
                        endpoint=endpoint,
                        token=token,
                        cache_dir=hf_cache,
                    )
                records[name] = verify_file(Path(path), listed[name], model_id, commit)
                if name == CONFIG_FILE:
                    config = json.loads(Path(path).read_text(encoding="utf-8"))
                    # Checked before anything else is fetched: a wrong model costs one
                    # small file, not its weights.
                    labels = check_config(kind, config, model_id, commit)
            shutil.rmtree(folder / ".cache", ignore_errors=True)
            entry = _build(folder, kind, default.export_as, model_id, commit, revision, hub)
            entry = _finish(folder, entry, records, labels, int8, say)
            target = base / entry.folder
            _install(folder, target, work)
            entries[kind] = entry
            write_registry(home, entries)
            say(f"{kind}: {model_id}@{commit} installed in {target}")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return read_registry(home)[kind]


def _build(
    folder: Path,
    kind: ModelKind,
    export_as: ExportAs,
    model_id: str,
    commit: str,
    requested: str,
    hub: str,
) -> RegistryEntry:
    """The parts of an entry known once the files are in: kind, origin, export mode."""
    return RegistryEntry(
        kind=kind,
        model_id=model_id,
        revision=commit,
        requested_revision=requested,
        hub=hub,
        folder=install_folder(kind, model_id, commit),
        files={},
        export_as=export_as,
        dims=0,
        labels=None,
        pooling=None,
        onnx_parity_max_abs_diff=0.0,
        probe_parity_max_abs_diff=0.0,
        int8=None,
        pulled_at="",
    )


def _finish(
    folder: Path,
    entry: RegistryEntry,
    records: dict[str, FileRecord],
    labels: list[str] | None,
    int8: bool,
    say: Say,
) -> RegistryEntry:
    """Tokenizer, export, probe parity, int8; write the folder's own entry file."""
    model_id, commit = entry.model_id, entry.revision
    _ensure_tokenizer_json(folder, model_id, commit)
    pooling: Pooling | None = None
    if entry.export_as == "encoder":
        try:
            pooling = pooling_of(folder)
        except ValueError as exc:
            raise ModelRefused(model_id, commit, str(exc)) from exc
    say(f"{entry.kind}: exporting to ONNX")
    export_parity = _export(folder, entry.export_as, model_id, commit)
    parity, reference = _measure(folder, folder / ONNX_FILENAME, entry.export_as, pooling)
    floor = model_checks.probe_floor(entry.export_as == "encoder")
    if parity.max_abs_diff > model_checks.PROBE_ATOL or parity.agreement < floor:
        raise ParityError(
            model_id,
            commit,
            f"ONNX disagrees with PyTorch on the probe set (max diff {parity.max_abs_diff:.3g}"
            f" > {model_checks.PROBE_ATOL} or agreement {parity.agreement:.4f} < {floor})",
        )
    say(f"{entry.kind}: parity with PyTorch, max diff {parity.max_abs_diff:.3g}")
    config = json.loads((folder / CONFIG_FILE).read_text(encoding="utf-8"))
    # config.json stores no num_labels: transformers derives it from id2label.
    dims = (
        int(config["hidden_size"])
        if entry.export_as == "encoder"
        else len(config.get("id2label") or {"0": "LABEL_0"})
    )
    int8_record = _int8(folder, entry.export_as, pooling, reference, say) if int8 else None
    final = replace(
        entry,
        files=records,
        dims=dims,
        labels=labels,
        pooling=pooling,
        onnx_parity_max_abs_diff=export_parity,
        probe_parity_max_abs_diff=parity.max_abs_diff,
        int8=int8_record,
        pulled_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    )
    write_json_atomic(folder / ENTRY_FILENAME, final.to_json())
    return final


def pull_error_exit_code(exc: ModelPullError) -> int:
    """The `lyra models pull` exit status: 3 offline, 2 refused, 1 any other failure."""
    if isinstance(exc, HubUnavailable):
        return 3
    if isinstance(exc, ModelRefused):
        return 2
    return 1
