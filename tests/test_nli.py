"""Stance judging: the cross-encoder loader (ONNX and transformers paths) and the
heuristic fallback of ARCHITECTURE §7.

The cross-encoder tests build a tiny random BERT classifier here (tokenizer trained with
the `tokenizers` library, no hub download, ENVIRONMENT.md) and export it to ONNX, so the
real loading code runs on a real, if meaningless, model.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from onnxruntime.capi import onnxruntime_pybind11_state as ort_state
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

from lyra.pipelines.evidence.cpu_batches import cpu_workers
from lyra.pipelines.evidence.nli import (
    FEATURES_OUTPUT,
    CrossEncoderNli,
    NliModelError,
    NliResult,
    label_order,
    results_from_logits,
)
from lyra.pipelines.evidence.nli_bounds import quantities
from lyra.pipelines.evidence.nli_heuristic import HeuristicNli, antonym_signs, heuristic_nli
from lyra.pipelines.evidence.nli_numbers import stem
from lyra.pipelines.evidence.nli_tokens import content_keys, tokenize
from lyra.pipelines.evidence.onnx_export import export_classifier_onnx, read_manifest
from lyra.pipelines.evidence.stance_model import PackagedStance, VetoCalibration

CORPUS = [
    "Aspirin reduces the risk of heart attack in adults.",
    "Coffee does not improve long term memory.",
    "The drug has a half-life of about five hours.",
    "Regular exercise lowers blood pressure.",
    "Vitamin D has no significant effect on mortality.",
    "The vaccine was safe and effective in children.",
]
PAIRS = [
    ("Aspirin reduces the risk of heart attack in adults.", "Aspirin lowers heart attack risk."),
    ("Coffee does not improve long term memory.", "Coffee improves memory."),
    ("The drug has a half-life of about five hours.", "The half-life is five hours."),
    ("Regular exercise lowers blood pressure.", "The vaccine was safe in children."),
    ("Vitamin D has no significant effect on mortality.", "Vitamin D reduces mortality."),
]


def _build_tiny_classifier(folder: Path) -> None:
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok.train_from_iterator(
        CORPUS * 3, trainers.WordPieceTrainer(vocab_size=300, special_tokens=specials)
    )
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))],
    )
    labels = {0: "ENTAILMENT", 1: "Neutral", 2: "contradiction"}
    config = BertConfig(
        vocab_size=tok.get_vocab_size(),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        # Wide initial weights so the random logits differ from pair to pair.
        initializer_range=0.5,
        id2label=labels,
        label2id={v: k for k, v in labels.items()},
    )
    # The trained vocabulary's ids can differ between runs (the trainer's ordering of
    # equal counts), and with them the random model's answers: take the first seed whose
    # model does not give every pair the same label, so that the parity checks compare
    # more than one class.
    encoded = [tok.encode(p, h) for p, h in PAIRS]
    for seed in range(3, 60):
        torch.manual_seed(seed)
        model = BertForSequenceClassification(config).eval()
        with torch.no_grad():
            answers = {
                int(model(input_ids=torch.tensor([e.ids]),
                          token_type_ids=torch.tensor([e.type_ids])).logits.argmax())
                for e in encoded
            }  # fmt: skip
        if len(answers) >= 2:
            break
    model.save_pretrained(folder)
    # The transformers tokenizer class is untyped upstream.
    PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    ).save_pretrained(folder)


@pytest.fixture(scope="module")
def model_dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(folder with model.onnx, folder with PyTorch weights only) of the same model."""
    torch_dir = tmp_path_factory.mktemp("nli") / "tiny-nli"
    _build_tiny_classifier(torch_dir)
    onnx_dir = torch_dir.parent / "tiny-nli-onnx"
    shutil.copytree(torch_dir, onnx_dir)
    export_classifier_onnx(onnx_dir)
    return onnx_dir, torch_dir


def test_onnx_and_transformers_paths_agree(model_dirs: tuple[Path, Path]) -> None:
    """§7: both loading paths give the same stance for the same pairs."""
    onnx_dir, torch_dir = model_dirs
    via_onnx = CrossEncoderNli(onnx_dir, max_length=64, batch_size=2)
    via_torch = CrossEncoderNli(torch_dir, max_length=64, batch_size=2)

    a = via_onnx.judge(PAIRS)
    b = via_torch.judge(PAIRS)

    assert via_onnx.backend == "onnx"
    assert via_torch.backend == "transformers"
    assert [r.label for r in a] == [r.label for r in b]
    for left, right in zip(a, b, strict=True):
        assert sorted(left.probs) == ["neutral", "refutes", "supports"]
        np.testing.assert_allclose(
            [left.probs[k] for k in sorted(left.probs)],
            [right.probs[k] for k in sorted(right.probs)],
            atol=1e-5,
        )
    assert len({r.label for r in a}) >= 2, "the random model should not be constant"


def test_probabilities_sum_to_one_and_confidence_is_the_top(model_dirs: tuple[Path, Path]) -> None:
    """Confidence is the probability of the chosen label; the three sum to 1."""
    results = CrossEncoderNli(model_dirs[0]).judge(PAIRS)

    for result in results:
        assert sum(result.probs.values()) == pytest.approx(1.0, abs=1e-9)
        assert result.confidence == max(result.probs.values())
        assert result.probs[result.label] == result.confidence
        assert result.evidence_sentence is None


def test_pair_order_matters(model_dirs: tuple[Path, Path]) -> None:
    """Premise and hypothesis are separate segments, not one joined string."""
    nli = CrossEncoderNli(model_dirs[0])
    premise, hypothesis = PAIRS[1]

    forward = nli.judge([(premise, hypothesis)])[0]
    joined = nli.judge([(f"{premise} [SEP] {hypothesis}", "")])[0]

    assert forward.probs != joined.probs


def test_batching_keeps_input_order(model_dirs: tuple[Path, Path]) -> None:
    """Length-sorted batches must give each pair its own result."""
    nli = CrossEncoderNli(model_dirs[0], batch_size=2)

    together = nli.judge(PAIRS)
    alone = [nli.judge([pair])[0] for pair in PAIRS]

    for left, right in zip(together, alone, strict=True):
        assert left.label == right.label
        assert left.confidence == pytest.approx(right.confidence, abs=1e-5)


def test_cpu_cores_each_run_a_small_batch(model_dirs: tuple[Path, Path]) -> None:
    """On CPU cores alone (decision 0074): batches of at most CPU_BATCH pairs, run one
    per worker at once, with each pair's result as one batch at a time gives it."""
    assert CrossEncoderNli(model_dirs[0]).workers == cpu_workers()
    nli = CrossEncoderNli(model_dirs[0], batch_size=16, workers=2)
    recording = _FailingSession(nli._impl.session, max_batch=16)  # type: ignore[union-attr]
    nli._impl.session = recording  # type: ignore[union-attr]
    pairs = [(premise, f"{claim} ({n})") for n in range(3) for premise, claim in PAIRS]

    results = nli.judge(pairs)

    assert sorted(recording.batch_sizes) == [3, 4, 4, 4]
    expected = CrossEncoderNli(model_dirs[0], batch_size=16, workers=1).judge(pairs)
    assert [r.label for r in results] == [r.label for r in expected]
    np.testing.assert_allclose(
        [r.confidence for r in results], [r.confidence for r in expected], atol=1e-6
    )


