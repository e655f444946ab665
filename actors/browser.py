"""BrowserActor: the one owner of Chromium (ARCHITECTURE §2, §3 step 6).

Renders JavaScript pages and SERPs with Playwright, takes a screenshot of each, and
keeps every connection the browser makes inside the network rules of §2 (SSRF guard,
`network.allowed_hosts`), subresources included. Two layers do that:

1. A Playwright route on the context checks each request before Chromium sends it
   and aborts refused ones (fast, and the refusals are reported per render).
2. A guard proxy inside this actor that Chromium must use for every connection
   (context-level proxy; Playwright forces loopback through it too). A route
   handler is not called for redirect hops, preconnects, WebSockets, workers or
   out-of-process frames; the proxy sees all of them, refuses what `net_guard`
   refuses, and connects only to the addresses it checked, so DNS rebinding cannot
   move a connection after the check. Measured here: without the proxy a 302 from
   an allowed host to a refused one reached the refused host (both for a
   subresource and for a navigation).

The proxy forwards one plain-HTTP request per client connection (``Connection:
close`` upstream, the client socket closed after the response): a browser reuses
proxy connections across hosts, and a kept-alive tunnel would carry the next
request to whichever host the first one named.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import ray
from playwright.async_api import Browser, Playwright, Request, Route, async_playwright
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from lyra.config.settings import Settings
from lyra.pipelines.net_guard import GuardedTarget, TargetRefused, check_url

log = logging.getLogger(__name__)

CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    # Without these Chromium calls Google on start (ENVIRONMENT.md).
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
LOCAL_SCHEMES = frozenset({"data", "blob", "about"})
MAX_HEAD_BYTES = 64 * 1024
PIPE_CHUNK = 64 * 1024
REFUSED_HEADER = "X-Lyra-Refused"
# After "load", wait this long at most for the network to go quiet (late JS content).
SETTLE_SECONDS = 2.0


class GuardProxy:
    """A loopback HTTP(S) forward proxy that applies `net_guard.check_url` to every connection."""

    def __init__(
        self, *, allow_private: bool, allowed_hosts: list[str], connect_timeout: float
    ) -> None:
        self.allow_private = allow_private
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


@ray.remote(max_restarts=2, max_task_retries=0)
class BrowserActor:
    """Owns one Chromium (launched, or the user's Chrome over CDP) and renders pages with it.

    Fault behaviour: ``max_task_retries=0`` because `render` is not retried: a page
    that crashed the browser process would crash it again, and every retry would
    burn a restart. ``max_restarts=2`` lets a crash caused by one page cost that
    page only. State rebuilt in ``__init__``: none is kept; Chromium is launched
    lazily on the next `render`. Idempotent: `status`, `close`. Not idempotent:
    `render` (a new request to the site and a new screenshot file).
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._proxy: GuardProxy | None = None
        self._proxy_url: str | None = None
        self._lock = asyncio.Lock()
        self._renders = 0
        self.screenshot_dir = settings.home_dir / "screenshots"

    async def render(self, url: str) -> dict[str, Any]:
        """Load `url` in a fresh context and let its JS run; return the render dict."""
        started = time.monotonic()
        result: dict[str, Any] = {
            "url": url,
            "final_url": url,
            "status": None,
            "html": "",
            "title": "",
            "screenshot_path": None,
            "fetched_at": datetime.now(UTC).isoformat(),
            "elapsed_ms": 0.0,
            "blocked_requests": [],
            "error": None,
        }
        try:
            await asyncio.to_thread(self._check, url)
        except TargetRefused as exc:
            result["error"] = f"target_refused:{exc.reason}"
            return result
        async with self._lock:
            await self._ensure_browser()
            await self._render_into(url, result)
        result["elapsed_ms"] = round((time.monotonic() - started) * 1000, 1)
        return result

    async def status(self) -> dict[str, Any]:
        """Whether Chromium is up, how it is connected, and counters. Idempotent."""
        return {
            "connected": self._browser is not None and self._browser.is_connected(),
            "mode": "cdp" if self.settings.browser.cdp_url else "launched",
            "renders": self._renders,
            "proxy_refused": len(self._proxy.refused) if self._proxy else 0,
            "proxy_forwarded": self._proxy.forwarded if self._proxy else 0,
        }

    async def close(self) -> None:
        """Close (over CDP: disconnect from) the browser, stop the guard proxy. Idempotent."""
        async with self._lock:
            await self._shutdown()

    # -- internals -----------------------------------------------------------------

    def _check(self, url: str) -> GuardedTarget:
        network = self.settings.network
        return check_url(
            url,
            allow_private=network.allow_private_targets,
            allowed_hosts=list(network.allowed_hosts),
        )

    async def _ensure_browser(self) -> None:
        if self._browser is not None and self._browser.is_connected():
            return
        await self._shutdown()
        network = self.settings.network
        self._proxy = GuardProxy(
            allow_private=network.allow_private_targets,
            allowed_hosts=list(network.allowed_hosts),
            connect_timeout=self.settings.fetch.connect_timeout_seconds,
        )
        self._proxy_url = await self._proxy.start()
        self._playwright = await async_playwright().start()
        cfg = self.settings.browser
        if cfg.cdp_url:
            self._browser = await self._playwright.chromium.connect_over_cdp(cfg.cdp_url)
        else:
            args = [*CHROMIUM_ARGS, "--headless=new"] if cfg.headless else list(CHROMIUM_ARGS)
            self._browser = await self._playwright.chromium.launch(
                executable_path=cfg.executable_path, headless=cfg.headless, args=args
            )

    async def _shutdown(self) -> None:
        if self._browser is not None:
            with contextlib.suppress(PlaywrightError):
                await self._browser.close()
            self._browser = None
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None
        if self._proxy is not None:
            await self._proxy.stop()
            self._proxy = None

    async def _render_into(self, url: str, result: dict[str, Any]) -> None:
        assert self._browser is not None and self._proxy is not None and self._proxy_url is not None
        blocked: list[dict[str, str]] = result["blocked_requests"]
        refused_before = len(self._proxy.refused)
        verdicts: dict[tuple[str, str], str | None] = {}

        async def guard_route(route: Route, request: Request) -> None:
            reason = await self._route_verdict(request.url, verdicts)
            if reason is None:
                await route.continue_()
                return
            blocked.append({"url": request.url, "reason": reason, "layer": "route"})
            await route.abort("blockedbyclient")

        context = await self._browser.new_context(
            proxy={"server": self._proxy_url},
            service_workers="block",
            viewport={"width": 1280, "height": 900},
        )
        try:
            await context.route("**/*", guard_route)
            page = await context.new_page()
            page.set_default_navigation_timeout(
                self.settings.browser.navigation_timeout_seconds * 1000
            )
            try:
                response = await page.goto(url, wait_until="load")
            except PlaywrightError as exc:
                result["error"] = "navigation_failed:" + str(exc).splitlines()[0][:200]
                return
            with contextlib.suppress(PlaywrightTimeoutError):
                # Best effort: late JS content; "load" already happened.
                await page.wait_for_load_state("networkidle", timeout=SETTLE_SECONDS * 1000)
            result["final_url"] = page.url
            if response is not None:
                result["status"] = response.status
                refused = await response.header_value(REFUSED_HEADER)
                if refused:
                    result["error"] = f"target_refused:{refused}"
            result["title"] = await page.title()
            result["html"] = await page.content()
            result["screenshot_path"] = str(await self._screenshot(page, url))
            self._renders += 1
        finally:
            await context.close()
            for item in self._proxy.refused[refused_before:]:
                blocked.append({**item, "layer": "proxy"})

    async def _route_verdict(
        self, url: str, verdicts: dict[tuple[str, str], str | None]
    ) -> str | None:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme in LOCAL_SCHEMES:
            return None
        # Keyed by authority (userinfo included), so one DNS lookup serves a host's
        # many subresources within one render.
        key = (scheme, parts.netloc.lower())
        if key not in verdicts:
            try:
                # getaddrinfo blocks; keep Playwright's event loop free.
                await asyncio.to_thread(self._check, url)
                verdicts[key] = None
            except TargetRefused as exc:
                verdicts[key] = exc.reason
        return verdicts[key]

    async def _screenshot(self, page: Any, url: str) -> Path:
        self.screenshot_dir.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
        name = f"{hashlib.sha256(url.encode('utf-8')).hexdigest()[:16]}-{stamp}.png"
        path = self.screenshot_dir / name
        await page.screenshot(path=str(path), full_page=True)
        return Path(path)
