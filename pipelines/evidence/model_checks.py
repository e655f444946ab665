"""What a pulled model's ONNX export and int8 variant do to its outputs, measured.

``onnx_export`` already checks an export on random token ids. A pull checks once more on
real text through the path Lyra serves (the ``tokenizers`` library on
``tokenizer.json``, ONNX Runtime) against PyTorch on the same token ids, on a fixed
probe set in several languages: the largest logit (or pooled-vector) difference and
whether the decision agrees. The int8 variant (ONNX Runtime dynamic quantisation of
the MatMul weights) is measured the same way and accepted only at the floors below.
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Literal

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from lyra.pipelines.evidence.embedding import l2_normalise, mean_pool

log = logging.getLogger(__name__)

Pooling = Literal["mean", "cls"]

# Premise/hypothesis pairs of all three stances, four languages: the probe a pull
# measures parity and the int8 effect on. Changing it changes recorded numbers.
PROBE_PAIRS: tuple[tuple[str, str], ...] = (
    ("Aspirin reduces the risk of heart attack in adults.", "Aspirin lowers heart attack risk."),
    ("Coffee does not improve long-term memory.", "Coffee improves memory."),
    ("The drug has a half-life of about five hours.", "The vaccine was safe in children."),
    ("Regular exercise lowers blood pressure.", "Exercise raises blood pressure."),
    ("Vitamin D had no effect on mortality in the trial.", "Vitamin D reduces mortality."),
    ("Der Impfstoff war bei Kindern sicher und wirksam.", "Der Impfstoff ist für Kinder sicher."),
    ("La tasa de desempleo bajó al 5 % en 2023.", "El desempleo aumentó en 2023."),
    ("東京は日本の首都です。", "日本の首都は東京です。"),
    ("The bridge was completed in 1932 after six years of work.", "The bridge opened in 1932."),
    ("Sales rose 12% in the third quarter.", "The company reported a loss of customers."),
)
PROBE_TEXTS: tuple[str, ...] = tuple(text for pair in PROBE_PAIRS for text in pair)
PROBE_MAX_LENGTH = 128
# int8 is accepted when every probe decision is unchanged (classifiers: the argmax, or
# for one-logit rerankers the order of every two probe scores) and, for encoders, when
# no probe vector turns by more than cosine 0.99 (about 8 degrees).
INT8_MIN_AGREEMENT = 1.0
INT8_MIN_COSINE = 0.99
# fp32 ONNX against PyTorch on real text. onnx_export checks 1e-4 on random ids; real
# text through 24 layers (bge-m3) adds float reassociation, while a broken export
# (a frozen mask, a wrong input) is off by 0.1 or more. Decisions must all agree.
PROBE_ATOL = 1e-3
PROBE_MIN_AGREEMENT = 1.0
PROBE_MIN_COSINE = 0.9999


@dataclass(frozen=True)
class ProbeParity:
    """ONNX against PyTorch on the probe set."""

    max_abs_diff: float
    agreement: float


def _tokenizer(folder: Path) -> Tokenizer:
    tokenizer = Tokenizer.from_file(str(Path(folder) / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=PROBE_MAX_LENGTH, strategy="longest_first")
    tokenizer.no_padding()
    return tokenizer


def probe_feed(folder: Path, pairs: bool) -> dict[str, np.ndarray]:
    """The probe set tokenised as Lyra serves it: pairs for classifiers, texts for encoders."""
    tokenizer = _tokenizer(folder)
    encodings = tokenizer.encode_batch(list(PROBE_PAIRS) if pairs else list(PROBE_TEXTS))
    width = max(len(e.ids) for e in encodings)
    pad = tokenizer.token_to_id("[PAD]")
    if pad is None:
        pad = tokenizer.token_to_id("<pad>")
    feed = {
        "input_ids": np.full((len(encodings), width), pad or 0, dtype=np.int64),
        "attention_mask": np.zeros((len(encodings), width), dtype=np.int64),
        "token_type_ids": np.zeros((len(encodings), width), dtype=np.int64),
    }
    for row, enc in enumerate(encodings):
        used = len(enc.ids)
        feed["input_ids"][row, :used] = enc.ids
        feed["attention_mask"][row, :used] = enc.attention_mask
        feed["token_type_ids"][row, :used] = enc.type_ids
    return feed


def run_onnx(onnx_path: Path, feed: dict[str, np.ndarray]) -> np.ndarray:
    """The first output of an ONNX model for the inputs it declares."""
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    return np.asarray(session.run(None, {n: feed[n] for n in names})[0], dtype=np.float32)


def run_torch(folder: Path, feed: dict[str, np.ndarray], classifier: bool) -> np.ndarray:
    """Logits (classifier) or last hidden states (encoder) of the PyTorch weights."""
    import inspect

    import torch
    from transformers import AutoModel, AutoModelForSequenceClassification

    loader = AutoModelForSequenceClassification if classifier else AutoModel
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = loader.from_pretrained(
            str(folder), local_files_only=True, attn_implementation="eager"
        ).eval()
    accepted = inspect.signature(model.forward).parameters
    with torch.inference_mode():
        out = model(**{k: torch.from_numpy(v) for k, v in feed.items() if k in accepted})
    tensor = out.logits if classifier else out.last_hidden_state
    return np.asarray(tensor.float().numpy(), dtype=np.float32)


def pool(hidden: np.ndarray, mask: np.ndarray, pooling: Pooling) -> np.ndarray:
    """Sentence vectors: mean over real tokens or the first token, L2-normalised."""
    vectors = hidden[:, 0, :] if pooling == "cls" else mean_pool(hidden, mask)
    return l2_normalise(vectors)


def decision_agreement(reference: np.ndarray, candidate: np.ndarray) -> float:
    """Share of probe decisions a candidate keeps: argmax, or pairwise order of one logit."""
    if reference.shape[1] > 1:
        same = reference.argmax(axis=1) == candidate.argmax(axis=1)
        return float(same.mean())
    ref, cand = reference[:, 0], candidate[:, 0]
    pairs = list(combinations(range(len(ref)), 2))
    kept = sum(1 for i, j in pairs if np.sign(ref[i] - ref[j]) == np.sign(cand[i] - cand[j]))
    return kept / len(pairs)


def classifier_parity(folder: Path, onnx_path: Path, reference: np.ndarray) -> ProbeParity:
    """Max |logit difference| and decision agreement of an ONNX classifier vs PyTorch."""
    got = run_onnx(onnx_path, probe_feed(folder, pairs=True))
    return ProbeParity(
        max_abs_diff=float(np.abs(got - reference).max()),
        agreement=decision_agreement(reference, got),
    )


def encoder_parity(
    folder: Path, onnx_path: Path, reference: np.ndarray, pooling: Pooling
) -> ProbeParity:
    """Max |vector difference| and the smallest cosine of ONNX vs PyTorch sentence vectors."""
    feed = probe_feed(folder, pairs=False)
    got = pool(run_onnx(onnx_path, feed), feed["attention_mask"], pooling)
    return ProbeParity(
        max_abs_diff=float(np.abs(got - reference).max()),
        agreement=float((got * reference).sum(axis=1).min()),
    )


def quantize_int8(onnx_path: Path, out_path: Path) -> Path:
    """int8 weights, and activations quantised per row at run time (decision 0039), so a
    text's vector or a pair's judgment does not depend on the rest of its batch. A graph
    stored with external data (over 2 GiB in fp32) keeps onnxruntime's per-tensor
    activation quantisation: the rewrite loads the whole graph into memory."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from lyra.pipelines.evidence.row_quantisation import quantise_rows_file

    out_path.parent.mkdir(parents=True, exist_ok=True)
    # Models over protobuf's 2 GiB (bge-m3 in fp32) are exported with external data;
    # the quantiser must then read and write that layout too.
    graph = onnx.load(str(onnx_path), load_external_data=False).graph
    external = any(t.data_location == onnx.TensorProto.EXTERNAL for t in graph.initializer)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quantize_dynamic(
            onnx_path,
            out_path,
            weight_type=QuantType.QInt8,
            use_external_data_format=external,
        )
    if not external:
        quantise_rows_file(out_path, out_path)
    return out_path


def int8_accepted(agreement: float, encoder: bool) -> bool:
    """Whether a measured int8 variant meets the floor for its kind."""
    return agreement >= (INT8_MIN_COSINE if encoder else INT8_MIN_AGREEMENT)


def probe_floor(encoder: bool) -> float:
    """The agreement an fp32 export must reach: every decision, or cosine 0.9999."""
    return PROBE_MIN_COSINE if encoder else PROBE_MIN_AGREEMENT


def onnx_bytes(onnx_path: Path) -> int:
    """Size of an ONNX model on disk, its external data files included."""
    import onnx

    graph = onnx.load(str(onnx_path), load_external_data=False).graph
    locations = {
        entry.value
        for tensor in graph.initializer
        if tensor.data_location == onnx.TensorProto.EXTERNAL
        for entry in tensor.external_data
        if entry.key == "location"
    }
    external = sum((onnx_path.parent / str(name)).stat().st_size for name in locations)
    return onnx_path.stat().st_size + external
