"""Pulled models: the defaults, the registry under LYRA_HOME, and the rules a pull applies.

``lyra models pull`` (``jobs/models_pull.py``) downloads a model at a pinned revision,
verifies every file against the hub's hashes, exports it to ONNX and records it here;
the InferenceActor asks :func:`active_model` at start which folder to load per kind
(ARCHITECTURE §7; docs/decisions/0015-models-pull.md).

Layout under ``$LYRA_HOME/models``::

    registry.json                      kind -> the active entry (written atomically)
    .staging/                          work in progress; emptied by every pull
    nli/<org>--<name>@<commit>/        the hub files, model.onnx, lyra_model.json
    nli/<org>--<name>@<commit>/int8/   the int8 variant, when pulled with --int8

This module does only the file I/O the registry needs (reading and atomically writing
two JSON files); the network is the job's.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from lyra.pipelines.evidence.nli import NliModelError, label_order

log = logging.getLogger(__name__)

ModelKind = Literal["nli", "embedder", "reranker"]
KINDS: tuple[ModelKind, ...] = ("nli", "embedder", "reranker")
ExportAs = Literal["sequence-classification", "encoder"]
Pooling = Literal["mean", "cls"]

REGISTRY_FILENAME = "registry.json"
ENTRY_FILENAME = "lyra_model.json"
STAGING_DIRNAME = ".staging"
INT8_DIRNAME = "int8"
REGISTRY_VERSION = 1

# Files a pull takes from a repository; everything else (README, other frameworks'
# weights, ONNX exports made elsewhere) stays on the hub.
CONFIG_FILE = "config.json"
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "vocab.txt",
    "vocab.json",
    "merges.txt",
    "spm.model",
    "sentencepiece.bpe.model",
)
# Any one of these is a tokenizer; tokenizer_config.json alone is only its settings.
TOKENIZER_SOURCES = (
    "tokenizer.json",
    "vocab.txt",
    "spm.model",
    "sentencepiece.bpe.model",
    "vocab.json",
)
# One weights file, safetensors first (no pickle); sharded checkpoints are refused.
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
POOLING_FILE = "1_Pooling/config.json"


@dataclass(frozen=True)
class ModelDefault:
    """The model a researcher would choose for one kind, pinned to one commit."""

    kind: ModelKind
    model_id: str
    revision: str
    export_as: ExportAs
    why: str


# Revisions are full commit hashes: a branch name would let the hub change the model
# under a stored edge's model id. Reasons and sources: docs/decisions/0015-models-pull.md.
DEFAULTS: dict[ModelKind, ModelDefault] = {
    "nli": ModelDefault(
        "nli",
        "MoritzLaurer/DeBERTa-v3-base-mnli-fever-anli",
        "eb8b17b1983bca679126ea69b12b5d28c5fe9b9a",
        "sequence-classification",
        "DeBERTa-v3-base cross-encoder trained on MNLI, FEVER-NLI and ANLI (763k pairs); "
        "FEVER and ANLI are claim/evidence and adversarial pairs, Lyra's use",
    ),
    "embedder": ModelDefault(
        "embedder",
        "BAAI/bge-m3",
        "5617a9f61b028005a4858fdac845db406aefb181",
        "encoder",
        "multilingual (100+ languages), 1024-d dense vectors, 8192 tokens",
    ),
    "reranker": ModelDefault(
        "reranker",
        "BAAI/bge-reranker-v2-m3",
        "953dc6f6f85a1b2dbfca4c34a2796e7dde08d41e",
        "sequence-classification",
        "multilingual cross-encoder on the bge-m3 backbone, so query and page languages match",
    ),
}

_COMMIT = re.compile(r"[0-9a-f]{40}")


class ModelPullError(RuntimeError):
    """A pull failed; nothing was installed and the registry is unchanged."""

    def __init__(self, model_id: str, revision: str, message: str) -> None:
        super().__init__(f"{model_id}@{revision}: {message}")
        self.model_id = model_id
        self.revision = revision


class ModelRefused(ModelPullError):
    """The repository is not a model Lyra can serve (labels, tokenizer, weights, size)."""


class HubUnavailable(ModelPullError):
    """The hub cannot be reached at all: offline, or the endpoint is wrong."""


class HubError(ModelPullError):
    """The hub answered with an HTTP error (missing model, revision or file; 5xx)."""

    def __init__(self, model_id: str, revision: str, message: str, status: int | None) -> None:
        super().__init__(model_id, revision, message)
        self.status = status


class DownloadInterrupted(ModelPullError):
    """A file stopped arriving mid-way (connection dropped, truncated body)."""


class HashMismatch(ModelPullError):
    """A downloaded file's hash differs from the one the hub reports for it."""


class ParityError(ModelPullError):
    """The ONNX export disagrees with PyTorch beyond the tolerance."""


