"""Orders that advise as "should" does (decisions 0134, 0135): a sentence that opens with
an order to do or use a thing ("Apply the plaster for 12 hours ... and continue for at
least 4 weeks"), or with what it is for and then an order of a floor ("For field tomatoes
on light soils at full canopy, give at least 2.5 litres per plant per day"). Read by
`nli_enough` for the floor a text advises.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from lyra.pipelines.evidence.leftovers import lexicon_readings
from lyra.pipelines.evidence.nli_digits import number_or_word
from lyra.pipelines.evidence.nli_halves import looks_plural

# A sentence that opens with an order to do or use a thing advises it as "should" would:
# "Apply the plaster for 12 hours in every 24-hour period, once daily, and continue for at
# least 4 weeks", "Offer earplugs and an eye mask from the first night", "Plan for a
# stocking rate of at least 5 ewes per hectare" (decision 0134). A verb that is seldom a
# noun orders whatever follows it but a noun's "of" or a verb of being ("Release of the
# larvae was ..."); one that is often a noun ("Plan", "Use", "Rest") only where what
# follows opens its object or complement ("Plan costs rose" is no order).
_ORDERS: Final = frozenset({"apply", "continue", "offer", "give", "wear", "keep", "repeat",
                            "allow", "release", "graze", "reapply", "replace", "attend",
                            "spend", "schedule", "timetable", "take", "leave", "eat",
                            "begin", "wait", "practise",
                            # "Install at least 8 nest boxes per hectare" (0137)
                            "install", "provide", "sow", "erect", "mount",
                            # "Put up at least 10 boxes per hectare" (0138)
                            "put", "hang", "fix",
                            # "Scatter at least 2 kg of seed per hectare" (0140)
                            "scatter", "broadcast",
                            # "add at least 30 g of colloidal oatmeal to a child-sized
                            # bath" (0140)
                            "add", "soak", "rub", "dilute",
                            # "Dissolve at least 300 g of Epsom salt in a full bath"
                            # (0141)
                            "dissolve",
                            # "Roll bracken at least twice each summer" (0141)
                            "roll", "mow", "spray",
                            # "rinse gently with ... warm water at least four times a
                            # day" (0143)
                            "rinse", "gargle",
                            # "Move the fence to open a fresh strip at least every three
                            # days" (0143)
                            "move", "shift",
                            # "immerse your legs in water of 10 to 15°C for at least 10
                            # minutes" (0144)
                            "immerse", "dip"})  # fmt: skip
_ORDERS_OR_NOUNS: Final = frozenset({"plan", "use", "practice", "set", "run", "hold", "book",
                                     "rest", "space", "walk", "drink", "fit", "start",
                                     "stock",
                                     # "Spread at least 2 kg ..." (0140)
                                     "spread", "plant", "water", "feed"})  # fmt: skip
_ORDER_OPENS: Final = frozenset({"the", "a", "an", "your", "each", "every", "one", "it",
                                 "them", "for", "at", "on", "to", "in", "this", "these",
                                 "those", "up", "out", "with", "no", "all", "both",
                                 "between", "over"})  # fmt: skip
_NO_ORDER_AFTER: Final = frozenset({"of", "is", "was", "are", "were", "has", "had", "and", "or"})


def ordered(tokens: Sequence[str]) -> bool:
    """The text opens with an order to do or use a thing (`_ORDERS`, `_ORDERS_OR_NOUNS`),
    or with what it is for and then an order of a floor (`_ordered_after_setting`)."""
    if len(tokens) < 2:
        return False
    if tokens[0] in _ORDERS:
        return tokens[1] not in _NO_ORDER_AFTER
    if tokens[1] == "your" and _base_verb(tokens[0]):
        return True  # a verb's own form before "your": "Raise your dispute within" (0140)
    if tokens[1] in _OBJECT_DETERMINERS and _base_verb(tokens[0]) and _floor_follows(tokens):
        # or before its object's determiner, a floor after it: "Raise the head end of the
        # bed by at least 15 cm" (decision 0145)
        return True
    if (
        tokens[1:2] == ["and"]
        and _base_verb(tokens[0])
        and len(tokens) > 3
        and _base_verb(tokens[2])
        and tokens[3] in _OBJECT_DETERMINERS
    ):
        return True  # two orders, one object: "Empty and dry the tank every day" (0142)
    if tokens[0] in _ORDERS_OR_NOUNS:
        return (
            tokens[1] in _ORDER_OPENS
            or number_or_word(tokens[1]) is not None
            # "Use live willow rods at least 2 m long": a thing named after it (0140)
            or (tokens[0] == "use" and _a_thing_named(tokens))
        )
    return _ordered_after_setting(tokens)


_OBJECT_DETERMINERS: Final = frozenset({"the", "a", "an", "your", "each", "every", "it", "them",
                                        "this", "these", "those", "all", "both"})  # fmt: skip


def _floor_follows(tokens: Sequence[str]) -> bool:
    return any(
        tokens[j : j + 2] in (["at", "least"], ["minimum", "of"]) for j in range(2, len(tokens))
    )


def _base_verb(word: str) -> bool:
    """``word`` is a verb's own (base) form by the lexicon: "raise", "empty", "dry"."""
    return word in lexicon_readings(word).get("VERB", ())


