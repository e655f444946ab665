"""Occasions a few words describe ("One quick two-minute wiggle break a day"); one of a
thing for every so many of another called enough; so many per one thing named alone
after "per"; "Both of mine" as the writer's own; a hedged "every" beside a known one;
"grew on their own" as a plain group; a likeness timed "after" a thing; plurals no suffix
makes; "more weeks than it ran"; a share of those who said it got worse; "joined-up" as
no uptake; others each single time; an order before its object; "nothing but" the
usual; what came of an amount enough for the writer; so many days of a thing; those
given the rest without it; those that still do it the old way; loads of her mates
a count in words as no outcome; half of those a witness handles; an age as no span;
so many days in a thing; every one there; most days of the week; a hedge and an ex as
no outcome (decision 0145), each with its control."""

from __future__ import annotations

from lyra.pipelines.evidence.claims import MIN_INFORMATIVENESS, informativeness
from lyra.pipelines.evidence.harm_reports import PLAIN_GROUP
from lyra.pipelines.evidence.nli_enough import read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_numbers import stem
from lyra.pipelines.evidence.nli_orders import ordered
from lyra.pipelines.evidence.nli_outcomes import outcome_words
from lyra.pipelines.evidence.nli_shares import read_share, uptake_against_outcome
from lyra.pipelines.evidence.nli_shares_said import (
    ALL_BUT_A_FEW,
    LOADS_KNOWN,
    MOST_KNOWN,
    Share,
    all_but_every,
    share_of_sayers,
)
from lyra.pipelines.evidence.nli_tokens import token_key, tokenize

_BREAKS_FLOOR = (
    "Primary classes should have at least two active breaks every school day, each lasting "
    "three to five minutes, with no more than 90 minutes of seated learning between them."
)
_ONE_BREAK = (
    "One quick two-minute wiggle break a day after lunch is plenty for my class, and "
    "anything more just eats into teaching time."
)
_STAFF_FLOOR = (
    "Each on-site childcare room should have at least one qualified childcare worker for "
    "every three children present, and should stay open from at least 30 minutes before "
    "the first listed hearing until the last hearing of the day has finished."
)
_STAFF_ENOUGH = (
    "Honestly, one member of staff for every eight kids is plenty in a court crèche, because "
    "they are only in there for an hour or so while mum or dad is in front of the bench."
)
_BASIL_FLOOR = (
    "Plant at least two basil plants per tomato, set no more than 30 cm from the tomato stem, "
    "and have them in place within two weeks of planting the tomatoes."
)
_BASIL_ENOUGH = (
    "One basil plant for every three or four tomatoes is plenty, you just pop one in at the "
    "end of each little group and it does the job."
)
_UPSET_RARE = (
    "Upset or tears during combing are uncommon, with only 4% of parents in our 2023 customer "
    "survey saying their child found a session distressing."
)
_SOBBED = (
    "Both of mine sobbed through pretty much every comb-out we did, and every other mum I "
    "asked at the school gate said their kids kicked off in exactly the same way."
)
_BASIL_LEAD = (
    "Across both seasons, basil-intercropped blocks carried 41% fewer adult whiteflies per "
    "leaf than tomato-only control blocks (rate ratio 0.59, 95% CI 0.48 to 0.73), and "
    "marketable yield was 6.2% higher (95% CI 1.1 to 11.3)."
)
_BASIL_WITNESS = (
    "I put basil all the way down the tomato rows and, honestly, the whitefly were every bit "
    "as thick as in my other tunnel where the tomatoes grew on their own."
)
_BREAKS_LEAD = (
    "Compared with control classes that kept their usual seated lessons, pupils in "
    "brain-break classes spent 11.4 percentage points more of the observed time on task in "
    "the 10 minutes after each break (95% CI 7.9 to 14.9)."
)
_BREAKS_WITNESS = (
    "Honestly, we did the brain breaks for a whole term and my Year 4s were no more settled "
    "or focused after the dance videos than the class next door who just cracked on with "
    "their work."
)
_COMB_LEAD = (
    "At day 14, 38 of 66 children (58%) in the wet-combing arm were louse-free compared with "
    "14 of 67 (21%) in the control arm, a risk difference of 37 percentage points (95% CI 21 "
    "to 52)."
)
_LICE_WITNESS = (
    "From what I saw in my schools, the kids whose parents combed them every few days for a "
    "fortnight still had lice just as often as the kids whose families never picked up a "
    "comb at all."
)


