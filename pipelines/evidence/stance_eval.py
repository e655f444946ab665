"""Measuring a stance judge honestly: grouped folds, per-class scores, calibration.

The measure of record is `bench/stance.py` (issue 12). What it needs is pure and lives
here, so a training script and the tests use the same definitions:

- `grouped_folds`: k folds where no group (a claim, or a topic) is split between the
  evaluation fold and the training folds. Grouping by claim alone lets the same
  evidence passage sit on both sides; HealthVer reads about 0.14 macro-F1 higher that
  way, so a second grouping by topic is reported too.
- `confusion`, `class_scores`, `macro_f1`: the usual definitions; a class never
  predicted has precision 0 (not undefined), as in scikit-learn's `zero_division=0`.
- `expected_calibration_error` and `reliability_bins`: top-label calibration over
  equal-width confidence bins (Guo et al., 2017), 15 bins by default.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

STANCE_LABELS: tuple[str, ...] = ("supports", "refutes", "neutral")
ECE_BINS = 15


@dataclass(frozen=True)
class ClassScore:
    """Precision, recall, F1 and support (true count) of one class."""

    label: str
    precision: float
    recall: float
    f1: float
    support: int


@dataclass(frozen=True)
class ReliabilityBin:
    """One confidence bin: its range, how many predictions fell in it, their mean
    confidence and how many of them were right."""

    low: float
    high: float
    count: int
    mean_confidence: float
    accuracy: float


def grouped_folds(groups: Sequence[Hashable], k: int, seed: int = 0) -> list[list[int]]:
    """Row indices of `k` folds; all rows of one group fall in the same fold.

    Groups are shuffled with `seed`, then dealt largest first onto the fold with the
    fewest rows, so folds have about the same size whatever the group sizes.
    """
    if k < 2:
        raise ValueError(f"k must be at least 2, got {k}")
    members: dict[Hashable, list[int]] = {}
    for index, group in enumerate(groups):
        members.setdefault(group, []).append(index)
    if len(members) < k:
        raise ValueError(f"{len(members)} groups cannot fill {k} folds")
    order = list(members)
    random.Random(seed).shuffle(order)
    order.sort(key=lambda g: len(members[g]), reverse=True)  # stable: ties keep the shuffle
    folds: list[list[int]] = [[] for _ in range(k)]
    for group in order:
        smallest = min(range(k), key=lambda f: (len(folds[f]), f))
        folds[smallest].extend(members[group])
    return [sorted(fold) for fold in folds]


def confusion(
    truth: Sequence[str], predicted: Sequence[str], labels: Sequence[str] = STANCE_LABELS
) -> np.ndarray:
    """Counts, rows = true label, columns = predicted label, in `labels` order."""
    if len(truth) != len(predicted):
        raise ValueError(f"{len(truth)} true labels but {len(predicted)} predictions")
    index = {label: i for i, label in enumerate(labels)}
    matrix = np.zeros((len(labels), len(labels)), dtype=np.int64)
    for t, p in zip(truth, predicted, strict=True):
        matrix[index[t], index[p]] += 1
    return matrix


def class_scores(matrix: np.ndarray, labels: Sequence[str] = STANCE_LABELS) -> list[ClassScore]:
    """Per-class precision, recall and F1 from a confusion matrix (0 where undefined)."""
    scores = []
    for i, label in enumerate(labels):
        tp = float(matrix[i, i])
        predicted = float(matrix[:, i].sum())
        actual = float(matrix[i, :].sum())
        precision = tp / predicted if predicted else 0.0
        recall = tp / actual if actual else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        scores.append(ClassScore(label, precision, recall, f1, int(actual)))
    return scores


def macro_f1(matrix: np.ndarray, labels: Sequence[str] = STANCE_LABELS) -> float:
    """The unweighted mean of the classes' F1."""
    scores = class_scores(matrix, labels)
    return sum(s.f1 for s in scores) / len(scores)


def reliability_bins(
    confidence: Sequence[float], correct: Sequence[bool], bins: int = ECE_BINS
) -> list[ReliabilityBin]:
    """Top-label confidences in `bins` equal-width bins over [0, 1] (the last one closed)."""
    conf = np.asarray(confidence, dtype=np.float64)
    right = np.asarray(correct, dtype=bool)
    if conf.shape != right.shape:
        raise ValueError("confidence and correct must have the same length")
    if conf.size and (conf.min() < 0.0 or conf.max() > 1.0):
        raise ValueError("confidences must lie in [0, 1]")
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.minimum(np.searchsorted(edges, conf, side="right") - 1, bins - 1)
    out = []
    for b in range(bins):
        mask = which == b
        count = int(mask.sum())
        out.append(
            ReliabilityBin(
                low=float(edges[b]),
                high=float(edges[b + 1]),
                count=count,
                mean_confidence=float(conf[mask].mean()) if count else 0.0,
                accuracy=float(right[mask].mean()) if count else 0.0,
            )
        )
    return out


def expected_calibration_error(
    confidence: Sequence[float], correct: Sequence[bool], bins: int = ECE_BINS
) -> float:
    """Sum over bins of (share of predictions in the bin) * |accuracy - mean confidence|."""
    table = reliability_bins(confidence, correct, bins)
    total = sum(b.count for b in table)
    if not total:
        return 0.0
    return sum(b.count / total * abs(b.accuracy - b.mean_confidence) for b in table)
