"""Rounds thirty-nine to forty-one's readings (issue 12, decision 0136).

Rounds thirty-nine, forty and forty-one, written blind (tests/corpora/sauna_blood_pressure,
jury_note_taking, oyster_reefs, peer_mediation; heatwave_calls, bean_wheat_intercrop,
ebike_subsidies, saline_bronchiolitis; rental_deposits, classroom_acoustics,
virtual_fencing, diclofenac_gel_ankle) and measured at first sight on decision 0135's
rules. What the rules missed there and read now, with controls: a witness's two groups
alike, one of them plain ("the ones who just got oxygen", "the ones nobody bothered to
phone", "dummy collars"), against a trial's lead over its control arm (`nli_alike`); what
a witness met every time ("Every single time I got up off the top bench I went woozy"),
all but a few of those in someone's own place ("every other pensioner in her sheltered
block"), half the fields of a compound kind; a strength beside a share ("a 3% saline
nebuliser"), an ordinal that is no fraction ("by the third day"); days of a kind as how
long ("at least five sitting days", "for a minimum of 10 days", "allow at least 28 working
days" after a time); lay and clinical names of one harm (woozy and light-headed,
wheezing and bronchospasm, condescending and patronising, flat and flattened); and those
sentences as claims. The readers' comments that hold several of the rounds' facts are
read by extraction (tests/test_extract.py, tests/test_realworld_articles.py).
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.nli_alike import alike_against_lead
from lyra.pipelines.evidence.nli_enough import Amounts, read_amounts
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import ALL_BUT_A_FEW, Share
from lyra.pipelines.evidence.nli_sizes import sized_changes
from lyra.pipelines.evidence.nli_spelling import fold
from lyra.pipelines.evidence.nli_tokens import content_keys, tokenize

_CONTRADICTIONS = [
    # sauna_blood_pressure
    (
        "After 12 weeks, mean office systolic blood pressure fell by 7.4 mmHg more in the sauna "
        "group than in the usual-care group (95% CI 4.1 to 10.7 mmHg).",
        "From where I was sitting, the folks who just kept up their usual check-ups with the GP "
        "finished with blood pressure every bit as good as those of us sweating in the sauna "
        "four times a week.",
    ),
    # sauna_blood_pressure
    (
        "Light-headedness when standing up after a session is uncommon, affecting fewer than 1 "
        "in 50 bathers in our customer surveys.",
        "Every single time I got up off the top bench I went woozy and had to grab the door "
        "frame, and two of the other blokes at my gym say the same thing happens to them most "
        "weeks.",
    ),
    # jury_note_taking
    (
        "Jurors in the 41 note-taking juries answered 71.4% of evidence-recall questions "
        "correctly, compared with 62.9% in the 41 control juries that were not allowed notes "
        "(difference 8.5 percentage points, 95% CI 5.1 to 11.9).",
        "From what I saw on my jury, the people scribbling notes remembered the evidence no "
        "better than those of us who just sat and listened.",
    ),
    # jury_note_taking
    (
        "Judges should permit note-taking in any criminal trial expected to last at least five "
        "sitting days, with each juror issued one numbered notebook of no more than 40 pages.",
        "Honestly, even a two-day trial is plenty long enough to hand out notepads, no need to "
        "wait until a case runs a full week.",
    ),
    # peer_mediation
    (
        "Schools running the pupil mediation scheme recorded 31% fewer playground incidents "
        "referred to staff than control schools over two school terms (rate ratio 0.69, 95% CI "
        "0.58 to 0.82).",
        "We put our incident book next to Castle Lane's, a school with no mediators at all, and "
        "honestly the number of kids being sent inside to a teacher was pretty much the same at "
        "both.",
    ),
    # heatwave_calls
    (
        "Heat-related emergency admissions occurred in 31 of 1,204 participants in the call arm "
        "and 52 of 1,198 in the usual-care arm (risk ratio 0.59, 95% CI 0.38 to 0.92).",
        "From what I saw on the admissions unit, the pensioners who were getting rung every day "
        "came in with the heat just as often as the ones nobody bothered to phone.",
    ),
    # heatwave_calls
    (
        "Fewer than 2 in every 100 people we call at CoolCheck tell us they find our heatwave "
        "calls intrusive or patronising.",
        "My mum and pretty much every other pensioner in her sheltered block found the council "
        "heatwave calls condescending, and most of them had stopped bothering to pick up by the "
        "third day.",
    ),
    # bean_wheat_intercrop
    (
        "Averaged over the three seasons, the bean-wheat intercrop given 100 kg N/ha had a land "
        "equivalent ratio of 1.19 (95% CI 1.11 to 1.27) and yielded 1.1 t/ha more total grain "
        "than sole wheat receiving the same 100 kg N/ha (95% CI 0.6 to 1.6 t/ha).",
        "Two harvests running, my beans-and-wheat mix put no more grain in the trailer than the "
        "plain wheat over the hedge that got the same bag of fertiliser.",
    ),
    # bean_wheat_intercrop
    (
        "Lodging is rare with DuoSow Winter: only 3% of the 240 fields in our 2024 grower survey "
        "reported any flattened patches before harvest.",
        "Half the bean-and-wheat fields I walked in this valley were lying flat by July, and "
        "mine were the worst of the lot.",
    ),
    # saline_bronchiolitis
    (
        "Infants who received nebulised 3% hypertonic saline were discharged a mean of 19.6 "
        "hours sooner than infants given supportive care alone (95% CI 8.2 to 31.0 hours; "
        "p=0.001).",
        "When we audited our own ward last winter, the babies on the salty nebs went home at "
        "more or less the same time as the ones who just got oxygen, feeding support and a bit "
        "of suctioning, so in real life I honestly couldn't see it making any difference.",
    ),
    # saline_bronchiolitis
    (
        "Bronchospasm after a 3% saline nebuliser is uncommon, occurring in fewer than 1 in 100 "
        "treatments in published hospital series.",
        "Every baby in our bay seemed to start wheezing and fighting for breath as soon as the "
        "salt-water mask went on, and my son did it almost every single time.",
    ),
    # rental_deposits
    (
        "In the protected-scheme districts, 68% of deposits were returned in full, compared with "
        "49% in control districts where landlords kept deposits themselves (difference 19 "
        "percentage points, 95% CI 13 to 25).",
        "From what we see at the advice desk, tenants whose deposit sits in a protection scheme "
        "get back about the same as tenants did back when the landlord just kept the cash in his "
        "own account, so honestly the schemes haven't moved the needle.",
    ),
    # rental_deposits
    (
        "After both sides have submitted their evidence, allow at least 28 working days for the "
        "adjudicator to reach a written decision.",
        "Honestly, a week is plenty for a deposit adjudication, ours came back five days after "
        "we uploaded the photos.",
    ),
    # virtual_fencing
    (
        "Cattle wearing active collars spent 97.8% of grazing time inside the virtual boundary "
        "compared with 71.4% for cattle wearing deactivated collars (difference 26.4 percentage "
        "points, 95% CI 19.1 to 33.7).",
        "Truth is, the steers with live collars wandered over the line just about as often as "
        "the ones wearing the dummy collars that never made a sound.",
    ),
    # virtual_fencing
    (
        "Keep newly collared cattle alongside a visible physical or electric fence for a minimum "
        "of 10 days, checking the alert log at least twice a day, before relying on the virtual "
        "boundary alone.",
        "A couple of days along the hot wire is plenty, my heifers had the beeps figured out by "
        "the second afternoon and we pulled the fence on day three.",
    ),
    # flower_strips
    (
        "grain yield in fields with sown wildflower margins was on average 7.4% higher (95% CI "
        "3.1 to 11.7%) than in the paired control fields",
        "wheat and oilseed rape yields in fields edged with flower strips were statistically no "
        "different from those in comparable fields without them",
    ),
    # fodmap_ibs
    (
        "adequate relief of global IBS symptoms was reported by 56% of participants on the "
        "low-FODMAP diet compared with 34% on control diets (risk ratio 1.61, 95% CI 1.34 to "
        "1.93)",
        "people who followed the genuine diet reported no more relief than those who had "
        "unknowingly been put on a dummy version",
    ),
    # pelvic_belts
    (
        "At six weeks, women in the belt group rated their pain when walking 1.9 points lower "
        "(95% CI 1.1 to 2.7) and their pain in bed 1.4 points lower (95% CI 0.6 to 2.2) on a "
        "0-10 scale than women receiving usual care.",
        "Dr Imelda Fairweather, who led the review, said that once the studies were pooled, "
        "women who wore a belt were getting about and sleeping no more comfortably than those "
        "who went without.",
    ),
]


@pytest.mark.parametrize(("premise", "claim"), _CONTRADICTIONS)
def test_rounds_thirty_nine_to_forty_one_contradictions_refute(premise: str, claim: str) -> None:
    assert (heuristic_nli(premise, claim).label, heuristic_nli(claim, premise).label) == (
        "refutes",
        "refutes",
    )


_VEGETABLES = (
    "At 12 months, children at intervention schools were eating an additional 0.42 portions "
    "of vegetables per day compared with control schools (95% CI 0.21 to 0.63)."
)
_NEMATODES = (
    "At day 28, grazing damage was recorded on 12.4% of lettuce seedlings in nematode-treated "
    "plots compared with 38.9% in untreated control plots (risk ratio 0.32, 95% CI 0.21 to "
    "0.49)."
)
_SAUNA_LEAD = _CONTRADICTIONS[0][0]


@pytest.mark.parametrize(
    ("witness", "finding"),
    [
        # another outcome: fruit, not vegetables
        (
            "By spring the gardening pupils were eating no more fruit than children at schools "
            "that had never dug a bed.",
            _VEGETABLES,
        ),
        # how a placebo looked, not how those on it did
        (
            "Half were given a 16-hour nicotine patch and half a dummy patch that looked "
            "identical, and everyone received six weeks of one-to-one support.",
            "Nicotine patches increased the chances of stopping smoking by 50% to 60% compared "
            "with placebo or no treatment (high-certainty evidence).",
        ),
        # a manner, and a time as soon as possible
        (
            "Raw honey is a natural food that children can enjoy in the same way as any other "
            "honey, and babies must never be given it.",
            "In seven trials, honey reduced the frequency of night-time coughing by a mean of "
            "1.1 points compared with placebo or no treatment (95% CI 0.6 to 1.6).",
        ),
        # the two groups treated alike in the method, not in what came of it
        (
            "But the untreated beds got the same watering as the treated ones on my plot.",
            _NEMATODES,
        ),
        # no plain group: two doses alike
        (
            "The folks going twice a week finished with blood pressure every bit as good as "
            "those of us in the sauna four times a week.",
            _SAUNA_LEAD,
        ),
        # a harm alike against a lead in blood pressure: two outcomes
        (
            "The folks who just kept up their usual check-ups got just as many headaches as "
            "those of us sweating in the sauna.",
            _SAUNA_LEAD,
        ),
        # a trial that finds no difference is no lead
        (
            "The folks who just kept up their usual check-ups finished with blood pressure "
            "every bit as good as those of us sweating in the sauna.",
            "Office systolic blood pressure did not differ between the sauna group and the "
            "usual-care group at 12 weeks (95% CI -1.2 to 3.0 mmHg).",
        ),
    ],
)
def test_two_groups_alike_against_a_lead_needs_one_thing_one_outcome_and_a_lead(
    witness: str, finding: str
) -> None:
    assert not alike_against_lead(tokenize(witness), tokenize(finding))


def test_shares_a_witness_met_every_time_or_among_their_own() -> None:
    assert (
        read_share(
            tokenize(
                "Every single time I got up off the top bench I went woozy and had to grab the "
                "door frame."
            )
        )
        == ALL_BUT_A_FEW
    )
    # no symptom named: a habit, not a harm
    assert read_share(tokenize("Every single time I go I sit on the top bench.")) is None
    assert (
        read_share(
            tokenize(
                "My mum and pretty much every other pensioner in her sheltered block found the "
                "council heatwave calls condescending, and most of them had stopped bothering to "
                "pick up by the third day."
            )
        )
        == ALL_BUT_A_FEW
    )
    assert read_share(
        tokenize("Half the bean-and-wheat fields I walked in this valley were lying flat by July.")
    ) == Share(50.0, 50.0)
    # a strength beside it is no second share; two shares of people stay two
    assert read_share(
        tokenize(
            "Bronchospasm after a 3% saline nebuliser is uncommon, occurring in fewer than 1 "
            "in 100 treatments in published hospital series."
        )
    ) == Share(0.0, 1.0)
    assert (
        read_share(tokenize("About 30 per cent of them had stopped, and 34 per cent had cut down."))
        is None
    )


def test_an_ordinal_is_no_fraction() -> None:
    assert sized_changes(tokenize("Most of them had stopped picking up by the third day.")) == []
    assert [s.low for s in sized_changes(tokenize("Admissions went down by a third."))] == [
        pytest.approx(100 / 3)
    ]


def test_days_of_a_kind_and_after_a_time_are_how_long() -> None:
    def days(text: str) -> Amounts | None:
        return read_amounts(tokenize(text))

    assert days(
        "Judges should permit note-taking in any criminal trial expected to last at least five "
        "sitting days."
    ) == Amounts(floor=True, by_dimension=(("days in all", 5.0),))
    assert days(
        "Keep newly collared cattle alongside a visible fence for a minimum of 10 days."
    ) == Amounts(floor=True, by_dimension=(("days in all", 10.0),))
    assert days(
        "After both sides have submitted their evidence, allow at least 28 working days for "
        "the adjudicator to reach a written decision."
    ) == Amounts(floor=True, by_dimension=(("days in all", 28.0),))
    # occasions counted with no span word stay occasions
    assert days("You need at least four appointments.") == Amounts(
        floor=True, by_dimension=(("times in all", 4.0),)
    )


def test_one_harm_by_its_lay_and_clinical_names() -> None:
    assert {fold(k) for k in content_keys(tokenize("woozy light-headed dizzy"))} == {"dizzi"}
    assert fold("bronchospasm") == fold("wheez")
    assert content_keys(tokenize("condescending")) == content_keys(tokenize("patronising"))
    assert content_keys(tokenize("flattened")) == content_keys(tokenize("flat"))
    assert content_keys(tokenize("the salty nebs")) >= content_keys(tokenize("nebulised"))
    assert content_keys(tokenize("the babies went home")) >= content_keys(tokenize("discharged"))


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        # two groups alike, one plain, in a witness's words
        (
            "Two harvests running, my beans-and-wheat mix put no more grain in the trailer "
            "than the plain wheat over the hedge that got the same bag of fertiliser.",
            0.35,
        ),
        (
            "When we audited our own ward last winter, the babies on the salty nebs went home "
            "at more or less the same time as the ones who just got oxygen, feeding support "
            "and a bit of suctioning, so in real life I honestly couldn't see it making any "
            "difference.",
            0.25,
        ),
        # all but a few in the witness's own room; three of the five in their office
        (
            "By half term almost every panel below head height in my room was dented from "
            "chair legs or smeared with glue stick that wouldn't wipe off, and the caretaker "
            "had to replace eleven of them.",
            0.3,
        ),
        (
            "Three of the five people in my office who bought e-bikes with the council grant "
            "have had them nicked within a few months, and mine went from the station rack in "
            "week six.",
            0.45,
        ),
        # an amount called plenty for no one named, then how it went
        (
            "A couple of days along the hot wire is plenty, my heifers had the beeps figured "
            "out by the second afternoon and we pulled the fence on day three.",
            0.6,
        ),
        # who a thing is not for
        (
            "Notes earn their keep in long, document-heavy trials like a big fraud, but "
            "they're not for a short trial that turns on one witness's word.",
            0.4,
        ),
        # controls: the writer's own amount and beliefs stay out
        ("Two cups a day is plenty for me.", 0.0),
        (
            "I want to write down what I tell families, because ten minutes is rarely long enough.",
            0.0,
        ),
        ("Forty minutes with a patch on first thing in the morning is plenty for me.", 0.0),
    ],
)
def test_rounds_thirty_nine_to_forty_one_findings(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)
