"""Wikipedia's references section: the cited source URLs become fetch candidates."""

from __future__ import annotations

from pathlib import Path

import pytest

from lyra.pipelines.discover.wikipedia import is_wikipedia, reference_urls

REALWORLD = Path(__file__).resolve().parents[2] / "shared" / "realworld"
TSNE = REALWORLD / "articles" / "trafilatura-eval" / "html" / "en.wikipedia.org.tsne.html"


def test_reference_urls_of_a_real_article_in_citation_order() -> None:
    if not TSNE.is_file():
        pytest.skip(f"third-party data not present: {TSNE}")
    html = TSNE.read_text(encoding="utf-8", errors="replace")
    base = "https://en.wikipedia.org/wiki/T-distributed_stochastic_neighbor_embedding"
    assert reference_urls(html, base) == [
        "http://jmlr.org/papers/volume9/vandermaaten08a/vandermaaten08a.pdf",
        "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC2807447",
        "https://www.ncbi.nlm.nih.gov/pubmed/20175497",
        "https://www.ncbi.nlm.nih.gov/pubmed/19153135",
        "https://colah.github.io/posts/2015-01-Visualizing-Representations/",
        "https://stats.stackexchange.com/a/264647",
        "https://arxiv.org/abs/1512.01655",
        "https://www.ncbi.nlm.nih.gov/pubmed/28113434",
        "https://distill.pub/2016/misread-tsne/",
        "https://arxiv.org/abs/1706.02582",
    ]
    assert len(reference_urls(html, base, limit=3)) == 3


def test_only_the_references_list_counts_and_wiki_archive_and_resolver_links_are_dropped() -> None:
    html = """<html><body>
    <p>See <a class="external" href="https://blog.example/post">a blog</a>.</p>
    <ol class="references">
      <li><a href="#cite_ref-1">^</a> <a class="external text" href="https://who.int/report#p4">WHO</a>
        <a href="https://web.archive.org/web/2020/https://who.int/report">Archived</a>
        <a href="https://doi.org/10.1000/x">doi</a>
        <a href="/wiki/Other_article">Other</a></li>
      <li><a class="external text" href="https://who.int/report">WHO again</a>
        <a href="ftp://files.example/data">ftp</a>
        <a class="external text" href="//journal.example/a1">Journal</a></li>
    </ol>
    <h2>External links</h2><ul><li><a href="https://elsewhere.example/">x</a></li></ul>
    </body></html>"""
    assert reference_urls(html, "https://en.wikipedia.org/wiki/Tea") == [
        "https://who.int/report",
        "https://journal.example/a1",
    ]
    assert reference_urls("", "https://en.wikipedia.org/wiki/Tea") == []
    assert reference_urls("<html><body><p>no refs</p></body></html>", "https://x.org/") == []


def test_is_wikipedia_covers_every_language_edition() -> None:
    assert is_wikipedia("https://ja.wikipedia.org/wiki/%E8%8C%B6") is True
    assert is_wikipedia("https://en.m.wikipedia.org/wiki/Tea") is True
    assert is_wikipedia("https://wikipedia.example.org/wiki/Tea") is False
