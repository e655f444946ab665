"""Numbers and their units, as the heuristic stance judge (`nli_heuristic`) compares them.

A number is read with the unit word that follows it ("5 hours", "12%", "30 percent"),
or the currency sign before it ("£1,150 per metre": pounds), or what it counts before
"to" ("limits calories to 800"), or, after "is" / "was", as a stated value. A range
("5-7 hours", "five to seven years") is one interval. A number in words counts when a
unit follows it ("two weeks", "five to seven years"): alone ("two of them", "the first
two") it is no measurement. "million", "billion", "m", "bn" after a number scale it.

The stemmer lives here too: the judge's content words and the units share it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Final

from lyra.pipelines.evidence.leftovers import lexicon_readings
from lyra.pipelines.evidence.nli_halves import SAID, half_share, looks_plural
from lyra.pipelines.evidence.nli_words import ATTRIBUTION_TEXT, STOPWORDS_TEXT, UNIT_SYMBOLS

# A number of the hypothesis is matched by one of the sentence within 10 % of the larger.
NUMBER_TOLERANCE = 0.10
PERCENT_WORDS = frozenset({"percent", "pct", "percentage"})
RANGE_JOINERS = frozenset({"to", "-"})
# Units of time (stems) and the prepositions that make such a number the time of an
# event rather than the quantity a sentence measures, with the words that may stand
# between them ("after about 2 years", "within the first 6 weeks").
TIME_UNITS = frozenset({"second", "minut", "hour", "day", "week", "month", "year", "decad"})
# "for" is none: "for at least 12 weeks" is a span, as "should last 4 to 6 weeks" and "6
# weeks" are (decision 0122).
_TIME_PREPOSITIONS = frozenset(
    {"after", "over", "within", "during", "in", "at", "before", "from", "since"}
)
_NUMBER_HEDGES = frozenset(
    {"about", "around", "approximately", "roughly", "nearly", "almost", "only", "just",
     "some", "up", "to", "the", "first", "last", "next", "least", "more", "than", "less",
     "between"}
)  # fmt: skip
# Verbs after which a number without a unit is the value of what they follow.
_STATED_AS = frozenset({"is", "was", "are", "were", "equals", "equalled", "equaled"})
# Verbs of change a number can follow after "to" ("rose to 800", "went up to 20").
_CHANGED_TO = frozenset({"rose", "fell", "grew", "went", "came", "rise", "fall", "grow", "go"})
# Numbers in words: values only where a unit follows them.
CARDINALS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90,
}  # fmt: skip
# The teens CARDINALS leaves out, read only as counts a share is of ("in fourteen
# months" is no count of anyone, and the contradiction rules compare bare numbers).
_TEENS: Final = {"thirteen": 13, "fourteen": 14, "sixteen": 16, "seventeen": 17,
                 "eighteen": 18, "nineteen": 19}  # fmt: skip
_SCALES = {
    "hundred": 1e2, "thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6,
    "billion": 1e9, "bn": 1e9, "trillion": 1e12,
}  # fmt: skip
# Only after a currency sign are "m" and "k" scales ("£2m"); elsewhere "m" is metres.
_WORD_SCALES = frozenset({"hundred", "thousand", "million", "billion", "trillion"})
# What a sum is paid for: "£1,150 per metre", "$40 a month", "£1,900 for every metre".
_RATE_WORDS = frozenset({"per", "a", "an", "each", "every"})
CURRENCY_SIGNS = frozenset({"£", "$", "€"})
# Stems of currency names after a number ("300 dollars"), as their signs.
_CURRENCY_NAMES = {"dollar": "$", "euro": "€"}
# The judge's stop words, attribution included: "12 researchers said" names no unit.
_STOPWORDS = frozenset(STOPWORDS_TEXT.split()) | frozenset(ATTRIBUTION_TEXT.split())
_SUFFIXES = ("ingly", "edly", "ies", "ing", "ed", "es", "ly", "s")
_MIN_STEM = 3

_SYMBOLS = frozenset(UNIT_SYMBOLS.values()) | {"sd", "ci", "hr", "or", "rr"}

# unit -> [(low, high, index of the number's first token)]
Measures = dict[str, list[tuple[float, float, int]]]


# "sickness" and "sick days" name one thing: a noun in "-ness" of a known adjective
# stems as the adjective (decision 0105).
_NESS = "ness"
_NESS_MIN_BASE = 3


# Words met by the rules repeat across a task's pairs (a claim meets each fragment, a
# fragment each claim): each is stemmed once. Bounded: a page of rare tokens cannot grow it.
_STEMS_KEPT = 1 << 16


@functools.lru_cache(maxsize=_STEMS_KEPT)
def stem(word: str) -> str:
    """Light suffix stripping so inflections of one word share a stem."""
    if len(word) <= _MIN_STEM or not word.isalpha():
        return word
    if word.endswith(_NESS) and len(word) - len(_NESS) >= _NESS_MIN_BASE and word != "business":
        base = word[: -len(_NESS)]
        base = base[:-1] + "y" if base.endswith("i") else base  # "tidiness": "tidy"
        if "ADJ" in lexicon_readings(base):
            word = base
    for suffix in _SUFFIXES:
        if not word.endswith(suffix) or len(word) - len(suffix) < _MIN_STEM:
            continue
        if suffix == "s" and word.endswith(("ss", "us", "is")):
            break
        if suffix == "ly" and len(word) - 2 < 5:
            # "family", "only": too short to be an adverb in -ly.
            break
        if suffix == "ly" and word.endswith("fly") and "ADV" not in lexicon_readings(word):
            break  # "whitefly", "butterfly": a fly, no adverb (decision 0145)
        if suffix == "es" and word.endswith("ees"):
            # "bumblebees", "employees", "degrees": the plural of a word in "-ee", which
            # stems as the singular does (decision 0123)
            suffix = "s"
        word = word[: -len(suffix)] + ("i" if suffix == "ies" else "")
        break
    if len(word) > _MIN_STEM and word.endswith("e"):
        word = word[:-1]
    if len(word) > _MIN_STEM and word.endswith("y"):
        word = word[:-1] + "i"
    return word


def number(token: str) -> float | None:
    """The value of a digit token ("12", "1,000", "12%"), None for any other token."""
    raw = token.rstrip("%")
    if not raw or not raw[0].isdigit():
        return None
    # "1,000" is a thousands separator here; European decimal commas are rare in the
    # English sources this fallback serves.
    try:
        return float(raw.replace(",", ""))
    except ValueError:
        return None


def _unit_word(token: str) -> bool:
    return token.isalpha() and token not in _STOPWORDS and token not in _WORD_SCALES


# Words between a number and what it counts that say it is counted over something else:
# "1.2 additional symptom-free days" and "five extra symptom-free days" count days.
_COUNTED_OVER = frozenset({"additional", "extra", "more", "fewer", "further", "excess"})


# Words between a number and what it counts that say they are apart: "three separate
# face-to-face conferences" counts conferences (decision 0109).
_APART = frozenset({"separate", "distinct", "individual", "different"})


def _past_counted_over(tokens: Sequence[str], i: int) -> int:
    """``i``, or past "additional" / "extra" / "more" / "separate" and a compound joined
    by hyphens there to the word they qualify ("face-to-face conferences")."""
    counted_over = i + 1 < len(tokens) and tokens[i] in _COUNTED_OVER
    if counted_over and _unit_word(tokens[i + 1]):
        return i + 1
    j = i + 1 if i < len(tokens) and tokens[i] in _APART else i
    while (
        j + 2 < len(tokens)
        and tokens[j].isalpha()
        and tokens[j + 1] == "-"
        and tokens[j + 2].isalpha()
    ):
        j += 2
    if j != i and j + 1 < len(tokens) and _unit_word(tokens[j + 1]):
        return j + 1
    return j if j != i and tokens[i] in _APART else i


def counts_a_value(tokens: Sequence[str], i: int) -> bool:
    """The number word ``tokens[i]`` is a value: a unit or the other end of a range
    follows it ("two weeks", "two million", "five to seven years"), not "two of"."""
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    if nxt in _COUNTED_OVER and i + 2 < len(tokens) and _unit_word(tokens[i + 2]):
        return True
    if nxt in RANGE_JOINERS and i + 2 < len(tokens) and tokens[i + 2] in CARDINALS:
        return True
    if nxt == "and" and i and tokens[i - 1] == "between" and i + 2 < len(tokens):
        # "between four and six weeks"
        return tokens[i + 2] in CARDINALS or number(tokens[i + 2]) is not None
    return (_unit_word(nxt) and nxt not in CARDINALS) or nxt in _WORD_SCALES


def _time_preposition(tokens: Sequence[str], i: int) -> str:
    """The preposition that makes the duration beginning at ``tokens[i]`` the time of an
    event ("after about 2 years", "over 8 years", "within 6 weeks"), or ""."""
    j = i - 1
    while j >= 0 and (
        tokens[j] in _NUMBER_HEDGES or (tokens[j] == "at" and tokens[j + 1] in ("least", "most"))
    ):
        # "for at least 12 weeks": "at" there is a bound, not the time of an event
        j -= 1
    return tokens[j] if j >= 0 and tokens[j] in _TIME_PREPOSITIONS else ""


def _counted_before(tokens: Sequence[str], i: int) -> bool:
    """The number at ``i`` follows "<noun> to" ("calories to 800"), not a verb of change
    ("rose to 800")."""
    if i < 2 or tokens[i - 1] != "to":
        return False
    word = tokens[i - 2]
    return (
        word.isalpha()
        and word not in _STOPWORDS
        and word not in _CHANGED_TO
        and not word.endswith(("ed", "ing"))
    )


# "1 in 100", "one in every ten thousand", "3 out of 10": a share, read as a percentage.
_SHARE_SKIP = frozenset({"every", "each", "a"})
_SHARE_JOINS = frozenset({"in", "out"})
# one of whom a share counts, between its numerator and "in" ("one child in four",
# "1 patient in 10": decision 0106)
SHARE_NOUNS = frozenset(
    {"child", "person", "patient", "adult", "woman", "man", "user", "worker", "household",
     "participant", "pupil", "driver", "officer", "baby", "infant", "student", "customer"}
)  # fmt: skip
# Stock counted "per" so many, a share too ("fewer than 2 cases per 1,000 cows per year");
# not "for every" (at least one brush "for every 60 cows" is a ratio): decision 0143.
_STOCK = frozenset({"cow", "ewe", "lamb", "pig", "hen", "animal", "horse", "dog", "heifer",
                    "steer"})  # fmt: skip
_EVENTS = frozenset({"case", "cases", "injury", "injuries", "death", "deaths", "incident",
                     "incidents", "report", "reports", "episode", "episodes"})  # fmt: skip


# "one new wearer in four", "one first-time user in eight": one of whom, in words
_ONE = frozenset({"one", "1"})
_ONE_OF_WHOM = re.compile(r"(?:[a-z]{2,} ){0,2}[a-z]{3,} in(?: \S+){0,2}")
_TIMES = frozenset({"second", "minute", "hour", "day", "night", "week", "month", "year"})


def one_of_whom(tokens: Sequence[str], i: int) -> int:
    """Where "in" stands when ``tokens[i]`` opens "one new wearer in", "one first-year
    pupil in", with who between; 0 for none."""
    if tokens[i] not in _ONE:
        return 0
    words = [k for k in range(i + 1, min(len(tokens), i + 7)) if tokens[k] != "-"][:4]
    if not _ONE_OF_WHOM.fullmatch(" ".join(tokens[k] for k in words)):
        return 0
    return next(k for k in words if tokens[k] == "in")


