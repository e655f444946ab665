"""Engine health (seed 003 §3.1.1, §3.1.4, §4.6): EMAs, weights, selection, last-mile slot.

Expected EMA values are worked by hand from the rule in `update`'s docstring:
v <- v + a*(x - v), a = max(floor, 1 - exp(-dt/tau)), floors 0.3 (1 h) / 0.1 (24 h).
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from typing import Any

import pytest

from lyra.pipelines.discover.engine_health import (
    LAST_RESORT_PER_HOUR,
    EngineHealth,
    Outcome,
    alphas,
    fetch_outcome,
    health_factor,
    is_unhealthy,
    last_resort_uses_in_window,
    record_last_resort_use,
    select_engines,
    update,
    weight,
)
from lyra.pipelines.discover.engines import EngineSpec, load_engines
from tests.conftest import make_settings

T0 = 1_700_000_000.0


@pytest.fixture
def specs(tmp_path: Path) -> dict[str, EngineSpec]:
    """The shipped engines.yaml, with the last-resort engines google and brave enabled."""
    settings = make_settings(
        tmp_path, engines={"google": {"enabled": True}, "brave": {"enabled": True}}
    )
    engines: dict[str, EngineSpec] = load_engines(settings)
    return engines


def _unchecked(value: str) -> Any:
    """A value outside a Literal type, as a client's untyped data would carry it."""
    return value


def _run(engine: str, events: list[tuple[float, Outcome, float | None]]) -> EngineHealth:
    health: EngineHealth | None = None
    for at, outcome, latency in events:
        health = update(health, engine, outcome, latency, at)
    assert health is not None
    return health


def test_alphas_floor_and_time_constants() -> None:
    assert alphas(0.0) == (0.3, 0.1)
    assert alphas(-5.0) == (0.3, 0.1)
    assert alphas(60.0) == (0.3, 0.1)
    assert alphas(3600.0) == (pytest.approx(0.6321205588), 0.1)
    assert alphas(86400.0) == (pytest.approx(1.0), pytest.approx(0.6321205588))


def test_first_observation_initialises_every_ema() -> None:
    health = update(None, "mojeek", "captcha", 420.0, T0)
    assert health == EngineHealth(
        engine="mojeek",
        success_ema_1h=0.0,
        success_ema_24h=0.0,
        captcha_ema=1.0,
        http_error_ema=0.0,
        latency_ema_ms=420.0,
        circuit_state="closed",
        updated_at=T0,
        samples=1,
        last_resort_uses=(),
    )


def test_ema_values_after_a_burst_of_outcomes() -> None:
    # One minute apart: both windows move by their floor alpha (0.3 / 0.1).
    health = _run(
        "duckduckgo",
        [
            (T0, "success", 200.0),
            (T0 + 60, "captcha", 300.0),
            (T0 + 120, "timeout", 10_000.0),
            (T0 + 180, "empty", 100.0),
        ],
    )
    # success 1h: 1 -> 0.7 -> 0.49 -> 0.49 + 0.3*(0.5 - 0.49) = 0.493
    assert health.success_ema_1h == pytest.approx(0.493)
    # success 24h: 1 -> 0.9 -> 0.81 -> 0.81 + 0.1*(0.5 - 0.81) = 0.779
    assert health.success_ema_24h == pytest.approx(0.779)
    # captcha: 0 -> 0.3 -> 0.21 -> 0.147
    assert health.captcha_ema == pytest.approx(0.147)
    # timeouts count as errors: 0 -> 0 -> 0.3 -> 0.21
    assert health.http_error_ema == pytest.approx(0.21)
    # latency skips the timeout: 200 -> 230 -> 230 -> 230 + 0.3*(100 - 230) = 191
    assert health.latency_ema_ms == pytest.approx(191.0)
    assert health.samples == 4
    assert health.updated_at == T0 + 180


def test_a_long_gap_lets_the_new_event_outweigh_old_evidence() -> None:
    health = _run("mojeek", [(T0, "http_error", 500.0), (T0 + 7200, "success", 100.0)])
    # 2 h gap: a_short = 1 - e^-2 = 0.8646647; a_long stays at its floor 0.1.
    assert health.success_ema_1h == pytest.approx(1 - math.exp(-2))
    assert health.success_ema_1h == pytest.approx(0.8646647)
    assert health.success_ema_24h == pytest.approx(0.1)
    assert health.http_error_ema == pytest.approx(0.1353353)
    assert health.latency_ema_ms == pytest.approx(500 + 0.8646647 * (100 - 500))
    # A further day of silence: a_long = 1 - e^-1; the 1 h window forgets everything.
    later = update(health, "mojeek", "success", 100.0, T0 + 7200 + 86400)
    assert later.success_ema_24h == pytest.approx(0.1 + (1 - math.exp(-1)) * 0.9)
    assert later.success_ema_24h == pytest.approx(0.6689085)
    assert later.success_ema_1h == pytest.approx(1.0)
    assert later.http_error_ema == pytest.approx(0.0, abs=1e-9)


