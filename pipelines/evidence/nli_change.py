"""Contradiction rules of the heuristic stance judge (`nli_heuristic`, decisions 0101, 0104).

- A finding of no change against a change of a stated size: "our organic matter hasn't
  budged" against "soil organic matter rose by roughly 0.3 percentage points"; "no real
  change in traffic noise" against "the wall has cut noise ... by around a third";
  "function scores practically identical to surgery" against "markedly higher function
  scores".
- Comparisons that cannot both hold: "green tea burns no more fat than ... coffee"
  against "green tea far outperforms coffee"; A ahead of B against B ahead of A.
- One thing changed the same way by sizes far apart: "motor traffic on internal streets
  fell by 47 per cent" against "the traffic on the streets inside the zone has fallen by
  a mere 12%".

Such pairs share little beyond what changed or what is compared, so the overlap rules of
`nli_heuristic` call them neutral, and the packaged stance model reads their shared
subject as support. Each rule names what it is about, so it applies at any overlap.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from lyra.pipelines.evidence.harm_reports import SYMPTOM
from lyra.pipelines.evidence.leftovers import lexicon_readings, past_participles
from lyra.pipelines.evidence.nli_advice import AdviceReading, read_advice, safe_against_advised
from lyra.pipelines.evidence.nli_alike import alike_against_lead
from lyra.pipelines.evidence.nli_comparisons import (
    Comparison,
    comparisons_clash,
    no_difference_against_comparison,
    outcome,
    read_comparisons,
    specific,
)
from lyra.pipelines.evidence.nli_costs import Cost, costs_differ, read_cost
from lyra.pipelines.evidence.nli_counts import (
    counted_after_half,
    counted_described,
    counted_one_in,
)
from lyra.pipelines.evidence.nli_doses import Dose, doses_differ, read_dose
from lyra.pipelines.evidence.nli_enough import (
    Amounts,
    enough_over_ceiling,
    enough_under_floor,
    read_amounts,
)
from lyra.pipelines.evidence.nli_groups import NO_GROUP, GroupReading, groups_clash, read_groups
from lyra.pipelines.evidence.nli_lasting import worn_off_inside_floor
from lyra.pipelines.evidence.nli_limits import limit_passed
from lyra.pipelines.evidence.nli_no_change import (
    no_change,
)
from lyra.pipelines.evidence.nli_numbers import stem
from lyra.pipelines.evidence.nli_outcomes import HARMS
from lyra.pipelines.evidence.nli_share_negations import (
    failure_named,
    only_failures_counted,
    only_said_denials,
)
from lyra.pipelines.evidence.nli_shares import (
    COUNT_KEYS,
    LIGHT_VERBS,
    SHARE_FRAME,
    SHARED_KNOWN,
    SHARED_WORDS,
    SHARED_WORDS_FAR,
    SHARES_FAR_APART,
    arms_differ,
    extra_against_arm,
    frequencies_opposed,
    rarity_denied,
    rarity_named_in_other,
    read_share,
    same_arm,
    share_bases,
    share_bases_differ,
    share_clause,
    shares_apart,
    shares_compared,
    uptake_against_outcome,
)
from lyra.pipelines.evidence.nli_shares_said import Share, sayers, share_of_sayers
from lyra.pipelines.evidence.nli_sizes import (
    Sized,
    changed_words,
    far_apart,
    other_agents,
    sized_changes,
    unevidenced_changes,
)
from lyra.pipelines.evidence.nli_tokens import (
    content_keys,
    denies_the_next_word,
    is_cue,
    is_negated,
    kept_per_tokens,
    token_key,
)
from lyra.pipelines.evidence.nli_words import (
    GENERAL_OUTCOMES,
    OUTCOME_FOLDS,
    PEOPLE,
    WHO_AND_HOW_OFTEN,
)

# Words of a change of no stated size that the finding of no change names too.
_UNSIZED_SHARED = 2


@dataclass(frozen=True)
class ChangeReading:
    """What the two rules read in one text, made once per text."""

    tokens: Sequence[str]
    negated: bool
    no_change: frozenset[str]  # what it finds did not change
    sized_change: frozenset[str]  # what it says changed by a stated size
    change: frozenset[str]  # what it says changed, sized or not
    comparisons: tuple[Comparison, ...]
    advice: AdviceReading  # where it calls a thing safe, where it advises against it
    sized: tuple[Sized, ...] = ()  # each change given a size with "by"
    unevidenced: tuple[Sized, ...] = ()  # each change it finds no evidence of
    groups: GroupReading = NO_GROUP  # the group it singles out for most of an effect
    share: Share | None = None  # the one share of people it gives ("1 in 100")
    share_about: frozenset[str] = frozenset()  # the words of what that share has
    cost: Cost | None = None  # the one cost it gives ("2,900 crowns per officer")
    dose: Dose | None = None  # the dose it gives for one age band ("aged 1 to 5 ... 2.5 ml")
    amounts: Amounts | None = None  # a floor it sets, or an amount it calls enough (0126)

    @functools.cached_property
    def names(self) -> frozenset[str]:
        """Stems of the words no lexicon knows, read only where a rule asks."""
        return _names(self.tokens)


# "one child in four" and "1 in 20 children" count the same people (decision 0106)
_ONE_OF: Final = {
    "children": "child",
    "women": "woman",
    "men": "man",
    "people": "person",
    # one outcome in the words writers give it: "overheating is rare: ... felt too warm"
    # against "feeling too hot was the most common complaint" (decision 0113)
    "felt": "feel",
    "warm": "hot",
    "overheat": "hot",
    # leaving work in other words: "leaving paid employment altogether was rare" against
    # "11 percent ... said they had quit their jobs outright" (decision 0115)
    "quit": "leav",
    "job": "employ",
    # feelings in another form ("left them feeling worse" against "panicky or spaced out
    # feelings"), and finishing in other words ("fail to finish their course" against
    # "failed to complete it"): decision 0127
    "feeling": "feel",
    "complet": "finish",
    **OUTCOME_FOLDS,
}


# A task's sentences meet many others (each claim its candidates, each fragment the
# claims): each token list is read once while it is in use.
_READINGS_KEPT = 4096


_REASONS: Final = frozenset({"because", "cos", "since"})


def _reason_at(tokens: Sequence[str]) -> int:
    """Where the first reason given opens ("because ..."); 0 for none."""
    return next((k for k, t in enumerate(tokens) if k and t in _REASONS), 0)


def read_changes(tokens: Sequence[str]) -> ChangeReading:
    """What the change rules read in one sentence's tokens (kept for the next pair)."""
    return _read_changes(tuple(tokens))


