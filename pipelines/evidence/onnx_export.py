"""One-time export of transformer encoders and cross-encoders to ONNX.

Lyra serves embeddings and NLI through ONNX Runtime (ARCHITECTURE §7): on CPU it is
about twice as fast as PyTorch for MiniLM with identical vectors (ENVIRONMENT.md,
"Figures"), and the runtime does not need torch. Torch and transformers are needed once,
here, to produce the ``.onnx`` file; they are imported lazily so that a machine holding
an exported model can serve it without them.

Design decisions:

- **Legacy exporter** (``torch.onnx.export(..., dynamo=False)``): the TorchScript-based
  exporter is the one measured here (identical vectors, ENVIRONMENT.md); the dynamo
  exporter needs ``onnxscript``, which the project does not install.
- **Prepared 4-D attention mask.** transformers 5 builds the attention mask from the
  padding mask with Python-level shape arithmetic, which the tracer freezes to the
  sequence length of the dummy input: the exported BERT then gives wrong vectors for
  every other length (measured: max abs error 4.2 on the last hidden state). The wrapper
  below passes an additive 4-D mask, which transformers returns as-is. DeBERTa-v2 does
  its own mask arithmetic and produces NaN with a 4-D mask, so it takes the 2-D one.
  Whatever the mode, every export is verified against PyTorch on a batch whose size and
  length differ from the traced ones; an export that disagrees is never published.
- **Atomic publication.** The model is written into a temporary folder next to the
  target and moved in; the manifest is moved last and is the completion marker: a
  folder without a manifest (a crash mid-export) is exported again.
- **Reuse.** An existing export is reused when its manifest names the same source
  fingerprint (sha256 of config, weights and tokenizer) and opset. The fingerprint is
  recomputed only when the source files' sizes or mtimes changed (hashing MiniLM's
  90 MB takes 0.27 s, which would otherwise be paid on every start).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import logging
import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

if TYPE_CHECKING:
    import torch

log = logging.getLogger(__name__)

MINILM_MODEL_ID = "all-MiniLM-L6-v2"
ONNX_FILENAME = "model.onnx"
MANIFEST_FILENAME = "onnx_manifest.json"
TOKENIZER_FILENAME = "tokenizer.json"
DEFAULT_OPSET = 17
MANIFEST_VERSION = 1
# Largest acceptable |onnx - torch| on the verification batch. Measured: 2.8e-6 on
# MiniLM hidden states, 7e-9 on tiny classifiers; 1e-4 leaves room for other CPUs while
# still catching a frozen mask (errors of order 1).
PARITY_ATOL = 1e-4

MaskMode = Literal["4d", "2d"]
ExportKind = Literal["encoder", "sequence-classification"]

_SOURCE_FILES = ("config.json", "tokenizer.json")
_WEIGHT_SUFFIXES = (".safetensors", ".bin")


class OnnxExportError(RuntimeError):
    """The export could not be produced or failed verification."""


@dataclass(frozen=True)
class ExportManifest:
    """What was exported, from which source, and how well it matched PyTorch."""

    model_id: str
    kind: ExportKind
    dims: int
    source_sha256: str
    opset: int
    input_names: list[str]
    output_name: str
    mask_mode: MaskMode
    parity_max_abs_diff: float
    export_seconds: float
    torch_version: str
    transformers_version: str
    source_stat: dict[str, list[int]] = field(default_factory=dict)
    created_at: float = field(default_factory=time.time)
    format_version: int = MANIFEST_VERSION

    def to_json(self) -> str:
        """Serialise to indented JSON."""
        return json.dumps(asdict(self), indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ExportManifest:
        """Parse a manifest written by :meth:`to_json`."""
        data = json.loads(text)
        return cls(**data)


def read_manifest(out_dir: Path) -> ExportManifest | None:
    """The manifest in ``out_dir``, or None when absent or unreadable."""
    path = Path(out_dir) / MANIFEST_FILENAME
    if not path.is_file():
        return None
    try:
        return ExportManifest.from_json(path.read_text(encoding="utf-8"))
    except (ValueError, TypeError) as exc:
        # A manifest from another format version is treated as absent: re-export.
        log.warning("ignoring unreadable ONNX manifest %s: %s", path, exc)
        return None


def _source_paths(model_dir: Path) -> list[Path]:
    paths = [model_dir / name for name in _SOURCE_FILES if (model_dir / name).is_file()]
    paths += sorted(
        p for p in model_dir.iterdir() if p.is_file() and p.name.endswith(_WEIGHT_SUFFIXES)
    )
    return paths


def _source_stat(model_dir: Path) -> dict[str, list[int]]:
    return {p.name: [p.stat().st_size, p.stat().st_mtime_ns] for p in _source_paths(model_dir)}


def source_fingerprint(model_dir: Path) -> str:
    """sha256 over the config, tokenizer and weight files of a model folder."""
    model_dir = Path(model_dir)
    digest = hashlib.sha256()
    for path in _source_paths(model_dir):
        digest.update(path.name.encode("utf-8") + b"\0")
        with path.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    return digest.hexdigest()


def _reusable(out_dir: Path, model_dir: Path, opset: int) -> ExportManifest | None:
    manifest = read_manifest(out_dir)
    if manifest is None or not (out_dir / ONNX_FILENAME).is_file() or manifest.opset != opset:
        return None
    if manifest.source_stat and manifest.source_stat == _source_stat(model_dir):
        return manifest
    if manifest.source_sha256 == source_fingerprint(model_dir):
        return manifest
    log.info("ONNX export in %s is stale (source changed); exporting again", out_dir)
    return None


def reusable_export(out_dir: Path, model_dir: Path, opset: int = DEFAULT_OPSET) -> Path | None:
    """``out_dir``'s ONNX file when it is a finished export of ``model_dir`` at
    ``opset`` (the manifest written last, the source unchanged), else None."""
    out_dir = Path(out_dir)
    if _reusable(out_dir, Path(model_dir), opset) is None:
        return None
    return out_dir / ONNX_FILENAME


def _require_torch() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise OnnxExportError(
            "exporting a model to ONNX needs torch and transformers once; install the "
            "CPU build of torch (pip install 'torch==2.13.0' transformers) or copy an "
            f"existing export into place ({exc})"
        ) from exc
    return torch, transformers


@contextmanager
def _quiet_transformers() -> Iterator[None]:
    """Silence progress bars and tracer chatter; the export logs its own summary."""
    from transformers.utils import logging as hf_logging

    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # untyped upstream
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()  # type: ignore[no-untyped-call]  # untyped upstream


def _make_wrapper(
    model: torch.nn.Module, input_names: Sequence[str], kind: ExportKind, mask_mode: MaskMode
) -> torch.nn.Module:
    import torch

    names = list(input_names)

    class _Wrapper(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
            """The model's hidden states or logits for positional graph inputs."""
            kwargs = dict(zip(names, inputs, strict=True))
            if mask_mode == "4d":
                mask = kwargs["attention_mask"][:, None, None, :].to(torch.float32)
                kwargs["attention_mask"] = (1.0 - mask) * torch.finfo(torch.float32).min
            out = self.model(**kwargs)
            result: torch.Tensor = out.last_hidden_state if kind == "encoder" else out.logits
            return result

    return _Wrapper().eval()


