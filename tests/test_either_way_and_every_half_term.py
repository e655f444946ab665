"""Every bit as sore either way; a denial that runs past a second thing; plain groups in
more words (just sitting, the rows I still spray, nothing on their walls, the full fee);
"where you can't" and "a yes or no" deny nothing; "than fields with no bales" as a
control arm; the witness's own stock counted in words; a harm called rare that the
other names, however each counts it; "If you ..., immerse ... for at least"; "no more
than three times a week" as no floor; the folks I sit with; every half term (decision
0144), each with its control."""

from __future__ import annotations

from lyra.pipelines.evidence.claims import MIN_INFORMATIVENESS, informativeness
from lyra.pipelines.evidence.harm_reports import PLAIN_GROUP, TWO_GROUPS_ALIKE, witnessed
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_enough import read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_numbers import LEVEL, measures
from lyra.pipelines.evidence.nli_shares import Share
from lyra.pipelines.evidence.nli_shares_said import most_known
from lyra.pipelines.evidence.nli_tokens import is_negated, tokenize

_SORENESS_LEAD = (
    "At 48 hours, soreness on the 100 mm visual analogue scale was 11.4 mm lower in the "
    "cold-water group than in the seated-rest control group (95% CI 6.2 to 16.6 mm)."
)
_EITHER_WAY = (
    "I did six weeks of ice baths after squats and six weeks of just sitting on the sofa, "
    "and my legs were every bit as sore either way."
)
_FILING_LEAD = (
    "At 180 days, 47.3% of claimants offered an automatic fee waiver had filed a claim, "
    "compared with 31.9% of those offered the standard fee schedule (risk difference 15.4 "
    "percentage points, 95% CI 11.2 to 19.6)."
)
_NO_MORE_OFTEN = (
    "From what I saw, the people who got their fees waived didn't file any more often, or "
    "stick with their cases any longer, than the people who paid the full sixty-five "
    "dollars."
)
_VOLES_RARE = (
    "Vole damage is uncommon: in our 2023 grower survey, only 4% of orchards using Orchard "
    "Carpet reported trees girdled by voles."
)
_VOLES_SEEN = (
    "The first winter after I sowed clover under my young Bramleys the voles ringbarked "
    "nine of my twenty-six trees, and I'd never had a vole problem in that block before."
)
_WAITS_RARE = (
    "Long waits are rare: across the 38 courts running WaiverWise last year, just 2.7% of "
    "fee waiver requests took more than five business days to get a decision."
)
_STILL_WAITING = (
    "Most of the folks I sit with at the help desk are still waiting on a yes or no about "
    "their fee three or four weeks after they apply."
)
_PLUNGE_FLOOR = (
    "If you choose to use cold-water immersion after lifting, immerse your legs in water of "
    "10 to 15°C for at least 10 minutes, no more than three times a week."
)
_WALL_FLOOR = (
    "Departments should display at least 20 topic-specific terms on each science word "
    "wall, refreshing the display at least once every two weeks for the whole of every "
    "teaching unit."
)
_HALF_TERM = (
    "Honestly, eight words on the wall, changed once every half term, is plenty for my Year 8s."
)


def _found(pattern: object, text: str) -> bool:
    return pattern.search(" ".join(tokenize(text))) is not None  # type: ignore[attr-defined]


def test_every_bit_as_sore_either_way_sets_two_groups_alike() -> None:
    assert _found(TWO_GROUPS_ALIKE, _EITHER_WAY)
    assert _found(PLAIN_GROUP, _EITHER_WAY)
    assert informativeness(_EITHER_WAY) >= MIN_INFORMATIVENESS
    assert heuristic_nli(_SORENESS_LEAD, _EITHER_WAY).label == "refutes"
    assert heuristic_nli(_EITHER_WAY, _SORENESS_LEAD).label == "refutes"
    # control: sore either way of one group is no likeness of two
    assert not _found(TWO_GROUPS_ALIKE, "My legs were sore either way after the plunge.")


def test_a_denied_comparison_runs_past_a_second_thing() -> None:
    assert _found(TWO_GROUPS_ALIKE, _NO_MORE_OFTEN)
    assert _found(PLAIN_GROUP, _NO_MORE_OFTEN)
    assert heuristic_nli(_FILING_LEAD, _NO_MORE_OFTEN).label == "refutes"
    assert heuristic_nli(_NO_MORE_OFTEN, _FILING_LEAD).label == "refutes"
    # control: the waived group filing more often agrees with the lead
    more = _NO_MORE_OFTEN.replace("didn't file any more often", "filed far more often")
    assert heuristic_nli(_FILING_LEAD, more).label != "refutes"


