"""Calibration of a model's probabilities from labelled samples (issue 14, seed 003 §3.3.4).

A sample is one prediction: the probability ``p`` the model gave its answer and whether
the answer was right (``y`` = 1) or wrong (0). Two maps from ``p`` to a calibrated
probability are fitted, both monotone in the logit ``z = log(p / (1 - p))``:

- temperature scaling: ``sigmoid(z / T)`` (one parameter);
- Platt scaling: ``sigmoid(a * z + b)`` (two).

Each is fitted by maximum a posteriori with a weak Gaussian prior on the identity map
(``1/T = 1``; ``a = 1``, ``b = 0``; weight ``PRIOR_WEIGHT``): with a handful of samples the
map stays near the identity instead of jumping to a step function, and with hundreds
the data decide. The method kept is the one with the lower held-out Brier score
(``cross_validated_brier``: k-fold, k = min(5, n)), so a source's choice is recorded
with the figures that made it.

Pure and deterministic: numpy only, Newton's method, no random draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lyra.pipelines.evidence.stance_eval import expected_calibration_error, reliability_bins

SOURCES: tuple[str, ...] = ("nli", "claims")
"""What can be calibrated: the stance model's confidence (``nli``) and the claim
extractor's (``claims``)."""

METHODS: tuple[str, ...] = ("temperature", "platt")

ECE_BINS = 10
"""Equal-width bins of the calibration ECE and reliability diagrams (issue 14)."""

MIN_SAMPLES = 3
"""Fewer samples than this are refused: 0, 1 or 2 predictions say nothing about a map."""

PRIOR_WEIGHT = 1.0
"""Strength of the prior on the identity map, in samples' worth of log-likelihood."""

_EPS = 1e-6


class CalibrationRefused(ValueError):
    """The samples cannot support a fit (too few, or all right or all wrong)."""


def _logit(p: np.ndarray) -> np.ndarray:
    q = np.clip(p, _EPS, 1.0 - _EPS)
    out: np.ndarray = np.log(q / (1.0 - q))
    return out


def _sigmoid(z: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(z, -60.0, 60.0)))
    return out


@dataclass(frozen=True)
class Calibration:
    """A fitted map: ``method`` with its ``params`` (``{"temperature"}`` or ``{"a", "b"}``)."""

    method: str
    params: dict[str, float] = field(default_factory=dict)

    def apply(self, p: Sequence[float] | np.ndarray) -> np.ndarray:
        """Calibrated probabilities for raw probabilities ``p`` (each in [0, 1])."""
        z = _logit(np.asarray(p, dtype=np.float64))
        if self.method == "identity":
            return np.clip(np.asarray(p, dtype=np.float64), 0.0, 1.0)
        if self.method == "temperature":
            return _sigmoid(z / self.params["temperature"])
        if self.method == "platt":
            return _sigmoid(self.params["a"] * z + self.params["b"])
        raise ValueError(f"unknown calibration method {self.method!r}")

    def apply_one(self, p: float) -> float:
        return float(self.apply([p])[0])

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, **self.params}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Calibration:
        method = str(data["method"])
        keys = {"temperature": ("temperature",), "platt": ("a", "b"), "identity": ()}
        if method not in keys:
            raise ValueError(f"unknown calibration method {method!r}")
        return cls(method, {k: float(data[k]) for k in keys[method]})


IDENTITY = Calibration("identity")


