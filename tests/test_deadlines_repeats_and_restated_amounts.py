"""A deadline or a level advised against more called enough, a thing done once more
named as "a second" and as "again", an amount restated in other units, "pretty much
every" and "three of us" as a witness saw them, a thing gone in other words, and two
halves a witness could not tell apart (decision 0140), each with its control."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.harm_reports import witnessed
from lyra.pipelines.evidence.nli_enough import read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_limits import advised_deadline, enough_deadline
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import ALL_BUT_A_FEW, LOADS_KNOWN, NOT_RARE
from lyra.pipelines.evidence.nli_tokens import is_cue, tokenize

_REPAIR_STANDARD = (
    "Landlords should make a broken boiler safe within 24 hours and should fix any other "
    "reported leak within 3 days, and should inspect the flat at least once a year."
)
_RELAPSE_FIGURE = (
    "Fewer than 4 in every 100 drivers who finish the awareness course are caught "
    "speeding a second time within three years."
)
_BIN_RULE = (
    "A household should only be fined once its bin has been left out on at least 8 "
    "collections, equal to four full calendar weeks, within one quarter."
)

PAIRS = [
    pytest.param(
        _REPAIR_STANDARD,
        "To be fair, having the drip sorted within a fortnight is fine, nobody in our "
        "block expects a plumber the same afternoon.",
        "refutes",
        id="a-fortnight-called-fine-against-an-advised-three-days",
    ),
    pytest.param(
        _REPAIR_STANDARD,
        "To be fair, having the drip sorted within 4 days is fine, nobody in our block "
        "expects a plumber the same afternoon.",
        "neutral",
        id="control-four-days-is-not-twice-three",
    ),
    pytest.param(
        _REPAIR_STANDARD,
        "Having the drip sorted within a fortnight isn't good enough, and nobody in our "
        "block should have to wait that long.",
        "neutral",
        id="control-a-fortnight-denied-enough",
    ),
    pytest.param(
        _RELAPSE_FIGURE,
        "Most of the drivers I taught were flashed by the same camera again before Christmas.",
        "refutes",
        id="most-caught-again-against-few-caught-a-second-time",
    ),
    pytest.param(
        _RELAPSE_FIGURE,
        "Most of the drivers I taught were flashed by the same camera before Christmas.",
        "neutral",
        id="control-no-second-time-named",
    ),
    pytest.param(
        _BIN_RULE,
        "Two weeks of bins left on the pavement without a reason is plenty to send the "
        "fine, and the letter can go out the next morning.",
        "refutes",
        id="two-weeks-called-plenty-under-four-weeks-restated",
    ),
    pytest.param(
        "A household should only be fined once its bin has been left out on at least 8 "
        "collections within one quarter.",
        "Two weeks of bins left on the pavement without a reason is plenty to send the "
        "fine, and the letter can go out the next morning.",
        "neutral",
        id="control-collections-not-restated-in-weeks",
    ),
    pytest.param(
        "Fraying is rare: fewer than 3 in every 100 nets we supply are returned torn "
        "before their second winter.",
        "Pretty much every net on the allotments by the canal was in tatters by March, and "
        "we were untangling shreds from the brambles for weeks.",
        "refutes",
        id="pretty-much-every-one-in-tatters-against-rare-fraying",
    ),
    pytest.param(
        "Leaflets for parents should be written to a reading age of no higher than 9 years.",
        "A reading age of 13 or so is plenty for parents picking up a leaflet at the surgery.",
        "refutes",
        id="a-reading-age-called-plenty-over-the-advised-ceiling",
    ),
    pytest.param(
        "Leaflets for parents should be written to a reading age of no higher than 9 years.",
        "A reading age of 10 or so is plenty for parents picking up a leaflet at the surgery.",
        "neutral",
        id="control-a-level-just-over-the-ceiling",
    ),
    pytest.param(
        "Warts treated with cryotherapy resolved a median of 3 weeks sooner than those in "
        "the untreated control arm (95% CI 1 to 5 weeks).",
        "In my clinic the kids who had them frozen got rid of their warts no quicker than "
        "the ones who just left them alone.",
        "refutes",
        id="got-rid-of-no-quicker-against-resolved-sooner",
    ),
    pytest.param(
        "Warts treated with cryotherapy resolved a median of 3 weeks sooner than those in "
        "the untreated control arm (95% CI 1 to 5 weeks).",
        "In my clinic the kids who had them frozen moaned about their warts no less than "
        "the ones who just left them alone.",
        "neutral",
        id="control-alike-in-no-word-of-getting-better",
    ),
    pytest.param(
        "After two seasons, paddocks grazed by sheep held a mean of 3.1 more forb species "
        "per square metre than ungrazed control paddocks (95% CI 1.8 to 4.4).",
        "We put the sheep on half the top paddock and left the other half as it was, and "
        "by the second summer you couldn't tell the two halves apart for flowers.",
        "refutes",
        id="two-halves-not-told-apart-for-flowers-against-more-forbs",
    ),
    pytest.param(
        "Across the term, pupils in standing-desk classes were on task for a mean of 5.2 "
        "percentage points more of observed intervals than pupils in classes keeping "
        "standard desks (95% CI 1.9 to 8.5).",
        "Hand on heart, the standing desks made no real difference: my pupils were no more "
        "stuck into their work than the class next door on ordinary desks.",
        "refutes",
        id="no-more-stuck-into-their-work-against-keeping-standard-desks",
    ),
    pytest.param(
        "Across the term, pupils in standing-desk classes were on task for a mean of 5.2 "
        "percentage points more of observed intervals than pupils in classes with sloped "
        "desks (95% CI 1.9 to 8.5).",
        "Hand on heart, the standing desks made no real difference: my pupils were no more "
        "stuck into their work than the class next door on ordinary desks.",
        "neutral",
        id="control-the-other-arm-another-thing",
    ),
    pytest.param(
        "Big crop losses are rare: fewer than 4% of plots mulched with our straw lost more "
        "than a quarter of their potato crop.",
        "Three out of four allotments on our road that mulched with straw lost nearly half "
        "their potato crop to slugs, mine included.",
        "refutes",
        id="three-out-of-four-on-our-road-against-fewer-than-four-in-a-hundred",
    ),
    pytest.param(
        "Minor scalds from the HeatPal wrap are rare, reported in fewer than 1 in 1,000 "
        "uses according to our safety log.",
        "Three of us at home ended up with little red scalds on our necks from those "
        "microwave wraps within a week, so scalds are hardly a one-off.",
        "refutes",
        id="three-of-us-scalded-against-rare-scalds",
    ),
    pytest.param(
        "Fewer than 1 in 100 booked driving lessons is cancelled at short notice.",
        "Just about everyone in the group chat for my test centre had at least one lesson "
        "cancelled on them.",
        "refutes",
        id="just-about-everyone-had-one-cancelled-against-fewer-than-one-in-a-hundred",
    ),
    pytest.param(
        "Honestly a single afternoon, four hours tops, is plenty for a driving theory refresher.",
        "Just about everyone in the group chat for my test centre had at least one lesson "
        "cancelled on them.",
        "neutral",
        id="control-everyone-hedged-advises-no-floor",
    ),
    pytest.param(
        "Spread at least 2 kg of wildflower seed per hectare, in autumn.",
        "Honestly, about 300 grams of wildflower seed scattered over our whole hectare was plenty.",
        "refutes",
        id="grams-over-our-whole-hectare-under-a-floor-per-hectare",
    ),
    pytest.param(
        "At one hour, mean pain on a 0 to 10 scale had fallen by 3.1 points with menthol gel "
        "and by 1.9 with placebo gel, a difference of 1.2 points (95% CI 0.6 to 1.8).",
        "Honestly, at our clinic the menthol gel made no real difference to people's "
        "headaches compared with a plain look-alike gel.",
        "refutes",
        id="no-real-difference-to-headaches-against-less-pain",
    ),
    pytest.param(
        "Ponds given log piles at the edge recorded a mean of 3.2 newts per survey night "
        "against 1.4 in control ponds left without log piles (rate ratio 2.3, 95% CI 1.5 "
        "to 3.4).",
        "I did the newt counts for two springs, and the ponds with the log piles had no more "
        "newts than the ponds where the rangers had cleared all the dead wood away.",
        "refutes",
        id="no-more-than-where-the-wood-was-cleared-away",
    ),
    pytest.param(
        "Ponds given log piles at the edge recorded a mean of 3.2 newts per survey night "
        "against 1.4 in control ponds left without log piles (rate ratio 2.3, 95% CI 1.5 "
        "to 3.4).",
        "I did the newt counts for two springs, and the ponds with the log piles had no more "
        "newts than the ponds next to the car park.",
        "neutral",
        id="control-no-plain-group",
    ),
    pytest.param(
        "Within 8 weeks, 44.0% of care leavers offered a deposit loan had moved into a flat "
        "compared with 30.5% of those given standard housing advice (risk ratio 1.44, 95% CI "
        "1.1 to 1.9).",
        "Honestly, the care leavers I support who got the deposit loan found flats no quicker "
        "than the ones who just got the usual leaflet.",
        "refutes",
        id="no-quicker-against-standard-advice-as-control",
    ),
    pytest.param(
        "Landlords rarely refuse a tenant on benefits: in our survey of 900 landlords, only "
        "3% said they would refuse a tenant on housing benefit.",
        "Pretty much every landlord I phoned in town said no the second I told them I was on "
        "housing benefit.",
        "refutes",
        id="every-landlord-i-phoned-said-no-against-rarely-refused",
    ),
    pytest.param(
        "Meeting overload is uncommon: only about 5% of teams tell us their other days "
        "became more crowded with meetings.",
        "Within a fortnight everyone on my floor had the other days of the week crammed with "
        "meetings.",
        "refutes",
        id="everyone-on-my-floor-against-uncommon",
    ),
    pytest.param(
        "Rats are rare: fewer than 1 in 30 compost heaps we surveyed showed any sign of rats "
        "nesting.",
        "We built nine compost heaps on the site and by spring rats were nesting in nearly "
        "all of them.",
        "refutes",
        id="nesting-in-nearly-all-of-them-against-rare",
    ),
    pytest.param(
        "Adults should rub in at least 1 mL of the lavender oil over both temples.",
        "One drop of lavender oil on each temple is plenty for me.",
        "refutes",
        id="one-drop-called-plenty-under-a-millilitre",
    ),
    pytest.param(
        "Use hazel poles at least 3 m long for the frame, and space the uprights no more "
        "than 50 cm apart.",
        "On a small allotment, four-foot poles are plenty and you can space the uprights a "
        "good metre apart.",
        "refutes",
        id="shorter-poles-and-wider-spacing-called-plenty-against-use-at-least",
    ),
    pytest.param(
        "Surgeries should give at least two working days' notice when booking a home "
        "visit interpreter.",
        "A few hours' notice is plenty to get an interpreter out to a home visit.",
        "refutes",
        id="hours-notice-called-plenty-against-days-notice",
    ),
    pytest.param(
        "Dropped calls are rare, with fewer than 1 in 300 HomeLink video calls in 2024 "
        "losing the picture for more than 30 seconds.",
        "On the Friday clinic the video call drops out on me in about half my calls, and "
        "yesterday it froze three times.",
        "refutes",
        id="drops-out-in-half-my-calls-against-rare",
    ),
    pytest.param(
        "Strap breakage is rare: fewer than 1 in 1,500 StepStrap straps sold last year were "
        "returned as having snapped during use.",
        "In our Thursday class at least four straps have snapped mid-stretch since Easter.",
        "refutes",
        id="four-snapped-in-our-class-against-rare",
    ),
    pytest.param(
        "Strap breakage is rare: fewer than 1 in 1,500 StepStrap straps sold last year were "
        "returned as having snapped during use.",
        "In our trial at least four straps snapped mid-stretch over the year.",
        "neutral",
        id="control-a-trial-is-no-witness-place",
    ),
    pytest.param(
        "At week 8, itch scores fell 2.3 points more in the salt bath group than in the "
        "plain-water bath group (95% CI 1.1 to 3.5).",
        "Our Ava had the salt baths every night for a month and her itch was no better than "
        "when she'd just been having ordinary tap-water baths.",
        "refutes",
        id="no-better-than-tap-water-against-the-plain-water-group",
    ),
    pytest.param(
        "At 10 weeks, participants in the stair-climbing arm scored higher on afternoon "
        "alertness than the wait-list control arm (standardised mean difference 0.35, 95% "
        "CI 0.15 to 0.55).",
        "In our building, the ones who took the stairs every afternoon felt no livelier by "
        "four o'clock than the colleagues who just stayed at their desks.",
        "refutes",
        id="no-livelier-by-four-o-clock-than-those-who-stayed",
    ),
    pytest.param(
        "Staff should aim for a stretch break of at least 15 minutes on at least five "
        "working days a week.",
        "Five minutes round the office a couple of times a week is plenty to shake off the slump.",
        "refutes",
        id="minutes-round-the-office-are-minutes-not-rounds",
    ),
    pytest.param(
        "Builders should fit at least one bat box per dwelling on new estates.",
        "One bat box on every fourth or fifth house is plenty to get a roost going.",
        "refutes",
        id="one-on-every-fifth-house-called-plenty-against-one-per-dwelling",
    ),
    pytest.param(
        "Builders should fit at least one bat box per dwelling on new estates.",
        "One bat box on every house is plenty to get a roost going.",
        "neutral",
        id="control-one-on-every-house-meets-the-floor",
    ),
    pytest.param(
        "At 60 days, 58% of disputes in the phone-call arm had been settled without a "
        "hearing, compared with 39% in the standard letter arm (risk difference 19 "
        "percentage points, 95% CI 12 to 26).",
        "We rang people on half our cases for a year and, honestly, the share of disputes "
        "we settled without a hearing came out about the same as on the cases where clerks "
        "just sent the letter.",
        "refutes",
        id="about-the-same-as-where-clerks-just-sent-the-letter",
    ),
    pytest.param(
        "At 2 years, children in the reading arm knew 9.2 more words and had 21% fewer "
        "tantrums per week than children in the usual-care control arm (95% CI 3.1 to "
        "15.3).",
        "By the time they're three, the kids who were read to aren't using any more words or "
        "throwing any fewer tantrums than the ones whose parents just talked to them.",
        "refutes",
        id="not-any-fewer-tantrums-than-those-whose-parents-just-talked",
    ),
    pytest.param(
        "Cracking into a hard crust is uncommon, reported by only 3% of the 900 gardeners "
        "who answered our survey.",
        "Every single pot I mulched with the grit went into a hard crust within a month.",
        "refutes",
        id="every-single-one-i-mulched-against-uncommon",
    ),
    pytest.param(
        "Revenge complaints from the neighbour who receives a courtesy letter are rare, "
        "occurring in fewer than 2 in every 100 cases.",
        "Of the five houses on our street that got one of those courtesy letters, three "
        "ended up making a revenge complaint.",
        "refutes",
        id="of-the-five-houses-three-against-rare",
    ),
    pytest.param(
        "Serious muscle damage occurs in fewer than 1 in 10,000 people taking a statin each year.",
        "Of 100 people taking a statin for five years, about 6 avoid a heart attack.",
        "neutral",
        id="control-a-natural-frequency-is-no-witness-count",
    ),
    pytest.param(
        "At six weeks, mean cramp pain on the 0-10 scale fell by 1.2 points more in the heat "
        "pad group than in the unheated sham pad group (95% CI 0.5 to 1.9).",
        "Honestly, the women with a properly hot pad and the ones with a pad that had never "
        "been switched on ended up with pretty much the same cramps.",
        "refutes",
        id="the-same-cramps-against-less-cramp-pain-on-a-scale",
    ),
    pytest.param(
        "By the third summer, mean algae cover in ponds fitted with barley bales was 35% "
        "lower than in untreated control ponds (95% CI 20% to 47%).",
        "Our top pond had the bales in it for three whole summers and it went every bit as "
        "pea-green as the bottom one that never had a bale in it.",
        "refutes",
        id="every-bit-as-pea-green-as-the-one-that-never-had-it",
    ),
    pytest.param(
        "Damage from grazing deer is rare, affecting fewer than 3% of tree guards in their "
        "first year.",
        "Deer flattened every guard on my plot inside a month, and the same happened to "
        "pretty much everyone in our local woodland group who tried them.",
        "refutes",
        id="pretty-much-everyone-in-our-group-against-rare",
    ),
    pytest.param(
        "Lodge your appeal within 30 days of the decision, and allow at least six weeks for "
        "the tribunal's written ruling.",
        "Our appeal was done in a few days, so honestly budgeting a week for the whole thing "
        "is plenty.",
        "refutes",
        id="a-week-called-plenty-against-an-order-after-your-of-six-weeks",
    ),
    pytest.param(
        "Three years after coppicing, coppiced plots held a mean of 3.2 nightjars per "
        "kilometre compared with 1.9 in plots that stayed on annual mowing (rate ratio 1.7, "
        "95% CI 1.2 to 2.4).",
        "Two summers of counts and the coppiced plots never had any more nightjars in them "
        "than the strip that the contractor just mows every autumn.",
        "refutes",
        id="never-any-more-than-the-strip-just-mown-against-stayed-on-annual",
    ),
    pytest.param(
        "Stomach upset such as bloating or loose stools is uncommon, affecting fewer than 1 "
        "in 40 customers.",
        "Half the men in my walking club tried that fibre powder and most of us ended up "
        "with bellies like balloons inside a week.",
        "refutes",
        id="half-the-men-in-my-club-with-bellies-like-balloons-against-uncommon",
    ),
    pytest.param(
        "Schools should timetable at least one full lesson a week in the library for each class.",
        "A couple of library lessons a term is more than enough for my class.",
        "refutes",
        id="a-couple-a-term-called-enough-against-one-a-week",
    ),
]


@pytest.mark.parametrize(("first", "second", "label"), PAIRS)
def test_each_pair_reads_the_same_both_ways(first: str, second: str, label: str) -> None:
    """Each reading of this decision with its control, either text as the premise."""
    assert heuristic_nli(first, second).label == label
    assert heuristic_nli(second, first).label == label


def test_the_loosest_advised_deadline_and_the_one_called_enough() -> None:
    assert advised_deadline(tokenize(_REPAIR_STANDARD)) == pytest.approx(3.0)
    # no advice: a deadline met is no deadline set
    assert advised_deadline(tokenize("They fixed the leak within 3 days.")) is None
    assert enough_deadline(tokenize("within a fortnight is fine by me")) == pytest.approx(14.0)
    assert enough_deadline(tokenize("within a fortnight is not enough")) is None
    assert enough_deadline(tokenize("They came within a fortnight.")) is None


def test_an_amount_restated_is_read_as_restated() -> None:
    amounts = read_amounts(tokenize(_BIN_RULE))
    assert amounts is not None
    assert dict(amounts.by_dimension) == {"times in all": 8.0, "days in all": 28.0}
    # "equal to" with no count after it restates nothing
    plain = read_amounts(
        tokenize("A bin should be fined after at least 8 collections, equal to the rule.")
    )
    assert plain is not None
    assert dict(plain.by_dimension) == {"times in all": 8.0}


def test_a_condition_does_not_deny_enough() -> None:
    amounts = read_amounts(tokenize("Two days off without a note is plenty for a letter."))
    assert amounts is not None
    assert dict(amounts.by_dimension) == {"times in all": 2.0}
    assert read_amounts(tokenize("Two days off is not enough for a letter.")) is None


def test_pretty_much_every_one_the_witness_saw() -> None:
    seen = "Pretty much every net on our allotment was torn by March, we were gutted."
    assert read_share(tokenize(seen)) == ALL_BUT_A_FEW
    # no witness: a general claim, no share
    assert read_share(tokenize("Pretty much every net was torn by March.")) is None


def test_so_many_in_the_witness_place_and_a_run_of_times_are_claims() -> None:
    fraction = (
        "Three out of four allotments on our road that mulched with straw lost nearly half "
        "their potato crop to slugs, mine included."
    )
    running = "Mine got called off the night before three times running."
    assert witnessed(fraction) is True
    assert witnessed(running) is True
    assert informativeness(fraction) == pytest.approx(0.3)
    # so many of no one's place: no witness
    assert witnessed("Three out of four allotments lost nearly half their potato crop.") is False


def test_a_drop_and_a_time_after() -> None:
    drop = read_amounts(tokenize("One drop of lavender oil on each temple is plenty."))
    assert drop is not None
    assert dict(drop.by_dimension) == {"millilitres": 0.05}
    fall = read_amounts(tokenize("A drop in blood pressure of 5 mmHg is plenty."))
    assert fall is not None
    assert "millilitres" not in dict(fall.by_dimension)
    again = read_amounts(
        tokenize("Adults should apply at least 2 mL, then apply the same again after 15 minutes.")
    )
    assert again is not None
    assert dict(again.by_dimension) == {"millilitres": 2.0}


def test_said_no_is_an_answer() -> None:
    answered = tokenize("every landlord I phoned said no the second I told them")
    assert is_cue(answered, answered.index("no")) is False
    denied = tokenize("the landlord said no repairs were needed")
    assert is_cue(denied, denied.index("no")) is True


def test_a_run_out_of_so_many_and_loads_of_those_known_are_claims() -> None:
    runs = (
        "Out of the six hedges we laid on our farm, only one ever thickened up; the rest "
        "just thinned out."
    )
    loads = "Loads of the lads in my son's team were limping by March, not just one or two."
    assert witnessed(runs) is True
    assert witnessed(loads) is True
    # loads of those in the witness's own place, at least LOADS_KNOWN since 0141
    assert read_share(tokenize(loads)) == LOADS_KNOWN
    assert read_share(tokenize("Lads in my son's team were limping, not just one or two.")) == (
        NOT_RARE
    )


def test_an_order_to_add_and_a_plant_is_no_house() -> None:
    added = read_amounts(tokenize("Add at least 30 g of oatmeal to a child-sized bath."))
    assert added is not None
    assert dict(added.by_dimension)["milligrams"] == pytest.approx(30000.0)
    per_plant = read_amounts(tokenize("Give at least 2.5 litres per plant every day."))
    assert per_plant is not None
    assert "per hous" not in dict(per_plant.by_dimension)
    assert dict(per_plant.by_dimension)["units of l"] == pytest.approx(2.5)


def test_enough_for_us_and_others_and_all_it_needs_are_claims() -> None:
    others = (
        "A few rhymes and a couple of minutes at bathtime was plenty for us, and for most of "
        "the parents I know."
    )
    needs = "Ten minutes is plenty for me, and an hour in the fridge is all it needs."
    assert informativeness(others) == pytest.approx(0.4)
    assert informativeness(needs) == pytest.approx(0.7)
    assert informativeness("Ten minutes is plenty for me.") == pytest.approx(0.0)


def test_loads_and_never_bothered_with_more_is_a_claim() -> None:
    text = "Five minutes with the pad once a day is loads, I never bother with the long sessions."
    assert informativeness(text) == pytest.approx(0.7)


def test_half_the_ones_in_my_place_and_everyone_i_know() -> None:
    assert witnessed("Half the ladies in my housing block tried that gum.") is True
    known = tokenize("Pretty much everyone I know on the scheme has had a warning.")
    assert read_share(known) == ALL_BUT_A_FEW
