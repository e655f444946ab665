"""A task's budget: pages and seconds it was given, used and left (ARCHITECTURE §5)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from lyra.config.settings import TaskSettings


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
