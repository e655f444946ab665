"""A witness's two groups alike at one time or with nothing to choose between them, a
gram called plenty, so many of the things counted before, and a rate said in words to be
no rarity (decision 0139), each with its control."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.harm_reports import witnessed
from lyra.pipelines.evidence.nli_counts import spans_zero
from lyra.pipelines.evidence.nli_enough import read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_ratios import area_share
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import (
    FEW_KNOWN,
    MOST_KNOWN,
    NOT_RARE,
    Share,
    most_known,
)
from lyra.pipelines.evidence.nli_tokens import is_cue, tokenize

_BRUISE_TRIAL = (
    "Bruises treated with comfrey cream had cleared in a mean of 8.2 days, against 10.9 "
    "days with a placebo cream (95% CI 1.5 to 3.9)."
)
_BEAN_TRIAL = (
    "Inoculated pea plots gave a mean yield 21% higher than the uninoculated control "
    "plots over three seasons."
)
_ONLINE_TRIAL = (
    "Disputes sent down the online route were settled a median of 4.2 weeks sooner than "
    "those in the paper control arm."
)

A_WITNESS_LIKENESS = [
    pytest.param(
        _BRUISE_TRIAL,
        "I rubbed comfrey cream on the bruise on one arm and put nothing at all on the other, "
        "and both of them had faded in the same week.",
        "refutes",
        id="both-gone-in-the-same-week-nothing-at-all-on-the-other",
    ),
    pytest.param(
        _BRUISE_TRIAL,
        "My two lads both used comfrey cream on their bruises, and both of them had faded "
        "in the same week.",
        "neutral",
        id="control-alike-with-no-plain-group",
    ),
    pytest.param(
        "Bruise area had shrunk by 45% with comfrey cream against 39% with a cold compress "
        "alone, a difference of 6 percentage points (95% CI -3 to 15).",
        "I rubbed comfrey cream on the bruise on one arm and put nothing at all on the other, "
        "and both of them had faded in the same week.",
        "neutral",
        id="no-lead-where-the-interval-spans-nothing",
    ),
    pytest.param(
        "Bruise area had shrunk by 45% more with comfrey cream than with a placebo cream "
        "(95% CI 31 to 59).",
        "I rubbed comfrey cream on the bruise on one arm and put nothing at all on the other, "
        "and both of them had faded in the same week.",
        "refutes",
        id="control-a-lead-whose-interval-stays-above-nothing",
    ),
    pytest.param(
        _BEAN_TRIAL,
        "I inoculated half my pea plots and left the other half bare, weighed every pod, "
        "and there was nothing to choose between the two lots.",
        "refutes",
        id="nothing-to-choose-between-the-other-half-bare",
    ),
    pytest.param(
        _ONLINE_TRIAL,
        "In my experience the online disputes don't get settled a day sooner than the old "
        "paper ones.",
        "refutes",
        id="not-a-day-sooner-than-the-old",
    ),
    pytest.param(
        _ONLINE_TRIAL,
        "In my experience the online disputes get settled a day sooner than the paper ones.",
        "neutral",
        id="control-a-day-sooner-is-a-lead",
    ),
]

A_WITNESS_LIKENESS_OF_THE_SECOND_ROUND = [
    pytest.param(
        "At day 2, mean ear pain on a 0 to 10 scale was 1.4 points lower in the spray group "
        "than in the usual-care group (95% CI 0.8 to 2.0).",
        "The children who had the spray got over their sore ears no quicker than the ones "
        "who just took paracetamol.",
        "refutes",
        id="sore-against-pain-is-one-outcome",
    ),
    pytest.param(
        "Nitrate load reaching the streams fell by 35% (95% CI 22% to 47%) relative to "
        "the unmanaged field ditches.",
        "The brook below our pond carried just as much nitrate as the next brook over, "
        "where nobody's dug anything at all.",
        "refutes",
        id="unmanaged-ditches-are-a-control-and-a-brook-a-stream",
    ),
    pytest.param(
        "Standing pairs produced 1.9 more ideas per session than pairs in the seated "
        "meeting-room arm (95% CI 0.6 to 3.2).",
        "The pairs who went out standing didn't come up with any more ideas than the ones "
        "who stayed sat at their desks.",
        "refutes",
        id="than-the-seated-arm-and-who-stayed-sat",
    ),
    pytest.param(
        "Standing pairs produced 1.9 more ideas per session than pairs in the seated "
        "meeting-room arm (95% CI 0.6 to 3.2).",
        "The pairs who went out standing came up with more ideas than the ones who stayed "
        "sat at their desks.",
        "neutral",
        id="control-a-witness-lead-is-no-likeness",
    ),
    pytest.param(
        "Pupils in the tutoring arm scored 3.1 points higher than pupils in the app arm "
        "(95% CI 1.2 to 5.0).",
        "The children who'd been using the app did no better than the children who hadn't.",
        "neutral",
        id="control-another-thing-arm-is-no-control",
    ),
]

A_WITNESS_OF_THE_THIRD_ROUND = [
    pytest.param(
        "At 16 weeks, HbA1c was 0.18 percentage points lower in the cinnamon group than in "
        "the placebo group (95% CI 0.05 to 0.31).",
        "Those of us on the real cinnamon finished four months with blood sugar tests no "
        "better than the group on a pretend version.",
        "refutes",
        id="a-pretend-version-and-hba1c-is-blood-sugar",
    ),
    pytest.param(
        "Mulched beds averaged 30 weed seedlings per square metre against 95 in the dug "
        "control beds (95% CI 48% to 77%).",
        "By August my mulched bed had just as many weeds as the bed my neighbour dug over "
        "the old-fashioned way.",
        "refutes",
        id="the-old-fashioned-way",
    ),
    pytest.param(
        "Over a year, estates in the 24-hour cleaning arm recorded 38% fewer new tags than "
        "estates on the standard monthly schedule (rate ratio 0.62, 95% CI 0.5 to 0.77).",
        "Having the walls cleaned in a day made no real difference to our estate, we got "
        "tagged just as much as the estates where the council still leaves it a month.",
        "refutes",
        id="a-standard-schedule-where-they-still-and-tagged-is-tags",
    ),
    pytest.param(
        "Slug damage under our mats is uncommon: only 3% of buyers said slugs had damaged "
        "crops in beds laid with them.",
        "On our allotment nearly every plot that laid the mats lost its lettuces to slugs.",
        "refutes",
        id="nearly-every-plot-in-the-witness-place",
    ),
    pytest.param(
        "Slug damage under our mats is uncommon: only 3% of buyers said slugs had damaged "
        "crops in beds laid with them.",
        "Nearly every plot that laid the mats lost its lettuces to slugs.",
        "neutral",
        id="control-nearly-every-plot-of-no-one-named",
    ),
    pytest.param(
        "Chipping of old render from the SoftJet washer is rare, occurring on fewer than 1 "
        "in 200 walls treated.",
        "They promised the soft washer would not chip old render, but the crew has chipped "
        "the render on nearly every cottage along Mill Lane, mine included.",
        "refutes",
        id="but-opens-the-share-and-mine-included",
    ),
    pytest.param(
        "Our own survey found grogginess after a nap is rare: only 3% of nap-pod users "
        "said they felt groggy afterwards.",
        "Most of my crew come out of the nap pods groggy and need a good while to wake up.",
        "refutes",
        id="most-of-my-crew-against-rare",
    ),
    pytest.param(
        "To give the splint a fair test, wear it on the sore hand for at least 8 hours a "
        "day for a minimum of 6 weeks.",
        "I only wear my splint for about an hour at night and honestly that's plenty.",
        "refutes",
        id="a-purpose-then-an-order-of-a-floor",
    ),
    pytest.param(
        "Take at least 1 tablespoon of the syrup diluted in water twice a day.",
        "A teaspoon of the syrup in warm water once a day is plenty.",
        "refutes",
        id="a-teaspoon-under-a-tablespoon",
    ),
    pytest.param(
        "Adults should take at least 5 ml of the syrup, diluted, before the main meal.",
        "A teaspoon of the syrup in warm water once a day is plenty.",
        "neutral",
        id="control-a-teaspoon-is-five-millilitres-at-the-floor",
    ),
]

AN_AMOUNT_AND_A_SHARE = [
    pytest.param(
        "Use at least 5 g of inoculant per transplant, touching the roots.",
        "Maybe a gram, a pinch between finger and thumb, is plenty for a pepper plant.",
        "refutes",
        id="a-gram-is-plenty-under-a-floor-of-five",
    ),
    pytest.param(
        "Use at least 1 g of inoculant per transplant, touching the roots.",
        "Maybe a gram, a pinch between finger and thumb, is plenty for a pepper plant.",
        "neutral",
        id="control-a-gram-at-the-floor",
    ),
    pytest.param(
        "Fewer than 1 in 50 packets of our seed fails the germination check, so dead seed "
        "is a rare event.",
        "Our club sent off six packets of seed for a germination check, and five of the "
        "six came back dead.",
        "refutes",
        id="five-of-the-six-dead-against-rare",
    ),
    pytest.param(
        "Missed letters are rare, with fewer than 2 in every 100 tenants failing to get "
        "the council's email notice.",
        "Week in, week out we see tenants who never got a single email notice from the "
        "council, and it's dozens of them, not the odd one.",
        "refutes",
        id="not-the-odd-one-against-two-in-a-hundred",
    ),
    pytest.param(
        "A buffer pond should cover at least 2% of the land it drains.",
        "Thirty-odd square metres of pond for each hectare above it is plenty.",
        "refutes",
        id="an-area-for-each-hectare-under-a-floor-in-per-cent",
    ),
    pytest.param(
        "A buffer pond should cover at least 0.2% of the land it drains.",
        "Thirty-odd square metres of pond for each hectare above it is plenty.",
        "neutral",
        id="control-an-area-for-each-hectare-over-the-floor",
    ),
    pytest.param(
        "Fewer than 1 in 25 of the ponds we dig have needed dredging within five years.",
        "Three of the four ponds in our parish silted up and needed dredging within three years.",
        "refutes",
        id="three-of-the-four-ponds-against-one-in-twenty-five",
    ),
    pytest.param(
        "Bike rides being called off because of rain is uncommon: only 3% of planned rides "
        "were cancelled by rain.",
        "Over the winter we were getting rained off more weeks than not, so most of our "
        "rides ended early.",
        "refutes",
        id="more-weeks-than-not-against-uncommon",
    ),
]


@pytest.mark.parametrize(
    ("first", "second", "label"),
    [
        *A_WITNESS_LIKENESS,
        *A_WITNESS_LIKENESS_OF_THE_SECOND_ROUND,
        *A_WITNESS_OF_THE_THIRD_ROUND,
        *AN_AMOUNT_AND_A_SHARE,
    ],
)
def test_each_pair_reads_the_same_both_ways(first: str, second: str, label: str) -> None:
    """Each reading of this decision with its control, either text as the premise."""
    assert heuristic_nli(first, second).label == label
    assert heuristic_nli(second, first).label == label


def test_a_witness_likeness_is_a_claim() -> None:
    seen = (
        "I did half my peas with the powder and left the other half bare, and there was "
        "nothing to choose between the two rows."
    )
    assert witnessed(seen) is True
    assert informativeness(seen) == pytest.approx(0.3)
    assert witnessed("Week in, week out we see tenants turned away at the door.") is True
    assert witnessed("I did half my peas with the powder and left the others.") is False


def test_a_gram_is_an_amount() -> None:
    amounts = read_amounts(tokenize("a gram is plenty for a pepper plant"))
    assert amounts is not None
    assert dict(amounts.by_dimension) == {"milligrams": 1000.0}
    assert read_amounts(tokenize("a pinch is plenty for a pepper plant")) is None


def test_so_many_of_those_counted_before() -> None:
    share = read_share(tokenize("we sent six packets and five of the six came back dead"))
    assert share == Share(pytest.approx(83.333, abs=0.001), pytest.approx(83.333, abs=0.001))
    # nothing counted before: "the six" are not named
    assert read_share(tokenize("five of the six came back dead")) is None


def test_a_rate_denied_in_words_is_no_rarity() -> None:
    assert (NOT_RARE.low, NOT_RARE.high) == (10.0, 100.0)
    assert NOT_RARE.low > FEW_KNOWN.low
    assert read_share(tokenize("we see dozens of them, not the odd one")) == NOT_RARE
    assert read_share(tokenize("we see the odd one now and then")) is None


def test_more_than_not_is_most_and_no_negation() -> None:
    tokens = tokenize("we were getting rained off more weeks than not")
    assert is_cue(tokens, tokens.index("not")) is False
    assert read_share(tokens) == MOST_KNOWN
    assert read_share(tokenize("most of our rides ended early")) == MOST_KNOWN
    assert read_share(tokenize("most rides ended early")) is None
    denied = tokenize("the rides were not cancelled")
    assert is_cue(denied, denied.index("not")) is True


def test_an_area_for_each_so_much_land_is_a_percentage() -> None:
    tokens = tokenize("Twenty-odd square metres of reeds for each hectare is plenty")
    assert area_share(tokens, 0) == pytest.approx(0.2)
    floor = tokenize("a minimum of 100 square metres for every hectare of land")
    assert area_share(floor, floor.index("100")) == pytest.approx(1.0)
    assert area_share(tokenize("20 square metres of reeds is plenty"), 0) is None


def test_an_amount_called_enough_for_the_writer_with_what_came_of_it_is_a_claim() -> None:
    told = "A gargle once a day was plenty for me, and my throat was fine by the weekend."
    assert informativeness(told) == pytest.approx(0.2)
    assert informativeness("A gargle once a day was plenty for me.") == 0.0
    loads = "One layer of card is loads, I've never used more and my beds are fine."
    assert informativeness(loads) == pytest.approx(0.25)
    # more called no help, or plenty with no one named (decision 0139)
    longer = "A five-minute doze is plenty for me, and anything longer eats my break."
    assert informativeness(longer) == pytest.approx(0.7)
    assert informativeness("I only wear it for an hour and honestly that's plenty.") == (
        pytest.approx(0.4)
    )
    assert informativeness("A short doze is plenty for me.") == 0.0


def test_most_of_the_witness_own_is_a_share_and_a_report() -> None:
    assert read_share(tokenize("most of my crew come out groggy")) == MOST_KNOWN
    assert read_share(tokenize("most of the families I fined paid up")) == MOST_KNOWN
    assert read_share(tokenize("most of the families paid up")) is None
    # one reading for the share and the claim, not of a liking
    fined = "Most of the families I fined last spring simply paid up and went in June."
    assert most_known(tokenize(fined)) is True
    assert informativeness(fined) == pytest.approx(0.2)
    assert most_known(tokenize("Most of our group loved it.")) is False
    assert informativeness("Most of our group loved it.") == 0.0
    assert most_known(tokenize("Most families simply paid up.")) is False


def test_an_interval_across_zero_in_any_minus_sign() -> None:
    assert spans_zero(tokenize("a difference of 7 points (95% CI -2 to 16)")) is True
    assert spans_zero(tokenize("a difference of 7 points (95% CI \u22122 to 16)")) is True
    assert spans_zero(tokenize("fell by 7.4 mmHg (95% CI -10.2 to -4.6)")) is False
    assert spans_zero(tokenize("fell by 2.3 days (95% CI 1.2 to 3.4)")) is False
