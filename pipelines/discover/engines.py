"""Search engines as data: specs from config/engines.yaml, requests, parsing, blocks.

ARCHITECTURE §2 and §3 step 3: an engine is a row of data (base URL, parser, QPS,
weight, ...) so tests and benchmarks point it at loopback. Design:
- `config/engines.yaml` holds every engine's defaults; `settings.engines.<name>`
  overrides only the keys the user's file named (pydantic's ``model_fields_set``
  plus extra keys), because `EngineSettings` fills unnamed fields with generic
  defaults (``enabled: false``, ``qps: 0.25``) that must not shadow an engine's own.
- An engine named only in settings (not in engines.yaml) is still an engine: the
  user may add one whose parser exists.
- Requests are GET by default. html.duckduckgo.com answers GET as well as the form
  POST its page sends; GET keeps the SERP URL a plain address that logs, caches and
  the Referer of the next hop can carry. `method: POST` in the data switches it.
- A parser returns [] on a CAPTCHA page; `serp_blocked` tells "blocked" from "no
  results" by asking `challenge.detect_challenge` and the HTTP status.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import yaml

from lyra.config.settings import DEFAULTS_FILE, Settings
from lyra.pipelines.discover.serp_parsers import SerpItem, parse
from lyra.pipelines.net.challenge import Challenge, detect_challenge

# Statuses an engine answers a refused query with; an empty page with one of these
# is a block even when no challenge marker is in the body (seed 003 §3.1.4).
BLOCKED_STATUSES = frozenset({403, 429, 503})


def _engines_file() -> Path:
    """engines.yaml beside settings.yaml, wherever lyra.config is installed."""
    return DEFAULTS_FILE.with_name("engines.yaml")


@dataclass(frozen=True)
class EngineSpec:
    """One search engine, as data; see config/engines.yaml for each key's meaning."""

    name: str
    enabled: bool = False
    base_url: str | None = None
    parser: str | None = None
    qps: float = 0.25
    weight: float = 1.0
    query_param: str = "q"
    method: str = "GET"
    params: dict[str, str] = field(default_factory=dict)
    page_param: str | None = None
    page_start: int = 0
    page_step: int = 1
    needs_js: bool = False
    last_resort: bool = False
    operators: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    language_param: str | None = None
    language_values: dict[str, str] = field(default_factory=dict)

    @property
    def host(self) -> str:
        """The engine's host: the domain its fetches are queued and limited under."""
        return (urlsplit(self.base_url or "").hostname or "").lower()


_SPEC_FIELDS = frozenset(f.name for f in fields(EngineSpec)) - {"name"}


def _coerce(name: str, data: Mapping[str, Any]) -> EngineSpec:
    """An EngineSpec from merged data; unknown keys are a configuration error."""
    unknown = set(data) - _SPEC_FIELDS
    if unknown:
        raise ValueError(f"engines.{name}: unknown keys {sorted(unknown)}")
    values = dict(data)
    for key in ("params", "language_values"):
        if key in values:
            values[key] = {str(k): str(v) for k, v in (values[key] or {}).items()}
    for key in ("operators", "paths"):
        if key in values:
            values[key] = tuple(str(v) for v in values[key] or ())
    if "method" in values:
        values["method"] = str(values["method"]).upper()
    return EngineSpec(name=name, **values)


def default_engines(path: Path | None = None) -> dict[str, dict[str, Any]]:
    """The engine defaults of config/engines.yaml, as plain data."""
    source = path or _engines_file()
    data = yaml.safe_load(source.read_text(encoding="utf-8")) or {}
    return {str(name): dict(entry or {}) for name, entry in data.items()}


def _explicit(entry: Any) -> dict[str, Any]:
    """The keys a settings entry named: set fields plus extra (engine-specific) keys."""
    named = {key: getattr(entry, key) for key in entry.model_fields_set}
    named.update(entry.model_extra or {})
    return named


def load_engines(settings: Settings, path: Path | None = None) -> dict[str, EngineSpec]:
    """Every engine: engines.yaml defaults, then the keys settings named on top."""
    merged = default_engines(path)
    for name, entry in settings.engines.items():
        merged[name] = {**merged.get(name, {}), **_explicit(entry)}
    return {name: _coerce(name, data) for name, data in merged.items()}


def page_value(spec: EngineSpec, page: int) -> int:
    """The page parameter's value for a 1-based page number."""
    return spec.page_start + (page - 1) * spec.page_step


def language_value(spec: EngineSpec, language: str | None) -> str | None:
    """The engine's value for a task language (BCP 47), or None when it has none.

    ``language_values`` maps a language (``pt-br``, else its primary subtag ``pt``) to
    the engine's own code (DuckDuckGo's regions, ``jp-jp``); without a map the primary
    subtag is sent as it is (``hl=ja``).
    """
    if not language or not spec.language_param:
        return None
    full = language.lower()
    primary = full.split("-")[0]
    if spec.language_values:
        return spec.language_values.get(full) or spec.language_values.get(primary)
    return primary


def build_request(
    spec: EngineSpec, query: str, page: int = 1, language: str | None = None
) -> tuple[str, dict[str, str] | None]:
    """(url, form) for one SERP request; form is None for GET, the body for POST.

    The page parameter is only sent from page 2 on: page 1 is the engine's plain
    query URL, the one a person's first search produces. ``language`` (the task's)
    adds the engine's locale parameter where it has one.
    """
    if not spec.base_url:
        raise ValueError(f"engines.{spec.name}.base_url is not set")
    if page < 1:
        raise ValueError(f"page must be 1 or more, got {page}")
    params: dict[str, str] = {**spec.params, spec.query_param: query}
    locale = language_value(spec, language)
    if locale is not None and spec.language_param:
        params[spec.language_param] = locale
    if page > 1 and spec.page_param:
        params[spec.page_param] = str(page_value(spec, page))
    if spec.method == "POST":
        return spec.base_url, params
    joiner = "&" if urlsplit(spec.base_url).query else "?"
    return f"{spec.base_url}{joiner}{urlencode(params)}", None


def parse_serp(spec: EngineSpec, body: bytes | str, base_url: str) -> list[SerpItem]:
    """The results of one SERP body, read by the parser the engine names."""
    if not spec.parser:
        raise ValueError(f"engines.{spec.name}.parser is not set")
    return parse(spec.parser, body, base_url, engine=spec.name)


@dataclass(frozen=True)
class SerpBlock:
    """Why a SERP response is a block rather than a page of results."""

    reason: str
    challenge: Challenge | None


def serp_blocked(
    body: bytes | str, status: int | None, headers: Mapping[str, str], url: str = ""
) -> SerpBlock | None:
    """A block (challenge page or refusing status) or None for a results page.

    A "no results" page is not a block: it has a 200 status and no challenge, so
    the caller records zero results and keeps the engine's circuit closed.
    """
    found = detect_challenge(status, headers, body, url)
    if found is not None:
        return SerpBlock(reason=f"challenge:{found.auth_type}", challenge=found)
    if status in BLOCKED_STATUSES:
        return SerpBlock(reason=f"status:{status}", challenge=None)
    return None
