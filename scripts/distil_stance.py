"""A shallower stance cross-encoder taught by the shipped one (issue 12's speed target).

    python scripts/distil_stance.py pairs vitaminc_real/test.jsonl vitaminc_synthetic/test.jsonl P
    python scripts/train_stance.py dequantize --work W            (the teacher: W/encoder)
    python scripts/distil_stance.py student --work W --keep 0 2 4 5 --data P --device cuda
    python scripts/train_stance.py export-features --work W       (after copying W/L4 to W/encoder)
    python scripts/train_stance.py head-v2 --work W --home H

1. ``pairs``: the (premise, claim) inputs the student learns on, from VitaminC's real and
   synthetic test splits (CC BY-SA 3.0, docs/stance-model.md), no labels: every
   published pair; a page's evidence with a claim of another case on the same page (two
   texts on one subject, the pairs Lyra judges most); three to six of a page's evidence
   sentences joined as one long premise with one of its claims (Lyra's fragments run to
   256 tokens); an evidence sentence with a claim from another page (unrelated).
2. ``student``: the teacher (the shipped int8 graph's encoder, dequantized) with only the
   layers ``--keep``, taught to give the teacher's outputs on those pairs: each kept
   layer's hidden states (mean squared error over the real tokens), the pooled vector,
   and the NLI logits (KL divergence). No label is read: the student learns to read as
   the teacher does, so the head that is then refitted over its features (``head-v2``)
   sees what it saw. Word embeddings stay the teacher's. Writes ``W/NAME`` (a BERT
   folder like ``W/encoder``) and ``W/NAME.json`` (steps, losses, agreement with the
   teacher on held-out pages, and with ``--healthver`` both models' zero-shot figures).

Needs the ``dev`` extra (torch, transformers); runs on a GPU in minutes (``--device cuda``).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import re
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from train_stance import SEED, _WithFeatures, batches, load_model, log

HEALTHVER_LABELS = {"Supports": 0, "Refutes": 1, "Neutral": 2}


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def vitaminc_pairs(paths: Sequence[Path]) -> list[dict[str, str]]:
    """Unlabelled inputs for the student (module docstring, step 1); seed 13."""
    rng = random.Random(SEED)
    rows = [row for path in paths for row in _read_jsonl(path)]
    out = [
        {"premise": r["evidence"], "claim": r["claim"], "group": r["page"], "kind": "published"}
        for r in rows
    ]
    by_page: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_page[row["page"]].append(row)
    pages = sorted(by_page)
    same: list[dict[str, str]] = []
    long: list[dict[str, str]] = []
    for page in pages:
        cases = by_page[page]
        evidence = sorted({r["evidence"] for r in cases})
        for row in cases:
            other = [r for r in cases if r["case_id"] != row["case_id"]]
            if other:
                pick = rng.choice(other)
                same.append(
                    {
                        "premise": pick["evidence"],
                        "claim": row["claim"],
                        "group": page,
                        "kind": "same page",
                    }
                )
        if len(evidence) >= 3:
            for _ in range(min(10, 2 * (len(evidence) - 2))):
                chosen = rng.sample(evidence, min(len(evidence), rng.randint(3, 6)))
                claim = rng.choice(cases)["claim"]
                long.append(
                    {
                        "premise": " ".join(chosen),
                        "claim": claim,
                        "group": page,
                        "kind": "long premise",
                    }
                )
    rng.shuffle(same)
    rng.shuffle(long)
    unrelated = []
    for _ in range(10_000):
        a, b = rng.sample(pages, 2)
        unrelated.append(
            {
                "premise": rng.choice(by_page[a])["evidence"],
                "claim": rng.choice(by_page[b])["claim"],
                "group": a,
                "kind": "unrelated",
            }
        )
    return out + same[:20_000] + long[:15_000] + unrelated


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
_AUXILIARY = re.compile(
    r"\b(is|are|was|were|does|do|did|can|could|may|might|should|will|has|have)\b"
)


def _negated(sentence: str) -> str:
    """The sentence with its first auxiliary negated (a contradiction-like input)."""
    if _AUXILIARY.search(sentence):
        return _AUXILIARY.sub(r"\1 not", sentence, count=1)
    return "It is not true that " + sentence[:1].lower() + sentence[1:]


def pubmedqa_pairs(path: Path) -> list[dict[str, str]]:
    """Scientific-abstract inputs from PubMedQA's 1,000 expert-annotated abstracts (MIT):
    each context section or context sentence with a sentence of the abstract's conclusion,
    that sentence negated, with the conclusion of an abstract sharing a MeSH term, and
    with one of an unrelated abstract; seed 13."""
    rng = random.Random(SEED)
    items = json.loads(path.read_text(encoding="utf-8"))
    ids = sorted(items)
    by_mesh: dict[str, list[str]] = defaultdict(list)
    for key in ids:
        for mesh in items[key]["MESHES"]:
            by_mesh[mesh].append(key)
    out: list[dict[str, str]] = []

    def add(premise: str, claim: str, key: str, kind: str) -> None:
        out.append({"premise": premise, "claim": claim, "group": f"pubmed:{key}", "kind": kind})

    for key in ids:
        item = items[key]
        sections = item["CONTEXTS"]
        sentences = [t for section in sections for t in _SENTENCE_END.split(section)]
        answers = _SENTENCE_END.split(item["LONG_ANSWER"])
        for section in sections:
            add(section, rng.choice(answers), key, "abstract section")
        for sentence in rng.sample(sentences, min(4, len(sentences))):
            add(sentence, rng.choice(answers), key, "abstract sentence")
        for section in rng.sample(sections, min(2, len(sections))):
            add(section, _negated(rng.choice(answers)), key, "negated conclusion")
        related = sorted({k for m in item["MESHES"] for k in by_mesh[m]} - {key})
        if related:
            other = items[rng.choice(related)]
            add(
                rng.choice(sections),
                rng.choice(_SENTENCE_END.split(other["LONG_ANSWER"])),
                key,
                "same MeSH term",
            )
        other = items[rng.choice(ids)]
        add(
            rng.choice(sections),
            rng.choice(_SENTENCE_END.split(other["LONG_ANSWER"])),
            key,
            "unrelated",
        )
    return out


def _macro_f1(truth: np.ndarray, pred: np.ndarray) -> float:
    scores = []
    for k in range(3):
        tp = float(((pred == k) & (truth == k)).sum())
        fp = float(((pred == k) & (truth != k)).sum())
        fn = float(((pred != k) & (truth == k)).sum())
        scores.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return round(float(np.mean(scores)), 4)


def _outputs(
    wrapper: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]], max_length: int, device: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Logits and the v2 features, as the exported graph computes them."""
    import torch

    logits, feats = [], []
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
    with torch.inference_mode():
        for start in range(0, len(order), 128):
            index = order[start : start + 128]
            enc = tokenizer(
                [pairs[i][0] for i in index],
                [pairs[i][1] for i in index],
                truncation=True,
                max_length=max_length,
                padding=True,
                return_tensors="pt",
            ).to(device)
            lg, ft = wrapper(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"])
            logits.append(lg.float().cpu().numpy())
            feats.append(ft.float().cpu().numpy())
    back = np.argsort(order)
    return np.concatenate(logits)[back], np.concatenate(feats)[back]


def cmd_pairs(args: argparse.Namespace) -> int:
    *sources, out = args.files
    pairs = vitaminc_pairs(sources)
    if args.vitaminc_sample:
        pairs = random.Random(SEED).sample(pairs, args.vitaminc_sample)
    if args.pubmedqa:
        pairs += pubmedqa_pairs(args.pubmedqa) * args.pubmedqa_repeat
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as handle:
        for pair in pairs:
            handle.write(json.dumps(pair, ensure_ascii=False) + "\n")
    kinds: dict[str, int] = defaultdict(int)
    for pair in pairs:
        kinds[pair["kind"]] += 1
    log(f"{len(pairs)} pairs {dict(kinds)} -> {out}")
    return 0


def cmd_student(args: argparse.Namespace) -> int:
    import torch

    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    rows = [row for path in args.data for row in _read_jsonl(path)]
    groups = sorted({r["group"] for r in rows})
    random.Random(SEED).shuffle(groups)
    held_groups = set(groups[: max(1, int(len(groups) * args.heldout))])
    train = [i for i, r in enumerate(rows) if r["group"] not in held_groups]
    held = [i for i, r in enumerate(rows) if r["group"] in held_groups]
    tokenizer, teacher = load_model(args.teacher)
    keep = list(args.keep)
    if args.init:  # a student taught before, taught on
        _, student = load_model(args.init)
        if student.config.num_hidden_layers != len(keep):
            raise SystemExit(f"{args.init} has {student.config.num_hidden_layers} layers")
    else:
        _, student = load_model(args.teacher)
        layers = student.bert.encoder.layer
        student.bert.encoder.layer = torch.nn.ModuleList(layers[i] for i in keep)
        student.config.num_hidden_layers = len(keep)
    teacher.to(device).eval()
    student.to(device)
    for p in teacher.parameters():
        p.requires_grad_(False)
    student.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    params = [p for p in student.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    order = list(train)
    random.Random(SEED).shuffle(order)
    plan = batches(order, rows, args.batch_size) * args.epochs
    total = min(len(plan), args.max_steps) if args.max_steps else len(plan)
    warmup = max(1, int(total * 0.06))
    span = {"total": total}  # shortened once the speed is known, when --max-seconds binds

    def rate(s: int) -> float:
        end = span["total"]
        return (s + 1) / warmup if s < warmup else max(0.0, (end - s) / max(1, end - warmup))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, rate)
    autocast = torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda")
    log(
        f"{len(rows)} pairs, {len(train)} train, {len(held)} held out; layers {keep}; {total} steps"
    )
    student.train()
    began = time.monotonic()
    running: dict[str, float] = {}
    at_50 = began
    for step in range(total):
        if step == 50:
            at_50 = time.monotonic()
        if args.max_seconds and step == 250:  # the speed once warm, steps 50 to 250
            per_step = (time.monotonic() - at_50) / 200
            fits = 250 + int((args.max_seconds - (time.monotonic() - began)) / per_step)
            if fits < total:
                log(f"--max-seconds {args.max_seconds}: {fits} of {total} steps")
                total = span["total"] = max(fits, warmup + 1)
        if step >= total:
            break
        index = plan[step]
        batch = tokenizer(
            [rows[i]["premise"] for i in index],
            [rows[i]["claim"] for i in index],
            truncation=True,
            max_length=args.max_length,
            padding=True,
            return_tensors="pt",
        ).to(device)
        mask = batch["attention_mask"].unsqueeze(-1).float()
        with torch.no_grad(), autocast:
            t = teacher.bert(**batch, output_hidden_states=True)
            t_logits = teacher.classifier(t.pooler_output)
        with autocast:
            s = student.bert(**batch, output_hidden_states=True)
            s_logits = student.classifier(s.pooler_output)
        hidden = sum(
            (((s.hidden_states[j + 1].float() - t.hidden_states[k + 1].float()) ** 2) * mask).sum()
            for j, k in enumerate(keep)
        ) / (mask.sum() * student.config.hidden_size * len(keep))
        pooled = torch.nn.functional.mse_loss(s.pooler_output.float(), t.pooler_output.float())
        kl = torch.nn.functional.kl_div(
            torch.log_softmax(s_logits.float(), -1),
            torch.softmax(t_logits.float(), -1),
            reduction="batchmean",
        )
        loss = hidden + pooled + args.logit_weight * kl
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        for name, value in (("loss", loss), ("hidden", hidden), ("pooled", pooled), ("kl", kl)):
            v = float(value.detach())
            running[name] = 0.98 * running.get(name, v) + 0.02 * v
        if (step + 1) % 200 == 0 or step + 1 == total:
            speed = (step + 1) * args.batch_size / (time.monotonic() - began)
            log(f"step {step + 1}/{total} " + " ".join(f"{k} {v:.4f}" for k, v in running.items())
                + f" {speed:.0f} pairs/s")  # fmt: skip
    student.eval()
    out = args.work / args.name
    student.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    report: dict[str, Any] = {
        "keep_layers": keep,
        "teacher": str(args.teacher.name),
        "init": str(args.init.name) if args.init else "the teacher's kept layers",
        "steps": total,
        "epochs": args.epochs,
        "batch_size": args.batch_size,
        "lr": args.lr,
        "max_length": args.max_length,
        "logit_weight": args.logit_weight,
        "seed": SEED,
        "train_pairs": len(train),
        "final_losses": {k: round(v, 5) for k, v in running.items()},
        "seconds": round(time.monotonic() - began, 1),
        "device": str(device),
    }
    wrappers = [_WithFeatures.build(m).eval() for m in (teacher, student)]
    sets = {"held out pages": [(rows[i]["premise"], rows[i]["claim"]) for i in held[:4000]]}
    truth = None
    if args.healthver:
        with args.healthver.open(encoding="utf-8", newline="") as handle:
            hv = list(csv.DictReader(handle))
        sets["healthver dev"] = [(r["evidence"], r["claim"]) for r in hv]
        truth = np.array([HEALTHVER_LABELS[r["label"]] for r in hv])
    for name, pairs in sets.items():
        (tl, tf), (sl, sf) = (
            _outputs(w, tokenizer, pairs, args.max_length, device) for w in wrappers
        )
        cosine = (tf * sf).sum(1) / (np.linalg.norm(tf, axis=1) * np.linalg.norm(sf, axis=1))
        figures: dict[str, Any] = {
            "pairs": len(pairs),
            "argmax_agreement": round(float((tl.argmax(1) == sl.argmax(1)).mean()), 4),
            "mean_feature_cosine": round(float(cosine.mean()), 4),
            "min_feature_cosine": round(float(cosine.min()), 4),
        }
        if name == "healthver dev" and truth is not None:
            figures["teacher_zero_shot_macro_f1"] = _macro_f1(truth, tl.argmax(1))
            figures["student_zero_shot_macro_f1"] = _macro_f1(truth, sl.argmax(1))
        report[name] = figures
        log(f"{args.name} on {name}: {figures}")
    (args.work / f"{args.name}.json").write_text(json.dumps(report, indent=2) + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    pairs = sub.add_parser("pairs")
    pairs.add_argument("files", type=Path, nargs="+", help="VitaminC test.jsonl files, then OUT")
    pairs.add_argument("--vitaminc-sample", type=int, default=0, help="draw this many of them")
    pairs.add_argument("--pubmedqa", type=Path, help="PubMedQA's data/ori_pqal.json")
    pairs.add_argument(
        "--pubmedqa-repeat", type=int, default=1, help="each of its pairs this often"
    )
    student = sub.add_parser("student")
    student.add_argument("--work", type=Path, required=True)
    student.add_argument("--teacher", type=Path, help="default: WORK/encoder")
    student.add_argument("--data", type=Path, nargs="+", required=True)
    student.add_argument("--keep", type=int, nargs="+", default=[0, 2, 4, 5])
    student.add_argument("--init", type=Path, help="start from this student folder")
    student.add_argument("--name", default="student")
    student.add_argument("--epochs", type=int, default=3)
    student.add_argument("--max-steps", type=int, default=0)
    student.add_argument("--max-seconds", type=float, default=0, help="stop training after")
    student.add_argument("--batch-size", type=int, default=64)
    student.add_argument("--lr", type=float, default=1e-4)
    student.add_argument("--max-length", type=int, default=256)
    student.add_argument("--logit-weight", type=float, default=1.0)
    student.add_argument("--heldout", type=float, default=0.02)
    student.add_argument("--device", default="cpu")
    student.add_argument("--threads", type=int, default=4)
    student.add_argument("--healthver", type=Path, help="also report zero-shot figures on it")
    args = parser.parse_args(argv)
    if args.command == "pairs":
        if len(args.files) < 2:
            parser.error("give VitaminC's files and then OUT")
        return cmd_pairs(args)
    args.teacher = args.teacher or args.work / "encoder"
    return cmd_student(args)


if __name__ == "__main__":
    sys.exit(main())