def test_out_of_order_event_uses_the_floor_and_keeps_updated_at() -> None:
    first = update(None, "wikipedia", "success", 50.0, T0 + 100)
    late = update(first, "wikipedia", "network_error", None, T0 + 50)
    assert late.updated_at == T0 + 100
    assert late.success_ema_1h == pytest.approx(0.7)
    assert late.success_ema_24h == pytest.approx(0.9)
    assert late.latency_ema_ms == 50.0


def test_update_rejects_bad_input() -> None:
    health = update(None, "mojeek", "success", 10.0, T0)
    with pytest.raises(ValueError, match="unknown outcome 'blocked'"):
        update(health, "mojeek", _unchecked("blocked"), 10.0, T0)
    with pytest.raises(ValueError, match="latency_ms must be a finite number >= 0"):
        update(health, "mojeek", "success", -1.0, T0)
    with pytest.raises(ValueError, match="health record of 'mojeek' updated as 'bing'"):
        update(health, "bing", "success", 10.0, T0)
    with pytest.raises(ValueError, match="unknown circuit state 'ajar'"):
        update(health, "mojeek", "success", 10.0, T0, circuit_state=_unchecked("ajar"))


def test_update_stores_the_circuit_state_given() -> None:
    health = update(None, "mojeek", "http_error", 10.0, T0, circuit_state="open")
    assert health.circuit_state == "open"
    assert update(health, "mojeek", "success", 10.0, T0 + 1).circuit_state == "open"


@pytest.mark.parametrize(
    ("status", "error", "count", "expected"),
    [
        (200, None, 10, "success"),
        (200, None, 0, "empty"),
        (403, "challenge:captcha", 0, "captcha"),
        (200, "challenge:cloudflare", 0, "captcha"),
        (429, "rate_limited", 0, "http_error"),
        (503, "http_error:503", 0, "http_error"),
        (500, None, 0, "http_error"),
        (None, "timeout", 0, "timeout"),
        (None, "network_error:ConnectError", 0, "network_error"),
        # Our own refusals: the engine never saw a request.
        (None, "circuit_open", 0, None),
        (None, "rate_limited", 0, None),
        (None, "robots_disallowed", 0, None),
        (None, "target_refused:private_address", 0, None),
        (None, "domain_blocked", 0, None),
        (None, "cancelled", 0, None),  # the search stopped while the query waited
    ],
)
def test_fetch_outcome(
    status: int | None, error: str | None, count: int, expected: str | None
) -> None:
    assert fetch_outcome(status, error, count) == expected


def test_fetch_outcome_without_status_or_error_is_an_error() -> None:
    with pytest.raises(ValueError, match="needs an error"):
        fetch_outcome(None, None, 0)


def test_weight_scales_by_health_and_is_zero_when_open(specs: dict[str, EngineSpec]) -> None:
    ddg = specs["duckduckgo"]
    assert weight(ddg, None, "closed") == 1.0
    assert weight(ddg, None, "half_open") == 1.0
    assert weight(ddg, None, "open") == 0.0
    health = _run("duckduckgo", [(T0, "success", 100.0), (T0 + 60, "captcha", 100.0)])
    # success 0.7, captcha 0.3: 0.7 * (1 - 0.5*0.3) = 0.595
    assert health_factor(health) == pytest.approx(0.595)
    assert weight(ddg, health, "closed") == pytest.approx(0.595)
    assert weight(specs["marginalia"], health, "closed") == pytest.approx(0.7 * 0.595)
    with pytest.raises(ValueError, match="unknown circuit state 'shut'"):
        weight(ddg, health, "shut")


