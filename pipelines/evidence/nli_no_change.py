"""Findings of no change, read for what they are about (`nli_change`, decisions 0101,
0109, 0110): "no real change in traffic noise", "organic matter hasn't budged", "soreness
ratings ... were statistically indistinguishable", "no significant difference to how many
of them went on to have a stroke", "the change in injury collisions was not statistically
significant"; and what a noun of change is about (`change_noun`). What a verb is about
is read in `nli_about`, the group or time a finding sets against in `nli_other_side`,
the likenesses that find nothing changed ("just as many tumbles") in `nli_same`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from lyra.pipelines.evidence.nli_about import (
    BE,
    OUTCOME_REACH,
    SIZED_AXES,
    acted_on,
    from_the_verb,
    words_before,
)
from lyra.pipelines.evidence.nli_comparisons import NULL_REACH, outcome
from lyra.pipelines.evidence.nli_numbers import CARDINALS, number, stem
from lyra.pipelines.evidence.nli_other_side import (
    earlier_after,
    than_past_setting,
    untreated_after,
    word_within,
)
from lyra.pipelines.evidence.nli_same import (
    LOOKS,
    SAME_MEASURES,
    alike_as_much,
    back_where_it_was,
    looks_as_they_did,
    same_as_before,
    same_measure_as,
)
from lyra.pipelines.evidence.nli_tokens import (
    DETERMINERS,
    STOPWORDS,
    axis_of,
    denies_the_next_word,
    is_cue,
    is_negated,
)
from lyra.pipelines.evidence.nli_words import (
    ARMS,
    NULL_DETERMINERS,
    NULL_NOUNS,
    NULL_STATES,
    STAYED_STATES,
    STAYING,
)

# How far past "between" the groups may run before what they differ on ("on pain").
_GROUPS_REACH = 8


def _after_groups(tokens: Sequence[str], at: int) -> set[str]:
    """What the groups named from ``tokens[at]`` ("between A and B") differ on, where
    "on" or "in" follows them: "between naltrexone and the dummy pill on pain"."""
    for j in range(at + 1, min(len(tokens), at + 1 + _GROUPS_REACH)):
        if tokens[j] in ("on", "in") and (found := outcome(tokens[j + 1 : j + 1 + NULL_REACH])):
            return found
    return set()


# After "the same" or "similar", what ends a state of no change ("were the same in both
# groups", "was similar across schools"); a noun there is what is alike, no finding of
# no change ("the same dose", "a similar level of protection").
_ALIKE: Final = frozenset({"same", "similar", "comparable"})
_ALIKE_THEN: Final = frozenset({"", "in", "between", "across", "among", "for", "on", "as"})


# "similar in size to", "the same in design as": how two things are alike, no state
_ALIKE_IN_WHAT: Final = frozenset(
    {"size", "magnitude", "scale", "shape", "design", "appearance", "kind", "nature",
     "form", "character", "style", "direction"}
)  # fmt: skip


def _alike_state(tokens: Sequence[str], i: int) -> bool:
    """``tokens[i]`` is "the same" or "similar" as a state: "noise was about the same",
    "reading scores were similar in both groups" (decision 0116); not "similar in size
    to" (an effect as large as another one)."""
    after = tokens[i + 1] if i + 1 < len(tokens) else ""
    if after == "in" and tokens[i + 2 : i + 3] and tokens[i + 2] in _ALIKE_IN_WHAT:
        return False
    return tokens[i] in _ALIKE and after in _ALIKE_THEN


# Stop words a finding of no change reaches past, beyond `NULL_REACH` tokens, unless
# the groups it compares come first.
_NULL_REACH_PAST = 4
_GROUPS_APART = frozenset({"between", "among", "amongst"})


