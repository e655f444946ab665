"""A cross-encoder reranker: one relevance score per (query, passage) pair.

What ``lyra models pull reranker`` installs (bge-reranker-v2-m3 by default, decision
0015): a sequence-classification model with a single logit, exported to ONNX. The
search's passage ranking asks it to re-order each facet's best candidates
(``facets.rerank_heads``, decision 0047). Loading, length-sorted batches and the
out-of-memory retry are the NLI judge's (``nli.PairModel``); a model whose config does
not declare exactly one label is refused: a three-class NLI model's first logit is
not a relevance score.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lyra.pipelines.evidence.nli import NliModelError, PairModel


class RerankerModelError(NliModelError):
    """The reranker folder or its config.json is missing, or it is not a one-logit model
    (a missing tokenizer or unreadable weights raise the base NliModelError)."""


class CrossEncoderReranker(PairModel):
    """Scores (query, passage) pairs; higher is more relevant (raw logits)."""

    error_type = RerankerModelError

    def _missing_folder(self, model_dir: Path) -> str:
        return f"reranker folder {model_dir} does not exist; run `lyra models pull reranker`"

    def _check_config(self, path: Path, config: dict[str, Any]) -> None:
        id2label = config.get("id2label")
        labels = len(id2label) if isinstance(id2label, dict) else config.get("num_labels")
        if labels != 1:
            raise RerankerModelError(
                f"{path} declares {labels} labels; a reranker has one relevance logit"
            )

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """The relevance logit of each (query, passage) pair, in input order."""
        logits = self._batched(pairs, self._impl.logits, 1)
        return np.asarray(logits[:, 0], dtype=np.float64)