@functools.lru_cache(maxsize=_READINGS_KEPT)
def _read_changes(key: tuple[str, ...]) -> ChangeReading:
    # a list, as the rules compare slices with lists ("tokens[i + 1 : i + 2] == ['by']")
    tokens = list(key)
    # an aim asserts nothing past its "whether": "To test whether replacing weekly written
    # homework with daily ... reading at home improves reading and mathematics attainment"
    # (decision 0133)
    tokens = tokens[: _asked_whether(tokens)]
    # "final exam marks" are exam scores (decision 0133)
    tokens = [
        "scores" if t == "marks" and k and tokens[k - 1] in _MARKED else t
        for k, t in enumerate(tokens)
    ]
    sized, changed = changed_words(tokens)
    # a measure that differs between a trial's arms (decision 0106), or what one arm
    # gained over the other (decision 0126), or two shares set against each other (0114)
    measured = arms_differ(tokens) or extra_against_arm(tokens) or shares_compared(tokens)
    if measured:
        sized |= outcome(measured)
        changed |= sized
    negated = is_negated(tokens)
    comparisons = tuple(read_comparisons(tokens))
    # "Fewer than 3 in every 100 people referred to us fail to finish their course": the
    # share counts those who failed, it denies nothing (decision 0127)
    counts_failures = negated and only_failures_counted(tokens)
    # "only 3 in every 100 young people said they could not tell who the judge was": what
    # those counted said, no denial (decision 0147)
    said_denials = negated and not counts_failures and only_said_denials(tokens)
    sized_found = tuple(sized_changes(tokens))
    # a share in a sentence that sizes no change and negates nothing (decision 0105),
    # beside a change or a comparison it counts the people of: "only 4 per cent of
    # victims who took part said they felt worse after the conference than before it"
    # (decision 0109)
    # a change past a bound that a share counts those of is no change found: "fewer than
    # 5% of meadows sown with our rattle lost more than a fifth of their hay yield"
    # (decision 0140)
    thresholds = bool(sized_found) and all(math.isinf(s.high) for s in sized_found)
    # or a change that those the share counts said came (decision 0145)
    thresholds = thresholds or share_of_sayers(tokens)
    share = (
        read_share(tokens)
        if not (
            (negated and not (counts_failures or said_denials))
            or ((sized or sized_found) and not thresholds)
        )
        else None
    )
    share_tokens = tokens
    if share is None and not (sized or sized_found):
        # the share of one clause, where the others negate or give shares too (0115)
        clause = share_clause(tokens)
        if len(clause) < len(tokens) and not is_negated(share_clause(tokens, opened=True)):
            share, share_tokens = read_share(clause), clause
        elif len(opened := share_clause(tokens, opened=True)) < len(tokens) and not is_negated(
            opened
        ):
            # the last clause's, opened on the share ("..., and nearly every family in our
            # support group has had their case delayed the same way": decision 0135)
            share, share_tokens = read_share(opened), opened
        elif (cut := _reason_at(tokens)) and not is_negated(tokens[:cut]):
            # the share before its reason, which the negation is in ("the book club got
            # called off more weeks than it ran, because there was never an officer
            # spare": decision 0145)
            share, share_tokens = read_share(tokens[:cut]), tokens[:cut]
    return ChangeReading(
        tokens=tokens,
        negated=negated,
        # "no measurable difference to how often children were hurt": injured (0133)
        no_change=frozenset(no_change(_injured(tokens, "injured"))),
        sized_change=frozenset(sized),
        change=frozenset(changed),
        comparisons=comparisons,
        advice=read_advice(tokens),
        sized=sized_found,
        unevidenced=tuple(unevidenced_changes(tokens)),
        groups=read_groups(tokens),
        share=share,
        cost=read_cost(tokens),
        dose=read_dose(tokens),
        amounts=read_amounts(tokens),
        share_about=(
            # what the people counted failed to do is part of what they have: "fail"
            frozenset(_ONE_OF.get(k, k) for k in outcome(_injured(_without_the_base(share_tokens))))
            | (_FAILED if counts_failures else frozenset())
            | (_STOPPED if _gave_up(share_tokens) else frozenset())
            | (_APPETITE if _off_food(share_tokens) else frozenset())
            | (_FOOD_KEY if _skipped_meals(share_tokens) else frozenset())
            | (_HEARING_KEY if _ears_ringing(share_tokens) else frozenset())
            | (_DISTRESS if _in_pieces(share_tokens) else frozenset())
            if share
            else frozenset()
        ),
    )


