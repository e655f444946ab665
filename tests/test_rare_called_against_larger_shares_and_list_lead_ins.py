"""Decision 0115: contradictions and claims of the fourth blind round read at first sight.
An outcome called rare with its share against a share far larger that grades nothing;
shares of two things named after "of" that disagree in nothing; the share of one clause
where another clause negates or gives a share of its own; leaving work in other words;
no difference between two things against one leading the other; "the same level of X
as"; "no." as an answer, not "number"; "Important:" as a label; a list item's lead-in
before its statement; a share of "us" or of what the writer is called out to; what a
scheme pays the reader. Each pair is quoted as its source wrote it and read both ways."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import extract_claims_extractive
from lyra.pipelines.evidence.harm_reports import practitioners_count
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_shares import share_clause
from lyra.pipelines.evidence.nli_shares_said import Share
from lyra.pipelines.evidence.nli_tokens import tokenize
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates
from lyra.pipelines.extract.sentences import split_sentences

# (claim, premise): each pair contradicts, read both ways, and the sweep pairs them
CONTRADICTING = [
    (  # called infrequent at 2%, against 18% of one clinic's patients
        "Harms were infrequent: musculoskeletal injuries were reported by about 2% of "
        "participants in the trials the committee reviewed, and no serious cardiac events "
        "were recorded.",
        "In our referral clinic about 18% of patients on prescribed exercise programmes pick "
        "up a strain or overuse injury in the first two months, and for someone who is already "
        "low, being told to rest a knee for three weeks can knock them right back.",
    ),
    (  # rare at 2.1 per cent (against 1.9 on control), against 11 percent who quit
        "Among recipients who were employed when payments began, leaving paid employment "
        "altogether was rare, at 2.1 per cent of recipients over the first 18 months, compared "
        "with 1.9 per cent in the comparison group.",
        "Of those who responded, about 11 percent of recipients said they had quit their jobs "
        "outright since the payments began, and a further 18 percent said they had cut back "
        "their hours.",
    ),
    (  # no difference between two arms in remission, against one beating the other
        "In these head-to-head comparisons, remission at 12 weeks did not differ significantly "
        "between exercise and antidepressant arms (36% vs 39%; risk ratio 0.92, 95% CI 0.78 to "
        "1.09; low certainty).",
        "Structured exercise outperforms antidepressants, with patients around 1.5 times more "
        "likely to reach remission than those on medication alone.",
    ),
    (  # the same level of protection as, against better than
        "For travellers worried about clots, our stockings give the same level of protection "
        "as a heparin injection, without the needle, the prescription or the bruise.",
        "In our trial of high-risk travellers, a single dose of low-molecular-weight heparin "
        "before departure protected better than stockings alone.",
    ),
    (  # shares of one thing ("annual rainfall") far apart
        "Green roofs retained 56% of annual rainfall in the study.",
        "Green roofs retained 24% of the annual rainfall in the city.",
    ),
    (  # shares of people, in two words for them
        "About 20% of patients taking the drug had nausea in the first week.",
        "Nausea affected 56% of participants taking the drug in the first week.",
    ),
    (  # uncommon, fewer than 2 in 100, against one in four of a poll's answerers
        "Side effects are uncommon: skin irritation or discomfort affects fewer than 2 in every "
        "100 travellers who wear them.",
        "On our flight-socks poll, roughly one in four of us reported itchy skin, red marks or "
        "numb toes at some point during the flight.",
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
        (  # rare and serious against mild and frequent: two outcomes
            "Serious side effects are rare, affecting fewer than 1 in 1,000 patients.",
            "About 20% of patients report side effects such as nausea in the first week.",
        ),
        (  # called rare, the larger share under five times the smaller
            "Skin irritation is rare, affecting about 2% of travellers.",
            "About 6% of passengers reported itchy skin on long flights.",
        ),
        (  # no difference between two arms, against one of them beating a third
            "Remission did not differ significantly between exercise and antidepressant arms.",
            "Structured exercise outperforms counselling, with patients more likely to reach "
            "remission.",
        ),
        (  # the same protection as one thing, against another thing beating a third
            "Our stockings give the same level of protection as a heparin injection.",
            "Aspirin protected better than a placebo tablet in the trial.",
        ),
        (  # a share of the rain against a share of the roofs
            "Across the included sites, extensive green roofs retained a median of 56% of "
            "annual rainfall (interquartile range 43 to 67%), compared with 5 to 15% on "
            "conventional gravel-ballasted roofs monitored in the same studies.",
            "Across the last few years, about one in five of the green roofs I get called out "
            "to have leaked somewhere in the first ten years, usually at the drains or upstands.",
        ),
        (  # called rare, the larger share of another outcome
            "Leaks are rare, with about 1% of roofs needing a repair in ten years.",
            "About 30% of owners said their cooling bills fell in the first summer.",
        ),
    ],
)
def test_what_does_not_contradict(claim: str, premise: str) -> None:
    assert heuristic_nli(premise, claim).label != "refutes"
    assert heuristic_nli(claim, premise).label != "refutes"


@pytest.mark.parametrize(
    ("text", "clause"),
    [
        (
            "About 11 percent said they had quit, and a further 18 percent cut their hours.",
            "About 11 percent said they had quit,",
        ),
        (
            "It was rare, at 2.1 per cent of recipients, compared with 1.9 per cent on control.",
            "It was rare, at 2.1 per cent of recipients,",
        ),
        ("No share here, and no clause cut.", "No share here, and no clause cut."),
    ],
)
def test_a_share_s_clause_ends_at_the_first_join_after_it(text: str, clause: str) -> None:
    assert share_clause(tokenize(text)) == tokenize(clause)


def test_a_negation_in_another_clause_leaves_the_share_read() -> None:
    reading = read_changes(
        tokenize(
            "Musculoskeletal injuries were reported by about 2% of participants, and no "
            "serious cardiac events were recorded."
        )
    )
    assert reading.share == Share(2.0, 2.0)
    # what the share is of comes from its own clause
    assert "cardiac" not in reading.share_about


def test_a_share_whose_own_clause_negates_is_not_read() -> None:
    reading = read_changes(tokenize("About 2% of participants did not finish, and 5% withdrew."))
    assert reading.share is None


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        (  # "no." answers; a capital after it opens the next sentence
            "So the short version is no. When we looked at the surveys, hours did not differ.",
            ["So the short version is no.", "When we looked at the surveys, hours did not differ."],
        ),
        ("He lives at No. 10 Downing Street. Then he left.", None),
        ("See Nos. 3 and 4. Then stop.", ["See Nos. 3 and 4.", "Then stop."]),
    ],
)
def test_no_before_a_word_ends_a_sentence(text: str, sentences: list[str] | None) -> None:
    expected = sentences or ["He lives at No. 10 Downing Street.", "Then he left."]
    assert split_sentences(text) == expected


@pytest.mark.parametrize(
    ("text", "counted"),
    [
        ("roughly one in four of us reported itchy skin, red marks or numb toes", True),
        (
            "Across the last few years, about one in five of the green roofs I get called out "
            "to have leaked somewhere in the first ten years.",
            True,
        ),
        ("About one in five of the roofs in the city have leaked.", False),
    ],
)
def test_a_share_of_us_or_of_what_the_writer_is_called_to_is_counted(
    text: str, counted: bool
) -> None:
    assert practitioners_count(text) is counted


@pytest.mark.parametrize(
    ("question", "text", "claim"),
    [
        (  # a list item's lead-in before its statement
            "Do compression stockings prevent blood clots on long-haul flights, and who should "
            "wear them?",
            "the big surprise for me: roughly one in four of us reported itchy skin, red marks or "
            "numb toes at some point during the flight",
            "roughly one in four of us reported itchy skin, red marks or numb toes at some point "
            "during the flight",
        ),
        (  # what the writer is called out to, counted
            "How much do green roofs reduce stormwater runoff and cooling costs in cities?",
            "Across the last few years, about one in five of the green roofs I get called out to "
            "have leaked somewhere in the first ten years.",
            "Across the last few years, about one in five of the green roofs I get called out to "
            "have leaked somewhere in the first ten years.",
        ),
        (  # what a scheme pays the reader, at a rate
            "Do basic income pilots make people work less?",
            "If you were selected for the payment group, you receive $750 per month for 24 "
            "consecutive months, paid on the first business day of each month.",
            "If you were selected for the payment group, you receive $750 per month for 24 "
            "consecutive months, paid on the first business day of each month.",
        ),
        (  # a caution for the reader's case, after an "Important:" label
            "Do basic income pilots make people work less?",
            "Important: If you currently receive means-tested disability support, you should "
            "not enrol until you have a signed benefits waiver from the disability support "
            "office.",
            "If you currently receive means-tested disability support, you should not enrol "
            "until you have a signed benefits waiver from the disability support office.",
        ),
        (  # a finding after a speaker's "no."
            "Do basic income pilots make people work less?",
            "MARCUS: So the short version, from the survey data the steering group saw, is no. "
            "When we looked at the quarterly surveys at the one-year mark, there was no "
            "significant difference in weekly hours worked between the people getting the "
            "payments and the control group.",
            "When we looked at the quarterly surveys at the one-year mark, there was no "
            "significant difference in weekly hours worked between the people getting the "
            "payments and the control group.",
        ),
    ],
)
def test_claims_of_the_fourth_blind_round(question: str, text: str, claim: str) -> None:
    assert [c.text for c in extract_claims_extractive(text, question)] == [claim]


def test_a_label_before_lower_case_stays_with_its_sentence() -> None:
    text = "Note: the pilot paid $750 a month to each of 600 households for two years."
    assert [c.text for c in extract_claims_extractive(text, "Do basic income pilots work?")] == [
        text
    ]
