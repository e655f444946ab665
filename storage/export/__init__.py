"""A task's evidence out of DuckDB, in the formats researchers' tools read (issue 15).

``pack.evidence_pack`` gathers one task's claims, their edges and quotes, and the
sources they cite into one plain dict; ``bibliography`` writes it as BibTeX, RIS or
CSL-JSON (one entry per cited source), ``graph`` as GraphML, ``report`` as a
JSON-lines evidence pack or a Markdown evidence report, ``html`` as a self-contained
HTML report with a drawing of the evidence graph. ``render`` picks the writer by format name.
"""

from __future__ import annotations

from typing import Any

from lyra.storage.export.bibliography import bibtex, csl_json, ris
from lyra.storage.export.graph import graphml
from lyra.storage.export.html import html_report
from lyra.storage.export.report import jsonl, markdown

FORMATS: dict[str, tuple[str, Any]] = {
    "bibtex": ("application/x-bibtex", bibtex),
    "ris": ("application/x-research-info-systems", ris),
    "csl-json": ("application/vnd.citationstyles.csl+json", csl_json),
    "graphml": ("application/graphml+xml", graphml),
    "jsonl": ("application/jsonl", jsonl),
    "markdown": ("text/markdown", markdown),
    "html": ("text/html", html_report),
}


def render(pack: dict[str, Any], fmt: str) -> dict[str, Any]:
    """``{"format", "media_type", "content", "claims", "sources"}`` for one format."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; one of {', '.join(FORMATS)}")
    media_type, writer = FORMATS[fmt]
    return {
        "format": fmt,
        "media_type": media_type,
        "content": writer(pack),
        "claims": len(pack["claims"]),
        "sources": len(pack["sources"]),
    }
