"""The word lists of the heuristic stance judge (`nli_heuristic`): words only.

Stop words, attribution, negated contractions typed without their apostrophe, the verbs
that date an event, month names, and the words of a null result and of a benefit; the
antonym axes are in `antonym_axes`.
"""

from __future__ import annotations

from typing import Final

STOPWORDS_TEXT = """
    a about above after again against all almost also am among an and any
    approximately are around as at be because been before being below between both but
    by can could did do does doing down during each either else etc even ever every
    few for from further had has have having he her here hers him his how however i if
    in into is it its itself just may me might most much must my nearly of off on once
    only or other our ours out over own per roughly same she should so some such than
    that the their theirs them then there these they this those though through thus to
    too under until up upon us very via was we were what when where whether which
    while who whom whose why will with within would yet you your
"""
# Attribution ("the researchers said that", "according to the authors") says who states a
# finding, not what it is: two reports of one finding share it whoever reports it.
ATTRIBUTION_TEXT = """
    said says say told according researchers researcher authors investigators
"""
NEGATED_CONTRACTIONS_TEXT = """
    aint arent cant couldnt didnt doesnt dont hadnt hasnt havent isnt shouldnt wasnt
    werent wont wouldnt
"""
EVENT_VERBS_TEXT = """
    took came enacted founded established introduced launched passed signed adopted
    ratified banned approved published opened began started ended died born discovered
    invented released
"""
MONTHS_TEXT = """
    january february march april may june july august september october november december
"""
# Words that name a trial's other arm: a share on placebo and a share on the drug are two
# findings ("12% of patients given the drug had headaches" and "30% given placebo").
ARMS: Final = frozenset(
    {"placebo", "placebos", "control", "controls", "sham", "dummy", "untreated", "pretend"}
)
# Words that name an arm kept to what it did before: "homes continuing usual activities",
# "the ones who'd just carried on with the normal activities timetable" (decision 0126).
AS_USUAL: Final = frozenset({"usual", "normal", "routine", "ordinary"})
# A null result ("no better than placebo", "no difference", "no benefit") bears on a
# claim that the same thing helps ("is enough to get the benefit", "works", "reduces"):
# the one denies what the other states, in other words (decision 0098).
NULL_RESULT: Final = frozenset({"better", "differenc", "effect", "benefit", "effectiv", "advantag"})
BENEFIT: Final = frozenset(
    {"benefit", "effectiv", "enough", "work", "help", "reduc", "reduction", "prevent", "protect"}
)