def per_group(tokens: Sequence[str], j: int) -> int:
    """Where the count after "per" stands when ``tokens[j:]`` reads "[up to three words]
    per M <people>": "one complaint logged per 200 households", "3 falls per 1,000
    patients" (a share of a group, decision 0113); not "5 mg per 10 kg"; "for every"
    read as "per", up to eight words after the numerator ("9 injuries requiring first aid
    or medical treatment for every 1,000 people": decision 0129); 0 for none."""
    every = False
    for k in range(j, min(len(tokens), j + _FOR_EVERY_REACH + 1)):
        if tokens[k] == "per" and k <= j + _PER_REACH:
            break
        if tokens[k : k + 2] == ["for", "every"]:
            k, every = k + 1, True
            break
        if not tokens[k].isalpha() or _people(tokens[k]):
            # people counted per people are a ratio: "1 extra adult per 20 children"
            return 0
    else:
        return 0
    denominator = _count_at(tokens, k + 1)
    if denominator is None or denominator[1] >= len(tokens):
        return 0
    noun = tokens[denominator[1]]
    # "per 100 people" stays a rate, not a share (a share would meet "24% less likely")
    counted = noun.removesuffix("s")
    # stock only where what is counted is an event ("2 cases per 1,000 cows"), not a
    # measure ("41 kg per 100 cows per month")
    stock = counted in _STOCK and not _EVENTS.isdisjoint(tokens[j:k])
    return k + 1 if (_people(noun) if every else counted in SHARE_NOUNS or stock) else 0


