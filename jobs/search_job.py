"""One search as a background job of the Orchestrator (ARCHITECTURE §3).

Collect documents (local engine, given URLs) → rank documents → store pages and
fragments → embed → rank fragments (BM25 + embeddings, Kneedle) → extract claims →
judge stance against fragments of other pages → Bayesian confidence → metrics.
The work is done by the graph and inference actors and by pure functions in
``lyra.pipelines``; this module only sequences it (the passage choice, claims and
stance steps are in ``jobs/evidence_steps.py``, the web engines' queries and SERPs in
``jobs/engine_serps.py``, what a fetch answer becomes in ``jobs/fetched_documents.py``,
the vectors in ``jobs/search_vectors.py``, the stored rows in ``jobs/page_rows.py``,
what the orchestrator gives a job in ``jobs/search_context.py``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag

import numpy as np
import ray

from lyra.jobs.academic import APIS, AcademicClient
from lyra.jobs.discovery import PaperDiscovery, ids_from_options, ids_of_page
from lyra.jobs.engine_serps import EngineSerps, on_priority_site
from lyra.jobs.evidence_steps import (
    choose_passages,
    extract_claims,
    judge_stance,
    read_page_ahead,
)
from lyra.jobs.fetched_documents import asked_to_wait, read_fetched
from lyra.jobs.page_rows import canonical_of, fragment_rows, page_row
from lyra.jobs.search_context import SearchContext, SearchStopped
from lyra.jobs.search_vectors import SearchVectors
from lyra.pipelines.discover.citations import is_academic_query
from lyra.pipelines.discover.local_corpus import (
    CorpusError,
    corpus_fingerprint,
    scan_corpus,
)
from lyra.pipelines.discover.query_mirror import latin_script
from lyra.pipelines.discover.wikipedia import is_wikipedia, reference_urls
from lyra.pipelines.errors import DEGRADED_PREFIX, LyraError
from lyra.pipelines.evidence import research as rs
from lyra.pipelines.evidence.facets import (
    Facet,
    question_facets,
)
from lyra.pipelines.evidence.onnx_export import MINILM_MODEL_ID
from lyra.pipelines.evidence.ranking import (
    bm25_scores,
    hybrid_scores,
    seek_primary_scores,
)
from lyra.pipelines.extract.documents import Document
from lyra.pipelines.extract.injection import Detection
from lyra.pipelines.net.domains import block_match, page_trust_level
from lyra.pipelines.net.net_guard import TargetRefused, split_url
from lyra.storage.disk import disk_full_error

log = logging.getLogger(__name__)

# Documents with no query term and an embedding similarity below this are off topic.
OFF_TOPIC_SIMILARITY = 0.15
# Warnings one search stores for get_status (its own answer carries them all).
MAX_STORED_WARNINGS = 500
# The packaged embedder, and the packaged stance model that reads its vectors, learned
# English only: a question in another script gets passages ranked and stances judged by
# models that cannot read it (decision 0089).
DEGRADED_LANGUAGE = (
    "language: the question is not in English, and the packaged all-MiniLM-L6-v2 embedder "
    "and MiniLM stance model read English only, so its passages are ranked and its "
    "stances judged poorly; `lyra models pull embedder` installs bge-m3 (multilingual)"
)
# Security warnings one search reports at most (one per page, kind and detail).
MAX_SECURITY_WARNINGS = 200
# Each fetched page's fragments are read for the passage choice as the page arrives, in
# one thread of their own: never in the way of the threads that extract pages (0112).
_READER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lyra-read-ahead")


class SearchJob:
    """Runs the pipeline of one search and returns its result dict."""

    def __init__(self, ctx: SearchContext) -> None:
        self.ctx = ctx
        self.stage_seconds: dict[str, float] = {}
        self.metrics: dict[str, Any] = {
            "pages_fetched": 0,
            "fragments_total": 0,
            "useful_fragments": 0,
            "claims_extracted": 0,
            "new_claims": 0,
            "edges_added": 0,
            "harvest_rate": 0.0,
            "novelty": 0.0,
            "satisfaction": 0.0,
        }
        self.budget_exhausted = False
        # Set when a stop or the time budget's end came while documents were collected:
        # the search then processes what it has and ends with that status.
        self.wound_down: SearchStopped | None = None
        # Tasks the search starts and does not wait for (kept from the garbage collector).
        self._background: set[asyncio.Future[None]] = set()
        # Every vector the search makes or reuses (its texts embedded as they arrive).
        self.vectors = SearchVectors(ctx)
        self.facets: list[Facet] = []
        self._facet_vecs: np.ndarray | None = None
        self.facet_fragments: dict[str, int] = {}
        # Claims of the task this search found again (evidence_steps.extract_claims).
        self.refound: set[str] = set()
        # What the fetch layer said about each fetched URL (documents are frozen).
        self.fetched: dict[str, dict[str, Any]] = {}
        # URLs an engine's SERP listed (their serp_items rows are the engine's own).
        self.serp_urls: set[str] = set()
        self.engines = EngineSerps(
            ctx,
            self.serp_urls,
            stopping=self.stopping,
            unblocked=self._unblocked,
            page_budget=self._page_budget,
            note_detections=self.note_detections,
        )
        # (url, kind, detail) -> count: what the injection guard removed (decision 0016).
        self.security: dict[tuple[str, str, str], int] = {}
        # The detections in the text of the pages this search stored (source verification).
        self.page_detections: list[dict[str, str]] = []
        self.discovery: PaperDiscovery | None = None
        # Sources cited in the references of fetched Wikipedia articles (LOW trust
        # themselves): fetched next, ahead of anything else (seed 000 §3.4).
        self.wiki_refs: list[str] = []
        # Documents of the client's own `urls`: kept first, whatever the ranking says.
        self._given: set[str] = set()
        # Pages this search may still fetch from engines and cited sources (set in
        # `_collect`): the pipeline never fetches more than it can keep (issue 13).
        self._fetch_room = 0
        # Registrable domain -> the domains.yaml rule that blocks it, for the domains
        # this search left out (ARCHITECTURE §4: never fetched, never cited).
        self.blocked: dict[str, str] = {}
        self.blocked_urls: set[str] = set()

    @property
    def model_id(self) -> str | None:
        """The InferenceActor's embedding model (None: it has none)."""
        return self.vectors.model_id

    @model_id.setter
    def model_id(self, value: str | None) -> None:
        self.vectors.model_id = value

    def partial_metrics(self) -> dict[str, Any]:
        """The metrics so far, for a client asking while the search runs: pages count
        once stored (after ranking); `urls_fetched` counts every URL the fetch layer
        has answered for, from the first fetch on."""
        return {
            **self.metrics,
            "urls_fetched": len(self.fetched),
            "warnings": self.ctx.warnings[:MAX_STORED_WARNINGS],
        }

    def _page_budget(self) -> int:
        """Pages this search may keep: its max_pages, within what the task has left."""
        want = int(self.ctx.options.get("max_pages") or self.ctx.settings.search.default_max_pages)
        return max(0, min(want, self.ctx.pages_left))

    def stopping(self) -> bool:
        """A stop was asked for or the time budget is over: no new fetch starts (the
        next stage boundary's `check` then ends the search)."""
        return self.ctx.stop_requested() or time.monotonic() > self.ctx.deadline

    def _stop_reason(self, stage: str) -> SearchStopped | None:
        if self.ctx.stop_requested():
            return SearchStopped("cancelled", f"task stopped before {stage}")
        if time.monotonic() > self.ctx.deadline:
            self.budget_exhausted = True
            return SearchStopped("exhausted", f"time budget ran out before {stage}")
        return None

    def check(self, stage: str) -> None:
        """Raise SearchStopped at a stage boundary after a (graceful) stop or the end of
        the time budget. A search winding down (`run`) goes on, unless a stop comes
        after the budget's end began it: the person's stop then ends it here."""
        if self.wound_down is not None:
            if self.wound_down.status == "cancelled" or not self.ctx.stop_requested():
                return
            self.wound_down = None
        stop = self._stop_reason(stage)
        if stop is not None:
            raise stop

    async def run(self) -> dict[str, Any]:
        """The whole pipeline; raises SearchStopped or a pipeline error."""
        ctx = self.ctx
        # Seconds each stage took: in the finished search's metrics (where its time went).
        laps = self.stage_seconds
        lap_started = time.monotonic()

        def lap(stage: str) -> None:
            nonlocal lap_started
            now = time.monotonic()
            laps[stage] = round(now - lap_started, 3)
            lap_started = now

        self.model_id = await ctx.call("inference", "embedding_model_id")
        if self.model_id == MINILM_MODEL_ID and not latin_script(ctx.query):
            ctx.warnings.append(DEGRADED_PREFIX + DEGRADED_LANGUAGE)
        self.facets = question_facets(ctx.query)
        # The question's vectors are first needed once the documents are in: they are
        # made while the sites are asked (decision 0045).
        question = asyncio.create_task(self._embed_question())
        # Its failure is raised by the await below, or dropped with a failed collection.
        question.add_done_callback(lambda t: t.cancelled() or t.exception())
        ctx.progress("collect", 0.05, "collecting documents")
        try:
            docs = await self._collect()
            await question
        except BaseException:
            question.cancel()
            raise
        # A graceful stop or the end of the time budget while the documents came in
        # ends the fetching, not the search: the pages already fetched (their sites
        # asked, their answers archived) are stored and judged like any others.
        lap("collect")
        self.wound_down = self._stop_reason("ranking")
        ctx.progress("rank", 0.15, f"ranking {len(docs)} documents")
        docs = await self._rank_documents(docs)
        self.check("storing")
        ctx.progress("store", 0.25, f"storing {len(docs)} pages")
        lap("rank")
        fragments = await self._store(docs)
        if self.discovery is not None and self.wound_down is None:
            # Citations are new requests to the APIs: none after a stop or the budget.
            fragments += await self._track_citations()
        lap("store")
        self.check("embedding")
        ctx.progress("embed", 0.35, f"embedding {len(fragments)} fragments")
        frag_vecs = await self.vectors.embed_rows(fragments)
        # Stored while the passages and claims are chosen, which read them from here; the
        # stance step searches them in the graph, so they are stored by then, whatever
        # ends the stages before it (decision 0112).
        stored = asyncio.ensure_future(self.vectors.store("fragment", fragments, frag_vecs))
        lap("embed")
        try:
            self.check("fragment ranking")
            useful = await choose_passages(self, fragments, frag_vecs, self._facet_vecs)
            lap("passages")
            self.check("claim extraction")
            ctx.progress("claims", 0.5, f"extracting claims from {len(useful)} fragments")
            await extract_claims(self, useful)
        finally:
            await stored
        lap("claims")
        self.check("stance")
        ctx.progress("stance", 0.7, "judging stance")
        await judge_stance(self)
        lap("stance")
        ctx.progress("confidence", 0.95, "computing confidence")
        result = await self.finish()
        lap("finish")
        if self.wound_down is not None:
            result["status"] = self.wound_down.status
            result["warnings"].append(
                f"{self.wound_down}: nothing more was fetched, and the {len(docs)} "
                "documents in hand were processed"
            )
        return result

    def _keep(self, work: asyncio.Future[None]) -> None:
        """Work done ahead for a later stage, held until it ends. Its failure is not the
        search's: the stage that needs it does the same work again and raises there."""
        self._background.add(work)
        work.add_done_callback(self._background.discard)
        work.add_done_callback(lambda w: w.cancelled() or w.exception())

    async def _embed_question(self) -> None:
        """The question's and its facets' vectors (none without an embedding model)."""
        if self.model_id is None:
            return
        texts = [self.ctx.query, *(f.query for f in self.facets)]
        got = await self.ctx.call("inference", "embed", texts)
        self._query_vec = np.asarray(got[0], dtype=np.float32)
        self._facet_vecs = np.asarray(got[1:], dtype=np.float32)

    async def outcome(self) -> dict[str, Any]:
        """`run` to its end, whatever ends it: the result always carries a status.

        A stop or an exhausted budget finishes with what was found; a cancelled job
        ends `cancelled`; a pipeline error ends `failed` with its code (any other
        exception too, its details in the log only).
        """
        started = time.monotonic()
        try:
            result = await self._run_then_settle()
        except SearchStopped as stop:
            result = await self.finish()
            result["status"] = stop.status
            result["warnings"].append(str(stop))
        except asyncio.CancelledError:
            result = {
                "status": "cancelled",
                "claims": [],
                "metrics": self.metrics,
                "warnings": ["stopped immediately"],
            }
        except (CorpusError, ValueError) as exc:
            log.warning("search %s failed", self.ctx.search_id, exc_info=True)
            result = self._failed("PIPELINE_ERROR", str(exc))
        except LyraError as exc:
            result = self._failed(exc.code, exc.message)
        except Exception as exc:  # the job must always end with a recorded status
            log.exception("search %s failed", self.ctx.search_id)
            full = disk_full_error(exc)
            message = full.message if full else f"search failed: {type(exc).__name__}"
            result = self._failed("PIPELINE_ERROR", message)
        result["metrics"]["elapsed_seconds"] = round(time.monotonic() - started, 2)
        return result

    async def _run_then_settle(self) -> dict[str, Any]:
        try:
            return await self.run()
        finally:
            # Embeddings started ahead and not needed any more (a stop, an error).
            self.vectors.cancel()

    def _failed(self, code: str, message: str) -> dict[str, Any]:
        return {
            "status": "failed",
            "claims": [],
            "metrics": self.metrics,
            "warnings": [],
            "error": {"code": code, "message": message},
        }

    async def finish(self) -> dict[str, Any]:
        """Source verification, confidence of the task's claims and the search metrics."""
        # Only what the text of stored pages held: not a SERP snippet, not a claim.
        found = sorted(self.page_detections, key=lambda d: (d["url"], d["kind"], d["detail"]))
        try:
            verified = await self.ctx.call(
                "graph", "verify_sources", self.ctx.task["id"], self.ctx.search_id, found
            )
        except (LyraError, ray.exceptions.RayError) as exc:
            # The search's evidence is stored: a failed verification pass must not lose
            # the answer. The next search of the task verifies again.
            log.warning("search %s: source verification failed: %s", self.ctx.search_id, exc)
            self.ctx.warnings.append(
                f"{DEGRADED_PREFIX}verification: source verification failed this time "
                f"({type(exc).__name__}); claims keep their last verification state"
            )
        else:
            self.metrics["verification"] = {
                "claims": verified["claims"],
                "sites_changed": [
                    {k: e[k] for k in ("domain", "from", "to", "trust_level")}
                    for e in verified["sites_changed"]
                ],
            }
        claims = await self.ctx.call("graph", "claim_confidences", self.ctx.task["id"])
        # The claims this search added, and those of the task it found again (a later
        # search of a task that re-reads a source answers with what it found there).
        mine = [
            c for c in claims if c.get("search_id") == self.ctx.search_id or c["id"] in self.refound
        ]
        status, satisfaction = rs.search_status(claims, self.budget_exhausted)
        m = self.metrics
        m["harvest_rate"] = rs.harvest_rate(m["useful_fragments"], m["pages_fetched"])
        m["novelty"] = rs.novelty(m["new_claims"], m["claims_extracted"])
        m["satisfaction"] = round(satisfaction, 4)
        # ARCHITECTURE §5's primary-source flag: a claim of the task is supported by a
        # primary source (PRIMARY, GOVERNMENT or ACADEMIC), which alone satisfies it.
        m["primary_source"] = any(bool(c.get("primary_support")) for c in claims)
        # Filled stage by stage by `run` (its last lap, "finish", once this returns).
        m["stage_seconds"] = self.stage_seconds
        if self.discovery is not None:
            m.update(self.discovery.metrics)
            m["api_calls"] = self.discovery.api_calls()
            self.ctx.warnings.extend(self.discovery.client.warnings)
            self.ctx.warnings.extend(self.discovery.warnings)
            self.ctx.warnings.extend(DEGRADED_PREFIX + d for d in self.discovery.degraded)
        # In the metrics too, so that get_status (which reads the stored searches)
        # reports them as well as this search's result.
        m["security_warnings"] = self.security_warnings()
        # And what happened to each URL that gave no page (get_status `warnings`), for a
        # client that polls instead of waiting for the search's own answer.
        m["warnings"] = self.ctx.warnings[:MAX_STORED_WARNINGS]
        blocked = self.blocked_domains()
        if blocked:
            m["blocked_urls"] = len(self.blocked_urls)
            await self.ctx.call(
                "graph", "record_blocked_domains", blocked, self.ctx.task["id"], self.ctx.search_id
            )
        return {
            "status": status,
            "claims": mine,
            "metrics": m,
            "warnings": self.ctx.warnings,
            "security_warnings": m["security_warnings"],
            "blocked_domains": blocked,
        }

    def blocked_domains(self) -> list[dict[str, str]]:
        """The BLOCKED domains this search left out, `{domain, rule}`, by domain."""
        return [{"domain": d, "rule": r} for d, r in sorted(self.blocked.items())]

    def _unblocked(self, urls: list[str]) -> list[str]:
        """`urls` without those of BLOCKED domains, which are noted (one warning per domain)."""
        return [u for u in urls if not self._left_out(u)]

    def _left_out(self, url: str, domain: str | None = None) -> bool:
        """True (and noted) when the domain rules make `url`'s domain (or `domain`, the
        site a corpus folder names) BLOCKED."""
        match = block_match(domain or url, self.ctx.domain_rules)
        if match is None:
            return False
        name, rule = match
        if name not in self.blocked:
            self.blocked[name] = rule
            self.ctx.warnings.append(f"{name}: not fetched or cited (domain_blocked by {rule})")
        self.blocked_urls.add(url)
        return True

    def note_detections(self, url: str, detections: list[Detection]) -> None:
        """Record what the injection guard found on `url` for `_lyra_meta`."""
        for d in detections:
            key = (url, d.kind, d.detail)
            self.security[key] = self.security.get(key, 0) + d.count

    def security_warnings(self) -> list[dict[str, Any]]:
        """The recorded detections as `{url, kind, detail, count}`, by URL then kind."""
        return [
            {"url": url, "kind": kind, "detail": detail, "count": count}
            for (url, kind, detail), count in sorted(self.security.items())
        ][:MAX_SECURITY_WARNINGS]

    # --- collect ---------------------------------------------------------------------
    def _academic_apis(self) -> list[str]:
        """The APIs this search uses: the client's list, else both when the search is online.

        Online means the client named a web engine or DOIs: Lyra's default run (the
        local corpus) and a plain fetch of given URLs never send the user's question
        anywhere else (decision 0012).
        """
        ctx = self.ctx
        named = ctx.options.get("academic_apis")
        if named is not None:
            return list(named)
        web = [e for e in ctx.options.get("engines") or [] if e != "local"]
        online = bool(web or ctx.options.get("dois"))
        return list(APIS) if online and ctx.fetch_api is not None else []

    async def _collect(self) -> list[Document]:
        ctx = self.ctx
        if ctx.replay_documents is not None:
            # A replay keeps every document the original search kept, as given URLs.
            self._given = {d.url for d in ctx.replay_documents}
            self._fetch_room = 0
            return list(ctx.replay_documents)
        named = ctx.options.get("engines")
        docs: list[Document] = []
        for name, reason in sorted((ctx.options.get("engines_skipped") or {}).items()):
            ctx.warnings.append(f"{name}: skipped ({reason})")
        apis = self._academic_apis()
        academic_first = False
        if ctx.options.get("dois") and not apis:
            ctx.warnings.append(
                f"dois: {len(ctx.options['dois'])} not looked up (no academic API: "
                "options.academic_apis is empty)"
            )
        if apis and ctx.fetch_api is not None:
            self.discovery = PaperDiscovery(
                AcademicClient(ctx.settings, ctx.fetch_api, apis),
                ctx.call,
                task_id=ctx.task["id"],
                search_id=ctx.search_id,
                query=ctx.query,
                tag=ctx.task["tag"],
                domain_rules=ctx.domain_rules,
                max_tracked=ctx.settings.academic.max_tracked_papers,
            )
            self.discovery.note_ids(ids_from_options(ctx.options.get("dois") or []), "doi", None)
            self.engines.discovery = self.discovery
            # seed 001: an academic query asks the APIs first; any other asks them after
            # the engines. Every paper takes the same path from here on.
            academic_first = is_academic_query(ctx.query)
            if academic_first:
                ctx.progress("collect", 0.06, "searching the academic APIs")
                await self.discovery.search_apis()
        # Given URLs replace the engines unless the client also names engines; an empty
        # list names none, the local corpus included.
        default_local = named is None and not ctx.options.get("urls")
        if default_local or "local" in (named or []):
            paths = [Path(p).expanduser() for p in ctx.settings.engine("local").paths]
            if not paths:
                raise ValueError(
                    "the local engine has no corpus: set engines.local.paths "
                    "(or run `lyra research --corpus DIR`)"
                )
            key = await asyncio.to_thread(corpus_fingerprint, paths)
            scan = ctx.corpus_cache.get(key)
            if scan is None:
                scan = await asyncio.to_thread(
                    scan_corpus, paths, ctx.settings.search.max_file_bytes
                )
                ctx.corpus_cache.clear()
                ctx.corpus_cache[key] = scan
            ctx.warnings.extend(scan.warnings)
            # A corpus folder names its site: a blocked site's files are left out too.
            docs.extend(d for d in scan.documents if not self._left_out(d.url, d.domain))
        # The client's URLs are all kept, within what the task has left, and count
        # against this search's pages first; engines and cited sources fetch only into
        # the room that leaves (never more than can be kept).
        # A URL's #fragment is never sent: `page.html#a` and `page.html` are one page.
        given_urls = (urldefrag(u).url for u in ctx.options.get("urls") or [])
        urls = self._unblocked(list(dict.fromkeys(given_urls)))
        if len(urls) > ctx.pages_left:
            ctx.warnings.append(
                f"urls: {len(urls) - ctx.pages_left} not fetched (the task has "
                f"{ctx.pages_left} pages left)"
            )
            urls = urls[: ctx.pages_left]
        given = await self._fetch_documents(urls)
        self._given = {d.url for d in given}
        docs.extend(given)
        self._fetch_room = max(0, self._page_budget() - len(given))
        fetched_urls = set(urls) | self._given
        for engine in named or []:
            if engine != "local" and not self._fetch_room:
                ctx.warnings.append(f"{engine}: not asked (the given urls fill max_pages)")
            elif engine != "local":
                urls_from_serp = [
                    u for u in await self.engines.result_urls(engine) if u not in fetched_urls
                ]
                found = await self._fetch_documents(urls_from_serp[: self._fetch_room])
                fetched_urls.update(urls_from_serp[: self._fetch_room])
                self._fetch_room = max(0, self._fetch_room - len(found))
                docs.extend(found)
        if self.wiki_refs and self._fetch_room:
            known = {d.url for d in docs} | fetched_urls
            cited = self._unblocked(list(dict.fromkeys(urldefrag(u).url for u in self.wiki_refs)))
            refs = [u for u in cited if u not in known]
            refs = refs[: self._fetch_room]
            ctx.progress("collect", 0.08, f"fetching {len(refs)} sources Wikipedia cites")
            found = await self._fetch_documents(refs)
            self._fetch_room = max(0, self._fetch_room - len(found))
            docs.extend(found)
        if self.discovery is not None:
            if not academic_first:
                ctx.progress("collect", 0.1, "searching the academic APIs")
                await self.discovery.search_apis()
            ctx.progress("collect", 0.12, "resolving paper identifiers")
            await self.discovery.resolve_pending()
            docs.extend(await self.discovery.store_met())
            self._note_paper_sources()
        seen: set[str] = set()
        unique = []
        for d in docs:
            if d.url in seen:
                continue
            if not d.fragments:
                # An empty body, a page of navigation only: fetched, archived, no text.
                if d.url in self.fetched:
                    self.ctx.warnings.append(f"{d.url}: not ingested (no text extracted)")
                continue
            # Corpus files and papers the APIs described are cited by their URL:
            # a BLOCKED domain's are left out like its pages.
            if self._left_out(d.url):
                continue
            seen.add(d.url)
            unique.append(d)
        return unique

    async def _fetch_documents(self, urls: list[str]) -> list[Document]:
        """Fetch and extract `urls`, in parallel across domains."""
        ctx = self.ctx
        docs: list[Document] = []
        if urls:
            # In parallel across domains; each domain's fetcher serialises its own.
            gate = asyncio.Semaphore(max(1, ctx.settings.fetch.max_live_actors))

            async def fetch_one(url: str) -> Document | None:
                async with gate:
                    # A site at 0.2 requests/s takes minutes over a long list: a stop
                    # or the end of the time budget leaves the rest unasked.
                    if self.stopping():
                        return None
                    return await self._fetch_document(url)

            fetched = await asyncio.gather(*(fetch_one(u) for u in urls))
            docs.extend(d for d in fetched if d is not None)
        return docs

    async def _fetch_document(self, url: str) -> Document | None:
        try:
            # A URL no fetcher would take (no host: file:///…) is refused here, as the
            # fetcher refuses the others, rather than failing the search.
            split_url(url)
        except TargetRefused as exc:
            self.ctx.warnings.append(f"{url}: not fetched (target_refused:{exc.reason})")
            return None
        result = await self.ctx.fetch_url(url)
        if asked_to_wait(result, self.ctx.deadline) and not self.stopping():
            # The site answered 429 (or 503) with Retry-After: its fetcher waits as long
            # as it asked, within fetch.timeout_seconds, before this one more ask of the
            # URL that answered (not the redirects that led there); a longer wait is
            # answered rate_limited without a request (decision 0065).
            result = await self.ctx.fetch_url(str(result.get("final_url") or url))
        if result.get("error") in ("domain_blocked", "target_refused:domain_blocked"):
            # Redirected to a blocked site (or host): the fetch layer asked nothing of it.
            self._left_out(str(result.get("redirect_to") or result.get("final_url") or url))
            return None
        if result.get("error"):
            note = f"{url}: not fetched ({result['error']})"
            if result.get("auth_item"):
                note += f"; queued for a person as {result['auth_item'].get('id')}"
                self.metrics["auth_queued"] = self.metrics.get("auth_queued", 0) + 1
            self.ctx.warnings.append(note)
            return None
        read = await read_fetched(result, url, self.ctx.search_id, self.ctx.warnings)
        if read is None:
            return None
        doc, final, html = read.doc, read.final_url, read.html
        # Both parse the page: off the event loop, which meanwhile answers tool calls.
        if self.discovery is not None:
            ids = await asyncio.to_thread(ids_of_page, html, doc.text, final)
            self.discovery.note_ids(ids, "page", final)
        if html is not None and is_wikipedia(final):
            self.wiki_refs.extend(await asyncio.to_thread(reference_urls, html, final))
        # A 304's body is the stored one: the page is what that earlier record holds.
        stored = bool(result.get("not_modified"))
        self.fetched[doc.url] = {
            "warc_path": result.get("stored_warc_path" if stored else "warc_path"),
            "warc_offset": result.get("stored_warc_offset" if stored else "warc_offset"),
            "http_status": result.get("status"),
            "fetched_at": result.get("fetched_at"),
            "screenshot_path": result.get("screenshot_path"),
        }
        self.vectors.queue_document(doc)
        loop = asyncio.get_running_loop()
        self._keep(loop.run_in_executor(_READER, read_page_ahead, doc.fragments, self.ctx.query))
        return doc

    # --- rank documents ---------------------------------------------------------------
    async def _rank_documents(self, docs: list[Document]) -> list[Document]:
        if not docs:
            return []
        texts = [f"{d.title or ''}\n{d.text[:2000]}" for d in docs]
        bm25 = bm25_scores(self.ctx.query, texts)
        cos = await self.vectors.page_cosines(docs, self._query_vec)
        scores = hybrid_scores(
            bm25,
            cos,
            self.ctx.settings.search.bm25_weight,
            self.ctx.settings.search.embedding_weight,
        )
        if self.ctx.options.get("seek_primary"):
            levels = [page_trust_level(d.domain, d.url, self.ctx.domain_rules) for d in docs]
            scores = seek_primary_scores(scores, levels)
        order = sorted(range(len(docs)), key=lambda i: (-scores[i], docs[i].url))
        # The client's URLs first, whatever their score; then the best on-topic others,
        # those of the task's priority sites ahead (decision 0052).
        given = [i for i in order if docs[i].url in self._given]
        on_topic = [
            i
            for i in order
            if docs[i].url not in self._given and (bm25[i] > 0 or cos[i] >= OFF_TOPIC_SIMILARITY)
        ]
        ahead = [i for i in on_topic if on_priority_site(docs[i].url, self.engines.priority)]
        first = set(ahead)
        on_topic = ahead + [i for i in on_topic if i not in first]
        want = int(self.ctx.options.get("max_pages") or self.ctx.settings.search.default_max_pages)
        take = max(0, self._page_budget() - len(given))
        if len(on_topic) > take:
            # Cut by the task's budget rather than by this search's own max_pages.
            self.budget_exhausted = self.ctx.pages_left < want
        kept = [docs[i] for i in given + on_topic[:take]]
        await self._list_sources(kept, "local")
        return kept

    async def _list_sources(self, docs: list[Document], key: str) -> None:
        """`serp_items` rows for kept documents no engine listed (corpus files, given
        URLs, cited papers): the task's stance step and its vector_search read the
        fragments of the pages its searches list. `key`: the id's engine part."""
        rows = [
            {
                "id": rs.serp_item_id(self.ctx.search_id, key, d.url),
                "search_id": self.ctx.search_id,
                "engine": key
                if key != "local"
                else ("local" if d.url.startswith("file://") else "url"),
                "rank": rank,
                "url": d.url,
                "title": d.title,
                "snippet": d.text[:240],
            }
            for rank, d in enumerate(docs, start=1)
            if d.url not in self.serp_urls
        ]
        if rows:
            await self.ctx.call("graph", "insert_serp_items", rows)
            self.serp_urls.update(d.url for d in docs)

    # --- store -----------------------------------------------------------------------
    async def _store(self, docs: list[Document]) -> list[dict[str, Any]]:
        ctx = self.ctx
        known = [tuple(k) for k in await ctx.call("graph", "page_simhashes")]
        fetched_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        page_rows = []
        for d in docs:
            # Only the pages a search stores are reported: a corpus file ranked out
            # never reaches a fragment, a claim or the client.
            self.note_detections(d.url, d.detections)
            self.page_detections += [
                {"url": d.url, "kind": x.kind, "detail": x.detail} for x in d.detections
            ]
            page_rows.append(
                page_row(
                    d,
                    canonical_of(rs.page_id(d.url), d.simhash, known),
                    page_trust_level(d.domain, d.url, ctx.domain_rules),
                    self.fetched.get(d.url, {}),
                    fetched_at,
                    self.discovery.page_columns(d.url) if self.discovery else {},
                )
            )
        ids = await ctx.call("graph", "upsert_pages", page_rows)
        self.metrics["pages_fetched"] += len(docs)
        if self.discovery is not None:
            await self.discovery.attach_pages(ids)
        frag_rows = [
            row
            for d, prow in zip(docs, page_rows, strict=True)
            for row in fragment_rows(d, ids.get(d.url, prow["id"]))
        ]
        await ctx.call(
            "graph",
            "insert_fragments",
            [{k: v for k, v in r.items() if not k.startswith("_")} for r in frag_rows],
        )
        self.metrics["fragments_total"] += len(frag_rows)
        return frag_rows

    def _note_paper_sources(self) -> None:
        """A paper page's provenance is the API answer it shows (its WARC record)."""
        assert self.discovery is not None
        for url, source in self.discovery.page_sources.items():
            if source is not None and url not in self.fetched:
                self.fetched[url] = {"warc_path": source[0], "fetched_at": source[1]}

    # --- citation tracking -------------------------------------------------------------
    async def _track_citations(self) -> list[dict[str, Any]]:
        """Pages for the most relevant references and citations, with `cites` edges."""
        disc = self.discovery
        assert disc is not None
        self.check("citation tracking")
        self.ctx.progress("citations", 0.3, "tracking citations")
        query_vec = self._query_vec if self.model_id is not None else None
        docs = [
            d
            for d in await disc.track_citations(self.embed_texts, query_vec)
            if not self._left_out(d.url)
        ]
        self._note_paper_sources()
        room = max(0, self.ctx.pages_left - self.metrics["pages_fetched"])
        if len(docs) > room:
            self.budget_exhausted = True
            docs = docs[:room]
        await self._list_sources(docs, "citation")
        fragments = await self._store(docs) if docs else []
        await disc.cites_edges()
        return fragments

    # --- embeddings (jobs/search_vectors.py) -------------------------------------------
    async def embed_texts(self, texts: list[str]) -> np.ndarray:
        """Vectors for texts (made ahead, stored, or asked of the model now)."""
        return await self.vectors.embed_texts(texts)

    async def embed_targets(
        self, target_type: str, rows: list[dict[str, Any]], text_key: str = "text_content"
    ) -> np.ndarray:
        """Vectors of ``rows``' texts, stored in the graph as ``target_type``'s."""
        return await self.vectors.embed_targets(target_type, rows, text_key)

    _query_vec: np.ndarray
