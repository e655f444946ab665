"""A private Xvfb server for headful Chromium on a machine without a display."""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)

XVFB_START_SECONDS = 10.0


def _read_line(fd: int) -> bytes:
    """What Xvfb writes to its ``-displayfd``, through the newline (or to end of file).

    Xvfb writes the number and the newline in two calls, and a write that fails is fatal
    to it ("Cannot write display number to fd N"): a reader that stopped after the
    number and closed the pipe between the two writes killed the server it had just
    been told of. On a loaded machine that happened (CI, 2026-12-04: three Xvfb in a row
    exited that way and the headful browser never found its display)."""
    data = b""
    while b"\n" not in data:
        chunk = os.read(fd, 64)
        if not chunk:
            break
        data += chunk
    return data


class VirtualDisplay:
    """A private Xvfb server, so a headful Chromium runs on a machine without a display.

    ``-displayfd`` lets Xvfb take the first free display number itself and report it
    once it accepts connections: no race with another Xvfb picking the same number
    between our check and its start, and no polling for the socket.
    """

    def __init__(self, executable: str = "Xvfb", log_path: Path | None = None) -> None:
        self.executable = executable
        self.log_path = log_path
        self.name: str | None = None
        self._process: asyncio.subprocess.Process | None = None

    async def start(self) -> str:
        """Start Xvfb; return its display name (``:N``)."""
        read_fd, write_fd = os.pipe()
        log_file = None
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            log_file = open(self.log_path, "ab")  # noqa: SIM115 - handed to the child
        try:
            self._process = await asyncio.create_subprocess_exec(
                self.executable,
                "-displayfd",
                str(write_fd),
                "-screen",
                "0",
                "1280x1024x24",
                "-nolisten",
                "tcp",
                pass_fds=(write_fd,),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=log_file if log_file is not None else asyncio.subprocess.DEVNULL,
            )
        except BaseException:
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)
            if log_file is not None:
                log_file.close()
        reading = asyncio.ensure_future(asyncio.to_thread(_read_line, read_fd))
        try:
            data = await asyncio.wait_for(asyncio.shield(reading), XVFB_START_SECONDS)
        except TimeoutError:
            await self.stop()  # Xvfb's end of the pipe closes: the read returns b"".
            await reading
            data = b""
        finally:
            if reading.done():
                os.close(read_fd)
        number = data.decode("ascii", "replace").strip()
        if not number.isdigit():
            await self.stop()
            raise RuntimeError(
                f"{self.executable} reported no display within {XVFB_START_SECONDS}s "
                "(install xvfb, or set DISPLAY / browser.cdp_url)"
            )
        self.name = f":{number}"
        return self.name

    def alive(self) -> bool:
        """Whether the Xvfb process is still running."""
        return self._process is not None and self._process.returncode is None

    def log_tail(self, limit: int = 2000) -> str:
        """The end of Xvfb's own log (why it exited), if it has one."""
        if self.log_path is None or not self.log_path.is_file():
            return ""
        return self.log_path.read_bytes()[-limit:].decode("utf-8", "replace")

    async def stop(self) -> None:
        """Stop Xvfb (terminate, then kill after 5 s). Idempotent."""
        process, self._process = self._process, None
        self.name = None
        if process is None or process.returncode is not None:
            return
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), 5)
        except TimeoutError:
            process.kill()
            await process.wait()
