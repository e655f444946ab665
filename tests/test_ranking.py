"""BM25, hybrid scoring and the Kneedle cutoff (ARCHITECTURE §3 step 5, seed 004)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lyra.pipelines.evidence.ranking import (
    DEFAULT_BM25_WEIGHT,
    DEFAULT_EMBEDDING_WEIGHT,
    DEFAULT_MAX_K,
    DEFAULT_MIN_K,
    bm25_scores,
    hybrid_scores,
    kneedle_cutoff,
    min_max,
    rank,
    tokenize,
)

SERP = [
    "Aspirin reduces fever in adults within two hours",
    "Aspirin and fever: a randomized trial in adults",
    "Fever control with aspirin in adult patients",
    "Aspirin dosing for fever",
    "Weather forecast for the weekend",
    "Football results from the league",
    "Stock markets fell on Monday",
    "A recipe for chocolate cake",
]
SERP_COSINE = [0.91, 0.86, 0.84, 0.80, 0.12, 0.10, 0.08, 0.05]


def fullwidth(text: str) -> str:
    """The full-width form of ASCII text (a common filter bypass that NFKC undoes)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def test_production_defaults_match_the_design() -> None:
    """0.3 / 0.7 and Kneedle in [3, 50] are the design's numbers, also in settings.yaml."""
    assert (DEFAULT_BM25_WEIGHT, DEFAULT_EMBEDDING_WEIGHT) == (0.3, 0.7)
    assert (DEFAULT_MIN_K, DEFAULT_MAX_K) == (3, 50)


def test_tokenize_lowercases_drops_stopwords_and_bigrams_cjk() -> None:
    """Unicode words, no stopwords, numbers kept; Japanese as character bigrams."""
    assert tokenize("The Aspirin trial of 2020, in ADULTS") == [
        "aspirin",
        "trial",
        "2020",
        "adults",
    ]
    assert tokenize(fullwidth("Fever")) == ["fever"]
    assert tokenize("アスピリンは熱") == ["アス", "スピ", "ピリ", "リン", "ンは", "は熱"]
    assert tokenize("熱") == ["熱"]
    assert tokenize("the of and") == []


def test_bm25_matches_hand_computed_values() -> None:
    """Okapi BM25, k1 = 1.5, b = 0.75, Lucene idf ln((N - df + 0.5)/(df + 0.5) + 1).

    Docs (after stopwords): [aspirin reduces fever] (3), [fever children] (2),
    [weather today] (2); avgdl = 7/3.
    """
    docs = ["Aspirin reduces fever", "Fever in children", "Weather today"]
    scores = bm25_scores("aspirin fever", docs)
    avgdl = 7 / 3
    idf_aspirin = math.log((3 - 1 + 0.5) / (1 + 0.5) + 1)
    idf_fever = math.log((3 - 2 + 0.5) / (2 + 0.5) + 1)

    def term(idf: float, length: int) -> float:
        return idf * 2.5 / (1 + 1.5 * (1 - 0.75 + 0.75 * length / avgdl))

    expected = [term(idf_aspirin, 3) + term(idf_fever, 3), term(idf_fever, 2), 0.0]
    np.testing.assert_allclose(scores, expected, rtol=1e-12)
    np.testing.assert_allclose(scores, [1.2855481, 0.5022940, 0.0], atol=1e-6)


def test_bm25_repeated_query_terms_count_once() -> None:
    """A query term typed twice does not double its weight."""
    docs = ["Aspirin reduces fever", "Fever in children", "Weather today"]
    np.testing.assert_allclose(
        bm25_scores("aspirin aspirin fever", docs), bm25_scores("aspirin fever", docs)
    )


@pytest.mark.parametrize(
    ("query", "docs", "expected"),
    [
        ("aspirin", [], []),
        ("", ["Aspirin reduces fever"], [0.0]),
        ("the of and", ["The end of the trial"], [0.0]),
        ("aspirin", ["", ""], [0.0, 0.0]),
        ("ibuprofen", ["Aspirin reduces fever", "Fever in children"], [0.0, 0.0]),
    ],
)
def test_bm25_boundaries(query: str, docs: list[str], expected: list[float]) -> None:
    """Empty query, stopword-only query, empty docs and no match all give zeros."""
    scores = bm25_scores(query, docs)
    assert scores.shape == (len(docs),)
    assert scores.tolist() == expected


def test_bm25_japanese_query_matches_japanese_text() -> None:
    """Without spaces, bigrams still let a Japanese query find its document."""
    scores = bm25_scores("アスピリン 発熱", ["アスピリンは発熱を抑える", "今日の天気は晴れ"])
    assert scores[0] == pytest.approx(3.1507, abs=1e-4)
    assert scores[1] == 0.0


