"""Query operators parsed once and rendered per engine; mechanical refute queries.

Seed 003 §3.1.1 and §3.1.4 (engine normalisation layer): phrases, +/-, site:,
filetype:, intitle: and date ranges are parsed into tokens, then rendered for each
engine from its capability list (`operators` in config/engines.yaml). Design:
- What an engine cannot do is degraded, never silently: a phrase loses its quotes,
  +term and intitle:term become plain words (the word still matters), while -term,
  site:, filetype: and dates are dropped (as plain words they would search for the
  opposite or for noise). Each change yields a warning string for the search log.
- Dates: ``after:`` / ``before:`` take YYYY, YYYY-MM or YYYY-MM-DD; a partial date
  means its first day (``before:2023`` = before 2023-01-01). A value that is not a
  date is an ordinary word.
- Refute mode adds fixed suffixes in the query's language, chosen by script (any
  kana or CJK ideograph: ja, else en). Lyra never invents queries beyond these
  mechanical forms (ARCHITECTURE §3 step 2).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

OPERATORS: tuple[str, ...] = ("phrase", "require", "exclude", "site", "filetype", "intitle", "date")
REFUTE_SUFFIXES: dict[str, tuple[str, ...]] = {
    "ja": ("課題", "批判", "問題点"),
    "en": ("limitations", "criticism", "problems"),
}

# One token: an optional sign, an optional operator prefix, then a quoted phrase
# (an unclosed quote runs to the end of the query) or a bare word.
_TOKEN = re.compile(
    r"(?P<sign>[+-])?(?:(?P<op>site|filetype|intitle|after|before):)?"
    r'(?:"(?P<phrase>[^"]*)"?|(?P<word>\S+))',
    re.IGNORECASE,
)
_DATE = re.compile(r"^(?P<y>\d{4})(?:-(?P<m>\d{2})(?:-(?P<d>\d{2}))?)?$")
# Hiragana, katakana, CJK unified ideographs (+ extension A), half-width katakana.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]")


@dataclass(frozen=True)
class Token:
    """One piece of a query: kind is term, phrase, require, exclude, site, filetype,
    intitle, after or before; value has no quotes or prefix."""

    kind: str
    value: str


@dataclass(frozen=True)
class RenderedQuery:
    """A query as one engine will receive it, and what was changed to get there."""

    text: str
    warnings: tuple[str, ...]
    after: str | None
    before: str | None


def _iso_date(value: str) -> str | None:
    """YYYY, YYYY-MM or YYYY-MM-DD as an ISO date (first day), or None."""
    match = _DATE.match(value)
    if match is None:
        return None
    month, day = int(match["m"] or 1), int(match["d"] or 1)
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return f"{match['y']}-{month:02d}-{day:02d}"


def parse_query(query: str) -> list[Token]:
    """The tokens of a query in their original order."""
    tokens: list[Token] = []
    for match in _TOKEN.finditer(query):
        sign, op = match["sign"], (match["op"] or "").lower()
        is_phrase = match["phrase"] is not None
        value = (match["phrase"] if is_phrase else match["word"]).strip()
        if not value:
            continue
        if op in ("after", "before"):
            iso = _iso_date(value)
            tokens.append(Token(op, iso) if iso else Token("term", f"{op}:{value}"))
        elif op and sign == "-" and op == "site":
            tokens.append(Token("exclude", f"site:{value}"))
        elif op:
            tokens.append(Token(op, value))
        elif sign == "-":
            tokens.append(Token("exclude", f'"{value}"' if is_phrase else value))
        elif sign == "+" and not is_phrase:
            tokens.append(Token("require", value))
        else:
            tokens.append(Token("phrase" if is_phrase else "term", value))
    return tokens


def _quote(value: str) -> str:
    """A value quoted when it has spaces (site:/intitle: of several words)."""
    return f'"{value}"' if " " in value else value


def render(tokens: list[Token], operators: Collection[str]) -> RenderedQuery:
    """The query text for an engine with these capabilities, with a warning per change."""
    parts: list[str] = []
    warnings: list[str] = []
    after = before = None
    for token in tokens:
        kind, value = token.kind, token.value
        if kind == "term":
            parts.append(value)
        elif kind == "phrase":
            if "phrase" in operators:
                parts.append(f'"{value}"')
            else:
                parts.append(value)
                warnings.append(f'phrase "{value}" searched as plain words')
        elif kind == "require":
            parts.append(f"+{value}" if "require" in operators else value)
            if "require" not in operators:
                warnings.append(f"+{value} searched as a plain word")
        elif kind == "exclude":
            if "exclude" in operators:
                parts.append(f"-{value}")
            else:
                warnings.append(f"-{value} dropped: exclusion not supported")
        elif kind == "intitle":
            if "intitle" in operators:
                parts.append(f"intitle:{_quote(value)}")
            else:
                parts.append(value)
                warnings.append(f"intitle:{value} searched as a plain word")
        elif kind in ("site", "filetype"):
            if kind in operators:
                parts.append(f"{kind}:{value}")
            else:
                warnings.append(f"{kind}:{value} dropped: not supported")
        elif kind in ("after", "before"):
            if kind == "after":
                after = value
            else:
                before = value
            if "date" in operators:
                parts.append(f"{kind}:{value}")
            else:
                warnings.append(f"{kind}:{value} dropped: date ranges not supported")
    return RenderedQuery(" ".join(parts), tuple(warnings), after, before)


def normalize_query(query: str, operators: Collection[str]) -> RenderedQuery:
    """Parse then render a query for an engine with these operators."""
    return render(parse_query(query), operators)


def query_language(query: str) -> str:
    """ja when the query has kana or CJK ideographs, else en (script, not a model)."""
    return "ja" if _CJK.search(query) else "en"


def refute_queries(query: str) -> list[str]:
    """The mechanical refutation queries of a query: one per suffix of its language."""
    base = " ".join(query.split())
    if not base:
        return []
    return [f"{base} {suffix}" for suffix in REFUTE_SUFFIXES[query_language(base)]]
