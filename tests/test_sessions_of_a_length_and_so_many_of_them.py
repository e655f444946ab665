"""Sessions of a length counted by the week; an amount well under a floor at two thirds;
"no" after a preposition as a condition; one of a size per so many, and one between so
many; half of a witness's own with three words before the noun; so many of a group
described by one word; so many "of them"; most of the other ones; what those counted
said they could not do; a failure said as "failed to" against one in other words; a test
as no other outcome; the rest left bare; a control arm without any; still as many as
(decision 0147), each with its control."""

from __future__ import annotations

from lyra.pipelines.evidence.claims import MIN_INFORMATIVENESS, informativeness
from lyra.pipelines.evidence.harm_reports import PLAIN_GROUP, TWO_GROUPS_ALIKE, WITNESS_FREQUENCY
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_enough import read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_numbers import measures
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import Share
from lyra.pipelines.evidence.nli_tokens import tokenize


def _amounts(text: str) -> dict[str, float]:
    amounts = read_amounts(tokenize(text))
    assert amounts is not None
    return dict(amounts.by_dimension)


def _refutes_both_ways(first: str, second: str) -> None:
    assert heuristic_nli(first, second).label == "refutes"
    assert heuristic_nli(second, first).label == "refutes"


def _neutral_both_ways(first: str, second: str) -> None:
    assert heuristic_nli(first, second).label == "neutral"
    assert heuristic_nli(second, first).label == "neutral"


def test_sessions_of_a_length_each_week_are_so_many_a_week_and_so_long_each() -> None:
    amounts = _amounts(
        "Clubs should run at least three warm-up sessions of 20 minutes each week before the "
        "season starts."
    )
    assert amounts["times a week"] == 3.0
    assert amounts["minutes each"] == 20.0
    assert amounts["minutes a week"] == 60.0
    # control: with no period after the length, three sessions in all
    control = _amounts("Clubs should run at least three sessions of 20 minutes before the season.")
    assert control["times in all"] == 3.0
    assert "times a week" not in control


def test_sessions_of_a_length_meet_ten_minutes_called_plenty() -> None:
    floor = (
        "Coaches should timetable at least three stretching sessions of 20 minutes each week "
        "through the winter."
    )
    _refutes_both_ways(floor, "Honestly, ten minutes of stretching on a Sunday is plenty.")
    # control: as long each time is not well under
    _neutral_both_ways(floor, "Honestly, twenty minutes of stretching on a Sunday is plenty.")


def test_an_amount_well_under_a_floor_is_under_two_thirds_of_it() -> None:
    floor = (
        "Feed a newborn lamb by bottle at least every three hours, which means at least "
        "eight feeds in 24 hours for the first week."
    )
    _refutes_both_ways(floor, "Honestly four or five feeds a day is plenty for a strong lamb.")
    # control: six a day is three quarters of eight
    _neutral_both_ways(floor, "Honestly six feeds a day is plenty for a strong lamb.")


def test_no_after_a_preposition_is_a_condition_not_a_denial() -> None:
    assert _amounts("Honestly, a four-week go at no screens is plenty to tell.") == {
        "days in all": 28.0
    }
    # control: "not" still denies the plenty
    assert read_amounts(tokenize("Honestly, a four-week go is not plenty to tell.")) is None


def test_one_of_a_size_per_so_many_and_one_between_so_many() -> None:
    floor = "Provide at least one 20 kg salt lick per 25 ewes and check it every day."
    assert _amounts(floor)["per ewe"] == 1 / 25
    assert _amounts("One lick between sixty ewes is plenty.")["per ewe"] == 1 / 60
    _refutes_both_ways(floor, "One lick between sixty ewes is plenty.")
    # control: one for as many as the floor names is what it asks
    assert heuristic_nli(floor, "One lick between 25 ewes is plenty.").label == "supports"
    assert heuristic_nli("One lick between 25 ewes is plenty.", floor).label == "neutral"


def test_half_of_the_witness_own_with_three_words_before_what_that_half_did() -> None:
    text = "About half my Jersey cross heifers had sore, cracked teats by the end of May."
    assert measures(tokenize(text))["%"] == [(50.0, 50.0, 1)]
    # control: no half of anyone where no deed follows ("half the cost of hives and wire")
    control = "The scheme paid half the cost of hives and wire for forty farms."
    assert "%" not in measures(tokenize(control))


