"""Two groups alike in a witness's words against a trial's lead over its control
(decision 0136), a reading of the heuristic stance judge's change rules (`nli_change`).

A trial finds that those who had the thing did better than a control arm, with a number:
"mean office systolic blood pressure fell by 7.4 mmHg more in the sauna group than in the
usual-care group", "Heat-related emergency admissions occurred in 31 of 1,204
participants in the call arm and 52 of 1,198 in the usual-care arm". Someone who watched
says, in their own words, that those who had it came out no differently from people who
had nothing or went on as before: "the folks who just kept up their usual check-ups ...
finished with blood pressure every bit as good as those of us sweating in the sauna",
"the pensioners who were getting rung every day came in with the heat just as often as
the ones nobody bothered to phone". The two cannot both hold.

The witness names the plain group as people do ("who just ...", "nobody bothered",
"with no mediators at all", "the plain wheat", "dummy collars"), not as the trial does,
and the outcome in other words, so the reading asks for three things at once: the
witness's sentence sets two groups alike and names a plain one; the other sentence is a
finding with a number that sets a group ahead of a control arm; and the two share at
least two specific words beyond those that name the groups (the thing and what it acts
on: "sauna", "blood pressure"; "heat", "admissions"). Two findings of which only one is
about a harm are about two outcomes, and do not meet here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from lyra.pipelines.evidence.harm_reports import (
    SYMPTOM,
    TWO_GROUPS_ALIKE,
    alike_with_a_plain_group,
)
from lyra.pipelines.evidence.leftovers import lexicon_readings
from lyra.pipelines.evidence.nli_comparisons import (
    JUDGEMENT_MEASURES,
    read_comparisons,
    specific,
)
from lyra.pipelines.evidence.nli_counts import spans_zero
from lyra.pipelines.evidence.nli_outcomes import HARMS
from lyra.pipelines.evidence.nli_tokens import content_keys, token_key
from lyra.pipelines.evidence.nli_words import ARMS, AS_USUAL

# A finding that sets a group ahead of its control arm, named as trials name it.
_CONTROL_ARM: Final = re.compile(
    r"\b(?:control|controls|usual ?-? ?care|usual|placebo|sham|untreated|unprotected"
    r"|deactivated|sole|alone|waiting ?-? ?list|standard care|no treatment|unmanaged"
    # "34.8% of the waitlisted comparison group" (decision 0142)
    r"|wait ?-? ?listed|comparison group)\b"
    # those who had none of it ("than cows in pens without a brush"), or plain water in its
    # place ("6.1% of the warm-water soak group") (decision 0143)
    # or the thing not done ("than those given advice and painkillers without taping":
    # decision 0145)
    r"|\bthan (?:[\w-]+ ){0,4}?without (?:a|an|the|any)\b"
    # or none of them ("than on matched holdings without birds": decision 0147)
    r"|\bthan (?:[\w-]+ ){0,4}?without [a-z]{3,}s\b"
    r"|\bthan (?:[\w-]+ ){0,6}?without [a-z]{3,}ing\b"
    # or "with no" of it ("than fields with no bales put out": decision 0144)
    r"|\bthan (?:[\w-]+ ){0,4}?with no\b"
    # sterile water in its place, or the arm left without it by name ("than infants given
    # sterile water", "7.6 days in the uncovered group": decision 0148)
    r"|\bsterile water\b|\bthe un(?!related|expected|usual)[a-z]{3,}ed (?:group|arm)s?\b"
    # stock on the floor as it was ("34.9 in the bare concrete cubicles", round 99)
    r"|\b(?:in|on) the bare (?:[\w-]+ ){0,2}?(?:cubicles|stalls|pens|plots|beds|floors|fields"
    r"|paddocks|group|arm)\b"
    r"|\b(?:warm|plain|tap) ?-? ?water (?:\S+ ){0,2}?(?:group|arm)s?\b"
    # "against 3.8 kg for plants given plain water only" (decision 0147)
    r"|\b(?:plain|tap) ?-? ?water (?:only|alone)\b"
    # stock left out as before ("than steers outwintered in a sacrifice paddock": 0143)
    r"|\bthan (?:[\w-]+ ){0,2}?(?:outwintered|left out|kept out)\b"
    # the thing not done, after "than" ("than barley after ungrazed cover crops": 0143)
    r"|\bthan (?:[\w-]+ ){0,4}?un(?!related|expected|usual)[a-z]{3,}ed\b"
    # "than children in the no-humidifier group" (decision 0142)
    r"|\bno ?- ?\w+ (?:group|arm)\b"
    # the usual way of doing it ("than streets on the standard 10-working-day schedule";
    # not "standard probation with a drug rehabilitation requirement", another thing:
    # decision 0139)
    r"|\bstandard (?:\S+ ){0,5}?(?:schedule|timetable|practice|procedure|regime|service"
    # "those given standard housing advice" (decision 0140)
    r"|advice|support)\b"
    # the trial's other arm named by how it went on as before ("than pairs in the seated
    # meeting-room arm": decision 0139); not another thing's arm ("than pupils in the app
    # arm")
    r"|\bthan (?:[\w-]+ ){0,4}?(?:seated|sitting|indoor|existing|unchanged)(?: [\w-]+){0,3}? arm\b"
    # those the thing has not reached yet ("age-matched residents in wards where the pass
    # had not yet been introduced": decision 0137)
    r"|\bnot yet (?:been )?(?:introduced|offered|available|rolled out|started)\b"
    # the standard kind's arm ("41% in the standard investigation arm": decision 0140)
    r"|\bstandard (?:[\w-]+ ){0,3}?arm\b"
    # a court's ordinary route ("than cases on the standard track": decision 0143)
    r"|\bon the (?:standard|ordinary|usual|normal) (?:[\w-]+ )?track\b"
    # those that stayed on the usual ("sections that stayed on annual flailing": 0140)
    r"|\b(?:stayed|remained|kept) (?:on|with) (?:the |their )?(?:usual|annual|normal"
    r"|standard|existing|regular|routine|old)\b"
    # the plain kind's group ("than in the plain-water bath group": decision 0140)
    r"|\bplain (?:\S+ ){0,4}?(?:group|arm)s?\b"
    # those who kept what they had ("pupils in classes keeping standard chairs": 0140)
    r"|\b(?:keeping|kept|keep) (?:their |the |to )?(?:standard|usual|ordinary|normal|existing"
    r"|regular)\b"
)
# A finding of no difference is no lead ("did not differ", "no significant difference").
_NULL_FINDING: Final = re.compile(
    r"\bno (?:significant |real |clear |meaningful )?(?:difference|effect|benefit|change)\b"
    r"|\bdid ?n[o']t differ\b|\bnot (?:statistically )?significant"
)
# Leads stated as a ratio or a difference between arms, or by a comparative the comparison
# rules leave to others ("19.6 hours sooner than").
_ARM_STATISTIC: Final = re.compile(
    r"\b(?:risk|rate|odds|hazard) ratio\b|\bmean difference\b|\b95 ?%? ci\b"
    r"|\b(?:sooner|later|earlier|faster|slower|quicker|longer|shorter)(?: \S+){0,6}? than\b"
)
# Two arms' figures side by side: "68% ... compared with 49%", "31 weeks ... versus 41".
_SIDE_BY_SIDE: Final = re.compile(r"\b(?:compared (?:with|to)|versus|vs)\b")
_FIGURE: Final = re.compile(r"\d")
_ARMS_SIDE_BY_SIDE: Final = 2


# Words that name the groups, not the thing or what it acts on.
_GROUP_KEYS: Final = frozenset(
    key
    for key in content_keys(
        [*ARMS, *AS_USUAL, "arm", "arms", "care", "group", "groups", "participants",
         "waiting", "list", "plain", "alone", "sole", "ones", "people", "folk", "folks",
         "untouched", "unprotected", "deactivated", "nobody", "just", "treated",
         "treatment",
         # and words of any study or any account, which name neither thing nor outcome
         "trial", "trials", "study", "studies", "review", "reported", "along"]
    )
)  # fmt: skip
SHARED_WORDS: Final = 2
_ARM: Final = frozenset(content_keys(["arm"]))
# An arm of the body, not of a trial: "their arm back to normal", "overhead arm use".
_BODY_ARM: Final = re.compile(
    r"\b(?:(?:my|his|her|their|your|our|one's|the broken|overhead|upper|lower|left|right)"
    r" arms?\b|\barms? (?:use|function|movement|strength|back)\b)"
)
# Words of getting better from a harm, which both texts name when they are about one
# outcome though only one names the harm.
_HEALING: Final = frozenset(content_keys(["healed", "healing", "recovered", "cleared"]))
# Words of a thing gone, each naming the getting better of `_HEALING` in other words:
# "resolved a median of 2.1 days sooner" against "got rid of their styes no quicker"
# (decision 0140).
_GONE: Final = frozenset(content_keys(["resolved", "resolution", "rid"])) | _HEALING
_HEALED: Final = frozenset(content_keys(["healed"]))
# Words of pain, which a witness names as a harm ("got over their sore throats no
# quicker") and a trial as a measure ("mean throat pain on a 0 to 10 scale"): one outcome
# where both name one (decision 0139).
_SORE_WORDS: Final = ("pain", "painful", "sore", "soreness", "ache", "aching", "hurt", "hurts",
                      # "headaches" against "mean pain" (decision 0140)
                      "headache", "headaches",
                      # "pretty much the same cramps" against "mean cramp pain" (0140)
                      "cramp", "cramps")  # fmt: skip
_SORENESS: Final = frozenset(content_keys(_SORE_WORDS))
_PAIN: Final = frozenset(content_keys(["pain"]))


# Offending again in a witness's words: "ended up back in trouble with the police just as
# often as", "are back in front of the magistrates" (decision 0148). The trouble is no
# harm of the thing; the outcome is the trial's reoffending.
_OFFENDED_AGAIN: Final = re.compile(
    r"\b(?:back|ended up|end up|ends up|ending up|landed|landing) (?:back )?"
    r"(?:in trouble with the (?:police|law)|(?:up )?(?:before|in front of) the "
    r"(?:magistrates|bench|judge|courts?))\b"
    # "were back in trouble just as often as" (round ninety-nine)
    r"|\b(?:were|was|are|is|got|get|gets|been) back in trouble\b"
    r"|\b(?:re-?arrested|arrested again|nicked again)\b"
)
_REOFFEND: Final = frozenset({"reoffend"})
_TROUBLE: Final = token_key("trouble")
# A trial's word for the thing or the outcome and a witness's everyday one, met only
# here, where a likeness is read against a lead (other rules would meet more by them:
# "without a gel plaster" as a negation of any finding): the walker's gel plaster is a
# hydrocolloid one; the grass of a field is a trial's herbage (decision 0148).
_EVERYDAY_NAMES: Final[dict[str, str]] = {"hydrocolloid": "gel", "herbag": "grass"}  # stems


def _keys(tokens: Sequence[str]) -> set[str]:
    """Content keys of ``tokens``, with the trial's name for offending again where a
    witness says it in other words (`_OFFENDED_AGAIN`) and everyday names for a trial's
    words (`_EVERYDAY_NAMES`)."""
    keys = {_EVERYDAY_NAMES.get(key, key) for key in content_keys(tokens)}
    if _OFFENDED_AGAIN.search(_text(tokens)):
        keys = (keys - {_TROUBLE}) | _REOFFEND
    return keys


_SIDE: Final = token_key("side")
_SIDE_EFFECT: Final = re.compile(r"\bside ?-? ?effects?\b")


def _text(tokens: Sequence[str]) -> str:
    return " ".join(tokens)


def _lead_over_control(tokens: Sequence[str]) -> bool:
    """A finding with a number that sets a group ahead of a control arm named as trials
    name it: a comparison that denies nothing, or two arms side by side."""
    text = _text(tokens)
    if not any(ch.isdigit() for ch in text) or not _CONTROL_ARM.search(text):
        return False
    # nor one whose interval spans zero ("a difference of 7 percentage points (95% CI -2 to
    # 16)": decision 0139)
    if TWO_GROUPS_ALIKE.search(text) or _NULL_FINDING.search(text) or spans_zero(tokens):
        return False
    if any(c.sign != 0 and not c.denied for c in read_comparisons(tokens)):
        return True
    if _ARM_STATISTIC.search(text):
        return True
    side = _SIDE_BY_SIDE.search(text)
    return bool(side) and sum(1 for t in tokens if _FIGURE.search(t)) >= _ARMS_SIDE_BY_SIDE


# Water given in the thing's place names an arm, not the thing or the outcome ("than
# newborns given sterile water" against "the ones we gave plain water": decision 0148);
# not water that is what a bath or a soak was of ("the plain-water bath group" against
# "ordinary tap-water baths": both baths).
_WATER_ARM: Final = re.compile(
    r"\b(?:sterile|plain|tap|warm) ?-? ?water\b(?! ?-? ?(?:baths?|soaks?|rinses?|sprays?)\b)"
)
_WATER: Final = frozenset(content_keys(["water"]))


def _alone_arm(tokens: Sequence[str]) -> set[str]:
    """What a control arm named "X alone" had: "a belt alone", "supportive care alone"
    (the thing the other text may test against nothing), and water in the thing's place
    (`_WATER_ARM`)."""
    water = set(_WATER) if _WATER_ARM.search(_text(tokens)) else set()
    return water | {
        k
        for i, t in enumerate(tokens)
        if t == "alone"
        for k in content_keys(tokens[max(0, i - 2) : i])
    }


# Measures too general to tell two outcomes apart ("the same time as", "the same number").
_GENERAL_MEASURES: Final = frozenset(
    # and the work a witness's group was at ("no more stuck into their work than",
    # against "on task": decision 0140)
    content_keys(["time", "times", "number", "amount", "rate", "level", "way", "size", "work",
                  # and what measured it ("did no better on their reading tests than"
                  # against "scored higher on reading comprehension": decision 0147)
                  "test", "tests", "score", "scores", "result", "results",
                  # "honestly the marks came out the same" against "reading accuracy on
                  # the mock exam paper was higher" (decision 0148)
                  "mark", "marks"])
)  # fmt: skip


# Words before a noun that make it the time of the likeness, not its measure.
_WHEN: Final = frozenset({"after", "before", "during", "following"})
_WHEN_REACH: Final = 3


def _measures_apart(witness: Sequence[str], finding: Sequence[str]) -> bool:
    """The witness names in a noun what the two groups are alike in, and the finding names
    none of it: "eating no more fruit than children at schools that had never dug a bed"
    against "eating an additional 0.42 portions of vegetables per day compared with
    control schools" (two outcomes). An adverb ("no more comfortably") names no outcome."""
    keys = _keys(finding)
    for c in read_comparisons(witness):
        if not (c.sign == 0 or c.denied) or c.measure & JUDGEMENT_MEASURES:
            continue
        nouns = {
            _EVERYDAY_NAMES.get(key, key)
            for i, t in enumerate(witness)
            if (key := token_key(t)) in c.measure
            and _a_noun(t)
            and not _done_for(witness, i)
            # "just as thick as": an adjective's likeness (decision 0141)
            and witness[i - 1 : i] != ["as"]
            # when, not what: "no more settled after the dance videos" (decision 0145)
            and _WHEN.isdisjoint(witness[max(0, i - _WHEN_REACH) : i])
        }
        measure = specific(frozenset(nouns)) - _GENERAL_MEASURES
        if measure and measure.isdisjoint(keys):
            return True
    return False


