"""Round twelve's misses that were general (issue 12, decision 0125).

Round twelve was written blind (four corpora: hip protectors in care homes, steroid
injections for frozen shoulder, 20 mph speed limits, school gardens) and measured before
these rules: 27 / 32 facts, 7 / 24 readings. Each sentence below is a corpus's own. The
claims rules: what a source's data showed, told as a story before a colon; the writer's
own estimate of how often, in an aside after what they did to know it; "from what I've
seen" as a lead-in; a clinician's refusal in a case. The stance rules: "bigger",
"larger" and "smaller" compare amounts; what leads is named before a verb that gives
its result ("led to better ...", "have delivered bigger ..."); "than" past a time the
comparison holds over; a change's size after where it happened ("went up at five of the
eight tubes ..., by about 7 per cent"); a harm rare against common ten times as often
with one word of it shared, graded by the first word of frequency. Each with controls
that stay as they were.
"""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import extract_claims_extractive, informativeness
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates

_NO_MORE_EATEN = (
    "But the institute's lunch-tray photographs and food diaries told a flatter story over "
    "time: by the following spring the gardening pupils were eating no more vegetables "
    "than children at schools that had never dug a bed."
)
_ESTIMATED_HARM = (
    "I kept a log for the first full year because the business manager wanted to know "
    "whether we needed to budget for more first-aid supplies, and I'd say roughly one "
    "session in five ended with somebody at the first-aid box with a splinter, a wasp "
    "sting or a blistered palm."
)


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        # what the data showed, told as a story before a colon: a null result against
        # the group that had none, a verdict since decision 0126
        (_NO_MORE_EATEN, 0.5),
        # the writer's estimate of how often, after what they did to know it
        (_ESTIMATED_HARM, 0.7),
        # "from what I've seen in ..." before a practitioner's statement, an amount called
        # enough (a dose since decision 0128)
        (
            "And honestly, from what I've seen in something like sixty schools now, twenty "
            "minutes every other week for about six weeks is plenty to get them trying new "
            "vegetables.",
            0.7,
        ),
        # a clinician's refusal in the writer's case
        (
            "My GP was very upfront: she wouldn't inject my shoulder while my HbA1c was "
            "over 75 because the steroid would send my sugars even higher and she wasn't "
            "happy about the infection risk either.",
            0.35,
        ),
        # controls: a story before a colon that states nothing checkable, a lead-in with
        # nothing after it, a refusal of no treatment, a relative's refusal
        ("The kids told a lovely story: we went to the beach and it rained.", 0.0),
        ("But the data told a different story.", 0.0),
        ("From what I've seen, my neighbours love it.", 0.0),
        ("My GP was very upfront: she wouldn't tell me her name.", 0.0),
        ("My sister wouldn't inject her own insulin while she was on holiday.", 0.0),
    ],
)
def test_round_twelve_claims_and_stories(sentence: str, score: float) -> None:
    assert informativeness(sentence) == pytest.approx(score)


def test_a_finding_after_a_story_told_gives_the_claim() -> None:
    text = "The council's first report was upbeat about the scheme. " + _NO_MORE_EATEN
    claims = extract_claims_extractive(
        text, "Do school garden programmes make children eat more vegetables?"
    )
    assert [c.text for c in claims] == [_NO_MORE_EATEN]


_INJECTION_LEADS = (
    "At six weeks, participants allocated to injection alone had better Shoulder Pain and "
    "Disability Index scores than those allocated to physiotherapy alone (adjusted mean "
    "difference -10.9 points, 95% CI -16.8 to -5.0)."
)
_PHYSIO_LEADS = (
    "2.3 The trials we considered showed that a structured course of physiotherapy on its "
    "own led to better pain and function over the first three months than a steroid "
    "injection given on its own, so we do not recommend offering injection as a "
    "stand-alone treatment in place of physiotherapy."
)
_ZONES_LEAD = (
    "After adjustment, physically calmed 20 mph zones were associated with a 38% reduction "
    "in injury collisions, compared with 17% for signed-only 20 mph limits (ratio of rate "
    "ratios 0.75, 95% CI 0.62 to 0.90)."
)
_SIGNS_LEAD = (
    "The evidence from our partner councils is clear: signed 20mph limits have delivered "
    "bigger casualty reductions than old-style zones full of humps and chicanes, at a "
    "fraction of the cost and without the complaints from bus operators, ambulance crews "
    "and residents kept awake by vans crashing over speed cushions."
)
_NO2_FELL = (
    "In the pilot areas, nitrogen dioxide concentrations at roadside monitoring sites fell "
    "by an average of 4 per cent in the year after the change, a modest improvement "
    "attributed mainly to smoother driving with less hard acceleration and braking."
)
_NO2_ROSE = (
    "So we ran our own diffusion tubes for a year before and a year after, and nitrogen "
    "dioxide went up at five of the eight tubes on the converted streets, by about 7 per "
    "cent on average."
)
_RARE_FIRST_AID = (
    "In our annual survey of customer schools, minor knocks, splinters and blisters are "
    "rare, with schools logging fewer than 1 in 200 garden sessions that needed any first "
    "aid at all."
)


