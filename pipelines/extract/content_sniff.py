"""What a fetched body really is, and how to turn it into text.

Servers mislabel bodies all the time: PDFs sent as ``application/octet-stream`` or
even ``text/html`` (repository download links), HTML error or login pages sent with
the ``application/pdf`` the link promised, pages with no Content-Type at all. The
extractor that runs next depends on the answer, so the declared type is kept only
when the first bytes do not contradict it. The rules follow the WHATWG MIME
Sniffing standard (§7 "Determining the computed MIME type") in spirit: magic
numbers first, then HTML markers after leading whitespace, then the binary-byte
test; a URL extension is the weakest hint and only breaks a tie.

Charset order for `decode_text` is the HTML standard's (§13.2.3.2 "Determining the
character encoding"): byte-order mark, the transport's charset parameter, a
``<meta charset>`` / ``http-equiv`` in the first 4 KiB, then detection. A declared
charset is used only when Python knows it *and* the body decodes with it without
error; a wrong or unknown declaration (``charset=foo-bar-99``) falls through
rather than filling the text with replacement characters. One exception to the
order: a windows-1252 / latin-1 label on a body that is valid non-ASCII UTF-8 is
read as UTF-8 (the label is a server default far more often than the truth). Detection is
`lyra.pipelines.extract.extract_text.decode_bytes` (strict UTF-8, charset-normalizer,
cp1252), so fetched pages and local files decode the same way.
"""

from __future__ import annotations

import codecs
import mimetypes
import re
from email.message import Message
from typing import Final
from urllib.parse import urlsplit

SNIFF_BYTES: Final = 1024
META_CHARSET_BYTES: Final = 4096
# Types that say nothing about the content, so the body decides.
UNINFORMATIVE_TYPES: Final = frozenset(
    {
        "",
        "application/octet-stream",
        "binary/octet-stream",
        "application/binary",
        "application/unknown",
        "application/x-download",
        "application/force-download",
        "application/download",
        "text/plain",
        "unknown/unknown",
    }
)
# WHATWG MIME Sniffing §7.1: tags that mark HTML when they open the document.
_HTML_TAGS: Final = (
    b"<!doctype html",
    b"<html",
    b"<head",
    b"<script",
    b"<iframe",
    b"<h1",
    b"<div",
    b"<font",
    b"<table",
    b"<a",
    b"<style",
    b"<title",
    b"<b",
    b"<body",
    b"<br",
    b"<p",
    b"<!--",
)
_TAG_TERMINATORS: Final = b" >\t\n\r\x0c"
_MAGIC: Final[tuple[tuple[bytes, str], ...]] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"\x1f\x8b\x08", "application/gzip"),
    (b"PK\x03\x04", "application/zip"),
    (b"WARC/", "application/warc"),
)
_WIDE_BOMS: Final = (
    codecs.BOM_UTF16_LE,
    codecs.BOM_UTF16_BE,
    codecs.BOM_UTF32_LE,
    codecs.BOM_UTF32_BE,
)
# Declared types a body is read as markup under (a binary body is not).
_MARKUP_TYPES: Final = frozenset({"text/html", "application/xhtml+xml"})
# WHATWG §4.6 "binary data byte": a control character text never contains.
_BINARY_BYTES: Final = frozenset([*range(0x00, 0x09), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20)])
# Longest first: the UTF-32-LE BOM starts with the UTF-16-LE one.
_BOMS: Final[tuple[tuple[bytes, str], ...]] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
)
_META_CHARSET = re.compile(
    rb"""<meta\b[^>]{0,512}?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.IGNORECASE
)
# WHATWG Encoding: these labels mean windows-1252 on the web, and latin-1 never
# fails to decode, which would hide a wrong declaration.
_WEB_ALIASES: Final = {"latin1": "cp1252", "iso8859-1": "cp1252", "ascii": "cp1252"}


def media_type(content_type: str | None) -> str:
    """The lower-cased type/subtype of a Content-Type value, without parameters."""
    if not content_type:
        return ""
    return content_type.split(";", 1)[0].strip().lower()


def charset_param(content_type: str | None) -> str | None:
    """The charset parameter of a Content-Type value as written, or None."""
    if not content_type:
        return None
    message = Message()
    message["content-type"] = content_type
    value = message.get_param("charset")
    if not isinstance(value, str):
        return None
    return value.strip().strip("\"'") or None


def _lead(body: bytes) -> bytes:
    """The first bytes after a UTF-8 BOM and leading whitespace, lower-cased."""
    head = body[:SNIFF_BYTES]
    if head.startswith(codecs.BOM_UTF8):
        head = head[len(codecs.BOM_UTF8) :]
    return head.lstrip(b" \t\n\r\x0c").lower()


def _is_pdf(body: bytes) -> bool:
    # PDF readers accept the header anywhere in the first 1 KiB (PDF 32000 §7.5.2
    # implementation note); servers and proxies sometimes prepend junk.
    return b"%PDF-" in body[:SNIFF_BYTES]


def _looks_html(lead: bytes) -> bool:
    for tag in _HTML_TAGS:
        if lead.startswith(tag):
            rest = lead[len(tag) : len(tag) + 1]
            if tag == b"<!--" or rest == b"" or rest in _TAG_TERMINATORS:
                return True
    return False


def _xml_type(lead: bytes) -> str | None:
    if not lead.startswith(b"<?xml"):
        return None
    window = lead[:SNIFF_BYTES]
    if b"<rss" in window:
        return "application/rss+xml"
    if b"<feed" in window:
        return "application/atom+xml"
    if b"<html" in window:
        return "application/xhtml+xml"
    return "application/xml"


def _is_binary(body: bytes) -> bool:
    return any(byte in _BINARY_BYTES for byte in body[:SNIFF_BYTES])


def _from_url(url: str) -> str | None:
    path = urlsplit(url).path
    guessed, _ = mimetypes.guess_type(path, strict=False)
    return guessed


def _wide_text(body: bytes, declared: str) -> bool:
    """UTF-16 or UTF-32 text (by its BOM or its declared charset): its ASCII letters
    come with zero bytes, which are not binary there."""
    if body.startswith(_WIDE_BOMS):
        return True
    charset = (charset_param(declared) or "").lower().replace("_", "-")
    return charset.startswith(("utf-16", "utf-32"))


def sniff_content_type(declared: str, body: bytes, url: str = "") -> str:
    """The media type to treat `body` as (lower-case, no parameters).

    The declared type wins unless it is uninformative (missing, octet-stream,
    text/plain) or contradicted: PDF bytes are a PDF whatever the header says, an
    HTML document labelled as a PDF is the HTML page it is, and an image, an archive
    or binary bytes labelled as HTML are not HTML.
    """
    stated = media_type(declared)
    lead = _lead(body)
    if _is_pdf(body):
        return "application/pdf"
    if stated == "application/pdf":
        # A "PDF" that opens like a web page is an error, login or landing page.
        return "text/html" if _looks_html(lead) else stated
    magic = next((kind for sig, kind in _MAGIC if body.startswith(sig)), None)
    if stated in _MARKUP_TYPES and (
        magic is not None
        or (_is_binary(body) and not _looks_html(lead) and not _wide_text(body, declared))
    ):
        # An image, an archive or random bytes sent as a web page: read as markup it
        # would be pages of garbage fragments. Real pages with a stray control byte
        # in the middle still open like HTML and stay HTML.
        return magic or "application/octet-stream"
    if stated not in UNINFORMATIVE_TYPES:
        return stated
    if magic is not None:
        return magic
    xml = _xml_type(lead)
    if xml is not None:
        return xml
    if _looks_html(lead):
        return "text/html"
    if stated == "text/plain":
        return stated
    if not body:
        return _from_url(url) or "application/octet-stream"
    if _is_binary(body):
        return "application/octet-stream"
    if lead[:1] in (b"{", b"[") and _from_url(url) in (None, "application/json"):
        return "application/json"
    return _from_url(url) or "text/plain"


def _codec(label: str | None) -> str | None:
    """Python's codec name for a charset label, or None when unknown."""
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip()).name
    except (LookupError, ValueError):
        return None
    return _WEB_ALIASES.get(name, name)


