"""Lyra's packaged stance model, the offline default: where it lives and how it judges.

``lyra-stance-minilm-l6-v2`` (issue 12; data, seed and figures in docs/stance-model.md,
decision 0018). Two MiniLM-L6 encoders read each (premise, claim) pair:

- a cross-encoder fine-tuned by ``scripts/train_stance.py`` on third-party NLI and
  claim-verification pairs, int8 ONNX in ``stance-minilm/``, whose ``features`` output
  holds its pooled vector, token means over the pair, the claim and the premise, their
  product and difference, and its NLI logits (``config.json`` lists the layout);
- the embedder the InferenceActor already runs (all-MiniLM-L6-v2), whose unit vectors
  u (premise) and v (claim) give [u, v, |u - v|, u * v].

A linear head over both (``stance_head.npz``: weights, bias, temperature), fitted on
HealthVer dev plus claims paired with passages of other topics as neutral, gives
calibrated supports / refutes / neutral. Without the embedder the head fitted on the
cross-encoder's features alone is used, and the actor reports that as degraded. The
lexical refutation rules override either (``veto_refutations``), with their own
confidence Platt-scaled on the head's training pairs (``veto_platt`` in the same file).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lyra.pipelines.evidence.nli import (
    FEATURES_OUTPUT,
    NLI_LABELS,
    CrossEncoderNli,
    NliModelError,
    NliResult,
    results_from_logits,
)
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli, speaks_of_another
from lyra.pipelines.evidence.stance_head import (
    CalibratedHead,
    LinearHead,
    bi_encoder_features,
    fit_platt,
)

STANCE_MODEL_ID = "lyra-stance-minilm-l6-v2"
# The value of inference.nli_model_path that selects this model explicitly (it is also
# what the actor loads when nothing is configured or pulled).
PACKAGED = "packaged"
HEAD_FILENAME = "stance_head.npz"
# The array of HEAD_FILENAME holding the veto's Platt scaling (a, b) (decision 0043).
VETO_KEY = "veto_platt"
# The least probability a vetoed pair gets: over 1/3, so that "refutes" stays the most
# likely label when the other two share the rest.
VETO_FLOOR = 0.34
# A hyphen keeps the data folder from looking like an importable package to setuptools.
_FOLDER = "stance-minilm"
# Texts whose embedder vectors are kept between calls (about 1.5 KB each): the stance
# step pairs each claim with up to 8 fragments, and each fragment with many claims, and
# the InferenceActor hands over the vectors it has just made for a search's fragments
# and claims (``remember``), so the stance step rarely embeds anything itself.
EMBEDDING_CACHE = 16384

Embed = Callable[[Sequence[str]], np.ndarray]


def packaged_stance_dir() -> Path:
    """The folder holding config.json, tokenizer.json, model.onnx and stance_head.npz."""
    return Path(__file__).resolve().parent / _FOLDER


def load_heads(path: Path) -> dict[str, CalibratedHead]:
    """The heads in ``stance_head.npz``: "full" (cross + embedder) and "cross" (alone)."""
    if not path.is_file():
        raise NliModelError(f"stance model folder {path.parent} has no {path.name}")
    heads = {}
    with np.load(path, allow_pickle=False) as data:
        for name in ("full", "cross"):
            try:
                weight = np.asarray(data[f"{name}_weight"], dtype=np.float64)
                bias = np.asarray(data[f"{name}_bias"], dtype=np.float64)
                temperature = float(data[f"{name}_temperature"])
            except KeyError as exc:
                raise NliModelError(f"{path} lacks {exc}") from exc
            if weight.ndim != 2 or weight.shape[0] != len(NLI_LABELS) or bias.shape != (3,):
                raise NliModelError(f"{path}: {name} head has shape {weight.shape}")
            if not temperature > 0:
                raise NliModelError(f"{path}: {name} head has temperature {temperature}")
            heads[name] = CalibratedHead(LinearHead(weight, bias), temperature)
    return heads


@dataclass(frozen=True)
class VetoCalibration:
    """The probability that a pair the lexical refutation rules call "refutes" is one:
    sigmoid(a + b * logit(rule confidence)), at least VETO_FLOOR. The rules' own
    confidence (0.75 to 0.9, from word overlap) is a ranking, not a probability: on
    HealthVer dev they are right on 19 of the 39 pairs they fire on."""

    a: float
    b: float

    def probability(self, rule_confidence: float) -> float:
        """The calibrated probability for a pair the rules gave ``rule_confidence``."""
        c = min(max(rule_confidence, 1e-6), 1.0 - 1e-6)
        z = self.a + self.b * math.log(c / (1.0 - c))
        return max(VETO_FLOOR, 1.0 / (1.0 + math.exp(-z)))


def load_veto_calibration(path: Path) -> VetoCalibration:
    """The veto's Platt scaling from the head file (monotone: ``b`` ≥ 0, both finite)."""
    if not path.is_file():
        raise NliModelError(f"stance model folder {path.parent} has no {path.name}")
    with np.load(path, allow_pickle=False) as data:
        if VETO_KEY not in data.files:
            raise NliModelError(f"{path} lacks {VETO_KEY!r}")
        values = np.asarray(data[VETO_KEY], dtype=np.float64)
    if values.shape != (2,) or not np.isfinite(values).all() or values[1] < 0:
        raise NliModelError(f"{path}: {VETO_KEY} must be two finite numbers (a, b ≥ 0)")
    return VetoCalibration(float(values[0]), float(values[1]))


