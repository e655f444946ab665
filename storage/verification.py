"""Source verification (L6) in the database: claims' and sites' states, their transitions.

The rules are pipelines/evidence/verification.py; this module reads the rows they need
and writes what they decide (decision 0053):

- ``claims.verification_status`` / ``verification_reason`` / ``verification_changed_at``:
  each claim's state at the last search of its task (the responses compute it afresh
  from the edges);
- ``domains.verification_status`` / ``verification_reason`` /
  ``verification_changed_at``: each unvouched site's state, decided by the stored states
  of all the site's active claims, every task's; a verified site's ``trust_level`` is
  LOW, and so is every page of it, stored and to come; a rejected one is UNVERIFIED;
- an ``event_log`` row for every transition: ``claim_verification`` (claim id, from,
  to, reason) and ``source_verification`` (site, from, to, trust levels, reason, the
  claims behind it).

Hosts a domains.yaml rule names take no part: a person's or the packaged
configuration's word on a site is never changed by evidence. `has_rule(host)` says
whether a rule names a host (or its registrable domain).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import duckdb

from lyra.pipelines.evidence import verification as vf
from lyra.pipelines.net.domains import registrable_domain
from lyra.storage.repository import insert_rows, transaction, utcnow

HasRule = Callable[[str], bool]


def danger_by_site(
    detections: Sequence[Mapping[str, Any]], has_rule: HasRule
) -> dict[str, list[str]]:
    """Site -> "kind:detail (url)" for the danger patterns in the text of stored pages
    (`{url, kind, detail}`), hosts a rule names left out."""
    out: dict[str, list[str]] = {}
    for d in detections:
        if d.get("kind") not in vf.DANGER_KINDS:
            continue
        url = d.get("url")
        site = vf.site_of_page(url, url)
        host = vf.host_of_page(url, url)
        if site is not None and host is not None and not has_rule(host):
            out.setdefault(site, []).append(f"{d['kind']}:{d.get('detail')} ({url})")
    return out


def site_states(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[str, str | None, str | None]]:
    """Site -> (verification status, reason, trust level) for every site that has one."""
    rows = con.execute(
        "SELECT domain, verification_status, verification_reason, trust_level FROM domains "
        "WHERE verification_status IS NOT NULL"
    ).fetchall()
    return {str(d): (str(s), r, lv) for d, s, r, lv in rows}


def hostile_sites(
    states: Mapping[str, tuple[str, str | None, str | None]],
    dangers: Mapping[str, Sequence[str]],
    has_rule: HasRule,
) -> dict[str, list[str]]:
    """Each site that addressed AI readers, with its findings: this pass's, then those
    its stored state names (a site a rule names since is no longer one)."""
    hostile = {site: list(found) for site, found in dangers.items()}
    for site, (status, reason, _) in states.items():
        if status == "rejected" and vf.is_danger_reason(reason) and not has_rule(site):
            hostile.setdefault(site, []).append(str(reason).removeprefix(vf.DANGER_SITE_REASON))
    return hostile


def claim_verifications(
    claims: Sequence[Mapping[str, Any]],
    evidence: Mapping[str, Sequence[Mapping[str, Any]]],
    origins: Mapping[str, Mapping[str, Any]],
    hostile: Mapping[str, Sequence[str]],
    has_rule: HasRule,
    promoted: Collection[str] = (),
) -> dict[str, vf.Verification]:
    """Each claim's verification now (`hostile_sites` gives `hostile`).

    Trust is compared at the levels the rules give: a page that is LOW only because its
    site was promoted (`promoted`) counts as UNVERIFIED, so that a verdict never feeds
    the judgement it came from (a second pass with nothing new decides the same).
    """
    if promoted:
        origins = {k: _unpromoted(o, promoted) for k, o in origins.items()}
        evidence = {k: [_unpromoted(e, promoted) for e in rows] for k, rows in evidence.items()}
    by_fragment: dict[str, list[str]] = {}
    for claim_id, origin in origins.items():
        if origin.get("fragment_id"):
            by_fragment.setdefault(str(origin["fragment_id"]), []).append(claim_id)
    out: dict[str, vf.Verification] = {}
    for claim in claims:
        cid = str(claim["id"])
        origin = {**origins.get(cid, {}), "claim_id": cid}
        found = _judged_site(origin, has_rule) if hostile else None
        danger = hostile.get(found, []) if found is not None else []
        out[cid] = vf.verify_claim(
            origin, evidence.get(cid, ()), by_fragment, danger, set(hostile), has_rule
        )
    return out


def _unpromoted(row: Mapping[str, Any], promoted: Collection[str]) -> Mapping[str, Any]:
    if row.get("trust_level") == vf.PROMOTED_LEVEL and vf.site_of_page(None, row.get("url")) in (
        promoted
    ):
        return {**row, "trust_level": vf.UNVERIFIED}
    return row


def _judged_site(origin: Mapping[str, Any], has_rule: HasRule) -> str | None:
    """The site an origin page stands for in L6; None for a corpus file or a ruled host."""
    host = vf.host_of_page(origin.get("domain"), origin.get("url"))
    if host is None or has_rule(host):
        return None
    return vf.site_of_page(origin.get("domain"), origin.get("url"))


def record(
    con: duckdb.DuckDBPyConnection,
    task_id: str,
    search_id: str | None,
    claims: Sequence[Mapping[str, Any]],
    verifications: Mapping[str, vf.Verification],
    origins: Mapping[str, Mapping[str, Any]],
    dangers: Mapping[str, Sequence[str]],
    has_rule: HasRule,
) -> dict[str, Any]:
    """Store the claims' new states, then their sites', and log each transition; one
    transaction. A site's verdict reads every active claim of it, all tasks'.

    Returns the counts of this task's claims per status and the site transitions.
    """
    now = utcnow()
    changed = [
        (str(c["id"]), c.get("verification_status"), verifications[str(c["id"])])
        for c in claims
        if (c.get("verification_status"), c.get("verification_reason"))
        != (verifications[str(c["id"])].status, verifications[str(c["id"])].reason)
    ]
    # Every site the task drew a claim from, a rejected claim's too (its site may have
    # lost the claim that promoted or rejected it), and every hostile one met.
    touched = {s for o in origins.values() if (s := _judged_site(o, has_rule))} | set(dangers)
    site_changes: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    with transaction(con):
        if changed:
            con.execute(
                """
                UPDATE claims SET verification_changed_at = CASE
                        WHEN claims.verification_status IS DISTINCT FROM v.status THEN ?
                        ELSE claims.verification_changed_at END,
                    verification_status = v.status, verification_reason = v.reason
                FROM (SELECT unnest(?::VARCHAR[]) AS id, unnest(?::VARCHAR[]) AS status,
                             unnest(?::VARCHAR[]) AS reason) AS v
                WHERE claims.id = v.id
                """,
                [now, [c[0] for c in changed], [c[2].status for c in changed],
                 [c[2].reason for c in changed]],
            )  # fmt: skip
            events += [
                _event(now, "claim_verification", task_id, search_id,
                       {"claim_id": cid, "from": before, "to": v.status, "reason": v.reason})
                for cid, before, v in changed
                if before != v.status  # a new reason alone is no transition
            ]  # fmt: skip
        states = site_states(con)
        verdicts = vf.site_verdicts(_stored_claims(con, touched, has_rule), dangers, touched)
        for site, verdict in sorted(verdicts.items()):
            status_before, reason_before, level_before = states.get(site, (None, None, None))
            if level_before == "BLOCKED":
                continue  # a person's block stands; lifting it is theirs
            if status_before == "verified" and level_before != vf.PROMOTED_LEVEL:
                status_before = None  # the level was changed since (an unblock)
            change = vf.next_site_state(verdict, status_before, reason_before)
            if change is None:
                continue
            status, level = change
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
            _set_page_levels(con, site, level, has_rule)
            entry = {
                "domain": site,
                "from": status_before,
                "to": status,
                "trust_level_from": level_before or vf.UNVERIFIED,
                "trust_level": level,
                "reason": verdict.reason,
                "claim_ids": list(verdict.claim_ids),
            }
            events.append(_event(now, "source_verification", task_id, search_id, entry))
            site_changes.append(entry)
        if events:
            insert_rows(con, "event_log", events)
    counts = {s: 0 for s in vf.STATUSES}
    for v in verifications.values():
        counts[v.status] += 1
    moved = sum(1 for _, before, v in changed if before != v.status)
    return {"claims": counts, "claims_changed": moved, "sites_changed": site_changes}


def _event(
    ts: Any, kind: str, task_id: str, search_id: str | None, payload: dict[str, Any]
) -> dict[str, Any]:
    return {"id": uuid.uuid4().hex, "ts": ts, "kind": kind, "actor": "graph",
            "task_id": task_id, "search_id": search_id, "cause_id": None,
            "payload": payload}  # fmt: skip


def _judged_pages(
    con: duckdb.DuckDBPyConnection, sites: set[str], has_rule: HasRule, where: str = "true"
) -> list[tuple[str, str]]:
    """(page id, site) of the stored web pages on `sites` matching `where`, hosts a rule
    names left out. Pages store their plain registrable domain, the SQL filter; a page's
    site and host are read from its URL."""
    if not sites:
        return []
    registrable = sorted({_registrable(s) for s in sites})
    rows = con.execute(
        f"SELECT p.id, p.url FROM pages p WHERE {_WEB} AND ({where}) "
        "AND p.domain IN (SELECT unnest(?::VARCHAR[]))",
        [registrable],
    ).fetchall()
    out = []
    for pid, url in rows:
        site = vf.site_of_page(None, url)
        host = vf.host_of_page(None, url)
        if site in sites and host is not None and not has_rule(host):
            out.append((str(pid), str(site)))
    return out


def _registrable(site: str) -> str:
    try:
        return registrable_domain(site)
    except ValueError:
        return site


_WEB = "(lower(p.url) LIKE 'http://%' OR lower(p.url) LIKE 'https://%')"


def _stored_claims(
    con: duckdb.DuckDBPyConnection, sites: set[str], has_rule: HasRule
) -> list[tuple[str, str | None, vf.Verification]]:
    """The stored verification of every active claim drawn from a page of `sites`."""
    pages = dict(_judged_pages(con, sites, has_rule))
    if not pages:
        return []
    rows = con.execute(
        """
        SELECT DISTINCT c.id, f.page_id, c.verification_status, c.verification_reason
        FROM claims c
        JOIN edges e ON e.target_id = c.id AND e.relation = 'origin'
        JOIN fragments f ON f.id = e.source_id
        WHERE c.status = 'active' AND c.verification_status IS NOT NULL
          AND f.page_id IN (SELECT unnest(?::VARCHAR[]))
        ORDER BY c.id
        """,
        [sorted(pages)],
    ).fetchall()
    return [
        (str(cid), pages[str(pid)], vf.Verification(status, reason or ""))
        for cid, pid, status, reason in rows
    ]


def _set_page_levels(
    con: duckdb.DuckDBPyConnection, site: str, level: str, has_rule: HasRule
) -> None:
    """The site's web pages take its level: only between UNVERIFIED and LOW, and not on
    a host a rule names (a page keeps the level a rule gave it)."""
    where = "p.trust_level IN ('UNVERIFIED', 'LOW')"
    ids = [pid for pid, _ in _judged_pages(con, {site}, has_rule, where)]
    if ids:
        con.execute(
            "UPDATE pages SET trust_level = ? WHERE id IN (SELECT unnest(?::VARCHAR[]))",
            [level, ids],
        )


def forget_verification(con: duckdb.DuckDBPyConnection, registrable: str) -> None:
    """A block on `registrable` was lifted: every site under it (its owners, the private
    suffix's sites too) and every claim drawn from its pages lose their verification
    state, to be judged afresh by the next search (decision 0053)."""
    con.execute(
        "UPDATE domains SET verification_status = NULL, verification_reason = NULL "
        "WHERE domain = ? OR domain LIKE '%.' || ?",
        [registrable, registrable],
    )
    con.execute(
        """
        UPDATE claims SET verification_status = NULL, verification_reason = NULL
        WHERE verification_status IS NOT NULL AND id IN (
            SELECT e.target_id FROM edges e
            JOIN fragments f ON f.id = e.source_id
            JOIN pages p ON p.id = f.page_id
            WHERE e.relation = 'origin' AND p.domain = ?)
        """,
        [registrable],
    )


def promoted_sites(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The sites verification made LOW (their new pages are stored as LOW)."""
    rows = con.execute(
        "SELECT domain FROM domains WHERE verification_status = 'verified' AND trust_level = ?",
        [vf.PROMOTED_LEVEL],
    ).fetchall()
    return {str(d) for (d,) in rows}


def alerts(con: duckdb.DuckDBPyConnection, task_id: str, has_rule: HasRule) -> list[dict[str, Any]]:
    """The rejected sites among a task's pages, for get_status (seed: verification_alerts);
    a site a domains.yaml rule names since is out of verification and not listed."""
    states = con.execute(
        "SELECT domain, trust_level, verification_status, verification_reason, "
        "verification_changed_at FROM domains WHERE verification_status = 'rejected' "
        "ORDER BY domain"
    ).fetchall()
    if not states:  # the usual case: nothing to look up
        return []
    registrable = sorted({_registrable(str(row[0])) for row in states})
    rows = con.execute(
        f"SELECT DISTINCT p.url FROM pages p WHERE {_WEB} "
        "AND p.domain IN (SELECT unnest(?::VARCHAR[])) "
        "AND p.id IN (SELECT f.page_id FROM fragments f JOIN edges e ON e.source_id = f.id "
        "WHERE e.task_id = ?)",
        [registrable, task_id],
    ).fetchall()
    sites = {vf.site_of_page(None, u) for (u,) in rows}
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
                "action": _danger_action(site) if danger else CONTRADICTION_ACTION,
            }
        )
    return out


CONTRADICTION_ACTION = (
    "it is promoted again once none of its claims is refuted by a more trusted site and one "
    "is verified; feedback(action='claim_reject') takes a refuted claim out"
)


def _danger_action(site: str) -> str:
    return (
        f"feedback(action='domain_block', domain='{site}') to stop fetching and citing it "
        f"(the block covers its registrable domain, {_registrable(site)}); or "
        f"`user_overrides: {{{site}: UNVERIFIED}}` in $LYRA_HOME/domains.yaml to take it out "
        "of verification"
    )