def _words_after(tokens: Sequence[str], i: int) -> Sequence[str]:
    """The tokens after ``tokens[i]`` up to the `NULL_REACH`-th that is no stop word, at
    most `_NULL_REACH_PAST` more than `NULL_REACH` in all: "no significant difference to
    how many of them went on to have a stroke" is about the stroke, "no significant
    difference in the time mediated and unmediated cases took to reach a final order"
    about the final order too (decision 0110)."""
    counted = 0
    j = i + 1
    end = min(len(tokens), i + 1 + NULL_REACH + _NULL_REACH_PAST)
    if not _GROUPS_APART.isdisjoint(tokens[j : i + 1 + NULL_REACH]):
        # "no significant difference in coat condition scores between dogs fed the
        # grain-free diet and ...": past "between" are the groups, not the outcome
        end = min(end, i + 1 + NULL_REACH)
    while j < end and counted < NULL_REACH:
        counted += tokens[j] not in STOPWORDS
        j += 1
    return tokens[i + 1 : j]


# A verb of being in other words: "the bumblebee counts on the long verges came out no
# different from ..." (decision 0123).
_LINKING_VERBS: Final = (["came", "out"], ["turned", "out"], ["ended", "up"])


def _past_linking_verb(tokens: Sequence[str], i: int) -> int:
    """``i``, or where a two-word linking verb right before ``tokens[i]`` starts."""
    if i >= 2 and list(tokens[i - 2 : i]) in _LINKING_VERBS:
        return i - 2
    return i


