"""Decision 0108: effect sizes in standard deviations, a currency's code before a sum,
shares ten times apart naming one event in two words, shares in words, a claim's first
sentence and its clauses after a semicolon read alone, groups given the least or said to
gain alike, cost comparisons, changes up or down by a fraction, no significant change,
frames and findings of the blind corpora, and the passage and claim budgets a
nine-source corpus needs."""

from __future__ import annotations

import pytest

from lyra.config.settings import Settings
from lyra.pipelines.evidence.claim_frames import stated_part
from lyra.pipelines.evidence.claim_signals import EFFECT, NUMBER_UNIT
from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.nli_change import _known
from lyra.pipelines.evidence.nli_comparisons import read_comparisons
from lyra.pipelines.evidence.nli_costs import Cost, read_cost
from lyra.pipelines.evidence.nli_groups import GroupReading, groups_clash, read_groups
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_numbers import measures
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import Share
from lyra.pipelines.evidence.nli_statements import claim_statements
from lyra.pipelines.evidence.nli_tokens import tokenize


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("pupils in small classes scored 0.17 standard deviations higher in reading", 0.17),
        ("the programme raised reading attainment by around 0.35 of a standard deviation", 0.35),
        ("an effect size of 0.2 SD on the reading test", 0.2),
    ],
)
def test_an_effect_size_in_standard_deviations_is_one_unit(text: str, value: float) -> None:
    found = measures(tokenize(text))
    assert found["sd"] == [(value, value, found["sd"][0][2])]
    assert "standard" not in found


def test_effect_sizes_far_apart_refute_each_other() -> None:
    trial = (
        "On average, pupils assigned to small classes scored 0.17 standard deviations higher "
        "in reading than those in regular classes by the end of Year 3."
    )
    ministry = (
        "According to this analysis, the Class Twenty programme raised reading attainment by "
        "around 0.35 of a standard deviation, an effect the Ministry regards as substantial."
    )
    assert heuristic_nli(ministry, trial).label == "refutes"
    assert heuristic_nli(trial, ministry).label == "refutes"
    close = "Pupils in small classes scored 0.18 standard deviations higher in reading."
    assert heuristic_nli(close, trial).label != "refutes"


@pytest.mark.parametrize(
    ("text", "unit", "value"),
    [
        ("Water fluoridation costs about SM 1.20 per person per year", "sm/person", 1.2),
        ("the agency's running cost was about OC 39 million", "oc", 39e6),
        ("a licence costs NKR 450 a year", "nkr/year", 450.0),
    ],
)
def test_a_currency_code_before_a_rate_or_a_scaled_sum(text: str, unit: str, value: float) -> None:
    found = measures(tokenize(text))
    assert [(low, high) for low, high, _ in found[unit]] == [(value, value)]


@pytest.mark.parametrize(
    ("text", "units"),
    [
        # a confidence interval is no currency
        ("(hazard ratio 0.94; 95% CI 0.77 to 1.15)", {"%"}),
        ("the dose was 5 mg a day", {"mg"}),  # a unit's symbol
        ("it went up by 5 per cent a year", {"%"}),
    ],
)
def test_no_currency_code_where_none_stands(text: str, units: set[str]) -> None:
    assert set(measures(tokenize(text))) == units


def test_a_coded_cost_per_resident_is_a_cost_per_person() -> None:
    cost = read_cost(
        tokenize("the true running cost of water fluoridation is SM 6.50 per resident")
    )
    assert cost == Cost(
        6.5, 6.5, "sm", "person", frozenset({"water", "fluoridation", "tru", "runn", "resident"})
    )
    cheap = "Water fluoridation costs about SM 1.20 per person per year."
    dear = "The true running cost of water fluoridation is closer to SM 6.50 per resident per year."
    assert heuristic_nli(dear, cheap).label == "refutes"
    assert heuristic_nli(cheap, dear).label == "refutes"