_PER_REACH = 3
_FOR_EVERY_REACH = 8
# "19 of the 60 people who answered", "3 of our 25 patients" (decision 0113)
_OF_DETERMINERS = frozenset({"the", "our", "their", "those", "these", "all", "my"})
_PEOPLE_PLURALS = frozenset(
    {"people", "children", "women", "men",
     # and as people call one another ("Three of the five ladies in my Thursday knitting
     # group": decision 0137)
     "ladies", "lads", "kids", "mums", "dads", "girls", "boys", "folk", "blokes", "mates",
     "friends", "neighbours", "neighbors", "colleagues", "pensioners",
     # and by their work ("four of the six English teachers": decision 0147)
     "teachers", "nurses", "carers", "doctors"}
)  # fmt: skip


# Holdings a grower or keeper counts as people are counted: "Four of the twelve
# greenhouses on our site ... ended up with spider mite" (decision 0133).
_HOLDINGS: Final = frozenset(
    {"greenhouses", "farms", "herds", "flocks", "hives", "colonies", "plots", "allotments",
     "gardens", "orchards", "polytunnels", "holdings", "yards", "stables", "kennels",
     # "Three of the four beds on our side of the valley silted up" (decision 0139)
     "beds", "ponds", "wetlands"}
)  # fmt: skip
# Before the count, words that make the holdings where, not who: "in 9 of the 52 gardens".
_WHERE_IN: Final = (["in"], ["at"], ["on"], ["across"], ["from"])


