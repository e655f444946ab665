"""Source verification, security layer L6 (seed 003 §4.4.1, issue 14, decision 0053).

A claim drawn from a page of a site nobody has vouched for (trust level UNVERIFIED) is
used provisionally; the evidence graph then says whether other sources bear it out:

- **verified**: at least `MIN_CORROBORATIONS` other sites (owners: registrable domains,
  each ``*.github.io``-style private suffix's site its own) support it
  (a `supports` edge with calibrated probability of at least `MIN_EDGE_CONFIDENCE`;
  near-duplicates of one page count once, as their canonical page; the claim's own
  site and near-duplicates of its own page never count), and nothing below rejects it;
- **rejected**: a source of higher trust than the claim's own refutes it (a `refutes`
  edge of at least `MIN_EDGE_CONFIDENCE` from a page whose level ranks above the
  origin page's), or the claim's page, or its site, carried an instruction to AI
  readers (a danger pattern of the injection guard, `DANGER_KINDS`);
- **pending**: neither.

A site whose level comes from no rule (the default UNVERIFIED) follows its claims, all
tasks' together: one verified claim and none rejected makes it LOW; a rejected claim
(or a danger pattern in the text of one of its pages) takes it back to UNVERIFIED and
keeps it there while the rejected claim stands (a danger pattern until a person
decides: a rule in domains.yaml, or `feedback(domain_block)`). Lyra never blocks a
site for being refuted (ARCHITECTURE §4); a danger pattern is reported for the person
to block. Hosts a domains.yaml rule names are out of all this.

This module is arithmetic on rows; storage/verification.py reads and writes them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final, Literal
from urllib.parse import urlsplit

from lyra.pipelines.net.domains import TRUST_LEVELS, host_of, owner_domain

Status = Literal["pending", "verified", "rejected"]
STATUSES: Final[tuple[str, ...]] = ("pending", "verified", "rejected")
MIN_CORROBORATIONS: Final = 2
# An edge counts as corroboration or contradiction when the model (calibrated) finds
# its relation more likely than not.
MIN_EDGE_CONFIDENCE: Final = 0.5
# Detections of the injection guard (pipelines/extract/injection.py) that address AI
# readers: the danger patterns of L2. Hidden text, invisible characters or look-alike
# letters alone are common on honest pages and are not.
DANGER_KINDS: Final[frozenset[str]] = frozenset(
    {"instruction", "hidden_instruction", "encoded_instruction"}
)
PROMOTED_LEVEL: Final = "LOW"
DANGER_REASON_PREFIX: Final = "danger pattern"
DANGER_SITE_REASON: Final = DANGER_REASON_PREFIX + " on its pages: "
PENDING_SITE_REASON: Final = "no claim of it is verified or rejected now"
UNVERIFIED: Final = "UNVERIFIED"
# Findings named in a reason; more are counted ("and 12 more").
MAX_FINDINGS: Final = 3
# Sites and claims listed in a claim's verification details (sorted; the first ones).
MAX_LISTED: Final = 10


def trust_rank(level: str | None) -> int:
    """Smaller is more trusted: PRIMARY 0 … UNVERIFIED 5; unknown or missing as UNVERIFIED."""
    ranked = [lv for lv in TRUST_LEVELS if lv != "BLOCKED"]
    return ranked.index(level) if level in ranked else ranked.index(UNVERIFIED)


def is_web_url(url: str | None) -> bool:
    """Only web pages have a site to verify (a local corpus file has none)."""
    if not url:
        return False
    try:
        return urlsplit(str(url)).scheme.lower() in ("http", "https")
    except ValueError:  # a malformed URL (an unclosed IPv6 bracket): no site to judge
        return False


# Every claim's evidence names pages over and over: sites are computed once per name.
@lru_cache(maxsize=65536)
def site_of_domain(domain: str | None) -> str | None:
    """The site (owner domain) of a host or URL, None when it has none."""
    if not domain:
        return None
    try:
        return owner_domain(str(domain)) or None
    except ValueError:
        return None


@lru_cache(maxsize=65536)
def site_of_page(domain: str | None, url: str | None) -> str | None:
    """The site a page belongs to, read from its URL (``pages.domain`` holds the plain
    registrable domain); None for a page without one (a local corpus file)."""
    return site_of_domain(url) if is_web_url(url) else None


@lru_cache(maxsize=65536)
def host_of_page(domain: str | None, url: str | None) -> str | None:
    """The host a web page was fetched from, read from its URL (rules may name one host)."""
    if not is_web_url(url):
        return None
    try:
        return host_of(str(url)) or None
    except ValueError:
        return None


def findings_text(found: Iterable[str]) -> str:
    """Distinct findings, the first `MAX_FINDINGS` named and the rest counted."""
    distinct = sorted(set(found))
    named = ", ".join(distinct[:MAX_FINDINGS])
    rest = len(distinct) - MAX_FINDINGS
    return f"{named} and {rest} more" if rest > 0 else named


@dataclass(frozen=True, slots=True)
class Verification:
    """One claim's verification state and what it rests on (the response's fields)."""

    status: Status
    reason: str
    independent_sources: int = 0
    corroborating_domains: tuple[str, ...] = ()
    contradicting_domains: tuple[str, ...] = ()
    corroborating_claims: tuple[str, ...] = ()
    contradicting_claims: tuple[str, ...] = ()
    danger: tuple[str, ...] = field(default=())

    def details(self) -> dict[str, Any]:
        """The response's fields; each list at most `MAX_LISTED` long (a search returns
        every claim with them)."""
        return {
            "reason": self.reason,
            "independent_sources": self.independent_sources,
            "corroborating_domains": list(self.corroborating_domains[:MAX_LISTED]),
            "contradicting_domains": list(self.contradicting_domains[:MAX_LISTED]),
            "corroborating_claims": list(self.corroborating_claims[:MAX_LISTED]),
            "contradicting_claims": list(self.contradicting_claims[:MAX_LISTED]),
        }


def verify_claim(
    origin: Mapping[str, Any],
    evidence: Sequence[Mapping[str, Any]],
    claims_by_fragment: Mapping[str, Sequence[str]],
    danger: Sequence[str] = (),
    hostile_sites: Collection[str] = (),
    has_rule: Callable[[str], bool] | None = None,
) -> Verification:
    """The verification of one claim.

    `origin`: its origin page (page_id, domain, url, trust_level, dup_of; empty when
    unknown). `evidence`: its stance edges (relation, nli_confidence, fragment_id,
    page_id, domain, url, dup_of, dup_domain, trust_level), blocked sites' already left
    out. `claims_by_fragment`: the claims extracted from each fragment (a supporting
    fragment's own claims corroborate this one). `danger`: the danger patterns found on
    the claim's page or site ("kind:detail (url)"), which reject it. `hostile_sites`:
    the sites that addressed AI readers, whose pages neither corroborate nor contradict
    (unless `has_rule` says a rule names the page's host).
    """
    claim_id = str(origin.get("claim_id") or "")
    own_site = site_of_page(origin.get("domain"), origin.get("url")) or origin.get("domain")
    own_page = origin.get("dup_of") or origin.get("page_id")
    own_rank = trust_rank(origin.get("trust_level"))
    corroborating: dict[str, str] = {}  # canonical page -> its site
    contradicting: set[str] = set()
    pro_claims: set[str] = set()
    con_claims: set[str] = set()
    for e in evidence:
        if float(e.get("nli_confidence") or 0.0) < MIN_EDGE_CONFIDENCE:
            continue
        canonical = e.get("dup_of") or e.get("page_id")
        site = _edge_site(e)
        if site is None or site == own_site or canonical == own_page:
            continue
        if site in hostile_sites:
            host = host_of_page(e.get("domain"), e.get("url"))
            if has_rule is None or host is None or not has_rule(host):
                continue
        others = [c for c in claims_by_fragment.get(str(e.get("fragment_id")), ()) if c != claim_id]
        if e.get("relation") == "supports":
            corroborating.setdefault(str(canonical), site)
            pro_claims.update(others)
        elif e.get("relation") == "refutes" and trust_rank(e.get("trust_level")) < own_rank:
            contradicting.add(site)
            con_claims.update(others)
    sites = tuple(sorted(set(corroborating.values())))
    common = {
        "independent_sources": len(sites),
        "corroborating_domains": sites,
        "contradicting_domains": tuple(sorted(contradicting)),
        "corroborating_claims": tuple(sorted(pro_claims)),
        "contradicting_claims": tuple(sorted(con_claims)),
    }
    if danger:
        return Verification(
            "rejected",
            f"its site carried an instruction to AI readers: {findings_text(danger)}",
            danger=tuple(sorted(danger)),
            **common,  # type: ignore[arg-type]
        )
    if contradicting:
        level = origin.get("trust_level") or UNVERIFIED
        return Verification(
            "rejected",
            f"refuted by a source more trusted than its own ({level}): "
            + ", ".join(sorted(contradicting)),
            **common,  # type: ignore[arg-type]
        )
    if len(sites) >= MIN_CORROBORATIONS:
        return Verification(
            "verified",
            f"supported by {len(sites)} independent sites: {', '.join(sites)}",
            **common,  # type: ignore[arg-type]
        )
    return Verification(
        "pending",
        f"supported by {len(sites)} independent site(s); {MIN_CORROBORATIONS} needed",
        **common,  # type: ignore[arg-type]
    )


def _edge_site(edge: Mapping[str, Any]) -> str | None:
    """The site of an evidence page, a near-duplicate's being its canonical page's; None
    for a page without a web site (a local corpus file is no independent site)."""
    if edge.get("dup_of") and edge.get("dup_domain"):
        return site_of_page(edge.get("dup_domain"), edge.get("dup_url"))
    return site_of_page(edge.get("domain"), edge.get("url"))


@dataclass(frozen=True, slots=True)
class SiteVerdict:
    """What the claims of one site say about the site now (None: nothing decisive)."""

    site: str
    status: Status
    reason: str
    claim_ids: tuple[str, ...]


def site_verdicts(
    claims: Iterable[tuple[str, str | None, Verification]],
    danger_sites: Mapping[str, Sequence[str]],
    touched: Collection[str] = (),
) -> dict[str, SiteVerdict]:
    """Per site, the verdict of its claims in one verification pass.

    `claims`: (claim id, the claim's site or None, its verification). `danger_sites`:
    site -> the "kind:detail (url)" danger findings met on its pages in this pass.
    Rejected wins over verified; a site of `touched` with neither (only pending claims,
    or none active any more) gets a pending verdict.
    """
    verified: dict[str, list[str]] = {}
    rejected: dict[str, list[str]] = {}
    reasons: dict[str, str] = {}
    for claim_id, site, v in claims:
        if site is None:
            continue
        if v.status == "rejected":
            rejected.setdefault(site, []).append(claim_id)
            reasons.setdefault(site, v.reason)
        elif v.status == "verified":
            verified.setdefault(site, []).append(claim_id)
    out: dict[str, SiteVerdict] = {}
    for site, found in danger_sites.items():
        out[site] = SiteVerdict(
            site,
            "rejected",
            DANGER_SITE_REASON + findings_text(found),
            tuple(sorted(rejected.get(site, []))),
        )
    for site, ids in rejected.items():
        if site not in out:
            out[site] = SiteVerdict(site, "rejected", reasons[site], tuple(sorted(ids)))
    for site, ids in verified.items():
        if site not in out:
            out[site] = SiteVerdict(
                site,
                "verified",
                f"{len(ids)} claim(s) corroborated by at least {MIN_CORROBORATIONS} other sites",
                tuple(sorted(ids)),
            )
    for site in touched:
        if site not in out:
            out[site] = SiteVerdict(site, "pending", PENDING_SITE_REASON, ())
    return out


def is_danger_reason(reason: str | None) -> bool:
    return (reason or "").startswith(DANGER_REASON_PREFIX)


def next_site_state(
    verdict: SiteVerdict, previous_status: str | None, previous_reason: str | None
) -> tuple[str, str] | None:
    """The site's new (status, trust level), or None when nothing changes.

    A rejection for a danger pattern holds until a person decides; a rejection for a
    contradiction, and a promotion, hold while a claim bears them out: a pending verdict
    (no claim verified or rejected any more) takes the site back to UNVERIFIED. A rejected
    site met with a danger pattern changes too (its reason becomes the danger, which holds).
    """
    if previous_status == "rejected" and is_danger_reason(previous_reason):
        return None
    if verdict.status == "pending":
        return ("pending", UNVERIFIED) if previous_status in ("verified", "rejected") else None
    if verdict.status == "verified":
        return None if previous_status == "verified" else ("verified", PROMOTED_LEVEL)
    if previous_status != "rejected" or is_danger_reason(verdict.reason):
        return "rejected", UNVERIFIED
    return None
