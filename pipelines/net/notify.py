"""Telling the person something: desktop notifications, their text, queue alerts.

Seed 003 §3.6.3: a notification carries a URL, a title and a reason, never a cookie or
a token. The AI client writes the message, so the text is redacted here before it
leaves for the desktop (secrets in query strings, ``Cookie:`` and ``Authorization:``
lines, ``token=...`` pairs, JWTs, passwords in URLs).

Everything but ``desktop_notify`` is pure.
"""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

log = logging.getLogger(__name__)

EVENTS: tuple[str, ...] = ("info", "warning", "auth_required", "decision_required")
"""Events notify_user accepts (seed 003 §3.2.1)."""

URGENCY: dict[str, str] = {
    "info": "low",
    "warning": "normal",
    "auth_required": "critical",
    "decision_required": "critical",
}
"""notify-send urgency per event: what waits on the person is critical."""

TITLES: dict[str, str] = {
    "info": "Lyra",
    "warning": "Lyra: warning",
    "auth_required": "Lyra: authentication needed",
    "decision_required": "Lyra: decision needed",
}

MAX_MESSAGE_CHARS = 500
"""Desktop notifications show a few lines; longer text is cut with an ellipsis."""

REDACTED = "[redacted]"
# C0/C1 controls (NUL, terminal escapes) and bidi overrides, which reorder what is read.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# A terminal escape sequence whole (CSI "ESC [ 31 m", OSC "ESC ] 0 ; title BEL"), so that
# no "[31m" is left behind when its ESC goes.
_ESCAPE_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, clearing
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: window titles, links
    r"|\x1b[@-~]"  # two-character sequences (ESC c resets the terminal)
    r"|\x9b[0-?]*[ -/]*[@-~]"  # the 8-bit CSI
)

# Query parameter names that carry credentials, matched case-insensitively. Distinctive
# words count anywhere in the name (csrfToken, PHPSESSID, JSESSIONID); short or common
# words only as the whole name or after _ - or . (api-key, X-Amz-Signature, but not
# keyword or monkey). OAuth's code and state count: in a URL they let someone finish
# the person's sign-in.
_SECRET_WORDS = re.compile(
    r"token|secret|passw|sessid|session|signature|apikey|api_key|credential|cookie|jwt",
    re.IGNORECASE,
)
_SHORT_SECRETS = (
    "key", "sig", "sid", "auth", "code", "state", "pass", "pwd", "otp", "nonce", "ticket",
)  # fmt: skip
_SECRET_NAME = re.compile(
    r"^(?:.*[_\-.])?(?:" + "|".join(_SHORT_SECRETS) + r")(?:id)?$", re.IGNORECASE
)
# In prose a narrower list: "status code: 403" or "state: done" are not secrets.
_PAIR = re.compile(
    r"\b((?:[A-Za-z0-9]+[_\-.])*(?:token|secret|password|passwd|pwd|api[_\-]?key|"
    r"session[_\-]?id|sid|jwt|credentials?|otp))(\s*[=:]\s*)([^\s&;,]+)",
    re.IGNORECASE,
)
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s<>\"']+")
_HEADER = re.compile(
    r"\b((?:set-)?cookie|authorization|proxy-authorization|x-api-key)\s*:\s*[^\n]*",
    re.IGNORECASE,
)
_BEARER = re.compile(r"\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{8,}", re.IGNORECASE)
_JWT = re.compile(r"\beyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]*")


def is_secret_name(name: str) -> bool:
    """Whether a query or form parameter name usually carries a credential."""
    name = name.strip()
    return bool(_SECRET_WORDS.search(name) or _SECRET_NAME.match(name))