_ANIMALS: Final = frozenset({"horses", "ponies", "cows", "ewes", "sheep", "lambs", "calves",
                             "pigs", "hens", "dogs", "cats", "goats", "cattle", "ducks",
                             "geese", "chickens", "birds"})  # fmt: skip


def _own_stock(word: str) -> bool:
    """``word`` is a plural of things a witness keeps, not of times or occasions ("26
    trees", not "5 years" or "four hearings")."""
    return (
        word.isalpha()
        and word.endswith("s")
        and word.removesuffix("s") not in _TIMES
        and word not in _OCCASIONS
    )


# Occasions the witness was at, no stock of theirs: "at two of my four hearings" (0144).
_OCCASIONS: Final = frozenset({"hearings", "sessions", "visits", "meetings", "appointments",
                               "lessons", "classes", "shifts", "runs", "trips", "matches",
                               "games", "times", "rounds", "cycles", "doses"})  # fmt: skip


def _people(word: str) -> bool:
    return word in _PEOPLE_PLURALS or word.removesuffix("s") in SHARE_NOUNS


def described(tokens: Sequence[str], at: int) -> bool:
    """``tokens[at]`` is one word describing the plural noun right after it ("English
    teachers", "Texel lambs")."""
    return (
        at < len(tokens)
        and tokens[at].isalpha()
        and not looks_plural(tokens[at])
        # not how they came to be counted: "133 of 136 randomised children"
        and not tokens[at].endswith("ed")
        and tokens[at] not in _OF_DETERMINERS
        and tokens[at] not in ("of", "in", "on", "at", "and", "or", "to")
        and tokens[at + 1 : at + 2] != []
        and tokens[at + 1].isalpha()
        and looks_plural(tokens[at + 1])
    )


def of_so_many(tokens: Sequence[str], j: int) -> int:
    """Where the count stands when ``tokens[j:]`` reads "of [the] M <people>" after a
    numerator; 0 for none ("2 of the 10 studies" counts no people)."""
    if tokens[j : j + 1] != ["of"]:
        return 0
    k = j + 1
    while k < len(tokens) and tokens[k] in _OF_DETERMINERS:
        k += 1
    count = _count_at(tokens, k)
    if count is None or count[1] >= len(tokens):
        return 0
    noun_at = count[1]
    if described(tokens, noun_at):
        noun_at += 1  # one word describing them: "four of the six English teachers" (0147)
    noun = tokens[noun_at]
    # "Three of the five of us in my flat" (decision 0135)
    if _people(noun) or (noun == "of" and tokens[count[1] + 1 : count[1] + 2] == ["us"]):
        return k
    # things counted earlier in the sentence, what befell them next: "sent off six packets
    # ... and five of the six came back with next to nothing alive in them" (0139)
    if noun_counted_earlier(tokens, k) is not None:
        return k
    # the animals in the witness's place ("Three of the five horses on our yard"), not "the
    # five tables in my room"; what the witness did with them ("the five jobs I reported")
    after = tokens[noun_at + 1 : noun_at + 3]
    if (
        noun in _ANIMALS
        and after[:1] in (["on"], ["in"], ["at"])
        and after[1:] in (["our"], ["my"])
    ) or (after[:1] in (["i"], ["we"]) and after[1:2] and after[1].endswith("ed")):
        return k  # (decision 0141)
    if (
        after[:1] in (["we've"], ["i've"])
        and after[1:2]
        and (after[1] == "had" or after[1].endswith("ed"))
    ):
        return k  # those the witness has had: "Three of the four llamas we've had" (0146)
    if noun in _ANIMALS and tokens[k - 1] in ("our", "my"):
        return k  # the witness's own: "they'd had 23 of our 40 ducks" (decision 0142)
    if tokens[k - 1] in ("our", "my") and _own_stock(noun):
        # whatever the witness keeps: "the voles ringbarked nine of my twenty-six trees"
        # (decision 0144)
        return k
    # holdings as those counted, not where: "entered at least once in 9 of the 52 gardens"
    return k if noun in _HOLDINGS and tokens[max(0, j - 2) : j - 1] not in _WHERE_IN else 0


