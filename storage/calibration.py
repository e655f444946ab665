"""Calibration samples, versions and evaluations in DuckDB (issue 14, seed 003 §3.3.4).

- ``calibration_samples``: one prediction each (``predicted``: the model's probability
  for its answer; ``label``: "1" right, "0" wrong; the classes and the edge when known).
- ``calibration_params``: versions 1, 2, ... per source, each a fitted map
  (``pipelines/evidence/calibration.py``) with the figures that chose it; exactly one
  version per source is ``active`` (none: the raw probabilities are used, version 0).
- ``calibration_evaluations``: one row per ``evaluate``, with its reliability bins.

A new version is fitted when ``refit_every`` samples have arrived since the last one
(``add_sample``). Rolling back only moves ``active``: every version stays, so a rollback
restores exactly the parameters it names. Every change is an ``event_log`` row.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Sequence
from typing import Any

import duckdb

from lyra.pipelines.errors import LyraError
from lyra.pipelines.evidence import calibration as cal
from lyra.storage.repository import Row, insert_rows, log_event, transaction, utcnow

NLI_LABELS: tuple[str, ...] = ("supports", "refutes", "neutral")
"""The classes an ``nli`` sample may name (predicted and actual)."""

CLAIM_LABELS: tuple[str, ...] = ("valid", "invalid")
"""The classes a ``claims`` sample may name: was the extracted claim a real claim?"""

_CLASSES = {"nli": NLI_LABELS, "claims": CLAIM_LABELS}

MAX_EVALUATION_SAMPLES = 100_000


def _error(message: str) -> LyraError:
    return LyraError("CALIBRATION_ERROR", message)


def _invalid(message: str, field: str) -> LyraError:
    return LyraError("INVALID_PARAMS", message, field=field)


def check_source(source: Any) -> str:
    """A known source name, or CALIBRATION_ERROR naming the known ones (INVALID_PARAMS
    when none is given: the argument is missing, not unknown)."""
    if source is None:
        raise _invalid(f"data.source is required: one of {', '.join(cal.SOURCES)}", "data.source")
    if source not in cal.SOURCES:
        raise _error(f"unknown calibration source {source!r}; known: {', '.join(cal.SOURCES)}")
    return str(source)


def _iso(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC).replace(tzinfo=None)
        return str(value.isoformat(timespec="seconds")) + "Z"
    return str(value)


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] = ()) -> list[Row]:
    cur = con.execute(sql, list(params))
    cols = [str(d[0]) for d in cur.description or []]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


# ------------------------------------------------------------------------- versions


def versions(con: duckdb.DuckDBPyConnection, source: str) -> list[Row]:
    return _rows(
        con,
        "SELECT version, method, params, brier, ece, created_at, active "
        "FROM calibration_params WHERE source = ? ORDER BY version",
        [source],
    )


def active(con: duckdb.DuckDBPyConnection, source: str) -> tuple[int, cal.Calibration]:
    """The active version and its map; (0, identity) while none is active."""
    rows = _rows(
        con,
        "SELECT version, params FROM calibration_params WHERE source = ? AND active",
        [source],
    )
    if not rows:
        return 0, cal.IDENTITY
    params = rows[0]["params"]
    data = json.loads(params) if isinstance(params, str) else params
    return int(rows[0]["version"]), cal.Calibration.from_json(data["calibration"])


def active_maps(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, Any]]:
    """Every source's active version and map as JSON (what the search applies)."""
    out = {}
    for source in cal.SOURCES:
        version, mapping = active(con, source)
        out[source] = {"version": version, "calibration": mapping.to_json()}
    return out


def _set_active(con: duckdb.DuckDBPyConnection, source: str, version: int) -> None:
    con.execute("UPDATE calibration_params SET active = false WHERE source = ?", [source])
    if version:
        con.execute(
            "UPDATE calibration_params SET active = true WHERE source = ? AND version = ?",
            [source, version],
        )


# ------------------------------------------------------------------------- samples


def _outcome(source: str, data: dict[str, Any]) -> tuple[int, str | None, str | None]:
    """(1 right / 0 wrong, predicted class, actual class) from a sample's fields."""
    actual = data.get("actual")
    predicted = data.get("predicted_label")
    classes = _CLASSES[source]
    if isinstance(actual, bool):
        return int(actual), predicted, None
    if isinstance(actual, int) and actual in (0, 1):
        return actual, predicted, None
    if isinstance(actual, str):
        if actual not in classes:
            raise _invalid(
                f"actual {actual!r} is not a {source} class ({', '.join(classes)}), "
                "nor true / false",
                "data.actual",
            )
        if predicted is None:
            raise _invalid(
                "a class as actual needs predicted_label (or edge_id) to say whether the "
                "prediction was right",
                "data.predicted_label",
            )
        return int(actual == predicted), predicted, actual
    raise _invalid(
        f"actual must be true / false, 1 / 0 or a {source} class ({', '.join(classes)})",
        "data.actual",
    )


