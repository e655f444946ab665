"""Decision 0120: round seven's blind corpora at first sight. A denied finding of any
change is a finding of no change ("our gauging stations have not picked up any
measurable change in flood peaks"); advice against in other words ("should leave
cranberry alone", "steer clear of", "stay away from", a sentence that opens "Do not" or
"Never") names its setting in the advice's subject or opening condition too ("anyone on
warfarin should ...", "If you take warfarin, ..."), so that it meets a text that calls the
same thing safe in the same setting. Each pair is read both ways; the controls name
another outcome or another setting."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import extract_claims_extractive
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import Share
from lyra.pipelines.evidence.nli_tokens import tokenize
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates

# (text, the stems of what it finds did not change)
DENIED = [
    ("Our gauging stations have not picked up any measurable change in flood peaks.",
     {"flood", "peak"}),
    ("We did not find any difference in pain scores between the groups.",
     {"pain", "scor", "group"}),
    ("The trial didn't show any significant difference between the two arms in pain scores.",
     {"pain", "scor"}),
    ("There was not any real change in attendance.", {"attendanc"}),
    ("We have not so far seen any change to waiting times.", {"wait", "tim"}),
    # no finding is denied: a doubt, or someone's expectation
    ("It is not yet clear whether any change in flood peaks will follow.", set()),
    ("No one expected any change in flood peaks.", set()),
]  # fmt: skip


@pytest.mark.parametrize(("text", "unchanged"), DENIED)
def test_a_denied_finding_of_any_change_is_no_change(text: str, unchanged: set[str]) -> None:
    assert no_change(tokenize(text)) == unchanged


# (text, the one share it gives): a share given again in the other form is one share;
# two shares in one form, or a restatement too far off, are not
SHARES = [
    ("About 30 per cent of them, nearly one in three, had stopped using it.", Share(30.0, 30.0)),
    ("About 1 in 3 of them, 36 per cent, stopped.", Share(100 / 3, 100 / 3)),
    ("Nearly three in ten of the women taking cranberry (29 per cent) reported headaches.",
     Share(30.0, 30.0)),
    ("About 30 per cent of them, nearly one in two, had stopped using it.", None),
    ("About 30 per cent of them had stopped, and 34 per cent had cut down.", None),
]  # fmt: skip


@pytest.mark.parametrize(("text", "share"), SHARES)
def test_a_share_restated_in_the_other_form_is_one_share(text: str, share: Share | None) -> None:
    assert read_share(tokenize(text)) == share


# (one text, the other): they contradict each other, read either way round
CONTRADICTING = [
    # beaver_floods (round seven), the agency's gauges against a change in flood peaks
    ("Flood peaks fell by 34% downstream of the dams.",
     "Our gauging stations have not picked up any measurable change in flood peaks."),
    ("The exercise programme cut pain scores by 20%.",
     "We did not find any difference in pain scores between the groups."),
    # cranberry_uti (round seven): the vendor's FAQ against the anticoagulation nurse
    ("Yes: CranGuard PAC-36 is safe to take alongside warfarin because it is a "
     "standardised extract rather than a juice, and the reports of cranberry affecting "
     "blood clotting have involved people drinking very large amounts of juice.",
     "My view, and it's the view of our clinic, is that anyone on warfarin should leave "
     "cranberry alone altogether, juice and capsules both."),
    # pelvic_floor (round seven): the guidance against the vendor's programme
    ("Do not do pelvic floor exercises while the catheter is still in.",
     "The Catheter Phase programme is safe to start from the day after your operation, "
     "even with your catheter still in, and it means you won't lose the progress you made "
     "before surgery."),
    ("Glucosamine is safe to take with warfarin.",
     "Steer clear of glucosamine if you take warfarin."),
    ("Glucosamine is safe to take with warfarin.",
     "If you take warfarin, stay away from glucosamine."),
    ("Never take glucosamine with warfarin.", "Glucosamine is safe to take with warfarin."),
    # pelvic_floor (round seven): a share restated in the other form, a word further off
    ("Sensor discomfort is rare: fewer than 2 in every 100 PelviTrak users report any "
     "soreness or irritation, and it usually settles within a day.",
     "When we audited the men coming through our clinic over a couple of years who'd "
     "bought a home unit with an internal sensor, about 30 per cent of them, nearly one in "
     "three, had stopped using it because of soreness or a bit of bleeding from the back "
     "passage."),
    # cranberry_uti (round seven): the gut in other words, a share restated after its group
    ("Digestive side effects are rare, reported by fewer than 1 in 100 customers, and are "
     "usually mild and short-lived, such as slight indigestion in the first few days.",
     "Of those who took a cranberry product for at least three months, nearly three in ten "
     "of the women taking cranberry (29 per cent) reported stomach upset, heartburn or loose "
     "stools, and the problems were the main reason given for stopping."),
]  # fmt: skip

# (one text, the other): another outcome, another setting, or no finding denied
APART = [
    ("Our gauging stations have not picked up any measurable change in flood peaks.",
     "Water quality improved by 20% downstream of the dams."),
    ("It is not yet clear whether any change in flood peaks will follow.",
     "Flood peaks fell by 34% downstream of the dams."),
    ("Cranberry juice is safe to drink in pregnancy.",
     "Anyone on warfarin should leave cranberry alone."),
    ("Glucosamine is safe for people with shellfish allergy.",
     "Steer clear of glucosamine if you take warfarin."),
    ("Glucosamine is safe to take with warfarin.",
     "If you are pregnant, stay away from glucosamine."),
    ("Cranberry juice is safe to drink in pregnancy.",
     "When taking warfarin, avoid cranberry juice."),
    ("Never take glucosamine with warfarin.", "Glucosamine is safe for people with diabetes."),
    ("Digestive side effects are rare, reported by fewer than 1 in 100 customers.",
     "Nearly three in ten of the women taking cranberry (29 per cent) reported headaches."),
]  # fmt: skip


@pytest.mark.parametrize(("first", "second"), CONTRADICTING)
def test_the_judge_and_the_sweep_read_the_contradiction_each_way(first: str, second: str) -> None:
    assert heuristic_nli(first, second).label == "refutes"
    assert heuristic_nli(second, first).label == "refutes"
    assert contradiction_candidates([("c", second)], {"f": first}) == {"c": ["f"]}
    assert contradiction_candidates([("c", first)], {"f": second}) == {"c": ["f"]}


@pytest.mark.parametrize(("first", "second"), APART)
def test_another_outcome_or_setting_is_no_contradiction(first: str, second: str) -> None:
    assert heuristic_nli(first, second).label == "neutral"
    assert heuristic_nli(second, first).label == "neutral"
    assert contradiction_candidates([("c", second)], {"f": first}) == {}
    assert contradiction_candidates([("c", first)], {"f": second}) == {}


# A prohibition of an exercise or a habit in a case it names is a contraindication, a
# claim; an order with no case stays advice, no claim (pelvic_floor, round seven).
PROHIBITIONS = [
    ("Do not do pelvic floor exercises while the catheter is still in.", True),
    ("Do not wear the stockings while you are asleep.", True),
    ("Never lift anything heavy while your wound is still healing.", True),
    ("Do not do it now.", False),
    ("Do not do this at home.", False),
    ("Don't eat anything.", False),
]


@pytest.mark.parametrize(("text", "claimed"), PROHIBITIONS)
def test_a_prohibition_in_a_named_case_is_a_claim(text: str, claimed: bool) -> None:
    question = "Is pelvic floor training safe after prostate surgery?"
    claims = [c.text for c in extract_claims_extractive(text, question, max_claims=5)]
    assert claims == ([text] if claimed else [])
