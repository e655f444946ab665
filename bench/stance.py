"""Stance judges on held-out third-party claim/evidence pairs: the measure of record.

    .venv/bin/python bench/stance.py [--folds 5] [--seed 0] [--nli-model DIR]
        [--json PATH] [--png-dir DIR]

Issue 12. Every labelled set found is reported separately; today that is HealthVer's
dev split (`../shared/evidence/healthver_dev.csv`, see its PROVENANCE.md). Each judge
is measured out of fold, twice:

- **grouped by claim**: no claim is in both the training folds and the held-out fold;
- **grouped by topic**: no topic either, so no evidence passage is shared (grouping by
  claim alone lets shared passages leak and reads about 0.14 macro-F1 higher).

Judges: the majority class of the training folds (the floor), the old lexical heuristic
(`pipelines/evidence/nli_heuristic.py`, now the last fallback), the offline default
(Lyra's packaged stance model v2 with the embedder's vectors, `stance_model.py`; on
HealthVer, the set its head was fitted on, the head and temperature are refitted on the
training folds only), and a cross-encoder NLI model folder with `--nli-model`. The
embedder is the one the InferenceActor runs, exported under LYRA_HOME on first use.
Judges that learn nothing from the training folds are run once over all pairs; their
figures are the same under both groupings. Reported per judge: macro-F1, precision /
recall / F1 per class, the confusion matrix (rows true, columns predicted), the
predicted neutral share against the true one, top-label ECE (15 bins) with a reliability
diagram PNG (matplotlib, from `scripts/setup.sh bench`), and pairs/s on this machine's
CPU (for the packaged model twice: from a cold embedding cache, embeddings included, and
with every text's vector already made, as in Lyra's stance step, where the search has
just embedded its fragments and claims).

Targets (issue 12, offline default): macro-F1 ≥ 0.62 by claim and ≥ 0.50 by topic,
neutral share within 10 points of the true one, ECE ≤ 0.05, ≥ 150 pairs/s.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from lyra.config.settings import get_settings
from lyra.pipelines.evidence.embedding import load_default_embedder
from lyra.pipelines.evidence.nli import NLI_LABELS, CrossEncoderNli, NliResult, results_from_logits
from lyra.pipelines.evidence.nli_heuristic import HeuristicNli
from lyra.pipelines.evidence.stance_eval import (
    STANCE_LABELS,
    class_scores,
    confusion,
    expected_calibration_error,
    grouped_folds,
    macro_f1,
    reliability_bins,
)
from lyra.pipelines.evidence.stance_head import (
    CalibratedHead,
    fit_calibrated_head,
    unrelated_pairs,
)
from lyra.pipelines.evidence.stance_model import (
    STANCE_MODEL_ID,
    Embed,
    PackagedStance,
    VetoCalibration,
    fit_veto,
    load_packaged_stance,
    packaged_stance_dir,
    veto_refutations,
)

ROOT = Path(__file__).resolve().parents[1]
EVIDENCE_DIR = ROOT.parent / "shared" / "evidence"
HEALTHVER_LABELS = {"Supports": "supports", "Refutes": "refutes", "Neutral": "neutral"}
# As scripts/train_stance.py head-v2 builds the shipped head (docs/stance-model.md).
UNRELATED_PER_CLAIM = 2
SEED = 13
TARGETS = {
    "macro_f1_claim": 0.62,
    "macro_f1_topic": 0.50,
    "neutral_gap": 0.10,
    "ece": 0.05,
    "pairs_per_s": 150,
}
SPEED_REPEATS = 3


@dataclass(frozen=True)
class Pair:
    """One labelled pair: evidence (premise), claim (hypothesis), label and its groups."""

    evidence: str
    claim: str
    label: str
    claim_group: str
    topic_group: str


class Judge(Protocol):
    name: str
    learns: bool

    def fit(self, train: Sequence[Pair], grouping: str) -> None: ...

    def predict(self, pairs: Sequence[Pair]) -> list[tuple[str, float]]: ...


class Majority:
    """The most frequent label of the training folds, with its share as confidence."""

    name = "majority class"
    learns = True

    def __init__(self) -> None:
        self._label, self._share = "neutral", 1.0

    def fit(self, train: Sequence[Pair], grouping: str) -> None:
        counts = Counter(p.label for p in train)
        self._label, n = counts.most_common(1)[0]
        self._share = n / len(train)

    def predict(self, pairs: Sequence[Pair]) -> list[tuple[str, float]]:
        return [(self._label, self._share) for _ in pairs]


class RefitHead:
    """Lyra's packaged stance model with its head refitted on the training folds.

    The shipped head (``scripts/train_stance.py head-v2``) was fitted on all of HealthVer
    dev; to score it on HealthVer dev without leaking, the head and its temperature are
    refitted here on the training folds only, the way the script fits the shipped one:
    the same features (the int8 cross-encoder's ``features`` output and the embedder's
    vectors), the same penalty, the same unrelated-claim neutral pairs, of which only
    those touching no held-out claim or passage are used; the lexical veto's Platt
    scaling is fitted on the training folds too. The features are computed once and reused
    across folds.
    """

    learns = True

    def __init__(
        self, name: str, stance: PackagedStance, embed: Embed, pairs: Sequence[Pair], l2: float
    ) -> None:
        self.name = name
        self._embed = embed
        self._l2 = l2
        claim_topics: dict[str, set[str]] = {}
        evidence_topics: dict[str, set[str]] = {}
        for p in pairs:
            claim_topics.setdefault(p.claim, set()).add(p.topic_group)
            evidence_topics.setdefault(p.evidence, set()).add(p.topic_group)
        self._extra = unrelated_pairs(claim_topics, evidence_topics, UNRELATED_PER_CLAIM, SEED)
        self._stance = stance
        self._labelled = [(p.evidence, p.claim) for p in pairs]
        self._index = {pair: i for i, pair in enumerate(self._labelled)}
        self._all_keys = {key for pair in self._labelled for key in pair}
        self._computed: np.ndarray | None = None
        self._head: CalibratedHead | None = None
        self._veto = VetoCalibration(0.0, 1.0)

    def _all_features(self) -> np.ndarray:
        """Features of every labelled pair, then of every unrelated pair (made once)."""
        if self._computed is None:
            self._computed = self._stance.features(self._labelled + self._extra)
        return self._computed

    def _features(self, pairs: Sequence[Pair]) -> np.ndarray:
        rows = [self._index[(p.evidence, p.claim)] for p in pairs]
        return self._all_features()[: len(self._labelled)][rows]

    def fit(self, train: Sequence[Pair], grouping: str) -> None:
        """Head and temperature from ``train``; the temperature's inner folds are grouped
        the way the evaluation is (by claim or by topic), so that calibration sees the
        same kind of held-out pair as the score it is judged by."""
        train_keys = {key for p in train for key in (p.evidence, p.claim)}
        held_keys = self._all_keys - train_keys
        # Unrelated pairs that touch a held-out claim or passage are left out.
        usable = [j for j, pair in enumerate(self._extra) if not (set(pair) & held_keys)]
        self._head, _ = fit_calibrated_head(
            self._features(train),
            np.array([STANCE_LABELS.index(p.label) for p in train]),
            [p.claim_group if grouping == "claim" else p.topic_group for p in train],
            [{p.evidence, p.claim} for p in train],
            (
                self._all_features()[len(self._labelled) :][usable],
                STANCE_LABELS.index("neutral"),
                [set(self._extra[j]) for j in usable],
            ),
            l2=self._l2,
        )
        self._veto, _, _ = fit_veto(
            [(p.evidence, p.claim) for p in train], [p.label for p in train]
        )

    def predict(self, pairs: Sequence[Pair]) -> list[tuple[str, float]]:
        if self._head is None:
            raise RuntimeError("fit before predict")
        judged = results_from_logits(self._head.logits(self._features(pairs)), NLI_LABELS)
        # The lexical refutation veto, as PackagedStance applies it in Lyra.
        vetoed = veto_refutations([(p.evidence, p.claim) for p in pairs], judged, self._veto)
        return [(r.label, float(r.confidence)) for r in vetoed]

    def judge_all(self, pairs: Sequence[Pair]) -> None:
        """The shipped model as it runs in Lyra, embeddings included (throughput figure)."""
        fresh = load_packaged_stance(embed=self._embed)
        fresh.judge([(p.evidence, p.claim) for p in pairs])


class PackagedJudge:
    """The shipped stance model as it runs in Lyra, on a set it was never fitted on."""

    learns = False

    def __init__(self, name: str, embed: Embed) -> None:
        self.name = name
        self._embed = embed

    def fit(self, train: Sequence[Pair], grouping: str) -> None:
        """Nothing is learned from the folds."""

    def predict(self, pairs: Sequence[Pair]) -> list[tuple[str, float]]:
        stance = load_packaged_stance(embed=self._embed)
        return [
            (r.label, float(r.confidence))
            for r in stance.judge([(p.evidence, p.claim) for p in pairs])
        ]

    def judge_all(self, pairs: Sequence[Pair]) -> None:
        """Every pair from a cold embedding cache (throughput figure)."""
        self.predict(pairs)


def warm_throughput(embed: Embed, pairs: Sequence[Pair]) -> float:
    """Pairs/s of the packaged model when every text's vector is already made.

    That is how Lyra's stance step runs: the search has embedded each fragment and
    claim (same model, same actor) just before, and the InferenceActor hands those
    vectors to the stance model. The embedding is done outside the timed part.
    """
    stance = load_packaged_stance(embed=embed)
    texts = list(dict.fromkeys([p.evidence for p in pairs] + [p.claim for p in pairs]))
    stance.remember(texts, embed(texts))
    started = time.perf_counter()
    stance.judge([(p.evidence, p.claim) for p in pairs])
    return len(pairs) / (time.perf_counter() - started)


class NliJudgeAdapter:
    """A Lyra NLI judge (heuristic or cross-encoder) as the bench calls it."""

    learns = False

    def __init__(self, name: str, judge: Any) -> None:
        self.name = name
        self._judge = judge

    def fit(self, train: Sequence[Pair], grouping: str) -> None:
        """Nothing is learned from the folds."""

    def predict(self, pairs: Sequence[Pair]) -> list[tuple[str, float]]:
        results: list[NliResult] = self._judge.judge([(p.evidence, p.claim) for p in pairs])
        return [(r.label, float(r.confidence)) for r in results]


def load_healthver(path: Path) -> list[Pair]:
    """HealthVer rows as pairs; an unknown label stops the bench (never guessed)."""
    pairs = []
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            label = HEALTHVER_LABELS.get(row["label"])
            if label is None:
                raise SystemExit(f"{path}: unknown label {row['label']!r} in row {row['id']}")
            pairs.append(Pair(row["evidence"], row["claim"], label, row["claim"], row["topic_ip"]))
    return pairs


def load_jsonl_set(path: Path) -> list[Pair]:
    """A labelled set as JSON lines with premise, claim, label, group and (opt.) topic."""
    pairs = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            row = json.loads(line)
            if row.get("label") not in STANCE_LABELS:
                raise SystemExit(f"{path}:{number}: unknown label {row.get('label')!r}")
            group = str(row["group"])
            pairs.append(
                Pair(
                    row["premise"], row["claim"], row["label"], group, str(row.get("topic", group))
                )
            )
    return pairs


def out_of_fold(
    judge: Judge, pairs: Sequence[Pair], grouping: str, folds: int, seed: int
) -> list[tuple[str, float]]:
    """Each pair predicted by the judge fitted on the folds it is not in."""
    if not judge.learns:
        return judge.predict(pairs)
    groups = [p.claim_group if grouping == "claim" else p.topic_group for p in pairs]
    predictions: list[tuple[str, float] | None] = [None] * len(pairs)
    for held in grouped_folds(groups, folds, seed):
        held_set = set(held)
        judge.fit([p for i, p in enumerate(pairs) if i not in held_set], grouping)
        for i, prediction in zip(held, judge.predict([pairs[i] for i in held]), strict=True):
            predictions[i] = prediction
    return [p for p in predictions if p is not None]


def report(pairs: Sequence[Pair], predictions: Sequence[tuple[str, float]]) -> dict[str, Any]:
    """The figures of one judge under one grouping."""
    truth = [p.label for p in pairs]
    predicted = [label for label, _ in predictions]
    matrix = confusion(truth, predicted)
    correct = [t == p for t, p in zip(truth, predicted, strict=True)]
    confidence = [c for _, c in predictions]
    return {
        "macro_f1": round(macro_f1(matrix), 4),
        "classes": [asdict(s) for s in class_scores(matrix)],
        "confusion": matrix.tolist(),
        "neutral_share_predicted": round(predicted.count("neutral") / len(predicted), 4),
        "neutral_share_true": round(truth.count("neutral") / len(truth), 4),
        "ece": round(expected_calibration_error(confidence, correct), 4),
        "reliability": [asdict(b) for b in reliability_bins(confidence, correct)],
    }


def throughput(judge: Judge, pairs: Sequence[Pair]) -> float:
    """Pairs judged per second over every pair (a learning judge fitted on all of them)."""
    if isinstance(judge, RefitHead | PackagedJudge):
        started = time.perf_counter()
        judge.judge_all(pairs)
    else:
        judge.fit(pairs, "claim")
        started = time.perf_counter()
        judge.predict(pairs)
    return len(pairs) / (time.perf_counter() - started)


def speeds(judge: Judge, embed: Embed, pairs: Sequence[Pair]) -> dict[str, Any]:
    """Throughput figures of one judge: the median of ``SPEED_REPEATS`` runs, and each run.

    Measured before any head is fitted, so no fit's threads share the cores with it.
    The packaged model twice: from a cold embedding cache, and with every text's vector
    already made (Lyra's stance step).
    """
    cold = [throughput(judge, pairs) for _ in range(SPEED_REPEATS)]
    out: dict[str, Any] = {
        "pairs_per_s": round(float(np.median(cold)), 1),
        "pairs_per_s_runs": [round(v, 1) for v in cold],
    }
    if isinstance(judge, RefitHead | PackagedJudge):
        warm = [warm_throughput(embed, pairs) for _ in range(SPEED_REPEATS)]
        out["pairs_per_s_warm"] = round(float(np.median(warm)), 1)
        out["pairs_per_s_warm_runs"] = [round(v, 1) for v in warm]
    return out


def reliability_png(path: Path, title: str, curves: dict[str, list[dict[str, Any]]]) -> bool:
    """A reliability diagram (accuracy against confidence per bin); False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    figure, axes = plt.subplots(figsize=(5, 5))
    axes.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfect calibration")
    for name, bins in curves.items():
        filled = [b for b in bins if b["count"]]
        axes.plot(
            [b["mean_confidence"] for b in filled],
            [b["accuracy"] for b in filled],
            marker="o",
            label=name,
        )
    axes.set(xlabel="confidence", ylabel="accuracy", xlim=(0, 1), ylim=(0, 1), title=title)
    axes.legend(loc="upper left", fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return True


def print_report(name: str, grouping: str, figures: dict[str, Any], pairs_per_s: float) -> None:
    print(f"  {name}  (grouped by {grouping})")
    print(
        f"    macro-F1 {figures['macro_f1']:.3f}   ECE {figures['ece']:.3f}   neutral share "
        f"{figures['neutral_share_predicted']:.3f} (true {figures['neutral_share_true']:.3f})"
        f"   {pairs_per_s:,.0f} pairs/s"
    )
    for s in figures["classes"]:
        print(
            f"    {s['label']:<9} P {s['precision']:.3f}  R {s['recall']:.3f}  "
            f"F1 {s['f1']:.3f}  n {s['support']}"
        )
    print("    confusion (rows true, columns predicted: " + ", ".join(STANCE_LABELS) + ")")
    for label, row in zip(STANCE_LABELS, figures["confusion"], strict=True):
        print(f"      {label:<9}" + "".join(f"{n:>7}" for n in row))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--nli-model", type=Path, help="a cross-encoder NLI model folder")
    parser.add_argument(
        "--extra-set",
        type=Path,
        action="append",
        default=[],
        help="another labelled set as JSON lines (premise, claim, label, group, topic); "
        "reported on its own, never trained on",
    )
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument("--png-dir", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args(argv)

    healthver = EVIDENCE_DIR / "healthver_dev.csv"
    if not healthver.is_file():
        print(f"bench/stance: no labelled pairs at {healthver} (the shared evidence folder)")
        return 2
    sets = {"healthver_dev": load_healthver(healthver)}
    for extra in args.extra_set:
        sets[extra.stem] = load_jsonl_set(extra)
    out: dict[str, Any] = {"folds": args.folds, "seed": args.seed, "targets": TARGETS, "sets": {}}
    # The embedder the InferenceActor runs, exported under LYRA_HOME on first use.
    embed = load_default_embedder(get_settings().home_dir).embed
    training = json.loads((packaged_stance_dir() / "TRAINING.json").read_text())
    for set_name, pairs in sets.items():
        judges: list[Judge] = [
            Majority(),
            NliJudgeAdapter("old heuristic (last fallback)", HeuristicNli()),
        ]
        name = f"offline default ({STANCE_MODEL_ID})"
        if set_name == "healthver_dev":
            # Its head was fitted on this set: refit on training folds only.
            stance = load_packaged_stance(embed=embed)
            judges.append(RefitHead(name, stance, embed, pairs, training["head"]["l2"]))
        else:
            judges.append(PackagedJudge(name, embed))
        if args.nli_model is not None:
            model = CrossEncoderNli(args.nli_model)
            judges.append(NliJudgeAdapter(f"nli:{args.nli_model.name}", model))
        claims = len({p.claim_group for p in pairs})
        topics = len({p.topic_group for p in pairs})
        print(f"{set_name}: {len(pairs)} pairs, {claims} claims, {topics} topics; "
              f"{args.folds} folds, seed {args.seed}")  # fmt: skip
        per_set: dict[str, Any] = {}
        speed = {judge.name: speeds(judge, embed, pairs) for judge in judges}
        for name, figures in speed.items():
            runs = figures["pairs_per_s_runs"]
            line = f"  {name}: {figures['pairs_per_s']:,.0f} pairs/s (runs {runs})"
            if "pairs_per_s_warm" in figures:
                line += (f"; {figures['pairs_per_s_warm']:,.0f} with vectors already made "
                         f"(runs {figures['pairs_per_s_warm_runs']})")  # fmt: skip
            print(line)
        for grouping in ("claim", "topic"):
            curves: dict[str, list[dict[str, Any]]] = {}
            for judge in judges:
                figures = report(pairs, out_of_fold(judge, pairs, grouping, args.folds, args.seed))
                figures.update(speed[judge.name])
                per_set.setdefault(judge.name, {})[grouping] = figures
                curves[judge.name] = figures["reliability"]
                print_report(judge.name, grouping, figures, figures["pairs_per_s"])
            png = args.png_dir / f"stance-{set_name}-{grouping}.png"
            title = f"{set_name}, grouped by {grouping}"
            if reliability_png(png, title, curves):
                print(f"  reliability diagram: {png}")
            else:
                print("  reliability diagram: skipped (matplotlib missing: scripts/setup.sh bench)")
        out["sets"][set_name] = per_set
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1))
        print(f"figures: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
