"""The local engine's corpus scanner (ARCHITECTURE §3 step 3, §7 offline corpus).

Each top-level subfolder is one source named by the folder; root files are `local`;
bad files are skipped with a reason and the rest indexed; a missing or empty corpus
is an error naming the path.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from lyra.pipelines.discover import local_corpus
from lyra.pipelines.discover.local_corpus import (
    CorpusError,
    corpus_fingerprint,
    scan_corpus,
)

CAP = 50 * 1024 * 1024  # search.max_file_bytes default

WHO_HTML = """<html><head><meta charset="utf-8"><title>Measles fact sheet</title></head><body>
<article><h1>Measles</h1>
<p>Measles is a highly contagious disease caused by a virus that spreads through the air.</p>
<h2>Prevention</h2>
<p>Two doses of measles vaccine give about 97% protection against the disease.</p>
</article></body></html>"""
LATIN1_TEXT = (
    "La rougeole est une maladie très contagieuse. La vaccination à deux doses protège "
    "près de 97 % des enfants, selon les données de santé publique de l'année dernière."
)

# pymupdf ships no type annotations; the tests drive it through Any.
PYMUPDF: Any = pymupdf


def _pdf_bytes(text: str) -> bytes:
    doc = PYMUPDF.open()
    page = doc.new_page()
    page.insert_textbox(PYMUPDF.Rect(72, 72, 523, 400), text, fontsize=11)
    data: bytes = doc.tobytes()
    doc.close()
    return data


def _encrypted_pdf_bytes(text: str) -> bytes:
    doc = PYMUPDF.open(stream=_pdf_bytes(text), filetype="pdf")
    data: bytes = doc.tobytes(
        encryption=PYMUPDF.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner"
    )
    doc.close()
    return data


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A small corpus: three sources, root files, and every kind of bad file."""
    root = tmp_path / "corpus"
    (root / "who.int").mkdir(parents=True)
    (root / "who.int" / "measles.html").write_text(WHO_HTML, encoding="utf-8")
    (root / "cdc.gov" / "reports").mkdir(parents=True)
    (root / "cdc.gov" / "reports" / "vaccines.pdf").write_bytes(
        _pdf_bytes("Vaccination coverage with two doses reached 92% of children in 2022.")
    )
    (root / "cdc.gov" / "broken.pdf").write_bytes(b"%PDF-1.7\n%this file was truncated")
    (root / "cdc.gov" / "locked.pdf").write_bytes(
        _encrypted_pdf_bytes("Confidential measles surveillance data for 2023 and 2024.")
    )
    (root / "sante.fr").mkdir()
    (root / "sante.fr" / "rougeole.txt").write_bytes(LATIN1_TEXT.encode("latin-1"))
    (root / "notes.md").write_text(
        "# My notes\n\nMeasles outbreaks grew in Europe during 2023 and 2024.\n", encoding="utf-8"
    )
    (root / "slides.docx").write_bytes(b"PK\x03\x04 not supported")
    (root / ".DS_Store").write_bytes(b"\x00\x01")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD.txt").write_text("ref: refs/heads/main, hidden tooling file\n")
    return root


def test_scan_corpus_domains_urls_and_documents(corpus: Path) -> None:
    """Folder name = domain; root files = local; URLs are file:// URIs of absolute paths."""
    scan = scan_corpus([corpus], max_file_bytes=CAP)
    by_name = {Path(d.source_path or "").name: d for d in scan.documents}
    assert sorted(by_name) == ["measles.html", "notes.md", "rougeole.txt", "vaccines.pdf"]
    assert by_name["measles.html"].domain == "who.int"
    assert by_name["vaccines.pdf"].domain == "cdc.gov"
    assert by_name["rougeole.txt"].domain == "sante.fr"
    assert by_name["notes.md"].domain == "local"
    resolved = corpus.resolve()
    assert by_name["measles.html"].url == (resolved / "who.int" / "measles.html").as_uri()
    assert by_name["measles.html"].url.startswith("file:///")
    assert by_name["measles.html"].title == "Measles"
    assert by_name["notes.md"].title == "My notes"
    assert by_name["rougeole.txt"].title == "rougeole"  # plain text: the file name
    assert by_name["vaccines.pdf"].fragments[0].page_number == 1
    assert by_name["vaccines.pdf"].text == (
        "Vaccination coverage with two doses reached 92% of children in 2022."
    )