def test_shares_ten_times_apart_naming_one_event_in_two_words_refute() -> None:
    leaflet = (
        "Pain flare: A temporary flare of pain in the injected knee happens after about 2 in "
        "every 100 injections. It usually settles within 2 days. Use an ice pack."
    )
    clinician = (
        "In my own clinic I'd estimate something like one patient in five has a noticeable "
        "flare in the first day or two - the knee gets sorer, sometimes warmer."
    )
    assert heuristic_nli(clinician, leaflet).label == "refutes"
    assert heuristic_nli(leaflet, clinician).label == "refutes"
    # two and a half times as often, two words shared: not enough
    near = (
        "In my own clinic something like one patient in twenty has a noticeable flare in the "
        "first day or two - the knee gets sorer, sometimes warmer."
    )
    assert heuristic_nli(near, leaflet).label != "refutes"


def test_a_claims_first_sentence_is_read_alone_unless_it_asks() -> None:
    claim = (
        "Pain flare: A temporary flare of pain in the injected knee happens after about 2 in "
        "every 100 injections. It usually settles within 2 days."
    )
    assert claim_statements(claim) == [
        "A temporary flare of pain in the injected knee happens after about 2 in every 100 "
        "injections. It usually settles within 2 days.",
        "A temporary flare of pain in the injected knee happens after about 2 in every 100 "
        "injections.",
    ]
    asks = (
        "Do you need hand sanitizer to fight the virus? Per the agency, the most effective "
        "way is washing your hands with soap and water."
    )
    assert "Do you need hand sanitizer to fight the virus?" not in claim_statements(asks)


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        (
            "children eligible for free school meals gained roughly twice as much in reading "
            "as their better-off classmates",
            GroupReading("income", 0, frozenset({"children", "eligibl", "gain", "read"}), "most"),
        ),
        (
            "the disadvantaged children gained about the same as everybody else, there was "
            "no extra boost for them",
            GroupReading("income", 0, frozenset({"gain"}), "alike"),
        ),
        (
            "the reduction in decay in the most deprived fifth of areas was roughly double "
            "that in the least deprived fifth",
            GroupReading("income", 0, frozenset({"reduction", "decai", "area"}), "most"),
        ),
        (
            "Release rates have risen everywhere, but rural districts have seen the smallest "
            "change in release rates",
            GroupReading(
                "place", 1, frozenset({"releas", "rat", "risen", "everywher", "seen"}), "least"
            ),
        ),
    ],
)
def test_who_gains_most_least_or_alike(text: str, reading: GroupReading) -> None:
    assert read_groups(tokenize(text)) == reading


@pytest.mark.parametrize(
    ("first", "second", "clash"),
    [
        # one side gains most, and the same side gains alike
        (
            "Children eligible for free school meals gained roughly twice as much in reading "
            "as their better-off classmates.",
            "The disadvantaged children gained about the same as everybody else, there was no "
            "extra boost for them.",
            True,
        ),
        # one side gains most, and the same side the least
        (
            "Rural defendants gained the most in release rates from abolition.",
            "Rural districts have seen the smallest gain in release rates of any region.",
            True,
        ),
        # one side gains the least, the other the most: both may hold
        (
            "Urban defendants gained the most in release rates from abolition.",
            "Rural districts have seen the smallest gain in release rates of any region.",
            False,
        ),
        # two sides alike, twice said
        (
            "Poorer pupils gained about the same in reading as everybody else.",
            "Richer pupils gained the same in reading as everyone else.",
            False,
        ),
    ],
)
def test_groups_clash_by_what_each_side_gets(first: str, second: str, clash: bool) -> None:
    assert groups_clash(read_groups(tokenize(first)), read_groups(tokenize(second))) is clash
    assert (heuristic_nli(first, second).label == "refutes") is clash
    assert (heuristic_nli(second, first).label == "refutes") is clash


def test_most_on_one_side_and_least_on_a_side_not_named_is_no_least_reading() -> None:
    # "least on day shifts" names no side the rule knows: the sentence singles out nothing
    assert (
        read_groups(
            tokenize("Complaints fell most on night-time patrols, and least on day shifts.")
        ).divide
        == ""
    )


def test_a_cost_with_words_before_its_sum_and_a_rate_in_any_currency() -> None:
    text = (
        "By our calculation, once you include the new buildings, the recruitment bonuses and "
        "the extra administration, cutting class sizes costs the taxpayer more than 2,400 "
        "crowns per child every single year."
    )
    assert stated_part(text).startswith("once you include the new buildings")
    assert EFFECT.search(text) is not None
    assert NUMBER_UNIT.search("it comes to 1,550 crowns per pupil") is not None
    assert informativeness(text) == pytest.approx(0.55)


