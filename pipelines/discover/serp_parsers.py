"""Search-engine result pages to one schema, as pure functions (seed 003 §3.1.4).

Every parser takes a response body and the URL it came from and returns the organic
results in page order. Design:
- One schema for every engine: title, url, snippet, date, engine, rank, source_tag.
  `rank` is 1-based in page order after ads are dropped; `source_tag` is a coarse
  class of the result's host (see `source_tag`), so ranking can favour primary
  sources without re-parsing URLs.
- Ads are dropped and tracking redirects unwrapped here, once: DuckDuckGo
  ``//duckduckgo.com/l/?uddg=`` and ``y.js`` ad links, Bing ``/ck/a?...&u=a1<base64>``,
  Google ``/url?q=``. A result whose URL is not http(s) after unwrapping is dropped.
- Never raises on malformed, truncated or empty input: lxml's recovering parser
  reads what it can, and a page without results (a CAPTCHA, a "no results" page)
  gives []. Whether [] means "blocked" is for `engines.serp_blocked` to say.
- Duplicates are kept: rank is the engine's, and `pipelines.extract.dedup` merges URLs
  across engines later.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

from lxml import etree, html

_SPACE = re.compile(r"\s+")
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>")
# "3 days ago", "May 3, 2023", "2023-05-03", "3 may 2023": a date a SERP prints
# ahead of a snippet, followed by " - " or " · " (Brave, Bing, Mojeek, Google).
_DATE_PREFIX = re.compile(
    r"^(?P<date>(?:\d{1,2}/\d{1,2}/\d{4}|\d{1,2} \w{3,9}\.? \d{4}"
    r"|\w{3,9}\.? \d{1,2}, \d{4}|\d{4}-\d{2}-\d{2}"
    r"|\d+ (?:minutes?|hours?|days?|weeks?|months?|years?) ago))\s*[-·—]\s*",
    re.IGNORECASE,
)

ACADEMIC_HOST_SUFFIXES = (
    "arxiv.org",
    "doi.org",
    "ncbi.nlm.nih.gov",
    "pubmed.ncbi.nlm.nih.gov",
    "semanticscholar.org",
    "openalex.org",
    "jstage.jst.go.jp",
    "cir.nii.ac.jp",
    "scholar.google.com",
    ".edu",
    ".ac.jp",
    ".ac.uk",
)
GOVERNMENT_HOST_SUFFIXES = (".gov", ".go.jp", ".gov.uk", ".gouv.fr", ".europa.eu", ".int")
ENCYCLOPEDIA_HOST_SUFFIXES = ("wikipedia.org", "wikidata.org")


@dataclass(frozen=True)
class SerpItem:
    """One organic result in the schema every engine is normalised to."""

    title: str
    url: str
    snippet: str
    date: str | None
    engine: str
    rank: int
    source_tag: str


@dataclass(frozen=True)
class _Hit:
    """A result as read off the page, before ranking and tagging."""

    title: str
    url: str
    snippet: str
    date: str | None = None


def source_tag(url: str) -> str:
    """Coarse class of a result's host: academic, government, encyclopedia or web."""
    host = (urlsplit(url).hostname or "").lower()
    if host.endswith(ENCYCLOPEDIA_HOST_SUFFIXES):
        return "encyclopedia"
    if host.endswith(ACADEMIC_HOST_SUFFIXES):
        return "academic"
    if host.endswith(GOVERNMENT_HOST_SUFFIXES):
        return "government"
    return "web"


def _text(node: Any) -> str:
    """Visible text of a node (or "" for None) with whitespace collapsed."""
    if node is None:
        return ""
    return _SPACE.sub(" ", "".join(node.itertext())).strip()


def _first(node: Any, xpath: str) -> Any:
    """The first match of `xpath` under `node`, or None."""
    found = node.xpath(xpath)
    return found[0] if found else None


