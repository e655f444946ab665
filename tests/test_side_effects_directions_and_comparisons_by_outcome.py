"""Decision 0117: a second phrasing grid (how often an outcome happens, which way it
moved, which of two treatments does better) showed the rules behind the stance veto
setting a side effect of a drug against another side effect of the same drug ("muscle pain
is rare with statins" refuted by "headache affected 40% of people taking statins"), and
missing two treatments compared both ways round ("ibuprofen relieved dental pain more
than paracetamol did" against "paracetamol worked better than ibuprofen for dental
pain"). `outcome_words` now reads the outcome of frequency and comparison statements, so
the outcome guard keeps findings about two outcomes apart; comparisons read "superior /
inferior to" and a measure named after what is compared."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.nli_comparisons import read_comparisons
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_outcomes import outcome_words
from lyra.pipelines.evidence.nli_tokens import tokenize

OUTCOMES = [
    ("Muscle pain is rare with statins, affecting fewer than 2 in 100 people.", {"muscl", "pain"}),
    ("Headache is a common side effect of statins.", {"headach"}),
    ("Headache affected 40% of people taking statins.", {"headach"}),
    ("Nausea frequently occurs with iron tablets.", {"nausea"}),
    (
        "Fewer than one in a hundred people on iron tablets experienced constipation.",
        {"constipation"},
    ),
    (
        "Reports of muscle pain among statin users were rare, at about 1 in 1,000.",
        {"muscl", "pain"},
    ),
    ("Loneliness was reported by just two per cent of hybrid staff.", {"loneli"}),
    ("Around one in four (25%) scheme cyclists reported bike theft.", {"bik", "theft"}),
    ("Very few scheme cyclists, about 1 in 200, had road injury.", {"road", "injuri"}),
    (
        "The most frequently reported side effect of the cycle-to-work scheme was bike theft, "
        "in 28% of participants.",
        {"bik", "theft"},
    ),
    ("Statins were followed by a 15% rise in LDL cholesterol.", {"ldl", "cholesterol"}),
    ("Vitamin D supplements were linked to higher bone density.", {"bon", "densiti"}),
    ("Ibuprofen worked better than paracetamol for dental pain.", {"dental", "pain"}),
    ("CBT did worse than sleeping pills on insomnia.", {"insomnia"}),
    ("Ibuprofen gave better control of dental pain than paracetamol.", {"dental", "pain"}),
    ("For insomnia, CBT did better than sleeping pills.", {"insomnia"}),
    ("Arm soreness turned out to be common among vaccinated adults.", {"arm", "sor"}),
    ("The rate of fever with the shingles vaccine was low, around 1 in 50.", {"fever"}),
    ("LDL cholesterol went up with statins.", {"ldl", "cholesterol"}),
    ("Bone density climbed after vitamin D supplements were introduced.", {"bon", "densiti"}),
    ("The congestion charge was followed by a 9% fall in bus ridership.", {"bus", "ridership"}),
    # who had it is no outcome: "patients with diabetes"
    ("Patients with diabetes were unaffected.", {"diabet"}),
    ("Statins had no effect on muscle pain.", {"muscl", "pain"}),
    ("Half of statin users had muscle pain.", {"muscl", "pain"}),
    # a tense is no having, an effect no side effect: no outcome named
    ("Researchers have shown that statins work.", set()),
    ("The effect was large.", set()),
]


@pytest.mark.parametrize(("text", "outcome"), OUTCOMES)
def test_the_outcome_of_how_often_which_way_and_which_does_better(
    text: str, outcome: set[str]
) -> None:
    assert outcome_words(text) == outcome


# Two side effects, two outcomes, two comparisons of different outcomes: never refutes.
OTHER_OUTCOMES = [
    (
        "Muscle pain is rare with statins, affecting fewer than 2 in 100 people.",
        "Headache affected 40% of people taking statins.",
    ),
    (
        "Muscle pain was reported by just two per cent of statin users.",
        "Headache is common with statins, reported by about a third of users.",
    ),
    (
        "Reports of muscle pain among statin users were rare, at about 1 in 1,000.",
        "The most frequently reported side effect of statins was headache, in 28% of participants.",
    ),
    (
        "Fewer than one in a hundred people on iron tablets experienced constipation.",
        "A large share of people on iron tablets, about 35%, experienced nausea.",
    ),
    (
        "Vitamin D supplements raised bone density by 12%.",
        "Vitamin D supplements caused calcium levels to slump by 18 per cent.",
    ),
    (
        "Statins were followed by a 15% rise in LDL cholesterol.",
        "Statins cut blood sugar by 20%.",
    ),
    (
        "The congestion charge was followed by a 9% fall in bus ridership.",
        "The congestion charge was followed by a 15% rise in traffic volume.",
    ),
    ("Blood sugar went up with statins.", "Statins cut LDL cholesterol by 20%."),
    (
        "The rate of fever with the shingles vaccine was low, around 1 in 50.",
        "Arm soreness turned out to be common among vaccinated adults, with around one in "
        "eight (12 per cent) affected.",
    ),
    (
        "Ibuprofen relieved dental pain more than paracetamol did.",
        "Paracetamol relieved fever more than ibuprofen did.",
    ),
    (
        "Ibuprofen worked better than paracetamol for dental pain.",
        "Paracetamol worked better than ibuprofen for fever.",
    ),
]


@pytest.mark.parametrize(("first", "second"), OTHER_OUTCOMES)
def test_findings_about_two_outcomes_never_refute(first: str, second: str) -> None:
    assert heuristic_nli(first, second).label != "refutes"
    assert heuristic_nli(second, first).label != "refutes"


# The same outcome: still a contradiction, both ways.
SAME_OUTCOME = [
    (
        "Muscle pain is rare with statins, affecting fewer than 2 in 100 people.",
        "Muscle pain affected 40% of people taking statins.",
    ),
    (
        "Reports of muscle pain among statin users were rare, at about 1 in 1,000.",
        "The most frequently reported side effect of statins was muscle pain, in 28% of "
        "participants.",
    ),
    ("LDL cholesterol went up with statins.", "Statins cut LDL cholesterol by 20%."),
    (
        "Ibuprofen relieved dental pain more than paracetamol did.",
        "Paracetamol relieved dental pain more than ibuprofen did.",
    ),
    (
        "Ibuprofen worked better than paracetamol for dental pain.",
        "Paracetamol worked better than ibuprofen for dental pain.",
    ),
    (
        "Ibuprofen was more effective than paracetamol at reducing dental pain.",
        "Paracetamol worked better than ibuprofen for dental pain.",
    ),
    (
        "Ibuprofen was superior to paracetamol for dental pain.",
        "Paracetamol was superior to ibuprofen for dental pain.",
    ),
]


@pytest.mark.parametrize(("first", "second"), SAME_OUTCOME)
def test_findings_about_one_outcome_refute_both_ways(first: str, second: str) -> None:
    assert heuristic_nli(first, second).label == "refutes"
    assert heuristic_nli(second, first).label == "refutes"


def test_superior_and_inferior_are_comparisons_and_agree_when_turned_round() -> None:
    superior = "Ibuprofen was superior to paracetamol for dental pain."
    inferior = "Paracetamol was inferior to ibuprofen for dental pain."
    (better,) = read_comparisons(tokenize(superior))
    (worse,) = read_comparisons(tokenize(inferior))
    assert (better.sign, better.leader, better.compared) == (1, {"ibuprofen"}, {"paracetamol"})
    assert (worse.sign, worse.leader, worse.compared) == (-1, {"paracetamol"}, {"ibuprofen"})
    assert better.measure == worse.measure == {"dental", "pain"}
    # the same finding said the other way round is no contradiction
    assert heuristic_nli(superior, inferior).label != "refutes"
    assert heuristic_nli(inferior, superior).label != "refutes"


def test_what_follows_what_is_compared_is_its_setting() -> None:
    (comparison,) = read_comparisons(
        tokenize("Ibuprofen worked better than paracetamol for dental pain.")
    )
    assert comparison.compared == {"paracetamol"}
    assert comparison.setting == {"dental", "pain"}
    assert comparison.measure == set()
