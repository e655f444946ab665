"""Token bucket arithmetic on a fake clock (no sleeping)."""

from __future__ import annotations

import pytest

from lyra.pipelines.net.token_bucket import TokenBucket


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def test_first_request_is_free_then_spaced_by_the_rate() -> None:
    clock = FakeClock()
    bucket = TokenBucket(5.0, burst=1, clock=clock)
    assert bucket.reserve() == 0.0
    assert bucket.reserve() == pytest.approx(0.2)
    assert bucket.reserve() == pytest.approx(0.4)


def test_wait_shrinks_as_time_passes() -> None:
    clock = FakeClock()
    bucket = TokenBucket(0.2, clock=clock)
    bucket.reserve()
    assert bucket.wait_time() == pytest.approx(5.0)
    clock.advance(3.0)
    assert bucket.wait_time() == pytest.approx(2.0)
    clock.advance(2.0)
    assert bucket.wait_time() == 0.0
    assert bucket.reserve() == 0.0


def test_burst_allows_back_to_back_requests_after_a_quiet_period() -> None:
    clock = FakeClock()
    bucket = TokenBucket(1.0, burst=3, clock=clock)
    assert [bucket.reserve() for _ in range(4)] == [0.0, 0.0, 0.0, pytest.approx(1.0)]
    clock.advance(100.0)
    # Refill never exceeds the burst.
    assert bucket.tokens() == pytest.approx(3.0)


def test_wait_time_does_not_take_a_token() -> None:
    clock = FakeClock()
    bucket = TokenBucket(1.0, clock=clock)
    assert bucket.wait_time() == 0.0
    assert bucket.wait_time() == 0.0
    assert bucket.tokens() == pytest.approx(1.0)


def test_a_request_spent_outside_the_bucket_moves_the_next_token_back() -> None:
    clock = FakeClock()
    bucket = TokenBucket(2.0, clock=clock)
    assert bucket.reserve() == 0.0
    clock.advance(3.0)  # full again; then another process sent one of the site's requests
    bucket.spent_now()
    assert bucket.wait_time() == pytest.approx(0.5)
    assert bucket.reserve() == pytest.approx(0.5)
    bucket.spent_now()  # one reserved ahead stays ahead
    assert bucket.wait_time() == pytest.approx(1.0)
    assert bucket.interval_s == pytest.approx(0.5)


def test_set_rate_keeps_the_level() -> None:
    clock = FakeClock()
    bucket = TokenBucket(10.0, clock=clock)
    bucket.reserve()
    bucket.set_rate(2.0)
    assert bucket.rate_per_s == 2.0
    assert bucket.wait_time() == pytest.approx(0.5)


def test_state_round_trip_refills_for_wall_time_elapsed() -> None:
    clock = FakeClock()
    wall = FakeClock(start=1_700_000_000.0)
    bucket = TokenBucket(0.5, burst=2, clock=clock, wall_clock=wall)
    bucket.reserve()
    bucket.reserve()
    bucket.reserve()  # level -1: next token in 4 s
    state = bucket.state()
    assert state == {"rate_per_s": 0.5, "burst": 2.0, "tokens": -1.0, "saved_at": 1_700_000_000.0}

    wall.advance(3.0)
    restored = TokenBucket.from_state(state, clock=FakeClock(start=5.0), wall_clock=wall)
    assert restored.tokens() == pytest.approx(0.5)
    assert restored.wait_time() == pytest.approx(1.0)


def test_from_state_with_clock_gone_backwards_refills_nothing() -> None:
    wall = FakeClock(start=100.0)
    state = {"rate_per_s": 1.0, "burst": 1.0, "tokens": 0.0, "saved_at": 200.0}
    restored = TokenBucket.from_state(state, clock=FakeClock(), wall_clock=wall)
    assert restored.tokens() == 0.0
    assert restored.wait_time() == pytest.approx(1.0)


def test_from_state_can_change_the_rate() -> None:
    wall = FakeClock(start=10.0)
    state = {"rate_per_s": 1.0, "burst": 1.0, "tokens": 0.0, "saved_at": 10.0}
    restored = TokenBucket.from_state(state, clock=FakeClock(), wall_clock=wall, rate_per_s=0.25)
    assert restored.rate_per_s == 0.25
    assert restored.wait_time() == pytest.approx(4.0)


@pytest.mark.parametrize(("rate", "burst"), [(0.0, 1), (-1.0, 1), (1.0, 0.5)])
def test_invalid_parameters(rate: float, burst: float) -> None:
    with pytest.raises(ValueError):
        TokenBucket(rate, burst=burst)
