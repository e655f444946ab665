"""Semantic Scholar and OpenAlex calls through the fetch layer (issue 4, ARCHITECTURE §3 step 4).

Request builders and parsers are pure (pipelines/discover/academic_s2.py, academic_openalex.py);
this module only sends their requests through the API site's `DomainFetcher`, so each
API is held to its own configured rate (`academic.<api>.qps`), its circuit breaker
and its Retry-After, exactly like any site. A 429 or 5xx is retried after the
server's Retry-After or an exponential backoff, at most `MAX_ATTEMPTS` times; what
still fails becomes a warning of the search, never an exception that stops it.
`calls` counts requests per API (bench/discovery reports them per paper).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from lyra.config.settings import AcademicAPISettings, Settings
from lyra.pipelines.discover import academic_openalex as oa
from lyra.pipelines.discover import academic_s2 as s2
from lyra.pipelines.discover.identifiers import Identifier
from lyra.pipelines.discover.papers import (
    AcademicAPIError,
    ApiRequest,
    Paper,
    PaperLink,
    merge_papers,
)
from lyra.pipelines.errors import LyraError
from lyra.pipelines.net.backoff import backoff_delay
from lyra.pipelines.net.net_guard import refused_without_lookup

log = logging.getLogger(__name__)

APIS = ("semantic_scholar", "openalex")
MAX_ATTEMPTS = 3
# Longer than this, a Retry-After is not waited out inside a search: the API is
# reported as rate limited and the search goes on with its other sources.
MAX_WAIT_SECONDS = 60.0
SEARCH_LIMIT = 10  # papers per API search
OPENALEX_IDS_PER_FILTER = 50  # OpenAlex ORs at most 50 values in one filter
LINKS_LIMIT = 100  # references / citations per paper and direction (one page)
# S2 link pages carry the far paper's abstract too: no second lookup per candidate.
S2_LINK_FIELDS = (*s2.LINK_FIELDS, "abstract", "venue", "publicationTypes")

Fetch = Callable[..., Awaitable[dict[str, Any]]]


class AcademicClient:
    """The academic APIs of one search, sent through `fetch` (the orchestrator's fetch layer)."""

    def __init__(self, settings: Settings, fetch: Fetch, apis: Sequence[str]) -> None:
        unknown = sorted(set(apis) - set(APIS))
        if unknown:
            raise ValueError(f"unknown academic APIs: {', '.join(unknown)}")
        self.settings = settings
        self._fetch = fetch
        self.calls: Counter[str] = Counter()
        self.warnings: list[str] = []
        # APIs that did not answer at all (unreachable, circuit open): not asked again
        # in this search, so one dead service costs one warning, not one per paper.
        self._down: set[str] = set()
        # Where each paper's record was read: id -> (WARC path, fetched_at) of the API
        # answer, preferring an answer that carried the abstract (provenance of pages).
        self._with_abstract: dict[str, tuple[str, str]] = {}
        self._any_answer: dict[str, tuple[str, str]] = {}
        usable = []
        for api in (a for a in APIS if a in apis):
            refused = refused_without_lookup(
                self._config(api).base_url, allowed_hosts=list(settings.network.allowed_hosts)
            )
            if refused is None:
                usable.append(api)
            else:
                self.warnings.append(f"{api}: not used ({refused}: see network.allowed_hosts)")
        self.apis = tuple(usable)

    def _config(self, api: str) -> AcademicAPISettings:
        academic = self.settings.academic
        return academic.semantic_scholar if api == "semantic_scholar" else academic.openalex

    # --- sending -------------------------------------------------------------------------
    async def _send(self, api: str, request: ApiRequest) -> dict[str, Any]:
        """One API request with retries; the fetch result of the last answer.

        Raises AcademicAPIError when no answer came (circuit open, network error,
        a Retry-After too long to wait).
        """
        headers = {"Accept": "application/json", **request.headers}
        for attempt in range(MAX_ATTEMPTS):
            result = await self._fetch(
                request.full_url,
                method=request.method,
                headers=headers,
                json_body=request.json_body,
                api=True,
            )
            status = result.get("status")
            error = str(result.get("error") or "")
            if error in ("rate_limited", "domain_blocked", "cancelled") and status is None:
                # The fetch layer held it (rate), refused it (a BLOCKED domain of
                # domains.yaml) or dropped it (its search stopped): no request went out.
                retry_after = result.get("retry_after")
            else:
                self.calls[api] += 1
                retry_after = result.get("retry_after")
            retryable = status == 429 or (status is not None and status >= 500)
            if status is not None and not retryable:
                return result
            if status is None and error != "rate_limited":
                raise AcademicAPIError(
                    "PIPELINE_ERROR",
                    f"{api} unreachable: {error or 'no answer'}",
                    api=api,
                    status=0,
                    retryable=error not in ("circuit_open", "domain_blocked", "cancelled"),
                    retry_after=result.get("retry_after"),
                )
            if attempt == MAX_ATTEMPTS - 1:
                break
            wait = float(retry_after) if retry_after else self._backoff(attempt)
            if wait > MAX_WAIT_SECONDS:
                break
            log.info("%s answered %s; retrying in %.1fs", api, status or error, wait)
            await asyncio.sleep(wait)
        if status is not None:
            return result  # the parser turns the last 429/5xx into its typed error
        raise AcademicAPIError(
            "PIPELINE_ERROR",
            f"{api} is rate limited",
            api=api,
            status=429,
            retryable=True,
            retry_after=result.get("retry_after"),
        )

    def _backoff(self, attempt: int) -> float:
        cfg = self.settings.fetch
        return backoff_delay(attempt, cfg.backoff_base_seconds, cfg.backoff_max_seconds)

    async def _call(self, api: str, request: ApiRequest, parse: Callable[..., Any]) -> Any:
        """Send and parse; a failure becomes a warning and None."""
        if api in self._down:
            return None
        try:
            result = await self._send(api, request)
            parsed = parse(int(result["status"]), result.get("body") or b"", result.get("headers"))
        except AcademicAPIError as exc:
            if exc.not_found:
                return None
            if exc.status == 0:
                self._down.add(api)
            self.warnings.append(f"{api}: {exc.message}")
            log.info("%s request %s failed: %s", api, request.url, exc.message)
            return None
        except LyraError as exc:  # invalid JSON
            self.warnings.append(f"{api}: unreadable answer ({exc.message})")
            return None
        self._remember(parsed, result)
        return parsed

    def _remember(self, parsed: Any, result: dict[str, Any]) -> None:
        warc_path, fetched_at = result.get("warc_path"), result.get("fetched_at")
        if not warc_path or not fetched_at:
            return
        for paper in _papers_in(parsed):
            table = self._with_abstract if paper.abstract else self._any_answer
            for key in _paper_keys(paper):
                table.setdefault(key, (str(warc_path), str(fetched_at)))

    def source_of(self, paper: Paper) -> tuple[str, str] | None:
        """(WARC path, fetched_at) of the API answer this paper's record was read from."""
        keys = _paper_keys(paper)
        for table in (self._with_abstract, self._any_answer):
            for key in keys:
                if key in table:
                    return table[key]
        return None

    # --- operations ----------------------------------------------------------------------
    async def search(self, query: str) -> list[Paper]:
        """Relevance search in every API of this search, in parallel; papers in API order."""

        async def one(api: str) -> list[Paper]:
            cfg = self._config(api)
            if api == "semantic_scholar":
                page = await self._call(
                    api, s2.build_search(cfg, query, limit=SEARCH_LIMIT), s2.parse_search_page
                )
            else:
                page = await self._call(
                    api, oa.build_search(cfg, query, per_page=SEARCH_LIMIT), oa.parse_list_page
                )
            return list(page[0]) if page else []

        found = await asyncio.gather(*(one(api) for api in self.apis))
        return [p for papers in found for p in papers]

    async def lookup(self, ident: Identifier) -> Paper | None:
        """The paper an identifier names, from every API that knows it, merged."""

        async def from_s2() -> Paper | None:
            kind = {"doi": "DOI", "pmid": "PMID", "pmcid": "PMCID", "arxiv": "ARXIV"}.get(
                ident.kind
            )
            if kind is None:
                return None
            cfg = self._config("semantic_scholar")
            request = s2.build_paper(cfg, s2.paper_id(kind, ident.value))  # type: ignore[arg-type]
            paper: Paper | None = await self._call("semantic_scholar", request, s2.parse_single)
            return paper

        async def from_openalex() -> Paper | None:
            cfg = self._config("openalex")
            if ident.kind == "doi":
                request = oa.build_work_by_doi(cfg, ident.value)
            elif ident.kind == "pmid":
                request = oa.build_work_by_pmid(cfg, ident.value)
            elif ident.kind == "arxiv":
                request = oa.build_work_by_doi(cfg, f"10.48550/arxiv.{ident.value}")
            else:
                return None
            paper: Paper | None = await self._call("openalex", request, oa.parse_single)
            return paper

        calls = []
        if "semantic_scholar" in self.apis:
            calls.append(from_s2())
        if "openalex" in self.apis:
            calls.append(from_openalex())
        found = [p for p in await asyncio.gather(*calls) if p is not None]
        if not found:
            return None
        merged = found[0]
        for other in found[1:]:
            merged = merge_papers(merged, other)
        return merged

    async def fill_abstracts(self, papers: Sequence[Paper]) -> list[Paper]:
        """`papers` with missing abstracts (and ids) filled in by batch lookups.

        One S2 batch POST for those with an S2 id and one OpenAlex `openalex_id:` filter
        per 50 works for those with an OpenAlex id: a handful of requests for a whole
        candidate list, never one per paper.
        """
        missing = [p for p in papers if not p.abstract]
        found: dict[str, Paper] = {}
        s2_ids = sorted({p.s2_id for p in missing if p.s2_id})
        if s2_ids and "semantic_scholar" in self.apis:
            cfg = self._config("semantic_scholar")
            for start in range(0, len(s2_ids), s2.BATCH_MAX_IDS):
                chunk = s2_ids[start : start + s2.BATCH_MAX_IDS]
                got = await self._call(
                    "semantic_scholar", s2.build_batch(cfg, chunk), s2.parse_batch
                )
                for paper in got or ():
                    if paper is not None and paper.s2_id:
                        found[f"s2:{paper.s2_id}"] = paper
        oa_ids = sorted({p.openalex_id for p in missing if p.openalex_id})
        if oa_ids and "openalex" in self.apis:
            cfg = self._config("openalex")
            for start in range(0, len(oa_ids), OPENALEX_IDS_PER_FILTER):
                chunk = oa_ids[start : start + OPENALEX_IDS_PER_FILTER]
                expression = "openalex_id:" + "|".join(chunk)
                page = await self._call(
                    "openalex",
                    oa.build_filter(cfg, expression, per_page=len(chunk)),
                    oa.parse_list_page,
                )
                for paper in page[0] if page else ():
                    if paper.openalex_id:
                        found[f"oa:{paper.openalex_id}"] = paper
        out = []
        for paper in papers:
            merged = paper
            for key in (f"s2:{paper.s2_id}", f"oa:{paper.openalex_id}"):
                if key in found and not merged.abstract:
                    merged = merge_papers(merged, found[key])
            out.append(merged)
        return out

    async def links(self, paper: Paper) -> list[PaperLink]:
        """References and citations of `paper` from every API that knows it (one page each)."""
        calls: list[Awaitable[list[PaperLink]]] = []
        if "semantic_scholar" in self.apis:
            anchor = paper.s2_id or (s2.paper_id("DOI", paper.doi) if paper.doi else None)
            if anchor is not None:
                calls += [self._s2_links(anchor, "references"), self._s2_links(anchor, "citations")]
        if "openalex" in self.apis and paper.openalex_id:
            calls += [self._oa_references(paper.openalex_id), self._oa_citations(paper.openalex_id)]
        found = await asyncio.gather(*calls)
        return [link for links in found for link in links]

    async def _s2_links(
        self, anchor: str, direction: Literal["references", "citations"]
    ) -> list[PaperLink]:
        cfg = self._config("semantic_scholar")
        request = s2.build_links(
            cfg,
            anchor,
            direction,
            fields=S2_LINK_FIELDS,
            limit=LINKS_LIMIT,
        )
        page = await self._call(
            "semantic_scholar",
            request,
            lambda status, body, headers: s2.parse_links_page(
                status,
                body,
                anchor,
                direction,
                headers,
            ),
        )
        return list(page[0]) if page else []

    async def _oa_references(self, work_id: str) -> list[PaperLink]:
        """Works `work_id` cites, as full records (filter `cited_by:`)."""
        cfg = self._config("openalex")
        page = await self._call(
            "openalex", oa.build_cited_by(cfg, [work_id], per_page=LINKS_LIMIT), oa.parse_list_page
        )
        if not page:
            return []
        return [
            PaperLink(citing_id=work_id, cited_id=p.openalex_id, source_api=oa.API, paper=p)
            for p in page[0]
        ]

    async def _oa_citations(self, work_id: str) -> list[PaperLink]:
        """Works citing `work_id` (filter `cites:`)."""
        cfg = self._config("openalex")
        page = await self._call(
            "openalex", oa.build_cites(cfg, [work_id], per_page=LINKS_LIMIT), oa.parse_list_page
        )
        return oa.citing_links(page[0], work_id) if page else []


def _papers_in(value: Any) -> list[Paper]:
    """Every Paper in a parser's answer (a paper, a page tuple, a list of links)."""
    if isinstance(value, Paper):
        return [value]
    if isinstance(value, PaperLink):
        return [] if value.paper is None else [value.paper]
    if isinstance(value, list | tuple):
        return [p for item in value for p in _papers_in(item)]
    return []


def _paper_keys(paper: Paper) -> list[str]:
    pairs = (
        ("doi", paper.doi),
        ("pmid", paper.pmid),
        ("arxiv", paper.arxiv),
        ("s2", paper.s2_id),
        ("oa", paper.openalex_id),
    )
    return [f"{kind}:{value}" for kind, value in pairs if value]