def _cls(name: str) -> str:
    """XPath predicate: the element's class list holds `name` as a whole token."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


def _document(body: bytes | str) -> Any:
    """A recovered lxml tree of the body, or None when there is nothing to parse."""
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else body
    text = _XML_DECL.sub("", text)
    if not text.strip():
        return None
    parser = html.HTMLParser(recover=True, encoding=None)
    try:
        return etree.fromstring(text, parser)
    except (etree.ParserError, ValueError):
        return None


def _split_date(snippet: str) -> tuple[str | None, str]:
    """A leading "date - " of a snippet, split off as (date, rest)."""
    match = _DATE_PREFIX.match(snippet)
    if match is None:
        return None, snippet
    return match.group("date"), snippet[match.end() :]


def unwrap_url(href: str, base_url: str) -> str | None:
    """The destination of a result link, or None for an ad or a non-web link.

    Absolutised against `base_url`, then the engine's redirect wrapper removed.
    """
    if not href:
        return None
    url = urljoin(base_url, href.strip())
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    query = parse_qs(parts.query)
    if host.endswith("duckduckgo.com"):
        if parts.path == "/y.js":
            return None
        if parts.path == "/l/" and "uddg" in query:
            url = query["uddg"][0]
    elif host.endswith("bing.com") and parts.path == "/ck/a" and "u" in query:
        url = _bing_target(query["u"][0]) or ""
    elif host.startswith(("www.google.", "google.")) and parts.path == "/url":
        url = (query.get("q") or query.get("url") or [""])[0]
    if urlsplit(url).scheme not in ("http", "https"):
        return None
    return url


def _bing_target(value: str) -> str | None:
    """Bing's ``u=a1<base64url>`` click-tracking value decoded to the target URL."""
    if not value.startswith("a1"):
        return None
    payload = value[2:]
    try:
        raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        return raw.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def _hit(
    title: str, href: str, snippet: str, base_url: str, date: str | None = None
) -> _Hit | None:
    """A hit when the link leads to a web page and has a title, else None."""
    url = unwrap_url(href, base_url)
    if url is None or not title:
        return None
    return _Hit(title=title, url=url, snippet=snippet, date=date)


def parse_duckduckgo(body: bytes | str, base_url: str) -> list[_Hit]:
    """html.duckduckgo.com: ``div.result`` blocks; ``result--ad`` and y.js links are ads."""
    doc = _document(body)
    if doc is None:
        return []
    hits = []
    for block in doc.xpath(f"//div[{_cls('result')}][not({_cls('result--ad')})]"):
        link = _first(block, f".//a[{_cls('result__a')}]")
        if link is None:
            continue
        snippet = _text(_first(block, f".//*[{_cls('result__snippet')}]"))
        date, snippet = _split_date(snippet)
        hit = _hit(_text(link), link.get("href", ""), snippet, base_url, date)
        if hit is not None:
            hits.append(hit)
    return hits


def parse_duckduckgo_lite(body: bytes | str, base_url: str) -> list[_Hit]:
    """lite.duckduckgo.com: a table, one ``a.result-link`` row then snippet/url rows.

    Sponsored rows carry ``result-sponsored`` on their ``tr`` (and y.js links).
    """
    doc = _document(body)
    if doc is None:
        return []
    hits = []
    for link in doc.xpath(f"//a[{_cls('result-link')}]"):
        row = _first(link, "ancestor::tr[1]")
        if row is not None and "result-sponsored" in (row.get("class") or ""):
            continue
        snippet = ""
        sibling = row.getnext() if row is not None else None
        while sibling is not None and not sibling.xpath(f".//a[{_cls('result-link')}]"):
            cell = _first(sibling, f".//td[{_cls('result-snippet')}]")
            if cell is not None:
                snippet = _text(cell)
                break
            sibling = sibling.getnext()
        date, snippet = _split_date(snippet)
        hit = _hit(_text(link), link.get("href", ""), snippet, base_url, date)
        if hit is not None:
            hits.append(hit)
    return hits


def parse_mojeek(body: bytes | str, base_url: str) -> list[_Hit]:
    """mojeek.com: ``ul.results-standard > li`` with ``h2 a.title`` and ``p.s``."""
    doc = _document(body)
    if doc is None:
        return []
    hits = []
    for item in doc.xpath(f"//ul[{_cls('results-standard')}]/li"):
        link = _first(item, f".//h2//a[{_cls('title')}] | .//h2//a[@href]")
        if link is None:
            continue
        snippet = _text(_first(item, f".//p[{_cls('s')}]"))
        date = _text(_first(item, f".//*[{_cls('mdate')}]")) or None
        hit = _hit(_text(link), link.get("href", ""), snippet, base_url, date)
        if hit is not None:
            hits.append(hit)
    return hits