# A finding of no change (decision 0101): a null noun after "no" / "little" ("no real
# change in traffic noise", "little or no difference to the risk of a heart attack")
# names its outcome after it; a state of no change ("organic matter hasn't budged",
# "maintenance spending held steady", "function scores practically identical to",
# "noise was about the same") names it before. A steady, stable, flat, same or
# identical thing is a state of no change only after a verb of staying or a "nearly"
# ("held steady", "practically identical"): "a flat payment", "a steady trickle" are
# not. Stems, as ``nli_numbers.stem`` leaves them.
# "did not shorten ear pain by even a single day" finds no change in ear pain (0106)
# Also the verb "differ" and nouns of a benefit denied: "did not differ significantly",
# "no significant reduction in pain" (decision 0114); not "increase": "the barrier did
# not increase noise for homes opposite" is no finding that noise stayed the same.
NULL_NOUNS: Final = frozenset(
    {"chang", "differenc", "effect", "impact", "shift", "shorten", "differ", "reduction",
     "improvement", "dent"}
)  # fmt: skip
NULL_DETERMINERS: Final = frozenset({"no", "little", "negligible", "zero", "hardly", "barely"})
# "soreness ratings at the 24-hour mark were statistically indistinguishable from those
# of players who simply rested" (decision 0109)
NULL_STATES: Final = frozenset({"unchang", "unaffect", "unalter", "indistinguishabl"})
STAYED_STATES: Final = frozenset({"steadi", "stabl", "flat", "same", "identical"})
STAYING: Final = frozenset(
    {"is", "are", "was", "were", "stayed", "remained", "stays", "remains", "kept", "held",
     "practically", "virtually", "nearly", "almost", "essentially", "broadly", "largely",
     "roughly", "about"}
)  # fmt: skip
CHANGE_SIZES: Final = frozenset(
    {"half", "third", "thirds", "quarter", "fifth", "tenth", "twice", "double", "halved",
     "doubled", "tripled", "fold"}
)  # fmt: skip
CHANGE_DEGREES: Final = frozenset(
    {"markedly", "significantly", "substantially", "sharply", "considerably",
     "dramatically", "clearly", "far", "much", "greatly", "noticeably", "strongly"}
)  # fmt: skip
CHANGE_VERBS: Final = frozenset({"trim", "trimm", "slash", "halv", "lift", "shav", "worsen"})
# Words too general to show alone that two findings are about the same outcome.
GENERAL_OUTCOMES: Final = frozenset(
    {"risk", "rate", "level", "number", "amount", "use", "time", "peopl", "patient",
     "group", "year", "month", "week", "day", "result", "outcom", "valu", "chanc",
     "odd", "total", "overall", "averag", "effect", "differenc", "chang", "impact"}
)  # fmt: skip
# "rate", "time" and "overall" stand above unstemmed: their stems ("rat", "tim", "overal")
# are not general. Made general, "the rate of falls" lost its only specific word ("falls"
# is read as a direction) and a true contradiction with it (decision 0117).
# Who changed and how often: words a change of no stated size shares with a finding of
# no change about something else ("children", "often").
WHO_AND_HOW_OFTEN: Final = frozenset(
    {"children", "child", "adult", "women", "men", "peopl", "patient", "often", "frequenc",
     "need", "take", "us", "user"}
)  # fmt: skip

# A unit's name and its symbol count as one unit ("1 gram" against "2 g"; decision
# 0099): stems of the names, as ``nli_heuristic.stem`` leaves them.
UNIT_SYMBOLS: Final = {
    "gram": "g", "milligram": "mg", "microgram": "mcg", "kilogram": "kg", "kilo": "kg",
    "litr": "l", "liter": "l", "millilitr": "ml", "milliliter": "ml", "kilometr": "km",
    "kilometer": "km", "metr": "m", "meter": "m", "centimetr": "cm", "centimeter": "cm",
    "millimetr": "mm", "millimeter": "mm", "hectar": "ha", "calori": "kcal",
    "kilocalori": "kcal", "kelvin": "k", "decibel": "db",
}  # fmt: skip

# Whom a share may count or a finding is about, in any of the words writers give them
# (stems): shares of these are left to the other rules ("20% of patients" and "56% of
# participants" may count alike, decision 0115); no outcome is one of them ("the benefit
# for children in the poorest fifth", decision 0116).
PEOPLE: Final = frozenset(
    {"peopl", "person", "patient", "participant", "user", "customer", "adult", "child",
     "children", "women", "woman", "men", "man", "resident", "household", "respond",
     "respondent", "student", "pupil", "worker", "driver", "member", "recipient", "case",
     "client", "travel", "traveller", "smoker", "us", "them", "those"}
)  # fmt: skip


# One outcome in the words writers give it, as keys: "digestive side effects are rare"
# against "29 per cent reported stomach upset" (decision 0120). Read by the share rules
# and by the guard against findings about other outcomes.
OUTCOME_FOLDS: Final = {"digestiv": "stomach", "gastrointestinal": "stomach", "tummi": "stomach"}


def fold_outcome(keys: frozenset[str] | set[str]) -> frozenset[str]:
    """``keys`` with each word of `OUTCOME_FOLDS` as the one it folds to."""
    return frozenset(OUTCOME_FOLDS.get(key, key) for key in keys)
