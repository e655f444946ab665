"""Decision 0117: contradictions of round six's blind corpora that the rules behind the
stance veto missed although they read most of each side.

- A share given twice in two forms is one share: "around one in eight (12 per cent)".
- "The change in X was small and not statistically significant", with X many words long.
- A result no better than the trial's other arm is a finding of no change: "has not been
  shown to relieve knee pain any better than an inactive dummy tablet".
- The sweep reads a fragment's clauses as the judge does, so that it pairs a claim with a
  clause the judge would read as contradicting it ("..., whereas nausea was more common
  with NRT" no longer hides the share before it).
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import Share
from lyra.pipelines.evidence.nli_tokens import tokenize
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates

STOMACH_COMMON = (
    "Among 4,200 long-term users tracked through pharmacy records by researchers at the "
    "Ostervik Institute for Pharmacoepidemiology, stomach trouble turned out to be common, "
    "with around one in eight (12 per cent) reporting heartburn, bloating or loose stools in "
    "their first year."
)
DIGESTIVE_RARE = (
    "In clinical studies lasting up to three years, digestive complaints such as mild nausea "
    "or softer stools were rare, affecting fewer than 2 in every 100 people, and most of "
    "these settled on their own within a few days."
)
INJURIES_NOT_SIGNIFICANT = (
    "Set against the matched comparison streets, the change in recorded cyclist injuries per "
    "million cycle-kilometres on the upgraded corridors was small and not statistically "
    "significant (a 6% fall, p = 0.41)."
)
INJURY_RISK_LOWER = (
    "In the pooled analysis, cyclists riding on physically separated lanes had a 44% lower "
    "injury risk per kilometre travelled (rate ratio 0.56, 95% CI 0.45 to 0.70) than those "
    "on comparable streets without cycling infrastructure."
)
NOT_SHOWN_BETTER = (
    "When only independently funded trials are considered, glucosamine has not been shown "
    "to relieve knee pain any better than an inactive dummy tablet, and no difference was "
    "found in stiffness or physical function either."
)
PAIN_LOWERED = (
    "Compared with placebo, crystalline glucosamine sulfate lowered pain scores by a "
    "standardised mean difference of -0.27 (95% CI -0.41 to -0.13), roughly 6 points on a "
    "0 to 100 scale, after six months of treatment."
)
THROAT_RARE = (
    "Throat irritation is rare, affecting fewer than 5% of people who switch, and in our "
    "experience it usually settles within the first week or two."
)
THROAT_TRIAL = (
    "Adverse events were recorded at every visit. The most frequently reported adverse effect "
    "was throat or mouth irritation, reported by 65.3% of participants in the e-cigarette "
    "group and 51.2% in the NRT group, whereas nausea was more common with NRT (38.4% vs "
    "30.1%). Serious adverse events were infrequent."
)


@pytest.mark.parametrize(
    ("text", "share"),
    [
        (STOMACH_COMMON, Share(12.5, 12.5)),
        # the second form says whose share it is
        ("Some 12.5% (one in eight) of parents said homework led to arguments.", Share(12.5, 12.5)),
        ("One in five (20%) of the pupils said they had been bullied.", Share(20.0, 20.0)),
    ],
)
def test_a_share_given_again_in_another_form_is_one_share(text: str, share: Share) -> None:
    assert read_share(tokenize(text)) == share


@pytest.mark.parametrize(
    "text",
    [
        # two arms' shares close to each other are two shares, not one said twice
        "Headaches were reported by 12% of the drug group and 12.5% of the placebo group.",
        # a share and a far larger one a few words on
        "One in eight (40 per cent of the older ones) reported heartburn.",
    ],
)
def test_two_shares_stay_two(text: str) -> None:
    assert read_share(tokenize(text)) is None


def test_rare_against_common_given_in_two_forms_refutes_both_ways() -> None:
    assert heuristic_nli(STOMACH_COMMON, DIGESTIVE_RARE).label == "refutes"
    assert heuristic_nli(DIGESTIVE_RARE, STOMACH_COMMON).label == "refutes"


def test_a_small_change_not_significant_is_no_change_in_what_it_names() -> None:
    found = no_change(tokenize(INJURIES_NOT_SIGNIFICANT))
    assert {"cyclist", "injuri", "kilometer", "corridor"} <= found
    # only a size of the change, not of anything else: "small and" then the finding
    assert no_change(tokenize("The change in cyclist injuries was small and costly.")) == set()


def test_no_significant_change_against_a_lower_risk_refutes_both_ways() -> None:
    assert heuristic_nli(INJURIES_NOT_SIGNIFICANT, INJURY_RISK_LOWER).label == "refutes"
    assert heuristic_nli(INJURY_RISK_LOWER, INJURIES_NOT_SIGNIFICANT).label == "refutes"


@pytest.mark.parametrize(
    ("text", "outcome"),
    [
        (NOT_SHOWN_BETTER, {"kne", "pain", "reliev"}),
        ("Glucosamine was no better than placebo for knee pain.", {"kne", "pain"}),
        ("Glucosamine did not relieve knee pain any better than a dummy tablet.", {"kne", "pain"}),
        ("The brace was no better than a sham brace at easing knee pain.", {"eas", "kne", "pain"}),
    ],
)
def test_no_better_than_the_other_arm_is_no_change(text: str, outcome: set[str]) -> None:
    assert outcome <= no_change(tokenize(text))
    # what the denial says of the evidence is no outcome
    assert "shown" not in no_change(tokenize(text))


@pytest.mark.parametrize(
    "text",
    [
        # better than another treatment, not than the other arm: a comparison, not a null
        "Glucosamine was no better than ibuprofen for knee pain.",
        # "any better" not denied
        "Ask whether glucosamine relieves knee pain any better than a placebo would.",
    ],
)
def test_better_than_another_treatment_or_undenied_is_no_null(text: str) -> None:
    assert {"kne", "pain"}.isdisjoint(no_change(tokenize(text)))


def test_not_shown_better_than_a_dummy_refutes_a_pain_reduction_both_ways() -> None:
    assert heuristic_nli(NOT_SHOWN_BETTER, PAIN_LOWERED).label == "refutes"
    assert heuristic_nli(PAIN_LOWERED, NOT_SHOWN_BETTER).label == "refutes"


def test_no_better_than_placebo_for_one_outcome_leaves_another_alone() -> None:
    null = "Glucosamine was no better than placebo for knee pain."
    other = "Glucosamine lowered stiffness scores by 20% compared with placebo."
    assert heuristic_nli(null, other).label != "refutes"
    assert heuristic_nli(other, null).label != "refutes"


def test_the_sweep_reads_a_fragments_clauses_as_the_judge_does() -> None:
    # the sentence as a whole gives two shares (one per arm) and a comparison; its first
    # clause calls throat irritation the most frequent effect, at 65.3%
    assert read_changes(tokenize(THROAT_TRIAL.split(". ")[1])).share is None
    assert heuristic_nli(THROAT_TRIAL, THROAT_RARE).label == "refutes"
    found = contradiction_candidates(
        [("rare", THROAT_RARE)], {"trial": THROAT_TRIAL, "other": PAIN_LOWERED}
    )
    assert found == {"rare": ["trial"]}
