"""`lyra serve --http`: the MCP SDK's streamable HTTP app behind a bearer token.

The token is a random secret kept in ``LYRA_HOME/run/http_token`` (mode 0600, made on
the first ``serve --http``); a client sends ``Authorization: Bearer <token>``. Every
other request is answered 401 before it reaches the MCP app. The server binds
127.0.0.1 (ARCHITECTURE §2, L1); another address is refused unless
``http.allow_non_loopback`` is set in the configuration (decision 0033).
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

TOKEN_FILE = "http_token"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def token_path(home: Path) -> Path:
    """Where the bearer token of this Lyra home lives."""
    return home / "run" / TOKEN_FILE


def ensure_token(home: Path) -> str:
    """The home's bearer token, made (0600, 256 random bits) when there is none."""
    path = token_path(home)
    if path.is_file():
        token = path.read_text(encoding="ascii").strip()
        if token:
            return token
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(token + "\n")
    return token


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and ``localhost``."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class BearerTokenApp:
    """ASGI wrapper: HTTP requests without ``Authorization: Bearer <token>`` get 401."""

    def __init__(self, app: App, token: str) -> None:
        self._app = app
        self._expected = f"Bearer {token}".encode("ascii")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = b""
            for name, value in scope.get("headers", []):
                if name.lower() == b"authorization":
                    given = bytes(value)
            if not hmac.compare_digest(given, self._expected):
                body = (
                    b'{"error": "unauthorized", "message": "send Authorization: Bearer '
                    b'<token>; the token is in LYRA_HOME/run/http_token"}'
                )
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"www-authenticate", b'Bearer realm="lyra"'),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self._app(scope, receive, send)
