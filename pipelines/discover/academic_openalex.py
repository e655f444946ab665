"""OpenAlex works API: request builders and response parsers (pure).

Builders return `ApiRequest` with `mailto` (the polite pool, which OpenAlex serves
faster and more reliably) and cursor paging (`cursor=*`, then `meta.next_cursor`
until it is null); the fetch layer sends them under `academic.openalex.qps`.
Parsers accept the current work schema and the older one with `host_venue`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
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

API = "openalex"
_ARXIV_DOI_PREFIX = "10.48550/arxiv."
Body = bytes | str | Mapping[str, Any] | None


def build_search(
    api: AcademicAPISettings, query: str, *, per_page: int = 25, cursor: str | None = "*"
) -> ApiRequest:
    """Relevance search over works; start with `cursor="*"` to page by cursor."""
    return _list(api, ("search", query), per_page, cursor)


def build_filter(
    api: AcademicAPISettings, expression: str, *, per_page: int = 200, cursor: str | None = "*"
) -> ApiRequest:
    """Works matching a filter expression such as `cites:W1|W2`."""
    return _list(api, ("filter", expression), per_page, cursor)


def build_cites(
    api: AcademicAPISettings,
    work_ids: Sequence[str],
    *,
    per_page: int = 200,
    cursor: str | None = "*",
) -> ApiRequest:
    """Works that cite any of `work_ids` (forward snowballing, seed 001)."""
    return build_filter(api, _id_filter("cites", work_ids), per_page=per_page, cursor=cursor)


def build_cited_by(
    api: AcademicAPISettings,
    work_ids: Sequence[str],
    *,
    per_page: int = 200,
    cursor: str | None = "*",
) -> ApiRequest:
    """Works cited by any of `work_ids` (their references, backward snowballing)."""
    return build_filter(api, _id_filter("cited_by", work_ids), per_page=per_page, cursor=cursor)


def build_work(api: AcademicAPISettings, work_id: str) -> ApiRequest:
    """One work by OpenAlex id (`W…` or its https://openalex.org/ URL)."""
    return _get(api, f"/works/{quote(short_id(work_id), safe='')}")


def build_work_by_doi(api: AcademicAPISettings, doi: str) -> ApiRequest:
    """One work by DOI; characters like `(`, `;`, `<` are percent-encoded, `/` kept."""
    bare = normalize_doi(doi) or doi.strip()
    return _get(api, f"/works/doi:{quote(bare, safe='/')}")


def build_work_by_pmid(api: AcademicAPISettings, pmid: str | int) -> ApiRequest:
    """One work by PubMed id."""
    digits = normalize_pmid(pmid)
    if digits is None:
        raise AcademicAPIError(
            "INVALID_PARAMS", f"not a PMID: {pmid!r}", api=API, status=0, field="pmid"
        )
    return _get(api, f"/works/pmid:{digits}")


def short_id(value: str) -> str:
    """`W123` from `https://openalex.org/W123` (or `W123` itself)."""
    return value.rstrip("/").rsplit("/", 1)[-1]


def rebuild_abstract(index: Mapping[str, Sequence[int]] | None) -> str | None:
    """The abstract text from OpenAlex's inverted index (word -> positions).

    OpenAlex ships abstracts only inverted (publisher licensing); putting each word at
    its positions and joining in position order gives the original word sequence.
    """
    if not index:
        return None
    placed = sorted((pos, word) for word, positions in index.items() for pos in positions)
    return " ".join(word for _, word in placed) or None


def parse_work(obj: Mapping[str, Any]) -> Paper:
    """A work object (current or `host_venue` schema, any field null) as a `Paper`."""
    ids = obj.get("ids") or {}
    doi = normalize_doi(ids.get("doi") or obj.get("doi"))
    openalex = ids.get("openalex") or obj.get("id")
    primary = obj.get("primary_location") or {}
    best = obj.get("best_oa_location") or {}
    raw_ids = {f"openalex:{key}": str(value) for key, value in ids.items() if value is not None}
    if obj.get("doi"):
        raw_ids.setdefault("openalex:doi", str(obj["doi"]))
    return Paper(
        title=obj.get("title") or obj.get("display_name") or None,
        abstract=rebuild_abstract(obj.get("abstract_inverted_index")),
        year=obj.get("publication_year"),
        venue=_venue(obj),
        doi=doi,
        pmid=normalize_pmid(ids.get("pmid")),
        pmcid=normalize_pmcid(ids.get("pmcid")),
        arxiv=doi[len(_ARXIV_DOI_PREFIX) :] if doi and doi.startswith(_ARXIV_DOI_PREFIX) else None,
        openalex_id=short_id(openalex) if openalex else None,
        authors=tuple(
            a["author"]["display_name"]
            for a in obj.get("authorships") or ()
            if (a.get("author") or {}).get("display_name")
        ),
        url=primary.get("landing_page_url") or (f"https://doi.org/{doi}" if doi else None),
        oa_pdf_url=best.get("pdf_url") or primary.get("pdf_url") or None,
        is_retracted=obj.get("is_retracted"),
        citation_count=obj.get("cited_by_count"),
        referenced_works=tuple(short_id(w) for w in obj.get("referenced_works") or ()),
        source_api=(API,),
        raw_ids=raw_ids,
    )


def parse_single(status: int, body: Body, headers: Mapping[str, str] | None = None) -> Paper:
    """The work of a `build_work*` answer."""
    return parse_work(_ok(status, body, headers))


def parse_list_page(
    status: int, body: Body, headers: Mapping[str, str] | None = None
) -> tuple[list[Paper], str | None, int | None]:
    """(papers, next cursor or None when exhausted, total count) of a list answer."""
    data = _ok(status, body, headers)
    meta = data.get("meta") or {}
    papers = [parse_work(item) for item in data.get("results") or ()]
    return papers, meta.get("next_cursor"), meta.get("count")


def reference_links(paper: Paper) -> list[PaperLink]:
    """Edges from a work to each of its `referenced_works`."""
    return [
        PaperLink(citing_id=paper.openalex_id, cited_id=ref, source_api=API)
        for ref in paper.referenced_works
    ]


def citing_links(citing: Sequence[Paper], cited_id: str) -> list[PaperLink]:
    """Edges from each work of a `build_cites` answer to the work it cites."""
    return [
        PaperLink(citing_id=p.openalex_id, cited_id=short_id(cited_id), source_api=API, paper=p)
        for p in citing
    ]


def _venue(obj: Mapping[str, Any]) -> str | None:
    """Source name from `primary_location` (current) or `host_venue` (older schema)."""
    source = (obj.get("primary_location") or {}).get("source") or {}
    host = obj.get("host_venue") or {}
    return source.get("display_name") or host.get("display_name") or None


def _id_filter(name: str, work_ids: Sequence[str]) -> str:
    """`name:W1|W2`; OpenAlex ORs values joined by `|` within one filter."""
    if not work_ids:
        raise AcademicAPIError(
            "INVALID_PARAMS", f"{name} filter needs at least one work id", api=API, status=0
        )
    return f"{name}:{'|'.join(short_id(w) for w in work_ids)}"


def _ok(status: int, body: Body, headers: Mapping[str, str] | None) -> Any:
    """The parsed body of a 2xx answer; the typed error of any other."""
    if 200 <= status < 300:
        return decode_json(body)
    error = api_error(API, status, body, headers)
    if status == 400:
        # OpenAlex names the bad parameter only in prose; the client needs the field.
        error.field = "select" if "select field" in error.message else "filter"
    raise error


def _list(
    api: AcademicAPISettings, selector: tuple[str, str], per_page: int, cursor: str | None
) -> ApiRequest:
    params = [selector, ("per-page", str(per_page))]
    params += _polite(api)
    if cursor is not None:
        params.append(("cursor", cursor))
    return ApiRequest("GET", _url(api, "/works"), tuple(params), None, {})


def _get(api: AcademicAPISettings, path: str) -> ApiRequest:
    return ApiRequest("GET", _url(api, path), tuple(_polite(api)), None, {})


def _polite(api: AcademicAPISettings) -> list[tuple[str, str]]:
    """`mailto` puts us in the polite pool; `api_key` where the user has one."""
    params = [("mailto", api.mailto)] if api.mailto else []
    if api.api_key:
        params.append(("api_key", api.api_key))
    return params


def _url(api: AcademicAPISettings, path: str) -> str:
    return f"{api.base_url.rstrip('/')}{path}"
