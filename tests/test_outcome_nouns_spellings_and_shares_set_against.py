"""Changes named by nouns, one key for a word's spellings and an outcome's other names,
two shares set against each other, and one reader of a bound before a number
(decision 0114). The contradictions come from blind corpora (`tests/corpora/phone_bans`,
`electronic_tags`); the pairs that must stay apart are their near misses."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claims import extract_claims_extractive, informativeness
from lyra.pipelines.evidence.nli_bounds import bound_before
from lyra.pipelines.evidence.nli_change import read_changes
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_numbers import stem
from lyra.pipelines.evidence.nli_shares import read_share, shares_compared
from lyra.pipelines.evidence.nli_shares_said import Share
from lyra.pipelines.evidence.nli_spelling import fold
from lyra.pipelines.evidence.nli_tokens import content_keys, tokenize
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates

EXAM_EFFECT = (
    "Across the 14 studies that reported examination outcomes, restrictive policies were "
    "associated with a pooled improvement of 0.07 standard deviations in end-of-year "
    "examination scores (95% CI 0.03 to 0.11; I2 = 58%)."
)
EXAM_NULL = (
    "Tracking more than 11,000 pupils over three years, they found no significant "
    "difference in GCSE results between schools that banned phones outright and those "
    "with more relaxed rules."
)
RECONVICTED = (
    "Among those placed on an electronically monitored curfew, 31.2% were reconvicted "
    "within two years, compared with 42.6% of matched offenders who served custodial "
    "sentences of under 12 months (adjusted odds ratio 0.64, 95% CI 0.57 to 0.72)."
)
REOFFENDING_NULL = (
    "After matching, the evaluation found no statistically significant difference in "
    "two-year proven reoffending between offenders given a tagged curfew order and "
    "comparable offenders given short custodial sentences."
)


def _reading(text: str):
    return read_changes(tokenize(text))


@pytest.mark.parametrize(
    ("text", "number", "bound"),
    [
        ("fewer than 1 in 20 people", "1", "at most"),
        ("up to a third of patients", "a", "at most"),
        ("a maximum of 5% of patients", "5%", "at most"),
        ("under 10% of users", "10%", "at most"),
        ("at most 3 in 100 participants", "3", "at most"),
        ("no more than 1 in 20 people", "1", "at most"),
        ("not more than 4 in 10 women", "4", "at most"),
        ("more than 20% of pupils", "20%", "at least"),
        ("at least 1 in 5 drivers", "1", "at least"),
        ("no fewer than 10% of patients", "10%", "at least"),
        ("over 2 years 5% of patients", "5%", ""),  # "over" bounds the years
        ("as many as 3 in 10 statin users", "3", ""),
    ],
)
def test_one_reader_gives_the_bound_right_before_a_number(
    text: str, number: str, bound: str
) -> None:
    tokens = tokenize(text)
    assert bound_before(tokens, tokens.index(number, 1 if number == "a" else 0)) == bound


def test_a_share_is_widened_by_the_bound_that_reader_gives() -> None:
    at_least = read_share(tokenize("no fewer than 10% of patients said so"))
    assert at_least == Share(10.0, float("inf"))
    assert read_share(tokenize("not more than 4 in 10 women had it")) == Share(0.0, 40.0)
    # a bound further back is no bound of this share
    assert read_share(tokenize("over 2 years 5% of patients had pain")) == Share(5.0, 5.0)


@pytest.mark.parametrize(
    ("text", "sized"),
    [
        ("The policy brought a 7% increase in examination scores.", {"exam", "scor"}),
        ("The drug was associated with a significant reduction in pain scores.", {"pain", "scor"}),
        ("Patients saw an improvement of 12 points in pain scores (95% CI 8 to 16).",
         {"pain", "scor"}),
        (EXAM_EFFECT, {"end", "exam", "year", "scor"}),
    ],
)  # fmt: skip
def test_a_noun_of_change_is_about_what_follows_in(text: str, sized: set[str]) -> None:
    reading = _reading(text)
    assert reading.sized_change == sized
    assert reading.no_change == frozenset()


@pytest.mark.parametrize(
    ("text", "null"),
    [
        ("There was no significant reduction in pain scores.", {"pain", "scor"}),
        ("The reduction in pain scores was not statistically significant.", {"pain", "scor"}),
        ("Pain scores did not differ significantly between the groups.", {"pain", "scor"}),
        ("Total SOC stocks did not differ between no-till and ploughed soils.",
         {"total", "carbon", "stock"}),
    ],
)  # fmt: skip
def test_a_denied_noun_of_change_and_did_not_differ_find_no_change(
    text: str, null: set[str]
) -> None:
    reading = _reading(text)
    assert reading.no_change == null
    assert reading.sized_change == frozenset()
    assert reading.change == frozenset()


def test_a_verb_of_the_same_form_is_still_a_verb() -> None:
    reading = _reading("Scores increase in winter.")
    assert reading.change == {"scor"}
    assert reading.sized_change == frozenset()


@pytest.mark.parametrize(
    ("british", "american"),
    [
        ("randomised", "randomized"),
        ("hospitalisation", "hospitalization"),
        ("behavioural", "behavioral"),
        ("colour", "color"),
        ("tumours", "tumor"),
        ("anaemia", "anemia"),
        ("paediatric", "pediatric"),
        ("oestrogen", "estrogen"),
        ("diarrhoea", "diarrhea"),
        ("foetal", "fetal"),
        ("coeliac", "celiac"),
        ("centre", "center"),
        ("fibre", "fiber"),
        ("litres", "liters"),
        ("travelled", "traveled"),
        ("modelling", "modeling"),
        ("programme", "program"),
        ("analysed", "analyzed"),
        ("favourable", "favorable"),
        ("ploughed", "plowed"),
    ],
)
def test_british_and_american_spellings_share_one_key(british: str, american: str) -> None:
    assert fold(stem(british)) == fold(stem(american))
    assert content_keys([british]) == content_keys([american])


@pytest.mark.parametrize(
    "word", ["hour", "four", "flour", "detour", "poet", "shoes", "aerobic", "level", "trial"]
)
def test_words_whose_letters_are_no_spelling_choice_keep_their_own_key(word: str) -> None:
    others = {"hour", "four", "flour", "detour", "poet", "shoes", "aerobic", "level", "trial"}
    keys = {w: fold(stem(w)) for w in others}
    assert list(keys.values()).count(keys[word]) == 1


@pytest.mark.parametrize(
    ("words", "key"),
    [
        (["reoffending", "reconvicted", "reconviction", "recidivism"], "reoffend"),
        (["examination", "exams", "GCSE"], "exam"),
        (["mortality", "deaths"], "death"),
    ],
)
def test_an_outcome_s_other_names_share_one_key(words: list[str], key: str) -> None:
    assert {fold(stem(w.lower())) for w in words} == {key}


def test_two_shares_set_against_each_other_size_a_difference() -> None:
    assert shares_compared(tokenize(RECONVICTED)) == [
        "were", "reconvicted", "within", "2", "years"
    ]  # fmt: skip
    assert _reading(RECONVICTED).sized_change == {"reoffend", "year"}


@pytest.mark.parametrize(
    "text",
    [
        # close shares are no difference
        "In the trial, 31% of the tagged group were reconvicted, compared with 33% of the "
        "prison group.",
        # a difference called not significant
        "Reconviction was 20% versus 40%, a nonsignificant difference.",
        "Reconviction was 20% against 40%, but the difference was not significant.",
        "Reconviction was 20% against 40%, a non-significant difference.",
        "Reconviction was 20% compared with 40%; this was not statistically significant.",
        # two shares not set against each other
        "The proportion who vomited was 29% with active bands and 31% with sham bands.",
    ],
)
def test_shares_close_or_not_significant_or_not_set_against_size_nothing(text: str) -> None:
    assert shares_compared(tokenize(text)) == []


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (EXAM_NULL, EXAM_EFFECT),
        (EXAM_EFFECT, EXAM_NULL),
        (REOFFENDING_NULL, RECONVICTED),
        (RECONVICTED, REOFFENDING_NULL),
    ],
)
def test_an_effect_against_no_difference_in_its_other_name_refutes(
    premise: str, claim: str
) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"
    assert contradiction_candidates([("c", claim)], {"f": premise}) == {"c": ["f"]}


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        # no difference in one outcome, a change in another
        ("There was no significant difference in side effects between the two groups.",
         "The new drug brought a 30% reduction in pain scores compared with placebo."),
        ("The new drug brought a 30% reduction in pain scores compared with placebo.",
         "There was no significant difference in side effects between the two groups."),
        # shares too close to differ
        ("Tagging made no significant difference to reoffending.",
         "In the trial, 31% of the tagged group were reconvicted, compared with 33% of the "
         "prison group."),
    ],
)  # fmt: skip
def test_no_difference_in_another_outcome_or_in_close_shares_does_not_refute(
    premise: str, claim: str
) -> None:
    assert heuristic_nli(premise, claim).label == "neutral"
    assert contradiction_candidates([("c", claim)], {"f": premise}) == {}


def test_one_finding_in_two_spellings_supports() -> None:
    result = heuristic_nli(
        "Randomised trials found that the programme reduced falls by 23%.",
        "Randomized trials found the program reduced falls by 23%.",
    )
    assert result.label == "supports"


QUESTION = "Does switching to no-till farming store soil carbon without hurting yields?"


def test_a_quoted_speaker_s_own_research_is_a_finding() -> None:
    text = (
        "\u201cOur long-term plots at Halloway didn't close the yield gap until the eighth "
        "harvest after we stopped ploughing,\u201d he said."
    )
    assert informativeness(text) == pytest.approx(0.4)
    assert [c.text for c in extract_claims_extractive(text, QUESTION, 5)] == [text]


def test_a_quoted_speaker_s_opinion_still_counts_less() -> None:
    text = "\u201cThe whole no-till thing has been oversold to farmers,\u201d he said."
    assert informativeness(text) == pytest.approx(0.0)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("twenty-five percent of patients", ["25", "percent", "of", "patients"]),
        ("sixty-one thousand dollars", ["61", "thousand", "dollars"]),
        ("forty two percent", ["42", "percent"]),
        ("twenty people", ["20", "people"]),
        ("annual NO2 concentrations", ["annual", "nitrogen", "dioxide", "concentrations"]),
        ("CO2 emissions", ["carbon", "dioxide", "emissions"]),
    ],
)
def test_numbers_in_two_words_and_formulae_read_as_one_value_and_a_name(
    text: str, tokens: list[str]
) -> None:
    assert tokenize(text) == tokens


@pytest.mark.parametrize(
    "words", [["clots", "thrombosis", "thromboembolism", "VTE", "DVT", "clotting"]]
)
def test_a_clot_by_its_clinical_names_is_one_outcome(words: list[str]) -> None:
    assert {fold(stem(w.lower())) for w in words} == {"clot"}


NO2_FELL = (
    "Over four years, annual mean roadside NO2 concentrations inside the cordon fell by "
    "9.4% relative to matched comparison sites."
)
NO2_NULL = (
    "When my team took the council's own monitor readings and corrected them for weather "
    "and for the fleet getting cleaner, there's no statistically significant difference in "
    "nitrogen dioxide inside the zone compared with outside it."
)
KNEE_RARE = (
    "Adverse events were rare: minor musculoskeletal complaints, chiefly knee pain, "
    "occurred in 2.1% of tai chi participants."
)
KNEE_COMMON = (
    "Honestly, knee pain is really common with tai chi: about one in four people in my "
    "Tuesday group had sore knees in the first couple of months, me included."
)
CLOTS_QUOTED = (
    "\"Clots are not a rare event with this drug - in my patients it's something like six "
    "in every hundred who've had it for a new knee or hip,\" she said."
)
INCOME_SMALL = (
    "Our analysis found that households in the lowest income fifth account for around 6% "
    "of charge payments, compared with 41% from households in the highest income fifth."
)
INCOME_LARGE = (
    "According to a survey of more than 1,400 members by the Elvan and District Shift "
    "Workers' Union, close to one in three drivers paying the charge on a typical weekday "
    "come from households in the bottom income fifth."
)
LEVY_BETTER = (
    "I've lived in both places, so let me put my cards on the table: I think the levy "
    "here in Brennick has taken more commuter cars off the road than Elvan's charge ever "
    "did, and it's done it without a single camera."
)
OUR_ESTIMATE = (
    "Our estimate, when you load in health care, staff pensions and the capital cost of "
    "the beds, is closer to sixty-one thousand dollars per person per year."
)
VOSS = (
    '"When we looked at our own cases, people we diverted into treatment court were '
    'rearrested more often within three years than people who served the mandatory term,"'
    " Voss said, adding that her office's internal review found rearrest rates of 42 "
    "percent for the diverted group and 35 percent for those who had been sentenced to "
    "the minimum."
)


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (NO2_NULL, NO2_FELL),
        (NO2_FELL, NO2_NULL),
        (KNEE_RARE, KNEE_COMMON),
        (KNEE_COMMON, KNEE_RARE),
        (INCOME_LARGE, INCOME_SMALL),
    ],
)
def test_contradictions_of_the_third_blind_round(premise: str, claim: str) -> None:
    assert heuristic_nli(premise, claim).label == "refutes"
    assert contradiction_candidates([("c", claim)], {"f": premise}) == {"c": ["f"]}


TAI_CHI = "Does tai chi reduce falls in older adults, and how much practice is needed?"
TXA = "Does tranexamic acid safely reduce blood loss in hip and knee replacement surgery?"
CHARGES = "Do congestion charges reduce city-centre traffic and air pollution?"
MINIMUMS = "Do mandatory minimum sentences for drug offences deter crime, and what do they cost?"


@pytest.mark.parametrize(
    ("text", "score", "question"),
    [
        # a share of a group the writer belongs to or sees is a count, not a story
        (KNEE_COMMON, 0.7, TAI_CHI),
        # and a quoted clinician's count is the finding, the more so as it denies in words
        # that the harm is rare ("not a rare event": decision 0138, was 0.35)
        (CLOTS_QUOTED, 0.6, TXA),
        # the writer's research team, not the writer's life
        (NO2_NULL, 0.5, CHARGES),
        # "I think" frames an opinion, which is still a claim
        (LEVY_BETTER, 0.25, CHARGES),
        # an estimate given, not a method
        (OUR_ESTIMATE, 0.2, MINIMUMS),
    ],
)
def test_counts_teams_opinions_and_estimates_of_the_third_blind_round_are_claims(
    text: str, score: float, question: str
) -> None:
    assert informativeness(text) == pytest.approx(score)
    claims = extract_claims_extractive(text, question, 5)
    assert [c.text for c in claims] == [text]


def test_a_plural_subject_that_comes_from_somewhere_has_a_verb() -> None:
    claims = extract_claims_extractive(
        INCOME_LARGE, "Do congestion charges fall on low-income drivers?", 5
    )
    assert [c.text for c in claims] == [INCOME_LARGE]


def test_a_quote_and_what_the_speaker_added_are_two_claims() -> None:
    claims = extract_claims_extractive(VOSS, "Do treatment courts cut rearrests?", 5)
    assert sorted(c.text for c in claims) == [
        '"When we looked at our own cases, people we diverted into treatment court were '
        "rearrested more often within three years than people who served the mandatory "
        'term," Voss said',
        "adding that her office's internal review found rearrest rates of 42 percent for "
        "the diverted group and 35 percent for those who had been sentenced to the minimum.",
    ]
