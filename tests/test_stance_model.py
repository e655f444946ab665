"""Lyra's packaged stance model: what ships, how it reads, and bad input (issue 12).

The figures of record come from ``bench/stance.py`` on third-party pairs; these tests
hold what a user's install relies on: the folder is complete and small, labels and
temperature are read from it, plain medical statements get the stance a reader would
give, and hostile input (empty, 1 MB, binary, another language) gets an answer, not a
crash.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from lyra.pipelines.evidence.nli import CrossEncoderNli, NliModelError, softmax
from lyra.pipelines.evidence.stance_model import (
    STANCE_MODEL_ID,
    PackagedStance,
    load_packaged_stance,
    packaged_stance_dir,
)

SUPPORTS = (
    "In the randomised trial of 1,200 adults, the drug lowered systolic blood pressure by "
    "8 mmHg compared with placebo.",
    "The drug lowers blood pressure.",
)
REFUTES = (
    "In the randomised trial of 1,200 adults, the drug did not lower blood pressure; "
    "readings were the same as with placebo.",
    "The drug lowers blood pressure.",
)
NUMBER = (
    "The half-life of caffeine in healthy adults is about 5 hours.",
    "The half-life of caffeine in healthy adults is about 12 hours.",
)
NEUTRAL = (
    "The hospital opened a new car park with 400 spaces in March.",
    "The drug lowers blood pressure.",
)


@pytest.fixture(scope="module")
def model() -> CrossEncoderNli:
    return CrossEncoderNli(packaged_stance_dir(), backend="onnx", model_id=STANCE_MODEL_ID)


@pytest.fixture(scope="module")
def stance() -> PackagedStance:
    return load_packaged_stance()


def test_the_packaged_folder_is_complete_and_small() -> None:
    folder = packaged_stance_dir()
    names = sorted(p.name for p in folder.iterdir())
    assert names == [
        "TRAINING.json",
        "calibration.json",
        "config.json",
        "model.onnx",
        "tokenizer.json",
    ]
    assert sum(p.stat().st_size for p in folder.iterdir()) <= 30 * 1024 * 1024
    training = json.loads((folder / "TRAINING.json").read_text())
    assert training["seed"] == 13


def test_labels_and_temperature_come_from_the_folder(model: CrossEncoderNli) -> None:
    calibration = json.loads((packaged_stance_dir() / "calibration.json").read_text())
    assert model.labels == ["supports", "refutes", "neutral"]
    assert model.temperature == calibration["temperature"]
    assert model.backend == "onnx"
    assert model.degraded is False
    assert model.model_id == STANCE_MODEL_ID


def test_probabilities_are_the_tempered_softmax(model: CrossEncoderNli) -> None:
    (result,) = model.judge([SUPPORTS])
    logits = model._impl.logits([SUPPORTS])  # the raw scores behind the judgement
    expected = softmax(logits / model.temperature)[0]
    assert [result.probs[label] for label in model.labels] == pytest.approx(expected.tolist())
    assert result.confidence == pytest.approx(float(expected.max()))


@pytest.mark.parametrize(
    ("pair", "label"),
    [(SUPPORTS, "supports"), (REFUTES, "refutes"), (NUMBER, "refutes"), (NEUTRAL, "neutral")],
    ids=["supports", "negation", "number", "unrelated"],
)
def test_plain_statements_get_the_stance_a_reader_gives(
    stance: PackagedStance, pair: tuple[str, str], label: str
) -> None:
    (result,) = stance.judge([pair])
    assert result.label == label


def test_results_keep_input_order_across_length_sorted_batches(model: CrossEncoderNli) -> None:
    pairs = [NEUTRAL, SUPPORTS, REFUTES, NUMBER] * 9  # 36 pairs: three batches of 16
    one_by_one = [model.judge([p])[0] for p in pairs[:4]]
    batched = model.judge(pairs)
    assert [r.label for r in batched] == [r.label for r in one_by_one] * 9
    # int8 activations are quantised per batch, so padding moves the scores a little.
    for a, b in zip(batched[:4], one_by_one, strict=True):
        assert a.confidence == pytest.approx(b.confidence, abs=0.06)


def test_pooled_vectors_feed_the_bench(model: CrossEncoderNli) -> None:
    vectors = model.pooled([SUPPORTS, REFUTES, NEUTRAL])
    assert vectors.shape == (3, 384)
    assert np.isfinite(vectors).all()


@pytest.mark.parametrize(
    "premise",
    ["", "word " * 200_000, "\x00\xff\ufffd" * 1000, "".join(chr(i) for i in range(32, 2000))],
    ids=["empty", "one-megabyte", "binary", "every-codepoint"],
)
def test_hostile_premises_get_an_answer(model: CrossEncoderNli, premise: str) -> None:
    (result,) = model.judge([(premise, "The drug lowers blood pressure.")])
    assert result.label in {"supports", "refutes", "neutral"}
    assert sum(result.probs.values()) == pytest.approx(1.0)


def test_a_claim_in_another_language_gets_an_answer(model: CrossEncoderNli) -> None:
    (result,) = model.judge([(SUPPORTS[0], "この薬は血圧を下げる。")])
    assert sum(result.probs.values()) == pytest.approx(1.0)
    assert 0.0 < result.confidence <= 1.0


def test_a_bad_temperature_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    shutil.copytree(packaged_stance_dir(), folder)
    (folder / "calibration.json").write_text(json.dumps({"temperature": -1}))
    with pytest.raises(NliModelError, match="positive number under 'temperature'"):
        CrossEncoderNli(folder)


def test_a_folder_without_its_tokenizer_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    shutil.copytree(packaged_stance_dir(), folder)
    (folder / "tokenizer.json").unlink()
    with pytest.raises(NliModelError, match=r"has model\.onnx but no tokenizer\.json"):
        CrossEncoderNli(folder)
