"""The contradiction rules read the near fragments a claim's nearest few crowded out, and a
witness's arms in other words (decision 0137), each with its control."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from lyra.jobs.evidence_steps import judge_stance
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates
from tests.conftest import make_settings, step_context

# A witness's two depots alike against a trial's lead: the change rules read the pair
# (`nli_alike`), but the witness's sentence is about no word the sweep indexes.
WITNESS = (
    "We lined our accident log up against Hill Road's, a depot with no speed limiters at "
    "all, and honestly the number of vans coming back dented was pretty much the same at "
    "both."
)
TRIAL = (
    "Depots fitting the speed limiters recorded 28% fewer dented vans coming back than "
    "control depots over two quarters (rate ratio 0.72, 95% CI 0.61 to 0.85)."
)
SERVICE = "The fleet manager said every van was serviced in March and its tyres checked."
DEPOTS = {"f-trial": TRIAL, "f-service": SERVICE}


def test_the_sweep_reads_every_sentence_of_a_crowded_out_fragment() -> None:
    """Unindexed, the trial's fragment never meets the witness's claim; named as near it,
    every sentence of it is read, and only the one that contradicts is found."""
    claims = [("c", WITNESS)]
    assert contradiction_candidates(claims, DEPOTS) == {}
    near = {"c": ["f-trial", "f-service"]}
    assert contradiction_candidates(claims, DEPOTS, near=near) == {"c": ["f-trial"]}
    # what the stance step has taken, or the claim's own page, is still left out
    assert contradiction_candidates(claims, DEPOTS, {"c": {"f-trial"}}, near) == {}


def test_near_fragments_pass_the_change_rules_not_the_judge_alone() -> None:
    """The judge alone calls a near fragment with a negation of another thing "refutes";
    it is not found here: the change rules read it as no contradiction."""
    claim = "Iron deficiency is common in people with heart failure and makes them tired."
    trial = (
        "Over two years, people who received iron were admitted to hospital less often, but "
        "they were not less likely to die of heart disease."
    )
    assert heuristic_nli(trial, claim).label == "refutes"
    assert contradiction_candidates([("c", claim)], {"f": trial}, near={"c": ["f"]}) == {}


def test_the_stance_step_sends_what_its_candidates_crowded_out_to_the_sweep(
    lyra_home: Path,
) -> None:
    """One candidate a claim: the service fragment is nearest and taken; the trial's, near but
    crowded out, reaches the sweep and its refutation is stored."""
    claim = {
        "id": "c-witness", "claim_text": WITNESS, "origin_page_id": "p-witness",
        "source_domain": "witness.example", "source_trust_level": "UNVERIFIED",
    }  # fmt: skip
    meta = {
        fid: {"id": fid, "text": text, "domain": f"{fid}.example", "page_id": f"p-{fid}",
              "fragment_type": "paragraph", "url": f"http://{fid}.example/a"}
        for fid, text in DEPOTS.items()
    }  # fmt: skip
    swept: list[tuple[Any, ...]] = []
    edges: list[dict[str, Any]] = []

    async def call(actor: str, method: str, *args: Any) -> Any:
        if (actor, method) == ("graph", "claim_confidences"):
            return [dict(claim)]
        if (actor, method) == ("graph", "fragment_ids_for_task"):
            return list(meta)
        if (actor, method) == ("graph", "existing_stance_pairs"):
            return []
        if (actor, method) == ("graph", "embeddings_for"):
            return {"c-witness": [1.0, 0.0]}
        if (actor, method) == ("graph", "vector_search_many"):
            return [[("f-service", 0.8), ("f-trial", 0.46)]]
        if (actor, method) == ("graph", "texts_for"):
            return {fid: meta[fid] for fid in args[1]}
        if (actor, method) == ("graph", "calibration_maps"):
            return {"nli": {"version": 0, "calibration": {"method": "identity"}}}
        if (actor, method) == ("inference", "nli"):
            return [
                {"label": r.label, "confidence": r.confidence, "method": "heuristic"}
                for r in (heuristic_nli(p, c) for p, c in args[0])
            ]
        if (actor, method) == ("inference", "contradiction_candidates"):
            swept.append(args)
            return contradiction_candidates(*args)
        if (actor, method) == ("graph", "insert_edges"):
            edges.extend(args[0])
            return len(args[0])
        raise AssertionError(f"unexpected call {actor}.{method}")

    settings = make_settings(lyra_home, search={"stance_candidates": 1})
    ctx = step_context(settings, "speed limiters", call)
    job = SimpleNamespace(ctx=ctx, model_id="test-embedder", metrics={}, check=lambda _: None)
    asyncio.run(judge_stance(job))  # type: ignore[arg-type]

    assert swept[0][3] == {"c-witness": ["f-trial"]}
    assert {(e["source_id"], e["relation"]) for e in edges} == {
        ("f-service", "neutral"),
        ("f-trial", "refutes"),
    }
