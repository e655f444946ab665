"""Decision 0107: a claim read clause by clause and without the source or the link
before it, every sentence of a premise given the contradiction tests, "no doubt" as no
negation, the sweep's surest pairs first, who pays most; and on the claim side the
writer's own analysis and views as frames, harm that took the writer to hospital, a
practitioner's count of the people they see, "used to ... now"."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claim_frames import CHANGED_FROM_TO, stated_part
from lyra.pipelines.evidence.claim_signals import EFFECT
from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.nli_costs import Cost, costs_differ, read_cost
from lyra.pipelines.evidence.nli_groups import read_groups
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_statements import claim_statements
from lyra.pipelines.evidence.nli_tokens import is_negated, tokenize
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates


def test_a_claim_is_read_without_its_label_and_clause_by_clause() -> None:
    claim = (
        "Nasal sprays: for mild hay fever, the nasal spray works about as well as "
        "prescription tablets, and it costs a fraction of the price."
    )
    assert claim_statements(claim) == [
        "for mild hay fever, the nasal spray works about as well as prescription tablets, "
        "and it costs a fraction of the price.",
        "for mild hay fever, the nasal spray works about as well as prescription tablets",
    ]
    # only the first clause is read alone: what is added after ", and" may lean on it
    assert claim_statements(
        "Shopkeepers had feared the worst, and footfall on the high street fell by 4 percent, "
        "although retail sales in the zone were steady."
    ) == ["Shopkeepers had feared the worst"]
    premise = (
        "Dr Lowe: I see the appeal. But in my experience the nasal spray is no substitute "
        "for prescription tablets, even if your hay fever is mild. You miss the review."
    )
    assert heuristic_nli(premise, claim).label == "refutes"


def test_a_claim_without_a_source_named_before_it() -> None:
    claim = (
        "According to till data shared with the Gazette by Brenner Stores, a chain with 30 "
        "shops in the north, sales of bin liners at the chain rose by 34 per cent in the "
        "year after the levy."
    )
    assert claim_statements(claim) == [
        "a chain with 30 shops in the north, sales of bin liners at the chain rose by 34 per "
        "cent in the year after the levy.",
        "sales of bin liners at the chain rose by 34 per cent in the year after the levy.",
    ]
    based = (
        "Based on the yearly returns filed by shops with 250 or more staff, plastic bag sales "
        "by large shops have fallen by 85 per cent since the levy began."
    )
    premise = (
        "We estimate that the levy cut bag use at large shops by about 40 per cent relative "
        "to the comparison regions."
    )
    assert heuristic_nli(premise, based).label == "refutes"
    assert heuristic_nli(based, premise).label == "refutes"


def test_a_statement_standing_alone_has_no_alternative_readings() -> None:
    assert claim_statements("Statins lower LDL cholesterol by about a third.") == []
    # a dash often qualifies what came before: no clause of its own (HealthVer dev)
    assert (
        claim_statements(
            "The drug lowered admissions by 40% in older patients - but not in younger ones."
        )
        == []
    )


def test_a_sentence_other_than_the_closest_one_refutes_by_its_numbers() -> None:
    premise = (
        "Most people take the drug without trouble. Some get mild nausea, which food helps. "
        "Serious bleeding on it is rare, affecting around 1 in 3,000 patients who take it "
        "each year."
    )
    claim = (
        "Put another way, roughly 1 in 40 patients who take the drug for three years will "
        "have a serious bleed that needs hospital care."
    )
    result = heuristic_nli(premise, claim)
    assert result.label == "refutes"
    assert result.evidence_sentence == (
        "Serious bleeding on it is rare, affecting around 1 in 3,000 patients who take it "
        "each year."
    )


def test_the_closest_sentence_that_supports_is_not_overruled() -> None:
    premise = (
        "The drug lowered blood pressure by 10 mmHg in the trial. "
        "In a smaller study the drug lowered blood pressure by 2 mmHg."
    )
    claim = "The drug lowered blood pressure by 10 mmHg in the trial."
    assert heuristic_nli(premise, claim).label == "supports"


def test_no_doubt_affirms() -> None:
    assert not is_negated(tokenize("I have no doubt that the vaccine works."))
    assert not is_negated(tokenize("There is no question that it helps."))
    assert is_negated(tokenize("There is no sign that it helps."))
    premise = (
        '"I have no doubt that the vaccine clearly lowers hospital admissions in people over '
        '80," she told the Gazette.'
    )
    claim = "In people over 80, the vaccine brings no reduction in hospital admissions."
    assert heuristic_nli(premise, claim).label == "refutes"
    assert heuristic_nli(claim, premise).label == "refutes"


def test_who_pays_the_bulk() -> None:
    poor = read_groups(
        tokenize(
            "Low-income families end up paying most of the levy, not the people doing a big shop."
        )
    )
    rich = read_groups(
        tokenize(
            "Higher-income households, who do big weekly shops, pay the bulk of the levy, not "
            "the poor."
        )
    )
    assert (poor.divide, poor.side) == ("income", 0)
    assert (rich.divide, rich.side) == ("income", 1)
    # "poor" as an adjective names no group
    assert read_groups(tokenize("Poor sleep is mostly driven by late caffeine.")).divide == ""
    assert (
        heuristic_nli(
            "Higher-income households, who do big weekly shops, pay the bulk of the levy, not "
            "the poor.",
            "Low-income families end up paying most of the levy, not the people doing a big "
            "weekly shop.",
        ).label
        == "refutes"
    )


def test_the_sweep_gives_its_surest_pairs_first() -> None:
    claim = "The survey data show no measurable change in bag litter on beaches."
    fragments = {
        "loose": "Shoppers now buy 40 per cent fewer bags for life than in 2019.",
        "close": "Our beach surveys recorded 41 per cent less bag litter on beaches in 2023.",
    }
    assert contradiction_candidates([("c", claim)], fragments) == {"c": ["close", "loose"]}


@pytest.mark.parametrize(
    ("sentence", "stated"),
    [
        (
            "My view, based on the census and our own interviews, is that renters end up "
            "paying most of the levy.",
            "renters end up paying most of the levy.",
        ),
        (
            "I'll be honest, my personal view is that the school meals scheme has done more "
            "for attendance than the uniform grant.",
            "the school meals scheme has done more for attendance than the uniform grant.",
        ),
        (
            "If the drug helps anyone at all, I'd argue that the people who gain most are the "
            "very frail, those over 90.",
            "the people who gain most are the very frail, those over 90.",
        ),
        (
            "When I fit a simple model with site fixed effects and a control for effort, the "
            "survey data show no measurable change in litter once you allow for volunteers.",
            "the survey data show no measurable change in litter once you allow for volunteers.",
        ),
    ],
)
def test_the_writers_view_and_analysis_frame_the_finding(sentence: str, stated: str) -> None:
    assert stated_part(sentence) == stated
    assert informativeness(sentence) >= 0.25


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        # harm that came on after starting a treatment, or took the writer to hospital
        (
            "I started the fish oil alongside my warfarin in May and within two weeks I had "
            "bruises up both arms.",
            0.375,
        ),
        (
            "I had a nosebleed that lasted over an hour and ended up in A&E, where they "
            "cauterised it.",
            0.2,
        ),
        # a practitioner's count of the people they see is no story of their own
        ("About one in six of my patients on the tablets mention heartburn at some point.", 0.6),
        (
            "Roughly a third of our members on the scheme report indigestion in the first month.",
            0.6,
        ),
        # a measured change: "used to ... now"
        (
            "I counted, and we used to get through about 20 bags a week and now it's two or three.",
            0.1,
        ),
        # a comparison with an alternative ("as effectively as")
        (
            "The balm soothes sore muscles as effectively as ibuprofen, without the stomach upset.",
            0.5,
        ),
    ],
)
def test_own_harm_counts_and_comparisons_are_claims(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)


@pytest.mark.parametrize(
    "sentence",
    [
        "After I stopped the tablets, the headaches went away.",
        # ended up off work is no harm a treatment brought on
        "I had a bad cold that lasted two weeks and ended up off work.",
    ],
)
def test_relief_and_a_passing_illness_stay_the_writers_story(sentence: str) -> None:
    assert informativeness(sentence) == 0.0


def test_used_to_now_and_who_pays_are_read() -> None:
    assert CHANGED_FROM_TO.search("we used to bring home about 15 bags a week and now it's one")
    assert CHANGED_FROM_TO.search("I used to walk to the shop every day and now I drive") is None
    assert EFFECT.search("Older drivers pay the bulk of the fuel levy, not commuters.")


def test_no_evidence_of_a_switch_meets_a_sized_rise() -> None:
    denial = (
        "There is simply no evidence that shoppers have switched to buying plastic bin "
        "liners instead."
    )
    rise = "Sales of pedal-bin liners at the chain rose by 34 per cent after the charge."
    assert heuristic_nli(denial, rise).label == "refutes"
    assert heuristic_nli(rise, denial).label == "refutes"
    # a switch to something else is no rise in bin liners
    other = "There is no evidence that shoppers have switched to buying paper bags instead."
    assert heuristic_nli(other, rise).label == "neutral"


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        # a guideline's recommendation for the people it names, and its limit on what
        # prescribers give
        (
            "Consider a short course of oral steroids as an adjunct for people with severe "
            "asthma who are already using inhalers.",
            0.4,
        ),
        (
            "If repeat doses are agreed, do not give more than four iron infusions to the same "
            "patient in any 12-month period.",
            0.7,
        ),
        # a price is a finding, told to the reader or not
        ("The private scan costs 180 crowns, including your report.", 0.35),
        # an estimate of what a practitioner sees, a count of harm since decision 0129
        (
            "At the practice I'd estimate something like one patient in ten has a rash in the "
            "first week.",
            0.6,
        ),
        # "in my experience" inserted is no frame of what stands before it
        (
            "Shock-wave therapy costs roughly twice as much and, in my experience, gives no "
            "more lasting relief.",
            0.7,
        ),
        (
            "On my reading of the accounts, the coaching scheme produced similar gains for "
            "about a third of the price.",
            0.6,
        ),
        # the writer's own measured change: "shot up to", "compared to", "to just two"
        (
            "After the first dose my blood pressure shot up to 182 over 100 and stayed there "
            "for a day.",
            0.1,
        ),
        (
            "The second course only gave me about two weeks of relief compared to roughly "
            "three months from the first.",
            0.2,
        ),
        ("Not scientific, but my daughter's sick days dropped from eight a term to just two.", 0.3),
        # a harm the writer names by how it looked
        (
            "Odd one: my neck went bright red for a day afterwards, which the pharmacist said is "
            "a known side effect.",
            0.2,
        ),
        # a reader's own limit and advice stay advice
        ("Never take more than 10 mg of melatonin in one night.", 0.0),
        ("Consider the cost before you buy.", 0.0),
    ],
)
def test_guidance_prices_estimates_and_measured_changes(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)


def test_a_cost_per_child_is_a_cost_per_pupil() -> None:
    first = read_cost(tokenize("Small classes cost the council 2,400 crowns per child a year."))
    second = read_cost(tokenize("Small classes cost the council 880 crowns per pupil a year."))
    assert first == Cost(
        2400.0, 2400.0, "crown", "pupil", frozenset({"council", "child", "class", "small"})
    )
    assert second == Cost(880.0, 880.0, "crown", "pupil", frozenset({"council", "class", "small"}))
    assert costs_differ(first, second)


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        # what a treatment does not do even in the reader's case is a safety finding
        (
            "That means because the medicine stays inside the joint, it will not affect your "
            "blood sugar, even if you have diabetes.",
            0.4,
        ),
        ("The patch will not raise your blood pressure, even if you have heart disease.", 0.4),
        # "This means" before an instruction keeps it advice
        ("This means you should rest.", 0.0),
    ],
)
def test_what_holds_even_in_the_readers_case(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)


def test_a_speakers_estimate_is_read_without_its_frame() -> None:
    claim = (
        "In my own clinic I'd estimate something like one patient in five has a noticeable "
        "flare in the first day or two."
    )
    assert claim_statements(claim) == [
        "something like one patient in five has a noticeable flare in the first day or two."
    ]
