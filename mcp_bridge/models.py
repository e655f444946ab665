"""Pydantic models of every MCP tool's input options and result (ARCHITECTURE §5).

Results are validated against these models before they leave (L7): unknown fields
are dropped, so nothing internal leaks by accident.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Out(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class SecurityWarning(_Out):
    """Something a security layer found in page text, and removed or masked (L2, L5)."""

    kind: str = Field(
        description="hidden_text, hidden_instruction, instruction, encoded_instruction, "
        "invisible_characters, homoglyphs (page text, decision 0016), danger_phrase "
        "(a prompt's L2 check), or masked_instruction (text this response returns holds "
        "masked sentences)."
    )
    detail: str = Field(description="The rule that fired: a pattern, a hiding method, a channel.")
    url: str | None = Field(None, description="The page it was found on.")
    count: int = Field(1, description="How many times on that page.")


class LyraMeta(_Out):
    """Verification metadata carried by every response (L5)."""

    degraded: list[str] = Field(
        default_factory=list, description="Components running on a fallback."
    )
    security_warnings: list[SecurityWarning] = Field(default_factory=list)
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
    priority_domains: list[Annotated[str, Field(min_length=1, max_length=2000)]] = Field(
        default_factory=list,
        max_length=20,
        description="Sites (domain names or URLs) searched first: their results are fetched "
        "before others', and engines that honour `site:` are asked for them first.",
    )
    language: str | None = Field(
        None,
        max_length=16,
        pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$",
        description="The task's language (BCP 47, e.g. en, ja, pt-BR); shown in get_status.",
    )


class CreateTaskResult(_Result):
    task_id: str
    query: str
    status: str
    budget: dict[str, Any]
    created_at: str


# --- search ------------------------------------------------------------------------------
class SearchOptions(_In):
    engines: list[str] | None = Field(
        None,
        description="Engines to query: 'local' (the default) and web engines such as "
        "'duckduckgo', 'mojeek', 'marginalia', 'wikipedia'. Naming a web engine takes the "
        "search online; [] queries no engine, the local corpus included (with "
        "academic_apis: a search of the academic APIs only).",
    )
    academic_apis: list[str] | None = Field(
        None,
        max_length=2,
        description="'semantic_scholar' and/or 'openalex'; default both when the search is "
        "online (web engines or dois), [] for none.",
    )
    max_pages: int | None = Field(None, ge=1, le=500)
    seek_primary: bool = Field(
        False, description="Rank PRIMARY, GOVERNMENT and ACADEMIC sources higher."
    )
    refute: bool = Field(
        False, description="Also search the query's refutation queries (limitations, ...)."
    )
    urls: list[str] | None = Field(None, max_length=100, description="Fetch these URLs instead.")
    dois: list[str] | None = Field(
        None, max_length=100, description="Resolve these papers and take them through the pipeline."
    )
    wait_seconds: float | None = Field(None, ge=0, le=110)

    @model_validator(mode="after")
    def _has_a_source(self) -> SearchOptions:
        """No engine, no API, no URL and no DOI leaves nothing to read: say so up front.

        An empty engine list is never a silent fallback to the local corpus (decision
        0020): it must come with academic_apis, urls or dois.
        """
        if self.engines == [] and not self.academic_apis and not self.urls and not self.dois:
            raise ValueError(
                "nothing to search: engines is empty and no academic_apis, urls or dois are "
                "given (name academic_apis for a search of the academic APIs only)"
            )
        return self


class VerificationDetails(_Out):
    """What a claim's verification rests on (L5/L6, decision 0053)."""

    reason: str = Field(description="Why the claim has its verification status.")
    independent_sources: int = Field(
        0,
        description="Other sites (registrable domains) whose pages support the claim with "
        "probability >= 0.5; its own site and near-duplicates of its page not counted.",
    )
    corroborating_domains: list[str] = Field(
        default_factory=list, description="Those sites (sorted, at most 10)."
    )
    contradicting_domains: list[str] = Field(
        default_factory=list,
        description="Sites more trusted than the claim's own whose pages refute it (at most 10).",
    )
    corroborating_claims: list[str] = Field(
        default_factory=list,
        description="Claims drawn from the passages that support it (at most 10).",
    )
    contradicting_claims: list[str] = Field(
        default_factory=list,
        description="Claims drawn from the passages that refute it (at most 10).",
    )


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
    source_retracted: bool = Field(False, description="The claim was drawn from a retracted paper.")
    verification_status: Literal["pending", "verified", "rejected"] = Field(
        "pending",
        description="L6: verified (>= 2 other sites support it), rejected (a more trusted "
        "site refutes it, or its source addressed AI readers), else pending.",
    )
    verification_details: VerificationDetails | None = None


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
    warnings: list[str] = Field(
        default_factory=list,
        description="What happened to URLs that gave no page (not fetched, not ingested, "
        "queued for a person) and the search's fallbacks, as its own answer says them.",
    )