def no_change(tokens: Sequence[str]) -> set[str]:
    """What the text finds did not change: the words after a null noun ("no real change
    in traffic noise", "little or no difference to the risk of a heart attack") and
    before a state of no change ("organic matter hasn't budged", "spending held steady",
    "function scores ... practically identical", "noise was about the same")."""
    found: set[str] = set()
    for i, tok in enumerate(tokens):
        stemmed = stem(tok)
        before = range(max(0, i - 3), i)
        if (
            tok == "different"
            and i
            and tokens[i - 1] == "no"
            and (
                subject := outcome(
                    from_the_verb(words_before(tokens, _past_linking_verb(tokens, i - 1)))
                )
            )
        ):
            # "the reading scores of tutored pupils were no different, statistically,
            # from those of ...": what is no different comes before (decision 0116)
            found |= subject
        elif (tok == "nothing" and tokens[i - 1 : i] in (["did"], ["does"], ["do"])) or (
            tok == "ineffective" and tokens[i + 1 : i + 2] in (["for"], ["against"])
        ):
            # "peer tutoring did nothing for reading scores", "is ineffective for pain"
            found |= outcome(tokens[i + 2 : i + 2 + OUTCOME_REACH])
        elif tok == "better" and (than := _than_an_arm(tokens, i)):
            # "glucosamine has not been shown to relieve knee pain any better than an
            # inactive dummy tablet", "was no better than placebo for knee pain"
            found |= _no_better_about(tokens, i, than)
        elif (
            tok in _MORE_OR_FEWER
            and i
            and (
                tokens[i - 1] == "no"
                # "didn't remember any more words or names than the people on the dummy
                # tablets" (decision 0132)
                or (
                    tokens[i - 1] == "any"
                    and any(is_cue(tokens, j) for j in range(max(0, i - 1 - _DENIAL_REACH), i - 1))
                )
            )
            and (than := _than_the_untreated(tokens, i))
        ):
            # "by the following spring the gardening pupils were eating no more
            # vegetables than children at schools that had never dug a bed" (0126)
            found |= outcome(tokens[i + 1 : than])
        elif (
            tok in _LEVELS
            and i
            and tokens[i - 1] == "no"
            and (than := word_within(tokens, "than", i + 1, i + 1 + _LEVEL_THAN_REACH))
            and (untreated_after(tokens, than) or earlier_after(tokens, than))
        ):
            # "injury collisions at the four junctions were no higher during the trial
            # than in the equivalent period of the previous three years" (0128)
            found |= outcome(words_before(tokens, _past_linking_verb(tokens, i - 1)))
        elif stemmed in NULL_NOUNS and _denied_any_noun(tokens, i):
            # "our gauging stations have not picked up any measurable change in flood
            # peaks", "did not find any difference in pain": as "no change in" (0120)
            if tokens[i + 1 : i + 2] in (["between"], ["among"]):
                found |= _after_groups(tokens, i + 1)
            else:
                found |= outcome(_words_after(tokens, i)) - _STATISTICS
        elif stemmed in NULL_NOUNS and any(
            tokens[j] in NULL_DETERMINERS or is_cue(tokens, j) for j in before
        ):
            if any(tokens[j] in ("no", "little") for j in before):
                # "the annual mean at the gate showed no significant difference between
                # the school street schools and the comparison schools": past "between"
                # are the groups, what did not differ comes before, unless it follows
                # them: "between naltrexone and the dummy pill on pain" (decision 0116)
                if tokens[i + 1 : i + 2] in (["between"], ["among"]):
                    after = _after_groups(tokens, i + 1)
                else:
                    after = outcome(_words_after(tokens, i)) - _STATISTICS
                # "the six-month rearrest rate showed no statistically significant
                # change": nothing after it, what showed it comes before (decision 0108)
                start = min(j for j in before if tokens[j] in ("no", "little"))
                found |= after or outcome(tokens[max(0, start - OUTCOME_REACH) : start])
            else:
                # a verb: "did not change cancer rates", "turnover hardly changed"
                found |= acted_on(tokens, i, NULL_REACH)
        elif (
            stemmed in NULL_STATES
            or (
                # "hasn't budged", "has barely budged" (decision 0127)
                stemmed == "budg"
                and (
                    is_negated(tokens[max(0, i - 3) : i])
                    or not _SCARCELY.isdisjoint(tokens[max(0, i - 3) : i])
                )
            )
            or (
                (stemmed in STAYED_STATES or _alike_state(tokens, i))
                and not STAYING.isdisjoint(tokens[max(0, i - 3) : i])
            )
        ):
            found |= outcome(
                words_before(tokens, i)
                if stemmed in NULL_STATES
                else [t for t in tokens[max(0, i - OUTCOME_REACH) : i] if t not in _SCARCELY]
            )
        elif tok == "same" and (as_at := same_as_before(tokens, i)) and "of" in tokens[i:as_at]:
            # "the black-bin rounds are still hauling away almost exactly the same weight
            # of general rubbish as they were before the caddies arrived": what follows
            # "of" (0127); a measure alone ("the same hours as before") names too little
            of = tokens.index("of", i)
            found |= outcome(tokens[of + 1 : as_at])
        elif (
            tok == "same"
            and not SAME_MEASURES.isdisjoint(tokens[i + 1 : i + 2])
            and same_as_before(tokens, i)
        ):
            # "grievances lodged against the force were running at virtually the same
            # level as before": what stands at that level is named before it (0131)
            found |= outcome(words_before(tokens, i - 1))
        elif tokens[i - 1 : i] == ["as"] and (alike := alike_as_much(tokens, i)):
            # "and took just as many tumbles", "were paying just as much to heat their
            # homes ... as neighbours still on the waiting list" (0128)
            found |= alike
        elif tok == "same" and (what := same_measure_as(tokens, i)):
            # "the farms that had put in new hedges had pretty much the same number of
            # breeding pairs as the farms that hadn't", "lost their homes at almost exactly
            # the same rate as tenants who stood in front of the judge alone" (0127)
            found |= what
        elif stemmed in NULL_NOUNS and _vanishes(tokens, i):
            # "once you only count the trials where the person scoring the scar didn't
            # know which half had the sheet on, the difference basically vanishes": what
            # the difference was in comes before it (decision 0132)
            found |= outcome(words_before(tokens, i - 1 if tokens[i - 1] == "the" else i))
        elif stemmed in NULL_NOUNS and (end := _not_significant_after(tokens, i)):
            # "the change in injury collisions was not statistically significant"; "the
            # proportion who vomited was 29% with active bands and 31% with sham bands, a
            # difference that was not statistically significant": what the figures were
            found |= outcome(tokens[i + 1 : end]) or _figures_of(tokens, i)
        elif tok in ("or", "nor") and _either_way_denied(tokens, i):
            # "no convincing evidence that drinking coffee either raises or lowers your
            # chance of developing atrial fibrillation": no change either way (0123)
            found |= acted_on(tokens, i + 1, NULL_REACH)
        elif tok in LOOKS and (looks := looks_as_they_did(tokens, i)):
            # "our no-show numbers look exactly like they did back when nobody got a
            # reminder at all" (decision 0135): what looks the same comes before
            found |= outcome(words_before(tokens, looks))
        elif tok == "back" and (being := back_where_it_was(tokens, i)):
            # "the number of people dying because of drink is right back where it was
            # before the floor price came in" (decision 0130)
            found |= outcome(words_before(tokens, being))
        elif stemmed in _EASING and _verb_denied(tokens, i):
            # "elastic taping did not ease shoulder pain by any amount that patients
            # would notice when compared with sham taping" (decision 0130)
            found |= acted_on(tokens, i, NULL_REACH)
        elif tok == "any" and _denied_any(tokens, i):
            # "our response times haven't got any worse": what comes before the denial
            cue = next(j for j in range(i - 1, max(-1, i - 4), -1) if is_cue(tokens, j))
            found |= outcome(tokens[max(0, cue - OUTCOME_REACH) : cue])
    return found