def add_sample(
    con: duckdb.DuckDBPyConnection, data: dict[str, Any], refit_every: int
) -> dict[str, Any]:
    """Store one sample; fit a new version once ``refit_every`` new samples have arrived.

    ``data``: {source, prediction, actual, predicted_label?, edge_id?, context?}. With
    ``edge_id`` (source nli) the prediction and the predicted class are the edge's own
    (its raw model probability), and ``actual`` is the class a person says is right.
    """
    source = check_source(data.get("source"))
    fields = dict(data)
    edge_id = fields.get("edge_id")
    if edge_id is not None:
        if source != "nli":
            raise _invalid("edge_id samples are stance (nli) samples", "data.edge_id")
        found = _rows(
            con,
            # The model's answer (nli_label; a person's correction changes only relation)
            # and its own probability.
            "SELECT coalesce(nli_label, relation) AS relation, "
            "coalesce(nli_raw_confidence, nli_confidence) AS p FROM edges "
            "WHERE id = ? AND relation IN ('supports', 'refutes', 'neutral')",
            [edge_id],
        )
        if not found:
            raise _invalid(f"no stance edge {edge_id!r}", "data.edge_id")
        own = {"prediction": found[0]["p"], "predicted_label": found[0]["relation"]}
        for key, value in own.items():
            # The edge's own raw answer, never a calibrated number a caller copied.
            if fields.get(key) is not None and fields[key] != value:
                raise _invalid(
                    f"{key} {fields[key]!r} differs from the edge's own ({value!r}); leave it "
                    "out with edge_id",
                    f"data.{key}",
                )
            fields[key] = value
    prediction = fields.get("prediction")
    if isinstance(prediction, bool) or not isinstance(prediction, int | float):
        raise _invalid("prediction must be a probability in [0, 1]", "data.prediction")
    if not 0.0 <= float(prediction) <= 1.0:
        raise _invalid(f"prediction {prediction} is not a probability in [0, 1]", "data.prediction")
    predicted = fields.get("predicted_label")
    if predicted is not None and predicted not in _CLASSES[source]:
        raise _invalid(
            f"predicted_label {predicted!r} is not a {source} class "
            f"({', '.join(_CLASSES[source])})",
            "data.predicted_label",
        )
    outcome, predicted, actual = _outcome(source, fields)
    sample_id = uuid.uuid4().hex
    with transaction(con):
        if edge_id is not None:  # one judgement per edge: the latest replaces the earlier
            con.execute("DELETE FROM calibration_samples WHERE edge_id = ?", [edge_id])
        insert_rows(
            con,
            "calibration_samples",
            [
                {
                    "id": sample_id,
                    "source": source,
                    "predicted": float(prediction),
                    "label": str(outcome),
                    "created_at": utcnow(),
                    "predicted_label": predicted,
                    "actual_label": actual,
                    "edge_id": edge_id,
                    "context": fields.get("context"),
                }
            ],
        )
        pending = pending_count(con, source)
        refit = None
        if pending >= refit_every:
            refit = _refit(con, source, reason="samples")
    return {
        "sample_id": sample_id,
        "source": source,
        "pending_count": 0 if refit and refit.get("version") else pending,
        "sample_count": sample_count(con, source),
        "refit": refit,
    }


def samples(con: duckdb.DuckDBPyConnection, source: str) -> tuple[list[float], list[int]]:
    rows = con.execute(
        "SELECT predicted, label FROM calibration_samples WHERE source = ? ORDER BY created_at, id",
        [source],
    ).fetchall()
    return [float(r[0]) for r in rows], [int(r[1]) for r in rows]


def sample_count(con: duckdb.DuckDBPyConnection, source: str) -> int:
    row = con.execute(
        "SELECT count(*) FROM calibration_samples WHERE source = ?", [source]
    ).fetchone()
    return int(row[0]) if row else 0


def pending_count(con: duckdb.DuckDBPyConnection, source: str) -> int:
    """Samples that arrived since the newest version was fitted."""
    rows = versions(con, source)
    used = 0
    if rows:
        params = rows[-1]["params"]
        data = json.loads(params) if isinstance(params, str) else params
        used = int(data.get("samples", 0))
    return max(0, sample_count(con, source) - used)


