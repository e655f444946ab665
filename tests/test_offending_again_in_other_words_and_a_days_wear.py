"""Offending again in a witness's words; a sore that mended, a baby that screamed, sugar
for sucrose, a gel plaster for a hydrocolloid one and grass for herbage; the arm left
uncovered, given sterile water, left as it was or open to the air, or still marked by
hand; "couldn't tell which was which"; most of us; every single one of us; half a
teaching set; in a right state or in pieces as upset and anxious; a couple of drops; a
day's wear; so many things of a joined length (decision 0148), each with its control.

The sentences are written for these tests, in the shapes rounds ninety-five to
ninety-eight were read in, on other topics."""

from __future__ import annotations

import re

from lyra.pipelines.evidence.claims import MIN_INFORMATIVENESS, informativeness
from lyra.pipelines.evidence.harm_reports import PLAIN_GROUP, TWO_GROUPS_ALIKE
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_enough import EACH, OFTEN, VOLUME, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import ALL_BUT_A_FEW, FEW_KNOWN, MOST_KNOWN, Share
from lyra.pipelines.evidence.nli_tokens import token_key, tokenize


def _matched(pattern: re.Pattern[str], text: str) -> str:
    found = pattern.search(text)
    assert found is not None
    return found.group(0)


def _amounts(text: str) -> dict[str, float]:
    amounts = read_amounts(tokenize(text))
    assert amounts is not None
    return dict(amounts.by_dimension)


def _refutes_both_ways(first: str, second: str) -> None:
    assert heuristic_nli(first, second).label == "refutes"
    assert heuristic_nli(second, first).label == "refutes"


def _neutral_both_ways(first: str, second: str) -> None:
    assert heuristic_nli(first, second).label == "neutral"
    assert heuristic_nli(second, first).label == "neutral"


_REPORTING = (
    "At 12 months, proven reoffending was 22.0% among people reporting at the library hub "
    "and 29.5% in the office-reporting control arm (risk ratio 0.75, 95% CI 0.62 to 0.90)."
)


def test_back_in_trouble_with_the_police_is_reoffending() -> None:
    _refutes_both_ways(
        _REPORTING,
        "From our own records, the lads signing in at the library hub ended up back in "
        "trouble with the police just as often as the ones still reporting at the probation "
        "office.",
    )
    # control: trouble of the stomach is a harm, no reoffending
    _neutral_both_ways(
        _REPORTING,
        "From our own records, the lads signing in at the library hub had stomach trouble "
        "just as often as the ones still reporting at the probation office.",
    )


def test_mended_screamed_and_cried_sucrose_and_sugar_are_one_word_each() -> None:
    assert token_key("mended") == token_key("healed")
    assert token_key("screamed") == token_key("cried")
    assert token_key("sucrose") == token_key("sugar")
    # control: a scream is no heal, sugar no salt
    assert token_key("screamed") != token_key("healed")
    assert token_key("sugar") != token_key("salt")


_SUCROSE_TRIAL = (
    "Over the first minute after the heel prick, newborns given 1 mL of sucrose cried for a "
    "median of 30 seconds less than newborns given sterile water (95% CI -40 to -20)."
)


def test_sterile_water_is_a_control_arm_and_its_water_no_shared_word() -> None:
    _refutes_both_ways(
        _SUCROSE_TRIAL,
        "On our ward the babies who got the sugar solution screamed just as long as the ones "
        "we gave plain water from the same syringe.",
    )
    # control: the water both give names the arms; sugar alone is one word, and feeding
    # another outcome
    _neutral_both_ways(
        _SUCROSE_TRIAL,
        "On our ward the babies who got the sugar solution fed just as long as the ones we "
        "gave plain water from the same syringe.",
    )


def test_water_a_bath_was_of_is_still_shared() -> None:
    _refutes_both_ways(
        "At week 8, the mean reduction in EASI was 6.2 points greater in the oatmeal bath "
        "group than in the plain-water bath group (95% CI 3.0 to 9.4).",
        "Our girl had the oat baths every night for a month and her eczema was no better "
        "than when she'd just been having ordinary tap-water baths.",
    )


def test_the_uncovered_group_and_a_gel_plaster_for_a_hydrocolloid_one() -> None:
    _refutes_both_ways(
        "Median time to full healing was 6.1 days in the hydrocolloid group versus 8.0 days "
        "in the uncovered group (difference -1.9 days, 95% CI -2.8 to -1.0).",
        "Half our running club tried those gel plasters on their toes and their blisters "
        "mended no faster than the ones who just left them open to the air.",
    )
    # control: the everyday name meets only a likeness against a lead, not a negation
    _neutral_both_ways(
        "On day 2, mean pain while running was 1.8 on a 0-10 scale with hydrocolloid "
        "plasters and 3.1 with fabric plasters (mean difference -1.3, 95% CI -2.0 to -0.6).",
        "Ran marathons for twenty years without a gel plaster.",
    )


