"""Pydantic models of every MCP tool's input options and result (ARCHITECTURE §5).

Results are validated against these models before they leave (L7): unknown fields
are dropped, so nothing internal leaks by accident.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Out(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class LyraMeta(_Out):
    """Verification metadata carried by every response (L5)."""

    degraded: list[str] = Field(
        default_factory=list, description="Components running on a fallback."
    )
    security_warnings: list[str] = Field(default_factory=list)
    unverified_domains: list[str] = Field(default_factory=list)
    blocked_domains: list[str] = Field(default_factory=list)
    timestamp: str = Field(default_factory=lambda: datetime.now().astimezone().isoformat())


class _Result(_Out):
    ok: bool = True
    lyra_meta: LyraMeta = Field(default_factory=LyraMeta, alias="_lyra_meta")


# --- create_task -----------------------------------------------------------------------
class Budget(_In):
    max_pages: int | None = Field(None, ge=1, le=10_000, description="Pages the task may fetch.")
    max_seconds: float | None = Field(None, gt=0, le=86_400, description="Wall-clock budget.")


class TaskConfig(_In):
    budget: Budget | None = None
    priority_domains: list[str] = Field(default_factory=list)
    language: str | None = Field(None, max_length=16)


class CreateTaskResult(_Result):
    task_id: str
    query: str
    status: str
    budget: dict[str, Any]
    created_at: str


# --- search ------------------------------------------------------------------------------
class SearchOptions(_In):
    engines: list[str] | None = Field(None, description="Engines to use (default: all enabled).")
    academic_apis: list[str] | None = None
    max_pages: int | None = Field(None, ge=1, le=500)
    seek_primary: bool = False
    refute: bool = False
    urls: list[str] | None = Field(None, max_length=100, description="Fetch these URLs instead.")
    dois: list[str] | None = None
    wait_seconds: float | None = Field(None, ge=0, le=110)


class ClaimOut(_Out):
    id: str
    text: str
    confidence: float
    uncertainty: float
    controversy: float
    supports: int
    refutes: int
    neutral: int
    independent_sources: int
    source_url: str | None = None
    source_domain: str | None = None
    trust_level: str | None = None
    primary: bool = False
    extraction_method: str | None = None


class SearchResult(_Result):
    search_id: str
    task_id: str
    status: str
    claims_found: list[ClaimOut] = Field(default_factory=list)
    pages_fetched: int = 0
    useful_fragments: int = 0
    harvest_rate: float = 0.0
    satisfaction: float = 0.0
    novelty: float = 0.0
    budget_remaining: dict[str, Any] = Field(default_factory=dict)
    metrics: dict[str, Any] = Field(default_factory=dict)
    progress: dict[str, Any] | None = None
    warnings: list[str] = Field(default_factory=list)
    error: dict[str, Any] | None = None


# --- get_status ---------------------------------------------------------------------------
class SearchStatus(_Out):
    search_id: str
    query: str
    status: str
    created_at: str | None = None
    finished_at: str | None = None
    metrics: dict[str, Any] = Field(default_factory=dict)
    progress: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class AuthQueueSummary(_Out):
    pending: int = 0
    high_priority: int = 0
    warning: str | None = None


class GetStatusResult(_Result):
    task_id: str
    query: str
    status: str
    searches: list[SearchStatus]
    metrics: dict[str, Any]
    budget: dict[str, Any]
    auth_queue: AuthQueueSummary
    blocked_domains: list[dict[str, Any]] = Field(default_factory=list)
    evidence_summary: dict[str, Any] = Field(default_factory=dict)
    claims: list[ClaimOut] = Field(default_factory=list)


class StopTaskResult(_Result):
    task_id: str
    status: str
    mode: str
    reason: str | None = None
    searches: int
    searches_stopped: int
    claims: int
    resumable: bool


# --- query_graph / vector_search ------------------------------------------------------------
class QueryOptions(_In):
    limit: int | None = Field(None, ge=1, le=200, description="Row cap (at most 200).")
    timeout_ms: int | None = Field(None, ge=10, le=2000, description="Time cap (at most 2000).")
    include_schema: bool = Field(False, description="Add a snapshot of table and view columns.")


class QueryGraphResult(_Result):
    columns: list[str]
    rows: list[list[Any]]
    row_count: int
    truncated: bool
    elapsed_ms: float | None = None
    schema_snapshot: dict[str, Any] | None = Field(None, alias="schema")


class VectorHit(_Out):
    id: str
    text_preview: str
    similarity: float
    url: str | None = None
    domain: str | None = None
    task_id: str | None = None
    page_number: int | None = None


class VectorSearchResult(_Result):
    target: Literal["claims", "fragments"]
    results: list[VectorHit]
