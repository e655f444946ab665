"""A page's vector for ranking is made from passages the search embeds anyway
(decision 0030): `page_vector_texts` picks the passages that begin in the page's first
`PAGE_VECTOR_CHARS` characters."""

from __future__ import annotations

from lyra.jobs.search_vectors import PAGE_VECTOR_CHARS, page_vector_texts
from lyra.pipelines.extract.extract_html import extract_html

PARAGRAPHS = [
    "Caffeine taken within six hours of bedtime shortens total sleep time by about one "
    "hour in healthy adults, according to a controlled laboratory study of sleep. " * 4,
    "Regular coffee drinkers develop a tolerance to the blood pressure effect of caffeine "
    "within a few days, although the effect on sleep persists for weeks afterwards. " * 4,
    "Decaffeinated coffee contains a small amount of caffeine, usually between two and "
    "fifteen milligrams per cup, depending on the method used to remove it from beans. " * 4,
    "Guidelines for pregnant women recommend no more than two hundred milligrams of "
    "caffeine per day, which is about two cups of filter coffee brewed at home daily. " * 4,
]


def test_the_passages_beginning_in_the_first_characters_stand_for_the_page() -> None:
    body = "".join(f"<p>{p.strip()}</p>" for p in PARAGRAPHS)
    html = (
        "<html><head><title>Site | Caffeine</title></head><body><article>"
        f"<h1>Caffeine and sleep</h1>{body}</article></body></html>"
    )
    doc = extract_html(html, "https://example.org/caffeine", "example.org")
    assert [f.fragment_type for f in doc.fragments] == ["heading"] + ["paragraph"] * 4
    texts = page_vector_texts(doc)
    # The heading and the paragraphs that begin before the cut, not the <title>.
    lead = [f.text for f in doc.fragments if f.char_start < PAGE_VECTOR_CHARS]
    assert texts == lead
    assert texts == ["Caffeine and sleep", PARAGRAPHS[0].strip(), PARAGRAPHS[1].strip()]
    assert doc.fragments[3].char_start >= PAGE_VECTOR_CHARS


def test_a_page_without_passages_falls_back_to_title_and_text() -> None:
    doc = extract_html(
        "<html><head><title>Empty</title></head><body></body></html>",
        "https://example.org/empty",
        "example.org",
    )
    assert doc.fragments == []
    assert page_vector_texts(doc) == [f"Empty\n{doc.text[:2000]}"]
