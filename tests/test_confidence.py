"""Bayesian claim confidence exactly as ARCHITECTURE §4 (seed 001, decision 7)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from lyra.pipelines.evidence.confidence import (
    ClaimConfidence,
    EvidenceEdge,
    NotAdopted,
    beta_stats,
    claim_confidence,
    independent_sources,
    not_adopted,
    registrable_domain,
)


def exact(value: float | tuple[float, ...]) -> Any:
    """Equality up to floating-point rounding of the formulas."""
    return pytest.approx(value, rel=1e-12, abs=1e-12)


def test_no_evidence_is_the_uniform_prior() -> None:
    """Beta(1, 1): confidence 0.5, sd sqrt(1/12), controversy 0 by definition."""
    result = claim_confidence([])
    assert result == ClaimConfidence(
        alpha=1.0,
        beta=1.0,
        confidence=0.5,
        uncertainty=exact(math.sqrt(1 / 12)),
        controversy=0.0,
        supporting=0,
        refuting=0,
        neutral=0,
        evidence_count=0,
        independent_sources=0,
    )


def test_supports_and_refutes_add_their_nli_confidence() -> None:
    """alpha = 1 + 0.9, beta = 1 + 0.6; every derived figure follows the formulas."""
    edges = [
        EvidenceEdge("supports", 0.9, "p1", "who.int"),
        EvidenceEdge("refutes", 0.6, "p2", "example.org"),
    ]
    result = claim_confidence(edges)
    assert result.alpha == exact(1.9)
    assert result.beta == exact(1.6)
    assert result.confidence == exact(1.9 / 3.5)
    assert result.uncertainty == exact(math.sqrt(1.9 * 1.6 / (3.5**2 * 4.5)))
    assert result.uncertainty == exact(0.2348348191607229)
    assert result.controversy == exact(0.6 / 1.5)
    assert (result.supporting, result.refuting, result.neutral) == (1, 1, 0)
    assert result.evidence_count == 2
    assert result.independent_sources == 1


def test_neutral_and_origin_add_nothing() -> None:
    """neutral counts as evidence seen but moves nothing; origin is provenance only."""
    edges = [
        EvidenceEdge("origin", 1.0, "p0", "who.int"),
        EvidenceEdge("neutral", 0.95, "p1", "cdc.gov"),
        EvidenceEdge("neutral", 0.7, "p2", "nih.gov"),
    ]
    result = claim_confidence(edges)
    assert (result.alpha, result.beta) == (1.0, 1.0)
    assert result.confidence == 0.5
    assert result.controversy == 0.0
    assert (result.supporting, result.refuting, result.neutral) == (0, 0, 2)
    assert result.evidence_count == 2
    assert result.independent_sources == 0


def test_balanced_conflict_has_maximal_controversy() -> None:
    """Equal weight on both sides: controversy 0.5, confidence back to 0.5."""
    edges = [
        EvidenceEdge("supports", 0.8, "p1", "a.org"),
        EvidenceEdge("refutes", 0.8, "p2", "b.org"),
    ]
    result = claim_confidence(edges)
    assert result.confidence == exact(0.5)
    assert result.controversy == exact(0.5)
    assert result.uncertainty == exact(math.sqrt(1.8 * 1.8 / (3.6**2 * 4.6)))


def test_one_sided_support_has_no_controversy() -> None:
    """Three supports: alpha = 1 + 0.9 + 0.8 + 0.7 = 3.4, beta = 1, controversy 0."""
    edges = [
        EvidenceEdge("supports", 0.9, "p1", "a.org"),
        EvidenceEdge("supports", 0.8, "p2", "b.org"),
        EvidenceEdge("supports", 0.7, "p3", "c.org"),
    ]
    result = claim_confidence(edges)
    assert result.alpha == exact(3.4)
    assert result.confidence == exact(3.4 / 4.4)
    assert result.controversy == 0.0
    assert result.independent_sources == 3


def test_zero_confidence_edges_count_but_do_not_move_the_posterior() -> None:
    """An edge with NLI confidence 0 is still an edge: counted, weightless."""
    result = claim_confidence([EvidenceEdge("supports", 0.0, "p1", "a.org")])
    assert (result.alpha, result.beta) == (1.0, 1.0)
    assert result.controversy == 0.0
    assert result.supporting == 1
    assert result.evidence_count == 1


def test_independent_sources_fold_subdomains_and_near_duplicates() -> None:
    """www.who.int and who.int are one source; a mirror of a CDC page counts as CDC."""
    edges = [
        EvidenceEdge("supports", 0.9, "p1", "www.who.int"),
        EvidenceEdge("supports", 0.9, "p2", "who.int"),
        EvidenceEdge("supports", 0.9, "p3", "www.cdc.gov"),
        EvidenceEdge("supports", 0.9, "p4", "mirror-site.example", dup_of="p3"),
        EvidenceEdge("supports", 0.9, "p5", "news.bbc.co.uk"),
        EvidenceEdge("refutes", 0.9, "p6", "contrarian.example"),
        EvidenceEdge("neutral", 0.9, "p7", "neutral.example"),
    ]
    assert independent_sources(edges) == 3
    assert claim_confidence(edges).independent_sources == 3


def test_independent_sources_group_by_canonical_page_first() -> None:
    """Two copies of one page on two domains are one source, named by the canonical page.

    p9 is canonical and not itself among the edges: its group takes the domain of its
    first copy. p6 is canonical and appears as a refuting edge: its domain names the
    group of its supporting copy.
    """
    edges = [
        EvidenceEdge("supports", 0.7, "p10", "copy-one.example", dup_of="p9"),
        EvidenceEdge("supports", 0.7, "p11", "copy-two.example", dup_of="p9"),
        EvidenceEdge("refutes", 0.7, "p6", "original.example"),
        EvidenceEdge("supports", 0.7, "p12", "copy-three.example", dup_of="p6"),
    ]
    assert independent_sources(edges) == 2


def test_a_copy_counts_as_its_canonical_pages_domain_when_that_is_known() -> None:
    """A syndicated copy of a newsdaily page (not itself among the edges) beside another
    newsdaily page is one source, as the claim_evidence_summary view counts it."""
    edges = [
        EvidenceEdge("supports", 0.7, "p1", "newsdaily.example"),
        EvidenceEdge(
            "supports",
            0.7,
            "p2",
            "newsaggregator.example",
            dup_of="p3",
            dup_domain="newsdaily.example",
        ),
        EvidenceEdge("supports", 0.7, "p4", "who.int"),
    ]
    assert independent_sources(edges) == 2


def test_corpus_domains_are_kept_as_given() -> None:
    """Local corpus sources ('local', folder names) have no public suffix."""
    assert registrable_domain("local") == "local"
    assert registrable_domain("WWW.NIH.GOV") == "nih.gov"
    assert registrable_domain("news.bbc.co.uk") == "bbc.co.uk"
    assert registrable_domain("127.0.0.1") == "127.0.0.1"
    edges = [
        EvidenceEdge("supports", 0.9, "p1", "local"),
        EvidenceEdge("supports", 0.9, "p2", "local"),
        EvidenceEdge("supports", 0.9, "p3", "who.int"),
    ]
    assert independent_sources(edges) == 2


@pytest.mark.parametrize(
    ("relation", "nli_confidence", "message"),
    [
        ("cites", 0.5, "relation"),
        ("SUPPORTS", 0.5, "relation"),
        ("supports", 1.01, "nli_confidence"),
        ("refutes", -0.1, "nli_confidence"),
        ("supports", float("nan"), "nli_confidence"),
    ],
)
def test_invalid_edges_are_rejected(relation: str, nli_confidence: float, message: str) -> None:
    """The formula has no meaning for other relations or out-of-range confidences."""
    with pytest.raises(ValueError, match=message):
        EvidenceEdge(relation, nli_confidence, "p1", "a.org")


def test_beta_stats_rejects_non_positive_parameters() -> None:
    """A Beta distribution needs alpha, beta > 0."""
    assert beta_stats(2.0, 1.0) == exact((2 / 3, math.sqrt(2 / 36), 0.0))
    with pytest.raises(ValueError, match="positive"):
        beta_stats(0.0, 1.0)


@pytest.mark.parametrize(
    ("supporting", "refuting", "alpha", "beta", "expected"),
    [
        # No other source took a side: pending, one supporting source adopts it.
        (0, 0, 1.0, 1.0, NotAdopted("pending", "no other source supports or refutes it", 0.0, 1)),
        # Refuted only: it needs a supporting source and 0.8 of supporting weight.
        (0, 1, 1.0, 1.8, NotAdopted("rejected", "refuted, and no source supports it", 0.8, 1)),
        # Outweighed: two refutations at 0.9 against one support at 0.7.
        (
            1,
            2,
            1.7,
            2.8,
            NotAdopted(
                "rejected", "the refuting evidence outweighs the supporting evidence", 1.1, 0
            ),
        ),
    ],
)
def test_not_adopted_says_why_and_what_would_adopt_the_claim(
    supporting: int, refuting: int, alpha: float, beta: float, expected: NotAdopted
) -> None:
    found = not_adopted(supporting, refuting, alpha, beta)
    assert found == NotAdopted(
        expected.status, expected.reason, exact(expected.support_needed), expected.sources_needed
    )


@pytest.mark.parametrize(
    ("supporting", "refuting", "alpha", "beta"),
    # Supported and not outweighed (confidence exactly 0.5 counts).
    [(1, 1, 1.7, 1.7), (2, 0, 2.6, 1.0), (3, 1, 3.4, 1.9)],
)
def test_a_supported_claim_that_is_not_outweighed_is_adopted(
    supporting: int, refuting: int, alpha: float, beta: float
) -> None:
    assert not_adopted(supporting, refuting, alpha, beta) is None
