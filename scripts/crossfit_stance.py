"""Fine-tune the shipped stance encoder on HealthVer dev, cross-fitted (decision 0121).

    .venv/bin/python scripts/crossfit_stance.py prep --out W/data.json [--extra CLIMATE.jsonl]
    python scripts/crossfit_stance.py run --data W/data.json --out W [--device cuda]

``prep`` (here, where Lyra is installed) writes HealthVer dev's pairs with the fold of each
pair under both of ``bench/stance.py``'s groupings (5 folds, seed 0: by claim and by
topic), and any extra labelled set (``scripts/stance_sets.py``'s JSON lines) to measure
on. ``run`` (needs torch and transformers, not Lyra; a GPU makes it minutes) rebuilds the
shipped encoder from its int8 graph (``train_stance.py dequantize``) and, for each
grouping, configuration and held-out fold, fine-tunes it on the other four folds' pairs
plus two unrelated neutral pairs per training claim (a passage of another topic, as the
head's training rows have) and predicts the held-out fold after every epoch. It writes
``logits.npz`` (each configuration's out-of-fold NLI logits per epoch, the shipped
encoder's own, and the extra sets' logits of an encoder fine-tuned on every pair) and
the out-of-fold ``features`` of one configuration (``feat_{grouping}_e{epoch}.npy``,
float16), which ``bench/stance.py``'s head can be refitted over.

Nothing here is shipped: decision 0121 says what it measured and why the shipped encoder
stayed as it is.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
HEALTHVER_LABELS = {"Supports": 0, "Refutes": 1, "Neutral": 2}
SET_LABELS = {"supports": 0, "refutes": 1, "neutral": 2}
GROUPINGS = ("claim", "topic")
FOLDS = 5
FOLD_SEED = 0  # bench/stance.py's default
# name: (learning rate, seed); decision 0121's table
CONFIGS = {
    "lr2e-5_s13": (2e-5, 13),
    "lr5e-5_s13": (5e-5, 13),
    "lr2e-5_s14": (2e-5, 14),
    "lr1e-5_s13": (1e-5, 13),
}
FEATURE_CONFIG = "lr2e-5_s13"
FEATURE_EPOCHS = (2, 3)
FEATURE_WIDTH = 2307  # the cross-encoder's features output (train_stance.FEATURE_LAYOUT)


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def cmd_prep(args: argparse.Namespace) -> int:
    from lyra.pipelines.evidence.stance_eval import grouped_folds

    with args.healthver.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    pairs: list[dict[str, Any]] = [
        {
            "premise": r["evidence"],
            "claim": r["claim"],
            "label": HEALTHVER_LABELS[r["label"]],
            "topic": r["topic_ip"],
        }
        for r in rows
    ]
    for grouping, key in (("claim", "claim"), ("topic", "topic")):
        for fold, held in enumerate(grouped_folds([p[key] for p in pairs], FOLDS, FOLD_SEED)):
            for i in held:
                pairs[i][f"fold_{grouping}"] = fold
    extra: dict[str, list[dict[str, Any]]] = {}
    for path in args.extra:
        with path.open(encoding="utf-8") as handle:
            extra[path.stem] = [
                {"premise": r["premise"], "claim": r["claim"], "label": SET_LABELS[r["label"]]}
                for r in map(json.loads, handle)
            ]
    args.out.write_text(json.dumps({"healthver": pairs, "extra": extra}))
    log(f"wrote {args.out}: {len(pairs)} HealthVer pairs, extra {sorted(extra)}")
    return 0


def training_rows(
    pairs: Sequence[dict[str, Any]], train: Sequence[int], seed: int, unrelated: int = 2
) -> list[tuple[str, str, int]]:
    """The training folds' pairs, then ``unrelated`` neutral pairs per training claim:
    the claim with a training passage of another topic."""
    rows = [(pairs[i]["premise"], pairs[i]["claim"], pairs[i]["label"]) for i in train]
    rng = random.Random(seed)
    topics: dict[str, str] = {}
    for i in train:
        topics.setdefault(pairs[i]["claim"], pairs[i]["topic"])
    for claim, topic in sorted(topics.items()):
        others = [i for i in train if pairs[i]["topic"] != topic]
        for i in rng.sample(others, min(unrelated, len(others))):
            rows.append((pairs[i]["premise"], claim, SET_LABELS["neutral"]))
    return rows


class _Tuner:
    """The dequantized shipped encoder, reset to its own weights before each fine-tune."""

    def __init__(self, encoder: Path, device: str) -> None:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        sys.path.insert(0, str(ROOT / "scripts"))
        import train_stance

        self.torch = torch
        self.device = device
        self.tokenizer = AutoTokenizer.from_pretrained(str(encoder))
        model = AutoModelForSequenceClassification.from_pretrained(
            str(encoder), attn_implementation="eager"
        )
        self.initial = {k: v.detach().clone() for k, v in model.state_dict().items()}
        self.model = model.to(device)
        self.with_features = train_stance._WithFeatures.build(self.model)

    def _batch(self, pairs: Sequence[tuple[str, str]]) -> Any:
        return self.tokenizer(
            [p for p, _ in pairs],
            [c for _, c in pairs],
            truncation=True,
            max_length=256,
            padding=True,
            return_tensors="pt",
        ).to(self.device)

    def _autocast(self) -> Any:
        return self.torch.autocast(
            self.device, dtype=self.torch.bfloat16, enabled=self.device == "cuda"
        )

    def infer(
        self, pairs: Sequence[tuple[str, str]], features: bool = False, size: int = 256
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """NLI logits (and the features output, float16) of each pair."""
        self.model.eval()
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        logits = np.zeros((len(pairs), 3), np.float32)
        feats = np.zeros((len(pairs), FEATURE_WIDTH), np.float16) if features else None
        with self.torch.inference_mode(), self._autocast():
            for start in range(0, len(order), size):
                index = order[start : start + size]
                batch = self._batch([pairs[i] for i in index])
                if feats is not None:
                    out, feat = self.with_features(
                        batch["input_ids"], batch["attention_mask"], batch["token_type_ids"]
                    )
                    feats[index] = feat.float().cpu().numpy().astype(np.float16)
                else:
                    out = self.model(**batch).logits
                logits[index] = out.float().cpu().numpy()
        return logits, feats

    def reset(self) -> None:
        self.model.load_state_dict(self.initial)

    def finetune(
        self,
        rows: Sequence[tuple[str, str, int]],
        lr: float,
        epochs: int,
        seed: int,
        evals: dict[str, Sequence[tuple[str, str]]],
        feature_epochs: Sequence[int] = (),
        size: int = 32,
    ) -> dict[tuple[str, int], tuple[np.ndarray, np.ndarray | None]]:
        """Fine-tune from the shipped weights (word embeddings frozen, balanced class
        weights, AdamW, 10 % warm-up then linear decay); each eval set after each epoch."""
        torch = self.torch
        torch.manual_seed(seed)
        self.reset()
        self.model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
        params = [p for p in self.model.parameters() if p.requires_grad]
        optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
        counts = np.bincount([r[2] for r in rows], minlength=3)
        weights = torch.tensor(len(rows) / (3 * counts), dtype=torch.float32, device=self.device)
        loss_fn = torch.nn.CrossEntropyLoss(weight=weights)
        total = (len(rows) + size - 1) // size * epochs
        warmup = max(1, total // 10)
        scheduler = torch.optim.lr_scheduler.LambdaLR(
            optimizer,
            lambda s: (s + 1) / warmup if s < warmup else max(0.0, (total - s) / (total - warmup)),
        )
        rng = random.Random(seed)
        out = {}
        for epoch in range(1, epochs + 1):
            self.model.train()
            order = list(range(len(rows)))
            rng.shuffle(order)
            for start in range(0, len(order), size):
                index = order[start : start + size]
                batch = self._batch([(rows[i][0], rows[i][1]) for i in index])
                target = torch.tensor([rows[i][2] for i in index], device=self.device)
                with self._autocast():
                    logits = self.model(**batch).logits
                loss_fn(logits.float(), target).backward()
                torch.nn.utils.clip_grad_norm_(params, 1.0)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
            for name, pairs in evals.items():
                out[(name, epoch)] = self.infer(pairs, features=epoch in feature_epochs)
        return out


def cmd_run(args: argparse.Namespace) -> int:
    data = json.loads(args.data.read_text())
    pairs: list[dict[str, Any]] = data["healthver"]
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    work = out / "dequantized"
    if not (work / "encoder").is_dir():
        command = [sys.executable, str(ROOT / "scripts/train_stance.py"), "dequantize"]
        command += ["--work", str(work)] + (["--base", str(args.base)] if args.base else [])
        subprocess.run(command, check=True)
    tuner = _Tuner(work / "encoder", args.device)
    texts = [(p["premise"], p["claim"]) for p in pairs]
    extra = {
        name: [(r["premise"], r["claim"]) for r in rows] for name, rows in data["extra"].items()
    }
    arrays: dict[str, np.ndarray] = {"shipped_healthver": tuner.infer(texts)[0]}
    for name, rows in extra.items():
        arrays[f"shipped_{name}"] = tuner.infer(rows)[0]
    for config in args.configs:
        lr, seed = CONFIGS[config]
        feature_epochs = FEATURE_EPOCHS if config == FEATURE_CONFIG else ()
        for grouping in GROUPINGS:
            oof = {e: np.zeros((len(pairs), 3), np.float32) for e in range(1, args.epochs + 1)}
            feats = {e: np.zeros((len(pairs), FEATURE_WIDTH), np.float16) for e in feature_epochs}
            for fold in range(FOLDS):
                held = [i for i, p in enumerate(pairs) if p[f"fold_{grouping}"] == fold]
                train = [i for i, p in enumerate(pairs) if p[f"fold_{grouping}"] != fold]
                rows = training_rows(pairs, train, seed)
                evals = {"held": [texts[i] for i in held]}
                results = tuner.finetune(rows, lr, args.epochs, seed, evals, feature_epochs)
                for epoch in range(1, args.epochs + 1):
                    logits, feat = results[("held", epoch)]
                    oof[epoch][held] = logits
                    if feat is not None:
                        feats[epoch][held] = feat
            for epoch, logits in oof.items():
                arrays[f"{config}_{grouping}_e{epoch}"] = logits
            for epoch, feat in feats.items():
                np.save(out / f"feat_{grouping}_e{epoch}.npy", feat)
            log(f"{config} by {grouping} done")
    lr, seed = CONFIGS[FEATURE_CONFIG]  # the encoder fine-tuned on every pair
    rows = training_rows(pairs, list(range(len(pairs))), seed)
    results = tuner.finetune(rows, lr, args.epochs, seed, extra)
    for (name, epoch), (logits, _) in results.items():
        arrays[f"all_{FEATURE_CONFIG}_{name}_e{epoch}"] = logits
    np.savez_compressed(out / "logits.npz", **arrays)
    log(f"wrote {out / 'logits.npz'} ({len(arrays)} arrays)")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    prep = sub.add_parser("prep")
    prep.add_argument("--out", type=Path, required=True)
    prep.add_argument(
        "--healthver", type=Path, default=ROOT.parent / "shared/evidence/healthver_dev.csv"
    )
    prep.add_argument("--extra", type=Path, nargs="*", default=[])
    run = sub.add_parser("run")
    run.add_argument("--data", type=Path, required=True)
    run.add_argument("--out", type=Path, required=True)
    run.add_argument("--device", default="cuda")
    run.add_argument("--epochs", type=int, default=4)
    run.add_argument("--base", type=Path, help="the packaged MiniLM's config and tokenizer")
    run.add_argument("--configs", nargs="+", choices=sorted(CONFIGS), default=list(CONFIGS))
    args = parser.parse_args(argv)
    return int({"prep": cmd_prep, "run": cmd_run}[args.command](args))


if __name__ == "__main__":
    raise SystemExit(main())
