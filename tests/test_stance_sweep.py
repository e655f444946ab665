"""Contradictions the embedder never pairs (decision 0104): the change rules of the
heuristic judge that name what they are about (sizes far apart, no evidence against a
sized change, "not any worse"), and the sweep that pairs a claim with every fragment
they read as disagreeing with it, however far apart the embedder puts the two."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from lyra.jobs.evidence_steps import SWEPT_PER_CLAIM, judge_stance
from lyra.pipelines.evidence.nli_bounds import disagreeing_measures
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_numbers import measures
from lyra.pipelines.evidence.nli_tokens import kept_per_tokens, tokenize
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates
from tests.conftest import make_settings, step_context

TRAFFIC_STUDY = (
    "Using a difference-in-differences design, we estimate that motor traffic on internal "
    "streets fell by 47 per cent relative to matched control streets."
)
TRAFFIC_CAMPAIGN = (
    "Even by our careful counts, the traffic on the streets inside the zone has fallen by a "
    "mere 12%, hardly the transformation we were promised."
)

# (premise, hypothesis, label both ways)
CASES = [
    pytest.param(TRAFFIC_STUDY, TRAFFIC_CAMPAIGN, "refutes", id="sizes-far-apart"),
    # "jump" moves a figure; "saw" before "income" sets nothing apart (decision 0105)
    pytest.param(
        "Average household income across the pilot towns rose by 1.4 per cent on the year before.",
        "Families in the pilot towns saw household income jump by about a fifth on the "
        "previous year.",
        "refutes",
        id="a-jump-far-from-a-rise",
    ),
    # "every bit as good as" takes the measure the other text names (decision 0105)
    pytest.param(
        "For most of my patients, the patch is every bit as good as the tablet at preventing "
        "night-time attacks.",
        "The evidence shows that the tablet prevents considerably more night-time attacks than "
        "the patch does.",
        "refutes",
        id="as-good-as-against-more-than",
    ),
    # "went down" is a fall, and "sickness" names what "sick days" name (decision 0105)
    pytest.param(
        "Sick days at the depots fell by two thirds compared with the year before.",
        "The evaluation found no clear evidence that sickness absence at the depots went down.",
        "refutes",
        id="no-evidence-it-went-down-against-a-fall",
    ),
    pytest.param(
        TRAFFIC_STUDY,
        TRAFFIC_CAMPAIGN.replace("a mere 12%", "40%"),
        "neutral",
        id="sizes-close-together",
    ),
    pytest.param(
        "In the high-risk cohort, the intervention slowed the rate of cognitive decline by 41% "
        "over 3 years.",
        "Among those most at risk, hearing aids slowed the rate of cognitive decline by about a "
        "quarter over three years.",
        "refutes",
        id="a-size-in-digits-against-a-fraction-in-words",
    ),
    pytest.param(
        "Compared with usual care, acupuncture reduced pain intensity by a mean of 1.2 points "
        "on a 0 to 10 scale at the end of treatment.",
        "Clinical studies show that, compared with standard medical care, acupuncture lowers "
        "chronic back pain scores by an average of four and a half points out of ten.",
        "refutes",
        id="and-a-half-in-words",
    ),
    pytest.param(
        "Using a synthetic control design, we estimate that employment in hospitality fell by "
        "0.6 per cent in the year after the increase.",
        "Our own quarterly survey of members shows that hospitality lost 4.5% of its jobs in "
        "the twelve months following the uprating.",
        "refutes",
        id="lost-a-share-of-its-jobs",
    ),
    pytest.param(
        "For a typical small cafe, the April rise added less than 3 per cent to total running "
        "costs, far less than the rent rises.",
        "Since April my total running costs at the cafe have gone up by about 9 per cent, and "
        "that's once I've taken out the energy bill.",
        "refutes",
        id="a-bound-against-a-size-past-it",
    ),
    pytest.param(
        "There is no clear evidence that hearing aids improve memory scores in people with mild "
        "hearing loss.",
        "In our customer study, memory test scores improved by 12% after six months.",
        "refutes",
        id="no-evidence-against-a-sized-change",
    ),
    pytest.param(
        "Honestly, I can find no sign that menu prices at restaurants and takeaways rose any "
        "faster than general inflation over the past year.",
        "The commission's figures show that restaurant and takeaway prices rose 2.8 per cent "
        "faster than the consumer price index in the year to March.",
        "refutes",
        id="no-sign-against-a-size-right-after-the-verb",
    ),
    pytest.param(
        "I want to be clear, our response times into the zone haven't got any worse since the "
        "trial began.",
        "Freedom of Information requests show ambulance response times in the zone have "
        "increased by an average of 2 minutes 40 seconds.",
        "refutes",
        id="not-any-worse-against-a-sized-change",
    ),
    pytest.param(
        "Avoid acupuncture if you take warfarin or another anticoagulant, because you are more "
        "likely to bleed.",
        "In my experience, patients on warfarin can have acupuncture perfectly safely, and I "
        "treat several of them every week.",
        "refutes",
        id="safely-against-advised-against",
    ),
    pytest.param(
        "Research suggests CBT-I works as well as sleeping tablets in the short term, without "
        "the risk of becoming dependent on them.",
        "In studies, sleeping tablets work faster and better than CBT-I over the first month, "
        "while therapy may suit people who want a longer-term solution.",
        "refutes",
        id="as-well-as-against-better-than-past-a-verb",
    ),
    pytest.param(
        "A diet low in saturated fat typically lowers LDL cholesterol by about 5 to 10 percent.",
        "Ezetimibe lowers LDL cholesterol by about 20 percent on its own and is often added "
        "when a statin alone is not enough.",
        "neutral",
        id="two-things-sized-each-by-its-own-effect",
    ),
    pytest.param(
        "Once you are asleep for most of the time you spend in bed, your time in bed is "
        "gradually increased, usually by about 15 minutes at a time.",
        "Compared with control conditions, CBT-I shortened sleep onset latency by a mean of 19 "
        "minutes.",
        "neutral",
        id="a-step-of-a-procedure-is-no-finding",
    ),
    pytest.param(
        "After two years, physiotherapy alone produced function scores at 24 months "
        "practically identical to surgery, the team reported.",
        "In one study, patients who had the operation reached markedly higher function scores "
        "at two years than those who only did exercises.",
        "refutes",
        id="a-comparative-of-a-measure-before-than-is-still-a-change",
    ),
    pytest.param(
        "In Eastfield, nitrogen dioxide was essentially unchanged over the year.",
        "Since the trial began, traffic in Eastfield rose by nearly a fifth.",
        "neutral",
        id="a-place-named-in-both-is-not-what-changed",
    ),
    pytest.param(
        "I got a £65 fine from the Hazel Street camera in the first week.",
        "Several residential streets, such as Hazel Street, were used by drivers avoiding the "
        "signals at the junction.",
        "neutral",
        id="a-fine-is-no-safety-and-avoiding-no-advice",
    ),
    pytest.param(
        "Automatic counters recorded no statistically significant change in traffic volumes on "
        "the boundary roads.",
        "Congestion charging was considerably more effective at reducing traffic than "
        "low-traffic neighbourhoods, though the two measures differ.",
        "neutral",
        id="a-comparison-is-no-change",
    ),
]


@pytest.mark.parametrize(("premise", "hypothesis", "label"), CASES)
def test_change_rules_read_both_ways(premise: str, hypothesis: str, label: str) -> None:
    assert heuristic_nli(premise, hypothesis).label == label
    assert heuristic_nli(hypothesis, premise).label == label


def test_a_short_word_with_digits_is_one_token() -> None:
    """ "NO2" is no negation, and reads as its name (decision 0114); "COVID19" reads as
    "COVID-19" does."""
    assert tokenize("NO2 fell in H13 filters; COVID19 and COVID-19") == [
        "nitrogen", "dioxide", "fell", "in", "h13", "filters", "covid", "19", "and", "covid",
        "-", "19",
    ]  # fmt: skip


FRAGMENTS = {
    "f-study": "Background paragraph on the scheme's design. " + TRAFFIC_STUDY,
    "f-unrelated": "The scheme's consultation ran for six weeks over the summer.",
    "f-agrees": "Counts by the council show traffic on the internal streets fell by 11 per cent.",
}


def test_the_sweep_finds_the_fragments_that_contradict_a_claim_and_no_other() -> None:
    found = contradiction_candidates(
        [("c-campaign", TRAFFIC_CAMPAIGN), ("c-other", "The consultation ran for six weeks.")],
        FRAGMENTS,
    )
    assert found == {"c-campaign": ["f-study"]}


def test_the_sweep_does_not_confirm_the_fragments_it_is_told_to_leave_out() -> None:
    """A claim's own page's fragments and the pairs the stance step has already taken
    are not confirmed again (decision 0111); other claims keep theirs."""
    claims = [("c-campaign", TRAFFIC_CAMPAIGN), ("c-again", TRAFFIC_CAMPAIGN)]
    found = contradiction_candidates(claims, FRAGMENTS, {"c-campaign": {"f-study"}})
    assert found == {"c-again": ["f-study"]}


def test_the_stance_step_judges_what_the_sweep_finds_beside_the_nearest_fragments(
    lyra_home: Path,
) -> None:
    """The embedder finds only the unrelated fragment for the campaign's claim; the sweep
    adds the study's, and the stance step stores its refutation."""
    claim = {
        "id": "c-campaign", "claim_text": TRAFFIC_CAMPAIGN, "origin_page_id": "p-campaign",
        "source_domain": "campaign.example", "source_trust_level": "UNVERIFIED",
    }  # fmt: skip
    meta = {
        fid: {"id": fid, "text": text, "domain": f"{fid}.example", "page_id": f"p-{fid}",
              "fragment_type": "paragraph", "url": f"http://{fid}.example/a"}
        for fid, text in FRAGMENTS.items()
    }  # fmt: skip
    judged: list[tuple[str, str]] = []
    edges: list[dict[str, Any]] = []
    text_reads: list[list[str]] = []

    async def call(actor: str, method: str, *args: Any) -> Any:
        if (actor, method) == ("graph", "claim_confidences"):
            return [dict(claim)]
        if (actor, method) == ("graph", "fragment_ids_for_task"):
            return list(meta)
        if (actor, method) == ("graph", "existing_stance_pairs"):
            return []
        if (actor, method) == ("graph", "embeddings_for"):
            return {"c-campaign": [1.0, 0.0]}
        if (actor, method) == ("graph", "vector_search_many"):
            return [[("f-unrelated", 0.5)]]
        if (actor, method) == ("graph", "texts_for"):
            text_reads.append(sorted(args[1]))
            return {fid: meta[fid] for fid in args[1]}
        if (actor, method) == ("graph", "calibration_maps"):
            return {"nli": {"version": 0, "calibration": {"method": "identity"}}}
        if (actor, method) == ("inference", "nli"):
            judged.extend(args[0])
            return [
                {"label": r.label, "confidence": r.confidence, "method": "heuristic"}
                for r in (heuristic_nli(p, c) for p, c in args[0])
            ]
        if (actor, method) == ("inference", "contradiction_candidates"):
            return contradiction_candidates(*args)
        if (actor, method) == ("graph", "insert_edges"):
            edges.extend(args[0])
            return len(args[0])
        raise AssertionError(f"unexpected call {actor}.{method}")

    ctx = step_context(make_settings(lyra_home), "traffic in the zone", call)
    job = SimpleNamespace(ctx=ctx, model_id="test-embedder", metrics={}, check=lambda _: None)
    asyncio.run(judge_stance(job))  # type: ignore[arg-type]

    # The nearest fragments' texts first, then the rest of the task's in one read.
    assert text_reads == [["f-unrelated"], ["f-agrees", "f-study"]]
    # the nearest fragment first; the sweep's pair after it (decision 0111)
    assert judged == [
        (FRAGMENTS["f-unrelated"], TRAFFIC_CAMPAIGN),
        (FRAGMENTS["f-study"], TRAFFIC_CAMPAIGN),
    ]
    assert {(e["source_id"], e["relation"]) for e in edges} == {
        ("f-unrelated", "neutral"),
        ("f-study", "refutes"),
    }
    assert SWEPT_PER_CLAIM == 4


