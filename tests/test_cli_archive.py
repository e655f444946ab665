"""`lyra archive verify`: every WARC under LYRA_HOME/warc read back, damage named, exit code.

The archives are written by the real `WarcStore`; the damaged one is a copy with
bytes flipped inside its last gzip member, as a bad disk or a half-copied file
leaves it. The third-party warcio test archives are read in place (symlinked into a
temporary LYRA_HOME, never copied) and their record counts checked against the
upstream expectations.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from lyra.mcp_bridge.cli import main
from lyra.storage.warc import WarcStore, verify
from tests.conftest import REPO, SHARED

LYRA = str(Path(sys.executable).with_name("lyra"))
WHEN = datetime(2026, 11, 21, 12, 0, 0, tzinfo=UTC)
REAL_WARCS = SHARED / "realworld" / "warc" / "warcio"


def write_site(home: Path, prefix: str, pages: int) -> tuple[Path, int]:
    """A WARC of `pages` exchanges; the file and the offset of its last response."""
    store = WarcStore(home / "warc", prefix=prefix)
    path, offset = Path(), 0
    for i in range(pages):
        path, offset = store.write_exchange(
            f"https://{prefix}/page-{i}",
            {"User-Agent": "LyraTest"},
            200,
            [("Content-Type", "text/html; charset=utf-8")],
            f"<html><body><p>Page {i} of {prefix}.</p></body></html>".encode() * 20,
            fetched_at=WHEN,
        )
    return path, offset


def test_sound_archive_verifies_with_exit_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_site(tmp_path, "example.org", 3)
    write_site(tmp_path, "example.net", 1)

    code = main(["archive", "verify", "--home", str(tmp_path)])

    # warcinfo + (request, response) per exchange.
    assert capsys.readouterr().out.splitlines() == [
        "example.net-20261121.warc.gz: 3 records, 0 errors",
        "example.org-20261121.warc.gz: 7 records, 0 errors",
        "2 files, 10 records, 0 errors",
    ]
    assert code == 0


def test_damaged_archive_is_named_and_exits_1(tmp_path: Path) -> None:
    write_site(tmp_path, "example.org", 3)
    bad, last_response = write_site(tmp_path, "bad.example", 2)
    data = bytearray(bad.read_bytes())
    for i in range(last_response + 40, last_response + 48):
        data[i] ^= 0xFF
    bad.write_bytes(bytes(data))
    problems = verify(bad)
    env = {k: v for k, v in os.environ.items() if not k.startswith("LYRA_")}

    # Through the installed console script, as a user runs it.
    proc = subprocess.run(
        [LYRA, "archive", "verify", "--home", str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        check=False,
    )

    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    # The records before the damaged member: warcinfo, request, response, request.
    assert lines[0] == f"bad.example-20261121.warc.gz: 4 records, {len(problems)} errors"
    assert lines[1].startswith("  unreadable after 4 records: ArchiveLoadFailed")
    assert any(line.startswith("  gzip stream damaged") for line in lines)
    assert "example.org-20261121.warc.gz: 7 records, 0 errors" in lines
    assert lines[-1] == f"2 files, 11 records, {len(problems)} errors"
    # A damaged record's raw bytes never reach the terminal unescaped.
    assert all(ch.isprintable() for line in lines for ch in line)


def test_home_from_lyra_home_and_an_empty_archive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LYRA_HOME", str(tmp_path))
    monkeypatch.delenv("LYRA_CONFIG", raising=False)

    code = main(["archive", "verify"])

    assert capsys.readouterr().out.splitlines() == ["0 files, 0 records, 0 errors"]
    assert code == 0


def test_third_party_warcs_are_counted_and_the_truncated_one_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not REAL_WARCS.is_dir():
        pytest.skip(f"third-party WARC files not present at {REAL_WARCS}")
    expected = json.loads((REAL_WARCS / "EXPECTED_RECORDS.json").read_text(encoding="utf-8"))
    names = sorted(n for n in expected if n.endswith((".warc", ".warc.gz")))
    (tmp_path / "warc").mkdir()
    for name in names:
        (tmp_path / "warc" / name).symlink_to(REAL_WARCS / name)

    code = main(["archive", "verify", "--home", str(tmp_path)])

    out = capsys.readouterr().out.splitlines()
    counts = {name: len(expected[name]["records"]) for name in names}
    summaries = [line for line in out if not line.startswith("  ")]
    assert summaries[:-1] == [
        f"{name}: {counts[name]} records, {len(verify(REAL_WARCS / name))} errors" for name in names
    ]
    assert summaries[-1].startswith(f"{len(names)} files, {sum(counts.values())} records, ")
    for sound in ("example.warc", "example.warc.gz", "example-iana.org-chunked.warc"):
        assert f"{sound}: {counts[sound]} records, 0 errors" in summaries
    assert verify(REAL_WARCS / "example-trunc.warc") != []
    assert code == 1
