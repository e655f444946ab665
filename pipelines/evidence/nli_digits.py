"""Number words written as digits before the rules read a text ("roughly two weeks" reads
as "roughly 2 weeks", "twenty-five percent" as "25 percent"), and a number in digits or
words. Moved from `nli_numbers` as it passed STYLE's 40 KB (decision 0147)."""

from __future__ import annotations

from collections.abc import Sequence

from lyra.pipelines.evidence.nli_numbers import CARDINALS, counts_a_value, number

_UNITS_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                "seven": 7, "eight": 8, "nine": 9}  # fmt: skip
_TENS = frozenset({"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"})


def _tens_before(merged: Sequence[str]) -> tuple[int, int] | None:
    """The tens word that a units word after ``merged`` completes ("twenty-five"), and how
    many tokens it and its hyphen take; None for none."""
    if merged[-1:] and merged[-1] in _TENS:
        return CARDINALS[merged[-1]], 1
    if merged[-2:-1] and merged[-2] in _TENS and merged[-1] == "-":
        return CARDINALS[merged[-2]], 2
    return None


def number_or_word(token: str) -> float | None:
    """A number in digits or in words ("6", "six")."""
    value = number(token)
    return float(CARDINALS[token]) if value is None and token in CARDINALS else value


def numbers_in_digits(tokens: Sequence[str]) -> list[str]:
    """``tokens`` with each number word that is a value in digits: "roughly two weeks"
    reads as "roughly 2 weeks" (and "two" is then no content word the texts share);
    "per cent" is one word, "percent"."""
    merged: list[str] = []
    for tok in tokens:
        if tok == "cent" and merged and merged[-1] == "per":
            merged[-1] = "percent"
        elif tok in ("hundred", "thousand") and merged[-3:] == ["a", "couple", "of"]:
            # "a couple of hundred grams" (decision 0138)
            del merged[-3:]
            merged.append("200" if tok == "hundred" else "2000")
        elif tok in _UNITS_WORDS and (tens := _tens_before(merged)):
            # "twenty-five percent", "sixty-one thousand dollars" (decision 0114)
            del merged[-tens[1] :]
            merged.append(str(tens[0] + _UNITS_WORDS[tok]))
        else:
            merged.append(tok)
    return [
        str(CARDINALS[tok])
        if tok in CARDINALS and counts_a_value(merged, i)
        # "a single face-to-face conference": one (decision 0109)
        else "1"
        if (tok == "single" and merged[i - 1 : i] == ["a"] and counts_a_value(merged, i))
        # "one or two decibels", "one to three days" (decision 0138)
        or (tok == "one" and _range_from_one(merged, i))
        else tok
        for i, tok in enumerate(merged)
    ]


def _range_from_one(tokens: Sequence[str], i: int) -> bool:
    """ "one" at ``i`` opens a range of values: "one or two", "one to three"."""
    nxt = tokens[i + 2] if i + 2 < len(tokens) else ""
    return tokens[i + 1 : i + 2] in (["or"], ["to"], ["-"]) and (nxt in CARDINALS or nxt.isdigit())
