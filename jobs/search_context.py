"""What a search job is given by its orchestrator, and how a stage stops it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from lyra.config.settings import Settings
from lyra.pipelines.discover.engines import EngineSpec
from lyra.pipelines.discover.local_corpus import CorpusScan
from lyra.pipelines.extract.documents import Document

Call = Callable[..., Awaitable[Any]]
# The error message of a search that a restart of the orchestrator interrupted (the
# new process fails the searches left running); the search tool starts such a search
# again while its call still waits.
INTERRUPTED_BY_RESTART = "interrupted: the server restarted"


class SearchStopped(Exception):
    """The task was stopped or its budget ran out between two stages."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status = status


@dataclass
class SearchContext:
    """What a job needs from its orchestrator."""

    settings: Settings
    task: dict[str, Any]
    search_id: str
    query: str
    options: dict[str, Any]
    call: Call  # await call(actor_name, method, *args)
    progress: Callable[[str, float, str], None]
    stop_requested: Callable[[], bool]
    pages_left: int
    deadline: float  # time.monotonic() when the task's time budget ends
    domain_rules: dict[str, Any]
    corpus_cache: dict[str, CorpusScan]
    fetch_url: Callable[..., Awaitable[dict[str, Any]]]
    engines: dict[str, EngineSpec] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # An academic API call through the fetch layer (None: the search uses no API).
    fetch_api: Callable[..., Awaitable[dict[str, Any]]] | None = None
    # Replay (jobs/replay.py): the documents re-extracted from a search's archives; the
    # job takes them as its documents and asks no engine, API or site.
    replay_documents: list[Document] | None = None