# Verbs of easing or improving an outcome, whose denial by any amount finds it
# unchanged: "did not ease shoulder pain by any amount that patients would notice", "did
# not significantly reduce pain" (not "do not reduce the risk of serious bleeding", which
# says what a tablet cannot do, nor "if crying has not improved", a condition).
_EASING: Final = frozenset({"eas", "reduc", "improv", "reliev", "lower", "alleviat", "lessen"})
_DENIAL_ADVERBS: Final = frozenset(
    {"significantly", "meaningfully", "appreciably", "noticeably", "materially", "measurably"}
)
# "by any amount", "to any degree", "at all", "in any way" after the object.
_ANY_AMOUNT: Final = (["by", "any"], ["to", "any"], ["at", "all"], ["in", "any"])
# Words after such a verb that make its denial a comparison: "did not reduce pain more
# than exercise did", "did not ease pain as much as ..."
_COMPARED_AFTER: Final = frozenset({"than", "more", "as", "further"})


def _verb_denied(tokens: Sequence[str], i: int) -> bool:
    """The verb at ``i`` is denied right before it ("did not ease", "failed to
    improve"; not "nor reduce", which HealthVer's one pair with it reads as neutral), by
    any amount (an adverb before it or "by any amount" after it), and compares nothing
    after it."""
    j = i - 1
    adverb = j >= 0 and tokens[j] in _DENIAL_ADVERBS
    if adverb:
        j -= 1
    denied = j >= 0 and denies_the_next_word(tokens, j)
    after = list(tokens[i + 1 : i + 1 + NULL_REACH])
    any_amount = any(after[k : k + 2] in _ANY_AMOUNT for k in range(len(after)))
    return denied and (adverb or any_amount) and _COMPARED_AFTER.isdisjoint(after)


# "barely budged": the adverbs that deny a verb of moving all but entirely.
_SCARCELY: Final = frozenset({"barely", "hardly", "scarcely"})


def _either_way_denied(tokens: Sequence[str], i: int) -> bool:
    """``tokens[i]`` ("or", "nor") joins two verbs of one axis in opposite directions
    ("raises or lowers", "neither increases nor decreases") under a denial at most
    `_DENIAL_REACH` tokens before it."""
    if not 0 < i < len(tokens) - 1:
        return False
    first, second = axis_of(tokens, i - 1), axis_of(tokens, i + 1)
    return (
        first is not None
        and second is not None
        and first[0] == second[0]
        and first[1] != second[1]
        and is_negated(list(tokens[max(0, i - _DENIAL_REACH) : i]))
    )


