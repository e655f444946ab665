"""Calibration of the stance confidences on held-out third-party pairs (issue 14).

    LYRA_HOME=... python bench/calibration.py [--extra-set SET.jsonl ...] [--out-dir bench/out]

What `calibrate` does for a user, measured: the stance model's confidence in its answer
and whether the answer was right are the samples; Lyra's fit (temperature or Platt
scaling, whichever has the lower held-out Brier, `pipelines/evidence/calibration.py`,
the code the tool runs) is made on the pairs of all folds but one and scored on that
one, for each of the folds (cross-fitting), so no pair is scored by a map fitted on it.
The folds group by topic (HealthVer: ``topic_ip``; other sets: their topic or group),
so no claim or passage is on both sides. The same fold draw as the predictions'
(``--folds``, ``--seed``).

- HealthVer dev: the stance model's predictions out of fold, exactly as
  ``bench/stance.py`` makes them (the shipped head was fitted on this set, so its head
  and temperature are refitted on the training folds, grouped by topic).
- Every ``--extra-set`` (e.g. Climate-FEVER, COVID-Fact): the shipped model as it runs.

Prints Brier and ECE (10 bins) before and after, per fold and pooled, the method each
fold chose, and writes one reliability diagram per set (before and after) under
``--out-dir``. Target: ECE ≤ 0.05 after calibration.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stance import (
    EVIDENCE_DIR,
    PackagedJudge,
    Pair,
    RefitHead,
    load_healthver,
    load_jsonl_set,
    out_of_fold,
    reliability_png,
)

from lyra.config.settings import get_settings
from lyra.pipelines.evidence import calibration as cal
from lyra.pipelines.evidence.embedding import load_default_embedder
from lyra.pipelines.evidence.stance_eval import grouped_folds
from lyra.pipelines.evidence.stance_model import (
    STANCE_MODEL_ID,
    load_packaged_stance,
    packaged_stance_dir,
)

ROOT = Path(__file__).resolve().parents[1]
TARGET_ECE = 0.05


def cross_fit(
    pairs: Sequence[Pair], predictions: Sequence[tuple[str, float]], folds: int, seed: int
) -> dict[str, Any]:
    """Fit on all folds of topics but one, score that one, for each fold; figures per
    fold and pooled."""
    confidence = np.array([c for _, c in predictions], dtype=np.float64)
    labels = [label for label, _ in predictions]
    right = np.array([int(p.label == label) for p, label in zip(pairs, labels, strict=True)])
    after = np.zeros_like(confidence)
    per_fold = []
    for held in grouped_folds([p.topic_group for p in pairs], folds, seed):
        mask = np.zeros(len(pairs), dtype=bool)
        mask[held] = True
        report = cal.choose(confidence[~mask], right[~mask])
        after[mask] = report.calibration.apply(confidence[mask])
        per_fold.append(
            {
                "fitted_on_pairs": int((~mask).sum()),
                "scored_pairs": int(mask.sum()),
                "method": report.calibration.method,
                "params": {k: round(v, 4) for k, v in report.calibration.params.items()},
                "held_out_brier_in_fit": report.held_out_brier,
                "brier_before": round(cal.brier(confidence[mask], right[mask]), 4),
                "brier_after": round(cal.brier(after[mask], right[mask]), 4),
                "ece_before": round(cal.ece(confidence[mask], right[mask]), 4),
                "ece_after": round(cal.ece(after[mask], right[mask]), 4),
            }
        )
    return {
        "pairs": len(pairs),
        "accuracy": round(float(right.mean()), 4),
        "brier_before": round(cal.brier(confidence, right), 4),
        "brier_after": round(cal.brier(after, right), 4),
        "ece_before": round(cal.ece(confidence, right), 4),
        "ece_after": round(cal.ece(after, right), 4),
        "folds": per_fold,
        "bins_before": cal.diagram_bins(confidence, right),
        "bins_after": cal.diagram_bins(after, right),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--extra-set", type=Path, action="append", default=[])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out-dir", type=Path, default=ROOT / "bench" / "out")
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args(argv)
    healthver = EVIDENCE_DIR / "healthver_dev.csv"
    if not healthver.is_file():
        print(f"bench/calibration: no labelled pairs at {healthver} (the shared evidence folder)")
        return 2
    embed = load_default_embedder(get_settings().home_dir).embed
    training = json.loads((packaged_stance_dir() / "TRAINING.json").read_text())
    sets = {"healthver_dev": load_healthver(healthver)}
    for extra in args.extra_set:
        sets[extra.stem] = load_jsonl_set(extra)
    out: dict[str, Any] = {"model": STANCE_MODEL_ID, "target_ece": TARGET_ECE, "sets": {}}
    for name, pairs in sets.items():
        if name == "healthver_dev":
            judge: Any = RefitHead(
                STANCE_MODEL_ID, load_packaged_stance(embed=embed), embed, pairs,
                training["head"]["l2"],
            )  # fmt: skip
        else:
            judge = PackagedJudge(STANCE_MODEL_ID, embed)
        predictions = out_of_fold(judge, pairs, "topic", args.folds, args.seed)
        figures = cross_fit(pairs, predictions, args.folds, args.seed)
        out["sets"][name] = figures
        met = "met" if figures["ece_after"] <= TARGET_ECE else "NOT met"
        print(f"{name}: {figures['pairs']} pairs, accuracy {figures['accuracy']:.3f}")
        print(f"  Brier {figures['brier_before']:.4f} -> {figures['brier_after']:.4f}   "
              f"ECE {figures['ece_before']:.4f} -> {figures['ece_after']:.4f} "
              f"(target <= {TARGET_ECE}: {met})")  # fmt: skip
        for i, h in enumerate(figures["folds"]):
            print(f"  fold {i} scored ({h['scored_pairs']} pairs; fitted on the other "
                  f"{h['fitted_on_pairs']}): {h['method']} {h['params']}, Brier "
                  f"{h['brier_before']:.4f} -> {h['brier_after']:.4f}, ECE "
                  f"{h['ece_before']:.4f} -> {h['ece_after']:.4f}")  # fmt: skip
        png = args.out_dir / f"calibration-{name}.png"
        curves = {"before": figures["bins_before"], "after calibration": figures["bins_after"]}
        title = f"{name}: ECE {figures['ece_before']:.3f} -> {figures['ece_after']:.3f}"
        if reliability_png(png, title, curves):
            print(f"  reliability diagram: {png}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
