"""A loopback HTTP server speaking enough of the Ollama API for tests.

There is no Ollama binary on these machines (ENVIRONMENT.md), so tests exercise the real
``ollama`` client against this stand-in: ``GET /api/tags``, ``GET /api/version``,
``POST /api/generate`` and ``POST /api/chat``, non-streaming (a request with
``stream: true`` gets its whole answer as one NDJSON line with ``done: true``, which is
what the client reads as a one-chunk stream). Unknown models get Ollama's 404 reply.

It records every request body so tests can check what the client sent (system prompt,
JSON format, options), and can delay replies to exercise time limits.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

Responder = Callable[[str, dict[str, Any]], str]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # A handler sleeping on a delay must not hold up stop(); it watches the stop event.
    block_on_close = False


class FakeOllama:
    """Ollama API stand-in on 127.0.0.1 and a free port; use as a context manager."""

    def __init__(
        self,
        models: Sequence[str] = ("qwen2.5:3b",),
        response: str = "ok",
        *,
        responder: Responder | None = None,
        delay_seconds: float = 0.0,
    ) -> None:
        self.models = list(models)
        self.response = response
        self.responder = responder
        self.delay_seconds = delay_seconds
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = _Server(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """Base URL for ``ollama.Client(host=...)``."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> FakeOllama:
        """Start serving in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port."""
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeOllama:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _reply_text(self, path: str, body: dict[str, Any]) -> str:
        if self.responder is not None:
            return self.responder(path, body)
        return self.response

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            """Routes of the Ollama API this fake speaks."""

            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                """Silenced: test output stays quiet; requests are in fake.requests."""
                return

            def _send(self, status: int, payload: dict[str, Any], ndjson: bool = False) -> None:
                data = json.dumps(payload).encode("utf-8") + (b"\n" if ndjson else b"")
                self.send_response(status)
                ctype = "application/x-ndjson" if ndjson else "application/json; charset=utf-8"
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                """/api/tags and /api/version."""
                with fake._lock:
                    fake.requests.append((self.path, {}))
                if self.path == "/api/tags":
                    now = datetime.now(UTC).isoformat()
                    models = [
                        {
                            "name": name,
                            "model": name,
                            "modified_at": now,
                            "size": 1_000_000,
                            "digest": f"{i:064x}",
                            "details": {"format": "gguf", "family": "fake"},
                        }
                        for i, name in enumerate(fake.models)
                    ]
                    self._send(200, {"models": models})
                elif self.path == "/api/version":
                    self._send(200, {"version": "0.0.0-fake"})
                else:
                    self._send(404, {"error": f"no route {self.path}"})

            def do_POST(self) -> None:
                """/api/generate and /api/chat, one complete answer."""
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake._lock:
                    fake.requests.append((self.path, body))
                if self.path not in ("/api/generate", "/api/chat"):
                    self._send(404, {"error": f"no route {self.path}"})
                    return
                model = str(body.get("model", ""))
                if model not in fake.models:
                    self._send(404, {"error": f'model "{model}" not found, try pulling it first'})
                    return
                if fake.delay_seconds and fake._stopping.wait(fake.delay_seconds):
                    return
                text = fake._reply_text(self.path, body)
                payload: dict[str, Any] = {
                    "model": model,
                    "created_at": datetime.now(UTC).isoformat(),
                    "done": True,
                    "done_reason": "stop",
                    "prompt_eval_count": 1,
                    "eval_count": 1,
                }
                if self.path == "/api/generate":
                    payload["response"] = text
                else:
                    payload["message"] = {"role": "assistant", "content": text}
                self._send(200, payload, ndjson=bool(body.get("stream")))

        return Handler
