"""A search whose fetching was ended by a graceful stop or by the end of its time budget
processes the documents in hand (decision 0057); the stage checks on the way."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from lyra.jobs.search_context import SearchContext, SearchStopped
from lyra.jobs.search_job import SearchJob
from tests.conftest import make_settings


def _job(lyra_home: Path, stop: dict[str, bool], deadline: float) -> SearchJob:
    async def call(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("no actor is asked in these checks")

    ctx = SearchContext(
        settings=make_settings(lyra_home), task={"id": "task-1", "tag": "t"},
        search_id="s-1", query="q", options={}, call=call, progress=lambda *_: None,
        stop_requested=lambda: stop["now"], pages_left=10, deadline=deadline,
        domain_rules={}, corpus_cache={}, fetch_url=call,
    )  # fmt: skip
    return SearchJob(ctx)


def test_a_budget_wind_down_goes_on_until_a_person_stops_it(lyra_home: Path) -> None:
    stop = {"now": False}
    job = _job(lyra_home, stop, deadline=time.monotonic() - 1)
    job.wound_down = job._stop_reason("ranking")
    assert job.wound_down is not None
    assert (job.wound_down.status, str(job.wound_down)) == (
        "exhausted",
        "time budget ran out before ranking",
    )
    job.check("storing")  # the documents in hand are processed
    stop["now"] = True
    with pytest.raises(SearchStopped) as stopped:
        job.check("claim extraction")
    assert (stopped.value.status, str(stopped.value)) == (
        "cancelled",
        "task stopped before claim extraction",
    )


def test_a_graceful_stop_wind_down_is_not_stopped_again(lyra_home: Path) -> None:
    stop = {"now": True}
    job = _job(lyra_home, stop, deadline=time.monotonic() + 60)
    job.wound_down = job._stop_reason("ranking")
    assert job.wound_down is not None
    assert job.wound_down.status == "cancelled"
    job.check("storing")
    job.check("stance")
    assert job.wound_down.status == "cancelled"


def test_without_a_wind_down_a_stop_ends_the_search_at_the_next_stage(lyra_home: Path) -> None:
    stop = {"now": True}
    job = _job(lyra_home, stop, deadline=time.monotonic() + 60)
    with pytest.raises(SearchStopped) as stopped:
        job.check("stance")
    assert (stopped.value.status, str(stopped.value)) == ("cancelled", "task stopped before stance")