@dataclass(frozen=True)
class HubFile:
    """One file as the hub lists it: size and the hash it vouches for."""

    path: str
    size: int | None
    # The git blob id (sha1 of "blob <size>\\0" + content) for files stored in git,
    # the sha256 of the content for LFS files.
    git_oid: str | None
    lfs_sha256: str | None


@dataclass(frozen=True)
class FileRecord:
    """A verified file of an installed model."""

    sha256: str
    size: int
    # "lfs-sha256" or "git-sha1": which hub hash the file was checked against.
    verified_by: str
    hub_hash: str


@dataclass(frozen=True)
class Int8Record:
    """The int8 variant's measured effect on the probe set, against PyTorch fp32."""

    max_abs_diff: float
    agreement: float
    accepted: bool
    bytes: int
    fp32_bytes: int


@dataclass(frozen=True)
class RegistryEntry:
    """One installed model: where it is, what it is, and how it was checked."""

    kind: ModelKind
    model_id: str
    revision: str
    requested_revision: str
    hub: str
    folder: str  # relative to $LYRA_HOME/models
    files: dict[str, FileRecord]
    export_as: ExportAs
    dims: int
    labels: list[str] | None
    pooling: Pooling | None
    onnx_parity_max_abs_diff: float
    probe_parity_max_abs_diff: float
    int8: Int8Record | None
    pulled_at: str
    format_version: int = REGISTRY_VERSION
    # Filled in by `active_model`/`read_registry`, never stored: the folder to load.
    path: Path = field(default=Path(), compare=False)

    @property
    def served_id(self) -> str:
        """The id stored with what the model produces: hub id @ 12 characters of commit."""
        return f"{self.model_id}@{self.revision[:12]}"

    @property
    def uses_int8(self) -> bool:
        """True when the folder to load is the accepted int8 variant."""
        return self.int8 is not None and self.int8.accepted

    def to_json(self) -> dict[str, Any]:
        """The stored form (no absolute paths: LYRA_HOME may move)."""
        data = asdict(self)
        data.pop("path")
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any], models_dir: Path) -> RegistryEntry:
        """Parse a stored entry and resolve its folder under ``models_dir``."""
        raw = dict(data)
        raw["files"] = {k: FileRecord(**v) for k, v in raw["files"].items()}
        raw["int8"] = Int8Record(**raw["int8"]) if raw.get("int8") else None
        entry = cls(**raw)
        base = models_dir / entry.folder
        return replace(entry, path=base / INT8_DIRNAME if entry.uses_int8 else base)


def models_dir(home: Path) -> Path:
    """``$LYRA_HOME/models``."""
    return Path(home).expanduser() / "models"


def safe_name(model_id: str) -> str:
    """A folder name for a hub id: ``org/name`` -> ``org--name``, nothing else odd."""
    name = model_id.replace("/", "--")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*(--[A-Za-z0-9._-]+)?", name) or ".." in name:
        raise ValueError(f"{model_id!r} is not a hub model id (org/name)")
    return name


def install_folder(kind: ModelKind, model_id: str, commit: str) -> str:
    """The folder of one model at one commit, relative to the models folder."""
    if not _COMMIT.fullmatch(commit):
        raise ValueError(f"{commit!r} is not a full commit hash")
    return f"{kind}/{safe_name(model_id)}@{commit}"


def is_commit(revision: str) -> bool:
    """True for a full 40-hex commit hash (a pinned revision)."""
    return _COMMIT.fullmatch(revision) is not None


def read_registry(home: Path) -> dict[ModelKind, RegistryEntry]:
    """The active entry per kind; an absent registry is empty, a damaged one is an error."""
    base = models_dir(home)
    path = base / REGISTRY_FILENAME
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format_version") != REGISTRY_VERSION:
        raise ValueError(f"{path} is not a version {REGISTRY_VERSION} Lyra model registry")
    models = data.get("models", {})
    return {
        kind: RegistryEntry.from_json(entry, base)
        for kind, entry in models.items()
        if kind in KINDS
    }


def write_registry(home: Path, entries: Mapping[ModelKind, RegistryEntry]) -> Path:
    """Write the registry atomically (temporary file, fsync, rename)."""
    base = models_dir(home)
    base.mkdir(parents=True, exist_ok=True)
    data = {
        "format_version": REGISTRY_VERSION,
        "models": {kind: entries[kind].to_json() for kind in sorted(entries)},
    }
    return write_json_atomic(base / REGISTRY_FILENAME, data)


