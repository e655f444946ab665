"""Source verification (L6) in the database: claims' and sites' states, their transitions.

The rules are pipelines/evidence/verification.py; this module reads the rows they need
and writes what they decide (decision 0053):

- ``claims.verification_status`` / ``verification_reason`` / ``verification_changed_at``:
  each claim's last verified state (the responses compute it afresh from the edges);
- ``domains.verification_status`` / ``verification_reason`` / ``verification_changed_at``: each
  unvouched site's state; a verified site's ``trust_level`` is LOW, and so is every
  page of it, stored and to come; a rejected one goes back to UNVERIFIED;
- an ``event_log`` row for every transition: ``claim_verification`` (claim id, from,
  to, reason) and ``source_verification`` (site, from, to, trust levels, reason, the
  claims behind it).

Only sites whose level no domains.yaml rule sets take part: a person's or the
packaged configuration's word on a site is never changed by evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import duckdb

from lyra.pipelines.evidence import verification as vf
from lyra.storage.repository import log_event, transaction, utcnow

# Only these kinds of detection are passed in; a detection's "url" names its page.
Danger = Mapping[str, Any]


def danger_by_site(dangers: Sequence[Danger]) -> dict[str, list[str]]:
    """Site -> "kind:detail (url)" for the danger patterns among a search's detections."""
    out: dict[str, list[str]] = {}
    for d in dangers:
        if d.get("kind") not in vf.DANGER_KINDS:
            continue
        site = vf.site_of_page(d.get("url"), d.get("url"))
        if site is not None:
            out.setdefault(site, []).append(f"{d['kind']}:{d.get('detail')} ({d.get('url')})")
    return out


def site_states(
    con: duckdb.DuckDBPyConnection, has_rule: Callable[[str], bool]
) -> dict[str, tuple[str, str | None]]:
    """Site -> (verification status, reason) for every site that has one and that no
    domains.yaml rule has taken out of verification since."""
    rows = con.execute(
        "SELECT domain, verification_status, verification_reason FROM domains "
        "WHERE verification_status IS NOT NULL"
    ).fetchall()
    return {str(d): (str(s), r) for d, s, r in rows if not has_rule(str(d))}


def claim_verifications(
    claims: Sequence[Mapping[str, Any]],
    evidence: Mapping[str, Sequence[Mapping[str, Any]]],
    origins: Mapping[str, Mapping[str, Any]],
    states: Mapping[str, tuple[str, str | None]],
    dangers: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, vf.Verification]:
    """Each claim's verification now.

    `states`: the stored site states (a site rejected for a danger pattern rejects its
    claims); `dangers`: the danger patterns this pass met, by site.
    """
    by_fragment: dict[str, list[str]] = {}
    for claim_id, origin in origins.items():
        if origin.get("fragment_id"):
            by_fragment.setdefault(str(origin["fragment_id"]), []).append(claim_id)
    # Each hostile site's findings: this pass's, then those its stored state names.
    hostile: dict[str, list[str]] = {site: list(found) for site, found in (dangers or {}).items()}
    for site, (status, reason) in states.items():
        if status == "rejected" and vf.is_danger_reason(reason):
            hostile.setdefault(site, []).append(str(reason).removeprefix(vf.DANGER_SITE_REASON))
    out: dict[str, vf.Verification] = {}
    for claim in claims:
        cid = str(claim["id"])
        origin = {**origins.get(cid, {}), "claim_id": cid}
        found = vf.site_of_page(origin.get("domain"), origin.get("url"))
        danger = hostile.get(found, []) if found is not None else []
        out[cid] = vf.verify_claim(origin, evidence.get(cid, ()), by_fragment, danger, hostile)
    return out