def test_plain_groups_in_more_words() -> None:
    assert _found(PLAIN_GROUP, "the weeds were as thick as in the rows I still spray")
    assert _found(PLAIN_GROUP, "the set next door who had nothing on their walls")
    assert _found(PLAIN_GROUP, "the ones whose landlords went straight to court")
    # control: a witness who still does the new thing names no plain group
    assert not _found(PLAIN_GROUP, "I love the clover and I keep sowing more of it each year")


def test_where_you_cannot_and_a_yes_or_no_deny_nothing() -> None:
    assert not is_negated(tokenize("that panicky gasping thing where you can't get your breath"))
    assert not is_negated(tokenize("still waiting on a yes or no about their fee"))
    # control: a plain denial stays one
    assert is_negated(tokenize("you can't get your breath for the first minute"))


def test_than_those_with_none_is_a_control_arm() -> None:
    witness = (
        "We bale grazed the top field two winters on the trot and the grass came back no "
        "better than the bottom field, where we've never put a bale out."
    )
    ahead = (
        "Bale-grazed fields grew 30% more grass the next spring than fields with no bales put out."
    )
    assert heuristic_nli(ahead, witness).label == "refutes"
    # control: ahead of another treated field is no lead over a control
    other = (
        "Bale-grazed fields grew 30% more grass the next spring than fields fed with a ring feeder."
    )
    assert heuristic_nli(other, witness).label != "refutes"


def test_the_witness_s_own_stock_in_words_is_a_share_and_meets_a_rarity() -> None:
    assert read_changes(tokenize(_VOLES_SEEN)).share == Share(9 / 26 * 100, 9 / 26 * 100)
    assert witnessed(_VOLES_SEEN)
    assert informativeness(_VOLES_SEEN) >= MIN_INFORMATIVENESS
    assert heuristic_nli(_VOLES_RARE, _VOLES_SEEN).label == "refutes"
    assert heuristic_nli(_VOLES_SEEN, _VOLES_RARE).label == "refutes"
    # control: years of the witness's own are no stock
    assert read_changes(tokenize("I spent 3 of my 5 years on the scheme waiting.")).share is None


def test_most_of_those_a_witness_sits_with_deny_a_rarity() -> None:
    assert most_known(tokenize(_STILL_WAITING))
    assert heuristic_nli(_WAITS_RARE, _STILL_WAITING).label == "refutes"
    assert heuristic_nli(_STILL_WAITING, _WAITS_RARE).label == "refutes"
    # control: most of a thing the witness likes is no count
    assert not most_known(tokenize("Most of the folks I sit with loved the new forms."))


def test_an_order_after_if_and_no_more_than_as_no_floor() -> None:
    read = read_amounts(tokenize(_PLUNGE_FLOOR))
    assert read is not None
    assert read.floor
    assert dict(read.by_dimension) == {"minutes each": 10.0}
    enough = "Two or three minutes up to your waist in the ice water is plenty."
    assert heuristic_nli(_PLUNGE_FLOOR, enough).label == "refutes"
    # control: ten minutes is the floor, not under it
    assert (
        heuristic_nli(_PLUNGE_FLOOR, "Ten minutes in the ice water is plenty.").label != "refutes"
    )


def test_every_half_term_is_six_times_a_year() -> None:
    read = read_amounts(tokenize(_HALF_TERM))
    assert read is not None
    assert dict(read.by_dimension) == {"times a week": 6 / 52}
    assert informativeness(_HALF_TERM) >= MIN_INFORMATIVENESS
    assert heuristic_nli(_WALL_FLOOR, _HALF_TERM).label == "refutes"
    # control: every week is over a fortnightly floor
    weekly = "Honestly, eight words on the wall, changed every week, is plenty for my Year 8s."
    assert heuristic_nli(_WALL_FLOOR, weekly).label != "refutes"


def test_a_percentage_of_a_line_is_a_level_not_a_share() -> None:
    cutoff = (
        "Our county board is taking public comment on raising the small claims fee waiver "
        "cutoff from 150% of the federal poverty line to 250%."
    )
    assert measures(tokenize(cutoff)) == {LEVEL: [(150.0, 150.0, 16), (250.0, 250.0, 23)]}
    assert heuristic_nli(cutoff, _WAITS_RARE).label == "neutral"
    # control: a share of people stays a share
    assert measures(tokenize("About 30 percent of patients had a rash.")) == {
        "%": [(30.0, 30.0, 1)]
    }
