"""bench/chaos.py, shortened: one kill of each actor kind during a search (issue 13 item 3).

20 pages over 2 loopback sites; the orchestrator, the graph, the inference and the
browser actors and one site's fetcher are each killed once (seeded order, SIGKILL and
`ray.kill` alternating) once the search runs. Every page ends up stored once, every
claim a tool response reported is in the database, no tool call fails (the feedback
writes sent every half second included), and each site's own log keeps the politeness
gap.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import chaos

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]


async def test_every_actor_kind_killed_once_loses_nothing(tmp_path: Path) -> None:
    out = await chaos.run_chaos(
        pages=20, domains=2, qps=2.0, kills=5, seed=7, say=print, home=tmp_path
    )
    assert dict(out["kills"]) == {kind: 1 for kind in chaos.KINDS}
    assert out["pages_stored"] == 20
    assert out["claims_lost"] == 0
    assert out["claims_found"] == out["claims_acknowledged"]
    assert (out["duplicate_pages"], out["duplicate_fragments"]) == (0, 0)
    assert out["failed_tool_calls"] == []
    # The feedback writes sent all along, kills included: each acknowledged one stored.
    assert out["writes_lost"] == 0
    assert out["writes_recorded"] == out["writes_acknowledged"]
    assert out["writes_repeated"] == 0  # none done twice (decision 0064's update)
    assert out["max_politeness_violation_s"] == 0.0
    assert out["restart_events"]["orchestrator"] == 1
