"""When a page was published, and how we know (issue 15: the time views need dates).

Sources, strongest first, each recorded as the date's provenance:

- ``jsonld``: ``datePublished`` of a JSON-LD object (schema.org Article and kin, also
  inside ``@graph``);
- ``meta``: publication ``<meta>`` tags (``article:published_time``,
  ``citation_publication_date`` and the other Highwire/Dublin Core/Open Graph names);
- ``htmldate``: htmldate's reading of the page (URL patterns, time elements, text),
  asked for the original date, not the last update;
- ``last_modified``: the HTTP ``Last-Modified`` header, the weakest: it says when the
  file changed on the server, which is at best an upper bound.

A date outside 1900 .. next year is ignored. Academic papers take their year from the
APIs (``papers.year``), not from here.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import json
import logging
import re
from dataclasses import dataclass

import lxml.html

log = logging.getLogger(__name__)

META_NAMES = (
    "article:published_time",
    "citation_publication_date",
    "citation_date",
    "citation_online_date",
    "dc.date.issued",
    "dc.date",
    "dcterms.issued",
    "dcterms.created",
    "og:published_time",
    "datepublished",
    "pubdate",
    "publish-date",
    "publication_date",
    "sailthru.date",
    "parsely-pub-date",
    "date",
)
_ISO_DATE = re.compile(r"(\d{4})[-/](\d{1,2})(?:[-/](\d{1,2}))?")
_YEAR = re.compile(r"^(\d{4})$")


@dataclass(frozen=True)
class PublicationDate:
    """An ISO date (``YYYY-MM-DD``) and where it was read."""

    date: str
    source: str


def _parse(value: str) -> str | None:
    """``YYYY-MM-DD`` from an ISO-like date or date-time (a bare year: January 1)."""
    text = value.strip()
    match = _ISO_DATE.search(text)
    if match:
        year, month, day = int(match[1]), int(match[2]), int(match[3] or 1)
    else:
        only_year = _YEAR.match(text)
        if not only_year:
            return None
        year, month, day = int(only_year[1]), 1, 1
    try:
        parsed = dt.date(year, month, day)
    except ValueError:
        return None
    if not 1900 <= parsed.year <= dt.date.today().year + 1:
        return None
    return parsed.isoformat()


def _jsonld_dates(node: object) -> list[str]:
    out: list[str] = []
    if isinstance(node, dict):
        value = node.get("datePublished")
        if isinstance(value, str):
            out.append(value)
        for key in ("@graph", "mainEntity", "mainEntityOfPage"):
            out.extend(_jsonld_dates(node.get(key)))
    elif isinstance(node, list):
        for item in node:
            out.extend(_jsonld_dates(item))
    return out


def html_publication_date(html: str, url: str) -> PublicationDate | None:
    """The page's publication date from its markup, or None."""
    try:
        tree = lxml.html.document_fromstring(html)
    except (lxml.etree.ParserError, ValueError):
        return None
    for script in tree.xpath('//script[@type="application/ld+json"]'):
        try:
            data = json.loads(script.text_content())
        except ValueError:
            continue
        for value in _jsonld_dates(data):
            parsed = _parse(value)
            if parsed:
                return PublicationDate(parsed, "jsonld")
    metas: dict[str, str] = {}
    for meta in tree.xpath("//meta[@content]"):
        name = (meta.get("property") or meta.get("name") or meta.get("itemprop") or "").lower()
        if name and name not in metas:
            metas[name] = meta.get("content") or ""
    for name in META_NAMES:
        parsed = _parse(metas.get(name, ""))
        if parsed:
            return PublicationDate(parsed, "meta")
    try:
        from htmldate import find_date

        found = find_date(
            tree, url=url, original_date=True, extensive_search=False, outputformat="%Y-%m-%d"
        )
    except Exception as exc:  # htmldate on hostile markup: no date rather than no page
        log.debug("htmldate failed on %s: %s", url, exc)
        found = None
    parsed = _parse(found) if found else None
    return PublicationDate(parsed, "htmldate") if parsed else None


def last_modified_date(header: str | None) -> PublicationDate | None:
    """The date of an HTTP ``Last-Modified`` header, or None."""
    if not header:
        return None
    try:
        stamp = email.utils.parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return None
    parsed = _parse(stamp.date().isoformat())
    return PublicationDate(parsed, "last_modified") if parsed else None