def _amounts(text: str) -> dict[str, float]:
    read = read_amounts(tokenize(text))
    assert read is not None
    return dict(read.by_dimension)


def _refutes_both_ways(first: str, second: str) -> None:
    assert heuristic_nli(first, second).label == "refutes"
    assert heuristic_nli(second, first).label == "refutes"


def test_an_occasion_described_in_a_few_words_is_how_often() -> None:
    assert _amounts(_ONE_BREAK) == {"minutes each": 2.0, "times a week": 7.0}
    assert _amounts("You should do at least two 30-minute sessions a week.") == {
        "minutes each": 30.0,
        "times a week": 2.0,
    }
    # "a week" after one session is how often, no span of seven days
    assert _amounts("One 20-minute session a week is plenty.") == {
        "minutes each": 20.0,
        "times a week": 1.0,
    }
    # so many breaks every day: twice a day is fourteen times a week
    assert _amounts(_BREAKS_FLOOR)["times a week"] == 14.0
    # control: a length with no occasion after it is each time's length alone
    assert _amounts("A quick two-minute wiggle is plenty.") == {"minutes each": 2.0}


def test_one_break_a_day_refutes_two_a_day_at_least() -> None:
    _refutes_both_ways(_BREAKS_FLOOR, _ONE_BREAK)
    # control: two breaks a day called enough meets the floor
    enough = "Two quick two-minute wiggle breaks a day are plenty for my class."
    assert heuristic_nli(_BREAKS_FLOOR, enough).label != "refutes"


def test_one_for_every_so_many_called_enough_is_a_ratio() -> None:
    assert _amounts(_STAFF_ENOUGH)["per children"] == 0.125
    assert _amounts(_BASIL_ENOUGH)["per tomato"] == 0.25
    _refutes_both_ways(_STAFF_FLOOR, _STAFF_ENOUGH)
    # control: one for every three is the floor itself
    enough = "Honestly, one member of staff for every three kids is plenty in a court crèche."
    assert heuristic_nli(_STAFF_FLOOR, enough).label != "refutes"
    # control: "at least one ... for every" is a floor, no amount called enough
    assert read_amounts(tokenize("You need at least one worker for every eight kids.")) != (
        read_amounts(tokenize(_STAFF_ENOUGH))
    )


def test_so_many_per_one_thing_named_alone() -> None:
    assert _amounts(_BASIL_FLOOR)["per tomato"] == 2.0
    _refutes_both_ways(_BASIL_FLOOR, _BASIL_ENOUGH)
    # control: a measure per plant is read by its units, no count of things per plant
    assert "per plant" not in _amounts("Give at least 2 litres per plant every week.")


def test_both_of_mine_is_the_writers_own() -> None:
    assert informativeness(_SOBBED) >= MIN_INFORMATIVENESS
    # control: "Both of them" leans on the sentence before
    assert informativeness(
        "Both of them sobbed through pretty much every comb-out, and every other mum I asked "
        "at the school gate said their kids kicked off in exactly the same way."
    ) < informativeness(_SOBBED)


def test_a_hedged_every_beside_a_known_one() -> None:
    assert all_but_every(tokenize(_SOBBED)) == ALL_BUT_A_FEW
    _refutes_both_ways(_UPSET_RARE, _SOBBED)
    # control: a hedged "every" of nothing the witness knows or did, and no other
    assert all_but_every(tokenize("Pretty much every comb on the market is sold online.")) is None
    # control: two hedged ones leave which is meant unread
    two = (
        "My interlock locked me out almost every other morning just from mouthwash and toast, "
        "and nearly everyone on my drink-drive course said theirs did the same."
    )
    assert all_but_every(tokenize(two)) is None


