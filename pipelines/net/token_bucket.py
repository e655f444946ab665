"""Token bucket for per-domain politeness (ARCHITECTURE §3 step 6: default 0.2 req/s).

Pure: the bucket never sleeps. It tells the caller how long to wait and the caller
sleeps (``time.sleep`` or ``asyncio.sleep``), so tests drive it with a fake clock.

The level may go negative: `reserve()` takes a token now and returns how long the
caller must wait before using it, so a queue of callers is spaced 1/rate apart
without a lock-and-poll loop. `state()` / `from_state()` carry the level across a
process restart in wall-clock time (a monotonic clock means nothing in another
process), so a restarted fetcher does not start with a full bucket it has already
spent.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

Clock = Callable[[], float]


class TokenBucket:
    """A token bucket of `burst` tokens refilled at `rate_per_s` tokens per second."""

    def __init__(
        self,
        rate_per_s: float,
        burst: float = 1,
        clock: Clock = time.monotonic,
        *,
        tokens: float | None = None,
        wall_clock: Clock = time.time,
    ) -> None:
        if rate_per_s <= 0:
            raise ValueError(f"rate_per_s must be positive, got {rate_per_s}")
        if burst < 1:
            raise ValueError(f"burst must be at least 1, got {burst}")
        self._rate = float(rate_per_s)
        self._burst = float(burst)
        self._clock = clock
        self._wall = wall_clock
        self._tokens = self._burst if tokens is None else min(float(tokens), self._burst)
        self._updated = clock()

    @property
    def rate_per_s(self) -> float:
        """Refill rate in tokens per second."""
        return self._rate

    @property
    def burst(self) -> float:
        """Bucket capacity: requests that may go out back to back after a quiet period."""
        return self._burst

    def _refill(self) -> float:
        now = self._clock()
        elapsed = max(0.0, now - self._updated)
        self._tokens = min(self._burst, self._tokens + elapsed * self._rate)
        self._updated = now
        return now

    def tokens(self) -> float:
        """The current level (negative while reservations are outstanding)."""
        self._refill()
        return self._tokens

    def wait_time(self) -> float:
        """Seconds until one token is available, without taking it."""
        self._refill()
        if self._tokens >= 1:
            return 0.0
        return (1 - self._tokens) / self._rate

    def reserve(self) -> float:
        """Take one token now and return the seconds to wait before using it (0 if none)."""
        wait = self.wait_time()
        self._tokens -= 1
        return wait

    def spent_now(self) -> None:
        """Count a request that left now outside the bucket's own reservations (another
        process's, on this schedule): the next token comes one interval from now at the
        soonest, later if reservations are still outstanding."""
        self._refill()
        self._tokens = min(self._tokens, 0.0)

    @property
    def interval_s(self) -> float:
        """The time between two tokens."""
        return 1.0 / self._rate

    def set_rate(self, rate_per_s: float) -> None:
        """Change the refill rate (e.g. for a robots.txt Crawl-delay), keeping the level."""
        if rate_per_s <= 0:
            raise ValueError(f"rate_per_s must be positive, got {rate_per_s}")
        self._refill()
        self._rate = float(rate_per_s)

    def state(self) -> dict[str, Any]:
        """A JSON-able snapshot for persistence, timestamped in wall-clock seconds."""
        self._refill()
        return {
            "rate_per_s": self._rate,
            "burst": self._burst,
            "tokens": self._tokens,
            "saved_at": self._wall(),
        }

    @classmethod
    def from_state(
        cls,
        state: dict[str, Any],
        clock: Clock = time.monotonic,
        *,
        wall_clock: Clock = time.time,
        rate_per_s: float | None = None,
    ) -> TokenBucket:
        """Rebuild a bucket from `state()`, refilled for the wall-clock time since it was saved."""
        rate = float(rate_per_s if rate_per_s is not None else state["rate_per_s"])
        burst = float(state["burst"])
        # A clock that went backwards refills nothing rather than draining the bucket.
        elapsed = max(0.0, wall_clock() - float(state["saved_at"]))
        tokens = min(burst, float(state["tokens"]) + elapsed * float(state["rate_per_s"]))
        return cls(rate, burst, clock, tokens=tokens, wall_clock=wall_clock)