_FAILED: Final = frozenset({"fail"})
_BASE_JOINS: Final = (["for", "every"], ["per"])
_RELATIVES: Final = frozenset({"who", "that", "which"})


# Those who got hurt were injured ("about a third of the lads on my work group got hurt"
# against "9 injuries ... for every 1,000 people": decision 0129); what hurts is pain.
_GOT: Final = frozenset({"got", "get", "gets", "getting", "were", "was", "been", "being"})


def _injured(tokens: Sequence[str], injured: str = "injury") -> Sequence[str]:
    return [
        injured if t == "hurt" and i and tokens[i - 1] in _GOT else t for i, t in enumerate(tokens)
    ]


def _without_the_base(tokens: Sequence[str]) -> Sequence[str]:
    """``tokens`` less who a rate is counted over: "9 injuries ... for every 1,000 people
    who started an order in 2023" is about injuries, not orders (decision 0129)."""
    for i in range(len(tokens)):
        for join in _BASE_JOINS:
            k = i + len(join)
            if list(tokens[i:k]) == join and k + 2 < len(tokens) and tokens[k + 2] in _RELATIVES:
                return tokens[: k + 2]
    return tokens


# Those who gave up stopped: "about a third of the women on my unit gave up on the cap"
# against "fewer than 2 in every 100 patients stop a session early" (decision 0129).
_STOPPED: Final = frozenset({"stop"})
_GIVE: Final = frozenset({"give", "gave", "gives", "giving", "given"})


# and who refused to go on stopped ("refused to watch their slow-mo videos after the
# first week" against "asked to stop watching their slow-motion replays": decision 0143)
_REFUSED: Final = frozenset({"refused", "refuse", "refuses", "refusing"})


def _gave_up(tokens: Sequence[str]) -> bool:
    return any(
        (t in _GIVE and tokens[i + 1 : i + 2] == ["up"])
        or (t in _REFUSED and tokens[i + 1 : i + 2] == ["to"])
        for i, t in enumerate(tokens)
    )


# Who went off their feed lost their appetite, ate less ("about a third of our milkers
# went right off their feed" against "fewer than 2 in every 100 animals ... showed any
# drop in feed intake": decision 0130).
_APPETITE: Final = frozenset({"intak", "appetit"})
_FOOD: Final = frozenset({"feed", "food", "grub"})
_POSSESSIVES: Final = frozenset({"their", "his", "her", "its", "my", "our", "your", "the"})


def _off_food(tokens: Sequence[str]) -> bool:
    return any(
        t == "off" and tokens[i + 1 : i + 2] and tokens[i + 1] in _POSSESSIVES
        and tokens[i + 2 : i + 3] and tokens[i + 2] in _FOOD
        for i, t in enumerate(tokens)
    )  # fmt: skip


# Meals skipped are food gone without ("skipping proper meals" against "had gone without
# food or heating": decision 0130); not "free meals", a school's.
_FOOD_KEY: Final = frozenset({"food"})
_SKIPPED: Final = frozenset({"skip", "skips", "skipped", "skipping", "miss", "missed", "missing"})
_MEALS: Final = frozenset({"meal", "meals"})


