"""Search-engine health: EMAs of outcomes, weights, selection and the last-mile slot.

Seed 003 §3.1.1 (engine weights learned from failure and block rates; a last-mile
slot that opens Google/Brave minimally under strict count and time limits), §3.1.4
(`engine_health`: 1 h / 24 h success, CAPTCHA rate, HTTP error rate, latency) and
§4.6 (event-driven EMA feedback, short alpha=0.3 / long alpha=0.1).

Pure functions over an immutable `EngineHealth` record; the caller (the GraphActor)
stores it in the `engine_health` table and passes wall-clock `now` (epoch seconds).
An engine's circuit is not kept here: it IS the fetch layer's circuit for the
engine's site (`pipelines/net/circuit.py`), and selection receives its state name.

A SERP that is a CAPTCHA page is a health event ("captcha") and an auth-queue item
for the caller, never a page of results; `fetch_outcome` maps a fetch result to the
outcome recorded here.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal, cast, get_args

from lyra.pipelines.discover.engines import EngineSpec
from lyra.pipelines.net.circuit import CircuitStateName

Outcome = Literal["success", "captcha", "http_error", "timeout", "network_error", "empty"]
"""What one SERP request to an engine came to.

``empty`` is a 200 page that parsed to zero results and is not a block: a soft
failure, see `EMPTY_SUCCESS`.
"""

OUTCOMES: Final = frozenset(get_args(Outcome))
CIRCUIT_STATES: Final = frozenset(get_args(CircuitStateName))

# Time constants of the two windows the seed names (§3.1.4: success_rate_1h / 24h).
SHORT_TAU_S: Final = 3600.0
LONG_TAU_S: Final = 86400.0
# Per-event minimum alpha (seed §4.6: short alpha=0.3, long alpha=0.1), so one fresh event moves
# the value noticeably even when events come seconds apart.
SHORT_ALPHA_FLOOR: Final = 0.3
LONG_ALPHA_FLOOR: Final = 0.1

# An empty page counts as half a success: the engine answered without blocking, but
# gave nothing. A parser broken by a markup change (seed §3.1.4 "非互換検知") then
# settles at 0.5 and halves the engine's weight, while an occasional query that truly
# has no results barely moves it.
EMPTY_SUCCESS: Final = 0.5

# A CAPTCHA already counts as a failure in the success EMA; the extra penalty is
# because each further query to a challenging engine risks a longer ban.
CAPTCHA_PENALTY: Final = 0.5

# "Short-term broken or failing engines are disabled for a while" (seed §3.1.1): an
# engine whose health factor is below UNHEALTHY_BELOW after at least
# UNHEALTHY_MIN_SAMPLES outcomes is skipped until UNHEALTHY_HOLD_S after its last
# outcome; then it is usable again, last by weight, as a probe. The hold is the low
# end of the seed's 30-120 min TTL (§3.1.4). Without the hold an engine at weight 0
# would never be asked again and so never recover.
UNHEALTHY_BELOW: Final = 0.2
UNHEALTHY_MIN_SAMPLES: Final = 3
UNHEALTHY_HOLD_S: Final = 1800.0

# Last-mile slot (seed §3.1.1): at most this many queries per last-resort engine in
# any sliding window of LAST_RESORT_WINDOW_S.
LAST_RESORT_PER_HOUR: Final = 3
LAST_RESORT_WINDOW_S: Final = 3600.0

# Fetch errors that mean no request reached the engine (our own limits and policy):
# they say nothing about the engine's health.
_LOCAL_REFUSALS: Final = frozenset(
    {
        "circuit_open",
        "rate_limited",
        "robots_disallowed",
        "wrong_domain",
        "domain_blocked",  # a BLOCKED domain of domains.yaml (decision 0048)
        "cancelled",  # the search stopped while the query waited for the site
    }
)


@dataclass(frozen=True)
class EngineHealth:
    """One engine's health record: the `engine_health` row plus two extra fields.

    The EMA fields are None until the first outcome (no evidence yet);
    `latency_ema_ms` stays None until an outcome that measured the engine's latency.
    `updated_at` is the epoch time of the latest outcome. `samples` counts outcomes;
    `last_resort_uses` holds the epoch times of last-mile queries in the last window.
    """

    engine: str
    success_ema_1h: float | None = None
    success_ema_24h: float | None = None
    captcha_ema: float | None = None
    http_error_ema: float | None = None
    latency_ema_ms: float | None = None
    circuit_state: CircuitStateName = "closed"
    updated_at: float = 0.0
    samples: int = 0
    last_resort_uses: tuple[float, ...] = ()

    def to_row(self) -> dict[str, Any]:
        """The table row: `updated_at` as naive UTC datetime (the form TIMESTAMP columns
        store), `last_resort_uses` as a list of epoch floats (a DOUBLE[] column),
        `samples` as an int (INTEGER)."""
        return {
            "engine": self.engine,
            "success_ema_1h": self.success_ema_1h,
            "success_ema_24h": self.success_ema_24h,
            "captcha_ema": self.captcha_ema,
            "http_error_ema": self.http_error_ema,
            "latency_ema_ms": self.latency_ema_ms,
            "circuit_state": self.circuit_state,
            "updated_at": dt.datetime.fromtimestamp(self.updated_at, dt.UTC).replace(tzinfo=None),
            "samples": self.samples,
            "last_resort_uses": list(self.last_resort_uses),
        }

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> EngineHealth:
        """A record from a stored row (the inverse of `to_row`).

        `updated_at` may be a datetime (naive means UTC) or epoch seconds; a row
        without `samples` / `last_resort_uses` (an older table) reads as 0 / ().
        """
        state = row.get("circuit_state") or "closed"
        if state not in CIRCUIT_STATES:
            raise ValueError(f"engine_health.{row['engine']}: unknown circuit state {state!r}")
        state = cast(CircuitStateName, state)
        return cls(
            engine=str(row["engine"]),
            success_ema_1h=_opt_float(row.get("success_ema_1h")),
            success_ema_24h=_opt_float(row.get("success_ema_24h")),
            captcha_ema=_opt_float(row.get("captcha_ema")),
            http_error_ema=_opt_float(row.get("http_error_ema")),
            latency_ema_ms=_opt_float(row.get("latency_ema_ms")),
            circuit_state=state,
            updated_at=_epoch(row.get("updated_at")),
            samples=int(row.get("samples") or 0),
            last_resort_uses=tuple(float(t) for t in row.get("last_resort_uses") or ()),
        )


def _opt_float(value: Any) -> float | None:
    return None if value is None else float(value)


def _epoch(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, dt.datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)
        return aware.timestamp()
    return float(value)


def alphas(dt_s: float) -> tuple[float, float]:
    """(short, long) alpha for an event `dt_s` seconds after the previous one.

    alpha = max(floor, 1 - exp(-dt/tau)) with tau = 1 h / 24 h and floor 0.3 / 0.1: the longer
    the silence, the more the new event stands for the whole gap; a negative gap (an
    out-of-order event) counts as 0.
    """
    gap = max(0.0, dt_s)
    short = max(SHORT_ALPHA_FLOOR, 1.0 - math.exp(-gap / SHORT_TAU_S))
    long = max(LONG_ALPHA_FLOOR, 1.0 - math.exp(-gap / LONG_TAU_S))
    return short, long


def _observe(outcome: Outcome) -> tuple[float, float, float, bool]:
    """(success, captcha, http_error, latency_counts) observed for one outcome.

    http_error is every non-CAPTCHA failure (HTTP status, timeout, network error):
    the seed's `http_error_rate`. Latency counts only when the engine answered; a
    timeout's or a dropped connection's duration measures our timeout, not the engine.
    """
    if outcome == "success":
        return 1.0, 0.0, 0.0, True
    if outcome == "empty":
        return EMPTY_SUCCESS, 0.0, 0.0, True
    if outcome == "captcha":
        return 0.0, 1.0, 0.0, True
    if outcome == "http_error":
        return 0.0, 0.0, 1.0, True
    return 0.0, 0.0, 1.0, False


def _ema(old: float | None, observed: float, alpha: float) -> float:
    return observed if old is None else old + alpha * (observed - old)


def update(
    health: EngineHealth | None,
    engine: str,
    outcome: Outcome,
    latency_ms: float | None,
    now: float,
    *,
    circuit_state: CircuitStateName | None = None,
) -> EngineHealth:
    """The record after one outcome at `now`.

    Rule: with dt = now - updated_at and (a_short, a_long) = `alphas(dt)`, every EMA moves
    as v <- v + alpha*(x - v): `success_ema_1h`, `captcha_ema`, `http_error_ema` and
    `latency_ema_ms` with a_short, `success_ema_24h` with a_long. x is 1/0 per outcome (an
    empty page is x = `EMPTY_SUCCESS` for success). The first observation sets v = x;
    so does the first measured latency. `updated_at` never goes back in time.
    `circuit_state`, when given, is stored as the record's last known circuit.
    """
    if outcome not in OUTCOMES:
        raise ValueError(f"unknown outcome {outcome!r}; expected one of {sorted(OUTCOMES)}")
    if latency_ms is not None and (latency_ms < 0 or not math.isfinite(latency_ms)):
        raise ValueError(f"latency_ms must be a finite number >= 0, got {latency_ms}")
    if circuit_state is not None and circuit_state not in CIRCUIT_STATES:
        raise ValueError(f"unknown circuit state {circuit_state!r}")
    old = health if health is not None else EngineHealth(engine=engine, updated_at=now)
    if old.engine != engine:
        raise ValueError(f"health record of {old.engine!r} updated as {engine!r}")
    short, long = alphas(now - old.updated_at)
    success, captcha, http_error, latency_counts = _observe(outcome)
    latency = old.latency_ema_ms
    if latency_counts and latency_ms is not None:
        latency = _ema(latency, float(latency_ms), short)
    return replace(
        old,
        success_ema_1h=_ema(old.success_ema_1h, success, short),
        success_ema_24h=_ema(old.success_ema_24h, success, long),
        captcha_ema=_ema(old.captcha_ema, captcha, short),
        http_error_ema=_ema(old.http_error_ema, http_error, short),
        latency_ema_ms=latency,
        circuit_state=circuit_state or old.circuit_state,
        updated_at=max(old.updated_at, now),
        samples=old.samples + 1,
    )


def fetch_outcome(status: int | None, error: str | None, result_count: int) -> Outcome | None:
    """The outcome of one SERP fetch (DomainFetcher result fields), or None for no event.

    None when no request reached the engine (our circuit, rate limit, robots or
    net-guard refusal). A `challenge:*` error is "captcha" whatever the status; a
    status >= 400 or any other error on an answered request is "http_error"; an
    unanswered request is "timeout" or "network_error"; a clean answer is "success"
    or, with zero parsed results, "empty".
    """
    if error is not None:
        if error in _LOCAL_REFUSALS and status is None:
            return None
        if error.startswith("target_refused"):
            return None
        if error.startswith("challenge:"):
            return "captcha"
        if status is None:
            return "timeout" if error == "timeout" else "network_error"
        return "http_error"
    if status is None:
        raise ValueError("a fetch result without status needs an error")
    if status >= 400:
        return "http_error"
    return "empty" if result_count == 0 else "success"


def health_factor(health: EngineHealth | None) -> float:
    """Recent health in [0, 1]: success_ema_1h * (1 - CAPTCHA_PENALTY * captcha_ema).

    1.0 with no evidence yet, so a new engine starts at its configured weight.
    """
    if health is None or health.success_ema_1h is None:
        return 1.0
    captcha = health.captcha_ema or 0.0
    return health.success_ema_1h * (1.0 - CAPTCHA_PENALTY * captcha)


def _check_circuit(circuit_state: str) -> None:
    if circuit_state not in CIRCUIT_STATES:
        raise ValueError(f"unknown circuit state {circuit_state!r}")


def weight(spec: EngineSpec, health: EngineHealth | None, circuit_state: str) -> float:
    """The engine's weight now: spec.weight * `health_factor`, 0 while its circuit is open.

    half_open keeps the weight: the fetch layer lets exactly one probe through.
    """
    _check_circuit(circuit_state)
    if circuit_state == "open":
        return 0.0
    return float(spec.weight) * health_factor(health)


def is_unhealthy(health: EngineHealth | None, now: float) -> bool:
    """Whether the engine is held back for poor health (see UNHEALTHY_* constants)."""
    if health is None or health.samples < UNHEALTHY_MIN_SAMPLES:
        return False
    if now - health.updated_at >= UNHEALTHY_HOLD_S:
        return False
    return health_factor(health) < UNHEALTHY_BELOW


def last_resort_uses_in_window(health: EngineHealth | None, now: float) -> int:
    """Last-mile queries to the engine in the past LAST_RESORT_WINDOW_S seconds."""
    if health is None:
        return 0
    # A use stamped after `now` (the clock stepped back) still counts: the limit is strict.
    return sum(1 for t in health.last_resort_uses if now - t < LAST_RESORT_WINDOW_S)


def record_last_resort_use(health: EngineHealth | None, engine: str, now: float) -> EngineHealth:
    """The record after one last-mile query is sent at `now`; uses older than the
    window are dropped. Call it when the query is dispatched, not when it answers,
    so that concurrent searches cannot overrun the hourly limit."""
    old = health if health is not None else EngineHealth(engine=engine, updated_at=now)
    if old.engine != engine:
        raise ValueError(f"health record of {old.engine!r} updated as {engine!r}")
    kept = tuple(t for t in old.last_resort_uses if now - t < LAST_RESORT_WINDOW_S)
    return replace(old, last_resort_uses=(*kept, now))


@dataclass(frozen=True)
class Selection:
    """Which of the named engines a search may use now, and why the others not.

    `usable`: regular engines by weight (desc, then name), then the opened last-resort
    engines in the same order. `last_resort`: the opened last-resort engines (also in
    `usable`). `skipped`: engine → reason. `all_blocked`: engines were named and none
    is usable; the orchestrator answers ALL_ENGINES_BLOCKED. `weights`: the weight of
    every usable engine, for the log.
    """

    usable: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    all_blocked: bool = False
    last_resort: list[str] = field(default_factory=list)
    weights: dict[str, float] = field(default_factory=dict)


def _gate(spec: EngineSpec, health: EngineHealth | None, circuit: str, now: float) -> str:
    """The reason a known engine may not be used at all, or "" when it may."""
    if not spec.enabled:
        return "disabled"
    if circuit == "open":
        return "circuit_open"
    if is_unhealthy(health, now):
        return "unhealthy"
    return ""


def _by_weight(names: list[str], weights: Mapping[str, float]) -> list[str]:
    return sorted(names, key=lambda n: (-weights[n], n))


def select_engines(
    specs: Mapping[str, EngineSpec],
    named: Sequence[str],
    health: Mapping[str, EngineHealth],
    circuits: Mapping[str, str],
    now: float,
    *,
    harvest_short: bool = False,
) -> Selection:
    """The engines to query among `named` (the client's list or the default list).

    Every named engine must be known, enabled (the user's opt-in, which also gives
    it a rate limit in the fetch layer), not behind an open circuit and not held
    back as unhealthy. A circuit missing from `circuits` is taken as closed (local
    has no site). A last-resort engine (spec.last_resort) that passes is opened
    only when no regular engine is usable or `harvest_short` (the search is short
    of results: the seed's last 10 % of recall), else it is skipped as
    "last_resort_held"; and only while it has had fewer than LAST_RESORT_PER_HOUR
    last-mile queries in the past hour, else "last_resort_limit". An empty `named`
    selects nothing and is not "all blocked".
    """
    chosen: dict[str, float] = {}
    skipped: dict[str, str] = {}
    waiting: list[str] = []
    for name in dict.fromkeys(named):
        circuit = circuits.get(name, "closed")
        _check_circuit(circuit)
        spec = specs.get(name)
        record = health.get(name)
        reason = "unknown" if spec is None else _gate(spec, record, circuit, now)
        if spec is None or reason:
            skipped[name] = reason
            continue
        if spec.last_resort:
            waiting.append(name)
        else:
            chosen[name] = weight(spec, record, circuit)
    regular = _by_weight(list(chosen), chosen)
    opened: dict[str, float] = {}
    for name in waiting:
        if regular and not harvest_short:
            skipped[name] = "last_resort_held"
        elif last_resort_uses_in_window(health.get(name), now) >= LAST_RESORT_PER_HOUR:
            skipped[name] = "last_resort_limit"
        else:
            opened[name] = weight(specs[name], health.get(name), circuits.get(name, "closed"))
    last = _by_weight(list(opened), opened)
    return Selection(
        usable=regular + last,
        skipped=skipped,
        all_blocked=bool(named) and not (regular or last),
        last_resort=last,
        weights={**chosen, **opened},
    )