def _refit(con: duckdb.DuckDBPyConnection, source: str, reason: str) -> dict[str, Any]:
    """Fit a new version on every sample of ``source`` and make it active.

    Refused fits (too few samples, or all right / all wrong) keep the active version and
    say why, under ``refused``.
    """
    p, y = samples(con, source)
    try:
        report = cal.choose(p, y)
    except cal.CalibrationRefused as exc:
        return {"version": None, "refused": str(exc)}
    previous, _ = active(con, source)
    row = con.execute(
        "SELECT coalesce(max(version), 0) FROM calibration_params WHERE source = ?", [source]
    ).fetchone()
    version = int(row[0] if row else 0) + 1
    params = {
        "calibration": report.calibration.to_json(),
        "samples": report.samples,
        "brier_before": report.brier_before,
        "ece_before": report.ece_before,
        "held_out_brier": report.held_out_brier,
    }
    insert_rows(
        con,
        "calibration_params",
        [
            {
                "source": source,
                "version": version,
                "method": report.calibration.method,
                "params": params,
                "brier": report.brier_after,
                "ece": report.ece_after,
                "created_at": utcnow(),
                "active": False,
            }
        ],
    )
    _set_active(con, source, version)
    out = {
        "version": version,
        "previous_version": previous,
        "method": report.calibration.method,
        "params": report.calibration.params,
        "samples": report.samples,
        "brier_before": report.brier_before,
        "brier_after": report.brier_after,
        "ece_before": report.ece_before,
        "ece_after": report.ece_after,
        "held_out_brier": report.held_out_brier,
    }
    log_event(con, "calibration_fitted", actor="graph", payload={"source": source, **out})
    return out


# ------------------------------------------------------------------------- evaluations


def _outcomes(labels: Sequence[Any]) -> list[int]:
    out = []
    for value in labels:
        if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
            out.append(int(value))
        else:
            raise _invalid(
                f"label {value!r}: each label is true / false or 1 / 0 (was the prediction right)",
                "data.labels",
            )
    return out


def evaluate(
    con: duckdb.DuckDBPyConnection, data: dict[str, Any], auto_rollback: bool
) -> dict[str, Any]:
    """Brier and ECE of raw and calibrated probabilities on a batch; one stored row.

    ``data``: {source, predictions?, labels?}: raw model probabilities and whether each
    prediction was right. Without them the source's stored samples are evaluated.
    Degradation: the active version's Brier on the batch 5 % or more worse than the
    version before it (version 0: the raw probabilities) on the same batch. With
    ``auto_rollback`` a degraded evaluation rolls back to that version, and says so.
    """
    source = check_source(data.get("source"))
    preds, labels = data.get("predictions"), data.get("labels")
    if (preds is None) != (labels is None):
        raise _invalid("give both predictions and labels, or neither", "data.predictions")
    if preds is None:
        p, y = samples(con, source)
    else:
        if not isinstance(preds, list) or not isinstance(labels, list):
            raise _invalid("predictions and labels must be lists", "data.predictions")
        if len(preds) != len(labels):
            raise _invalid(f"{len(preds)} predictions but {len(labels)} labels", "data.predictions")
        if len(preds) > MAX_EVALUATION_SAMPLES:
            raise _invalid(
                f"at most {MAX_EVALUATION_SAMPLES} predictions per evaluation", "data.predictions"
            )
        if any(isinstance(v, bool) or not isinstance(v, int | float) for v in preds):
            raise _invalid("each prediction must be a number in [0, 1]", "data.predictions")
        p, y = [float(v) for v in preds], _outcomes(labels)
    try:
        probs, outcome = cal.check_samples(p, y)
    except ValueError as exc:
        raise _invalid(str(exc), "data.predictions") from None
    if len(probs) < cal.MIN_SAMPLES:
        raise _error(
            f"an evaluation needs at least {cal.MIN_SAMPLES} samples; {len(probs)} "
            + ("given" if preds is not None else f"stored for {source}")
        )
    version, mapping = active(con, source)
    calibrated = mapping.apply(probs) if version else probs
    raw_brier = round(cal.brier(probs, outcome), 6)
    cal_brier = round(cal.brier(calibrated, outcome), 6) if version else None
    # Degradation (issue 14): this version against the one before it on the same batch
    # (the raw probabilities when version 1 is active); none while no version is active.
    previous_version: int | None = None
    previous_brier: float | None = None
    if version:
        older = [int(r["version"]) for r in versions(con, source) if int(r["version"]) < version]
        previous_version = older[-1] if older else 0
        earlier = _version_map(con, source, previous_version)
        previous_brier = round(cal.brier(earlier.apply(probs), outcome), 6)
    degraded = cal_brier is not None and cal.degraded(previous_brier, cal_brier)
    evaluation_id = "eval_" + uuid.uuid4().hex[:16]
    row = {
        "id": evaluation_id,
        "source": source,
        "brier_score": raw_brier,
        "brier_score_calibrated": cal_brier,
        "improvement_ratio": (
            round((raw_brier - cal_brier) / raw_brier, 6)
            if cal_brier is not None and raw_brier
            else None
        ),
        "expected_calibration_error": round(cal.ece(calibrated, outcome), 6),
        "samples_evaluated": len(probs),
        "bins_json": cal.diagram_bins(calibrated, outcome),
        "calibration_version": version,
        "degradation_detected": degraded,
        "evaluated_at": utcnow(),
    }
    rolled_back = None
    with transaction(con):
        insert_rows(con, "calibration_evaluations", [row])
        log_event(
            con,
            "calibration_evaluated",
            actor="graph",
            cause_id=evaluation_id,
            payload={k: v for k, v in row.items() if k not in ("bins_json", "evaluated_at")},
        )
        if degraded and auto_rollback and previous_version is not None:
            rolled_back = rollback(
                con,
                source,
                previous_version,
                f"automatic: on evaluation {evaluation_id} version {version} scores Brier "
                f"{cal_brier}, 5 % or more worse than version {previous_version}'s "
                f"{previous_brier} on the same samples",
            )
    return {
        **_evaluation_out(row),
        "previous_version": previous_version,
        "previous_version_brier": previous_brier,
        "auto_rolled_back": rolled_back,
    }


