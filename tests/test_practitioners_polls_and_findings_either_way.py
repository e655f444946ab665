"""Decision 0123: round nine's and round ten's blind corpora. A practitioner's own practice
("for anyone with ... croup, I still give 0.6 milligrams per kilo"), a clinician's advice a
writer reports for a case it names, the answers to a writer's own poll, what a speaker has
seen "in my experience" and the writer's own readings since a dose they state are claims;
the writer's story stays none. "No convincing evidence that coffee either raises or lowers"
finds no change either way; "came out no different" is "were no different"; the arm after
"than" sets no outcome apart; "bumblebees" stems as "bumblebee"; a share restated after
"roughly" or under its bound is one share; "eviction" is the noun of "evicted"; a time of
follow-up does not end two shares set side by side; a reason given "largely because"
parts a long sentence. Each corpus pair is read through the judge and through the sweep;
the controls keep what each rule must not reach."""

from __future__ import annotations

import pytest

from lyra.pipelines.evidence.claim_sentences import claim_sentences
from lyra.pipelines.evidence.claims import informativeness
from lyra.pipelines.evidence.nli_comparisons import read_comparisons
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.nli_no_change import no_change
from lyra.pipelines.evidence.nli_numbers import stem
from lyra.pipelines.evidence.nli_shares import read_share
from lyra.pipelines.evidence.nli_shares_said import Share
from lyra.pipelines.evidence.nli_tokens import tokenize
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates


@pytest.mark.parametrize(
    ("sentence", "score"),
    [
        # a practitioner's dose for the cases named
        (
            "So for anyone with moderate or severe croup, I still give 0.6 milligrams per kilo "
            "of dexamethasone, up to a maximum of 16 milligrams, as a single oral dose.",
            0.7,
        ),
        # what a practitioner asks of their patients
        (
            "These days, I don't ask my AF patients to give up coffee, and the large majority "
            "of them do perfectly well on two or three cups a day.",
            0.35,
        ),
        # a clinician's advice the writer reports, for a case it names
        (
            "For what it's worth, when I was first diagnosed my cardiologist told me that with "
            "a diagnosed arrhythmia I should cut out caffeine completely, coffee and tea "
            "included, and I've stuck to it ever since.",
            0.4,
        ),
        (
            "My vascular nurse said I can't start the supervised walking group until the "
            "ulcer on my heel has healed.",
            0.4,
        ),
        # the answers to the writer's own poll
        (
            "I put a poll on the Ashby Fallow community page last month and 31 of the 96 "
            "people who answered, so roughly a third, said they'd found ticks on themselves "
            "or their dog after walking the uncut verges.",
            0.3,
        ),
        # what a practitioner has seen, after their lead-in
        (
            "I can only tell you what I've seen on the schemes I've been involved in, and in "
            "my experience a properly sized underground tank knocks the flood peak down far "
            "more than a scatter of street rain gardens holding the same volume.",
            0.5,
        ),
        # the writer's own readings since a dose they state: testimony, at half
        (
            "I swapped my three-monthly jabs for one 1,000 mcg tablet a day about two years "
            "ago and my levels have stayed between 480 and 650 ever since.",
            0.225,
        ),
        # the writer's story, still none: a dose with neither a case nor a habit, advice
        # with no case (decision 0105), an experience that is only the writer's, a result
        # with no dose or reading, a poll with no count
        ("I give my son 5 ml of the syrup every night.", 0.0),
        ("My GP said I should rest for a week.", 0.0),
        ("In my experience, I find it helps.", 0.0),
        ("I swapped my jabs for tablets and my levels have stayed fine.", 0.0),
        ("I asked on the village page and most people who answered said they'd found ticks.", 0.0),
    ],
)
def test_practitioners_and_polls_are_claims_and_stories_are_not(
    sentence: str, score: float
) -> None:
    assert informativeness(sentence) == pytest.approx(score)


