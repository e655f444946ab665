"""Decision 0109: contradictions and claims of six short blind corpora read at first
sight. Shares beside a change or a comparison and "one new wearer in four"; "statistically
indistinguishable" and a difference sized by what yielded it; "has beaten" and "about as
much as" as comparisons; reference markers and footnote numbers where sentences end;
claims behind a concession, a conviction, a colon's lead-in or a source's conclusion.
Each pair is quoted as its source wrote it and read both ways."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claim_frames import stated_part
from lyra.pipelines.evidence.claims import (
    MIN_INFORMATIVENESS,
    extract_claims_extractive,
    informativeness,
)
from lyra.pipelines.evidence.nli_comparisons import read_comparisons
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_numbers import measures
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import Share
from lyra.pipelines.evidence.nli_statements import claim_statements, split_sentences
from lyra.pipelines.evidence.nli_tokens import tokenize
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates
from lyra.pipelines.extract.sentences import split_sentences as split_text


@pytest.mark.parametrize(
    ("text", "share"),
    [
        ("are common in the first few weeks, affecting around one new wearer in four", 25.0),
        ("one patient in five has a noticeable flare", 20.0),
        ("roughly one first-year pupil in ten", 10.0),
    ],
)
def test_one_of_whom_in_so_many_is_a_share(text: str, share: float) -> None:
    assert read_share(tokenize(text)) == Share(share, share)


@pytest.mark.parametrize(
    "text",
    ["take one dose in two weeks", "one study in 2019 found fewer admissions"],
)
def test_a_time_or_a_year_after_in_is_no_share(text: str) -> None:
    assert "%" not in measures(tokenize(text))


# (claim, premise): each pair contradicts, read both ways
CONTRADICTING = [
    (  # common, a share in words with who between, against rare and a bound
        "Patients should be warned that headaches, eye strain or a feeling that everything "
        "looks dim are common in the first few weeks, affecting around one new wearer in four.",
        "Most people tolerated the glasses well, and headaches or eye discomfort were rare, "
        "reported by fewer than 3 per cent of the buyers we surveyed.",
    ),
    (  # shares beside a change of no stated size in each sentence
        "Our 2024 member audit of 1,140 women advised to use ginger confirms what midwives "
        "hear in clinic: heartburn is the most commonly reported side effect, affecting "
        "roughly one in five women who take ginger, and it is more troublesome in those who "
        "already have reflux.",
        "In clinical trials and surveillance data, heartburn or mild stomach upset is "
        "reported by fewer than 2 per cent of users, and these effects usually settle when "
        "the dose is reduced or taken with meals.",
    ),
    (  # shares of the people a comparison describes
        "In the ministry's 2023 survey of participants, only 4 per cent of victims who took "
        "part said they felt worse after the conference than before it.",
        "Our own exit survey at the trust, which I helped to run for three years, suggests "
        "something like one in three victims come out of a conference feeling worse than "
        "when they went in.",
    ),
    (  # a state of no change against a change sized by "by"
        "Pooled across trials, cold-water immersion reduced self-reported muscle soreness at "
        "24 hours by about 20 percent compared with passive rest (standardised mean "
        "difference \u22120.41; 95% CI \u22120.58 to \u22120.24), with smaller and less "
        "certain effects at "
        "48 and 72 hours.",
        "In the cold-bath group, soreness ratings at the 24-hour mark were statistically "
        "indistinguishable from those of players who simply rested, and sprint times were "
        "no better either.",
    ),
    (  # no significant difference in yield against plots that yielded more
        "Across the 2021\u20132023 trial, biochar-amended plots on the station's loamy sand "
        "yielded 14 percent more grain on average than unamended plots over three seasons.",
        "Taken together, the pooled data indicate that biochar applied on its own produced "
        "no significant difference in cereal yield on the coarse sands of the Karsen Plains "
        "(pooled effect +1.8%, 95% CI \u22123.1 to +6.7%).",
    ),
    (  # one leads in one text, the other has beaten it in the other
        "In the members' side-by-side comparisons on sandy ground, well-made compost gave "
        "larger yield gains than biochar for the same spend per hectare, and it did so from "
        "the first season.",
        "I know the guild people say otherwise, but biochar has beaten compost for yield "
        "every single season on my sand, and I have the weighing notebooks to prove it.",
    ),
    (  # about as much as, against beating it by a wide margin
        "In a 2023 crossover study of 64 students at Haldvik University, switching devices "
        "to night mode and lowering screen brightness shortened sleep onset about as much "
        "as wearing amber glasses, and participants found the screen settings easier to "
        "stick with.",
        "In my experience amber glasses beat your phone's night mode by a wide margin when "
        "it comes to actually falling asleep.",
    ),
]


@pytest.mark.parametrize(("claim", "premise"), CONTRADICTING)
def test_contradictions_as_the_sources_wrote_them(claim: str, premise: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"
    assert heuristic_nli(claim, premise).label == "refutes"


def test_a_reference_marker_after_the_full_stop_ends_the_premise_sentence() -> None:
    claim = (
        "In that audit, adverse reactions during supervised immersion, including dizziness, "
        "cold shock and chest tightness, were rare, occurring in fewer than one in 1,000 "
        "sessions."
    )
    premise = (
        "Among people trying ice baths for the first time, cold shock responses such as "
        "gasping, dizziness and chest tightness are common, affecting roughly one in eight "
        "first-time users according to a 2021 survey of Ostrian club athletes.[7] The "
        "response is usually strongest in the first minute and fades as breathing is "
        "brought under control."
    )
    assert len(split_sentences(premise)) == 2
    assert heuristic_nli(premise, claim).label == "refutes"
    assert heuristic_nli(claim, premise).label == "refutes"


@pytest.mark.parametrize(
    ("claim", "premise"),
    [
        (  # the same share in other words agrees
            "Headaches are common in the first few weeks, affecting around one new wearer in four.",
            "About 25 per cent of new wearers reported headaches in the first few weeks.",
        ),
        (  # a bound is no equality
            "Switching devices to night mode shortened sleep onset by as much as 20 minutes.",
            "Amber glasses beat night mode by a wide margin when it comes to falling asleep.",
        ),
        (  # each leads in a different measure
            "Compost gave larger yield gains than biochar on sandy ground.",
            "Biochar has beaten compost for water retention on sandy ground.",
        ),
    ],
)
def test_what_does_not_contradict(claim: str, premise: str) -> None:
    assert heuristic_nli(premise, claim).label != "refutes"
    assert heuristic_nli(claim, premise).label != "refutes"


def test_a_comparison_by_a_verb_of_beating_names_its_measure_after_for() -> None:
    (found,) = read_comparisons(
        tokenize("biochar has beaten compost for yield every single season on my sand")
    )
    assert (found.sign, found.axis) == (1, "performance")
    assert found.compared == frozenset({"compost"})
    assert "yield" in found.measure


def test_a_footnote_number_after_a_full_stop_ends_a_sentence() -> None:
    text = (
        "Heartburn or mild stomach upset is reported by fewer than 2 per cent of users, and "
        "these effects usually settle when taken with meals.4 Because laboratory studies "
        "suggest ginger can inhibit platelet aggregation, some advise caution. The dose is "
        "2.5 mg."
    )
    assert [s[:20] for s in split_text(text)] == [
        "Heartburn or mild st",
        "Because laboratory s",
        "The dose is 2.5 mg.",
    ]
    claims = extract_claims_extractive(text, "Does ginger relieve nausea in pregnancy?")
    assert [c.text[-17:] for c in claims if c.sentence_index == 0] == ["taken with meals."]


@pytest.mark.parametrize(
    ("sentence", "statement"),
    [
        (
            "I know the guild people say otherwise, but biochar has beaten compost for yield "
            "every single season on my sand, and I have the weighing notebooks to prove it.",
            "biochar has beaten compost for yield every single season on my sand",
        ),
        (
            "I know some people get nervous about amounts, but from everything I've read you "
            "can safely take up to 3 grams of ginger a day while pregnant, and it's a food, "
            "after all, so I really didn't worry.",
            "you can safely take up to 3 grams of ginger a day while pregnant",
        ),
        (
            "I'm completely convinced that switching to grain-free is the single biggest "
            "improvement you can make to a dog's coat, and no grain-based kibble comes close.",
            "switching to grain-free is the single biggest improvement you can make",
        ),
        (
            "Its conclusion was that pulse ingredients such as peas, lentils and chickpeas "
            "pose no known cardiac risk at levels up to 25 percent of a dog food's dry weight.",
            "pulse ingredients such as peas, lentils and chickpeas pose no known cardiac risk",
        ),
        (
            "Forget the ten-minute dip the official guidelines talk about: in my experience "
            "anything under half an hour in the tub is basically wasted time.",
            "anything under half an hour in the tub is basically wasted time",
        ),
    ],
)
def test_the_statement_behind_a_writers_frame_is_a_claim(sentence: str, statement: str) -> None:
    assert stated_part(sentence).startswith(statement)
    assert informativeness(sentence) >= MIN_INFORMATIVENESS


def test_a_list_after_a_colon_leaves_the_statement_before_it() -> None:
    text = (
        "Unlike the single-meeting schemes used in some other jurisdictions, the Marrowland "
        "model normally involves three separate face-to-face conferences held over about six "
        "weeks: an opening meeting at which the parties are introduced and the ground rules "
        "agreed, the main conference at which the offence is discussed, and a closing review "
        "of whether the outcome agreement has been kept."
    )
    texts = [c.text for c in extract_claims_extractive(text, "Do conferences reduce reoffending?")]
    assert texts[0].endswith("three separate face-to-face conferences held over about six weeks")


SEVEN_MINUTES = (
    "Over the four-week treatment period, participants in the amber-lens group fell asleep "
    "on average 7 minutes sooner than those given clear placebo lenses (95% CI 2 to 12 "
    "minutes), as measured by wrist actigraphy."
)
TWENTY_FOUR_MINUTES = (
    "According to the centre's findings, people who wore the orange-tinted glasses each "
    "evening were falling asleep a full 24 minutes earlier than volunteers handed clear "
    "lenses."
)


def test_a_claim_read_without_its_setting_and_its_bracketed_statistics() -> None:
    assert (
        "participants in the amber-lens group fell asleep on average 7 minutes sooner than "
        "those given clear placebo lenses, as measured by wrist actigraphy."
    ) in claim_statements(SEVEN_MINUTES)
    assert heuristic_nli(TWENTY_FOUR_MINUTES, SEVEN_MINUTES).label == "refutes"
    assert heuristic_nli(SEVEN_MINUTES, TWENTY_FOUR_MINUTES).label == "refutes"


def test_numbers_of_one_unit_alone_make_no_pair_in_the_sweep() -> None:
    # tried and taken out (decision 0109): such pairs were mostly different quantities
    fragments = {
        "works": "Fluoride in the supply showed a mean concentration of 0.68 mg/L against a "
        "target of 0.7 mg/L at the treatment works.",
    }
    claim = "Raw water at the treatment works here is about 0.1 mg/L naturally."
    assert contradiction_candidates([("c", claim)], fragments) == {}


def test_a_claim_read_past_the_writers_concession() -> None:
    claim = (
        "I know some people get nervous about amounts, but from everything I've read you "
        "can safely take up to 3 grams of ginger a day while pregnant, and it's a food, "
        "after all, so I really didn't worry."
    )
    premise = (
        "Based on the available evidence, the maximum amount of ginger considered safe "
        "during pregnancy is 1 gram a day, which can be split into two to four smaller doses."
    )
    assert heuristic_nli(premise, claim).label == "refutes"
    assert heuristic_nli(claim, premise).label == "refutes"


@pytest.mark.parametrize(
    ("text", "unit", "count"),
    [
        ("the model normally involves three separate face-to-face conferences", "conferenc", 3.0),
        ("most cases are concluded in a single face-to-face conference", "conferenc", 1.0),
        ("a single dose of 10 mg", "dos", 1.0),
    ],
)
def test_what_a_count_counts_past_separate_and_a_hyphened_compound(
    text: str, unit: str, count: float
) -> None:
    assert [(low, high) for low, high, _ in measures(tokenize(text))[unit]] == [(count, count)]


def test_a_single_blind_trial_counts_nothing() -> None:
    assert measures(tokenize("a single-blind trial of 40 patients")) == {
        "patient": [(40.0, 40.0, 6)]
    }


@pytest.mark.parametrize(
    ("claim", "premise"),
    [
        (  # the clause after a colon read alone; "constipation" and "constipated" alike
            "In studies of healthy babies born at full term, constipation and other digestive "
            "side effects were reported in fewer than 2 in every 100 infants taking the "
            "drops, and these settled when the drops were stopped.",
            "Constipation is not the rare thing the leaflet makes out: about one baby in five "
            "in our group ended up constipated after starting the drops.",
        ),
        (  # "with no curfew" names what the change is compared with, it negates nothing
            "Across the 24 months after designation, we found no statistically significant "
            "difference in recorded juvenile offending between the three curfew areas and "
            "the six matched comparison districts.",
            "In the first twelve months of the pilot, recorded juvenile crime in the pilot "
            "districts fell 23 per cent more than in comparable districts with no curfew.",
        ),
    ],
)
def test_contradictions_of_the_second_round(claim: str, premise: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"
    assert heuristic_nli(claim, premise).label == "refutes"


def test_a_change_negated_before_its_than_still_negates() -> None:
    null = "There was no significant difference in recorded juvenile crime in the districts."
    moved = "Recorded juvenile crime in the districts did not fall 23 per cent more than before."
    assert heuristic_nli(null, moved).label != "refutes"


def test_the_people_a_claim_is_about_stay_in_it() -> None:
    claim = (
        "In covid-19 patients especially old people, those who had sufficient levels of "
        "vitamin D were more than 51% less likely to die than patients who were deficient."
    )
    assert not any(text.startswith("those who had") for text in claim_statements(claim))
