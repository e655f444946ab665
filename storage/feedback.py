"""What a person says about sites, claims and edges: the feedback tool (issue 14, decision 0050).

- ``domain_block`` / ``domain_unblock``: the site (its registrable domain) goes into, or
  out of, ``LYRA_HOME/feedback_domains.yaml``, the last layer of the domain rules that
  every fetcher, the browser and every search re-read when it changes, so a blocked
  site gets no request from then on, also after a restart; the ``domains`` row says
  BLOCKED with the reason (``feedback: ...``), and its pages leave confidence.
- ``claim_reject`` / ``claim_restore``: the claim's status (``rejected`` / ``active``)
  with the reason; a rejected claim leaves the tools' lists, the views and confidence
  and stays in the database.
- ``edge_correct``: a stance edge gets the relation the person says is right, with
  confidence 1; the model's answer stays in ``nli_label`` and ``nli_raw_confidence``,
  and the pair becomes a calibration sample (``nli``).

Every action is an ``event_log`` row of kind ``feedback`` (plus ``domain_blocked`` /
``domain_unblocked`` for sites).
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from typing import Any

import duckdb
import yaml

from lyra.pipelines.errors import LyraError
from lyra.pipelines.net.domains import (
    FEEDBACK_BLOCK_PREFIX,
    FEEDBACK_DOMAINS_FILENAME,
    config_block_reason,
    host_name_problem,
    host_of,
    registrable_domain,
)
from lyra.storage import calibration as cs
from lyra.storage.repository import log_event, transaction, utcnow
from lyra.storage.verification import forget_verification

ACTIONS: tuple[str, ...] = (
    "domain_block",
    "domain_unblock",
    "claim_reject",
    "claim_restore",
    "edge_correct",
)
STANCE_RELATIONS: tuple[str, ...] = ("supports", "refutes", "neutral")
_FILE_LOCK = threading.Lock()
_HEADER = (
    "# Written by Lyra's feedback tool (domain_block / domain_unblock); re-read without a\n"
    "# restart. Prefer the tool to editing this file by hand.\n"
)


def _invalid(message: str, field: str) -> LyraError:
    return LyraError("INVALID_PARAMS", message, field=field)


def site_of(value: str | None, *, checked: bool = True) -> str:
    """The registrable domain of a domain name or URL; INVALID_PARAMS when there is none.

    ``checked``: the host must name a site (`host_name_problem`: not ``com``, not
    ``-bad-.com``, not ``999.999.999.999``). Unblocking takes any name, so that a block
    stored before these checks can still be lifted.
    """
    text = (value or "").strip()
    host = host_of(text) if text else ""
    problem = host_name_problem(host) if checked else None
    if problem is None and (not host or " " in host or "/" in host):
        problem = "no host"
    if problem is not None:
        shown = text if len(text) <= 80 else f"{text[:77]}..."
        raise _invalid(f"{shown!r} is not a domain name or URL: {problem}", "domain")
    return registrable_domain(host)


# ------------------------------------------------------------------------- the rules file


def _read(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {"user_overrides": {}}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    data.setdefault("user_overrides", {})
    return dict(data)


def _write(path: Path, data: dict[str, Any]) -> None:
    """Replace the file in one rename, so a reader never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = _HEADER + yaml.safe_dump(data, sort_keys=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".feedback-", suffix=".yaml")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def feedback_blocks(home: Path) -> dict[str, str]:
    """The sites the feedback file blocks (site -> BLOCKED)."""
    overrides = _read(home / FEEDBACK_DOMAINS_FILENAME).get("user_overrides") or {}
    return {str(k): str(v) for k, v in overrides.items() if v == "BLOCKED"}


# ------------------------------------------------------------------------- actions


def _pages_on(con: duckdb.DuckDBPyConnection, site: str) -> int:
    row = con.execute("SELECT count(*) FROM pages WHERE domain = ?", [site]).fetchone()
    return int(row[0]) if row else 0