def test_grew_on_their_own_is_a_plain_group() -> None:
    assert PLAIN_GROUP.search("my other tunnel where the tomatoes grew on their own")
    _refutes_both_ways(_BASIL_LEAD, _BASIL_WITNESS)
    # control: growing well is no group left plain
    assert PLAIN_GROUP.search("the tomatoes grew well in both tunnels") is None


def test_a_likeness_after_a_thing_is_timed_not_measured() -> None:
    _refutes_both_ways(_BREAKS_LEAD, _BREAKS_WITNESS)
    # control: a noun the likeness is in, which the finding never names, still sets the
    # two apart
    other = (
        "Honestly, we did the brain breaks for a whole term and my Year 4s had no more "
        "reading books than the class next door who just cracked on with their work."
    )
    assert heuristic_nli(_BREAKS_LEAD, other).label != "refutes"


def test_plurals_no_suffix_makes() -> None:
    assert token_key("lice") == token_key("louse")
    assert token_key("whitefly") == token_key("whiteflies")
    _refutes_both_ways(_COMB_LEAD, _LICE_WITNESS)
    # control: an adverb in -fly still loses its "-ly"
    assert stem("briefly") == "brief"


_CANCELLED_RARE = (
    "Across our partner prisons, fewer than 5% of scheduled book club sessions were cancelled "
    "because no officer was free to escort members to the library."
)
_CALLED_OFF = (
    "On our wing the book club got called off more weeks than it ran, because there was "
    "never an officer spare to walk us down to the library."
)
_HANDWRITING_RARE = (
    "In our 2023 survey of 1,180 partner schools, only 3% of teachers said pupils' "
    "handwriting had got noticeably worse after a term of KeyStride lessons."
)
_WENT_BACKWARDS = (
    "Honestly about half my Year 4s went backwards with their joined-up writing once the "
    "typing app took over our handwriting slot, letters all over the place and no joins at "
    "all by Easter."
)
_OVERHEARD_RARE = (
    "Being overheard is rare with a LawNook booth: in our 2023 survey of 1,870 clinic "
    "visitors, only 2 in every 100 said someone nearby could hear their conversation."
)
_HEARD_EVERY_TIME = (
    "But every single time I've gone, the people sat on the chairs outside the booth could "
    "hear every word about my debts, and the other mums in the queue told me the same thing "
    "kept happening to them."
)
_RAISE_FLOOR = (
    "Raise the head end of the bed by at least 15 cm, using sturdy blocks or risers under the "
    "legs rather than extra pillows, and keep it raised every night for at least 6 weeks "
    "before deciding whether it has helped."
)
_PAPERBACKS = (
    "Margaret Doyle, 71, said two old paperbacks under the top legs of the bed, about 5cm, "
    "were plenty and her heartburn settled within a week."
)
_HOSEPIPE = (
    "I grew two rows of the same variety side by side for three summers, one row getting the "
    "comfrey brew and the other getting nothing but the hosepipe, and when I weighed the "
    "pickings at the end of each summer there was nothing to choose between them."
)
_ODD_MORNING = (
    "Five minutes of the lip breathing on the odd morning has been plenty for me, and I was "
    "getting the hang of it within a fortnight."
)


def test_more_weeks_than_it_ran_is_most_of_them() -> None:
    assert read_share(tokenize(_CALLED_OFF)) == MOST_KNOWN
    _refutes_both_ways(_CANCELLED_RARE, _CALLED_OFF)
    # control: more weeks than the witness expected counts none of them
    assert read_share(tokenize("On our wing the book club ran more weeks than I expected.")) is None