# What befell so many of the things counted before ("five of the six came back ...").
_BEFELL: Final = frozenset(
    {"came", "were", "had", "failed", "died", "turned", "ended", "showed", "went", "got"}
)


def noun_counted_earlier(tokens: Sequence[str], k: int) -> int | None:
    """Where the noun stands that the count at ``tokens[k]`` counted earlier in the
    sentence, when a verb of what befell them follows the count with no noun of its own
    ("sent off six packets ..., and five of the six came back ..." : the "packets");
    None for none."""
    if tokens[k + 1 : k + 2] == [] or tokens[k + 1] not in _BEFELL or number(tokens[k]) is None:
        return None
    earlier = next((i for i in range(k - 1) if tokens[i] == tokens[k]), None)
    if (
        earlier is None
        or not tokens[earlier + 1 : earlier + 2]
        or not tokens[earlier + 1].isalpha()
    ):
        return None
    return earlier + 1


# How far past the group "out of" names its count may stand: "Out of the nine of us in
# my Tuesday knee class who got fitted with these braces, three ended up ...".
_OUT_OF_REACH = 16
_OF_THEM_REACH = 28
_OUT_OF_DETERMINERS = frozenset({"the", "our", "my", "those", "these", "all"})


def out_of_first(tokens: Sequence[str], i: int) -> tuple[float, int] | None:
    """A share that names its group first, at ``tokens[i]`` ("out", or a sentence's
    opening "of"): "out of the nine of us ..., three ended up ..." (decision 0129), "Of
    the six flats in our block that got one ..., four ended up ..." (0140) as a
    percentage, and where its count stands; None for none. Only at a sentence's start,
    or where nothing counts before."""
    if i and number(tokens[i - 1]) is not None:
        return None  # "3 out of 10": `_share` reads it
    k = i + (1 if tokens[i] == "of" else 2)
    while k < len(tokens) and tokens[k] in _OUT_OF_DETERMINERS:
        k += 1
    group = _count_at(tokens, k)
    if group is None or group[0] < 2:
        return None
    for j in range(group[1] + 1, min(len(tokens), group[1] + 1 + _OF_THEM_REACH)):
        count = _count_at(tokens, j)
        if count is None:
            continue
        after = tokens[count[1] : count[1] + 1]
        if j > group[1] + _OUT_OF_REACH and tokens[count[1] : count[1] + 2] != ["of", "them"]:
            return None  # further on, only "17 of them" counts the group (decision 0142)
        if after in (["in"], ["out"], ["per"], ["percent"]):
            # "Of the 212 families ..., roughly one in three", "22 per cent": `_share` and
            # `measures` read them
            return None
        if count[0] < group[0] and not (after and stem(after[0]) in TIME_UNITS):
            return 100.0 * count[0] / group[0], j
        return None
    return None


def _count_at(tokens: Sequence[str], i: int) -> tuple[float, int] | None:
    """The count at ``tokens[i]`` in digits or words ("100", "ten thousand", "one"), and
    the index after it."""
    if i >= len(tokens) or tokens[i].endswith("%"):
        return None
    tok = tokens[i]
    value = 1.0 if tok == "one" else number(tok)
    if value is None and tok in CARDINALS:
        value = float(CARDINALS[tok])
    if value is None and tok in _TEENS:
        value = float(_TEENS[tok])  # a count of so many: "Fourteen keets" (decision 0147)
    if value is None and tok in _WORD_SCALES:  # "one in a thousand"
        return _SCALES[tok], i + 1
    if value is None:
        return None
    if i + 1 < len(tokens) and tokens[i + 1] in _WORD_SCALES:
        return value * _SCALES[tokens[i + 1]], i + 2
    return value, i + 1