def test_the_budgets_a_nine_source_corpus_needs() -> None:
    # 148 passages with a claim in a nine-source corpus: 100 left a trial's results out
    search = Settings().search
    assert (search.max_passages_per_search, search.max_claims_per_search) == (160, 250)


# The second round of this session's blind corpora (decision 0108): pairs as their
# sources wrote them, each read both ways.
PAIRS_THAT_CLASH = [
    pytest.param(
        "You may have read online about changes in blood phosphate after iron infusions; in "
        "our experience, low phosphate levels are very rare, seen in fewer than one in a "
        "thousand of our patients, and we have never had to treat it.",
        "Based on pooled data from studies that measured phosphate systematically, roughly 45 "
        "per cent of patients develop a low blood phosphate level within two weeks of an "
        "infusion, although in most cases it is mild and causes no symptoms.",
        id="a-clause-after-a-semicolon-and-one-before-a-concession",
    ),
    pytest.param(
        "Across our contracts, fewer than 2 per cent of the defendants we monitor ever "
        "receive a technical violation, compared with industry figures of 15 to 25 per cent "
        "for first-generation systems.",
        "I'd guess a third of my clients on these bracelets have been written up for a "
        "technical violation at some point, mostly dead batteries.",
        id="a-share-as-a-fraction",
    ),
    pytest.param(
        "By contrast, the six-month rearrest rate showed no statistically significant change "
        "(0.6 percentage points; 95% CI -0.9 to 2.1).",
        "Figures obtained by the Herald suggest the share of released defendants rearrested "
        "within six months has risen by about a fifth since the Act took effect.",
        id="no-change-with-nothing-after-it",
    ),
    pytest.param(
        "On the figures available to us, school fluoride varnish programmes cost roughly four "
        "times as much per decayed tooth prevented as water fluoridation.",
        "In our region, school varnish programmes work out cheaper per cavity prevented than "
        "fluoridating the water, and I say that as someone who used to run one.",
        id="a-cost-multiple-against-cheaper",
    ),
    pytest.param(
        "Across the country, the national evaluation found that fatal and serious crashes on "
        "the enforced routes fell by around two-thirds.",
        "Across all enforced sections, fatal and serious injury collisions fell by 36% (95% CI "
        "22% to 48%) relative to the comparison sections.",
        id="two-thirds-against-36-per-cent",
    ),
    pytest.param(
        "The parish council's counts on the back lanes alongside the Lisk Valley section "
        "show traffic up by roughly a third since the cameras went live.",
        "Counts showed that traffic on the two parallel minor roads beside the Lisk Valley "
        "section fell slightly, by around 3 per cent, after enforcement began.",
        id="up-by-a-third-against-fell-by-3-per-cent",
    ),
    pytest.param(
        "On urban arterial roads the change in injury collisions was not statistically "
        "significant (rate ratio 0.94, 95% CI 0.78 to 1.13).",
        "Based on results from our customers, urban corridors see injury collisions reduced "
        "by 41 per cent within the first year.",
        id="a-change-that-was-not-significant",
    ),
    pytest.param(
        "Across the 1,840 participating schools, the full cost of a club breakfast, including "
        "food, staffing and premises, averaged Th 0.95 per pupil per day in 2023 to 2024.",
        "Once you add supervision, premises and the food, a club breakfast actually costs "
        "somewhere around Th 2.40 per child per day, give or take thirty centimes.",
        id="a-coded-cost-beside-a-margin",
    ),
    pytest.param(
        "Yet a survey found that roughly a third of children turning up at the clubs had "
        "already eaten something at home, raising questions about extra calories.",
        "Fewer than one pupil in ten who uses a breakfast club has also eaten breakfast at "
        "home that morning, according to the club leads who answered our survey.",
        id="a-share-before-a-comment-clause",
    ),
    pytest.param(
        "The results were striking: children from the lowest-income households gained the "
        "most, around 2.5 extra days of school a year against under one day for their "
        "better-off classmates.",
        "Broken down by free meal eligibility, the children on free meals gained about the "
        "same as everyone else, there was no extra bump for them.",
        id="both-sides-named-the-most-said-of-one",
    ),
    pytest.param(
        "It noted that in the trial the proportion of people who responded to treatment was "
        "similar in women and men, although the number of men was small.",
        "If you dig into the supplementary tables, women in the trial were roughly twice as "
        "likely as men to respond to treatment.",
        id="similar-in-women-and-men-against-twice-as-likely",
    ),
]


