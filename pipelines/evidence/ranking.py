"""Ranking of SERP items and passages: BM25, hybrid with embeddings, Kneedle cutoff.

ARCHITECTURE §3 step 5 and seed 004: BM25 over title + snippet/abstract and cosine
similarity of embeddings, each min-max normalised and mixed 0.3 / 0.7, then the list
is cut where the sorted score curve bends (Kneedle, Satopää et al. 2011), keeping
between 3 and 50 items. DuckDB has no `fts` extension offline, so BM25 is computed
here with numpy.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

DEFAULT_K1: Final = 1.5
DEFAULT_B: Final = 0.75
DEFAULT_BM25_WEIGHT: Final = 0.3
DEFAULT_EMBEDDING_WEIGHT: Final = 0.7
DEFAULT_MIN_K: Final = 3
DEFAULT_MAX_K: Final = 50
# The knee must rise this far above the diagonal of the normalised curve; below it
# the curve is a straight line up to rounding (or noise) and has no knee.
KNEE_MIN_LIFT: Final = 0.01

# English function words: they match everywhere and say nothing about relevance.
# fmt: off
STOPWORDS: Final[frozenset[str]] = frozenset((
    "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any",
    "are", "aren't", "as", "at", "be", "because", "been", "before", "being", "below",
    "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down",
    "during", "each", "few", "for", "from", "further", "had", "has", "have", "having",
    "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if",
    "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my",
    "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other",
    "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so",
    "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then",
    "there", "these", "they", "this", "those", "through", "to", "too", "under", "until",
    "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who",
    "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself",
    "yourselves", "s", "t", "don",
))
# fmt: on

# Scripts written without spaces: a run of these characters is cut into character
# bigrams, the usual unit for CJK retrieval; a lone character stays a unigram.
_CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK_CLASS}]+|[^\W{_CJK_CLASS}]+")
_CJK_RUN = re.compile(rf"^[{_CJK_CLASS}]+$")


def tokenize(text: str) -> list[str]:
    """Lower-case unicode word tokens without stopwords; CJK runs as character bigrams."""
    tokens: list[str] = []
    for word in _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold()):
        if _CJK_RUN.match(word):
            if len(word) == 1:
                tokens.append(word)
            else:
                tokens.extend(word[i : i + 2] for i in range(len(word) - 1))
        elif word not in STOPWORDS:
            tokens.append(word)
    return tokens


def bm25_scores(
    query: str, docs: Sequence[str], k1: float = DEFAULT_K1, b: float = DEFAULT_B
) -> FloatArray:
    """Okapi BM25 score of every doc for `query` (Lucene's non-negative idf)."""
    scores = np.zeros(len(docs), dtype=np.float64)
    query_terms = list(dict.fromkeys(tokenize(query)))
    if not docs or not query_terms:
        return scores
    doc_tokens = [Counter(tokenize(doc)) for doc in docs]
    lengths = np.array([sum(c.values()) for c in doc_tokens], dtype=np.float64)
    average = float(lengths.mean())
    if average == 0.0:
        return scores
    n_docs = len(docs)
    norm = k1 * (1.0 - b + b * lengths / average)
    for term in query_terms:
        tf = np.array([c.get(term, 0) for c in doc_tokens], dtype=np.float64)
        df = int(np.count_nonzero(tf))
        if df == 0:
            continue
        idf = math.log((n_docs - df + 0.5) / (df + 0.5) + 1.0)
        scores += idf * tf * (k1 + 1.0) / (tf + norm)
    return scores


def min_max(values: npt.ArrayLike) -> FloatArray:
    """Scale to [0, 1]; a constant (or empty) array carries no ranking signal → zeros."""
    array = np.nan_to_num(np.asarray(values, dtype=np.float64), nan=0.0)
    if array.size == 0:
        return array
    low, high = float(array.min()), float(array.max())
    if high - low <= 0.0:
        return np.zeros_like(array)
    scaled: FloatArray = (array - low) / (high - low)
    return scaled


def hybrid_scores(
    bm25: npt.ArrayLike,
    cosine: npt.ArrayLike,
    bm25_weight: float = DEFAULT_BM25_WEIGHT,
    embedding_weight: float = DEFAULT_EMBEDDING_WEIGHT,
) -> FloatArray:
    """Weighted sum of min-max normalised BM25 and cosine scores."""
    lexical = np.asarray(bm25, dtype=np.float64)
    semantic = np.asarray(cosine, dtype=np.float64)
    if lexical.shape != semantic.shape:
        raise ValueError(
            f"bm25 and cosine scores differ in shape: {lexical.shape} vs {semantic.shape}"
        )
    if bm25_weight < 0 or embedding_weight < 0:
        raise ValueError("ranking weights must be non-negative")
    mixed: FloatArray = bm25_weight * min_max(lexical) + embedding_weight * min_max(semantic)
    return mixed


def kneedle_cutoff(
    scores_desc: Sequence[float], min_k: int = DEFAULT_MIN_K, max_k: int = DEFAULT_MAX_K
) -> int:
    """How many of the descending scores to keep: the Kneedle knee, clamped.

    The curve is normalised to the unit square and flipped so the drop becomes a
    rising concave curve; the knee is where it lies furthest above the diagonal, and
    the items before it are kept. A curve with no knee (linear, constant or concave)
    keeps everything up to `max_k`. The result is clamped to [min_k, max_k] and never
    exceeds the number of scores.
    """
    if min_k < 0 or max_k < min_k:
        raise ValueError(f"need 0 <= min_k <= max_k, got min_k={min_k}, max_k={max_k}")
    values = np.nan_to_num(np.asarray(scores_desc, dtype=np.float64), nan=0.0)
    n = int(values.size)
    if n == 0:
        return 0
    if np.any(np.diff(values) > 1e-12):
        raise ValueError("scores_desc must be sorted in descending order")
    knee = n
    low, high = float(values[-1]), float(values[0])
    if n >= 3 and high > low:
        x = np.linspace(0.0, 1.0, n)
        rising = 1.0 - (values - low) / (high - low)
        difference = rising - x
        best = int(np.argmax(difference))
        if difference[best] > KNEE_MIN_LIFT:
            knee = best
    return min(n, max(min_k, min(max_k, knee)))


def rank(
    query: str,
    texts: Sequence[str],
    cosine: npt.ArrayLike,
    *,
    bm25_weight: float = DEFAULT_BM25_WEIGHT,
    embedding_weight: float = DEFAULT_EMBEDDING_WEIGHT,
    min_k: int = DEFAULT_MIN_K,
    max_k: int = DEFAULT_MAX_K,
) -> list[int]:
    """Indices of the texts to keep, best first: hybrid score order, Kneedle cutoff."""
    similarity = np.asarray(cosine, dtype=np.float64)
    if similarity.shape != (len(texts),):
        raise ValueError(f"expected {len(texts)} cosine scores, got shape {similarity.shape}")
    combined = hybrid_scores(bm25_scores(query, texts), similarity, bm25_weight, embedding_weight)
    # Stable sort on the negated score: equal scores keep their input (engine) order.
    order = np.argsort(-combined, kind="stable")
    keep = kneedle_cutoff(combined[order].tolist(), min_k, max_k)
    return [int(i) for i in order[:keep]]


# seek_primary (issue 4): a PRIMARY / GOVERNMENT / ACADEMIC source moves up by this much
# of the [0, 1] hybrid score: ahead of an equally relevant secondary source, never ahead
# of one that is much more relevant. Trust changes ranking only, never confidence.
PRIMARY_BOOST = 0.25


def seek_primary_scores(
    scores: npt.ArrayLike, trust_levels: Sequence[str | None], boost: float = PRIMARY_BOOST
) -> FloatArray:
    """`scores` with `boost` added to every source of a primary trust level."""
    base = np.asarray(scores, dtype=np.float64)
    if base.shape != (len(trust_levels),):
        raise ValueError(f"{len(trust_levels)} trust levels for {base.shape} scores")
    primary = np.array(
        [level in ("PRIMARY", "GOVERNMENT", "ACADEMIC") for level in trust_levels], dtype=bool
    )
    boosted: FloatArray = base + boost * primary
    return boosted