def meta_charset(body: bytes) -> str | None:
    """The charset a ``<meta charset>`` or ``http-equiv`` tag in the first 4 KiB names."""
    found = _META_CHARSET.search(body[:META_CHARSET_BYTES])
    return found.group(1).decode("ascii").lower() if found else None


def _decode_strict(body: bytes, codec: str) -> str | None:
    try:
        return body.decode(codec)
    except (UnicodeDecodeError, LookupError):
        return None


def decode_text(body: bytes, content_type_header: str | None) -> tuple[str, str]:
    """Decode a fetched body to text; returns (text, codec name used). Never raises."""
    if not body:
        return "", "utf-8"
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return body[len(bom) :].decode(codec, errors="replace"), codec
    for label, source in (
        (charset_param(content_type_header), "header"),
        (meta_charset(body), "meta"),
    ):
        declared = _codec(label)
        if declared is None:
            continue
        codec = declared
        if source == "meta" and codec.startswith(("utf-16", "utf-32")):
            # A meta tag readable as ASCII cannot be in UTF-16; the HTML standard
            # reads such a declaration as UTF-8 (§13.2.3.2 step "get an encoding").
            codec = "utf-8"
        if codec == "cp1252" and not body.isascii():
            # "charset=ISO-8859-1" is the default of many server stacks, sent for
            # pages that are really UTF-8; non-ASCII text that is valid UTF-8 is
            # UTF-8 (chance validity of cp1252 text is negligible), so trust it.
            utf8 = _decode_strict(body, "utf-8")
            if utf8 is not None:
                return utf8, "utf-8"
        text = _decode_strict(body, codec)
        if text is not None:
            return text, codec
    # Imported here: a DomainFetcher sniffs content types (`sniff_content_type`) and
    # never decodes, and the extractor's module brings lxml, NumPy and the injection
    # rules into every fetcher's process (issue 13 item 5).
    from lyra.pipelines.extract.extract_text import decode_bytes

    text, used = decode_bytes(body)
    return text, str(used)
