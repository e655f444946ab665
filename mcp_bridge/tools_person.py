"""The tools where a person takes part: the auth queue, wait_for_user, feedback,
calibration from a person's labels, notify_user (ARCHITECTURE §5).
"""

from __future__ import annotations

import warnings
from typing import Annotated, Any, Literal

import anyio
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import LoggingLevel, ToolAnnotations
from pydantic import BaseModel, Field, create_model

from lyra.jobs.user_prompts import new_prompt_id
from lyra.mcp_bridge import models as m
from lyra.mcp_bridge.lyra_runtime import LyraRuntime
from lyra.mcp_bridge.tool_server import LyraMCPServer, runtime_of
from lyra.pipelines.errors import DEGRADED_PREFIX, LyraError


async def log_to_client(ctx: Context[LyraRuntime, Any], level: LoggingLevel, text: str) -> None:
    """An MCP log message (notifications/message) to the calling client."""
    # The 2026-07-28 protocol deprecates MCP logging but still delivers it to clients
    # that opt in, and the design (ARCHITECTURE §5) uses it as notify_user's in-client
    # channel; the SDK's deprecation warning is expected here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        await ctx.log(level, text, logger_name="lyra.notify")


def form_for(
    prompt: str, options: m.WaitOptions | None, ctx: Context[Any, Any]
) -> Elicit[BaseModel] | None:
    """wait_for_user's question as an elicitation form (a choice among the options, or
    free text), when the client declared it can show one; None: it cannot."""
    caps = ctx.client_capabilities
    if caps is None or caps.elicitation is None:
        return None
    if caps.elicitation.form is None and caps.elicitation.url is not None:
        return None  # URL elicitation only: no forms
    choices = options.choices if options is not None else None
    if choices:
        listed = list(choices)

        def as_enum(schema: dict[str, Any]) -> None:
            # One choice renders as `const`, which clients show as a text box: an enum.
            schema.pop("const", None)
            schema["enum"] = listed
            schema["type"] = "string"

        kind: Any = Literal[tuple(choices)]
        pick: type[BaseModel] = create_model(
            "Choice", answer=(kind, Field(title="Your choice", json_schema_extra=as_enum))
        )
        return Elicit(prompt, pick)
    text: type[BaseModel] = create_model(
        "Answer", answer=(str, Field(title="Your answer", min_length=1))
    )
    return Elicit(prompt, text)


