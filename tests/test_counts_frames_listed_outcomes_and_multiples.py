"""Round eleven's misses that were general (issue 12, decision 0124).

Round eleven was written blind (four corpora: chewing gum after bowel surgery, light
therapy for winter depression, wildflower strips on farms, text reminders of court
dates) and measured before these rules: 25 / 32 facts, 7 / 24 readings. Each sentence
below is a corpus's own. The claims rules: a source named by its kind before "found
that", a speaker's role before what they state, the people a practitioner serves and the
range of what they have seen, a count of the writer's own set restated as a share, a
clinician's "no-go for me". The stance rules: a list of outcomes names all its items,
and "N times as many X as B" ranks A above B. Each with controls that stay as they were.
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import extract_claims_extractive, informativeness
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        # a source named by its kind: "Their report ... found that" stands alone
        (
            "Their report, published last month, found that wheat and oilseed rape yields "
            "in fields edged with flower strips were statistically no different from those "
            "in comparable fields without them, even after the strips had been in the "
            "ground for three years.",
            # and two groups alike, one plain ("without them"), is a finding (0136)
            0.7,
        ),
        # a speaker's role, then what they have seen of the people they serve
        (
            "I do a lot of our encampment outreach calendar, and for my clients who are "
            "living on the street, the texts do next to nothing because most of them "
            "don't have a working phone by the court date.",
            0.15,
        ),
        # the writer's own count of a set of theirs, restated as a share
        (
            "I've walked the rape next to the strips every autumn and I'd say on 9 of those "
            "22 fields, so about 4 in 10, we've had to go back in with extra pellets along "
            "the strip side because the slugs came out of the margin into the crop.",
            0.35,
        ),
        # the range of what the speaker has seen is no story of theirs
        (
            "Well, my view, and I've been saying this for years, is that a thick, "
            "well-flowering hedgerow does more for bumblebees over a whole season than any "
            "sown strip I've ever seen.",
            0.5,
        ),
        # a count of the people a practitioner starts on a treatment
        (
            "In reality, roughly four in ten of the people I start on a light box come back "
            "in the first fortnight with headaches, sore eyes or that jittery, wired "
            "feeling.",
            0.6,
        ),
        # a clinician's "no-go" for the writer's case
        (
            "I've got a full top denture and the stoma nurse said gum was a no-go for me "
            "because it just glues itself to the plate and can drag it loose.",
            0.4,
        ),
        # controls: the writer's story stays none
        ("I do a lot of the school run, and I love it when the weather is good.", 0.0),
        ("Roughly one in four of the people I met on holiday had a cold.", 0.0),
        ("I've tried every brand I've ever seen and none of them worked for me.", 0.0),
        ("My sister said the new gym was a no-go for her.", 0.0),
        # "They found that ..." leans on a study named before (decision 0108)
        ("They found that yields were no different.", 0.0),
    ],
)
def test_round_eleven_claims_and_stories(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)


def test_a_source_named_by_its_kind_gives_the_claim() -> None:
    text = (
        "The county commissioned an independent review of the scheme. Their report, "
        "published last month, found that wheat and oilseed rape yields in fields edged "
        "with flower strips were statistically no different from those in comparable "
        "fields without them."
    )
    claims = extract_claims_extractive(
        text, "Do wildflower strips on field margins raise crop yields?"
    )
    assert [c.text for c in claims] == [
        "Their report, published last month, found that wheat and oilseed rape yields in "
        "fields edged with flower strips were statistically no different from those in "
        "comparable fields without them."
    ]


_RARE_HARM = (
    "In our post-market survey of 1,140 hospital patients, side effects such as jaw ache, "
    "hiccups or wind from swallowed air were uncommon, affecting fewer than 1 in 50 "
    "patients."
)
_COMMON_HARM = (
    "Of 212 bowel surgery patients who were given gum on the wards last year, more than a "
    "quarter (27 per cent) complained of bloating, hiccups or an aching jaw while they "
    "were using it, and around one in ten stopped early because of it."
)
_STRIPS_LEAD = (
    "Results During the summer survey window, sown flower strips supported 2.6 times as "
    "many foraging bumblebees per 100 m as managed hedgerows, and 5.8 times as many as "
    "beetle banks."
)
_HEDGES_LEAD = (
    "Well, my view, and I've been saying this for years, is that a thick, well-flowering "
    "hedgerow does more for bumblebees over a whole season than any sown strip I've ever "
    "seen."
)


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        # a harm rare against common: the two lists name one outcome in other words
        (_COMMON_HARM, _RARE_HARM),
        (_RARE_HARM, _COMMON_HARM),
        # "N times as many X as B" against "B does more for X than A"
        (_HEDGES_LEAD, _STRIPS_LEAD),
        (_STRIPS_LEAD, _HEDGES_LEAD),
    ],
)
def test_round_eleven_contradictions_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"
    assert contradiction_candidates([("c", claim)], {"f": premise}) == {"c": ["f"]}


@pytest.mark.parametrize(
    ("premise", "claim", "labels"),
    [
        # two lists of other harms: two findings about two outcomes
        (
            "More than a quarter (27 per cent) complained of headache, dizziness or nausea "
            "while they were using it.",
            "Side effects such as rash, itching or swelling were uncommon, affecting fewer "
            "than 1 in 50 patients.",
            ("neutral", "neutral"),
        ),
        # the same ranking in other words
        (
            "Flower strips attract more foraging bumblebees than hedgerows do.",
            "Sown flower strips supported 2.6 times as many foraging bumblebees per 100 m as "
            "managed hedgerows.",
            ("neutral", "supports"),
        ),
        # a ranking in another measure
        (
            "Hedgerows hold more nesting birds than sown flower strips.",
            "Sown flower strips supported 2.6 times as many foraging bumblebees per 100 m as "
            "managed hedgerows.",
            ("neutral", "neutral"),
        ),
    ],
)
def test_round_eleven_controls_do_not_refute(
    premise: str, claim: str, labels: tuple[str, str]
) -> None:
    assert (heuristic_nli(premise, claim).label, heuristic_nli(claim, premise).label) == labels