_THING_REACH: Final = 4


def _a_thing_named(tokens: Sequence[str]) -> bool:
    """After an opening "Use", a plural noun comes within `_THING_REACH` words, or a noun
    "of at least" a measure ("Use fleece of at least 30 g/m2"), and no "of" or verb of
    being first ("Use of the scheme was ...")."""
    for k, tok in enumerate(tokens[1 : 1 + _THING_REACH], start=1):
        if tok == "of" and k > 1 and tokens[k + 1 : k + 3] == ["at", "least"]:
            return True  # "Use fleece of at least 30 g/m2" (decision 0146)
        if tok in _NO_ORDER_AFTER:
            return False
        if looks_plural(tok):
            return True
    return False


# "For field tomatoes on light soils at full canopy, give at least 2.5 litres per plant
# per day" (decision 0135): an opening setting, then an order of a floor. No verb of the
# setting's own stands before the order ("In the trial patients were given at least").
# A purpose opens one too: "To give acupressure bands a fair trial, wear one on each wrist
# for at least 12 hours a day" (decision 0139).
_SETTINGS: Final = frozenset({"for", "in", "on", "at", "during", "after", "before", "from", "to"})
_SETTING_REACH: Final = 12
_SETTING_VERBS: Final = frozenset(
    {"is", "are", "was", "were", "be", "been", "should", "must", "can", "could", "will",
     "would", "may", "might", "do", "does", "did", "has", "have", "had"}
)  # fmt: skip


# Orders read only after a setting, their object between them and the floor ("For
# lambing shelter, plant belts at least 15 metres wide").
_SET_ORDERS: Final = _ORDERS | {"plant", "provide", "sow", "fit", "install", "use", "send"}
# ("For drone direct seeding, apply a seed rate of at least 40 kg": decision 0137), after
# a purpose a few more ("wear it on the sore hand for at least": 0139)
_OBJECT_WORDS: Final = 4
_PURPOSE_OBJECT_WORDS: Final = 7


# A time the order is given for may have its own verb: "After both sides have submitted
# their evidence, allow at least 28 working days ..." (decision 0136).
_TIME_SETTINGS: Final = frozenset({"after", "once", "when", "before",
                                   # "Starting 24 hours after surgery, rinse ..." (0143)
                                   "starting", "beginning",
                                   # "If you choose to use cold-water immersion after
                                   # lifting, immerse your legs ..." (0144)
                                   "if"})  # fmt: skip
# Openings after which the order may run on to its floor.
_STARTING: Final = frozenset({"starting", "beginning", "if"})


def _ordered_after_setting(tokens: Sequence[str]) -> bool:
    if tokens[0] not in _SETTINGS | _TIME_SETTINGS:
        return False
    for k in range(2, min(len(tokens) - 2, _SETTING_REACH + 1)):
        if tokens[k] in _SETTING_VERBS and tokens[0] not in _TIME_SETTINGS:
            return False
        reach = _PURPOSE_OBJECT_WORDS if tokens[0] == "to" else _OBJECT_WORDS
        # after a time it starts from, the order may run on to its floor ("Starting 24
        # hours after surgery, rinse gently with half a teaspoon of salt ... at least four
        # times a day": decision 0143)
        if tokens[0] in _STARTING:
            reach = len(tokens)
        if tokens[k] in _SET_ORDERS and any(
            # "at least", or "a minimum of" ("For a crop-scale response, apply seaweed
            # extract at a minimum of 2 litres per hectare": decision 0143)
            tokens[j : j + 2] in (["at", "least"], ["minimum", "of"])
            for j in range(k + 1, min(len(tokens), k + 2 + reach))
        ):
            return True
    return False
