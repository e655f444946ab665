"""An arm of the body as an outcome two groups alike share; all of a few of the
witness's own; an occasion two occasion words name; half a teaspoon; an age as no rate;
frames of candour; a few in every one; so many every hour; about as many days; what befell
the witness nearly every other night (decision 0146), each with its control."""

from __future__ import annotations

from lyra.pipelines.evidence.claim_signals import PLAIN_ANSWER_FRAME
from lyra.pipelines.evidence.claims import MIN_INFORMATIVENESS, informativeness
from lyra.pipelines.evidence.harm_reports import (
    PLAIN_GROUP,
    TWO_GROUPS_ALIKE,
    WITNESS_FREQUENCY,
    alike_with_a_plain_group,
)
from lyra.pipelines.evidence.nli_enough import read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_shares_said import (
    ALL_BUT_A_FEW,
    FEW_KNOWN,
    NOT_RARE,
    all_but_every,
    few_known,
)
from lyra.pipelines.evidence.nli_tokens import tokenize

_SLING_LEAD = (
    "At 6 weeks, pain on a 0-10 scale was 1.4 points lower in the sling group than in the "
    "no-sling group (95% CI 0.7 to 2.1), and sling wearers regained full overhead arm use a "
    "median of 9 days sooner (95% CI 4 to 14 days)."
)
_SLING_ALIKE = (
    "To be honest, the players I've looked after who never bothered with a sling, just "
    "painkillers and common sense, got their arm back to normal every bit as quickly as the "
    "ones who wore one."
)
_STIFF_RARE = (
    "Shoulder stiffness lasting more than three months after sling treatment is uncommon, "
    "affecting only about 4 in 100 adults with a mid-shaft collarbone fracture."
)
_STIFF_ALL = (
    "All eight of us in the Thursday physio class still had stiff, sore shoulders four "
    "months after our slings came off, and I couldn't reach the top shelf until Christmas."
)
_BUS_FLOOR = (
    "Older people should be encouraged to use the pass for at least four return bus trips a "
    "week, kept up for a minimum of six months, before any benefit to health and social "
    "contact can be expected."
)
_BUS_ENOUGH = (
    "Once a week into town for the market on my bus pass is plenty, you don't need to be on "
    "the buses every other day to feel the benefit."
)


def test_an_arm_of_the_body_is_the_outcome_two_groups_alike_share() -> None:
    assert heuristic_nli(_SLING_ALIKE, _SLING_LEAD).label == "refutes"
    assert heuristic_nli(_SLING_LEAD, _SLING_ALIKE).label == "refutes"


def test_an_arm_of_a_trial_is_no_outcome() -> None:
    # control: "the sling arm" names a group; the two share the sling and nothing else
    alike = (
        "The players who never bothered with a sling were every bit as likely to finish the "
        "season as the ones in the sling arm."
    )
    assert heuristic_nli(alike, _SLING_LEAD).label == "neutral"


def test_all_of_a_few_of_the_witness_own_is_all_but_a_few() -> None:
    assert few_known(tokenize(_STIFF_ALL)) == ALL_BUT_A_FEW
    assert few_known(tokenize("Every one of us on the course had stiff shoulders.")) == (
        ALL_BUT_A_FEW
    )
    assert heuristic_nli(_STIFF_ALL, _STIFF_RARE).label == "refutes"
    assert heuristic_nli(_STIFF_RARE, _STIFF_ALL).label == "refutes"


def test_all_of_a_thing_is_no_share_of_the_witness_own() -> None:
    # control: "all eight" bolts, not "of us"; and a few of us is still a few
    assert few_known(tokenize("We fitted all eight bolts and we had stiff shoulders.")) is None
    assert few_known(tokenize("Three of us in my class had stiff shoulders.")) == FEW_KNOWN


def test_an_occasion_two_occasion_words_name_is_counted_a_week() -> None:
    amounts = read_amounts(tokenize(_BUS_FLOOR))
    assert amounts.floor
    assert dict(amounts.by_dimension) == {"days in all": 180.0, "times a week": 4.0}
    assert heuristic_nli(_BUS_FLOOR, _BUS_ENOUGH).label == "refutes"
    assert heuristic_nli(_BUS_ENOUGH, _BUS_FLOOR).label == "refutes"


