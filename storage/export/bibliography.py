"""The cited sources of an evidence pack as BibTeX, RIS and CSL-JSON: one entry per
source, keyed by its stable citation key, with the claims it supports, refutes or was
extracted from in the note field.

Papers are ``@article`` / ``JOUR`` / ``article-journal`` (``@misc`` / ``GEN`` /
``article`` without a venue), web pages ``@online`` / ``ELEC`` / ``webpage`` with the
site, URL, access date and the path of the archived copy (BibTeX ``file``, RIS ``L1``,
CSL ``note``).
"""

from __future__ import annotations

import json
from typing import Any

_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped; other Unicode is kept (UTF-8
    BibTeX, as biber and Zotero read it)."""
    return "".join(_LATEX_SPECIALS.get(ch, ch) for ch in text)


def _verbatim(text: str) -> str:
    """A URL or DOI for a verbatim field: braces and spaces percent-encoded."""
    return text.replace("{", "%7B").replace("}", "%7D").replace(" ", "%20")


def _claims_by_key(pack: dict[str, Any]) -> dict[str, str]:
    return {c["id"]: c["text"] for c in pack["claims"]}


def source_notes(source: dict[str, Any], claims: dict[str, str]) -> list[str]:
    """One line per claim the source bears on: ``supports: <claim>`` and so on."""
    lines = []
    for relation, label in (
        ("supports", "supports"),
        ("refutes", "refutes"),
        ("origin_of", "states"),
    ):
        for claim_id in source[relation]:
            lines.append(f"Lyra {label}: {claims[claim_id]} [{claim_id}]")
    if source["dup_of"]:
        lines.append(f"Lyra: near-duplicate of page {source['dup_of']}")
    if source["is_retracted"]:
        lines.append("Lyra: retracted")
    return lines


def _entry_type(source: dict[str, Any], names: tuple[str, str, str]) -> str:
    """``names`` = (paper with a venue, paper without one, web page), per format."""
    if source["kind"] == "paper":
        return names[0] if source["venue"] else names[1]
    return names[2]


def _person_bibtex(person: dict[str, str]) -> str:
    if "literal" in person:
        return "{" + latex_escape(person["literal"]) + "}"
    return f"{latex_escape(person['family'])}, {latex_escape(person['given'])}"


def bibtex(pack: dict[str, Any]) -> str:
    """Every cited source as a BibTeX entry (biblatex field names: urldate, date)."""
    claims = _claims_by_key(pack)
    entries = []
    for s in pack["sources"]:
        entry_type = _entry_type(s, ("article", "misc", "online"))
        fields: list[tuple[str, str]] = [("title", latex_escape(s["title"]))]
        if s["authors"]:
            fields.append(("author", " and ".join(_person_bibtex(a) for a in s["authors"])))
        if s["venue"]:
            fields.append(("journal", latex_escape(s["venue"])))
        if s["kind"] == "web" and s["domain"]:
            fields.append(("organization", latex_escape(s["domain"])))
        if s["year"]:
            fields.append(("year", str(s["year"])))
        if s["published_date"]:
            fields.append(("date", s["published_date"][:10]))
        if s["doi"]:
            fields.append(("doi", _verbatim(s["doi"])))
        fields.append(("url", _verbatim(s["url"])))
        if s["accessed"]:
            fields.append(("urldate", s["accessed"][:10]))
        if s["archive"]:
            fields.append(("file", latex_escape(s["archive"])))
        notes = source_notes(s, claims)
        if notes:
            fields.append(("note", latex_escape("; ".join(notes))))
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        entries.append(f"@{entry_type}{{{s['key']},\n{body}\n}}\n")
    return "\n".join(entries)


def ris(pack: dict[str, Any]) -> str:
    """Every cited source as an RIS record."""
    claims = _claims_by_key(pack)
    records = []
    for s in pack["sources"]:
        lines = [
            ("TY", _entry_type(s, ("JOUR", "GEN", "ELEC"))),
            ("ID", s["key"]),
            ("TI", s["title"]),
        ]
        for a in s["authors"]:
            lines.append(("AU", a.get("literal") or f"{a['family']}, {a['given']}"))
        if s["venue"]:
            lines.append(("T2", s["venue"]))
        if s["kind"] == "web" and s["domain"]:
            lines.append(("DB", s["domain"]))
        if s["year"]:
            lines.append(("PY", str(s["year"])))
        if s["published_date"]:
            lines.append(("DA", s["published_date"][:10].replace("-", "/")))
        if s["doi"]:
            lines.append(("DO", s["doi"]))
        lines.append(("UR", s["url"]))
        if s["accessed"]:
            lines.append(("Y2", s["accessed"][:10].replace("-", "/")))
        if s["archive"]:
            lines.append(("L1", s["archive"]))
        for note in source_notes(s, claims):
            lines.append(("N1", note))
        lines.append(("ER", ""))
        records.append(
            "\n".join(f"{tag}  - {' '.join(value.split())}".rstrip() for tag, value in lines)
        )
    return "\n\n".join(records) + ("\n" if records else "")


def _date_parts(value: str | None) -> dict[str, Any] | None:
    if not value:
        return None
    parts = [int(p) for p in value[:10].split("-") if p.isdigit()]
    return {"date-parts": [parts]}


def csl_items(pack: dict[str, Any]) -> list[dict[str, Any]]:
    """The cited sources as CSL-JSON items (the data model citeproc and Zotero read)."""
    claims = _claims_by_key(pack)
    items = []
    for s in pack["sources"]:
        item_type = _entry_type(s, ("article-journal", "article", "webpage"))
        item: dict[str, Any] = {"id": s["key"], "type": item_type, "title": s["title"]}
        if s["authors"]:
            item["author"] = s["authors"]
        if s["venue"]:
            item["container-title"] = s["venue"]
        elif s["kind"] == "web" and s["domain"]:
            item["container-title"] = s["domain"]
        issued = _date_parts(s["published_date"]) or (
            {"date-parts": [[s["year"]]]} if s["year"] else None
        )
        if issued:
            item["issued"] = issued
        accessed = _date_parts(s["accessed"])
        if accessed:
            item["accessed"] = accessed
        if s["doi"]:
            item["DOI"] = s["doi"]
        if s["pmid"]:
            item["PMID"] = s["pmid"]
        item["URL"] = s["url"]
        # The archived copy goes in the note, not `archive_location`: styles print that
        # one, and a local path has no place in a bibliography.
        notes = source_notes(s, claims)
        if s["archive"]:
            notes.append(f"Lyra archived copy: {s['archive']}")
        if notes:
            item["note"] = "\n".join(notes)
        items.append(item)
    return items


def csl_json(pack: dict[str, Any]) -> str:
    """``csl_items`` as a JSON array."""
    return json.dumps(csl_items(pack), ensure_ascii=False, indent=1) + "\n"