def test_select_orders_by_weight_then_name(specs: dict[str, EngineSpec]) -> None:
    health = {
        "duckduckgo": _run("duckduckgo", [(T0, "success", 90.0), (T0 + 60, "captcha", 90.0)]),
        "mojeek": _run("mojeek", [(T0, "success", 90.0)]),
        "wikipedia": _run("wikipedia", [(T0, "success", 90.0), (T0 + 60, "empty", 90.0)]),
    }
    named = ["duckduckgo", "marginalia", "wikipedia", "mojeek", "local", "mojeek"]
    selection = select_engines(specs, named, health, {}, T0 + 120)
    # mojeek 1.0 and local 1.0 (no evidence) tie: by name. wikipedia 0.85, marginalia
    # 0.7 (no evidence), duckduckgo 0.595.
    assert selection.usable == ["local", "mojeek", "wikipedia", "marginalia", "duckduckgo"]
    assert selection.weights == {
        "duckduckgo": pytest.approx(0.595),
        "marginalia": 0.7,
        "wikipedia": pytest.approx(0.85),
        "mojeek": 1.0,
        "local": 1.0,
    }
    assert selection.skipped == {}
    assert selection.all_blocked is False
    assert selection.last_resort == []


def test_open_circuits_block_everything_named(specs: dict[str, EngineSpec]) -> None:
    circuits = {"duckduckgo": "open", "mojeek": "open"}
    selection = select_engines(specs, ["duckduckgo", "mojeek"], {}, circuits, T0)
    assert selection.usable == []
    assert selection.skipped == {"duckduckgo": "circuit_open", "mojeek": "circuit_open"}
    assert selection.all_blocked is True


def test_half_open_circuit_is_usable_for_its_probe(specs: dict[str, EngineSpec]) -> None:
    selection = select_engines(specs, ["mojeek"], {}, {"mojeek": "half_open"}, T0)
    assert selection.usable == ["mojeek"]
    assert selection.all_blocked is False


def test_unknown_and_disabled_engines_are_skipped(specs: dict[str, EngineSpec]) -> None:
    selection = select_engines(specs, ["nosuch", "bing", "mojeek"], {}, {}, T0)
    assert selection.usable == ["mojeek"]
    assert selection.skipped == {"nosuch": "unknown", "bing": "disabled"}
    assert selection.all_blocked is False


def test_nothing_named_is_not_all_blocked(specs: dict[str, EngineSpec]) -> None:
    selection = select_engines(specs, [], {}, {}, T0)
    assert selection.usable == []
    assert selection.all_blocked is False


def test_unknown_circuit_state_is_an_error(specs: dict[str, EngineSpec]) -> None:
    with pytest.raises(ValueError, match="unknown circuit state 'half-open'"):
        select_engines(specs, ["mojeek"], {}, {"mojeek": "half-open"}, T0)


def test_unhealthy_engine_is_held_for_the_hold_time_then_probed(
    specs: dict[str, EngineSpec],
) -> None:
    two = _run("mojeek", [(T0, "timeout", None), (T0 + 10, "timeout", None)])
    # Two outcomes are too little evidence to hold an engine back.
    assert is_unhealthy(two, T0 + 11) is False
    three = update(two, "mojeek", "timeout", None, T0 + 20)
    assert health_factor(three) == 0.0
    assert is_unhealthy(three, T0 + 21) is True
    held = select_engines(specs, ["mojeek", "wikipedia"], {"mojeek": three}, {}, T0 + 21)
    assert held.usable == ["wikipedia"]
    assert held.skipped == {"mojeek": "unhealthy"}
    still = select_engines(specs, ["mojeek"], {"mojeek": three}, {}, T0 + 20 + 1799)
    assert still.skipped == {"mojeek": "unhealthy"}
    assert still.all_blocked is True
    probe = select_engines(specs, ["mojeek", "wikipedia"], {"mojeek": three}, {}, T0 + 20 + 1800)
    assert probe.usable == ["wikipedia", "mojeek"]
    assert probe.weights == {"wikipedia": 1.0, "mojeek": 0.0}


def test_last_resort_is_held_while_regular_engines_are_usable(
    specs: dict[str, EngineSpec],
) -> None:
    selection = select_engines(specs, ["duckduckgo", "google"], {}, {}, T0)
    assert selection.usable == ["duckduckgo"]
    assert selection.skipped == {"google": "last_resort_held"}
    assert selection.last_resort == []


def test_last_resort_opens_when_harvest_is_short(specs: dict[str, EngineSpec]) -> None:
    named = ["google", "duckduckgo", "brave"]
    selection = select_engines(specs, named, {}, {}, T0, harvest_short=True)
    # Regular engines first; the slot after them by weight: brave 0.5, google 0.3.
    assert selection.usable == ["duckduckgo", "brave", "google"]
    assert selection.last_resort == ["brave", "google"]
    assert selection.skipped == {}


