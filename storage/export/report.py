"""An evidence pack as JSON lines (one claim per line, with its edges, quotes, their
places in the page and the archived copies) and as a Markdown report a person reads:
per claim its confidence and uncertainty, the sources for and against with numbered
citations and short quotes; contradictions first; then the claims not adopted and why;
then the numbered sources.
"""

from __future__ import annotations

import json
import re
from typing import Any

from lyra.pipelines.evidence.confidence import not_adopted

QUOTE_CHARS = 240
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~])")


def jsonl(pack: dict[str, Any]) -> str:
    """One JSON object per claim (schema: docs/evidence-pack.schema.json)."""
    head = {
        "task_id": pack["task"]["id"],
        "query": pack["task"]["query"],
        "as_of": pack["as_of"],
    }
    return "".join(
        json.dumps({**head, **claim}, ensure_ascii=False, default=str) + "\n"
        for claim in pack["claims"]
    )


def md_escape(text: str) -> str:
    """``text`` with Markdown's inline markup characters escaped, on one line."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def short_quote(text: str) -> str:
    """The start of a quote, cut at a word boundary near `QUOTE_CHARS`."""
    flat = " ".join(text.split())
    if len(flat) <= QUOTE_CHARS:
        return flat
    cut = flat[:QUOTE_CHARS].rsplit(" ", 1)[0]
    return f"{cut} …"


def not_adopted_reason(claim: dict[str, Any]) -> str | None:
    """Why a claim is not adopted, or None (`confidence.not_adopted`: adopted claims have
    a supporting source and a confidence of at least 0.5)."""
    found = not_adopted(claim["supporting"], claim["refuting"], claim["alpha"], claim["beta"])
    return found.reason if found else None


def claim_groups(
    claims: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """(contradictions: sources on both sides, adopted, not adopted), report order."""
    contested = [c for c in claims if c["refuting"] > 0 and c["supporting"] > 0]
    others = [c for c in claims if c not in contested]
    adopted = [c for c in others if not_adopted_reason(c) is None]
    rejected = [c for c in others if not_adopted_reason(c) is not None]
    return contested, adopted, rejected


def author_line(source: dict[str, Any]) -> str:
    """Up to three authors as "Family, G.", then "et al." ('' when none is known)."""
    authors = ", ".join(
        a.get("literal") or f"{a['family']}, {a['given'][:1]}." for a in source["authors"][:3]
    )
    return authors + " et al." if len(source["authors"]) > 3 else authors


def _citation(number: int, source: dict[str, Any]) -> str:
    authors = author_line(source)
    parts = [f"[{number}]"]
    if authors:
        parts.append(md_escape(authors))
    parts.append(f"({source['year']})." if source["year"] else "(n.d.).")
    parts.append(f"*{md_escape(source['title'])}*.")
    where = source["venue"] or source["domain"]
    if where:
        parts.append(f"{md_escape(where)}.")
    if source["doi"]:
        parts.append(f"https://doi.org/{source['doi']}")
    parts.append(f"<{source['url']}>")
    extra = []
    if source["accessed"]:
        extra.append(f"accessed {source['accessed'][:10]}")
    if source["archive"]:
        extra.append(f"archived copy `{source['archive']}`")
    if source["dup_of"]:
        extra.append("near-duplicate of another source")
    if source["is_retracted"]:
        extra.append("**retracted**")
    if extra:
        parts.append(f"({'; '.join(extra)})")
    return " ".join(parts)


def _edge_line(e: dict[str, Any], numbers: dict[str, int]) -> str:
    cite = f"[{numbers[e['source_key']]}]" if e["source_key"] in numbers else "[?]"
    conf = f" ({e['confidence']:.2f})" if e["confidence"] is not None else ""
    return f"- {cite}{conf}: “{md_escape(short_quote(e['quote']))}”"


def _claim_section(n: int, claim: dict[str, Any], numbers: dict[str, int]) -> list[str]:
    out = [
        f"### {n}. {md_escape(claim['text'])}",
        "",
        f"Confidence {claim['confidence']:.2f} ± {claim['uncertainty']:.2f} "
        f"(supporting {claim['supporting']}, refuting {claim['refuting']}, neutral "
        f"{claim['neutral']}; {claim['independent_sources']} independent supporting "
        "sources).",
        "",
    ]
    by_relation: dict[str, list[dict[str, Any]]] = {}
    for e in claim["evidence"]:
        by_relation.setdefault(e["relation"], []).append(e)
    for relation, title in (("origin", "Stated in"), ("supports", "For"), ("refutes", "Against")):
        edges = by_relation.get(relation, [])
        if edges:
            out.append(f"{title}:")
            out.append("")
            out.extend(_edge_line(e, numbers) for e in edges)
            out.append("")
    return out


def markdown(pack: dict[str, Any]) -> str:
    """The evidence report."""
    task = pack["task"]
    numbers = {s["key"]: i for i, s in enumerate(pack["sources"], start=1)}
    claims = pack["claims"]
    contested, adopted, rejected = claim_groups(claims)
    lines = [
        f"# Evidence report: {md_escape(task['query'])}",
        "",
        f"Task `{task['id']}`, evidence as of {pack['as_of']}: {len(claims)} claims, "
        f"{len(pack['sources'])} sources. Confidence is the mean of a Beta posterior over "
        "the stance edges (supports add to alpha, refutes to beta), ± its standard deviation.",
        "",
    ]
    n = 0
    for heading, group in (("Contradictions", contested), ("Claims", adopted)):
        lines += [f"## {heading}", ""]
        if not group:
            lines += ["None.", ""]
        for claim in group:
            n += 1
            lines += _claim_section(n, claim, numbers)
    lines += ["## Not adopted", ""]
    if not rejected:
        lines += ["None.", ""]
    for claim in rejected:
        reason = not_adopted_reason(claim)
        origin = [e for e in claim["evidence"] if e["relation"] == "origin"]
        cite = (
            f" [{numbers[origin[0]['source_key']]}]"
            if origin and origin[0]["source_key"] in numbers
            else ""
        )
        lines.append(f"- {md_escape(claim['text'])}{cite}: {reason}.")
    lines += ["", "## Sources", ""]
    if not pack["sources"]:
        lines += ["None."]
    lines += [_citation(numbers[s["key"]], s) + "  " for s in pack["sources"]]
    return "\n".join(lines).rstrip() + "\n"
