"""Round nineteen's readings (issue 12, decision 0128).

Round nineteen, written blind after rounds seventeen and eighteen's rules had landed
(tests/corpora/eye_drops_dry_eye, maths_apps, loft_insulation, unpaid_work_orders), read
29 / 32 facts and 7 / 24 readings at first sight. Read now, with controls: "just as much
X as" a group still on the waiting list (no change); a waiting list as the group that had
none; a writer's count of "the lads on my work group" and of "the lofts I've been up
into" as claims.
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_tokens import tokenize

_LESS_GAS = (
    "Over the two heating seasons after installation, homes whose lofts were topped up to at "
    "least 270 mm used a median of 11.3% less gas for space heating than matched control homes "
    "(95% CI 7.9% to 14.6%)."
)
_JUST_AS_MUCH = (
    "The council's own follow-up found that families who received the free top-up were paying "
    "just as much to heat their homes a year later as neighbours still on the waiting list."
)
_JUST_AS_MUCH_CAVITY = (
    "The council's own follow-up found that families who received the free top-up were paying "
    "just as much to heat their homes a year later as neighbours who had cavity walls filled."
)


def test_just_as_much_as_the_waiting_list_is_no_change() -> None:
    assert no_change(tokenize(_JUST_AS_MUCH)) == {"pay", "heat", "hom", "year", "later"}
    # another treated group: no finding of no effect
    assert no_change(tokenize(_JUST_AS_MUCH_CAVITY)) == set()


@pytest.mark.parametrize(
    ("premise", "claim", "label"),
    [
        (_JUST_AS_MUCH, _LESS_GAS, "refutes"),
        (_LESS_GAS, _JUST_AS_MUCH, "refutes"),
        (_JUST_AS_MUCH_CAVITY, _LESS_GAS, "neutral"),
    ],
)
def test_round_nineteen_readings(premise: str, claim: str, label: str) -> None:
    assert heuristic_nli(premise, claim).label == label


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        ("Honestly about one in three of the topped-up lofts I've been up into this winter had "
         "black mould on the underside of the roof felt or the boards.", 0.35),
        # a share in words of the witness's group is also how often they saw it (0135)
        ("Honestly, about a third of the lads on my work group got hurt at some point while I "
         "was there.", 0.6),
        # control: people the writer met are no group of theirs
        ("Roughly one in four of the people I met on holiday had a cold.", 0.0),
    ],
)  # fmt: skip
def test_round_nineteen_claims(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)
