"""Circuit breaker state machine (seed 003 §3.6): closed → open → half_open → closed/open."""

from __future__ import annotations

import json

import pytest

from lyra.pipelines.net.circuit import CircuitBreaker, Transition, is_circuit_failure

T0 = 1_700_000_000.0
COOLDOWN = 1800.0


def _opened(threshold: int = 2) -> CircuitBreaker:
    breaker = CircuitBreaker(failure_threshold=threshold, cooldown_seconds=COOLDOWN)
    for _ in range(threshold):
        breaker.record_failure(T0, "403")
    assert breaker.state == "open"
    return breaker


def test_new_breaker_is_closed_and_allows() -> None:
    breaker = CircuitBreaker()
    assert breaker.state == "closed"
    assert breaker.allow(T0) == (True, None)
    assert breaker.retry_at() is None


def test_opens_at_threshold_of_consecutive_failures() -> None:
    breaker = CircuitBreaker(failure_threshold=2, cooldown_seconds=COOLDOWN)
    assert breaker.record_failure(T0, "429") is None
    assert breaker.state == "closed"
    assert breaker.allow(T0 + 1) == (True, None)
    transition = breaker.record_failure(T0 + 2, "403")
    assert transition == Transition("closed", "open", "403", T0 + 2)
    assert breaker.state == "open"
    assert breaker.retry_at() == T0 + 2 + COOLDOWN
    assert breaker.last_reason == "403"


def test_success_resets_the_consecutive_count() -> None:
    breaker = CircuitBreaker(failure_threshold=2, cooldown_seconds=COOLDOWN)
    breaker.record_failure(T0, "timeout")
    assert breaker.record_success(T0 + 1) is None
    assert breaker.failures == 0
    assert breaker.record_failure(T0 + 2, "timeout") is None
    assert breaker.state == "closed"


def test_open_refuses_until_cooldown_then_allows_exactly_one_probe() -> None:
    breaker = _opened()
    assert breaker.allow(T0 + 1) == (False, None)
    assert breaker.allow(T0 + COOLDOWN - 0.001) == (False, None)
    allowed, transition = breaker.allow(T0 + COOLDOWN)
    assert allowed is True
    assert transition == Transition("open", "half_open", "cooldown elapsed; probing", T0 + COOLDOWN)
    assert breaker.state == "half_open"
    # The probe is in flight: nobody else goes.
    assert breaker.allow(T0 + COOLDOWN + 1) == (False, None)
    assert breaker.allow(T0 + COOLDOWN + 500) == (False, None)
    assert breaker.retry_at() == T0 + COOLDOWN


def test_reading_state_does_not_transition() -> None:
    breaker = _opened()
    # Long after the cooldown, only allow() moves the breaker.
    for _ in range(3):
        assert breaker.state == "open"
    assert breaker.retry_at() == T0 + COOLDOWN
    assert breaker.state == "open"


def test_successful_probe_closes() -> None:
    breaker = _opened()
    breaker.allow(T0 + COOLDOWN)
    transition = breaker.record_success(T0 + COOLDOWN + 2)
    assert transition == Transition("half_open", "closed", "request succeeded", T0 + COOLDOWN + 2)
    assert breaker.state == "closed"
    assert breaker.failures == 0
    assert breaker.retry_at() is None
    assert breaker.allow(T0 + COOLDOWN + 3) == (True, None)
    # Closed again: it takes a full threshold of failures to reopen.
    assert breaker.record_failure(T0 + COOLDOWN + 4, "403") is None
    assert breaker.state == "closed"


def test_failed_probe_reopens_with_fresh_cooldown() -> None:
    breaker = _opened()
    probe_at = T0 + COOLDOWN + 10
    breaker.allow(probe_at)
    transition = breaker.record_failure(probe_at + 1, "timeout")
    assert transition == Transition("half_open", "open", "probe failed: timeout", probe_at + 1)
    assert breaker.state == "open"
    assert breaker.retry_at() == probe_at + 1 + COOLDOWN
    assert breaker.allow(probe_at + COOLDOWN) == (False, None)
    allowed, again = breaker.allow(probe_at + 1 + COOLDOWN)
    assert allowed is True
    assert again is not None
    assert again.to_state == "half_open"


def test_retry_after_longer_than_cooldown_extends_open_period() -> None:
    breaker = CircuitBreaker(failure_threshold=1, cooldown_seconds=60.0)
    transition = breaker.record_failure(T0, "429", retry_after=3600.0)
    assert transition is not None
    assert breaker.retry_at() == T0 + 3600.0
    assert breaker.allow(T0 + 60.0) == (False, None)
    assert breaker.allow(T0 + 3599.0) == (False, None)
    assert breaker.allow(T0 + 3600.0)[0] is True


