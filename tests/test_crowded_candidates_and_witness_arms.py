"""The contradiction rules read the near fragments a claim's nearest few crowded out, and a
witness's arms in other words (decision 0137), each with its control."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from lyra.jobs.evidence_steps import judge_stance
from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.nli_enough import Amounts, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_negations import describes_a_group
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import Share
from lyra.pipelines.evidence.nli_tokens import content_keys, tokenize
from lyra.pipelines.evidence.nli_units import unit_key
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates
from tests.conftest import make_settings, step_context

# A fragment that neither supports nor refutes the claims below.
SERVICE = "The fleet manager said every van was serviced in March and its tyres checked."


RAMPS_CLAIM = "Every bump or ramp we go over costs a loaded coach something like nine seconds."
TIMING = (
    "In independent timing runs, buses and coaches lost on average less than one second per ramp."
)
RAMPS = {"f-timing": TIMING, "f-service": SERVICE}


def test_the_sweep_reads_every_sentence_of_a_crowded_out_fragment() -> None:
    """The timing's time per ramp is about no word the sweep indexes for the claim's; named
    as near it, every sentence of it is read, and only the one that contradicts is found."""
    claims = [("c", RAMPS_CLAIM)]
    assert contradiction_candidates(claims, RAMPS) == {}
    near = {"c": ["f-timing", "f-service"]}
    assert contradiction_candidates(claims, RAMPS, near=near) == {"c": ["f-timing"]}
    # what the stance step has taken, or the claim's own page, is still left out
    assert contradiction_candidates(claims, RAMPS, {"c": {"f-timing"}}, near) == {}


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
    """One candidate a claim: the service fragment is nearest and taken; the timing's, near but
    crowded out, reaches the sweep and its refutation is stored."""
    claim = {
        "id": "c-witness", "claim_text": RAMPS_CLAIM, "origin_page_id": "p-witness",
        "source_domain": "witness.example", "source_trust_level": "UNVERIFIED",
    }  # fmt: skip
    meta = {
        fid: {"id": fid, "text": text, "domain": f"{fid}.example", "page_id": f"p-{fid}",
              "fragment_type": "paragraph", "url": f"http://{fid}.example/a"}
        for fid, text in RAMPS.items()
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
            return [[("f-service", 0.8), ("f-timing", 0.46)]]
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

    assert swept[0][3] == {"c-witness": ["f-timing"]}
    assert {(e["source_id"], e["relation"]) for e in edges} == {
        ("f-service", "neutral"),
        ("f-timing", "refutes"),
    }


ACUPRESSURE_TRIAL = (
    "At 8 weeks, 52% of participants in the acupressure arm improved their sleep score by at "
    "least 2 points compared with 30% in the supportive-talks control arm (risk difference 22 "
    "points, 95% CI 10 to 34)."
)
TRIBUNAL_TRIAL = (
    "Median time from application to first tribunal hearing was 12 days for video-link "
    "hearings versus 20 days for control in-person hearings (difference -8 days, 95% CI -10 "
    "to -6)."
)
TEARFUL_RARE = (
    "Feeling tearful after an appointment is uncommon, affecting fewer than 1 in 25 of our "
    "patients in last year's survey."
)
BRUISING_RARE = (
    "Bruising at picking is uncommon, affecting fewer than 1 in 200 apples in a typical season "
    "across our client orchards."
)


A_WITNESS_IN_OTHER_WORDS_AGAINST_A_FINDING = [
    pytest.param(
        "I was in one of those acupressure studies and the ones who just had friendly "
        "chats with a physio came out every bit as well as those of us who got the "
        "acupressure.",
        ACUPRESSURE_TRIAL,
        "refutes",
        id="friendly-chats-are-the-talks-arm",
    ),
    pytest.param(
        "I was in one of those acupressure studies and the ones who just had a cup of tea "
        "with a physio came out every bit as well as those of us who got the acupressure.",
        ACUPRESSURE_TRIAL,
        "neutral",
        id="control-a-cup-of-tea-names-no-arm-of-the-trial",
    ),
    pytest.param(
        "From the clerk's desk, the tenants going on the video link wait just as long to be "
        "heard as the ones we still bring into the tribunal room.",
        TRIBUNAL_TRIAL,
        "refutes",
        id="just-as-long-to-be-heard-as-the-ones-we-still-bring",
    ),
    pytest.param(
        "From the clerk's desk, the tenants going on the video link wait just as long to be "
        "heard as the tenants who come into the tribunal room.",
        TRIBUNAL_TRIAL,
        "neutral",
        id="control-no-plain-group",
    ),
    pytest.param(
        "Every single appointment left me in tears, and two other mums at my clinic said "
        "the same thing happened to them.",
        TEARFUL_RARE,
        "refutes",
        id="every-single-appointment-left-me-in-tears-against-rare",
    ),
    pytest.param(
        "Every single appointment left me smiling, and two other mums at my clinic said the "
        "same thing happened to them.",
        TEARFUL_RARE,
        "neutral",
        id="control-left-me-smiling-is-no-harm",
    ),
    pytest.param(
        "Every single appointment started late, and I was in tears once.",
        TEARFUL_RARE,
        "neutral",
        id="control-every-appointment-did-nothing-to-me",
    ),
    pytest.param(
        "The pickers we had in last autumn bruised a good third of our Bramley apples, and "
        "it wasn't the first year either.",
        BRUISING_RARE,
        "refutes",
        id="a-good-third-against-rare",
    ),
    pytest.param(
        "The pickers we had in last autumn bruised a good deal of our Bramley apples, and it "
        "wasn't the first year either.",
        BRUISING_RARE,
        "neutral",
        id="control-a-good-deal-is-no-share",
    ),
]


def test_a_good_third_is_a_share_and_a_good_third_of_an_hour_none() -> None:
    assert read_share(tokenize("they bruised a good third of our apples")) == Share(
        100 / 3, 100 / 3
    )
    assert read_share(tokenize("a full quarter of them said it hurt")) == Share(25.0, 25.0)
    assert read_share(tokenize("It took a good third of an hour.")) is None


def test_an_amount_enough_for_the_writer_then_for_everyone_is_a_claim() -> None:
    own = "Two sessions plus a few nights with the app was plenty for me."
    assert informativeness(own) == 0.0
    assert informativeness(
        own[:-1] + ", nobody needs to sign up for three months of it."
    ) == pytest.approx(0.7)


A_NEGATION_THAT_SAYS_WHO_DENIES_NO_FINDING = [
    pytest.param(
        "This guide is for people who have never had a stroke and wonder whether to start aspirin.",
        "This guide is for people who have had a stroke and wonder whether to start aspirin.",
        "supports",
        id="who-have-never-had-says-who",
    ),
    pytest.param(
        "This guide is for people who haven't had a stroke and wonder whether to start aspirin.",
        "This guide is for people who have had a stroke and wonder whether to start aspirin.",
        "supports",
        id="who-havent-had-says-who",
    ),
    pytest.param(
        "This guide is not for people who have had a stroke and wonder whether to start aspirin.",
        "This guide is for people who have had a stroke and wonder whether to start aspirin.",
        "refutes",
        id="control-the-guide-denied",
    ),
    pytest.param(
        "Fitting speed limiters was associated with no change in the number of dented vans.",
        "Fitting speed limiters cut the number of dented vans by a third.",
        "refutes",
        id="control-associated-with-no-change-is-a-finding",
    ),
]


def test_with_no_beside_a_noun_says_what_a_group_has() -> None:
    assert describes_a_group(tokenize("a depot with no speed limiters at all"), 3)
    assert describes_a_group(tokenize("adults who have never had a stroke"), 3)
    assert not describes_a_group(tokenize("it was associated with no change"), 4)
    assert not describes_a_group(tokenize("the drug did not lower the risk"), 3)


SWIM_WITNESS = (
    "When we went through our own records, the pensioners with a swim pass weren't getting to "
    "the pool any more often than the neighbours their age who'd never bothered applying for "
    "one."
)
CREAM_RARE = "A rash is uncommon with the cream, affecting fewer than 3 in 100 users over a year."
STINGS_RARE = (
    "Stings to neighbours are rare, with fewer than 1 in 200 households near our apiaries "
    "reporting a sting in a season."
)


A_WITNESS_COUNT_IN_EVERYDAY_WORDS = [
    pytest.param(
        SWIM_WITNESS,
        "At 12 months, pass holders made a mean of 1.4 more pool visits per week than "
        "age-matched residents in wards where the pass had not yet been introduced (95% CI "
        "0.8 to 2.0).",
        "refutes",
        id="not-any-more-often-than-those-the-pass-had-not-yet-reached",
    ),
    pytest.param(
        SWIM_WITNESS,
        "At 12 months, pass holders made a mean of 1.4 more pool visits per week than "
        "age-matched residents in wards where the pass had been introduced a year earlier "
        "(95% CI 0.8 to 2.0).",
        "neutral",
        id="control-a-lead-over-no-control-arm",
    ),
    pytest.param(
        "Since we put the hives in, half the kids on our street have been stung on the way "
        "to school.",
        STINGS_RARE,
        "refutes",
        id="half-the-kids-have-been-stung-against-rare-stings",
    ),
    pytest.param(
        "Since we put the hives in, half the kids on our street have been to see them on the "
        "way to school.",
        STINGS_RARE,
        "neutral",
        id="control-half-the-kids-came-to-see",
    ),
    pytest.param(
        "Three of the five ladies in my walking group who use the cream have ended up with a "
        "rash from it, me included, so don't let anyone tell you that's rare.",
        CREAM_RARE,
        "refutes",
        id="three-of-the-five-ladies-so-dont-let-anyone-tell-you",
    ),
]


def test_the_words_a_witness_uses_for_people_harms_and_their_cases() -> None:
    assert read_share(tokenize("Three of the five ladies in my group got a rash.")) == Share(
        60.0, 60.0
    )
    assert read_share(tokenize("Three of the five tables in my room got a scratch.")) is None
    assert content_keys(tokenize("stung ulcers")) == content_keys(tokenize("sting sores"))
    # an amount called enough for any reader in the case named is a claim; for the writer
    # alone it is not
    assert informativeness("A yearly check is plenty if you've got no bother with it.") > 0
    assert informativeness("A yearly check is plenty for me.") == 0.0
    # a fraction of those the witness lives among, and what has befallen them
    assert informativeness("Half the kids on our lane have been stung this summer.") > 0


SEED_FLOOR = (
    "For drone sowing, apply a seed rate of at least 40 kg of pre-germinated seed per hectare."
)


A_UNIT_BY_ITS_OTHER_NAME_AGAINST_A_FLOOR = [
    pytest.param(
        SEED_FLOOR,
        "Fifteen kilos a hectare on the paddies is plenty, the plants tiller out and fill "
        "the gaps.",
        "refutes",
        id="kilos-are-kg-under-a-floor-ordered-after-its-setting",
    ),
    pytest.param(
        SEED_FLOOR,
        "Fifty kilos a hectare on the paddies is plenty, the plants tiller out and fill the gaps.",
        "neutral",
        id="control-more-than-the-floor",
    ),
]


def test_a_unit_is_one_key_by_any_of_its_names() -> None:
    assert unit_key("kilos") == unit_key("kg") == "kg"
    assert unit_key("litres") == unit_key("l") == "l"


NETS = (
    "We ran our own nets over the new planting and over the plain mud next door every month, "
    "and honestly the tiddlers were no {} in the planting than out on the bare patch."
)
FISH_TRIAL = (
    "After two years, restored plots held 3.1 times as many juvenile fish per haul as bare "
    "control plots (rate ratio 3.1, 95% CI 2.0 to 4.6)."
)
PLUGS_FLOOR = (
    "Plugs should be set at a density of at least 12 per square metre and watered weekly "
    "through the first summer."
)


COMPARATIVES_AND_AMOUNTS_IN_A_WITNESS_WORDS = [
    pytest.param(
        NETS.format("thicker"), FISH_TRIAL, "refutes", id="no-thicker-than-the-bare-patch"
    ),
    pytest.param(NETS.format("later"), FISH_TRIAL, "neutral", id="control-no-later-is-a-time"),
    pytest.param(
        "Three or four plugs to the square metre is loads, the gaps close up by the second summer.",
        PLUGS_FLOOR,
        "refutes",
        id="three-or-four-to-the-square-metre-is-loads",
    ),
    pytest.param(
        "Three or four plugs to the square metre is loads of work, the gaps close up by the "
        "second summer.",
        PLUGS_FLOOR,
        "neutral",
        id="control-loads-of-work",
    ),
]


def test_a_floor_per_area_counts_what_was_named_before_it() -> None:
    floor = read_amounts(tokenize(PLUGS_FLOOR))
    assert floor is not None
    assert floor.floor
    assert floor.value("plug per square metre") == 12.0
    enough = read_amounts(tokenize("Two or three plugs to the square metre is plenty."))
    assert enough == Amounts(False, (("plug per square metre", 3.0),))
    # a witness's count of rounds is a claim
    assert informativeness("Our two clubs got their projects through nearly every round.") > 0


NAVIGATOR_WITNESS = (
    "We counted the families losing their homes by default for six months, and the mornings "
    "with the helper desk in the lobby looked pretty much the same as the mornings without one."
)
NAVIGATOR_TRIAL = (
    "Default judgments were entered in 21.4% of cases on helper-desk days and 30.2% on control "
    "days (adjusted risk difference -8.8 percentage points, 95% CI -12.0 to -5.6)."
)


def test_the_sweep_meets_groups_alike_and_a_lead_at_a_word_both_name() -> None:
    """Neither sentence is about a word the change rules index; the witness's likeness
    and the trial's lead meet at "default" and "helper" wherever they stand."""
    claims = [("c-witness", NAVIGATOR_WITNESS), ("c-trial", NAVIGATOR_TRIAL)]
    fragments = {"f-witness": NAVIGATOR_WITNESS, "f-trial": NAVIGATOR_TRIAL}
    assert contradiction_candidates(claims, fragments) == {
        "c-witness": ["f-trial"],
        "c-trial": ["f-witness"],
    }
    other = {
        "f-other": "Possession claims were entered in 9% of cases on control days (95% CI 7 to 11)."
    }
    assert contradiction_candidates(claims[:1], other) == {}