def _skipped_meals(tokens: Sequence[str]) -> bool:
    return any(
        t in _SKIPPED and not _MEALS.isdisjoint(tokens[i + 1 : i + 3]) for i, t in enumerate(tokens)
    )


# Who rang "in pieces" or "in tears" was distressed ("rang me in pieces afterwards"
# against "reported that an update had caused them distress": decision 0143), upset or
# anxious ("most of us were in pieces for days" against "left them more upset", "were in
# a right state before every Friday organiser quiz" against "became anxious or
# stressed": decision 0148).
_DISTRESS: Final = frozenset({"distress", *content_keys(["upset", "anxious", "stressed"])})
_IN_A_STATE: Final = (["in", "pieces"], ["in", "bits"], ["in", "tears"], ["in", "floods"],
                      ["in", "a", "state"], ["in", "a", "right", "state"],
                      ["in", "a", "real", "state"], ["in", "such", "a", "state"])  # fmt: skip


def _in_pieces(tokens: Sequence[str]) -> bool:
    return any(list(tokens[i : i + len(words)]) == words
               for i in range(len(tokens)) for words in _IN_A_STATE)  # fmt: skip


# What marks given are scores of: "final exam marks", "test marks".
_MARKED: Final = frozenset({"exam", "test", "coursework", "assessment", "maths", "english"})
# Verbs that ask whether something holds, within a few words before "whether".
_ASKING: Final = frozenset(
    {"test", "tested", "tests", "testing", "assess", "assessed", "examine", "examined",
     "investigate", "investigated", "determine", "see", "ask", "asked", "asks", "unclear",
     "unknown", "explore", "explored", "evaluate", "evaluated", "establish"}
)  # fmt: skip
_ASKING_REACH: Final = 3


def _asked_whether(tokens: Sequence[str]) -> int:
    """Where "whether" stands after a verb that asks it ("to test whether", "it is unclear
    whether"); the tokens' length where none does."""
    for i, tok in enumerate(tokens):
        if tok == "whether" and not _ASKING.isdisjoint(tokens[max(0, i - _ASKING_REACH) : i]):
            return i
    return len(tokens)


# Ringing ears are a complaint of the hearing ("about a third of the kids ... were coming
# home with ringing ears" against "fewer than one pupil in a hundred has reported any
# discomfort with their hearing": decision 0133).
_HEARING_KEY: Final = frozenset({"hear"})
_RINGING: Final = frozenset({"ringing", "rang", "ring", "rings", "buzzing"})
_EARS: Final = frozenset({"ear", "ears"})
_EARS_REACH: Final = 4  # "ears ringing", "ringing in their ears"


def _ears_ringing(tokens: Sequence[str]) -> bool:
    return any(
        t in _RINGING and not _EARS.isdisjoint(tokens[max(0, i - _EARS_REACH) : i + _EARS_REACH])
        for i, t in enumerate(tokens)
    )


def no_change_against_change(hypothesis: ChangeReading, sentence: ChangeReading) -> bool:
    """One text finds that something did not change, and the other, which negates
    nothing, says that the same thing changed by a stated amount: "our organic matter
    hasn't budged" against "soil organic matter rose by roughly 0.3 percentage points",
    "no real change in traffic noise" against "the wall has cut noise ... by around a
    third" (decision 0101). The same thing is a word both name there, one more specific
    than "risk" or "rate" and no name of a place or person (decision 0104), that no
    word before it in each text sets apart: "diastolic
    blood pressure was unchanged" does not refute "lowered systolic blood pressure by 5
    mmHg"."""
    for null, moved in ((hypothesis, sentence), (sentence, hypothesis)):
        if moved.negated and _negated_before_than(moved.tokens):
            continue
        # in another form too: "no less agitated" and "agitation scores were 7.9 points
        # lower" (decision 0126)
        same = _alike(null.no_change, moved.sized_change) - GENERAL_OUTCOMES
        if not same:
            # what a change sized with "by" or a percentage is about, in two words:
            # "recorded juvenile crime in the pilot districts fell 23 per cent more than
            # in comparable districts with no curfew" (whose "no" names what it is
            # compared with: decision 0109); one word there ("cameras went national,
            # recorded complaints ... rose by 11%") may say where, not what
            about = frozenset().union(*(change.about for change in moved.sized))
            same = (null.no_change & about) - GENERAL_OUTCOMES
            if len(same - null.names - moved.names) < _UNSIZED_SHARED:
                same = frozenset()
        if same:
            same -= null.names | moved.names
        if not same:
            # A change of no stated size: two words of it named in both, one of them
            # neither who changed nor how often ("cut how often children need their
            # reliever" against "no real difference to how often children needed their
            # blue reliever inhaler").
            same = (null.no_change & moved.change) - GENERAL_OUTCOMES
            if same:
                same -= null.names | moved.names
            if len(same) < _UNSIZED_SHARED or same <= WHO_AND_HOW_OFTEN:
                continue
        if not any(_set_apart(null.tokens, moved.tokens, word) for word in same):
            return True
    return False