class AuthWarning(_Out):
    level: Literal["warning", "critical"]
    message: str


class AuthQueueSummary(_Out):
    """Seed 003 §3.6.1: the trigger for the client to ask the person about authentication."""

    pending_count: int = 0
    high_priority_count: int = Field(0, description="Pending items of primary sources.")
    domains: list[str] = Field(default_factory=list, description="Most pending first.")
    oldest_queued_at: str | None = Field(None, description="ISO 8601 UTC.")
    by_auth_type: dict[str, int] = Field(default_factory=dict)
    warnings: list[AuthWarning] = Field(
        default_factory=list, description="warning at >= 3 pending; critical at >= 5 or >= 2 high."
    )


class ReferenceCandidate(_Out):
    paper_id: str
    title: str | None = None
    year: int | None = None
    doi: str | None = None
    direction: str
    is_influential: bool | None = None
    similarity: float | None = None
    llm_relevance: float | None = None
    score: float | None = None
    kept: bool
    anchor_paper_id: str
    anchor_title: str | None = None
    page_id: str | None = None
    is_retracted: bool = False


class ClaimRecovery(_Out):
    is_recoverable: bool = Field(
        True, description="Always true: a later search of this task judges the claim again."
    )
    conditions: list[str]
    support_needed: float = Field(
        description="Supporting NLI confidence (summed over new supporting edges) that would "
        "bring the claim's confidence to 0.5."
    )
    sources_needed: int = Field(
        description="Supporting sources it lacks (1 when none supports it)."
    )
    refuted_by: list[str] = Field(default_factory=list, description="URLs of the refuting sources.")


class NotAdoptedClaim(_Out):
    claim_id: str
    text: str
    status: Literal["pending", "rejected"] = Field(
        description="pending: no other source took a side; rejected: refuted or outweighed."
    )
    reason: str
    confidence: float
    supports: int
    refutes: int
    source_url: str | None = None
    source_domain: str | None = None
    source_trust_level: str | None = None
    created_at: str | None = None
    recovery: ClaimRecovery


class BlockedDomain(_Out):
    """A domain Lyra never fetches or cites (ARCHITECTURE §4), and how to restore it."""

    domain: str
    trust_level: str = "BLOCKED"
    reason: str | None = Field(None, description="The rule that blocks it.")
    cause: str = Field(description="domains.yaml, or recorded (a block kept in the database).")
    blocked_at: str | None = Field(
        None, description="When a search first left it out; None while none has met it."
    )
    restore: str = Field(description="How to lift the block.")


class VerificationAlert(_Out):
    """A site of the task's sources that source verification rejected (L6)."""

    domain: str
    trust_level: str | None = None
    status: str = "rejected"
    cause: Literal["danger_pattern", "contradiction"]
    reason: str | None = None
    changed_at: str | None = None
    action: str = Field(description="What a person can do about it.")


class GetStatusResult(_Result):
    task_id: str
    query: str
    status: str
    priority_domains: list[str] = Field(
        default_factory=list, description="The task's priority sites (registrable domains)."
    )
    language: str | None = None
    searches: list[SearchStatus]
    metrics: dict[str, Any]
    budget: dict[str, Any]
    auth_queue: AuthQueueSummary
    blocked_domains: list[BlockedDomain] = Field(default_factory=list)
    verification_alerts: list[VerificationAlert] = Field(
        default_factory=list,
        description="Sites of this task's sources that source verification rejected.",
    )
    unverified_domains: list[str] = Field(
        default_factory=list,
        description="Sites of this task's claims still UNVERIFIED (as in _lyra_meta).",
    )
    evidence_summary: dict[str, Any] = Field(default_factory=dict)
    claims: list[ClaimOut] = Field(default_factory=list)
    not_adopted: list[NotAdoptedClaim] = Field(
        default_factory=list,
        description="Claims not adopted (no other source took a side, refuted, or outweighed) "
        "with what would adopt them; summary: the 20 with most evidence, full: all.",
    )
    reference_candidates: list[ReferenceCandidate] = Field(
        default_factory=list,
        description="Citation-tracking candidates (references and citations of the "
        "task's papers), kept ones first.",
    )


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


class ExportResult(_Result):
    task_id: str
    format: str
    media_type: str
    content: str
    claims: int
    sources: int
    resource_uri: str


class CleanupResult(_Result):
    task_id: str
    hard: bool
    dry_run: bool
    claims: int
    edges: int
    serp_items: int
    fragments: int
    pages: list[str]
    files: list[str]
    pages_kept: list[str]
    files_not_removed: list[str]


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


