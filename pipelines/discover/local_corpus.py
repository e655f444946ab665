"""The `local` engine's corpus scanner: folders of HTML, PDF, Markdown and text files.

Layout (ARCHITECTURE §3 step 3, `engines.local.paths`): each top-level subfolder of a
corpus path is one source and its name is the domain of its documents
(`corpus/who.int/report.html` → `who.int`); files directly in the root belong to the
domain `local`. One bad file never stops a scan: it is listed in `skipped` with the
reason and a warning, and the rest are indexed. A missing corpus, or one with nothing
to index, is an error that names the path.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from lyra.pipelines.extract.documents import CUT_WARNING, Document, ExtractionError
from lyra.pipelines.extract.extract_html import extract_html, sniff_html_charset
from lyra.pipelines.extract.extract_pdf import extract_pdf
from lyra.pipelines.extract.extract_text import decode_bytes, extract_plain

log = logging.getLogger(__name__)

ROOT_DOMAIN: Final = "local"
# File suffix (lower case) → extractor kind.
SUPPORTED_SUFFIXES: Final[dict[str, str]] = {
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".pdf": "pdf",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
}
_SETTING_HINT: Final = "search.max_file_bytes"


class CorpusError(Exception):
    """A corpus path cannot be scanned at all (missing, unreadable, nothing to index)."""


@dataclass(frozen=True, slots=True)
class CorpusScan:
    """The documents of one or more corpus folders, and what was left out and why."""

    documents: list[Document]
    warnings: list[str] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)


# Files directly in a corpus root with these names describe the corpus (a README, an
# answer key like examples/corpus/EXPECTED.md); they are not sources and indexing them
# would turn the description into evidence (docs/decisions/0003).
CORPUS_METADATA_STEMS: Final = frozenset({"README", "EXPECTED", "LICENSE", "NOTICE", "CHANGELOG"})


def _is_hidden(name: str) -> bool:
    return name.startswith(".")


def _is_corpus_metadata(root: Path, path: Path) -> bool:
    return path.parent == root and path.stem.upper() in CORPUS_METADATA_STEMS


def _walk_files(root: Path) -> Iterator[Path]:
    """Every visible regular file under `root`, in a stable (sorted) order."""
    if root.is_file():
        yield root
        return
    for directory, dirnames, filenames in os.walk(root):
        # Hidden folders (.git, .cache) are tooling, not sources; sorting in place
        # makes os.walk visit folders in a reproducible order.
        dirnames[:] = sorted(d for d in dirnames if not _is_hidden(d))
        for name in sorted(filenames):
            path = Path(directory) / name
            if not _is_hidden(name) and not _is_corpus_metadata(root, path):
                yield path


def _domain_for(root: Path, path: Path) -> str:
    if root.is_file():
        return ROOT_DOMAIN
    relative = path.relative_to(root)
    if len(relative.parts) < 2:
        return ROOT_DOMAIN
    return relative.parts[0].strip().lower() or ROOT_DOMAIN


def _check_root(path: Path) -> Path:
    if not path.exists():
        raise CorpusError(f"corpus path does not exist: {path}")
    if not (path.is_dir() or path.is_file()):
        raise CorpusError(f"corpus path is neither a folder nor a file: {path}")
    return path.resolve()


def _read(path: Path, limit: int) -> bytes:
    with path.open("rb") as handle:
        return handle.read(limit)


def _extract(kind: str, data: bytes, url: str, domain: str) -> Document:
    if kind == "pdf":
        return extract_pdf(data, url, domain)
    if kind == "html":
        text, _ = decode_bytes(data, declared_encoding=sniff_html_charset(data))
        return extract_html(text, url, domain, byte_size=len(data))
    text, _ = decode_bytes(data)
    return extract_plain(text, url, domain, markdown=kind == "markdown", byte_size=len(data))


def _scan_file(root: Path, path: Path, max_file_bytes: int, scan: CorpusScan) -> Document | None:
    kind = SUPPORTED_SUFFIXES.get(path.suffix.lower())
    if kind is None:
        scan.skipped.append((path, f"unsupported file type {path.suffix or '(none)'}"))
        return None
    try:
        size = path.stat().st_size
    except OSError as exc:
        scan.skipped.append((path, f"unreadable: {exc.strerror or exc}"))
        scan.warnings.append(f"{path}: unreadable ({exc.strerror or exc}); skipped")
        return None
    truncated = size > max_file_bytes
    if truncated and kind == "pdf":
        # A PDF cut short has no cross-reference table: reading a prefix is useless.
        reason = f"PDF of {size} bytes exceeds {_SETTING_HINT}={max_file_bytes}"
        scan.skipped.append((path, reason))
        scan.warnings.append(f"{path}: {reason}; skipped")
        return None
    try:
        data = _read(path, max_file_bytes)
    except OSError as exc:
        scan.skipped.append((path, f"unreadable: {exc.strerror or exc}"))
        scan.warnings.append(f"{path}: unreadable ({exc.strerror or exc}); skipped")
        return None
    url = path.as_uri()
    try:
        document = _extract(kind, data, url, _domain_for(root, path))
    except ExtractionError as exc:
        scan.skipped.append((path, str(exc)))
        scan.warnings.append(f"{path}: {exc}; skipped")
        return None
    except Exception as exc:  # one hostile file must not fail the scan of the corpus
        log.warning("extracting %s failed", path, exc_info=True)
        reason = f"extraction failed ({type(exc).__name__})"
        scan.skipped.append((path, reason))
        scan.warnings.append(f"{path}: {reason}; skipped")
        return None
    if not document.fragments:
        scan.skipped.append((path, "no extractable text"))
        scan.warnings.append(f"{path}: no extractable text; skipped")
        return None
    extra: list[str] = []
    if CUT_WARNING in document.warnings:
        scan.warnings.append(f"{path}: {CUT_WARNING}")
    if truncated:
        note = (
            f"read only the first {max_file_bytes} of {size} bytes "
            f"(raise {_SETTING_HINT} to read more)"
        )
        extra.append(note)
        scan.warnings.append(f"{path}: {note}")
    return dataclasses.replace(
        document,
        title=document.title or path.stem,
        source_path=str(path),
        warnings=[*document.warnings, *extra],
    )


def rescan_file(path: Path, domain: str, max_file_bytes: int) -> tuple[Document | None, list[str]]:
    """One corpus file read and extracted again, as a scan reads it (replay, issue 15):
    the document (None when it cannot be read now) and the warnings."""
    scan = CorpusScan(documents=[])
    document = _scan_file(path.parent, path, max_file_bytes, scan)
    if document is None:
        return None, scan.warnings or [f"{path}: {reason}" for _, reason in scan.skipped]
    return dataclasses.replace(document, domain=domain), scan.warnings


def scan_corpus(paths: Sequence[Path], max_file_bytes: int) -> CorpusScan:
    """Extract every supported file under `paths`; raise `CorpusError` for a bad path."""
    if max_file_bytes <= 0:
        raise ValueError(f"max_file_bytes must be positive, got {max_file_bytes}")
    if not paths:
        raise CorpusError("no corpus paths given (set engines.local.paths)")
    scan = CorpusScan(documents=[])
    for given in paths:
        root = _check_root(Path(given).expanduser())
        supported = 0
        for path in _walk_files(root):
            if path.suffix.lower() in SUPPORTED_SUFFIXES:
                supported += 1
            document = _scan_file(root, path, max_file_bytes, scan)
            if document is not None:
                scan.documents.append(document)
        if supported == 0:
            kinds = ", ".join(sorted(SUPPORTED_SUFFIXES))
            raise CorpusError(f"no supported files ({kinds}) under corpus path {given}")
    return scan


def corpus_fingerprint(paths: Sequence[Path]) -> str:
    """sha256 over relative paths, sizes and mtimes of every visible file under `paths`.

    The resolved roots are hashed too, because document URLs are absolute `file://`
    paths. Equal fingerprints mean a cached scan can be reused; any added, removed,
    resized or touched file changes it.
    """
    digest = hashlib.sha256()
    for index, given in enumerate(paths):
        root = _check_root(Path(given).expanduser())
        digest.update(f"root {index} {root}\n".encode())
        for path in _walk_files(root):
            stat = path.stat()
            relative = path.name if root.is_file() else path.relative_to(root).as_posix()
            digest.update(f"{relative}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()