def block_domain(
    con: duckdb.DuckDBPyConnection, home: Path, domain: str | None, reason: str | None
) -> dict[str, Any]:
    site = site_of(domain)
    stored = f"{FEEDBACK_BLOCK_PREFIX}: {reason}" if reason else FEEDBACK_BLOCK_PREFIX
    path = home / FEEDBACK_DOMAINS_FILENAME
    with _FILE_LOCK:
        data = _read(path)
        in_rules = data["user_overrides"].get(site) == "BLOCKED"
        data["user_overrides"][site] = "BLOCKED"
        _write(path, data)  # first the rules, which stop fetching, then the record
    # Blocked already when the record says so too: a block whose record a crash lost
    # (the rules written, the transaction not committed) is recorded now, as a change.
    recorded = con.execute(
        "SELECT count(*) FROM domains WHERE domain = ? AND blocked", [site]
    ).fetchone()
    already = in_rules and bool(recorded and recorded[0])
    now = utcnow()
    with transaction(con):
        con.execute(
            """
            INSERT INTO domains (domain, trust_level, blocked, block_reason, blocked_at, updated_at)
            VALUES (?, 'BLOCKED', true, ?, ?, ?)
            ON CONFLICT (domain) DO UPDATE SET trust_level = 'BLOCKED', blocked = true,
                block_reason = excluded.block_reason,
                blocked_at = CASE WHEN domains.blocked THEN domains.blocked_at
                                  ELSE excluded.blocked_at END,
                updated_at = excluded.updated_at
            """,
            [site, stored, now, now],
        )
        payload = {"domain": site, "reason": reason, "cause": "feedback"}
        if not already:
            log_event(con, "domain_blocked", actor="graph", payload=payload)
        log_event(con, "feedback", actor="graph", payload={"action": "domain_block", **payload})
    return {
        "action": "domain_block",
        "domain": site,
        "reason": reason,
        "changed": not already,
        "pages_affected": _pages_on(con, site),
    }


def _log_unblock(
    con: duckdb.DuckDBPyConnection, site: str, reason: str | None, **more: Any
) -> None:
    payload = {"action": "domain_unblock", "domain": site, "reason": reason, **more}
    log_event(con, "feedback", actor="graph", payload=payload)


def _unblocked(
    con: duckdb.DuckDBPyConnection,
    site: str,
    reason: str | None,
    *,
    changed: bool,
    still_blocked_by: str | None,
) -> dict[str, Any]:
    return {
        "action": "domain_unblock",
        "domain": site,
        "reason": reason,
        "changed": changed,
        "pages_affected": _pages_on(con, site),
        "still_blocked_by": still_blocked_by,
    }


def unblock_domain(
    con: duckdb.DuckDBPyConnection,
    home: Path,
    domain: str | None,
    reason: str | None,
    level_now: str,
    config_rule: str | None = None,
) -> dict[str, Any]:
    """Lift the feedback block of a site. ``level_now``: its level under the domains.yaml
    files; ``config_rule``: the rule there that still blocks it, if any (then it stays
    blocked, recorded as that rule's block, and the answer says so)."""
    site = site_of(domain, checked=False)
    path = home / FEEDBACK_DOMAINS_FILENAME
    with _FILE_LOCK:
        data = _read(path)
        if data["user_overrides"].get(site) != "BLOCKED":
            if config_rule is not None:
                raise _invalid(
                    f"{site} is not blocked by feedback (a block in domains.yaml is lifted "
                    "by editing that file)",
                    "domain",
                )
            recorded = con.execute(
                "SELECT block_reason FROM domains WHERE domain = ? AND blocked", [site]
            ).fetchone()
            # A feedback block whose lifting a crash cut short (the rules written, the
            # record not committed) is lifted in the record now.
            half_lifted = recorded is not None and str(recorded[0] or "").startswith(
                FEEDBACK_BLOCK_PREFIX
            )
            if recorded is not None and not half_lifted:
                raise _invalid(
                    f"{site} is not blocked by feedback (blocked for: {recorded[0]})", "domain"
                )
            if recorded is None:
                # Not blocked at all (never, or unblocked before): it already is so.
                _log_unblock(con, site, reason, changed=False)
                return _unblocked(con, site, reason, changed=False, still_blocked_by=None)
        with transaction(con):
            if config_rule is None:
                con.execute(
                    "UPDATE domains SET blocked = false, trust_level = ?, block_reason = NULL, "
                    "blocked_at = NULL, updated_at = ? WHERE domain = ?",
                    [level_now, utcnow(), site],
                )
                forget_verification(con, site)
                log_event(
                    con,
                    "domain_unblocked",
                    actor="graph",
                    payload={"domain": site, "reason": reason, "cause": "feedback"},
                )
            else:  # domains.yaml blocks it too: still blocked, as that rule's block
                con.execute(
                    "UPDATE domains SET block_reason = ?, updated_at = ? WHERE domain = ?",
                    [config_block_reason(config_rule), utcnow(), site],
                )
            _log_unblock(con, site, reason, still_blocked_by=config_rule)
            data["user_overrides"].pop(site, None)
            # Last, inside the transaction: a failed write leaves the row blocked too.
            _write(path, data)
    return _unblocked(con, site, reason, changed=True, still_blocked_by=config_rule)


