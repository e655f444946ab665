"""The stance head refitted with the planted corpora's contradictions: measured, not adopted.

Run: .venv/bin/python bench/planted_head.py [--neutral-per-corpus 3 40] [--held NAME ...]

Decision 0127. The planted keys (``tests/corpora/*/EXPECTED.json``) pair each planted
fact with the other side's fact. This bench refits the packaged stance model's linear
head (``stance_head.fit_linear_head``, the shipped penalty) on HealthVer dev plus its
unrelated-claim neutral pairs, as ``scripts/train_stance.py`` does, and again with the
planted pairs of every corpus but the held-out ones as extra training rows (each
contradiction pair both ways as "refutes"; other fact pairs of the same corpus, a seeded
sample per corpus, as "neutral"). It prints, for each head:

- HealthVer macro-F1 out of fold, grouped by claim and by topic (the bench's folds and
  seed; argmax, the lexical veto applied, no temperature, which moves no argmax);
- the held-out corpora's contradiction pairs called "refutes" by the head alone and with
  the rules' veto;
- the held-out corpora's other fact pairs called "refutes" (pairs that are, by the keys,
  no planted contradiction).

The held-out corpora default to rounds fourteen and fifteen, written blind.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import unicodedata
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stance import SEED, UNRELATED_PER_CLAIM, load_healthver

from lyra.pipelines.evidence.embedding import load_default_embedder
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.stance_eval import STANCE_LABELS, grouped_folds
from lyra.pipelines.evidence.stance_head import fit_linear_head, unrelated_pairs
from lyra.pipelines.evidence.stance_model import load_packaged_stance

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT / "tests" / "corpora"
HEALTHVER = ROOT.parent / "shared" / "evidence" / "healthver_dev.csv"
HELD_OUT = (
    "carpal_splints", "dementia_music", "remote_work", "wood_chip_mulch",
    "honey_dressings", "food_waste_caddies", "police_diversion", "mindfulness_app",
)  # fmt: skip
FOLDS, FOLD_SEED, SAMPLE_SEED = 5, 0, 7
REFUTES, NEUTRAL = STANCE_LABELS.index("refutes"), STANCE_LABELS.index("neutral")

Pair = tuple[str, str]


def planted_pairs(
    held: set[str], *, held_out: bool, per_corpus: int
) -> tuple[list[Pair], list[Pair]]:
    """(contradiction pairs, other fact pairs) as (premise, claim) of the held-out corpora
    or of the others; of the others, ``per_corpus`` other pairs each (a seeded sample)."""
    rng = random.Random(SAMPLE_SEED)
    contradictions: list[Pair] = []
    others: list[Pair] = []
    for folder in sorted(CORPORA.iterdir()):
        key_path = folder / "EXPECTED.json"
        if not key_path.exists() or (folder.name in held) != held_out:
            continue
        key = json.loads(key_path.read_text(encoding="utf-8"))
        facts = [unicodedata.normalize("NFKC", fact) for fact in key["facts"]]
        refuted = key["refuted"]
        paired: set[Pair] = set()
        for k, (raw, _domain) in enumerate(refuted):
            if k ^ 1 >= len(refuted):
                continue
            claim = unicodedata.normalize("NFKC", raw)
            premise = unicodedata.normalize("NFKC", refuted[k ^ 1][0])
            if claim != premise and (premise, claim) not in paired:
                contradictions.append((premise, claim))
                paired.add((premise, claim))
        rest = [
            (b, a)
            for a in facts
            for b in facts
            if a != b and (b, a) not in paired and (a, b) not in paired
        ]
        rng.shuffle(rest)
        others += rest if held_out else rest[:per_corpus]
    return contradictions, others


def macro_f1(truth: Sequence[int], predicted: Sequence[int]) -> float:
    scores = []
    for label in range(len(STANCE_LABELS)):
        tp = sum(1 for t, p in zip(truth, predicted, strict=True) if t == p == label)
        fp = sum(1 for t, p in zip(truth, predicted, strict=True) if t != label and p == label)
        fn = sum(1 for t, p in zip(truth, predicted, strict=True) if t == label and p != label)
        scores.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return float(np.mean(scores))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--neutral-per-corpus", type=int, nargs="+", default=[3, 40])
    parser.add_argument("--held", nargs="+", default=list(HELD_OUT))
    args = parser.parse_args(argv)
    if not HEALTHVER.exists():
        raise SystemExit(f"{HEALTHVER} is missing: this bench needs ../shared/evidence")
    held = set(args.held)
    embedder = load_default_embedder(Path(tempfile.mkdtemp(prefix="lyra-bench-")))
    stance = load_packaged_stance(embed=embedder.embed)
    healthver = load_healthver(HEALTHVER)
    claim_topics: dict[str, set[str]] = {}
    evidence_topics: dict[str, set[str]] = {}
    for p in healthver:
        claim_topics.setdefault(p.claim, set()).add(p.topic_group)
        evidence_topics.setdefault(p.evidence, set()).add(p.topic_group)
    unrelated = unrelated_pairs(claim_topics, evidence_topics, UNRELATED_PER_CLAIM, SEED)
    labels = np.array([STANCE_LABELS.index(p.label) for p in healthver])
    features = stance.features([(p.evidence, p.claim) for p in healthver])
    unrelated_features = stance.features(unrelated)
    vetoed = [heuristic_nli(p.evidence, p.claim).label == "refutes" for p in healthver]
    held_contra, held_other = planted_pairs(held, held_out=True, per_corpus=0)
    held_contra_x, held_other_x = stance.features(held_contra), stance.features(held_other)
    contra_vetoed = np.array([heuristic_nli(p, c).label == "refutes" for p, c in held_contra])

    def evaluate(extra: list[tuple[np.ndarray, int]]) -> str:
        figures = []
        for grouping in ("claim", "topic"):
            groups = [p.claim if grouping == "claim" else p.topic_group for p in healthver]
            predicted = np.zeros(len(healthver), dtype=int)
            for held_rows in grouped_folds(groups, FOLDS, FOLD_SEED):
                rest = np.setdiff1d(np.arange(len(healthver)), held_rows)
                touched = {
                    k for i in held_rows for k in (healthver[i].evidence, healthver[i].claim)
                }
                usable = [j for j, pair in enumerate(unrelated) if not (set(pair) & touched)]
                rows = [features[rest], unrelated_features[usable], *(x for x, _ in extra)]
                ys = [
                    labels[rest],
                    np.full(len(usable), NEUTRAL),
                    *(np.full(len(x), y) for x, y in extra),
                ]
                head = fit_linear_head(np.vstack(rows), np.concatenate(ys), len(STANCE_LABELS))
                predicted[held_rows] = head.logits(features[held_rows]).argmax(1)
            final = [REFUTES if v else int(p) for v, p in zip(vetoed, predicted, strict=True)]
            figures.append(f"{macro_f1(list(labels), final):.3f}")
        rows = [features, unrelated_features, *(x for x, _ in extra)]
        ys = [labels, np.full(len(unrelated), NEUTRAL), *(np.full(len(x), y) for x, y in extra)]
        head = fit_linear_head(np.vstack(rows), np.concatenate(ys), len(STANCE_LABELS))
        contra = head.logits(held_contra_x).argmax(1) == REFUTES
        other = head.logits(held_other_x).argmax(1) == REFUTES
        return (
            f"{figures[0]:>8} {figures[1]:>8} {int(contra.sum()):>5} / {len(held_contra)}"
            f" {int((contra | contra_vetoed).sum()):>5} / {len(held_contra)}"
            f" {int(other.sum()):>6} / {len(held_other)}"
        )

    print("head                           by claim by topic  contra alone  +rules   others refuted")
    print(f"{'as shipped':30s} {evaluate([])}")
    for per_corpus in args.neutral_per_corpus:
        contra, other = planted_pairs(held, held_out=False, per_corpus=per_corpus)
        extra = [(stance.features(contra), REFUTES), (stance.features(other), NEUTRAL)]
        name = f"+{len(contra)} contra, {len(other)} other"
        print(f"{name:30s} {evaluate(extra)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
