"""The stance model's refitted layer and temperature (pipelines/evidence/stance_head.py)."""

from __future__ import annotations

import numpy as np
import pytest

from lyra.pipelines.evidence.stance_head import (
    LinearHead,
    fit_linear_head,
    fit_temperature,
    negative_log_likelihood,
)


def _blobs(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = np.array([[4.0, 0.0, 1.0], [-4.0, 0.0, 1.0], [0.0, 4.0, 1.0]])
    labels = rng.integers(0, 3, n)
    # Features on very different scales: the fit standardises them itself.
    x = centres[labels] + rng.normal(0.0, 1.0, (n, 3))
    return x * np.array([1.0, 1000.0, 0.001]), labels


def test_linear_head_separates_three_classes_on_unseen_rows() -> None:
    x, y = _blobs(600, 0)
    head = fit_linear_head(x, y, 3, l2=1.0)
    test_x, test_y = _blobs(300, 1)
    accuracy = float((head.logits(test_x).argmax(axis=1) == test_y).mean())
    assert accuracy >= 0.95


def test_balanced_weights_keep_a_rare_class() -> None:
    x, y = _blobs(900, 2)
    keep = (y != 1) | (np.arange(len(y)) % 10 == 0)  # class 1 is a tenth as common
    balanced = fit_linear_head(x[keep], y[keep], 3, balanced=True)
    test_x, test_y = _blobs(300, 3)
    rare = test_y == 1
    recall = float((balanced.logits(test_x[rare]).argmax(axis=1) == 1).mean())
    assert recall >= 0.9


def test_a_strong_penalty_keeps_the_prior_layer() -> None:
    x, y = _blobs(200, 4)
    prior = LinearHead(
        weight=np.array([[1.0, 0, 0], [-1.0, 0, 0], [0, 0.001, 0]]), bias=np.zeros(3)
    )
    kept = fit_linear_head(x, y, 3, l2=1e9, prior=prior)
    np.testing.assert_allclose(kept.weight, prior.weight, atol=1e-6)
    np.testing.assert_allclose(kept.logits(x), prior.logits(x), atol=1e-3)


def test_temperature_recovers_the_one_that_made_the_labels() -> None:
    rng = np.random.default_rng(5)
    logits = rng.normal(0.0, 3.0, (20000, 3))
    true_t = 2.5
    p = np.exp(logits / true_t)
    p /= p.sum(axis=1, keepdims=True)
    labels = np.array([rng.choice(3, p=row) for row in p])
    fitted = fit_temperature(logits, labels)
    assert fitted == pytest.approx(true_t, rel=0.05)
    assert negative_log_likelihood(logits, labels, fitted) < negative_log_likelihood(
        logits, labels, 1.0
    )


def test_bad_shapes_and_empty_sets_are_refused() -> None:
    with pytest.raises(ValueError, match="do not match"):
        fit_linear_head(np.zeros((3, 2)), np.zeros(4, dtype=int), 3)
    with pytest.raises(ValueError, match="no training rows"):
        fit_linear_head(np.zeros((0, 2)), np.zeros(0, dtype=int), 3)
    with pytest.raises(ValueError, match="no held-out rows"):
        fit_temperature(np.zeros((0, 3)), np.zeros(0, dtype=int))