_THAN_OR_VERSUS: Final = frozenset({"than", "versus", "vs"})


def _negated_before_than(tokens: Sequence[str]) -> bool:
    """A negation stands before the text's "than" (or "compared with"), or anywhere when
    it has neither: "with no curfew" after "than", "compared with placebo or no
    treatment", name what the change is compared with (decision 0122)."""
    # "versus" sets the arms side by side as "than" does: "... in the interlock arm versus
    # 8.4 ... in the control arm relicensed without a device" (decision 0134)
    than = next((k for k, tok in enumerate(tokens) if tok in _THAN_OR_VERSUS), len(tokens))
    compared = next(
        (i for i in range(len(tokens) - 1) if tokens[i : i + 2] in (["compared", "with"],
                                                                      ["compared", "to"])),
        len(tokens),
    )  # fmt: skip
    return any(is_cue(tokens, i) for i in range(min(than, compared)))


# A trial's arm ends the phrase before what it measures ("In the cold-bath group,
# soreness ratings ...": the comma is gone from the tokens; decision 0109); how an
# outcome was taken sets no other outcome apart ("perceived soreness" is the "muscle
# soreness" a trial reduced: decision 0113).
_NO_MODIFIERS = frozenset(
    {"group", "groups", "arm", "arms", "perceived", "reported", "rated", "measured",
     "subjective", "self",
     # the statistic taken of it ("mean shoulder pain": decision 0130)
     "mean", "median", "average"}
)  # fmt: skip


def _modifiers(tokens: Sequence[str], word: str) -> frozenset[str]:
    """The content words right before each use of ``word`` (a key): in "systolic blood
    pressure", "systol" for "blood" and "blood" for "pressur"."""
    return _modified(tokens).get(word, frozenset())


@kept_per_tokens
def _modified(tokens: list[str]) -> dict[str, frozenset[str]]:
    """`_modifiers` of every content word of ``tokens`` at once, by key, up to "than":
    what follows it names the arm compared with ("64% more foraging bumblebees than the
    control verges"), which sets no outcome apart (decision 0123)."""
    found: dict[str, set[str]] = {}
    for i in range(1, len(tokens)):
        if tokens[i] == "than":
            break
        key = token_key(tokens[i])
        if (
            key is not None
            and not _verb_only(tokens[i - 1])
            and tokens[i - 1] not in _NO_MODIFIERS
            and not _after_a_verb_cue(tokens, i - 1)
            # who it happens to is no kind of it: "the number of people dying" (0130)
            and token_key(tokens[i - 1]) not in PEOPLE
        ):
            found.setdefault(key, set()).update(outcome(tokens[i - 1 : i]))
            if _is_code(tokens[i - 1]):
                # a code names a kind too: "CIN3 rates" are no "pregnancy rates" (0133)
                found[key].add(tokens[i - 1])
    return {key: frozenset(words) for key, words in found.items()}


def _is_code(token: str) -> bool:
    """Letters and digits together: "cin3", "pm10"."""
    return token.isalnum() and not token.isalpha() and not token.isdigit()


def _after_a_verb_cue(tokens: Sequence[str], i: int) -> bool:
    """A denial stands right before ``tokens[i]``, so it is a verb, modifying nothing:
    "did not ease shoulder pain", "failed to improve knee pain" (decision 0130)."""
    return i > 0 and denies_the_next_word(tokens, i - 1)


@functools.lru_cache(maxsize=16384)
def _verb_only(token: str) -> bool:
    """A verb that modifies nothing: a form of a verb other than its base or its past
    participle ("saw revenue jump"; "taxed drinks" and "stabilized buildings" are set
    apart by their participles), or a verb the lexicon knows as nothing else ("suffer
    muscle pain"; decision 0105)."""
    readings = lexicon_readings(token)
    lemmas = readings.get("VERB")
    if not lemmas:
        return False
    if lemmas[0] == token:
        return not ({"NOUN", "ADJ"} & readings.keys())
    return token not in past_participles(lemmas[0])


def _set_apart(first: Sequence[str], second: Sequence[str], word: str) -> bool:
    """Each text puts a different content word right before ``word``, which the other
    does not name at all: "systolic blood" and "diastolic blood", "LDL cholesterol" and
    "HDL cholesterol"; not "memory scores" and "memory test scores"."""
    before, after = _modifiers(first, word), _modifiers(second, word)
    return (
        bool(before)
        and bool(after)
        and before.isdisjoint(after)
        and before.isdisjoint(outcome(second))
        and after.isdisjoint(outcome(first))
    )


