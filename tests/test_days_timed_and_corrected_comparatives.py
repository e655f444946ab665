"""Days and weeks timed by their event; an order after "Starting ..."; "for no longer
than" as no floor; "I never bothered beyond that and healed fine"; plenty of time for
the ground; "loads of time"; those told to leave a thing alone; the standard track and
the ungrazed field as control arms; "of the dozen or so clients I've taken ..., most";
"wider, not narrower"; every field that ended up rutted; couldn't tell who'd had what;
refused to watch as stopped (decision 0143), each with its control."""

from __future__ import annotations

from lyra.pipelines.evidence.claims import MIN_INFORMATIVENESS, informativeness
from lyra.pipelines.evidence.harm_reports import PLAIN_GROUP, TWO_GROUPS_ALIKE, witnessed
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_enough import read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_often import AFTER, BEFORE
from lyra.pipelines.evidence.nli_orders import ordered
from lyra.pipelines.evidence.nli_shares_said import ALL_BUT_A_FEW, most_known
from lyra.pipelines.evidence.nli_tokens import is_negated, tokenize

_A_DAY = 1440.0
_SOWING_FLOOR = "Take the cattle off at least four weeks before the planned sowing date."
_MEDIATION_LEAD = (
    "Claims referred to mediation were more likely to settle within 20 weeks than claims "
    "on the standard track (58% vs 41%; risk ratio 1.41, 95% CI 1.2 to 1.6)."
)
_MEDIATION_WITNESS = (
    "The claims we sent to mediation settled no quicker than the ones we just left on the "
    "court list."
)
_STUBBLE_LEAD = (
    "Wheat after grazed stubble yielded 0.4 t/ha more than wheat after ungrazed stubble "
    "(95% CI 0.1 to 0.7 t/ha)."
)
_STUBBLE_WITNESS = (
    "The wheat where the sheep had been was no better than the strip where we'd just left "
    "the stubble standing."
)
_SURVEY_RARITY = (
    "Landlords backing down after a hearing are uncommon: in our 2024 survey, only 3% of "
    "tenants said the landlord backed down after the hearing."
)


def _amounts(text: str) -> dict[str, float]:
    read = read_amounts(tokenize(text))
    assert read is not None
    return dict(read.by_dimension)


def _plain(text: str) -> str:
    found = PLAIN_GROUP.search(text)
    return found.group() if found else ""


def _alike(text: str) -> str:
    found = TWO_GROUPS_ALIKE.search(" ".join(tokenize(text)))
    return found.group() if found else ""


def test_weeks_before_an_event_are_when_not_how_long() -> None:
    assert _amounts(_SOWING_FLOOR) == {BEFORE: 28 * _A_DAY}


def test_days_before_called_enough_are_timed_alike() -> None:
    enough = "Ours come off about five days before the seed goes in and that's plenty."
    assert _amounts(enough) == {BEFORE: 5 * _A_DAY}


def test_days_before_called_enough_refute_a_floor_of_weeks_before() -> None:
    enough = "Ours come off about five days before the seed goes in and that's plenty."
    assert heuristic_nli(enough, _SOWING_FLOOR).label == "refutes"
    assert heuristic_nli(_SOWING_FLOOR, enough).label == "refutes"


def test_weeks_kept_up_for_after_an_event_are_how_long() -> None:
    # "for at least six weeks after": how long the brace is worn, not when
    assert _amounts("The brace should be worn for at least six weeks after the injury.") == {
        "days in all": 42.0
    }


def test_a_range_of_weeks_after_an_event_is_a_floor_at_its_low_end() -> None:
    found = _amounts(
        "The meeting should be held between 4 and 10 weeks after the claim is lodged, and "
        "should last at least two hours."
    )
    assert found == {AFTER: 28 * _A_DAY, "minutes each": 120.0}