_POSSESSIVES: Final = frozenset({"my", "his", "her", "our", "their", "your"})
# Parts of the body a thing is done for, the place of an outcome and not the outcome.
_BODY_PARTS: Final = frozenset(
    {"head", "feet", "foot", "back", "neck", "knee", "knees", "hands", "hand", "skin",
     "legs", "leg", "shoulder", "shoulders", "hip", "hips", "chest", "stomach", "tummy",
     "eyes", "eye", "ears", "ear", "joints", "wrist", "wrists", "ankle", "ankles"}
)  # fmt: skip


def _done_for(tokens: Sequence[str], i: int) -> bool:
    """The noun at ``i`` is the part of the body a thing did something for, no measure:
    "the frozen hat did no more for my head than the dummy one" (decision 0141); not "for
    my sleep", an outcome."""
    return (
        i >= 2
        and tokens[i - 2] == "for"
        and tokens[i - 1] in _POSSESSIVES
        and tokens[i] in _BODY_PARTS
    )


def _a_noun(word: str) -> bool:
    """``word`` may be a noun, and is not a verb's participle that the lexicon also reads
    as an adjective ("no more stuck into their work": decision 0140)."""
    readings = lexicon_readings(word)
    verb = readings.get("VERB", ())
    participle = bool(verb) and verb[0] != word and "ADJ" in readings
    return "NOUN" in readings and not participle