def test_a_pair_given_twice_is_run_once_and_batches_follow_tokens(
    model_dirs: tuple[Path, Path],
) -> None:
    """A pair given twice is run once and gets the same result in both places; batches
    are cut from the pairs sorted by tokens, not characters (a premise padded with
    spaces is long in characters, short in tokens)."""
    nli = CrossEncoderNli(model_dirs[0], batch_size=2, workers=1)
    recording = _FailingSession(nli._impl.session, max_batch=16)  # type: ignore[union-attr]
    nli._impl.session = recording  # type: ignore[union-attr]
    spaced = ("Coffee" + " " * 400, "Coffee improves memory.")
    pairs = [*PAIRS, spaced, *PAIRS[::-1]]

    results = nli.judge(pairs)

    assert recording.batch_sizes == [2, 2, 2]
    assert recording.widths == sorted(recording.widths)
    spaced_ids = nli._impl._encode([spaced])[0].ids  # type: ignore[union-attr]
    first = recording.ids[0][:, : len(spaced_ids)].tolist()
    assert spaced_ids in first
    assert results[:5] == results[6:][::-1]
    alone = CrossEncoderNli(model_dirs[0], workers=1).judge([spaced])[0]
    assert results[5].label == alone.label
    assert results[5].confidence == pytest.approx(alone.confidence, abs=1e-6)