def register(server: LyraMCPServer) -> None:
    """Add get_auth_queue, resolve_auth, wait_for_user, feedback, calibrate,
    calibrate_rollback and notify_user to ``server``."""

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def get_auth_queue(
        ctx: Context[LyraRuntime, Any],
        task_id: Annotated[
            str | None, Field(description="Only this task's items (default: every task).")
        ] = None,
        group_by: Annotated[
            Literal["none", "domain", "type"],
            Field(description="none: one entry per item; domain or type: counts per group."),
        ] = "none",
        priority_filter: Annotated[
            Literal["high", "normal", "all"],
            Field(description="A floor: high only, high and normal, or all (low too)."),
        ] = "all",
    ) -> m.AuthQueueResult:
        """Pages waiting for the user to pass a CAPTCHA, login or Cloudflare check.

        Searches go on without them; once the user has signed in (in Lyra's browser),
        report it with resolve_auth and the pages are fetched again. One sign-in clears a
        whole domain. group_by none: queue[] of {id, url, domain, auth_type, priority
        (high = primary source), queued_at, blocking_searches, task_id}; domain:
        domains[] of {domain, pending_count, high_priority_count, affected_tasks,
        auth_types}; type: types[] of {auth_type, pending_count, domains}.
        """
        rt = runtime_of(ctx)
        out = await rt.call("get_auth_queue", task_id, group_by, priority_filter)
        return m.AuthQueueResult(group_by=group_by, **out, lyra_meta=await rt.meta())

    @server.tool(
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=False
        )
    )
    async def resolve_auth(
        target: Annotated[
            Literal["item", "domain"],
            Field(description="item: one queued page; domain: every pending page of a domain."),
        ],
        data: Annotated[
            m.ResolveData,
            Field(
                description="item: {auth_id, status}; domain: {domain, status, task_id?}. "
                "status: resolved | skipped | failed."
            ),
        ],
        ctx: Context[LyraRuntime, Any],
    ) -> m.ResolveAuthResult:
        """Report what the user did about queued authentication.

        resolved: the session is taken from Lyra's browser for the domain and the pages
        are fetched again (requeued_searches); skipped / failed: the pages are given up.
        Only pending items change; an unknown or already resolved item is INVALID_PARAMS.
        """
        rt = runtime_of(ctx)
        out = await rt.call("resolve_auth", target, data.model_dump(exclude_none=True))
        return m.ResolveAuthResult(**out, lyra_meta=await rt.meta())

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=False))
    async def wait_for_user(
        prompt: Annotated[
            str, Field(min_length=1, max_length=2000, description="The question for the person.")
        ],
        ctx: Context[LyraRuntime, Any],
        form: Annotated[ElicitationResult[BaseModel], Resolve(form_for)],
        options: Annotated[
            m.WaitOptions | None,
            Field(description="{timeout_seconds? (default 300), choices? (default: free text)}"),
        ] = None,
    ) -> m.WaitResult:
        """Ask the person at the machine and wait for the answer.

        A client that can show forms (MCP elicitation) shows the question, with the
        choices as a list. Otherwise the question goes to the desktop (notify-send) and to
        this client's log with its id, and the person answers on the command line:
        `lyra answer ID "TEXT"` (a choice by its text or number; `lyra answer` lists the
        waiting questions). timed_out: true when no answer came on the command line within
        timeout_seconds (a form stays as long as the client keeps it open).
        Several questions can wait at once; the first answer to one wins.
        """
        rt = runtime_of(ctx)
        if not prompt.strip():
            raise LyraError("INVALID_PARAMS", "prompt is blank", field="prompt")
        choices = options.choices if options is not None else None
        if isinstance(form, AcceptedElicitation) and form.data is not None:
            answer = str(getattr(form.data, "answer", "")).strip() or None
            index = choices.index(answer) if choices and answer in choices else None
            return m.WaitResult(response=answer, choice_index=index, timed_out=False,
                                channel="elicitation", action="accept",
                                lyra_meta=await rt.meta())  # fmt: skip
        if not isinstance(form, AcceptedElicitation):  # the person declined or cancelled it
            return m.WaitResult(response=None, choice_index=None, timed_out=False,
                                channel="elicitation", action=form.action,
                                lyra_meta=await rt.meta())  # fmt: skip
        timeout = options.timeout_seconds if options is not None else 300.0
        # Made here, so that the question can be withdrawn wherever the client gives up,
        # its opening still on the way included (the orchestrator then refuses it).
        prompt_id = new_prompt_id()
        try:
            opened = await rt.call("open_prompt", prompt, choices, timeout, prompt_id)
            how = opened["how_to_answer"]
            # The question and how to answer it, in this client's log while it waits.
            await log_to_client(ctx, "warning", f"Lyra asks: {prompt} Answer with: {how}")
            out = await rt.call("await_prompt", prompt_id)
        except BaseException:
            # The client gave up (or the call broke): the question must not stay listed
            # and answerable with no one to receive the answer.
            with anyio.CancelScope(shield=True):
                await rt.call("cancel_prompt", prompt_id)
            raise
        return m.WaitResult(response=out["response"], choice_index=out["choice_index"],
                            timed_out=out["timed_out"], prompt_id=prompt_id,
                            channel="command_line", how_to_answer=how,
                            lyra_meta=await rt.meta())  # fmt: skip

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=False))
    async def feedback(
        action: Annotated[
            Literal[
                "domain_block", "domain_unblock", "claim_reject", "claim_restore", "edge_correct"
            ],
            Field(description="What the person says."),
        ],
        ctx: Context[LyraRuntime, Any],
        domain: Annotated[
            str | None,
            Field(
                max_length=2000,
                description="domain_block / domain_unblock: a domain name or URL (its whole "
                "site, the registrable domain, is meant).",
            ),
        ] = None,
        claim_id: Annotated[
            str | None, Field(max_length=100, description="claim_reject / claim_restore.")
        ] = None,
        edge_id: Annotated[str | None, Field(max_length=100, description="edge_correct.")] = None,
        relation: Annotated[
            Literal["supports", "refutes", "neutral"] | None,
            Field(description="edge_correct: the relation that is right."),
        ] = None,
        reason: Annotated[
            str | None, Field(max_length=2000, description="Kept with the change.")
        ] = None,
    ) -> m.FeedbackResult:
        """Correct Lyra: block or unblock a site, reject or restore a claim, correct an edge.

        domain_block: the site is never fetched again (every fetcher, the browser and the
        searches re-read the rules; it holds across restarts), its pages leave confidence,
        and get_status / _lyra_meta list it; domain_unblock restores it. claim_reject:
        the claim leaves search results, get_status, the views and confidence, and stays
        in the database with the reason; claim_restore brings it back. edge_correct: the
        stance edge gets the relation the person gives (confidence 1; the model's label
        and probability are kept) and the pair becomes an nli calibration sample. Each
        action is an event_log row (kind feedback). Unknown ids: INVALID_PARAMS.
        """
        rt = runtime_of(ctx)
        args = {
            "domain": domain,
            "claim_id": claim_id,
            "edge_id": edge_id,
            "relation": relation,
            "reason": reason,
        }
        out = await rt.call("feedback", action, {k: v for k, v in args.items() if v is not None})
        blocked = [{"domain": out["domain"]}] if action == "domain_block" else []
        noted = [DEGRADED_PREFIX + str(out.pop("degraded"))] if out.get("degraded") else []
        return m.FeedbackResult(**out, lyra_meta=await rt.meta(warnings=noted, blocked=blocked))

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=False))
    async def calibrate(
        action: Annotated[
            Literal["add_sample", "get_stats", "evaluate", "get_evaluations", "get_diagram_data"],
            Field(description="add_sample and evaluate write; the others only read."),
        ],
        ctx: Context[LyraRuntime, Any],
        data: Annotated[
            m.CalibrateData | None,
            Field(
                description="add_sample: {source, prediction, actual, predicted_label?, edge_id?, "
                "context?}; get_stats: {source?}; evaluate: {source, predictions?, labels?} "
                "(without them: the stored samples); get_evaluations: {source?, limit?, since?}; "
                "get_diagram_data: {source, evaluation_id?}."
            ),
        ] = None,
    ) -> m.CalibrateResult:
        """Calibrate the probabilities of a source: nli (stance edge confidences) or claims.

        add_sample stores one prediction (its probability and whether it was right);
        every `calibration.refit_every` new samples a new version is fitted
        (temperature or Platt scaling, the lower held-out Brier wins) and used from then
        on: new stance edges carry the calibrated probability and the version. get_stats:
        version, method, Brier, ECE, samples, degradation_detected. evaluate: Brier before
        and after calibration, ECE (10 bins) on a batch, stored; degradation_detected when
        the active version scores 5 % or more worse than the version before it on the same
        batch. get_evaluations: history. get_diagram_data: reliability bins. Unknown
        sources and evaluations of fewer than 3 samples are CALIBRATION_ERROR; a fit the
        samples cannot support is reported in add_sample's refit.refused and the active
        version stays. Rolling back is calibrate_rollback.
        """
        rt = runtime_of(ctx)
        payload = data.model_dump(exclude_none=True) if data is not None else {}
        out = await rt.call("calibrate", action, payload)
        return m.CalibrateResult(action=action, **out, lyra_meta=await rt.meta())

    @server.tool(
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=False
        )
    )
    async def calibrate_rollback(
        source: Annotated[str, Field(min_length=1, max_length=40, description="nli or claims.")],
        ctx: Context[LyraRuntime, Any],
        version: Annotated[
            int | None,
            Field(
                ge=0,
                description="The version to make active (0: no calibration); default: the one "
                "before the active version.",
            ),
        ] = None,
        reason: Annotated[
            str | None, Field(max_length=2000, description="Kept in the audit row.")
        ] = None,
    ) -> m.CalibrateRollbackResult:
        """Make an earlier calibration version of a source the active one (destructive).

        Every version is kept, so the parameters come back exactly; an event_log row
        (calibration_rollback) records the source, both versions and the reason. Unknown
        sources or versions, and a source with nothing to roll back, are CALIBRATION_ERROR.
        """
        rt = runtime_of(ctx)
        out = await rt.call("calibrate_rollback", source, version, reason)
        return m.CalibrateRollbackResult(**out, lyra_meta=await rt.meta())

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=False))
    async def notify_user(
        event: Annotated[
            Literal["info", "warning", "auth_required", "decision_required"],
            Field(description="auth_required and decision_required are urgent."),
        ],
        payload: Annotated[
            m.NotifyPayload,
            Field(description="{message, details?, timeout_seconds?, url?, auth_id?}"),
        ],
        ctx: Context[LyraRuntime, Any],
    ) -> m.NotifyResult:
        """Tell the user something: a desktop notification (notify-send, when installed)
        and an MCP log message to this client, with the same redacted text.

        For auth_required with a url (or the auth_id of a queued item) Lyra's browser
        opens the page for the user to sign in; then call resolve_auth. The text carries
        the message, URL and auth type only; cookies and tokens are redacted.
        """
        rt = runtime_of(ctx)
        out = await rt.call("notify_user", event, payload.model_dump(exclude_none=True))
        text = f"{out['title']}: {out['message']}"
        await log_to_client(ctx, "warning" if event == "auth_required" else "info", text)
        out["channels"] = [*out["channels"], "mcp_log"]
        return m.NotifyResult(**out, lyra_meta=await rt.meta())