def test_fields_left_as_they_were_and_grass_for_herbage() -> None:
    assert _matched(
        PLAIN_GROUP, "we limed the two hill fields and left the low ones as they were"
    ) == ("left the low ones as they were")
    _refutes_both_ways(
        "Limed fields produced a mean of 1.1 t DM/ha more herbage per year than unlimed "
        "control fields (95% CI 0.5 to 1.7).",
        "We limed the two hill fields and left the low ones as they were, and by July you "
        "couldn't tell the two lots apart for grass.",
    )
    # control: grass is herbage only there, not against a comparison with another thing
    _neutral_both_ways(
        "Over two seasons, ground limestone produced 0.5 t DM/ha more herbage than calcified "
        "seaweed at the same rate (95% CI 0.1 to 0.9).",
        "Some say liming their fields has transformed them, others say the grass looks no "
        "different.",
    )


def test_left_open_to_the_sky_and_still_marking_by_hand_are_plain_groups() -> None:
    assert _matched(PLAIN_GROUP, "the ones i left open to the sky") == "left open to the sky"
    assert _matched(PLAIN_GROUP, "the classes where teachers were still marking every book") == (
        "where teachers were still"
    )
    _refutes_both_ways(
        "At 12 months, pupils in the whole-class feedback schools scored higher on the "
        "standardised reading assessment than pupils in control schools (effect size d = "
        "0.18, 95% CI 0.05 to 0.31).",
        "The kids getting whole-class feedback did no better in their reading than the "
        "classes where teachers were still marking every book by hand.",
    )
    # control: those where teachers were marking, with no "still", are no plain group
    assert PLAIN_GROUP.search("the classes where teachers were marking every book") is None
    assert PLAIN_GROUP.search("the ones i left in the shed") is None


def test_could_not_tell_which_was_which_sets_two_groups_alike() -> None:
    witness = (
        "I had a hive in one pepper greenhouse and nothing at all in the other, and you "
        "couldn't tell which was which from how many flowers had set."
    )
    assert _matched(TWO_GROUPS_ALIKE, witness) == "couldn't tell which was which"
    assert informativeness(witness) >= MIN_INFORMATIVENESS
    _refutes_both_ways(
        "Across the season, greenhouses with a bumblebee hive set 80.1% of pepper flowers "
        "compared with 61.2% in control greenhouses with no pollination aid (difference 18.9 "
        "percentage points, 95% CI 12.0 to 25.8).",
        witness,
    )
    # control: telling which hive is which is no likeness of the two
    assert TWO_GROUPS_ALIKE.search("I could tell which was the new hive") is None


def test_most_of_us_is_most_of_the_witness_group() -> None:
    witness = (
        "By the second week of the grip class, most of us in the Monday group had sore wrists."
    )
    assert read_changes(tokenize(witness)).share == MOST_KNOWN
    _refutes_both_ways(
        "Wrist soreness is rare with the GripRing: fewer than 1 in 40 owners (2.4%) reported "
        "it in our customer survey.",
        witness,
    )
    # control: what most of us loved is no share of a harm, nor what most of us will know
    assert read_share(tokenize("Most of us loved the grip class on Mondays.")) is None
    assert read_share(tokenize("He knows more about grip than most of us will ever know.")) is None
    assert read_share(tokenize("Once a week is plenty for most of us, nobody needs more.")) is None


def test_every_single_one_of_us_is_all_of_a_few() -> None:
    witness = (
        "Four of us at home used the GumGuard rinse for a fortnight and every single one of "
        "us ended up with brown staining on our teeth."
    )
    assert read_share(tokenize(witness)) == ALL_BUT_A_FEW
    _refutes_both_ways(
        "Noticeable staining of the teeth is uncommon with GumGuard, affecting fewer than 1 "
        "in 25 users over a two-week course.",
        witness,
    )
    # control: four of us alone is a few known, no more
    control = "Four of us in my house used the GumGuard rinse and ended up with brown staining."
    assert read_share(tokenize(control)) == FEW_KNOWN


def test_half_a_teaching_set_in_a_right_state_was_anxious() -> None:
    witness = "Half my Year 8 set were in a right state before every spelling quiz."
    changes = read_changes(tokenize(witness))
    assert changes.share == Share(50.0, 50.0)
    assert token_key("anxious") in changes.share_about
    _refutes_both_ways(
        "In our survey of 900 teachers, only 3% said any pupils became anxious or stressed "
        "about the weekly spelling quizzes.",
        witness,
    )
    # control: half a set of cards is no share of people
    assert read_share(tokenize("Half a set of spelling cards went missing.")) is None


def test_in_pieces_after_a_call_was_upset() -> None:
    _refutes_both_ways(
        "Fewer than 3 in 100 callers tell us a session left them more upset because it "
        "brought the case back to mind.",
        "Nearly everyone from our group who phoned was walked back through the evidence, and "
        "most of us were in pieces for days after every call.",
    )
    # control: everyone in good spirits names no upset
    _neutral_both_ways(
        "Fewer than 3 in 100 callers tell us a session left them more upset because it "
        "brought the case back to mind.",
        "Nearly everyone from our group who phoned was walked back through the evidence, and "
        "most of us were in good spirits for days after every call.",
    )