WITNESS_SHARES_AND_ORDERS_TO_INSTALL = [
    pytest.param(
        "I volunteered on the ward for two years and I'd say half the patients I sat with "
        "went home thinking I was their doctor, however many times I told them I wasn't.",
        "In exit surveys across our partner hospitals, fewer than 2% of patients said they "
        "believed their volunteer was a doctor.",
        "refutes",
        id="a-share-before-however-many-times",
    ),
    pytest.param(
        "I volunteered on the ward for two years and I'd say half the patients I sat with "
        "went home happy, however many times I told them I wasn't their doctor.",
        "In exit surveys across our partner hospitals, fewer than 2% of patients said they "
        "believed their volunteer was a doctor.",
        "neutral",
        id="control-half-went-home-happy",
    ),
    pytest.param(
        "Two or three bat boxes to the hectare is plenty, and I've never bothered cleaning "
        "ours out.",
        "Install at least 6 bat boxes per hectare and check every box each winter.",
        "refutes",
        id="install-at-least-per-hectare-against-fewer-called-plenty",
    ),
]


def test_counts_of_the_witness_own_are_claims() -> None:
    assert informativeness("Wasps had moved into well over half of them by August.") > 0
    assert (
        informativeness(
            "Loads of the other mums and dads at the school gate told me theirs were groggy too."
        )
        > 0
    )