def record(
    con: duckdb.DuckDBPyConnection,
    task_id: str,
    search_id: str | None,
    claims: Sequence[Mapping[str, Any]],
    verifications: Mapping[str, vf.Verification],
    origins: Mapping[str, Mapping[str, Any]],
    dangers: Mapping[str, Sequence[str]],
    has_rule: Callable[[str], bool],
) -> dict[str, Any]:
    """Store the claims' and sites' new states and log each transition; one transaction.

    `has_rule(site)`: whether a domains.yaml rule sets the site's level (then its level
    is left alone). Returns the counts of claims per status and the site transitions.
    """
    now = utcnow()
    states = site_states(con, has_rule)
    claim_changes: list[tuple[str, str | None, vf.Verification]] = []
    for claim in claims:
        cid = str(claim["id"])
        v = verifications[cid]
        before = claim.get("verification_status")
        if before != v.status:
            claim_changes.append((cid, before, v))
    sites = [
        (str(c["id"]), vf.site_of_page(origins.get(str(c["id"]), {}).get("domain"),
                                       origins.get(str(c["id"]), {}).get("url")),
         verifications[str(c["id"])])
        for c in claims
    ]  # fmt: skip
    verdicts = vf.site_verdicts(sites, dangers)
    site_changes: list[dict[str, Any]] = []
    with transaction(con):
        for cid, before, v in claim_changes:
            con.execute(
                "UPDATE claims SET verification_status = ?, verification_reason = ?, "
                "verification_changed_at = ? WHERE id = ?",
                [v.status, v.reason, now, cid],
            )
            payload = {"claim_id": cid, "from": before, "to": v.status, "reason": v.reason}
            log_event(con, "claim_verification", actor="graph", task_id=task_id,
                      search_id=search_id, payload=payload)  # fmt: skip
        for site, verdict in sorted(verdicts.items()):
            if has_rule(site):
                continue
            before_status, before_reason = states.get(site, (None, None))
            change = vf.next_site_state(verdict, before_status, before_reason)
            if change is None:
                continue
            status, level = change
            level_before = _site_level(con, site)
            if level_before == "BLOCKED":
                continue  # a person's block stands; its state is theirs
            con.execute(
                """
                INSERT INTO domains (domain, trust_level, verification_status,
                                     verification_reason, verification_changed_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (domain) DO UPDATE SET trust_level = excluded.trust_level,
                    verification_status = excluded.verification_status,
                    verification_reason = excluded.verification_reason,
                    verification_changed_at = excluded.verification_changed_at,
                    updated_at = excluded.updated_at
                """,
                [site, level, status, verdict.reason, now, now],
            )
            _set_page_levels(con, site, level)
            entry = {
                "domain": site,
                "from": before_status,
                "to": status,
                "trust_level_from": level_before or vf.UNVERIFIED,
                "trust_level": level,
                "reason": verdict.reason,
                "claim_ids": list(verdict.claim_ids),
            }
            log_event(con, "source_verification", actor="graph", task_id=task_id,
                      search_id=search_id, payload=entry)  # fmt: skip
            site_changes.append(entry)
    counts = {s: 0 for s in vf.STATUSES}
    for v in verifications.values():
        counts[v.status] += 1
    return {"claims": counts, "claims_changed": len(claim_changes), "sites_changed": site_changes}


def _site_level(con: duckdb.DuckDBPyConnection, site: str) -> str | None:
    row = con.execute("SELECT trust_level FROM domains WHERE domain = ?", [site]).fetchone()
    return str(row[0]) if row and row[0] is not None else None


def _set_page_levels(con: duckdb.DuckDBPyConnection, site: str, level: str) -> None:
    """The site's web pages take its level (only between UNVERIFIED and LOW: a page
    whose level a rule set when it was stored keeps it)."""
    rows = con.execute(
        "SELECT DISTINCT domain FROM pages WHERE trust_level IN ('UNVERIFIED', 'LOW') "
        "AND (url LIKE 'http://%' OR url LIKE 'https://%')"
    ).fetchall()
    hosts = [str(d) for (d,) in rows if d and vf.site_of_domain(str(d)) == site]
    if hosts:
        con.execute(
            "UPDATE pages SET trust_level = ? WHERE domain IN (SELECT unnest(?::VARCHAR[])) "
            "AND trust_level IN ('UNVERIFIED', 'LOW') "
            "AND (url LIKE 'http://%' OR url LIKE 'https://%')",
            [level, hosts],
        )


def promoted_sites(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The sites verification made LOW (their new pages are stored as LOW)."""
    rows = con.execute(
        "SELECT domain FROM domains WHERE verification_status = 'verified' AND trust_level = ?",
        [vf.PROMOTED_LEVEL],
    ).fetchall()
    return {str(d) for (d,) in rows}


def alerts(
    con: duckdb.DuckDBPyConnection, task_id: str, has_rule: Callable[[str], bool]
) -> list[dict[str, Any]]:
    """The rejected sites among a task's pages, for get_status (seed: verification_alerts);
    a site a domains.yaml rule names since is out of verification and not listed."""
    rows = con.execute(
        "SELECT DISTINCT domain, url FROM pages WHERE id IN ("
        "  SELECT f.page_id FROM fragments f JOIN edges e ON e.source_id = f.id "
        "  WHERE e.task_id = ?)",
        [task_id],
    ).fetchall()
    sites = {vf.site_of_page(str(d), str(u)) for d, u in rows if d}
    states = con.execute(
        "SELECT domain, trust_level, verification_status, verification_reason, "
        "verification_changed_at FROM domains WHERE verification_status = 'rejected' "
        "ORDER BY domain"
    ).fetchall()
    out = []
    for site, level, status, reason, at in states:
        if site not in sites or has_rule(site):
            continue
        danger = vf.is_danger_reason(reason)
        out.append(
            {
                "domain": site,
                "trust_level": level,
                "status": status,
                "cause": "danger_pattern" if danger else "contradiction",
                "reason": reason,
                "changed_at": at.isoformat() if at is not None else None,
                "action": (
                    f"feedback(action='domain_block', domain='{site}') to stop fetching and "
                    "citing it; or `user_overrides: {" + site + ": UNVERIFIED}` in "
                    "$LYRA_HOME/domains.yaml to take it out of verification"
                    if danger
                    else "a later search whose sources corroborate its claims promotes it"
                ),
            }
        )
    return out