class _FailingSession:
    """Wraps a real ORT session; fails like an exhausted allocator above a batch size
    (or above a number of tokens per pair)."""

    def __init__(self, real: Any, max_batch: int, max_tokens: int = 10**6) -> None:
        self.real = real
        self.max_batch = max_batch
        self.max_tokens = max_tokens
        self.batch_sizes: list[int] = []
        self.widths: list[int] = []
        self.ids: list[np.ndarray] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def run(self, outputs: list[str], feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        self.batch_sizes.append(int(feed["input_ids"].shape[0]))
        self.widths.append(int(feed["input_ids"].shape[1]))
        self.ids.append(feed["input_ids"])
        if feed["input_ids"].shape[0] > self.max_batch or self.widths[-1] > self.max_tokens:
            raise ort_state.RuntimeException("Failed to allocate memory for requested buffer")
        return list(self.real.run(outputs, feed))


def test_a_batch_out_of_memory_is_judged_again_in_halves(
    model_dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Out of memory, a batch is split in two and the batch size stays lowered; the
    results are those of an unconstrained run, in input order. (One batch at a time, as
    on a GPU, where memory runs out.)"""
    expected = CrossEncoderNli(model_dirs[0], batch_size=8).judge(PAIRS)
    nli = CrossEncoderNli(model_dirs[0], batch_size=8, workers=1)
    failing = _FailingSession(nli._impl.session, max_batch=2)  # type: ignore[union-attr]
    monkeypatch.setattr(nli._impl, "session", failing)

    results = nli.judge(PAIRS)

    # 5 fails; its halves: 2 fits, 3 fails; that one's halves: 1 and 2 fit.
    assert failing.batch_sizes == [5, 2, 3, 1, 2]
    assert nli.oom_retries == 2
    assert nli.batch_size == 1
    assert [r.label for r in results] == [r.label for r in expected]
    np.testing.assert_allclose(
        [r.confidence for r in results], [r.confidence for r in expected], atol=1e-5
    )


def test_one_pair_out_of_memory_is_read_shorter(
    model_dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The test model reads 126 tokens (its 128 positions, less 2); a single pair that
    does not fit at that length is cut to half, and every later pair is read that short:
    the results are those of a model reading 63 tokens."""
    long_pair = (" ".join(["Aspirin reduces the risk of heart attack in adults."] * 20), "x")
    pairs = [long_pair, *PAIRS[:2]]
    expected = CrossEncoderNli(model_dirs[0], max_length=63, batch_size=1).judge(pairs)
    nli = CrossEncoderNli(model_dirs[0], max_length=256, batch_size=1, workers=1)
    assert nli.max_length == 126
    failing = _FailingSession(nli._impl.session, max_batch=1, max_tokens=64)  # type: ignore[union-attr]
    monkeypatch.setattr(nli._impl, "session", failing)

    results = nli.judge(pairs)

    assert (nli.max_length, nli.shortened) == (63, 1)
    # Shortest first: the two short pairs, then the long one at 126 tokens and at 63.
    assert failing.widths[2:] == [126, 63]
    assert max(failing.widths[:2]) < 63
    assert [r.label for r in results] == [r.label for r in expected]
    np.testing.assert_allclose(
        [r.confidence for r in results], [r.confidence for r in expected], atol=1e-5
    )


def test_one_pair_out_of_memory_is_a_clear_error(
    model_dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A single pair that does not fit is an NliModelError naming what to lower."""
    nli = CrossEncoderNli(model_dirs[0], batch_size=4)
    monkeypatch.setattr(nli._impl, "session", _FailingSession(nli._impl.session, max_batch=0))  # type: ignore[union-attr]

    with pytest.raises(NliModelError, match=r"lower inference\.max_sequence_length"):
        nli.judge(PAIRS[:2])


def test_empty_input_gives_no_results(model_dirs: tuple[Path, Path]) -> None:
    """Boundary: no pairs, no results."""
    assert CrossEncoderNli(model_dirs[0]).judge([]) == []


def test_labels_follow_id2label(model_dirs: tuple[Path, Path]) -> None:
    """Columns map through config.json id2label, case-insensitively."""
    nli = CrossEncoderNli(model_dirs[0])

    assert nli.labels == ["supports", "neutral", "refutes"]
    assert nli.model_id == "tiny-nli-onnx"
    assert nli.degraded is False


def test_classifier_export_manifest(model_dirs: tuple[Path, Path]) -> None:
    """The export is verified against PyTorch and described next to the model."""
    manifest = read_manifest(model_dirs[0])

    assert manifest is not None
    assert manifest.kind == "sequence-classification"
    assert manifest.dims == 3
    assert manifest.input_names == ["input_ids", "attention_mask", "token_type_ids"]
    assert manifest.parity_max_abs_diff < 1e-4


def test_a_model_without_extra_outputs_is_refused_by_the_stance_head(
    model_dirs: tuple[Path, Path],
) -> None:
    """A plain classifier has logits only: no pooled or features output for a head."""
    nli = CrossEncoderNli(model_dirs[0])
    assert (nli.has_output("logits"), nli.has_output(FEATURES_OUTPUT)) == (True, False)
    assert CrossEncoderNli(model_dirs[1]).has_output("logits") is False  # PyTorch path
    with pytest.raises(NliModelError, match="has no 'features' output"):
        nli.output(FEATURES_OUTPUT, PAIRS)
    with pytest.raises(NliModelError, match="has no 'features' output"):
        PackagedStance(nli, {}, veto=VetoCalibration(0.0, 1.0))


def test_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    """A wrong nli_model_path names the setting and the fallback."""
    with pytest.raises(NliModelError, match=r"does not exist; set inference\.nli_model_path"):
        CrossEncoderNli(tmp_path / "no-such-model")


def test_folder_without_config_is_refused(tmp_path: Path) -> None:
    """A folder that is not a model folder is refused before anything loads."""
    with pytest.raises(NliModelError, match=r"has no config\.json"):
        CrossEncoderNli(tmp_path)


def test_onnx_backend_requires_the_onnx_file(model_dirs: tuple[Path, Path]) -> None:
    """Asking for ONNX on a PyTorch-only folder is an error, not a silent switch."""
    with pytest.raises(NliModelError, match=r"has no model\.onnx"):
        CrossEncoderNli(model_dirs[1], backend="onnx")


@pytest.mark.parametrize(
    ("id2label", "expected"),
    [
        ({0: "entailment", 1: "neutral", 2: "contradiction"}, ["supports", "neutral", "refutes"]),
        (
            {"0": "CONTRADICTION", "1": "ENTAILMENT", "2": "NEUTRAL"},
            ["refutes", "supports", "neutral"],
        ),
        ({0: " Contradiction ", 1: "Neutral", 2: "Entailment"}, ["refutes", "neutral", "supports"]),
    ],
)
def test_label_order_good(id2label: dict[int | str, str], expected: list[str]) -> None:
    """Published cross-encoders order their labels differently; all map correctly."""
    assert label_order(id2label) == expected


@pytest.mark.parametrize(
    "id2label",
    [
        {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"},
        {0: "entailment", 1: "not_entailment"},
        {0: "entailment", 1: "entailment", 2: "contradiction"},
        {0: "entailment", 2: "neutral", 3: "contradiction"},
        {0: "positive", 1: "negative", 2: "neutral"},
    ],
)
def test_label_order_bad(id2label: dict[int | str, str]) -> None:
    """Labels that do not name the three NLI classes are refused, never guessed."""
    with pytest.raises(NliModelError):
        label_order(id2label)


def test_results_from_logits_known_values() -> None:
    """Softmax of known logits: ln 2 apart gives probabilities 0.5 / 0.25 / 0.25."""
    logits = np.array([[np.log(2.0), 0.0, 0.0]])

    (result,) = results_from_logits(logits, ["refutes", "neutral", "supports"])

    assert result.label == "refutes"
    assert result.confidence == pytest.approx(0.5)
    assert result.probs == pytest.approx({"refutes": 0.5, "neutral": 0.25, "supports": 0.25})


# --- heuristic fallback --------------------------------------------------------------

HEURISTIC_CASES = [
    pytest.param(
        "On the 5:2 diet, people eat normally five days a week and limit themselves to 500 "
        "calories a day on the other two days.",
        "The 5:2 diet limits calories to 800 a day on the two fasting days.",
        "refutes",
        "On the 5:2 diet, people eat normally five days a week and limit themselves to 500 "
        "calories a day on the other two days.",
        id="what-a-number-counts-named-before-it",
    ),
    pytest.param(
        "Cases rose to 20 in March.",
        "Cases rose to 30 in April.",
        "supports",  # not refutes: the rules compare no count here
        "Cases rose to 20 in March.",
        id="a-number-a-change-reached-is-no-count",
    ),
    pytest.param(
        "Creatine hydrochloride is not absorbed better than creatine monohydrate, and it "
        "costs about four times as much.",
        "Creatine hydrochloride is absorbed better than creatine monohydrate, so you need a "
        "smaller scoop and get no bloating.",
        "refutes",
        "Creatine hydrochloride is not absorbed better than creatine monohydrate, and it "
        "costs about four times as much.",
        id="both-negate-one-what-the-other-states",
    ),
    pytest.param(
        "Zinc nasal sprays do not cause any loss of smell and are not harmful.",
        "Zinc does not cure colds and has no side effects.",
        "neutral",
        "Zinc nasal sprays do not cause any loss of smell and are not harmful.",
        id="both-negate-different-things",
    ),
    pytest.param(
        "Aspirin reduces the risk of heart attack.",
        "Aspirin reduces the risk of heart attack.",
        "supports",
        "Aspirin reduces the risk of heart attack.",
        id="identical",
    ),
    pytest.param(
        "Aspirin does not reduce the risk of stroke.",
        "Aspirin reduces the risk of stroke.",
        "refutes",
        "Aspirin does not reduce the risk of stroke.",
        id="negation",
    ),
    pytest.param(
        "The drug has a half-life of about 5 hours.",
        "The drug has a half-life of about 12 hours.",
        "refutes",
        "The drug has a half-life of about 5 hours.",
        id="number-mismatch",
    ),
    pytest.param(
        "Most electric car batteries last only about 8 years before they need replacing.",
        "Most electric car batteries last about 15 years before they need replacing.",
        "refutes",
        "Most electric car batteries last only about 8 years before they need replacing.",
        id="number-mismatch-duration",
    ),
    pytest.param(
        "An electric car pays back the emissions of making its battery after about 2 years "
        "of driving.",
        "Most electric car batteries last about 15 years before they need replacing.",
        "neutral",
        "An electric car pays back the emissions of making its battery after about 2 years "
        "of driving.",
        id="a-duration-dating-an-event-measures-something-else",
    ),
    pytest.param(
        "Patients were followed for 10 years after the first dose.",
        "Patients were followed for 5 years after the first dose.",
        "refutes",
        "Patients were followed for 10 years after the first dose.",
        id="durations-dated-alike-compare",
    ),
    pytest.param(
        "The Eiffel Tower was completed in Paris for the world fair.",
        "Aspirin reduces the risk of heart attack.",
        "neutral",
        None,
        id="unrelated",
    ),
    pytest.param(
        "Regular exercise reduced blood pressure in older adults.",
        "Exercise reduces blood pressure in older adults.",
        "supports",
        "Regular exercise reduced blood pressure in older adults.",
        id="paraphrase-same-stems",
    ),
    pytest.param(
        "The trial enrolled 400 volunteers. Vitamin D supplementation lowered fracture risk "
        "by 12%. Funding came from a national agency.",
        "Vitamin D supplementation reduces fracture risk.",
        "supports",
        "Vitamin D supplementation lowered fracture risk by 12%.",
        id="multi-sentence-one-matches",
    ),
    pytest.param(
        "Coffee increases alertness in shift workers.",
        "Coffee reduces alertness in shift workers.",
        "refutes",
        "Coffee increases alertness in shift workers.",
        id="antonym-flip",
    ),
    pytest.param(
        "The vaccine fails to prevent infection in infants.",
        "The vaccine prevents infection in infants.",
        "refutes",
        "The vaccine fails to prevent infection in infants.",
        id="fails-to",
    ),
    pytest.param(
        "The vaccine was safe in children.",
        "The vaccine is unsafe in children.",
        "refutes",
        "The vaccine was safe in children.",
        id="safe-unsafe",
    ),
    pytest.param(
        "Fracture risk fell by 12%.",
        "Fracture risk fell by 12.5 percent.",
        "supports",
        "Fracture risk fell by 12%.",
        id="percent-within-10-percent",
    ),
    pytest.param(
        "Fracture risk fell by 12%.",
        "Fracture risk fell by 30%.",
        "refutes",
        "Fracture risk fell by 12%.",
        id="percent-beyond-10-percent",
    ),
    pytest.param(
        "Symptoms lasted 5-7 days.",
        "Symptoms lasted 6 days.",
        "supports",
        "Symptoms lasted 5-7 days.",
        id="value-inside-range",
    ),
    pytest.param(
        "Patients didnt improve after surgery.",
        "Patients improved after surgery.",
        "refutes",
        "Patients didnt improve after surgery.",
        id="contraction-without-apostrophe",
    ),
    # "falls" after "of", "more", a verb of change ... is the accident, not a decrease:
    # before, "falls" counted as a fall on the amount axis, so "increase the risk of falls"
    # carried both signs and no flip was seen.
    pytest.param(
        "Sedatives increase the risk of falls in older adults.",
        "Sedatives reduce the risk of falls in older adults.",
        "refutes",
        "Sedatives increase the risk of falls in older adults.",
        id="risk-of-falls-flips",
    ),
    pytest.param(
        "Women given the annual dose had 15 percent more falls than women given placebo.",
        "Annual doses reduced the number of falls in women over 70.",
        "refutes",
        "Women given the annual dose had 15 percent more falls than women given placebo.",
        id="more-falls-against-fewer",
    ),
    pytest.param(
        "Sedatives increase the risk of falls in older adults.",
        "Sedatives increase the risk of falls in older adults.",
        "supports",
        "Sedatives increase the risk of falls in older adults.",
        id="risk-of-falls-agrees",
    ),
    pytest.param(
        "Blood pressure falls after the first dose.",
        "Blood pressure rises after the first dose.",
        "refutes",
        "Blood pressure falls after the first dose.",
        id="falls-as-a-verb-stays-a-decrease",
    ),
    # Axes added after a probe of common medical contradictions that the rules read as
    # "supports" at 0.8-0.9 (docs/stance-model.md).
    pytest.param(
        "Side effects of the drug are common in older adults.",
        "Side effects of the drug are rare in older adults.",
        "refutes",
        "Side effects of the drug are common in older adults.",
        id="common-against-rare",
    ),
    pytest.param(
        "Regular exercise prevents type 2 diabetes in adults.",
        "Regular exercise causes type 2 diabetes in adults.",
        "refutes",
        "Regular exercise prevents type 2 diabetes in adults.",
        id="prevents-against-causes",
    ),
    pytest.param(
        "The drug doubles the risk of stroke.",
        "The drug halves the risk of stroke.",
        "refutes",
        "The drug doubles the risk of stroke.",
        id="doubles-against-halves",
    ),
    pytest.param(
        "Zinc shortens the duration of colds.",
        "Zinc prolongs the duration of colds.",
        "refutes",
        "Zinc shortens the duration of colds.",
        id="shortens-against-prolongs",
    ),
    pytest.param(
        "High doses are dangerous for the liver.",
        "High doses are harmless for the liver.",
        "refutes",
        "High doses are dangerous for the liver.",
        id="dangerous-against-harmless",
    ),
    pytest.param(
        "Antibiotics are useless against viral infections.",
        "Antibiotics are useful against viral infections.",
        "refutes",
        "Antibiotics are useless against viral infections.",
        id="useless-against-useful",
    ),
    pytest.param(
        "The supplement impaired memory in older adults.",
        "The supplement improved memory in older adults.",
        "refutes",
        "The supplement impaired memory in older adults.",
        id="impaired-against-improved",
    ),
    pytest.param(
        "Smoking accelerates bone loss in older women.",
        "Smoking slows bone loss in older women.",
        "refutes",
        "Smoking accelerates bone loss in older women.",
        id="accelerates-against-slows",
    ),
    pytest.param(
        "Exercise cuts the risk of falls in older adults.",
        "Exercise increases the risk of falls in older adults.",
        "refutes",
        "Exercise cuts the risk of falls in older adults.",
        id="cuts-against-increases",
    ),
    # "Without calcium" on both sides is the condition both state; "no effect" is the
    # difference (tests/corpora/vitamin_d). Attribution ("the researchers said that")
    # is not content, so the reverse direction shares enough words too.
    pytest.param(
        "The researchers said that vitamin D given alone, without calcium, had no effect "
        "on the risk of fracture in their analysis.",
        "Vitamin D taken without calcium lowered the risk of any fracture by 12 percent "
        "in adults living at home.",
        "refutes",
        "The researchers said that vitamin D given alone, without calcium, had no effect "
        "on the risk of fracture in their analysis.",
        id="shared-without-then-no-effect",
    ),
    pytest.param(
        "Vitamin D taken without calcium lowered the risk of any fracture by 12 percent "
        "in adults living at home.",
        "The researchers said that vitamin D given alone, without calcium, had no effect "
        "on the risk of fracture in their analysis.",
        "refutes",
        "Vitamin D taken without calcium lowered the risk of any fracture by 12 percent "
        "in adults living at home.",
        id="attribution-is-not-content",
    ),
    pytest.param(
        "Patients given the drug without food absorbed half the dose.",
        "Patients given the drug with food absorbed half the dose.",
        "refutes",
        "Patients given the drug without food absorbed half the dose.",
        id="without-on-one-side-still-negates",
    ),
    pytest.param(
        "Taken without food, the drug lowered blood pressure in adults.",
        "Taken without food, the drug lowered blood pressure in older adults.",
        "supports",
        "Taken without food, the drug lowered blood pressure in adults.",
        id="without-on-both-sides-is-no-contradiction",
    ),
    pytest.param(
        "The appeals court upheld the ban on non-compete agreements in 2023.",
        "The appeals court struck down the ban on non-compete agreements.",
        "refutes",
        "The appeals court upheld the ban on non-compete agreements in 2023.",
        id="ruling-upheld-against-struck-down",
    ),
    pytest.param(
        "Courts usually uphold non-competes of up to two years.",
        "Courts usually strike down non-competes longer than one year.",
        "refutes",
        "Courts usually uphold non-competes of up to two years.",
        id="ruling-uphold-against-strike-down",
    ),
    pytest.param(
        "State law prohibits non-compete clauses for employees earning under 100,000 dollars.",
        "State law allows non-compete clauses for employees earning under 100,000 dollars.",
        "refutes",
        "State law prohibits non-compete clauses for employees earning under 100,000 dollars.",
        id="permission-prohibits-against-allows",
    ),
    pytest.param(
        "Non-compete agreements are unenforceable in California.",
        "Non-compete agreements are enforceable in California.",
        "refutes",
        "Non-compete agreements are unenforceable in California.",
        id="prefixed-opposite-unenforceable",
    ),
    pytest.param(
        "Cannabis is legal for adults in Canada.",
        "Cannabis is illegal for adults in Canada.",
        "refutes",
        "Cannabis is legal for adults in Canada.",
        id="prefixed-opposite-illegal",
    ),
    pytest.param(
        "The regulation was approved by the committee in March.",
        "The committee rejected the regulation in March.",
        "refutes",
        "The regulation was approved by the committee in March.",
        id="approval-approved-against-rejected",
    ),
    pytest.param(
        "The defendant was found guilty of fraud.",
        "The defendant was acquitted of fraud.",
        "refutes",
        "The defendant was found guilty of fraud.",
        id="verdict-guilty-against-acquitted",
    ),
    pytest.param(
        "Electric cars are cheaper to run than petrol cars over ten years.",
        "Electric cars are more expensive to run than petrol cars over ten years.",
        "refutes",
        "Electric cars are cheaper to run than petrol cars over ten years.",
        id="cost-cheaper-against-more-expensive",
    ),
    pytest.param(
        "Electric cars are cheaper to run than petrol cars over ten years.",
        "Electric cars are less expensive to run than petrol cars over ten years.",
        "supports",
        "Electric cars are cheaper to run than petrol cars over ten years.",
        id="cost-less-expensive-is-no-flip",
    ),
    pytest.param(
        "The new battery charges faster than the old one.",
        "The new battery charges slower than the old one.",
        "refutes",
        "The new battery charges faster than the old one.",
        id="speed-faster-against-slower",
    ),
    pytest.param(
        "Many patients recovered within two weeks.",
        "Few patients recovered within two weeks.",
        "refutes",
        "Many patients recovered within two weeks.",
        id="proportion-many-against-few",
    ),
    pytest.param(
        "Many patients recovered within two weeks.",
        "A few patients recovered within two weeks.",
        "supports",
        "Many patients recovered within two weeks.",
        id="proportion-a-few-is-some",
    ),
    pytest.param(
        "The tax cut increased government revenue.",
        "The tax cut decreased government revenue.",
        "refutes",
        "The tax cut increased government revenue.",
        id="a-shared-axis-word-is-the-subject",
    ),
    pytest.param(
        "Staff turnover was unchanged.",
        "Staff turnover fell by 57 percent.",
        "refutes",
        "Staff turnover was unchanged.",
        id="unchanged-against-a-change",
    ),
    pytest.param(
        "Staff turnover was unchanged.",
        "Turnover among staff did not change.",
        "supports",
        "Staff turnover was unchanged.",
        id="unchanged-is-did-not-change",
    ),
    pytest.param(
        "Crime rates were unaffected by the new policing strategy.",
        "The new policing strategy cut crime rates by 20 percent.",
        "refutes",
        "Crime rates were unaffected by the new policing strategy.",
        id="unaffected-against-a-cut",
    ),
    pytest.param(
        "Active funds outperformed the index over ten years.",
        "Active funds underperformed the index over ten years.",
        "refutes",
        "Active funds outperformed the index over ten years.",
        id="performance-outperformed-against-underperformed",
    ),
    pytest.param(
        "The policy strengthened protections for tenants.",
        "The policy weakened protections for tenants.",
        "refutes",
        "The policy strengthened protections for tenants.",
        id="strength-strengthened-against-weakened",
    ),
    pytest.param(
        "The pay gap between men and women widened after 2010.",
        "The pay gap between men and women narrowed after 2010.",
        "refutes",
        "The pay gap between men and women widened after 2010.",
        id="width-widened-against-narrowed",
    ),
    pytest.param(
        "Membership of the union grew after the strike.",
        "Membership of the union shrank after the strike.",
        "refutes",
        "Membership of the union grew after the strike.",
        id="amount-grew-against-shrank",
    ),
    pytest.param(
        "The population of wolves increased after reintroduction.",
        "The population of wolves declined after reintroduction.",
        "refutes",
        "The population of wolves increased after reintroduction.",
        id="amount-increased-against-declined",
    ),
    pytest.param(
        "The treatment was well tolerated.",
        "The treatment was poorly tolerated.",
        "refutes",
        "The treatment was well tolerated.",
        id="manner-well-against-poorly-before-a-participle",
    ),
    pytest.param(
        "Battery life improved with the update.",
        "Battery life got worse with the update.",
        "refutes",
        "Battery life improved with the update.",
        id="quality-improved-against-worse",
    ),
    pytest.param(
        "Wind power is now the cheapest source of new electricity.",
        "Wind power is now the most expensive source of new electricity.",
        "refutes",
        "Wind power is now the cheapest source of new electricity.",
        id="cost-cheapest-against-most-expensive",
    ),
    # A negation refutes only what it bears on (decision 0090).
    # (the increase the premise names is what the claim states)
    pytest.param(
        "The minimum wage increase led to no measurable job losses.",
        "The minimum wage was raised to $15 in 2021.",
        "supports",
        "The minimum wage increase led to no measurable job losses.",
        id="a-negation-of-something-the-claim-does-not-name",
    ),
    pytest.param(
        "Statins do not increase the risk of cancer.",
        "Statins lower LDL cholesterol by 30 to 50 percent.",
        "neutral",
        "Statins do not increase the risk of cancer.",
        id="a-negation-whose-only-shared-word-is-an-antonym",
    ),
    pytest.param(
        "In this cohort, ibuprofen use was not associated with worse clinical outcomes.",
        "Ibuprofen use is associated with higher COVID-19 mortality.",
        "refutes",
        "In this cohort, ibuprofen use was not associated with worse clinical outcomes.",
        id="a-negation-of-the-claims-own-predicate",
    ),
    pytest.param(
        "Heart failure risk in coffee drinkers was unchanged.",
        "Coffee drinkers have a higher heart failure risk.",
        "refutes",
        "Heart failure risk in coffee drinkers was unchanged.",
        id="a-negation-ending-its-sentence-bears-on-what-came-before",
    ),
    pytest.param(
        "The study found that screen time was unrelated to teenagers' wellbeing.",
        "Screen time harms teenagers' wellbeing.",
        "refutes",
        "The study found that screen time was unrelated to teenagers' wellbeing.",
        id="unrelated-to-is-no-association",
    ),
    pytest.param(
        "Antibiotics are ineffective against viral infections such as colds.",
        "Antibiotics cure colds.",
        "refutes",
        "Antibiotics are ineffective against viral infections such as colds.",
        id="efficacy-cures-against-ineffective",
    ),
    pytest.param(
        "The law took effect in January 2021, two years after it was passed.",
        "The law took effect in 2019.",
        "refutes",
        "The law took effect in January 2021, two years after it was passed.",
        id="a-one-time-event-dated-to-another-year",
    ),
    pytest.param(
        "The drug was approved in 2004 and withdrawn in 2010.",
        "The drug was approved in 2004.",
        "supports",
        "The drug was approved in 2004 and withdrawn in 2010.",
        id="the-same-event-in-the-same-year",
    ),
    pytest.param(
        "Purchases of taxed beverages did not fall in Mexico once population growth is "
        "taken into account.",
        "Purchases of taxed beverages fell by 7.6 percent over the first two years.",
        "refutes",
        "Purchases of taxed beverages did not fall in Mexico once population growth is "
        "taken into account.",
        id="did-not-fall-bears-on-fell",
    ),
    pytest.param(
        "In the first two years of the levy, the sugar content of soft drinks sold in the UK "
        "fell by 29 percent.",
        "Purchases of taxed beverages fell by 7.6 percent over the first two years.",
        "neutral",
        "In the first two years of the levy, the sugar content of soft drinks sold in the UK "
        "fell by 29 percent.",
        id="numbers-that-count-different-things",
    ),
    # numbers in words and sums of money (decision 0100): a duration in words against one
    # in digits, a sum per metre against another, and a sum a year against one a month
    pytest.param(
        "Full recovery after a meniscectomy takes roughly two weeks for most people.",
        "Full recovery usually takes 4 to 6 weeks after keyhole meniscus surgery.",
        "refutes",
        "Full recovery after a meniscectomy takes roughly two weeks for most people.",
        id="two-weeks-in-words-against-4-to-6-weeks",
    ),
    pytest.param(
        "Full recovery after keyhole meniscus surgery usually takes four to six weeks.",
        "Full recovery usually takes 4 to 6 weeks after keyhole meniscus surgery.",
        "supports",
        "Full recovery after keyhole meniscus surgery usually takes four to six weeks.",
        id="a-range-in-words-matches-one-in-digits",
    ),
    pytest.param(
        "Rent-stabilized apartments rent for only about nine per cent less than comparable "
        "market-rate units.",
        "Stabilized units rented for an average of 23 per cent less than comparable "
        "market-rate units.",
        "refutes",
        "Rent-stabilized apartments rent for only about nine per cent less than comparable "
        "market-rate units.",
        id="nine-per-cent-in-words-against-23-per-cent",
    ),
    pytest.param(
        "Building the barrier costs around £1,900 for every metre.",
        "Building the barrier costs about £1,150 per metre.",
        "refutes",
        "Building the barrier costs around £1,900 for every metre.",
        id="one-sum-per-metre-against-another",
    ),
    pytest.param(
        "Running the heat pump costs households about £25 a month.",
        "Running the heat pump costs households about £300 a year.",
        "supports",
        "Running the heat pump costs households about £25 a month.",
        id="a-sum-a-month-is-not-compared-with-a-sum-a-year",
    ),
    # a value stated after "is"/"was" without a unit (decision 0096; a planted corpus's
    # numeric contradiction between a review and a news story)
    pytest.param(
        "Researchers say the number needed to treat for ibuprofen 400 mg is 5 for at least "
        "half pain relief over six hours.",
        "For ibuprofen 400 mg, the number needed to treat was 2.5 for at least half pain "
        "relief over six hours.",
        "refutes",
        "Researchers say the number needed to treat for ibuprofen 400 mg is 5 for at least "
        "half pain relief over six hours.",
        id="a-stated-value-differs",
    ),
    pytest.param(
        "Mean TOTPAR6 was 15.8 for the combination, 12.1 for ibuprofen and 8.7 for paracetamol.",
        "Mean TOTPAR6 was 12.1 for ibuprofen.",
        "supports",
        "Mean TOTPAR6 was 15.8 for the combination, 12.1 for ibuprofen and 8.7 for paracetamol.",
        id="a-stated-value-among-the-sentences-numbers",
    ),
    # a claim reported by a frame, or with a reason after it, is also read as its
    # statement alone (decision 0097; the fifteenth planted corpus)
    pytest.param(
        "2. Using a patch together with a faster-acting product such as gum or lozenges "
        "raises the chance of quitting compared with using a patch alone.",
        "The paper also notes earlier research suggesting that using a patch together with "
        "gum or lozenges lowers the chance of quitting compared with a patch alone, possibly "
        "because people find juggling two products confusing.",
        "refutes",
        "Using a patch together with a faster-acting product such as gum or lozenges "
        "raises the chance of quitting compared with using a patch alone.",
        id="a-reported-statement-flipped",
    ),
    pytest.param(
        "Honestly, using nicotine patches during pregnancy is not safer than smoking, the "
        "baby still gets all the nicotine either way.",
        "Using nicotine patches during pregnancy is safer than continuing to smoke, because "
        "patches do not contain the tar and carbon monoxide found in cigarette smoke.",
        "refutes",
        "Honestly, using nicotine patches during pregnancy is not safer than smoking, the "
        "baby still gets all the nicotine either way.",
        id="a-negation-hidden-by-the-reasons-own",
    ),
    pytest.param(
        "Your starting strength depends on how many cigarettes you smoke each day. Smokers "
        "of more than 10 a day should start on the 21 mg patch.",
        "Can't help on the pregnancy side but on strength: the pharmacist told me that "
        "anyone smoking over 10 a day starts on the 14 mg patch and works down from there.",
        "refutes",
        "Smokers of more than 10 a day should start on the 21 mg patch.",
        id="a-dose-told-to-the-writer",
    ),
    # the frame alone changes nothing: the statement agrees
    pytest.param(
        "Smokers of more than 10 a day should start on the 21 mg patch.",
        "The pharmacist told me that smokers of more than 10 a day should start on the 21 mg "
        "patch.",
        "supports",
        "Smokers of more than 10 a day should start on the 21 mg patch.",
        id="a-statement-told-to-the-writer-agrees",
    ),
    # a null result denies a claim that the same thing helps (decision 0098; the
    # seventeenth planted corpus)
    pytest.param(
        "Dose: A daily dose of 5 billion CFU is enough to get the benefit seen in studies.",
        "A daily dose of 5 billion CFU was no better than placebo in the trials we reviewed.",
        "refutes",
        "Dose: A daily dose of 5 billion CFU is enough to get the benefit seen in studies.",
        id="a-null-result-against-a-benefit",
    ),
    # the same sentence said of another named thing is no support (decision 0098)
    pytest.param(
        "Felodipine is cleared by the kidneys with a half-life of 9 hours.",
        "Efonidipine is cleared by the kidneys with a half-life of 9 hours.",
        "neutral",
        "Felodipine is cleared by the kidneys with a half-life of 9 hours.",
        id="another-named-thing",
    ),
    # a unit's name and its symbol are one unit (decision 0099; tests/corpora/fish_oil)
    pytest.param(
        "For heart health, the recommended dose is 1 gram of EPA plus DHA per day.",
        "For heart health the recommended daily dose is 2 g of EPA & DHA combined.",
        "refutes",
        "For heart health, the recommended dose is 1 gram of EPA plus DHA per day.",
        id="a-units-name-and-its-symbol",
    ),
    pytest.param(
        "Standing at the desk expended only 9 kcal more per hour than sitting.",
        "Standing at your desk burns an extra 50 calories per hour compared with sitting.",
        "refutes",
        "Standing at the desk expended only 9 kcal more per hour than sitting.",
        id="calories-are-kcal",
    ),
    # a finding of no change against a change of a stated size (decision 0101)
    pytest.param(
        "Five years of cover crops later, our organic matter hasn't budged from 2.8%.",
        "Cover crops raised soil organic matter by roughly 0.3 percentage points.",
        "refutes",
        "Five years of cover crops later, our organic matter hasn't budged from 2.8%.",
        id="no-change-against-a-rise",
    ),
    pytest.param(
        "Cover crops raised soil organic matter by roughly 0.3 percentage points.",
        "Five years of cover crops later, our organic matter hasn't budged from 2.8%.",
        "refutes",
        "Cover crops raised soil organic matter by roughly 0.3 percentage points.",
        id="a-rise-against-no-change",
    ),
    pytest.param(
        "Residents told the council they had noticed no real change in traffic noise.",
        "The barrier has cut noise in the back gardens by around a third.",
        "refutes",
        "Residents told the council they had noticed no real change in traffic noise.",
        id="no-real-change-in-against-a-cut-by-a-fraction",
    ),
    pytest.param(
        "The capsules cut heart attacks by about a fifth.",
        "Fish oil probably makes little or no difference to the risk of having a heart attack.",
        "refutes",
        "The capsules cut heart attacks by about a fifth.",
        id="little-or-no-difference-reaches-its-outcome",
    ),
    pytest.param(
        "Physiotherapy alone produced function scores at 24 months practically identical to "
        "surgery.",
        "Patients who had surgery reached markedly higher function scores at two years.",
        "refutes",
        "Physiotherapy alone produced function scores at 24 months practically identical to "
        "surgery.",
        id="practically-identical-against-markedly-higher",
    ),
    pytest.param(
        "Our household's gas use hardly changed after we fitted it.",
        "Smart thermostats trimmed gas use by about a tenth.",
        "refutes",
        "Our household's gas use hardly changed after we fitted it.",
        id="hardly-changed-against-trimmed-by-a-tenth",
    ),
    pytest.param(
        "Statins make no difference to the risk of cancer.",
        "Statins cut the risk of heart attack by 25 percent.",
        "neutral",
        "Statins make no difference to the risk of cancer.",
        id="no-difference-to-another-risk",
    ),
    pytest.param(
        "Statins did not change cancer rates.",
        "Statins cut heart attacks by 25 percent.",
        "neutral",
        "Statins did not change cancer rates.",
        id="what-did-not-change-is-the-object-not-the-subject",
    ),
    pytest.param(
        "The wall made no real difference to traffic noise.",
        "The wall did not cut traffic noise by much.",
        "supports",
        "The wall made no real difference to traffic noise.",
        id="a-change-denied-agrees-with-no-change",
    ),
    pytest.param(
        "Ibuprofen users showed no differences in mortality rates.",
        "Routine use of ibuprofen is associated with higher COVID-19 mortality.",
        "neutral",
        "Ibuprofen users showed no differences in mortality rates.",
        id="a-number-in-a-name-is-no-size",
    ),
    pytest.param(
        "Diastolic blood pressure was unchanged.",
        "The drug lowered systolic blood pressure by 5 mmHg.",
        "neutral",
        "Diastolic blood pressure was unchanged.",
        id="no-change-in-a-thing-set-apart-by-its-modifier",
    ),
    pytest.param(
        "Five years on, our cover crop payments stayed flat at 62 euros a hectare.",
        "Holdings received a flat payment of 62 euros per hectare of cover crop.",
        "supports",
        "Five years on, our cover crop payments stayed flat at 62 euros a hectare.",
        id="a-flat-payment-is-no-finding-of-no-change",
    ),
    pytest.param(
        "Average tenancy in stabilized apartments is now more than eight years.",
        "Maintenance spending by owners of stabilized buildings held steady.",
        "neutral",
        "Average tenancy in stabilized apartments is now more than eight years.",
        id="more-than-a-number-is-a-bound-not-a-change",
    ),
    # comparisons that cannot both hold (decision 0101)
    pytest.param(
        "Green tea far outperforms coffee when it comes to burning fat.",
        "Green tea burns no more fat than the same amount of caffeine from coffee.",
        "refutes",
        "Green tea far outperforms coffee when it comes to burning fat.",
        id="no-more-than-against-outperforms",
    ),
    pytest.param(
        "Software developers gain more from sit-stand desks than call-centre agents do.",
        "Call-centre agents gain far more from a standing desk than programmers do.",
        "refutes",
        "Software developers gain more from sit-stand desks than call-centre agents do.",
        id="leader-and-compared-swapped",
    ),
    pytest.param(
        "Women gain more muscle from strength training than men do.",
        "Men gain more weight on a high-sugar diet than women.",
        "neutral",
        "Women gain more muscle from strength training than men do.",
        id="swapped-in-another-measure",
    ),
    # safe where the other advises against, an equality against a lead, a change of no
    # stated size against no change, extra days counted as days (decision 0102)
    pytest.param(
        "Ionisers give off ozone, and the Agency advises against using them in bedrooms.",
        "The ioniser makes no harmful ozone, so it is safe to use in a child's bedroom.",
        "refutes",
        "Ionisers give off ozone, and the Agency advises against using them in bedrooms.",
        id="safe-against-advised-against",
    ),
    pytest.param(
        "The ioniser makes no harmful ozone, so it is safe to use in a child's bedroom.",
        "Ionisers give off ozone, and the Agency advises against using them in bedrooms.",
        "refutes",
        "The ioniser makes no harmful ozone, so it is safe to use in a child's bedroom.",
        id="advised-against-against-safe",
    ),
    pytest.param(
        "My midwife told me magnesium is perfectly safe to keep taking all through pregnancy.",
        "We advise against taking magnesium for migraine prevention while you are pregnant.",
        "refutes",
        "My midwife told me magnesium is perfectly safe to keep taking all through pregnancy.",
        id="pregnant-and-pregnancy-are-one-setting",
    ),
    pytest.param(
        "Magnesium is safe for most adults at 400 mg a day.",
        "We advise against taking magnesium if you have kidney disease.",
        "neutral",
        "Magnesium is safe for most adults at 400 mg a day.",
        id="safe-in-another-setting",
    ),
    pytest.param(
        "Paracetamol is considered safe in pregnancy.",
        "Doctors advise against ibuprofen in pregnancy.",
        "neutral",
        "Paracetamol is considered safe in pregnancy.",
        id="safe-is-said-of-another-thing",
    ),
    pytest.param(
        "No level of exposure to tobacco smoke is safe for children.",
        "The ioniser is safe to use in a child's bedroom.",
        "neutral",
        "No level of exposure to tobacco smoke is safe for children.",
        id="not-safe-of-another-thing",
    ),
    pytest.param(
        "Propranolol is more effective than magnesium at reducing attack frequency.",
        "In one trial, magnesium was just as effective as propranolol at cutting attacks.",
        "refutes",
        "Propranolol is more effective than magnesium at reducing attack frequency.",
        id="as-effective-as-against-more-effective-than",
    ),
    pytest.param(
        "In one trial, magnesium was just as effective as propranolol at cutting attacks.",
        "Propranolol is more effective than magnesium at reducing attack frequency.",
        "refutes",
        "In one trial, magnesium was just as effective as propranolol at cutting attacks.",
        id="more-effective-than-against-as-effective-as",
    ),
    pytest.param(
        "Propranolol is more effective than placebo at reducing attack frequency.",
        "Magnesium was at least as effective as propranolol at cutting attacks.",
        "neutral",
        "Propranolol is more effective than placebo at reducing attack frequency.",
        id="at-least-as-effective-is-no-equality",
    ),
    pytest.param(
        "Propranolol is more effective than placebo at reducing attack frequency.",
        "Magnesium was just as effective as riboflavin at cutting attacks.",
        "neutral",
        "Propranolol is more effective than placebo at reducing attack frequency.",
        id="equality-of-other-parties",
    ),
    pytest.param(
        "The purifiers made no real difference to how often children needed their blue reliever.",
        "A HEPA air cleaner has been shown to cut how often children need their reliever.",
        "refutes",
        "The purifiers made no real difference to how often children needed their blue reliever.",
        id="no-difference-against-a-change-of-no-stated-size",
    ),
    pytest.param(
        "A HEPA air cleaner has been shown to cut how often children need their reliever.",
        "The purifiers made no real difference to how often children needed their blue reliever.",
        "refutes",
        "A HEPA air cleaner has been shown to cut how often children need their reliever.",
        id="a-change-of-no-stated-size-against-no-difference",
    ),
    pytest.param(
        "The purifiers made no real difference to how often children woke at night.",
        "Air cleaners cut how often children need their reliever.",
        "neutral",
        "The purifiers made no real difference to how often children woke at night.",
        id="a-change-sharing-only-who-and-how-often",
    ),
    pytest.param(
        "Children with the real filter enjoyed almost five extra symptom-free days a fortnight.",
        "The active filter group gained 1.2 additional symptom-free days per two weeks.",
        "refutes",
        "Children with the real filter enjoyed almost five extra symptom-free days a fortnight.",
        id="extra-and-additional-days-count-days",
    ),
]


@pytest.mark.parametrize(
    ("sentence", "signs"),
    [
        ("Sedatives increase the risk of falls.", {"amount": {1}}),
        ("Blood pressure falls after the first dose.", {"amount": {-1}}),
        # what causes the disease, not a causing by the subject
        ("COVID-19, caused by SARS-CoV-2, is a rapidly spreading pandemic.", {}),
        ("All-cause mortality was lower.", {"amount": {-1}}),
        ("Smoking is a cause of lung cancer.", {}),
        ("Smoking causes lung cancer.", {"causation": {1}}),
        ("Zinc is rarely used against the common cold.", {"frequency": {-1}}),
        ("Heat pumps are less expensive to run.", {"amount": {-1}}),
        ("A few patients recovered.", {}),
        ("The court struck down the law.", {"ruling": {-1}}),
        # "well" and "poorly" say how only before a participle
        ("The drug works well in adults.", {}),
    ],
)
def test_antonym_signs_skip_uses_without_direction(
    sentence: str, signs: dict[str, set[int]]
) -> None:
    """A word on an axis used as a plain noun carries no sign."""
    assert antonym_signs(tokenize(sentence)) == signs


@pytest.mark.parametrize(("premise", "hypothesis", "label", "evidence"), HEURISTIC_CASES)
def test_heuristic_table(premise: str, hypothesis: str, label: str, evidence: str | None) -> None:
    """§7 fallback: the documented rules give the expected stance and evidence sentence."""
    result = heuristic_nli(premise, hypothesis)

    assert result.label == label
    assert result.evidence_sentence == evidence
    assert sum(result.probs.values()) == pytest.approx(1.0)
    assert result.probs[label] == result.confidence


@pytest.mark.parametrize(
    ("premise", "hypothesis", "expected"),
    [
        # overlap 4/6 (aspirin, reduce, risk, stroke of + elderly, patients): 0.5 + 0.45 * 2/3
        pytest.param(
            "Aspirin reduces the risk of stroke.",
            "Aspirin reduces the risk of stroke in elderly patients.",
            NliResult(
                "supports",
                0.8,
                {"supports": 0.8, "refutes": 0.1, "neutral": 0.1},
                "Aspirin reduces the risk of stroke.",
            ),
            id="supports-partial-overlap",
        ),
        # same overlap with a negation: 0.55 + 0.4 * 2/3
        pytest.param(
            "Aspirin does not reduce the risk of stroke.",
            "Aspirin reduces the risk of stroke in elderly patients.",
            NliResult(
                "refutes",
                0.55 + 0.4 * 2 / 3,
                {
                    "supports": (0.45 - 0.4 * 2 / 3) / 2,
                    "refutes": 0.55 + 0.4 * 2 / 3,
                    "neutral": (0.45 - 0.4 * 2 / 3) / 2,
                },
                "Aspirin does not reduce the risk of stroke.",
            ),
            id="refutes-partial-overlap",
        ),
        # overlap 2/4 (green, tea): in [0.5, 0.6) without a cue
        pytest.param(
            "Green tea is popular in Japan.",
            "Green tea prevents cancer.",
            NliResult(
                "neutral",
                0.5,
                {"supports": 0.25, "refutes": 0.25, "neutral": 0.5},
                "Green tea is popular in Japan.",
            ),
            id="neutral-band",
        ),
        # overlap 1/5 (tea): 0.7 - 0.4 * 0.2
        pytest.param(
            "Black tea is popular.",
            "Green tea prevents colon cancer.",
            NliResult(
                "neutral",
                0.62,
                {"supports": 0.19, "refutes": 0.19, "neutral": 0.62},
                "Black tea is popular.",
            ),
            id="neutral-low-overlap",
        ),
    ],
)
def test_heuristic_exact_confidences(premise: str, hypothesis: str, expected: NliResult) -> None:
    """The confidence formulas of the module docstring, on hand-computed overlaps."""
    result = heuristic_nli(premise, hypothesis)

    assert result.label == expected.label
    assert result.confidence == pytest.approx(expected.confidence)
    assert result.probs == pytest.approx(expected.probs)
    assert result.evidence_sentence == expected.evidence_sentence


def test_heuristic_empty_inputs() -> None:
    """Boundary: a claim with no content word, or an empty fragment, is neutral 0.5 / 0.7."""
    no_content = heuristic_nli("Aspirin reduces fever.", "It is what it is.")
    empty_premise = heuristic_nli("", "Aspirin reduces fever.")

    assert (no_content.label, no_content.confidence, no_content.evidence_sentence) == (
        "neutral",
        0.5,
        None,
    )
    assert (empty_premise.label, empty_premise.confidence, empty_premise.evidence_sentence) == (
        "neutral",
        0.7,
        None,
    )


def test_heuristic_judge_interface() -> None:
    """Same interface as the cross-encoder; marked degraded for _lyra_meta."""
    judge = HeuristicNli()

    results = judge.judge([PAIRS[1], ("Coffee improves memory.", "Coffee improves memory.")])

    assert judge.model_id == "heuristic-nli-v1"
    assert judge.degraded is True
    assert [r.label for r in results] == ["refutes", "supports"]


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("reduce reduces reduced reducing", {"reduc"}),
        ("increase increases increased increasing", {"increas"}),
        ("study studies", {"studi"}),
        ("hour hours", {"hour"}),
        ("loss", {"loss"}),
        ("virus viruses", {"virus"}),
        ("significantly", {"significant"}),
    ],
)
def test_stem_groups_inflections(words: str, expected: set[str]) -> None:
    """Inflections share one stem; -ss / -us words keep their s."""
    assert {stem(w) for w in words.split()} == expected


def test_tokens_keys_and_quantities() -> None:
    """Tokens keep numbers whole; antonyms fold onto an axis; ranges span their unit."""
    tokens = tokenize("It doesn't lower the 12 % rate of 1,000 patients over 5-7 hours in 2019.")

    assert tokens == [
        "it",
        "doesn't",
        "lower",
        "the",
        "12%",
        "rate",
        "of",
        "1,000",
        "patients",
        "over",
        "5",
        "-",
        "7",
        "hours",
        "in",
        "2019",
    ]
    assert content_keys(tokens) == {"~amount", "rat", "patient", "hour"}
    # "over 5-7 hours" dates an event: its unit is kept apart from a plain "5-7 hours".
    assert quantities(tokens) == {
        "%": [(12.0, 12.0)],
        "patient": [(1000.0, 1000.0)],
        "hour over": [(5.0, 7.0)],
    }
    # numbers in words before a unit, scales, and sums by their currency and rate
    words = tokenize("The £2m scheme reached two million people in three to five years.")
    assert quantities(words) == {
        "£": [(2e6, 2e6)],
        "peopl": [(2e6, 2e6)],
        "year in": [(3.0, 5.0)],
    }
    assert quantities(tokenize("two of the five trials cost $40 per patient")) == {
        "trial": [(5.0, 5.0)],
        "$/patient": [(40.0, 40.0)],
    }


@pytest.mark.parametrize(
    ("premise", "claim", "label"),
    [
        # Three planted corpora of session 44: contradictions about one quantity in
        # sentences that share little else (overlap 0.25 to 0.5).
        (
            "Our own counts at 40 entry points show that traffic in the zone fell by only 5 "
            "percent, far less than the figures the council likes to quote.",
            "Traffic entering the charging zone fell by 30 percent in the first year compared "
            "with the same months before the charge.",
            "refutes",
        ),
        (
            "TDD adds only 5 percent to development time once the team is used to it.",
            "Managers estimated that TDD increased initial development time by 15 to 35 percent.",
            "refutes",
        ),
        (
            "Test-driven development did not reduce defect density in our experiment with 120 "
            "graduate students, who implemented the same kata either test-first or test-last.",
            "Teams using test-driven development had 60 percent lower defect density than "
            "comparable teams working on similar components.",
            "refutes",
        ),
        # The same measure moving opposite ways, a word or two from what both name
        # (decision 0083), and the other way round; "rose" and "fell" are on the axis.
        (
            "Retail sales in the zone fell by 7 percent in the first six months of the "
            "charge, according to returns from 212 member businesses.",
            "Shopkeepers had feared the worst, but retail sales inside the zone rose by 3 "
            "percent in the first year, according to card payment data from two banks.",
            "refutes",
        ),
        (
            "Shopkeepers had feared the worst, but retail sales inside the zone rose by 3 "
            "percent in the first year, according to card payment data from two banks.",
            "Retail sales in the zone fell by 7 percent in the first six months of the "
            "charge, according to returns from 212 member businesses.",
            "refutes",
        ),
        (
            "Bus ridership in the zone climbed steadily during the first year of the charge.",
            "Bus ridership in the zone dropped after the charge was introduced last year.",
            "refutes",
        ),
        # A verb acting on what both name, in the present tense: "lower the risk"
        # against "raise the risk" (a blind planted corpus, session 53).
        (
            "Statins lower the risk of developing type 2 diabetes. My GP told me that "
            "years ago, so think of it as a bonus on top of the heart stuff.",
            "Statins slightly raise the risk of developing type 2 diabetes, mainly in "
            "people who already have high blood sugar.",
            "refutes",
        ),
        (
            "Statins raise the risk of developing type 2 diabetes in people with high blood sugar.",
            "Statins slightly raise the risk of developing type 2 diabetes, mainly in "
            "people who already have high blood sugar.",
            "supports",
        ),
        # The same few words, no contradiction about them: the negation bears on
        # something else, the numbers count other things, the opposite move is of
        # something else.
        (
            "Test-driven development did not change how teams planned their sprints.",
            "Teams using test-driven development had 60 percent lower defect density than "
            "comparable teams working on similar components.",
            "neutral",
        ),
        (
            "In the zone, 12 new bus lanes opened and 40 junctions were redesigned.",
            "Traffic entering the charging zone fell by 30 percent in the first year.",
            "neutral",
        ),
        # Beside a shared name, words of degree often describe something else: only a
        # past-tense move, or a verb before a determiner that is not an -ing form,
        # counts (HealthVer dev pairs the looser rules refuted).
        (
            "Several studies demonstrated the role of vitamin D in reducing the risk of acute "
            "viral respiratory tract infections and pneumonia.",
            "a study reports the potential contribution of vitamin D deficiency to an "
            "increased risk of COVID-19 in a subset of health care workers in the UK",
            "neutral",
        ),
        (
            "Several studies demonstrated the role of vitamin D in reducing the risk of acute "
            "viral respiratory tract infections and pneumonia.",
            "the lack of Vitamin D make you more susceptible to the Covid-19 coronavirus",
            "neutral",
        ),
        (
            "Retail sales in the zone were steady in the first year of the charge, while "
            "rents for shops near the boundary rose sharply over the same months.",
            "Shopkeepers had feared the worst, and footfall on the high street fell by 4 "
            "percent, although retail sales in the zone were steady.",
            "neutral",
        ),
    ],
)
def test_a_contradiction_anchored_on_what_both_name(premise: str, claim: str, label: str) -> None:
    assert heuristic_nli(premise, claim).label == label
