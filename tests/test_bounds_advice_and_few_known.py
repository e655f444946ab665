"""Fewer false refutations (a negation's reach, a bound, advice beside a finding, who a
group is) and more readings of a witness (likeness, a few of their own, a mass to an area)
(decision 0138), each with its control."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.nli_advice import prohibition_only
from lyra.pipelines.evidence.nli_enough import read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_negations import describes_a_group
from lyra.pipelines.evidence.nli_outcomes import outcome_words
from lyra.pipelines.evidence.nli_ratios import MASS_PER_AREA
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import FEW_KNOWN, NOT_RARE
from lyra.pipelines.evidence.nli_tokens import is_cue, tokenize

# A negation's reach ends where what it denies was compared with or in: the shared name
# after "with" or "after" is the thing, not what the negation denies.
A_NEGATION_ENDS_AT_WITH_OR_AFTER = [
    pytest.param(
        "Headaches were no more common with ginkgo than with placebo in the trial.",
        "Ginkgo extract has been linked to rare cases of bleeding after surgery.",
        "neutral",
        id="no-more-common-with-the-thing",
    ),
    pytest.param(
        "Aphid numbers on the beans were no higher after marigold borders.",
        "Marigold borders do pay for themselves within two seasons on most allotments.",
        "neutral",
        id="no-higher-after-the-thing",
    ),
    pytest.param(
        "Ginkgo extract did not reduce bleeding after surgery in the trial.",
        "Ginkgo extract reduced bleeding after surgery by a third.",
        "refutes",
        id="control-the-negation-bears-on-the-outcome",
    ),
]

# A bound bounds a figure and denies nothing; a figure past it still contradicts it.
A_BOUND_IS_NO_DENIAL = [
    pytest.param(
        "You can safely take up to 3 grams of paracetamol in 24 hours.",
        "Adults should take no more than 3 g of paracetamol a day.",
        "neutral",
        id="no-more-than-is-up-to",
    ),
    pytest.param(
        "A dense 10 m belt of conifers can cut road noise by about 5-6 dB.",
        "A row of hedging typically cuts road noise by no more than one or two decibels.",
        "refutes",
        id="control-a-figure-past-the-bound",
    ),
]

# Advice against a use says nothing against a finding about that use.
ADVICE_AGAINST_DENIES_NO_FINDING = [
    pytest.param(
        "Do not give magnesium sulphate to a patient with kidney failure or a very slow pulse.",
        "Magnesium sulphate cuts the number of migraine days by around a fifth.",
        "neutral",
        id="do-not-give-to-a-group",
    ),
    pytest.param(
        "If you are over ninety and have never had a fall, you should not be started on vitamin D.",
        "Allocation to vitamin D reduced falls by 12% compared with placebo.",
        "neutral",
        id="should-not-be-started",
    ),
    pytest.param(
        "Zinc nasal gels have caused a lasting loss of the sense of smell.",
        "Zinc nasal gels do not cause any loss of smell.",
        "refutes",
        id="control-do-not-opens-a-clause-without-its-subject",
    ),
]

# "people without X" says who a group is.
A_GROUP_WITHOUT_SOMETHING = [
    pytest.param(
        "Walnut oil supplements lower the risk of stroke in people without heart disease.",
        "Statins cut heart attack risk far more reliably than any walnut oil product.",
        "neutral",
        id="people-without-is-a-group",
    ),
    pytest.param(
        "Walnut oil capsules do not lower the risk of stroke in people over 60.",
        "Walnut oil capsules lower the risk of stroke in people over 60.",
        "refutes",
        id="control-a-denied-finding",
    ),
]

TRIAL = (
    "Mean summer turbidity in ponds given willow bark was 38% lower than in untreated "
    "control ponds (95% CI 24% to 50%) at week 20."
)
RARE_TICKETS = (
    "Tickets issued to people who turn out to be homeless are uncommon, at roughly 1 in "
    "250 of all the tickets our wardens write."
)

# A witness's two groups alike and a few of their own, in everyday words.
A_WITNESS_IN_EVERYDAY_WORDS = [
    pytest.param(
        TRIAL,
        "Tried it on my two ponds last year, willow bark in one, nothing in the other, and "
        "come August both were the same muddy brown, so the bark did sod all.",
        "refutes",
        id="both-the-same-nothing-in-the-other",
    ),
    pytest.param(
        TRIAL,
        "Tried it on my two ponds last year, willow bark in one and a pump in the other, and "
        "come August both were the same muddy brown.",
        "neutral",
        id="control-no-plain-group",
    ),
    pytest.param(
        RARE_TICKETS,
        "I volunteer at the night shelter and hardly a week goes by without two or three of "
        "our regulars showing up with a £100 ticket from the wardens.",
        "refutes",
        id="a-few-of-our-own-nearly-every-week",
    ),
    pytest.param(
        RARE_TICKETS,
        "The report says two or three wardens showed up with a £100 ticket book each.",
        "neutral",
        id="control-a-few-of-no-one-known",
    ),
]


HEALING_TRIAL = (
    "In the dressing arm, median time to complete healing of the blister was 5.2 days "
    "compared with 7.0 days in the untreated arm (difference 1.8 days, 95% CI 1.0 to 2.6)."
)
RARE_TRAPPING = (
    "Trapping of hares in FieldSafe netting is rare, with fewer than 1 in 500 installed "
    "fences reporting one in a typical year."
)
RARE_EVICTION = (
    "Retaliatory eviction is uncommon: fewer than 1 in 30 of the lodgers we advised in "
    "2024 were served a no-fault eviction notice before their hearing."
)

# A harm healed, a harm said to be no rarity, a tenant "booted out", in a witness's words.
A_WITNESS_OF_HEALING_TRAPPING_AND_EVICTION = [
    pytest.param(
        HEALING_TRIAL,
        "The blisters I covered with those gel plasters healed no quicker than the ones I "
        "just left alone.",
        "refutes",
        id="healed-no-quicker-than-those-left-alone",
    ),
    pytest.param(
        HEALING_TRIAL,
        "The blisters I covered with those gel plasters healed no quicker than the ones I "
        "covered with a cream.",
        "neutral",
        id="control-no-plain-group",
    ),
    pytest.param(
        RARE_TRAPPING,
        "Two springs running I've found hares caught up in our netting, four dead in all, "
        "so it's not some once-in-a-blue-moon thing.",
        "refutes",
        id="not-some-once-in-a-blue-moon-thing",
    ),
    pytest.param(
        RARE_TRAPPING,
        "Two springs running I've found hares caught up in our netting, four dead in all.",
        "neutral",
        id="control-no-word-on-how-rare",
    ),
    pytest.param(
        RARE_EVICTION,
        "Five of us in the flat joined the claim and three had a notice to quit within a "
        "month, and every mate of mine who has tried one got booted out the same way.",
        "refutes",
        id="every-mate-of-mine-booted-out",
    ),
]


CAMERA_FLOOR = (
    "A depot should have at least one fixed camera for every 40 loading bays, with live "
    "monitoring throughout opening hours."
)
BREAK_FLOOR = "Schools should provide a morning break of at least 30 minutes every day."

# Amounts called enough for so many, to an area, or a little over half a floor; a
# witness's groups alike with the plain one named as kept to the old way.
AMOUNTS_AND_LIKENESS_OF_THE_THIRD_ROUND = [
    pytest.param(
        CAMERA_FLOOR,
        "Two cameras on the gates is plenty for a 240-bay depot, you don't need more.",
        "refutes",
        id="so-many-for-a-count-after-plenty",
    ),
    pytest.param(
        CAMERA_FLOOR,
        "Eight cameras on the gates is plenty for a 240-bay depot, you don't need more.",
        "neutral",
        id="control-over-the-floor",
    ),
    pytest.param(
        "Put up at least 12 boxes per hectare, fixed 3 to 5 metres up the trunk.",
        "Two or three boxes a hectare is plenty in a pine block like ours.",
        "refutes",
        id="boxes-a-hectare-against-an-order-to-put-up",
    ),
    pytest.param(
        BREAK_FLOOR,
        "Honestly 17 minutes for break is plenty for our lot.",
        "refutes",
        id="a-little-over-half-the-floor",
    ),
    pytest.param(
        BREAK_FLOOR,
        "Honestly 25 minutes for break is plenty for our lot.",
        "neutral",
        id="control-near-the-floor",
    ),
    pytest.param(
        "After 10 weeks, classes in the extended-break arm showed afternoon on-task behaviour "
        "0.30 standard deviations higher than classes in the control arm that kept a "
        "standard 15-minute break (95% CI 0.10 to 0.50).",
        "We compared notes with the school down the road, who kept their old short break, "
        "and our kids were no calmer or better at concentrating in the afternoons than theirs.",
        "refutes",
        id="kept-their-old-break-no-calmer-or-better-than",
    ),
]


@pytest.mark.parametrize(
    ("first", "second", "label"),
    [*A_NEGATION_ENDS_AT_WITH_OR_AFTER, *A_BOUND_IS_NO_DENIAL,
     *ADVICE_AGAINST_DENIES_NO_FINDING, *A_GROUP_WITHOUT_SOMETHING,
     *A_WITNESS_IN_EVERYDAY_WORDS, *A_WITNESS_OF_HEALING_TRAPPING_AND_EVICTION,
     *AMOUNTS_AND_LIKENESS_OF_THE_THIRD_ROUND],
)  # fmt: skip
def test_each_pair_reads_the_same_both_ways(first: str, second: str, label: str) -> None:
    """Each rule of this decision with its control, read with either text as the premise."""
    assert heuristic_nli(first, second).label == label
    assert heuristic_nli(second, first).label == label


def test_a_bound_is_no_negation_cue() -> None:
    tokens = tokenize("take no more than 3 g a day, and no more than one or two doses")
    assert [is_cue(tokens, i) for i, tok in enumerate(tokens) if tok == "no"] == [False, False]
    denied = tokenize("took no more notice of the signs than before")
    assert is_cue(denied, denied.index("no")) is True
    stopped = tokenize("it is no longer a problem for us")
    assert is_cue(stopped, stopped.index("no")) is True


def test_hardly_a_week_goes_by_without_is_no_negation() -> None:
    tokens = tokenize("hardly a week goes by without two of them turning up")
    assert is_cue(tokens, tokens.index("without")) is False
    plain = tokenize("a week goes by without two of them turning up")
    assert is_cue(plain, plain.index("without")) is True


def test_prohibitions_are_told_from_denials() -> None:
    assert prohibition_only(tokenize("Do not use it in people with a central line")) is True
    assert prohibition_only(tokenize("patients must not take it with warfarin")) is True
    assert prohibition_only(tokenize("we do not recommend it on heavy clay")) is True
    assert prohibition_only(tokenize("do not cause any loss of smell")) is False
    # urged, not advised against
    assert prohibition_only(tokenize("headache should not be overlooked")) is False
    # a condition that opens the advice says to whom it is given
    assert prohibition_only(tokenize("if you have never had one, do not start it")) is True
    assert prohibition_only(tokenize("it did not reduce pain")) is False


def test_people_without_something_is_a_group_and_a_condition_is_not() -> None:
    group = tokenize("in people without heart disease")
    assert describes_a_group(group, group.index("without")) is True
    condition = tokenize("vitamin D without calcium had no effect")
    assert describes_a_group(condition, condition.index("without")) is False


def test_a_few_of_a_witness_own_is_a_share_of_at_least_a_few_in_a_hundred() -> None:
    assert FEW_KNOWN.low == 5.0
    assert read_share(tokenize("two or three of our regulars had a ticket")) == FEW_KNOWN
    assert read_share(tokenize("we lost ours and three other plot-holders had theirs go")) == (
        FEW_KNOWN
    )
    assert read_share(tokenize("two or three wardens had a ticket book")) is None
    # a witness's words that deny it is rare: a larger share (decision 0139)
    assert read_share(tokenize("we lost four and it's far from rare round here")) == NOT_RARE
    assert read_share(tokenize("we lost four, not some one-off thing")) == NOT_RARE
    assert read_share(tokenize("we lost four and it is rare round here")) is None


def test_a_mass_to_an_area_in_grams_per_square_metre() -> None:
    floor = read_amounts(tokenize("Use at least 50 grams of straw per square metre of pond."))
    assert floor is not None and floor.floor is True
    assert floor.value(MASS_PER_AREA) == 50.0
    enough = read_amounts(
        tokenize("A couple of hundred grams is plenty for a pond like mine of 20 square metres.")
    )
    assert enough is not None and enough.floor is False
    assert enough.value(MASS_PER_AREA) == 10.0
    assert read_amounts(tokenize("Fifteen kilos a hectare is plenty.")).value(MASS_PER_AREA) == (  # type: ignore[union-attr]
        1.5
    )


def test_a_couple_of_hundred_is_two_hundred_and_one_or_two_a_range() -> None:
    assert tokenize("a couple of hundred grams") == ["200", "grams"]
    assert tokenize("one or two decibels") == ["1", "or", "2", "decibels"]
    assert tokenize("one of the ponds") == ["one", "of", "the", "ponds"]


def test_a_month_is_no_outcome() -> None:
    assert outcome_words("come August both ponds were the same shade of green") == outcome_words(
        "both ponds were the same shade of green"
    )


def test_plenty_for_me_and_no_need_for_more_is_a_claim() -> None:
    assert informativeness(
        "A little dab once a day for a week was plenty for me, no need to slather it on "
        "morning and night for months like they say."
    ) == pytest.approx(0.4)
    assert informativeness("A little dab once a day for a week was plenty for me.") == 0.0


def test_a_no_compound_is_no_negation_and_no_one_is() -> None:
    tokens = tokenize("they were served a no-fault eviction notice")
    assert is_cue(tokens, tokens.index("no")) is False
    nobody = tokenize("no-one was served a notice")
    assert is_cue(nobody, nobody.index("no")) is True


def test_to_go_after_so_many_months_rent_is_an_amount_not_a_time() -> None:
    enough = read_amounts(tokenize("I only went after 3 months' rent and that's plenty."))
    assert enough is not None and enough.floor is False
    assert enough.value("days in all") == 90.0
    timed = read_amounts(tokenize("After 3 months the rent review was plenty."))
    assert timed is None


def test_a_notice_to_quit_is_an_eviction_notice() -> None:
    assert tokenize("a notice to quit, then booted out") == [
        "a", "eviction", "notice", "then", "evicted",
    ]  # fmt: skip
