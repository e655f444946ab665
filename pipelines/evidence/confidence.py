"""Bayesian confidence of a claim from its evidence edges (ARCHITECTURE §4).

Prior Beta(1, 1). Every `supports` edge adds its NLI confidence to alpha and every
`refutes` edge adds its NLI confidence to beta; `neutral` and `origin` edges add
nothing (`origin` is provenance, not evidence). From the posterior:

- confidence  = alpha / (alpha + beta)
- uncertainty = the posterior standard deviation,
  sqrt(alpha * beta / ((alpha + beta)**2 * (alpha + beta + 1)))
- controversy = min(alpha - 1, beta - 1) / (alpha + beta - 2), and 0 with no evidence

Domain trust levels never enter this computation; they travel on edges as metadata.
Independent sources count distinct registrable domains among the supporting pages,
where a near-duplicate page counts as its canonical page.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from lyra.pipelines.net.domains import registrable_domain as _registrable

Relation = Literal["supports", "refutes", "neutral", "origin"]
RELATIONS: Final[frozenset[str]] = frozenset({"supports", "refutes", "neutral", "origin"})
PRIOR_ALPHA: Final = 1.0
PRIOR_BETA: Final = 1.0


@dataclass(frozen=True, slots=True)
class EvidenceEdge:
    """One edge from a fragment of a page to the claim."""

    relation: str
    nli_confidence: float
    page_id: str
    domain: str
    dup_of: str | None = None
    # The canonical page's domain, when the page is a near-duplicate and it is known.
    dup_domain: str | None = None

    def __post_init__(self) -> None:
        """Reject relations and confidences the formula has no meaning for."""
        if self.relation not in RELATIONS:
            raise ValueError(f"unknown edge relation {self.relation!r}")
        if not (0.0 <= self.nli_confidence <= 1.0) or math.isnan(self.nli_confidence):
            raise ValueError(f"nli_confidence must be in [0, 1], got {self.nli_confidence}")


@dataclass(frozen=True, slots=True)
class ClaimConfidence:
    """The posterior of one claim and the evidence counts behind it."""

    alpha: float
    beta: float
    confidence: float
    uncertainty: float
    controversy: float
    supporting: int
    refuting: int
    neutral: int
    evidence_count: int
    independent_sources: int


def registrable_domain(domain: str) -> str:
    """eTLD+1 of a page's domain; corpus folder names ("local", "my notes") as given."""
    host = domain.strip().lower().rstrip(".")
    if not host:
        return host
    return _registrable(host)


def beta_stats(alpha: float, beta: float) -> tuple[float, float, float]:
    """(confidence, uncertainty, controversy) of Beta(alpha, beta) after a (1, 1) prior."""
    if alpha <= 0 or beta <= 0:
        raise ValueError(f"alpha and beta must be positive, got {alpha}, {beta}")
    total = alpha + beta
    confidence = alpha / total
    uncertainty = math.sqrt(alpha * beta / (total * total * (total + 1.0)))
    evidence = total - PRIOR_ALPHA - PRIOR_BETA
    controversy = min(alpha - PRIOR_ALPHA, beta - PRIOR_BETA) / evidence if evidence > 0 else 0.0
    return confidence, uncertainty, controversy


def independent_sources(edges: Iterable[EvidenceEdge]) -> int:
    """Distinct registrable domains among supporting pages, near-duplicates folded.

    Supporting edges are grouped by canonical page (`dup_of` when set, else the page
    itself); a group takes the domain of its canonical page when any edge names that
    page or an edge carries it (``dup_domain``), else the domain of the group's first
    edge. Then distinct registrable domains are counted.
    """
    domain_of_page: dict[str, str] = {}
    group_domain: dict[str, str] = {}
    for edge in edges:
        domain_of_page.setdefault(edge.page_id, edge.domain)
        if edge.dup_of and edge.dup_domain:
            domain_of_page.setdefault(edge.dup_of, edge.dup_domain)
        if edge.relation == "supports":
            group_domain.setdefault(edge.dup_of or edge.page_id, edge.domain)
    domains = {
        registrable_domain(domain_of_page.get(canonical, fallback))
        for canonical, fallback in group_domain.items()
    }
    return len(domains)


def claim_confidence(edges: Sequence[EvidenceEdge]) -> ClaimConfidence:
    """Posterior confidence, uncertainty, controversy and counts for one claim."""
    alpha, beta = PRIOR_ALPHA, PRIOR_BETA
    supporting = refuting = neutral = 0
    for edge in edges:
        if edge.relation == "supports":
            alpha += edge.nli_confidence
            supporting += 1
        elif edge.relation == "refutes":
            beta += edge.nli_confidence
            refuting += 1
        elif edge.relation == "neutral":
            neutral += 1
    confidence, uncertainty, controversy = beta_stats(alpha, beta)
    return ClaimConfidence(
        alpha=alpha,
        beta=beta,
        confidence=confidence,
        uncertainty=uncertainty,
        controversy=controversy,
        supporting=supporting,
        refuting=refuting,
        neutral=neutral,
        # Stance edges only: an `origin` edge says where the claim came from, which
        # is not evidence for or against it.
        evidence_count=supporting + refuting + neutral,
        independent_sources=independent_sources(edges),
    )


# A claim is adopted when another source supports it and the evidence leans its way.
ADOPTED_CONFIDENCE: Final = 0.5


@dataclass(frozen=True, slots=True)
class NotAdopted:
    """Why a claim is not adopted and what would adopt it (seed 000 §4.3).

    `status` is "pending" (no other source has taken a side) or "rejected" (refuted,
    unsupported or outweighed). `support_needed` is the supporting NLI confidence, summed
    over new supporting edges, that would bring the posterior to `ADOPTED_CONFIDENCE`;
    `sources_needed` the supporting sources it still lacks (1 when none supports it).
    """

    status: Literal["pending", "rejected"]
    reason: str
    support_needed: float
    sources_needed: int


def not_adopted(supporting: int, refuting: int, alpha: float, beta: float) -> NotAdopted | None:
    """None for an adopted claim; else its status, reason and what would adopt it."""
    confidence = alpha / (alpha + beta)
    needed = max(0.0, beta - alpha)
    if supporting == 0 and refuting == 0:
        return NotAdopted("pending", "no other source supports or refutes it", needed, 1)
    if supporting == 0:
        return NotAdopted("rejected", "refuted, and no source supports it", needed, 1)
    if confidence < ADOPTED_CONFIDENCE:
        return NotAdopted(
            "rejected", "the refuting evidence outweighs the supporting evidence", needed, 0
        )
    return None