# How far past "than" the trial's other arm may stand ("than an inactive dummy tablet"),
# and how far before "any better" its negation ("has not been shown to relieve knee pain
# any better").
_ARM_REACH = 4
_DENIAL_REACH = 8
# What a result against the other arm is about, after it: "no better than placebo for
# knee pain", "at relieving pain".
_ABOUT_AFTER = frozenset({"for", "at", "on", "in"})
# What a denial says of the evidence, not of the outcome: "has not been shown to".
_SHOWN = frozenset({"shown", "proven", "proved", "found", "demonstrated", "seen", "known"})


def _than_an_arm(tokens: Sequence[str], i: int) -> int:
    """Where "than" stands after "no better" or a denied "any better" at ``i``, when the
    trial's other arm follows it (placebo, a dummy tablet, sham, no treatment): a finding
    of no effect. 0 for none."""
    than = i + 1 if tokens[i + 1 : i + 2] == ["than"] else than_past_setting(tokens, i + 1)
    if not than or (
        ARMS.isdisjoint(tokens[than + 1 : than + 1 + _ARM_REACH])
        # "no better than those of classmates who kept their laptops open" (decision 0133)
        and not untreated_after(tokens, than)
    ):
        return 0
    if tokens[i - 1 : i] == ["no"]:
        return than
    if tokens[i - 1 : i] == ["any"] and any(
        is_cue(tokens, j) for j in range(max(0, i - 1 - _DENIAL_REACH), i - 1)
    ):
        return than
    return 0


# "no more X than" the trial's other arm, or than a group told by what it never did or
# kept to: "than children at schools that had never dug a bed", "than residents not
# wearing them", "than the ones who'd just carried on with the normal activities
# timetable" (decision 0126); "no more than 2 a day" gives a most, no finding.
_MORE_OR_FEWER: Final = frozenset({"more", "fewer", "less"})


def _than_the_untreated(tokens: Sequence[str], i: int) -> int:
    """Where "than" stands after "no more / fewer / less" at ``i`` and what it is more
    of, when the other arm, a group that had none of it or an earlier time follows ("no
    less bothered by their tinnitus than when they started": decision 0128); 0 for
    none."""
    # "no more likely to end up with a clear ear than those who had used nothing at all":
    # what is no more likely is said in a verb's words (decision 0132)
    reach = _LIKELY_THAN_REACH if tokens[i + 1 : i + 2] == ["likely"] else OUTCOME_REACH
    than = word_within(tokens, "than", i + 2, i + 2 + reach)
    if not than or not outcome(tokens[i + 1 : than]):
        return 0
    return than if untreated_after(tokens, than) or earlier_after(tokens, than) else 0


_LIKELY_THAN_REACH: Final = 10


# A level no higher than before: what is no higher is named before it.
# "slept no longer than the people on the pretend drink" (decision 0129)
_LEVELS: Final = frozenset({"higher", "lower", "greater", "bigger", "smaller", "longer", "shorter"})
_LEVEL_THAN_REACH: Final = 6


# Where what they were no better at ends: "at maths by the end".
_SETTING_ENDS: Final = frozenset({"by", "in", "on", "after", "at", "during"})


def _no_better_about(tokens: Sequence[str], i: int, than: int) -> set[str]:
    """What a result no better than the other arm is about: what follows the arm after
    "for / at / on / in", else what the denied verb acts on before "any better"
    ("relieve knee pain"), else the subject before "no better"."""
    arm = next((j for j in range(than + 1, len(tokens)) if tokens[j] in ARMS), None)
    # past the arm and a noun of its own: "than a sham brace at easing knee pain"
    about = (
        next((j for j in (arm + 1, arm + 2) if tokens[j : j + 1] and tokens[j] in _ABOUT_AFTER), 0)
        if arm is not None
        else 0
    )
    if about:
        return outcome(tokens[about + 1 : about + 1 + OUTCOME_REACH])
    end = next((j for j in range(i + 3, than) if tokens[j] in _SETTING_ENDS), than)
    if (
        tokens[i + 1 : i + 2] == ["at"]
        # not a time: "no better at six months than those on placebo"
        and number(tokens[i + 2]) is None
        and tokens[i + 2] not in CARDINALS
        and (at_what := outcome(tokens[i + 2 : end]))
    ):
        # what they were no better at: "the kids who learned an instrument were no better
        # at maths by the end than the kids who didn't" (decision 0133)
        return at_what
    if tokens[i - 1] == "any":
        cue = max(j for j in range(max(0, i - 1 - _DENIAL_REACH), i - 1) if is_cue(tokens, j))
        denied = [t for t in tokens[cue + 1 : i - 1] if t not in _SHOWN]
        return outcome(denied[-OUTCOME_REACH:])
    before = words_before(tokens, i - 1)
    # what a verb takes with "what" or "how" is the outcome, not who did it: "the kids
    # listening along on headphones understood what they read no better than the class
    # down the corridor" is about comprehension (decision 0134)
    asked = next((k for k in range(1, len(before)) if before[k] in _WHAT_OR_HOW), None)
    return outcome(before if asked is None else before[asked - 1 :])


