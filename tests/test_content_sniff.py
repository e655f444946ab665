"""Content-type sniffing and charset decoding of fetched bodies (WHATWG MIME sniffing)."""

from __future__ import annotations

import codecs
import gzip
from pathlib import Path

import pytest

from lyra.pipelines.extract.content_sniff import (
    charset_param,
    decode_text,
    media_type,
    meta_charset,
    sniff_content_type,
)

REALWORLD = Path(__file__).resolve().parents[2] / "shared" / "realworld"
PDFS = REALWORLD / "warc" / "pdf-pdfminer"
WARCS = REALWORLD / "warc" / "warcio"
ARTICLES = REALWORLD / "articles"

HTML = b"<!DOCTYPE html><html><head><title>t</title></head><body><p>hi</p></body></html>"
PDF_HEAD = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"


def _require(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"third-party files not present at {path}")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("text/html; charset=UTF-8", "text/html"),
        ("  Application/PDF ", "application/pdf"),
        ("", ""),
        (None, ""),
    ],
)
def test_media_type(value: str | None, expected: str) -> None:
    assert media_type(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("text/html; charset=UTF-8", "UTF-8"),
        ('text/html; charset="iso-8859-1"', "iso-8859-1"),
        ("text/html;charset=shift_jis;foo=bar", "shift_jis"),
        ("text/html", None),
        ("text/html; charset=", None),
        (None, None),
    ],
)
def test_charset_param(value: str | None, expected: str | None) -> None:
    assert charset_param(value) == expected


def test_real_pdfs_are_pdfs_whatever_the_label() -> None:
    _require(PDFS)
    pdfs = sorted(PDFS.glob("*.pdf"))
    assert len(pdfs) == 11
    for path in pdfs:
        body = path.read_bytes()
        for declared in ("application/pdf", "application/octet-stream", "", "text/html"):
            assert sniff_content_type(declared, body) == "application/pdf", (path.name, declared)


def test_real_arxiv_pdf_sent_as_html_is_a_pdf() -> None:
    path = REALWORLD / "warc" / "arxiv_1111.2011v2.pdf"
    _require(path)
    body = path.read_bytes()
    assert sniff_content_type("text/html; charset=utf-8", body, "https://arxiv.org/pdf/1") == (
        "application/pdf"
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("example.warc", "application/warc"),
        ("example-digest.warc", "application/warc"),
        ("example.warc.gz", "application/gzip"),
        ("example.arc.gz", "application/gzip"),
    ],
)
def test_real_warc_files_by_magic(name: str, expected: str) -> None:
    path = WARCS / name
    _require(path)
    assert sniff_content_type("application/octet-stream", path.read_bytes()) == expected


def test_real_articles_without_type_are_html() -> None:
    _require(ARTICLES)
    pages = [
        *sorted((ARTICLES / "trafilatura-eval" / "html").glob("*.html")),
        *sorted((ARTICLES / "readability-testpages").glob("*/source.html")),
    ]
    bodies = [p.read_bytes() for p in pages]
    bodies += [
        gzip.decompress(p.read_bytes())
        for p in sorted((ARTICLES / "scrapinghub-aeb" / "html").glob("*.html.gz"))
    ]
    assert len(bodies) == 50
    for declared in ("", "application/octet-stream", "text/plain"):
        kinds = {sniff_content_type(declared, body) for body in bodies}
        assert kinds == {"text/html"}, declared


