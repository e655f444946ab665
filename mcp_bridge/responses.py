"""What the tools return, shaped from the orchestrator's rows: claims with their
confidence, not-adopted claims with what would adopt them, and the security warnings
for page text a response carries.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from typing import Any

from lyra.mcp_bridge import models as m
from lyra.pipelines.evidence.confidence import not_adopted
from lyra.pipelines.evidence.research import PRIMARY_LEVELS
from lyra.pipelines.extract.injection import MASK
from lyra.storage.export.report import md_escape


def iso(value: Any) -> str | None:
    if value is None:
        return None
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def public_metrics(metrics: dict[str, Any]) -> dict[str, Any]:
    """A search's metrics without what responses carry elsewhere: its security warnings
    (in `_lyra_meta`) and its per-URL warnings (`warnings`)."""
    return {k: v for k, v in metrics.items() if k not in ("security_warnings", "warnings")}


def task_security(searches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The security warnings of a task's searches, one per page, kind and detail."""
    merged: dict[tuple[str, str, str], dict[str, Any]] = {}
    for s in searches:
        for w in (s.get("metrics") or {}).get("security_warnings", []):
            key = (str(w.get("url")), str(w["kind"]), str(w["detail"]))
            if key not in merged or w.get("count", 1) > merged[key].get("count", 1):
                merged[key] = w
    return [merged[k] for k in sorted(merged)]


PREVIEW_CHARS = 300  # vector_search's text_preview
MASKED_DETAIL = "the returned text holds a sentence addressed to AI readers, masked when read"


def masked_text_warnings(texts: Iterable[tuple[str | None, Any]]) -> list[dict[str, Any]]:
    """One security warning per URL whose returned text holds masked sentences.

    Page text is masked when it is read (`injection.MASK` replaces each instruction to AI
    readers); a tool that returns page text (fragments, quotes, exports) names what it
    carries in `_lyra_meta.security_warnings`, as search and get_status name what the
    pages held.
    """
    counts: Counter[str | None] = Counter()
    for url, text in texts:
        if isinstance(text, str) and MASK in text:
            counts[url] += text.count(MASK)
    return [
        {"kind": "masked_instruction", "detail": MASKED_DETAIL, "url": url, "count": n}
        for url, n in sorted(counts.items(), key=lambda kv: kv[0] or "")
    ]


def export_warnings(content: str) -> list[dict[str, Any]]:
    """The masked sentences an export carries (Markdown escapes the mask's brackets)."""
    return masked_text_warnings([(None, content.replace(md_escape(MASK), MASK))])


def claim_out(c: dict[str, Any]) -> m.ClaimOut:
    """A claim row with its confidence, as the client sees it."""
    return m.ClaimOut(
        id=c["id"],
        text=c["claim_text"],
        confidence=round(c["confidence"], 4),
        uncertainty=round(c["uncertainty"], 4),
        controversy=round(c["controversy"], 4),
        supports=c["supporting"],
        refutes=c["refuting"],
        neutral=c["neutral"],
        independent_sources=c["independent_sources"],
        source_url=c.get("source_url"),
        source_domain=c.get("source_domain"),
        trust_level=c.get("source_trust_level"),
        primary=c.get("source_trust_level") in PRIMARY_LEVELS,
        extraction_method=c.get("extraction_method"),
        source_retracted=bool(c.get("source_retracted")),
        verification_status=c.get("verification_status") or "pending",
        verification_details=(
            m.VerificationDetails(**c["verification_details"])
            if c.get("verification_details")
            else None
        ),
    )


RECHECK = "a later search in this task (same task_id) judges the claim against every new page"


def not_adopted_out(c: dict[str, Any]) -> m.NotAdoptedClaim | None:
    """A claim that is not adopted, with why and what would adopt it; None if adopted."""
    found = not_adopted(c["supporting"], c["refuting"], c["alpha"], c["beta"])
    if found is None:
        return None
    # Rounded up to the cent ("at least 0.00" would mislead); the inner round drops the
    # float noise that would push 0.01 to 0.02.
    needed = math.ceil(round(found.support_needed * 100, 9)) / 100
    if found.sources_needed:
        condition = "a passage of another page that supports it"
        if found.support_needed > 0:
            condition += (
                f", with supporting NLI confidence of at least {needed:.2f} summed over the "
                "supporting passages (each gives at most 1)"
            )
    else:
        condition = (
            f"more supporting evidence: NLI confidence of at least {needed:.2f} summed over "
            "new supporting passages (each gives at most 1)"
        )
    return m.NotAdoptedClaim(
        claim_id=c["id"],
        text=c["claim_text"],
        status=found.status,
        reason=found.reason,
        confidence=round(c["confidence"], 4),
        supports=c["supporting"],
        refutes=c["refuting"],
        source_url=c.get("source_url"),
        source_domain=c.get("source_domain"),
        source_trust_level=c.get("source_trust_level"),
        created_at=iso(c.get("created_at")),
        recovery=m.ClaimRecovery(
            conditions=[condition, RECHECK],
            support_needed=round(found.support_needed, 4),
            sources_needed=found.sources_needed,
            refuted_by=list(c.get("refuting_urls") or []),
        ),
    )