def parse_brave(body: bytes | str, base_url: str) -> list[_Hit]:
    """search.brave.com: ``div.snippet[data-type=web]``; ads have another data-type."""
    doc = _document(body)
    if doc is None:
        return []
    hits = []
    for block in doc.xpath(f"//div[{_cls('snippet')}][@data-type='web']"):
        link = _first(block, ".//a[starts-with(@href, 'http')]")
        if link is None:
            continue
        title_node = _first(block, f".//*[{_cls('title')} or {_cls('snippet-title')}]")
        body_node = _first(
            block,
            f".//*[{_cls('snippet-description')}]"
            f" | .//*[{_cls('generic-snippet')}]//*[{_cls('content')}]",
        )
        date, snippet = _split_date(_text(body_node))
        hit = _hit(_text(title_node), link.get("href", ""), snippet, base_url, date)
        if hit is not None:
            hits.append(hit)
    return hits


def parse_bing(body: bytes | str, base_url: str) -> list[_Hit]:
    """bing.com without JS: ``li.b_algo`` with ``h2 a`` and ``.b_caption p``; ads are ``b_ad``."""
    doc = _document(body)
    if doc is None:
        return []
    hits = []
    for item in doc.xpath(f"//li[{_cls('b_algo')}]"):
        link = _first(item, ".//h2//a[@href]")
        if link is None:
            continue
        paragraph = _first(
            item,
            f".//div[{_cls('b_caption')}]/p | .//p[{_cls('b_lineclamp3')}]"
            f" | .//p[{_cls('b_paractl')}]",
        )
        date, snippet = _split_date(_text(paragraph))
        hit = _hit(_text(link), link.get("href", ""), snippet, base_url, date)
        if hit is not None:
            hits.append(hit)
    return hits


def _google_snippet(block: Any) -> str:
    """The snippet lines (``v9i61e`` rows) of a result, without the sitelinks row.

    A rich result has several rows (a rating, then the description); they are joined.
    """
    rows = [_text(row) for row in block.xpath(f".//div[{_cls('v9i61e')}]")]
    if rows:
        return " ".join(row for row in rows if row)
    for node in block.xpath(f".//div[{_cls('s3v9rd')}]"):
        if not node.xpath(f".//div[{_cls('s3v9rd')}]"):
            return _text(node)
    return ""


def parse_google(body: bytes | str, base_url: str) -> list[_Hit]:
    """google.com basic (no-JS) page: a ``/url?q=`` link holding an ``h3`` is a result.

    Class names on this page are generated; the stable shape is the redirect link
    with the heading inside, whose block is the link's grandparent div.
    """
    doc = _document(body)
    if doc is None:
        return []
    hits = []
    for link in doc.xpath("//a[starts-with(@href, '/url?') and .//h3]"):
        block = _first(link, "parent::div/parent::div")
        snippet = _google_snippet(block) if block is not None else ""
        date, snippet = _split_date(snippet)
        hit = _hit(_text(_first(link, ".//h3")), link.get("href", ""), snippet, base_url, date)
        if hit is not None:
            hits.append(hit)
    return hits


def parse_google_scholar(body: bytes | str, base_url: str) -> list[_Hit]:
    """scholar.google.com: ``div.gs_r`` with ``h3.gs_rt a`` and ``div.gs_rs``.

    A citation-only record has no link; it is kept as a hit only when it has one.
    """
    doc = _document(body)
    if doc is None:
        return []
    hits = []
    for block in doc.xpath(f"//div[{_cls('gs_r')}]"):
        link = _first(block, f".//h3[{_cls('gs_rt')}]//a[@href]")
        if link is None:
            continue
        year = re.search(r"\b(1[89]\d\d|20\d\d)\b", _text(_first(block, f".//*[{_cls('gs_a')}]")))
        snippet = _text(_first(block, f".//*[{_cls('gs_rs')}]"))
        hit = _hit(_text(link), link.get("href", ""), snippet, base_url, year and year.group(1))
        if hit is not None:
            hits.append(hit)
    return hits


def parse_qwant(body: bytes | str, base_url: str) -> list[_Hit]:
    """lite.qwant.com: ``section > article`` with ``h2 a`` and ``p``; ads carry a tooltip."""
    doc = _document(body)
    if doc is None:
        return []
    hits = []
    for article in doc.xpath("//section/article"):
        if article.xpath(f".//span[{_cls('tooltip')}]"):
            continue
        link = _first(article, ".//h2//a[@href]")
        if link is None:
            continue
        date, snippet = _split_date(_text(_first(article, "./p")))
        hit = _hit(_text(link), link.get("href", ""), snippet, base_url, date)
        if hit is not None:
            hits.append(hit)
    return hits


