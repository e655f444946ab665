"""Stance by natural-language inference with a cross-encoder (ARCHITECTURE §3 step 10).

A fragment (premise) and a claim (hypothesis) go into the model as a text pair, the
way cross-encoders were trained (``[CLS] premise [SEP] claim [SEP]`` with segment ids
built by the tokenizer), never as one string glued with a literal "[SEP]": that string
is tokenised as ordinary text and loses the segment boundary.

Two loading paths, chosen by what the model folder holds:

- ``model.onnx`` + ``tokenizer.json``: ONNX Runtime and the ``tokenizers`` library,
  no torch needed (``pipelines/evidence/onnx_export.export_classifier_onnx`` writes it);
- otherwise PyTorch weights through transformers ``AutoTokenizer`` and
  ``AutoModelForSequenceClassification`` (the ``dev`` extra).

Labels come from ``config.json`` ``id2label``: entailment → supports, contradiction →
refutes, neutral → neutral (case-insensitive). A model whose labels do not name all
three is refused rather than guessed at. Confidence is the softmax probability of the
chosen label. A ``calibration.json`` beside the model with ``{"temperature": T}`` (fitted
on held-out pairs, as Lyra's packaged stance model ships it) divides the logits by T
first; without it T is 1. A ``max_length`` in ``config.json`` (the longest pair the model
was trained or fitted on) caps the configured one.

When no model is configured or pulled the actor uses Lyra's packaged stance model
(``stance_model.py``), which reads this class's ``features`` output; only when that
fails to load does ``pipelines/evidence/nli_heuristic.py`` judge, reported in
``_lyra_meta.degraded``.
"""

from __future__ import annotations

import inspect
import json
import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np
import onnxruntime as ort
from onnxruntime.capi import onnxruntime_pybind11_state as ort_state
from tokenizers import Encoding, Tokenizer

from lyra.pipelines.evidence.cpu_batches import (
    BatchRunner,
    cpu_batch_size,
    cpu_workers,
    session_options,
)

log = logging.getLogger(__name__)

NliLabel = Literal["supports", "refutes", "neutral"]
NLI_LABELS: tuple[NliLabel, ...] = ("supports", "refutes", "neutral")
Backend = Literal["auto", "onnx", "transformers"]

ONNX_FILENAME = "model.onnx"
TOKENIZER_FILENAME = "tokenizer.json"
CALIBRATION_FILENAME = "calibration.json"
# Optional further ONNX outputs: the pooled vector the classifier layer reads (v1 of
# Lyra's stance model), and the pair features its v2 head reads (stance_model.py).
POOLED_OUTPUT = "pooled"
FEATURES_OUTPUT = "features"
DEFAULT_MAX_LENGTH = 256
DEFAULT_BATCH_SIZE = 16
# The shortest a pair is cut to when one pair alone runs out of memory.
MIN_PAIR_TOKENS = 32
# Allocation failures worth a smaller batch: ORT reports them as these types (CUDA:
# RuntimeException "Failed to allocate memory"; CPU arena: Fail); PyTorch's CUDA one
# is added when that backend loads.
RETRYABLE_ERRORS: tuple[type[BaseException], ...] = (
    MemoryError,
    ort_state.RuntimeException,
    ort_state.Fail,
    ort_state.EPFail,
)

# Spellings of the three NLI classes seen in published cross-encoders' id2label.
_LABEL_ALIASES: dict[str, NliLabel] = {
    "entailment": "supports",
    "entails": "supports",
    "entail": "supports",
    "contradiction": "refutes",
    "contradicts": "refutes",
    "contradict": "refutes",
    "neutral": "neutral",
}


@dataclass(frozen=True)
class NliResult:
    """One stance judgement: label, its probability, all probabilities, the evidence."""

    label: NliLabel
    confidence: float
    probs: dict[str, float] = field(default_factory=dict)
    # The premise sentence the judgement rests on (heuristic only; a cross-encoder
    # reads the whole fragment, so it leaves this None).
    evidence_sentence: str | None = None


class NliJudge(Protocol):
    """What the InferenceActor needs from an NLI implementation."""

    @property
    def model_id(self) -> str:
        """Name recorded with the edges this judge produces."""
        ...

    @property
    def degraded(self) -> bool:
        """True for a fallback that `_lyra_meta.degraded` must report."""
        ...

    def judge(self, pairs: Sequence[tuple[str, str]]) -> list[NliResult]:
        """One result per (premise, hypothesis) pair, in order."""
        ...


