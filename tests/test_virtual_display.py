"""The private Xvfb of the headful browser: its display number is read through the
newline Xvfb writes after it, so the server is never killed by a pipe closed too early.

Xvfb writes the number and the newline to ``-displayfd`` in two calls and treats a
failed write as fatal ("Cannot write display number to fd N"). Reading once and closing
the pipe killed it whenever the reader ran between the two writes: on a loaded CI
machine three Xvfb in a row died so and the headful render failed (2026-12-04). A
stand-in server here writes its number, waits, then writes the newline and exits if
that write fails, as Xvfb does.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from lyra.jobs.virtual_display import XVFB_START_SECONDS, VirtualDisplay

SLOW_NEWLINE = """#!{python}
# a stand-in for Xvfb: -displayfd FD ...; the number, a pause, then the newline
import os, sys, time
fd = int(sys.argv[2])
os.write(fd, b"7")
time.sleep(0.5)
try:
    os.write(fd, b"\\n")
except OSError:
    sys.exit(3)  # Xvfb: "Cannot write display number to fd N", fatal
time.sleep(30)
"""

SILENT = """#!{python}
import time
time.sleep(30)
"""


def _server(tmp_path: Path, script: str) -> str:
    path = tmp_path / "fake-xvfb"
    path.write_text(script.format(python=sys.executable))
    path.chmod(0o755)
    return str(path)


async def test_the_server_outlives_the_newline_written_late(tmp_path: Path) -> None:
    display = VirtualDisplay(executable=_server(tmp_path, SLOW_NEWLINE))
    try:
        assert await display.start() == ":7"
        await asyncio.sleep(1.0)  # past the newline: a closed pipe would have killed it
        assert display.alive()
    finally:
        await display.stop()
    assert not display.alive()


async def test_a_server_that_reports_nothing_is_stopped_with_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("lyra.jobs.virtual_display.XVFB_START_SECONDS", 0.5)
    display = VirtualDisplay(executable=_server(tmp_path, SILENT))
    with pytest.raises(RuntimeError, match=r"reported no display within 0\.5s"):
        await display.start()
    assert not display.alive()
    assert XVFB_START_SECONDS == 10.0