def test_so_many_of_a_group_described_by_one_word() -> None:
    text = "Three of the five music teachers in our school lost their voices that term."
    assert read_share(tokenize(text)) == Share(60.0, 60.0)
    # control: books are no people, nor kept in the witness's place
    assert read_share(tokenize("Two of the ten maths books were torn.")) is None


def test_so_many_of_them_that_something_befell() -> None:
    text = "Twelve hens went out in March and the fox had nine of them by June."
    assert read_share(tokenize(text)) == Share(75.0, 75.0)
    # control: an aside about those just counted is no share of them
    aside = "I remember six people on the drug who had a bad bleed, two of them inside the skull."
    assert "%" not in measures(tokenize(aside))


def test_a_share_of_them_against_losses_called_uncommon() -> None:
    rare = (
        "Losses to foxes are uncommon when hens are shut in at night, with fewer than 5% "
        "of hens lost per year in our customer survey."
    )
    witness = (
        "Twelve hens went out in March and the fox had nine of them by June, even though I "
        "shut them in every single night."
    )
    _refutes_both_ways(rare, witness)


def test_most_of_the_other_ones_in_the_witness_place() -> None:
    rare = (
        "Skin irritation is uncommon with our wrist splints, reported by fewer than 2 in "
        "every 100 users in our customer survey."
    )
    witness = (
        "My wrists were red raw from those splints by the second week, and most of the other "
        "women in my class had skin irritation as well."
    )
    _refutes_both_ways(rare, witness)
    # control: "most of the other" with no place of the witness's own reads no share
    assert read_share(tokenize("Most of the other splints on the market are cheaper.")) is None


def test_what_those_counted_said_they_could_not_do_is_their_share() -> None:
    said = "Only 3 in every 100 parents said they could not follow the new form."
    assert read_changes(tokenize(said)).share == Share(3.0, 3.0)
    # control: a negation no one is said to have said denies the share
    denied = "Only 3 in every 100 parents could not follow the new form, we did not find."
    assert read_changes(tokenize(denied)).share is None


def test_a_failure_said_as_failed_to_meets_one_in_other_words() -> None:
    rare = (
        "Lost online applications are rare: the council's audit found fewer than 1 in 200 "
        "applications (0.5%) failed to reach the housing file."
    )
    witness = (
        "Half the families on our street sent their forms online and then got letters saying "
        "the council had nothing on file from any of us."
    )
    _refutes_both_ways(rare, witness)


def test_a_test_is_no_other_outcome_than_the_finding_score() -> None:
    lead = (
        "At 10 weeks, pupils in the tutoring classes scored higher on spelling than pupils "
        "in usual classes, with an effect size of 0.31 (95% CI 0.12 to 0.50)."
    )
    witness = (
        "After a whole term of tutoring, our Year 5s did no better on their spelling tests "
        "than the classes next door who just had ordinary lessons."
    )
    _refutes_both_ways(lead, witness)


def test_the_rest_left_bare_is_a_plain_group() -> None:
    assert PLAIN_GROUP.search("I ran fleece over half my rows and left the rest bare")
    # control: the rest of a thing left is no group left untreated
    assert not PLAIN_GROUP.search("I left the rest of the bread for the birds")


def test_still_as_many_as_and_a_control_arm_without_any() -> None:
    assert TWO_GROUPS_ALIKE.search("we were still finding as many slugs as next door")
    # control: still more than next door is no likeness
    assert not TWO_GROUPS_ALIKE.search("we were still finding more slugs than next door")
    lead = (
        "At 12 months, slug counts on plots with ducks were 40% lower than on matched plots "
        "without ducks (rate ratio 0.60, 95% CI 0.48 to 0.75)."
    )
    witness = (
        "We had six ducks out on the plots all summer and we were still finding as many slugs "
        "as next door, and they've never kept a duck."
    )
    _refutes_both_ways(lead, witness)


def test_a_time_that_was_all_it_took_is_called_enough() -> None:
    assert _amounts("Took me ten minutes tops and it was fine.") == {"minutes each": 10.0}
    floor = "Allow at least 30 minutes to fill in the claim form in one sitting."
    _refutes_both_ways(floor, "Took me ten minutes tops and it was fine.")
    # control: "tops" after no time calls nothing enough
    assert read_amounts(tokenize("He kept ten bottle tops for the children.")) is None


def test_so_many_for_an_area_and_a_name_of_two_words() -> None:
    floor = "Run at least four guinea fowl per acre from April to October."
    assert _amounts(floor)["guinea per square metre"] == 4 / 4046.86
    _refutes_both_ways(floor, "Two guineas is plenty for our six acres.")
    # control: a count for an area is read to the square metre, as the floor's is
    assert _amounts("Eight guineas is plenty for our two acres.") == {
        "guinea per square metre": 8 / (2 * 4046.86),
        "units of guinea": 8.0,
    }