def test_two_occasion_words_the_first_plural_are_two_things() -> None:
    # control: "sessions" does not name the kind of the runs that follow
    amounts = read_amounts(tokenize("Book at least three sessions runs a week."))
    assert dict(amounts.by_dimension) == {"times in all": 3.0}


def test_half_a_teaspoon_is_half_and_an_eight_year_old_no_rate() -> None:
    amounts = read_amounts(
        tokenize(
            "Half a teaspoon of the cough syrup at bedtime is plenty for my eight-year-old, "
            "I've never needed to give anywhere near the full measure on the bottle."
        )
    )
    assert amounts is not None
    assert not amounts.floor
    assert dict(amounts.by_dimension) == {"millilitres": 2.5, "milligrams": 3750.0}


def test_a_teaspoon_is_whole_and_so_many_children_a_rate() -> None:
    # control: no "half" before it; "for a 300-space car park" is still so many of a thing
    amounts = read_amounts(tokenize("A teaspoon of honey at bedtime is plenty for my child."))
    assert amounts is not None
    assert dict(amounts.by_dimension) == {"millilitres": 5.0, "milligrams": 7500.0}
    cameras = read_amounts(
        tokenize("Two cameras on the barriers is plenty for a 300-space car park.")
    )
    assert cameras is not None
    assert dict(cameras.by_dimension) == {"per spac": 2 / 300, "units of camera": 2.0}


_FLEECE_ALIKE = (
    "Honestly, my fleeced rows of Arran Pilot came up no sooner and no heavier than the rows "
    "I'd just left open to the sky, so I've not bothered with it since."
)
_LLAMA_ALIKE = (
    "I'll be straight with you, the springs we had the llama out we lost just as many lambs "
    "to the foxes as the springs before we ever had him, so I can't say he made a ha'porth "
    "of difference."
)
_DESKS_ALIKE = (
    "We ran the staff survey after a year of everyone grabbing whatever desk was free, and "
    "the teamwork scores came out dead level with the floor that kept its own named desks."
)


def test_groups_the_witness_left_alone_kept_as_they_were_or_had_before() -> None:
    for text in (_FLEECE_ALIKE, _LLAMA_ALIKE, _DESKS_ALIKE):
        assert alike_with_a_plain_group(text.lower())
        assert informativeness(text) >= MIN_INFORMATIVENESS


def test_a_level_and_a_before_that_name_no_plain_group() -> None:
    # control: "level with the road" and "before we ever had lunch" compare no groups
    assert not alike_with_a_plain_group("the water came up level with the road again.")
    assert not alike_with_a_plain_group(
        "we lost just as many lambs to the foxes as the neighbours before we ever had lunch."
    )
    # a method with no likeness after it still tells no finding
    assert informativeness("We ran the staff survey after a year of hot desking.") == 0.0


def test_frames_of_candour_are_cut_and_witnesses_of_those_in_their_care_counted() -> None:
    sat_with = (
        "Truth is, at least half the old dears I sat with on the ward last winter kicked off "
        "the second a stranger like me pulled up a chair, shouting at me to clear off."
    )
    assert PLAIN_ANSWER_FRAME.sub("", sat_with, count=1).startswith("at least half")
    assert WITNESS_FREQUENCY.search(sat_with)
    assert informativeness(sat_with) >= MIN_INFORMATIVENESS
    handover = (
        "I was in for eleven days after my hip operation and heard the full details about the "
        "man in the next bed, his diagnosis, his tablets, his waterworks, at pretty much every "
        "handover."
    )
    assert informativeness(handover) >= MIN_INFORMATIVENESS
    facilitated = (
        "I co-facilitated eight of the StandUp sessions at my uni last spring and in every "
        "single one at least two or three people had to leave the room in tears."
    )
    assert informativeness(facilitated) >= MIN_INFORMATIVENESS
    llamas = (
        "\"Three of the four llamas we've had turned on the lambs sooner or later, and one "
        'stamped a newborn twin to death," said Gwen Hartley, who runs 420 ewes.'
    )
    assert informativeness(llamas) >= MIN_INFORMATIVENESS


