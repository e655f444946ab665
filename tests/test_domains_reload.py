"""domains.yaml hot reload (ARCHITECTURE §4: trust levels and rates change without a restart)."""

from __future__ import annotations

import os
from pathlib import Path

from lyra.pipelines.net.domains import DomainRulesWatcher, qps_for, trust_level_for

USER_V1 = "user_overrides:\n  example.org: PRIMARY\nqps:\n  example.org: 0.5\n"
USER_V2 = "user_overrides:\n  example.org: LOW\nqps:\n  example.org: 0.1\n"


def _touch_later(path: Path, text: str, bump: int) -> None:
    path.write_text(text, encoding="utf-8")
    stat = path.stat()
    # Filesystems with coarse timestamps: make the change visible to the watcher.
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + bump * 1_000_000_000))


def test_user_layer_is_merged_and_reloaded_on_change(tmp_path: Path) -> None:
    user = tmp_path / "domains.yaml"
    watcher = DomainRulesWatcher(user_path=user)
    assert trust_level_for("example.org", watcher.current()) == "UNVERIFIED"
    assert watcher.version == 1

    _touch_later(user, USER_V1, 1)
    rules = watcher.current()
    assert trust_level_for("example.org", rules) == "PRIMARY"
    assert qps_for("example.org", rules, 0.2) == 0.5
    # The packaged rules still apply to everything else.
    assert trust_level_for("en.wikipedia.org", rules) == "LOW"
    assert watcher.version == 2

    _touch_later(user, USER_V2, 2)
    rules = watcher.current()
    assert trust_level_for("example.org", rules) == "LOW"
    assert qps_for("example.org", rules, 0.2) == 0.1
    assert watcher.version == 3


def test_a_broken_edit_keeps_the_previous_rules(tmp_path: Path) -> None:
    user = tmp_path / "domains.yaml"
    _touch_later(user, USER_V1, 1)
    watcher = DomainRulesWatcher(user_path=user)
    assert trust_level_for("example.org", watcher.current()) == "PRIMARY"

    _touch_later(user, "user_overrides:\n  example.org: SUPREME\n", 2)
    rules = watcher.current()

    assert trust_level_for("example.org", rules) == "PRIMARY"
    assert watcher.last_error is not None
    assert "unknown trust level 'SUPREME'" in watcher.last_error
    assert watcher.version == 1
