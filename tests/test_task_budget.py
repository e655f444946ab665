"""A task's budget from its row and its searches (jobs/budget.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from lyra.config.settings import TaskSettings
from lyra.jobs.budget import task_budget

DEFAULTS = TaskSettings(default_max_pages=50, default_max_seconds=1800.0)


def _searches(*pages: int) -> list[dict[str, object]]:
    return [{"metrics": {"pages_fetched": n}} for n in pages]


def test_the_tasks_own_budget_and_what_its_searches_used() -> None:
    # Stored TIMESTAMPs are naive UTC: ten minutes ago.
    created = datetime.now(UTC).replace(tzinfo=None) - timedelta(minutes=10)
    task = {"created_at": created, "config": {"budget": {"max_pages": 30, "max_seconds": 900}}}

    got = task_budget(task, [*_searches(12, 7), {"metrics": None}], DEFAULTS)

    assert {k: got[k] for k in ("max_pages", "max_seconds", "pages_used", "pages_remaining")} == {
        "max_pages": 30, "max_seconds": 900.0, "pages_used": 19, "pages_remaining": 11,
    }  # fmt: skip
    assert 299.0 <= got["seconds_remaining"] <= 300.0


def test_the_defaults_when_the_task_names_no_budget_and_nothing_below_zero() -> None:
    long_ago = datetime(2020, 1, 1, tzinfo=UTC)
    got = task_budget({"created_at": long_ago, "config": None}, _searches(60), DEFAULTS)

    assert got == {
        "max_pages": 50, "max_seconds": 1800.0, "pages_used": 60,
        "pages_remaining": 0, "seconds_remaining": 0.0,
    }  # fmt: skip
