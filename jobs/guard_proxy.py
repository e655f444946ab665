"""The in-actor guard proxy Chromium must use for every connection (see jobs/chromium.py).

It refuses what `net_guard` refuses and connects only to the addresses it checked, so
redirect hops, preconnects, WebSockets, workers and out-of-process frames, which a
Playwright route never sees, stay inside the network rules too; so does a BLOCKED
domain of domains.yaml (`refuse`), which a rendered page never reaches either.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from urllib.parse import urlsplit

from lyra.pipelines.net.net_guard import GuardedTarget, TargetRefused, check_url

log = logging.getLogger(__name__)

MAX_HEAD_BYTES = 64 * 1024
PIPE_CHUNK = 64 * 1024
REFUSED_HEADER = "X-Lyra-Refused"


class GuardProxy:
    """A loopback HTTP(S) forward proxy that applies `net_guard.check_url` to every connection."""

    def __init__(
        self,
        *,
        allow_private: bool,
        allowed_hosts: list[str],
        connect_timeout: float,
        refuse: Callable[[str], str | None] | None = None,
    ) -> None:
        self.allow_private = allow_private
        # A further refusal (a BLOCKED domain): the reason, or None to let it through.
        self.refuse = refuse
        self.allowed_hosts = list(allowed_hosts)
        self.connect_timeout = connect_timeout
        self.refused: list[dict[str, str]] = []
        self.forwarded = 0
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> str:
        """Listen on 127.0.0.1 (a free port); return the proxy server URL."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=MAX_HEAD_BYTES)
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def stop(self) -> None:
        """Stop listening and cut the connections in flight."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for task in list(self._tasks):
            task.cancel()

    def _guard(self, url: str) -> GuardedTarget:
        reason = self.refuse(url) if self.refuse is not None else None
        if reason is not None:
            raise TargetRefused(reason, url)
        return check_url(url, allow_private=self.allow_private, allowed_hosts=self.allowed_hosts)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._handle(reader, writer)
        except (
            ConnectionError,
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
            TimeoutError,
        ) as exc:
            # One broken browser connection is not the actor's failure.
            log.debug("guard proxy connection ended: %s", exc)
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=30)
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3:
            await _reply(writer, 400, "bad request line")
            return
        method, target, version = parts
        headers = [
            tuple(x.strip() for x in line.split(":", 1)) for line in lines[1:] if ":" in line
        ]
        if method.upper() == "CONNECT":
            await self._tunnel(target, reader, writer)
        else:
            await self._forward(method, target, version, headers, reader, writer)  # type: ignore[arg-type]

    async def _open(
        self, url: str, writer: asyncio.StreamWriter
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        try:
            checked = await asyncio.to_thread(self._guard, url)
        except TargetRefused as exc:
            self.refused.append({"url": url, "reason": exc.reason})
            await _reply(
                writer, 403, f"refused by Lyra net guard: {exc.reason}", refused=exc.reason
            )
            return None
        last_error: OSError | None = None
        for address in checked.addresses:
            try:
                connection = await asyncio.wait_for(
                    asyncio.open_connection(address, checked.port), timeout=self.connect_timeout
                )
            except (OSError, TimeoutError) as exc:
                last_error = exc if isinstance(exc, OSError) else OSError(str(exc))
                continue
            self.forwarded += 1
            return connection
        await _reply(writer, 502, f"upstream unreachable: {last_error}")
        return None

    async def _tunnel(
        self, authority: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        # The scheme only supplies a default port; a tunnel names its port.
        upstream = await self._open(f"https://{authority}/", writer)
        if upstream is None:
            return
        up_reader, up_writer = upstream
        writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        await writer.drain()
        try:
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        finally:
            up_writer.close()

    async def _forward(
        self,
        method: str,
        target: str,
        version: str,
        headers: list[tuple[str, str]],
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        parts = urlsplit(target)
        if not parts.scheme or not parts.netloc:
            await _reply(writer, 400, "absolute URL required")
            return
        upstream = await self._open(target, writer)
        if upstream is None:
            return
        up_reader, up_writer = upstream
        origin_form = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        kept = [
            (k, v)
            for k, v in headers
            if k.lower()
            not in ("connection", "proxy-connection", "proxy-authorization", "keep-alive")
        ]
        out = f"{method} {origin_form} {version}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in kept)
        up_writer.write((out + "Connection: close\r\n\r\n").encode("latin-1"))
        length = next((v for k, v in kept if k.lower() == "content-length"), "0")
        chunked = any(k.lower() == "transfer-encoding" and "chunked" in v.lower() for k, v in kept)
        try:
            if chunked:
                # A streamed upload: relayed until the response ends. Browsers send
                # these only for fetch() with a ReadableStream body.
                sender = asyncio.ensure_future(_pipe(reader, up_writer))
                try:
                    await _pipe(up_reader, writer)
                finally:
                    sender.cancel()
                return
            # Exactly the body and nothing more: bytes after it would be the
            # browser's next request on this connection, possibly for another host.
            remaining = int(length) if length.isdigit() else 0
            while remaining > 0:
                chunk = await reader.read(min(PIPE_CHUNK, remaining))
                if not chunk:
                    break
                up_writer.write(chunk)
                remaining -= len(chunk)
            await up_writer.drain()
            await _pipe(up_reader, writer)
        finally:
            up_writer.close()


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while True:
            chunk = await source.read(PIPE_CHUNK)
            if not chunk:
                break
            sink.write(chunk)
            await sink.drain()
    except ConnectionError:
        return
    finally:
        if sink.can_write_eof() and not sink.is_closing():
            with contextlib.suppress(OSError):
                sink.write_eof()


async def _reply(
    writer: asyncio.StreamWriter, status: int, text: str, refused: str | None = None
) -> None:
    body = text.encode("utf-8")
    extra = f"{REFUSED_HEADER}: {refused}\r\n" if refused else ""
    writer.write(
        (
            f"HTTP/1.1 {status} {'Forbidden' if status == 403 else 'Error'}\r\n"
            f"Content-Type: text/plain; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
            f"{extra}Connection: close\r\n\r\n"
        ).encode("latin-1")
        + body
    )
    await writer.drain()