_WHAT_OR_HOW: Final = frozenset({"what", "how"})


# A difference or effect that vanishes is none: "the difference basically vanishes",
# "the benefit all but disappeared once ...".
_VANISHING: Final = frozenset(
    {"vanishes", "vanished", "disappears", "disappeared", "evaporates", "evaporated"}
)
_VANISH_REACH: Final = 3


def _vanishes(tokens: Sequence[str], i: int) -> bool:
    """The difference or effect at ``tokens[i]`` vanishes within a few words, with no
    denial before the verb ("the effect never disappeared") and no time after it."""
    return any(
        tokens[j] in _VANISHING
        and not is_negated(list(tokens[i + 1 : j]))
        # gone by a time is an effect worn off, not none ("the difference had disappeared
        # by the second day": `nli_lasting`)
        and tokens[j + 1 : j + 2] not in (["by"], ["after"], ["within"], ["at"])
        for j in range(i + 1, min(len(tokens), i + 1 + _VANISH_REACH))
    )


# "... was not statistically significant", "... was non-significant" after a null noun
_NOT_SIGNIFICANT_REACH = 14
# A size before "and not significant" says the same: "the change in recorded cyclist
# injuries ... was small and not statistically significant".
_SMALL = frozenset({"small", "slight", "modest", "minimal", "negligible", "tiny"})


# Words of the statistics after a finding ("(0.6 percentage points; 95% CI -0.9 to
# 2.1)"): they say nothing of what changed.
_STATISTICS: Final = frozenset({"point", "percentag", "ci", "confidenc", "interval", "p", "ratio"})


def _not_significant_after(tokens: Sequence[str], i: int) -> int:
    """Where "was / were" begins "was not (statistically) significant" within reach after
    the null noun at ``i`` (what lies between is what did not change); 0 for none."""
    for k in range(i + 2, min(len(tokens) - 1, i + 1 + _NOT_SIGNIFICANT_REACH)):
        if tokens[k] not in BE:
            continue
        rest = [t for t in tokens[k + 1 : k + 6] if t != "statistically"]
        if rest[:1] and rest[0] in _SMALL and rest[1:2] == ["and"]:
            rest = rest[2:]
        if rest[:2] == ["not", "significant"] or rest[:1] in (
            ["insignificant"],
            ["nonsignificant"],
        ):
            return k
        return 0
    return 0


def _figures_of(tokens: Sequence[str], i: int) -> set[str]:
    """What the figures before a null noun at ``tokens[i]`` measure: the words before
    the last "was / were" ahead of it ("the proportion of passengers who vomited was
    29% ... , a difference that was not statistically significant")."""
    be = next((j for j in range(i - 1, 0, -1) if tokens[j] in BE), 0)
    return outcome(tokens[max(0, be - OUTCOME_REACH) : be]) if be else set()


# Adjectives between a denied "any" and its noun of change: "any measurable change".
_ANY_SIZED: Final = frozenset(
    {"measurable", "real", "significant", "meaningful", "noticeable", "detectable",
     "appreciable", "discernible", "clear", "obvious", "statistically", "clinically",
     "important", "relevant", "material", "substantial", "overall", "further"}
)  # fmt: skip


