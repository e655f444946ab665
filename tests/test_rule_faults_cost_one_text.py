"""A fault in the word rules costs the text that tripped it, not the search (issue 12's
bad input, decision 0118).

The rules read every pair, fragment and claim of a search. Before this, one exception
raised while reading one pair (a bug no test had met, on some page's odd text) went up
through the InferenceActor's ``nli`` and failed the whole search with PIPELINE_ERROR.
Here a rule is made to fail on texts holding a marker, and every other text of the same
call must read exactly as it reads alone; the faulty one reads as "the rules found
nothing" (neutral for the judge, then the model judges it; no contradiction for the
sweep; no claims for that fragment), and the fault is counted for `_lyra_meta.degraded`.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import lyra.actors.inference as inference
import lyra.pipelines.evidence.nli_heuristic as nli_heuristic
import lyra.pipelines.evidence.stance_sweep as stance_sweep
from lyra.actors.inference import InferenceActor
from lyra.pipelines.evidence import rule_faults
from lyra.pipelines.evidence.embedding import load_default_embedder
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli, speaks_of_another
from lyra.pipelines.evidence.rule_faults import (
    CLAIMS,
    LOGGED_PER_KIND,
    STANCE,
    SWEEP,
    fault_counts,
    fault_summary,
)
from lyra.pipelines.evidence.stance_model import load_packaged_stance
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates

MARK = "zqxtrip"

LITTER_CLAIM = "The survey data show no measurable change in bag litter on beaches."
LITTER_FRAGMENTS = {
    "loose": "Shoppers now buy 40 per cent fewer bags for life than in 2019.",
    "close": "Our beach surveys recorded 41 per cent less bag litter on beaches in 2023.",
}
REFUTES = (
    "In the randomised trial of 1,200 adults, the drug did not lower blood pressure; "
    "readings were the same as with placebo.",
    "The drug lowers blood pressure.",
)
SUPPORTS = (
    "In the randomised trial of 1,200 adults, the drug lowered systolic blood pressure by "
    "8 mmHg compared with placebo.",
    "The drug lowers blood pressure.",
)
TRIPPING = (
    f"The {MARK} drug did not lower blood pressure at all.",
    "The drug lowers blood pressure.",
)


def _trips(text: str) -> None:
    if MARK in text:
        raise IndexError("list index out of range (planted)")


def _count(kind: str) -> int:
    return fault_counts().get(kind, 0)


@pytest.fixture
def judge_trips(monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge's reading of one pair raises where the premise holds the marker."""
    judge, best = nli_heuristic._judge, nli_heuristic._best_sentence

    def tripping_judge(premise: str, hypothesis: str) -> Any:
        _trips(premise)
        return judge(premise, hypothesis)

    def tripping_best(sentences: Any) -> Any:
        for read in sentences:
            _trips(read.sentence or "")
        return best(sentences)

    monkeypatch.setattr(nli_heuristic, "_judge", tripping_judge)
    monkeypatch.setattr(nli_heuristic, "_best_sentence", tripping_best)


def test_a_pair_the_rules_fault_on_reads_neutral_and_is_counted(judge_trips: None) -> None:
    before = _count(STANCE)
    result = heuristic_nli(*TRIPPING)
    assert (result.label, result.confidence, result.evidence_sentence) == ("neutral", 0.5, None)
    assert result.probs == {"supports": 0.25, "refutes": 0.25, "neutral": 0.5}
    assert speaks_of_another(*TRIPPING) is False
    assert _count(STANCE) == before + 2
    # the next pair reads as it always does
    assert heuristic_nli(*REFUTES).label == "refutes"
    assert _count(STANCE) == before + 2