class NliModelError(RuntimeError):
    """The NLI model folder is missing, incomplete or has unusable labels."""


def map_label(name: str) -> NliLabel | None:
    """Lyra's stance label for a model label name, or None when it is not an NLI class."""
    return _LABEL_ALIASES.get(name.strip().lower())


def label_order(id2label: Mapping[int | str, str]) -> list[NliLabel]:
    """Stance label per logit index; raises NliModelError unless all three appear once."""
    by_index = {int(k): v for k, v in id2label.items()}
    order: list[NliLabel] = []
    for index in range(len(by_index)):
        if index not in by_index:
            raise NliModelError(f"id2label {dict(id2label)} skips index {index}")
        mapped = map_label(by_index[index])
        if mapped is None:
            raise NliModelError(
                f"id2label {dict(id2label)} has label {by_index[index]!r}; an NLI model must "
                "name entailment, neutral and contradiction"
            )
        order.append(mapped)
    if sorted(order) != sorted(NLI_LABELS):
        raise NliModelError(
            f"id2label {dict(id2label)} must name entailment, neutral and contradiction once each"
        )
    return order


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax in float64 (stable for large logits)."""
    shifted = logits.astype(np.float64) - logits.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)
    return np.asarray(exp / exp.sum(axis=-1, keepdims=True), dtype=np.float64)


def results_from_logits(
    logits: np.ndarray, order: Sequence[NliLabel], temperature: float = 1.0
) -> list[NliResult]:
    """NliResults from a (n, 3) logit matrix whose columns follow ``order``."""
    probs = softmax(np.asarray(logits, dtype=np.float64) / temperature)
    results = []
    for row in probs:
        by_label: dict[str, float] = {label: float(p) for label, p in zip(order, row, strict=True)}
        best = int(np.argmax(row))
        results.append(NliResult(order[best], float(row[best]), by_label))
    return results


def _read_json(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise NliModelError(f"{path} must hold a JSON object")
    return data


def _pad_token(model_dir: Path) -> str:
    config_path = model_dir / "tokenizer_config.json"
    if config_path.is_file():
        value = _read_json(config_path).get("pad_token")
        if isinstance(value, dict):
            value = value.get("content")
        if isinstance(value, str):
            return value
    return "[PAD]"


def _read_temperature(path: Path) -> float:
    """The temperature in ``calibration.json``; 1.0 when the file is absent."""
    if not path.is_file():
        return 1.0
    value = _read_json(path).get("temperature")
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise NliModelError(f"{path} must hold a positive number under 'temperature'")
    return float(value)


class _OnnxBackend:
    """A pair model's ONNX session. On a CPU it serves one batch per core at once
    (``workers`` threads, one intra-op thread each: decision 0074)."""

    def __init__(
        self, model_dir: Path, max_length: int, use_gpu: bool, workers: int | None = None
    ) -> None:
        tokenizer_path = model_dir / TOKENIZER_FILENAME
        if not tokenizer_path.is_file():
            raise NliModelError(
                f"{model_dir} has {ONNX_FILENAME} but no {TOKENIZER_FILENAME}; save the "
                "model's fast tokenizer there (tokenizer.save_pretrained)"
            )
        self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        # Longest-first truncation is what transformers does with truncation=True;
        # with a short claim and a long fragment it trims the fragment.
        self.tokenizer.enable_truncation(max_length=max_length, strategy="longest_first")
        self.tokenizer.no_padding()
        pad = self.tokenizer.token_to_id(_pad_token(model_dir))
        self.pad_id = int(pad) if pad is not None else 0
        # Truncation is changed (after a pair ran out of memory) while other threads
        # may be encoding: the tokenizer is used under this lock.
        self._tokenizer_lock = threading.Lock()
        # Encodings made by ``sizes`` for the batches that follow (each taken once).
        self._made: dict[tuple[str, str], Encoding] = {}
        providers = ["CPUExecutionProvider"]
        if use_gpu and "CUDAExecutionProvider" in ort.get_available_providers():
            providers.insert(0, "CUDAExecutionProvider")
        # A GPU runs one batch at a time; CPU cores each run their own.
        if len(providers) > 1:
            self.workers = 1
        else:
            self.workers = cpu_workers() if workers is None else workers
        self.session = ort.InferenceSession(
            str(model_dir / ONNX_FILENAME),
            sess_options=session_options(self.workers),
            providers=providers,
        )
        self.input_names = [i.name for i in self.session.get_inputs()]
        self.outputs = [o.name for o in self.session.get_outputs()]
        self.output_name = self.outputs[0]

    def set_max_length(self, max_length: int) -> None:
        """Cut every later pair to ``max_length`` tokens."""
        with self._tokenizer_lock:
            self.tokenizer.enable_truncation(max_length=max_length, strategy="longest_first")
            self._made = {}

    def sizes(self, pairs: Sequence[tuple[str, str]]) -> list[int]:
        """Tokens of each pair. The encodings are kept for the batches that follow, so
        sorting by tokens costs no second tokenisation (a later call's replace these)."""
        encodings = self._encode(pairs)
        with self._tokenizer_lock:
            self._made = {(p, h): e for (p, h), e in zip(pairs, encodings, strict=True)}
        return [len(e.ids) for e in encodings]

    def _encode(self, pairs: Sequence[tuple[str, str]]) -> list[Encoding]:
        with self._tokenizer_lock:
            made = [self._made.pop((p, h), None) for p, h in pairs]
            missing = [(p, h) for (p, h), e in zip(pairs, made, strict=True) if e is None]
            fresh = iter(self.tokenizer.encode_batch(missing) if missing else [])
        return [e if e is not None else next(fresh) for e in made]

    def _feed(self, encodings: Sequence[Encoding]) -> dict[str, np.ndarray]:
        width = max(len(e.ids) for e in encodings)
        shape = (len(encodings), width)
        arrays = {
            "input_ids": np.full(shape, self.pad_id, dtype=np.int64),
            "attention_mask": np.zeros(shape, dtype=np.int64),
            "token_type_ids": np.zeros(shape, dtype=np.int64),
        }
        for row, enc in enumerate(encodings):
            used = len(enc.ids)
            arrays["input_ids"][row, :used] = enc.ids
            arrays["attention_mask"][row, :used] = enc.attention_mask
            arrays["token_type_ids"][row, :used] = enc.type_ids
        return {name: arrays[name] for name in self.input_names}

    def logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Raw class scores, shape (len(pairs), num_labels)."""
        encodings = self._encode(pairs)
        return np.asarray(self.session.run([self.output_name], self._feed(encodings))[0])

    def output(self, name: str, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """One named output of the graph for ``pairs``, shape (len(pairs), width)."""
        encodings = self._encode(pairs)
        return np.asarray(self.session.run([name], self._feed(encodings))[0])


class _TransformersBackend:
    def __init__(self, model_dir: Path, max_length: int, use_gpu: bool) -> None:
        try:
            import torch
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError as exc:
            raise NliModelError(
                f"{model_dir} has no {ONNX_FILENAME}, and loading PyTorch weights needs "
                f"torch and transformers ({exc}); export the model to ONNX or install them"
            ) from exc
        self.torch = torch
        self.max_length = max_length
        self.device = "cuda" if use_gpu and torch.cuda.is_available() else "cpu"
        self.tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
        model = AutoModelForSequenceClassification.from_pretrained(
            str(model_dir), local_files_only=True
        )
        self.model = model.to(self.device).eval()
        self.accepted = set(inspect.signature(self.model.forward).parameters)

    def set_max_length(self, max_length: int) -> None:
        """Cut every later pair to ``max_length`` tokens."""
        self.max_length = max_length

    def sizes(self, pairs: Sequence[tuple[str, str]]) -> list[int]:
        """Characters of each pair (this backend's tokenizer pads each batch itself)."""
        return [len(p) + len(h) for p, h in pairs]

    def logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Raw class scores, shape (len(pairs), num_labels)."""
        batch = self.tokenizer(
            [p for p, _ in pairs],
            [h for _, h in pairs],
            truncation=True,
            max_length=self.max_length,
            padding=True,
            # Segment ids are part of how BERT-style cross-encoders read a pair; some
            # tokenizer classes leave them out unless asked.
            return_token_type_ids="token_type_ids" in self.accepted,
            return_tensors="pt",
        )
        inputs = {k: v.to(self.device) for k, v in batch.items() if k in self.accepted}
        with self.torch.inference_mode():
            out = self.model(**inputs).logits
        return np.asarray(out.float().cpu().numpy())


class PairModel:
    """A cross-encoder over text pairs: loading, length-sorted batches and the
    out-of-memory retry, shared by the NLI judge and the reranker.

    A subclass checks ``config.json`` in ``_check_config`` (before any weights load) and
    says what is missing in ``_missing_folder``.
    """

    # What a missing folder or config raises (a subclass's own error type).
    error_type: type[NliModelError] = NliModelError

    def __init__(
        self,
        model_dir: Path,
        max_length: int = DEFAULT_MAX_LENGTH,
        batch_size: int = DEFAULT_BATCH_SIZE,
        *,
        backend: Backend = "auto",
        use_gpu: bool = False,
        model_id: str | None = None,
        workers: int | None = None,
    ) -> None:
        model_dir = Path(model_dir).expanduser()
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if workers is not None and workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        if not model_dir.is_dir():
            raise self.error_type(self._missing_folder(model_dir))
        config_path = model_dir / "config.json"
        if not config_path.is_file():
            raise self.error_type(f"model folder {model_dir} has no config.json")
        config = _read_json(config_path)
        self._check_config(config_path, config)
        trained_length = config.get("max_length")
        if isinstance(trained_length, int) and trained_length > 0:
            max_length = min(max_length, trained_length)
        # A pair longer than the position table cannot be read at all (RoBERTa-style
        # tables also hold two offset rows, hence the 2 kept free).
        positions = config.get("max_position_embeddings")
        if isinstance(positions, int) and positions > 2:
            max_length = min(max_length, positions - 2)
        has_onnx = (model_dir / ONNX_FILENAME).is_file()
        if backend == "onnx" and not has_onnx:
            raise self.error_type(f"backend 'onnx' asked, but {model_dir} has no {ONNX_FILENAME}")
        chosen: Literal["onnx", "transformers"] = (
            "onnx" if backend == "onnx" or (backend == "auto" and has_onnx) else "transformers"
        )
        self._impl: _OnnxBackend | _TransformersBackend = (
            _OnnxBackend(model_dir, max_length, use_gpu, workers)
            if chosen == "onnx"
            else _TransformersBackend(model_dir, max_length, use_gpu)
        )
        self._backend = chosen
        self._model_id = model_id or model_dir.name
        self._batch_size = batch_size
        self._runner = BatchRunner(
            self._impl.workers if isinstance(self._impl, _OnnxBackend) else 1
        )
        self._max_length = max_length
        self._retryable = RETRYABLE_ERRORS
        if isinstance(self._impl, _TransformersBackend):
            self._retryable += (self._impl.torch.cuda.OutOfMemoryError,)
        # Batches that failed for memory and were run again in halves, and the times one
        # pair that still failed was cut to half its tokens (for good, like the batch).
        self.oom_retries = 0
        self.shortened = 0
        log.info(
            "%s %s loaded from %s (%s)", type(self).__name__, self._model_id, model_dir, chosen
        )

    def _missing_folder(self, model_dir: Path) -> str:
        return f"model folder {model_dir} does not exist"

    def _check_config(self, path: Path, config: dict[str, Any]) -> None:
        """Refuse a model whose config says it cannot serve here (default: accept)."""

    @property
    def model_id(self) -> str:
        """Name recorded with what this model produces (default: folder name)."""
        return self._model_id

    @property
    def backend(self) -> Literal["onnx", "transformers"]:
        """Which loading path is in use."""
        return self._backend

    @property
    def batch_size(self) -> int:
        """Pairs per batch now (lowered for good after a batch ran out of memory)."""
        return self._batch_size

    @property
    def max_length(self) -> int:
        """Tokens read of a pair now (lowered for good after one pair ran out of memory)."""
        return self._max_length

    @property
    def workers(self) -> int:
        """Batches run at once: the CPU cores for an ONNX model on the CPU, else 1."""
        return self._runner.workers

    def _batched(self, pairs: Sequence[tuple[str, str]], run: Any, width: int) -> np.ndarray:
        """``run`` over batches sorted by tokens (they pad less), rows back in input
        order; ``width`` columns when there is no pair. A pair given twice is run once
        (its row does not depend on its batch: decision 0039). On CPU cores, batches of
        at most ``cpu_batches.CPU_BATCH`` pairs (fewer when that would leave a core
        idle), one per core at a time (decision 0074)."""
        distinct = list(dict.fromkeys((p, h) for p, h in pairs))
        if len(distinct) < len(pairs):
            rows = self._batched(distinct, run, width)
            where = {pair: row for row, pair in enumerate(distinct)}
            return rows[[where[(p, h)] for p, h in pairs]]
        sizes = self._impl.sizes(pairs)
        order = sorted(range(len(pairs)), key=sizes.__getitem__)
        parts: list[np.ndarray] = []
        if self._runner.workers > 1:
            size = cpu_batch_size(len(order), self._runner.workers, self._batch_size)
            chunks = [
                [pairs[i] for i in order[start : start + size]]
                for start in range(0, len(order), size)
            ]
            parts = self._runner.map(lambda chunk: self._run_chunk(chunk, run), chunks)
        else:
            start = 0
            while start < len(order):
                # The batch size may have dropped while the previous batch was retried.
                chunk = [pairs[i] for i in order[start : start + self._batch_size]]
                parts.append(self._run_chunk(chunk, run))
                start += len(chunk)
        if not parts:
            return np.zeros((0, width))
        out = np.empty((len(pairs), parts[0].shape[1]), dtype=parts[0].dtype)
        out[order] = np.concatenate(parts)
        return out

    def _run_chunk(self, chunk: list[tuple[str, str]], run: Any) -> np.ndarray:
        """``run`` on one batch; out of memory, the two halves (and smaller batches after),
        then one pair cut to half its tokens (and shorter pairs after), down to
        ``MIN_PAIR_TOKENS``.

        One pair that still does not fit is an :class:`NliModelError` naming the settings
        to lower, never a silent skip.
        """
        try:
            return np.asarray(run(chunk))
        except self._retryable as exc:
            if len(chunk) == 1 and self._max_length > MIN_PAIR_TOKENS:
                self._max_length = max(MIN_PAIR_TOKENS, self._max_length // 2)
                self._impl.set_max_length(self._max_length)
                self.shortened += 1
                log.warning(
                    "one pair failed (%s); reading pairs to %d tokens from now on",
                    type(exc).__name__,
                    self._max_length,
                )
                return self._run_chunk(chunk, run)
            if len(chunk) == 1:
                raise NliModelError(
                    f"scoring one pair with {self._model_id} failed ({type(exc).__name__}: "
                    f"{exc}); lower inference.max_sequence_length or free accelerator memory"
                ) from exc
            half = len(chunk) // 2
            self._batch_size = min(self._batch_size, half)
            self.oom_retries += 1
            log.warning(
                "batch of %d pairs failed (%s); retrying as batches of %d",
                len(chunk),
                type(exc).__name__,
                half,
            )
            return np.concatenate(
                [self._run_chunk(chunk[:half], run), self._run_chunk(chunk[half:], run)]
            )


class CrossEncoderNli(PairModel):
    """A sequence-classification cross-encoder judging (premise, hypothesis) pairs."""

    def _missing_folder(self, model_dir: Path) -> str:
        return (
            f"NLI model folder {model_dir} does not exist; set inference.nli_model_path "
            "to a folder with config.json and model.onnx + tokenizer.json (or PyTorch "
            "weights), or to null for the offline default (a pulled model, else Lyra's "
            "packaged stance model)"
        )

    def _check_config(self, path: Path, config: dict[str, Any]) -> None:
        id2label = config.get("id2label")
        if not isinstance(id2label, dict):
            raise NliModelError(f"{path} has no id2label mapping")
        self._order = label_order(id2label)
        self._temperature = _read_temperature(path.parent / CALIBRATION_FILENAME)

    @property
    def degraded(self) -> bool:
        """Always False: a real model is not a fallback."""
        return False

    @property
    def temperature(self) -> float:
        """The calibration temperature the logits are divided by (1.0 without one)."""
        return self._temperature

    @property
    def labels(self) -> list[NliLabel]:
        """Stance label of each logit column, from config.json id2label."""
        return list(self._order)

    def judge(self, pairs: Sequence[tuple[str, str]]) -> list[NliResult]:
        """Stance of each hypothesis (claim) given its premise (fragment), in order."""
        if not pairs:
            return []
        return results_from_logits(
            self._batched(pairs, self._impl.logits, len(self._order)),
            self._order,
            self._temperature,
        )

    def has_output(self, name: str) -> bool:
        """True for an ONNX model whose graph has an output called ``name``."""
        return isinstance(self._impl, _OnnxBackend) and name in self._impl.outputs

    def output(self, name: str, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """A named extra output of the graph for each pair, in order (ONNX models only).

        ``pooled`` (v1) or ``features`` (v2): what Lyra's stance heads read, and what
        ``bench/stance.py`` refits them from on training folds.
        """
        impl = self._impl
        if not isinstance(impl, _OnnxBackend) or name not in impl.outputs:
            raise NliModelError(f"model {self._model_id} has no '{name}' output")
        return self._batched(pairs, lambda chunk: impl.output(name, chunk), 0)

    def pooled(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Pooled vectors of each pair, in order (ONNX models with a ``pooled`` output)."""
        return self.output(POOLED_OUTPUT, pairs)