def test_last_resort_opens_when_no_regular_engine_is_usable(
    specs: dict[str, EngineSpec],
) -> None:
    circuits = {"duckduckgo": "open"}
    selection = select_engines(specs, ["duckduckgo", "google"], {}, circuits, T0)
    assert selection.usable == ["google"]
    assert selection.last_resort == ["google"]
    assert selection.skipped == {"duckduckgo": "circuit_open"}
    assert selection.all_blocked is False
    alone = select_engines(specs, ["google"], {}, {}, T0)
    assert alone.usable == ["google"]


def test_last_resort_never_through_an_open_circuit(specs: dict[str, EngineSpec]) -> None:
    circuits = {"google": "open"}
    selection = select_engines(specs, ["google"], {}, circuits, T0, harvest_short=True)
    assert selection.usable == []
    assert selection.skipped == {"google": "circuit_open"}
    assert selection.all_blocked is True


def test_last_resort_must_be_enabled(tmp_path: Path) -> None:
    shipped = load_engines(make_settings(tmp_path))
    assert shipped["google"].last_resort is True
    selection = select_engines(shipped, ["google"], {}, {}, T0, harvest_short=True)
    assert selection.skipped == {"google": "disabled"}
    assert selection.all_blocked is True


def test_last_resort_hourly_limit(specs: dict[str, EngineSpec]) -> None:
    assert LAST_RESORT_PER_HOUR == 3
    google: EngineHealth | None = None
    for at in (T0, T0 + 600, T0 + 1200):
        google = record_last_resort_use(google, "google", at)
    assert google is not None
    assert google.last_resort_uses == (T0, T0 + 600, T0 + 1200)
    assert last_resort_uses_in_window(google, T0 + 1300) == 3
    full = select_engines(specs, ["google"], {"google": google}, {}, T0 + 1300)
    assert full.usable == []
    assert full.skipped == {"google": "last_resort_limit"}
    assert full.all_blocked is True
    # An hour after the first use it leaves the window and a slot frees up.
    assert last_resort_uses_in_window(google, T0 + 3600) == 2
    freed = select_engines(specs, ["google"], {"google": google}, {}, T0 + 3600)
    assert freed.usable == ["google"]
    assert freed.last_resort == ["google"]


def test_record_last_resort_use_drops_uses_outside_the_window() -> None:
    health = update(None, "brave", "success", 100.0, T0)
    health = record_last_resort_use(health, "brave", T0)
    health = record_last_resort_use(health, "brave", T0 + 600)
    health = record_last_resort_use(health, "brave", T0 + 3700)
    assert health.last_resort_uses == (T0 + 600, T0 + 3700)
    # A use is not an outcome: the EMAs and their clock stay as they were.
    assert health.samples == 1
    assert health.updated_at == T0
    assert health.success_ema_1h == 1.0


def test_row_round_trip() -> None:
    health = _run("duckduckgo", [(T0, "success", 200.0), (T0 + 60, "captcha", 300.0)])
    health = record_last_resort_use(health, "duckduckgo", T0 + 90)
    row = health.to_row()
    assert row["updated_at"] == dt.datetime(2023, 11, 14, 22, 14, 20)
    assert row["last_resort_uses"] == [T0 + 90]
    assert row["samples"] == 2
    assert row["circuit_state"] == "closed"
    assert EngineHealth.from_row(row) == health


def test_row_from_storage_forms() -> None:
    aware = dt.datetime(2023, 11, 14, 23, 13, 20, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    old_row = {
        "engine": "mojeek",
        "success_ema_1h": 0.5,
        "success_ema_24h": 0.75,
        "captcha_ema": 0.0,
        "http_error_ema": 0.25,
        "latency_ema_ms": None,
        "circuit_state": "half_open",
        "updated_at": aware,
    }
    health = EngineHealth.from_row(old_row)
    assert health.updated_at == T0
    assert health.samples == 0
    assert health.last_resort_uses == ()
    assert health.latency_ema_ms is None
    assert health.circuit_state == "half_open"
    assert EngineHealth.from_row({**old_row, "updated_at": T0}).updated_at == T0
    with pytest.raises(ValueError, match="unknown circuit state 'broken'"):
        EngineHealth.from_row({**old_row, "circuit_state": "broken"})
