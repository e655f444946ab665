"""Semantic Scholar Graph API: request builders and response parsers (pure).

Builders return `ApiRequest`; the fetch layer sends it under the
`academic.semantic_scholar.qps` bucket. Parsers turn bodies into `Paper` / `PaperLink`
and non-2xx answers into `AcademicAPIError`. Every field may be null in real answers
(the API's own `PaperWithNullValues` object), so parsers never index blindly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal
from urllib.parse import quote

from lyra.config.settings import AcademicAPISettings
from lyra.pipelines.discover.papers import (
    AcademicAPIError,
    ApiRequest,
    Paper,
    PaperLink,
    api_error,
    decode_json,
    normalize_doi,
    normalize_pmcid,
    normalize_pmid,
)

API = "semantic_scholar"
PAPER_FIELDS = (
    "paperId",
    "corpusId",
    "externalIds",
    "title",
    "abstract",
    "year",
    "venue",
    "authors",
    "url",
    "openAccessPdf",
    "citationCount",
    "publicationTypes",
)
# Edge fields of seed 001 citation tracking: influence and intent rank the edges.
LINK_FIELDS = ("contexts", "intents", "isInfluential", "paperId", "title", "year", "externalIds")
# Batch lookup takes at most 500 ids per call (S2 Graph API docs, /paper/batch).
BATCH_MAX_IDS = 500
IdKind = Literal["DOI", "PMID", "PMCID", "ARXIV", "CorpusId"]
Body = bytes | str | Mapping[str, Any] | list[Any] | None


def paper_id(kind: IdKind, value: str | int) -> str:
    """The `KIND:value` id S2 accepts for a paper known by another scheme."""
    text = str(value).strip()
    if kind == "DOI":
        text = normalize_doi(text) or text
    elif kind == "PMCID":
        digits = normalize_pmcid(text)
        text = digits[3:] if digits else text
    elif kind == "PMID":
        text = normalize_pmid(text) or text
    return f"{kind}:{text}"


def build_search(
    api: AcademicAPISettings,
    query: str,
    *,
    fields: Sequence[str] = PAPER_FIELDS,
    offset: int = 0,
    limit: int = 100,
) -> ApiRequest:
    """Relevance search, one page of `limit` from `offset` (S2 caps offset+limit at 1000)."""
    params = (
        ("query", query),
        ("fields", ",".join(fields)),
        ("offset", str(offset)),
        ("limit", str(limit)),
    )
    return _get(api, "/graph/v1/paper/search", params)


def build_paper(
    api: AcademicAPISettings, identifier: str, *, fields: Sequence[str] = PAPER_FIELDS
) -> ApiRequest:
    """One paper by S2 paperId or `paper_id(...)` form (`DOI:…`, `CorpusId:…`)."""
    return _get(api, f"/graph/v1/paper/{_path_id(identifier)}", (("fields", ",".join(fields)),))


def build_batch(
    api: AcademicAPISettings, identifiers: Sequence[str], *, fields: Sequence[str] = PAPER_FIELDS
) -> ApiRequest:
    """Many papers in one POST; the answer lists a paper or null per id, in order."""
    if not 0 < len(identifiers) <= BATCH_MAX_IDS:
        raise AcademicAPIError(
            "INVALID_PARAMS",
            f"batch lookup takes 1 to {BATCH_MAX_IDS} ids, got {len(identifiers)}",
            api=API,
            status=0,
            field="ids",
        )
    return ApiRequest(
        "POST",
        _url(api, "/graph/v1/paper/batch"),
        (("fields", ",".join(fields)),),
        {"ids": list(identifiers)},
        _headers(api),
    )


def build_links(
    api: AcademicAPISettings,
    identifier: str,
    direction: Literal["references", "citations"],
    *,
    fields: Sequence[str] = LINK_FIELDS,
    offset: int = 0,
    limit: int = 100,
) -> ApiRequest:
    """One page of the papers `identifier` cites (`references`) or is cited by."""
    params = (("fields", ",".join(fields)), ("offset", str(offset)), ("limit", str(limit)))
    return _get(api, f"/graph/v1/paper/{_path_id(identifier)}/{direction}", params)


def parse_paper(obj: Mapping[str, Any]) -> Paper:
    """A paper object (any subset of fields, any of them null) as a `Paper`."""
    ext = obj.get("externalIds") or {}
    pdf = obj.get("openAccessPdf") or {}
    corpus = obj.get("corpusId") or ext.get("CorpusId")
    raw_ids = {f"s2:{key}": str(value) for key, value in ext.items() if value is not None}
    if obj.get("paperId"):
        raw_ids["s2:paperId"] = str(obj["paperId"])
    return Paper(
        title=obj.get("title") or None,
        abstract=obj.get("abstract") or None,
        year=obj.get("year"),
        venue=obj.get("venue") or None,
        doi=normalize_doi(ext.get("DOI")),
        pmid=normalize_pmid(ext.get("PubMed")),
        pmcid=normalize_pmcid(ext.get("PubMedCentral")),
        arxiv=ext.get("ArXiv"),
        s2_id=obj.get("paperId"),
        corpus_id=int(corpus) if corpus is not None else None,
        authors=tuple(a["name"] for a in obj.get("authors") or () if a and a.get("name")),
        url=obj.get("url"),
        oa_pdf_url=pdf.get("url") or None,
        is_retracted=_retracted(obj.get("publicationTypes")),
        citation_count=obj.get("citationCount"),
        source_api=(API,),
        raw_ids=raw_ids,
    )


def parse_search_page(
    status: int, body: Body, headers: Mapping[str, str] | None = None
) -> tuple[list[Paper], int | None, int | None]:
    """(papers, next offset or None when done, total hits or None when not reported)."""
    data = _ok(status, body, headers)
    papers = [parse_paper(item) for item in data.get("data") or ()]
    return papers, data.get("next"), data.get("total")


def parse_links_page(
    status: int,
    body: Body,
    anchor_id: str,
    direction: Literal["references", "citations"],
    headers: Mapping[str, str] | None = None,
) -> tuple[list[PaperLink], int | None]:
    """(edges, next offset or None) of a references/citations page of `anchor_id`.

    `anchor_id` is the S2 paperId the page was asked for; the far side comes from
    `citedPaper` (references) or `citingPaper` (citations).
    """
    data = _ok(status, body, headers)
    links = [_link(item, anchor_id, direction) for item in data.get("data") or ()]
    return links, data.get("next")


def parse_batch(
    status: int, body: Body, headers: Mapping[str, str] | None = None
) -> list[Paper | None]:
    """One entry per requested id, None where S2 knows no such paper."""
    data = _ok(status, body, headers)
    if not isinstance(data, list):
        raise AcademicAPIError(
            "PIPELINE_ERROR", "batch answer is not a list", api=API, status=status
        )
    return [parse_paper(item) if item else None for item in data]


def parse_single(status: int, body: Body, headers: Mapping[str, str] | None = None) -> Paper:
    """The paper of a `build_paper` answer."""
    return parse_paper(_ok(status, body, headers))


def parse_recommendations(
    status: int, body: Body, headers: Mapping[str, str] | None = None
) -> list[Paper]:
    """Papers of a recommendations answer (`recommendedPapers`)."""
    data = _ok(status, body, headers)
    return [parse_paper(item) for item in data.get("recommendedPapers") or ()]


def _link(item: Mapping[str, Any], anchor_id: str, direction: str) -> PaperLink:
    """One edge; S2 sends `paperId: null` for references it could not resolve."""
    far_obj = item.get("citedPaper" if direction == "references" else "citingPaper") or {}
    far = parse_paper(far_obj)
    citing, cited = (anchor_id, far.s2_id) if direction == "references" else (far.s2_id, anchor_id)
    return PaperLink(
        citing_id=citing,
        cited_id=cited,
        source_api=API,
        is_influential=item.get("isInfluential"),
        contexts=tuple(item.get("contexts") or ()),
        intents=tuple(item.get("intents") or ()),
        paper=far,
    )


def _ok(status: int, body: Body, headers: Mapping[str, str] | None) -> Any:
    """The parsed body of a 2xx answer; the typed error of any other."""
    if 200 <= status < 300:
        return decode_json(body)
    error = api_error(API, status, None if isinstance(body, list) else body, headers)
    if status == 400 and "fields" in error.message:
        # S2 rejects unknown `fields` names; the client can fix that parameter.
        error.field = "fields"
    raise error


def _retracted(types: Sequence[str] | None) -> bool | None:
    """S2 has no retraction flag; it is unknown unless a type says so."""
    return True if types and "Retraction" in types else None


def _path_id(identifier: str) -> str:
    """Percent-encode an id for the path; `/` and `:` stay, as S2 routes `DOI:10.x/y`."""
    return quote(identifier, safe="/:")


def _url(api: AcademicAPISettings, path: str) -> str:
    return f"{api.base_url.rstrip('/')}{path}"


def _headers(api: AcademicAPISettings) -> dict[str, str]:
    """`x-api-key` only when a key is set; without one S2 serves the shared pool."""
    return {"x-api-key": api.api_key} if api.api_key else {}


def _get(api: AcademicAPISettings, path: str, params: tuple[tuple[str, str], ...]) -> ApiRequest:
    return ApiRequest("GET", _url(api, path), params, None, _headers(api))
