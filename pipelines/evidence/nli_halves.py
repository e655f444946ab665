"""Half of those counted, and what marks a plural noun, as the share rules (`nli_shares`,
`nli_numbers`) read them: "half the owl boxes", "about half my Year 4s", "Half my Year 10
set were in a right state", a bare "well over half ended up ...". Moved out of
`nli_numbers` as it passed STYLE's 40 KB (decision 0148); the readings are the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

# "half the owl boxes", "about half the mums", "half my patients": half of a group named
# in the plural; not "half the dose", "half the time" or "half the price" (amounts), nor
# "half the size" (decision 0132).
_HALF_REACH = 2  # words from "the" to the plural noun: "half the owl boxes"
_MANY: Final = frozenset({"people", "children", "men", "women", "kids", "folk"})
# Half of a group named by one noun of many, after "the" or whose it is: "Half my Year 7
# catch-up group were gazing out of the window", "half the class" (decision 0134).
_THE_OR_WHOSE: Final = frozenset({"the", "my", "our", "his", "her", "their", "your"})
_GROUPS: Final = frozenset({"group", "class", "team", "herd", "flock", "cohort", "ward",
                            "unit", "crew", "squad", "form", "tutorial", "caseload",
                            # a school's teaching set: "Half my Year 10 set" (0148)
                            "set"})  # fmt: skip
_GROUP_REACH = 6  # words from "the" to the group noun: "my Year 7 catch-up group"
_SETTING_BACK: Final = 3
_SETTING: Final = frozenset({"where", "if"})


def looks_plural(token: str) -> bool:
    """``token`` reads as a plural noun: "boxes", "people"; not "glass", "bus", "this"."""
    return token in _MANY or (
        len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is"))
    )


def half_the_noun(tokens: Sequence[str], i: int) -> int:
    """Where the plural noun stands when ``tokens[i]`` begins "half the <plural noun>";
    0 for none."""
    if (
        tokens[i + 1 : i + 2] == []
        or tokens[i + 1] not in _THE_OR_WHOSE
        or not (_SETTING.isdisjoint(tokens[max(0, i - _SETTING_BACK) : i]))
    ):
        # "in a school like Skarholm, where almost half the pupils are eligible for free
        # school meals": the setting, not a finding; "if only half the forms come back":
        # a condition
        return 0
    at, words = i + 2, 0
    if tokens[at : at + 1] in (["year"], ["grade"]) and tokens[at + 2 : at + 3] == ["s"]:
        return at + 2  # "about half my Year 4s": the pupils of a school year (0145)
    while at < len(tokens) and words < _HALF_REACH and tokens[at].isalpha():
        if looks_plural(tokens[at]) or (tokens[at] == "lot" and at == i + 2):
            # "over half my lot had swapped or lost theirs": a teacher's class (0138)
            return at
        if tokens[at + 1 : at + 2] == ["-"]:
            at += 2  # a compound is one word: "half the bean-and-wheat fields" (0136)
            continue
        at, words = at + 1, words + 1
    if (
        tokens[at : at + 1] != []
        and tokens[at].isalpha()
        and looks_plural(tokens[at])
        and tokens[at + 1 : at + 2] != []
        and tokens[at + 1] in _HALF_DID
    ):
        # one word more, where what that half did follows: "about half my Texel cross
        # lambs had raw, bleeding gums" (decision 0147); not "half the cost of hives and"
        return at
    for at in range(i + 2, min(len(tokens), i + 2 + _GROUP_REACH)):
        if tokens[at] in _GROUPS:
            return at
        if not (tokens[at].isalnum() or tokens[at] == "-") or looks_plural(tokens[at]):
            return 0
    return 0


def half_the_many(tokens: Sequence[str], i: int) -> bool:
    """``tokens[i]`` is "half" and begins "half the <plural noun>"."""
    return tokens[i] == "half" and half_the_noun(tokens, i) > 0


# A share that says, reports or feels something is a share of people: "of the 1,140
# residents who responded, 22 per cent said the new lamps caused glare" (0113), "almost a
# third admitted weeding out applicants" (0132).
SAID: Final = frozenset(
    {"said", "say", "says", "reported", "report", "reports", "told", "felt", "feel", "feels",
     "noticed", "complained", "described", "experienced", "rated", "agreed", "answered",
     "admitted", "admit", "admits"}
)  # fmt: skip


# The words before a bare "half" that make it a share, and the verbs after it that say
# what that half did.
_ABOUT_HALF: Final = frozenset({"over", "about", "nearly", "almost", "than", "under",
                                "roughly", "around", "least"})  # fmt: skip
_HALF_DID: Final = frozenset({"ended", "were", "had", "got", "came", "went", "fell", "gave",
                              "stopped", "quit", "developed", "needed", "did",
                              "died"})  # fmt: skip


def half_share(tokens: Sequence[str], i: int) -> bool:
    """``tokens[i]`` is a "half" that gives a share of people or things: "half of", "half
    the owl boxes" (`half_the_many`), or a bare half of those just named, by what they did
    ("I reckon well over half ended up eating each other": decision 0134; not "over half
    an hour")."""
    if tokens[i] != "half":
        return False
    ahead = tokens[i + 1] if i + 1 < len(tokens) else ""
    return (
        ahead == "of"
        or half_the_many(tokens, i)
        or (i > 0 and tokens[i - 1] in _ABOUT_HALF and (ahead in SAID or ahead in _HALF_DID))
        # "in about half my sessions" (decision 0140)
        or (
            ahead in ("my", "our")
            and i + 2 < len(tokens)
            and tokens[i + 2].isalpha()
            and looks_plural(tokens[i + 2])
        )
    )