def test_an_order_after_a_time_it_starts_from_advises_its_floor() -> None:
    text = (
        "Starting 48 hours after the operation, rinse with warm water at least three times "
        "a day for at least five days."
    )
    assert ordered(tokenize(text))
    # "Starting 48 hours after" is when, not how long each rinse lasts
    assert _amounts(text) == {"days in all": 5.0, AFTER: 48 * 60.0, "times a week": 21.0}


def test_a_finding_after_a_starting_time_is_no_order() -> None:
    text = (
        "Starting 48 hours after the operation, patients who rinsed at least three times "
        "a day had fewer infections."
    )
    assert not ordered(tokenize(text))


def test_gargle_and_rinse_open_orders() -> None:
    assert ordered(tokenize("Gargle with warm salty water at least twice a day."))
    assert ordered(tokenize("Rinse with the solution at least four times a day."))


def test_no_longer_than_is_no_floor() -> None:
    found = _amounts(
        "Take the ewes off at least three weeks before sowing, grazing for no longer than "
        "10 days on any one field."
    )
    assert found == {BEFORE: 21 * _A_DAY}


def test_no_less_than_stays_a_floor() -> None:
    assert _amounts("Rest the field for no less than 10 days.") == {"days in all": 10.0}


def test_an_amount_enough_and_healed_fine_is_the_writers_measured_result() -> None:
    healed = (
        "Twice a day for three days was plenty with the mouthwash, I never bothered beyond "
        "that and healed fine."
    )
    assert informativeness(healed) >= MIN_INFORMATIVENESS
    # no outcome of theirs: the writer's own habit only
    assert (
        informativeness(
            "Twice a day for three days was plenty with the mouthwash, I never bothered "
            "beyond that."
        )
        == 0.0
    )


def test_plenty_of_time_for_a_thing_is_beyond_the_writer() -> None:
    text = (
        "Ours go off about a week before the seed goes in and that's plenty of time for the "
        "soil to settle."
    )
    assert informativeness(text) >= MIN_INFORMATIVENESS
    assert (
        informativeness(
            "Ours go off about a week before the seed goes in and that's plenty of time for me."
        )
        == 0.0
    )


def test_loads_of_time_calls_an_amount_enough() -> None:
    assert _amounts(
        "Our hearing was over in about thirty minutes, and that was loads of time."
    ) == {"minutes each": 30.0}
    # "loads of" people is a great many
    assert read_amounts(tokenize("It took about thirty minutes and loads of people came.")) is None


def test_those_told_to_leave_a_thing_alone_are_a_plain_group() -> None:
    assert _plain("the ones we told to leave their gums alone") == "leave their gums alone"
    assert _plain("the ones we told to leave early") == ""


def test_the_standard_track_is_a_control_arm() -> None:
    assert heuristic_nli(_MEDIATION_WITNESS, _MEDIATION_LEAD).label == "refutes"
    other = _MEDIATION_LEAD.replace("the standard track", "the fast track")
    assert heuristic_nli(_MEDIATION_WITNESS, other).label == "neutral"


def test_the_ungrazed_field_is_a_control_arm() -> None:
    assert heuristic_nli(_STUBBLE_WITNESS, _STUBBLE_LEAD).label == "refutes"
    other = _STUBBLE_LEAD.replace("ungrazed stubble", "late-sown stubble")
    assert heuristic_nli(_STUBBLE_WITNESS, other).label == "neutral"


def test_most_of_those_the_witness_dealt_with_named_first() -> None:
    text = (
        "Of the twenty or so tenants I've represented at a hearing, most saw the landlord "
        "back down afterwards."
    )
    assert most_known(tokenize(text))
    assert informativeness(text) >= MIN_INFORMATIVENESS
    assert heuristic_nli(text, _SURVEY_RARITY).label == "refutes"


def test_most_of_those_named_first_not_what_they_liked_nor_a_survey() -> None:
    liked = "Of the twenty or so tenants I've represented at a hearing, most liked the judge."
    assert not most_known(tokenize(liked))
    survey = "Of the twenty tenants in the survey, most saw the landlord back down."
    assert not most_known(tokenize(survey))