def write_json_atomic(path: Path, data: Mapping[str, Any]) -> Path:
    """Write JSON so that a reader sees the old file or the new one, never a part."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, sort_keys=True)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def registry_fingerprint(home: Path) -> str:
    """A digest of the registry as it is on disk now ("" when there is none): the
    InferenceActor compares it with the one it loaded to see that a pull changed what
    is installed (``reload_models``; a replay judges with the models installed now)."""
    path = models_dir(home) / REGISTRY_FILENAME
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return ""


def active_model(home: Path, kind: ModelKind) -> RegistryEntry | None:
    """The pulled model to load for ``kind``, or None (then the offline default serves).

    An entry whose folder has gone (deleted by hand) or whose registry cannot be read
    is logged and treated as absent: a start must not fail on it.
    """
    try:
        entry = read_registry(home).get(kind)
    except (OSError, ValueError, TypeError, KeyError) as exc:
        log.warning("model registry under %s unreadable (%s); using defaults", home, exc)
        return None
    if entry is None:
        return None
    if not (entry.path / "model.onnx").is_file():
        log.warning("registered %s model %s is missing at %s", kind, entry.model_id, entry.path)
        return None
    return entry


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's content."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def git_blob_sha1(path: Path) -> str:
    """The git blob id of a file: sha1 over ``blob <size>\\0`` and the content."""
    path = Path(path)
    digest = hashlib.sha1(usedforsecurity=False)
    digest.update(f"blob {path.stat().st_size}\0".encode())
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def verify_file(path: Path, listed: HubFile, model_id: str, revision: str) -> FileRecord:
    """Check a downloaded file against the hub's hash; raise HashMismatch if it differs."""
    size = Path(path).stat().st_size
    if listed.size is not None and size != listed.size:
        raise HashMismatch(
            model_id,
            revision,
            f"{listed.path} arrived with {size} bytes, the hub lists {listed.size}: "
            "truncated or padded on the way",
        )
    local = sha256_file(path)
    if listed.lfs_sha256 is not None:
        verified_by, want, got = "lfs-sha256", listed.lfs_sha256, local
    elif listed.git_oid is not None:
        verified_by, want, got = "git-sha1", listed.git_oid, git_blob_sha1(path)
    else:
        raise HashMismatch(
            model_id, revision, f"the hub lists no hash for {listed.path}; refusing to trust it"
        )
    if got != want:
        raise HashMismatch(
            model_id,
            revision,
            f"{listed.path} does not match the hub's {verified_by} (want {want}, got {got}, "
            f"{size} bytes); the download was corrupted or the mirror serves other bytes",
        )
    return FileRecord(sha256=local, size=size, verified_by=verified_by, hub_hash=want)


def select_files(
    kind: ModelKind, listed: Mapping[str, HubFile], model_id: str, revision: str
) -> list[str]:
    """The files to download, config first, weights last; refuse unusable repositories."""
    if CONFIG_FILE not in listed:
        raise ModelRefused(model_id, revision, f"the repository has no {CONFIG_FILE}")
    if not any(name in listed for name in TOKENIZER_SOURCES):
        raise ModelRefused(
            model_id,
            revision,
            "the repository has no tokenizer (none of "
            f"{', '.join(TOKENIZER_SOURCES)}); Lyra will not guess one",
        )
    weights = next((name for name in WEIGHT_FILES if name in listed), None)
    if weights is None:
        sharded = sorted(n for n in listed if n.endswith(".index.json"))
        why = f"sharded weights ({sharded[0]}) are not supported" if sharded else "no weights"
        raise ModelRefused(model_id, revision, f"{why}; expected one of {', '.join(WEIGHT_FILES)}")
    files = [CONFIG_FILE, *(n for n in TOKENIZER_FILES if n in listed)]
    if kind == "embedder" and POOLING_FILE in listed:
        files.append(POOLING_FILE)
    return [*files, weights]


def check_config(
    kind: ModelKind, config: Mapping[str, Any], model_id: str, revision: str
) -> list[str] | None:
    """The stance labels of an NLI model (or None for other kinds); refuse wrong labels,
    and a reranker that does not have exactly one (relevance) logit."""
    if kind == "reranker":
        id2label = config.get("id2label")
        labels = len(id2label) if isinstance(id2label, dict) else config.get("num_labels")
        if labels != 1:
            raise ModelRefused(
                model_id, revision, f"config.json declares {labels} labels; a reranker has one"
            )
        return None
    if kind != "nli":
        return None
    id2label = config.get("id2label")
    if not isinstance(id2label, dict):
        raise ModelRefused(model_id, revision, "config.json has no id2label; not an NLI model")
    try:
        return list(label_order(id2label))
    except NliModelError as exc:
        raise ModelRefused(model_id, revision, f"not an NLI model: {exc}") from exc


def pooling_of(folder: Path) -> Pooling:
    """The sentence-transformers pooling of an encoder folder; mean when unstated."""
    path = Path(folder) / POOLING_FILE
    if not path.is_file():
        return "mean"
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("pooling_mode_cls_token"):
        return "cls"
    if data.get("pooling_mode_mean_tokens", True):
        return "mean"
    raise ValueError(f"{path} asks for a pooling Lyra does not implement: {data}")