def _version_map(con: duckdb.DuckDBPyConnection, source: str, version: int) -> cal.Calibration:
    """The map of one stored version (0: the identity)."""
    if version == 0:
        return cal.IDENTITY
    rows = _rows(
        con,
        "SELECT params FROM calibration_params WHERE source = ? AND version = ?",
        [source, version],
    )
    params = rows[0]["params"]
    data = json.loads(params) if isinstance(params, str) else params
    return cal.Calibration.from_json(data["calibration"])


def _evaluation_out(row: Row) -> dict[str, Any]:
    bins = row["bins_json"]
    return {
        "evaluation_id": row["id"],
        "source": row["source"],
        "brier_score": row["brier_score"],
        "brier_score_calibrated": row["brier_score_calibrated"],
        "improvement_ratio": row["improvement_ratio"],
        "expected_calibration_error": row["expected_calibration_error"],
        "samples_evaluated": row["samples_evaluated"],
        "calibration_version": row["calibration_version"],
        "degradation_detected": bool(row["degradation_detected"]),
        "evaluated_at": _iso(row["evaluated_at"]),
        "n_bins": len(json.loads(bins) if isinstance(bins, str) else bins),
    }


def evaluations(con: duckdb.DuckDBPyConnection, data: dict[str, Any]) -> dict[str, Any]:
    """Past evaluations, newest first: {source?, limit? (≤ 200, default 20), since?}."""
    where: list[str] = ["true"]
    params: list[Any] = []
    if data.get("source") is not None:
        where.append("source = ?")
        params.append(check_source(data["source"]))
    since = data.get("since")
    if since is not None:
        try:
            when = dt.datetime.fromisoformat(str(since).replace("Z", "+00:00"))
        except ValueError:
            raise _invalid(f"since {since!r} is not an ISO 8601 time", "data.since") from None
        if when.tzinfo is not None:
            when = when.astimezone(dt.UTC).replace(tzinfo=None)
        where.append("evaluated_at >= ?")
        params.append(when)
    limit = data.get("limit", 20)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 200:
        raise _invalid("limit must be an integer from 1 to 200", "data.limit")
    clause = " AND ".join(where)
    total = con.execute(
        f"SELECT count(*) FROM calibration_evaluations WHERE {clause}", params
    ).fetchone()
    rows = _rows(
        con,
        f"SELECT * FROM calibration_evaluations WHERE {clause} "
        "ORDER BY evaluated_at DESC, created_at DESC LIMIT ?",
        [*params, limit],
    )
    return {
        "evaluations": [_evaluation_out(r) for r in rows],
        "total_count": int(total[0]) if total else 0,
    }