def fit_veto(
    pairs: Sequence[tuple[str, str]], labels: Sequence[str]
) -> tuple[VetoCalibration, int, int]:
    """The veto's Platt scaling on labelled (premise, claim) pairs, with how many pairs
    the rules fire on and how many of those are labelled "refutes". Pulled toward the
    rules' own confidence (a = 0, b = 1), so a handful of pairs moves it little."""
    scores, outcomes = [], []
    for (premise, claim), label in zip(pairs, labels, strict=True):
        rule = heuristic_nli(premise, claim)
        if rule.label == "refutes":
            scores.append(math.log(rule.confidence / (1.0 - rule.confidence)))
            outcomes.append(label == "refutes")
    a, b = fit_platt(np.array(scores), np.array(outcomes, dtype=np.float64))
    return VetoCalibration(a, b), len(outcomes), sum(outcomes)


class PackagedStance:
    """The packaged stance model, with the lexical contradiction rules as a veto.

    The model misses some plain contradictions a reader sees at once ("does not raise"
    against "raises", 5 hours against 12 hours): its HealthVer-fitted head weighs
    topical overlap heavily. The heuristic's refutation rules (``nli_heuristic``: high
    content overlap plus a negation difference, an antonym flip or a different number
    before the same unit) catch exactly those, so where they fire the pair is "refutes",
    with the probability ``veto`` gives their confidence (Platt-scaled on the head's
    training pairs: their own word-overlap confidence overstates how often they are
    right). Everything else is the model's calibrated judgement.
    ``bench/stance.py`` measures the two together, as they run.
    """

    def __init__(
        self,
        model: CrossEncoderNli,
        heads: dict[str, CalibratedHead],
        embed: Embed | None = None,
        *,
        veto: VetoCalibration,
    ) -> None:
        if not model.has_output(FEATURES_OUTPUT):
            raise NliModelError(f"model {model.model_id} has no '{FEATURES_OUTPUT}' output")
        self._model = model
        self._heads = heads
        self._veto = veto
        self._embed = embed
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    @property
    def model_id(self) -> str:
        """Name recorded with the edges this judge produces."""
        return self._model.model_id

    @property
    def degraded(self) -> bool:
        """False: a trained model (the actor still reports it as the offline default)."""
        return False

    @property
    def uses_embedder(self) -> bool:
        """True when the full head (cross-encoder + embedder features) judges."""
        return self._embed is not None

    @property
    def model(self) -> CrossEncoderNli:
        """The cross-encoder underneath."""
        return self._model

    def _embedded(self, texts: Sequence[str]) -> np.ndarray:
        """Embedder vectors of ``texts`` (each distinct text embedded once, then cached)."""
        assert self._embed is not None
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            for text, vector in zip(missing, np.asarray(self._embed(missing)), strict=True):
                self._vectors[text] = vector
        for text in texts:
            self._vectors.move_to_end(text)
        while len(self._vectors) > max(EMBEDDING_CACHE, len(texts)):
            self._vectors.popitem(last=False)
        return np.stack([self._vectors[t] for t in texts])

    def remember(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Keep the embedder's ``vectors`` of ``texts`` (made elsewhere by the same model).

        The InferenceActor calls this with what its ``embed`` returned, when the embedder
        it serves is the one this head reads: the search embeds every fragment and claim
        before the stance step, which then needs only the cross-encoder.
        """
        if self._embed is None:
            return
        for text, vector in zip(texts, np.asarray(vectors), strict=True):
            self._vectors[text] = vector
            self._vectors.move_to_end(text)
        while len(self._vectors) > EMBEDDING_CACHE:
            self._vectors.popitem(last=False)

    def features(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """What the head reads for each pair (cross-encoder, then embedder features)."""
        cross = self._model.output(FEATURES_OUTPUT, pairs)
        if self._embed is None:
            return cross
        vectors = self._embedded([p for p, _ in pairs] + [c for _, c in pairs])
        return np.hstack([cross, bi_encoder_features(vectors[: len(pairs)], vectors[len(pairs) :])])

    def judge(self, pairs: Sequence[tuple[str, str]]) -> list[NliResult]:
        """One result per (premise, claim) pair, in order.

        The lexical rules read every pair first: a pair they call "refutes" takes their
        verdict whatever the model says (`veto_refutations`), so only the others go
        through the encoders. Each pair's result is the same as if every pair had (the
        int8 graph quantises each row alone, decision 0039); a task whose sources
        disagree on many numbers spends far less time here (decision 0111)."""
        if not pairs:
            return []
        rules = [heuristic_nli(premise, claim) for premise, claim in pairs]
        open_pairs = [pair for pair, rule in zip(pairs, rules, strict=True) if not _vetoes(rule)]
        head = self._heads["full" if self._embed is not None else "cross"]
        judged = iter(
            results_from_logits(head.logits(self.features(open_pairs)), NLI_LABELS)
            if open_pairs
            else []
        )
        results = [_VETOED if _vetoes(rule) else next(judged) for rule in rules]
        return veto_refutations(pairs, results, self._veto, rules)


# Stands in for the model's result of a pair the rules decide (it is never returned).
_VETOED = NliResult("refutes", 1.0, {"supports": 0.0, "refutes": 1.0, "neutral": 0.0}, None)


def _vetoes(rule: NliResult) -> bool:
    return rule.label == "refutes"


def veto_refutations(
    pairs: Sequence[tuple[str, str]],
    results: Sequence[NliResult],
    veto: VetoCalibration,
    rules: Sequence[NliResult] | None = None,
) -> list[NliResult]:
    """``results`` with every pair the lexical rules call "refutes" set to "refutes" at
    the probability ``veto`` gives (the other two labels share the rest evenly).
    ``rules``: the rules' results of ``pairs`` where the caller has them already."""
    if rules is None:
        rules = [heuristic_nli(premise, claim) for premise, claim in pairs]
    out = []
    for (premise, claim), result, rule in zip(pairs, results, rules, strict=True):
        if _vetoes(rule):
            confidence = veto.probability(rule.confidence)
            rest = (1.0 - confidence) / 2.0
            probs: dict[str, float] = {
                label: (confidence if label == "refutes" else rest) for label in NLI_LABELS
            }
            result = NliResult("refutes", confidence, probs, rule.evidence_sentence)
        elif result.label == "supports" and speaks_of_another(premise, claim):
            # what the premise says of another named thing is no support: its support and
            # neutral probabilities trade places (decision 0098)
            probs = {**result.probs, "supports": result.probs["neutral"],
                     "neutral": result.probs["supports"]}  # fmt: skip
            result = NliResult("neutral", probs["neutral"], probs, None)
        out.append(result)
    return out


def load_packaged_stance(
    *,
    embed: Embed | None = None,
    max_length: int = 256,
    batch_size: int = 16,
    use_gpu: bool = False,
) -> PackagedStance:
    """The offline default stance judge (raises NliModelError when the folder is broken).

    ``embed`` is the embedder's ``embed`` (unit all-MiniLM-L6-v2 vectors); without it
    the cross-encoder-only head judges. The int8 graph quantises its activations per
    row (decision 0039), so a pair's judgment does not depend on the other pairs of its
    batch.
    """
    folder = packaged_stance_dir()
    model = CrossEncoderNli(
        folder,
        max_length=max_length,
        batch_size=batch_size,
        backend="onnx",
        use_gpu=use_gpu,
        model_id=STANCE_MODEL_ID,
    )
    head_file = folder / HEAD_FILENAME
    return PackagedStance(
        model, load_heads(head_file), embed, veto=load_veto_calibration(head_file)
    )