def test_half_of_what_the_witness_filled_in_is_no_witness() -> None:
    # control: what the witness filled in names no one in their care
    assert not WITNESS_FREQUENCY.search("About half the forms I filled in are online.")


_DISTRESS_RARE = (
    "Significant distress during a StandUp Campus session is rare: fewer than 1 in 200 "
    "participants (0.5%) leave a session early or ask for support afterwards."
)
_EVERY_ONE = (
    "I co-facilitated eight of the StandUp sessions at my uni last spring and in every single "
    "one at least two or three people had to leave the room in tears during the role-plays."
)
_ACHES_RARE = (
    "Wrist or shoulder aches are uncommon: fewer than 2 in every 100 children in our 2023 "
    "customer survey reported any discomfort from using the TiltWrite board."
)
_A_DOZEN_OF_THEM = (
    "I had the slanted boards out for my Year 3 lot and at least a dozen of them were "
    "complaining about achy wrists and shoulders every single day of the first few weeks."
)
_AGGRESSION_RARE = (
    "Aggression towards lambs is rare, with fewer than 2 in every 100 of the geldings we have "
    "placed since 2014 reported for it."
)
_LLAMAS_WE_HAD = (
    "\"Three of the four llamas we've had turned on the lambs sooner or later, and one stamped "
    'a newborn twin to death," said Gwen Hartley, who runs 420 ewes at Crossgill Head.'
)
_MASK_RARE = (
    "Mask refusal is uncommon: in our 2023 customer survey, just 4% of parents said their "
    "child was still refusing the mask after the first two weeks."
)
_EVERY_TODDLER = (
    "Pretty much every toddler in our asthma group has fought the spacer mask, and my daughter "
    "screamed and shoved it off at nearly every dose for about four months."
)
_OVERHEARD_RARE = (
    "Overheard handovers are rare: in audits across our customer wards, fewer than 2 in 100 "
    "patients reported hearing private details about another patient during bedside handover."
)
_EVERY_HANDOVER = (
    "I was in for eleven days after my hip operation and heard the full details about the man "
    "in the next bed, his diagnosis, his tablets, his waterworks, at pretty much every handover."
)


def test_witnesses_of_a_few_each_time_of_their_own_and_of_every_handover() -> None:
    assert few_known(tokenize(_EVERY_ONE)) == NOT_RARE
    assert few_known(tokenize(_A_DOZEN_OF_THEM)) == NOT_RARE
    for rare, witness in (
        (_DISTRESS_RARE, _EVERY_ONE),
        (_ACHES_RARE, _A_DOZEN_OF_THEM),
        (_AGGRESSION_RARE, _LLAMAS_WE_HAD),
        (_MASK_RARE, _EVERY_TODDLER),
        (_OVERHEARD_RARE, _EVERY_HANDOVER),
    ):
        assert heuristic_nli(witness, rare).label == "refutes", witness
        assert heuristic_nli(rare, witness).label == "refutes", witness


def test_a_few_of_them_with_no_one_of_the_witness_own_is_no_share() -> None:
    # control: "them" names no group of the witness's; "in every single one" no few after
    assert few_known(tokenize("At least a dozen of them were complaining about their wrists.")) is (
        None
    )
    assert few_known(
        tokenize("I checked the boards and in every single one the hinge was stiff.")
    ) is (None)


