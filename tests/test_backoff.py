"""Exponential backoff and Retry-After parsing (RFC 9110 §10.2.3)."""

from __future__ import annotations

import random
from email.utils import formatdate

import pytest

from lyra.pipelines.net.backoff import MAX_RETRY_AFTER_SECONDS, backoff_delay, parse_retry_after

# 2015-10-21 07:28:00 UTC, the RFC 9110 example date.
RFC_EXAMPLE_EPOCH = 1445412480.0


@pytest.mark.parametrize(
    ("attempt", "expected"),
    [(0, 1.0), (1, 2.0), (2, 4.0), (3, 8.0), (5, 32.0), (6, 60.0), (7, 60.0), (5000, 60.0)],
)
def test_backoff_without_jitter_doubles_and_caps(attempt: int, expected: float) -> None:
    assert backoff_delay(attempt, base=1.0, maximum=60.0, jitter=0.0) == expected


def test_backoff_base_scales() -> None:
    assert backoff_delay(3, base=0.5, maximum=100.0, jitter=0.0) == 4.0


def test_backoff_jitter_stays_in_band_and_varies() -> None:
    rng = random.Random(7)
    delays = [backoff_delay(4, base=1.0, maximum=60.0, jitter=0.1, rng=rng) for _ in range(200)]
    assert min(delays) >= 16.0 * 0.9
    assert max(delays) <= 16.0 * 1.1
    assert len({round(d, 9) for d in delays}) == 200


def test_backoff_jitter_is_reproducible_with_seeded_rng() -> None:
    first = backoff_delay(2, rng=random.Random(42))
    second = backoff_delay(2, rng=random.Random(42))
    assert first == second
    assert first == 4.0 * random.Random(42).uniform(0.9, 1.1)


def test_backoff_jitter_applies_to_capped_value() -> None:
    rng = random.Random(3)
    delays = [backoff_delay(30, maximum=10.0, jitter=0.2, rng=rng) for _ in range(100)]
    assert min(delays) >= 8.0
    assert max(delays) <= 12.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"attempt": -1}, "attempt"),
        ({"attempt": 0, "jitter": 1.0}, "jitter"),
        ({"attempt": 0, "jitter": -0.1}, "jitter"),
        ({"attempt": 0, "base": -1.0}, "base"),
    ],
)
def test_backoff_rejects_bad_arguments(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        backoff_delay(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("120", 120.0),
        ("0", 0.0),
        ("  30  ", 30.0),
        ("-5", 0.0),
        (str(10**9), MAX_RETRY_AFTER_SECONDS),
    ],
)
def test_retry_after_delta_seconds(value: str, expected: float) -> None:
    assert parse_retry_after(value, now=1_000_000.0) == expected


@pytest.mark.parametrize(
    "value",
    [
        "Wed, 21 Oct 2015 07:28:00 GMT",  # IMF-fixdate (RFC 9110 example)
        "Wednesday, 21-Oct-15 07:28:00 GMT",  # obsolete RFC 850 form
        "Wed Oct 21 07:28:00 2015",  # obsolete asctime form
    ],
)
def test_retry_after_http_date_forms(value: str) -> None:
    assert parse_retry_after(value, now=RFC_EXAMPLE_EPOCH - 90.0) == 90.0


def test_retry_after_http_date_in_the_past_is_zero() -> None:
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=RFC_EXAMPLE_EPOCH + 3600) == 0.0


def test_retry_after_date_from_formatdate_round_trips() -> None:
    now = 1_700_000_000.0
    assert parse_retry_after(formatdate(now + 45, usegmt=True), now=now) == 45.0


@pytest.mark.parametrize(
    "value",
    [None, "", "   ", "soon", "1.5", "12abc", "Wed, 99 Foo 2015 07:28:00 GMT", "0x10", "+5"],
)
def test_retry_after_garbage_is_none(value: str | None) -> None:
    assert parse_retry_after(value, now=1_000_000.0) is None