def test_a_share_of_those_who_said_it_got_worse() -> None:
    assert share_of_sayers(tokenize(_HANDWRITING_RARE))
    assert read_share(tokenize(_WENT_BACKWARDS)) == Share(50.0, 50.0)
    _refutes_both_ways(_HANDWRITING_RARE, _WENT_BACKWARDS)
    # control: a share of those it happened to, no sayers
    assert not share_of_sayers(tokenize("Only 3% of pupils had noticeably worse handwriting."))
    # control: who said it is no outcome shared with a share of who replied
    replies = (
        "The consultation ran for ten weeks over the autumn and received 1,463 responses. "
        "Just over half came from teachers and school leaders, with the rest from parents, "
        "governors, specialist teachers, occupational therapists, software providers and "
        "academics."
    )
    assert heuristic_nli(replies, _HANDWRITING_RARE).label == "neutral"


def test_joined_up_is_no_uptake() -> None:
    assert not uptake_against_outcome(tokenize(_HANDWRITING_RARE), tokenize(_WENT_BACKWARDS))
    # control: those who joined a scheme took it up
    assert uptake_against_outcome(
        tokenize("About 74% of families joined the scheme in its first year."),
        tokenize("Only 2% of families said a visit left them uncomfortable."),
    )


def test_every_single_time_others_did_a_thing() -> None:
    _refutes_both_ways(_OVERHEARD_RARE, _HEARD_EVERY_TIME)
    # control: the witness's own habit each time is no share of what befell them
    assert all_but_every(tokenize("Every single time I go I sit on the top bench.")) is None


def test_an_order_before_its_objects_determiner() -> None:
    assert ordered(tokenize(_RAISE_FLOOR))
    _refutes_both_ways(_RAISE_FLOOR, _PAPERBACKS)
    # control: no floor after it, no order read ("Support the ..." may open a heading)
    assert not ordered(tokenize("Raise the head end of the bed by 15 cm."))


def test_nothing_but_the_usual_is_a_plain_group() -> None:
    assert PLAIN_GROUP.search("the other getting nothing but the hosepipe")
    assert informativeness(_HOSEPIPE) >= MIN_INFORMATIVENESS
    # control: nothing but trouble names no group
    assert PLAIN_GROUP.search("the scheme has been nothing but trouble") is None


def test_enough_for_me_and_what_came_of_it_within_a_time() -> None:
    assert informativeness(_ODD_MORNING) >= MIN_INFORMATIVENESS
    # control: enough for the writer alone, nothing said of what came of it
    assert (
        informativeness(
            "Five minutes of the lip breathing on the odd morning has been plenty for me."
        )
        == 0.0
    )


def test_an_overlap_is_no_depth() -> None:
    overlap = "Unroll the cardboard, overlapping each run by at least 15 cm."
    assert _amounts(overlap) == {"centimetres overlapped": 15.0}
    enough = (
        "Honestly one layer of box and a couple of centimetres of compost on top is loads, "
        "I've never bothered with more."
    )
    assert heuristic_nli(enough, overlap).label == "neutral"
    # control: a depth of at least 15 cm against a couple of centimetres
    depth = "Spread the compost to a depth of at least 15 cm."
    assert heuristic_nli(enough, depth).label == "refutes"


def test_half_of_it_is_a_part_of_a_mass() -> None:
    stalk = "If I left it sixty days it'd be up to the cows' bellies and half of it would be stalk."
    assert read_share(tokenize(stalk)) is None
    # control: half of them counts a group
    assert read_share(tokenize("Half of them went lame within a month.")) == Share(50.0, 50.0)


