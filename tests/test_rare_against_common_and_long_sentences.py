"""Decision 0113: contradictions and claims of four short blind corpora read at first
sight. An outcome called rare with its share against common with another, in the words
each writer gives it ("overheating ... felt too warm", "feeling too hot"); a share per so
many households and a percentage that says something; "compared with no irrigation" as
what is compared, not a negation; a sentence too long to be a claim read in parts;
frames and doses spoken in the first person; a plain-text notice ruled into sections.
Each pair is quoted as its source wrote it and read both ways."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import extract_claims_extractive
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_numbers import measures
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import Share
from lyra.pipelines.evidence.nli_tokens import is_negated, tokenize
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates
from lyra.pipelines.extract.extract_text import extract_plain

# (claim, premise): each pair contradicts, read both ways, and the sweep pairs them
CONTRADICTING = [
    (  # rare, one complaint per 200 households, against 22 per cent who said so
        "Glare complaints after a properly specified retrofit are rare, with fewer than one "
        "complaint logged per 200 households served across the schemes we have supported.",
        "Of the 1,140 residents who responded, 22 per cent said the new lamps caused glare or "
        "threw light into their bedrooms, and glare is now one of the most common complaints "
        "logged by the highways team.",
    ),
    (  # rare against common, two words of the outcome shared
        "Side effects are rare, with fewer than 1 in 20 of our patients reporting any stinging "
        "or ear fullness.",
        "Mild side effects are common, affecting about 23% of people in trials.",
    ),
    (  # one outcome in other words: overheating, too warm, too hot
        "This is the question we hear most, and the honest answer is that overheating is "
        "rare: fewer than 2 in every 100 customers tell us they felt too warm, based on our "
        "post-purchase survey of more than 9,000 buyers.",
        "But feeling too hot was actually the most common complaint, about 23 percent of our "
        "participants reported it, and for a good chunk of those it was the reason they "
        "stopped using the blanket at night.",
    ),
    (  # a share in "19 of the 60 people", far from fewer than 2 in 100
        "Our club ran a quick poll last autumn and 19 of the 60 people who answered (nearly a "
        "third) said they'd had tingling or numbness at some point while wearing recovery "
        "tights.",
        "Across the trials we reviewed for this guidance, fewer than 2 in every 100 "
        "participants reported skin irritation, numbness or tingling while wearing the "
        "garments, and these settled once the garment was removed.",
    ),
    (  # "perceived soreness" is the soreness the trial reduced
        "Compared with control conditions, compression reduced muscle soreness at 24 hours by "
        "a standardised mean difference of 0.43 (95% CI 0.25 to 0.61) and at 48 hours by 0.31 "
        "(95% CI 0.12 to 0.50).",
        "The trial found no significant difference in perceived soreness or countermovement "
        "jump height between the two groups at 24, 48 or 72 hours after the session.",
    ),
    (  # "compared with no irrigation" names the comparison: a sized change, no negation
        "Compared with no irrigation, high-volume saline irrigation reduced SNOT-22 scores by "
        "a mean of 9.4 points at three months (95% CI 5.1 to 13.7; four trials, 687 "
        "participants; moderate-certainty evidence).",
        "When the researchers compared questionnaire results, they found no significant "
        "difference in SNOT-22 scores between the daily rinsing group and the usual-care group "
        "at three months, and the picture was much the same at six months.",
    ),
]


@pytest.mark.parametrize(("claim", "premise"), CONTRADICTING)
def test_contradictions_as_the_sources_wrote_them(claim: str, premise: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"
    assert heuristic_nli(claim, premise).label == "refutes"
    assert contradiction_candidates([("c", claim)], {"f": premise}) == {"c": ["f"]}
    assert contradiction_candidates([("c", premise)], {"f": claim}) == {"c": ["f"]}


@pytest.mark.parametrize(
    ("claim", "premise"),
    [
        (  # both rare, the shares near
            "Side effects are rare, with fewer than 1 in 20 of our patients reporting any "
            "stinging or ear fullness.",
            "Side effects are uncommon, reported by about 3% of people in trials.",
        ),
        (  # what is compared with "no" treatment agrees with a change of the same sign
            "Compared with no irrigation, saline irrigation reduced SNOT-22 scores by a mean "
            "of 9.4 points at three months.",
            "Saline irrigation lowered SNOT-22 scores at three months in four trials.",
        ),
    ],
)
def test_what_does_not_contradict(claim: str, premise: str) -> None:
    assert heuristic_nli(premise, claim).label != "refutes"
    assert heuristic_nli(claim, premise).label != "refutes"
    assert contradiction_candidates([("c", claim)], {"f": premise}) == {}


def test_the_sweep_keeps_two_outcomes_apart() -> None:
    claim = "Nosebleeds are rare, affecting fewer than 1 in 100 people who rinse."
    premise = "Mild stinging is common, affecting about 23% of people in trials."
    assert contradiction_candidates([("c", claim)], {"f": premise}) == {}
    assert contradiction_candidates([("c", premise)], {"f": claim}) == {}


@pytest.mark.parametrize(
    ("text", "share"),
    [
        ("complaints are rare, with fewer than one complaint logged per 200 households", (0, 0.5)),
        ("we saw 3 falls per 1,000 patients on the ward", (0.3, 0.3)),
        ("of the 1,140 residents who responded, 22 per cent said the lamps caused glare", (22, 22)),
        ("about 23 percent of our participants reported it", (23, 23)),
        ("19 of the 60 people who answered said so", (100 * 19 / 60, 100 * 19 / 60)),
        ("3 of our 25 patients had a flare", (12, 12)),
    ],
)
def test_shares_per_so_many_people_and_percentages_that_say(
    text: str, share: tuple[float, float]
) -> None:
    assert read_share(tokenize(text)) == Share(*share)


@pytest.mark.parametrize(
    "text",
    [
        "the dose is 5 mg per 10 kg of body weight",
        "2 of the 10 studies found harm",
        "one of the most common complaints",
        "the price rose 22 percent last year",
        "speeds of 20 km per hour",
    ],
)
def test_no_share_of_people(text: str) -> None:
    assert read_share(tokenize(text)) is None


def test_kelvin_and_k_are_one_unit() -> None:
    assert measures(tokenize("a neutral white of 4000 Kelvin")) == {"k": [(4000.0, 4000.0, 4)]}
    assert measures(tokenize("not exceeding 3000K")) == {"k": [(3000.0, 3000.0, 2)]}


@pytest.mark.parametrize(
    ("text", "negated"),
    [
        ("Compared with no irrigation, saline irrigation reduced scores.", False),
        ("Rinsing did better than no treatment at all.", False),
        ("Hypertonic saline versus no rinse at all: scores fell.", False),
        ("Saline irrigation had no effect on scores.", True),
        ("Compared with usual care, rinsing made no difference.", True),
    ],
)
def test_no_after_a_comparison_negates_nothing(text: str, negated: bool) -> None:
    assert is_negated(tokenize(text)) is negated


@pytest.mark.parametrize(
    ("question", "text", "claim"),
    [
        (  # a colon's list, then a concession after ", whereas"
            "Does switching street lights to LED reduce night-time road collisions and crime?",
            "Stratifying by baseline crime explained much of it: pooled across studies, "
            "lighting improvement was associated with a 12% reduction in recorded night-time "
            "crime in areas in the highest quintile of baseline crime (OR 0.88, 95% CI 0.80 to "
            "0.97), whereas in low-crime suburban and rural settings the pooled estimate was "
            "close to null (OR 0.98, 95% CI 0.90 to 1.07).",
            "pooled across studies, lighting improvement was associated with a 12% reduction "
            "in recorded night-time crime in areas in the highest quintile of baseline crime "
            "(OR 0.88, 95% CI 0.80 to 0.97)",
        ),
        (  # what a long evaluation found
            "Does switching street lights to LED reduce night-time road collisions and crime?",
            "Our evaluation across 62 local highway authorities, using eleven years of "
            "police-recorded collision and crime data, found that switching lights off between "
            "midnight and 5:30 a.m. was not associated with any increase in night-time "
            "collisions or recorded crime, compared with keeping lights on all night at "
            "similar locations.",
            "switching lights off between midnight and 5:30 a.m. was not associated with any "
            "increase in night-time collisions or recorded crime, compared with keeping lights "
            "on all night at similar locations.",
        ),
    ],
)
def test_a_sentence_too_long_gives_its_finding(question: str, text: str, claim: str) -> None:
    assert claim in [c.text for c in extract_claims_extractive(text, question, 10)]


@pytest.mark.parametrize(
    ("question", "text"),
    [
        (  # the writer's frame and what backs it
            "Does saline nasal irrigation help chronic sinusitis?",
            "In my experience, and the reading I've done backs it up, the three percent "
            "hypertonic rinse does a better job than ordinary normal saline for people with "
            "chronic sinusitis.",
        ),
        (  # where a quoted expert would start a group
            "Do weighted blankets reduce anxiety and improve sleep in adults?",
            "\"For most adults I'd start somewhere between 5 and 7 percent of body weight and "
            "only go heavier if that still feels comfortable after a fortnight.",
        ),
        (  # what a speaker estimates
            "Does switching to no-till farming increase soil carbon and keep crop yields up?",
            "I'd say one field in five of our clients' direct-drilled wheat got redrilled last "
            "autumn because the slugs had the seed before it came through.",
        ),
        (
            "Does electronic tagging of offenders reduce reoffending?",
            "She reckoned about one in four of the people on her caseload had had at least one "
            "false tamper alert during their order.",
        ),
        (  # what an instruction is for, then a dose
            "Do compression garments speed up muscle recovery after hard exercise?",
            "For the full recovery effect, wear your tights continuously for 24 hours after "
            "hard training, including overnight.",
        ),
        (  # a size to choose, recommended
            "Do weighted blankets reduce anxiety and improve sleep in adults?",
            "For adults, we recommend that you choose a blanket that weighs around 10 percent "
            "of your body weight, rounded to the nearest size we make.",
        ),
    ],
)
def test_frames_and_doses_in_the_first_person_are_claims(question: str, text: str) -> None:
    assert [c.text for c in extract_claims_extractive(text, question)] == [text]


def test_a_story_in_the_first_person_stays_out() -> None:
    text = "I'd start my day with a long walk before I tried the blanket."
    assert extract_claims_extractive(text, "Do weighted blankets improve sleep?") == []


def test_rule_lines_part_a_plain_text_notice_into_sections() -> None:
    text = (
        "PHONE POLICY IMPLEMENTATION CHECKLIST\n\n"
        "This checklist is intended for senior leaders planning to introduce a policy.\n\n"
        "-----------------------------------------\n"
        "B. WHAT THE RULE SHOULD SAY\n"
        "-----------------------------------------\n"
        "Phones should be switched off and stored in a locked pouch or locker from arrival "
        "until the end of the school day, including break and lunchtime.\n\n"
        "Smart watches that can send or receive messages should be treated in the same way.\n"
    )
    fragments = extract_plain(text, "file:///notice.txt", "localhost", False).fragments
    rule = next(f for f in fragments if f.text.startswith("Phones"))
    assert (rule.fragment_type, rule.heading_context) == (
        "paragraph",
        "B. WHAT THE RULE SHOULD SAY",
    )
    assert [f.text for f in fragments if f.fragment_type == "heading"] == [
        "PHONE POLICY IMPLEMENTATION CHECKLIST",
        "B. WHAT THE RULE SHOULD SAY",
    ]