def _claim(con: duckdb.DuckDBPyConnection, claim_id: str | None) -> tuple[str, str, str]:
    if not claim_id:
        raise _invalid("claim_id is required", "claim_id")
    row = con.execute("SELECT id, task_id, status FROM claims WHERE id = ?", [claim_id]).fetchone()
    if row is None:
        raise _invalid(f"no claim {claim_id!r}", "claim_id")
    return str(row[0]), str(row[1]), str(row[2])


def set_claim_status(
    con: duckdb.DuckDBPyConnection, claim_id: str | None, reject: bool, reason: str | None
) -> dict[str, Any]:
    cid, task_id, status = _claim(con, claim_id)
    action = "claim_reject" if reject else "claim_restore"
    wanted = "rejected" if reject else "active"
    with transaction(con):
        if status != wanted:
            con.execute(
                "UPDATE claims SET status = ?, status_reason = ?, status_changed_at = ? "
                "WHERE id = ?",
                [wanted, reason, utcnow(), cid],
            )
        log_event(
            con,
            "feedback",
            actor="graph",
            task_id=task_id,
            cause_id=cid,
            payload={"action": action, "claim_id": cid, "reason": reason, "from": status},
        )
    return {
        "action": action,
        "claim_id": cid,
        "task_id": task_id,
        "status": wanted,
        "previous_status": status,
        "reason": reason,
        "changed": status != wanted,
    }


def correct_edge(
    con: duckdb.DuckDBPyConnection,
    edge_id: str | None,
    relation: str | None,
    reason: str | None,
    refit_every: int,
) -> dict[str, Any]:
    if not edge_id:
        raise _invalid("edge_id is required", "edge_id")
    if relation not in STANCE_RELATIONS:
        raise _invalid(
            f"relation must be one of {', '.join(STANCE_RELATIONS)}, got {relation!r}",
            "relation",
        )
    row = con.execute(
        "SELECT relation, nli_label, coalesce(nli_raw_confidence, nli_confidence), task_id "
        "FROM edges WHERE id = ?",
        [edge_id],
    ).fetchone()
    if row is None:
        raise _invalid(f"no edge {edge_id!r}", "edge_id")
    before, model_label, model_p, task_id = row
    if before not in STANCE_RELATIONS:
        raise _invalid(
            f"edge {edge_id} is a {before!r} edge, not a stance edge (supports, refutes, neutral)",
            "edge_id",
        )
    sample = None
    with transaction(con):
        if model_p is not None and (model_label or before) in STANCE_RELATIONS:
            # The model's own answer and probability against the person's: a sample.
            # (The edge's earlier sample, if any, is replaced: one judgement per edge.)
            sample = cs.add_sample(
                con,
                {
                    "source": "nli",
                    "edge_id": edge_id,
                    "actual": relation,
                    "context": {"feedback": "edge_correct", "reason": reason},
                },
                refit_every,
            )
        con.execute(
            "UPDATE edges SET relation = ?, nli_label = coalesce(nli_label, ?), "
            "nli_raw_confidence = coalesce(nli_raw_confidence, nli_confidence), "
            "nli_confidence = 1.0, calibration_version = NULL WHERE id = ?",
            [relation, before, edge_id],
        )
        log_event(
            con,
            "feedback",
            actor="graph",
            task_id=task_id,
            cause_id=edge_id,
            payload={
                "action": "edge_correct",
                "edge_id": edge_id,
                "from": before,
                "to": relation,
                "model_label": model_label,
                "reason": reason,
            },
        )
    return {
        "action": "edge_correct",
        "edge_id": edge_id,
        "task_id": task_id,
        "relation": relation,
        "previous_relation": before,
        "model_label": model_label,
        "reason": reason,
        "changed": before != relation,
        "calibration_sample": sample,
    }