def test_a_quarter_of_an_hour_is_fifteen_minutes() -> None:
    assert _amounts("Twice a week for about a quarter of an hour has been plenty for him.") == {
        "minutes each": 15.0,
        "times a week": 2.0,
    }
    floor = "Pupils should have at least 30 minutes in the reading room on every school day."
    _refutes_both_ways(floor, "Twice a week for a quarter of an hour has been plenty for him.")
    # control: an hour is still an hour
    assert _amounts("An hour twice a week has been plenty for him.")["minutes each"] == 60.0


def test_so_many_of_them_where_a_thing_happened() -> None:
    text = "I ran eight video clinics last month and the sound cut out on five of them."
    assert read_share(tokenize(text)) == Share(62.5, 62.5)
    rare = (
        "Dropped sound is rare: fewer than 1 in 200 video clinics is interrupted by a lost "
        "sound link."
    )
    _refutes_both_ways(rare, text)
    # control: "on" with no count of them before it is no share, nor one of them
    assert read_share(tokenize("The sound cut out on four of them.")) is None
    owner = "Small blocks of two flats where the owner lives in one of them are exempt."
    assert "%" not in measures(tokenize(owner))


def test_what_the_witness_had_only_been_doing_is_a_plain_group() -> None:
    assert PLAIN_GROUP.search("no fresher than when i'd only been brushing my teeth")
    assert PLAIN_GROUP.search("the next bed along on nothing but rainwater")
    # control: only after no one of the witness's own is no plain group
    assert not PLAIN_GROUP.search("the only brushing that worked")


def test_just_as_many_off_both_sets_two_groups_alike() -> None:
    assert TWO_GROUPS_ALIKE.search("honestly i picked just as many courgettes off both")
    # control: as many off one of them is no likeness
    assert not TWO_GROUPS_ALIKE.search("i picked twice the courgettes off the fed bed")


_FED_ALIKE = (
    "I gave one bed of courgette plants nettle feed and the next bed along got nothing but "
    "rainwater, and I picked just as many courgettes off both."
)


def test_plain_water_only_is_a_control_arm() -> None:
    lead = (
        "Courgette plants given nettle feed yielded a mean of 4.6 kg of fruit per plant "
        "against 3.8 kg for courgette plants given plain water only (95% CI 0.3 to 1.3 kg)."
    )
    _refutes_both_ways(lead, _FED_ALIKE)
    # control: water named as no control arm sets no group ahead of one
    other = (
        "Courgette plants given nettle feed yielded a mean of 4.6 kg of fruit per plant "
        "against 3.8 kg for courgette plants given tap water (95% CI 0.3 to 1.3 kg)."
    )
    _neutral_both_ways(other, _FED_ALIKE)


def test_so_many_of_the_witness_own_described_or_of_them_is_a_witness_claim() -> None:
    described = (
        "Teaching the unit myself wore me out, and three of the five music teachers in our "
        "school lost their voices that term as well."
    )
    of_them = "I ran eight video clinics last month and the sound cut out on five of them."
    assert WITNESS_FREQUENCY.search(described)
    assert WITNESS_FREQUENCY.search(of_them)
    assert informativeness(described) >= MIN_INFORMATIVENESS
    assert informativeness(of_them) >= MIN_INFORMATIVENESS
    # control: a count of one's own with no share in it is no witness's claim
    assert informativeness("I ran eight video clinics last month and enjoyed them.") == 0.0


def test_an_advised_amount_against_one_called_enough_is_no_finding_about_outcomes() -> None:
    floor = (
        "The assessment interview for a probation report should last at least 45 minutes, "
        "and safeguarding checks should be completed before the report is given to the bench."
    )
    enough = (
        "Twenty minutes with the client is plenty for a report on a run-of-the-mill theft "
        "case, in my experience."
    )
    _refutes_both_ways(floor, enough)
    # control: as long as the floor is no amount under it
    _neutral_both_ways(
        floor,
        "Forty-five minutes with the client is plenty for a report on a run-of-the-mill theft "
        "case, in my experience.",
    )


def test_with_nothing_but_is_a_plain_group() -> None:
    assert PLAIN_GROUP.search("left the bottom lot with nothing but the hedge")
    # control: a thing with nothing but praise for it is no group left untreated
    assert not PLAIN_GROUP.search("she spoke of it with praise and nothing else")
