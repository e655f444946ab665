"""Lyra's packaged stance model (v2, the offline default): what ships, how it reads, and
bad input (issue 12).

The figures of record come from ``bench/stance.py`` on third-party pairs; these tests
hold what a user's install relies on: the folder is complete and small, labels, heads
and temperatures are read from it, plain medical statements get the stance a reader
would give (with and without the embedder), loosely related sentences are not called
contradictions, and hostile input (empty, 1 MB, binary, another language) gets an
answer, not a crash.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from lyra.pipelines.evidence.embedding import OnnxEmbedder, load_default_embedder
from lyra.pipelines.evidence.nli import FEATURES_OUTPUT, CrossEncoderNli, NliModelError, softmax
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.stance_model import (
    HEAD_FILENAME,
    STANCE_MODEL_ID,
    VETO_FLOOR,
    VETO_KEY,
    PackagedStance,
    VetoCalibration,
    fit_veto,
    load_heads,
    load_packaged_stance,
    load_veto_calibration,
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
# examples/corpus: the same subject, not the same question (v1 called this "refutes").
RELATED = (
    "Blood pressure is among the strongest modifiable risk factors for stroke and coronary "
    "disease, so any common dietary habit that shifts it deserves attention.",
    "A common belief holds that coffee dries the body out.",
)


@pytest.fixture(scope="module")
def model() -> CrossEncoderNli:
    return CrossEncoderNli(packaged_stance_dir(), backend="onnx", model_id=STANCE_MODEL_ID)


@pytest.fixture(scope="module")
def embedder(lyra_home: Path) -> OnnxEmbedder:
    return load_default_embedder(lyra_home)


@pytest.fixture(scope="module")
def stance(embedder: OnnxEmbedder) -> PackagedStance:
    return load_packaged_stance(embed=embedder.embed)


@pytest.fixture(scope="module")
def cross_only() -> PackagedStance:
    return load_packaged_stance()


def test_the_packaged_folder_is_complete_and_small() -> None:
    folder = packaged_stance_dir()
    names = sorted(p.name for p in folder.iterdir())
    assert names == [
        "TRAINING.json",
        "config.json",
        "model.onnx",
        "stance_head.npz",
        "tokenizer.json",
    ]
    assert sum(p.stat().st_size for p in folder.iterdir()) <= 30 * 1024 * 1024
    training = json.loads((folder / "TRAINING.json").read_text())
    assert (training["seed"], training["model_id"]) == (13, STANCE_MODEL_ID)
    assert training["head"]["unrelated_per_claim"] == 2


def test_labels_heads_and_temperatures_come_from_the_folder(model: CrossEncoderNli) -> None:
    folder = packaged_stance_dir()
    training = json.loads((folder / "TRAINING.json").read_text())
    heads = load_heads(folder / HEAD_FILENAME)
    assert model.labels == ["supports", "refutes", "neutral"]
    assert model.backend == "onnx"
    assert model.model_id == STANCE_MODEL_ID
    # 6 x 384 encoder means and products + 3 NLI logits; + 4 x 384 embedder features.
    assert heads["cross"].head.weight.shape == (3, 2307)
    assert heads["full"].head.weight.shape == (3, 2307 + 1536)
    for name in ("full", "cross"):
        fitted = training["head"][name]["out_of_fold"]["topic_ip"]["temperature"]
        assert heads[name].temperature == pytest.approx(fitted, rel=1e-6)


def test_probabilities_are_the_tempered_softmax_of_the_head(stance: PackagedStance) -> None:
    (result,) = stance.judge([SUPPORTS])
    head = load_heads(packaged_stance_dir() / HEAD_FILENAME)["full"]
    expected = softmax(head.head.logits(stance.features([SUPPORTS])) / head.temperature)[0]
    assert [result.probs[label] for label in ("supports", "refutes", "neutral")] == (
        pytest.approx(expected.tolist())
    )
    assert result.confidence == pytest.approx(float(expected.max()))


@pytest.mark.parametrize(
    ("pair", "label"),
    [
        (SUPPORTS, "supports"),
        (REFUTES, "refutes"),
        (NUMBER, "refutes"),
        (NEUTRAL, "neutral"),
        (RELATED, "neutral"),
    ],
    ids=["supports", "negation", "number", "unrelated", "related-subject"],
)
def test_plain_statements_get_the_stance_a_reader_gives(
    stance: PackagedStance, pair: tuple[str, str], label: str
) -> None:
    (result,) = stance.judge([pair])
    assert result.label == label


def test_vetoed_pairs_get_the_rules_calibrated_probability(stance: PackagedStance) -> None:
    """Where the lexical rules overrule the head, the pair is "refutes" with the rules'
    confidence Platt-scaled on HealthVer dev (decisions 0043 and 0079: they are right
    on 26 of the 49 pairs they fire on), not with the confidence of their word overlap."""
    training = json.loads((packaged_stance_dir() / "TRAINING.json").read_text())
    fitted = training["head"]["veto"]
    assert (fitted["fired"], fitted["right"]) == (49, 26)
    veto = load_veto_calibration(packaged_stance_dir() / HEAD_FILENAME)
    assert (veto.a, veto.b) == (fitted["a"], fitted["b"])
    for pair in (NUMBER, REFUTES):
        rule = heuristic_nli(*pair)
        (result,) = stance.judge([pair])
        p = veto.probability(rule.confidence)
        assert (result.label, result.confidence) == ("refutes", p)
        assert result.probs == {"supports": (1 - p) / 2, "refutes": p, "neutral": (1 - p) / 2}
        assert result.evidence_sentence == rule.evidence_sentence
        assert VETO_FLOOR < p < rule.confidence
    (supported,) = stance.judge([SUPPORTS])
    assert supported.evidence_sentence is None  # the model's own judgement
    # More word overlap never lowers it.
    assert veto.probability(0.75) < veto.probability(0.8) < veto.probability(0.9)


def test_the_veto_calibration_follows_what_the_rules_get_right() -> None:
    pairs = [NUMBER, REFUTES] * 10 + [SUPPORTS, NEUTRAL]
    always = fit_veto(pairs, ["refutes"] * 22)
    never = fit_veto(pairs, ["neutral"] * 22)
    untouched = fit_veto([SUPPORTS, NEUTRAL], ["refutes", "refutes"])
    assert (always[1:], never[1:], untouched[1:]) == ((20, 20), (20, 0), (0, 0))
    # With nothing to learn from, the rules' own confidence (a = 0, b = 1).
    assert untouched[0] == VetoCalibration(0.0, 1.0)
    assert untouched[0].probability(0.9) == pytest.approx(0.9)
    # Always right: above the rules' own 0.8; never right: the floor.
    assert always[0].probability(0.8) == pytest.approx(0.9374, abs=1e-4)
    assert never[0].probability(0.9) == VETO_FLOOR


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, "lacks 'veto_platt'"),
        ([0.0, -1.0], r"veto_platt must be two finite numbers \(a, b ≥ 0\)"),
        ([np.nan, 1.0], r"veto_platt must be two finite numbers"),
        ([0.5], r"veto_platt must be two finite numbers"),
    ],
    ids=["missing", "decreasing", "not-a-number", "one-number"],
)
def test_a_head_file_with_a_bad_veto_calibration_is_refused(
    tmp_path: Path, value: list[float] | None, message: str
) -> None:
    with np.load(packaged_stance_dir() / HEAD_FILENAME) as data:
        arrays = {k: data[k] for k in data.files if k != VETO_KEY}
    if value is not None:
        arrays[VETO_KEY] = np.array(value)
    np.savez(tmp_path / HEAD_FILENAME, **arrays)
    with pytest.raises(NliModelError, match=message):
        load_veto_calibration(tmp_path / HEAD_FILENAME)


@pytest.mark.parametrize(
    ("pair", "label"),
    [(SUPPORTS, "supports"), (REFUTES, "refutes"), (NUMBER, "refutes"), (NEUTRAL, "neutral")],
    ids=["supports", "negation", "number", "unrelated"],
)
def test_without_the_embedder_the_cross_encoder_head_judges(
    cross_only: PackagedStance, pair: tuple[str, str], label: str
) -> None:
    assert cross_only.uses_embedder is False
    (result,) = cross_only.judge([pair])
    assert result.label == label


def test_each_text_is_embedded_once(embedder: OnnxEmbedder) -> None:
    seen: list[str] = []

    def counting(texts: list[str]) -> np.ndarray:
        seen.extend(texts)
        return embedder.embed(texts)

    stance = load_packaged_stance(embed=counting)
    stance.judge([SUPPORTS, REFUTES, NEUTRAL])
    stance.judge([SUPPORTS, NUMBER])
    # the pairs the lexical rules refute (REFUTES's premise, NUMBER) reach no encoder
    assert sorted(seen) == sorted({*SUPPORTS, *NEUTRAL})
    assert stance.judge([]) == []


def test_pairs_the_rules_refute_skip_the_encoders(embedder: OnnxEmbedder) -> None:
    """A pair the lexical rules call "refutes" takes their verdict, so the cross-encoder
    never reads it; every other pair is judged as if it had been (decision 0111)."""
    stance = load_packaged_stance(embed=embedder.embed)
    read: list[tuple[str, str]] = []
    output = stance.model.output

    def counting(name: str, pairs: list[tuple[str, str]]) -> np.ndarray:
        read.extend(pairs)
        return output(name, pairs)

    stance.model.output = counting  # type: ignore[method-assign]
    mixed = stance.judge([REFUTES, SUPPORTS, NUMBER, NEUTRAL])
    assert read == [SUPPORTS, NEUTRAL]
    assert [r.label for r in mixed] == ["refutes", "supports", "refutes", "neutral"]
    alone = [load_packaged_stance(embed=embedder.embed).judge([p])[0] for p in (SUPPORTS, NEUTRAL)]
    for got, want in zip([mixed[1], mixed[3]], alone, strict=True):
        assert got.probs == pytest.approx(want.probs, abs=1e-6)
    rule = heuristic_nli(*REFUTES)
    assert mixed[0].confidence == pytest.approx(stance._veto.probability(rule.confidence))
    assert mixed[0].evidence_sentence == rule.evidence_sentence
    assert stance.judge([REFUTES, NUMBER]) == [mixed[0], mixed[2]]
    assert read == [SUPPORTS, NEUTRAL]


def test_vectors_made_elsewhere_are_not_embedded_again(embedder: OnnxEmbedder) -> None:
    """What the InferenceActor hands over (``remember``) is read, not recomputed, and
    judges exactly as vectors the stance model made itself."""
    seen: list[str] = []

    def counting(texts: list[str]) -> np.ndarray:
        seen.extend(texts)
        return embedder.embed(texts)

    texts = [*SUPPORTS, *REFUTES]
    warm = load_packaged_stance(embed=counting)
    warm.remember(texts, embedder.embed(texts))
    judged = warm.judge([SUPPORTS, REFUTES, NEUTRAL])
    assert sorted(seen) == sorted(set(NEUTRAL) - set(texts))
    cold = load_packaged_stance(embed=embedder.embed).judge([SUPPORTS, REFUTES, NEUTRAL])
    assert [r.label for r in judged] == [r.label for r in cold]
    for a, b in zip(judged, cold, strict=True):
        assert a.probs == pytest.approx(b.probs, abs=1e-6)
    cross_only = load_packaged_stance(embed=None)
    cross_only.remember(texts, embedder.embed(texts))  # nothing to keep: no embedder
    assert cross_only.uses_embedder is False


def test_results_keep_input_order_across_length_sorted_batches(model: CrossEncoderNli) -> None:
    pairs = [NEUTRAL, SUPPORTS, REFUTES, NUMBER] * 9  # 36 pairs: three batches of 16
    one_by_one = [model.judge([p])[0] for p in pairs[:4]]
    batched = model.judge(pairs)
    assert [r.label for r in batched] == [r.label for r in one_by_one] * 9
    for a, b in zip(batched[:4], one_by_one, strict=True):
        assert a.probs == pytest.approx(b.probs, abs=1e-5)


def test_a_pair_is_judged_the_same_whatever_its_batch_mates(stance: PackagedStance) -> None:
    """int8 activations are quantised per row (decision 0039): a pair's judgment is a
    function of the pair, not of the batch, its padding or its position in it. Under
    the per-tensor quantisation before, these four moved by up to 0.08."""
    texts = " ".join(w for pair in (SUPPORTS, REFUTES, NUMBER, NEUTRAL, RELATED) for w in pair)
    long_premise = (texts + " ") * 3  # pads every batch it is in to the length limit
    mates = [(long_premise, SUPPORTS[1]), RELATED, (NUMBER[1], NUMBER[0])] * 6
    alone = [stance.judge([pair])[0] for pair in (SUPPORTS, REFUTES, NUMBER, NEUTRAL)]
    crowd = stance.judge([*mates[:7], SUPPORTS, REFUTES, *mates[7:], NUMBER, NEUTRAL])
    in_crowd = [crowd[7], crowd[8], crowd[-2], crowd[-1]]
    # The same pairs last, after the batch-mates in the opposite order.
    at_the_end = stance.judge([NEUTRAL, NUMBER, REFUTES, SUPPORTS, *mates][::-1])[-4:]
    for a, b, c in zip(alone, in_crowd, at_the_end, strict=True):
        assert (a.label, b.label, c.label) == (a.label, a.label, a.label)
        assert b.probs == pytest.approx(a.probs, abs=1e-5)
        assert c.probs == pytest.approx(a.probs, abs=1e-5)


def test_features_feed_the_head_and_the_bench(model: CrossEncoderNli) -> None:
    vectors = model.output(FEATURES_OUTPUT, [SUPPORTS, REFUTES, NEUTRAL])
    assert vectors.shape == (3, 2307)
    assert np.isfinite(vectors).all()
    with pytest.raises(NliModelError, match="has no 'pooled' output"):
        model.pooled([SUPPORTS])


@pytest.mark.parametrize(
    "premise",
    ["", "word " * 200_000, "\x00\xff\ufffd" * 1000, "".join(chr(i) for i in range(32, 2000))],
    ids=["empty", "one-megabyte", "binary", "every-codepoint"],
)
def test_hostile_premises_get_an_answer(stance: PackagedStance, premise: str) -> None:
    (result,) = stance.judge([(premise, "The drug lowers blood pressure.")])
    assert result.label in {"supports", "refutes", "neutral"}
    assert sum(result.probs.values()) == pytest.approx(1.0)


def test_a_claim_in_another_language_gets_an_answer(stance: PackagedStance) -> None:
    (result,) = stance.judge([(SUPPORTS[0], "この薬は血圧を下げる。")])
    assert sum(result.probs.values()) == pytest.approx(1.0)
    assert 0.0 < result.confidence <= 1.0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"full_temperature": np.array(-1.0)}, "full head has temperature -1.0"),
        ({"cross_weight": np.zeros((2, 2307))}, r"cross head has shape \(2, 2307\)"),
        ({"drop": "full_bias"}, "lacks 'full_bias is not a file in the archive'"),
    ],
    ids=["negative-temperature", "two-classes", "missing-array"],
)
def test_a_broken_head_file_is_refused(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    with np.load(packaged_stance_dir() / HEAD_FILENAME) as data:
        arrays = {k: data[k] for k in data.files}
    if "drop" in change:
        del arrays[str(change["drop"])]
    else:
        arrays.update({k: np.asarray(v) for k, v in change.items()})
    np.savez(tmp_path / HEAD_FILENAME, **arrays)
    with pytest.raises(NliModelError, match=message):
        load_heads(tmp_path / HEAD_FILENAME)


def test_a_folder_without_its_head_is_refused(tmp_path: Path) -> None:
    with pytest.raises(NliModelError, match=r"has no stance_head\.npz"):
        load_heads(tmp_path / HEAD_FILENAME)


def test_a_folder_without_its_tokenizer_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    shutil.copytree(packaged_stance_dir(), folder)
    (folder / "tokenizer.json").unlink()
    with pytest.raises(NliModelError, match=r"has model\.onnx but no tokenizer\.json"):
        CrossEncoderNli(folder)


def test_what_a_page_says_of_another_named_drug_is_no_support(stance: PackagedStance) -> None:
    """Decision 0098: pages each stating a drug's half-life in the same words were read
    as supporting each other's claims (nine "independent sources" for one half-life)."""
    pair = (
        "Felodipine is cleared by the kidneys with a half-life of 9 hours.",
        "Efonidipine is cleared by the kidneys with a half-life of 9 hours.",
    )
    (result,) = stance.judge([pair])
    assert result.label == "neutral"
    assert sum(result.probs.values()) == pytest.approx(1.0)
    (same,) = stance.judge([(pair[1], pair[1])])
    assert same.label == "supports"