def test_scan_corpus_decodes_latin1_text(corpus: Path) -> None:
    """A non-UTF-8 file is decoded, not mangled or skipped."""
    scan = scan_corpus([corpus], max_file_bytes=CAP)
    rougeole = next(d for d in scan.documents if d.domain == "sante.fr")
    assert rougeole.text == LATIN1_TEXT
    assert rougeole.byte_size == len(LATIN1_TEXT.encode("latin-1"))


def test_scan_corpus_skips_bad_files_with_reasons(corpus: Path) -> None:
    """Corrupt and encrypted PDFs and unsupported types are skipped; hidden files ignored."""
    scan = scan_corpus([corpus], max_file_bytes=CAP)
    resolved = corpus.resolve()
    skipped = {path.relative_to(resolved).as_posix(): reason for path, reason in scan.skipped}
    assert sorted(skipped) == ["cdc.gov/broken.pdf", "cdc.gov/locked.pdf", "slides.docx"]
    assert skipped["cdc.gov/locked.pdf"] == (
        "encrypted PDF: it needs a password and was not indexed"
    )
    assert skipped["cdc.gov/broken.pdf"].startswith("corrupt or unreadable PDF")
    assert skipped["slides.docx"] == "unsupported file type .docx"
    assert len(scan.warnings) == 2
    assert scan.warnings[0].startswith(f"{resolved / 'cdc.gov' / 'broken.pdf'}: corrupt")
    assert scan.warnings[1] == (
        f"{resolved / 'cdc.gov' / 'locked.pdf'}: encrypted PDF: it needs a password and was "
        "not indexed; skipped"
    )


def test_scan_corpus_caps_large_text_files(tmp_path: Path) -> None:
    """A 2 MB text file with a 100 kB cap is read up to the cap, with a warning."""
    root = tmp_path / "big"
    root.mkdir()
    line = "Measles cases were reported in the district during week {n} of the year.\n\n"
    body = "".join(line.format(n=n) for n in range(30000)).encode("utf-8")
    assert len(body) > 2_000_000
    (root / "log.txt").write_bytes(body)
    cap = 100_000
    scan = scan_corpus([root], max_file_bytes=cap)
    (document,) = scan.documents
    assert document.byte_size == cap
    assert document.fragments[0].text == (
        "Measles cases were reported in the district during week 0 of the year."
    )
    assert len(document.text) < cap
    note = (
        f"read only the first {cap} of {len(body)} bytes (raise search.max_file_bytes to read more)"
    )
    assert document.warnings == [note]
    assert scan.warnings == [f"{(root / 'log.txt').resolve()}: {note}"]
    assert scan.skipped == []


def test_scan_corpus_cap_cuts_utf8_mid_character(tmp_path: Path) -> None:
    """A cap inside a multi-byte character drops the partial character only."""
    root = tmp_path / "jp"
    root.mkdir()
    text = "麻疹の患者数は二〇二三年に欧州で大きく増加したと報告されている。" * 10
    (root / "report.txt").write_bytes(text.encode("utf-8"))
    scan = scan_corpus([root], max_file_bytes=100)  # 100 = 33 characters and 1 byte
    (document,) = scan.documents
    assert document.text == text[:33]


def test_scan_corpus_skips_pdf_over_the_cap(tmp_path: Path) -> None:
    """A PDF cannot be read in part: over the cap it is skipped, naming the setting."""
    root = tmp_path / "pdfs"
    root.mkdir()
    data = _pdf_bytes("Measles vaccination coverage reached 92% of children in 2022.")
    (root / "big.pdf").write_bytes(data)
    (root / "small.md").write_text("Measles is preventable by vaccination with two doses.\n")
    scan = scan_corpus([root], max_file_bytes=len(data) - 1)
    assert [Path(d.source_path or "").name for d in scan.documents] == ["small.md"]
    reason = f"PDF of {len(data)} bytes exceeds search.max_file_bytes={len(data) - 1}"
    assert scan.skipped == [((root / "big.pdf").resolve(), reason)]
    assert scan.warnings == [f"{(root / 'big.pdf').resolve()}: {reason}; skipped"]


