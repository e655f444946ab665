"""The definitions bench/stance.py measures with (pipelines/evidence/stance_eval.py)."""

from __future__ import annotations

import numpy as np
import pytest

from lyra.pipelines.evidence.stance_eval import (
    class_scores,
    confusion,
    expected_calibration_error,
    grouped_folds,
    macro_f1,
    reliability_bins,
)


def test_grouped_folds_never_split_a_group_and_cover_every_row_once() -> None:
    groups = ["a"] * 5 + ["b"] * 3 + ["c"] * 3 + ["d"] * 2 + ["e"] * 2 + ["f"]
    folds = grouped_folds(groups, k=3, seed=7)
    assert sorted(i for fold in folds for i in fold) == list(range(len(groups)))
    fold_of = {i: f for f, fold in enumerate(folds) for i in fold}
    for group in set(groups):
        assert len({fold_of[i] for i, g in enumerate(groups) if g == group}) == 1
    # Largest group first onto the smallest fold: sizes 5 | 3+2 | 3+2+1.
    assert sorted(len(f) for f in folds) == [5, 5, 6]


def test_grouped_folds_are_reproducible_and_refuse_too_few_groups() -> None:
    groups = [i // 2 for i in range(40)]
    assert grouped_folds(groups, 5, seed=1) == grouped_folds(groups, 5, seed=1)
    with pytest.raises(ValueError, match="2 groups cannot fill 3 folds"):
        grouped_folds(["x", "y", "x"], 3)
    with pytest.raises(ValueError, match="at least 2"):
        grouped_folds(["x", "y"], 1)


def test_scores_match_hand_computed_values() -> None:
    truth = ["supports", "supports", "refutes", "neutral", "neutral", "neutral"]
    predicted = ["supports", "neutral", "neutral", "neutral", "neutral", "supports"]
    matrix = confusion(truth, predicted)
    assert matrix.tolist() == [[1, 0, 1], [0, 0, 1], [1, 0, 2]]
    supports, refutes, neutral = class_scores(matrix)
    assert (supports.precision, supports.recall, supports.f1) == (0.5, 0.5, 0.5)
    # refutes is never predicted: precision 0, not undefined.
    assert (refutes.precision, refutes.recall, refutes.f1, refutes.support) == (0.0, 0.0, 0.0, 1)
    assert neutral.precision == pytest.approx(0.5)
    assert neutral.recall == pytest.approx(2 / 3)
    assert neutral.f1 == pytest.approx(4 / 7)
    assert macro_f1(matrix) == pytest.approx((0.5 + 0.0 + 4 / 7) / 3)


def test_confusion_refuses_unknown_labels_and_length_mismatch() -> None:
    with pytest.raises(KeyError):
        confusion(["supports"], ["entails"])
    with pytest.raises(ValueError, match="1 true labels but 2 predictions"):
        confusion(["supports"], ["supports", "neutral"])


def test_calibration_error_is_the_weighted_gap_per_bin() -> None:
    confidence = [0.95, 0.95, 0.95, 0.95, 0.55, 0.55]
    correct = [True, True, True, False, True, False]
    table = reliability_bins(confidence, correct, bins=10)
    filled = [b for b in table if b.count]
    assert [(b.low, b.count, b.accuracy) for b in filled] == [(0.5, 2, 0.5), (0.9, 4, 0.75)]
    # 4/6 * |0.75 - 0.95| + 2/6 * |0.5 - 0.55|
    assert expected_calibration_error(confidence, correct, bins=10) == pytest.approx(
        4 / 6 * 0.2 + 2 / 6 * 0.05
    )
    assert expected_calibration_error([1.0, 0.0], [True, False], bins=4) == 0.0


def test_calibration_refuses_confidences_outside_the_unit_interval() -> None:
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        reliability_bins(np.array([1.2]), [True])
