"""Hostile loopback servers for the fetch layer's bad-input tests (ARCHITECTURE §3 step 6, §9).

`http.server` cannot misbehave on purpose: it always finishes its headers, never
resets a connection, never drips a body. `HostileServer` is a raw threaded TCP
server on a 127.0.0.0/8 address (port 0) that reads one request head per
connection, records it with its arrival time on the server's monotonic clock, and
hands the socket to a *behaviour* that writes whatever bytes the test wants: a
well-formed response, a slowloris drip, a reset mid-body, a gzip bomb, an SSH banner.

Every response closes its connection (``Connection: close``), so each request the
client makes is one accepted connection and one `Hit`, and the hit log is a faithful
count of what reached the server. `Hit.bytes_sent` counts body bytes the kernel
accepted from the server and `Hit.aborted` says the client hung up first: that is
how a test sees, on the server side, that a size cap really stopped the transfer.

The behaviours are plain factories so a test states its case in one line:
``HostileServer("127.0.0.2", {"/slow": slowloris(interval=1.0)})``.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from urllib.parse import urlsplit

MAX_HEAD_BYTES = 64 * 1024
CHUNK = 64 * 1024
SSH_BANNER = b"SSH-2.0-OpenSSH_9.6\r\n"


@dataclass
class Hit:
    """One connection as the server saw it (for an HTTP request: one request)."""

    method: str
    path: str
    headers: dict[str, str]
    at: float
    bytes_sent: int = 0
    aborted: bool = False
    done: threading.Event = field(default_factory=threading.Event, repr=False)


Behaviour = Callable[[socket.socket, Hit, threading.Event], None]


def _status_line(status: int) -> bytes:
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Unknown"
    return f"HTTP/1.1 {status} {phrase}\r\n".encode("ascii")


def response_head(status: int, headers: Mapping[str, str] | list[tuple[str, str]]) -> bytes:
    """Status line and headers, always with ``Connection: close``."""
    items = list(headers.items()) if isinstance(headers, Mapping) else list(headers)
    lines = [f"{name}: {value}\r\n".encode("latin-1") for name, value in items]
    return _status_line(status) + b"".join(lines) + b"Connection: close\r\n\r\n"


def _send_body(conn: socket.socket, hit: Hit, data: bytes) -> None:
    """Send body bytes, counting what the kernel took; a hang-up marks the hit aborted."""
    try:
        conn.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        hit.aborted = True
        raise
    hit.bytes_sent += len(data)


def respond(
    status: int = 200,
    body: bytes = b"",
    content_type: str | None = "text/html; charset=utf-8",
    headers: Mapping[str, str] | None = None,
) -> Behaviour:
    """A complete, well-formed response (the hostility, if any, is in the values)."""

    def behave(conn: socket.socket, hit: Hit, stop: threading.Event) -> None:
        items: list[tuple[str, str]] = []
        if content_type is not None:
            items.append(("Content-Type", content_type))
        items.append(("Content-Length", str(len(body))))
        items.extend((headers or {}).items())
        conn.sendall(response_head(status, items))
        _send_body(conn, hit, body)

    return behave


def redirect(location: str, status: int = 302) -> Behaviour:
    """A redirect to `location` (relative or absolute, not checked: that is the point)."""
    return respond(status, b"", "text/plain", {"Location": location})


def slowloris(interval: float = 1.0, declared: int = 10_000, first: bytes = b"<") -> Behaviour:
    """Headers at once, then one body byte every `interval` seconds until the client leaves."""

    def behave(conn: socket.socket, hit: Hit, stop: threading.Event) -> None:
        conn.sendall(
            response_head(
                200, {"Content-Type": "text/html; charset=utf-8", "Content-Length": str(declared)}
            )
        )
        _send_body(conn, hit, first)
        while hit.bytes_sent < declared and not stop.wait(interval):
            _send_body(conn, hit, b"x")

    return behave


def reset_mid_body(declared: int = 200_000, sent: int = 20_000) -> Behaviour:
    """Promise `declared` bytes, send `sent`, then close with SO_LINGER 0 (a TCP RST)."""

    def behave(conn: socket.socket, hit: Hit, stop: threading.Event) -> None:
        conn.sendall(
            response_head(
                200, {"Content-Type": "text/html; charset=utf-8", "Content-Length": str(declared)}
            )
        )
        _send_body(conn, hit, b"a" * sent)
        # Let the bytes leave before the reset: a RST discards unsent data, and the
        # case under test is "part of the body arrived, then the connection died".
        time.sleep(0.2)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    return behave


def stream(
    total: int, content_type: str = "text/html; charset=utf-8", fill: bytes = b"x"
) -> Behaviour:
    """A `total`-byte body generated on the fly (never held in memory) with its Content-Length."""

    def behave(conn: socket.socket, hit: Hit, stop: threading.Event) -> None:
        conn.sendall(
            response_head(200, {"Content-Type": content_type, "Content-Length": str(total)})
        )
        block = fill * (CHUNK // len(fill))
        while hit.bytes_sent < total and not stop.is_set():
            _send_body(conn, hit, block[: min(len(block), total - hit.bytes_sent)])

    return behave


@dataclass(frozen=True)
class GzipBomb:
    """A gzip member of `expanded` zero bytes, built from one repeated deflate block.

    After a full flush the compressor forgets its history, so compressing the same
    block again yields the same bytes: the stream is header+first, then `repeat` over
    and over, then an empty final block and the trailer (CRC-32, size mod 2**32).
    Nothing near `expanded` bytes is ever held in memory, and the CRC is computed only
    if a client reads that far.
    """

    block: int
    count: int
    first: bytes
    repeat: bytes

    @classmethod
    def build(cls, expanded: int, block: int = 1 << 20) -> GzipBomb:
        """A bomb of `expanded` bytes (rounded down to whole blocks, at least one)."""
        zeros = bytes(block)
        compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
        first = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
        repeat = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
        again = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
        if again != repeat:
            raise RuntimeError("deflate blocks after a full flush are not identical")
        return cls(block=block, count=max(1, expanded // block), first=first, repeat=repeat)

    @property
    def expanded(self) -> int:
        """Bytes the member expands to."""
        return self.block * self.count

    @property
    def compressed(self) -> int:
        """Bytes on the wire."""
        return len(self.first) + (self.count - 1) * len(self.repeat) + 10

    def chunks(self) -> Iterator[bytes]:
        """The compressed member, piece by piece."""
        yield self.first
        for _ in range(self.count - 1):
            yield self.repeat
        crc = 0
        zeros = bytes(self.block)
        for _ in range(self.count):
            crc = zlib.crc32(zeros, crc)
        # An empty final fixed-Huffman block, then CRC-32 and ISIZE (RFC 1952 §2.3.1).
        yield b"\x03\x00" + struct.pack("<II", crc, self.expanded & 0xFFFFFFFF)


def gzip_bomb(
    bomb: GzipBomb, content_type: str = "text/html; charset=utf-8", with_length: bool = True
) -> Behaviour:
    """`Content-Encoding: gzip` with a body that expands to `bomb.expanded` bytes.

    Without `with_length` the body is delimited by closing the connection, so a
    client learns the wire size only as it reads (no ratio can be set up front).
    """

    def behave(conn: socket.socket, hit: Hit, stop: threading.Event) -> None:
        headers = {"Content-Type": content_type, "Content-Encoding": "gzip"}
        if with_length:
            headers["Content-Length"] = str(bomb.compressed)
        conn.sendall(response_head(200, headers))
        for piece in bomb.chunks():
            if stop.is_set():
                return
            _send_body(conn, hit, piece)

    return behave


def not_http(data: bytes = SSH_BANNER, hold_open: bool = False) -> Behaviour:
    """Answer an HTTP request with bytes of another protocol; then close or keep silent."""

    def behave(conn: socket.socket, hit: Hit, stop: threading.Event) -> None:
        _send_body(conn, hit, data)
        if hold_open:
            _drain_until_closed(conn, stop)

    return behave


def _drain_until_closed(conn: socket.socket, stop: threading.Event) -> None:
    conn.settimeout(0.2)
    while not stop.is_set():
        try:
            if not conn.recv(4096):
                return
        except TimeoutError:
            continue
        except OSError:
            return


def _robots_404() -> Behaviour:
    return respond(404, b"no robots.txt here", "text/plain")


class HostileServer:
    """A raw TCP server on a loopback address; each connection gets one behaviour.

    `routes` maps request paths (query ignored) to behaviours; unknown paths get a
    404, and ``/robots.txt`` a 404 (RFC 9309: allow all) unless routed. With
    `greeting`, the server speaks first on every connection (as an SSH server does)
    and never reads a request: set `hold_open` to keep such a connection silent
    until the client leaves.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        routes: Mapping[str, Behaviour] | None = None,
        *,
        greeting: bytes | None = None,
        hold_open: bool = False,
    ) -> None:
        self.host = host
        self._routes: dict[str, Behaviour] = {"/robots.txt": _robots_404(), **(routes or {})}
        self._greeting = greeting
        self._hold_open = hold_open
        self._hits: list[Hit] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._conns: set[socket.socket] = set()
        self._listener = socket.create_server((host, 0), backlog=64)
        self.port = int(self._listener.getsockname()[1])
        self._thread = threading.Thread(target=self._accept_loop, daemon=True)
        self._thread.start()

    @property
    def origin(self) -> str:
        """``http://host:port`` of this server."""
        return f"http://{self.host}:{self.port}"

    def url(self, path: str) -> str:
        """Absolute URL of `path` on this server."""
        return self.origin + path

    def route(self, path: str, behaviour: Behaviour) -> None:
        """Register (or replace) the behaviour for `path`."""
        with self._lock:
            self._routes[path] = behaviour

    @property
    def hits(self) -> list[Hit]:
        """A snapshot of the connections received so far, in arrival order."""
        with self._lock:
            return list(self._hits)

    def paths(self) -> list[str]:
        """Request paths (with query) received so far; "" for a greeting connection."""
        return [h.path for h in self.hits]

    def wait_done(self, timeout: float = 10.0) -> list[Hit]:
        """Wait until every connection so far has been handled to its end."""
        deadline = time.monotonic() + timeout
        for hit in self.hits:
            if not hit.done.wait(max(0.0, deadline - time.monotonic())):
                raise TimeoutError(f"{hit.path} still being served after {timeout}s")
        return self.hits

    def close(self) -> None:
        """Stop accepting, wake every behaviour, close every connection."""
        self._stop.set()
        # close() alone does not wake a thread blocked in accept(); shutdown() does.
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        with self._lock:
            conns = list(self._conns)
        for conn in conns:
            # A connection its handler closed meanwhile has nothing left to shut.
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        self._thread.join(timeout=5)

    def __enter__(self) -> HostileServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _addr = self._listener.accept()
            except OSError:
                return  # listener closed
            with self._lock:
                self._conns.add(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        hit: Hit | None = None
        try:
            if self._greeting is not None:
                hit = self._record("", "", {})
                _send_body(conn, hit, self._greeting)
                if self._hold_open:
                    _drain_until_closed(conn, self._stop)
                return
            head = _read_head(conn)
            if head is None:
                return
            method, path, headers = head
            hit = self._record(method, path, headers)
            with self._lock:
                behaviour = self._routes.get(path) or self._routes.get(urlsplit(path).path)
            if behaviour is None:
                behaviour = respond(404, b"not found", "text/plain")
            behaviour(conn, hit, self._stop)
        except (BrokenPipeError, ConnectionResetError):
            if hit is not None:
                hit.aborted = True
        except OSError:
            pass  # the server closed this connection in close()
        finally:
            try:
                conn.close()
            finally:
                with self._lock:
                    self._conns.discard(conn)
                if hit is not None:
                    hit.done.set()

    def _record(self, method: str, path: str, headers: dict[str, str]) -> Hit:
        hit = Hit(method=method, path=path, headers=headers, at=time.monotonic())
        with self._lock:
            self._hits.append(hit)
        return hit


def _read_head(conn: socket.socket) -> tuple[str, str, dict[str, str]] | None:
    """Method, path and headers of one request head; None if the client sent no head."""
    conn.settimeout(5.0)
    data = b""
    while b"\r\n\r\n" not in data:
        piece = conn.recv(4096)
        if not piece:
            return None
        data += piece
        if len(data) > MAX_HEAD_BYTES:
            return None
    conn.settimeout(None)
    lines = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        return None
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip()] = value.strip()
    return parts[0], parts[1], headers