@pytest.mark.parametrize(
    ("declared", "body", "url", "expected"),
    [
        ("text/html; charset=utf-8", HTML, "", "text/html"),
        ("TEXT/HTML", HTML, "", "text/html"),
        ("", HTML, "", "text/html"),
        ("application/octet-stream", HTML, "", "text/html"),
        ("text/plain", HTML, "", "text/html"),
        ("text/plain", b"\xef\xbb\xbf  \n<html><body>x</body></html>", "", "text/html"),
        ("", b"<!-- generated --><div>x</div>", "", "text/html"),
        ("", b"<p>para</p>", "", "text/html"),
        ("", b"<pre>code</pre>", "", "text/plain"),
        ("text/plain", b"plain words < and > signs", "", "text/plain"),
        ("text/plain", b"<bogus>not html</bogus>", "", "text/plain"),
        ("", b"just words", "", "text/plain"),
        ("", b"just words", "https://example.com/notes.md", "text/markdown"),
        ("", b'{"a": 1}', "https://api.example.com/x", "application/json"),
        ("", b"[1, 2]", "", "application/json"),
        ("", b"\x00\x01\x02binary", "", "application/octet-stream"),
        ("", b"", "https://example.com/paper.pdf", "application/pdf"),
        ("", b"", "", "application/octet-stream"),
        ("application/pdf", PDF_HEAD, "", "application/pdf"),
        ("text/html", PDF_HEAD, "", "application/pdf"),
        ("application/octet-stream", PDF_HEAD, "", "application/pdf"),
        ("", b"\r\n\r\n" + PDF_HEAD, "", "application/pdf"),
        ("application/pdf", HTML, "https://example.com/paper.pdf", "text/html"),
        ("application/pdf", b"\x00garbage", "", "application/pdf"),
        ("application/json", b'{"a": 1}', "", "application/json"),
        ("image/png", b"\x89PNG\r\n\x1a\n....", "", "image/png"),
        ("", b"\x89PNG\r\n\x1a\n....", "", "image/png"),
        ("application/octet-stream", b"\xff\xd8\xff\xe0JFIF", "", "image/jpeg"),
        ("", b'<?xml version="1.0"?><rss version="2.0">', "", "application/rss+xml"),
        ("", b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom">', "",
         "application/atom+xml"),
        ("", b'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml">', "",
         "application/xhtml+xml"),
        ("", b'<?xml version="1.0"?><urlset>', "", "application/xml"),
        ("application/xml", HTML, "", "application/xml"),
    ],
)  # fmt: skip
def test_sniff_table(declared: str, body: bytes, url: str, expected: str) -> None:
    assert sniff_content_type(declared, body, url) == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'<html><head><meta charset="Shift_JIS"></head>', "shift_jis"),
        (b"<meta charset=utf-8>", "utf-8"),
        (
            b'<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-2">',
            "iso-8859-2",
        ),
        (b"<html><head><title>none</title></head>", None),
        (b" " * 5000 + b'<meta charset="koi8-r">', None),
    ],
)
def test_meta_charset(body: bytes, expected: str | None) -> None:
    assert meta_charset(body) == expected


TEXT_FR = "Café crème, déjà vu — naïve façade"
TEXT_JA = "日本語のテキストです。文字コードの判定。"


@pytest.mark.parametrize(
    ("body", "header", "expected_text", "expected_codec"),
    [
        (TEXT_FR.encode("utf-8"), "text/html; charset=utf-8", TEXT_FR, "utf-8"),
        (TEXT_FR.encode("cp1252"), "text/html; charset=windows-1252", TEXT_FR, "cp1252"),
        # latin-1 labels mean windows-1252 on the web (WHATWG Encoding).
        (TEXT_FR.encode("cp1252"), "text/html; charset=ISO-8859-1", TEXT_FR, "cp1252"),
        (TEXT_JA.encode("shift_jis"), "text/html; charset=Shift_JIS", TEXT_JA, "shift_jis"),
        (TEXT_JA.encode("euc_jp"), 'text/html; charset="EUC-JP"', TEXT_JA, "euc_jp"),
        # BOM beats a contradicting header.
        (codecs.BOM_UTF8 + TEXT_JA.encode("utf-8"), "text/html; charset=cp1252", TEXT_JA, "utf-8"),
        (codecs.BOM_UTF16_LE + TEXT_FR.encode("utf-16-le"), None, TEXT_FR, "utf-16-le"),
        (codecs.BOM_UTF16_BE + TEXT_FR.encode("utf-16-be"), "text/plain", TEXT_FR, "utf-16-be"),
        # Unknown charset names fall through to the meta tag, then to detection.
        (
            b'<meta charset="windows-1252"><p>' + TEXT_FR.encode("cp1252"),
            "text/html; charset=foo-bar-99",
            '<meta charset="windows-1252"><p>' + TEXT_FR,
            "cp1252",
        ),
        (TEXT_FR.encode("utf-8"), "text/html; charset=foo-bar-99", TEXT_FR, "utf-8"),
        # A declared charset the body does not decode with is a wrong declaration.
        (TEXT_FR.encode("cp1252"), "text/html; charset=utf-8", TEXT_FR, "cp1252"),
        (TEXT_FR.encode("utf-8"), None, TEXT_FR, "utf-8"),
        (b"", "text/html; charset=shift_jis", "", "utf-8"),
        # A meta tag readable as ASCII cannot be UTF-16: read it as UTF-8.
        (
            b'<meta charset="utf-16"><p>' + TEXT_FR.encode("utf-8"),
            None,
            '<meta charset="utf-16"><p>' + TEXT_FR,
            "utf-8",
        ),
    ],
)
def test_decode_text_table(
    body: bytes, header: str | None, expected_text: str, expected_codec: str
) -> None:
    assert decode_text(body, header) == (expected_text, expected_codec)