_TAPE_FLOOR = (
    "Keep the broken toe taped to its neighbour for at least 3 weeks, and change the tape and "
    "the padding between the toes every 2 to 3 days, or sooner if it becomes wet or loose."
)
_TEN_DAYS = (
    "Ten days of taping was plenty for my broken pinky toe, and I only swapped the tape about "
    "once a week with no bother at all."
)
_TAPE_LEAD = (
    "Participants randomised to buddy taping returned to normal walking a median of 6.5 days "
    "earlier than those given advice and painkillers without taping (difference 6.5 days, 95% "
    "CI 3.1 to 9.8), and their mean pain score at day 7 was 1.4 points lower on a 0 to 10 "
    "scale."
)
_STRAP_WITNESS = (
    "From what I see in surgery, the folk I strap up and the folk I just send home with "
    "paracetamol and a roomy pair of trainers are back walking normally at about the same "
    "time, so the tape doesn't really change much."
)
_PHONES_LEAD = (
    "Recorded self-harm incidents fell to 14.2 per 1,000 prisoner-months on wings after "
    "in-cell telephones were installed, compared with 18.9 per 1,000 prisoner-months on "
    "control wings (adjusted rate ratio 0.75, 95% CI 0.63 to 0.89)."
)
_PHONES_WITNESS = (
    "Since the in-cell phones went in, my wing has had just as many self-harm call-outs as "
    "the wings next door that still queue for the landing phone, so in my book they've made "
    "no real difference."
)
_REMARKS_RARE = (
    "Unkind comments are rare: across 212 partner schools last year, fewer than 2 in every "
    "100 peer-marked pieces were flagged by teachers for a hurtful remark."
)
_NASTY_STUFF = (
    "My girl came home upset most weeks because the lads marking her books kept scrawling "
    "nasty stuff next to her answers, and loads of her mates had the same thing happen to "
    "them."
)


def test_so_many_days_of_a_thing_is_how_long() -> None:
    assert _amounts(_TEN_DAYS) == {"days in all": 10.0}
    _refutes_both_ways(_TAPE_FLOOR, _TEN_DAYS)
    # control: so many days counted, no "of", are so many times
    assert _amounts("Ten days is plenty.") == {"times in all": 10.0}


def test_those_given_the_rest_without_a_thing_are_a_control_arm() -> None:
    _refutes_both_ways(_TAPE_LEAD, _STRAP_WITNESS)
    # control: a lead over an arm given another thing is no lead over doing without
    other = _TAPE_LEAD.replace("without taping", "with a stiff shoe")
    assert heuristic_nli(other, _STRAP_WITNESS).label == "neutral"


def test_those_that_still_do_it_the_old_way_are_plain() -> None:
    assert informativeness(_PHONES_WITNESS) >= MIN_INFORMATIVENESS
    _refutes_both_ways(_PHONES_LEAD, _PHONES_WITNESS)
    # control: those who still had the outcome are no plain group
    assert PLAIN_GROUP.search("the kids who still had lice at the end") is None


def test_loads_of_her_mates() -> None:
    assert informativeness(_NASTY_STUFF) >= MIN_INFORMATIVENESS
    assert read_share(tokenize(_NASTY_STUFF)) == LOADS_KNOWN
    _refutes_both_ways(_REMARKS_RARE, _NASTY_STUFF)
    # control: loads of her books name no one
    assert read_share(tokenize("She brought loads of her books home.")) is None


_CALF_FLOOR = (
    "Runners with shin splints should do at least 3 sets of 15 calf raises and three "
    "30-second calf stretches every day for a minimum of 6 weeks."
)
_ONE_SET = (
    "Honestly, one set of ten calf raises while the kettle boils, for a couple of weeks, was "
    "plenty to sort my shin splints out."
)
_SENT_BACK_RARE = (
    "Across our partner courts, fewer than 2 in every 100 BailClear sheets were sent back by "
    "legal advisers because the simplified wording changed what a condition legally required."
)
_SEND_BACK_HALF = (
    "I'm a legal adviser and I send back about half the plain-English sheets I check because "
    "the curfew times or exclusion zone have been dumbed down so far they no longer match the "
    "actual order."
)


def test_a_count_in_words_is_no_outcome() -> None:
    assert outcome_words(_CALF_FLOOR) == frozenset()
    _refutes_both_ways(_CALF_FLOOR, _ONE_SET)
    # control: an outcome named is still one
    assert outcome_words("Three sessions reduced shin pain.") == frozenset({"shin", "pain"})


