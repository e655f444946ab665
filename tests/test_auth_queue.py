"""The auth queue: repository functions on DuckDB, then AuthService over a real GraphActor."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
import ray
from ray.exceptions import RayTaskError

from lyra.actors.graph import GraphActor
from lyra.jobs.auth_service import AuthService
from lyra.pipelines.errors import LyraError
from lyra.storage import auth_queue as aq
from lyra.storage.connection import open_database
from tests.conftest import make_settings
from tests.test_notify import fake_notifier, recorded


@pytest.fixture
def db(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = open_database(tmp_path / "lyra.duckdb", memory_limit="512MB", threads=2)
    yield con
    con.close()


def _put(
    con: duckdb.DuckDBPyConnection,
    url: str,
    *,
    task: str | None = "t1",
    search: str | None = "s1",
    domain: str = "nih.gov",
    kind: str = "captcha",
    priority: str = "normal",
) -> tuple[dict[str, Any], bool]:
    return aq.enqueue(
        con, task_id=task, search_id=search, url=url, domain=domain, auth_type=kind,
        priority=priority,
    )  # fmt: skip


def _events(con: duckdb.DuckDBPyConnection, kind: str) -> list[tuple[Any, ...]]:
    return con.execute(
        "SELECT cause_id, task_id, search_id, payload FROM event_log WHERE kind = ? "
        "ORDER BY ts, id",
        [kind],
    ).fetchall()


# --------------------------------------------------------------------------- repository


def test_one_pending_item_per_task_and_url(db: duckdb.DuckDBPyConnection) -> None:
    first, created = _put(db, "https://www.nih.gov/a", search="s1", domain="NIH.gov.")
    assert created is True
    assert first["id"].startswith("auth_")
    assert (first["domain"], first["status"], first["blocking_searches"]) == (
        "nih.gov", "pending", ["s1"],
    )  # fmt: skip
    again, created = _put(db, "https://www.nih.gov/a", search="s2")
    assert created is False
    assert again["id"] == first["id"]
    assert again["blocking_searches"] == ["s1", "s2"]
    # A retried call (same search) is idempotent: no second event, same searches.
    retry, created = _put(db, "https://www.nih.gov/a", search="s1")
    assert (retry["id"], created, retry["blocking_searches"]) == (first["id"], False, ["s1", "s2"])
    assert [(e[0], e[2]) for e in _events(db, aq.ENQUEUED)] == [
        (first["id"], "s1"),
        (first["id"], "s2"),
    ]
    assert json.loads(_events(db, aq.ENQUEUED)[1][3])["joined"] is True

    other_task, created = _put(db, "https://www.nih.gov/a", task="t2", search="s9")
    assert created is True
    assert other_task["id"] != first["id"]
    no_task, created = _put(db, "https://www.nih.gov/a", task=None, search=None)
    assert created is True
    assert no_task["blocking_searches"] == []
    assert _put(db, "https://www.nih.gov/a", task=None, search="s5")[0]["id"] == no_task["id"]
    count = db.execute("SELECT count(*) FROM auth_queue").fetchone()
    assert count == (3,)


def test_a_resolved_url_can_be_queued_again(db: duckdb.DuckDBPyConnection) -> None:
    first, _ = _put(db, "https://www.nih.gov/a")
    assert [r["id"] for r in aq.resolve(db, "failed", auth_id=first["id"])] == [first["id"]]
    second, created = _put(db, "https://www.nih.gov/a", search="s3")
    assert created is True
    assert second["id"] != first["id"]
    assert second["blocking_searches"] == ["s3"]
    item = aq.get_item(db, first["id"])
    assert item is not None
    assert item["status"] == "failed"


def test_pending_order_and_priority_floor(db: duckdb.DuckDBPyConnection) -> None:
    low, _ = _put(db, "https://a.example/1", domain="a.example", priority="low")
    normal, _ = _put(db, "https://a.example/2", domain="a.example")
    high1, _ = _put(db, "https://b.example/1", domain="b.example", priority="high")
    high2, _ = _put(db, "https://b.example/2", domain="b.example", priority="high", task="t2")
    by = {
        f: [r["id"] for r in aq.list_pending(db, priority_filter=f)]
        for f in ("all", "normal", "high")
    }
    assert by == {
        "all": [high1["id"], high2["id"], normal["id"], low["id"]],
        "normal": [high1["id"], high2["id"], normal["id"]],
        "high": [high1["id"], high2["id"]],
    }
    assert [r["id"] for r in aq.list_pending(db, task_id="t2")] == [high2["id"]]
    assert [r["id"] for r in aq.list_pending(db, domain="A.example")] == [normal["id"], low["id"]]
    with pytest.raises(ValueError, match="priority_filter"):
        aq.list_pending(db, priority_filter="low")


def test_grouping_and_summary(db: duckdb.DuckDBPyConnection) -> None:
    first, _ = _put(db, "https://www.nih.gov/1", kind="cloudflare", priority="high")
    _put(db, "https://www.nih.gov/2", task="t2", kind="captcha")
    _put(db, "https://www.nih.gov/3", kind="captcha", priority="high")
    _put(db, "https://jst.go.jp/1", domain="jst.go.jp", kind="login", priority="low")
    items = aq.list_pending(db)
    assert aq.group_by_domain(items) == [
        {"domain": "nih.gov", "pending_count": 3, "high_priority_count": 2,
         "affected_tasks": ["t1", "t2"], "auth_types": ["captcha", "cloudflare"]},
        {"domain": "jst.go.jp", "pending_count": 1, "high_priority_count": 0,
         "affected_tasks": ["t1"], "auth_types": ["login"]},
    ]  # fmt: skip
    assert aq.group_by_type(items) == [
        {"auth_type": "captcha", "pending_count": 2, "domains": ["nih.gov"]},
        {"auth_type": "cloudflare", "pending_count": 1, "domains": ["nih.gov"]},
        {"auth_type": "login", "pending_count": 1, "domains": ["jst.go.jp"]},
    ]
    assert aq.summary(db, None) == {
        "pending_count": 4,
        "high_priority_count": 2,
        "domains": ["nih.gov", "jst.go.jp"],
        "oldest_queued_at": aq.iso_z(first["queued_at"]),
        "by_auth_type": {"captcha": 2, "cloudflare": 1, "login": 1},
    }
    assert aq.summary(db, "t2") == {
        "pending_count": 1,
        "high_priority_count": 0,
        "domains": ["nih.gov"],
        "oldest_queued_at": aq.public_item(aq.list_pending(db, task_id="t2")[0])["queued_at"],
        "by_auth_type": {"captcha": 1},
    }
    assert aq.summary(db, "t9") == {
        "pending_count": 0,
        "high_priority_count": 0,
        "domains": [],
        "oldest_queued_at": None,
        "by_auth_type": {},
    }


def test_resolve_by_item_and_by_domain(db: duckdb.DuckDBPyConnection) -> None:
    a, _ = _put(db, "https://www.nih.gov/1")
    b, _ = _put(db, "https://www.nih.gov/2", task="t2", search="s7")
    c, _ = _put(db, "https://www.nih.gov/3", search="s2")
    other, _ = _put(db, "https://jst.go.jp/1", domain="jst.go.jp")

    done = aq.resolve(db, "resolved", auth_id=a["id"])
    assert [(r["id"], r["status"]) for r in done] == [(a["id"], "resolved")]
    assert isinstance(done[0]["resolved_at"], dt.datetime)
    assert aq.resolve(db, "resolved", auth_id=a["id"]) == []

    skipped = aq.resolve(db, "skipped", domain="nih.gov", task_id="t1")
    assert [r["id"] for r in skipped] == [c["id"]]
    rest = aq.resolve(db, "resolved", domain="NIH.GOV")
    assert [(r["id"], r["blocking_searches"]) for r in rest] == [(b["id"], ["s7"])]
    assert aq.resolve(db, "resolved", domain="nih.gov") == []
    assert [r["id"] for r in aq.list_pending(db)] == [other["id"]]

    statuses = dict(db.execute("SELECT id, status FROM auth_queue").fetchall())
    assert statuses == {
        a["id"]: "resolved", b["id"]: "resolved", c["id"]: "skipped", other["id"]: "pending",
    }  # fmt: skip
    resolved_events = _events(db, "auth_resolved")
    assert [(e[0], e[1], e[2]) for e in resolved_events] == [
        (a["id"], "t1", "s1"),
        (b["id"], "t2", "s7"),
    ]
    payload = json.loads(resolved_events[0][3])
    assert (payload["by"], payload["domain"], payload["url"]) == (
        "item", "nih.gov", "https://www.nih.gov/1",
    )  # fmt: skip
    assert payload["waited_seconds"] >= 0
    assert [e[0] for e in _events(db, "auth_skipped")] == [c["id"]]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"status": "pending", "auth_id": "x"}, "status must be one of"),
        ({"status": "resolved"}, "exactly one of"),
        ({"status": "resolved", "auth_id": "x", "domain": "d"}, "exactly one of"),
    ],
)
def test_resolve_refuses_bad_arguments(
    db: duckdb.DuckDBPyConnection, kwargs: dict[str, Any], match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        aq.resolve(db, **kwargs)


def test_enqueue_refuses_unknown_priority(db: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(ValueError, match="priority must be one of"):
        _put(db, "https://a.example/", priority="medium")
    assert db.execute("SELECT count(*) FROM auth_queue").fetchone() == (0,)


def test_iso_z() -> None:
    assert aq.iso_z(dt.datetime(2026, 1, 15, 10, 0, 0, 123456)) == "2026-01-15T10:00:00Z"
    tokyo = dt.timezone(dt.timedelta(hours=9))
    assert aq.iso_z(dt.datetime(2026, 1, 15, 19, 0, tzinfo=tokyo)) == "2026-01-15T10:00:00Z"
    assert aq.iso_z(None) is None


# --------------------------------------------------------------------------- AuthService


@pytest.fixture
def notifier(tmp_path: Path) -> Path:
    return fake_notifier(tmp_path / "bin")


@pytest.fixture
def service(ray_session: None, lyra_home: Path, notifier: Path) -> Iterator[AuthService]:
    """An AuthService over a fresh GraphActor (own database), as the Orchestrator builds it."""
    settings = make_settings(lyra_home, auth={"notify_command": str(notifier)})
    graph = GraphActor.remote(settings)

    async def call(method: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return await getattr(graph, method).remote(*args, **kwargs)
        except RayTaskError as exc:  # like Orchestrator._call: the original exception
            raise exc.cause from None

    yield AuthService(settings, call)
    ray.kill(graph)


class Recorder:
    """A fake on_resolved / open_url hook that records its calls."""

    def __init__(self, result: dict[str, Any] | None = None, fail: bool = False) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.result = result or {}
        self.fail = fail

    async def on_resolved(self, domain: str, items: list[dict[str, Any]]) -> dict[str, Any]:
        self.calls.append((domain, [i["id"] for i in items]))
        if self.fail:
            raise RuntimeError("browser gone")
        return self.result

    async def open_url(self, url: str) -> dict[str, Any]:
        self.calls.append((url,))
        if self.fail:
            raise RuntimeError("browser gone")
        return {"opened": True}


async def _seed(service: AuthService) -> dict[str, dict[str, Any]]:
    items = {}
    for key, task, search, url, domain, kind, priority in [
        ("a", "t1", "s1", "https://www.nih.gov/a", "nih.gov", "cloudflare", "high"),
        ("a2", "t1", "s2", "https://www.nih.gov/a", "nih.gov", "cloudflare", "high"),
        ("b", "t2", "s3", "https://www.nih.gov/b", "nih.gov", "captcha", "normal"),
        ("c", "t1", "s1", "https://jst.go.jp/c", "", "login", "low"),
    ]:
        items[key] = await service.enqueue(
            task_id=task, search_id=search, url=url, domain=domain, auth_type=kind,
            priority=priority,
        )  # fmt: skip
    return items


@pytest.mark.ray
async def test_service_queue_groupings(service: AuthService) -> None:
    items = await _seed(service)
    assert items["a2"]["id"] == items["a"]["id"]
    assert (items["a"]["created"], items["a2"]["created"]) == (True, False)
    assert items["c"]["domain"] == "jst.go.jp"  # no domain given: the URL's host

    flat = await service.queue(None, "none", "all")
    assert flat["total_pending"] == 3
    first = flat["queue"][0]
    assert first == {
        "id": items["a"]["id"], "url": "https://www.nih.gov/a", "domain": "nih.gov",
        "auth_type": "cloudflare", "priority": "high", "queued_at": items["a"]["queued_at"],
        "blocking_searches": ["s1", "s2"], "task_id": "t1", "search_id": "s1",
        "status": "pending",
    }  # fmt: skip
    assert first["queued_at"].endswith("Z")
    assert [q["id"] for q in flat["queue"]] == [items[k]["id"] for k in ("a", "b", "c")]
    normal = await service.queue("t1", "none", "normal")
    assert [q["id"] for q in normal["queue"]] == [items["a"]["id"]]

    by_domain = await service.queue(None, "domain", "all")
    assert by_domain == {
        "domains": [
            {"domain": "nih.gov", "pending_count": 2, "high_priority_count": 1,
             "affected_tasks": ["t1", "t2"], "auth_types": ["captcha", "cloudflare"]},
            {"domain": "jst.go.jp", "pending_count": 1, "high_priority_count": 0,
             "affected_tasks": ["t1"], "auth_types": ["login"]},
        ],
        "total_domains": 2,
        "total_pending": 3,
    }  # fmt: skip
    by_type = await service.queue("t1", "type", "all")
    assert by_type == {
        "types": [
            {"auth_type": "cloudflare", "pending_count": 1, "domains": ["nih.gov"]},
            {"auth_type": "login", "pending_count": 1, "domains": ["jst.go.jp"]},
        ],
        "total_pending": 2,
    }


@pytest.mark.ray
@pytest.mark.parametrize(
    ("args", "field"),
    [
        (("t1", "site", "all"), "group_by"),
        (("t1", "none", "low"), "priority_filter"),
    ],
)
async def test_service_queue_refuses_bad_options(
    service: AuthService, args: tuple[str, str, str], field: str
) -> None:
    with pytest.raises(LyraError) as err:
        await service.queue(*args)
    assert (err.value.code, err.value.field) == ("INVALID_PARAMS", field)


@pytest.mark.ray
@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"url": "javascript:alert(1)"}, "url"),
        ({"url": "file:///etc/passwd"}, "url"),
        ({"priority": "urgent"}, "priority"),
        ({"auth_type": " "}, "auth_type"),
    ],
)
async def test_service_enqueue_refuses_bad_items(
    service: AuthService, overrides: dict[str, str], field: str
) -> None:
    item = {"url": "https://nih.gov/x", "domain": "nih.gov", "auth_type": "captcha",
            "priority": "high", **overrides}  # fmt: skip
    with pytest.raises(LyraError) as err:
        await service.enqueue(task_id="t1", search_id="s1", **item)
    assert (err.value.code, err.value.field) == ("INVALID_PARAMS", field)


@pytest.mark.ray
async def test_service_resolve_item_runs_the_hook(service: AuthService) -> None:
    items = await _seed(service)
    hook = Recorder({"session_stored": True, "requeued_searches": ["s_new", "s_new"]})
    out = await service.resolve(
        "item",
        {"auth_id": items["a"]["id"], "status": "resolved", "session_data": {"cookie": "x"}},
        on_resolved=hook.on_resolved,
    )
    assert out == {
        "target": "item", "status": "resolved", "auth_id": items["a"]["id"],
        "domain": "nih.gov", "resolved_count": 1, "affected_tasks": ["t1"],
        "unblocked_searches": ["s1", "s2"], "session_stored": True,
        "requeued_searches": ["s_new"], "warnings": [],
    }  # fmt: skip
    assert hook.calls == [("nih.gov", [items["a"]["id"]])]

    with pytest.raises(LyraError) as again:
        await service.resolve(
            "item", {"auth_id": items["a"]["id"], "status": "skipped"},
            on_resolved=hook.on_resolved,
        )  # fmt: skip
    assert (again.value.code, again.value.field) == ("INVALID_PARAMS", "data.auth_id")
    assert "already resolved" in again.value.message
    assert len(hook.calls) == 1


@pytest.mark.ray
async def test_service_resolve_domain(service: AuthService) -> None:
    items = await _seed(service)
    await service.enqueue(
        task_id="t3", search_id="s8", url="https://www.nih.gov/z", domain="nih.gov",
        auth_type="captcha", priority="normal",
    )  # fmt: skip
    hook = Recorder()
    only_t3 = await service.resolve(
        "domain", {"domain": "NIH.gov", "status": "failed", "task_id": "t3"},
        on_resolved=hook.on_resolved,
    )  # fmt: skip
    assert (only_t3["resolved_count"], only_t3["affected_tasks"]) == (1, ["t3"])
    out = await service.resolve(
        "domain", {"domain": "nih.gov", "status": "skipped"}, on_resolved=hook.on_resolved
    )
    assert out == {
        "target": "domain", "status": "skipped", "domain": "nih.gov", "resolved_count": 2,
        "affected_tasks": ["t1", "t2"], "unblocked_searches": ["s1", "s2", "s3"],
        "session_stored": False, "requeued_searches": [], "warnings": [],
    }  # fmt: skip
    assert hook.calls == []  # skipped / failed: nothing to carry over
    remaining = await service.queue(None, "none", "all")
    assert [q["id"] for q in remaining["queue"]] == [items["c"]["id"]]

    with pytest.raises(LyraError) as none_left:
        await service.resolve(
            "domain", {"domain": "nih.gov", "status": "resolved"}, on_resolved=hook.on_resolved
        )
    assert (none_left.value.code, none_left.value.field) == ("INVALID_PARAMS", "data.domain")


@pytest.mark.ray
async def test_service_resolve_reports_a_failed_hook(service: AuthService) -> None:
    items = await _seed(service)
    hook = Recorder(fail=True)
    out = await service.resolve(
        "domain", {"domain": "jst.go.jp", "status": "resolved"}, on_resolved=hook.on_resolved
    )
    assert (out["resolved_count"], out["session_stored"], out["requeued_searches"]) == (
        1,
        False,
        [],
    )
    assert out["warnings"] == ["session transfer or re-queue failed: RuntimeError: browser gone"]
    assert hook.calls == [("jst.go.jp", [items["c"]["id"]])]
    assert (await service.queue("t1", "none", "all"))["total_pending"] == 1


@pytest.mark.ray
@pytest.mark.parametrize(
    ("target", "data", "field"),
    [
        ("page", {"auth_id": "x", "status": "resolved"}, "target"),
        ("item", {"auth_id": "x", "status": "done"}, "data.status"),
        ("item", {"status": "resolved"}, "data.auth_id"),
        ("item", {"auth_id": "auth_nope", "status": "resolved"}, "data.auth_id"),
        ("domain", {"status": "skipped"}, "data.domain"),
        ("domain", {"domain": "nowhere.example", "status": "skipped"}, "data.domain"),
    ],
)
async def test_service_resolve_refuses(
    service: AuthService, target: str, data: dict[str, Any], field: str
) -> None:
    hook = Recorder()
    with pytest.raises(LyraError) as err:
        await service.resolve(target, data, on_resolved=hook.on_resolved)
    assert (err.value.code, err.value.field) == ("INVALID_PARAMS", field)
    assert hook.calls == []


@pytest.mark.ray
async def test_service_notify_auth_required_opens_the_queued_url(
    service: AuthService, notifier: Path
) -> None:
    item = await service.enqueue(
        task_id="t1", search_id="s1", url="https://www.nih.gov/a?id=7&token=secret1",
        domain="nih.gov", auth_type="cloudflare", priority="high",
    )  # fmt: skip
    browser = Recorder()
    out = await service.notify(
        "auth_required",
        {"message": "Cloudflare check on nih.gov; Cookie: cf_clearance=abc",
         "auth_id": item["id"], "timeout_seconds": 30},
        open_url=browser.open_url,
    )  # fmt: skip
    assert out["notification_id"].startswith("n_")
    assert (out["shown"], out["channels"], out["opened_url"]) == (
        True, ["desktop", "browser"], "https://www.nih.gov/a?id=7&token=secret1",
    )  # fmt: skip
    assert browser.calls == [("https://www.nih.gov/a?id=7&token=secret1",)]
    text = (
        "Cloudflare check on nih.gov; Cookie: [redacted]\n"
        "https://www.nih.gov/a?id=7&token=[redacted] (cloudflare)"
    )
    assert (out["title"], out["message"]) == ("Lyra: authentication needed", text)
    assert recorded(notifier) == [
        ["--app-name=Lyra", "--urgency=critical", "--expire-time=30000", "--",
         "Lyra: authentication needed", text],
    ]  # fmt: skip


@pytest.mark.ray
async def test_service_notify_info_does_not_open_and_reports_open_failures(
    service: AuthService,
) -> None:
    browser = Recorder(fail=True)
    info = await service.notify(
        "info", {"message": "3 searches done", "url": "https://a.example/"},
        open_url=browser.open_url,
    )  # fmt: skip
    assert (info["shown"], info["channels"], info["opened_url"]) == (True, ["desktop"], None)
    assert browser.calls == []
    failed = await service.notify(
        "auth_required", {"message": "login", "url": "https://a.example/login"},
        open_url=browser.open_url,
    )  # fmt: skip
    assert (failed["channels"], failed["opened_url"]) == (["desktop"], None)
    assert failed["warnings"] == ["the browser could not open the page: RuntimeError"]
    assert browser.calls == [("https://a.example/login",)]


@pytest.mark.ray
@pytest.mark.parametrize(
    ("event", "payload", "field"),
    [
        ("shout", {"message": "x"}, "event"),
        ("info", {"message": "  "}, "payload.message"),
        ("info", {}, "payload.message"),
        ("auth_required", {"message": "x", "url": "javascript:alert(1)"}, "payload.url"),
        ("auth_required", {"message": "x", "auth_id": "auth_nope"}, "payload.auth_id"),
        ("info", {"message": "x", "timeout_seconds": -1}, "payload.timeout_seconds"),
    ],
)
async def test_service_notify_refuses(
    service: AuthService, event: str, payload: dict[str, Any], field: str
) -> None:
    browser = Recorder()
    with pytest.raises(LyraError) as err:
        await service.notify(event, payload, open_url=browser.open_url)
    assert (err.value.code, err.value.field) == ("INVALID_PARAMS", field)
    assert browser.calls == []