def test_the_stance_model_judges_the_other_pairs_as_alone(
    judge_trips: None, lyra_home: Path
) -> None:
    stance = load_packaged_stance(embed=load_default_embedder(lyra_home).embed)
    alone = [stance.judge([pair])[0] for pair in (REFUTES, SUPPORTS)]
    before = _count(STANCE)
    together = stance.judge([REFUTES, TRIPPING, SUPPORTS])
    for got, own in zip([together[0], together[2]], alone, strict=True):
        assert (got.label, got.evidence_sentence) == (own.label, own.evidence_sentence)
        assert got.probs == pytest.approx(own.probs, abs=1e-9)
    assert (alone[0].label, alone[1].label) == ("refutes", "supports")
    # the faulty pair is judged by the model alone: never vetoed, a real distribution
    assert together[1].probs != {"supports": 0.0, "refutes": 1.0, "neutral": 0.0}
    assert sum(together[1].probs.values()) == pytest.approx(1.0)
    # the rules' reading and the support check of the veto both met the fault
    assert _count(STANCE) == before + 2


def test_the_sweep_skips_a_fragment_or_a_claim_it_faults_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    readings, statements = stance_sweep.sentence_readings, stance_sweep.claim_statements

    def tripping_readings(text: str) -> Any:
        _trips(text)
        return readings(text)

    def tripping_statements(text: str) -> Any:
        _trips(text)
        return statements(text)

    monkeypatch.setattr(stance_sweep, "sentence_readings", tripping_readings)
    monkeypatch.setattr(stance_sweep, "claim_statements", tripping_statements)
    before = _count(SWEEP)
    fragments = {**LITTER_FRAGMENTS, "odd": f"Bag litter on beaches fell by 30% ({MARK})."}
    claims = [("c", LITTER_CLAIM), ("odd", f"{LITTER_CLAIM} {MARK}")]
    assert contradiction_candidates(claims, fragments) == {"c": ["close", "loose"]}
    assert _count(SWEEP) == before + 2


def test_a_fragment_the_claim_rules_fault_on_gives_no_claims(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    extract = inference.extract_claims_extractive

    def tripping_extract(text: str, *args: Any, **kwargs: Any) -> Any:
        _trips(text)
        return extract(text, *args, **kwargs)

    monkeypatch.setattr(inference, "extract_claims_extractive", tripping_extract)
    fragments = [
        {"id": "f1", "text": SUPPORTS[0]},
        {"id": "f2", "text": f"In a trial of 300 adults, {MARK} cut pain by 40%."},
        {"id": "f3", "text": REFUTES[0]},
    ]
    actor = SimpleNamespace(_llm_ok=False)
    method = InferenceActor.__ray_metadata__.modified_class.extract_claims  # type: ignore[attr-defined]
    before = _count(CLAIMS)
    got = method(actor, fragments, "Does the drug lower blood pressure?", "", 3)
    alone = method(
        actor, [fragments[0], fragments[2]], "Does the drug lower blood pressure?", "", 3
    )
    assert got == alone
    assert sorted({c["fragment_id"] for c in got["claims"]}) == ["f1", "f3"]
    assert _count(CLAIMS) == before + 1


def test_the_degraded_line_names_each_kind_and_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rule_faults, "_faults", rule_faults.Counter())
    assert fault_summary() is None
    rule_faults.guarded(STANCE, lambda: 1 / 0, None)
    for _ in range(3):
        rule_faults.guarded(CLAIMS, lambda: [][0], None)
    assert fault_counts() == {STANCE: 1, CLAIMS: 3}
    assert fault_summary() == (
        "word rules failed (claim rules on 3 texts, stance rules on 1 text) since the "
        "inference actor started: those texts were read without them (the model alone "
        "judged their stance; a fragment whose claim rules failed gave no claims); the log "
        "has each traceback"
    )


def test_tracebacks_are_logged_for_the_first_faults_only(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(rule_faults, "_faults", rule_faults.Counter())
    with caplog.at_level("ERROR", logger=rule_faults.__name__):
        for _ in range(LOGGED_PER_KIND + 3):
            assert rule_faults.guarded(SWEEP, lambda: {}["missing"], "fallback") == "fallback"
    assert len(caplog.records) == LOGGED_PER_KIND
    assert all(r.exc_info is not None for r in caplog.records)
    assert fault_counts() == {SWEEP: LOGGED_PER_KIND + 3}


def test_an_interrupt_is_not_caught() -> None:
    def interrupted() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        rule_faults.guarded(STANCE, interrupted, None)
