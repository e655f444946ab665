"""Wikipedia's references section as fetch candidates (seed 000 §3.4, issue 4 item 8).

Wikipedia is a LOW-trust source: Lyra does not take its sentences as evidence of
much, but its references are a curated list of the sources behind them. The URLs
cited in an article's references list (`ol.references`, the `reflist` of MediaWiki's
Cite extension) become high-priority fetch candidates, so the search reaches the
primary sources instead of stopping at the summary.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

from lxml import html as lxml_html

from lyra.pipelines.net.domains import registrable_domain

# Links in a references list that are not sources: the wiki itself, its archive copies
# of a source (the original URL is cited next to it), and id resolvers, whose ids the
# identifier route resolves through the academic APIs instead.
_NOT_SOURCES = frozenset(
    {
        "wikipedia.org",
        "wikimedia.org",
        "wikidata.org",
        "wikisource.org",
        "archive.org",
        "archive.today",
        "archive.ph",
        "doi.org",
        "worldcat.org",
        "semanticscholar.org",
        "jstor.org",
    }
)
MAX_REFERENCES = 20


def is_wikipedia(url: str) -> bool:
    """True for an article URL on any language edition of Wikipedia."""
    return registrable_domain(urlsplit(url).hostname or "") == "wikipedia.org"


def reference_urls(html: str, base_url: str, limit: int = MAX_REFERENCES) -> list[str]:
    """The external source URLs of an article's references list, in citation order.

    Only http(s) links inside `ol.references` count (navigation, "External links"
    and "Further reading" are not the article's sources); duplicates, fragments and
    the hosts in `_NOT_SOURCES` are dropped. An unparsable page has none.
    """
    if not html.strip():
        return []
    try:
        root = lxml_html.fromstring(html)
    except (ValueError, lxml_html.etree.ParserError):
        return []
    found: list[str] = []
    seen: set[str] = set()
    for anchor in root.xpath("//ol[contains(concat(' ', @class, ' '), ' references ')]//a[@href]"):
        href = str(anchor.get("href") or "").strip()
        if not href or href.startswith("#"):
            continue
        url = urljoin(base_url, href).split("#", 1)[0]
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            continue
        if registrable_domain(parts.hostname) in _NOT_SOURCES:
            continue
        if parts.hostname.endswith("arxiv.org") and parts.path.startswith("/archive/"):
            continue  # the subject class of an arXiv citation ("[cs.LG]"), not a source
        if url in seen:
            continue
        seen.add(url)
        found.append(url)
        if len(found) >= limit:
            break
    return found
