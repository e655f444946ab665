"""Temperature and Platt scaling fitted from samples (pipelines/evidence/calibration.py)."""

from __future__ import annotations

import numpy as np
import pytest

from lyra.pipelines.evidence import calibration as cal


def _overconfident(n: int, temperature: float, bias: float = 0.0, seed: int = 7):
    """Raw probabilities whose true chance of being right is sigmoid(logit(p)/T + bias)."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.99, n)
    z = np.log(p / (1 - p))
    truth = 1 / (1 + np.exp(-(z / temperature + bias)))
    y = (rng.uniform(size=n) < truth).astype(int)
    return p, y


def test_temperature_scaling_recovers_the_temperature_of_an_overconfident_model() -> None:
    p, y = _overconfident(4000, temperature=2.0)
    fitted = cal.fit("temperature", p, y)
    assert fitted.method == "temperature"
    assert fitted.params["temperature"] == pytest.approx(2.0, abs=0.15)


def test_platt_scaling_recovers_slope_and_bias() -> None:
    p, y = _overconfident(4000, temperature=2.0, bias=-1.0)
    fitted = cal.fit("platt", p, y)
    assert fitted.params["a"] == pytest.approx(0.5, abs=0.06)
    assert fitted.params["b"] == pytest.approx(-1.0, abs=0.15)


def test_choose_keeps_the_method_with_the_lower_held_out_brier() -> None:
    # A bias that temperature scaling cannot express: Platt must win, and calibrate well.
    p, y = _overconfident(2000, temperature=1.5, bias=-1.2)
    report = cal.choose(p, y)
    assert report.calibration.method == "platt"
    assert report.held_out_brier["platt"] < report.held_out_brier["temperature"]
    assert report.brier_after < report.brier_before
    assert report.ece_after < 0.03 < report.ece_before
    assert report.samples == 2000


def test_a_calibrated_map_keeps_the_order_of_probabilities() -> None:
    p, y = _overconfident(500, temperature=3.0)
    grid = np.linspace(0.01, 0.99, 50)
    for method in cal.METHODS:
        out = cal.fit(method, p, y).apply(grid)
        assert np.all(np.diff(out) > 0)
        assert out.min() > 0.0 and out.max() < 1.0


def test_three_samples_stay_near_the_identity() -> None:
    # The prior keeps a fit on a handful of samples from becoming a step function.
    fitted = cal.fit("temperature", [0.9, 0.8, 0.6], [1, 0, 1])
    assert 0.5 < fitted.params["temperature"] < 2.5
    assert fitted.apply_one(0.9) == pytest.approx(0.9, abs=0.2)


@pytest.mark.parametrize(
    ("p", "y", "reason"),
    [
        ([], [], "at least 3 samples; 0 given"),
        ([0.7], [1], "at least 3 samples; 1 given"),
        ([0.7, 0.4], [1, 0], "at least 3 samples; 2 given"),
        ([0.7, 0.4, 0.9], [1, 1, 1], "all 3 samples are right"),
        ([0.7, 0.4, 0.9], [0, 0, 0], "all 3 samples are wrong"),
    ],
)
def test_too_few_or_one_sided_samples_are_refused(
    p: list[float], y: list[int], reason: str
) -> None:
    with pytest.raises(cal.CalibrationRefused, match=reason):
        cal.choose(p, y)


@pytest.mark.parametrize(
    ("p", "y", "message"),
    [
        ([0.5, 1.5, 0.2], [1, 0, 1], "probability in \\[0, 1\\]"),
        ([0.5, -0.1, 0.2], [1, 0, 1], "probability in \\[0, 1\\]"),
        ([0.5, float("nan"), 0.2], [1, 0, 1], "probability in \\[0, 1\\]"),
        ([0.5, 0.6, 0.2], [1, 2, 1], "1 \\(the prediction was right\\) or 0"),
        ([0.5, 0.6], [1, 0, 1], "same length"),
    ],
)
def test_bad_samples_are_named(p: list[float], y: list[int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        cal.check_samples(p, y)


def test_scores_and_bins() -> None:
    p = [0.95, 0.85, 0.35, 0.65]
    y = [1, 0, 0, 1]
    assert cal.brier(p, y) == pytest.approx((0.0025 + 0.7225 + 0.1225 + 0.1225) / 4)
    bins = cal.diagram_bins(p, y)
    assert len(bins) == 10
    assert [b["count"] for b in bins] == [0, 0, 0, 1, 0, 0, 1, 0, 1, 1]
    assert bins[8] == {"lower": 0.8, "upper": 0.9, "count": 1, "mean_confidence": 0.85,
                       "accuracy": 0.0}  # fmt: skip
    assert cal.ece(p, y) == pytest.approx((0.05 + 0.85 + 0.35 + 0.35) / 4)


def test_degradation_is_five_percent_worse_brier() -> None:
    assert cal.degraded(None, 0.3) is False
    assert cal.degraded(0.20, 0.2099) is False
    assert cal.degraded(0.20, 0.21) is True
    assert cal.degraded(0.0, 0.01) is True


def test_a_map_survives_its_json() -> None:
    fitted = cal.Calibration("platt", {"a": 0.61, "b": -0.2})
    again = cal.Calibration.from_json(fitted.to_json())
    assert again == fitted
    assert cal.Calibration.from_json({"method": "identity"}).apply_one(0.37) == 0.37
    with pytest.raises(ValueError, match="unknown calibration method 'isotonic'"):
        cal.Calibration.from_json({"method": "isotonic"})


def test_a_platt_fit_never_reverses_the_order() -> None:
    # Higher probabilities right less often: the map keeps the order, only the base rate.
    p = [0.95, 0.9, 0.85, 0.3, 0.25, 0.2]
    y = [0, 0, 0, 1, 1, 1]
    fitted = cal.fit("platt", p * 20, y * 20)
    assert fitted.params["a"] == 1e-3
    assert fitted.apply_one(0.9) >= fitted.apply_one(0.2)
    assert fitted.apply_one(0.5) == pytest.approx(0.5, abs=0.01)