# Ordinals as the count they stand for: "by the second summer", "every fifth house".
ORDINALS: Final = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
                   "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10}  # fmt: skip


# A share as a fraction of a group: "a third of my clients", "two fifths of the schools".
FRACTION_OF = {
    "half": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fifth": 5, "fifths": 5,
    "sixth": 6, "sixths": 6, "tenth": 10, "tenths": 10,
}  # fmt: skip


# What may stand between "a" and its fraction, saying it is at least that: "a good third".
FRACTION_HEDGES: Final = frozenset({"good", "full"})


def _share(tokens: Sequence[str], i: int) -> tuple[float, int] | None:
    """A share beginning at ``tokens[i]`` ("1 in 100", "one in every ten thousand", "3
    out of 10", "a third of": decision 0108) as a percentage, and the index after it
    (decision 0105)."""
    if half_share(tokens, i):
        return 50.0, i + 1
    # "a good third of our Chardonnay vines", "a full quarter of them" (decision 0137)
    k = i + 2 if tokens[i + 1 : i + 2] and tokens[i + 1] in FRACTION_HEDGES else i + 1
    if (
        tokens[k : k + 1]
        and tokens[k] in FRACTION_OF
        and (
            (tokens[k + 1 : k + 2] == ["of"] and tokens[k + 2 : k + 3] not in (["a"], ["an"]))
            or (tokens[k + 1 : k + 2] != [] and tokens[k + 1] in SAID)
        )
    ):
        # not part of one thing: "only a quarter of a degree or so cooler" (0130)
        count = 1.0 if tokens[i] in ("a", "one") else number(tokens[i])
        if count is not None and count < FRACTION_OF[tokens[k]]:
            return 100.0 * count / FRACTION_OF[tokens[k]], k + 1
    numerator = _count_at(tokens, i)
    if numerator is None:
        return None
    if tokens[numerator[1] : numerator[1] + 2] == ["of", "them"]:
        # not one of them ("where the owner lives in one of them")
        befell = numerator[0] > 1 and _befell_them(tokens, i, numerator[1] + 2)
        counted = them_counted(tokens, i) if befell else None
        if counted is None or counted <= numerator[0]:
            return None
        return 100.0 * numerator[0] / counted, numerator[1] + 2
    whom, of, per = False, 0, 0
    j = numerator[1]
    if tokens[j : j + 1] and tokens[j] in SHARE_NOUNS and tokens[j + 1 : j + 2] == ["in"]:
        j += 1
    elif at_in := one_of_whom(tokens, i):
        j, whom = at_in, True  # "one new wearer in four" (decision 0109)
    elif per := per_group(tokens, j):
        j = per - 1  # "one complaint per 200 households": "per" read as "in"
    elif of := of_so_many(tokens, j):
        j = of - 1  # "19 of the 60 people": what stands before the count read as "in"
    if tokens[j : j + 2] == ["out", "of"]:
        j += 2
    elif tokens[j : j + 2] == ["of", "every"]:
        j += 1  # "just 2 of every 100 fields" (decision 0142)
    elif tokens[j : j + 1] in (["in"], ["per"]) or of or per:
        j += 1
    else:
        return None
    while j < len(tokens) and tokens[j] in _SHARE_SKIP:
        j += 1
    denominator = _count_at(tokens, j)
    if denominator is None or denominator[0] <= numerator[0]:
        return None
    if (
        whom
        and tokens[denominator[1] : denominator[1] + 1]
        and (tokens[denominator[1]].rstrip("s") in _TIMES)
    ):
        return None  # "one dose in two weeks"
    if 1800 <= denominator[0] <= 2100 and (numerator[0] != 1 or whom) and "," not in tokens[j]:
        return None  # "3 in 2019": a count in a year
    return 100.0 * numerator[0] / denominator[0], denominator[1]


# What was done to so many of them, right before the count: "the foxes had eleven of them",
# or where it happened ("the link froze or cut out on four of them").
_DONE_TO: Final = frozenset({"had", "took", "lost", "got", "ate", "killed", "kept", "saved",
                             "on"})  # fmt: skip


