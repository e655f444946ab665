"""Loopback fixture web servers for the fetch and browser tests (ARCHITECTURE §9).

A `FixtureServer` is a real threaded HTTP server bound to a 127.0.0.0/8 address. It
serves the routes a test registers and records every request it receives (method,
path, headers, arrival time on the server's monotonic clock), so politeness and
refusal tests measure on the server side what actually arrived.

Import the fixtures into a test module or a conftest:
``from tests.conftest_web import fixture_server_fixture, fixture_server_factory_fixture``
(registered as ``fixture_server`` and ``fixture_server_factory``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest

CHUNK = 64 * 1024


@dataclass
class RequestRecord:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    at: float
    aborted: bool = False


@dataclass
class Route:
    """What the server answers on one path."""

    status: int = 200
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    stream_bytes: int = 0  # when > 0: send this many filler bytes instead of `body`
    delay: float = 0.0
    handler: Callable[[RequestRecord], Route] | None = None


class FixtureServer:
    """A threaded HTTP server on a loopback address with registered routes."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self._routes: dict[str, Route] = {}
        self._requests: list[RequestRecord] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer((host, 0), self._handler_class())
        self._httpd.daemon_threads = True
        self.port = int(self._httpd.server_address[1])
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    @property
    def origin(self) -> str:
        """``http://host:port`` of this server."""
        return f"http://{self.host}:{self.port}"

    def url(self, path: str) -> str:
        """Absolute URL of `path` on this server."""
        return self.origin + path

    def route(self, path: str, route: Route | None = None, /, **kwargs: object) -> Route:
        """Register (or replace) the answer for `path` (query strings are ignored when matching)."""
        value = route if route is not None else Route(**kwargs)  # type: ignore[arg-type]
        with self._lock:
            self._routes[path] = value
        return value

    @property
    def requests(self) -> list[RequestRecord]:
        """A snapshot of the requests received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def paths(self) -> list[str]:
        """Paths (with query) of the requests received so far."""
        return [r.path for r in self.requests]

    def wait_for(
        self, predicate: Callable[[list[RequestRecord]], bool], timeout: float = 10.0
    ) -> list[RequestRecord]:
        """Poll until `predicate(requests)` holds; raise TimeoutError otherwise."""
        deadline = time.monotonic() + timeout
        while True:
            snapshot = self.requests
            if predicate(snapshot):
                return snapshot
            if time.monotonic() >= deadline:
                raise TimeoutError(
                    f"condition not met within {timeout}s; saw {[r.path for r in snapshot]}"
                )
            time.sleep(0.01)

    def close(self) -> None:
        """Stop serving and release the port."""
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _record(self, record: RequestRecord) -> None:
        with self._lock:
            self._requests.append(record)

    def _lookup(self, path: str) -> Route | None:
        with self._lock:
            return self._routes.get(path) or self._routes.get(urlsplit(path).path)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_GET(self) -> None:
                record = RequestRecord(
                    method="GET",
                    path=self.path,
                    headers=dict(self.headers.items()),
                    at=time.monotonic(),
                )
                server._record(record)
                route = server._lookup(self.path)
                if route is None:
                    route = Route(status=404, body=b"not found", content_type="text/plain")
                if route.handler is not None:
                    route = route.handler(record)
                if route.delay:
                    time.sleep(route.delay)
                try:
                    self._answer(route)
                except (BrokenPipeError, ConnectionResetError):
                    # The client hung up (a size cap, an aborted subresource): that is
                    # an observation the tests read, not an error of the server.
                    record.aborted = True

            def _answer(self, route: Route) -> None:
                length = route.stream_bytes if route.stream_bytes > 0 else len(route.body)
                self.send_response(route.status)
                self.send_header("Content-Type", route.content_type)
                self.send_header("Content-Length", str(length))
                for name, value in route.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                if route.stream_bytes > 0:
                    sent = 0
                    block = b"x" * CHUNK
                    while sent < route.stream_bytes:
                        piece = block[: min(CHUNK, route.stream_bytes - sent)]
                        self.wfile.write(piece)
                        sent += len(piece)
                else:
                    self.wfile.write(route.body)

            def log_message(self, format: str, *args: object) -> None:
                return  # keep pytest output readable; requests are in server.requests

        return Handler


# Registered under the short names; the module-level names differ so that a test
# module importing them does not trip ruff F811 when a test takes the fixture.
@pytest.fixture(name="fixture_server")
def fixture_server_fixture() -> Iterator[FixtureServer]:
    """A fixture web server on 127.0.0.1 (function scope)."""
    server = FixtureServer("127.0.0.1")
    yield server
    server.close()


@pytest.fixture(name="fixture_server_factory")
def fixture_server_factory_fixture() -> Iterator[Callable[[str], FixtureServer]]:
    """Make fixture servers on any 127.0.0.0/8 address; all are closed after the test."""
    made: list[FixtureServer] = []

    def make(host: str = "127.0.0.1") -> FixtureServer:
        server = FixtureServer(host)
        made.append(server)
        return server

    yield make
    for server in made:
        server.close()


# The short names too, for a conftest that imports `fixture_server` literally.
fixture_server = fixture_server_fixture
fixture_server_factory = fixture_server_factory_fixture