def test_the_sweep_meets_safe_and_advised_against_in_one_setting() -> None:
    """A text that calls a thing safe and one that advises against it meet where they
    share words of the setting, wherever they stand; the heuristic judge decides
    (decision 0105)."""
    claim = (
        "If you employ drivers or nurses, you should not roster them on twelve-hour night shifts."
    )
    fragments = {
        "f-safe": "Our twelve-hour night shifts have proved perfectly safe for our nurses, and "
        "sickness absence is down.",
        "f-other": "Our nurses say the new canteen is perfectly fine.",
    }
    assert contradiction_candidates([("c", claim)], fragments) == {"c": ["f-safe"]}


def test_a_reading_kept_per_token_list_is_read_once_from_a_list() -> None:
    """The rules read each sentence against every claim it meets, so what they read of a
    token list alone is kept by its tokens (decision 0112); the reader gets a list, as
    the rules compare slices with lists."""
    calls: list[list[str]] = []

    @kept_per_tokens
    def ends_with_by(tokens: list[str]) -> bool:
        calls.append(tokens)
        return tokens[-1:] == ["by"]

    assert ends_with_by(["fell", "by"]) is True
    assert ends_with_by(("fell", "by")) is True
    assert ends_with_by(["rose"]) is False
    assert calls == [["fell", "by"], ["rose"]]


def test_numbers_kept_per_token_list_are_each_callers_own() -> None:
    """`disagreeing_measures` replaces a sentence's stated values with every number in it:
    the next pair that meets the same sentence still reads its own measures."""
    tokens = tokenize("TOTPAR6 was 15.8 for the combination, 12.1 for ibuprofen")
    first = measures(tokens)
    first.clear()
    assert measures(tokens) == measures(list(tokens)) != {}
    assert disagreeing_measures(tokenize("TOTPAR6 was 12.1 for ibuprofen"), tokens) == ([], [])