def _dummy_inputs(
    names: Sequence[str], vocab_size: int, segments: bool, batch: int, length: int, seed: int
) -> dict[str, np.ndarray]:
    """Token batch with ragged padding and two segments, so the mask path is exercised."""
    rng = np.random.default_rng(seed)
    low = min(5, vocab_size - 1)
    ids = rng.integers(low, vocab_size, size=(batch, length), dtype=np.int64)
    mask = np.ones((batch, length), dtype=np.int64)
    types = np.zeros((batch, length), dtype=np.int64)
    for row in range(batch):
        used = max(2, length - row * (length // (batch + 1)))
        mask[row, used:] = 0
        ids[row, used:] = 0
        if segments:
            types[row, used // 2 : used] = 1
    feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
    return {name: feed[name] for name in names}


def _export_once(
    model: torch.nn.Module,
    input_names: list[str],
    kind: ExportKind,
    mask_mode: MaskMode,
    vocab_size: int,
    segments: bool,
    target: Path,
    opset: int,
) -> tuple[float, list[str]]:
    """Export one mask mode into ``target``; return the parity error and graph inputs."""
    import onnxruntime as ort
    import torch

    output_name = "last_hidden_state" if kind == "encoder" else "logits"
    wrapper = _make_wrapper(model, input_names, kind, mask_mode)
    trace = _dummy_inputs(input_names, vocab_size, segments, batch=2, length=8, seed=0)
    axes: dict[str, dict[int, str]] = {name: {0: "batch", 1: "sequence"} for name in input_names}
    axes[output_name] = {0: "batch", 1: "sequence"} if kind == "encoder" else {0: "batch"}
    with torch.inference_mode():
        torch.onnx.export(
            wrapper,
            tuple(torch.from_numpy(trace[name]) for name in input_names),
            str(target),
            dynamo=False,
            opset_version=opset,
            input_names=input_names,
            output_names=[output_name],
            dynamic_axes=axes,
        )
    # Verify on a batch and length the tracer never saw (3 x 13 vs 2 x 8).
    check = _dummy_inputs(input_names, vocab_size, segments, batch=3, length=13, seed=1)
    session = ort.InferenceSession(str(target), providers=["CPUExecutionProvider"])
    declared = [i.name for i in session.get_inputs()]
    got = session.run([output_name], {name: check[name] for name in declared})[0]
    with torch.inference_mode():
        # The reference is the unwrapped model with the plain 2-D mask.
        kwargs = {name: torch.from_numpy(check[name]) for name in input_names}
        out = model(**kwargs)
        want = (out.last_hidden_state if kind == "encoder" else out.logits).numpy()
    if kind == "encoder":
        # Padding positions are ignored downstream (mean pooling), so only real
        # tokens count towards parity.
        keep = check["attention_mask"][:, :, None].astype(bool)
        diff = np.abs(np.where(keep, got - want, 0.0))
    else:
        diff = np.abs(got - want)
    return float(np.nan_to_num(diff, nan=np.inf).max()), declared


def _export(
    model_dir: Path,
    out_dir: Path,
    *,
    kind: ExportKind,
    model_id: str,
    opset: int,
    force: bool,
    copy_tokenizer: bool,
) -> Path:
    model_dir = Path(model_dir)
    out_dir = Path(out_dir)
    if not (model_dir / "config.json").is_file():
        raise OnnxExportError(f"{model_dir} has no config.json; it is not a model folder")
    if not force:
        manifest = _reusable(out_dir, model_dir, opset)
        if manifest is not None:
            log.debug("reusing ONNX export %s (%s)", out_dir / ONNX_FILENAME, model_id)
            return out_dir / ONNX_FILENAME

    torch, transformers = _require_torch()
    from transformers import AutoModel, AutoModelForSequenceClassification

    started = time.perf_counter()
    loader = AutoModel if kind == "encoder" else AutoModelForSequenceClassification
    with _quiet_transformers():
        # Eager attention: the simplest graph, which ONNX Runtime's BERT fusions know.
        model = loader.from_pretrained(
            str(model_dir), local_files_only=True, attn_implementation="eager"
        ).eval()
        accepted = inspect.signature(model.forward).parameters
        input_names = [
            n for n in ("input_ids", "attention_mask", "token_type_ids") if n in accepted
        ]
        config = model.config
        vocab_size = int(config.vocab_size)
        # Models with one token type (RoBERTa) would index out of range on segment 1.
        segments = int(getattr(config, "type_vocab_size", 0) or 0) >= 2
        model_type = str(getattr(config, "model_type", ""))
        modes: list[MaskMode] = ["2d", "4d"] if model_type.startswith("deberta") else ["4d", "2d"]
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".onnx-export-", dir=out_dir.parent))
        try:
            errors: dict[str, float] = {}
            chosen: MaskMode | None = None
            declared: list[str] = []
            for mode in modes:
                errors[mode], declared = _export_once(
                    model, input_names, kind, mode, vocab_size, segments, tmp / ONNX_FILENAME, opset
                )
                if errors[mode] <= PARITY_ATOL:
                    chosen = mode
                    break
            if chosen is None:
                raise OnnxExportError(
                    f"ONNX export of {model_dir} disagrees with PyTorch "
                    f"(max abs error per mask mode: {errors}); nothing was published"
                )
            dims = int(config.hidden_size) if kind == "encoder" else int(config.num_labels)
            manifest = ExportManifest(
                model_id=model_id,
                kind=kind,
                dims=dims,
                source_sha256=source_fingerprint(model_dir),
                opset=opset,
                # The exporter drops inputs the graph never reads (DeBERTa-v3 has no
                # token types), so the manifest lists what the graph declares.
                input_names=declared,
                output_name="last_hidden_state" if kind == "encoder" else "logits",
                mask_mode=chosen,
                parity_max_abs_diff=errors[chosen],
                export_seconds=round(time.perf_counter() - started, 3),
                torch_version=str(torch.__version__),
                transformers_version=str(transformers.__version__),
                source_stat=_source_stat(model_dir),
            )
            (tmp / MANIFEST_FILENAME).write_text(manifest.to_json(), encoding="utf-8")
            out_dir.mkdir(parents=True, exist_ok=True)
            # The manifest marks completion, so a stale one goes first and the new
            # one is moved in last.
            (out_dir / MANIFEST_FILENAME).unlink(missing_ok=True)
            if copy_tokenizer and (model_dir / TOKENIZER_FILENAME).is_file():
                shutil.copyfile(model_dir / TOKENIZER_FILENAME, tmp / TOKENIZER_FILENAME)
                os.replace(tmp / TOKENIZER_FILENAME, out_dir / TOKENIZER_FILENAME)
            for item in sorted(tmp.iterdir()):
                if item.name != MANIFEST_FILENAME:
                    os.replace(item, out_dir / item.name)
            os.replace(tmp / MANIFEST_FILENAME, out_dir / MANIFEST_FILENAME)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    log.info(
        "exported %s to %s in %.1f s (mask %s, parity %.2e)",
        model_id,
        out_dir / ONNX_FILENAME,
        manifest.export_seconds,
        manifest.mask_mode,
        manifest.parity_max_abs_diff,
    )
    return out_dir / ONNX_FILENAME


def export_minilm_onnx(
    model_dir: Path,
    out_dir: Path,
    *,
    model_id: str = MINILM_MODEL_ID,
    opset: int = DEFAULT_OPSET,
    force: bool = False,
) -> Path:
    """Export a BERT sentence encoder to ``out_dir/model.onnx`` once; reuse it after."""
    if opset < DEFAULT_OPSET:
        raise OnnxExportError(f"opset {opset} is too old; LayerNormalization needs >= 17")
    return _export(
        model_dir,
        out_dir,
        kind="encoder",
        model_id=model_id,
        opset=opset,
        force=force,
        copy_tokenizer=True,
    )


def export_classifier_onnx(
    model_dir: Path,
    *,
    model_id: str | None = None,
    opset: int = DEFAULT_OPSET,
    force: bool = False,
) -> Path:
    """Export a sequence-classification model to ``model_dir/model.onnx`` (for NLI)."""
    if opset < DEFAULT_OPSET:
        raise OnnxExportError(f"opset {opset} is too old; LayerNormalization needs >= 17")
    model_dir = Path(model_dir)
    return _export(
        model_dir,
        model_dir,
        kind="sequence-classification",
        model_id=model_id or model_dir.name,
        opset=opset,
        force=force,
        copy_tokenizer=False,
    )


class TorchEmbedder:
    """PyTorch transformers encoder with mean pooling: the reference and the bench baseline.

    Batches are length-sorted like the ONNX embedder's (and sentence-transformers'), so a
    throughput comparison measures the runtimes, not the padding.
    """

    def __init__(self, model_dir: Path, *, max_length: int = 256, batch_size: int = 32) -> None:
        torch, _ = _require_torch()
        from transformers import AutoModel, AutoTokenizer

        self._torch = torch
        self._max_length = max_length
        self._batch_size = batch_size
        with _quiet_transformers():
            self._tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
            self._model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()
        self.dims = int(self._model.config.hidden_size)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, shape (len(texts), dims), in input order."""
        torch = self._torch
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        with torch.inference_mode():
            for start in range(0, len(order), self._batch_size):
                index = order[start : start + self._batch_size]
                batch = self._tokenizer(
                    [texts[i] for i in index],
                    padding=True,
                    truncation=True,
                    max_length=self._max_length,
                    return_tensors="pt",
                )
                states = self._model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(states.dtype)
                pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
                out[index] = pooled.numpy().astype(np.float32)
        return out


def embed_with_torch(
    model_dir: Path, texts: Sequence[str], *, max_length: int = 256, batch_size: int = 32
) -> np.ndarray:
    """Reference embeddings: PyTorch transformers, mean pooling, L2 norm (float32)."""
    return TorchEmbedder(model_dir, max_length=max_length, batch_size=batch_size).embed(texts)
