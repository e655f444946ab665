"""A spoonful weighed against grams, meals counted as occasions, "up to" so many times a
week as no floor, a witness's "most mornings", a thing done to "pretty much every" one,
a tree ringbarked as bark stripped, a plain plot "left completely alone", a grazed side
that is no side effect, a chilled cap that is cold, what a thing did "for my head", a
share "only" a few in a hundred had, "loads of the kids in my class", a likeness "just as
thick as", seasons and passes of a roller, "near enough every pass", "most of the folks
in my bay", a jolt that is a shock, a share of those who "never opened" it, "usually" in a later
clause, "the lot who stayed in court", "nearly every jury view I organised", "three of
the five horses on our yard", "so anyone saying" as a clause of its own, half an hour,
once every five working days, "three of the five jobs I reported", and "the ones who said
no thanks" (decision 0141), each with its control."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.harm_reports import witnessed
from lyra.pipelines.evidence.nli_enough import read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import (
    ALL_BUT_A_FEW,
    LOADS_KNOWN,
    MOST_KNOWN,
    Share,
    most_known,
)
from lyra.pipelines.evidence.nli_tokens import tokenize

_SALT_FLOOR = "Dissolve at least 200 g of bath salts in a full bath and soak for 15 minutes."
_BREAKFAST_RULE = "Every pupil should be offered a free breakfast on each of the five school days."
_PONY_TRIAL = (
    "After two grazing seasons, bilberry height in the pony-grazed plots rose by a mean of "
    "6.2 cm more than in the ungrazed control plots (95% CI 3.1 to 9.3)."
)
_GUARD_FIGURE = (
    "Bark stripping of planted saplings is uncommon inside our tree guards, affecting "
    "fewer than 3% of saplings in a typical winter."
)
_COLD_SOCKS_TRIAL = (
    "At four hours, 38.0% of flares treated with the chilled socks were itch-free compared "
    "with 21.5% of flares treated with the room-temperature sham socks (95% CI 6.2 to 26.8)."
)
_WORRY_FIGURE = (
    "Only around 3 in every 100 children show signs of worry or upset during SpellStar "
    "timed quizzes, according to teacher reports."
)
_GORSE_TRIAL = (
    "After three seasons of twice-yearly flailing, gorse stem density was 41% lower on "
    "flailed plots than on untreated control plots (95% CI 28% to 52%)."
)
_MOW_FLOOR = (
    "Mow rushes at least twice each summer and keep it up for a minimum of three consecutive years."
)
_SPARK_FIGURE = (
    "Electric shocks at our bike workshops are rare, with fewer than 1 in 2,000 repairs "
    "leading to a reported shock."
)
_REPLAY_FIGURE = (
    "Only 4% of pupils on partner courses never watched their video feedback, based on "
    "playback data."
)
_BOWL_FIGURE = (
    "Uneaten breakfasts are uncommon in our clubs, with fewer than 5% of bowls returned "
    "more than half full last year."
)

PAIRS = [
    pytest.param(
        _SALT_FLOOR,
        "A heaped tablespoon of bath salts in the tub is plenty for me.",
        "refutes",
        id="a-heaped-tablespoon-called-enough-against-200-g",
    ),
    pytest.param(
        _SALT_FLOOR,
        "Ten heaped tablespoons of bath salts in the tub is plenty for me.",
        "neutral",
        id="control-ten-heaped-tablespoons-may-weigh-200-g",
    ),
    pytest.param(
        _BREAKFAST_RULE,
        "Honestly two free breakfasts a week is plenty, mine eat at home the other days.",
        "refutes",
        id="two-breakfasts-a-week-called-enough-against-five-days",
    ),
    pytest.param(
        _BREAKFAST_RULE,
        "Honestly five free breakfasts a week is plenty, nobody needs a sixth.",
        "neutral",
        id="control-five-breakfasts-a-week-is-the-floor",
    ),
    pytest.param(
        "Soak for at least 15 minutes, up to three times a week.",
        "Honestly one soak a week is plenty for me, and I stay in for half an hour.",
        "neutral",
        id="control-up-to-three-times-a-week-is-no-floor",
    ),
    pytest.param(
        _PONY_TRIAL,
        "After two winters of ponies on our moor, the bilberry on the grazed side is "
        "honestly no taller than on the patch we fenced off and left completely alone.",
        "refutes",
        id="a-grazed-side-no-taller-than-a-patch-left-completely-alone",
    ),
    pytest.param(
        _PONY_TRIAL,
        "After two winters of ponies on our moor, the bilberry on the grazed side is "
        "honestly no taller than on the patch by the gate.",
        "neutral",
        id="control-no-plain-patch",
    ),
    pytest.param(
        _GUARD_FIGURE,
        "The deer ringbarked pretty much every oak sapling we'd planted on our common, "
        "about forty of them in one winter.",
        "refutes",
        id="pretty-much-every-sapling-ringbarked-against-few-stripped",
    ),
    pytest.param(
        _GUARD_FIGURE,
        "The deer ringbarked a couple of the oak saplings on the common last winter.",
        "neutral",
        id="control-a-couple-ringbarked",
    ),
    pytest.param(
        _BOWL_FIGURE,
        "Most mornings I'm scraping half the breakfast bowls into the bin barely touched.",
        "refutes",
        id="most-mornings-half-the-bowls-against-few-returned",
    ),
    pytest.param(
        _COLD_SOCKS_TRIAL,
        "I was in the cold sock trial and honestly the frozen socks did no more for my feet "
        "than the dummy pair that wasn't even cold.",
        "refutes",
        id="frozen-socks-no-more-for-my-feet-than-the-dummy-pair",
    ),
    pytest.param(
        _COLD_SOCKS_TRIAL,
        "I was in the cold sock trial and honestly the frozen socks did no more for my "
        "sleep than the dummy pair that wasn't even cold.",
        "neutral",
        id="control-no-more-for-my-sleep-names-another-outcome",
    ),
    pytest.param(
        _WORRY_FIGURE,
        "By half-term, loads of the kids in my son's class were in tears over the timed "
        "spelling quizzes.",
        "refutes",
        id="loads-of-the-kids-in-my-class-in-tears-against-only-3-in-100",
    ),
    pytest.param(
        _WORRY_FIGURE,
        "By half-term, a couple of kids were in tears over the timed spelling quizzes.",
        "neutral",
        id="control-a-couple-of-kids-known-to-no-one",
    ),
    pytest.param(
        _GORSE_TRIAL,
        "We flailed the top field twice a summer for three years and honestly the gorse's come "
        "back just as thick as on the bit we never touched.",
        "refutes",
        id="gorse-just-as-thick-as-the-bit-never-touched",
    ),
    pytest.param(
        _GORSE_TRIAL,
        "We flailed the top field twice a summer for three years and honestly the gorse's come "
        "back just as thick as it was.",
        "neutral",
        id="control-no-plain-plot",
    ),
    pytest.param(
        "Roll bracken at least twice each summer and keep it up for a minimum of three "
        "consecutive years.",
        "Honestly one go with the roller in July, just the one summer, is plenty.",
        "refutes",
        id="one-go-one-summer-called-enough-against-three-years",
    ),
    pytest.param(
        _MOW_FLOOR,
        "Honestly two goes with the mower each summer, for three or four summers, is plenty.",
        "neutral",
        id="control-two-goes-for-four-summers-meets-the-floor",
    ),
    pytest.param(
        "Disturbance of nesting birds is uncommon with our roller: fewer than 1 in 50 "
        "operators reported flushing a bird from a nest.",
        "I walked behind the roller last June and we flushed skylarks off nests on near "
        "enough every pass.",
        "refutes",
        id="near-enough-every-pass-against-few-operators",
    ),
    pytest.param(
        "Headaches from the cold are uncommon, with only around 3 in every 100 users "
        "reporting one.",
        "Most of the folks in my infusion bay got a splitting headache from the ice every "
        "single cycle, me included.",
        "refutes",
        id="most-of-the-folks-in-my-bay-against-only-3-in-100",
    ),
    pytest.param(
        _SPARK_FIGURE,
        "Half of us mechanics at the Saturday bike workshop have had a jolt off someone's "
        "e-bike charger.",
        "refutes",
        id="half-of-us-had-a-jolt-against-rare-shocks",
    ),
    pytest.param(
        _REPLAY_FIGURE,
        "Speaking as a rep for a group of about 60, well over half of my lot admitted they "
        "never watched the video feedback at all.",
        "refutes",
        id="well-over-half-never-watched-against-only-4-percent",
    ),
    pytest.param(
        _REPLAY_FIGURE,
        "Speaking as a rep for a group of about 60, a couple of my lot admitted they never "
        "watched the video feedback at all.",
        "neutral",
        id="control-a-couple-never-watched",
    ),
    pytest.param(
        "Dizziness is uncommon, affecting fewer than 1 in 50 wearers, and it usually settles "
        "within a few days.",
        "Every single time I put the new glasses on I felt woozy, and about half the people "
        "in my clinic support group said they got the same.",
        "refutes",
        id="half-my-group-woozy-against-uncommon-that-usually-settles",
    ),
    pytest.param(
        "Dizziness is usually uncommon, affecting fewer than 1 in 50 wearers.",
        "Every single time I put the new glasses on I felt woozy, and about half the people "
        "in my clinic support group said they got the same.",
        "neutral",
        id="control-usually-in-the-share-clause",
    ),
    pytest.param(
        "Jurors randomised to the site visit scored a mean of 14.2 points higher on the "
        "comprehension test than jurors in the photographs control arm (95% CI 9.8 to 18.6).",
        "In the mock trials I watched, the jurors who went to the scene understood the case "
        "no better than the lot who stayed in court with the photos.",
        "refutes",
        id="no-better-than-the-lot-who-stayed-in-court",
    ),
    pytest.param(
        "Delays are uncommon: only 2.5% of the 480 site visits we have run pushed a trial "
        "back by more than half a day.",
        "Nearly every site visit I organised set the trial back by at least a day.",
        "refutes",
        id="nearly-every-visit-i-organised-against-few-delays",
    ),
    pytest.param(
        "Hooves getting caught in our nets are rare, with fewer than 1 in 500 customers "
        "reporting a snagged hoof.",
        "Three of the five horses on our yard have caught a hoof in their nets since "
        "October, so anyone saying it's rare hasn't been on a yard like ours.",
        "refutes",
        id="three-of-the-five-on-our-yard-against-rare",
    ),
    pytest.param(
        "Hooves getting caught in our nets are rare, with fewer than 1 in 500 customers "
        "reporting a snagged hoof.",
        "One of the five horses on our yard has caught a hoof in its net since October.",
        "refutes",
        id="one-of-five-is-twenty-percent-against-rare",
    ),
    pytest.param(
        "Schools should timetable a practical session of no less than 60 minutes.",
        "We gave it half an hour, and that was plenty for my Year 5s.",
        "refutes",
        id="half-an-hour-called-enough-against-sixty-minutes",
    ),
    pytest.param(
        "Schools should timetable a practical session of no less than 60 minutes.",
        "We gave it an hour and a half, and that was plenty for my Year 5s.",
        "neutral",
        id="control-an-hour-and-a-half-meets-sixty-minutes",
    ),
    pytest.param(
        "Landlords should give the tenant a progress update at least once every 5 working "
        "days while a job is open.",
        "Honestly a text once a month is loads for a routine job.",
        "refutes",
        id="once-a-month-called-enough-against-once-every-five-working-days",
    ),
]


@pytest.mark.parametrize(("first", "second", "label"), PAIRS)
def test_each_pair_reads_the_same_both_ways(first: str, second: str, label: str) -> None:
    """Each reading of this decision with its control, either text as the premise."""
    assert heuristic_nli(first, second).label == label
    assert heuristic_nli(second, first).label == label


def test_a_spoonful_is_weighed_at_its_heaviest_called_enough_and_lightest_as_a_floor() -> None:
    enough = read_amounts(tokenize("A heaped tablespoon of bath salts is plenty."))
    assert enough is not None
    # 15 ml, half again heaped; at 1.5 g a millilitre
    assert dict(enough.by_dimension) == {"millilitres": 22.5, "milligrams": 33750.0}
    level = read_amounts(tokenize("Two level teaspoons of the powder is plenty."))
    assert level is not None
    assert dict(level.by_dimension) == {"millilitres": 10.0, "milligrams": 15000.0}
    floor = read_amounts(tokenize("Add at least 2 tablespoons of oats to the bath."))
    assert floor is not None
    # at 0.4 g a millilitre
    assert dict(floor.by_dimension) == {"millilitres": 30.0, "milligrams": 12000.0}


def test_up_to_so_many_times_a_week_is_no_floor() -> None:
    amounts = read_amounts(tokenize("Soak for at least 15 minutes, up to three times a week."))
    assert amounts is not None
    assert dict(amounts.by_dimension) == {"minutes each": 15.0}
    weekly = read_amounts(tokenize("Soak for at least 15 minutes, three times a week."))
    assert weekly is not None
    assert dict(weekly.by_dimension) == {"minutes each": 15.0, "times a week": 3.0}


def test_meals_are_occasions() -> None:
    amounts = read_amounts(tokenize("Three free lunches a week is plenty."))
    assert amounts is not None
    assert dict(amounts.by_dimension) == {"times a week": 3.0}


def test_most_mornings_a_witness_saw_is_a_claim() -> None:
    seen = "Most mornings I'm scraping half the breakfast bowls into the bin barely touched."
    assert witnessed(seen) is True
    assert informativeness(seen) == pytest.approx(0.3)
    # no witness: how most mornings are
    assert witnessed("Most mornings are busy in the breakfast club.") is False


def test_what_was_done_to_pretty_much_every_one_is_a_share() -> None:
    done = "The deer ringbarked pretty much every oak sapling we'd planted."
    assert read_share(tokenize(done)) == ALL_BUT_A_FEW
    # no witness: a general claim, no share
    assert read_share(tokenize("The deer ringbarked pretty much every oak sapling.")) is None


def test_loads_of_those_the_witness_sits_among_is_a_share() -> None:
    assert read_share(tokenize("Loads of the kids in my son's class were in tears.")) == (
        LOADS_KNOWN
    )
    assert read_share(tokenize("Loads of the other parents told me the same.")) == LOADS_KNOWN
    # loads of anyone's: no share
    assert read_share(tokenize("Loads of the kids were in tears.")) is None


def test_seasons_and_passes_of_a_roller() -> None:
    floor = read_amounts(tokenize(_MOW_FLOOR))
    assert floor is not None
    # twice a summer is twice a year; three years in all
    assert dict(floor.by_dimension) == {"days in all": 1095.0, "times a week": 2 / 52}
    enough = read_amounts(tokenize("One go with the roller, just the one summer, is plenty."))
    assert enough is not None
    assert dict(enough.by_dimension) == {"days in all": 365.0, "times in all": 1.0}
    # so many with a thing each summer, and each week
    goes = read_amounts(tokenize("Two goes with the mower each summer is plenty."))
    assert goes is not None
    assert dict(goes.by_dimension) == {"times in all": 2.0, "times a week": 2 / 52}
    sessions = read_amounts(tokenize("Two sessions with a physio every other week is plenty."))
    assert sessions is not None
    assert dict(sessions.by_dimension) == {"times in all": 2.0, "times a week": 1.0}


def test_most_of_those_in_the_witness_place_and_every_single_cycle() -> None:
    most = "Most of the folks in my infusion bay got a headache every single cycle."
    assert most_known(tokenize(most)) is True
    assert read_share(tokenize(most)) == MOST_KNOWN
    assert witnessed("I got a splitting headache every single cycle.") is True
    # most of anyone's: no witness's share
    assert most_known(tokenize("Most of the folks in the bay got a headache.")) is False


def test_nearly_every_one_i_organised_is_a_claim() -> None:
    seen = "Nearly every jury view I organised set the trial back by at least a day."
    assert witnessed(seen) is True
    assert informativeness(seen) == pytest.approx(0.2)
    assert witnessed("Nearly every jury view set the trial back by a day.") is False


def test_half_an_hour_and_once_every_five_working_days() -> None:
    half = read_amounts(tokenize("Half an hour is plenty."))
    assert half is not None
    assert dict(half.by_dimension) == {"minutes each": 30.0}
    and_a_half = read_amounts(tokenize("An hour and a half is plenty."))
    assert and_a_half is not None
    assert dict(and_a_half.by_dimension) == {"minutes each": 90.0}
    updates = read_amounts(
        tokenize("Tenants should get an update at least once every 5 working days.")
    )
    assert updates is not None
    assert dict(updates.by_dimension) == {"times a week": 1.4}


def test_so_many_of_those_the_witness_did_and_those_who_said_no() -> None:
    jobs = "Three of the five jobs I reported on the app were marked as done when nobody came."
    assert witnessed(jobs) is True
    assert read_share(tokenize(jobs)) == Share(60.0, 60.0)
    # not the witness's doing: no share of things
    assert read_share(tokenize("Three of the five tables in the hall got a scratch.")) is None
    said_no = (
        "The ladies on my ward with the cap ended up every bit as bald as the ones who said "
        "no thanks and skipped it."
    )
    assert witnessed(said_no) is True
