"""Whose request a site serves next: the search that began first.

A `DomainFetcher` makes one request at a time (the politeness slot). When several
searches wait on the same site, serving their calls in arrival order interleaves
them: four searches started together over the same five sites all finish collecting
at the very end, and all their CPU-bound stages (ranking, claims, stance) then queue
behind one another. Serving the cause (a search; whatever named the call) that began
first before the later ones makes equal searches finish one after another:
the first answers after a quarter of the time, the last no later than before, with
the same request rate on the site; meanwhile the finished ones' ranking, claims and
stance run while the site paces the others (docs/decisions/0045).

Shortest-remaining-first was tried and dropped: a search keeps at most
`fetch.max_live_actors` fetches in flight, so the calls waiting at one site say
little about what a search has left there, and ordering by them interleaved again.
The price of first-come: a search that comes later waits for the earlier one's pages
on a site they share (at most that search's page budget there).

When a cause began is given by the caller (the orchestrator passes each search's start
time), so that all sites order the same searches alike: searches started in the same
instant reach the sites in different orders, and ordering by arrival at each site let
each site favour a different one, all finishing at the end again. A call that gives no
start counts from its cause's first call at this site.

Calls without a cause (a robots.txt check, a person's cookies) go first. Within one
cause calls keep their arrival order. Nothing here waits on a clock: the token bucket
paces whoever holds the turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

# Causes remembered (least recently used forgotten first); one forgotten and seen again
# without a start queues as new. Far more than the searches that overlap on one site.
REMEMBERED_CAUSES = 256


class TurnDropped(Exception):
    """The call's cause was dropped (its search stopped) while the call waited."""


@dataclass
class _Waiter:
    seq: int
    cause: str | None
    granted: asyncio.Future[None] = field(repr=False)


class SiteTurns:
    """A lock whose next holder is chosen by cause (see the module docstring)."""

    def __init__(self) -> None:
        self._held = False
        self._waiters: list[_Waiter] = []
        self._seq = itertools.count()
        self._came: OrderedDict[str, float] = OrderedDict()  # cause -> when it began
        # Dropped causes (stopped searches, whose ids never come back): a call of one
        # that arrives after the drop is dropped at once.
        self._dropped: OrderedDict[str, None] = OrderedDict()

    def locked(self) -> bool:
        """A call holds the turn."""
        return self._held

    def waiting(self) -> int:
        """Calls waiting for a turn."""
        return len(self._waiters)

    @contextlib.asynccontextmanager
    async def turn(
        self, cause: str | None = None, since: float | None = None
    ) -> AsyncIterator[None]:
        """Hold the site's turn for the block.

        `cause`: whose call it is (a search id); `since`: when the cause began (wall
        time), so that every site orders the same causes alike; without it, when the
        cause first came to this site.
        """
        await self._acquire(cause, since)
        try:
            yield
        finally:
            self._release()

    async def _acquire(self, cause: str | None, since: float | None) -> None:
        seq = next(self._seq)
        if cause is not None and cause in self._dropped:
            raise TurnDropped(cause)
        if cause is not None:
            self._remember(cause, since)
        if not self._held and not self._waiters:
            self._held = True
            return
        waiter = _Waiter(seq, cause, asyncio.get_running_loop().create_future())
        self._waiters.append(waiter)
        try:
            await waiter.granted
        except asyncio.CancelledError:
            granted = (
                waiter.granted.done()
                and not waiter.granted.cancelled()
                and waiter.granted.exception() is None  # a drop hands no turn
            )
            if granted:
                self._release()  # the turn came with the cancellation: pass it on
            elif waiter in self._waiters:  # a release may have dropped it already
                self._waiters.remove(waiter)
            raise

    def drop(self, cause: str) -> int:
        """End the waiting calls of `cause` with `TurnDropped` (its search stopped: what
        it still wanted from the site is not asked), and its later calls too; returns
        how many waited. A call of it holding the turn finishes."""
        self._dropped[cause] = None
        self._dropped.move_to_end(cause)
        if len(self._dropped) > REMEMBERED_CAUSES:
            self._dropped.popitem(last=False)
        dropped = [w for w in self._waiters if w.cause == cause and not w.granted.done()]
        for waiter in dropped:
            self._waiters.remove(waiter)
            waiter.granted.set_exception(TurnDropped(cause))
        return len(dropped)

    def _remember(self, cause: str, since: float | None) -> None:
        """When `cause` began: as given (the caller knows best), else its first call here.
        Causes in use stay remembered; the least recently used is forgotten first."""
        if since is not None:
            self._came[cause] = since
        elif cause not in self._came:
            self._came[cause] = time.time()
        self._came.move_to_end(cause)
        if len(self._came) > REMEMBERED_CAUSES:
            self._came.popitem(last=False)

    def _release(self) -> None:
        # A waiter cancelled while it waited has a done future; it leaves the queue here
        # or in its own clean-up, whichever runs first, and is never handed the turn.
        self._waiters = [w for w in self._waiters if not w.granted.done()]
        if not self._waiters:
            self._held = False
            return
        nxt = min(self._waiters, key=self._rank)
        self._waiters.remove(nxt)
        nxt.granted.set_result(None)  # the turn passes on: still held

    def _rank(self, waiter: _Waiter) -> tuple[float, int]:
        if waiter.cause is None:
            return (float("-inf"), waiter.seq)
        # A cause forgotten while it waited queues as one that began now.
        return (self._came.get(waiter.cause, float("inf")), waiter.seq)