_RARE_IRRITATION = (
    "In our wearer surveys, skin irritation is rare, affecting fewer than 2 in every 100 "
    "wearers, and when it does happen it is usually because the brief is the wrong size or "
    "the pad has slipped out of position."
)
_COMMON_SORENESS = (
    "But the audit also found that sore, reddened or broken skin over the hips was common, "
    "turning up in 29 per cent of residents who wore the garments for three months or more."
)


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        # rare (under 2 in 100) against common (29 per cent), one word of the harm shared
        (_RARE_IRRITATION, _COMMON_SORENESS),
        (_COMMON_SORENESS, _RARE_IRRITATION),
        # A led to better X than B, against B had better X than A
        (_INJECTION_LEADS, _PHYSIO_LEADS),
        (_PHYSIO_LEADS, _INJECTION_LEADS),
        # a bigger reduction given by two shares, against "bigger ... than" the other way
        (_ZONES_LEAD, _SIGNS_LEAD),
        (_SIGNS_LEAD, _ZONES_LEAD),
        # fell by 4 per cent against went up, where, by 7 per cent
        (_NO2_FELL, _NO2_ROSE),
        (_NO2_ROSE, _NO2_FELL),
    ],
)
def test_round_twelve_contradictions_refute(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"
    assert contradiction_candidates([("c", claim)], {"f": premise}) == {"c": ["f"]}


def test_the_writers_estimate_is_read_past_what_they_did_to_know_it() -> None:
    # rare (fewer than 1 in 200 sessions) against the estimate (one session in five)
    assert heuristic_nli(_RARE_FIRST_AID, _ESTIMATED_HARM).label == "refutes"
    assert heuristic_nli(_ESTIMATED_HARM, _RARE_FIRST_AID).label == "refutes"


@pytest.mark.parametrize(
    ("premise", "claim", "labels"),
    [
        # the same ranking in other words, with a result verb and a time
        (
            "Physiotherapy on its own led to better pain and function over the first three "
            "months than a steroid injection.",
            "Physiotherapy alone gave better pain scores than a steroid injection at twelve weeks.",
            ("neutral", "neutral"),
        ),
        (
            "Signed limits delivered bigger casualty reductions than zones with humps.",
            "Signed 20 mph limits have delivered bigger reductions in casualties than "
            "physically calmed zones.",
            ("supports", "supports"),
        ),
        # a ranking in another measure
        (
            "Zones with humps delivered bigger casualty reductions than signed limits.",
            "Signed limits brought bigger falls in traffic noise than zones with humps.",
            ("neutral", "supports"),
        ),
        # a rise where, by a size, against a rise: they agree
        (
            _NO2_ROSE,
            "Nitrogen dioxide went up at most roadside sites, by around 6 per cent.",
            ("supports", "neutral"),
        ),
        # another outcome that fell
        (
            _NO2_ROSE,
            "Traffic noise fell at most roadside sites, by around 6 per cent.",
            ("neutral", "neutral"),
        ),
        # rare against common: a grade of how bad, under ten times as often, another harm
        (
            "Serious skin reactions are rare, affecting fewer than 1 in 100 patients.",
            "Mild skin redness is common, turning up in 29 per cent of residents.",
            ("neutral", "neutral"),
        ),
        (
            "Skin irritation is rare, affecting fewer than 5 in every 100 wearers.",
            "Sore skin was common, turning up in 29 per cent of residents.",
            ("neutral", "neutral"),
        ),
        (
            "Skin irritation is rare, affecting fewer than 2 in every 100 wearers.",
            "Hip fractures were common, turning up in 29 per cent of residents.",
            ("neutral", "neutral"),
        ),
        # "smaller than" between two measures of one thing is no ranking of two things
        (
            "We support the current rule that single-use paper bags are charged at the "
            "same rate as plastic.",
            'Sales of heavier "bags for life" grew strongly, so the saving in plastic by '
            "weight is smaller than the saving in bag counts.",
            ("neutral", "neutral"),
        ),
        # a word of change between the place and "by": the size is not the rise's
        (
            "Nitrogen dioxide rose at the school gates after the change, falling later by "
            "about 3 per cent.",
            "Nitrogen dioxide went down at most roadside sites, by around 6 per cent.",
            ("neutral", "neutral"),
        ),
    ],
)
def test_round_twelve_controls_do_not_refute(
    premise: str, claim: str, labels: tuple[str, str]
) -> None:
    assert (heuristic_nli(premise, claim).label, heuristic_nli(claim, premise).label) == labels