def test_hybrid_scores_normalise_then_mix() -> None:
    """bm25 [0, 5, 10] → [0, .5, 1]; cosine [.2, .8, .5] → [0, 1, .5]; 0.3/0.7 mix."""
    mixed = hybrid_scores(np.array([0.0, 5.0, 10.0]), np.array([0.2, 0.8, 0.5]))
    np.testing.assert_allclose(mixed, [0.0, 0.85, 0.65], rtol=1e-12)


def test_hybrid_scores_constant_signal_contributes_nothing() -> None:
    """A constant column (e.g. no query term matched anywhere) carries no ranking signal."""
    mixed = hybrid_scores(np.zeros(3), np.array([0.1, 0.3, 0.2]))
    np.testing.assert_allclose(mixed, [0.0, 0.7, 0.35], rtol=1e-12)
    assert min_max(np.array([4.0, 4.0])).tolist() == [0.0, 0.0]
    assert min_max(np.array([np.nan, 2.0])).tolist() == [0.0, 1.0]


def test_hybrid_scores_rejects_mismatched_inputs() -> None:
    """Score arrays from different lists must not be silently broadcast."""
    with pytest.raises(ValueError, match="shape"):
        hybrid_scores(np.zeros(3), np.zeros(2))
    with pytest.raises(ValueError, match="non-negative"):
        hybrid_scores(np.zeros(2), np.zeros(2), bm25_weight=-0.1)


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ([0.9, 0.88, 0.85, 0.3, 0.25, 0.2, 0.18], 3),  # clear knee after three
        ([1.0] * 6 + [0.0] * 6, 6),  # a step
        ([1.0, 0.99, 0.98, 0.97, 0.5, 0.0], 6),  # concave: no knee, keep all
        ([0.5] * 10, 10),  # constant: no knee
        ([1.0, 0.1, 0.09, 0.08, 0.07, 0.06], 3),  # knee at 1, raised to min_k
        ([1.0, 0.5], 2),  # fewer than min_k: all of them
        ([], 0),
        ([0.7], 1),
    ],
)
def test_kneedle_cutoff(scores: list[float], expected: int) -> None:
    """The knee of the sorted curve, clamped to [min_k, max_k] and the list length."""
    assert kneedle_cutoff(scores) == expected


def test_kneedle_cutoff_clamps_to_max_k() -> None:
    """A linear 100-item curve has no knee; at most max_k = 50 are kept."""
    linear = list(np.linspace(1.0, 0.0, 100))
    assert kneedle_cutoff(linear) == 50
    step = [1.0] * 60 + [0.0] * 40
    assert kneedle_cutoff(step) == 50
    assert kneedle_cutoff(step, min_k=3, max_k=80) == 60


def test_kneedle_cutoff_rejects_bad_arguments() -> None:
    """Unsorted input and inverted bounds are caller bugs."""
    with pytest.raises(ValueError, match="descending"):
        kneedle_cutoff([0.1, 0.9, 0.5])
    with pytest.raises(ValueError, match="min_k"):
        kneedle_cutoff([0.9, 0.5], min_k=5, max_k=3)


def test_rank_keeps_the_relevant_head_in_hybrid_order() -> None:
    """Four on-topic results ranked by 0.3 BM25 + 0.7 cosine; the off-topic tail is cut."""
    kept = rank("aspirin fever adults", SERP, SERP_COSINE)
    assert kept == [1, 0, 3, 2]


def test_rank_ties_keep_engine_order_and_min_k() -> None:
    """All-equal scores: no knee, every item kept in input order."""
    texts = ["alpha report", "beta report", "gamma report", "delta report"]
    assert rank("unrelated words", texts, [0.5, 0.5, 0.5, 0.5]) == [0, 1, 2, 3]


def test_rank_validates_cosine_length() -> None:
    """One cosine score per text."""
    with pytest.raises(ValueError, match="cosine"):
        rank("aspirin", ["a", "b"], [0.1])


def test_seek_primary_lifts_primary_sources_by_a_quarter_of_the_score_range() -> None:
    from lyra.pipelines.evidence.ranking import seek_primary_scores

    scores = [0.9, 0.8, 0.6, 0.5]
    levels = ["UNVERIFIED", "GOVERNMENT", "ACADEMIC", "LOW"]
    boosted = seek_primary_scores(scores, levels)
    assert boosted.tolist() == pytest.approx([0.9, 1.05, 0.85, 0.5])
    # An equally relevant primary source moves ahead; a much less relevant one does not.
    assert sorted(range(4), key=lambda i: -boosted[i]) == [1, 0, 2, 3]
    with pytest.raises(ValueError, match="3 trust levels"):
        seek_primary_scores(scores, levels[:3])
