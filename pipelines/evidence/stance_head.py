"""The stance model's last layer, fitted on labelled pairs: a linear head and a temperature.

Lyra's default stance model (``pipelines/evidence/stance_model/``, issue 12) is a MiniLM
cross-encoder trained on third-party NLI and claim-verification pairs; its classifier
layer is then refitted on HealthVer's labelled claim/evidence pairs, whose "Neutral"
means "this passage does not settle the claim" rather than NLI's "unrelated". The
refit is a multinomial logistic regression over the encoder's pooled vector, so the
result is again an ordinary linear classifier layer and the ONNX graph stays standard.

The same functions serve the training script (``scripts/train_stance.py``) and the
measure of record (``bench/stance.py``), which refits the head on training folds only:

- `fit_linear_head`: L2-regularised multinomial logistic regression, full-batch, in
  numpy (no scikit-learn at run time), with inverse-frequency class weights so that
  the rarer "refutes" is not drowned by "neutral";
- `fit_temperature`: the single temperature T that minimises the negative
  log-likelihood of held-out logits (Guo et al., 2017); probabilities are
  softmax(logits / T).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lyra.pipelines.evidence.nli import softmax

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
    # Softmax cross-entropy is 1/2-smooth in the logits; |z| bounds the rest.
    lipschitz = 0.5 * (float(np.max((z**2).sum(axis=1))) + 1.0) + penalty
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