def _befell_them(tokens: Sequence[str], i: int, after: int) -> bool:
    """The count at ``tokens[i]`` of "of them" (ending at ``after``) is what something
    befell: done to them ("had eleven of them", "lost three of them") or what they did
    ("two of them died"); not an aside ("six people ..., two of them inside the skull")."""
    return (bool(i) and tokens[i - 1] in _DONE_TO) or (
        tokens[after : after + 1] != [] and tokens[after] in _BEFELL
    )


def them_counted(tokens: Sequence[str], i: int) -> float | None:
    """How many "them" are, where the count at ``tokens[i]`` is "of them" and the nearest
    count before it in the sentence numbers a plural noun: "Fourteen keets went out last
    spring and the foxes had eleven of them" is of 14 (decision 0147); None for none."""
    for k in range(i - 1, -1, -1):
        if tokens[k] in (".", ";"):
            return None
        counted = _count_at(tokens, k)
        if counted is None:
            continue
        at = counted[1] + 1 if described(tokens, counted[1]) else counted[1]
        noun = tokens[at] if at < len(tokens) else ""
        plural = noun.isalpha() and looks_plural(noun) and noun.removesuffix("s") not in _TIMES
        return counted[0] if plural else None
    return None


def measures(tokens: Sequence[str]) -> Measures:
    """Numbers as (low, high, index) grouped by unit. A duration dated by a preposition
    counts under its unit and that preposition ("year after"): "pays back after about
    2 years" times an event, it does not measure what "last about 15 years" measures.
    Read once per token list while it is in use (decision 0112); the dict is the
    caller's own."""
    return dict(_measures(tuple(tokens)))


# nli_tokens.kept_per_tokens does this for the rules above this module; it cannot serve
# here (nli_tokens imports this module), nor hand each caller a dict of its own.
@functools.lru_cache(maxsize=8192)
def _measures(key: tuple[str, ...]) -> Measures:
    tokens = list(key)  # a list: the rules compare slices with lists
    found: Measures = {}
    # "one complaint logged per 200 households" (decision 0113), "9 injuries ... for
    # every 1,000 people" (decision 0129)
    per = "per" in key or "every" in key
    levels = any(
        _of_a_line(tokens, k)
        for k, t in enumerate(tokens)
        if t.endswith("%") or (t in PERCENT_WORDS and k and number(tokens[k - 1]) is not None)
    )
    start: float | None = None
    begins = 0
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        # a share's numerator comes right before "in" or "out of" (checked first: this
        # loop runs on every token of every stance pair)
        ahead = tokens[i + 1] if i + 1 < len(tokens) else ""
        share = (
            _share(tokens, i)
            if start is None
            and (
                ahead in _SHARE_JOINS
                or ahead in SHARE_NOUNS
                or ahead in FRACTION_OF
                or ahead in FRACTION_HEDGES
                or half_share(tokens, i)
                or (tok in _ONE and ahead.isalpha())
                or (per and ahead.isalpha() and per_group(tokens, i + 1) > 0)
                or (ahead == "of" and of_so_many(tokens, i + 1) > 0)
                or (ahead == "of" and tokens[i + 2 : i + 3] == ["them"])
                or (ahead == "of" and tokens[i + 2 : i + 3] == ["every"])
            )
            else None
        )
        if share is not None:
            found.setdefault("%", []).append((share[0], share[0], i))
            i = share[1]
            continue
        # "Of the six flats ...", not "Of 100 over-75s ..." (a natural frequency)
        if ((tok == "out" and ahead == "of") or (tok == "of" and i == 0 and ahead == "the")) and (
            group_first := out_of_first(tokens, i)
        ):
            found.setdefault("%", []).append((group_first[0], group_first[0], group_first[1]))
            i = group_first[1] + 1
            continue
        value = number(tok)
        i += 1
        if value is None:
            continue
        low = value if start is None else min(start, value)
        high = value if start is None else max(start, value)
        if start is None:
            begins = i - 1
        start = None
        if tok.endswith("%"):
            # a level against a line, no share of anyone: "from 150% of the federal poverty
            # line to 250%" (decision 0144)
            unit = LEVEL if levels else "%"
            found.setdefault(unit, []).append((low, high, begins))
            continue
        if value.is_integer() and 1800 <= value <= 2100 and "," not in tok:
            continue
        if begins and tokens[begins - 1] in _NAMED_BY_NUMBER:
            continue  # a school year's name: "my Year 2s", "the Year 5 classes" (0144)
        over = _past_counted_over(tokens, i)
        nxt = tokens[over] if over < len(tokens) else ""
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if number(after) is not None and (
            nxt in RANGE_JOINERS or (nxt == "and" and begins and tokens[begins - 1] == "between")
        ):
            # First end of a range ("4 to 6 weeks", "between 4 and 6 weeks"): the unit
            # comes after the second end.
            start = value
            continue
        currency = tokens[begins - 1] if begins and tokens[begins - 1] in CURRENCY_SIGNS else ""
        currency = currency or _currency_code(tokens, begins, nxt)
        scale = _SCALES.get(nxt) if currency or nxt in _WORD_SCALES else None
        scaled = ""
        if scale:
            low, high, scaled = low * scale, high * scale, nxt
            i += 1
            nxt, after = after, (tokens[i + 1] if i + 1 < len(tokens) else "")
        if currency:
            found.setdefault(currency + _rate(tokens, i), []).append((low, high, begins))
            continue
        unit = (
            (LEVEL if levels else "%")
            if nxt in PERCENT_WORDS
            else (stem(nxt) if _unit_word(nxt) else scaled)
        )
        if _in_standard_deviations(tokens, over):
            unit = "sd"
        unit = _CURRENCY_NAMES.get(unit) or UNIT_SYMBOLS.get(unit, unit)
        if (not unit or unit == scaled) and _counted_before(tokens, begins):
            # "limits calories to 800 a day": what the number counts comes before it
            counted = stem(tokens[begins - 2])
            found.setdefault(UNIT_SYMBOLS.get(counted, counted), []).append((low, high, begins))
            continue
        if (not unit or unit == scaled) and begins and tokens[begins - 1] in _STATED_AS:
            # "the number needed to treat was 2.5": a value stated for what comes before
            found.setdefault("=", []).append((low, high, begins))
            continue
        if unit in TIME_UNITS:
            preposition = _time_preposition(tokens, begins)
            unit = f"{unit} {preposition}" if preposition else unit
        if unit:
            found.setdefault(unit, []).append((low, high, begins))
    return found


