"""Desktop notifications through a fake notify-send, their redaction and the queue alerts."""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path

import pytest

from lyra.pipelines.net import notify as nt

AUTH_SETTINGS = {"warning_pending": 3, "critical_pending": 5, "critical_high_priority": 2}


def fake_notifier(folder: Path, *, exit_code: int = 0, sleep_s: float = 0.0) -> Path:
    """An executable named notify-send that appends its argv (JSON) to argv.jsonl."""
    folder.mkdir(parents=True, exist_ok=True)
    record = folder / "argv.jsonl"
    script = folder / "notify-send"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, sys, time\n"
        f"with open({str(record)!r}, 'a', encoding='utf-8') as f:\n"
        "    f.write(json.dumps(sys.argv[1:]) + '\\n')\n"
        f"time.sleep({sleep_s})\n"
        f"sys.exit({exit_code})\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return script


def recorded(script: Path) -> list[list[str]]:
    lines = (script.parent / "argv.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


# --------------------------------------------------------------------------- desktop_notify


def test_notify_send_found_on_path_gets_argv_without_a_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = fake_notifier(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{script.parent}{os.pathsep}{os.environ['PATH']}")
    title = "-t 1; rm -rf ~"  # a shell or option parser would act on this
    message = "Login needed at https://jstage.jst.go.jp/x $(whoami) `id`"
    assert nt.desktop_notify(title, message, "critical", expire_seconds=12) is True
    assert recorded(script) == [
        ["--app-name=Lyra", "--urgency=critical", "--expire-time=12000", "--", title, message]
    ]


def test_absolute_command_and_unknown_urgency(tmp_path: Path) -> None:
    script = fake_notifier(tmp_path / "bin")
    assert nt.desktop_notify("Lyra", "hello", "extreme", command=str(script)) is True
    assert recorded(script) == [["--app-name=Lyra", "--urgency=normal", "--", "Lyra", "hello"]]


def test_missing_notifier_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert nt.desktop_notify("Lyra", "hello", "low") is False
    assert nt.desktop_notify("Lyra", "hello", "low", command=str(tmp_path / "nope")) is False


def test_failing_notifier_reports_not_shown(tmp_path: Path) -> None:
    script = fake_notifier(tmp_path / "bin", exit_code=3)
    assert nt.desktop_notify("Lyra", "hello", "low", command=str(script)) is False
    assert recorded(script) == [["--app-name=Lyra", "--urgency=low", "--", "Lyra", "hello"]]


def test_hanging_notifier_is_cut_off_at_the_timeout(tmp_path: Path) -> None:
    script = fake_notifier(tmp_path / "bin", sleep_s=60)
    started = time.monotonic()
    shown = nt.desktop_notify("Lyra", "hello", "low", command=str(script), timeout_s=1.0)
    waited = time.monotonic() - started
    assert shown is False
    # The bound is the 60 s the script would sleep, not a speed target.
    assert waited < 30


# --------------------------------------------------------------------------- redaction table

REDACTIONS = [
    # (input, output)
    ("Please sign in to continue", "Please sign in to continue"),
    ("HTTP status code: 403 on the page", "HTTP status code: 403 on the page"),
    (
        "open https://example.org/login?next=/a&token=abc123",
        "open https://example.org/login?next=%2Fa&token=[redacted]",
    ),
    (
        "https://user:hunter2@example.org/p",
        "https://example.org/p",
    ),
    (
        "https://s3.example.com/f?X-Amz-Signature=deadbeef&X-Amz-Credential=AKIA1&page=2",
        "https://s3.example.com/f?X-Amz-Signature=[redacted]&X-Amz-Credential=[redacted]&page=2",
    ),
    (
        "https://id.example.com/cb?code=4/0AX&state=xyz&lang=en",
        "https://id.example.com/cb?code=[redacted]&state=[redacted]&lang=en",
    ),
    ("https://app.example.com/#access_token=ya29.a0", "https://app.example.com/#[redacted]"),
    (
        "https://example.org/a?api_key=K&SESSIONID=S",
        "https://example.org/a?api_key=[redacted]&SESSIONID=[redacted]",
    ),
    ("Cookie: sid=abc; cf_clearance=xyz", "Cookie: [redacted]"),
    ("set-cookie: __cf_bm=1.2.3; path=/", "set-cookie: [redacted]"),
    ("Authorization: Bearer eyJhbGciOi.eyJzdWIi.sig", "Authorization: [redacted]"),
    ("use bearer abcdefghijklmnop now", "use bearer [redacted] now"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc leaked", "jwt [redacted] leaked"),
    ("password=hunter2 and api-key: K-123", "password=[redacted] and api-key: [redacted]"),
    ("session_id = 77aa, monkey: banana", "session_id = [redacted], monkey: banana"),
]


@pytest.mark.parametrize(("text", "expected"), REDACTIONS)
def test_redact(text: str, expected: str) -> None:
    assert nt.redact(text) == expected


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("token", True),
        ("access_token", True),
        ("X-Amz-Signature", True),
        ("api-key", True),
        ("sessionid", True),
        ("PHPSESSID", True),
        ("JSESSIONID", True),
        ("csrfToken", True),
        ("oauth_state", True),
        ("assessment", False),
        ("q", False),
        ("page", False),
        ("keyword", False),
        ("monkey", False),
        ("id", False),
    ],
)
def test_secret_parameter_names(name: str, secret: bool) -> None:
    assert nt.is_secret_name(name) is secret


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://example.org/login", True),
        ("http://127.0.0.1:8080/a", True),
        ("file:///etc/passwd", False),
        ("javascript:alert(1)", False),
        ("data:text/html,<script>1</script>", False),
        ("chrome://settings", False),
        ("https:///nohost", False),
        ("http://[::1", False),
        ("example.org/login", False),
    ],
)
def test_only_http_urls_are_opened(url: str, ok: bool) -> None:
    assert nt.is_openable_url(url) is ok


