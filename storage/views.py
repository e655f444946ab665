"""Analysis views of the evidence graph, kept as Jinja SQL templates in config/views/.

Each ``config/views/<name>.sql.j2`` renders to one SELECT (seed 004 §4.2.3). Files whose
name starts with ``_`` are partials shared through ``{% include %}``, not views.

Parameters are data, never SQL: every ``{{ expression }}`` is passed through
``sql_literal`` by the environment's ``finalize`` hook, so a template cannot splice a
caller's string into the query unquoted, however it is written. Optional parameters are
tested with ``{% if name is defined %}``; the environment uses ``StrictUndefined``, so a
template that uses a parameter without that test requires it.

A template that renders with no parameters (every parameter optional) is also created
as a DuckDB VIEW of the same name at migrate time, so the client can write
``SELECT * FROM claim_evidence_summary`` in ``query_graph``; the others are reachable
only through ``render_view``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import duckdb
import jinja2
import jinja2.meta

TEMPLATE_SUFFIX = ".sql.j2"
_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")

ParamValue = str | int | float | bool | None


@dataclass(frozen=True)
class ViewInfo:
    """What the client is told about one analysis view."""

    name: str
    description: str
    params: tuple[str, ...]
    materialized: bool


def sql_literal(value: Any) -> str:
    """Render one Python scalar as a DuckDB SQL literal (strings quoted, quotes doubled)."""
    # bool before int: bool is a subclass of int and must not render as 1 / 0.
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("view parameters must be finite numbers")
        return repr(value)
    if isinstance(value, str):
        if "\x00" in value:
            raise ValueError("view parameters must not contain NUL characters")
        # DuckDB strings are standard-conforming: a backslash is literal, so doubling
        # the single quote is the whole escape.
        return "'" + value.replace("'", "''") + "'"
    # A ValueError, as for the other bad values: the client's argument, INVALID_PARAMS.
    raise ValueError(
        f"view parameters must be a string, number, boolean or null, not {type(value).__name__}"
    )


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("lyra.config", "views"),
        undefined=jinja2.StrictUndefined,
        finalize=sql_literal,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _template_names() -> list[str]:
    env = _environment()
    loader = env.loader
    if loader is None:
        raise RuntimeError("the view environment has no loader")
    return sorted(
        n
        for n in loader.list_templates()
        if n.endswith(TEMPLATE_SUFFIX) and "/" not in n and not n.startswith("_")
    )


def _source(template_name: str) -> str:
    env = _environment()
    loader = env.loader
    if loader is None:
        raise RuntimeError("the view environment has no loader")
    source, _, _ = loader.get_source(env, template_name)
    return source


def _params_of(template_name: str, seen: frozenset[str] = frozenset()) -> set[str]:
    """Undeclared variables of a template and of the partials it includes."""
    env = _environment()
    ast = env.parse(_source(template_name))
    params = set(jinja2.meta.find_undeclared_variables(ast))
    for ref in jinja2.meta.find_referenced_templates(ast):
        if ref is not None and ref not in seen:
            params |= _params_of(ref, seen | {template_name})
    return params


def _description(source: str) -> str:
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith("--"):
            return stripped.lstrip("-").strip()
        if stripped:
            break
    return ""


def list_views() -> list[ViewInfo]:
    """Every analysis view in config/views/, sorted by name."""
    out: list[ViewInfo] = []
    for template_name in _template_names():
        name = template_name[: -len(TEMPLATE_SUFFIX)]
        if not _NAME_RE.match(name):
            raise ValueError(f"view template {template_name!r} is not named like an identifier")
        out.append(
            ViewInfo(
                name=name,
                description=_description(_source(template_name)),
                params=tuple(sorted(_params_of(template_name))),
                materialized=_renders_without_params(name),
            )
        )
    return out


def _renders_without_params(name: str) -> bool:
    try:
        _environment().get_template(name + TEMPLATE_SUFFIX).render()
    except jinja2.UndefinedError:
        return False
    return True


def render_view(name: str, params: dict[str, ParamValue] | None = None) -> str:
    """The SELECT of view ``name`` with ``params`` bound as SQL literals."""
    if not _NAME_RE.match(name) or name + TEMPLATE_SUFFIX not in _template_names():
        known = ", ".join(v[: -len(TEMPLATE_SUFFIX)] for v in _template_names())
        raise KeyError(f"unknown view {name!r}; views: {known}")
    given = dict(params or {})
    allowed = _params_of(name + TEMPLATE_SUFFIX)
    unknown = sorted(set(given) - allowed)
    if unknown:
        raise ValueError(f"view {name!r} takes parameters {sorted(allowed)}, not {unknown}")
    for key, value in given.items():
        # Validate eagerly: a parameter the template skips must still be well-formed.
        sql_literal(value)
        if value is None:
            raise ValueError(f"view parameter {key!r} is null; leave it out instead")
    try:
        sql = _environment().get_template(name + TEMPLATE_SUFFIX).render(**given)
    except jinja2.UndefinedError as exc:
        raise ValueError(f"view {name!r} needs parameter(s): {exc.message}") from exc
    return sql.strip()


def create_views(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Create or replace a DuckDB VIEW for every view without required params."""
    created: list[str] = []
    for info in list_views():
        if not info.materialized:
            continue
        # The newlines keep a trailing "-- comment" of the template from swallowing
        # anything DuckDB appends.
        con.execute(f"CREATE OR REPLACE VIEW {info.name} AS\n{render_view(info.name)}\n")
        created.append(info.name)
    return created