REOFFENDING_TRIAL = (
    "At 12 months, proven reoffending had occurred in 28.1% of coached participants compared "
    "with 40.2% of those receiving usual support (adjusted risk ratio 0.70, 95% CI 0.57 to 0.86)."
)


THOSE_WHO_HAD_NOT_THE_THING_ARE_A_PLAIN_GROUP = [
    pytest.param(
        REOFFENDING_TRIAL,
        "What we found was that a year on, the lads who'd had a sports coach were being "
        "reconvicted at pretty much the same rate as the lads who hadn't.",
        "refutes",
        id="the-lads-who-hadnt-are-the-plain-group",
    ),
    pytest.param(
        REOFFENDING_TRIAL,
        "What we found was that a year on, the lads who'd had a sports coach were being "
        "reconvicted at pretty much the same rate as the lads who'd had a tutor.",
        "neutral",
        id="control-another-thing-had",
    ),
]


@pytest.mark.parametrize(
    ("first", "second", "label"),
    [*A_WITNESS_IN_OTHER_WORDS_AGAINST_A_FINDING, *A_NEGATION_THAT_SAYS_WHO_DENIES_NO_FINDING,
     *A_WITNESS_COUNT_IN_EVERYDAY_WORDS, *A_UNIT_BY_ITS_OTHER_NAME_AGAINST_A_FLOOR,
     *COMPARATIVES_AND_AMOUNTS_IN_A_WITNESS_WORDS, *WITNESS_SHARES_AND_ORDERS_TO_INSTALL,
     *THOSE_WHO_HAD_NOT_THE_THING_ARE_A_PLAIN_GROUP],
)  # fmt: skip
def test_each_pair_reads_the_same_both_ways(first: str, second: str, label: str) -> None:
    """Each rule of this decision with its control, read with either text as the premise."""
    assert heuristic_nli(first, second).label == label
    assert heuristic_nli(second, first).label == label
