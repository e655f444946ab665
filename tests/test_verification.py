"""Source verification, L6 (issue 14, decision 0053).

The rules on rows first (corroboration, contradiction by a more trusted site, danger
patterns, the site's transitions), then the GraphStore on a DuckDB file: a site whose
claim two other sites support becomes LOW with its pages, stored and new; a refutation
from an ACADEMIC page takes it back; a danger pattern rejects it and holds; a site a
rule names is left alone; every transition is one event_log row and a second run with
nothing new writes none.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lyra.pipelines.evidence import verification as vf
from lyra.pipelines.net.domains import registrable_domain
from lyra.storage.graph_store import GraphStore
from tests.conftest import make_settings

ORIGIN = {
    "claim_id": "c1",
    "page_id": "pa",
    "domain": "news.alpha.org",
    "url": "https://news.alpha.org/a",
    "trust_level": "UNVERIFIED",
    "dup_of": None,
}


def edge(relation: str, page: str, domain: str, conf: float = 0.8, **extra: Any) -> dict[str, Any]:
    return {
        "relation": relation,
        "nli_confidence": conf,
        "fragment_id": f"f-{page}",
        "page_id": page,
        "domain": domain,
        "url": f"https://{domain}/{page}",
        "dup_of": None,
        "dup_domain": None,
        "trust_level": "UNVERIFIED",
        **extra,
    }


def test_two_other_sites_verify_a_claim() -> None:
    v = vf.verify_claim(
        ORIGIN,
        [edge("supports", "pb", "www.beta.org"), edge("supports", "pc", "gamma.org")],
        {"f-pb": ["c7"], "f-pa": ["c1"]},
    )
    assert (v.status, v.independent_sources) == ("verified", 2)
    assert v.corroborating_domains == ("beta.org", "gamma.org")
    assert v.corroborating_claims == ("c7",)
    assert v.reason == "supported by 2 independent sites: beta.org, gamma.org"


@pytest.mark.parametrize(
    ("evidence", "sites"),
    [
        # its own site, on another host
        ([edge("supports", "pb", "blog.alpha.org"), edge("supports", "pc", "gamma.org")],
         1),
        # a near-duplicate of its own page, on another site
        ([edge("supports", "pb", "beta.org", dup_of="pa", dup_domain="news.alpha.org"),
          edge("supports", "pc", "gamma.org")], 1),
        # two pages of one other site
        ([edge("supports", "pb", "beta.org"), edge("supports", "pc", "www.beta.org")], 1),
        # a near-duplicate counts as its canonical page's site
        ([edge("supports", "pb", "beta.org"),
          edge("supports", "pc", "gamma.org", dup_of="pb", dup_domain="beta.org")], 1),
        # below the edge probability that counts
        ([edge("supports", "pb", "beta.org"), edge("supports", "pc", "gamma.org", 0.49)],
         1),
        ([edge("neutral", "pb", "beta.org"), edge("supports", "pc", "gamma.org")], 1),
    ],
)  # fmt: skip
def test_what_is_not_an_independent_corroboration(
    evidence: list[dict[str, Any]], sites: int
) -> None:
    v = vf.verify_claim(ORIGIN, evidence, {})
    assert (v.status, v.independent_sources) == ("pending", sites)


@pytest.mark.parametrize(
    ("origin_level", "refuter_level", "status"),
    [
        ("UNVERIFIED", "ACADEMIC", "rejected"),
        ("UNVERIFIED", "LOW", "rejected"),
        ("LOW", "TRUSTED", "rejected"),
        ("UNVERIFIED", "UNVERIFIED", "verified"),  # a peer's refutation is a conflict, no more
        ("LOW", "LOW", "verified"),
        ("ACADEMIC", "GOVERNMENT", "rejected"),
        ("PRIMARY", "GOVERNMENT", "verified"),
    ],
)
def test_only_a_more_trusted_site_rejects(
    origin_level: str, refuter_level: str, status: str
) -> None:
    v = vf.verify_claim(
        {**ORIGIN, "trust_level": origin_level},
        [
            edge("supports", "pb", "beta.org"),
            edge("supports", "pc", "gamma.org"),
            edge("refutes", "pd", "delta.org", 0.7, trust_level=refuter_level),
        ],
        {"f-pd": ["c9"]},
    )
    refuted = status == "rejected"
    assert (v.status, v.contradicting_domains, v.contradicting_claims) == (
        status, ("delta.org",) if refuted else (), ("c9",) if refuted else ()
    )  # fmt: skip
    assert v.reason == (
        f"refuted by a source more trusted than its own ({origin_level}): delta.org"
        if refuted
        else "supported by 2 independent sites: beta.org, gamma.org"
    )


def test_a_weak_refutation_rejects_nothing() -> None:
    v = vf.verify_claim(
        ORIGIN, [edge("refutes", "pd", "delta.org", 0.45, trust_level="ACADEMIC")], {}
    )
    assert (v.status, v.contradicting_domains) == ("pending", ())


def test_a_danger_pattern_rejects_whatever_supports_it() -> None:
    v = vf.verify_claim(
        ORIGIN,
        [edge("supports", "pb", "beta.org"), edge("supports", "pc", "gamma.org")],
        {},
        ["hidden_instruction:css (https://news.alpha.org/a)"],
    )
    assert (v.status, v.independent_sources) == ("rejected", 2)
    assert v.reason == (
        "its site carried an instruction to AI readers: hidden_instruction:css "
        "(https://news.alpha.org/a)"
    )


def test_a_hostile_site_neither_corroborates_nor_contradicts() -> None:
    v = vf.verify_claim(
        ORIGIN,
        [edge("supports", "pb", "beta.org"), edge("supports", "pc", "gamma.org"),
         edge("refutes", "pd", "delta.org", trust_level="ACADEMIC")],
        {},
        hostile_sites={"gamma.org", "delta.org"},
    )  # fmt: skip
    assert (v.status, v.corroborating_domains, v.contradicting_domains) == (
        "pending", ("beta.org",), ()
    )  # fmt: skip


@pytest.mark.parametrize(
    ("verdict", "before", "before_reason", "after"),
    [
        ("verified", None, None, ("verified", "LOW")),
        ("verified", "pending", None, ("verified", "LOW")),
        ("verified", "verified", "x", None),
        ("verified", "rejected", "refuted by a source more trusted", ("verified", "LOW")),
        ("verified", "rejected", "danger pattern on its pages: x", None),
        ("rejected", None, None, ("rejected", "UNVERIFIED")),
        ("rejected", "verified", "x", ("rejected", "UNVERIFIED")),
        ("rejected", "rejected", "refuted by a source more trusted", None),
    ],
)
def test_site_transitions(
    verdict: str, before: str | None, before_reason: str | None, after: tuple[str, str] | None
) -> None:
    v = vf.SiteVerdict("alpha.org", verdict, "refuted by …", ())  # type: ignore[arg-type]
    assert vf.next_site_state(v, before, before_reason) == after


def test_a_danger_pattern_replaces_a_contradiction_as_the_reason() -> None:
    v = vf.SiteVerdict("alpha.org", "rejected", "danger pattern on its pages: x", ())
    assert vf.next_site_state(v, "rejected", "refuted by a source more trusted") == (
        "rejected",
        "UNVERIFIED",
    )


def test_site_verdicts_rejection_wins_and_pending_says_nothing() -> None:
    pend = vf.Verification("pending", "p")
    ok = vf.Verification("verified", "v")
    bad = vf.Verification("rejected", "refuted by x")
    verdicts = vf.site_verdicts(
        [("c1", "a.org", ok), ("c2", "a.org", bad), ("c3", "b.org", ok),
         ("c4", "c.org", pend), ("c5", None, ok)],
        {"d.org": ["instruction:x (https://d.org/)"]},
    )  # fmt: skip
    assert {s: (v.status, v.claim_ids) for s, v in verdicts.items()} == {
        "a.org": ("rejected", ("c2",)),
        "b.org": ("verified", ("c3",)),
        "d.org": ("rejected", ()),
    }


# --------------------------------------------------------------------------- the store

SITES = {"pa": "127.0.0.21", "pb": "127.0.0.22", "pc": "127.0.0.23", "pd": "127.0.0.24"}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GraphStore]:
    home = tmp_path / "home"
    home.mkdir()
    gs = GraphStore(make_settings(home, corpus=None))
    gs.create_task("t1", "q", {})
    gs.upsert_pages([
        {"id": pid, "url": f"http://{host}:8080/{pid}.html", "domain": host,
         "trust_level": "ACADEMIC" if pid == "pd" else "UNVERIFIED"}
        for pid, host in SITES.items()
    ])  # fmt: skip
    gs.insert_fragments([
        {"id": f"f-{pid}", "page_id": pid, "position": 0, "text_content": f"text {pid}"}
        for pid in SITES
    ])  # fmt: skip
    gs.insert_claims([
        {"id": "c1", "task_id": "t1", "claim_text": "Caffeine shortens sleep."},
        {"id": "c2", "task_id": "t1", "claim_text": "Tea shortens sleep."},
    ])  # fmt: skip
    gs.insert_edges([
        _edge("o1", "f-pa", "c1", "origin", None),
        _edge("o2", "f-pb", "c2", "origin", None),
        _edge("s1", "f-pb", "c1", "supports", 0.9),
        _edge("s2", "f-pc", "c1", "supports", 0.7),
    ])  # fmt: skip
    yield gs


def _edge(eid: str, frag: str, claim: str, relation: str, conf: float | None) -> dict[str, Any]:
    return {"id": eid, "task_id": "t1", "source_type": "fragment", "source_id": frag,
            "target_type": "claim", "target_id": claim, "relation": relation,
            "nli_label": None if relation == "origin" else relation,
            "nli_confidence": conf}  # fmt: skip


def _q(store: GraphStore, sql: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    out = store.query_graph(sql, None, params or {}, 100, 5000, False)
    return [dict(zip(out["columns"], row, strict=True)) for row in out["rows"]]


def _events(store: GraphStore, kind: str) -> list[dict[str, Any]]:
    rows = _q(store, "SELECT payload FROM event_log WHERE kind = $k ORDER BY ts, id", {"k": kind})
    return [dict(r["payload"]) for r in rows]


def _levels(store: GraphStore) -> dict[str, str]:
    return {r["id"]: r["trust_level"] for r in _q(store, "SELECT id, trust_level FROM pages")}


def test_a_corroborated_site_becomes_low_and_a_more_trusted_refutation_takes_it_back(
    store: GraphStore,
) -> None:
    out = store.verify_sources("t1", "s1", [])
    assert out["claims"] == {"pending": 1, "verified": 1, "rejected": 0}
    [change] = out["sites_changed"]
    assert (change["domain"], change["from"], change["to"], change["trust_level"]) == (
        "127.0.0.21", None, "verified", "LOW"
    )  # fmt: skip
    assert change["claim_ids"] == ["c1"]
    assert {k: v for k, v in _levels(store).items() if k in SITES} == {
        "pa": "LOW",
        "pb": "UNVERIFIED",
        "pc": "UNVERIFIED",
        "pd": "ACADEMIC",
    }
    claims = {c["id"]: c for c in store.claim_confidences("t1")}
    assert claims["c1"]["verification_status"] == "verified"
    assert claims["c1"]["source_trust_level"] == "LOW"
    assert claims["c1"]["verification_details"]["corroborating_claims"] == ["c2"]
    assert claims["c2"]["verification_status"] == "pending"
    # One transaction: the order of equal timestamps is not the claims' order.
    logged = sorted(
        (e["claim_id"], e["from"], e["to"]) for e in _events(store, "claim_verification")
    )
    assert logged == [("c1", None, "verified"), ("c2", None, "pending")]

    # Nothing new: nothing written.
    again = store.verify_sources("t1", "s2", [])
    assert (again["claims_changed"], again["sites_changed"]) == (0, [])
    assert len(_events(store, "source_verification")) == 1

    # A new page of the promoted site is stored LOW.
    store.upsert_pages([{"url": "http://127.0.0.21:9090/new.html", "domain": "127.0.0.21",
                         "trust_level": "UNVERIFIED"}])  # fmt: skip
    new = _q(store, "SELECT trust_level FROM pages WHERE url = 'http://127.0.0.21:9090/new.html'")
    assert new == [{"trust_level": "LOW"}]

    # An ACADEMIC page refutes it: rejected, the site back to UNVERIFIED, an alert.
    store.insert_edges([_edge("r1", "f-pd", "c1", "refutes", 0.8)])
    out = store.verify_sources("t1", "s3", [])
    [change] = out["sites_changed"]
    assert (change["from"], change["to"], change["trust_level_from"], change["trust_level"]) == (
        "verified", "rejected", "LOW", "UNVERIFIED"
    )  # fmt: skip
    assert _levels(store)["pa"] == "UNVERIFIED"
    [alert] = store.status_extras("t1")["verification_alerts"]
    assert (alert["domain"], alert["cause"], alert["trust_level"]) == (
        "127.0.0.21", "contradiction", "UNVERIFIED"
    )  # fmt: skip
    # Trust compared at the rules' levels: the promotion itself is no extra trust.
    assert alert["reason"] == (
        "refuted by a source more trusted than its own (UNVERIFIED): 127.0.0.24"
    )
    claims = {c["id"]: c for c in store.claim_confidences("t1")}
    assert claims["c1"]["verification_details"]["contradicting_domains"] == ["127.0.0.24"]


def test_a_danger_pattern_rejects_the_site_until_a_person_decides(store: GraphStore) -> None:
    found = [{"url": "http://127.0.0.21:8080/other.html", "kind": "hidden_instruction",
              "detail": "ignore_previous in display_none"},
             {"url": "http://127.0.0.22:8080/pb.html", "kind": "homoglyphs",
              "detail": "mixed_script_words"}]  # fmt: skip
    out = store.verify_sources("t1", "s1", found)
    assert out["claims"] == {"pending": 1, "verified": 0, "rejected": 1}
    [change] = out["sites_changed"]
    assert (change["domain"], change["to"], change["trust_level"]) == (
        "127.0.0.21", "rejected", "UNVERIFIED"
    )  # fmt: skip
    assert change["reason"] == (
        "danger pattern on its pages: hidden_instruction:ignore_previous in display_none "
        "(http://127.0.0.21:8080/other.html)"
    )
    [alert] = store.status_extras("t1")["verification_alerts"]
    assert alert["cause"] == "danger_pattern"
    assert alert["action"].startswith("feedback(action='domain_block', domain='127.0.0.21')")
    # A later search with no danger: its claim stays rejected, the site unpromoted.
    out = store.verify_sources("t1", "s2", [])
    assert (out["claims"]["rejected"], out["sites_changed"]) == (1, [])
    assert _levels(store)["pa"] == "UNVERIFIED"


def test_a_site_a_rule_names_keeps_its_level(store: GraphStore, tmp_path: Path) -> None:
    (tmp_path / "home" / "domains.yaml").write_text("user_overrides:\n  127.0.0.21: UNVERIFIED\n")
    out = store.verify_sources("t1", "s1", [])
    assert out["claims"]["verified"] == 1
    assert out["sites_changed"] == []
    assert _levels(store)["pa"] == "UNVERIFIED"
    assert _events(store, "source_verification") == []


def test_a_rule_written_later_takes_a_rejected_site_out_of_verification(
    store: GraphStore, tmp_path: Path
) -> None:
    found = [{"url": "http://127.0.0.21:8080/pa.html", "kind": "instruction",
              "detail": "ignore_instructions"}]  # fmt: skip
    store.verify_sources("t1", "s1", found)
    assert [a["domain"] for a in store.status_extras("t1")["verification_alerts"]] == ["127.0.0.21"]
    (tmp_path / "home" / "domains.yaml").write_text("user_overrides:\n  127.0.0.21: TRUSTED\n")
    assert store.status_extras("t1")["verification_alerts"] == []
    claims = {c["id"]: c for c in store.claim_confidences("t1")}
    assert claims["c1"]["verification_status"] == "verified"


def test_a_local_corpus_file_is_no_independent_site() -> None:
    files = [
        edge("supports", "pb", "local", url="file:///corpus/local/b.md"),
        edge("supports", "pc", "papers", url="file:///corpus/papers/c.md"),
    ]
    assert vf.verify_claim(ORIGIN, files, {}).independent_sources == 0


def test_each_site_under_a_private_suffix_is_its_own() -> None:
    v = vf.verify_claim(
        {**ORIGIN, "domain": "alice.github.io", "url": "https://alice.github.io/a"},
        [edge("supports", "pb", "bob.github.io"), edge("supports", "pc", "carol.github.io")],
        {},
    )
    assert (v.status, v.corroborating_domains) == ("verified", ("bob.github.io", "carol.github.io"))


def test_many_findings_are_named_three_and_counted() -> None:
    found = [f"instruction:x ({n})" for n in "abcdef"]
    assert vf.findings_text(found) == (
        "instruction:x (a), instruction:x (b), instruction:x (c) and 3 more"
    )


def _add_claim(store: GraphStore, task: str, cid: str, pid: str, url: str) -> None:
    # As searches store them: a page's domain is its registrable domain.
    store.upsert_pages([{"id": pid, "url": url, "domain": registrable_domain(url),
                         "trust_level": "UNVERIFIED"}])  # fmt: skip
    store.insert_fragments(
        [{"id": f"f-{pid}", "page_id": pid, "position": 0, "text_content": f"text {pid}"}]
    )
    store.insert_claims([{"id": cid, "task_id": task, "claim_text": f"Claim {cid}."}])
    store.insert_edges([{**_edge(f"o-{cid}", f"f-{pid}", cid, "origin", None), "task_id": task}])


def test_a_site_is_judged_by_all_its_claims_so_tasks_do_not_flip_it(store: GraphStore) -> None:
    # t1: the claim of 127.0.0.21 is refuted by the ACADEMIC page; t2: another claim
    # of that site is corroborated by two others.
    store.insert_edges([_edge("r1", "f-pd", "c1", "refutes", 0.8)])
    store.create_task("t2", "q", {})
    _add_claim(store, "t2", "c9", "pz", "http://127.0.0.21:8080/z.html")
    store.insert_edges([
        {**_edge("s9", "f-pb", "c9", "supports", 0.9), "task_id": "t2"},
        {**_edge("s8", "f-pc", "c9", "supports", 0.9), "task_id": "t2"},
    ])  # fmt: skip
    for task in ("t1", "t2", "t1", "t2"):
        store.verify_sources(task, None, [])
    moves = [(e["from"], e["to"]) for e in _events(store, "source_verification")]
    assert moves == [(None, "rejected")]
    # A person takes the refuted claim out: the corroborated one (another task's)
    # promotes the site at once.
    store.feedback("claim_reject", {"claim_id": "c1", "reason": "misread"})
    last = _events(store, "source_verification")[-1]
    assert (last["from"], last["to"], last["claim_ids"]) == ("rejected", "verified", ["c9"])
    assert store.verify_sources("t2", None, [])["sites_changed"] == []


def test_rules_on_one_host_keep_it_out_of_its_sites_verification(
    store: GraphStore, tmp_path: Path
) -> None:
    (tmp_path / "home" / "domains.yaml").write_text(
        "user_overrides:\n  docs.python.org: PRIMARY\n  blog.site-a.com: LOW\n"
    )
    _add_claim(store, "t1", "cp", "pp", "https://docs.python.org/3/a.html")
    store.upsert_pages([{"id": "pl", "url": "https://blog.site-a.com/x", "domain":
                         "site-a.com", "trust_level": "LOW"}])  # fmt: skip
    _add_claim(store, "t1", "cs", "ps", "https://www.site-a.com/y")
    store.insert_edges([_edge("r2", "f-pd", "cs", "refutes", 0.9)])  # ACADEMIC refutes site-a
    hostile = [{"url": "https://mail.python.org/thread", "kind": "instruction",
                "detail": "ignore_instructions"}]  # fmt: skip
    out = store.verify_sources("t1", None, hostile)
    claims = {c["id"]: c for c in store.claim_confidences("t1")}
    # The ruled host's claim is not the hostile sibling's.
    assert claims["cp"]["verification_status"] == "pending"
    assert {e["domain"]: e["to"] for e in out["sites_changed"]} == {
        "127.0.0.21": "verified", "python.org": "rejected", "site-a.com": "rejected"
    }  # fmt: skip
    # site-a.com is rejected; the page of the host a rule makes LOW keeps its level.
    assert {k: v for k, v in _levels(store).items() if k in ("pl", "ps", "pp")} == {
        "pl": "LOW", "ps": "UNVERIFIED", "pp": "UNVERIFIED"
    }  # fmt: skip


def test_a_promoted_site_blocked_and_unblocked_is_promoted_again(store: GraphStore) -> None:
    store.verify_sources("t1", None, [])
    store.feedback("domain_block", {"domain": "127.0.0.21", "reason": "test"})
    assert store.verify_sources("t1", None, [])["sites_changed"] == []  # the block stands
    store.feedback("domain_unblock", {"domain": "127.0.0.21"})
    out = store.verify_sources("t1", None, [])
    assert [(e["from"], e["to"], e["trust_level"]) for e in out["sites_changed"]] == [
        (None, "verified", "LOW")
    ]


def test_a_failed_verification_pass_keeps_the_search_answer(tmp_path: Path) -> None:
    import asyncio
    import time

    import ray

    from lyra.jobs.search_context import SearchContext
    from lyra.jobs.search_job import SearchJob

    async def call(actor: str, method: str, *args: Any) -> Any:
        if method == "verify_sources":
            raise ray.exceptions.RayError("the graph actor is restarting")
        if method == "claim_confidences":
            return []
        raise AssertionError(f"unexpected call {actor}.{method}")

    ctx = SearchContext(
        settings=make_settings(tmp_path, corpus=None), task={"id": "t1", "tag": "tag"},
        search_id="s1", query="q", options={}, call=call,
        progress=lambda stage, share, message: None, stop_requested=lambda: False,
        pages_left=10, deadline=time.monotonic() + 60, domain_rules={}, corpus_cache={},
        fetch_url=None,  # type: ignore[arg-type]
    )  # fmt: skip
    out = asyncio.run(SearchJob(ctx).finish())
    assert "verification" not in out["metrics"]
    assert out["warnings"] == [
        "degraded: verification: source verification failed this time (RayError); claims "
        "keep their last verification state"
    ]


def test_sites_under_a_private_suffix_are_judged_apart_as_searches_store_them(
    store: GraphStore,
) -> None:
    for cid, pid, user in (
        ("ga", "pga", "alice"),
        ("gb", "pgb", "bob"),
        ("gc", "pgc", "carol"),
        ("ge", "pge", "evil"),
    ):
        _add_claim(store, "t1", cid, pid, f"https://{user}.github.io/post")
    store.insert_edges([
        _edge("g1", "f-pgb", "ga", "supports", 0.9), _edge("g2", "f-pgc", "ga", "supports", 0.9),
        _edge("g3", "f-pge", "gb", "supports", 0.9), _edge("g4", "f-pga", "gb", "supports", 0.9),
    ])  # fmt: skip
    hostile = [{"url": "https://evil.github.io/post", "kind": "hidden_instruction",
                "detail": "ignore_instructions in display:none"}]  # fmt: skip
    out = store.verify_sources("t1", None, hostile)
    moved = {e["domain"]: (e["to"], e["trust_level"]) for e in out["sites_changed"]}
    assert {k: v for k, v in moved.items() if k.endswith("github.io")} == {
        "alice.github.io": ("verified", "LOW"), "evil.github.io": ("rejected", "UNVERIFIED")
    }  # fmt: skip
    claims = {c["id"]: c for c in store.claim_confidences("t1")}
    # bob's claim: evil's page is no corroboration, alice's is one: pending.
    assert claims["gb"]["verification_details"]["corroborating_domains"] == ["alice.github.io"]
    assert claims["ge"]["verification_status"] == "rejected"
    assert {k: v for k, v in _levels(store).items() if k.startswith("pg")} == {
        "pga": "LOW", "pgb": "UNVERIFIED", "pgc": "UNVERIFIED", "pge": "UNVERIFIED"
    }  # fmt: skip
    [alert] = store.status_extras("t1")["verification_alerts"]
    assert alert["domain"] == "evil.github.io"
    assert "(the block covers its registrable domain, github.io)" in alert["action"]


def test_a_promotion_and_a_rejection_hold_only_while_a_claim_bears_them_out(
    store: GraphStore,
) -> None:
    store.verify_sources("t1", None, [])
    # The feedback itself judges the claim's sites again.
    store.feedback("claim_reject", {"claim_id": "c1", "reason": "misread"})
    moves = [(e["domain"], e["from"], e["to"], e["trust_level"])
             for e in _events(store, "source_verification")]  # fmt: skip
    assert moves[-1] == ("127.0.0.21", "verified", "pending", "UNVERIFIED")
    assert store.verify_sources("t1", None, [])["sites_changed"] == []
    assert _levels(store)["pa"] == "UNVERIFIED"
    # Refuted by the ACADEMIC page and restored: rejected; rejected again by a person: pending.
    store.insert_edges([_edge("r1", "f-pd", "c1", "refutes", 0.8)])
    store.feedback("claim_restore", {"claim_id": "c1"})
    assert _events(store, "source_verification")[-1]["to"] == "rejected"
    store.feedback("claim_reject", {"claim_id": "c1"})
    assert _events(store, "source_verification")[-1]["to"] == "pending"
    assert store.status_extras("t1")["verification_alerts"] == []


def test_a_hostile_site_blocked_and_unblocked_is_judged_afresh(store: GraphStore) -> None:
    hostile = [{"url": "http://127.0.0.21:8080/pa.html", "kind": "instruction",
                "detail": "ignore_instructions"}]  # fmt: skip
    store.verify_sources("t1", None, hostile)
    store.feedback("domain_block", {"domain": "127.0.0.21"})
    store.feedback("domain_unblock", {"domain": "127.0.0.21"})
    out = store.verify_sources("t1", None, [])
    assert [(e["from"], e["to"]) for e in out["sites_changed"]] == [(None, "verified")]


def test_a_malformed_url_has_no_site() -> None:
    assert (vf.is_web_url("http://[zz/y"), vf.site_of_page("x", "http://[zz/y")) == (False, None)
    assert vf.site_of_page("example.org", "HTTPS://Docs.Example.org/a") == "example.org"


def test_unblocking_a_registrable_domain_clears_its_private_sites_and_their_claims(
    store: GraphStore,
) -> None:
    store.create_task("t2", "q", {})
    _add_claim(store, "t1", "ge", "pge", "https://evil.github.io/post")
    _add_claim(store, "t2", "gf", "pgf", "https://evil.github.io/other")
    hostile = [{"url": "https://evil.github.io/post", "kind": "instruction",
                "detail": "ignore_instructions"}]  # fmt: skip
    store.verify_sources("t1", None, hostile)
    store.verify_sources("t2", None, [])
    assert [a["domain"] for a in store.status_extras("t1")["verification_alerts"]] == [
        "evil.github.io"
    ]
    store.feedback("domain_block", {"domain": "evil.github.io"})  # blocks github.io
    store.feedback("domain_unblock", {"domain": "github.io"})
    store.verify_sources("t1", None, [])
    claims = {c["id"]: c for c in store.claim_confidences("t1")}
    assert claims["ge"]["verification_status"] == "pending"
    assert store.status_extras("t1")["verification_alerts"] == []


def test_a_second_pass_with_nothing_new_writes_nothing_after_a_demotion(
    store: GraphStore,
) -> None:
    store.verify_sources("t1", None, [])  # 127.0.0.21 promoted
    store.insert_edges([_edge("r1", "f-pd", "c1", "refutes", 0.8)])
    store.verify_sources("t1", None, [])  # demoted
    before = _q(store, "SELECT count(*) AS n FROM event_log")
    stamps = _q(store, "SELECT id, verification_changed_at FROM claims ORDER BY id")
    again = store.verify_sources("t1", None, [])
    assert (again["claims_changed"], again["sites_changed"]) == (0, [])
    assert _q(store, "SELECT count(*) AS n FROM event_log") == before
    assert _q(store, "SELECT id, verification_changed_at FROM claims ORDER BY id") == stamps


def test_details_list_at_most_ten_sites_and_claims() -> None:
    many = [edge("supports", f"p{i}", f"site{i:02d}.org") for i in range(14)]
    v = vf.verify_claim(ORIGIN, many, {f"f-p{i}": [f"c{i:02d}"] for i in range(14)})
    details = v.details()
    assert details["independent_sources"] == 14
    assert details["corroborating_domains"] == [f"site{i:02d}.org" for i in range(10)]
    assert details["corroborating_claims"] == [f"c{i:02d}" for i in range(10)]


def test_a_claim_change_sent_once_stands_when_judging_its_sites_again_fails(
    store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sent once (decision 0064), the change and its answer commit first; the sites are
    judged after the commit, so a database error there cannot undo the change."""

    def broken(*args: Any) -> dict[str, Any]:
        store._con.execute("UPDATE no_such_table SET x = 1")  # fails in DuckDB itself
        raise AssertionError("unreachable")

    monkeypatch.setattr(store, "verify_sources", broken)
    args = ["claim_reject", {"claim_id": "c1", "reason": "misread"}]
    out = store.once("call_r", "feedback", args)
    assert (out["status"], out["changed"]) == ("rejected", True)
    assert out["degraded"] == (
        "verification: the claim's sites were not judged again (CatalogException); the "
        "task's next search does it"
    )
    assert [c["id"] for c in store.claim_confidences("t1")] == ["c2"]
    # Sent again, the call answers from its record, without judging anything.
    assert store.once("call_r", "feedback", args)["changed"] is True


def test_a_claim_change_stands_when_judging_its_sites_again_fails(
    store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any) -> dict[str, Any]:
        raise duckdb.IOException("disk went away")

    monkeypatch.setattr(store, "verify_sources", broken)
    out = store.feedback("claim_reject", {"claim_id": "c1", "reason": "misread"})
    assert (out["status"], out["changed"]) == ("rejected", True)
    assert out["degraded"] == (
        "verification: the claim's sites were not judged again (IOException); the task's "
        "next search does it"
    )
    assert [c["id"] for c in store.claim_confidences("t1")] == ["c2"]
