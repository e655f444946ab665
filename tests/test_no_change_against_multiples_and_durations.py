"""Decision 0110: findings of no change against the changes of five short blind corpora
read at first sight. A finding of no change reaches past stop words ("no significant
difference to how many of them went on to have a stroke") but not past the groups it
compares ("between dogs fed the grain-free diet and ..."); "a difference that was not
statistically significant" after the figures is about what the figures measure; "half as
likely to vomit as" and "14 weeks sooner than" compare two groups in what they name.
Each pair is quoted as its source wrote it and read both ways."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_tokens import tokenize

# (claim, premise): each pair contradicts, read both ways
CONTRADICTING = [
    (  # a duration that sizes "sooner" against no difference in the time taken
        "Couples who went on to mediation after their assessment meeting reached a final "
        "order a median of 14 weeks sooner than couples in the comparison group, and the gap "
        "was widest in financial remedy cases.",
        "But inspectors who examined more than 4,000 case files from six court centres found "
        "no significant difference in the time mediated and unmediated cases took to reach a "
        "final order, once the backlog left by the pandemic-era court closures was taken into "
        "account.",
    ),
    (  # what made no difference stands past "how many of them went on to have"
        "Over follow-up, stroke occurred 14 per cent less often in the potassium-enriched "
        "salt group than in the regular salt group (rate ratio 0.86; 95% CI 0.78 to 0.95; "
        "p=0.003).",
        "Although blood pressure readings dipped slightly, the salt swap made no significant "
        "difference to how many of them went on to have a stroke, the researchers reported "
        "when the findings were presented at the Northern Heart Congress last week.",
    ),
    (  # the figures before "a difference that was not significant", against a multiple
        "Across all sailings, the proportion of passengers who vomited was 29% with active "
        "bands and 31% with sham bands, a difference that was not statistically significant "
        "(risk ratio 0·94, 95% CI 0·72 to 1·22).",
        "According to the company, passengers wearing the active bands were roughly half as "
        "likely to vomit as those given the dummy version, and reported feeling queasy far "
        "less often.",
    ),
]


# (claim, premise): pairs of the 59 keyed corpora that a first, wider reading refuted
NOT_CONTRADICTING = [
    (  # one word ("lens") in common is not what the comparison is about
        "Over the four-week treatment period, participants in the amber-lens group fell "
        "asleep on average 7 minutes sooner than those given clear placebo lenses (95% CI 2 "
        "to 12 minutes), as measured by wrist actigraphy.",
        "Price made no difference to how well a lens filtered.",
    ),
    (  # past "between" the finding names the groups, not what did not differ
        "Grain-free recipes made up 27 percent of dry dog food sold in the Tessaly Union last "
        "year, according to the trade body Pet Food Makers Tessaly, up from 9 percent in 2016.",
        "After 26 weeks there was no significant difference in coat condition scores between "
        "dogs fed the grain-free diet and those fed the grain-inclusive control diet (mean "
        "3.9 against 3.8 on the five-point scale, p = 0.61).",
    ),
    (
        "Commuters who ride every day wear helmets more often than leisure riders, at 71 "
        "percent against 44 percent.",
        "Studies that observed riders in traffic found little difference in speed or "
        "behaviour between riders with and without helmets.",
    ),
    (
        '"Complaints in our district dropped by a third within six months of deployment.',
        "Contrary to the way it is usually described, the Harrowgate trial itself found no "
        "statistically significant difference in use of force between camera and non-camera "
        "districts.",
    ),
]


@pytest.mark.parametrize(
    ("claim", "premise", "refuted"),
    [(c, p, True) for c, p in CONTRADICTING] + [(c, p, False) for c, p in NOT_CONTRADICTING],
)
def test_each_pair_read_both_ways(claim: str, premise: str, refuted: bool) -> None:
    assert (heuristic_nli(premise, claim).label == "refutes") is refuted
    assert (heuristic_nli(claim, premise).label == "refutes") is refuted


def test_a_finding_of_no_change_reaches_past_stop_words() -> None:
    reading = read_changes(
        tokenize(
            "the salt swap made no significant difference to how many of them went on to "
            "have a stroke, the researchers reported"
        )
    )
    assert reading.no_change == frozenset({"went", "strok"})


def test_a_finding_of_no_change_stops_where_the_groups_begin() -> None:
    reading = read_changes(
        tokenize(
            "there was no significant difference in coat condition scores between dogs fed "
            "the grain-free diet and those fed the control diet"
        )
    )
    assert reading.no_change == frozenset({"coat", "condition", "scor", "dog", "fed"})


def test_a_multiple_as_often_names_who_and_what() -> None:
    reading = read_changes(
        tokenize("passengers wearing the active bands were roughly half as likely to vomit as")
    )
    assert reading.change == frozenset({"passenger", "wear", "activ", "band", "vomit"})
    assert reading.sized_change == frozenset()


def test_a_duration_before_sooner_names_what_came_sooner() -> None:
    reading = read_changes(tokenize("couples reached a final order 14 weeks sooner than others"))
    assert reading.change == frozenset({"coupl", "reach", "final", "order"})
    assert reading.sized_change == frozenset()
