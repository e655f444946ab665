"""Every fortnight as how often; half the witness's own tank loads clogged; tears every
single Friday; a long frame before a quotation; "just as many ... as" over more words;
pain in other words as one outcome; a few of the witness's own, again and again; a count
of those named after a change is no size of it (decision 0144), each with its control."""

from __future__ import annotations

from lyra.pipelines.evidence.claim_frames import stated_part
from lyra.pipelines.evidence.claims import MIN_INFORMATIVENESS, informativeness
from lyra.pipelines.evidence.harm_reports import TWO_GROUPS_ALIKE, witnessed
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_enough import read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_shares import Share
from lyra.pipelines.evidence.nli_shares_said import FEW_KNOWN, NOT_RARE, few_known
from lyra.pipelines.evidence.nli_tokens import tokenize

_TEA_FLOOR = (
    "Apply at least 400 litres of compost tea per hectare every 7 days from budburst until "
    "veraison."
)
_ICE_LEAD = (
    "At day 14, patients in the ice-pack arm reported a mean pain score 1.4 points lower on "
    "the 0-10 scale than the no-cold control arm (95% CI 0.8 to 2.0), and used 31% less "
    "opioid medication over the first two weeks."
)
_ICE_WITNESS = (
    "When we went back through our own patients, the ones who iced religiously and the "
    "ones who never bothered with ice were on pretty much the same painkillers and were "
    "every bit as sore at the two-week visit."
)
_MEDIATION_LEAD = (
    "At six months, 56% of neighbour disputes in the mediation arm were recorded as settled, "
    "compared with 33% in the usual council complaint-handling arm (risk difference 23 "
    "percentage points, 95% CI 15 to 31)."
)
_QUOTED = (
    '"Half the families on our close who sat through the joint mediation meeting came out '
    "angrier than they went in, and for most of us the rows got worse in the weeks after, "
    'not better."'
)
_FLARE_UPS_RARE = (
    "Flare-ups after a joint meeting are rare: in our 2023 case review, only 4% of neighbour "
    "cases got worse in the month after the two households met face to face."
)
_UPSET_RARE = (
    "Tearful or upset pupils are rare: in our survey of 240 partner schools, teachers "
    "reported distress in fewer than 1 in 50 children taking part."
)


def _weekly(text: str) -> float:
    read = read_amounts(tokenize(text))
    assert read is not None
    return dict(read.by_dimension)["times a week"]


def test_every_fortnight_is_half_a_time_a_week() -> None:
    assert _weekly("Every fortnight is plenty for my vines.") == 0.5
    # control: every week is once a week
    assert _weekly("Every week is plenty for my vines.") == 1.0


def test_a_fortnightly_tea_is_under_a_weekly_floor() -> None:
    enough = (
        "A hundred litres of compost tea to the hectare every fortnight is plenty for my vines."
    )
    assert heuristic_nli(_TEA_FLOOR, enough).label == "refutes"
    assert heuristic_nli(enough, _TEA_FLOOR).label == "refutes"


def test_half_the_witness_s_own_stock_clogged_is_a_witness_s_count() -> None:
    clogged = (
        "Last summer about half my tank loads of compost tea clogged the nozzles on the "
        "air-blast sprayer, and I spent more time with a toothbrush on the jets than "
        "driving the tractor."
    )
    assert witnessed(clogged)
    assert informativeness(clogged) >= MIN_INFORMATIVENESS
    # control: half of a time spent doing a thing counts nothing that befell the stock
    assert not witnessed("I spend half my weekend cleaning the sprayer jets by hand.")


def test_tears_every_single_friday_are_seen_again_and_again() -> None:
    tears = (
        "By week three of our bee I had four or five kids in tears every single Friday after "
        "getting knocked out in the first round, and one lad started faking a tummy ache to "
        "stay home."
    )
    assert witnessed(tears)
    assert informativeness(tears) >= MIN_INFORMATIVENESS
    # control: a habit on Fridays is no count of what the witness saw
    assert not witnessed("We run the class bee every Friday after lunch.")


def test_a_few_in_the_witness_s_charge_every_week_deny_a_rarity() -> None:
    again = "I had four or five kids in tears every single Friday after getting knocked out."
    once = "I had four or five kids in tears after getting knocked out in the first round."
    assert few_known(tokenize(again)) == NOT_RARE
    assert few_known(tokenize(once)) == FEW_KNOWN
    assert heuristic_nli(_UPSET_RARE, again).label == "refutes"
    assert heuristic_nli(again, _UPSET_RARE).label == "refutes"
    # control: a few once is not five times one in fifty
    assert heuristic_nli(_UPSET_RARE, once).label != "refutes"


def test_a_long_frame_that_ends_in_its_speaker_s_word_is_cut() -> None:
    framed = f"Denise Harrow, 58, who has lived on the close for 22 years, said: {_QUOTED}"
    assert stated_part(framed) == _QUOTED
    assert heuristic_nli(_FLARE_UPS_RARE, framed).label == "refutes"
    # control: a long opening with no speaker's word stays
    unframed = f"On the close, after two years of letters, a hedge and a parking space: {_QUOTED}"
    assert stated_part(unframed).startswith("On the close")


