"""What the `lyra` command line takes in and prints out: argument types with the MCP
tools' own bounds, the settings check every command runs first, whole-file writes,
and text made safe for a terminal (claims, prompts and rows come from web pages and
MCP clients).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import annotated_types
import yaml
from pydantic import BaseModel, ValidationError

from lyra.config.settings import load_settings
from lyra.mcp_bridge import models as tool_models

if TYPE_CHECKING:
    from rich.text import Text

# Bidirectional embeddings, overrides and isolates: printed raw, they reorder what the
# person reads without showing themselves ("Trojan Source", CVE-2021-42574).
_BIDI_CONTROLS = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
# C0 and C1 controls and DEL, but newline and tab, which lay text out and command nothing.
_CONTROLS = (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))
_TERMINAL_ESCAPES = {
    cp: f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}" for cp in (*_CONTROLS, *_BIDI_CONTROLS)
}
# What json.dumps(ensure_ascii=False) leaves raw (it escapes only C0): as \uXXXX the
# same JSON string, and nothing a terminal acts on.
_JSON_ESCAPES = {cp: f"\\u{cp:04x}" for cp in (*range(0x7F, 0xA0), *_BIDI_CONTROLS)}


class UserInputError(Exception):
    """Bad input the person can fix: `main` prints it as one `lyra:` line and exits 2."""


def terminal_safe(text: str) -> str:
    """`text` with every control character but newline and tab shown as its escape.

    Claims, prompts, choices and database rows come from web pages and MCP clients;
    printed raw, an ESC or a C1 CSI starts a terminal command (retitle the window, clear
    the screen, on some terminals set the clipboard) instead of being read.
    """
    return text.translate(_TERMINAL_ESCAPES)


def json_text(value: Any) -> str:
    """`value` as JSON with non-ASCII text kept readable and no terminal control raw."""
    return json.dumps(value, ensure_ascii=False).translate(_JSON_ESCAPES)


def rich_text(text: object) -> Text:
    """A rich Text of `text` made terminal-safe: a plain str would be read as rich markup,
    so a page's "[/]" or "[link=...]" would style the table or stop it with an error."""
    from rich.text import Text

    return Text(terminal_safe(str(text)))


def model_bounds(*fields: tuple[type[BaseModel], str]) -> tuple[int, int]:
    """The integer range every one of `fields` accepts (their ge/le constraints)."""
    low, high = -sys.maxsize, sys.maxsize
    for model, name in fields:
        for rule in model.model_fields[name].metadata:
            if isinstance(rule, annotated_types.Ge):
                low = max(low, int(rule.ge))  # type: ignore[call-overload]
            elif isinstance(rule, annotated_types.Le):
                high = min(high, int(rule.le))  # type: ignore[call-overload]
    return low, high


