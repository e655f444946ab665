"""Lyra's packaged stance model: where it lives and what it is called.

A MiniLM-L6 cross-encoder (premise, claim) → supports / refutes / neutral, trained by
``scripts/train_stance.py`` on third-party labelled pairs (data list, licences, seed
and figures: docs/stance-model.md), int8 ONNX with a calibration temperature, shipped
inside the package (``stance-minilm/``). Selected with ``inference.nli_model_path:
packaged`` and reported in ``_lyra_meta.degraded`` (ARCHITECTURE §7). Not yet the
default: on examples/corpus it calls many merely related sentences "refutes"
(docs/stance-model.md has the figures).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lyra.pipelines.evidence.nli import CrossEncoderNli, NliResult
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli

STANCE_MODEL_ID = "lyra-stance-minilm-l6-v1"
# The value of inference.nli_model_path that selects this model.
PACKAGED = "packaged"
# A hyphen keeps the data folder from looking like an importable package to setuptools.
_FOLDER = "stance-minilm"


def packaged_stance_dir() -> Path:
    """The folder holding config.json, tokenizer.json, model.onnx and calibration.json."""
    return Path(__file__).resolve().parent / _FOLDER


class PackagedStance:
    """The packaged cross-encoder, with the lexical contradiction rules as a veto.

    The MiniLM model trained here misses some plain contradictions a reader sees at
    once ("does not raise" against "raises", "reduces" against "increases"): its
    HealthVer-fitted layer weighs topical overlap heavily. The heuristic's refutation
    rules (``nli_heuristic``: high content overlap plus a negation difference, an
    antonym flip or a different number before the same unit) are precise on exactly
    those, so where they fire the pair is "refutes" with the heuristic's probabilities
    (``method`` stays the model's: the edge records ``stance_model_id``). Everything
    else is the model's calibrated judgement. ``bench/stance.py`` measures the two
    together, as they run.
    """

    def __init__(self, model: CrossEncoderNli) -> None:
        self._model = model

    @property
    def model_id(self) -> str:
        """Name recorded with the edges this judge produces."""
        return self._model.model_id

    @property
    def degraded(self) -> bool:
        """False: a trained model (the actor still reports it as the offline default)."""
        return False

    @property
    def model(self) -> CrossEncoderNli:
        """The cross-encoder underneath."""
        return self._model

    def judge(self, pairs: Sequence[tuple[str, str]]) -> list[NliResult]:
        """One result per (premise, claim) pair, in order."""
        return veto_refutations(pairs, self._model.judge(pairs))


def veto_refutations(
    pairs: Sequence[tuple[str, str]], results: Sequence[NliResult]
) -> list[NliResult]:
    """``results`` with every pair the lexical rules call "refutes" set to theirs."""
    out = []
    for (premise, claim), result in zip(pairs, results, strict=True):
        rule = heuristic_nli(premise, claim)
        out.append(rule if rule.label == "refutes" else result)
    return out


def load_packaged_stance(
    *, max_length: int = 256, batch_size: int = 16, use_gpu: bool = False
) -> PackagedStance:
    """The offline default stance judge (raises NliModelError when the folder is broken)."""
    model = CrossEncoderNli(
        packaged_stance_dir(),
        max_length=max_length,
        batch_size=batch_size,
        backend="onnx",
        use_gpu=use_gpu,
        model_id=STANCE_MODEL_ID,
    )
    return PackagedStance(model)