def test_just_as_many_rows_as_reaches_past_a_long_noun_phrase() -> None:
    witness = (
        "From what I saw, the streets that went to the free mediation had just as many rows "
        "still dragging on a year later as the streets where the council's complaints team "
        "just handled it the old way, so it made no real difference."
    )
    assert TWO_GROUPS_ALIKE.search(" ".join(tokenize(witness))) is not None
    assert heuristic_nli(_MEDIATION_LEAD, witness).label == "refutes"
    assert heuristic_nli(witness, _MEDIATION_LEAD).label == "refutes"
    # control: fewer rows on the mediated streets agrees with the lead
    fewer = witness.replace("just as many", "far fewer").replace("later as", "later than")
    assert heuristic_nli(_MEDIATION_LEAD, fewer).label != "refutes"


def test_sore_and_a_pain_score_are_one_outcome() -> None:
    assert heuristic_nli(_ICE_LEAD, _ICE_WITNESS).label == "refutes"
    assert heuristic_nli(_ICE_WITNESS, _ICE_LEAD).label == "refutes"
    # control: a lead in movement, no pain named, is another outcome
    movement = (
        "At day 14, patients in the ice-pack arm could bend the knee 8 degrees further than "
        "the no-cold control arm (95% CI 3 to 13)."
    )
    assert heuristic_nli(movement, _ICE_WITNESS).label != "refutes"


def test_a_count_of_those_named_after_a_change_is_no_size() -> None:
    assert read_changes(tokenize(_FLARE_UPS_RARE)).share == Share(4.0, 4.0)
    # control: a number after the change that sizes it
    sized = read_changes(tokenize("Only 4% of neighbour cases got worse by 2 points or more."))
    assert sized.share is None


_LETTERS_SUIT = (
    "Written apology letters are best suited to young people who have accepted "
    "responsibility for an offence against an identifiable individual victim, and are not "
    "appropriate where the young person denies the offence or the victim has asked for no "
    "contact."
)
_LETTERS_METHODS = (
    "In a two-arm individually randomised trial in six youth justice services, young people "
    "aged 12 to 17 on referral orders for offences with an identifiable individual victim "
    "were allocated to either a facilitated written apology letter or to unpaid community "
    "reparation work."
)
_BALE_WITNESS = (
    "We bale grazed the top field two winters on the trot and the grass came back no better "
    "than the bottom field, where we've never put a bale out."
)


def test_who_a_thing_is_not_for_denies_no_finding() -> None:
    assert heuristic_nli(_LETTERS_METHODS, _LETTERS_SUIT).label == "neutral"
    # control: a finding that it did not help is still a negation against its method
    not_helped = (
        "Written apology letters did not help young people on referral orders with an "
        "identifiable individual victim."
    )
    assert heuristic_nli(_LETTERS_METHODS, not_helped).label == "refutes"


def test_those_who_took_a_thing_up_are_no_count_of_its_harm() -> None:
    rare = (
        "Families feeling judged or scrutinised is rare: in our 2024 partner-school survey, "
        "only 1.6% of parents said a visit left them uncomfortable."
    )
    accepted = "In the home-visit schools, 74% of families accepted a visit."
    assert heuristic_nli(accepted, rare).label == "neutral"
    # control: a share of those a visit left uncomfortable is the same count
    uncomfortable = (
        "In the home-visit schools, 24% of parents said a visit left them uncomfortable."
    )
    assert heuristic_nli(uncomfortable, rare).label == "refutes"


def test_a_plain_group_s_place_and_two_groups_alike_deny_no_title() -> None:
    assert heuristic_nli("Bale grazing suckler cows in winter", _BALE_WITNESS).label == "neutral"
    # control: a finding that sets bale-grazed fields ahead of fields with none is denied
    ahead = (
        "Bale-grazed fields grew 30% more grass the next spring than fields with no bales put out."
    )
    assert heuristic_nli(ahead, _BALE_WITNESS).label == "refutes"
    assert heuristic_nli(_BALE_WITNESS, ahead).label == "refutes"


def test_what_is_called_rare_must_be_named_in_the_other_share() -> None:
    rare = (
        "Victim upset is rare: fewer than 2 in every 100 victims who received a letter "
        "written with the ReparoWrite kit told their liaison officer that the letter had "
        "upset them."
    )
    reoffence = (
        "At 12 months, 31.4% of young people in the apology letter arm had a proven "
        "reoffence compared with 38.9% in the standard order arm."
    )
    assert heuristic_nli(reoffence, rare).label == "neutral"
    assert (
        heuristic_nli(
            "About six in ten people who are offered a letter choose to receive one.", rare
        ).label
        == "neutral"
    )
    # control: a share of victims the letter upset is the rarity denied
    upset = "In our service, about 30% of victims who got a letter said it had upset them."
    assert heuristic_nli(upset, rare).label == "refutes"


def test_those_who_turned_a_thing_down_are_no_count_of_its_harm() -> None:
    rare = (
        "Flare-ups after a joint meeting are rare: in our 2023 case review, only 4% of "
        "neighbour cases got worse in the month after the two households met face to face."
    )
    declined = "In the mediation arm, 27% of second households declined to take part."
    assert heuristic_nli(declined, rare).label == "neutral"
    # control: those who finished it and those who failed to are one count
    fail = "Fewer than 3 in every 100 people referred to us fail to finish their course."
    never = "About a third of the people I sent never finished the course."
    assert heuristic_nli(never, fail).label == "refutes"