def _of_harm(tokens: Sequence[str]) -> bool:
    text = _text(tokens)
    keys = _keys(tokens)
    # a side is a harm only as a side effect ("the heather on the grazed side": 0141)
    if not _SIDE_EFFECT.search(text):
        keys.discard(_SIDE)
    return bool(SYMPTOM.search(text)) or not HARMS.isdisjoint(keys)


def alike_against_lead(witness: Sequence[str], finding: Sequence[str]) -> bool:
    """``witness`` sets two groups alike, one of them plain, and ``finding`` sets a group
    ahead of its control arm with a number, the two about one thing and one outcome (two
    specific words shared beyond the groups' names; neither or both about a harm)."""
    if not alike_with_a_plain_group(_text(witness)) or not _lead_over_control(finding):
        return False
    shared = specific(frozenset(_keys(witness) & _keys(finding)))
    if not (_GONE.isdisjoint(content_keys(witness)) or _GONE.isdisjoint(content_keys(finding))):
        shared |= _HEALED  # gone in other words: one outcome, one word (decision 0140)
    # how fast a sore healed is one outcome, named as a harm or not ("the sores I covered
    # ... healed no quicker" against "median time to complete healing": decision 0138),
    # and so is pain named by both (0139)
    sore_in_both = not (
        _SORENESS.isdisjoint(content_keys(witness)) or _SORENESS.isdisjoint(content_keys(finding))
    )
    one_outcome = not _HEALING.isdisjoint(shared) or sore_in_both
    if sore_in_both:
        # pain in other words: one outcome, one word, as gone is ("were every bit as sore"
        # against "a mean pain score 1.4 points lower": decision 0144)
        shared |= _PAIN
    # where pain or healing names one outcome in both, the witness's nouns for where it
    # was are no other measure ("did no more for people's aching fingers and stiff
    # mornings" against "average hand pain ... was 1.9 points lower": decision 0142)
    if (_of_harm(witness) != _of_harm(finding) or _measures_apart(witness, finding)) and not (
        one_outcome
    ):
        return False
    body_arms = not _ARM.isdisjoint(shared) and all(
        _BODY_ARM.search(_text(t)) for t in (witness, finding)
    )
    shared -= _GROUP_KEYS | _alone_arm(finding)
    if body_arms:
        # the arm both name is the body's, an outcome ("got their arm back to normal
        # every bit as quickly" against "regained full overhead arm use a median of 9 days
        # sooner": decision 0146)
        shared |= _ARM
    return len({k for k in shared if not k.startswith("~")}) >= SHARED_WORDS


def meeting_keys(tokens: Sequence[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The specific words (beside the groups' names) of a witness's two groups alike with
    a plain one, and of a finding's lead over its control arm, for the stance sweep to
    meet the two by (`stance_sweep`, decision 0137); empty where the text is neither."""
    text = _text(tokens)
    alike = alike_with_a_plain_group(text)
    lead = _lead_over_control(tokens)
    if not (alike or lead):
        return frozenset(), frozenset()
    keys = frozenset(k for k in specific(frozenset(content_keys(tokens))) - _GROUP_KEYS
                     if not k.startswith("~"))  # fmt: skip
    return (keys if alike else frozenset()), (keys if lead else frozenset())