def parse_startpage(body: bytes | str, base_url: str) -> list[_Hit]:
    """startpage.com: ``div.w-gl__result`` (or ``div.result``) with a title link and description."""
    doc = _document(body)
    if doc is None:
        return []
    hits = []
    for block in doc.xpath(f"//div[{_cls('w-gl__result')} or {_cls('result')}]"):
        link = _first(block, f".//a[{_cls('w-gl__result-title')} or {_cls('result-title')}]")
        if link is None:
            continue
        title = _text(_first(link, ".//h2 | .//h3")) or _text(link)
        description = _first(block, f".//p[{_cls('w-gl__description')} or {_cls('description')}]")
        date, snippet = _split_date(_text(description))
        hit = _hit(title, link.get("href", ""), snippet, base_url, date)
        if hit is not None:
            hits.append(hit)
    return hits


def parse_marginalia(body: bytes | str, base_url: str) -> list[_Hit]:
    """search.marginalia.nu: ``section.search-result`` HTML, or its API's JSON results."""
    data = _json(body)
    if isinstance(data, dict):
        hits = []
        for entry in data.get("results") or []:
            if not isinstance(entry, dict):
                continue
            hit = _hit(
                str(entry.get("title") or ""),
                str(entry.get("url") or ""),
                _SPACE.sub(" ", str(entry.get("description") or "")).strip(),
                base_url,
            )
            if hit is not None:
                hits.append(hit)
        return hits
    doc = _document(body)
    if doc is None:
        return []
    hits = []
    for block in doc.xpath(f"//section[{_cls('search-result')}]"):
        link = _first(block, ".//h2//a[@href]")
        if link is None:
            continue
        snippet = _text(_first(block, f".//p[{_cls('description')}]"))
        hit = _hit(_text(link), link.get("href", ""), snippet, base_url)
        if hit is not None:
            hits.append(hit)
    return hits


def _json(body: bytes | str) -> Any:
    """The JSON value of a body, or None when it is not JSON."""
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else body
    if not text.lstrip().startswith(("{", "[")):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _strip_tags(fragment: str) -> str:
    """Plain text of an HTML fragment (Wikipedia's snippets mark matches with spans)."""
    doc = _document(f"<div>{fragment}</div>")
    return _text(doc) if doc is not None else ""


def parse_wikipedia(body: bytes | str, base_url: str) -> list[_Hit]:
    """MediaWiki ``list=search`` JSON: ``query.search[]`` of title, snippet, timestamp.

    The article URL is ``/wiki/<Title>`` on the API's host (spaces as underscores).
    """
    data = _json(body)
    if not isinstance(data, dict):
        return []
    query = data.get("query")
    entries = query.get("search") if isinstance(query, dict) else None
    parts = urlsplit(base_url)
    hits = []
    for entry in entries or []:
        if not isinstance(entry, dict) or not entry.get("title"):
            continue
        title = str(entry["title"])
        url = f"{parts.scheme}://{parts.netloc}/wiki/{title.replace(' ', '_')}"
        timestamp = str(entry.get("timestamp") or "")[:10] or None
        hit = _hit(title, url, _strip_tags(str(entry.get("snippet") or "")), base_url, timestamp)
        if hit is not None:
            hits.append(hit)
    return hits


PARSERS: dict[str, Callable[[bytes | str, str], list[_Hit]]] = {
    "duckduckgo": parse_duckduckgo,
    "duckduckgo_lite": parse_duckduckgo_lite,
    "mojeek": parse_mojeek,
    "brave": parse_brave,
    "bing": parse_bing,
    "google": parse_google,
    "google_scholar": parse_google_scholar,
    "qwant": parse_qwant,
    "startpage": parse_startpage,
    "marginalia": parse_marginalia,
    "wikipedia": parse_wikipedia,
}


def to_items(hits: list[_Hit], engine: str) -> list[SerpItem]:
    """Hits ranked 1..n in page order and tagged, in the shared schema."""
    return [
        SerpItem(
            title=hit.title,
            url=hit.url,
            snippet=hit.snippet,
            date=hit.date,
            engine=engine,
            rank=rank,
            source_tag=source_tag(hit.url),
        )
        for rank, hit in enumerate(hits, start=1)
    ]


def parse(
    parser: str, body: bytes | str, base_url: str, engine: str | None = None
) -> list[SerpItem]:
    """Results of a page read by the named parser; KeyError names an unknown parser."""
    if parser not in PARSERS:
        raise KeyError(f"no SERP parser named {parser!r}; known: {sorted(PARSERS)}")
    return to_items(PARSERS[parser](body, base_url), engine or parser)