def safe_url(url: str) -> str:
    """The URL with user info dropped and credential-like query values redacted."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return REDACTED
    netloc = host if port is None else f"{host}:{port}"
    query = urlencode(
        [
            (k, REDACTED if is_secret_name(k) else v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
        ],
        safe="[]",
    )
    # Fragments of sign-in pages carry OAuth tokens (#access_token=...).
    fragment = REDACTED if parts.fragment and "=" in parts.fragment else parts.fragment
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def redact(text: str) -> str:
    """The text with cookies, tokens, credentials and secret-bearing URLs redacted."""
    text = _URL.sub(lambda m: safe_url(m.group(0)), text)
    text = _HEADER.sub(lambda m: f"{m.group(1)}: {REDACTED}", text)
    text = _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    text = _JWT.sub(REDACTED, text)
    return _PAIR.sub(
        lambda m: m.group(0) if m.group(3) == REDACTED else f"{m.group(1)}{m.group(2)}{REDACTED}",
        text,
    )


def is_openable_url(url: str) -> bool:
    """Only http(s) URLs with a host are opened in the browser for the person."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def notification_text(
    event: str, message: str, *, url: str | None = None, auth_type: str | None = None
) -> tuple[str, str]:
    """(title, body) of a notification: the reason, then the URL and auth type, redacted."""
    if event not in EVENTS:
        raise ValueError(f"event must be one of {list(EVENTS)}, not {event!r}")
    # Control characters (NUL, terminal escapes) never reach a desktop or a terminal:
    # the AI client wrote this text, and page text may have shaped it.
    body = redact(" ".join(_CONTROL.sub(" ", _ESCAPE_SEQUENCE.sub(" ", message)).split()))
    if len(body) > MAX_MESSAGE_CHARS:
        body = body[: MAX_MESSAGE_CHARS - 1].rstrip() + "…"
    lines = [body]
    if url:
        lines.append(safe_url(url) + (f" ({auth_type})" if auth_type else ""))
    return TITLES[event], "\n".join(_CONTROL.sub("", line) for line in lines)


def queue_warnings(
    pending_count: int,
    high_priority_count: int,
    *,
    warning_pending: int,
    critical_pending: int,
    critical_high_priority: int,
) -> list[dict[str, str]]:
    """The auth queue alert of seed §3.6.1: one entry at the most severe level reached."""
    if pending_count >= critical_pending or high_priority_count >= critical_high_priority:
        return [
            {
                "level": "critical",
                "message": f"{pending_count} pages wait for authentication "
                f"({high_priority_count} high priority); ask the user to resolve them "
                "(get_auth_queue, resolve_auth)",
            }
        ]
    if pending_count >= warning_pending:
        return [
            {
                "level": "warning",
                "message": f"{pending_count} pages wait for authentication "
                f"({high_priority_count} high priority)",
            }
        ]
    return []


def notify_send_argv(
    executable: str, title: str, message: str, urgency: str, expire_seconds: float | None
) -> list[str]:
    """The notify-send argv; ``--`` keeps a title that starts with - from reading as an option."""
    argv = [executable, "--app-name=Lyra", f"--urgency={urgency}"]
    if expire_seconds is not None and expire_seconds > 0:
        argv.append(f"--expire-time={int(expire_seconds * 1000)}")
    return [*argv, "--", title, message]


def desktop_notify(
    title: str,
    message: str,
    urgency: str,
    command: str = "notify-send",
    timeout_s: float = 5,
    *,
    expire_seconds: float | None = None,
) -> bool:
    """Show a desktop notification; returns whether it was shown. Never raises.

    Skipped (False) when ``command`` is not installed, which is normal on servers;
    a notifier that hangs is killed after ``timeout_s``.
    """
    executable = shutil.which(command)
    if executable is None:
        log.info("no desktop notification: %r is not installed", command)
        return False
    if urgency not in ("low", "normal", "critical"):
        urgency = "normal"
    argv = notify_send_argv(executable, title, message, urgency, expire_seconds)
    # No pipes: a notifier that forks a helper holding our stdout would keep run()
    # waiting past its timeout.
    kwargs: dict[str, Any] = {
        "stdin": subprocess.DEVNULL,
        "stdout": subprocess.DEVNULL,
        "stderr": subprocess.DEVNULL,
        "timeout": timeout_s,
        "check": False,
    }
    try:
        done = subprocess.run(argv, **kwargs)
    except subprocess.TimeoutExpired:
        log.warning("desktop notification: %s did not finish in %.1f s", command, timeout_s)
        return False
    except OSError as exc:
        log.warning("desktop notification: %s failed to start: %s", command, exc)
        return False
    if done.returncode != 0:
        log.warning("desktop notification: %s exited with %d", command, done.returncode)
        return False
    return True
