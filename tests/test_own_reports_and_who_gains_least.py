"""Decision 0106: what a writer reports of their own case, a practitioner's frame, an
over-long sentence; and on the stance side "one child in four" as a share, a percentage
before a comparative as a sized change, children's ages, who gains least and costs far
apart."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claim_frames import CHANGED_FROM_TO, stated_part
from lyra.pipelines.evidence.claim_sentences import claim_sentences as _sentences
from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_costs import Cost, costs_differ, read_cost
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_shares import arms_differ
from lyra.pipelines.evidence.nli_tokens import tokenize


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        # an adverse event a treatment brought on, at half an effect's weight
        ("My daughter broke out in an itchy rash on day 4 of the amoxicillin course.", 0.3),
        ("The magnesium oxide gave me awful diarrhoea, so I stopped after a week.", 0.2),
        ("My wrists ached for the first fortnight with the new keyboard.", 0.2),
        # a change the writer measured, in the forms the blind corpora used
        ("I've had 2 flare-ups this winter instead of my usual 6.", 0.225),
        ("Over those two years my heating bill went from Cr 1,400 to Cr 950.", 0.15),
        ("I went from managing a 5-minute jog to a 30-minute run after ten weeks.", 0.15),
        ("I missed five shifts last year, compared with eleven the year before.", 0.35),
        # the measured change in the aside after the writer's own story
        ("We moved in 2019, and my rent went from 900 to 1,250 a month within two years.", 0.15),
        # quoted, the speaker's own measured change is still their report
        (
            '"In my first year with the scanner I missed two fractures, against seven the '
            'year before," she says.',
            0.1,
        ),
    ],
)
def test_a_writers_own_harm_or_measured_change_is_a_claim(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)


@pytest.mark.parametrize(
    "sentence",
    [
        # the complaint the writer came with, not what a treatment brought on
        "I'm 61 and I've had an aching hip for about two years.",
        # relief without a size stays the writer's story
        "After I stopped the tablets, the headaches went away.",
        "Last spring my left shoulder started aching after long swims.",
    ],
)
def test_a_writers_condition_or_unmeasured_relief_is_no_claim(sentence: str) -> None:
    assert informativeness(sentence) == 0.0


@pytest.mark.parametrize(
    ("sentence", "stated"),
    [
        (
            "I tell patients that serious bleeding happens in fewer than 1 in 1,000 people "
            "taking the drug.",
            "serious bleeding happens in fewer than 1 in 1,000 people taking the drug.",
        ),
        (
            "I don't keep figures, but my impression is that about 7 in 10 sprained ankles "
            "are back to normal within six weeks.",
            "about 7 in 10 sprained ankles are back to normal within six weeks.",
        ),
        (
            "My reading is that younger patients gain far more from the surgery than older ones.",
            "younger patients gain far more from the surgery than older ones.",
        ),
        (
            "When families ask me whether it works, the honest answer is that the tablets help "
            "some children a lot and others not at all.",
            "the tablets help some children a lot and others not at all.",
        ),
    ],
)
def test_a_practitioners_frame_leaves_what_it_states(sentence: str, stated: str) -> None:
    assert stated_part(sentence) == stated
    assert informativeness(sentence) >= 0.4


def test_changes_in_words_and_currencies_are_measured() -> None:
    found = [
        bool(CHANGED_FROM_TO.search(text))
        for text in (
            "my cholesterol went from 4.2 to 6.1 within a year",
            "my wage bill went from Cr 6,200 to Cr 7,100 a month",
            "3 migraines this month instead of my usual 8",
            "I drew my baton twice, against nine times in the six months before",
            # an age range and a comparison with no time before it are no change
            "children from age 5 to 12",
            "two doses, against three in the other arm",
        )
    ]
    assert found == [True, True, True, True, False, False]


def test_an_over_long_sentence_gives_its_finding_before_the_reason() -> None:
    sentence = (
        "Contrary to what we expected before the trial began, hospital admissions for asthma "
        "were 22% higher in the schools that installed the new filters than in the "
        "comparison schools, a result we treat with caution, since parents at the filter "
        "schools may have been more aware of symptoms and more likely to take their children "
        "to hospital early in an attack."
    )
    assert [text for _, text, _ in _sentences(sentence)] == [
        "Contrary to what we expected before the trial began, hospital admissions for asthma "
        "were 22% higher in the schools that installed the new filters than in the comparison "
        "schools, a result we treat with caution",
        "since parents at the filter schools may have been more aware of symptoms and more "
        "likely to take their children to hospital early in an attack.",
    ]


CLASHES = [
    pytest.param(
        "Hospital admissions for asthma were 22% higher in filter schools than in comparison "
        "schools.",
        "The trial found no significant difference in hospital admissions for asthma between "
        "filter and comparison schools.",
        id="sized-comparison-against-no-difference",
    ),
    pytest.param(
        "Roughly one patient in five who takes the drug gets a headache.",
        "Headaches affect only about 1 in 50 patients who take the drug.",
        id="one-patient-in-five-against-1-in-50",
    ),
    pytest.param(
        "The largest benefit from grommets is in children under 3 years of age with hearing "
        "loss in both ears.",
        "Children aged six and over gain the most from grommets, while toddlers under three "
        "gain the least.",
        id="under-3-against-six-and-over",
    ),
    pytest.param(
        "Antibiotics do not shorten ear pain by even a single day.",
        "The median duration of ear pain was 2.1 days in the antibiotic group and 3.4 days in "
        "the placebo group.",
        id="no-shorter-pain-against-two-arms-apart",
    ),
    pytest.param(
        "The greatest benefit from grommets is seen in children under 3 years of age.",
        "Older children, aged six and over, gain the most from grommets, because in the "
        "youngest children most glue ear clears by itself.",
        id="a-reason-after-the-finding-singles-no-group-out",
    ),
    pytest.param(
        "The effect of street lighting on burglary was strongest at night-time in residential "
        "streets.",
        "The fall in burglary was concentrated in daytime hours, while night-time residential "
        "streets saw the smallest change.",
        id="night-time-against-daytime",
    ),
]


@pytest.mark.parametrize(("premise", "hypothesis"), CLASHES)
def test_clashes_refute_both_ways(premise: str, hypothesis: str) -> None:
    assert heuristic_nli(premise, hypothesis).label == "refutes"
    assert heuristic_nli(hypothesis, premise).label == "refutes"


@pytest.mark.parametrize(
    ("premise", "hypothesis"),
    [
        pytest.param(
            "Adults aged 65 and over gain the most from the vaccine.",
            "People aged 70 and over saw the greatest benefit from the vaccine.",
            id="two-upper-ages",
        ),
        pytest.param(
            "Night-time patrols saw the biggest drop in complaints.",
            "Complaints fell most on night-time patrols, and least on day shifts.",
            id="night-time-both",
        ),
    ],
)
def test_the_same_group_singled_out_is_no_clash(premise: str, hypothesis: str) -> None:
    assert heuristic_nli(premise, hypothesis).label != "refutes"
    assert heuristic_nli(hypothesis, premise).label != "refutes"


COST_CLASHES = [
    pytest.param(
        "Once storage and the staff time needed to review footage are included, the full "
        "annual cost of a body camera averages 2,900 crowns per officer.",
        "With no hidden fees, total cost of ownership comes to under 600 crowns per officer "
        "per year, including unlimited cloud storage.",
        id="2900-against-under-600-crowns-per-officer",
    ),
    pytest.param(
        "Hearing aids from the clinic cost about $4,000 per pair once fitting is included.",
        "With fitting included, a pair of the clinic's hearing aids costs $1,200 per pair.",
        id="4000-against-1200-dollars-per-pair",
    ),
]


@pytest.mark.parametrize(("premise", "hypothesis"), COST_CLASHES)
def test_costs_far_apart_refute_both_ways(premise: str, hypothesis: str) -> None:
    assert heuristic_nli(premise, hypothesis).label == "refutes"
    assert heuristic_nli(hypothesis, premise).label == "refutes"


def test_costs_of_other_things_or_close_together_do_not_meet() -> None:
    def cost(text: str) -> Cost | None:
        return read_cost(tokenize(text))

    storage = cost("A year of cloud storage costs £300 per officer.")
    assert storage == Cost(300.0, 300.0, "£", "officer", frozenset({"cloud", "storag"}))
    # two treatments at their own price, a cost close to another, another "per" thing
    assert not costs_differ(
        cost("Physiotherapy costs £45 a session."), cost("Acupuncture costs £120 a session.")
    )
    assert not costs_differ(storage, cost("Cloud storage costs about £280 per officer."))
    assert not costs_differ(storage, cost("Cloud storage costs about £900 per station."))
    # a sentence with two figures of the unit gives no one cost
    assert cost("Cloud storage costs £300 per officer, and £900 per station.") is None


def test_two_arms_alike_or_no_arm_named_size_no_difference() -> None:
    same = "Median ear pain lasted 2 days in the antibiotic group and 2 days in the placebo group."
    no_arm = "Ear pain lasted 2.1 days in March and 3.4 days in April."
    assert arms_differ(tokenize(same)) == []
    assert arms_differ(tokenize(no_arm)) == []
    assert read_changes(tokenize(same)).sized_change == frozenset()
    assert read_changes(tokenize(no_arm)).sized_change == frozenset()