def test_floors_of_so_many_every_hour_of_a_week_s_hours_and_of_a_thing_s_weight() -> None:
    lolly = read_amounts(
        tokenize(
            "Give at least one 60 ml ORS ice lolly every hour, plus one extra lolly after each "
            "bout of diarrhoea or vomiting, for at least the first 4 hours of rehydration at home."
        )
    )
    assert lolly is not None
    assert dict(lolly.by_dimension)["times a week"] == 168.0
    work = read_amounts(
        tokenize(
            "Establishments should offer each participant at least 12 hours of supervised "
            "horticultural work a week, sustained for a minimum of six months before release."
        )
    )
    assert work is not None
    assert dict(work.by_dimension) == {"days in all": 180.0, "minutes a week": 720.0}
    fleece = read_amounts(
        tokenize(
            "Use fleece of at least 30 g/m², doubled to two layers on frost-prone sites, and keep "
            "it over the rows for at least four weeks after the first shoots appear."
        )
    )
    assert fleece is not None
    assert dict(fleece.by_dimension)["days in all"] == 28.0
    breath = read_amounts(tokenize("One good deep breath per puff is plenty for my lad."))
    assert breath is not None
    assert dict(breath.by_dimension) == {"units of breath": 1.0}


def test_every_ten_to_fourteen_days_is_how_far_apart_and_use_of_no_order() -> None:
    # controls: a counted gap is no frequency of the floor's count; "Use of" orders nothing
    apart = read_amounts(tokenize("Apply at least one dose every 10 to 14 days."))
    assert apart is not None
    # once every fourteen days, the wider gap, from the occasion's own reading
    assert dict(apart.by_dimension) == {"times a week": 0.5}
    assert read_amounts(tokenize("Use of at least two sessions was common.")) is None


_TAG_LEAD = (
    "Wearers of the sobriety tag were alcohol-free on 92.4% of monitored days compared with "
    "70.1% of days in the control arm receiving standard probation supervision (difference "
    "22.3 percentage points, 95% CI 16.8 to 27.8)."
)
_TAG_ALIKE = (
    "Honestly, from what I saw on my caseload, the lads wearing the ankle tag were having a "
    "drink on about as many days as the ones on plain old probation without one, so I'd say "
    "it made no real difference."
)
_NAPPY_LEAD = (
    "At 16 weeks, infants in the reusable cloth nappy group had 0.9 episodes of nappy rash per "
    "baby-month compared with 1.5 in the control group (rate ratio 0.62, 95% CI 0.49 to 0.79)."
)
_NAPPY_ALIKE = (
    "From what I see in clinic, babies who go over to washable nappies get sore, red bottoms "
    "just about as often as the ones who stay in the nappies their parents were already using, "
    "so on its own the switch makes no real difference."
)
_LEAKS_RARE = (
    "Leaks are uncommon with the Night Owl: in our 2024 customer survey, only 4% of overnight "
    "changes involved a leak onto clothes or bedding."
)
_LEAKED_ON_US = (
    "The Night Owl leaked on us pretty much every other night for the first six weeks, soaked "
    "sleepsuit, soaked cot sheet, the works."
)


def test_about_as_many_days_and_what_they_were_already_using() -> None:
    assert TWO_GROUPS_ALIKE.search(_TAG_ALIKE.lower())
    assert PLAIN_GROUP.search(_NAPPY_ALIKE.lower())
    for lead, alike in ((_TAG_LEAD, _TAG_ALIKE), (_NAPPY_LEAD, _NAPPY_ALIKE)):
        assert heuristic_nli(alike, lead).label == "refutes"
        assert heuristic_nli(lead, alike).label == "refutes"


def test_about_as_many_as_we_could_and_already_there_compare_no_groups() -> None:
    # controls: a likeness with the writer's own capacity; a place, not a practice
    assert TWO_GROUPS_ALIKE.search("having a drink on about as many days as we could") is None
    assert PLAIN_GROUP.search("the parents were already there") is None


def test_what_befell_the_witness_on_nearly_every_other_night() -> None:
    assert all_but_every(tokenize(_LEAKED_ON_US)) == ALL_BUT_A_FEW
    assert heuristic_nli(_LEAKED_ON_US, _LEAKS_RARE).label == "refutes"
    assert heuristic_nli(_LEAKS_RARE, _LEAKED_ON_US).label == "refutes"


def test_what_the_witness_did_to_others_nearly_every_night_is_no_share() -> None:
    # control: "rang us" is no thing done on the witness's occasions
    rang = "The rep rang us pretty much every other night for the first six weeks."
    assert all_but_every(tokenize(rang)) is None
