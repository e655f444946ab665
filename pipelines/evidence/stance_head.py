"""The stance model's last layer, fitted on labelled pairs: a linear head and a temperature.

Lyra's packaged stance model (``stance_model.py``, issue 12) reads each (premise, claim)
pair with a MiniLM cross-encoder trained on third-party NLI and claim-verification pairs
and with the embedder's sentence vectors; a linear head over both is fitted on
HealthVer's labelled claim/evidence pairs, whose "Neutral" means "this passage does not
settle the claim" rather than NLI's "unrelated", plus claims paired with passages of
other topics as neutral (``unrelated_pairs``).

The same functions serve the training script (``scripts/train_stance.py``) and the
measure of record (``bench/stance.py``), which refits the head on training folds only:

- `fit_linear_head`: L2-regularised multinomial logistic regression, full-batch, in
  numpy (no scikit-learn at run time), with inverse-frequency class weights so that
  the rarer "refutes" is not drowned by "neutral";
- `fit_temperature`: the single temperature T that minimises the negative
  log-likelihood of held-out logits (Guo et al., 2017); probabilities are
  softmax(logits / T);
- `fit_platt`: Platt scaling of one score against 0/1 outcomes (the lexical veto's
  confidence against whether the pair really is a refutation);
- `fit_calibrated_head`: both, the temperature from grouped out-of-fold logits, with
  training-only extra rows kept out of every fold whose held-out rows they touch;
- `bi_encoder_features`, `unrelated_pairs`: the embedder's pair features and the
  neutral training pairs.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping, Sequence, Set
from dataclasses import dataclass

import numpy as np

from lyra.pipelines.evidence.nli import softmax
from lyra.pipelines.evidence.stance_eval import grouped_folds

DEFAULT_L2 = 1.0
DEFAULT_STEPS = 400
TEMPERATURE_RANGE = (0.05, 20.0)


@dataclass(frozen=True)
class LinearHead:
    """logits = features @ weight.T + bias; weight is (classes, dims)."""

    weight: np.ndarray
    bias: np.ndarray

    def logits(self, features: np.ndarray) -> np.ndarray:
        """Class scores for each row of ``features``."""
        return np.asarray(features @ self.weight.T + self.bias, dtype=np.float64)


def fit_linear_head(
    features: np.ndarray,
    labels: np.ndarray,
    classes: int,
    *,
    l2: float = DEFAULT_L2,
    steps: int = DEFAULT_STEPS,
    balanced: bool = True,
    prior: LinearHead | None = None,
) -> LinearHead:
    """Multinomial logistic regression with an L2 penalty ``l2 / n * |W - W0|^2 / 2``.

    ``W0`` is ``prior`` (the encoder's own classifier layer, trained on NLI pairs) when
    one is given, else zero: the refit starts from what the encoder already knows and
    moves away from it only as far as the labelled pairs pull it.

    Features are standardised inside (mean and scale folded back into the returned
    weight and bias), and the convex loss is minimised with Nesterov-accelerated
    gradient steps of size 1/L, L the loss's smoothness bound, so no tuning of a
    learning rate is needed.
    """
    x = np.asarray(features, dtype=np.float64)
    y = np.asarray(labels, dtype=np.int64)
    if x.ndim != 2 or x.shape[0] != y.shape[0]:
        raise ValueError(f"features {x.shape} and labels {y.shape} do not match")
    if x.shape[0] == 0:
        raise ValueError("no training rows")
    n, dims = x.shape
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-8] = 1.0
    z = (x - mean) / scale
    onehot = np.zeros((n, classes))
    onehot[np.arange(n), y] = 1.0
    counts = onehot.sum(axis=0)
    if balanced:
        present = counts > 0
        per_class = np.where(present, n / (present.sum() * np.maximum(counts, 1)), 0.0)
        weights = per_class[y]
    else:
        weights = np.ones(n)
    weights = weights / weights.sum()
    penalty = l2 / n
    # Softmax cross-entropy is 1/2-smooth in the logits, so the loss is L-smooth with
    # L = 1/2 * the largest eigenvalue of the weighted Gram matrix of [z, 1] (+ the
    # penalty). The eigenvalue, not the largest row norm: with thousands of standardised
    # features the row norm overstates it many times and the steps crawl.
    lipschitz = 0.5 * _largest_eigenvalue(z, weights) + penalty
    step = 1.0 / lipschitz
    if prior is None:
        w0 = np.zeros((classes, dims))
        b = np.zeros(classes)
    else:
        # The prior in standardised coordinates: z @ w0.T + b == x @ W0.T + B0.
        w0 = prior.weight * scale
        b = prior.bias + prior.weight @ mean
    w = w0.copy()
    w_prev, b_prev = w.copy(), b.copy()
    for t in range(1, steps + 1):
        momentum = (t - 1) / (t + 2)
        wy = w + momentum * (w - w_prev)
        by = b + momentum * (b - b_prev)
        p = softmax(z @ wy.T + by)
        residual = (p - onehot) * weights[:, None]
        grad_w = residual.T @ z + penalty * (wy - w0)
        grad_b = residual.sum(axis=0)
        w_prev, b_prev = w, b
        w = wy - step * grad_w
        b = by - step * grad_b
    weight = w / scale
    bias = b - weight @ mean
    return LinearHead(weight=weight, bias=bias)


def _largest_eigenvalue(z: np.ndarray, weights: np.ndarray, iterations: int = 50) -> float:
    """Top eigenvalue of ``[z, 1].T @ diag(weights) @ [z, 1]`` by power iteration, +5 %."""
    v = np.ones(z.shape[1] + 1) / np.sqrt(z.shape[1] + 1)
    value = 0.0
    for _ in range(iterations):
        zv = z @ v[:-1] + v[-1]
        weighted = weights * zv
        w = np.append(z.T @ weighted, weighted.sum())
        value = float(np.linalg.norm(w))
        if value == 0.0:
            return 1.0
        v = w / value
    # Power iteration approaches the eigenvalue from below; the margin keeps 1/L safe.
    return 1.05 * value


def negative_log_likelihood(logits: np.ndarray, labels: np.ndarray, temperature: float) -> float:
    """Mean NLL of ``labels`` under softmax(logits / temperature)."""
    p = softmax(np.asarray(logits, dtype=np.float64) / temperature)
    picked = p[np.arange(len(labels)), np.asarray(labels, dtype=np.int64)]
    return float(-np.log(np.clip(picked, 1e-12, None)).mean())


def fit_temperature(logits: np.ndarray, labels: np.ndarray) -> float:
    """The temperature minimising held-out NLL (golden-section search on log T)."""
    if len(labels) == 0:
        raise ValueError("no held-out rows to fit a temperature on")
    lo, hi = np.log(TEMPERATURE_RANGE[0]), np.log(TEMPERATURE_RANGE[1])
    ratio = (np.sqrt(5.0) - 1.0) / 2.0
    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fa = negative_log_likelihood(logits, labels, float(np.exp(a)))
    fb = negative_log_likelihood(logits, labels, float(np.exp(b)))
    for _ in range(80):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - ratio * (hi - lo)
            fa = negative_log_likelihood(logits, labels, float(np.exp(a)))
        else:
            lo, a, fa = a, b, fb
            b = lo + ratio * (hi - lo)
            fb = negative_log_likelihood(logits, labels, float(np.exp(b)))
    return float(np.exp((lo + hi) / 2.0))


def fit_platt(
    scores: np.ndarray,
    outcomes: np.ndarray,
    *,
    prior: tuple[float, float] = (0.0, 1.0),
    l2: float = 1.0,
    steps: int = 50,
) -> tuple[float, float]:
    """(a, b) of p = sigmoid(a + b * score) fitted to 0/1 ``outcomes`` (Platt, 1999) by
    Newton's method, with an L2 pull of strength ``l2`` toward ``prior``: with no rows
    the prior itself, with a few rows only as far as they show."""
    z = np.asarray(scores, dtype=np.float64)
    y = np.asarray(outcomes, dtype=np.float64)
    x = np.stack([np.ones_like(z), z], axis=1)
    centre = np.asarray(prior, dtype=np.float64)
    w = centre.copy()
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (p - y) + l2 * (w - centre)
        hessian = (x * (p * (1.0 - p))[:, None]).T @ x + l2 * np.eye(2)
        w = w - np.linalg.solve(hessian, gradient)
    return float(w[0]), float(w[1])


@dataclass(frozen=True)
class CalibratedHead:
    """A linear head and the temperature its logits are divided by."""

    head: LinearHead
    temperature: float

    def logits(self, features: np.ndarray) -> np.ndarray:
        """Tempered class scores: softmax of these is the calibrated probability."""
        return self.head.logits(features) / self.temperature


def bi_encoder_features(premise: np.ndarray, claim: np.ndarray) -> np.ndarray:
    """[u, v, |u - v|, u * v] of unit premise vectors u and claim vectors v (Conneau et al.,
    2017, InferSent's pair features), one row per pair."""
    u = np.asarray(premise, dtype=np.float32)
    v = np.asarray(claim, dtype=np.float32)
    return np.hstack([u, v, np.abs(u - v), u * v])


def unrelated_pairs(
    claim_topics: Mapping[str, Set[str]],
    evidence_topics: Mapping[str, Set[str]],
    per_claim: int,
    seed: int,
) -> list[tuple[str, str]]:
    """(evidence, claim) pairs that do not bear on each other: every claim with
    ``per_claim`` evidence passages drawn (seeded) from topics the claim is not in.

    Labelled neutral, they teach the head what Lyra's stance step mostly sees: a claim
    against a fragment of another page that shares words and subject but not the
    question. They are training rows only, never scored.
    """
    rng = random.Random(seed)
    evidence = sorted(evidence_topics)
    out: list[tuple[str, str]] = []
    for claim in sorted(claim_topics):
        topics = claim_topics[claim]
        others = [e for e in evidence if not (evidence_topics[e] & topics)]
        out.extend((e, claim) for e in rng.sample(others, min(per_claim, len(others))))
    return out


def fit_calibrated_head(
    features: np.ndarray,
    labels: np.ndarray,
    groups: Sequence[Hashable],
    keys: Sequence[Set[Hashable]],
    extra: tuple[np.ndarray, int, Sequence[Set[Hashable]]] | None = None,
    *,
    classes: int = 3,
    l2: float = DEFAULT_L2,
    steps: int = DEFAULT_STEPS,
    folds: int = 5,
    seed: int = 0,
) -> tuple[CalibratedHead, np.ndarray]:
    """A head fitted on every row, and its temperature from out-of-fold logits.

    ``groups`` keeps related rows in one fold; ``keys`` are the texts each row touches.
    ``extra`` = (features, label, keys) of training-only rows (``unrelated_pairs``): an
    extra row joins a fit only when none of its keys is touched by a held-out row, so
    no held-out claim or passage is ever seen in training. Returns the head and the
    out-of-fold logits (before the temperature) it was calibrated on.
    """
    x = np.asarray(features, dtype=np.float64)
    y = np.asarray(labels, dtype=np.int64)
    extra_x = np.zeros((0, x.shape[1])) if extra is None else np.asarray(extra[0])
    extra_label = 0 if extra is None else extra[1]
    extra_keys: Sequence[Set[Hashable]] = [] if extra is None else extra[2]

    def fit(rows: np.ndarray, held_keys: Set[Hashable]) -> LinearHead:
        use = [j for j, k in enumerate(extra_keys) if not (k & held_keys)]
        return fit_linear_head(
            np.vstack([x[rows], extra_x[use]]),
            np.concatenate([y[rows], np.full(len(use), extra_label, dtype=np.int64)]),
            classes,
            l2=l2,
            steps=steps,
        )

    out_of_fold = np.zeros((len(y), classes))
    for held in grouped_folds(groups, folds, seed):
        rest = np.setdiff1d(np.arange(len(y)), held)
        held_keys: set[Hashable] = set().union(*(keys[i] for i in held))
        out_of_fold[held] = fit(rest, held_keys).logits(x[held])
    temperature = fit_temperature(out_of_fold, y)
    head = fit(np.arange(len(y)), set())
    return CalibratedHead(head, temperature), out_of_fold
