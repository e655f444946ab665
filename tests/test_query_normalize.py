"""Query operators parsed once, rendered per engine capability; refute suffixes."""

from __future__ import annotations

from pathlib import Path

import pytest

from lyra.pipelines.discover.engines import load_engines
from lyra.pipelines.discover.query_normalize import (
    OPERATORS,
    Token,
    normalize_query,
    parse_query,
    query_language,
    refute_queries,
)
from tests.conftest import make_settings

PARSE_CASES = [
    ("ocean acidification", [Token("term", "ocean"), Token("term", "acidification")]),
    ('"ocean acidification" pH', [Token("phrase", "ocean acidification"), Token("term", "pH")]),
    ("+coral -myth", [Token("require", "coral"), Token("exclude", "myth")]),
    ('-"fake news" x', [Token("exclude", '"fake news"'), Token("term", "x")]),
    (
        "site:go.jp -site:example.com",
        [Token("site", "go.jp"), Token("exclude", "site:example.com")],
    ),
    ("filetype:pdf intitle:report", [Token("filetype", "pdf"), Token("intitle", "report")]),
    ('intitle:"annual report"', [Token("intitle", "annual report")]),
    ("SITE:who.int", [Token("site", "who.int")]),
    (
        "after:2020-01-15 before:2023",
        [Token("after", "2020-01-15"), Token("before", "2023-01-01")],
    ),
    ("after:2021-06", [Token("after", "2021-06-01")]),
    (
        "after:soon before:2023-13-01",
        [Token("term", "after:soon"), Token("term", "before:2023-13-01")],
    ),
    ('"unclosed phrase', [Token("phrase", "unclosed phrase")]),
    ('"" - +', [Token("term", "-"), Token("term", "+")]),
    ('気候変動 "海洋 酸性化"', [Token("term", "気候変動"), Token("phrase", "海洋 酸性化")]),
    ("", []),
]


@pytest.mark.parametrize(("query", "tokens"), PARSE_CASES)
def test_parse_query(query: str, tokens: list[Token]) -> None:
    assert parse_query(query) == tokens


FULL = (
    '"climate change" +ocean -myth site:go.jp filetype:pdf intitle:report'
    " after:2020 before:2023-06-30"
)


def test_engine_with_every_operator_keeps_the_query() -> None:
    rendered = normalize_query(FULL, OPERATORS)
    assert rendered.text == (
        '"climate change" +ocean -myth site:go.jp filetype:pdf intitle:report'
        " after:2020-01-01 before:2023-06-30"
    )
    assert (rendered.warnings, rendered.after, rendered.before) == ((), "2020-01-01", "2023-06-30")


def test_engine_without_operators_degrades_with_a_warning_per_change() -> None:
    rendered = normalize_query(FULL, ())
    # Words that still matter stay as words; exclusions, filters and dates go.
    assert rendered.text == "climate change ocean report"
    assert rendered.warnings == (
        'phrase "climate change" searched as plain words',
        "+ocean searched as a plain word",
        "-myth dropped: exclusion not supported",
        "site:go.jp dropped: not supported",
        "filetype:pdf dropped: not supported",
        "intitle:report searched as a plain word",
        "after:2020-01-01 dropped: date ranges not supported",
        "before:2023-06-30 dropped: date ranges not supported",
    )
    # The range is still handed to the caller (an engine's own date parameter).
    assert (rendered.after, rendered.before) == ("2020-01-01", "2023-06-30")


@pytest.mark.parametrize(
    ("engine", "text", "warnings"),
    [
        (
            "marginalia",
            '"climate change" ocean -myth site:go.jp report',
            (
                "+ocean searched as a plain word",
                "filetype:pdf dropped: not supported",
                "intitle:report searched as a plain word",
                "after:2020-01-01 dropped: date ranges not supported",
                "before:2023-06-30 dropped: date ranges not supported",
            ),
        ),
        (
            "wikipedia",
            '"climate change" ocean -myth intitle:report',
            (
                "+ocean searched as a plain word",
                "site:go.jp dropped: not supported",
                "filetype:pdf dropped: not supported",
                "after:2020-01-01 dropped: date ranges not supported",
                "before:2023-06-30 dropped: date ranges not supported",
            ),
        ),
        (
            "google",
            '"climate change" +ocean -myth site:go.jp filetype:pdf intitle:report'
            " after:2020-01-01 before:2023-06-30",
            (),
        ),
    ],
)
def test_capabilities_come_from_engines_yaml(
    tmp_path: Path, engine: str, text: str, warnings: tuple[str, ...]
) -> None:
    spec = load_engines(make_settings(tmp_path))[engine]
    rendered = normalize_query(FULL, spec.operators)
    assert (rendered.text, rendered.warnings) == (text, warnings)


def test_multiword_intitle_is_quoted() -> None:
    assert normalize_query('intitle:"annual report"', ["intitle"]).text == 'intitle:"annual report"'


@pytest.mark.parametrize(
    ("query", "language"),
    [
        ("ocean acidification", "en"),
        ("気候変動", "ja"),
        ("カーボン", "ja"),
        ("ひらがな", "ja"),
        ("CO2 排出量", "ja"),
        ("café crème", "en"),
        ("", "en"),
    ],
)
def test_query_language_by_script(query: str, language: str) -> None:
    assert query_language(query) == language


def test_refute_queries_english() -> None:
    assert refute_queries("  ocean   warming ") == [
        "ocean warming limitations",
        "ocean warming criticism",
        "ocean warming problems",
    ]


def test_refute_queries_japanese() -> None:
    assert refute_queries("マイクロプラスチック 健康影響") == [
        "マイクロプラスチック 健康影響 課題",
        "マイクロプラスチック 健康影響 批判",
        "マイクロプラスチック 健康影響 問題点",
    ]


def test_refute_queries_of_nothing_is_nothing() -> None:
    assert refute_queries(" \t ") == []
