"""Round twenty-seven's readings (issue 12, decision 0132).

Round twenty-seven, written blind after round twenty-six's rules
(tests/corpora/nasal_strips, barn_owl_boxes, parent_advocates, forest_school), read
30 / 32 facts and 10 / 24 readings at first sight. What the rules missed there and in
earlier rounds and read now, with controls: "half the owl boxes" as a share of a group,
not "half the dose"; so many of one thing on so many of another called enough; occasions
of a kind joined by hyphens ("face-to-face meetings"); the low end of a range something
should fall within, in the text's own units, against fewer of those units called
enough; tenderness as soreness; a share of the meetings the writer has sat in, or of
the trees the writer grows, as the writer's count; how long the speaker has done the
work as a frame of what they say.
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import MIN_INFORMATIVENESS, informativeness
from lyra.pipelines.evidence.nli_enough import TIMES, UNITS, Amounts, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import Share
from lyra.pipelines.evidence.nli_spelling import fold
from lyra.pipelines.evidence.nli_tokens import tokenize

_HALF_THE_BOXES = (
    "To be honest starlings or squirrels end up nesting in about half the bat boxes round "
    "here within a couple of years."
)
_BOXES_RARELY_TAKEN = (
    "Fewer than 4 in every 100 Roostwell boxes are taken over by starlings, tits or grey "
    "squirrels, thanks to the narrow slot entrance."
)
_HALF_THE_DOSE = (
    "To be honest half the dose worked for the starlings round here within a couple of years."
)
_BOX_PER_40_HECTARES = (
    "Landowners should put up at least one bat box for every 40 hectares of woodland, each "
    "mounted 4 to 6 metres above the ground."
)
_THREE_ON_500 = "Three boxes on five hundred hectares is plenty, you don't need one in every copse."
_THREE_FOR_SIX_WEEKS = "Three sessions for six weeks is plenty for most people."
_TEN_MEETINGS = (
    "Services should offer each family no fewer than 15 hours of support, spread across at "
    "least ten face-to-face meetings, before the first review."
)
_TWO_MEETINGS_PLENTY = (
    "For most families, two meetings before the review and one quick phone call afterwards "
    "is plenty."
)
_RANGE_OF_UNITS = (
    "For a first offence of speeding on an empty road, the starting point should be 25 "
    "day-units, within a range of 15 to 40 units."
)
_FIVE_UNITS_PLENTY = "For a first speeding offence on an empty road, four or five units is plenty."
_TENDERNESS_RARE = (
    "In our own wear-testing with 300 adults, fewer than 3 in every 100 noticed any redness "
    "or tenderness when peeling the plaster away."
)
_RED_SORE_SKIN = (
    "Going by the replies on the forum, roughly one in three of us ended up with red, sore "
    "skin where the plaster had been."
)


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (_HALF_THE_BOXES, _BOXES_RARELY_TAKEN),
        (_BOXES_RARELY_TAKEN, _HALF_THE_BOXES),
        (_BOX_PER_40_HECTARES, _THREE_ON_500),
        (_THREE_ON_500, _BOX_PER_40_HECTARES),
        (_TEN_MEETINGS, _TWO_MEETINGS_PLENTY),
        (_TWO_MEETINGS_PLENTY, _TEN_MEETINGS),
        (_RANGE_OF_UNITS, _FIVE_UNITS_PLENTY),
        (_FIVE_UNITS_PLENTY, _RANGE_OF_UNITS),
        (_TENDERNESS_RARE, _RED_SORE_SKIN),
        (_RED_SORE_SKIN, _TENDERNESS_RARE),
    ],
)
def test_round_twenty_seven_contradictions_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        # half of an amount is no share of a group
        (_HALF_THE_DOSE, _BOXES_RARELY_TAKEN),
        # a range with no unit of its own named again is no floor in units
        (
            "For a first speeding offence, the fine should be set within a range of 15 to 40.",
            _FIVE_UNITS_PLENTY,
        ),
    ],
)
def test_round_twenty_seven_controls_stay_neutral(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "neutral"


def test_half_the_group_is_a_share_and_half_an_amount_is_not() -> None:
    assert read_share(tokenize(_HALF_THE_BOXES)) == Share(50.0, 50.0)
    assert read_share(tokenize("About half the mums in my group gave up.")) == Share(50.0, 50.0)
    assert read_share(tokenize(_HALF_THE_DOSE)) is None
    assert read_share(tokenize("Half the time nobody answers the phone.")) is None
    assert read_share(tokenize("It costs half the price of the branded one.")) is None
    # a setting, not a finding (decision 0132, after the full run)
    setting = "In a school where almost half the pupils get free meals, staff see a change."
    assert read_share(tokenize(setting)) is None


def test_ratios_joined_occasions_and_units_called_enough() -> None:
    # so many to an area, per square metre of it (decision 0134)
    assert read_amounts(tokenize(_THREE_ON_500)) == Amounts(
        False, (("box per square metre", 3 / 5e6),)
    )
    # "for six weeks" is how long, not six of something per week
    assert read_amounts(tokenize(_THREE_FOR_SIX_WEEKS)) == Amounts(
        False, (("days in all", 42.0), (TIMES, 3.0))
    )
    assert read_amounts(tokenize(_TEN_MEETINGS)) == Amounts(
        True, (("minutes each", 900.0), (TIMES, 10.0))
    )
    assert read_amounts(tokenize(_RANGE_OF_UNITS)) == Amounts(True, ((UNITS + "unit", 15.0),))
    assert read_amounts(tokenize(_FIVE_UNITS_PLENTY)) == Amounts(False, ((UNITS + "unit", 5.0),))
    # a count further back than the unit right before the word of enough
    far_back = "From what I've seen in forty schools now, what they do is plenty."
    assert read_amounts(tokenize(far_back)) is None
    # a range that is measured, not advised
    assert read_amounts(tokenize("Fines fell within a range of 15 to 40 units.")) is None


def test_tenderness_is_soreness() -> None:
    assert fold("tender") == fold("sor") == "sor"


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        (
            "But honestly about a third of the case meetings I've sat in with a mentor "
            "present turned into a shouting match between the mentor and the social worker.",
            0.2,
        ),
        (
            "Honestly about one in four of my saplings were too weak to stand up once the "
            "guards came off, and a few had gone brown on the south side.",
            0.35,
        ),
        (
            "But I've done this job a long time and I'd say - for most families, two "
            "meetings before the review and one quick phone call afterwards is plenty.",
            0.6,
        ),
    ],
)
def test_the_writers_own_counts_and_standing_frame_claims(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)
    assert score > MIN_INFORMATIVENESS


def test_a_story_of_a_meeting_without_a_share_stays_out() -> None:
    assert informativeness("I've sat in on a few of those meetings with my sister.") == 0.0


def test_no_more_likely_than_those_who_used_nothing_is_no_change() -> None:
    used_nothing = (
        "People who had the injections were no more likely to end up back in surgery than "
        "those who had used nothing at all."
    )
    assert no_change(tokenize(used_nothing)) == {"end", "back", "surgeri", "likeli"}
    # nothing to lose is no group that had none of it
    assert (
        no_change(tokenize("They were no more likely to agree than those who had nothing."))
        == set()
    )


def test_half_the_group_after_the_full_run() -> None:
    # a condition, not a finding
    assert read_share(tokenize("If only half the forms come back, costs double.")) is None
    # what half the trees are is no outcome a rare harm of trees names
    still_going = "You are looking at a bit over half the trees still going, he said."
    scorch_rare = "Heat scorch is rare, affecting fewer than 1 in 200 trees in our trials."
    assert heuristic_nli(scorch_rare, still_going).label == "neutral"
    # a length before the sitting is read as its length, not as a kind of sitting; and
    # the one sitting as one time (decision 0142)
    two_hours = "Honestly one two-hour session online was plenty."
    assert read_amounts(tokenize(two_hours)) == Amounts(
        False, (("minutes each", 120.0), ("times in all", 1.0))
    )
