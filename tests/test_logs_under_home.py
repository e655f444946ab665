"""Logs live under LYRA_HOME (ARCHITECTURE §2): actors' warnings and errors in
logs/actors.log, `lyra serve`'s log in logs/serve.log (tests/test_cli_e2e.py reads an
error_id there)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from lyra.actors.runtime import ACTORS_LOG, SERVE_LOG, log_to_home, setup_actor_logging


@pytest.fixture()
def root_handlers() -> Iterator[None]:
    """The test's file handlers are taken off the root logger again."""
    before = list(logging.getLogger().handlers)
    yield
    for handler in logging.getLogger().handlers:
        if handler not in before:
            logging.getLogger().removeHandler(handler)
            handler.close()


@pytest.mark.usefixtures("root_handlers")
def test_actor_warnings_go_to_actors_log_and_info_does_not(tmp_path: Path) -> None:
    setup_actor_logging(tmp_path)
    setup_actor_logging(tmp_path)  # a second call adds no second handler
    log = logging.getLogger("lyra.actors.test")
    log.info("a fetch went fine")
    log.warning("the site answered 503 three times")
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        log.exception("a search failed")
    lines = (tmp_path / "logs" / ACTORS_LOG).read_text().splitlines()
    assert [" ".join(line.split()[3:]) for line in lines[:2]] == [
        "WARNING lyra.actors.test: the site answered 503 three times",
        "ERROR lyra.actors.test: a search failed",
    ]
    assert lines[-1] == "RuntimeError: boom"


@pytest.mark.usefixtures("root_handlers")
def test_the_serve_log_keeps_info_and_rotates(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="lyra.mcp")  # as `lyra serve` sets it
    path = log_to_home(tmp_path, SERVE_LOG, logging.INFO, rotate=True)
    assert path == (tmp_path / "logs" / SERVE_LOG).resolve()
    handler = next(
        h for h in logging.getLogger().handlers if getattr(h, "baseFilename", "") == str(path)
    )
    assert isinstance(handler, logging.handlers.RotatingFileHandler)
    assert (handler.maxBytes, handler.backupCount) == (10_000_000, 3)
    logging.getLogger("lyra.mcp").info("tool get_status: TASK_NOT_FOUND [err_0123456789ab]")
    assert path.read_text().rstrip().endswith("tool get_status: TASK_NOT_FOUND [err_0123456789ab]")