# Names are at least this long (shorter unknown words are abbreviations: "LDL", "NO2").
_NAME_MIN_LENGTH = 5


def _names(tokens: Sequence[str]) -> frozenset[str]:
    """Stems of the words no English lexicon knows: names of places and people, which
    say where or whose a change is, never what changed ("Eastfield", "Hartwell")."""
    return frozenset(
        stem(t) for t in tokens if len(t) >= _NAME_MIN_LENGTH and t.isalpha() and not _known(t)
    )


# Prefixes a known word takes ("rearrest", "reoffend", "nonsmoker", "misdiagnosed"); not
# "over", "under" or "co", which begin as many names ("Overton", "Underwood", "Coventry").
_PREFIXES: Final = ("re", "non", "pre", "post", "anti", "mis")


def _known(word: str) -> bool:
    """A lexicon knows the word or what it is made from ("reliever": "relieve"), or what
    follows a prefix ("rearrested": "arrest"; decision 0108)."""
    if any(lexicon_readings(word[: len(word) - cut]) for cut in range(4)):
        return True
    return any(
        word.startswith(prefix)
        and len(word) - len(prefix) >= _NAME_MIN_LENGTH - 1
        and any(lexicon_readings(word[len(prefix) : len(word) - cut]) for cut in range(4))
        for prefix in _PREFIXES
    )


def _same_thing(
    first: ChangeReading, second: ChangeReading, words: frozenset[str]
) -> frozenset[str]:
    """Of the words two readings share, those that can say what changed: none too
    general ("risk", "rate"), no name, none set apart by the words before it."""
    same = specific(words) - first.names - second.names
    if any(_set_apart(first.tokens, second.tokens, word) for word in same):
        return frozenset()
    return same


def sizes_differ(hypothesis: ChangeReading, sentence: ChangeReading) -> bool:
    """Both texts change one thing the same way, by sizes in one unit that are far apart
    (`SIZES_APART`): "motor traffic on internal streets fell by 47 per cent" against
    "the traffic on the streets inside the zone has fallen by a mere 12%"; "slowed the
    rate of cognitive decline by 41%" against "by about a quarter". The same thing is a
    word both name there, more specific than "rate", that no word before it in each
    text sets apart ("systolic" and "diastolic" blood pressure)."""
    for first in hypothesis.sized:
        for second in sentence.sized:
            if (first.axis, first.unit) != (second.axis, second.unit):
                continue
            if other_agents(first, second):
                continue
            same = _same_thing(hypothesis, sentence, first.about & second.about)
            # opposite ways, each by a stated size: "traffic on the two parallel minor
            # roads ... fell slightly, by around 3 per cent" against "traffic up by roughly
            # a third" on the same back lanes (decision 0108)
            if same and first.sign != second.sign and first.axis == "amount":
                return True
            if first.sign == second.sign and same and far_apart(first, second):
                return True
    return False


def unevidenced_against_sized(hypothesis: ChangeReading, sentence: ChangeReading) -> bool:
    """One text finds no evidence that a thing changes one way, and the other says it did,
    by a stated size: "there is no clear evidence that hearing aids improve memory
    scores" against "memory test scores improved by 12% after six months"."""
    for denied, moved in ((hypothesis, sentence), (sentence, hypothesis)):
        for first in denied.unevidenced:
            for second in moved.sized:
                if (first.axis, first.sign) != (second.axis, second.sign):
                    continue
                if _same_thing(denied, moved, first.about & second.about):
                    return True
    return False


# Two stems of one word in two forms share their first letters: "constipation" and
# "constipated" (decision 0109).
_ALIKE_PREFIX = 7


# A verb and its noun: "evicted" and "eviction", "abandon" and "abandonment" (0123).
_NOUN_ENDINGS: Final = ("ion", "ment", "al")
_NOUN_BASE = 4


def _alike(first: frozenset[str], second: frozenset[str]) -> frozenset[str]:
    """The words of ``first`` that ``second`` names too, as they stand, in another form
    of at least `_ALIKE_PREFIX` letters, or as the noun of its verb (`_NOUN_ENDINGS`)."""
    second = second | {IRREGULAR[word] for word in second if word in IRREGULAR}
    prefixes = {word[:_ALIKE_PREFIX] for word in second if len(word) >= _ALIKE_PREFIX}
    verbs = verbs_of_nouns(second)
    return frozenset(
        word
        for word in first
        if word in second
        or IRREGULAR.get(word) in second
        or (len(word) >= _ALIKE_PREFIX and word[:_ALIKE_PREFIX] in prefixes)
        or word in verbs
        or not verbs_of_nouns(frozenset({word})).isdisjoint(second)
    )


