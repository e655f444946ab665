"""One paper record for every academic API, and the merge that joins their views.

Semantic Scholar and OpenAlex describe the same paper with different ids and gaps
(seed 001, academic API phases): S2 has `isInfluential` citation edges and CorpusId,
OpenAlex has PMCID, retraction flags and reconstructed abstracts. Both parsers produce
`Paper`, so the caller can `merge_papers` them by DOI and keep which API said what.
Request builders return `ApiRequest` and leave sending to the fetch layer, so every
rule here is pure and testable without a socket.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, NamedTuple
from urllib.parse import urlencode

from lyra.pipelines.errors import LyraError
from lyra.pipelines.extract.dedup import simhash64
from lyra.pipelines.extract.documents import (
    Block,
    Document,
    Fragment,
    assemble_document,
    sha256_text,
)
from lyra.pipelines.net.backoff import parse_retry_after

_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", re.I)
_PMID_PREFIX = re.compile(r"^(?:https?://pubmed\.ncbi\.nlm\.nih\.gov/|pmid:)", re.I)
_PMCID_PREFIX = re.compile(r"^(?:https?://www\.ncbi\.nlm\.nih\.gov/pmc/articles/|pmcid:)", re.I)


@dataclass(frozen=True)
class Paper:
    """A paper as one or more academic APIs described it.

    Ids are normalised (bare lowercase DOI, digits-only PMID, `PMC`-prefixed PMCID,
    bare `W…` OpenAlex id) so records from different APIs compare equal; `raw_ids`
    keeps what each API sent, keyed `api:name`, for provenance.
    """

    title: str | None = None
    abstract: str | None = None
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    arxiv: str | None = None
    s2_id: str | None = None
    corpus_id: int | None = None
    openalex_id: str | None = None
    authors: tuple[str, ...] = ()
    url: str | None = None
    oa_pdf_url: str | None = None
    is_retracted: bool | None = None
    citation_count: int | None = None
    referenced_works: tuple[str, ...] = ()
    source_api: tuple[str, ...] = ()
    raw_ids: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PaperLink:
    """One citation edge: `citing_id` cites `cited_id`.

    Ids are those of `source_api` (S2 paperId or OpenAlex `W…`); one side is None when
    the API knows the far paper only by title (S2 returns `paperId: null` for
    unresolved references). `paper` is the far side as the API described it, so the
    caller can judge relevance without a second request. `is_influential`, `contexts`
    and `intents` come from S2 only (seed 001: influential citations rank first).
    """

    citing_id: str | None
    cited_id: str | None
    source_api: str
    is_influential: bool | None = None
    contexts: tuple[str, ...] = ()
    intents: tuple[str, ...] = ()
    paper: Paper | None = None


class ApiRequest(NamedTuple):
    """A request for the fetch layer to send; params stay ordered for exact URLs."""

    method: str
    url: str
    params: tuple[tuple[str, str], ...]
    json_body: dict[str, Any] | None
    headers: dict[str, str]

    @property
    def full_url(self) -> str:
        """`url` with the query string, encoded as the APIs' own clients encode it."""
        return f"{self.url}?{urlencode(self.params)}" if self.params else self.url


