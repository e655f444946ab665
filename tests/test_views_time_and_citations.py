"""The ten analysis views of issue 15 (seed 004 §4.2.3): citation flow, citation
clusters, evidence timeline, claim temporal support, emerging consensus, outdated
evidence, source authority, controversy by era, citation age gap, evidence freshness;
each on a graph built for it, the expected rows worked out by hand below.

The graph: pages p1 (published 2010), p2 (2015), p3 (no date; carries a paper of
2021), p4 (no date, no paper), p5 (only cited). One fragment each on p1-p4.
Task t1: c1 is supported by p1 (0.8), refuted by p2 (0.6), supported by p3 (0.9) and
by p4 (0.7, year unknown); c2 is supported by p1 (0.5) and refuted by p2 (0.4).
Task t2: c3 is refuted by p3 (0.7). Cites: p3 -> p2 (citation tracking), p2 -> p1 (t1);
p4 -> p5 (t2).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lyra.storage import repository as repo
from lyra.storage.connection import open_database
from lyra.storage.views import list_views, render_view

NEW_VIEWS = {
    "citation_flow",
    "citation_clusters",
    "evidence_timeline",
    "claim_temporal_support",
    "emerging_consensus",
    "outdated_evidence",
    "source_authority",
    "controversy_by_era",
    "citation_age_gap",
    "evidence_freshness",
}


@pytest.fixture
def graph(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = open_database(tmp_path / "lyra.duckdb", memory_limit="512MB", threads=2)
    repo.upsert_pages(
        con,
        [
            {"id": "p1", "url": "https://j.org/2010", "domain": "j.org", "title": "Old",
             "published_date": "2010-05-01"},
            {"id": "p2", "url": "https://j.org/2015", "domain": "j.org", "title": "Mid",
             "published_date": "2015-03-01"},
            {"id": "p3", "url": "https://k.org/paper", "domain": "k.org", "title": "Paper"},
            {"id": "p4", "url": "https://k.org/undated", "domain": "k.org", "title": "Undated"},
            {"id": "p5", "url": "https://m.org/cited", "domain": "m.org", "title": "Cited"},
        ],
    )  # fmt: skip
    con.execute(
        "INSERT INTO papers (id, canonical_key, title, year, page_id) "
        "VALUES ('paper_1', 'doi:10.1/x', 'Paper', 2021, 'p3')"
    )
    repo.insert_fragments(
        con,
        [
            {"id": f"f{i}", "page_id": f"p{i}", "position": 0, "text_content": f"text {i}"}
            for i in range(1, 5)
        ],
    )
    repo.insert_claims(
        con,
        [
            {"id": "c1", "task_id": "t1", "claim_text": "A"},
            {"id": "c2", "task_id": "t1", "claim_text": "B"},
            {"id": "c3", "task_id": "t2", "claim_text": "C"},
        ],
    )

    def stance(task: str, frag: str, claim: str, relation: str, conf: float) -> dict[str, Any]:
        return {"task_id": task, "source_type": "fragment", "source_id": frag,
                "target_type": "claim", "target_id": claim, "relation": relation,
                "nli_confidence": conf}  # fmt: skip

    def cites(task: str, a: str, b: str, method: str | None) -> dict[str, Any]:
        return {"task_id": task, "source_type": "page", "source_id": a, "target_type": "page",
                "target_id": b, "relation": "cites", "method": method}  # fmt: skip

    repo.insert_edges(
        con,
        [
            stance("t1", "f1", "c1", "supports", 0.8),
            stance("t1", "f2", "c1", "refutes", 0.6),
            stance("t1", "f3", "c1", "supports", 0.9),
            stance("t1", "f4", "c1", "supports", 0.7),
            stance("t1", "f1", "c2", "supports", 0.5),
            stance("t1", "f2", "c2", "refutes", 0.4),
            stance("t2", "f3", "c3", "refutes", 0.7),
            cites("t1", "p3", "p2", "citation_tracking"),
            cites("t1", "p2", "p1", None),
            cites("t2", "p4", "p5", None),
        ],
    )
    yield con
    con.close()


def rows(con: duckdb.DuckDBPyConnection, view: str, order: str, **params: Any) -> list[Any]:
    return con.execute(f"SELECT * FROM ({render_view(view, params)}) ORDER BY {order}").fetchall()


def test_every_view_of_the_contract_is_listed() -> None:
    names = {v.name for v in list_views()}
    assert names >= NEW_VIEWS
    assert len(names) == 16


def test_citation_flow(graph: duckdb.DuckDBPyConnection) -> None:
    assert rows(graph, "citation_flow", "1, 3") == [
        ("p2", "https://j.org/2015", "p1", "https://j.org/2010", "cites", 1),
        ("p3", "https://k.org/paper", "p1", "https://j.org/2010", "citation_tracking", 2),
        ("p3", "https://k.org/paper", "p2", "https://j.org/2015", "citation_tracking", 1),
        ("p4", "https://k.org/undated", "p5", "https://m.org/cited", "cites", 1),
    ]
    assert len(rows(graph, "citation_flow", "1, 3", task_id="t1")) == 3


def test_citation_clusters(graph: duckdb.DuckDBPyConnection) -> None:
    assert rows(graph, "citation_clusters", "1") == [
        ("p1", ["p1", "p2", "p3"], 2, 3),
        ("p4", ["p4", "p5"], 1, 2),
    ]
    assert rows(graph, "citation_clusters", "1", task_id="t2") == [("p4", ["p4", "p5"], 1, 2)]


def test_evidence_timeline(graph: duckdb.DuckDBPyConnection) -> None:
    got = rows(graph, "evidence_timeline", "year")
    assert [r[:3] for r in got] == [(2010, 1, 2), (2015, 1, 2), (2021, 1, 2)]
    assert [r[3] for r in got] == pytest.approx([0.65, 0.5, 0.8])
    t1 = rows(graph, "evidence_timeline", "year", task_id="t1")
    assert [r[:3] for r in t1] == [(2010, 1, 2), (2015, 1, 2), (2021, 1, 1)]
    assert t1[2][3] == pytest.approx(0.9)


def test_claim_temporal_support(graph: duckdb.DuckDBPyConnection) -> None:
    got = rows(graph, "claim_temporal_support", "claim_id")
    assert [r[:5] for r in got] == [
        ("c1", "A", 2010, 2021, 11),
        ("c2", "B", 2010, 2010, 0),
        ("c3", "C", None, None, None),
    ]
    assert [r[5] for r in got] == pytest.approx([2 / 3, 0.5, 0.0])


def test_emerging_consensus(graph: duckdb.DuckDBPyConnection) -> None:
    # c1 nets +1 (2010), -1 (2015), +1 (2021): slope Sxy / Sxx = (2/3) / (182/3) = 1/91.
    # c2 nets +1 (2010), -1 (2015): falling, left out; c3 has one year.
    got = rows(graph, "emerging_consensus", "claim_id")
    assert [(r[0], r[3]) for r in got] == [("c1", 3)]
    assert got[0][2] == pytest.approx(1 / 91)


def test_outdated_evidence(graph: duckdb.DuckDBPyConnection) -> None:
    assert rows(graph, "outdated_evidence", "claim_id", as_of_year=2026) == [
        ("c1", "A", 2021, 5),
        ("c2", "B", 2010, 16),
    ]
    assert rows(graph, "outdated_evidence", "claim_id", as_of_year=2026, outdated_years=6) == [
        ("c2", "B", 2010, 16)
    ]


def test_source_authority(graph: duckdb.DuckDBPyConnection) -> None:
    got = rows(graph, "source_authority", "page_id", as_of_year=2026)
    assert [(r[0], r[4], r[5], r[6]) for r in got] == [
        ("p1", 0, 1, 2010),
        ("p2", 1, 1, 2015),
        ("p3", 1, 0, 2021),
        ("p4", 1, 0, None),
        ("p5", 0, 1, None),
    ]
    ln2 = math.log(2)
    assert [r[3] for r in got] == pytest.approx(
        [
            ln2 + math.exp(-1.6),
            ln2 + 0.5 * ln2 + math.exp(-1.1),
            0.5 * ln2 + math.exp(-0.5),
            0.5 * ln2,
            ln2,
        ]
    )


def test_controversy_by_era(graph: duckdb.DuckDBPyConnection) -> None:
    # 2010s: c1 and c2 are each supported and refuted; 2020s: c1 only supported, c3
    # only refuted. The majority turns from controversy to consensus.
    assert rows(graph, "controversy_by_era", "decade") == [
        (2010, 2, 0, False),
        (2020, 0, 2, True),
    ]


def test_citation_age_gap(graph: duckdb.DuckDBPyConnection) -> None:
    assert rows(graph, "citation_age_gap", "1") == [(2015, 2010, 5, 1), (2021, 2015, 6, 1)]


def test_evidence_freshness(graph: duckdb.DuckDBPyConnection) -> None:
    got = rows(graph, "evidence_freshness", "claim_id", as_of_year=2026)
    assert [(r[0], r[3], r[4]) for r in got] == [
        ("c1", True, False),
        ("c2", False, False),
        ("c3", False, True),
    ]
    assert [r[2] for r in got] == pytest.approx([32 / 3, 13.5, 5.0])
    assert (
        rows(graph, "evidence_freshness", "claim_id", as_of_year=2026, recent_years=4)[0][3]
        is False
    )


def test_a_view_parameter_of_the_wrong_type_is_refused(graph: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(duckdb.Error):
        rows(graph, "outdated_evidence", "claim_id", as_of_year="last year")
