"""Circuit breaker per domain / per search engine (seed 003 §3.6; ARCHITECTURE §3).

closed ──(failure_threshold consecutive failures)──▶ open
open ──(cooldown and any Retry-After elapsed; next allow())──▶ half_open (one probe)
half_open ──probe succeeds──▶ closed        half_open ──probe fails──▶ open (fresh cooldown)

Pure state machine: every method takes the wall-clock time `now` (``time.time()``),
so the state survives a process restart through `to_state` / `from_state` and tests
drive it with plain numbers. Methods return the `Transition` they caused (or None)
so the owning actor can log it and persist it; reading `state` never changes it.

Why a half-open probe and not a timer that simply closes: a site that is still
blocking us would otherwise receive a burst of requests the moment the cooldown
ends; one probe costs one request to learn the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

CircuitStateName = Literal["closed", "open", "half_open"]

# Statuses that mean "this site is pushing back on us" rather than "this page is bad".
_CIRCUIT_STATUSES = frozenset({403, 429})
_CIRCUIT_ERRORS = frozenset({"timeout"})


@dataclass(frozen=True)
class Transition:
    """One state change, for the log and the persisted domain state."""

    from_state: str
    to_state: str
    reason: str
    at: float


def is_circuit_failure(
    status: int | None, error: str | None, retry_after: float | None = None
) -> bool:
    """Whether a fetch outcome counts toward opening the circuit.

    403 and 429 are the site refusing us; a timeout is the site (or the path to it)
    failing under our traffic. A 503 alone is usually a passing outage that says
    nothing about us, so it counts only when it carries `Retry-After` (RFC 9110
    §15.6.4: the server is explicitly asking clients to back off). 404 and other
    4xx are page problems, not domain problems.
    """
    if error is not None and error in _CIRCUIT_ERRORS:
        return True
    if status is None:
        return False
    if status in _CIRCUIT_STATUSES:
        return True
    return status == 503 and retry_after is not None


class CircuitBreaker:
    """Consecutive-failure breaker with a cooldown and a single half-open probe."""

    def __init__(self, failure_threshold: int = 2, cooldown_seconds: float = 1800.0) -> None:
        if failure_threshold < 1:
            raise ValueError(f"failure_threshold must be >= 1, got {failure_threshold}")
        if cooldown_seconds < 0:
            raise ValueError(f"cooldown_seconds must be >= 0, got {cooldown_seconds}")
        self._threshold = int(failure_threshold)
        self._cooldown = float(cooldown_seconds)
        self._state: CircuitStateName = "closed"
        self._failures = 0
        self._opened_at: float | None = None
        self._retry_until: float | None = None
        self._probe_in_flight = False
        self._last_reason = ""

    @property
    def state(self) -> CircuitStateName:
        """The current state name; reading it never changes it."""
        return self._state

    @property
    def failures(self) -> int:
        """Consecutive failures counted since the last success."""
        return self._failures

    @property
    def last_reason(self) -> str:
        """The reason given with the failure that last opened the circuit."""
        return self._last_reason

    def retry_at(self) -> float | None:
        """Wall time from which a request may go out again; None when one may go now.

        None while closed and while half_open with the probe slot free; while open,
        or half_open with the probe in flight, the end of the open period.
        """
        if self._state == "closed":
            return None
        if self._state == "half_open" and not self._probe_in_flight:
            return None
        return self._open_until()

    def allow(self, now: float) -> tuple[bool, Transition | None]:
        """Whether a request may go out at `now`; may move open → half_open (the probe)."""
        if self._state == "closed":
            return True, None
        if self._state == "half_open":
            if self._probe_in_flight:
                return False, None
            self._probe_in_flight = True
            return True, None
        if now < self._open_until():
            return False, None
        self._state = "half_open"
        self._probe_in_flight = True
        return True, Transition("open", "half_open", "cooldown elapsed; probing", now)

    def record_success(self, now: float) -> Transition | None:
        """A request succeeded: forget failures; a successful probe closes the circuit.

        While open, a success is a response that left before the circuit opened; it
        says nothing about the site now, so it changes nothing (the probe decides).
        """
        if self._state == "open":
            return None
        self._failures = 0
        if self._state == "closed":
            return None
        previous = self._state
        self._state = "closed"
        self._opened_at = None
        self._retry_until = None
        self._probe_in_flight = False
        return Transition(previous, "closed", "request succeeded", now)

    def record_failure(
        self, now: float, reason: str, retry_after: float | None = None
    ) -> Transition | None:
        """A circuit failure (the caller decides which outcomes are): may open the circuit.

        `retry_after` (seconds, from the server) stretches the open period to
        max(cooldown, retry_after); it also reopens an already open circuit for
        longer if a late response carries a longer Retry-After.
        """
        self._failures += 1
        retry_until = now + retry_after if retry_after is not None and retry_after > 0 else None
        if self._state == "half_open":
            return self._open(now, f"probe failed: {reason}", retry_until, "half_open")
        if self._state == "open":
            # A response that left before the circuit opened; extend, do not re-log.
            if retry_until is not None and retry_until > self._open_until():
                self._retry_until = retry_until
            return None
        if self._failures >= self._threshold:
            return self._open(now, reason, retry_until, "closed")
        return None

    def to_state(self) -> dict[str, Any]:
        """A JSON-ready snapshot; a probe in flight is not kept (it dies with the process)."""
        return {
            "state": self._state,
            "failures": self._failures,
            "opened_at": self._opened_at,
            "retry_until": self._retry_until,
            "last_reason": self._last_reason,
        }

    @classmethod
    def from_state(
        cls,
        state: dict[str, Any],
        failure_threshold: int = 2,
        cooldown_seconds: float = 1800.0,
    ) -> CircuitBreaker:
        """Rebuild a breaker from `to_state` output (thresholds come from current settings).

        A breaker saved in half_open had a probe whose answer was lost with the
        process; it comes back as half_open with the probe slot free, so the next
        `allow()` sends a new probe.
        """
        breaker = cls(failure_threshold, cooldown_seconds)
        name = state.get("state", "closed")
        if name not in ("closed", "open", "half_open"):
            raise ValueError(f"unknown circuit state {name!r}")
        breaker._state = name
        breaker._failures = int(state.get("failures", 0))
        opened_at = state.get("opened_at")
        retry_until = state.get("retry_until")
        breaker._opened_at = None if opened_at is None else float(opened_at)
        breaker._retry_until = None if retry_until is None else float(retry_until)
        breaker._last_reason = str(state.get("last_reason", ""))
        if breaker._state != "closed" and breaker._opened_at is None:
            raise ValueError(f"circuit state {name!r} needs opened_at")
        return breaker

    def _open_until(self) -> float:
        opened = self._opened_at if self._opened_at is not None else 0.0
        until = opened + self._cooldown
        if self._retry_until is not None:
            until = max(until, self._retry_until)
        return until

    def _open(
        self, now: float, reason: str, retry_until: float | None, previous: str
    ) -> Transition:
        self._state = "open"
        self._opened_at = now
        self._retry_until = retry_until
        self._probe_in_flight = False
        self._last_reason = reason
        return Transition(previous, "open", reason, now)
