"""A read that every tool response makes, answered from memory while it is fresh.

Every tool response carries ``_lyra_meta`` (the models in use and every fallback),
which the InferenceActor reports. That actor runs at a lower CPU priority and spends
its time in model batches (decision 0026): under load, asking it on every tool call put
its queueing on every call's latency. What it reports changes only when it restarts or
loads other models, and the Orchestrator sees both (a failed call, ``reload_models``)
and calls :meth:`StatusCache.forget`. Between those, an answer up to ``fresh_seconds``
old is served as is, and an older one is served while a new one is fetched beside it
(stale while revalidating), so a caller waits only when there is no answer at all.
Decision 0037.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)


class StatusCache:
    """The last answer of ``fetch``, refreshed in the background once it is stale."""

    def __init__(self, fetch: Callable[[], Awaitable[dict[str, Any]]], fresh_seconds: float):
        self._fetch = fetch
        self._fresh = fresh_seconds
        self._value: dict[str, Any] | None = None
        self._at = 0.0
        self._generation = 0
        self._refresh: asyncio.Task[None] | None = None

    async def get(self) -> dict[str, Any]:
        """The answer: from memory when there is one, else fetched now."""
        if self._value is None:
            return await self._load(self._generation)
        if time.monotonic() - self._at > self._fresh and (
            self._refresh is None or self._refresh.done()
        ):
            self._refresh = asyncio.get_running_loop().create_task(self._quietly())
        return self._value

    def forget(self) -> None:
        """The source changed (restarted, reloaded): the next ``get`` fetches and waits,
        and an answer fetched before this call is not kept."""
        self._value = None
        self._generation += 1

    async def _load(self, generation: int) -> dict[str, Any]:
        value = await self._fetch()
        if generation == self._generation:
            self._value, self._at = value, time.monotonic()
        return value

    async def _quietly(self) -> None:
        try:
            await self._load(self._generation)
        except Exception:  # the caller that needs it fetches again and sees the error
            log.warning("background status refresh failed", exc_info=True)
            self.forget()