# --- auth queue / notifications (seed 003 §3.6) ---------------------------------------------
class AuthItem(_Out):
    id: str
    url: str
    domain: str
    auth_type: str
    priority: Literal["high", "normal", "low"]
    queued_at: str
    blocking_searches: list[str] = Field(default_factory=list)
    task_id: str | None = None


class AuthDomainGroup(_Out):
    domain: str
    pending_count: int
    high_priority_count: int
    affected_tasks: list[str]
    auth_types: list[str]


class AuthTypeGroup(_Out):
    auth_type: str
    pending_count: int
    domains: list[str]


class AuthQueueResult(_Result):
    group_by: Literal["none", "domain", "type"]
    total_pending: int
    queue: list[AuthItem] | None = Field(None, description="group_by none.")
    domains: list[AuthDomainGroup] | None = Field(None, description="group_by domain.")
    total_domains: int | None = Field(None, description="group_by domain.")
    types: list[AuthTypeGroup] | None = Field(None, description="group_by type.")


class ResolveData(_In):
    auth_id: str | None = Field(None, max_length=100, description="target item: the item's id.")
    domain: str | None = Field(None, max_length=253, description="target domain: the domain.")
    status: Literal["resolved", "skipped", "failed"] = Field(
        description="resolved: the person passed the check; skipped / failed: give up on it."
    )
    task_id: str | None = Field(
        None, description="target domain only: limit to this task's items (default: all tasks)."
    )
    session_data: dict[str, Any] | None = Field(
        None, description="Accepted, not stored: Lyra takes the session from its own browser."
    )


class ResolveAuthResult(_Result):
    target: Literal["item", "domain"]
    status: str
    auth_id: str | None = None
    domain: str
    resolved_count: int
    affected_tasks: list[str]
    unblocked_searches: list[str]
    session_stored: bool
    requeued_searches: list[str]
    warnings: list[str] = Field(default_factory=list)


# The longest research question or search query a tool takes (the CLI takes the same).
QUERY_MAX_CHARS = 2000
_T = TypeVar("_T")
# Free-form data a tool keeps for the client (a sample's context, a notification's
# details): a megabyte of it was stored whole.
MAX_FREE_FORM_CHARS = 16_000


def _fits(value: _T, name: str) -> _T:
    """``value`` unchanged, or ValueError when it is longer than MAX_FREE_FORM_CHARS
    (as JSON when it is not a string)."""
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    size = len(text)
    if value is not None and size > MAX_FREE_FORM_CHARS:
        raise ValueError(f"{name} is {size} characters; at most {MAX_FREE_FORM_CHARS}")
    return value


class NotifyPayload(_In):
    message: str = Field(min_length=1, max_length=2000, description="The reason, in one line.")
    details: str | dict[str, Any] | None = Field(
        None,
        description="For the client's records; never shown on the desktop (at most 16,000 "
        "characters, as JSON when an object).",
    )

    @field_validator("details")
    @classmethod
    def _details_fit(cls, value: str | dict[str, Any] | None) -> str | dict[str, Any] | None:
        return _fits(value, "details")

    timeout_seconds: float | None = Field(
        None, ge=0, le=3600, description="How long the desktop notification stays."
    )
    url: str | None = Field(
        None, max_length=4000, description="auth_required: the page to open for the person."
    )
    auth_id: str | None = Field(
        None, max_length=100, description="auth_required: open this queued item's URL."
    )


class NotifyResult(_Result):
    notification_id: str
    event: str
    shown: bool = Field(description="Whether the desktop notification was shown.")
    channels: list[str] = Field(description="desktop, browser, mcp_log: where it went.")
    opened_url: str | None = None
    message: str = Field(description="The text shown (redacted).")
    warnings: list[str] = Field(default_factory=list)


