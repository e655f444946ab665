"""The canonical paper index: a paper reached by several routes and ids is stored once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from lyra.storage import papers as pp
from lyra.storage.connection import open_database


@pytest.fixture
def db(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = open_database(tmp_path / "lyra.duckdb", memory_limit="512MB", threads=2)
    yield con
    con.close()


def _count(con: duckdb.DuckDBPyConnection) -> int:
    row = con.execute("SELECT count(*) FROM papers").fetchone()
    assert row is not None
    return int(row[0])


def test_a_doi_record_and_a_pmid_record_that_share_an_id_are_one_paper(
    db: duckdb.DuckDBPyConnection,
) -> None:
    serp = pp.upsert_paper(db, {"doi": "10.1000/tea.1", "title": "Green tea and blood pressure"})
    api = pp.upsert_paper(
        db,
        {
            "doi": "10.1000/tea.1",
            "pmid": "31000001",
            "s2_id": "a" * 40,
            "abstract": "Daily green tea lowered systolic pressure.",
            "source_apis": ["semantic_scholar"],
        },
    )
    by_pmid = pp.upsert_paper(
        db, {"pmid": "31000001", "openalex_id": "W123", "source_apis": ["openalex"]}
    )
    assert serp["created"] is True
    assert api["created"] is False
    assert by_pmid["created"] is False
    assert serp["id"] == api["id"] == by_pmid["id"]
    assert _count(db) == 1
    (row,) = pp.papers_by_ids(db, [serp["id"]])
    assert row["canonical_key"] == "doi:10.1000/tea.1"
    assert (row["doi"], row["pmid"], row["s2_id"], row["openalex_id"]) == (
        "10.1000/tea.1",
        "31000001",
        "a" * 40,
        "W123",
    )
    assert row["abstract"] == "Daily green tea lowered systolic pressure."
    assert row["source_apis"] == ["openalex", "semantic_scholar"]


def test_a_record_that_bridges_two_rows_merges_them_into_the_older(
    db: duckdb.DuckDBPyConnection,
) -> None:
    first = pp.upsert_paper(db, {"pmid": "111", "title": "A"})
    second = pp.upsert_paper(db, {"arxiv": "2101.00001", "title": "A preprint"})
    pp.record_sightings(
        db,
        [
            {"search_id": "s1", "paper_id": first["id"], "route": "page"},
            {"search_id": "s1", "paper_id": second["id"], "route": "api_search"},
        ],
    )
    bridged = pp.upsert_paper(db, {"pmid": "111", "arxiv": "2101.00001", "is_retracted": True})
    assert bridged["id"] == first["id"]
    assert bridged["merged_ids"] == [second["id"]]
    assert _count(db) == 1
    routes = db.execute("SELECT paper_id, route FROM paper_sightings ORDER BY route").fetchall()
    assert routes == [(first["id"], "api_search"), (first["id"], "page")]
    (row,) = pp.papers_by_ids(db, [first["id"]])
    assert row["is_retracted"] is True
    assert row["canonical_key"] == "pmid:111"


def test_id_less_records_match_only_by_title_and_year(db: duckdb.DuckDBPyConnection) -> None:
    a = pp.upsert_paper(db, {"title": "Tea, Caffeine & Sleep", "year": 2020})
    b = pp.upsert_paper(db, {"title": "TEA — caffeine & sleep.", "year": 2020})
    other_year = pp.upsert_paper(db, {"title": "Tea, Caffeine & Sleep", "year": 2021})
    with_doi = pp.upsert_paper(
        db, {"title": "Tea, Caffeine & Sleep", "year": 2020, "doi": "10.1000/x"}
    )
    assert a["id"] == b["id"]
    assert len({a["id"], other_year["id"], with_doi["id"]}) == 3
    with pytest.raises(ValueError, match="no DOI, PMID, arXiv id or title"):
        pp.upsert_paper(db, {"abstract": "nothing to key by"})


def test_reference_candidates_list_kept_ones_first(db: duckdb.DuckDBPyConnection) -> None:
    anchor = pp.upsert_paper(db, {"doi": "10.1/anchor", "title": "Anchor"})
    kept = pp.upsert_paper(db, {"doi": "10.1/kept", "title": "Kept", "year": 2019})
    dropped = pp.upsert_paper(db, {"doi": "10.1/dropped", "title": "Dropped"})
    rows = [
        {
            "task_id": "t1",
            "search_id": "s1",
            "anchor_paper_id": anchor["id"],
            "paper_id": dropped["id"],
            "direction": "citations",
            "is_influential": False,
            "similarity": 0.9,
            "score": 0.45,
            "kept": False,
            "apis": ["openalex"],
        },
        {
            "task_id": "t1",
            "search_id": "s1",
            "anchor_paper_id": anchor["id"],
            "paper_id": kept["id"],
            "direction": "references",
            "is_influential": True,
            "similarity": 0.5,
            "score": 0.75,
            "kept": True,
            "apis": ["semantic_scholar"],
        },
    ]
    assert pp.insert_citation_candidates(db, rows) == 2
    assert pp.insert_citation_candidates(db, rows) == 0
    listed = pp.reference_candidates(db, "t1")
    assert [(r["title"], r["kept"], r["direction"]) for r in listed] == [
        ("Kept", True, "references"),
        ("Dropped", False, "citations"),
    ]
    assert listed[0]["anchor_title"] == "Anchor"
    assert pp.reference_candidates(db, "other-task") == []