class AcademicAPIError(LyraError):
    """An academic API refused a request; says whether and when retrying can help.

    `retryable` is True for 429 and 5xx; `retry_after` is seconds from `Retry-After`
    when the API sent it. `not_found` lets the caller treat an unknown id as "no such
    paper" instead of a failure.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        api: str,
        status: int,
        field: str | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(code, message, field)
        self.api = api
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after

    @property
    def not_found(self) -> bool:
        """True when the API answered that the id names no paper."""
        return self.status == 404


def api_error(
    api: str,
    status: int,
    body: bytes | str | Mapping[str, Any] | None,
    headers: Mapping[str, str] | None = None,
    now: float = 0.0,
) -> AcademicAPIError:
    """The typed error for a non-2xx answer of `api` (`semantic_scholar` or `openalex`).

    400 means our request was malformed (a bug or a bad id from the client), 401/403
    a missing or wrong key (the setting to change is named in `field`), 429 and 5xx
    are worth retrying after `Retry-After`.
    """
    message = _error_message(body) or f"HTTP {status}"
    retry_after = parse_retry_after(_header(headers, "retry-after"), now)
    text = f"{api} answered HTTP {status}: {message}"
    if status in (401, 403):
        return AcademicAPIError(
            "AUTH_REQUIRED",
            text,
            api=api,
            status=status,
            field=f"academic.{api}.api_key",
        )
    if status == 429 or status >= 500:
        return AcademicAPIError(
            "PIPELINE_ERROR",
            text,
            api=api,
            status=status,
            retryable=True,
            retry_after=retry_after,
        )
    return AcademicAPIError("PIPELINE_ERROR", text, api=api, status=status)


def decode_json(body: bytes | str | Mapping[str, Any] | list[Any] | None) -> Any:
    """The JSON value of a response body; parsers accept bytes, text or parsed JSON."""
    if body is None or isinstance(body, Mapping | list):
        return body
    try:
        return json.loads(body)
    except ValueError as exc:
        raise LyraError("PIPELINE_ERROR", f"academic API sent invalid JSON: {exc}") from exc


def normalize_doi(value: str | None) -> str | None:
    """A bare lowercase DOI (`10.x/y`); DOIs are case-insensitive (DOI Handbook §2.4)."""
    if not value:
        return None
    text = _DOI_PREFIX.sub("", value.strip())
    return text.lower() if text.startswith("10.") else None


def normalize_pmid(value: str | int | None) -> str | None:
    """Digits of a PMID given bare, as `pmid:` or as a pubmed.ncbi.nlm.nih.gov URL."""
    if value is None:
        return None
    text = _PMID_PREFIX.sub("", str(value).strip()).strip("/")
    return text if text.isdigit() else None


def normalize_pmcid(value: str | int | None) -> str | None:
    """`PMC` + digits from a bare id, digits alone, or an ncbi.nlm.nih.gov/pmc URL."""
    if value is None:
        return None
    text = _PMCID_PREFIX.sub("", str(value).strip()).strip("/")
    digits = text[3:] if text.upper().startswith("PMC") else text
    return f"PMC{digits}" if digits.isdigit() else None


def merge_papers(a: Paper, b: Paper) -> Paper:
    """`a` with its gaps filled from `b`; both APIs stay listed in `source_api`.

    `a` wins where both have a value, except: a retraction reported by either API
    holds (missing one is worse than a false alarm), and the larger citation count is
    kept (the APIs index different citing corpora; the smaller is an undercount).
    """
    filled: dict[str, Any] = {}
    for spec in fields(Paper):
        mine, theirs = getattr(a, spec.name), getattr(b, spec.name)
        if mine is None or mine == () or mine == "":
            filled[spec.name] = theirs
    if a.is_retracted or b.is_retracted:
        filled["is_retracted"] = True
    if a.citation_count is not None and b.citation_count is not None:
        filled["citation_count"] = max(a.citation_count, b.citation_count)
    filled["source_api"] = tuple(dict.fromkeys(a.source_api + b.source_api))
    filled["raw_ids"] = {**b.raw_ids, **a.raw_ids}
    return replace(a, **filled)


def paper_record(paper: Paper) -> dict[str, Any]:
    """The columns of the canonical paper index (storage/papers.py) for `paper`."""
    return {
        "doi": paper.doi,
        "pmid": paper.pmid,
        "pmcid": paper.pmcid,
        "arxiv": paper.arxiv,
        "s2_id": paper.s2_id,
        "openalex_id": paper.openalex_id,
        "corpus_id": paper.corpus_id,
        "title": paper.title,
        "year": paper.year,
        "venue": paper.venue,
        "abstract": paper.abstract,
        "authors": list(paper.authors),
        "is_retracted": paper.is_retracted,
        "citation_count": paper.citation_count,
        "source_apis": sorted(set(paper.source_api)),
    }


def paper_from_record(row: Mapping[str, Any]) -> Paper:
    """A `Paper` from a row of the canonical index (the inverse of `paper_record`)."""
    return Paper(
        title=row.get("title"),
        abstract=row.get("abstract"),
        year=row.get("year"),
        venue=row.get("venue"),
        doi=row.get("doi"),
        pmid=row.get("pmid"),
        pmcid=row.get("pmcid"),
        arxiv=row.get("arxiv"),
        s2_id=row.get("s2_id"),
        corpus_id=row.get("corpus_id"),
        openalex_id=row.get("openalex_id"),
        authors=tuple(row.get("authors") or ()),
        is_retracted=row.get("is_retracted"),
        citation_count=row.get("citation_count"),
        source_api=tuple(row.get("source_apis") or ()),
    )


def paper_page_url(paper: Paper) -> str | None:
    """The one URL a paper's page is stored under: its resolver URL, DOI first.

    The page holds what the APIs said (title, abstract), not a fetched copy of the
    publisher's site, so it lives at the identifier's own resolver: doi.org, PubMed,
    PMC, arXiv, then the APIs' own pages. None when the paper has no id at all.
    """
    if paper.doi:
        return f"https://doi.org/{paper.doi}"
    if paper.pmid:
        return f"https://pubmed.ncbi.nlm.nih.gov/{paper.pmid}/"
    if paper.pmcid:
        return f"https://www.ncbi.nlm.nih.gov/pmc/articles/{paper.pmcid}/"
    if paper.arxiv:
        return f"https://arxiv.org/abs/{paper.arxiv}"
    if paper.s2_id:
        return f"https://www.semanticscholar.org/paper/{paper.s2_id}"
    if paper.openalex_id:
        return f"https://openalex.org/{paper.openalex_id}"
    return None


def paper_document(
    paper: Paper, url: str, domain: str, *, title_only: bool = False
) -> Document | None:
    """The page of a paper: its title as heading and its abstract as the fragments.

    None without an abstract, unless `title_only`: a title alone is no evidence to
    draw claims from, but a paper kept by citation tracking still needs its page to
    carry its `cites` edges (headings never become claims).
    """
    abstract = (paper.abstract or "").strip()
    title = " ".join((paper.title or "").split())
    if not abstract:
        if not (title_only and title):
            return None
        # assemble_document drops a trailing heading; a title-only page keeps it.
        return Document(
            url=url,
            domain=domain,
            title=title,
            content_type="text/plain",
            text=title,
            fragments=[Fragment(title, None, "heading", 0, len(title), None, 0)],
            source_path=None,
            byte_size=len(title.encode("utf-8")),
            content_hash=sha256_text(title),
            simhash=simhash64(title),
        )
    blocks = [Block(abstract, "paragraph", heading_context="Abstract")]
    if paper.title:
        blocks.insert(0, Block(paper.title, "heading", heading_context=None))
    return assemble_document(
        blocks,
        url=url,
        domain=domain,
        title=paper.title,
        content_type="text/plain",
        byte_size=len(abstract.encode("utf-8")),
    )


def _error_message(body: bytes | str | Mapping[str, Any] | None) -> str | None:
    """The human text of an error body: S2 `error`/`message`, OpenAlex `error: message`."""
    if body is None:
        return None
    if not isinstance(body, Mapping):
        raw = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        try:
            parsed = json.loads(raw)
        except ValueError:
            return raw.strip()[:300] or None
        if not isinstance(parsed, Mapping):
            return raw.strip()[:300] or None
        body = parsed
    parts = [str(body[key]) for key in ("error", "message") if body.get(key)]
    return ": ".join(parts) or None


def _header(headers: Mapping[str, str] | None, name: str) -> str | None:
    """Case-insensitive header lookup; HTTP field names are case-insensitive."""
    for key, value in (headers or {}).items():
        if key.lower() == name:
            return value
    return None
