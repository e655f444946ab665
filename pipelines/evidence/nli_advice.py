"""Safe against advised against: a contradiction rule of the heuristic stance judge
(`nli_heuristic`, decision 0102).

One text calls something safe where the other advises against it: "the ioniser
produces no harmful ozone, so it is safe to use in a child's bedroom" against "Devices
fitted with ionisers can give off ozone ... and the Agency advises against using them in
bedrooms"; "My midwife told me magnesium is perfectly safe to keep taking all through
pregnancy" against "We advise against taking magnesium for migraine prevention while
you are pregnant". Such pairs share the thing and the setting (a bedroom, a pregnancy)
and little else, so the overlap rules call them neutral and the packaged stance model
reads their shared subject as support. The rule names what it is about, so it applies
at any overlap (`nli_change.changes_contradict`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lyra.pipelines.evidence.nli_tokens import content_keys, is_cue

# Words that call a thing safe somewhere ("safe to use in a child's bedroom", "fine to
# take during pregnancy", "suitable for children").
_SAFE = frozenset({"safe", "harmless", "fine", "suitable", "okay"})
# Of them, words that call a thing safe only before "to" or "for": "fine to take", not a
# "£65 fine" or "it's been fine" (decision 0104).
_SAFE_BEFORE = frozenset({"fine", "okay"})
# Words after which a text advises against what follows: "advises against using",
# "avoid taking", "should not be given to", "not recommended for", "unsafe in",
# "contraindicated in".
_AGAINST_AFTER = frozenset(
    {"advise", "advises", "advised", "recommend", "recommends", "recommended", "warn",
     "warns", "warned", "caution", "cautions"}
)  # fmt: skip
_AGAINST = frozenset({"avoid", "unsafe", "contraindicated"})
# Forms of "avoid" that advise only after advice ("we recommend avoiding", "is best
# avoided", "should be avoided"); else they tell what someone did ("drivers avoiding the
# signals").
_AVOIDED = frozenset({"avoiding", "avoided"})
_AVOIDED_AFTER = _AGAINST_AFTER | frozenset({"be", "best", "suggest", "suggests"})
_MODALS = frozenset({"should", "must"})
# How far a word of safety or advice reaches for its setting (content words, within so
# many tokens: "advise against taking magnesium for migraine prevention while you are
# pregnant"), and a negation before a word of safety ("no level of exposure is safe for
# children").
_SETTING_WORDS = 6
_SETTING_TOKENS = 14
_CUE_REACH = 5
# Phrasal verbs that advise against what follows them: "should leave cranberry alone",
# "steer clear of", "stay / keep away from" (decision 0120).
_LEAVE_ALONE_REACH = 6
_CLEAR_OF = (["steer", "clear", "of"], ["stay", "away", "from"], ["keep", "away", "from"])
# An imperative that opens a sentence ("Do not do pelvic floor exercises while the
# catheter is still in", "Never take ... with").
_IMPERATIVE_NOT = frozenset({"don't", "never"})
# How far before a modal its subject may name the setting: "anyone on warfarin should
# leave cranberry alone" is advice for people on warfarin.
_SUBJECT_TOKENS = 6
# A condition that opens the sentence and what it may hold before the advice: "If you are
# pregnant, avoid ...", "When taking warfarin, steer clear of ...".
_CONDITIONS = frozenset({"if", "when", "while"})
_CONDITION_TOKENS = 10
# Setting words both name that show the thing is named there too ("acupuncture",
# "warfarin"): a thing can be part of its setting ("can have acupuncture safely").
_SETTING_SHARED = 2
# Verbs of taking and using that every setting of a medicine or a device names.
_USING = frozenset({"use", "using", "us", "tak", "take", "keep", "giv", "give", "given"})
# Prefix length at which two words count as one (pregnant, pregnancy).
_FOLD = 6


def _fold(words: set[str]) -> set[str]:
    return {w[:_FOLD] for w in words if not w.startswith("~") and w not in _USING}


def _setting(tokens: Sequence[str], i: int) -> set[str]:
    """The first few content words after ``tokens[i]``, folded."""
    found: set[str] = set()
    for tok in tokens[i + 1 : i + 1 + _SETTING_TOKENS]:
        found |= _fold(content_keys([tok]))
        if len(found) >= _SETTING_WORDS:
            break
    return found


@dataclass(frozen=True)
class AdviceReading:
    """Where a text calls a thing safe and where it advises against it (folded keys)."""

    safe: frozenset[str]
    against: frozenset[str]
    words: frozenset[str]  # every content key of the text, folded


def _advises_against(tokens: Sequence[str], i: int) -> bool:
    """``tokens[i]`` opens advice against what follows: "avoid", "advises against",
    "should not", "not recommended", "leave ... alone", "steer clear of", or a sentence
    that opens with "do not" / "don't" / "never"."""
    tok = tokens[i]
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    return (
        tok in _AGAINST
        or (tok in _AVOIDED and not _AVOIDED_AFTER.isdisjoint(tokens[max(0, i - 2) : i]))
        or (tok in _AGAINST_AFTER and nxt == "against")
        or (tok in _MODALS and nxt in ("not", "never"))
        or (tok == "not" and nxt in ("recommended", "advised"))
        or (tok == "leave" and "alone" in tokens[i + 2 : i + 2 + _LEAVE_ALONE_REACH])
        or list(tokens[i : i + 3]) in _CLEAR_OF
        or (i == 0 and (tok in _IMPERATIVE_NOT or (tok == "do" and nxt in ("not", "never"))))
    )


def _subject(tokens: Sequence[str], i: int) -> set[str]:
    """The setting named before the advice at ``tokens[i]``, folded: a condition that
    opens the sentence ("If you take warfarin, stay away from ..."), or a modal's subject
    ("anyone on warfarin should ..."); nothing where neither stands there or a clause
    ends first."""
    if tokens[0] in _CONDITIONS and 0 < i <= _CONDITION_TOKENS:
        # "If you take warfarin, stay away from glucosamine": the condition is the setting
        return _fold(content_keys(tokens[1:i]))
    at = i - 1 if i and tokens[i - 1] in _MODALS else i if tokens[i] in _MODALS else -1
    if at <= 0:
        return set()
    start = max(0, at - _SUBJECT_TOKENS)
    for j in range(at - 1, start - 1, -1):
        if tokens[j] in ("that", "and", "but", "if", "because", "so", "is", "are"):
            start = j + 1
            break
    return _fold(content_keys(tokens[start:at]))


# Negated modals of advice and the verbs of advising after "we do not" ("we do not
# recommend cereal rye on heavy clay").
_NEGATED_MODALS = frozenset({"shouldn't", "mustn't"})
_ADVISING = frozenset({"recommend", "advise", "suggest"})
# "are not appropriate", "is not for", "are not recommended": who a thing is not for.
_COPULAS = frozenset({"is", "are", "be"})
_UNSUITED = frozenset({"appropriate", "recommended", "suitable", "advised", "advisable",
                       "meant", "intended", "for"})  # fmt: skip
_WHOM_AFTER = _CONDITIONS | {"where", "unless", "who", "whose"}
_SUITS = frozenset({"suited", "suits", "suitable", "unsuitable"})
# Words after which a "do not" is an imperative: "so", "please", "then", "and".
_IMPERATIVE_AFTER = frozenset({"so", "please", "then", "and"})
# Verbs of neglect: advised against, they urge the thing ("should not be overlooked").
_NEGLECTING = frozenset(
    {"overlooked", "ignored", "dismissed", "underestimated", "missed", "forgotten",
     "neglected", "overlook", "ignore", "dismiss", "underestimate", "miss", "forget",
     "neglect"}
)  # fmt: skip
# Verbs an imperative "do not" tells a reader not to do.
_DOING = frozenset(
    {"take", "use", "give", "start", "stop", "apply", "eat", "drink", "drive", "put", "try",
     "exceed", "rely", "offer", "prescribe", "allow", "combine", "mix", "leave", "let",
     "share", "wear", "buy", "skip", "swap", "switch", "plant", "spray", "feed", "sow",
     "store", "fit", "install", "run", "book", "expect", "assume", "delay", "wait", "ignore",
     "go", "be", "do", "make", "keep", "send", "sign", "pay", "reduce", "cut", "increase",
     "add", "remove", "place", "roster", "schedule", "sleep", "lie", "sit", "stand"}
)  # fmt: skip
# Words that make a text advice: modals of advice, verbs of advising, "avoid".
_ADVICE_WORDS = frozenset(
    {"should", "must", "shouldn't", "mustn't", "ought", "recommend", "recommends",
     "recommended", "advise", "advises", "advised", "avoid", "offer", "never"}
)  # fmt: skip


def prohibits(tokens: Sequence[str], i: int) -> bool:
    """The negation cue at ``tokens[i]`` advises against something, it denies no finding:
    "should not be started on a statin", "must not take naltrexone", "Do not use
    Saccharomyces boulardii in ...", "we do not recommend cereal rye ..." (decision
    0138)."""
    tok = tokens[i]
    before = tokens[i - 1] if i else ""
    ahead = tokens[i + 1 : i + 3]
    if not _NEGLECTING.isdisjoint(ahead):
        # "headache should not be overlooked" urges attention, it advises against no use
        return False
    if tok in _NEGATED_MODALS or (tok in ("not", "never") and before in _MODALS | {"ought"}):
        return True
    if tok in _IMPERATIVE_NOT and (not i or before in _IMPERATIVE_AFTER):
        return True
    if (
        tok == "not"
        and before in _COPULAS
        and tokens[i + 1 : i + 2] != []
        and (tokens[i + 1] in _UNSUITED)
    ):
        # who it is not for: "best suited to young people who have accepted
        # responsibility ..., and are not appropriate where ..." (decision 0144)
        return True
    if tok != "not" or before != "do":
        return False
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    # the sentence's start, or after a condition that opens it ("If you have kidney
    # disease, do not take ...")
    opens = i < 2 or tokens[i - 2] in _IMPERATIVE_AFTER or tokens[0] in _CONDITIONS
    # a text that opens "do not" may be a clause whose subject was cut off ("do not
    # cause any loss of smell"): an imperative only with a verb of doing
    return (opens and nxt in _DOING) or nxt in _ADVISING


def prohibition_only(tokens: Sequence[str]) -> bool:
    """Every negation cue of ``tokens`` advises against something (`prohibits`), and
    there is one; a cue in a condition that opens the advice says to whom it is given
    ("If you are over ninety and have never had a fall, you should not be started on
    ...")."""
    cues = [i for i in range(len(tokens)) if is_cue(tokens, i)]
    advice = [i for i in cues if prohibits(tokens, i)]
    if not advice:
        return False
    condition = tokens[0] in _CONDITIONS or tokens[0] == "unless"
    # a cue in the condition after it says to whom too ("not appropriate where the young
    # person denies the offence or the victim has asked for no contact": decision 0144)
    after = next(
        (k for k in range(advice[0] + 1, len(tokens)) if tokens[k] in _WHOM_AFTER), len(tokens)
    )
    return all(i in advice or (condition and i < advice[0]) or i > after for i in cues)


def gives_advice(tokens: Sequence[str]) -> bool:
    """The text advises: a modal of advice, a verb of advising, "avoid", or an imperative
    that opens it."""
    return (
        not _ADVICE_WORDS.isdisjoint(tokens)
        or tokens[:1] == ["do"]
        # who a thing is for ("This guide is for people who have had a stroke": 0144)
        or not _SUITS.isdisjoint(tokens)
        or any(tok in _COPULAS and tokens[i + 1 : i + 2] == ["for"] for i, tok in enumerate(tokens))
    )


def advice_beside_a_finding(hypothesis: Sequence[str], sentence: Sequence[str]) -> bool:
    """One text's only negation advises against something and the other gives no advice:
    "do not give intravenous iron to a patient with an active infection" says nothing
    against "intravenous iron cuts the risk of dying ... by around a fifth", nor "if
    you're over eighty-five ... you should not be started on a statin" against a trial's
    finding (decision 0138). Advice against a use called safe is `safe_against_advised`'s."""
    return any(
        prohibition_only(negated) and not gives_advice(other)
        for negated, other in ((hypothesis, sentence), (sentence, hypothesis))
    )


def read_advice(tokens: Sequence[str]) -> AdviceReading:
    safe: set[str] = set()
    against: set[str] = set()
    for i, tok in enumerate(tokens):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if tok == "safely" and i:
            # "patients on warfarin can have acupuncture perfectly safely": the setting
            # comes before
            safe.update(_fold(content_keys(tokens[max(0, i - _SETTING_TOKENS // 2) : i])))
        elif tok in _SAFE and (tok not in _SAFE_BEFORE or nxt in ("to", "for")):
            negated = any(is_cue(tokens, j) for j in range(max(0, i - _CUE_REACH), i))
            (against if negated else safe).update(_setting(tokens, i))
        elif _advises_against(tokens, i):
            against.update(_setting(tokens, i) | _subject(tokens, i))
    words = _fold(content_keys(tokens))
    return AdviceReading(frozenset(safe), frozenset(against), frozenset(words))


def safe_against_advised(hypothesis: AdviceReading, sentence: AdviceReading) -> bool:
    """One text calls a thing safe in a setting where the other advises against it: the
    two name a word of that setting (a bedroom, a pregnancy, children) after their words
    of safety and advice, and a word besides it (the thing: ionisers, magnesium), or two
    words of it (decision 0104)."""
    for safe, against in ((hypothesis, sentence), (sentence, hypothesis)):
        setting = safe.safe & against.against
        if len(setting) >= _SETTING_SHARED or (setting and (safe.words & against.words) - setting):
            return True
    return False