def check_samples(
    p: Sequence[float] | np.ndarray, y: Sequence[int] | np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The samples as arrays; ValueError for probabilities outside [0, 1] or non-binary labels."""
    probs = np.asarray(p, dtype=np.float64)
    labels = np.asarray(y, dtype=np.float64)
    if probs.shape != labels.shape or probs.ndim != 1:
        raise ValueError("predictions and labels must be two lists of the same length")
    if probs.size and (np.isnan(probs).any() or probs.min() < 0.0 or probs.max() > 1.0):
        raise ValueError("every prediction must be a probability in [0, 1]")
    if labels.size and not np.isin(labels, (0.0, 1.0)).all():
        raise ValueError("every label must be 1 (the prediction was right) or 0 (wrong)")
    return probs, labels


def brier(p: Sequence[float] | np.ndarray, y: Sequence[int] | np.ndarray) -> float:
    """Mean squared difference between the probability and the outcome."""
    probs, labels = np.asarray(p, dtype=np.float64), np.asarray(y, dtype=np.float64)
    return float(np.mean((probs - labels) ** 2)) if probs.size else 0.0


def ece(p: Sequence[float] | np.ndarray, y: Sequence[int] | np.ndarray) -> float:
    """Expected calibration error over ``ECE_BINS`` equal-width bins."""
    return float(
        expected_calibration_error(list(map(float, p)), [bool(v) for v in y], bins=ECE_BINS)
    )


def diagram_bins(
    p: Sequence[float] | np.ndarray, y: Sequence[int] | np.ndarray
) -> list[dict[str, Any]]:
    """The reliability diagram's bins: range, count, mean probability, share right."""
    return [
        {
            "lower": round(b.low, 4),
            "upper": round(b.high, 4),
            "count": b.count,
            "mean_confidence": round(b.mean_confidence, 6),
            "accuracy": round(b.accuracy, 6),
        }
        for b in reliability_bins(list(map(float, p)), [bool(v) for v in y], bins=ECE_BINS)
    ]


def _newton(y: np.ndarray, theta: np.ndarray, design: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """MAP of a logistic model sigmoid(design @ theta) with a Gaussian prior at ``prior``."""
    for _ in range(100):
        q = _sigmoid(design @ theta)
        grad = design.T @ (q - y) + PRIOR_WEIGHT * (theta - prior)
        w = q * (1.0 - q)
        hess = (design * w[:, None]).T @ design + PRIOR_WEIGHT * np.eye(len(theta))
        step = np.linalg.solve(hess, grad)
        theta = theta - step
        if float(np.abs(step).max()) < 1e-10:
            break
    return theta


def fit(method: str, p: Sequence[float] | np.ndarray, y: Sequence[int] | np.ndarray) -> Calibration:
    """Fit ``method`` (temperature or platt) to the samples."""
    probs, labels = check_samples(p, y)
    z = _logit(probs)
    if method == "temperature":
        inverse = _newton(labels, np.array([1.0]), z[:, None], np.array([1.0]))[0]
        # A map must keep the order of the raw probabilities: 1/T > 0.
        return Calibration("temperature", {"temperature": float(1.0 / max(inverse, 1e-3))})
    if method == "platt":
        design = np.stack([z, np.ones_like(z)], axis=1)
        a, b = _newton(labels, np.array([1.0, 0.0]), design, np.array([1.0, 0.0]))
        if a < 1e-3:
            # Samples where a higher probability means less often right: the map may not
            # reverse the order, so it keeps the slope's floor and only the base rate.
            rate = float(np.clip(labels.mean(), _EPS, 1.0 - _EPS))
            return Calibration("platt", {"a": 1e-3, "b": float(np.log(rate / (1.0 - rate)))})
        return Calibration("platt", {"a": float(a), "b": float(b)})
    raise ValueError(f"unknown calibration method {method!r}")


def cross_validated_brier(method: str, p: np.ndarray, y: np.ndarray) -> float:
    """Brier score of ``method`` on held-out samples: k folds (k = min(5, n)), in order."""
    n = len(p)
    k = min(5, n)
    folds = np.arange(n) % k
    out = np.zeros(n)
    for f in range(k):
        held = folds == f
        out[held] = fit(method, p[~held], y[~held]).apply(p[held])
    return brier(out, y)


@dataclass(frozen=True)
class FitReport:
    """A new calibration and the figures that chose it."""

    calibration: Calibration
    samples: int
    brier_before: float
    brier_after: float
    ece_before: float
    ece_after: float
    held_out_brier: dict[str, float]


def choose(p: Sequence[float], y: Sequence[int]) -> FitReport:
    """Both methods fitted; the one with the lower held-out Brier kept (ties: temperature)."""
    probs, labels = check_samples(p, y)
    if len(probs) < MIN_SAMPLES:
        raise CalibrationRefused(
            f"calibration needs at least {MIN_SAMPLES} samples; {len(probs)} given"
        )
    if labels.min() == labels.max():
        which = "right" if labels[0] == 1 else "wrong"
        raise CalibrationRefused(
            f"all {len(labels)} samples are {which}: calibration needs right and wrong predictions"
        )
    held = {m: round(cross_validated_brier(m, probs, labels), 6) for m in METHODS}
    best = min(METHODS, key=lambda m: (held[m], METHODS.index(m)))
    calibration = fit(best, probs, labels)
    after = calibration.apply(probs)
    return FitReport(
        calibration=calibration,
        samples=len(probs),
        brier_before=round(brier(probs, labels), 6),
        brier_after=round(brier(after, labels), 6),
        ece_before=round(ece(probs, labels), 6),
        ece_after=round(ece(after, labels), 6),
        held_out_brier=held,
    )


DEGRADATION_RATIO = 1.05
"""An evaluation whose Brier score is 5 % or more worse than the previous one's degrades."""


def degraded(previous_brier: float | None, brier_now: float) -> bool:
    """Whether ``brier_now`` is at least 5 % worse than ``previous_brier``."""
    if previous_brier is None:
        return False
    if previous_brier == 0.0:
        return brier_now > 0.0
    return brier_now >= DEGRADATION_RATIO * previous_brier - 1e-12
