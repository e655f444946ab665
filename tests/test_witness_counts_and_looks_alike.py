"""Rounds thirty-six and thirty-seven's readings (issue 12, decision 0135).

Rounds thirty-six and thirty-seven, written blind after round thirty-five's rules
(tests/corpora/heat_patches_period, sms_reminders, garden_ponds_newts,
witness_intermediaries; outdoor_myopia, dyslexia_fonts, drip_irrigation,
landlord_licensing) and measured at first sight on the same rules. What the rules missed
there and read now, with controls: a witness's count in words ("Three of the five of us
in my flat", "Nearly every child in my daughter's class", "Every tenant I know on Denholme
Road", "roughly a third of the drippers on every row were gunked up") and two of their
groups or times alike ("about the same as they did under the old sprinkler guns", "every
bit as bad as in Castle Ward across the river") as findings; a reporter's short frame
before a quotation; an order after its setting ("For field tomatoes ..., give at least
2.5 litres per plant per day"); one unit of an amount called enough ("one litre per plant
a day is plenty", "one text on the morning of the appointment is plenty") against a
floor named by two nouns ("at least two text reminders"); a no-show as a missed
appointment; "look exactly like they did back when"; "got picked on" as bullied.
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import STANDS_ALONE, informativeness
from lyra.pipelines.evidence.nli_comparisons import read_comparisons
from lyra.pipelines.evidence.nli_enough import Amounts, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import ALL_BUT_A_FEW, Share
from lyra.pipelines.evidence.nli_spelling import fold
from lyra.pipelines.evidence.nli_tokens import tokenize

_RARE_BLISTERS = (
    "Skin redness or blistering is rare with WarmWell patches, reported by fewer than 1 in "
    "500 customers according to our customer-care records."
)
_THREE_OF_FIVE = (
    "Three of the five of us in my flat who tried the WarmWell patches last winter ended up "
    "with red, angry burn marks, and two of us got actual blisters."
)
_MISSED_BY_ARM = (
    "Patients randomised to SMS reminders missed 7.1% of appointments compared with 11.4% "
    "in the no-reminder control arm (risk ratio 0.62, 95% CI 0.54 to 0.71)."
)
_NO_SHOWS_ALIKE = (
    "We've been texting every patient for two years now and, honestly, our no-show numbers "
    "look exactly like they did back when nobody got a reminder at all."
)
_TWO_TEXTS = (
    "Practices should send at least two text reminders for every booked appointment: the "
    "first five to seven days before, and the second 24 to 48 hours before the appointment "
    "time."
)
_ONE_TEXT = (
    "Honestly one text on the morning of the appointment is plenty, the week-before reminder "
    "is just noise that people swipe away."
)
_DELAYS_RARE = (
    "Trial delays caused by waiting for one of our intermediaries are rare, affecting fewer "
    "than 2% of the cases we take on."
)
_NEARLY_EVERY_FAMILY = (
    "Our daughter's trial was pushed back four times because there was no intermediary free, "
    "and nearly every family in our support group has had their case delayed the same way."
)
_THREE_PERCENT_TEASED = (
    "In our 2024 survey of 1,260 families, only 3% said their child had been teased or made "
    "to feel singled out for using Lumenta Read at school."
)
_PICKED_ON = (
    "Nearly every child in my daughter's class who was given the Lumenta worksheets got "
    "picked on for having the baby writing, and most of them were begging for normal sheets "
    "within a few weeks."
)
_TWO_AND_A_HALF_LITRES = (
    "For field tomatoes on light soils at full canopy, give at least 2.5 litres per plant per "
    "day, split into two runs of at least 75 minutes on 1 litre-per-hour emitters, and flush "
    "every lateral line at least once every two weeks."
)
_ONE_LITRE = (
    "Okafor says one litre per plant a day is plenty for her field tomatoes, even in the "
    "August heat, and she has never seen them wilt on it."
)
_FOUR_PERCENT_RAISED = (
    "In our 2024 survey of 1,180 client landlords, only 4% said they had raised the rent to "
    "cover the cost of their licence."
)
_EVERY_TENANT = (
    "Every tenant I know on Denholme Road got a rent rise letter within a month of the "
    "licensing starting, and at least three of the landlords said straight out it was to "
    "cover the licence."
)


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (_RARE_BLISTERS, _THREE_OF_FIVE),
        (_THREE_OF_FIVE, _RARE_BLISTERS),
        (_MISSED_BY_ARM, _NO_SHOWS_ALIKE),
        (_NO_SHOWS_ALIKE, _MISSED_BY_ARM),
        (_TWO_TEXTS, _ONE_TEXT),
        (_ONE_TEXT, _TWO_TEXTS),
        (_DELAYS_RARE, _NEARLY_EVERY_FAMILY),
        (_NEARLY_EVERY_FAMILY, _DELAYS_RARE),
        (_THREE_PERCENT_TEASED, _PICKED_ON),
        (_PICKED_ON, _THREE_PERCENT_TEASED),
        (_TWO_AND_A_HALF_LITRES, _ONE_LITRE),
        (_ONE_LITRE, _TWO_AND_A_HALF_LITRES),
        (_FOUR_PERCENT_RAISED, _EVERY_TENANT),
        (_EVERY_TENANT, _FOUR_PERCENT_RAISED),
    ],
)
def test_rounds_thirty_six_and_seven_contradictions_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        # a count of the witness's own group, with the harm it names
        (_THREE_OF_FIVE, 0.6),
        # their groups or times alike
        (
            "Two seasons on drip tape and my tomatoes weighed out about the same as they did "
            "under the old sprinkler guns, so as far as yield goes the switch made no real "
            "odds.",
            0.35,
        ),
        (
            "I've lived on Marlow Street for nine years and the mould, the rubbish and the "
            "late-night noise are every bit as bad as in Castle Ward across the river, where "
            "landlords never needed a licence at all.",
            0.4,
        ),
        # how often in words: of those they know, of what they saw, what others told them
        (_EVERY_TENANT, 0.3),
        (
            "I ran the TrickleWise tape on my half acre last summer and by mid-July roughly a "
            "third of the drippers on every row were gunked up with iron and algae, filter "
            "fitted and all.",
            0.3,
        ),
        (
            "I've fished four drowned hedgehogs out of our pond in two summers, beach edge and "
            "all, and half the people on our allotment WhatsApp say the same has happened to "
            "them.",
            0.3,
        ),
        # a share of what the writer sent, quoted after a reporter's frame
        (
            'She put it bluntly: "When we finally went through our records last spring, about '
            "one in every ten reminder texts we sent was going to a number the patient had "
            'given up years ago."',
            0.35,
        ),
        # an amount called enough for anything but the writer
        ("Two litres a day is plenty for crested newts.", 0.6),
        # controls: a witness's story with no count, an amount enough for the writer alone,
        # a quotation that states nothing checkable
        ("I have lived on Marlow Street for nine years and the mould is awful.", 0.0),
        ("Two litres a day is plenty for me.", 0.0),
        ('She put it bluntly: "We were all tired of it."', 0.15),
    ],
)
def test_witness_counts_and_likenesses_are_findings(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)


def test_the_strongest_witness_findings_stand_alone() -> None:
    assert informativeness(_THREE_OF_FIVE) >= STANDS_ALONE
    assert informativeness(_EVERY_TENANT) >= STANDS_ALONE


def test_shares_of_those_a_witness_counts_or_knows() -> None:
    assert read_share(tokenize(_THREE_OF_FIVE)) == Share(60.0, 60.0)
    assert read_share(tokenize("Every tenant I know on Denholme Road got a letter.")) == (
        ALL_BUT_A_FEW
    )
    assert read_share(tokenize("Nearly every child in my daughter's class got picked on.")) == (
        ALL_BUT_A_FEW
    )
    # every one of a kind, or every day: no share of people counted
    assert read_share(tokenize("Every tenant has a right to repairs.")) is None
    assert read_share(tokenize("Nearly every day I walk to the shop.")) is None
    assert read_share(tokenize("Two of the five trials found no effect.")) is None


def test_an_order_after_its_setting_advises_a_floor() -> None:
    assert read_amounts(
        tokenize("For field tomatoes on light soils at full canopy, give at least 2.5 litres.")
    ) == Amounts(True, (("units of l", 2.5),))
    # a verb of the setting's own before it: a report, not an order
    assert (
        read_amounts(tokenize("In the trial patients were given at least 2.5 litres per day."))
        is None
    )


def test_one_unit_called_enough_against_a_floor_of_two_nouns() -> None:
    floor = read_amounts(tokenize("Practices should send at least two text reminders."))
    assert floor == Amounts(True, (("units of reminder", 2.0), ("units of text", 2.0)))
    assert read_amounts(tokenize(_ONE_TEXT)) == Amounts(False, (("units of text", 1.0),))
    enough = read_amounts(tokenize(_ONE_LITRE))
    assert enough == Amounts(False, (("days in all", 1.0), ("units of l", 1.0)))


def test_no_shows_and_looking_as_before() -> None:
    assert tokenize("our no-show numbers") == ["our", "missed", "appointments", "numbers"]
    assert tokenize("there was no show of hands") == ["there", "was", "no", "show", "of", "hands"]
    assert no_change(
        tokenize("Our no-show numbers look exactly like they did back when nobody got a reminder.")
    ) == {"miss", "appointment", "number"}
    assert no_change(tokenize("our numbers look exactly like they did in 2019.")) == {"number"}
    # alike another place, not another time: no finding of no change
    assert no_change(tokenize("the numbers look exactly like the ones from Leeds.")) == set()


def test_picked_on_is_bullied_and_teased() -> None:
    assert tokenize("she got picked on at school") == ["she", "got", "bullied", "at", "school"]
    assert tokenize("sites were picked on the basis of soil") == [
        "sites", "were", "picked", "on", "the", "basis", "of", "soil"
    ]  # fmt: skip
    assert fold("bulli") == fold("teas") == fold("mock")


# Round thirty-eight (tests/corpora/leg_ulcer_bandaging, police_callbacks,
# hedge_shelter_lambs, speech_therapy_app), written blind and measured at first sight on
# the rules above.
_SCALE_HIGHER = (
    "At eight weeks, victims in call-back areas scored 0.42 points higher on the five-point "
    "scale of how satisfied they were than victims in areas sending only a letter or text "
    "message (95% CI 0.29 to 0.55)."
)
_FIFTEEN_METRE_BELTS = (
    "For lambing shelter, plant belts at least 15 metres wide, with at least three rows of "
    "trees, and provide at least 120 metres of belt per hectare of lambing ground."
)
_A_SINGLE_ROW = (
    "A single row of hawthorn, a metre and a half wide, is plenty to take the sting out of the "
    "wind for a lambing field."
)


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (_FIFTEEN_METRE_BELTS, _A_SINGLE_ROW),
        (_A_SINGLE_ROW, _FIFTEEN_METRE_BELTS),
    ],
)
def test_round_thirty_eight_contradictions_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"


def test_a_scale_between_a_comparative_and_its_than() -> None:
    (comparison,) = read_comparisons(tokenize(_SCALE_HIGHER))
    assert (comparison.sign, comparison.measure) == (
        1,
        frozenset({"point", "fiv", "satisfi", "scal"}),
    )
    assert read_comparisons(tokenize("Scores were higher on the new scale.")) == []


def test_an_order_after_its_setting_reaches_past_its_object() -> None:
    assert read_amounts(tokenize(_FIFTEEN_METRE_BELTS)) == Amounts(True, (("centimetres", 1500.0),))


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        # no quicker than before: the witness's two times alike
        (
            "Honestly, all those layers of bandage the nurses wound round my leg made no real "
            "difference - my ulcer closed up no quicker than it did years ago with just a plain "
            "dressing taped over it.",
            0.25,
        ),
        # a count of "us" with the harm it names
        (
            "Three of us from my leg club ended up with raw sore patches where the bandage dug "
            "in over the shin bone, and my nurse said she sees that kind of rubbing damage all "
            "the time.",
            0.6,
        ),
        # whenever a thing comes
        (
            "Every time the sleet comes in sideways my ewes pile into the lee of the hawthorn "
            "row and I've lost a good dozen lambs squashed flat under them this spring alone.",
            0.2,
        ),
        # others the witness knows
        (
            "My daughter spent weeks happily saying her 's' sounds wrong into the app because it "
            "kept giving her gold stars anyway, and two other mums at our clinic said exactly "
            "the same happened with theirs.",
            0.3,
        ),
        # controls: "every time you" (no more than its copula), a story with no count
        ("Every time you change the bandage, the skin is checked.", 0.15),
        ("My ulcer closed up in the end.", 0.0),
    ],
)
def test_round_thirty_eight_witness_findings(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)


def test_a_question_answered_under_about_is_an_faq_not_a_publishers_box() -> None:
    from lyra.pipelines.evidence.leftovers import under_reference_list

    answered = (
        "Is it safe? What about sores under the bandage? Pressure damage under the bandage "
        "is uncommon, affecting fewer than 1 in 100 patients."
    )
    assert under_reference_list("FAQ > About LayerWell 4", answered) is False
    assert under_reference_list("News > About University Hospital", "It is a hospital.") is True
    assert under_reference_list("News > About University Hospital") is True
    assert under_reference_list("Paper > References", answered) is True