# Percentages of a line or a level, no shares: "250% of the federal poverty guidelines".
LEVEL: Final = "% of a line"
_LINES: Final = frozenset({"line", "level", "threshold", "guidelines", "guideline",
                           "median", "average", "wage"})  # fmt: skip
_LINE_REACH: Final = 5


def _of_a_line(tokens: Sequence[str], i: int) -> bool:
    """The percentage at ``tokens[i]`` is of a line or a level ("150% of the federal
    poverty line", "80% of the median wage")."""
    return tokens[i + 1 : i + 2] == ["of"] and not _LINES.isdisjoint(
        tokens[i + 2 : i + 2 + _LINE_REACH]
    )


# Words a number after names a thing, not a count of it: "Year 4", "Grade 3".
_NAMED_BY_NUMBER: Final = frozenset({"year", "grade", "stage"})


def _currency_code(tokens: Sequence[str], begins: int, after: str) -> str:
    """A currency's code before a sum that is a rate or scaled ("SM 1.20 per person per
    year", "OC 39 million"): two or three letters that are no stop word or unit symbol.
    Codes are as many as currencies, made-up ones included, so none is listed."""
    code = tokens[begins - 1] if begins else ""
    if not (2 <= len(code) <= 3 and code.isalpha()) or code in _STOPWORDS or code in _SYMBOLS:
        return ""
    return code if after in _RATE_WORDS or after in _SCALES else ""


def _in_standard_deviations(tokens: Sequence[str], i: int) -> bool:
    """An effect size in standard deviations follows at ``tokens[i]``: "0.17 standard
    deviations", "0.35 of a standard deviation", "0.2 SD" (one unit however written)."""
    if tokens[i : i + 2] in (["of", "a"], ["of", "an"]):
        i += 2
    if i < len(tokens) and tokens[i] in {"sd", "sds"}:
        return True
    return tokens[i : i + 1] == ["standard"] and tokens[i + 1 : i + 2] in (
        ["deviation"],
        ["deviations"],
    )


def _rate(tokens: Sequence[str], i: int) -> str:
    """ "/metr" for the sum before ``tokens[i]`` when "per metre", "a month" or "for every
    metre" follows it; "" for a plain sum."""
    if i < len(tokens) and tokens[i] == "for":
        i += 1
    if i + 1 < len(tokens) and tokens[i] in _RATE_WORDS and _unit_word(tokens[i + 1]):
        return "/" + stem(tokens[i + 1])
    return ""
