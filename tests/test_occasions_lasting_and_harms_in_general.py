"""Round seventeen's readings (issue 12, decision 0128).

Round seventeen, written blind after round sixteen's rules had landed
(tests/corpora/vestibular_exercises, water_meters, reading_dogs, dairy_footbaths), read
28 / 32 facts and 11 / 24 readings at first sight. What the rules missed there and read
now, with controls: a leader named before "a mean of 9.8 more"; "roughly the same share
of <seven words> as herds that hardly ever used a bath"; "made no real dent in"; "just as
much pain" with its comparison named before; occasions counted ("four consecutive
milkings each week", "one milking a week"); an effect gone ("by the second summer ...
every bit as much as before") well inside a floor on how long it lasts; "problems" called
rare against a share of a symptom; a forum poster's lower-case "tbh" / "honestly"
opening a sentence; and a practitioner's "plenty for most of the herds I go on to".
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.leftovers import leftover_reason
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_enough import OFTEN, Amounts, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_lasting import lasting_floor, worn_off_by
from lyra.pipelines.evidence.nli_outcomes import other_outcomes
from lyra.pipelines.evidence.nli_ratios import PERCENT
from lyra.pipelines.evidence.nli_tokens import tokenize
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates
from lyra.pipelines.extract.sentences import split_sentences

_MEAN_OF = (
    "After 12 weeks, children in the dog-reading arm read a mean of 9.8 more words correct "
    "per minute than children in the waiting-list arm (95% CI 5.1 to 14.5)."
)
_FELL = (
    "Over the 16-week intervention period, the prevalence of active digital dermatitis "
    "lesions fell from 24.1% to 9.8% in footbath herds, compared with 23.6% to 21.9% in "
    "control herds (adjusted odds ratio 0.34; 95% CI 0.21 to 0.55)."
)
_SAME_SHARE = (
    "Dr Hallam said herds that footbathed every week ended up with roughly the same share "
    "of cows carrying active digital dermatitis as herds that hardly ever used a bath."
)
_SAME_SHARE_TWICE = (
    "Dr Hallam said herds that footbathed every week ended up with roughly the same share "
    "of cows carrying active digital dermatitis as herds that footbathed twice a week."
)
_LESS_WATER = (
    "In the first year after installation, households switched to compulsory meters used "
    "14.2% less water per person than matched unmetered households (95% CI 10.1% to 18.0%)."
)
_NO_DENT = (
    "The company's own internal review, seen by the Courier, concluded that the meters had "
    "made no real dent in how much water homes in the valley get through."
)
_A_DENT = (
    "The company's own internal review, seen by the Courier, concluded that the meters had "
    "made a real dent in how much water homes in the valley get through."
)
_RARE_PROBLEMS = (
    "In practice, problems are very uncommon: fewer than 1 in 250 children who take part "
    "has an allergic reaction or gets too frightened to carry on."
)
_SNEEZING = (
    "tbh by week three about a third of my group had either started sneezing and itching "
    "or got too scared to go back in with the dog."
)
_READING_BOOKS = (
    "tbh by week three about a third of my group were reading whole chapter books on their own."
)
_FLOOR_MILKINGS = (
    "Copper sulphate footbaths should be made up at 5% (5 kg to every 100 litres of water) "
    "and used for at least four consecutive milkings each week while digital dermatitis is "
    "active in the herd."
)
_ONE_MILKING = (
    "Two per cent, one milking a week, and that's plenty for most of the herds I go on to."
)
_FIVE_MILKINGS = (
    "Two per cent, five milkings a week, and that's plenty for most of the herds I go on to."
)
_FIVE_YEARS = (
    "Companies should plan on the reduction in household demand lasting for at least five "
    "years after a meter is fitted."
)
_SECOND_SUMMER = (
    "By the second summer most of those homes were using every bit as much as they did "
    "before the meter went in."
)
_FOURTH_SUMMER = (
    "By the fourth summer most of those homes were using every bit as much as they did "
    "before the meter went in."
)
_HEIFERS = (
    "honestly about a third of the heifers came out of it with red raw skin round the back "
    "of the heels, some of them cracked and weeping by the friday."
)


def test_a_mean_of_is_no_leader() -> None:
    (comparison,) = read_changes(tokenize(_MEAN_OF)).comparisons
    assert comparison.leader == frozenset({"dog", "read", "arm"})
    assert comparison.measure == frozenset({"word", "minut"})


@pytest.mark.parametrize(
    ("premise", "claim", "label"),
    [
        # the same share as herds that hardly ever bathed: no effect
        (_SAME_SHARE, _FELL, "refutes"),
        (_FELL, _SAME_SHARE, "refutes"),
        # the same share as another bathed group says nothing of the bath
        (_SAME_SHARE_TWICE, _FELL, "neutral"),
        (_NO_DENT, _LESS_WATER, "refutes"),
        (_LESS_WATER, _NO_DENT, "refutes"),
        (_A_DENT, _LESS_WATER, "neutral"),
        ("Older people who did the exercises had just as much pain.",
         "The exercises reduced pain by a third.", "refutes"),
        ("Older people who did the exercises had much less pain.",
         "The exercises reduced pain by a third.", "supports"),
        # problems called rare against a third with a symptom
        (_SNEEZING, _RARE_PROBLEMS, "refutes"),
        (_RARE_PROBLEMS, _SNEEZING, "refutes"),
        (_READING_BOOKS, _RARE_PROBLEMS, "neutral"),
        # one milking a week called plenty against at least four
        (_FLOOR_MILKINGS, _ONE_MILKING, "refutes"),
        (_ONE_MILKING, _FLOOR_MILKINGS, "refutes"),
        (_FLOOR_MILKINGS, _FIVE_MILKINGS, "supports"),
        # gone by the second summer against lasting at least five years
        (_SECOND_SUMMER, _FIVE_YEARS, "refutes"),
        (_FIVE_YEARS, _SECOND_SUMMER, "refutes"),
        (_FOURTH_SUMMER, _FIVE_YEARS, "neutral"),
    ],
)  # fmt: skip
def test_round_seventeen_readings(premise: str, claim: str, label: str) -> None:
    assert heuristic_nli(premise, claim).label == label


def test_occasions_are_counted_a_week() -> None:
    assert read_amounts(tokenize(_FLOOR_MILKINGS)) == Amounts(True, ((OFTEN, 4.0),))
    # the strength called enough too (decision 0132)
    assert read_amounts(tokenize(_ONE_MILKING)) == Amounts(False, ((PERCENT, 2.0), (OFTEN, 1.0)))
    # minutes stay minutes, and a session after "a single 20-minute" is each time
    assert read_amounts(tokenize("A single 20-minute session once a week is plenty.")) == Amounts(
        False, (("minutes each", 20.0), (OFTEN, 1.0))
    )


def test_how_long_an_effect_lasts() -> None:
    assert lasting_floor(tokenize(_FIVE_YEARS)) == 5 * 365.0
    assert worn_off_by(tokenize(_SECOND_SUMMER)) == 2 * 365.0
    assert worn_off_by(tokenize("After 18 months the benefit had worn off.")) == 18 * 30.0
    assert worn_off_by(tokenize("After 18 months the benefit was still there.")) is None
    assert lasting_floor(tokenize("The benefit lasts for several years.")) is None


def test_harm_in_general_meets_a_symptom() -> None:
    assert not other_outcomes(_RARE_PROBLEMS, _SNEEZING)
    # a gain named is no symptom
    assert other_outcomes(_RARE_PROBLEMS, "A third of my group improved their reading scores.")


def test_a_chatty_lower_case_opener_starts_a_sentence() -> None:
    text = "But honestly it was way more problematic than the charity made out. " + _SNEEZING
    assert split_sentences(text) == [
        "But honestly it was way more problematic than the charity made out.",
        _SNEEZING,
    ]
    assert split_sentences("See e.g. honestly nothing. Fine.") == [
        "See e.g. honestly nothing.",
        "Fine.",
    ]
    assert leftover_reason(_HEIFERS) is None
    assert leftover_reason("and then the rest of the heifers were fine by the friday.") == (
        "fragment"
    )


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        (_SAME_SHARE, 0.4),
        (_NO_DENT, 0.4),
        (_ONE_MILKING, 0.7),
        ("For most of the older people I see, five minutes once a day for about three weeks "
         "is plenty.", 0.7),
        (_HEIFERS, 0.6),
        # controls: no symptom; no one the writer sees
        ("honestly the heifers came out of it fine and I was relieved by the friday.", 0.0),
        ("For most of the people, the weather is enough.", 0.15),
    ],
)  # fmt: skip
def test_round_seventeen_claims(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)


def test_the_sweep_pairs_an_effect_gone_with_a_floor_on_how_long_it_lasts() -> None:
    """The two share no word of what changed: the sweep meets them by "lasting"."""
    paragraph = (
        "The fear factor, exactly. But it doesn't stick. " + _SECOND_SUMMER + " People just "
        "get used to it."
    )
    found = contradiction_candidates(
        [("floor", _FIVE_YEARS)],
        {"gone": paragraph, "later": paragraph.replace("second", "fourth")},
    )
    assert found == {"floor": ["gone"]}