def test_a_comparative_set_aside_for_its_opposite_is_no_negation() -> None:
    assert not is_negated(tokenize("After the hearing the gap got wider, not narrower."))
    assert is_negated(tokenize("After the hearing the gap did not get narrower."))


def test_every_field_that_ended_up_rutted_is_the_witness_share() -> None:
    text = (
        "We had the contractor's sheep on our stubble last year and nearly every field "
        "they grazed ended up rutted."
    )
    assert read_changes(tokenize(text)).share == ALL_BUT_A_FEW
    assert read_changes(tokenize("Nearly every field they grazed ended up rutted.")).share is None


def test_could_not_tell_who_had_what_sets_two_groups_alike() -> None:
    text = (
        "My two had the video lessons and their cousins had the normal lessons, and by "
        "summer you couldn't tell who'd had what."
    )
    assert _alike(text) == "couldn't tell who'd had what"
    assert witnessed(text)
    assert _alike("By summer you couldn't tell who had arrived first.") == ""


def test_refusing_to_go_on_is_stopping() -> None:
    refused = read_changes(
        tokenize(
            "At our pool at least half the boys in my son's class refused to wear the goggles."
        )
    )
    assert "stop" in refused.share_about
    wore = read_changes(
        tokenize("At our pool at least half the boys in my son's class wore the goggles.")
    )
    assert "stop" not in wore.share_about


def test_days_waited_after_an_event_are_a_span_and_a_time_after() -> None:
    floor = "Councils should wait at least 14 days after the letter is sent."
    enough = "A couple of days after the letter is loads of time."
    assert _amounts(floor) == {"days in all": 14.0, AFTER: 14 * _A_DAY}
    assert _amounts(enough) == {AFTER: 2 * _A_DAY}
    assert heuristic_nli(enough, floor).label == "refutes"


def test_notice_is_a_span_and_a_time_before() -> None:
    enough = "Three weeks' notice is plenty to get the room booked."
    floor = "A room should be booked at least 8 weeks before the hearing date."
    assert _amounts(enough) == {"days in all": 21.0, BEFORE: 21 * _A_DAY}
    assert _amounts(floor) == {BEFORE: 56 * _A_DAY}
    assert heuristic_nli(enough, floor).label == "refutes"


def test_so_many_a_day_is_how_often_not_a_span() -> None:
    assert _amounts("Adults should take at least 6 a day for 3 to 5 days.") == {
        "days in all": 3.0,
        "times a week": 42.0,
    }
    enough = "Three pastilles a day for a day or two is plenty."
    assert _amounts(enough) == {"days in all": 1.0, "times a week": 21.0}
    assert heuristic_nli(
        "Adults should suck at least 6 pastilles a day for 3 to 5 days.", enough
    ).label == ("refutes")


def test_every_so_many_to_so_many_hours_is_the_wider_gap() -> None:
    assert _amounts("Take one pastille at least every 2 to 4 hours.") == {"times a week": 42.0}


def test_times_in_a_season_every_so_many_days_are_no_times_a_fortnight() -> None:
    assert _amounts("Spray at least three times in the season, every 10 to 14 days.") == {
        "times a week": 0.5,
        "times in all": 3.0,
    }


def test_half_a_litre_to_the_hectare_refutes_a_floor_per_hectare() -> None:
    floor = "For a quick response, spray the extract at a minimum of 3 litres per hectare."
    enough = "Half a litre to the hectare is plenty."
    assert _amounts(floor) == {"litr per square metre": 0.0003}
    assert _amounts(enough) == {"litr per square metre": 0.00005}
    assert heuristic_nli(enough, floor).label == "refutes"


def test_how_a_witness_s_group_felt_is_their_count() -> None:
    assert witnessed("Half my class felt sick after the session in the gym.")
    assert not witnessed("The class felt sick after the session.")