def test_scan_corpus_missing_path_names_it(tmp_path: Path) -> None:
    """A corpus path that does not exist is an error with the path in the message."""
    missing = tmp_path / "nowhere"
    with pytest.raises(CorpusError, match=r"corpus path does not exist: .*nowhere"):
        scan_corpus([missing], max_file_bytes=CAP)


def test_scan_corpus_without_supported_files_names_it(tmp_path: Path) -> None:
    """A folder with nothing to index is an error, not an empty result."""
    root = tmp_path / "office"
    root.mkdir()
    (root / "slides.pptx").write_bytes(b"PK\x03\x04")
    with pytest.raises(CorpusError, match=r"no supported files .* under corpus path .*office"):
        scan_corpus([root], max_file_bytes=CAP)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(CorpusError, match="empty"):
        scan_corpus([empty], max_file_bytes=CAP)


def test_scan_corpus_argument_errors(tmp_path: Path) -> None:
    """No paths and a non-positive cap are caller errors."""
    with pytest.raises(CorpusError, match=r"engines\.local\.paths"):
        scan_corpus([], max_file_bytes=CAP)
    with pytest.raises(ValueError, match="max_file_bytes"):
        scan_corpus([tmp_path], max_file_bytes=0)


def test_scan_corpus_accepts_a_single_file_and_several_paths(corpus: Path, tmp_path: Path) -> None:
    """A file path is its own corpus (domain local); documents of all paths are merged."""
    single = tmp_path / "single.md"
    single.write_text("Measles spreads through the air and infects nine in ten contacts.\n")
    scan = scan_corpus([single, corpus], max_file_bytes=CAP)
    # Root files of a folder come before its subfolders (os.walk order, sorted names).
    assert [d.domain for d in scan.documents] == [
        "local",
        "local",
        "cdc.gov",
        "sante.fr",
        "who.int",
    ]


def test_scan_corpus_empty_files_are_skipped(tmp_path: Path) -> None:
    """A file with no text is skipped with its reason; the scan goes on."""
    root = tmp_path / "mixed"
    root.mkdir()
    (root / "empty.txt").write_bytes(b"")
    (root / "real.txt").write_text("Measles vaccination is safe and effective for children.\n")
    scan = scan_corpus([root], max_file_bytes=CAP)
    assert [Path(d.source_path or "").name for d in scan.documents] == ["real.txt"]
    assert scan.skipped == [((root / "empty.txt").resolve(), "no extractable text")]


def test_corpus_fingerprint_changes_with_the_corpus(corpus: Path) -> None:
    """Same files → same fingerprint; touching, resizing or adding a file changes it."""
    first = corpus_fingerprint([corpus])
    assert corpus_fingerprint([corpus]) == first
    assert len(first) == 64

    notes = corpus / "notes.md"
    stat = notes.stat()
    os.utime(notes, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    touched = corpus_fingerprint([corpus])
    assert touched != first

    (corpus / "who.int" / "new.txt").write_text("Measles deaths fell by 80% since 2000.\n")
    added = corpus_fingerprint([corpus])
    assert added not in {first, touched}


def test_corpus_fingerprint_missing_path_raises(tmp_path: Path) -> None:
    """The fingerprint of a missing corpus is an error, like the scan."""
    with pytest.raises(CorpusError, match="does not exist"):
        corpus_fingerprint([tmp_path / "gone"])


def test_scan_corpus_a_file_whose_extraction_breaks_costs_only_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An extractor that raises something unforeseen (lxml refusing a string, say) skips
    that file with the error's name; the rest of the corpus is read."""
    (tmp_path / "good.html").write_text(WHO_HTML, encoding="utf-8")
    (tmp_path / "bad.html").write_text("<html><body><p>bad page text</p></body></html>")
    real = local_corpus._extract

    def extract(kind: str, data: bytes, url: str, domain: str) -> Any:
        if url.endswith("/bad.html"):
            raise ValueError("All strings must be XML compatible")
        return real(kind, data, url, domain)

    monkeypatch.setattr(local_corpus, "_extract", extract)
    scan = scan_corpus([tmp_path], max_file_bytes=CAP)
    assert [d.url for d in scan.documents] == [(tmp_path.resolve() / "good.html").as_uri()]
    resolved = tmp_path.resolve()
    assert scan.skipped == [(resolved / "bad.html", "extraction failed (ValueError)")]
    assert scan.warnings == [f"{resolved / 'bad.html'}: extraction failed (ValueError); skipped"]