_CHANGE_IN: Final = (["in"], ["to"], ["on"], ["between"], ["among"])
# Words that may stand between the negation and "any": a verb of finding and its
# auxiliaries ("have not picked up any", "did not see any", "there was not any", "has
# not so far produced any").
_FINDING: Final = frozenset(
    {"picked", "pick", "up", "find", "found", "see", "seen", "saw", "show", "shown", "showed",
     "detect", "detected", "observe", "observed", "record", "recorded", "measure", "measured",
     "notice", "noticed", "spot", "spotted", "report", "reported", "produce", "produced",
     "make", "made", "cause", "caused", "bring", "brought", "have", "has", "had", "been", "be",
     "was", "were", "is", "are", "there", "yet", "so", "far", "really", "actually", "ever",
     "we", "they", "it", "i", "led", "lead", "to"}
)  # fmt: skip


def _denied_any_noun(tokens: Sequence[str], i: int) -> bool:
    """The noun of change at ``tokens[i]`` follows "any" (and adjectives of size only),
    with a negation within `_DENIAL_REACH` before "any": "have not picked up any
    measurable change", "didn't see any real difference", "found no evidence of" is
    another rule's. The noun is no verb here, and its finding is one of no change."""
    j = i - 1
    while j >= 0 and tokens[j] in _ANY_SIZED:
        j -= 1
    if j < 0 or tokens[j] != "any" or tokens[i + 1 : i + 2] not in _CHANGE_IN:
        return False
    for k in range(j - 1, max(-1, j - 1 - _DENIAL_REACH), -1):
        if is_cue(tokens, k):
            return True
        if tokens[k] not in _FINDING:
            # "it is not yet clear whether any change in ...": no finding denied
            return False
    return False


def _denied_any(tokens: Sequence[str], i: int) -> bool:
    """``tokens[i]`` is "any" before a comparative of change, with a negation before it:
    "haven't got any worse", "was not any higher", "did not get any better"."""
    if i + 1 >= len(tokens) or not tokens[i + 1].isalpha():
        return False
    axis = axis_of(tokens, i + 1)
    return (
        axis is not None
        and axis[0] in SIZED_AXES
        and any(is_cue(tokens, j) for j in range(max(0, i - 3), i))
    )


# A change named by a noun: "a 7% increase in examination scores", "a pooled improvement
# of 0.07 standard deviations in end-of-year examination scores", "a significant
# reduction in pain" (decision 0114). A verb of the same form ("scores increase in
# winter") has a noun, not one of `_NOUN_LEADS`, before it.
CHANGE_NOUNS: Final = frozenset(
    {"increase", "increases", "rise", "rises", "drop", "drops", "decline", "declines",
     "fall", "falls", "reduction", "reductions", "improvement", "improvements", "decrease",
     "decreases", "gain", "gains", "cut", "cuts", "boost", "deterioration", "worsening"}
)  # fmt: skip
# Adjectives before the noun that give it a size, as an adverb of degree does a verb's.
_SIZING_ADJECTIVES: Final = frozenset(
    {"significant", "substantial", "marked", "considerable", "dramatic", "sharp", "clear",
     "large", "notable", "meaningful", "major", "big", "huge", "pooled", "mean", "average",
     "median", "absolute", "relative", "net"}
)  # fmt: skip
_NOUN_LEADS: Final = (
    DETERMINERS
    | _SIZING_ADJECTIVES
    | {"this", "that", "any", "small", "modest", "slight", "further", "overall", "some"}
)
# How far "of <size>" may run before the "in" that names what changed.
_SIZE_REACH = 6
# Where what a noun of change is about stops: "(95% CI ...)", ", compared with ...".
_ABOUT_ENDS: Final = frozenset({"(", ",", ";", "than", "compared", "versus", "vs", "between"})


