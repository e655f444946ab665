"""Calibration samples, versions, evaluations and rollback in DuckDB (storage/calibration.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest

from lyra.pipelines.errors import LyraError
from lyra.storage import calibration as cs
from lyra.storage.connection import open_database

# Ten samples of an overconfident judge: high probabilities, right only 6 times in 10.
PREDICTIONS = [0.95, 0.9, 0.92, 0.85, 0.97, 0.88, 0.93, 0.9, 0.86, 0.94]
RIGHT = [1, 0, 1, 1, 0, 1, 0, 1, 1, 0]


@pytest.fixture
def db(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = open_database(tmp_path / "lyra.duckdb", memory_limit="256MB", threads=2)
    yield con
    con.close()


def _add(con: duckdb.DuckDBPyConnection, p: float, right: int, **extra: Any) -> dict[str, Any]:
    return cs.add_sample(
        con, {"source": "nli", "prediction": p, "actual": bool(right), **extra}, refit_every=10
    )


def _fill(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p, y in zip(PREDICTIONS, RIGHT, strict=True):
        out = _add(con, p, y)
    return out


def _error(exc: pytest.ExceptionInfo[LyraError]) -> tuple[str, str]:
    return exc.value.code, exc.value.message


def test_the_tenth_sample_fits_version_1_and_edges_use_it(db: duckdb.DuckDBPyConnection) -> None:
    for i, (p, y) in enumerate(zip(PREDICTIONS[:9], RIGHT[:9], strict=True)):
        out = _add(db, p, y)
        assert (out["pending_count"], out["refit"]) == (i + 1, None)
    assert cs.active(db, "nli")[0] == 0
    last = _add(db, PREDICTIONS[9], RIGHT[9])
    refit = last["refit"]
    assert last["pending_count"] == 0
    assert (refit["version"], refit["previous_version"], refit["samples"]) == (1, 0, 10)
    assert refit["method"] in ("temperature", "platt")
    assert set(refit["held_out_brier"]) == {"temperature", "platt"}
    assert refit["brier_after"] < refit["brier_before"]
    version, mapping = cs.active(db, "nli")
    assert version == 1
    # The overconfident 0.9 comes down towards the 60 % it is right.
    assert mapping.apply_one(0.9) < 0.85
    maps = cs.active_maps(db)
    assert maps["nli"]["version"] == 1
    assert maps["claims"] == {"version": 0, "calibration": {"method": "identity"}}
    events = db.execute("SELECT kind, payload->>'source' FROM event_log ORDER BY ts").fetchall()
    assert events == [("calibration_fitted", "nli")]


def test_an_edge_sample_takes_the_edge_s_raw_probability(db: duckdb.DuckDBPyConnection) -> None:
    db.execute(
        "INSERT INTO edges (id, source_type, source_id, target_type, target_id, relation, "
        "nli_label, nli_confidence, nli_raw_confidence) VALUES "
        "('e1', 'fragment', 'f1', 'claim', 'c1', 'refutes', 'refutes', 0.61, 0.83)"
    )
    out = cs.add_sample(
        db, {"source": "nli", "edge_id": "e1", "actual": "supports"}, refit_every=10
    )
    row = db.execute(
        "SELECT predicted, label, predicted_label, actual_label, edge_id "
        "FROM calibration_samples WHERE id = ?",
        [out["sample_id"]],
    ).fetchone()
    assert row == (0.83, "0", "refutes", "supports", "e1")


def test_rollback_restores_the_exact_parameters(db: duckdb.DuckDBPyConnection) -> None:
    _fill(db)
    v1 = cs.active(db, "nli")[1]
    grid = np.linspace(0.05, 0.95, 19)
    first = v1.apply(grid)
    # Ten more samples, now mostly right: version 2 differs from version 1.
    for p in PREDICTIONS:
        _add(db, p, 1 if p < 0.96 else 0)
    version, v2 = cs.active(db, "nli")
    assert version == 2
    assert not np.allclose(v2.apply(grid), first)
    out = cs.rollback(db, "nli", None, "degraded on the ward notes")
    assert out == {"source": "nli", "rolled_back_to": 1, "previous_version": 2,
                   "reason": "degraded on the ward notes"}  # fmt: skip
    version, again = cs.active(db, "nli")
    assert version == 1
    assert np.array_equal(again.apply(grid), first)
    # Forward again to 2, then to 0: no calibration at all.
    assert cs.rollback(db, "nli", 2, None)["rolled_back_to"] == 2
    assert cs.rollback(db, "nli", 0, "raw")["rolled_back_to"] == 0
    assert cs.active(db, "nli")[0] == 0
    audit = db.execute(
        "SELECT payload->>'rolled_back_to', payload->>'previous_version', payload->>'reason' "
        "FROM event_log WHERE kind = 'calibration_rollback' ORDER BY ts"
    ).fetchall()
    assert audit == [("1", "2", "degraded on the ward notes"), ("2", "1", None), ("0", "2", "raw")]
    # The next sample after a rollback fits version 3 on all 21 samples.
    assert cs.stats(db, {"source": "nli"})["pending_count"] == 0


@pytest.mark.parametrize(
    ("source", "version", "message"),
    [
        ("llm_extract", None, "unknown calibration source 'llm_extract'; known: nli, claims"),
        ("nli", 7, "nli has no calibration version 7 (versions: 1; 0 = raw)"),
        ("nli", 1, "nli version 1 is already the active one"),
    ],
)
def test_rollback_refusals(
    db: duckdb.DuckDBPyConnection, source: str, version: int | None, message: str
) -> None:
    _fill(db)
    with pytest.raises(LyraError) as exc:
        cs.rollback(db, source, version, None)
    assert _error(exc) == ("CALIBRATION_ERROR", message)
    assert cs.active(db, "nli")[0] == 1


def test_nothing_to_roll_back_from(db: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(LyraError) as exc:
        cs.rollback(db, "claims", None, None)
    assert _error(exc) == (
        "CALIBRATION_ERROR",
        "claims has no active calibration version to roll back from",
    )


@pytest.mark.parametrize(
    ("data", "code", "field", "message"),
    [
        ({"source": "nli", "prediction": 1.5, "actual": True}, "INVALID_PARAMS",
         "data.prediction", "prediction 1.5 is not a probability in [0, 1]"),
        ({"source": "nli", "prediction": -0.01, "actual": True}, "INVALID_PARAMS",
         "data.prediction", "prediction -0.01 is not a probability in [0, 1]"),
        ({"source": "nli", "prediction": 0.7, "actual": "maybe", "predicted_label": "supports"},
         "INVALID_PARAMS", "data.actual",
         "actual 'maybe' is not a nli class (supports, refutes, neutral), nor true / false"),
        ({"source": "nli", "prediction": 0.7, "actual": "refutes"}, "INVALID_PARAMS",
         "data.predicted_label",
         "a class as actual needs predicted_label (or edge_id) to say whether the prediction "
         "was right"),
        ({"source": "nli", "prediction": 0.7, "actual": 2}, "INVALID_PARAMS", "data.actual",
         "actual must be true / false, 1 / 0 or a nli class (supports, refutes, neutral)"),
        ({"source": "claims", "prediction": 0.7, "actual": "supports",
          "predicted_label": "valid"}, "INVALID_PARAMS", "data.actual",
         "actual 'supports' is not a claims class (valid, invalid), nor true / false"),
        ({"source": "nli", "edge_id": "nope", "actual": "refutes"}, "INVALID_PARAMS",
         "data.edge_id", "no stance edge 'nope'"),
        ({"source": "weather", "prediction": 0.7, "actual": True}, "CALIBRATION_ERROR", None,
         "unknown calibration source 'weather'; known: nli, claims"),
    ],
)  # fmt: skip
def test_bad_samples_are_refused_and_nothing_is_stored(
    db: duckdb.DuckDBPyConnection,
    data: dict[str, Any],
    code: str,
    field: str | None,
    message: str,
) -> None:
    with pytest.raises(LyraError) as exc:
        cs.add_sample(db, data, refit_every=10)
    assert (exc.value.code, exc.value.field, exc.value.message) == (code, field, message)
    assert db.execute("SELECT count(*) FROM calibration_samples").fetchone() == (0,)


def test_a_fit_on_one_sided_samples_is_refused_and_keeps_the_old_version(
    db: duckdb.DuckDBPyConnection,
) -> None:
    _fill(db)
    before = cs.active(db, "nli")[1]
    for _ in range(9):
        _add(db, 0.9, 1)
    out = _add(db, 0.9, 1)
    # 20 samples, both outcomes present: version 2. Now ten one-sided claims samples.
    assert out["refit"]["version"] == 2
    for _ in range(9):
        cs.add_sample(db, {"source": "claims", "prediction": 0.8, "actual": True}, 10)
    last = cs.add_sample(db, {"source": "claims", "prediction": 0.8, "actual": True}, 10)
    assert last["refit"] == {
        "version": None,
        "refused": "all 10 samples are right: calibration needs right and wrong predictions",
    }
    assert last["pending_count"] == 10
    assert cs.active(db, "claims")[0] == 0
    assert cs.active(db, "nli")[1] != before


def test_evaluate_stores_brier_before_and_after_and_the_bins(
    db: duckdb.DuckDBPyConnection,
) -> None:
    raw = cs.evaluate(db, {"source": "nli", "predictions": PREDICTIONS, "labels": RIGHT}, False)
    assert raw["calibration_version"] == 0
    assert raw["brier_score_calibrated"] is None
    assert raw["improvement_ratio"] is None
    expected = float(np.mean((np.array(PREDICTIONS) - np.array(RIGHT)) ** 2))
    assert raw["brier_score"] == pytest.approx(expected, abs=1e-6)
    assert raw["samples_evaluated"] == 10
    assert raw["degradation_detected"] is False
    _fill(db)
    fitted = cs.evaluate(db, {"source": "nli"}, False)  # the stored samples
    assert fitted["calibration_version"] == 1
    assert fitted["brier_score"] == raw["brier_score"]
    assert fitted["brier_score_calibrated"] < fitted["brier_score"]
    assert fitted["improvement_ratio"] == pytest.approx(
        (fitted["brier_score"] - fitted["brier_score_calibrated"]) / fitted["brier_score"],
        abs=1e-5,
    )
    listed = cs.evaluations(db, {"source": "nli"})
    assert listed["total_count"] == 2
    assert [e["evaluation_id"] for e in listed["evaluations"]] == [
        fitted["evaluation_id"],
        raw["evaluation_id"],
    ]
    diagram = cs.diagram(db, {"source": "nli", "evaluation_id": raw["evaluation_id"]})
    assert diagram["n_bins"] == 10
    assert [b["count"] for b in diagram["bins"]] == [0, 0, 0, 0, 0, 0, 0, 0, 3, 7]
    assert diagram["overall_ece"] == raw["expected_calibration_error"]


def test_degradation_compares_the_version_with_the_one_before_on_the_same_batch(
    db: duckdb.DuckDBPyConnection,
) -> None:
    batch = {"predictions": [0.9, 0.92, 0.88, 0.95, 0.6], "labels": [0, 0, 1, 0, 1]}
    _fill(db)  # version 1: overconfident 0.9s come down
    v1 = cs.evaluate(db, {"source": "nli", **batch}, True)
    assert (v1["calibration_version"], v1["previous_version"]) == (1, 0)
    assert v1["previous_version_brier"] == v1["brier_score"]  # version 0 is the raw
    assert v1["brier_score_calibrated"] < v1["brier_score"]
    assert (v1["degradation_detected"], v1["auto_rolled_back"]) == (False, None)
    for p in PREDICTIONS:  # version 2, fitted on samples that are now nearly all right
        _add(db, p, 1 if p < 0.96 else 0)
    assert cs.active(db, "nli")[0] == 2
    # The same batch: version 2 trusts the 0.9s again and scores worse than version 1.
    v2 = cs.evaluate(db, {"source": "nli", **batch}, False)
    assert (v2["previous_version"], v2["previous_version_brier"]) == (
        1, v1["brier_score_calibrated"]
    )  # fmt: skip
    assert v2["brier_score_calibrated"] >= 1.05 * v1["brier_score_calibrated"]
    assert (v2["degradation_detected"], v2["auto_rolled_back"]) == (True, None)
    assert cs.active(db, "nli")[0] == 2  # reported only: auto-rollback is off
    again = cs.evaluate(db, {"source": "nli", **batch}, True)
    assert again["auto_rolled_back"]["rolled_back_to"] == 1
    assert again["auto_rolled_back"]["previous_version"] == 2
    assert cs.active(db, "nli")[0] == 1
    stats = cs.stats(db, {"source": "nli"})
    assert (stats["current_version"], stats["degradation_detected"]) == (1, True)
    assert [v["version"] for v in stats["versions"] if v["active"]] == [1]


@pytest.mark.parametrize(
    ("data", "code", "message"),
    [
        ({"source": "nli", "predictions": [0.5, 0.6], "labels": [1, 0]}, "CALIBRATION_ERROR",
         "an evaluation needs at least 3 samples; 2 given"),
        ({"source": "nli"}, "CALIBRATION_ERROR",
         "an evaluation needs at least 3 samples; 0 stored for nli"),
        ({"source": "nli", "predictions": [0.5, 0.6, 0.7], "labels": [1, 0]}, "INVALID_PARAMS",
         "3 predictions but 2 labels"),
        ({"source": "nli", "predictions": [0.5, 1.6, 0.7], "labels": [1, 0, 1]},
         "INVALID_PARAMS", "every prediction must be a probability in [0, 1]"),
        ({"source": "nli", "predictions": [0.5, 0.6, 0.7], "labels": [1, "yes", 1]},
         "INVALID_PARAMS", "label 'yes': each label is true / false or 1 / 0 (was the "
         "prediction right)"),
    ],
)  # fmt: skip
def test_evaluation_refusals(
    db: duckdb.DuckDBPyConnection, data: dict[str, Any], code: str, message: str
) -> None:
    with pytest.raises(LyraError) as exc:
        cs.evaluate(db, data, False)
    assert _error(exc) == (code, message)
    assert db.execute("SELECT count(*) FROM calibration_evaluations").fetchone() == (0,)


def test_get_evaluations_filters(db: duckdb.DuckDBPyConnection) -> None:
    for _ in range(3):
        cs.evaluate(db, {"source": "claims", "predictions": [0.2, 0.7, 0.9],
                         "labels": [0, 1, 1]}, False)  # fmt: skip
    assert cs.evaluations(db, {"source": "claims", "limit": 2})["total_count"] == 3
    assert len(cs.evaluations(db, {"source": "claims", "limit": 2})["evaluations"]) == 2
    assert cs.evaluations(db, {"since": "2999-01-01T00:00:00Z"}) == {
        "evaluations": [],
        "total_count": 0,
    }
    with pytest.raises(LyraError) as exc:
        cs.evaluations(db, {"limit": 500})
    assert _error(exc) == ("INVALID_PARAMS", "limit must be an integer from 1 to 200")
    with pytest.raises(LyraError) as exc:
        cs.evaluations(db, {"since": "last week"})
    assert _error(exc) == ("INVALID_PARAMS", "since 'last week' is not an ISO 8601 time")
    stored = db.execute("SELECT bins_json FROM calibration_evaluations LIMIT 1").fetchone()
    assert len(json.loads(stored[0])) == 10
