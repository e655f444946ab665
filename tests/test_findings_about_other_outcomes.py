"""Decision 0116: two findings about one intervention that name two different outcomes do
not contradict each other ("peer tutoring made no difference to attendance" against
"peer tutoring lowered reading scores by 20%"), while the same findings about one outcome
still do. `outcome_words` reads the outcome by its grammar, apart from the intervention,
the people and the comparison."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_outcomes import other_outcomes, outcome_words

# (text, the stems of the outcome it names)
OUTCOMES = [
    ("Peer tutoring made no difference to reading scores.", {"read", "scor"}),
    ("Reading scores were no different with peer tutoring than without it.", {"read", "scor"}),
    ("Peer tutoring did not change reading scores.", {"read", "scor"}),
    (
        "There was no significant difference in reading scores between the peer tutoring "
        "group and the control group.",
        {"read", "scor"},
    ),
    ("Peer tutoring was no better than usual care for reading scores.", {"read", "scor"}),
    ("We found no evidence that peer tutoring affects reading scores.", {"read", "scor"}),
    (
        "The reading scores of tutored pupils were no different, statistically, from those "
        "of the comparison group.",
        {"read", "scor"},
    ),
    (
        "The jet lag symptoms of travellers who took melatonin were no different from placebo.",
        {"jet", "lag", "symptom"},
    ),
    ("Blood pressure remained unchanged with the drug.", {"blood", "pressur"}),
    ("The effect of melatonin on jet lag symptoms was not significant.", {"jet", "lag", "symptom"}),
    ("Peer tutoring did nothing for attendance.", {"attendanc"}),
    # "employment" and "job" share one key (decision 0142)
    ("With basic income, employment rose by 12 points.", {"employ"}),
    ("The drug halved blood pressure.", {"blood", "pressur"}),
    ("Patients given the drug had 30% lower cholesterol than the controls.", {"cholesterol"}),
    ("Tutored pupils improved on reading scores by an effect size of 0.4.", {"read", "scor"}),
    ("Shockwave therapy clearly works: tendon pain dropped in every study.", {"tendon", "pain"}),
    ("Melatonin led to a 25% reduction in jet lag symptoms.", {"jet", "lag", "symptom"}),
    ("Employment showed no improvement with basic income.", {"employ"}),
    ("Employment was not affected by basic income.", {"employ"}),
    ("Mental health was 20% lower in the basic income group.", {"mental", "health"}),
    ("In our trial, basic income brought mental health down by a quarter.", {"mental", "health"}),
    (
        "Trials found melatonin no more effective than usual care at improving sleep quality.",
        {"sleep", "qualiti"},
    ),
    ("Melatonin is ineffective for jet lag symptoms.", {"jet", "lag", "symptom"}),
    (
        "The air pollution at the gate of the schools in the scheme was no different.",
        {"air", "pollution"},
    ),
    # only general words ("the risk"), or no outcome named by grammar: none
    ("Aspirin reduced the risk by a third.", set()),
    ("Peer tutoring is popular with teachers.", set()),
]


@pytest.mark.parametrize(("text", "outcome"), OUTCOMES)
def test_the_outcome_a_finding_names_apart_from_what_acted_on_it(
    text: str, outcome: set[str]
) -> None:
    assert outcome_words(text) == outcome


# (no change in one outcome, a change in another): no contradiction, read both ways
OTHER_OUTCOMES = [
    (
        "Reading scores were no different with peer tutoring than without it.",
        "Peer tutoring lowered attendance by 20%.",
    ),
    (
        "There was no significant difference in blood pressure between the drug group and "
        "the control group.",
        "With the drug, cholesterol fell by 12 points.",
    ),
    (
        "We found no evidence that the school street scheme affects air pollution at the gate.",
        "The school street scheme cut road injuries by a third.",
    ),
    (
        "The effect of basic income on employment was not statistically significant.",
        "Basic income led to a 25% improvement in mental health.",
    ),
    (
        "Jet lag symptoms remained unchanged with melatonin.",
        "Melatonin significantly improved daytime alertness compared with usual care.",
    ),
]


@pytest.mark.parametrize(("no_change", "change"), OTHER_OUTCOMES)
def test_findings_about_two_outcomes_do_not_contradict(no_change: str, change: str) -> None:
    assert other_outcomes(no_change, change) is True
    assert heuristic_nli(no_change, change).label != "refutes"
    assert heuristic_nli(change, no_change).label != "refutes"


# the same findings about one outcome: a contradiction, read both ways
SAME_OUTCOME = [
    (
        "Reading scores were no different with peer tutoring than without it.",
        "Peer tutoring lowered reading scores by 20%.",
    ),
    (
        "There was no significant difference in blood pressure between the drug group and "
        "the control group.",
        "With the drug, blood pressure fell by 12 points.",
    ),
    (
        "We found no evidence that the school street scheme affects air pollution at the gate.",
        "The school street scheme cut air pollution at the gate by a third.",
    ),
    (
        "The effect of basic income on employment was not statistically significant.",
        "Basic income led to a 25% improvement in employment.",
    ),
    (
        "Jet lag symptoms remained unchanged with melatonin.",
        "Melatonin significantly improved jet lag symptoms compared with usual care.",
    ),
]


@pytest.mark.parametrize(("no_change", "change"), SAME_OUTCOME)
def test_findings_about_one_outcome_still_contradict(no_change: str, change: str) -> None:
    assert other_outcomes(no_change, change) is False
    assert heuristic_nli(no_change, change).label == "refutes"
    assert heuristic_nli(change, no_change).label == "refutes"


def test_an_outcome_the_other_text_names_anywhere_keeps_the_rules() -> None:
    """Any doubt leaves the rules as they were: the other text names this outcome too,
    outside its own finding."""
    assert not other_outcomes(
        "Peer tutoring made no difference to attendance.",
        "Peer tutoring lowered reading scores by 20%, though attendance was not measured.",
    )


def test_a_text_naming_no_outcome_keeps_the_rules() -> None:
    assert not other_outcomes(
        "Peer tutoring does not work.", "Peer tutoring lowered reading scores by 20%."
    )


# no change in an outcome, in words the change rules did not read before decision 0116,
# against a change in it: a contradiction, read both ways
NO_CHANGE_IN_OTHER_WORDS = [
    "Blood pressure was similar in both groups.",
    "Blood pressure was comparable between the two groups.",
    "Blood pressure was the same in patients given the drug as in the controls.",
    "The drug did nothing for blood pressure.",
    "The drug is ineffective for blood pressure.",
    "The blood pressure of patients given the drug was no different, statistically, from "
    "that of the comparison group.",
]


@pytest.mark.parametrize("no_change", NO_CHANGE_IN_OTHER_WORDS)
def test_no_change_in_other_words_contradicts_a_change(no_change: str) -> None:
    change = "The drug lowered blood pressure by 12 points."
    assert heuristic_nli(no_change, change).label == "refutes"
    assert heuristic_nli(change, no_change).label == "refutes"


def test_alike_things_are_no_finding_of_no_change() -> None:
    """ "The same dose", "the same level of protection as": a noun after "the same" is
    what is alike, not a finding that something stayed the same."""
    change = "The drug lowered blood pressure by 12 points."
    for alike in (
        "The dose is the same as in adults.",
        "The drug gives the same level of protection as the older pill.",
        "The fall in blood pressure was similar in size to that of the older pill.",
    ):
        assert heuristic_nli(alike, change).label != "refutes"


def test_a_size_given_past_by_far_from_its_verb() -> None:
    """Round five's peer tutoring corpus (written blind): a pooled effect size stands
    eight words past "improved", and "no different, statistically, from" names what did
    not differ before it."""
    change = (
        "Across these studies, tutees improved on standardised reading comprehension measures "
        "by a pooled effect size of g = 0.31 (95% CI 0.22 to 0.40) compared with pupils who "
        "received usual classroom teaching."
    )
    null = (
        "After a full school year, the tutored pupils' reading scores were no different, "
        "statistically, from those of pupils in the 31 schools that carried on as normal."
    )
    assert heuristic_nli(null, change).label == "refutes"
    assert heuristic_nli(change, null).label == "refutes"


# Found on the keyed corpora after the first version of the rule (decision 0116): each
# pair contradicts, and each is read both ways.
KEYED_CONTRADICTIONS = [
    (  # what did not differ follows the groups: "between A and B on pain"
        "But when you look at what it actually measured on the main outcome, at twelve "
        "weeks, it found no significant difference between naltrexone and the dummy pill on "
        "pain.",
        "At week 12, mean daily pain fell by 1.9 points with naltrexone and by 1.1 points "
        "with placebo, a between-group difference of 0.8 points (95% CI 0.3 to 1.3; p=0.002).",
    ),
    (  # one comparison of women and men, its outcome in two words
        "It noted that in the LOFIB trial the proportion of people who responded to treatment "
        "was similar in women and men, although the number of men was small.",
        "If you dig into the supplementary tables, women in LOFIB were roughly twice as likely "
        "as men to reach a 30 per cent reduction in pain.",
    ),
    (  # "the benefit seen in studies" names no outcome; trials are no outcome
        "Trials that showed a benefit mostly used 10 billion CFU or more per day.",
        "Dose: A daily dose of 5 billion CFU is enough to get the benefit seen in studies.",
    ),
]


@pytest.mark.parametrize(("first", "second"), KEYED_CONTRADICTIONS)
def test_contradictions_the_outcome_rule_must_keep(first: str, second: str) -> None:
    assert not other_outcomes(first, second)
    assert heuristic_nli(first, second).label == "refutes"
    assert heuristic_nli(second, first).label == "refutes"


def test_a_different_outcome_between_arms_is_no_contradiction() -> None:
    """The keyed body cameras corpus: arrests that did not differ between the arms never
    refuted officers being assaulted less often (it had, by the shared "officers")."""
    claim = (
        "In one of the most rigorous studies ever run in Kestria, officers wearing "
        "ClearWitness cameras in the Harrowgate trial were assaulted 48% less often than "
        "colleagues without them."
    )
    premise = (
        "Despite concerns that cameras would make officers more risk-averse, arrest rates did "
        "not differ meaningfully between the two arms of the trial."
    )
    assert outcome_words(claim) == {"assault"}
    assert other_outcomes(premise, claim) is True
    assert heuristic_nli(premise, claim).label != "refutes"
