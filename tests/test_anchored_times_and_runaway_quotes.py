"""Minutes timed by their event, before or after it; a quotation that runs on past its
first sentence; the people of a writer's ward or class; a head gone bald as hair lost,
a child in tears as upset; things done without something, graded rare; so many of a
witness's own geese; whenever a thing comes; "and I'm right as rain"; two plots compared
with no difference, one of bare soil; every single time I've felt queasy; a weedy paddy;
children who concentrate; jobs alike with those still waiting against a waitlisted
comparison group; the writer's child's class; a ten-micron film; the amount one only
needs; a wait until years have passed; aching alike against pain lower; no further
action; "Rest each paddock"; "where we'd just"; nights left switched off against a no-fan
group; spuds, tonnage and bugs; complaints that something happened; plenty in my
experience; "Empty and dry the tank"; most of our junior intake; not the odd bad day;
every bed we put them on; 2 of every 100; boxes for a whole two-acre field; one two-hour
session; plenty for me, you get ...; 17 of them far after the group; "or not"; no lonelier
than those of us; lonelier as loneliness (decision 0142), each with its control."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claim_verbs import has_verb
from lyra.pipelines.evidence.claims import extract_claims_extractive, informativeness
from lyra.pipelines.evidence.harm_reports import PLAIN_GROUP, TWO_GROUPS_ALIKE, witnessed
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_enough import Amounts, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_numbers import measures
from lyra.pipelines.evidence.nli_often import AFTER, BEFORE
from lyra.pipelines.evidence.nli_orders import ordered
from lyra.pipelines.evidence.nli_outcomes import outcome_words
from lyra.pipelines.evidence.nli_shares_said import ALL_BUT_A_FEW, Share, most_known
from lyra.pipelines.evidence.nli_tokens import content_keys, denies_rarity, is_negated, tokenize

_WRAP_FLOOR = (
    "Wrapping should start at least 20 minutes before every session, and carry on for "
    "at least 60 minutes after the session ends."
)
_BEFORE_ONLY_FLOOR = "Wrapping should start at least 20 minutes before every session."


def _plain(text: str) -> str:
    found = PLAIN_GROUP.search(text)
    return found.group() if found else ""


def _amounts(text: str) -> dict[str, float]:
    read = read_amounts(tokenize(text))
    assert read is not None
    return dict(read.by_dimension)


def test_minutes_are_read_with_the_event_they_are_timed_by() -> None:
    assert _amounts(_WRAP_FLOOR) == {"minutes each": 20.0, BEFORE: 20.0, AFTER: 60.0}


def test_once_the_thing_comes_off_is_after_it() -> None:
    assert _amounts("Ten minutes in the wrap once the pump comes off is plenty.") == {
        "minutes each": 10.0,
        AFTER: 10.0,
    }


def test_once_a_day_is_how_often_not_after() -> None:
    found = _amounts("Ten minutes once a day is plenty.")
    assert AFTER not in found
    assert found["minutes each"] == 10.0


def test_minutes_after_called_enough_refute_a_floor_after() -> None:
    # 10 after against at least 60 after; the 20 before is not what it is set against
    result = heuristic_nli(
        "Ten minutes in the wrap once the pump comes off is plenty.", _WRAP_FLOOR
    )
    assert result.label == "refutes"


def test_minutes_after_are_not_set_against_a_floor_before() -> None:
    # 10 after, and a floor that times only before: no dimension timed alike
    result = heuristic_nli("Ten minutes after the session is plenty.", _BEFORE_ONLY_FLOOR)
    assert result.label == "neutral"


def test_untimed_minutes_still_meet_a_timed_floor() -> None:
    # no event named: each time's minutes, as before decision 0142
    result = heuristic_nli("Ten minutes in the wrap is plenty.", _BEFORE_ONLY_FLOOR)
    assert result.label == "refutes"


_RUNAWAY = (
    'He said: "Four of the six boilers I reported through the portal were marked as fixed '
    "when no engineer had called."
)


def test_a_quotation_that_runs_on_is_scored_as_its_statement() -> None:
    bare = _RUNAWAY.split('"', 1)[1]
    assert informativeness(_RUNAWAY) == pytest.approx(informativeness(bare))
    assert informativeness(_RUNAWAY) == pytest.approx(0.3)


def test_the_runaway_quotation_is_picked_from_its_passage() -> None:
    passage = (
        _RUNAWAY + " The radiator, the hot water and the leak under the sink. Every time I "
        'have had to ring them again."'
    )
    picked = extract_claims_extractive(passage, "Do repair portals get boilers fixed?", 1)
    assert [c.text for c in picked] == [_RUNAWAY]


def test_a_closed_quotation_with_its_speaker_keeps_its_penalty() -> None:
    closed = '"The portal marks jobs as fixed far too early," he said.'
    assert informativeness(closed) == pytest.approx(0.0)


_WARD = (
    "The women on my ward who wore the cold mitts ended up every bit as numb as the ones "
    "who refused them."
)


def test_the_people_of_a_writers_ward_are_no_story_of_theirs() -> None:
    assert informativeness(_WARD) == pytest.approx(0.5)


def test_the_people_of_a_writers_family_are_still_their_story() -> None:
    # not a place the writer works or lives among others: their own, measured, at half
    family = _WARD.replace("on my ward", "in my family")
    assert informativeness(family) == pytest.approx(0.25)


@pytest.mark.parametrize(
    ("first", "second"),
    [("bald", "hair"), ("baldness", "hair"), ("tears", "upset"), ("weedy", "weeds"),
     ("concentrated", "attention")],
)  # fmt: skip
def test_words_for_one_outcome_share_a_key(first: str, second: str) -> None:
    assert content_keys(tokenize(first)) == content_keys(tokenize(second))


def test_a_head_gone_bald_refutes_hair_kept() -> None:
    witness = (
        "Honestly, the men on my ward who wore the chilled band ended up every bit as bald "
        "as the ones who never bothered with it."
    )
    trial = (
        "Hair was kept by 48.0% of men in the chilled-band arm compared with 9.5% of men in "
        "the control arm (95% CI 27.1 to 49.9)."
    )
    assert heuristic_nli(witness, trial).label == "refutes"


def test_a_class_in_tears_refutes_upset_called_rare() -> None:
    witness = (
        "When I ran the frog dissection with my Year 5s, easily half of the class were in "
        "tears before we started, so it is not a rare thing."
    )
    figure = "Fewer than 3 in every 100 pupils became upset during a frog dissection."
    assert heuristic_nli(witness, figure).label == "refutes"


def test_a_share_of_things_done_without_something_graded_rare_is_read() -> None:
    text = "Boilers signed off without a safety check are rare, at fewer than 1 in 400 visits."
    assert read_changes(tokenize(text)).share == Share(0.0, 0.25)


def test_without_denies_where_no_grade_names_what_the_share_counts() -> None:
    text = "The drops eased colic without any rise in reflux, which affected 4 in 100 babies."
    assert read_changes(tokenize(text)).share is None


def test_so_many_of_the_witness_own_animals_are_a_share() -> None:
    taken = "By the end of May the stoats had taken 9 of our 20 geese."
    assert read_changes(tokenize(taken)).share == Share(45.0, 45.0)


def test_so_many_of_the_witness_own_things_are_a_share_and_their_years_none() -> None:
    # things as well as animals since decision 0144 ("nine of my twenty-six trees")
    ruined = "By the end of May the damp had ruined 9 of our 20 tables."
    assert read_changes(tokenize(ruined)).share == Share(45.0, 45.0)
    spent = "I spent 3 of my 5 years on the scheme waiting for a hearing."
    assert read_changes(tokenize(spent)).share is None


_WHENEVER = (
    "I've worked the front desk for six years and whenever the cat's in, half the waiting "
    "room and me are sneezing by noon."
)


def test_whenever_a_thing_comes_the_witness_tells_how_often() -> None:
    assert informativeness(_WHENEVER) == pytest.approx(0.3)


def test_without_whenever_the_same_words_are_the_writers_story() -> None:
    assert informativeness(_WHENEVER.replace("whenever the cat's in, ", "")) == 0.0


def test_an_amount_enough_for_me_and_i_am_better_is_what_came_of_it() -> None:
    enough = (
        "Two drops at night for a day or two is plenty for me, and I'm right as rain by Friday."
    )
    assert informativeness(enough) == pytest.approx(0.3)
    assert informativeness(enough.split(", and")[0] + ".") == 0.0


_MULCH_WITNESS = (
    "We had mulch on my allotment beds all summer and the plot next door had bare soil, "
    "and when we compared the two, the mulch made no real difference to how many slugs "
    "turned up."
)


def test_the_two_compared_with_no_difference_is_a_witness_alike() -> None:
    assert informativeness(_MULCH_WITNESS) == pytest.approx(0.35)
    joined = " ".join(tokenize(_MULCH_WITNESS))
    alike, plain = TWO_GROUPS_ALIKE.search(joined), PLAIN_GROUP.search(joined)
    assert (
        alike is not None and alike.group() == "compared the two the mulch made no real difference"
    )
    assert plain is not None and plain.group() == "bare soil"


def test_bare_soil_is_a_plain_group_and_a_bare_minimum_is_not() -> None:
    assert _plain("the plot next door had bare soil") == "bare soil"
    assert PLAIN_GROUP.search("the bare minimum of watering") is None


_TONIC_WITNESS = "Every single time I've had the bitter tonic I've felt queasy within the hour."
_TONIC_FIGURE = "Nausea is rare with the bitter tonic, reported by fewer than 1 in 100 users."


def test_every_single_time_ive_felt_queasy_refutes_nausea_called_rare() -> None:
    assert heuristic_nli(_TONIC_WITNESS, _TONIC_FIGURE).label == "refutes"


def test_every_single_time_she_felt_queasy_is_no_witness_of_her_own() -> None:
    told = _TONIC_WITNESS.replace("I've had", "she had")
    assert heuristic_nli(told, _TONIC_FIGURE).label == "neutral"


_LETTERS_WITNESS = (
    "Down at the advice centre, people who had the new letters were finding jobs at about "
    "the same rate as the folks still waiting for theirs."
)
_LETTERS_TRIAL = (
    "At 6 months, 38.0% of letter recipients were in paid employment compared with 30.5% "
    "of the waitlisted comparison group (95% CI 3.1 to 11.9)."
)


def test_jobs_alike_with_those_still_waiting_refute_employment_ahead_of_a_waitlist() -> None:
    assert heuristic_nli(_LETTERS_WITNESS, _LETTERS_TRIAL).label == "refutes"


def test_jobs_alike_with_those_who_had_it_earlier_is_no_plain_group() -> None:
    earlier = _LETTERS_WITNESS.replace(
        "the folks still waiting for theirs", "the folks who got them last year"
    )
    assert heuristic_nli(earlier, _LETTERS_TRIAL).label == "neutral"


_CHESS_CLASS = (
    "My son's class did the chess club all winter and the kids who just carried on with "
    "normal lessons did every bit as well in their maths tests."
)


def test_the_writers_childs_class_is_no_story_of_the_writers() -> None:
    assert informativeness(_CHESS_CLASS) == pytest.approx(0.5)
    assert informativeness(_CHESS_CLASS.replace("My son's class", "My son")) == 0.0


def test_a_unit_joined_to_its_count_before_the_thing_is_read() -> None:
    assert _amounts("A thin eight-micron film is plenty for lettuce.") == {"units of micron": 8.0}


def test_the_amount_one_only_needs_after_enough_is_read() -> None:
    needed = "A thin film is plenty, because you only need it holding for about three months."
    assert _amounts(needed) == {"days in all": 90.0}
    reason = "A thin film is plenty, because the weather was dry for about three months."
    assert read_amounts(tokenize(reason)) is None


def test_a_wait_until_years_have_passed_is_a_span() -> None:
    wait = "Records should be cleared only after at least five full years have passed."
    assert read_amounts(tokenize(wait)) == Amounts(True, (("days in all", 1825.0),))
    # a time, as before: "after at least five years" names when, not how long
    assert read_amounts(tokenize("Records should be reviewed after at least five years.")) is None


_WRAP_WITNESS = (
    "In my practice, the tight wrist wraps did no more for people's aching wrists and stiff "
    "mornings than a pair of plain sweatbands."
)
_WRAP_TRIAL = (
    "At 8 weeks, mean wrist pain was 1.5 points lower in the wrap group than in the sham "
    "wrap group (95% CI 0.7 to 2.3)."
)


def test_aching_alike_refutes_pain_lower_whatever_it_was_aching_in() -> None:
    assert heuristic_nli(_WRAP_WITNESS, _WRAP_TRIAL).label == "refutes"


def test_a_likeness_in_another_measure_stays_apart_from_pain() -> None:
    other = _WRAP_WITNESS.replace("aching wrists and stiff mornings", "grip strength")
    assert heuristic_nli(other, _WRAP_TRIAL).label == "neutral"


def test_no_further_action_is_an_outcome_named_not_a_denial() -> None:
    named = "Such cases are rare, with fewer than 1 in 50 ending in a caution or no further action."
    assert read_changes(tokenize(named)).share == Share(0.0, 2.0)
    denied = "Cautions were rare, at fewer than 1 in 50, with no further rise in complaints."
    assert read_changes(tokenize(denied)).share is None


def test_an_instruction_with_its_object_has_a_verb() -> None:
    assert has_verb("Rest each paddock for a minimum of 60 days.")
    assert not has_verb("Rest areas and toilets")


def test_the_fields_where_we_had_just_gone_on_are_a_plain_group() -> None:
    assert _plain("the fields where we'd just kept moving the cows") == "where we'd just"


_FAN_WITNESS = (
    "We ran that fan every night through the heatwave, and honestly my two woke just as much "
    "as on the nights we left it switched off."
)
_FAN_TRIAL = (
    "Over the first week, children in the fan group had 1.1 fewer night wakings than "
    "children in the no-fan group (95% CI 0.4 to 1.8)."
)


def test_nights_left_switched_off_are_a_plain_group_against_a_no_fan_group() -> None:
    assert heuristic_nli(_FAN_WITNESS, _FAN_TRIAL).label == "refutes"


def test_nights_alike_with_other_children_are_no_plain_group() -> None:
    cousins = _FAN_WITNESS.replace("on the nights we left it switched off", "their cousins did")
    assert heuristic_nli(cousins, _FAN_TRIAL).label == "neutral"


def test_the_plot_left_bare_beside_it_is_a_plain_group() -> None:
    assert (
        _plain("and left the one beside it bare over the winter") == "left the one beside it bare"
    )


@pytest.mark.parametrize(
    ("first", "second"),
    [("spuds", "potatoes"), ("tatties", "potatoes"), ("tonnage", "yield"), ("bugs", "defects")],
)
def test_a_growers_and_a_programmers_words_share_a_key(first: str, second: str) -> None:
    assert content_keys(tokenize(first)) == content_keys(tokenize(second))


def test_complaints_that_frame_what_is_said_to_have_happened() -> None:
    assert outcome_words("Complaints that a tutor overstepped their role are rare.") == frozenset()
    assert outcome_words("Complaints rose by 20% last year.") == {"complaint"}


def test_plenty_in_my_experience_is_an_amount_for_anyone() -> None:
    said = (
        "A good rinse of the filter once a month is plenty in my experience, and the rest "
        "of the time I just leave it."
    )
    assert informativeness(said) == pytest.approx(0.4)
    assert informativeness("A good rinse of the filter once a month is plenty for me.") == 0.0


def test_two_orders_with_one_object_open_an_order() -> None:
    assert ordered(tokenize("Empty and dry the tank every day."))
    assert not ordered(tokenize("Empty and dry tanks are lighter."))


def test_most_of_our_junior_intake_is_most_of_the_witness_own() -> None:
    assert most_known(tokenize("By the end of the week most of our junior intake were exhausted."))
    assert not most_known(tokenize("Most of our junior intake loved it."))


def test_not_the_odd_bad_day_denies_a_rarity() -> None:
    tokens = tokenize("That went on for weeks, not the odd bad day.")
    assert denies_rarity(tokens, tokens.index("not"))


def test_every_bed_we_put_them_on_is_all_the_witness_own() -> None:
    assert read_changes(tokenize("Every bed we put the pellets on came up patchy.")).share == (
        ALL_BUT_A_FEW
    )
    assert read_changes(tokenize("Every bed came up patchy.")).share is None


def test_so_many_of_every_hundred_is_a_share() -> None:
    assert measures(tokenize("It was reported on just 2 of every 100 fields.")) == {
        "%": [(2.0, 2.0, 5)]
    }


def test_so_many_things_for_a_whole_area_are_a_number_per_square_metre() -> None:
    found = _amounts("A couple of boxes for the whole two-acre field is plenty.")
    assert found["box per square metre"] == pytest.approx(2 / (2 * 4046.86))
    assert read_amounts(tokenize("A couple of boxes is plenty.")) is None


def test_one_timed_session_is_one_time_of_its_length() -> None:
    assert _amounts("One two-hour evening session was plenty for me.") == {
        "minutes each": 120.0,
        "times in all": 1.0,
    }
    # one a week is how often, not one in all
    assert "times in all" not in _amounts("One two-hour session a week is plenty.")


def test_plenty_for_me_then_what_you_get_is_for_anyone() -> None:
    said = "One short session was plenty for me, you get the whole idea in the first ten minutes."
    assert informativeness(said) == pytest.approx(0.7)
    assert informativeness("One short session was plenty for me.") == 0.0


_ARBORETUM = (
    "Of the 30 boxes our friends group put up round the arboretum, the grey squirrels had "
    "chewed the holes out"
)


def test_so_many_of_them_far_after_the_group_is_a_share() -> None:
    taken = _ARBORETUM + " and moved into 17 of them by the second spring."
    assert read_changes(tokenize(taken)).share == Share(17 / 30 * 100, 17 / 30 * 100)


def test_a_count_far_after_the_group_without_of_them_is_no_share() -> None:
    empty = _ARBORETUM + " by the second spring, and 17 were empty."
    assert read_changes(tokenize(empty)).share is None


def test_or_not_is_no_denial() -> None:
    assert not is_negated(tokenize("They moved in, guard plates or not."))
    assert is_negated(tokenize("The guard plates did not work."))


def test_no_lonelier_than_those_of_us_is_a_witness_alike() -> None:
    assert witnessed(
        "By the end the folk who'd been told to wait were no lonelier than those of us."
    )
    assert not witnessed("By the end the folk were no lonelier than before.")
    assert _plain("the folk who'd been told to wait a year") == "told to wait"


@pytest.mark.parametrize(
    ("first", "second"),
    [("lonelier", "loneliness"), ("healthier", "healthy"), ("happier", "happiness")],
)
def test_a_comparative_in_y_shares_its_adjectives_key(first: str, second: str) -> None:
    assert content_keys(tokenize(first)) == content_keys(tokenize(second))


def test_a_noun_in_ier_keeps_its_key() -> None:
    assert content_keys(tokenize("barrier")) == {"barrier"}