@pytest.mark.parametrize(("first", "second"), PAIRS_THAT_CLASH)
def test_pairs_of_the_second_round_refute_both_ways(first: str, second: str) -> None:
    assert heuristic_nli(first, second).label == "refutes"
    assert heuristic_nli(second, first).label == "refutes"


@pytest.mark.parametrize(
    ("text", "share"),
    [
        ("fewer than one in a thousand of our patients", Share(0.0, 0.1)),
        ("a third of my clients have been written up", Share(100 / 3, 100 / 3)),
        ("two fifths of the schools converted a room", Share(40.0, 40.0)),
        ("half of patients stopped within a year", Share(50.0, 50.0)),
    ],
)
def test_shares_in_words(text: str, share: Share) -> None:
    assert read_share(tokenize(text)) == share


def test_a_word_after_a_known_prefix_is_no_name() -> None:
    assert _known("rearrest") and _known("reoffending") and _known("nonsmokers")
    assert not _known("hartwell") and not _known("renfrew")


@pytest.mark.parametrize(
    ("text", "stated"),
    [
        (
            "Honestly, from what my officers see and from our own casualty figures, the biggest "
            "winners have been motorcyclists, with rider deaths down by more than half.",
            "the biggest winners have been motorcyclists",
        ),
        (
            "But the figure published in the Treasury accounts is that fine income from the "
            "sections was about 19 million crowns last year.",
            "fine income from the sections",
        ),
        (
            "My rule of thumb, based on the business cases I've reviewed, is that on roads "
            "carrying fewer than 3,000 vehicles a day the savings rarely justify the costs.",
            "on roads carrying fewer than 3,000 vehicles",
        ),
        (
            "But the reality is, from where my members stand, missed court dates have roughly "
            "doubled since the Act came in.",
            "missed court dates have roughly doubled",
        ),
        (
            "It noted that in the trial the proportion of people who responded to treatment was "
            "similar in women and men.",
            "in the trial the proportion of people",
        ),
    ],
)
def test_frames_of_the_second_round(text: str, stated: str) -> None:
    assert stated_part(text).startswith(stated)


@pytest.mark.parametrize(
    ("text", "score"),
    [
        # a finding the writers' analysis suggests, not their method
        (
            "Our analysis suggests that a further 60 sections on the highest-risk rural routes "
            "could prevent an estimated 45 deaths and serious injuries a year.",
            0.75,
        ),
        # a method stays one
        (
            "We estimated hazard ratios with Cox models adjusted for age and sex in 4,000 "
            "patients.",
            0.0,
        ),
        # a practitioner's count, its time and its kind of client named
        (
            "In my practice, before the Act, roughly one in two of my remanded clients lost "
            "either a job or a tenancy while they were inside.",
            0.6,
        ),
    ],
)
def test_findings_of_the_second_round(text: str, score: float) -> None:
    assert informativeness(text) == pytest.approx(score)


@pytest.mark.parametrize(
    ("text", "score"),
    [
        # a measured change whose end is a bound, or whose start has a word after "a"
        (
            "I drive the R7 to work every day and my journey time went from 14 minutes to "
            "just under 16, which I can live with.",
            0.225,
        ),
        ("On 4.5 mg my pain went from a constant 7 out of 10 to about a 3.", 0.15),
        # a practitioner's count of the people they started on something
        (
            "Of the 37 patients I've started on LDN in the last two years, 14 are still taking "
            "it after six months.",
            0.45,
        ),
    ],
)
def test_own_measures_and_counts_of_the_second_round(text: str, score: float) -> None:
    assert informativeness(text) == pytest.approx(score)


@pytest.mark.parametrize(
    ("text", "sign"),
    [
        ("Varnish programmes cost roughly four times as much per tooth as fluoridation.", 1),
        ("Breakfast provision cost roughly half as much per day as the mentor scheme.", -1),
        ("The mentor scheme came out cheaper than breakfast clubs per day.", -1),
    ],
)
def test_cost_comparisons(text: str, sign: int) -> None:
    found = read_comparisons(tokenize(text))
    assert [(c.sign, c.axis) for c in found] == [(sign, "cost")]