def change_noun(tokens: Sequence[str], i: int) -> tuple[set[str], bool] | None:
    """What the noun of change at ``tokens[i]`` is about, and whether a size or a degree
    is given ("a 7% increase", "an improvement of 0.07 standard deviations", "a
    significant reduction"); None where ``tokens[i]`` is no such noun. A noun denied ("no
    reduction in pain") or found not significant after ("the reduction in pain was not
    statistically significant") is about nothing here: `no_change` reads it. An effect
    with a direction is such a noun too (`_directed_effect`)."""
    if tokens[i] in _EFFECT_NOUNS:
        return _directed_effect(tokens, i)
    if tokens[i] not in CHANGE_NOUNS or i == 0:
        return None
    lead = tokens[i - 1]
    sized = number(lead) is not None or lead.endswith("%") or lead in _SIZING_ADJECTIVES
    if not (sized or lead in _NOUN_LEADS):
        return None
    start = i + 1
    if tokens[start : start + 1] == ["of"]:
        ahead = tokens[start + 1 : start + 1 + _SIZE_REACH]
        if ahead and (number(ahead[0]) is not None or ahead[0].endswith("%")):
            if "in" not in ahead:
                return None
            sized = True
            start += 2 + ahead.index("in")
        else:
            start += 1  # "a reduction of pain"
    elif tokens[start : start + 1] == ["in"]:
        start += 1
    else:
        return None
    if any(t in ("no", "little") or is_cue(tokens, j) for j, t in _before(tokens, i, 3)):
        return set(), False
    if _not_significant_after(tokens, i):
        return set(), False
    end = start
    while end < len(tokens) and end < start + NULL_REACH and tokens[end] not in _ABOUT_ENDS:
        end += 1
    return outcome([t for t in tokens[start:end] if t != "-"]) - _STATISTICS, sized


_EFFECT_NOUNS: Final = frozenset({"effect", "effects", "impact"})
# The direction an effect is given: "a small positive effect on attainment". Not
# "adverse" nor "side": those effects are harms of their own, not a change in an outcome.
_EFFECT_DIRECTIONS: Final = frozenset(
    {"positive", "negative", "beneficial", "harmful", "detrimental", "favourable",
     "favorable", "protective"}
)  # fmt: skip


# Where an effect's size begins after what it is on: "(pooled g = 0.09", "(SMD 0.4".
_EFFECT_SIZE_NAMES: Final = frozenset({"pooled", "g", "d", "smd", "md", "es", "hedges", "cohen"})


def _directed_effect(tokens: Sequence[str], i: int) -> tuple[set[str], bool] | None:
    """What an effect with a direction is on, and whether it is sized: "homework was
    associated with a small positive effect on attainment (pooled g = 0.09, 95% CI 0.04
    to 0.14)" is a change in attainment of a stated size, which a finding of no
    difference in attainment contradicts (round six, decision 0119). Sized by an
    adjective of size before it ("a significant positive effect") or a number after what
    it is on; denied or found not significant, it is about nothing here."""
    if i < 1 or tokens[i - 1] not in _EFFECT_DIRECTIONS or tokens[i + 1 : i + 2] != ["on"]:
        return None
    if any(t in ("no", "little") or is_cue(tokens, j) for j, t in _before(tokens, i, 3)):
        return set(), False
    if _not_significant_after(tokens, i):
        return set(), False
    start = end = i + 2
    while (
        end < len(tokens)
        and end < start + NULL_REACH
        and tokens[end] not in _ABOUT_ENDS | _EFFECT_SIZE_NAMES
        and number(tokens[end]) is None
    ):
        end += 1
    sized = (i >= 2 and tokens[i - 2] in _SIZING_ADJECTIVES) or any(
        number(t) is not None for t in tokens[start : start + 2 * OUTCOME_REACH]
    )
    return outcome([t for t in tokens[start:end] if t != "-"]) - _STATISTICS, sized


def _before(tokens: Sequence[str], i: int, reach: int) -> list[tuple[int, str]]:
    return [(j, tokens[j]) for j in range(max(0, i - reach), i)]