# --- calibrate / calibrate_rollback (issue 14) -------------------------------------------
class CalibrateData(_In):
    source: str | None = Field(
        None, max_length=40, description="nli (stance confidences) or claims (extraction)."
    )
    prediction: float | None = Field(
        None, description="add_sample: the model's probability for its answer, in [0, 1]."
    )
    actual: bool | int | str | None = Field(
        None,
        description="add_sample: true / false (1 / 0: was the answer right), or the class "
        "that is right (nli: supports, refutes, neutral; claims: valid, invalid) with "
        "predicted_label or edge_id.",
    )
    predicted_label: str | None = Field(
        None, max_length=40, description="add_sample: the class the model answered."
    )
    edge_id: str | None = Field(
        None,
        max_length=100,
        description="add_sample (nli): a stance edge; its raw probability and relation are "
        "the prediction.",
    )
    context: dict[str, Any] | None = Field(
        None, description="add_sample: kept with the sample (at most 16,000 characters as JSON)."
    )

    @field_validator("context")
    @classmethod
    def _context_fits(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return _fits(value, "context")

    predictions: list[float] | None = Field(
        None, max_length=100_000, description="evaluate: raw probabilities, each in [0, 1]."
    )
    labels: list[bool | int] | None = Field(
        None, max_length=100_000, description="evaluate: for each prediction, right (1) or not."
    )
    limit: int | None = Field(None, description="get_evaluations: at most this many (1-200).")
    since: str | None = Field(None, max_length=40, description="get_evaluations: ISO 8601 time.")
    evaluation_id: str | None = Field(
        None, max_length=100, description="get_diagram_data: this evaluation (default: latest)."
    )


class CalibrateResult(_Result):
    action: str
    source: str | None = None
    sample_id: str | None = None
    pending_count: int | None = Field(None, description="Samples since the last fitted version.")
    sample_count: int | None = None
    refit: dict[str, Any] | None = Field(
        None, description="add_sample: the version it fitted (or why none was), if any."
    )
    current_version: int | None = Field(None, description="0: no calibration is active.")
    method: str | None = Field(None, description="temperature, platt or identity.")
    params: dict[str, float] | None = None
    brier_score: float | None = Field(
        None, description="get_stats: on the stored samples, calibrated; evaluate: raw."
    )
    brier_score_raw: float | None = None
    ece: float | None = None
    degradation_detected: bool | None = Field(
        None, description="The latest evaluation's Brier is 5 % or more worse than the one before."
    )
    versions: list[dict[str, Any]] | None = None
    fitted_brier: float | None = None
    evaluation_id: str | None = None
    brier_score_calibrated: float | None = None
    improvement_ratio: float | None = None
    expected_calibration_error: float | None = None
    samples_evaluated: int | None = None
    calibration_version: int | None = None
    evaluated_at: str | None = None
    previous_version: int | None = Field(
        None, description="evaluate: the version before the active one (0: raw)."
    )
    previous_version_brier: float | None = Field(
        None, description="evaluate: that version's Brier on the same batch."
    )
    auto_rolled_back: dict[str, Any] | None = None
    evaluations: list[dict[str, Any]] | None = None
    total_count: int | None = None
    n_bins: int | None = None
    bins: list[dict[str, Any]] | None = None
    overall_ece: float | None = None
    samples: int | None = None


class CalibrateRollbackResult(_Result):
    source: str
    rolled_back_to: int = Field(description="The version now active (0: no calibration).")
    previous_version: int
    reason: str | None = None


# --- feedback (issue 14) -------------------------------------------------------------------
class FeedbackResult(_Result):
    action: str
    changed: bool = Field(description="false: it already was so (the call is still logged).")
    reason: str | None = None
    domain: str | None = Field(None, description="domain_*: the site (registrable domain).")
    pages_affected: int | None = Field(
        None, description="domain_*: stored pages of the site (out of confidence while blocked)."
    )
    still_blocked_by: str | None = Field(
        None, description="domain_unblock: a domains.yaml rule that still blocks the site."
    )
    claim_id: str | None = None
    task_id: str | None = None
    status: str | None = Field(None, description="claim_*: active or rejected.")
    previous_status: str | None = None
    edge_id: str | None = None
    relation: str | None = Field(None, description="edge_correct: the relation now.")
    previous_relation: str | None = None
    model_label: str | None = Field(None, description="edge_correct: what the model answered.")
    calibration_sample: dict[str, Any] | None = Field(
        None, description="edge_correct: the nli calibration sample it added (add_sample's result)."
    )


# --- wait_for_user (issue 14) ---------------------------------------------------------------
class WaitOptions(_In):
    timeout_seconds: float = Field(
        300, ge=1, le=3600, description="How long to wait for the answer (default 300)."
    )
    choices: list[Annotated[str, Field(min_length=1, max_length=200)]] | None = Field(
        None, max_length=50, description="The answers to choose from (default: free text)."
    )

    @field_validator("choices")
    @classmethod
    def _distinct(cls, value: list[str] | None) -> list[str] | None:
        if value is not None:
            if not value:
                raise ValueError("give at least one choice, or leave choices out")
            if any(not v.strip() for v in value):
                raise ValueError("a choice is blank")
            seen = [" ".join(v.split()).casefold() for v in value]
            if len(set(seen)) != len(seen):
                raise ValueError("the choices must differ from each other")
        return value


class WaitResult(_Result):
    prompt_id: str | None = Field(None, description="The question's id (command-line path).")
    response: str | None = Field(None, description="The answer; null when none came.")
    choice_index: int | None = Field(None, description="Index of the chosen choice (0-based).")
    timed_out: bool
    channel: Literal["elicitation", "command_line"] = Field(
        description="elicitation: the client showed a form; command_line: the desktop and "
        "`lyra answer`."
    )
    action: Literal["accept", "decline", "cancel"] | None = Field(
        None, description="elicitation: what the person did with the form."
    )
    how_to_answer: str | None = None