def test_notification_text_is_reason_url_and_type() -> None:
    title, body = nt.notification_text(
        "auth_required",
        "CAPTCHA   on a primary source;\nCookie: cf_clearance=abc",
        url="https://www.jstage.jst.go.jp/article?id=7&token=t0k",
        auth_type="captcha",
    )
    assert title == "Lyra: authentication needed"
    assert body == (
        "CAPTCHA on a primary source; Cookie: [redacted]\n"
        "https://www.jstage.jst.go.jp/article?id=7&token=[redacted] (captcha)"
    )


def test_notification_text_is_cut_and_refuses_unknown_events() -> None:
    title, body = nt.notification_text("info", "x" * 2000)
    assert title == "Lyra"
    assert len(body) == nt.MAX_MESSAGE_CHARS
    assert body.endswith("…")
    with pytest.raises(ValueError, match="event must be one of"):
        nt.notification_text("shout", "hello")


# --------------------------------------------------------------------------- queue alerts


@pytest.mark.parametrize(
    ("pending", "high", "level"),
    [
        (0, 0, None),
        (2, 1, None),
        (3, 0, "warning"),
        (4, 1, "warning"),
        (5, 0, "critical"),
        (2, 2, "critical"),
        (9, 9, "critical"),
    ],
)
def test_queue_warning_levels(pending: int, high: int, level: str | None) -> None:
    warnings = nt.queue_warnings(pending, high, **AUTH_SETTINGS)
    assert [w["level"] for w in warnings] == ([] if level is None else [level])


def test_queue_warning_message_names_the_counts() -> None:
    assert nt.queue_warnings(5, 1, **AUTH_SETTINGS) == [
        {
            "level": "critical",
            "message": "5 pages wait for authentication (1 high priority); ask the user to "
            "resolve them (get_auth_queue, resolve_auth)",
        }
    ]
    assert nt.queue_warnings(3, 0, **AUTH_SETTINGS) == [
        {"level": "warning", "message": "3 pages wait for authentication (0 high priority)"}
    ]


def test_notification_text_carries_no_control_characters() -> None:
    """NUL and terminal escapes from the client's text never reach the desktop: an
    escape sequence goes whole, not only its ESC."""
    _, body = nt.notification_text(
        "auth_required",
        "line1\x00 line2\x1b]0;PWNED\x07\x1b[31mRED\x1b[0m \u202eevil \x1bc\x9b2J[1] kept",
        url="https://ex.com/a\x1b]0;PWN\x07b",
    )
    assert body == "line1 line2 RED evil [1] kept\nhttps://ex.com/a]0;PWNb"