def test_half_of_those_the_witness_handles() -> None:
    assert informativeness(_SEND_BACK_HALF) >= MIN_INFORMATIVENESS
    _refutes_both_ways(_SENT_BACK_RARE, _SEND_BACK_HALF)
    # control: half the sheets the witness has yet to write count nothing seen
    assert informativeness("I will write about half the plain-English sheets myself.") == 0.0


def test_an_age_is_no_span() -> None:
    assert (
        read_amounts(tokenize("Sheets should be written for a reading age of at least 9 years."))
        is None
    )
    # control: so many years of a course is how long
    assert _amounts("Pupils should practise for at least 2 years.") == {"days in all": 730.0}


_SLING_FLOOR = (
    "Adults with an undisplaced or mildly displaced mid-shaft clavicle fracture should wear a "
    "broad arm sling for at least 3 weeks, and gentle pendulum and elbow exercises should "
    "begin within the first 2 weeks, three times a day."
)
_FOUR_DAYS = (
    "Four days in the sling was plenty for my collarbone, binned it after that and never "
    "looked back."
)
_THERE_SAID = (
    "Nobody warned me that my advocate would pass my whole story to the housing office, my GP "
    "and the kids' school, and when I brought it up at my support group nearly every woman "
    "there said the same had happened to them."
)
_CUTS_RARE = (
    "Minor cuts and splinters are rare: across more than 2,300 Mudlark kitchens in UK "
    "settings, staff have reported fewer than 1 minor injury per 1,000 child play sessions."
)
_MOST_DAYS = (
    "Since we put the Mudlark kitchen in last spring, I've been writing little cuts and "
    "splinters on the children's hands into the accident book most days of the week."
)
_CONTACT_FLOOR = (
    "Every victim assessed as high risk should be contacted by a specialist court advocate "
    "within 24 hours of the incident being reported to police, and then at least once a week "
    "until the case is finally concluded in court."
)
_ONCE_A_MONTH = (
    "My advocate rang me about a fortnight after I reported my ex and then maybe once a month "
    "till the trial, and to be honest that was plenty for me."
)


def test_so_many_days_in_a_thing_is_how_long() -> None:
    assert _amounts(_FOUR_DAYS) == {"days in all": 4.0}
    _refutes_both_ways(_SLING_FLOOR, _FOUR_DAYS)
    # control: days in a week are how often, no span
    assert "days in all" not in _amounts("Two days in a week is plenty.")


def test_every_one_there_where_the_witness_was() -> None:
    assert informativeness(_THERE_SAID) >= MIN_INFORMATIVENESS
    assert read_share(tokenize(_THERE_SAID)) == ALL_BUT_A_FEW
    # control: "there" with no place of the witness's own before it
    assert read_share(tokenize("Nearly every woman there said the same had happened.")) is None


def test_most_days_of_the_week() -> None:
    assert informativeness(_MOST_DAYS) >= MIN_INFORMATIVENESS
    assert read_share(tokenize(_MOST_DAYS)) == MOST_KNOWN
    _refutes_both_ways(_CUTS_RARE, _MOST_DAYS)
    # control: no witness of their own
    assert read_share(tokenize("The kitchen is open most days of the week.")) is None
    # control: a habit of so long, no share of what befell anyone
    habit = "We do about a quarter of an hour most mornings now, in print for Reception."
    assert read_share(tokenize(habit)) is None


def test_a_hedge_and_an_ex_are_no_outcome() -> None:
    assert outcome_words(_ONCE_A_MONTH) == frozenset()
    _refutes_both_ways(_CONTACT_FLOOR, _ONCE_A_MONTH)
    # control: an outcome named beside a hedge is still one
    assert outcome_words("Maybe once a month reduced my anxiety.") == frozenset({"anxieti"})
