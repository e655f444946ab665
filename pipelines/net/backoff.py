"""Retry spacing for the fetch layer: exponential backoff and `Retry-After`.

Pure functions; the caller sleeps. Jitter is multiplicative (±`jitter` of the delay)
so that several workers that failed together do not retry in lock-step, while the
delay stays within a predictable band for tests and logs.

`parse_retry_after` reads both forms RFC 9110 §10.2.3 allows: delta-seconds and an
HTTP-date (IMF-fixdate, plus the obsolete RFC 850 and asctime forms that
`email.utils` also understands). A date in the past means "now" (0 s), anything
unparseable means "the server said nothing usable" (None), never an exception,
because the header comes from an untrusted server.
"""

from __future__ import annotations

import email.utils
import math
import random
import re
from datetime import UTC

_DELTA_SECONDS = re.compile(r"^-?\d+$")
# A server asking for more than a day is treated as asking for a day: the circuit
# breaker's cooldown takes over well before that matters (seed 003 §3.6).
MAX_RETRY_AFTER_SECONDS = 86400.0


def backoff_delay(
    attempt: int,
    base: float = 1.0,
    maximum: float = 60.0,
    jitter: float = 0.1,
    rng: random.Random | None = None,
) -> float:
    """Seconds to wait before retry number `attempt` (0-based): capped 2^n growth ± jitter."""
    if attempt < 0:
        raise ValueError(f"attempt must be >= 0, got {attempt}")
    if base < 0 or maximum < 0:
        raise ValueError(f"base and maximum must be >= 0, got {base}, {maximum}")
    if not 0.0 <= jitter < 1.0:
        raise ValueError(f"jitter must be in [0, 1), got {jitter}")
    # 2**attempt overflows float for huge attempts; the cap is reached long before.
    exponent = min(attempt, 1024)
    raw = min(base * math.pow(2.0, exponent), maximum) if exponent < 1024 else maximum
    if jitter == 0.0:
        return raw
    source = rng if rng is not None else random
    return raw * source.uniform(1.0 - jitter, 1.0 + jitter)


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a `Retry-After` value at wall time `now`; None when unusable."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    match = _DELTA_SECONDS.match(text)
    if match is not None:
        return min(max(float(int(text)), 0.0), MAX_RETRY_AFTER_SECONDS)
    try:
        moment = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if moment is None:
        return None
    if moment.tzinfo is None:
        # RFC 9110 HTTP-dates are always GMT; email.utils leaves "-0000" naive.
        timestamp = moment.replace(tzinfo=UTC).timestamp()
    else:
        timestamp = moment.timestamp()
    return min(max(timestamp - now, 0.0), MAX_RETRY_AFTER_SECONDS)
