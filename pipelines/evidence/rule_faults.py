"""A text the word rules cannot read loses that reading, not the search (decision 0118).

The stance, contradiction and claim rules are thousands of lines of hand-written
reading applied to the text of any page. A page that trips one of them (a fault no test
met: an index past the end of a list, a number too large to convert, a pattern that
recurses too deep) must not fail the search it came in, nor any other pair of that
search. Every call of the rules on one pair, one fragment or one claim goes through
`guarded`: a fault is logged with its traceback, counted by kind, and the caller gets
what "the rules found nothing here" means for it (a neutral reading, which the stance
model then judges alone; no contradiction; no claims from that fragment). The
InferenceActor names the counts in `_lyra_meta.degraded` (`fault_summary`), so a client
knows that some pairs were read without the rules.

Only ``Exception`` is caught: an interrupt or a ``SystemExit`` still ends the process.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from typing import Final, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

# Kinds of reading (the caller's words, in the degraded line).
STANCE: Final = "stance rules"
SWEEP: Final = "contradiction sweep"
CLAIMS: Final = "claim rules"

# Tracebacks logged per kind; later faults of that kind are counted only, so a hostile
# corpus cannot fill the log.
LOGGED_PER_KIND: Final = 5

_faults: Counter[str] = Counter()


def guarded(kind: str, read: Callable[[], T], fallback: T) -> T:
    """``read()``, or ``fallback`` when it raises (logged and counted under ``kind``)."""
    try:
        return read()
    except Exception:
        _faults[kind] += 1
        if _faults[kind] <= LOGGED_PER_KIND:
            log.exception("the %s failed on one text; read as finding nothing there", kind)
        return fallback


def fault_counts() -> dict[str, int]:
    """Faults met in this process so far, by kind (none: empty)."""
    return dict(_faults)


def fault_summary() -> str | None:
    """The degraded line for the faults met so far, or None when there were none."""
    if not _faults:
        return None
    counts = ", ".join(
        f"{kind} on {n} text{'s' if n > 1 else ''}" for kind, n in sorted(_faults.items())
    )
    return (
        f"word rules failed ({counts}) since the inference actor started: those texts were "
        "read without them (the model alone judged their stance; a fragment whose claim "
        "rules failed gave no claims); the log has each traceback"
    )