# Irregular pasts whose stem is not the word's: "slept no longer than the people on the
# pretend drink" against "increased total sleep time" (decision 0129). Only where two
# findings are matched (`_alike`, the sweep): a fold into every key raised the overlap
# of agreeing comparisons past the lexical rules' floor.
IRREGULAR: Final = {"slept": "sleep"}


def verbs_of_nouns(words: frozenset[str]) -> frozenset[str]:
    """The verb of each noun of ``words`` that `_NOUN_ENDINGS` make ("eviction": "evict"),
    for `_alike` and for the sweep to meet a text that names the verb."""
    return frozenset(
        word[: -len(end)]
        for word in words
        for end in _NOUN_ENDINGS
        if word.endswith(end) and len(word) - len(end) >= _NOUN_BASE
    )


# A harm called rare in one text and common in the other, this far apart, needs one
# word of it named in both; unless either grades how bad it is ("serious skin reactions
# are rare" and "mild skin redness is common" are two outcomes).
_SHARES_TENFOLD: Final = 10.0
# Shares of two things named after "of" are of one where the texts share this many
# specific words of the outcome.
_BASES_OVERRULED: Final = 3
_SEVERITIES: Final = frozenset(
    {"serious", "severe", "major", "mild", "minor", "slight", "moderate", "significant",
     "life", "fatal", "dangerous", "trivial", "bad", "worse", "worst"}
)  # fmt: skip


def shares_differ(hypothesis: ChangeReading, sentence: ChangeReading) -> bool:
    """Both texts give the share of people one outcome affects, far apart
    (`nli_shares`): "muscle pain judged to be caused by the statin itself affected
    roughly 1 in 100 participants" against "as many as 3 in 10 statin users suffer muscle
    pain caused directly by their medication"."""
    if hypothesis.share is None or sentence.share is None:
        return False
    if not shares_apart(hypothesis.share, sentence.share):
        return False
    if not same_arm(hypothesis.tokens, sentence.tokens):
        return False
    if uptake_against_outcome(hypothesis.tokens, sentence.tokens):
        return False
    failed, other = (
        (hypothesis, sentence) if hypothesis.share_about >= _FAILED else (sentence, hypothesis)
    )
    if (hypothesis.share_about >= _FAILED) != (sentence.share_about >= _FAILED) and (
        failure_named(failed.tokens, other.tokens)
    ):
        # those who failed to finish against those who finished (0127); not those whose
        # plea "failed to reach the case file" against those the court had "nothing on
        # file" from (decision 0147)
        return False
    # names count here too: a drug's name says whose outcome it is ("statin users")
    alike = _alike(hypothesis.share_about, sentence.share_about) - LIGHT_VERBS
    if _repeats(hypothesis.tokens) and _repeats(sentence.tokens):
        alike |= {"again"}  # "a second unauthorised holiday", "off to Tenerife again"
    same = specific(alike)
    # nor who said it ("only 3% of teachers said ..." against "Just over half came from
    # teachers and school leaders": decision 0145)
    known = same - hypothesis.names - sentence.names
    known -= content_keys([*sayers(hypothesis.tokens), *sayers(sentence.tokens)])
    if (
        share_bases_differ(hypothesis.tokens, sentence.tokens)
        and len(known - share_bases(hypothesis.tokens) - share_bases(sentence.tokens))
        < _BASES_OVERRULED
        # not a harm called rare that the other names (decision 0144)
        and not rarity_named_in_other(
            hypothesis.tokens, hypothesis.share, sentence.tokens, sentence.share
        )
    ):
        # "56% of annual rainfall", "one in five of the green roofs" (0115); not meadows
        # and farms that sowed rattle and lost hay, words beside what each counts
        # (decision 0140)
        return False
    if frequencies_opposed(hypothesis.tokens, sentence.tokens):
        # "side effects" are common against rare: two words of the outcome, not of who it
        # affects, one of them specific (decision 0113)
        outcome = alike - hypothesis.names - sentence.names - SHARE_FRAME
        if len(outcome) >= SHARED_WORDS_FAR and specific(outcome):
            return True
        # ten times as often, one specific word of the outcome named in both, neither
        # grading how bad it is ("skin irritation is rare, affecting fewer than 2 in every
        # 100 wearers" against "sore, reddened or broken skin ... was common, turning up
        # in 29 per cent": decision 0125)
        return (
            bool(specific(outcome))
            and shares_apart(hypothesis.share, sentence.share, _SHARES_TENFOLD)
            and _SEVERITIES.isdisjoint(hypothesis.tokens)
            and _SEVERITIES.isdisjoint(sentence.tokens)
        )
    if rarity_denied(hypothesis.tokens, hypothesis.share, sentence.tokens, sentence.share):
        # called rare against a share far larger: one specific word of the outcome, no
        # word of the count ("one in a thousand", "one patient in ten"): decision 0115
        outcome = alike - hypothesis.names - sentence.names - SHARE_FRAME - COUNT_KEYS
        # nor when it was counted ("during the first year" and "before the first hearing":
        # decision 0142)
        outcome -= _WHEN_COUNTED
        # nor what "half the" counts ("a bit over half the trees still going" against
        # "stem deformation ... affecting fewer than 1 in 200 trees": decision 0132)
        outcome -= content_keys(
            [*counted_after_half(hypothesis.tokens), *counted_after_half(sentence.tokens)]
        )
        # nor what "one ... in" counts ("one session in eight nationally was moved because
        # of weather" against "Minor falls during RideWise sessions are uncommon": 0144)
        outcome -= content_keys(
            [*counted_one_in(hypothesis.tokens), *counted_one_in(sentence.tokens)]
        )
        # nor what a group described counts ("two of our three route leaders": 0147)
        outcome -= content_keys(
            [*counted_described(hypothesis.tokens), *counted_described(sentence.tokens)]
        )
        return bool(specific(outcome)) or _harm_as_a_symptom(hypothesis, sentence)
    if shares_apart(hypothesis.share, sentence.share, SHARES_FAR_APART):
        return len(known) >= SHARED_WORDS_FAR
    return len(same) >= SHARED_WORDS and len(known) >= SHARED_KNOWN