def test_one_lot_told_from_the_other_and_the_half_left_as_always() -> None:
    text = (
        "We fed the new mix to one half of the flock and left the other half as we always "
        "do, and at weaning you couldn't tell one lot of lambs from the other."
    )
    assert _alike(text) == "couldn't tell one lot of lambs from the other"
    assert _plain(text) == "left the other half as we always do"
    assert informativeness(text) >= MIN_INFORMATIVENESS
    assert _alike("You couldn't tell one from the next.") == ""


def test_an_opening_comparison_of_the_witness_s_groups_is_a_claim() -> None:
    text = (
        "When we compared the patients wearing the new bandage with the ones we gave the "
        "ordinary one, their legs healed about the same by the end of the month."
    )
    assert informativeness(text) >= MIN_INFORMATIVENESS
    # the frame alone: no two groups alike
    assert (
        informativeness(
            "When we compared the two bandages, their legs healed by the end of the month."
        )
        == 0.0
    )


def test_every_single_time_i_ve_used_it_is_no_rarity() -> None:
    rarity = (
        "Being overheard by staff during a visit is rare, affecting fewer than 1 in 300 visits."
    )
    witness = (
        "Every single time I've used that visiting room there's been a guard stood within earshot."
    )
    assert read_changes(tokenize(witness)).share == ALL_BUT_A_FEW
    assert heuristic_nli(witness, rarity).label == "refutes"
    # a time not stressed, and no symptom: no share
    assert (
        read_changes(tokenize("Every time I've used that room there's been a guard.")).share is None
    )


def test_nearly_every_one_of_my_clients_rang_in_pieces() -> None:
    rarity = (
        "In our 2024 audit, fewer than 1 in 300 recipients (0.3%) said a letter had caused "
        "them distress."
    )
    witness = "Nearly every one of my clients who got that letter rang me in pieces afterwards."
    reading = read_changes(tokenize(witness))
    assert reading.share == ALL_BUT_A_FEW
    assert "distress" in reading.share_about
    assert heuristic_nli(witness, rarity).label == "refutes"
    calm = read_changes(
        tokenize("Nearly every one of my clients who got that letter rang me afterwards.")
    )
    assert "distress" not in calm.share_about


def test_those_who_came_on_their_own_and_those_left_out_are_plain_groups() -> None:
    assert _plain("the ones who came in on their own") == "came in on their own"
    assert _plain("the lot I'd left out on the field") == "left out on the field"
    assert _plain("the ones who came in with their own solicitor") == ""


def test_stock_left_out_as_before_is_a_control_arm() -> None:
    lead = (
        "Over the winter, steers on the straw yards gained 0.2 kg/day more than steers "
        "outwintered on the hill (95% CI 0.1 to 0.3 kg/day)."
    )
    witness = (
        "The bullocks off the straw yards weighed no more than the lot I'd left out on the field."
    )
    assert heuristic_nli(witness, lead).label == "refutes"


def test_mums_and_dads_are_parents_and_work_done_is_completed() -> None:
    lead = (
        "At 12 months, parents in the advocate arm had 25% fewer adjourned hearings than "
        "parents in the control arm (rate ratio 0.75, 95% CI 0.6 to 0.9)."
    )
    witness = (
        "The mums and dads who brought an advocate got their hearings put off just as often "
        "as the ones who came in on their own."
    )
    assert heuristic_nli(witness, lead).label == "refutes"


def test_kilometres_a_week_are_a_distance_not_times() -> None:
    enough = "Ten kilometres a week on the bike is plenty to keep the grant."
    floor = "Grant holders should ride at least 40 km per week to keep the grant."
    assert _amounts(enough) == {"units of km": 10.0}
    assert _amounts(floor) == {"units of km": 40.0}
    assert heuristic_nli(enough, floor).label == "refutes"


