"""What a fetch layer's answer becomes: a Document, or a warning saying why not.

The body's type is sniffed (a server's Content-Type is often wrong); HTML and plain
text go through the HTML extractor, Markdown served as such is read as the local
corpus reads it, PDFs through the PDF extractor, each in a thread of its own; anything
else is not ingested. One hostile page that breaks an extractor is a warning, never a
failed search.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urldefrag, urlsplit

from lyra.pipelines.extract.content_sniff import decode_text, sniff_content_type
from lyra.pipelines.extract.dates import last_modified_date
from lyra.pipelines.extract.documents import CUT_WARNING, Document
from lyra.pipelines.extract.extract_html import extract_html
from lyra.pipelines.extract.extract_pdf import extract_pdf
from lyra.pipelines.extract.extract_text import extract_plain
from lyra.pipelines.net.domains import registrable_domain

log = logging.getLogger(__name__)

# Fetched bodies of these types go through the HTML extractor (text/plain included).
INGESTED_MARKUP = frozenset({"text/html", "application/xhtml+xml", "text/plain", ""})
# Markdown served as such (a README, a notes page) is read as the corpus reads it.
MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown"})


@dataclass(frozen=True)
class Fetched:
    """A fetched page's Document; the URL it came from in the end (redirects followed,
    no ``#fragment``); its HTML when it was read as HTML (None: PDF, Markdown), for the
    link and identifier readers that want the markup."""

    doc: Document
    final_url: str
    html: str | None


def asked_to_wait(result: dict[str, Any], deadline: float) -> bool:
    """The site itself answered "come back in N seconds" (429, or 503, with
    Retry-After), as opposed to a fetcher that sent nothing because the site's wait runs
    too long, or a 429 that named no time; and the search has those seconds left."""
    wait = result.get("retry_after")
    return (
        result.get("error") == "rate_limited"
        and result.get("status") is not None
        and wait is not None
        and 0 < wait < deadline - time.monotonic()
    )


def _extracted(
    body: bytes, ctype: str, content_type: str | None, final: str, domain: str
) -> tuple[Document, str | None]:
    """The Document of a body of type ``ctype``, and its HTML when it is markup."""
    if ctype == "application/pdf":
        return extract_pdf(body, final, domain), None
    text, _codec = decode_text(body, content_type)
    if ctype in MARKDOWN_TYPES:
        return extract_plain(text, final, domain, True), None
    return extract_html(text, final, domain), text


async def read_fetched(
    result: dict[str, Any], url: str, search_id: str, warnings: list[str]
) -> Fetched | None:
    """The Document of a successful fetch of ``url`` (``result``: the fetch layer's
    answer), or None with the reason appended to ``warnings``."""
    body: bytes = result["body"]
    host = urlsplit(result.get("final_url") or url).hostname or ""
    domain = registrable_domain(host)
    final = urldefrag(result.get("final_url") or url).url
    headers = result.get("headers") or {}
    ctype = sniff_content_type(str(result.get("content_type") or ""), body, final)
    if ctype not in INGESTED_MARKUP | MARKDOWN_TYPES and ctype != "application/pdf":
        warnings.append(f"{url}: not ingested (content type {ctype})")
        return None
    try:
        # Decoding and extracting off the event loop, which meanwhile answers tool calls.
        doc, html = await asyncio.to_thread(
            _extracted, body, ctype, headers.get("content-type"), final, domain
        )
    except Exception as exc:  # one hostile page must not fail the search
        log.warning("search %s: extracting %s failed", search_id, url, exc_info=True)
        warnings.append(f"{url}: not ingested (extraction failed: {type(exc).__name__})")
        return None
    if CUT_WARNING in doc.warnings:
        warnings.append(f"{url}: {CUT_WARNING}")
    if doc.published_date is None:
        # The weakest date: when the server's file last changed.
        modified = last_modified_date(headers.get("last-modified"))
        if modified is not None:
            doc = replace(doc, published_date=modified.date, date_source=modified.source)
    return Fetched(doc, final, html)