_WHEN_COUNTED: Final = frozenset(
    content_keys(["first", "second", "third", "last", "next", "early", "later", "year", "month",
                  "week", "day"])
)  # fmt: skip


# A thing done once more: "go on to take a second unauthorised holiday" and "took the
# kids off to Tenerife again" count one outcome between them (decision 0140).
_REPEATS: Final = frozenset({"again", "second", "repeat", "repeated"})


def _repeats(tokens: Sequence[str]) -> bool:
    """``tokens`` name a thing done once more (`_REPEATS`)."""
    return not _REPEATS.isdisjoint(tokens)


def _harm_as_a_symptom(first: ChangeReading, second: ChangeReading) -> bool:
    """One share is of harm in general ("digestive side effects are uncommon, and fewer
    than 2 in every 100 ..."), the other's text names a symptom ("ended up with bloating,
    cramps or loose bowels"): one outcome, as `nli_outcomes` reads them (decision 0129)."""
    return any(
        not HARMS.isdisjoint(general.share_about) and SYMPTOM.search(" ".join(named.tokens))
        for general, named in ((first, second), (second, first))
    )


def changes_contradict(hypothesis: ChangeReading, sentence: ChangeReading) -> bool:
    """No change against a change, two comparisons that cannot both hold, safe where
    the other advises against (`nli_advice`), most of one effect given to opposite
    groups (`nli_groups`), shares of one outcome, costs or doses for one age band far
    apart (`nli_shares`, `nli_costs`, `nli_doses`), an amount called enough well under
    the other's floor or well over its ceiling (`nli_enough`), an effect gone well inside
    the other's floor on how long it lasts (`nli_lasting`), a time or a level called
    enough well past the other's deadline or ceiling (`nli_limits`): at any overlap, for each
    names what it is about (`nli_heuristic._judge`)."""
    return (
        no_change_against_change(hypothesis, sentence)
        or comparisons_clash(hypothesis.comparisons, sentence.comparisons)
        or alike_against_lead(hypothesis.tokens, sentence.tokens)
        or alike_against_lead(sentence.tokens, hypothesis.tokens)
        or no_difference_against_comparison(
            hypothesis.tokens, hypothesis.no_change, sentence.comparisons, sentence.tokens
        )
        or no_difference_against_comparison(
            sentence.tokens, sentence.no_change, hypothesis.comparisons, hypothesis.tokens
        )
        or sizes_differ(hypothesis, sentence)
        or unevidenced_against_sized(hypothesis, sentence)
        or safe_against_advised(hypothesis.advice, sentence.advice)
        or groups_clash(hypothesis.groups, sentence.groups)
        or shares_differ(hypothesis, sentence)
        or costs_differ(hypothesis.cost, sentence.cost)
        or doses_differ(hypothesis.dose, sentence.dose)
        or enough_under_floor(hypothesis.amounts, sentence.amounts)
        or enough_over_ceiling(hypothesis.amounts, sentence.amounts)
        or worn_off_inside_floor(hypothesis.tokens, sentence.tokens)
        or limit_passed(hypothesis.tokens, sentence.tokens)
    )