def test_header_charset_beats_meta() -> None:
    body = b'<meta charset="shift_jis"><p>' + TEXT_FR.encode("cp1252")
    text, codec = decode_text(body, "text/html; charset=windows-1252")
    assert codec == "cp1252"
    assert text.endswith(TEXT_FR)


@pytest.mark.parametrize(
    "body",
    [
        b"\x81\x8d\x8f\x90\x9d" * 50,  # undefined in cp1252
        bytes(range(256)) * 4,
        b"\xff\xfe\xff",  # a UTF-16 BOM and half a code unit
        TEXT_FR.encode("utf-8")[:-1],  # cut in the middle of a sequence
    ],
)
def test_decode_text_never_raises(body: bytes) -> None:
    text, codec = decode_text(body, "text/html; charset=utf-8")
    assert isinstance(text, str)
    assert codecs.lookup(codec).name != ""


def test_real_cp1252_declared_page() -> None:
    path = ARTICLES / "trafilatura-eval" / "html" / "wordsmith.org.maudlin.html"
    _require(path)
    text, codec = decode_text(path.read_bytes(), "text/html")
    assert codec == "cp1252"
    assert "maudlin" in text


@pytest.mark.parametrize(
    "header",
    ["text/html; charset=utf-8", "text/html; charset=ISO-8859-1", "text/html", None],
)
def test_real_utf8_page_decodes_as_utf8_even_under_a_latin1_label(header: str | None) -> None:
    path = ARTICLES / "trafilatura-eval" / "html" / "elpais.com.ciencia.html"
    _require(path)
    body = path.read_bytes()
    text, codec = decode_text(body, header)
    assert codec == "utf-8"
    assert text == body.decode("utf-8")
    assert "científic" in text


def test_latin1_label_on_ascii_body_stays_cp1252() -> None:
    assert decode_text(b"plain ascii", "text/plain; charset=iso-8859-1") == (
        "plain ascii",
        "cp1252",
    )


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # Random bytes and an image sent as a web page are not read as markup.
        (bytes(range(256)) * 8, "application/octet-stream"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "image/png"),
        (b"PK\x03\x04" + b"\x00" * 64, "application/zip"),
        # A real page with a stray control byte in its lead is still a page.
        (b"<!doctype html><html><body>\x01<p>Text</p></body></html>", "text/html"),
        (b"Plain words, no tags, no control bytes at all.", "text/html"),
        # UTF-16 and UTF-32 pages: their zero bytes are text there, not binary.
        (codecs.BOM_UTF16_LE + "<p>Hi</p>".encode("utf-16-le"), "text/html"),
        (codecs.BOM_UTF32_BE + "<p>Hi</p>".encode("utf-32-be"), "text/html"),
    ],
)
def test_binary_bodies_labelled_html_are_not_html(body: bytes, expected: str) -> None:
    assert sniff_content_type("text/html; charset=utf-8", body, "http://127.0.0.1/page") == expected


def test_a_page_declared_utf16_without_a_bom_is_html() -> None:
    body = "<!doctype html><p>Hello</p>".encode("utf-16-le")
    assert sniff_content_type("text/html; charset=UTF-16", body) == "text/html"
