"""Shares said in words rather than numbers (decisions 0131 to 0140): "nearly every
child in my daughter's class", "three other plot-holders on the site", "most of the
families I fined", "far from rare". `nli_shares.read_share` reads these where a sentence
gives no number; `claims` counts a witness's "most of" as a report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from lyra.pipelines.evidence.claim_verbs import IRREGULAR_PAST
from lyra.pipelines.evidence.harm_reports import SYMPTOM
from lyra.pipelines.evidence.nli_halves import SAID, looks_plural
from lyra.pipelines.evidence.nli_numbers import measures
from lyra.pipelines.evidence.nli_tokens import (
    STOPWORDS,
    denies_rarity,
    more_than_not,
    not_rare_for_us,
)


@dataclass(frozen=True)
class Share:
    """The one share a sentence gives, as a percentage interval."""

    low: float
    high: float


# "after nearly every session I had", "almost all of the children": a share in words, of
# all but a few (decision 0131), read only where no number gives one and a symptom is
# named: "plunging after almost every run", "recommends against arthroscopy for almost
# all patients", "banned almost all new non-compete agreements" count no harm.
_ALL_BUT: Final = frozenset({"nearly", "almost", "virtually", "practically"})
_EVERY: Final = frozenset({"every", "all"})
_EVERYONE: Final = frozenset({"everyone", "everybody"})
_ALL_BUT_TWO: Final = (["pretty", "much"], ["just", "about"], ["near", "enough"])
ALL_BUT_A_FEW: Final = Share(80.0, 100.0)


def all_but_every(tokens: Sequence[str]) -> Share | None:
    """`ALL_BUT_A_FEW` where `all_but_every_at` finds such a share; None otherwise."""
    return None if all_but_every_at(tokens) is None else ALL_BUT_A_FEW


def hedged(tokens: Sequence[str], i: int) -> bool:
    """The word at ``i`` ("every", "everyone") is hedged to all but a few: "nearly",
    "almost", "pretty much", "just about"."""
    return tokens[i - 1 : i] != [] and (
        tokens[i - 1] in _ALL_BUT or list(tokens[max(0, i - 2) : i]) in _ALL_BUT_TWO
    )


def all_but_every_at(tokens: Sequence[str]) -> int | None:
    """Where ``tokens`` say "nearly every <noun>" or "almost all (of) the <noun>" once and
    name a symptom, or say it of those a witness knows or sits among ("nearly every child
    in my daughter's class", "Every tenant I know on Denholme Road": decision 0135); None
    for none."""
    found = [
        i
        for i in range(1, len(tokens) - 1)
        if (
            (tokens[i] in _EVERY and tokens[i + 1].isalpha())
            # "just about everyone in the group chat for my intake" (decision 0140)
            or tokens[i] in _EVERYONE
        )
        and hedged(tokens, i)
    ]
    if found:
        at = found[0]
        named = (
            len(found) == 1
            and (
                SYMPTOM.search(" ".join(tokens))
                # "pretty much everyone in our local pond group", "everyone I know on
                # the scheme" (decision 0140)
                or (tokens[at] in _EVERYONE and _in_mine(tokens[at + 1 : at + 3]))
                or (tokens[at] in _EVERYONE and _i_know(tokens[at + 1 : at + 3]))
                or _known(tokens, at + 2 if tokens[at + 1] == "other" else at + 1)
                # "Nearly every one of my clients who got the text" (decision 0143)
                or (
                    tokens[at + 1 : at + 3] == ["one", "of"]
                    and tokens[at + 3 : at + 4] in (["my"], ["our"])
                )
                or _ours_around(tokens, at)
                or _seen_by_witness(tokens, at)
                # "we flushed skylarks ... off nests on near enough every pass" (0141)
                or (
                    tokens[at + 1] in _WITNESSED_OCCASIONS and not _FIRST_PERSONS.isdisjoint(tokens)
                )
            )
        )
        if len(found) > 1 and _known(tokens, at + 2 if tokens[at + 1] == "other" else at + 1):
            # the first of two names those the witness sits among ("Pretty much every
            # toddler in our asthma group has fought the spacer mask, and my daughter ...
            # at nearly every dose": decision 0146)
            return at - 1
        if named or len(found) > 1:
            return at - 1 if named else None
        # else one hedged "every" of no one known: an unhedged one may still name them
        # ("pretty much every comb-out, and every other mum I asked": decision 0145)
    # "Every single time I got up off the top bench I went woozy": what the witness met
    # on every occasion, a symptom named (decision 0136)
    # or any thing, the time stressed ("Every single time I've used that phone ... there's
    # been a detention officer stood within earshot": decision 0143)
    if SYMPTOM.search(" ".join(tokens)) or _stressed_every_time(tokens):
        times = [i for i in range(len(tokens) - 2) if _every_time_i(tokens, i)]
        if len(times) == 1:
            return times[0]
    known = [
        i
        for i in range(len(tokens) - 1)
        if (
            tokens[i] == "every"
            and _known(tokens, i + 2 if tokens[i + 1] in ("other", "single") else i + 1)
        )
        # "everyone on my floor had ..." (decision 0140)
        or (tokens[i] in _EVERYONE and _in_mine(tokens[i + 1 : i + 3]))
    ]
    return known[0] if len(known) == 1 else None


_FIRST_PERSONS: Final = frozenset({"i", "we", "my", "our"})
# and the contractions a tokenizer keeps whole, right after "every single time" ("Every
# single time I've taken the syrup": decision 0142)
_FIRST_PERSON_SUBJECTS: Final = _FIRST_PERSONS | {"i've", "i'd", "we've", "we'd"}
# The occasions a witness was at, each of which they saw a thing on.
_WITNESSED_OCCASIONS: Final = frozenset(
    {"pass", "visit", "session", "shift", "round", "trip", "walk", "run", "cycle", "dose",
     # "at pretty much every handover" (decision 0146)
     "handover", "meeting", "hearing", "appointment"}
)  # fmt: skip
# A few of those a witness knows or sits among, who had it too: "two or three of our
# regulars showing up with a £100 litter ticket", "three other plot-holders on the site
# had their fish go belly-up" (decision 0138). Among the few dozen a witness knows, a few
# are at least this share: no "rare" of one in a hundred or fewer.
FEW_KNOWN: Final = Share(5.0, 100.0)
# A witness who says in words that it is no rarity ("far from rare", "not the odd one")
# denies any rate called rare: at least this share (decision 0139).
NOT_RARE: Final = Share(10.0, 100.0)
_FEW_WORDS: Final = frozenset(
    {"two", "three", "four", "five", "six", "seven", "eight", "nine", "several",
     # "at least a dozen of them" (decision 0146)
     "dozen"}
)  # fmt: skip
_OURS: Final = frozenset({"our", "my"})


def _a_few(token: str) -> bool:
    return token in _FEW_WORDS or (token.isdigit() and 2 <= int(token) <= 9)


# Most of the witness's own, or most of the time: "most of our walks ended with everyone
# traipsing back", "we were getting rained off more weeks than not" (decision 0139).
MOST_KNOWN: Final = Share(50.0, 100.0)


# Those a witness leads or sits among, named in the singular ("most of my crew").
_COLLECTIVES: Final = frozenset({"crew", "team", "class", "lot", "staff", "group", "squad",
                                 # "most of our junior intake" (decision 0142)
                                 "intake", "cohort", "ward", "department"})  # fmt: skip
# What most of them liked is no count of what befell them ("Most of our group loved it").
_LIKINGS: Final = frozenset(
    {"loved", "liked", "enjoyed", "hated", "disliked", "preferred", "thought", "felt", "found"}
)


def most_known(tokens: Sequence[str]) -> bool:
    """A first-person text says "most of our/my <plural>" ("most of my crew"), "most of
    the <plural> I <did>" ("Most of the families I fined"), or "more ... than not"; not
    of what most liked. A share of `MOST_KNOWN`, and a witness's report that
    `claims.informativeness` counts."""
    if _most_of_those_i_did(tokens) or _most_of_us(tokens):
        return True
    return (
        not _FIRST_PERSONS.isdisjoint(tokens)
        and any(
            (
                tok == "most"
                and tokens[i + 1 : i + 3] in (["of", "our"], ["of", "my"])
                and i + 4 < len(tokens)
                and (looks_plural(tokens[i + 3]) or tokens[i + 3] in _COLLECTIVES)
                and tokens[i + 4] not in _LIKINGS
            )
            or (
                # a collective with a word before it: "most of our junior intake" (0142)
                tok == "most"
                and tokens[i + 1 : i + 3] in (["of", "our"], ["of", "my"])
                and i + 5 < len(tokens)
                and tokens[i + 4] in _COLLECTIVES
                and tokens[i + 5] not in _LIKINGS
            )
            or (
                tok == "most"
                and tokens[i + 1 : i + 3] == ["of", "the"]
                and i + 5 < len(tokens)
                and looks_plural(tokens[i + 3])
                and tokens[i + 4] in ("i", "we")
                # "Most of the families I fined", "most of the drivers I taught" (0140),
                # "Most of the folks I sit with at the help desk" (0144)
                and (
                    tokens[i + 5].endswith("ed")
                    or tokens[i + 5] in IRREGULAR_PAST
                    or tokens[i + 5] in _SEE_REGULARLY
                )
                # not what most of them liked ("Most of the folks I sit with loved ...")
                and _LIKINGS.isdisjoint(tokens[i + 6 : i + 9])
            )
            or (tok == "most" and _most_of_those_in_ours(tokens, i))
            or (tok == "not" and more_than_not(tokens, i))
            or (tok == "than" and _more_than_it_ran(tokens, i))
            # "most days of the week" (decision 0145), not a habit of so long ("about a
            # quarter of an hour most mornings") nor a service ("who still need us most days")
            or (
                tok == "most"
                and tokens[i + 1 : i + 2] != []
                and tokens[i + 1] in _PERIODS
                and _HABIT_BEFORE.isdisjoint(tokens[max(0, i - _HABIT_REACH) : i])
            )
            for i, tok in enumerate(tokens)
        )
    )


_OF_US_REACH: Final = 6
# Words before "most of us" that make it whom a thing is for or like, no share of what
# befell them: "plenty for most of us", "what most of us manage", "than most of us".
_NOT_OF_THOSE: Final = frozenset({"for", "than", "what", "to", "like", "as"})


def _most_of_us(tokens: Sequence[str]) -> bool:
    """ "most of us in the Tuesday group had sore wrists", "most of us were in pieces"
    (decision 0148): what befell most of us, said in the past, within `_OF_US_REACH`
    words; not what most of us liked ("most of us loved it"), nor whom a thing is for
    ("plenty for most of us") or like ("than most of us will ever know")."""
    return any(
        tok == "most"
        and tokens[i + 1 : i + 3] == ["of", "us"]
        and _NOT_OF_THOSE.isdisjoint(tokens[i - 1 : i])
        and _LIKINGS.isdisjoint(tokens[i + 3 : i + 4])
        and any(
            t in ("had", "were", "was") or t in IRREGULAR_PAST or t.endswith("ed")
            for t in tokens[i + 3 : i + 3 + _OF_US_REACH]
        )
        for i, tok in enumerate(tokens)
    )


def _most_of_those_in_ours(tokens: Sequence[str], i: int) -> bool:
    """Reads "Most of the folks in my infusion bay" (decision 0141), "most of the other women in
    my bay" (decision 0147), from "most" at ``i``."""
    at = i + 4 if tokens[i + 3 : i + 4] == ["other"] else i + 3
    return (
        tokens[i + 1 : i + 3] == ["of", "the"]
        and at + 2 < len(tokens)
        and looks_plural(tokens[at])
        and tokens[at + 1] in ("in", "on", "at")
        and tokens[at + 2] in _OURS
    )


# "got called off more weeks than it ran": most of the weeks (decision 0145).
_PERIODS: Final = frozenset({"weeks", "times", "days", "nights", "sessions", "months",
                             "mornings", "evenings", "shifts"})  # fmt: skip


_HABIT_BEFORE: Final = frozenset({"hour", "hours", "minutes", "minute", "quarter", "need",
                                   "needs", "see", "visit", "do", "does"})  # fmt: skip
_HABIT_REACH: Final = 5


def _more_than_it_ran(tokens: Sequence[str], i: int) -> bool:
    """The "than" at ``i`` closes "more <periods> than it <did>": the thing failed on
    most of them."""
    return (
        i >= 2
        and tokens[i - 2] == "more"
        and tokens[i - 1] in _PERIODS
        and tokens[i + 1 : i + 2] in (["it"], ["they"])
        and tokens[i + 2 : i + 3] != []
        and _past_tense(tokens[i + 2])
    )


# Those a witness sits with, sees or helps as their work ("the folks I sit with").
_SEE_REGULARLY: Final = frozenset({"sit", "see", "help", "meet", "teach", "serve", "advise",
                                   "treat", "represent", "visit", "support"})  # fmt: skip


# "Of the dozen or so clients I've taken through an early evaluation, most saw the side
# the evaluator favoured dig its heels in harder" (decision 0143): those the witness
# dealt with named first, then most of them.
_GROUP_NAMED_REACH: Final = 6
_MOST_REACH: Final = 14


def _most_of_those_i_did(tokens: Sequence[str]) -> bool:
    if tokens[:2] != ["of", "the"]:
        return False
    named = next(
        (
            k + 3
            for k in range(2, min(len(tokens) - 2, _GROUP_NAMED_REACH))
            if looks_plural(tokens[k])
            and tokens[k + 1] in _FIRST_PERSON_SUBJECTS
            and (tokens[k + 2].endswith(("ed", "en")) or tokens[k + 2] in IRREGULAR_PAST)
        ),
        None,
    )
    return named is not None and any(
        tokens[j] == "most" and tokens[j + 1 : j + 2] != [] and tokens[j + 1] not in _LIKINGS
        for j in range(named, min(len(tokens) - 1, named + _MOST_REACH))
    )


def _all_of_us(tokens: Sequence[str]) -> bool:
    """The witness speaks for all of a few of their own: "All eight of us in the Thursday
    physio class still had stiff, sore shoulders", "every one of us" (decision 0146)."""
    for i, tok in enumerate(tokens):
        after = tokens[i + 1 : i + 4]
        if tok == "all" and (
            after[:2] == ["of", "us"]
            or (after[:1] != [] and _a_few(after[0]) and after[1:] == ["of", "us"])
        ):
            return True
        if tok == "every" and after == ["one", "of", "us"]:
            return True
        if tok == "every" and tokens[i + 1 : i + 5] == ["single", "one", "of", "us"]:
            return True  # "every single one of us ended up with" (decision 0148)
    return False


_EVERY_ONE: Final = (["in", "every", "single", "one"], ["in", "every", "one"])
_FEW_AFTER_REACH: Final = 4


def _a_few_in_every_one(tokens: Sequence[str]) -> bool:
    """A few in each of the witness's own occasions: "I co-facilitated eight of the
    StandUp sessions ... and in every single one at least two or three people had to leave
    the room" (decision 0146)."""
    for i in range(len(tokens)):
        opening = next((o for o in _EVERY_ONE if tokens[i : i + len(o)] == o), None)
        if opening is not None:
            after = tokens[i + len(opening) : i + len(opening) + _FEW_AFTER_REACH]
            return any(_a_few(tok) for tok in after)
    return False


def few_known(tokens: Sequence[str]) -> Share | None:
    """`ALL_BUT_A_FEW` where a witness speaks for all of a few of their own ("All eight of
    us"), `FEW_KNOWN` where `few_known_at` finds such a few, `NOT_RARE` where a few come
    in every one of the witness's occasions or a witness denies in words that it is rare
    (`_CALLED_NOT_RARE`, `nli_tokens.denies_rarity`); None otherwise."""
    if _all_of_us(tokens):
        return ALL_BUT_A_FEW
    if not _FIRST_PERSONS.isdisjoint(tokens) and _a_few_in_every_one(tokens):
        return NOT_RARE
    if few_known_at(tokens) is not None:
        # a few again and again is no rarity ("I had four or five kids in tears every
        # single Friday": decision 0144)
        return NOT_RARE if _again_and_again(tokens) else FEW_KNOWN
    if any(_loads_known(tokens, i) for i in range(len(tokens))):
        return LOADS_KNOWN
    if not _FIRST_PERSONS.isdisjoint(tokens) and any(
        # "not a one-off", "hardly a one-off" (decision 0140)
        (tok in ("not", "hardly") and denies_rarity(tokens, i))
        or (
            tok == "rare"
            and (
                tokens[i - 2 : i] in _CALLED_NOT_RARE
                or tokens[i - 1 : i] == ["hardly"]
                # "weren't rare for us at all" (decision 0143)
                or (i > 0 and not_rare_for_us(tokens, i - 1))
            )
        )
        for i, tok in enumerate(tokens)
    ):
        return NOT_RARE
    return MOST_KNOWN if most_known(tokens) else None


# Loads of those a witness sits among: "loads of the kids in my daughter's Year 4 class
# were in tears", "loads of the other Year 1 parents told me" (decision 0141). Of a class
# or a group of some thirty, "loads" are at least five: this share.
LOADS_KNOWN: Final = Share(15.0, 100.0)
_LOADS: Final = frozenset({"loads", "lots"})
_LOADS_NOUN_REACH: Final = 3


_WHOSE: Final = frozenset({"my", "our", "her", "his", "their"})


def _loads_known(tokens: Sequence[str], i: int) -> bool:
    """``tokens[i]`` opens "loads (lots) of the (other) <plural>", the other ones or
    those in the witness's own place ("in my", "at our")."""
    if tokens[i] not in _LOADS or tokens[i + 1 : i + 2] != ["of"]:
        return False
    if tokens[i + 2 : i + 3] and tokens[i + 2] in _WHOSE:
        # "loads of her mates had the same thing happen" (decision 0145)
        return tokens[i + 3 : i + 4] != [] and tokens[i + 3] in _KNOWN_PEOPLE
    if tokens[i + 2 : i + 3] != ["the"]:
        return False
    k = i + 3
    other = tokens[k : k + 1] == ["other"]
    k += other
    for j in range(k, min(len(tokens), k + _LOADS_NOUN_REACH)):
        if tokens[j].isalpha() and looks_plural(tokens[j]):
            return other or (
                tokens[j + 1 : j + 2] in (["in"], ["on"], ["at"])
                and tokens[j + 2 : j + 3] != []
                and tokens[j + 2] in _OURS
            )
    return False


# A witness's words that deny a thing is rare, besides "not some once-in-a-blue-moon
# thing" (`nli_tokens.denies_rarity`): "far from rare", "anything but rare", "by no
# means rare", "hardly rare" (0138).
_CALLED_NOT_RARE: Final = (["far", "from"], ["anything", "but"], ["no", "means"])


def few_known_at(tokens: Sequence[str]) -> int | None:
    """Where a first-person text names a few of its own ("two or three of our regulars",
    no count of them after "our") or a few others ("three other plot-holders"), once;
    None for none."""
    if _FIRST_PERSONS.isdisjoint(tokens):
        return None
    found = [i for i in range(len(tokens)) if _few_known_from(tokens, i)]
    return found[0] if len(found) == 1 else None


def _few_known_from(tokens: Sequence[str], i: int) -> bool:
    """``tokens[i]`` opens a few of the witness's own or a few others (`few_known_at`);
    not the second end of "two or three"."""
    if not _a_few(tokens[i]) or (i >= 2 and tokens[i - 1] == "or" and _a_few(tokens[i - 2])):
        return False
    ranged = tokens[i + 1 : i + 2] == ["or"] and i + 2 < len(tokens) and _a_few(tokens[i + 2])
    j = i + 3 if ranged else i + 1
    if tokens[j : j + 1] == ["of"] and tokens[j + 1 : j + 2] != [] and tokens[j + 1] in _OURS:
        k = j + 2
    elif tokens[j : j + 1] == ["other"]:
        k = j + 1
    elif _in_our_place_before(tokens, i):
        k = j  # "In our Tuesday group at least five bands have snapped" (decision 0140)
    elif tokens[max(0, i - 2) : i] in (["i", "had"], ["we", "had"]):
        # those in the witness's charge: "I had four or five kids in tears every single
        # Friday" (decision 0144)
        return tokens[j : j + 1] != [] and tokens[j] in _IN_MY_CHARGE
    else:
        # "Three of us in the house ended up with ..." (decision 0140), or of those the
        # witness named theirs before ("my Year 3 lot and at least a dozen of them were
        # complaining": decision 0146)
        return tokens[j : j + 2] == ["of", "us"] or (
            tokens[j : j + 2] == ["of", "them"] and not _OURS.isdisjoint(tokens[:i])
        )
    while tokens[k + 1 : k + 2] == ["-"]:
        k += 2  # "plot-holders"
    return k < len(tokens) and tokens[k].isalpha() and looks_plural(tokens[k])


# The occasions a few come back on, each of them ("every single Friday", "every week").
_AGAIN: Final = frozenset({"time", "week", "day", "lesson", "session", "shift", "round",
                           "monday", "tuesday", "wednesday", "thursday", "friday",
                           "saturday", "sunday"})  # fmt: skip


def _again_and_again(tokens: Sequence[str]) -> bool:
    """``tokens`` say "every (single) <occasion>" of `_AGAIN`."""
    for i, tok in enumerate(tokens[:-1]):
        at = i + 2 if tokens[i + 1] == "single" else i + 1
        if tok == "every" and at < len(tokens) and tokens[at] in _AGAIN:
            return True
    return False


# Those a teacher, a nurse or an adviser has in their charge.
_IN_MY_CHARGE: Final = frozenset(
    {"kids", "children", "pupils", "students", "patients", "clients", "families", "parents",
     "tenants", "learners"}
)  # fmt: skip
# Those one knows, whose "loads of" are a share of people (decision 0145).
_KNOWN_PEOPLE: Final = _IN_MY_CHARGE | frozenset(
    {"mates", "friends", "classmates", "neighbours", "colleagues", "workmates", "customers",
     "regulars"}
)  # fmt: skip
_OUR_PLACE_REACH: Final = 6
# A study's own is no witness's place: "In our trial, five patients ..."
_RESEARCH: Final = frozenset({"trial", "study", "survey", "sample", "cohort", "audit",
                              "review", "data", "analysis", "records"})  # fmt: skip


def _in_our_place_before(tokens: Sequence[str], at: int) -> bool:
    """The witness's own place stands just before ``at``: "In our Tuesday group (at
    least) five ..."."""
    before = tokens[max(0, at - _OUR_PLACE_REACH) : at]
    return _RESEARCH.isdisjoint(before) and any(
        before[k] in _PLACE_WORDS and before[k + 1] in _OURS for k in range(len(before) - 1)
    )


# The occasions a witness meets a thing on, and what one does to them ("Every single
# session left me in floods of tears": decision 0137).
_OCCASIONS: Final = frozenset({"session", "visit", "treatment", "appointment", "dose"})
_DID_TO_ME: Final = frozenset({"left", "made", "gave", "had"})
_ME: Final = frozenset({"me", "us"})


def _stressed_every_time(tokens: Sequence[str]) -> bool:
    """ "Every single time I ..." and what was there each time ("there's been a detention
    officer"); not a habit ("Every single time I go I sit on the top bench")."""
    return any(
        tokens[i : i + 3] == ["every", "single", "time"]
        and not _FIRST_PERSON_SUBJECTS.isdisjoint(tokens[i + 3 : i + 5])
        and (not _THERE_WAS.isdisjoint(tokens[i + 3 :]) or _others_each_time(tokens, i + 3))
        for i in range(len(tokens) - 3)
    )


_HAVE_BEEN: Final = frozenset({"i've", "we've"})
_OTHERS_REACH: Final = 3


def _others_each_time(tokens: Sequence[str], at: int) -> bool:
    """From ``at``, a time the witness went ("I've gone", "I went") and then others who did
    a thing ("the people sat on the chairs outside the booth could hear every word":
    decision 0145); not the witness's own habit ("I go I sit on the top bench")."""
    if tokens[at : at + 1] and tokens[at] in _HAVE_BEEN:
        verb = at + 1
    elif tokens[at : at + 1] in (["i"], ["we"]) and tokens[at + 1 : at + 2] != []:
        verb = at + 1 if _past_tense(tokens[at + 1]) else 0
    else:
        verb = 0
    after = tokens[verb + 1 : verb + 1 + _OTHERS_REACH] if verb else []
    return (
        bool(after)
        and after[0] in ("the", "someone", "they")
        and (_FIRST_PERSON_SUBJECTS.isdisjoint(after))
    )


_THERE_WAS: Final = frozenset({"there's", "there'd", "there", "theres"})


def _every_time_i(tokens: Sequence[str], i: int) -> bool:
    """``tokens[i]`` opens "every (single) time I ...", "every time we ...", "every single
    session left me ..."."""
    if tokens[i] != "every":
        return False
    at = i + 2 if tokens[i + 1 : i + 2] == ["single"] else i + 1
    if tokens[at : at + 1] == ["time"]:
        return not _FIRST_PERSON_SUBJECTS.isdisjoint(tokens[at + 1 : at + 3])
    return (
        tokens[at : at + 1] != []
        and tokens[at] in _OCCASIONS
        and tokens[at + 1 : at + 2] != []
        and tokens[at + 1] in _DID_TO_ME
        and tokens[at + 2 : at + 3] != []
        and tokens[at + 2] in _ME
    )


_KNOWN_REACH: Final = 4
_KNOW: Final = frozenset({"know", "knew", "met", "asked",
                          # "every letting agent I rang" (decision 0140)
                          "rang", "phoned", "called", "contacted", "tried", "visited"})  # fmt: skip
# The witness's own place right before "nearly every", or their own among those after
# it: "on our site nearly every plot that laid it lost ...", "on nearly every house along
# Tanner's Row, mine included" (decision 0139).
_OURS_BEFORE_REACH: Final = 5
_MINE_AFTER_REACH: Final = 10
_PLACE_WORDS: Final = frozenset({"in", "on", "at", "along", "across", "round", "around"})


def _ours_around(tokens: Sequence[str], at: int) -> bool:
    """ "nearly every" at ``at`` (its "every") stands in the witness's own place, or counts
    the witness's own."""
    before = tokens[max(0, at - 1 - _OURS_BEFORE_REACH) : at - 1]
    own_place = any(
        before[k] in _PLACE_WORDS and before[k + 1] in _OURS for k in range(len(before) - 1)
    )
    after = tokens[at + 1 : at + 1 + _MINE_AFTER_REACH]
    mine = any(
        after[k] in ("mine", "ours") and after[k + 1] == "included" for k in range(len(after) - 1)
    )
    return own_place or mine


_SEEN_REACH: Final = 8
# "ringbarked", "killed", not "red" or "bed"
_SHORTEST_PAST: Final = 4
# and how it ended up ("nearly every field they touched ended up pugged and rutted": 0143)
_WAS: Final = frozenset({"was", "were", "had", "ended"})


_DONE_TO_ME: Final = 3  # "leaked on us": the verb, its preposition, the witness


def _seen_by_witness(tokens: Sequence[str], at: int) -> bool:
    """A witness says what "nearly every" at ``at`` (its "every") was: "Pretty much every
    strand on the plots along the brook was in tatters within a month, and we were
    picking ..." (decision 0140)."""
    # or before it: "rats were nesting under nearly all of them"
    # "we'd marked to keep" is the witness's too (decision 0141)
    if (_FIRST_PERSONS | _ME).isdisjoint(t.split("'")[0] for t in tokens):
        return False
    hedge = at - 1 if tokens[at - 1] in _ALL_BUT else at - 2
    # or what was done to it: "The hire goats ringbarked pretty much every rowan ... we'd
    # marked to keep" (decision 0141); or to the witness on it: "The Night Owl leaked on
    # us pretty much every other night" (decision 0146)
    done = hedge > 0 and (
        _past_tense(tokens[hedge - 1])
        or (
            tokens[hedge - 1] in _ME
            and tokens[hedge - 2 : hedge - 1] in (["on"], ["to"], ["for"])
            and hedge >= _DONE_TO_ME
            and _past_tense(tokens[hedge - _DONE_TO_ME])
        )
    )
    return done or not _WAS.isdisjoint(
        [*tokens[max(0, at - 1 - _SEEN_REACH) : at - 1], *tokens[at + 2 : at + 2 + _SEEN_REACH]]
    )


# Verbs whose past is their present: "every field we put spuds into" (decision 0142).
_ONE_FORM: Final = frozenset({"put", "set", "cut", "let", "spread", "shut", "hit"})


def _past_tense(word: str) -> bool:
    return word in IRREGULAR_PAST or (len(word) > _SHORTEST_PAST and word.endswith("ed"))


def _known(tokens: Sequence[str], at: int) -> bool:
    """``tokens[at]`` is a noun of those a witness knows or sits among: "child in my
    daughter's class", "family in our support group", "tenant I know", "(every other)
    pensioner in her sheltered block" (decision 0136)."""
    if at >= len(tokens) or not tokens[at].isalpha() or tokens[at] in STOPWORDS:
        return False
    if tokens[at + 1 : at + 2] == ["-"] and tokens[at + 2 : at + 3] != []:
        at += 2  # a noun joined: "every comb-out we did" (decision 0145)
    ahead = tokens[at + 1 : at + 1 + _KNOWN_REACH]
    if _in_mine(ahead):
        return True
    if ahead[:2] in (["of", "mine"], ["of", "ours"]):
        return True  # "every mate of mine who has tried one" (decision 0138)
    if ahead[:1] == ["there"] and not _OURS.isdisjoint(tokens[max(0, at - _THERE_REACH) : at]):
        # the witness's own place named before: "at my support group nearly every woman
        # there said the same" (decision 0145)
        return True
    # past a second word of the noun: "every letting agent I rang" (decision 0140)
    return any(
        ahead[k : k + 1] in (["i"], ["we"])
        and ahead[k + 1 : k + 2] != []
        # or what the witness did to their own: "Every single bed I mulched" (0140),
        # "Every field we put spuds into" (0142)
        and (ahead[k + 1] in _KNOW or _past_tense(ahead[k + 1]) or ahead[k + 1] in _ONE_FORM)
        for k in (0, 1)
    )


_THERE_REACH: Final = 8


def _i_know(words: Sequence[str]) -> bool:
    """``words`` say "I know", "we met" ... (`_KNOW`)."""
    return list(words[:1]) in (["i"], ["we"]) and len(words) > 1 and words[1] in _KNOW


def _in_mine(words: Sequence[str]) -> bool:
    """``words`` open "in my", "on our", "at her" ..."""
    return list(words[:1]) in (["in"], ["on"], ["at"]) and list(words[1:2]) in (
        ["my"],
        ["our"],
        ["her"],
        ["his"],
        ["their"],
    )


# A share of those who said a thing changed counts the sayers, not a size of the change:
# "only 3% of teachers said pupils' handwriting had got noticeably worse" (decision
# 0145). Their verb within a few words of the share's "of".
_SAYERS_REACH: Final = 4


def share_of_sayers(tokens: Sequence[str]) -> bool:
    """The one percentage ``tokens`` give is a share "of <those> said (reported ...)"."""
    return bool(sayers(tokens))


def sayers(tokens: Sequence[str]) -> list[str]:
    """The words naming those a share of sayers counts ("of teachers said": "teachers"),
    who are no outcome the share shares with another; empty for no such share."""
    shares = measures(tokens).get("%", [])
    if len(shares) != 1:
        return []
    at = shares[0][2]
    of = next((j for j in range(at + 1, min(len(tokens), at + 3)) if tokens[j] == "of"), None)
    if of is None:
        return []
    said = next(
        (k for k in range(of + 1, min(len(tokens), of + 1 + _SAYERS_REACH)) if tokens[k] in SAID),
        None,
    )
    return list(tokens[of + 1 : said]) if said is not None else []
