"""The auth queue and user notifications, as the Orchestrator offers them (seed 003 §3.6).

Not an actor: the Orchestrator owns one ``AuthService`` and lends it its ``_call`` to the graph
(which supervises the graph actor), so the queue lives in DuckDB through the
GraphActor and survives any restart. This class validates what the client sent,
turns it into typed errors, and sequences the steps; the rules live in
``storage.auth_queue`` (queue semantics) and ``pipelines.net.notify`` (notification text,
redaction, alert thresholds).

Idempotency: ``queue`` is read-only; ``enqueue`` joins an existing pending item;
``resolve`` changes only pending items, so a repeat finds nothing and says so;
``notify`` shows a new notification on every call (not idempotent).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from lyra.config.settings import Settings
from lyra.pipelines.errors import LyraError
from lyra.pipelines.net import notify as nt
from lyra.storage.auth_queue import (
    FINAL_STATUSES,
    PRIORITIES,
    PRIORITY_FILTERS,
    normalize_domain,
)

log = logging.getLogger(__name__)

GROUP_BY: tuple[str, ...] = ("none", "domain", "type")
TARGETS: tuple[str, ...] = ("item", "domain")
MAX_AUTH_TYPE_CHARS = 64

Call = Callable[..., Awaitable[Any]]
OnResolved = Callable[[str, list[dict[str, Any]]], Awaitable[dict[str, Any]]]
OpenUrl = Callable[[str], Awaitable[dict[str, Any]]]


def _one_of(value: Any, allowed: tuple[str, ...], field: str) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise LyraError(
            "INVALID_PARAMS", f"{field} must be one of {', '.join(allowed)}, not {value!r}", field
        )
    return value


def _text(value: Any, field: str, *, required: bool = True) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise LyraError("INVALID_PARAMS", f"{field} must be a non-empty string", field)
    return value.strip()


def _unique(values: Any) -> list[str]:
    return list(dict.fromkeys(str(v) for v in values if v))


class AuthService:
    """get_auth_queue, resolve_auth and notify_user over the graph actor."""

    def __init__(self, settings: Settings, graph: Call) -> None:
        """`graph(method, *args, **kwargs)` calls the graph actor (the Orchestrator's
        supervised call, which re-creates a dead actor)."""
        self._settings = settings
        self._graph = graph

    # --- queue -----------------------------------------------------------------------
    async def enqueue(
        self,
        *,
        task_id: str | None,
        search_id: str | None,
        url: str,
        domain: str,
        auth_type: str,
        priority: str,
    ) -> dict[str, Any]:
        """Queue a URL that needs a person; a URL already pending for the task is joined."""
        if not nt.is_openable_url(url):
            raise LyraError("INVALID_PARAMS", f"not an http(s) URL: {url!r}", field="url")
        kind = _text(auth_type, "auth_type") or ""
        if len(kind) > MAX_AUTH_TYPE_CHARS:
            raise LyraError("INVALID_PARAMS", "auth_type is too long", field="auth_type")
        # A fetch that could not name the registrable domain still queues under the host.
        host = urlsplit(url).hostname or ""
        item = {
            "task_id": task_id,
            "search_id": search_id,
            "url": url,
            "domain": normalize_domain(_text(domain or host, "domain") or ""),
            "auth_type": kind.lower(),
            "priority": _one_of(priority, PRIORITIES, "priority"),
        }
        result: dict[str, Any] = await self._graph("enqueue_auth", item)
        if result["created"]:
            log.info("auth queued: %s (%s, %s)", result["domain"], kind, result["priority"])
        return result

    async def queue(
        self, task_id: str | None, group_by: str, priority_filter: str
    ) -> dict[str, Any]:
        """Pending items by item, domain or type (idempotent)."""
        _one_of(group_by, GROUP_BY, "group_by")
        _one_of(priority_filter, tuple(PRIORITY_FILTERS), "priority_filter")
        result: dict[str, Any] = await self._graph("auth_items", task_id, priority_filter, group_by)
        return result

    # --- resolve ---------------------------------------------------------------------
    async def resolve(
        self, target: str, data: dict[str, Any], *, on_resolved: OnResolved
    ) -> dict[str, Any]:
        """Give an item, or every pending item of a domain, a final status.

        For ``resolved``, ``on_resolved(domain, items)`` carries the session over and
        re-queues the work; its ``session_stored`` and ``requeued_searches`` join the
        result. ``session_data`` from the client is accepted and not stored: the
        session is taken from Lyra's own browser, where the person signed in.
        """
        _one_of(target, TARGETS, "target")
        if not isinstance(data, dict):
            raise LyraError("INVALID_PARAMS", "data must be an object", field="data")
        status = _one_of(data.get("status"), FINAL_STATUSES, "data.status")
        if target == "item":
            auth_id = _text(data.get("auth_id"), "data.auth_id") or ""
            items = await self._graph("resolve_auth_items", "item", auth_id, status, None)
            if not items:
                known = await self._graph("get_auth_item", auth_id)
                why = "no auth item" if known is None else f"already {known['status']}:"
                raise LyraError(
                    "INVALID_PARAMS",
                    f"{why} {auth_id!r}; get_auth_queue lists the pending ones",
                    field="data.auth_id",
                )
            domain = str(items[0]["domain"])
        else:
            domain = normalize_domain(_text(data.get("domain"), "data.domain") or "")
            task_id = _text(data.get("task_id"), "data.task_id", required=False)
            items = await self._graph("resolve_auth_items", "domain", domain, status, task_id)
            if not items:
                scope = f" of task {task_id}" if task_id else ""
                raise LyraError(
                    "INVALID_PARAMS",
                    f"no pending auth items for domain {domain!r}{scope}",
                    field="data.domain",
                )
        out: dict[str, Any] = {
            "target": target,
            "status": status,
            "domain": domain,
            "resolved_count": len(items),
            "affected_tasks": sorted({str(i["task_id"]) for i in items if i["task_id"]}),
            "unblocked_searches": _unique(s for i in items for s in i["blocking_searches"]),
            "session_stored": False,
            "requeued_searches": [],
            "warnings": [],
        }
        if target == "item":
            out["auth_id"] = items[0]["id"]
        if status == "resolved":
            out.update(await self._after_resolved(on_resolved, domain, items))
        return out

    async def _after_resolved(
        self, on_resolved: OnResolved, domain: str, items: list[dict[str, Any]]
    ) -> dict[str, Any]:
        # The items are already marked: the person's report is the fact of record. A
        # failed session transfer or re-queue is reported, not raised, so the client
        # does not retry a resolve that cannot find its items any more.
        try:
            hook = await on_resolved(domain, items)
        except Exception as exc:
            log.exception("after resolving %s: session transfer or re-queue failed", domain)
            return {
                "warnings": [f"session transfer or re-queue failed: {type(exc).__name__}: {exc}"]
            }
        return {
            "session_stored": bool(hook.get("session_stored", False)),
            "requeued_searches": _unique(hook.get("requeued_searches") or []),
            "warnings": list(hook.get("warnings") or []),
        }

    # --- notify ----------------------------------------------------------------------
    async def notify(
        self, event: str, payload: dict[str, Any], *, open_url: OpenUrl | None
    ) -> dict[str, Any]:
        """Show a desktop notification; for auth_required with a URL (given, or the URL
        of ``payload.auth_id``) also open it in the browser for the person.

        The notification text is the reason, the URL and the auth type, redacted
        (seed §3.6.3): no cookie or token reaches the desktop.
        """
        _one_of(event, nt.EVENTS, "event")
        if not isinstance(payload, dict):
            raise LyraError("INVALID_PARAMS", "payload must be an object", field="payload")
        message = _text(payload.get("message"), "payload.message") or ""
        url = _text(payload.get("url"), "payload.url", required=False)
        auth_id = _text(payload.get("auth_id"), "payload.auth_id", required=False)
        if url is not None and not nt.is_openable_url(url):
            raise LyraError("INVALID_PARAMS", "payload.url must be an http(s) URL", "payload.url")
        auth_type: str | None = None
        if event == "auth_required" and auth_id is not None:
            item = await self._graph("get_auth_item", auth_id)
            if item is None:
                raise LyraError(
                    "INVALID_PARAMS", f"no auth item {auth_id!r}", field="payload.auth_id"
                )
            url = url or str(item["url"])
            auth_type = str(item["auth_type"])
        expire = payload.get("timeout_seconds")
        if expire is not None and (not isinstance(expire, int | float) or expire < 0):
            raise LyraError(
                "INVALID_PARAMS", "payload.timeout_seconds must be >= 0", "payload.timeout_seconds"
            )
        title, body = nt.notification_text(event, message, url=url, auth_type=auth_type)
        # notify-send is a subprocess: off the event loop, which serves every search.
        shown = await asyncio.to_thread(
            nt.desktop_notify,
            title,
            body,
            nt.URGENCY[event],
            self._settings.auth.notify_command,
            expire_seconds=float(expire) if expire is not None else None,
        )
        opened, open_error = await self._open(event, url, open_url)
        notification_id = "n_" + uuid.uuid4().hex[:12]
        channels = (["desktop"] if shown else []) + (["browser"] if opened else [])
        await self._graph("log_event",
            kind="user_notified",
            actor="orchestrator",
            cause_id=auth_id,
            payload={"notification_id": notification_id, "event": event, "title": title,
                     "shown": shown, "opened_url": nt.safe_url(opened) if opened else None},
        )  # fmt: skip
        out: dict[str, Any] = {
            "notification_id": notification_id,
            "event": event,
            "shown": shown,
            "channels": channels,
            "opened_url": opened,
            "title": title,
            "message": body,
        }
        if open_error:
            out["warnings"] = [open_error]
        return out

    @staticmethod
    async def _open(
        event: str, url: str | None, open_url: OpenUrl | None
    ) -> tuple[str | None, str | None]:
        if event != "auth_required" or url is None or open_url is None:
            return None, None
        try:
            await open_url(url)
        except Exception as exc:
            # The notification went out already; say the page did not open.
            log.warning("could not open %s for the person", nt.safe_url(url), exc_info=True)
            if isinstance(exc, LyraError):  # it names the page (redacted) and why
                return None, nt.redact(exc.message)
            return None, f"the browser could not open the page: {type(exc).__name__}"
        return url, None
