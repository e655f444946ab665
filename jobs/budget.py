"""A task's config as stored, and its budget: pages and seconds it was given, used and
left (ARCHITECTURE §5)."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from typing import Any

from lyra.config.settings import TaskSettings
from lyra.pipelines.errors import LyraError
from lyra.pipelines.net.domains import host_of, registrable_domain

_HOST = re.compile(r"[a-z0-9](?:[a-z0-9.\-]*[a-z0-9])?")
"""A host name or IPv4 address as host_of gives it (lower case): no spaces, no paths."""


def task_config(config: dict[str, Any], defaults: TaskSettings) -> dict[str, Any]:
    """``config`` of create_task as stored: its budget with the defaults filled in, and
    its priority sites by their registrable domain, the name pages are stored under
    (INVALID_PARAMS for one that is not a domain name or URL)."""
    budget = dict(config.get("budget") or {})
    budget.setdefault("max_pages", defaults.default_max_pages)
    budget.setdefault("max_seconds", defaults.default_max_seconds)
    sites: list[str] = []
    for given in config.get("priority_domains") or []:
        host = host_of(str(given).strip())
        if not host or not _HOST.fullmatch(host):
            raise LyraError(
                "INVALID_PARAMS",
                f"{given!r} is not a domain name or URL",
                field="config.priority_domains",
            )
        sites.append(registrable_domain(host))
    return {**config, "budget": budget, "priority_domains": list(dict.fromkeys(sites))}


def task_budget(
    task: dict[str, Any], searches: list[dict[str, Any]], defaults: TaskSettings
) -> dict[str, Any]:
    """``max_pages`` and ``max_seconds`` (the task's ``config.budget``, else the
    defaults), the pages its searches fetched, and what is left of each. The clock runs
    from ``create_task``, whatever the task did since."""
    budget = (task.get("config") or {}).get("budget") or {}
    used_pages = sum(int((s.get("metrics") or {}).get("pages_fetched", 0)) for s in searches)
    created = task["created_at"]
    # TIMESTAMP columns hold naive UTC (storage.repository.utcnow).
    if isinstance(created, datetime):
        start = created if created.tzinfo else created.replace(tzinfo=UTC)
        elapsed = time.time() - start.timestamp()
    else:
        elapsed = 0.0
    max_pages = int(budget.get("max_pages", defaults.default_max_pages))
    max_seconds = float(budget.get("max_seconds", defaults.default_max_seconds))
    return {
        "max_pages": max_pages,
        "max_seconds": max_seconds,
        "pages_used": used_pages,
        "pages_remaining": max(0, max_pages - used_pages),
        "seconds_remaining": round(max(0.0, max_seconds - elapsed), 1),
    }
