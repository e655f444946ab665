"""Scholarly identifiers: find DOI, PMID, PMCID, arXiv and ISBN ids and key papers by them.

The same paper reaches Lyra from a publisher page, a PubMed record, an arXiv feed, Semantic
Scholar and OpenAlex, each spelling its ids differently (`https://doi.org/10.1000%2FX`,
`doi:10.1000/x.`, `PMC123` or a bare `123`, `2104.12255v1`). Everything here is a pure
function over strings so that the dedup of papers (seed 003 §3.6) and the citation graph
compare ids, not spellings.

Every regex is linear: character classes with `+` or bounded `{m,n}` repetition and no
nested quantifiers, so a hostile page cannot make extraction quadratic or worse.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal
from urllib.parse import parse_qsl, unquote, urljoin, urlsplit

from lxml import etree
from lxml import html as lxml_html

IdKind = Literal["doi", "pmid", "pmcid", "arxiv", "isbn"]
IdSource = Literal["url", "meta", "jsonld", "link", "text"]


@dataclass(frozen=True)
class Identifier:
    """One normalised id found in a document; `source` says how much to trust it.

    `meta` and `jsonld` ids describe the page itself, `link` and `text` ids are usually
    citations of other works. `version` is set only for arXiv ids (`v1`), kept apart from
    `value` so that versions of one preprint compare equal.
    """

    kind: IdKind
    value: str
    source: IdSource = "text"
    version: str | None = None


# U+2010..U+2015 (hyphen, non-breaking hyphen, figure dash, en/em dash, bar) and U+2212
# (minus) arrive from PDFs and typeset HTML where an ASCII '-' was meant.
_DASHES: Final = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"), "-")
# Soft hyphen and zero-width characters are invisible in the rendered text but break ids.
_INVISIBLE: Final = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u2060\ufeff"), None)
_TRAILING_PUNCT: Final = ".,;:'\"!?"
_CLOSERS: Final = {")": "(", "]": "[", "}": "{"}

# DOI Handbook §2.2: prefix "10." + registrant code, "/" + any printable suffix. The suffix
# stops at whitespace, quotes and angle brackets (HTML/XML delimiters in running text).
# '%2F' is the '/' of a DOI copied out of an encoded doi.org link.
_DOI_RE: Final = re.compile(r"10\.\d{4,9}(?:/|%2[Ff])[^\s\"'<>\u00a0]+")
_DOI_PREFIX_RE: Final = re.compile(r"^(?:doi|info:doi/|urn:doi:)\s*:?\s*", re.IGNORECASE)
# Publisher URL segments after a DOI that name a view of the article, not part of the DOI.
_PATH_ACTIONS: Final = frozenset(
    {
        "full",
        "abstract",
        "abs",
        "pdf",
        "epdf",
        "pdfdirect",
        "metrics",
        "references",
        "figures",
        "tables",
        "citedby",
        "cited-by",
        "suppl",
        "suppl_file",
        "email",
        "fulltext",
        "html",
        "share",
        "export",
        "citation",
        "info",
        "meta",
    }
)
_PATH_EXTENSIONS: Final = ("-references.ris", ".ris", ".pdf", ".bib", ".xml", ".html", ".epub")
_DOI_HOSTS: Final = frozenset({"doi.org", "dx.doi.org", "www.doi.org", "hdl.handle.net"})
# arXiv's DataCite DOIs (10.48550/arXiv.<id>) name the preprint itself.
_ARXIV_DOI_RE: Final = re.compile(r"^10\.48550/arxiv\.(.+)$")

# arXiv identifier scheme (arxiv.org/help/arxiv_identifier): YYMM.NNNN (2007-2014) or
# YYMM.NNNNN (2015-), and before April 2007 archive[.SUBJ]/YYMMNNN.
_ARXIV_NEW_RE: Final = re.compile(r"(\d{2})(\d{2})\.(\d{4,5})(v\d{1,3})?")
_OLD_ARCHIVES: Final = (
    "acc-phys|adap-org|alg-geom|ao-sci|astro-ph|atom-ph|bayes-an|chao-dyn|chem-ph|cmp-lg|"
    "comp-gas|cond-mat|cs|dg-ga|funct-an|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math-ph|math|"
    "mtrl-th|nlin|nucl-ex|nucl-th|patt-sol|physics|plasm-ph|q-alg|q-bio|quant-ph|solv-int|"
    "supr-con"
)
_ARXIV_OLD_RE: Final = re.compile(
    rf"(?<![\w.-])((?:{_OLD_ARCHIVES})(?:\.[A-Z]{{2}})?)/(\d{{2}})(\d{{2}})(\d{{3}})(v\d{{1,3}})?"
    r"(?!\d)"
)
_ARXIV_LABELLED_RE: Final = re.compile(
    r"\barxiv\s*(?::|\.org/(?:abs|pdf)/)\s*(\d{4}\.\d{4,5}(?:v\d{1,3})?)(?!\d)", re.IGNORECASE
)

# Bare numbers are not PMIDs (page numbers, years, counts): the text must label them.
_PMID_RE: Final = re.compile(r"\b(?:PMID|PubMed\s?ID)\s*[:=]?\s*(\d{1,9})\b", re.IGNORECASE)
_PMCID_RE: Final = re.compile(r"\bPMC(\d{1,9})\b|\bPMCID\s*:?\s*(?:PMC)?(\d{1,9})\b")
_ISBN_RE: Final = re.compile(
    r"\bISBN(?:-1[03])?\s*:?\s*((?:97[89][- ]?)?\d(?:[- ]?\d){8}[- ]?[\dXx])(?![- ]?[\dXx])"
)
_DIGITS_RE: Final = re.compile(r"\d{1,9}")

_PMC_PATH_RE: Final = re.compile(
    r"/pmc/articles/(?:PMC)?(\d{1,9})\b|/(?:articles|pmc)/PMC(\d{1,9})\b"
)
_PUBMED_HOST_PATH_RE: Final = re.compile(r"^/(?:pubmed/)?(\d{1,9})/?$")
_EUROPEPMC_RE: Final = re.compile(r"/(?:abstract|article)/(MED|PMC)/(?:PMC)?(\d{1,9})\b", re.I)
_ARXIV_PATH_RE: Final = re.compile(r"^/(?:abs|pdf|html|format|ps)/(.+?)(?:\.pdf)?/?$")

_META_DOI: Final = frozenset(
    {
        "citation_doi",
        "prism.doi",
        "dc.identifier",
        "dcterms.identifier",
        "doi",
        "bepress_citation_doi",
    }
)
_META_PMID: Final = frozenset({"citation_pmid", "pmid"})
_META_PMCID: Final = frozenset({"citation_pmcid", "pmcid"})
_META_ARXIV: Final = frozenset({"citation_arxiv_id", "arxiv_id"})
_META_ISBN: Final = frozenset({"citation_isbn", "isbn", "book:isbn"})
_META_URL: Final = frozenset({"og:url", "citation_abstract_html_url", "citation_pdf_url"})
_JSONLD_KEYS: Final = frozenset({"identifier", "sameAs", "@id", "url"})

_XML_DECL_RE: Final = re.compile(r"^\s*<\?xml[^>]{0,200}\?>")
_TITLE_JUNK_RE: Final = re.compile(r"[\W_]+")


# --- normalisation -------------------------------------------------------------------


def _clean(raw: str) -> str:
    """Map typographic dashes to '-' and drop invisible characters."""
    return raw.translate(_DASHES).translate(_INVISIBLE).strip()


def _strip_trailing(value: str) -> str:
    """Drop sentence punctuation and closing brackets that have no opener in the id.

    DOIs such as 10.1016/0169-5347(93)90004-9 contain balanced brackets, so a ')' is
    only cut when the id holds more closers than openers of that kind.
    """
    # Bracket counts are kept up to date as characters are cut, so a 1 MB run of ')' costs
    # one pass, not one recount per character.
    balance = {
        closer: value.count(closer) - value.count(opener) for closer, opener in _CLOSERS.items()
    }
    end = len(value)
    while end:
        last = value[end - 1]
        if last in _TRAILING_PUNCT:
            end -= 1
        elif last in balance and balance[last] > 0:
            balance[last] -= 1
            end -= 1
        else:
            break
    return value[:end]


def normalize_doi(raw: str) -> str | None:
    """Return the lowercase DOI in `raw` (bare, `doi:`, doi.org URL, %-encoded), else None.

    DOIs are case-insensitive (DOI Handbook §2.4), so the lowercase form is what gets
    compared and stored; query strings and fragments of doi.org URLs are not part of it.
    """
    text = _clean(raw)
    if "://" in text or text.startswith("//"):
        parts = urlsplit(text if "://" in text else "https:" + text)
        host = parts.netloc.lower().rsplit("@", 1)[-1].split(":", 1)[0]
        path = unquote(parts.path)
        if host in _DOI_HOSTS:
            text = path.lstrip("/")
        else:
            text = _doi_in_path(path) or _doi_in_query(parts.query) or ""
    elif "%" in text:
        text = unquote(text)
    text = _DOI_PREFIX_RE.sub("", _clean(text))
    match = _DOI_RE.search(text)
    if match is None:
        return None
    doi = _strip_trailing(match.group(0))
    prefix, _, suffix = doi.partition("/")
    if not suffix:
        return None
    return f"{prefix}/{suffix}".lower()


def normalize_explicit_doi(raw: str) -> str | None:
    """`normalize_doi` for a value given as a DOI (a client's option), not found in text.

    Text extraction stops a DOI at `<` and `>` (markup delimiters), but old SICI DOIs
    contain them (`10.1002/(SICI)...<1661::AID-SIM968>3.0.CO;2-2`): for a value that
    is meant to be one DOI, what follows the extracted part is kept unless it is only
    trailing punctuation; a value with whitespace after the DOI is not one DOI (None).
    """
    doi = normalize_doi(raw)
    if doi is None:
        return None
    cleaned = _clean(raw)
    at = cleaned.lower().find(doi)
    if at < 0:
        return doi  # a doi.org URL with %-escapes: nothing follows the path
    rest = _strip_trailing(cleaned[at + len(doi) :])
    if not rest:
        return doi
    if any(ch.isspace() for ch in rest):
        return None
    return (doi + rest).lower()


def _doi_in_path(path: str) -> str | None:
    """A DOI inside a publisher URL path, without the page's action segments and extension.

    `/doi/10.1000/x/metrics` and `/content/10.1000/x.pdf` name 10.1000/x: DOI suffixes may
    hold '/', so the cut is at the first segment that is a known page action.
    """
    found = _DOI_RE.search(path)
    if found is None:
        return None
    segments = found.group(0).split("/")
    keep = 2
    while keep < len(segments) and segments[keep].lower() not in _PATH_ACTIONS:
        keep += 1
    doi = "/".join(segments[:keep])
    for extension in _PATH_EXTENSIONS:
        if doi.lower().endswith(extension):
            return doi[: -len(extension)]
    return doi


def _doi_in_query(query: str) -> str | None:
    """A DOI given as a whole query value (`?doi=10.1000/x`, `?id=doi:10.1000/x`)."""
    for _, value in parse_qsl(query):
        value = _DOI_PREFIX_RE.sub("", value.strip())
        if value.startswith("10."):
            return value
    return None


def normalize_arxiv(raw: str) -> tuple[str, str | None] | None:
    """Split an arXiv id (new `2104.12255v1` or old `quant-ph/0201082v1`) into id and version.

    Accepts `arXiv:` prefixes and arxiv.org abs/pdf URLs; the month must be 01-12 and a
    5-digit number is only valid from 1501 on, so a random decimal is rejected.
    """
    text = _clean(raw)
    if "arxiv.org" in text.lower():
        parts = urlsplit(text if "://" in text else "https://" + text.lstrip("/"))
        path_match = _ARXIV_PATH_RE.match(unquote(parts.path))
        if path_match is None:
            return None
        text = path_match.group(1)
    text = re.sub(r"^arxiv\s*:\s*", "", text, flags=re.IGNORECASE)
    text = _strip_trailing(text)
    new = _ARXIV_NEW_RE.fullmatch(text)
    if new is not None:
        year, month, number, version = new.groups()
        yymm = int(year + month)
        if not 1 <= int(month) <= 12 or yymm < 704 or (len(number) == 5) != (yymm >= 1501):
            return None
        return f"{year}{month}.{number}", version
    old = _ARXIV_OLD_RE.fullmatch(text)
    if old is not None:
        archive, year, month, number, version = old.groups()
        if not 1 <= int(month) <= 12:
            return None
        # The subject class (math.GT/0309136) is not part of the identity of the paper.
        return f"{archive.split('.')[0]}/{year}{month}{number}", version
    return None


def normalize_pmid(raw: str) -> str | None:
    """Return a PMID as digits without leading zeros (`PMID: 0123`, pubmed URLs too)."""
    text = _clean(raw)
    if "://" in text or text.startswith("//"):
        found = [i for i in extract_from_url(text) if i.kind == "pmid"]
        return found[0].value if found else None
    text = re.sub(r"^(?:PMID|PubMed\s?ID)\s*[:=]?\s*", "", text, flags=re.IGNORECASE)
    if not text.isascii() or not text.isdigit() or len(text) > 9 or int(text) == 0:
        return None
    return str(int(text))


def normalize_pmcid(raw: str) -> str | None:
    """Return a PMCID as `PMC<digits>`; OpenAlex gives a bare number inside a pmc URL."""
    text = _clean(raw)
    if "://" in text or text.startswith("//"):
        found = [i for i in extract_from_url(text) if i.kind == "pmcid"]
        return found[0].value if found else None
    text = re.sub(r"^(?:PMCID\s*:?\s*)?(?:PMC)?", "", text, flags=re.IGNORECASE)
    if not text.isascii() or not text.isdigit() or len(text) > 9 or int(text) == 0:
        return None
    return f"PMC{int(text)}"


def normalize_isbn(raw: str) -> str | None:
    """Return a valid ISBN as ISBN-13 digits; ISBN-10s are converted so both forms compare."""
    text = re.sub(r"^ISBN(?:-1[03])?\s*:?\s*", "", _clean(raw), flags=re.IGNORECASE)
    digits = re.sub(r"[\s-]", "", text).upper()
    if len(digits) == 10 and re.fullmatch(r"\d{9}[\dX]", digits):
        total = sum((10 - i) * (10 if c == "X" else int(c)) for i, c in enumerate(digits))
        if total % 11 != 0:
            return None
        digits = "978" + digits[:9]
        return digits + _isbn13_check(digits)
    if len(digits) == 13 and digits.isdigit() and digits[:3] in ("978", "979"):
        return digits if _isbn13_check(digits[:12]) == digits[12] else None
    return None


def _isbn13_check(first12: str) -> str:
    """EAN-13 check digit: weights 1,3 alternating, modulo 10."""
    total = sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(first12))
    return str((10 - total % 10) % 10)


def normalize_title(title: str) -> str:
    """NFKC, casefold, and collapse punctuation and whitespace runs into one space."""
    folded = unicodedata.normalize("NFKC", title).casefold()
    return _TITLE_JUNK_RE.sub(" ", folded).strip()


# --- extraction ----------------------------------------------------------------------


def _dedupe(ids: Iterable[Identifier]) -> list[Identifier]:
    """Keep the first occurrence of each (kind, value); callers order sources by trust."""
    seen: set[tuple[str, str]] = set()
    out: list[Identifier] = []
    for ident in ids:
        key = (ident.kind, ident.value)
        if key not in seen:
            seen.add(key)
            out.append(ident)
    return out


def _arxiv_ident(raw: str, source: IdSource) -> Identifier | None:
    parsed = normalize_arxiv(raw)
    return None if parsed is None else Identifier("arxiv", parsed[0], source, parsed[1])


def _url_ids(url: str, source: IdSource) -> Iterator[Identifier]:
    """Ids named by one URL's host, path and query."""
    text = _clean(url)
    if text.startswith("//"):
        text = "https:" + text
    parts = urlsplit(text)
    host = parts.netloc.lower().rsplit("@", 1)[-1].split(":", 1)[0]
    path = unquote(parts.path)
    query = parse_qsl(parts.query)
    doi = normalize_doi(text)
    if doi is not None:
        yield Identifier("doi", doi, source)
    if host.endswith("arxiv.org"):
        arxiv = _arxiv_ident(f"https://arxiv.org{path}", source)
        if arxiv is not None:
            yield arxiv
    if host.endswith("ncbi.nlm.nih.gov") or host.endswith("europepmc.org"):
        yield from _ncbi_ids(host, path, query, source)


def _ncbi_ids(
    host: str, path: str, query: list[tuple[str, str]], source: IdSource
) -> Iterator[Identifier]:
    """PubMed and PMC link shapes: /pubmed/N, pubmed.ncbi.../N, list_uids=N, /pmc/articles/."""
    if host.startswith("pubmed.") or path.startswith("/pubmed"):
        match = _PUBMED_HOST_PATH_RE.match(path)
        if match is not None:
            yield Identifier("pmid", str(int(match.group(1))), source)
    params = {k.lower(): v for k, v in query}
    if "pubmed" in (params.get("db", "").lower() + path.lower()):
        for key in ("list_uids", "term", "uid", "cmd_current"):
            value = params.get(key, "").strip()
            if value.isascii() and value.isdigit() and _DIGITS_RE.fullmatch(value):
                yield Identifier("pmid", str(int(value)), source)
    pmc = _PMC_PATH_RE.search(path)
    if pmc is not None:
        yield Identifier("pmcid", f"PMC{int(pmc.group(1) or pmc.group(2))}", source)
    europe = _EUROPEPMC_RE.search(path)
    if europe is not None and host.endswith("europepmc.org"):
        if europe.group(1).upper() == "MED":
            yield Identifier("pmid", str(int(europe.group(2))), source)
        else:
            yield Identifier("pmcid", f"PMC{int(europe.group(2))}", source)


def extract_from_url(url: str) -> list[Identifier]:
    """Ids a URL names: doi.org and publisher DOI paths, PubMed, PMC, Europe PMC, arXiv."""
    return _dedupe(_url_ids(url, "url"))


def _text_ids(text: str) -> Iterator[Identifier]:
    """Ids in prose, in order of appearance per kind; labels guard the ambiguous kinds."""
    text = text.translate(_DASHES).translate(_INVISIBLE)
    for match in _DOI_RE.finditer(text):
        doi = normalize_doi(match.group(0))
        if doi is not None:
            yield Identifier("doi", doi, "text")
    for match in _PMID_RE.finditer(text):
        if int(match.group(1)) > 0:
            yield Identifier("pmid", str(int(match.group(1))), "text")
    for match in _PMCID_RE.finditer(text):
        number = int(match.group(1) or match.group(2))
        if number > 0:
            yield Identifier("pmcid", f"PMC{number}", "text")
    for match in _ARXIV_LABELLED_RE.finditer(text):
        arxiv = _arxiv_ident(match.group(1), "text")
        if arxiv is not None:
            yield arxiv
    for match in _ARXIV_OLD_RE.finditer(text):
        arxiv = _arxiv_ident(match.group(0), "text")
        if arxiv is not None:
            yield arxiv
    for match in _ISBN_RE.finditer(text):
        isbn = normalize_isbn(match.group(1))
        if isbn is not None:
            yield Identifier("isbn", isbn, "text")


def extract_from_text(text: str) -> list[Identifier]:
    """Ids in plain or PDF text; PMIDs, new-style arXiv ids and ISBNs need their label."""
    return _dedupe(_text_ids(text))


def _meta_ids(name: str, content: str, base_url: str) -> Iterator[Identifier]:
    """Ids in one <meta> tag, by the tag's name (citation_*, Dublin Core, PRISM, og:url)."""
    if name in _META_DOI:
        doi = normalize_doi(content)
        if doi is not None:
            yield Identifier("doi", doi, "meta")
    elif name in _META_PMID:
        pmid = normalize_pmid(content)
        if pmid is not None:
            yield Identifier("pmid", pmid, "meta")
    elif name in _META_PMCID:
        pmcid = normalize_pmcid(content)
        if pmcid is not None:
            yield Identifier("pmcid", pmcid, "meta")
    elif name in _META_ARXIV:
        arxiv = _arxiv_ident(content, "meta")
        if arxiv is not None:
            yield arxiv
    elif name in _META_ISBN:
        isbn = normalize_isbn(content)
        if isbn is not None:
            yield Identifier("isbn", isbn, "meta")
    elif name in _META_URL:
        yield from _url_ids(urljoin(base_url, content), "meta")


def _jsonld_strings(node: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """(property, string) pairs under identifier/sameAs/@id/url anywhere in a JSON-LD tree.

    A schema.org PropertyValue (`{"propertyID": "DOI", "value": "..."}`) yields its value
    under the propertyID, so a bare PMID value is still known to be a PMID.
    """
    if isinstance(node, dict):
        prop = node.get("propertyID")
        value = node.get("value")
        if key in _JSONLD_KEYS and isinstance(prop, str) and isinstance(value, str | int):
            yield prop.lower(), str(value)
        for child_key, child in node.items():
            yield from _jsonld_strings(child, child_key if child_key in _JSONLD_KEYS else key)
    elif isinstance(node, list):
        for item in node:
            yield from _jsonld_strings(item, key)
    elif isinstance(node, str | int) and key in _JSONLD_KEYS:
        yield key, str(node)


def _jsonld_ids(script: str, base_url: str) -> Iterator[Identifier]:
    """Ids in one application/ld+json block; malformed JSON-LD is common and skipped."""
    try:
        data = json.loads(script)
    except ValueError:
        return
    for prop, value in _jsonld_strings(data):
        if prop in ("pmid", "pubmed"):
            parsed = normalize_pmid(value)
            if parsed is not None:
                yield Identifier("pmid", parsed, "jsonld")
        elif prop in ("pmcid", "pmc"):
            parsed = normalize_pmcid(value)
            if parsed is not None:
                yield Identifier("pmcid", parsed, "jsonld")
        elif prop == "arxiv":
            arxiv = _arxiv_ident(value, "jsonld")
            if arxiv is not None:
                yield arxiv
        elif prop == "isbn":
            isbn = normalize_isbn(value)
            if isbn is not None:
                yield Identifier("isbn", isbn, "jsonld")
        elif value.startswith(("http://", "https://", "//", "/")):
            yield from _url_ids(urljoin(base_url, value), "jsonld")
        else:
            for found in _text_ids(value):
                yield Identifier(found.kind, found.value, "jsonld", found.version)


def extract_from_html(html: str, base_url: str = "") -> list[Identifier]:
    """Ids in a page: meta tags, JSON-LD, link targets, then visible text, in that trust order.

    When one id shows up in several places the first (most trusted) source is kept, so a
    DOI in `citation_doi` reads as the page's own id even if the text cites it too.
    """
    if not html.strip():
        return []
    # lxml refuses str input that still carries an XML encoding declaration.
    root = lxml_html.document_fromstring(_XML_DECL_RE.sub("", html, count=1))
    found: list[Identifier] = []
    for meta in root.iter("meta"):
        name = (meta.get("name") or meta.get("property") or "").strip().lower()
        content = meta.get("content")
        if name and content:
            found.extend(_meta_ids(name, content, base_url))
    for script in root.iter("script"):
        if (script.get("type") or "").strip().lower() == "application/ld+json" and script.text:
            found.extend(_jsonld_ids(script.text, base_url))
    for element in root.iter("a", "link"):
        href = element.get("href")
        if href and not href.startswith(("#", "javascript:", "mailto:")):
            found.extend(_url_ids(urljoin(base_url, href.strip()), "link"))
    found.extend(_text_ids(_visible_text(root)))
    return _dedupe(found)


def _visible_text(root: Any) -> str:
    """Text of the body without script/style/template content."""
    parts: list[str] = []
    skip = {"script", "style", "template", "noscript"}
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag not in skip and element.text:
            parts.append(element.text)
        if element.tail:
            parts.append(element.tail)
    return " ".join(parts)


# --- JATS / PubMed XML ---------------------------------------------------------------


def _xml_id(kind: str, raw: str) -> tuple[str, str] | None:
    """Map a JATS pub-id-type / PubMed IdType and its text to (kind, normalised value)."""
    kind = kind.strip().lower()
    value = " ".join(raw.split())
    if not value:
        return None
    if kind == "doi":
        doi = normalize_doi(value)
        return None if doi is None else ("doi", doi)
    if kind in ("pmid", "pubmed"):
        pmid = normalize_pmid(value)
        return None if pmid is None else ("pmid", pmid)
    if kind in ("pmc", "pmcid"):
        pmcid = normalize_pmcid(value)
        return None if pmcid is None else ("pmcid", pmcid)
    if kind == "arxiv":
        arxiv = normalize_arxiv(value)
        return None if arxiv is None else ("arxiv", arxiv[0])
    return kind, value


def _collect(elements: Iterable[Any], type_attr: str) -> dict[str, list[str]]:
    ids: dict[str, list[str]] = {}
    for element in elements:
        parsed = _xml_id(element.get(type_attr) or "", "".join(element.itertext()))
        if parsed is not None and parsed[1] not in ids.get(parsed[0], []):
            ids.setdefault(parsed[0], []).append(parsed[1])
    return ids


def extract_from_jats(xml: str) -> dict[str, Any]:
    """Article ids and per-reference ids from JATS (PMC nxml) or PubMed efetch XML.

    Returns `{"article": {kind: [values]}, "ref_count": int, "references": [{"ref_id",
    "ids"}]}` with every <ref>/<Reference> listed (ids may be empty). Known kinds are
    normalised (doi lowercase, pmid digits, pmcid `PMC<n>`); others such as publisher-id
    keep their JATS type name. The DTD is never loaded: PMC files name it by a URL.
    """
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, recover=True, huge_tree=False
    )
    root = etree.fromstring(xml.encode("utf-8"), parser)
    if root is None:
        raise ValueError("not an XML document")
    article = _collect(
        root.xpath("//*[local-name()='article-meta']/*[local-name()='article-id']"), "pub-id-type"
    )
    # Direct children only: PubMed nests the same element under ReferenceList/Reference.
    pubmed = _collect(
        root.xpath(
            "//*[local-name()='PubmedData']/*[local-name()='ArticleIdList']"
            "/*[local-name()='ArticleId']"
        ),
        "IdType",
    )
    for kind, values in pubmed.items():
        article.setdefault(kind, []).extend(v for v in values if v not in article[kind])
    references: list[dict[str, Any]] = []
    for ref in root.xpath("//*[local-name()='ref-list']/*[local-name()='ref']"):
        ids = _collect(ref.xpath(".//*[local-name()='pub-id']"), "pub-id-type")
        references.append({"ref_id": ref.get("id") or "", "ids": ids})
    for index, ref in enumerate(root.xpath("//*[local-name()='Reference']")):
        ids = _collect(ref.xpath(".//*[local-name()='ArticleId']"), "IdType")
        references.append({"ref_id": f"ref{index + 1}", "ids": ids})
    return {"article": article, "ref_count": len(references), "references": references}


# --- paper keys ----------------------------------------------------------------------


def canonical_paper_key(
    doi: str | None, pmid: str | None, arxiv: str | None, title: str | None, year: int | None
) -> str:
    """One key per paper: `doi:`, else `pmid:`, else `arxiv:` (no version), else `title:t:y`.

    An arXiv DataCite DOI (10.48550/arXiv.X) keys as `arxiv:X`, the same key an
    arXiv-only record gets. Unparseable ids are skipped, not trusted; with nothing left
    the record cannot be identified and ValueError is raised.
    """
    norm_doi = normalize_doi(doi) if doi else None
    if norm_doi is not None:
        arxiv_doi = _ARXIV_DOI_RE.match(norm_doi)
        parsed = normalize_arxiv(arxiv_doi.group(1)) if arxiv_doi else None
        return f"arxiv:{parsed[0]}" if parsed else f"doi:{norm_doi}"
    norm_pmid = normalize_pmid(pmid) if pmid else None
    if norm_pmid is not None:
        return f"pmid:{norm_pmid}"
    norm_arxiv = normalize_arxiv(arxiv) if arxiv else None
    if norm_arxiv is not None:
        return f"arxiv:{norm_arxiv[0]}"
    norm_title = normalize_title(title) if title else ""
    if norm_title:
        return f"title:{norm_title}:{'' if year is None else int(year)}"
    raise ValueError("paper has no DOI, PMID, arXiv id or title to key it by")


def record_ids(record: Mapping[str, Any]) -> dict[str, str]:
    """Normalised ids of a paper record: flat keys, S2 `externalIds` or OpenAlex `ids`.

    Flat keys are doi/pmid/pmcid/arxiv/isbn; S2 uses DOI/PubMed/PubMedCentral/ArXiv and
    OpenAlex gives doi/pmid/pmcid as URLs. A 10.48550/arXiv DOI also yields the arXiv id.
    """
    raw: list[tuple[str, Any]] = list(record.items())
    for nested in ("externalIds", "ids"):
        value = record.get(nested)
        if isinstance(value, Mapping):
            raw.extend(value.items())
    aliases = {"pubmed": "pmid", "pubmedcentral": "pmcid", "pmc": "pmcid"}
    normalisers = {
        "doi": normalize_doi,
        "pmid": normalize_pmid,
        "pmcid": normalize_pmcid,
        "isbn": normalize_isbn,
    }
    ids: dict[str, str] = {}
    for key, value in raw:
        kind = aliases.get(key.lower(), key.lower())
        if kind in ids or not isinstance(value, str | int) or isinstance(value, bool):
            continue
        if kind == "arxiv":
            parsed = normalize_arxiv(str(value))
            if parsed is not None:
                ids["arxiv"] = parsed[0]
        elif kind in normalisers:
            normalised = normalisers[kind](str(value))
            if normalised is not None:
                ids[kind] = normalised
    arxiv_doi = _ARXIV_DOI_RE.match(ids.get("doi", ""))
    if arxiv_doi is not None and "arxiv" not in ids:
        parsed = normalize_arxiv(arxiv_doi.group(1))
        if parsed is not None:
            ids["arxiv"] = parsed[0]
    return ids


def record_key(record: Mapping[str, Any]) -> str:
    """canonical_paper_key of an S2, OpenAlex or flat record (title: title/display_name)."""
    ids = record_ids(record)
    return canonical_paper_key(
        ids.get("doi"),
        ids.get("pmid"),
        ids.get("arxiv"),
        _record_title(record),
        _record_year(record),
    )


def same_paper(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """True when two records share any id, or, when neither has ids, title and year match.

    A record with ids is never matched to an id-less one by title: titles repeat across
    errata, preprints and replies, and one false merge corrupts the citation graph.
    """
    ids_a, ids_b = record_ids(a), record_ids(b)
    if ids_a or ids_b:
        return any(ids_b.get(kind) == value for kind, value in ids_a.items())
    title_a, title_b = _record_title(a), _record_title(b)
    if not title_a or not title_b:
        return False
    return (normalize_title(title_a), _record_year(a)) == (
        normalize_title(title_b),
        _record_year(b),
    )


def _record_title(record: Mapping[str, Any]) -> str | None:
    title = record.get("title") or record.get("display_name")
    return title if isinstance(title, str) else None


def _record_year(record: Mapping[str, Any]) -> int | None:
    year = record.get("year") or record.get("publication_year")
    return year if isinstance(year, int) and not isinstance(year, bool) else None