def test_years_apart_in_words_stay_a_span_between() -> None:
    enough = "We cut ours every four or five years, and that's been plenty for the birds."
    assert _amounts(enough) == {"days in all": 4 * 365.0}


def test_plain_water_and_pens_without_are_control_arms() -> None:
    soak_lead = (
        "At 12 weeks, full movement had come back in 22% of the wax-bath group compared "
        "with 8% of the warm-water bath group (risk difference 14 points, 95% CI 5 to 23)."
    )
    soak_witness = (
        "In my clinic, the patients who dipped their hands in wax ended up with movement no "
        "better than the ones who just dipped them in warm water."
    )
    assert heuristic_nli(soak_witness, soak_lead).label == "refutes"
    other = soak_lead.replace("warm-water bath group", "heat-pad group")
    assert heuristic_nli(soak_witness, other).label == "neutral"
    pen_lead = (
        "Over the trial, calves in pens fitted with a heat lamp gained 0.1 kg/day more than "
        "calves in pens without a lamp (95% CI 0.05 to 0.15)."
    )
    pen_witness = (
        "Honestly, the calves in the shed with the lamp came out of winter every bit as "
        "small as the ones next door that never had one."
    )
    assert heuristic_nli(pen_witness, pen_lead).label == "refutes"


def test_a_pronoun_names_no_outcome() -> None:
    from lyra.pipelines.evidence.nli_outcomes import outcome_words

    assert "one" not in outcome_words(
        "The calves came out every bit as small as the ones next door that never had one."
    )


def test_a_witness_s_count_of_their_own_stock_not_rare_for_us() -> None:
    rarity = (
        "Foot injuries are rare with the FeedRail: our records show fewer than 3 cases per "
        "1,000 cows per year."
    )
    witness = (
        "Foot injuries weren't rare for us at all, we had 19 of our 150 cows hurt a foot on "
        "the rail in the first winter."
    )
    assert not is_negated(tokenize(witness))
    assert informativeness(witness) >= MIN_INFORMATIVENESS
    assert read_changes(tokenize(rarity)).share is not None
    assert heuristic_nli(witness, rarity).label == "refutes"
    # a brush for every so many cows is a ratio, no share of cows
    ratio = "Farms should provide at least one brush for every 60 cows."
    assert read_changes(tokenize(ratio)).share is None


def test_the_one_thing_for_so_many_called_enough() -> None:
    enough = "We've got the one trough for 120 milkers and it's plenty, they just queue."
    floor = "Farms should provide at least one trough for every 40 cows."
    assert _amounts(enough)["per cow"] == 1 / 120
    assert heuristic_nli(enough, floor).label == "refutes"


def test_dropped_connections_and_calls_cut_off_are_no_change() -> None:
    rarity = "Dropped connections are rare: fewer than 2 in every 100 sessions were cut off early."
    reading = read_changes(tokenize(rarity))
    assert reading.sized_change == frozenset()
    assert reading.share is not None
    witness = "Nearly every video call we booked since March froze at least once."
    assert read_changes(tokenize(witness)).share == ALL_BUT_A_FEW


def test_a_single_half_hour_chat_is_thirty_minutes() -> None:
    assert _amounts("A single half-hour chat is plenty.") == {"minutes each": 30.0}
    assert _amounts("One half-hour chat is plenty.") == {"minutes each": 30.0, "times in all": 1.0}
    # a kind joined by hyphens is still one occasion: "one face-to-face meeting"
    assert _amounts("One face-to-face meeting is plenty.") == {"times in all": 1.0}


def test_move_and_shift_open_orders() -> None:
    floor = "Move the fence to open a fresh strip at least every three days."
    assert ordered(tokenize(floor))
    assert _amounts(floor) == {"times a week": 7 / 3}
    enough = "Shifting the wire once a week is plenty."
    assert heuristic_nli(enough, floor).label == "refutes"
    assert not ordered(tokenize("Move of the herd was delayed by at least three days."))