COUNCIL = (
    "Having weighed the studies available to us, the Council's view is that there is no "
    "convincing evidence that drinking coffee either raises or lowers your chance of "
    "developing atrial fibrillation."
)
COHORT = (
    "In fully adjusted models, participants who drank two to three cups of caffeinated coffee "
    "a day had a 12% lower risk of incident atrial fibrillation than non-drinkers (hazard "
    "ratio 0.88; 95% CI 0.83 to 0.94)."
)
RANGER = (
    "[01:34] ROWAN: This is the bit I always have to be honest about. We set up paired "
    "transects, long verge against a cut verge on the same road, and I walked those "
    "transects myself every fortnight for three summers, and the bumblebee counts on the "
    "long verges came out no different from the stretches we kept cutting every month. "
    "Butterflies were a bit up, hoverflies maybe, but the bumblebees, nothing I could put my "
    "hand on my heart and call a difference."
)
VERGES = (
    "In the three years after the change, verges cut once or twice a year held 2.3 times as "
    "many open flowers per square metre and 64% more foraging bumblebees (rate ratio 1.64, "
    "95% CI 1.38 to 1.95) than the control verges that were still mown every four to six "
    "weeks."
)
PROVIDER = (
    "Tenancy breakdown is rare: fewer than 1 in 20 of our tenants (4.3%) lose their tenancy "
    "within the first year, whether through eviction or abandonment."
)
HERALD = (
    "Figures obtained by the Herald under freedom of information show that 38 of the 112 "
    "people housed under the scheme since 2021, roughly one in three, had walked away from "
    "their flat or been evicted within a year of moving in."
)


@pytest.mark.parametrize(("premise", "claim"), [(COUNCIL, COHORT), (PROVIDER, HERALD)])
def test_the_corpus_pairs_refute_each_other_both_ways(premise: str, claim: str) -> None:
    for first, second in ((premise, claim), (claim, premise)):
        assert heuristic_nli(first, second).label == "refutes"
        assert contradiction_candidates([("c", second)], {"f": first}) == {"c": ["f"]}


def test_a_ranger_who_found_no_difference_refutes_the_trials_sized_gain() -> None:
    """One way: the ranger's fragment against the trial's claim. The other way the trial's
    "after the change, verges" reads "change" as a word before "verges" (the tokens keep
    no commas), which sets the two apart."""
    assert heuristic_nli(RANGER, VERGES).label == "refutes"
    assert contradiction_candidates([("c", VERGES)], {"f": RANGER}) == {"c": ["f"]}


def test_a_finding_either_way_denied_is_no_change_in_what_follows() -> None:
    assert {"atrial", "fibrillation"} <= no_change(tokenize(COUNCIL))
    # no denial, or two verbs of one direction: no finding of no change
    assert no_change(tokenize("Coffee either raises or lowers the chance of palpitations.")) == (
        set()
    )
    assert no_change(tokenize("There is no evidence that coffee raises or boosts energy.")) == (
        set()
    )


def test_came_out_no_different_is_no_difference_in_what_came_before() -> None:
    found = no_change(tokenize("The bumblebee counts on the long verges came out no different."))
    assert {"bumblebe", "count"} <= found


def test_a_plural_in_ees_stems_as_its_singular() -> None:
    for singular, plural in (("bumblebee", "bumblebees"), ("employee", "employees")):
        assert stem(singular) == stem(plural)
    assert stem("degrees") == "degre"
    assert stem("fees") == "fee"


def test_a_share_restated_after_a_rounding_word_or_under_its_bound_is_one_share() -> None:
    share = pytest.approx(100 * 38 / 112)
    assert read_share(tokenize(HERALD)) == Share(share, share)
    assert read_share(tokenize(PROVIDER)) == Share(0.0, 4.3)
    # a share far under the bound restates nothing: two shares, none read
    assert read_share(tokenize("Fewer than 1 in 20 of our tenants (1.2%) lose it.")) is None


def test_a_time_of_follow_up_does_not_end_two_shares_side_by_side() -> None:
    text = (
        "In the primary analysis, 79.6% of participants allocated to Housing First were stably "
        "housed at 24 months, compared with 41.2% in the treatment-first arm."
    )
    (ranking,) = read_comparisons(tokenize(text))
    assert ranking.sign == 1
    assert {"hous", "first"} <= ranking.leader
    assert {"treatment", "arm"} <= ranking.compared


def test_a_reason_given_in_part_parts_a_long_sentence() -> None:
    sentence = (
        "In the continuous simulation, the distributed rain gardens lowered modelled peak flow "
        "at the catchment outfall by 34%, against 19% for a single underground attenuation "
        "tank of the same storage volume, largely because they intercepted runoff before it "
        "entered the network and drained down between storms."
    )
    parts = [text for _, text, _ in claim_sentences(sentence)]
    assert parts == [
        "In the continuous simulation, the distributed rain gardens lowered modelled peak flow "
        "at the catchment outfall by 34%, against 19% for a single underground attenuation "
        "tank of the same storage volume",
        "largely because they intercepted runoff before it entered the network and drained "
        "down between storms.",
    ]