def test_a_couple_of_drops_is_a_volume() -> None:
    assert _amounts("A couple of drops on a dummy is plenty for a little one.") == {VOLUME: 0.1}
    _refutes_both_ways(
        "Give at least 2 mL of sucrose solution by mouth two minutes before each jab.",
        "A couple of drops on a dummy is plenty for a little one.",
    )
    # control: a few drops is no count
    assert read_amounts(tokenize("A few drops on a dummy is plenty for a little one.")) is None


def test_a_days_wear_is_each_things_time() -> None:
    assert _amounts("Honestly a single day's wear per plaster is plenty.") == {EACH: 1440.0}
    _refutes_both_ways(
        "Leave each gel plaster in place for at least 48 hours before changing it.",
        "Honestly a single day's wear per plaster is plenty.",
    )
    # control: a week's wear is well over two days
    _neutral_both_ways(
        "Leave each gel plaster in place for at least 48 hours before changing it.",
        "Honestly a week's wear per plaster is plenty.",
    )


def test_so_many_things_of_a_joined_length_are_each_times_minutes() -> None:
    floor = "Adults should do at least four 2-minute squeezes on at least three days a week."
    assert _amounts(floor)[EACH] == 8.0
    assert _amounts(floor)[OFTEN] == 3.0
    _refutes_both_ways(floor, "Honestly, one 2-minute squeeze a couple of times a week is plenty.")
    # control: so many a week are no one time's minutes
    assert _amounts("Adults should do at least four 2-minute squeezes a week.") == {EACH: 2.0}
    _neutral_both_ways(floor, "Honestly, four 2-minute squeezes three times a week is plenty.")


def test_what_they_said_they_felt_was_no_longer_done_keeps_its_share() -> None:
    rare = (
        "Feeling ignored is uncommon: in our survey of 2,000 pupils, just 3% said they felt "
        "their own homework was no longer being read."
    )
    assert read_changes(tokenize(rare)).share == Share(3.0, 3.0)
    _refutes_both_ways(
        rare,
        "Most of the kids in my daughter's Year 8 set think nobody actually reads their "
        "homework now, and she reckons it's about twenty out of thirty.",
    )
    # control: a negation far past the saying is no longer what they said
    far = (
        "Feeling ignored is uncommon: in our survey of 2,000 pupils, just 3% said they felt "
        "that over the whole of the last long term their homework was no longer being read."
    )
    assert read_changes(tokenize(far)).share is None


def test_back_in_trouble_alone_is_reoffending_and_the_normal_way_plain() -> None:
    _refutes_both_ways(
        "At 12 months, 17.0% of young people referred to a community panel had been "
        "reconvicted compared with 25.2% of those in the usual-processing control arm (risk "
        "ratio 0.67, 95% CI 0.52 to 0.86).",
        "The lads I coached who went through the panels were back in trouble just "
        "as often as the ones who went through the youth court the normal way.",
    )
    # control: a back in trouble is a harm of the body, no reoffending
    _neutral_both_ways(
        "At 12 months, 17.0% of young people referred to a community panel had been "
        "reconvicted compared with 25.2% of those in the usual-processing control arm (risk "
        "ratio 0.67, 95% CI 0.52 to 0.86).",
        "The lads I coached who went through the panels had a bad back just as "
        "often as the ones who went through the youth court the normal way.",
    )


def test_the_bare_floor_is_a_control_arm() -> None:
    _refutes_both_ways(
        "Over the winter, the incidence of lameness was 18.2 cases per 100 ewe-months in the "
        "straw-bedded pens compared with 29.6 in the bare slatted pens (rate ratio 0.61, 95% "
        "CI 0.45 to 0.83).",
        "We bedded one side of the shed, and the ewes on the straw went lame just as often "
        "as the ones still lying on plain slats.",
    )
    # control: the bare soil a thing was sown in names no arm
    _neutral_both_ways(
        "Over the winter, seedlings sown in the bare soil of the beds grew 3.1 cm more than "
        "last year's (95% CI 1.2 to 5.0).",
        "We bedded one side of the shed, and the ewes on the straw went lame just as often "
        "as the ones still lying on plain slats.",
    )


def test_marks_that_came_out_the_same_are_no_other_outcome() -> None:
    assert _matched(TWO_GROUPS_ALIKE, "and honestly the marks came out the same, give or take") == (
        "came out the same"
    )
    _refutes_both_ways(
        "At the end of the trial, reading accuracy on the mock paper was higher in the pen "
        "group than in the unaided control group (standardised mean difference 0.41, 95% CI "
        "0.18 to 0.64).",
        "We compared our pen kids with the ones who just read the paper on their own, and "
        "honestly the marks came out the same, give or take.",
    )
    # control: coming out at the same time is no likeness of results
    assert TWO_GROUPS_ALIKE.search("the two reports came out in the same week") is None