def int_between(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high`, else argparse's exit 2."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is out of range: give {low} to {high}")
        return value

    return parse


def research_question(text: str) -> str:
    """An argparse type: the question without surrounding blanks; none or an overlong
    one is refused, as create_task refuses it."""
    question = text.strip()
    if not any(ch.isalnum() for ch in question):
        raise argparse.ArgumentTypeError("the question has no words; ask something")
    limit = tool_models.QUERY_MAX_CHARS
    if len(question) > limit:
        raise argparse.ArgumentTypeError(
            f"the question is {len(question)} characters long; at most {limit}"
        )
    return question


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """One line for a YAML syntax error: where, and what the parser expected."""
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        mark = exc.problem_mark
        what = "; ".join(part for part in (exc.context, exc.problem) if part)
        return f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {what}"
    return f"invalid YAML: {printable(str(exc))}"


def _config_file_problem(path: Path) -> str | None:
    """What keeps the LYRA_CONFIG file from being read as a mapping (None: nothing)."""
    if not path.exists():
        return "no such file (point LYRA_CONFIG at a YAML file, or unset it)"
    if not path.is_file():
        return "not a regular file (point LYRA_CONFIG at a YAML file)"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        return f"cannot read it: {exc.strerror}"
    except UnicodeDecodeError:
        return "not UTF-8 text"
    except yaml.YAMLError as exc:
        return _yaml_problem(exc)
    if data is not None and not isinstance(data, dict):
        kinds: dict[type[Any], str] = {list: "a list", str: "a string", int: "a number"}
        kind = kinds.get(type(data), type(data).__name__)
        return f"the top level must be a mapping of settings (key: value), not {kind}"
    return None


def _setting_origin(loc: tuple[int | str, ...], config: Path | None) -> str:
    """Where a refused setting came from: its LYRA_SECTION__KEY environment variable
    (those win over the file), else the LYRA_CONFIG file."""
    names = {name.upper() for name in os.environ}
    for depth in range(len(loc), 0, -1):
        name = "LYRA_" + "__".join(str(part) for part in loc[:depth]).upper()
        if name in names:
            return name
    return f"LYRA_CONFIG {config}" if config else "settings"


def _validation_problem(exc: ValidationError, config: Path | None) -> str:
    """One line naming each refused key, its origin and pydantic's reason."""
    by_origin: dict[str, list[str]] = {}
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"]) or "(top level)"
        said = f"{key}: {error['msg']}"
        # The refused value helps for a wrong type; an unknown key's value says nothing.
        scalar = isinstance(error.get("input"), str | int | float | bool)
        if scalar and error["type"] != "extra_forbidden":
            said += f" (got {error['input']!r})"
        by_origin.setdefault(_setting_origin(error["loc"], config), []).append(said)
    return "; ".join(f"{origin}: {'; '.join(said)}" for origin, said in by_origin.items())


def settings_problem() -> str | None:
    """Why the settings cannot be loaded, in one line (None: they load). Every command
    checks this first, so `lyra serve` says it on stderr before a client waits on it."""
    named = os.environ.get("LYRA_CONFIG") or None  # as load_settings reads it
    config = Path(named).expanduser() if named else None
    if config is not None:
        problem = _config_file_problem(config)
        if problem is not None:
            return f"LYRA_CONFIG {config}: {problem}"
    try:
        load_settings()
    except ValidationError as exc:
        return printable(_validation_problem(exc, config), limit=2000)
    except (OSError, yaml.YAMLError, ValueError) as exc:  # a file that changed since the check
        return f"settings: {printable(str(exc), limit=2000)}"
    return None


def cannot_write(path: Path, make_parents: bool = False) -> str | None:
    """Why `path` cannot be written (None: it can), found before the work that produces
    its content; with `make_parents` the missing folders above it count as creatable."""
    if path.is_dir():
        return os.strerror(errno.EISDIR)
    if path.exists() and not path.is_file():
        # A device, a pipe, /dev/stdout, a process substitution: written into as it is
        # (write_whole), so its own open says whether it can be.
        return None
    folder = path.parent
    while make_parents and not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.exists():
        return os.strerror(errno.ENOENT)
    if not folder.is_dir():
        return os.strerror(errno.ENOTDIR)
    # Permissions alone do not say it (root, read-only mounts, /proc): a real file does.
    probe = folder / f".lyra-write-probe-{os.getpid()}"
    try:
        probe.open("xb").close()
    except OSError as exc:
        return exc.strerror or str(exc)
    probe.unlink()
    return None


def write_whole(path: Path, data: bytes, make_parents: bool = False) -> None:
    """Write `data` at `path` whole or not at all: a failure (disk full, a folder in the
    way) leaves neither a partial file nor a damaged earlier one; raises the OSError."""
    target = path.resolve() if path.is_symlink() else path  # write where the link points
    if target.exists() and not target.is_file():
        # Never renamed over: /dev/null or a pipe replaced by a regular file would break
        # the system or the reader waiting on it.
        with target.open("wb") as handle:
            handle.write(data)
        return
    if make_parents:
        target.parent.mkdir(parents=True, exist_ok=True)
    # Beside the target, so the rename stays on one file system and is atomic.
    part = target.with_name(f".{target.name}.{os.getpid()}.part")
    try:
        part.write_bytes(data)
        os.replace(part, target)
    except OSError:
        with contextlib.suppress(OSError):  # the write's own error is the one to report
            part.unlink(missing_ok=True)
        raise


def printable(text: str, limit: int = 300) -> str:
    """One terminal-safe line: a damaged record's bytes can end up in an error message."""
    safe = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)
    return safe if len(safe) <= limit else safe[: limit - 3] + "..."