def diagram(con: duckdb.DuckDBPyConnection, data: dict[str, Any]) -> dict[str, Any]:
    """Reliability bins of an evaluation (default: the source's latest), or, with no
    evaluation yet, of the stored samples under the active version."""
    source = check_source(data.get("source"))
    wanted = data.get("evaluation_id")
    if wanted is not None:
        rows = _rows(
            con,
            "SELECT * FROM calibration_evaluations WHERE id = ? AND source = ?",
            [wanted, source],
        )
        if not rows:
            raise _error(f"no evaluation {wanted!r} of source {source!r}")
    else:
        rows = _rows(
            con,
            "SELECT * FROM calibration_evaluations WHERE source = ? "
            "ORDER BY evaluated_at DESC, created_at DESC LIMIT 1",
            [source],
        )
    if rows:
        row = rows[0]
        bins = row["bins_json"]
        return {
            "source": source,
            "evaluation_id": row["id"],
            "calibration_version": row["calibration_version"],
            "n_bins": cal.ECE_BINS,
            "bins": json.loads(bins) if isinstance(bins, str) else bins,
            "overall_ece": row["expected_calibration_error"],
            "samples": row["samples_evaluated"],
        }
    p, y = samples(con, source)
    if not p:
        raise _error(f"no evaluation and no samples for source {source!r} yet")
    version, mapping = active(con, source)
    probs = mapping.apply(p) if version else p
    return {
        "source": source,
        "evaluation_id": None,
        "calibration_version": version,
        "n_bins": cal.ECE_BINS,
        "bins": cal.diagram_bins(probs, y),
        "overall_ece": round(cal.ece(probs, y), 6),
        "samples": len(p),
    }


def stats(con: duckdb.DuckDBPyConnection, data: dict[str, Any]) -> dict[str, Any]:
    """{source} (default nli): its version, method, figures, samples and degradation."""
    source = check_source(data.get("source", "nli"))
    version, mapping = active(con, source)
    rows = versions(con, source)
    current = next((r for r in rows if r["version"] == version), None)
    last = _rows(
        con,
        "SELECT degradation_detected FROM calibration_evaluations WHERE source = ? "
        "ORDER BY evaluated_at DESC, created_at DESC LIMIT 1",
        [source],
    )
    p, y = samples(con, source)
    probs = mapping.apply(p) if version and p else p
    return {
        "source": source,
        "current_version": version,
        "method": mapping.method,
        "params": mapping.params,
        "brier_score": round(cal.brier(probs, y), 6) if p else None,
        "brier_score_raw": round(cal.brier(p, y), 6) if p else None,
        "ece": round(cal.ece(probs, y), 6) if p else None,
        "sample_count": len(p),
        "pending_count": pending_count(con, source),
        "degradation_detected": bool(last and last[0]["degradation_detected"]),
        "versions": [
            {
                "version": int(r["version"]),
                "method": r["method"],
                "brier": r["brier"],
                "ece": r["ece"],
                "active": bool(r["active"]),
                "created_at": _iso(r["created_at"]),
            }
            for r in rows
        ],
        "fitted_brier": current["brier"] if current else None,
    }


# ------------------------------------------------------------------------- rollback


def rollback(
    con: duckdb.DuckDBPyConnection,
    source: str,
    version: int | None,
    reason: str | None,
) -> dict[str, Any]:
    """Make ``version`` (default: the one before the active one) the active version.

    Version 0 means no calibration (the raw probabilities). CALIBRATION_ERROR for an
    unknown source, a version that never existed, or nothing to roll back from.
    """
    source = check_source(source)
    current, _ = active(con, source)
    known = [int(r["version"]) for r in versions(con, source)]
    if version is None:
        if current == 0:
            raise _error(f"{source} has no active calibration version to roll back from")
        older = [v for v in known if v < current]
        target = older[-1] if older else 0
    else:
        if isinstance(version, bool) or not isinstance(version, int):
            raise _error(f"version must be an integer, got {version!r}")
        if version != 0 and version not in known:
            listed = ", ".join(map(str, known)) or "none"
            raise _error(
                f"{source} has no calibration version {version} (versions: {listed}; 0 = raw)"
            )
        if version == current:
            raise _error(f"{source} version {version} is already the active one")
        target = version
    with transaction(con):
        _set_active(con, source, target)
        log_event(
            con,
            "calibration_rollback",
            actor="graph",
            payload={
                "source": source,
                "rolled_back_to": target,
                "previous_version": current,
                "reason": reason,
            },
        )
    return {
        "source": source,
        "rolled_back_to": target,
        "previous_version": current,
        "reason": reason,
    }
