"""Orchestrator: tasks, searches as background jobs, budgets, supervision.

The MCP bridge talks only to this actor. It creates the graph and inference actors
(tree of actors) and calls them through ``ChildActors.call`` (actors/children.py), which
waits for a crashed child (re-creating one that is dead for good or keeps answering
"unavailable") for up to ``CALL_RECOVERY_SECONDS``, and runs each search as an asyncio
job whose progress the bridge polls.

Fault behaviour: ``max_restarts=3``, ``max_task_retries=0`` (starting a search is
not idempotent). Tasks, searches and everything a job wrote live in DuckDB; on
(re)start ``__init__`` marks searches left ``running`` by a dead process as failed,
so nothing acknowledged is lost and nothing claims to run that does not.
Idempotent methods: ``ping``, ``get_status``, ``wait_search``, ``query_graph``, ``export_task``,
``vector_search``, ``status``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from typing import Any

import ray

import lyra.actors.telemetry as telemetry
from lyra.actors.children import ChildActors
from lyra.actors.fetch_routing import FetchRouting
from lyra.actors.runtime import (
    BROWSER,
    GRAPH,
    INFERENCE,
    ONCE_WRITES,
    ORCHESTRATOR,
    restarted_by_ray,
    setup_actor_logging,
)
from lyra.actors.standby import StandbyWorkers
from lyra.config.settings import Settings
from lyra.jobs.auth_requeue import SessionHandOver
from lyra.jobs.auth_service import AuthService
from lyra.jobs.budget import task_budget, task_config
from lyra.jobs.discovery import validate_discovery_options
from lyra.jobs.engine_choice import EngineChoice
from lyra.jobs.live_status import LiveStatus
from lyra.jobs.once_writes import OnceWrites
from lyra.jobs.replay import replay_into
from lyra.jobs.search_context import INTERRUPTED_BY_RESTART, SearchContext
from lyra.jobs.search_job import SearchJob
from lyra.jobs.semantic_search import semantic_search
from lyra.jobs.user_prompts import PromptRegistry, desktop_question
from lyra.pipelines.discover.engines import load_engines
from lyra.pipelines.discover.local_corpus import CorpusScan
from lyra.pipelines.errors import LyraError
from lyra.pipelines.evidence import research as rs
from lyra.pipelines.evidence.leftovers import warm_lexicon
from lyra.pipelines.extract.documents import Document
from lyra.pipelines.llm.sanitize import new_task_tag
from lyra.pipelines.net.domains import (
    blocked_listing,
    home_rules_watcher,
)
from lyra.pipelines.net.notify import redact, safe_url
from lyra.storage.export import FORMATS as EXPORT_FORMATS

log = logging.getLogger(__name__)

FINAL_STATES = frozenset({"satisfied", "partial", "exhausted", "failed", "cancelled"})
# How long stop_task waits for the fetchers to drop a stopped search's queued requests.
DROP_WAIT_S = 5.0


def _found(task: dict[str, Any] | None, task_id: str) -> dict[str, Any]:
    """The task row, or TASK_NOT_FOUND."""
    if task is None:
        raise LyraError("TASK_NOT_FOUND", f"no task with id {task_id!r}", field="task_id")
    return task


@ray.remote(max_restarts=3, max_task_retries=0)
class Orchestrator:
    """Supervises the other actors and runs searches."""

    def __init__(self, settings: Settings) -> None:
        setup_actor_logging(settings.home_dir)
        self._settings = settings
        self._children = ChildActors(settings, self._note_restart)
        # Idle workers for the fetchers of new domains, started once the server is up.
        self._standby = StandbyWorkers(settings.fetch.standby_workers)
        self._standby_task: asyncio.Task[int] | None = None
        self._nodes_task: asyncio.Task[None] | None = None
        self._lexicon_task: asyncio.Task[None] | None = None
        self._jobs: dict[str, asyncio.Task[dict[str, Any]]] = {}
        # The pipelines of the searches running now, for their partial metrics.
        self._running: dict[str, SearchJob] = {}
        # Searches being started under a caller's id (start_search may be repeated).
        self._starting: dict[str, asyncio.Future[str]] = {}
        # Writes sent once (`once`); the graph writes of feedback, calibrate and cleanup
        # go through it (`self._once.graph_write`).
        self._once = OnceWrites(
            functools.partial(self._call, GRAPH), lambda name: getattr(self, name)
        )
        self._progress: dict[str, dict[str, Any]] = {}
        # get_status's graph reads while a search runs, renewed beside the polls
        # (decision 0086); every write a tool acknowledges calls its forget().
        self._live = LiveStatus(
            functools.partial(self._call, GRAPH, "status_reads"), busy=self._searching
        )
        self._results: dict[str, dict[str, Any]] = {}
        self._search_task: dict[str, str] = {}
        # Searches a stop_task asked to stop (a later search of the task is not).
        self._stopped: set[str] = set()
        self._tags: dict[str, str] = {}
        self._corpus_cache: dict[str, CorpusScan] = {}
        self._rules = home_rules_watcher(settings.home_dir)
        self._auth = AuthService(settings, functools.partial(self._call, GRAPH))
        self._prompts = PromptRegistry()
        # The DomainFetcher pool (made on the first fetch) and the auth queue's share of
        # fetching (actors/fetch_routing.py).
        self._fetching = FetchRouting(
            settings,
            rules=self._rules,
            rates=self._site_rates,
            standby=self._standby,
            auth=self._auth,
            graph=functools.partial(self._call, GRAPH),
            searching=self._searching,
        )
        self._hand_over = SessionHandOver(
            graph=functools.partial(self._call, GRAPH),
            browser=functools.partial(self._call, BROWSER),
            fetcher_of=lambda domain: self._fetching.fetcher_pool().handle(domain),
            start_search=self.start_search,
        )
        self._engines = EngineChoice(
            settings,
            load_engines(settings),
            functools.partial(self._call, GRAPH),
            self._fetching.live_circuit,
        )
        self._started = time.monotonic()
        self._ready = False
        self._ready_lock = asyncio.Lock()

    # --- supervision (actors/children.py) ------------------------------------------------
    async def _call(self, name: str, method: str, *args: Any, **kwargs: Any) -> Any:
        """Call a child actor, waiting for it when it crashed (``ChildActors.call``)."""
        return await self._children.call(name, method, *args, **kwargs)

    def _note_restart(self, name: str, method: str, failures: list[str]) -> None:
        """An `actor_restart` event for each running search (or one without a task)."""
        payload = {"actor": name, "method": method, "errors": failures}
        running = [sid for sid, job in self._jobs.items() if not job.done()]
        targets: list[tuple[str | None, str | None]] = [
            (self._search_task.get(sid), sid) for sid in running
        ] or [(None, None)]
        for task_id, search_id in targets:
            # Not awaited: the event must not hold up the call it describes.
            asyncio.get_running_loop().create_task(
                self._log_quietly(
                    kind="actor_restart",
                    actor=name,
                    task_id=task_id,
                    search_id=search_id,
                    payload=payload,
                )
            )

    async def _log_quietly(self, **fields: Any) -> None:
        try:
            await self._call(GRAPH, "log_event", **fields)
        except Exception:  # an audit row must never fail the work it records
            log.warning("could not log %s", fields.get("kind"), exc_info=True)

    async def ensure_ready(self) -> dict[str, Any]:
        """Start children; mark searches orphaned by an earlier process as failed."""
        await self._settle_orphans()
        status = await self._children.inference_status.get()
        return {"inference": status}

    async def _settle_orphans(self) -> None:
        """Once per orchestrator life, before anything reads or starts a search: searches
        left ``running`` by an earlier process (this actor before a crash, or another
        server) are marked failed, so a reader never waits on a search nobody runs."""
        async with self._ready_lock:
            if self._ready:
                return
            # Both children start side by side: the InferenceActor loads its models
            # while the GraphActor opens the database.
            self._children.handle(INFERENCE)
            n = await self._call(GRAPH, "fail_running_searches", INTERRUPTED_BY_RESTART)
            if n:
                log.warning("%d searches were interrupted by a restart", n)
            if restarted_by_ray():
                await self._log_quietly(
                    kind="actor_restart",
                    actor=ORCHESTRATOR,
                    payload={"actor": ORCHESTRATOR, "interrupted_searches": n},
                )
            self._ready = True
            self._standby_task = asyncio.create_task(self._warm_up_fetching())
            self._nodes_task = asyncio.create_task(self._children.watch_nodes())
            # Choosing passages reads lemminflect's tables (0.8 s of CPU to load): loaded
            # now, not while the first search's fetchers start (decision 0112).
            self._lexicon_task = asyncio.create_task(asyncio.to_thread(warm_lexicon))

    async def _warm_up_fetching(self) -> int:
        """What the first fetch of new domains would otherwise wait for (FetcherPool.warm_up)."""
        from lyra.actors.fetch_pool import prepare_fetcher_creation

        prepare_fetcher_creation()
        return await self._standby.top_up(keep_going=self._fetching.quiet)

    async def ping(self) -> str:
        """Liveness probe."""
        return "ok"

    async def status(self) -> dict[str, Any]:
        """Models, fallbacks, actor restarts and the sites the user blocked by name (in
        LYRA_HOME/domains.yaml or with feedback), for _lyra_meta and `lyra doctor`."""
        inf = await self._children.inference_status.get()
        overrides = self._rules.current().get("user_overrides") or {}
        return {
            "inference": inf,
            "restarts": dict(self._children.restarts),
            "degraded": inf["degraded"],
            "blocked_domains": sorted(n for n, level in overrides.items() if level == "BLOCKED"),
        }

    # --- tasks -----------------------------------------------------------------------
    async def create_task(
        self, query: str, config: dict[str, Any], task_id: str | None = None
    ) -> dict[str, Any]:
        """Create a task with its budget; returns the task row.

        `task_id` (the caller's, from `new_task_id`): a call sent again with the same id
        returns the task the first one made, so a caller may repeat it after an
        orchestrator crash (the bridge does).
        """
        await self.ensure_ready()
        cfg = task_config(config, self._settings.task)
        task_id = task_id or rs.new_task_id()
        task: dict[str, Any] = await self._call(GRAPH, "create_task", task_id, query, cfg)
        self._tags.setdefault(task_id, new_task_tag())
        return task

    async def _task(self, task_id: str) -> dict[str, Any]:
        return _found(await self._call(GRAPH, "get_task", task_id), task_id)

    async def _budget(
        self, task: dict[str, Any], searches: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        if searches is None:
            searches = await self._call(GRAPH, "list_searches", task["id"])
        return task_budget(task, searches, self._settings.task)

    # --- searches --------------------------------------------------------------------
    async def start_search(
        self,
        task_id: str,
        query: str,
        options: dict[str, Any],
        replay_documents: list[Document] | None = None,
        search_id: str | None = None,
    ) -> str:
        """Write the search row and start its job; returns the search id.

        ``replay_documents`` (``replay_task``): the job takes these documents and asks no
        engine, API or site. ``search_id`` (the caller's, from `new_search_id`): a call
        sent again with an id this instance has already stored starts nothing and
        returns it, so a caller may repeat it after an orchestrator crash (the bridge
        does); the search's own status then says how it went. A call repeated while the
        first is still starting the search waits for the first and answers as it does.
        """
        if search_id is None:
            return await self._start_search(task_id, query, options, replay_documents)
        if search_id in self._starting:
            return await asyncio.shield(self._starting[search_id])
        # Taken before the first await, so that no repeat slips between check and start.
        starting = self._starting[search_id] = asyncio.get_running_loop().create_future()
        try:
            started = await self._start_search(task_id, query, options, replay_documents, search_id)
        except asyncio.CancelledError:
            starting.cancel()
            raise
        except Exception as exc:
            starting.set_exception(exc)
            starting.exception()  # retrieved here; a repeat waiting on it gets it too
            raise
        else:
            starting.set_result(started)
            return started
        finally:
            del self._starting[search_id]

    async def _start_search(
        self,
        task_id: str,
        query: str,
        options: dict[str, Any],
        replay_documents: list[Document] | None,
        search_id: str | None = None,
    ) -> str:
        await self.ensure_ready()
        if search_id is not None:
            owner = self._search_task.get(search_id)
            if owner is None:
                row = await self._call(GRAPH, "get_search", search_id)
                owner = row["task_id"] if row else None
            if owner is not None:
                if owner != task_id:
                    raise LyraError(
                        "INVALID_PARAMS",
                        f"search {search_id} belongs to another task",
                        field="search_id",
                    )
                return search_id
        task = await self._task(task_id)
        budget = await self._budget(task)
        if budget["pages_remaining"] <= 0 or budget["seconds_remaining"] <= 0:
            raise LyraError(
                "BUDGET_EXHAUSTED",
                f"task {task_id} has no budget left (pages {budget['pages_used']}/"
                f"{budget['max_pages']}); create a new task or raise config.budget",
            )
        if replay_documents is None:
            self._engines.check_named(options.get("engines") or ["local"])
            options = validate_discovery_options(options)
            options = await self._engines.select(options)
        if task["status"] != "active":
            await self._call(GRAPH, "update_task_status", task_id, "active")
        search_id = search_id or rs.new_search_id()
        await self._call(GRAPH, "create_search", search_id, task_id, query, options)
        self._live.forget(task_id)
        tag = self._tags.setdefault(task_id, new_task_tag())
        self._search_task[search_id] = task_id
        self._progress[search_id] = {"stage": "queued", "progress": 0.0, "message": "queued"}
        # Sites serve the searches that began first first (pipelines/net/turns.py).
        began = time.time()
        ctx = SearchContext(
            settings=self._settings,
            task={**task, "tag": tag},
            search_id=search_id,
            query=query,
            options=options,
            call=self._call,
            progress=functools.partial(self._report_progress, task_id, search_id),
            stop_requested=lambda: search_id in self._stopped,
            pages_left=budget["pages_remaining"],
            deadline=time.monotonic() + budget["seconds_remaining"],
            domain_rules=self._rules.current(),
            corpus_cache=self._corpus_cache,
            fetch_url=functools.partial(
                self._fetching.fetch_for_search, search_id=search_id, task_id=task_id, since=began
            ),
            engines=self._engines.engines,
            fetch_api=functools.partial(
                self._fetching.fetch_url,
                cause_id=search_id,
                cause_since=began,
                escalate=False,
                api=True,
            ),
            replay_documents=replay_documents,
        )
        self._running[search_id] = SearchJob(ctx)
        job = self._jobs[search_id] = asyncio.create_task(self._run_job(search_id, ctx))
        # Also when cancelled before it ever ran.
        job.add_done_callback(lambda _: self._running.pop(search_id, None))
        telemetry.searches_running(sum(not j.done() for j in self._jobs.values()))
        return search_id

    def _site_rates(self) -> tuple[dict[str, float], dict[str, float]]:
        """The request rates of the engines' and the academic APIs' sites."""
        return self._engines.engine_qps(), self._engines.api_qps()

    def _searching(self) -> bool:
        """A search is running in this process."""
        return any(not job.done() for job in self._jobs.values())

    def _report_progress(
        self, task_id: str, search_id: str, stage: str, progress: float, message: str
    ) -> None:
        self._progress[search_id] = {
            "stage": stage,
            "progress": round(progress, 3),
            "message": message,
        }
        telemetry.search_progress(task_id, search_id, progress)

    async def _run_job(self, search_id: str, ctx: SearchContext) -> dict[str, Any]:
        result = await self._running[search_id].outcome()
        result["search_id"] = search_id
        await self._call(
            GRAPH,
            "update_search",
            search_id,
            status=result["status"],
            metrics=result["metrics"],
            error=result.get("error"),
            finished=True,
        )
        self._live.forget(ctx.task["id"])
        self._report_progress(ctx.task["id"], search_id, "done", 1.0, result["status"])
        # This job is still running (it returns next): count the others.
        telemetry.searches_running(
            sum(not j.done() for sid, j in self._jobs.items() if sid != search_id)
        )
        self._results[search_id] = result
        if self._fetching.pool is not None:
            # Once this was the last search, the fetchers it created get their standby
            # replacements (the refill waits REFILL_QUIET_S, by then this job is done).
            self._fetching.pool.refill_later()
        return result

    async def wait_search(self, search_id: str, timeout: float) -> dict[str, Any]:
        """The result if the search ends within timeout, else its progress and partial
        metrics (idempotent)."""
        if search_id in self._results:
            return {"done": True, "result": self._results[search_id]}
        job = self._jobs.get(search_id)
        if job is None:
            return await self._stored_search(search_id)
        done, _ = await asyncio.wait({job}, timeout=max(0.0, timeout))
        if done and search_id in self._results:
            return {"done": True, "result": self._results[search_id]}
        if done and not job.cancelled() and job.exception() is not None:
            exc = job.exception()
            log.error("search %s ended without a result", search_id, exc_info=exc)
            raise LyraError("PIPELINE_ERROR", f"search {search_id} failed: {type(exc).__name__}")
        running = self._running.get(search_id)
        return {
            "done": False,
            "progress": self._progress.get(search_id, {}),
            "metrics": running.partial_metrics() if running is not None else {},
        }

    async def _stored_search(self, search_id: str) -> dict[str, Any]:
        """A search this process does not run: its stored row (after a restart, the
        searches it interrupted are failed with the reason)."""
        await self._settle_orphans()
        row = await self._search_row(search_id)
        if row["status"] == "running":  # another server's search (a shared database)
            progress = {"stage": "elsewhere", "progress": 0.0, "message": "running elsewhere"}
            return {"done": False, "progress": progress, "metrics": row.get("metrics") or {}}
        result = {
            "search_id": search_id,
            "status": row["status"],
            "metrics": row.get("metrics") or {},
            "error": row.get("error"),
            "claims": [],
            "warnings": (row.get("metrics") or {}).get("warnings", []),
        }
        return {"done": True, "result": result}

    async def search_summary(self, search_id: str) -> dict[str, Any]:
        """Budget and task totals to attach to a search result; a search this process
        did not start (it restarted since) is found by its stored row."""
        task_id = self._search_task.get(search_id)
        if task_id is None:
            task_id = (await self._search_row(search_id))["task_id"]
        task = await self._task(task_id)
        return {"budget": await self._budget(task)}

    async def _search_row(self, search_id: str) -> dict[str, Any]:
        """The stored row of a search (INVALID_PARAMS when there is none); its task is
        remembered for the calls that follow."""
        row: dict[str, Any] | None = await self._call(GRAPH, "get_search", search_id)
        if row is None:
            raise LyraError("INVALID_PARAMS", f"no search {search_id!r}", field="search_id")
        self._search_task.setdefault(search_id, row["task_id"])
        return row

    # --- status ----------------------------------------------------------------------
    async def get_status(self, task_id: str, wait_seconds: float) -> dict[str, Any]:
        """Task, searches, metrics, budget, auth queue, blocked domains, evidence summary."""
        await self._settle_orphans()
        running = [
            j
            for sid, j in self._jobs.items()
            if self._search_task.get(sid) == task_id and not j.done()
        ]
        waited = bool(running) and wait_seconds > 0
        if waited:  # a task with a search here exists
            await asyncio.wait(
                set(running), timeout=wait_seconds, return_when=asyncio.FIRST_COMPLETED
            )
        # The graph's reads in one call, answered from its memory while nothing they
        # read was written (decision 0080) and, while a search runs, from a read renewed
        # beside the polls (decision 0086); what _lyra_meta reports comes with them, so
        # the bridge makes one round trip, not two.
        reads, meta = await asyncio.gather(self._live.get(task_id, waited=waited), self.status())
        task = _found(reads["task"], task_id)
        searches, claims = reads["searches"], reads["claims"]
        extras, summary = reads["extras"], reads["summary"]
        blocked, lifted = blocked_listing(extras.pop("blocked_domains"), self._rules.current())
        if lifted:
            # domains.yaml no longer blocks them: recorded as lifted, not listed.
            await self._call(GRAPH, "lift_domain_blocks", lifted)
            self._live.forget()
        budget = await self._budget(task, searches)
        for s in searches:
            if s["status"] == "running" and s["id"] in self._progress:
                s["progress"] = self._progress[s["id"]]
            if s["status"] == "running" and s["id"] in self._running:
                s["metrics"] = self._running[s["id"]].partial_metrics()
        return {
            "task": task,
            "searches": searches,
            "budget": budget,
            "claims": claims,
            "evidence_summary": summary,
            "blocked_domains": blocked,
            "meta_status": meta,
            **extras,
        }

    async def stop_task(self, task_id: str, reason: str | None, mode: str) -> dict[str, Any]:
        """Stop a task's searches (graceful: after the current stage; immediate: now)."""
        task = await self._task(task_id)
        running = {
            sid: j
            for sid, j in self._jobs.items()
            if self._search_task.get(sid) == task_id and not j.done()
        }
        self._stopped.update(running)
        jobs = list(running.values())
        if mode == "immediate":
            for j in jobs:
                j.cancel()
        # What the searches still wait for at the sites is not asked (the stop flag is
        # read only before a fetch joins its site's queue).
        await self._fetching.drop_causes(list(running), DROP_WAIT_S)
        ended: set[Any] = set()
        if jobs:
            ended, _ = await asyncio.wait(set(jobs), timeout=30.0)
        await self._call(GRAPH, "update_task_status", task_id, "stopped")
        self._live.forget(task_id)
        searches = await self._call(GRAPH, "list_searches", task_id)
        claims = await self._call(GRAPH, "claim_confidences", task_id)
        budget = await self._budget(task, searches)
        await self._call(
            GRAPH,
            "log_event",
            kind="task_stopped",
            actor="orchestrator",
            task_id=task_id,
            payload={"reason": reason or "", "mode": mode},
        )
        return {
            "task_id": task["id"],
            "status": "stopped",
            "mode": mode,
            "reason": reason,
            "searches": len(searches),
            # Those that ended within the wait; the others end at their next stage.
            "searches_stopped": len(ended),
            "claims": len(claims),
            # A later search resumes the task while its budget lasts (its clock runs
            # from create_task, stopped or not).
            "resumable": budget["pages_remaining"] > 0 and budget["seconds_remaining"] > 0,
        }

    # --- exploration -----------------------------------------------------------------
    async def export_task(self, task_id: str, fmt: str) -> dict[str, Any]:
        """A task's evidence as BibTeX, RIS, CSL-JSON, GraphML, JSON lines or Markdown (idempotent;
        decision 0031). Needs no model."""
        if fmt not in EXPORT_FORMATS:
            raise LyraError(
                "INVALID_PARAMS",
                f"unknown export format {fmt!r}; one of {', '.join(EXPORT_FORMATS)}",
                field="format",
            )
        await self._task(task_id)
        result: dict[str, Any] = await self._call(GRAPH, "export", task_id, fmt)
        return result

    async def cleanup_task(self, task_id: str, hard: bool, dry_run: bool) -> dict[str, Any]:
        """Remove a task's claims and edges (soft) and what only it used (hard; decision
        0032). Refused while a search of the task runs."""
        await self._task(task_id)
        running = sorted(sid for sid, job in self._jobs.items() if not job.done())
        own = [sid for sid in running if self._search_task.get(sid) == task_id]
        if own and not dry_run:
            raise LyraError(
                "INVALID_PARAMS",
                f"task {task_id} has a running search ({', '.join(own)}): call "
                "stop_task or wait for it to end, then clean up",
                field="task_id",
            )
        if running and hard and not dry_run:
            # A WARC file holds a site's fetches of a day, for every task: a search that
            # runs may have archived into it a page it has not stored yet.
            raise LyraError(
                "INVALID_PARAMS",
                f"a hard cleanup removes archive files that running searches may be "
                f"writing to ({', '.join(running)}): wait for them to end, then clean up",
                field="mode",
            )
        return await self._graph_write("cleanup", task_id, hard, dry_run)

    async def replay_task(self, task_id: str) -> dict[str, Any]:
        """Rebuild a task's evidence from its archives, with no request, into a new task
        (same searches, same pages, the models installed now); what changed (decision
        0035)."""
        await self.ensure_ready()
        task = await self._task(task_id)
        if any(
            self._search_task.get(sid) == task_id and not job.done()
            for sid, job in self._jobs.items()
        ):
            raise LyraError(
                "INVALID_PARAMS", f"task {task_id} has a running search", field="task_id"
            )
        sources = await self._call(GRAPH, "replay_sources", task_id)
        if not sources:
            raise LyraError(
                "INVALID_PARAMS",
                f"task {task_id} has no finished search to replay",
                field="task_id",
            )
        pages = sum(len(src["pages"]) for src in sources)
        # "The models installed now": a model pulled since the InferenceActor started.
        reloaded = await self._call(INFERENCE, "reload_models")
        if reloaded:
            self._children.inference_status.forget()
        models = await self._children.inference_status.get()
        replay = await self.create_task(task["query"], {"budget": {"max_pages": pages}})

        async def run(query: str, options: dict[str, Any], docs: list[Document]) -> Any:
            search_id = await self.start_search(replay["id"], query, options, docs)
            return await self._jobs[search_id]

        return await replay_into(
            task_id,
            replay["id"],
            sources,
            run,
            graph=functools.partial(self._call, GRAPH),
            models={
                "nli": models["nli"],
                "embedding": models["embedding_model"],
                "reloaded": reloaded,
            },
            max_file_bytes=self._settings.search.max_file_bytes,
        )

    async def query_graph(
        self,
        sql: str | None,
        view: str | None,
        params: dict[str, Any],
        limit: int,
        timeout_ms: int,
        include_schema: bool,
    ) -> dict[str, Any]:
        """Sandboxed read-only SQL (idempotent). Needs no model: it does not wait for the
        InferenceActor, which may be in the middle of a batch (decision 0026)."""
        await self._settle_orphans()
        result: dict[str, Any] = await self._call(
            GRAPH, "query_graph", sql, view, params, limit, timeout_ms, include_schema
        )
        return result

    async def vector_search(
        self, query: str, target: str, task_id: str | None, top_k: int, min_similarity: float
    ) -> list[dict[str, Any]]:
        """Semantic search over claims or fragments (idempotent)."""
        await self.ensure_ready()
        if task_id is not None:
            await self._task(task_id)
        return await semantic_search(
            functools.partial(self._call, GRAPH),
            functools.partial(self._call, INFERENCE),
            query,
            target,
            task_id,
            top_k,
            min_similarity,
        )

    # --- auth queue (seed 003 §3.6.1) -------------------------------------------------
    async def get_auth_queue(
        self, task_id: str | None, group_by: str, priority_filter: str
    ) -> dict[str, Any]:
        """Pending auth items, by item, domain or type (idempotent)."""
        await self._settle_orphans()
        if task_id is not None:
            await self._task(task_id)
        return await self._auth.queue(task_id, group_by, priority_filter)

    async def resolve_auth(self, target: str, data: dict[str, Any]) -> dict[str, Any]:
        """Mark an item or a domain resolved / skipped / failed; resolved work is re-queued."""
        await self.ensure_ready()
        out = await self._auth.resolve(target, data, on_resolved=self._hand_over)
        self._live.forget()
        await self._fetching.auth_gauge()
        return out

    async def _graph_write(self, method: str, *args: Any) -> dict[str, Any]:
        """A tool's write on the graph actor, sent once (`OnceWrites`); the next
        get_status reads what it wrote."""
        try:
            return await self._once.graph_write(method, *args)
        finally:
            self._live.forget()

    async def feedback(self, action: str, args: dict[str, Any]) -> dict[str, Any]:
        """The feedback tool's actions, on the graph actor (storage/feedback.py)."""
        await self.ensure_ready()
        return await self._graph_write("feedback", action, args)

    async def once(self, request_id: str, method: str, args: list[Any]) -> Any:
        """`method(*args)` (one of `ONCE_WRITES`) done once per `request_id`: a repeat
        answers what the first call answered (jobs/once_writes.py, decision 0064)."""
        if method not in ONCE_WRITES:
            raise LyraError("INVALID_PARAMS", f"{method} is not a write sent once", field="method")
        return await self._once.run(request_id, method, args)

    # --- wait_for_user's fallback (issue 14) --------------------------------------------
    async def open_prompt(
        self,
        prompt: str,
        choices: list[str] | None,
        timeout_s: float,
        prompt_id: str | None = None,
    ) -> dict[str, Any]:
        """A question for the person: on the desktop, answered with `lyra answer`. Returns
        its id (the caller's `prompt_id`, which `cancel_prompt` withdraws even before it
        got here) and how to answer; `await_prompt` waits for the answer."""
        entry = self._prompts.create(prompt, choices, timeout_s, prompt_id)
        pid = entry["prompt_id"]
        message, how = desktop_question(prompt, choices, pid)
        try:
            note = await self._auth.notify("decision_required", {"message": message}, open_url=None)
        except BaseException:
            self._prompts.cancel(pid)  # no one learns its id: it must not stay listed
            raise
        return {"prompt_id": pid, "how_to_answer": how, "channels": note["channels"]}

    async def await_prompt(self, prompt_id: str) -> dict[str, Any]:
        """The answer to an open question, or timed_out (an event_log row either way)."""
        out = await self._prompts.wait(prompt_id)
        await self._call(
            GRAPH,
            "log_event",
            kind="user_prompt_timed_out" if out["timed_out"] else "user_answered",
            actor="orchestrator",
            cause_id=prompt_id,
            payload=out,
        )
        return out

    async def cancel_prompt(self, prompt_id: str) -> None:
        """The asking client gave up: the question is no longer listed or answerable."""
        self._prompts.cancel(prompt_id)

    async def answer_prompt(self, prompt_id: str, response: str) -> dict[str, Any]:
        """The person's answer to a waiting question (`lyra answer`); the first one wins."""
        return self._prompts.answer(prompt_id, response)

    async def pending_prompts(self) -> list[dict[str, Any]]:
        """Questions waiting for an answer (idempotent)."""
        return self._prompts.pending()

    async def calibrate(self, action: str, data: dict[str, Any]) -> dict[str, Any]:
        """The calibrate tool's actions, on the graph actor (storage/calibration.py)."""
        await self.ensure_ready()
        return await self._graph_write("calibrate", action, data)

    async def calibrate_rollback(
        self, source: str, version: int | None, reason: str | None
    ) -> dict[str, Any]:
        """Roll a source's calibration back to an earlier version (audit row)."""
        await self.ensure_ready()
        return await self._graph_write("calibrate_rollback", source, version, reason)

    async def notify_user(self, event: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Desktop notification; auth_required with a URL opens it in the browser for the person."""
        return await self._auth.notify(event, payload, open_url=self._open_for_human)

    async def _open_for_human(self, url: str) -> dict[str, Any]:
        result: dict[str, Any] = await self._call(BROWSER, "open_for_human", url)
        if not result.get("opened"):
            # No credential or token of the URL in the message: it is logged, and shown.
            why = redact(str(result.get("error") or "unknown error"))
            raise LyraError(
                "CHROME_NOT_READY", f"the browser could not open {safe_url(url)} ({why})"
            )
        return result

    async def graph_handle(self) -> Any:
        """The graph actor's handle (for tests and notebooks)."""
        return self._children.handle(GRAPH)

    async def browser_handle(self) -> Any:
        """The browser actor's handle, launched on first use (for notebooks); a browser
        that died for good is re-created first, so the handle answers."""
        await self._call(BROWSER, "status")
        return self._children.handle(BROWSER)

    async def inference_handle(self) -> Any:
        """The inference actor's handle (for tests and notebooks)."""
        return self._children.handle(INFERENCE)
