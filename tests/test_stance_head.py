"""The stance model's refitted layer and temperature (pipelines/evidence/stance_head.py)."""

from __future__ import annotations

import numpy as np
import pytest

from lyra.pipelines.evidence.stance_eval import grouped_folds
from lyra.pipelines.evidence.stance_head import (
    LinearHead,
    bi_encoder_features,
    fit_calibrated_head,
    fit_linear_head,
    fit_temperature,
    negative_log_likelihood,
    unrelated_pairs,
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


def test_many_features_converge_to_the_same_fit_in_few_steps() -> None:
    """Thousands of correlated features: the step size comes from the Gram matrix's top
    eigenvalue, so 400 steps label the rows as 4,000 do."""
    rng = np.random.default_rng(6)
    base, y = _blobs(500, 6)
    x = np.hstack([base, base @ rng.normal(size=(3, 2000)) + rng.normal(0, 3.0, (500, 2000))])
    short = fit_linear_head(x, y, 3, l2=500.0, steps=400)
    long = fit_linear_head(x, y, 3, l2=500.0, steps=4000)
    agreement = (short.logits(x).argmax(1) == long.logits(x).argmax(1)).mean()
    assert agreement >= 0.99


def test_bi_encoder_features_are_u_v_difference_product() -> None:
    u = np.array([[0.6, 0.8]], dtype=np.float32)
    v = np.array([[1.0, 0.0]], dtype=np.float32)
    np.testing.assert_allclose(
        bi_encoder_features(u, v), [[0.6, 0.8, 1.0, 0.0, 0.4, 0.8, 0.6, 0.0]], atol=1e-7
    )


def test_unrelated_pairs_take_passages_of_other_topics_only() -> None:
    claims = {"c1": {"t1"}, "c2": {"t2"}, "c3": {"t1", "t3"}}
    evidence = {"e1": {"t1"}, "e2": {"t2"}, "e3": {"t3"}, "e4": {"t2"}, "e5": {"t4"}}
    pairs = unrelated_pairs(claims, evidence, 2, seed=13)
    assert pairs == unrelated_pairs(claims, evidence, 2, seed=13)
    assert [c for _, c in pairs] == ["c1", "c1", "c2", "c2", "c3", "c3"]
    for e, c in pairs:
        assert not (evidence[e] & claims[c])
    # Fewer other-topic passages than asked: all of them, once.
    assert unrelated_pairs({"c": {"t1"}}, {"e1": {"t1"}, "e2": {"t2"}}, 3, seed=0) == [("e2", "c")]


def test_extra_rows_touching_a_held_out_row_stay_out_of_its_fold() -> None:
    """Extra rows sharing a key with group 0 carry group 0's features with a wrong label:
    the fold that holds group 0 must not see them (its out-of-fold logits stay those of
    a fit without extra rows), while the final head, fitted on every row, does."""
    x, y = _blobs(300, 7)
    groups = [i % 30 for i in range(300)]
    keys = [{f"row{i}"} for i in range(300)]
    target = [i for i in range(300) if groups[i] == 0 and y[i] != 2]
    poison = (np.repeat(x[target], 20, axis=0), 2, [{f"row{i}"} for i in target for _ in range(20)])
    plain, plain_oof = fit_calibrated_head(x, y, groups, keys, None, l2=1.0)
    poisoned, poisoned_oof = fit_calibrated_head(x, y, groups, keys, poison, l2=1.0)
    (fold,) = [f for f in grouped_folds(groups, 5, 0) if 0 in f]
    np.testing.assert_allclose(poisoned_oof[fold], plain_oof[fold])
    pulled = poisoned.head.logits(x[target])[:, 2] - plain.head.logits(x[target])[:, 2]
    assert (pulled > 0.5).all()