def test_retry_after_shorter_than_cooldown_keeps_cooldown() -> None:
    breaker = CircuitBreaker(failure_threshold=1, cooldown_seconds=600.0)
    breaker.record_failure(T0, "429", retry_after=5.0)
    assert breaker.retry_at() == T0 + 600.0


def test_late_failure_while_open_extends_but_does_not_transition() -> None:
    breaker = _opened()
    assert breaker.record_failure(T0 + 10, "429", retry_after=7200.0) is None
    assert breaker.state == "open"
    assert breaker.retry_at() == T0 + 10 + 7200.0


def test_late_success_while_open_does_not_close() -> None:
    breaker = _opened()
    assert breaker.record_success(T0 + 5) is None
    assert breaker.state == "open"
    assert breaker.retry_at() == T0 + COOLDOWN


def test_threshold_one_opens_on_first_failure() -> None:
    breaker = CircuitBreaker(failure_threshold=1, cooldown_seconds=COOLDOWN)
    transition = breaker.record_failure(T0, "403")
    assert transition == Transition("closed", "open", "403", T0)


def test_state_round_trips_through_json_across_processes() -> None:
    breaker = _opened()
    snapshot = json.loads(json.dumps(breaker.to_state()))
    assert snapshot == {
        "state": "open",
        "failures": 2,
        "opened_at": T0,
        "retry_until": None,
        "last_reason": "403",
    }
    restored = CircuitBreaker.from_state(snapshot, 2, COOLDOWN)
    assert restored.state == "open"
    assert restored.retry_at() == T0 + COOLDOWN
    assert restored.allow(T0 + COOLDOWN - 1) == (False, None)
    assert restored.allow(T0 + COOLDOWN)[0] is True


def test_restored_half_open_sends_a_new_probe() -> None:
    breaker = _opened()
    breaker.allow(T0 + COOLDOWN)
    restored = CircuitBreaker.from_state(breaker.to_state(), 2, COOLDOWN)
    assert restored.state == "half_open"
    # The old probe died with the process; the slot is free again, once.
    assert restored.retry_at() is None
    assert restored.allow(T0 + COOLDOWN + 5) == (True, None)
    assert restored.allow(T0 + COOLDOWN + 6) == (False, None)


def test_restore_uses_current_cooldown_setting() -> None:
    breaker = _opened()
    restored = CircuitBreaker.from_state(breaker.to_state(), 2, 60.0)
    assert restored.retry_at() == T0 + 60.0


def test_retry_after_survives_restore() -> None:
    breaker = CircuitBreaker(failure_threshold=1, cooldown_seconds=60.0)
    breaker.record_failure(T0, "429", retry_after=900.0)
    restored = CircuitBreaker.from_state(breaker.to_state(), 1, 60.0)
    assert restored.retry_at() == T0 + 900.0


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ({"state": "melted"}, "unknown circuit state"),
        ({"state": "open", "failures": 2}, "needs opened_at"),
    ],
)
def test_from_state_rejects_bad_snapshots(state: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        CircuitBreaker.from_state(state, 2, COOLDOWN)


@pytest.mark.parametrize(("threshold", "cooldown"), [(0, 10.0), (-1, 10.0), (2, -1.0)])
def test_constructor_rejects_bad_settings(threshold: int, cooldown: float) -> None:
    with pytest.raises(ValueError):
        CircuitBreaker(failure_threshold=threshold, cooldown_seconds=cooldown)


@pytest.mark.parametrize(
    ("status", "error", "retry_after", "expected"),
    [
        (403, None, None, True),
        (429, None, None, True),
        (429, None, 30.0, True),
        (None, "timeout", None, True),
        (503, None, 120.0, True),
        (503, None, None, False),
        (500, None, None, False),
        (404, None, None, False),
        (410, None, None, False),
        (401, None, None, False),
        (200, None, None, False),
        (None, "dns", None, False),
        (None, "connection_refused", None, False),
        (None, None, None, False),
    ],
)
def test_is_circuit_failure_table(
    status: int | None, error: str | None, retry_after: float | None, expected: bool
) -> None:
    assert is_circuit_failure(status, error, retry_after) is expected


def test_is_circuit_failure_two_argument_form() -> None:
    assert is_circuit_failure(403, None) is True
    assert is_circuit_failure(503, None) is False
