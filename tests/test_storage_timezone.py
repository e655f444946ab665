"""The graph database opens, and stores UTC, on a machine whose zone is not UTC."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import sys
from pathlib import Path
from lyra.storage.connection import open_database
con = open_database(Path(sys.argv[1]), memory_limit="256MB", threads=1)
print(con.cursor().execute("SELECT current_setting('TimeZone')").fetchone()[0])
"""


def test_opens_with_utc_sessions_under_a_non_utc_zone(tmp_path: Path) -> None:
    env = {**os.environ, "TZ": "Asia/Tokyo"}
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "tz.duckdb")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-1500:]
    assert proc.stdout.split() == ["UTC"]
