"""The ``query_graph`` sandbox: read-only SQL from the AI client (ARCHITECTURE §6).

Layers, each sufficient against some attack and all applied together:

1. ``duckdb.extract_statements``: exactly one statement, of type SELECT. EXPLAIN is
   refused because ``EXPLAIN ANALYZE DELETE`` executes the delete; PIVOT (type MULTI),
   SET, PRAGMA, CALL, COPY, ATTACH, ... all have their own types.
2. Tokens (``duckdb.tokenize``, so string literals and comments never match): a
   deny-list of keywords that only state-changing statements use, and of function
   names that read files or URLs or reveal configuration.
3. The parsed tree (``json_serialize_sql``): no data-modifying node anywhere (a
   ``WITH d AS (DELETE ... RETURNING *) SELECT`` is typed SELECT), table functions
   only from an allow-list, no table named like a path or URL (``FROM '/etc/passwd'``
   is a replacement scan).
4. Execution on a fresh cursor inside ``BEGIN TRANSACTION READ ONLY`` ... ``ROLLBACK``,
   on an instance opened by ``open_database`` (external access off, extensions off,
   configuration locked); a timer calls ``interrupt``; row and byte caps.

Decision on configuration functions: ``duckdb_settings()``, ``current_setting()`` and
``duckdb_databases()`` are refused, and so are the views over the same state
(``duckdb_databases``, ``pg_catalog.pg_settings``, ``pragma_database_list``,
``duckdb_logs`` ...). They cannot change anything, but they reveal file
system paths (the database file, its spill directory, the home directory) that the
client does not need; ``schema_snapshot`` gives it the structure it does need.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import math
import re
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import duckdb

from lyra.pipelines.errors import LyraError

MAX_SQL_CHARS = 20_000
"""Longest SQL text accepted; longer text is refused before parsing."""

_DENIED_KEYWORDS = frozenset(
    {
        "insert", "update", "delete", "merge", "upsert", "returning", "truncate",
        "drop", "create", "alter", "attach", "detach", "copy", "export", "import",
        "install", "load", "pragma", "call", "set", "reset", "checkpoint", "vacuum",
        "analyze", "begin", "commit", "rollback", "abort", "transaction", "grant",
        "revoke", "prepare", "execute", "deallocate", "use",
    }
)  # fmt: skip

# Functions refused wherever they appear, table or scalar: file and URL readers, SQL
# executors, secrets, configuration and state changers.
_DENIED_FUNCTIONS = frozenset(
    {
        "read_csv", "read_csv_auto", "read_parquet", "parquet_scan", "parquet_metadata",
        "parquet_schema", "parquet_file_metadata", "parquet_kv_metadata",
        "parquet_bloom_probe", "read_json", "read_json_auto", "read_json_objects",
        "read_json_objects_auto", "read_ndjson", "read_ndjson_auto",
        "read_ndjson_objects", "read_text", "read_blob", "read_xlsx", "glob",
        "sniff_csv", "iceberg_scan", "delta_scan", "sqlite_scan", "postgres_scan",
        "query", "query_table", "json_execute_serialized_sql", "duckdb_secrets",
        "which_secret", "duckdb_settings", "current_setting", "duckdb_databases",
        "duckdb_extensions", "duckdb_temporary_files", "duckdb_logs", "getenv",
        "nextval", "currval", "setseed", "checkpoint", "force_checkpoint",
    }
)  # fmt: skip

ALLOWED_TABLE_FUNCTIONS = frozenset(
    {
        "range", "generate_series", "unnest", "duckdb_tables", "duckdb_views",
        "duckdb_columns", "duckdb_constraints", "duckdb_indexes", "duckdb_schemas",
        "duckdb_types", "duckdb_functions", "duckdb_keywords", "pragma_table_info",
    }
)  # fmt: skip
"""Table functions a query may use: generators and catalog listings, nothing that reads files."""

# DuckDB's views over the same state as the refused functions: as tables they would
# give the database's path, the settings (temp and secret directories) and the logs.
_DENIED_TABLES = frozenset(
    {
        "duckdb_databases", "duckdb_settings", "duckdb_logs", "duckdb_secrets",
        "duckdb_extensions", "duckdb_temporary_files", "duckdb_memory",
        "pragma_database_list", "pg_settings",
    }
)  # fmt: skip

_READ_ONLY_NODES = frozenset(
    {"SELECT_NODE", "SET_OPERATION_NODE", "RECURSIVE_CTE_NODE", "CTE_NODE"}
)
_TABLE_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")
_SAFE_INT = 2**53  # larger integers lose precision in JavaScript clients: sent as strings


class SqlRefused(ValueError):
    """The SQL is not a single read-only SELECT over the graph; ``reason`` names the rule."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"query refused ({reason}): {message}")
        self.reason = reason
        self.detail = message

    def __reduce__(self) -> tuple[type[SqlRefused], tuple[str, str]]:
        # Ray pickles exceptions between actors; the default rebuilds from the one
        # formatted message and would call __init__ with too few arguments.
        return (type(self), (self.reason, self.detail))


class QueryTimeout(Exception):
    """The query ran past its time limit and was interrupted."""

    def __init__(self, timeout_ms: int) -> None:
        super().__init__(
            f"query interrupted after {timeout_ms} ms; the limit is the setting "
            "query_graph.max_timeout_ms (narrow the query or aggregate first)"
        )
        self.timeout_ms = timeout_ms

    def __reduce__(self) -> tuple[type[QueryTimeout], tuple[int]]:
        # Survives the pickling between Ray actors with its typed field intact.
        return (type(self), (self.timeout_ms,))


class QueryFailed(ValueError):
    """DuckDB rejected or failed the query (binder error, type error, ...)."""


@dataclass
class QueryResult:
    """Rows of one sandboxed query, already JSON-safe."""

    columns: list[str]
    rows: list[list[Any]]
    row_count: int
    truncated: bool
    elapsed_ms: float
    column_types: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- parsing

_parser_lock = threading.Lock()
_parser_con: duckdb.DuckDBPyConnection | None = None


def _parser() -> duckdb.DuckDBPyConnection:
    # One private in-memory instance parses for every caller: json_serialize_sql needs
    # a connection, and the graph's own connection may be busy (DuckDB 2.0 refuses
    # concurrent use of one connection). It holds no data and reads no files.
    global _parser_con
    if _parser_con is None:
        _parser_con = duckdb.connect(
            ":memory:",
            config={
                "enable_external_access": False,
                "autoload_known_extensions": False,
                "autoinstall_known_extensions": False,
                "python_enable_replacements": False,
            },
        )
    return _parser_con


def _syntax_tree(sql: str) -> dict[str, Any]:
    with _parser_lock:
        text = _parser().execute("SELECT json_serialize_sql(?::VARCHAR)", [sql]).fetchone()
    if text is None or not isinstance(text[0], str):
        raise SqlRefused("unsupported_syntax", "the statement could not be analysed")
    tree: dict[str, Any] = json.loads(text[0])
    if tree.get("error"):
        raise SqlRefused(
            "unsupported_syntax",
            f"the statement could not be analysed: {tree.get('error_message', 'unknown')}",
        )
    return tree


def _tokens(sql: str) -> list[tuple[int, str, str]]:
    """(start, text, kind) of each token; kind is the duckdb token_type name."""
    raw = duckdb.tokenize(sql)
    out: list[tuple[int, str, str]] = []
    for i, (start, kind) in enumerate(raw):
        end = raw[i + 1][0] if i + 1 < len(raw) else len(sql)
        out.append((start, sql[start:end].strip(), kind.name))
    return out


def _check_tokens(tokens: list[tuple[int, str, str]]) -> None:
    for i, (_, text, kind) in enumerate(tokens):
        word = text.lower()
        if kind == "keyword" and word in _DENIED_KEYWORDS:
            raise SqlRefused("denied_keyword", f"{text.upper()} is not allowed in query_graph")
        if kind not in ("keyword", "identifier"):
            continue
        nxt = tokens[i + 1][1] if i + 1 < len(tokens) else ""
        if word in _DENIED_FUNCTIONS and nxt.startswith("("):
            raise SqlRefused("denied_function", f"function {word}() is not allowed")


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _check_tree(tree: dict[str, Any]) -> None:
    for node in _walk(tree.get("statements", [])):
        node_type = node.get("type")
        if (
            isinstance(node_type, str)
            and node_type.endswith("_NODE")
            and node_type not in _READ_ONLY_NODES
        ):
            raise SqlRefused("data_modifying", f"{node_type} is not read-only")
        if node_type == "TABLE_FUNCTION":
            function = node.get("function") or {}
            name = str(function.get("function_name", "")).lower()
            if name not in ALLOWED_TABLE_FUNCTIONS:
                raise SqlRefused("table_function", f"table function {name}() is not allowed")
        elif node.get("class") == "FUNCTION":
            name = str(node.get("function_name", "")).lower()
            if name in _DENIED_FUNCTIONS:
                raise SqlRefused("denied_function", f"function {name}() is not allowed")
        elif node_type == "BASE_TABLE":
            if str(node.get("table_name", "")).lower() in _DENIED_TABLES:
                name = str(node.get("table_name", "")).lower()
                raise SqlRefused("denied_table", f"{name} is not a table of the graph")
            for key in ("table_name", "schema_name", "catalog_name"):
                name = str(node.get(key, ""))
                if name and not _TABLE_NAME_RE.match(name):
                    raise SqlRefused("file_path", f"{name!r} is not a table of the graph")


# Functions whose result grows with their arguments: a list of that many elements, a
# string of that many characters. DuckDB builds such a value whole, out of reach of both
# the interrupt and memory_limit: `list_sort(range(150000000))` ran 35 s past a 2 s
# limit at 14 GB. Their sizes must be literals (a column or a subquery could hold any
# number), at most MAX_GENERATED each and MAX_GENERATED_TOTAL over the query, and none
# may be inside a lambda, where it would be built once per element. The table functions
# range() and generate_series() stream and are interrupted: any size.
_SERIES = frozenset({"range", "generate_series"})
_SIZE_ARGUMENT = {"repeat": 1, "lpad": 1, "rpad": 1, "list_resize": 1, "array_resize": 1}
_FORMATTING = frozenset({"printf", "format"})
# Widths in a format string: printf's "%10d", "%1$10d", "%*d"; format's "{:>10}", "{:{}}".
_PRINTF_WIDTH = re.compile(r"%(?:\d+\$)?[-+ #0']*(\*|\d+)")
_FORMAT_SPEC = re.compile(r"\{[^{}]*:([^{}]*)\}")
_NESTED_SPEC = re.compile(r"\{[^{}]*:[^{}]*\{")
# Reducers whose lambda can double the accumulator with each element.
_REDUCERS = frozenset({"list_reduce", "array_reduce", "reduce"})
_REPLACERS = frozenset({"replace", "regexp_replace"})
# What a string argument of unknown length (a column: a fragment, a claim) may count as.
_TEXT_CHARS = 10_000
MAX_GENERATED = 1_000_000
MAX_GENERATED_TOTAL = 10_000_000


def _literal(node: dict[str, Any]) -> float | str | None:
    """A literal argument's value (a number, or a string's text, through casts); None for
    anything else (a column, arithmetic, a subquery, a call)."""
    if node.get("class") == "CAST" and isinstance(node.get("child"), dict):
        return _literal(node["child"])
    if node.get("class") != "CONSTANT":
        return None
    literal = node.get("literal") or {}
    text = str(literal.get("text", ""))
    if literal.get("kind") in ("INTEGER", "NUMERIC"):
        try:
            return float(text)
        except ValueError:
            return None
    return text


def _generated(name: str, args: list[dict[str, Any]]) -> float:
    """Elements (or characters) a sized function builds; inf when not known from literals."""
    values = [_literal(a) for a in args]
    if name in _SERIES:
        numbers = [v for v in values if isinstance(v, float)]
        if len(numbers) != len(values) or not 1 <= len(numbers) <= 3:
            return math.inf  # dates and intervals, columns, arithmetic
        if len(numbers) == 1:
            return abs(numbers[0])
        step = abs(numbers[2]) if len(numbers) == 3 else 1.0
        if step == 0:
            return math.inf
        # generate_series includes its stop, range does not
        return abs(numbers[1] - numbers[0]) / step + (1 if name == "generate_series" else 0)
    position = _SIZE_ARGUMENT[name]
    count = values[position] if position < len(values) else None
    if not isinstance(count, float):
        return math.inf
    if name == "repeat":
        unit = values[0] if values else None
        return abs(count) * (len(unit) if isinstance(unit, str) else _TEXT_CHARS)
    return abs(count)


def _format_widths(name: str, args: list[dict[str, Any]]) -> float:
    """Characters the widths of a printf()/format() string ask for; SqlRefused for a
    format string that is not a literal or a width that is not written in it."""
    form = _literal(args[0]) if args else None
    if not isinstance(form, str):
        raise SqlRefused("too_large", f"the format string of {name}() must be a literal")
    if name == "printf":
        widths = _PRINTF_WIDTH.findall(form)
    else:
        if _NESTED_SPEC.search(form):
            raise SqlRefused("too_large", f"{name}() with a width that is not a literal")
        widths = [
            max(re.findall(r"\d+", spec), key=len, default="0")
            for spec in _FORMAT_SPEC.findall(form)
        ]
    if "*" in widths:
        raise SqlRefused("too_large", f"{name}() with a width that is not a literal")
    size = float(sum(int(w) for w in widths))
    if size > MAX_GENERATED:
        raise SqlRefused("too_large", f"{name}() widths of over {MAX_GENERATED:,} characters")
    return size


def _check_lambdas(tree: dict[str, Any]) -> None:
    """A lambda may read its own parameters only: one that reads a column from outside
    builds that column's value again for every element (a list of a million lists)."""
    lambdas = [node for node in _walk(tree) if node.get("class") == "LAMBDA"]
    params = {
        str(ref["column_names"][-1]).lower()
        for node in lambdas
        for ref in _walk(node.get("lhs"))
        if ref.get("class") == "COLUMN_REF" and ref.get("column_names")
    }
    for node in lambdas:
        for ref in _walk(node.get("expr")):
            names = ref.get("column_names") if ref.get("class") == "COLUMN_REF" else None
            if names and str(names[-1]).lower() not in params:
                raise SqlRefused(
                    "too_large", f"a lambda that reads the column {names[-1]!r} from outside it"
                )


def _check_sizes(tree: dict[str, Any]) -> None:
    streamed = {
        id(node["function"])
        for node in _walk(tree)
        if node.get("type") == "TABLE_FUNCTION" and isinstance(node.get("function"), dict)
    }
    in_lambda = {
        id(inner)
        for node in _walk(tree)
        if node.get("class") == "LAMBDA"
        for inner in _walk(node.get("expr"))
    }
    total = 0.0
    for node in _walk(tree):
        if node.get("class") != "FUNCTION" or id(node) in streamed:
            continue
        name = str(node.get("function_name", "")).lower()
        args = [
            a["expression"]
            for a in node.get("arguments") or []
            if isinstance(a, dict) and isinstance(a.get("expression"), dict)
        ]
        if name in _REDUCERS:
            raise SqlRefused("too_large", f"{name}() can double its value with each element")
        if name in _REPLACERS and any(
            inner.get("class") == "FUNCTION"
            and str(inner.get("function_name", "")).lower() in _SIZE_ARGUMENT
            for arg in args
            for inner in _walk(arg)
        ):
            # every match of a built string replaced by a built string: their product
            raise SqlRefused("too_large", f"{name}() over a string built by repeat() or a pad")
        if name in _FORMATTING:
            total += _format_widths(name, args)
            if total > MAX_GENERATED_TOTAL:
                raise SqlRefused("too_large", f"{name}() widths of over {MAX_GENERATED:,}")
            continue
        if name not in _SERIES and name not in _SIZE_ARGUMENT:
            continue
        if id(node) in in_lambda:
            raise SqlRefused("too_large", f"{name}() inside a lambda (built once per element)")
        size = _generated(name, args)
        if size > MAX_GENERATED:
            hint = " (for more rows, select FROM the table function, which streams)"
            raise SqlRefused(
                "too_large",
                f"{name}() building over {MAX_GENERATED:,} elements, or a number of them "
                f"that is not a literal{hint if name in _SERIES else ''}",
            )
        total += size
        if total > MAX_GENERATED_TOTAL:
            raise SqlRefused(
                "too_large", f"lists and strings of over {MAX_GENERATED_TOTAL:,} elements in all"
            )


def _strip_trailing_semicolons(sql: str, tokens: list[tuple[int, str, str]]) -> str:
    # With one statement, a ';' operator token can only be the terminator: cut the
    # text there so the statement can be wrapped in a subquery.
    for start, text, kind in tokens:
        if kind == "operator" and text.startswith(";"):
            return sql[:start].strip()
    return sql.strip()


def validate_select(sql: str) -> str:
    """``sql`` without its terminator if it is one read-only SELECT; else SqlRefused."""
    if not isinstance(sql, str) or not sql.strip():
        raise SqlRefused("empty", "no SQL given")
    if len(sql) > MAX_SQL_CHARS:
        raise SqlRefused("too_long", f"SQL longer than {MAX_SQL_CHARS} characters")
    if "\x00" in sql:
        raise SqlRefused("parse_error", "SQL contains a NUL character")
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise SqlRefused("parse_error", str(exc).splitlines()[0]) from exc
    if len(statements) == 0:
        raise SqlRefused("empty", "no statement in the SQL (only comments?)")
    if len(statements) > 1:
        raise SqlRefused("multiple_statements", f"{len(statements)} statements; send one SELECT")
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        raise SqlRefused("not_select", f"{kind.name} statements are not allowed; send a SELECT")
    tokens = _tokens(sql)
    _check_tokens(tokens)
    tree = _syntax_tree(sql)
    _check_tree(tree)
    _check_lambdas(tree)
    _check_sizes(tree)
    return _strip_trailing_semicolons(sql, tokens)


# --------------------------------------------------------------------------- results


def json_safe(value: Any, type_name: str = "") -> Any:
    """Convert one DuckDB value to something json.dumps takes without loss of meaning."""
    if isinstance(value, str):
        # JSON columns arrive as text; the client gets the structure, not a string.
        return json.loads(value) if type_name == "JSON" else value
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if -_SAFE_INT <= value <= _SAFE_INT else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return str(value)


def _interrupt_after(cursor: duckdb.DuckDBPyConnection, timeout_ms: int) -> threading.Timer:
    timer = threading.Timer(timeout_ms / 1000.0, cursor.interrupt)
    timer.daemon = True
    timer.start()
    return timer


# What a query_graph parameter may hold: DuckDB binds these as plain values.
_SCALARS = (str, int, float, bool, type(None))
MAX_PARAMS = 50


def bindable_params(params: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """`params` of a query_graph call with `sql`, checked: names usable as ``$name``
    placeholders, values scalars or lists of scalars. None when there are none.

    Raises LyraError INVALID_PARAMS (field ``params``) naming the offending entry.
    """
    if not params:
        return None
    if len(params) > MAX_PARAMS:
        raise LyraError(
            "INVALID_PARAMS", f"at most {MAX_PARAMS} parameters, got {len(params)}", field="params"
        )
    for name, value in params.items():
        if not (isinstance(name, str) and name.isidentifier() and name.isascii()):
            raise LyraError(
                "INVALID_PARAMS",
                f"parameter name {name!r} is not a $name placeholder (letters, digits, _)",
                field="params",
            )
        items = value if isinstance(value, list) else [value]
        if not all(isinstance(v, _SCALARS) for v in items):
            raise LyraError(
                "INVALID_PARAMS",
                f"parameter {name!r} must be a string, number, boolean, null or a list of them",
                field="params",
            )
    return dict(params)


def run_sandboxed(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    *,
    limit: int,
    timeout_ms: int,
    max_bytes: int,
    params: Mapping[str, Any] | None = None,
) -> QueryResult:
    """Validate and run one SELECT read-only with row, byte and time caps.

    `params`: values DuckDB binds to the query's ``$name`` placeholders (never pasted
    into the text).
    """
    if limit < 1 or timeout_ms < 1 or max_bytes < 1:
        raise ValueError("limit, timeout_ms and max_bytes must be positive")
    body = validate_select(sql)
    # The newlines keep a trailing "-- comment" inside the subquery; limit + 1 rows
    # tell whether more exist without counting them all.
    wrapped = f"SELECT * FROM (\n{body}\n) AS lyra_query LIMIT {int(limit) + 1}"
    validate_select(wrapped)
    started = time.monotonic()
    cursor = con.cursor()
    try:
        cursor.execute("BEGIN TRANSACTION READ ONLY")
        timer = _interrupt_after(cursor, timeout_ms)
        try:
            if params:
                cursor.execute(wrapped, dict(params))
            else:
                cursor.execute(wrapped)
            description = cursor.description or []
            fetched = cursor.fetchall()
        except duckdb.InterruptException as exc:
            raise QueryTimeout(timeout_ms) from exc
        except duckdb.PermissionException as exc:
            raise SqlRefused("permission", str(exc).splitlines()[0]) from exc
        except duckdb.Error as exc:
            raise QueryFailed(str(exc)) from exc
        finally:
            # join: an interrupt already in flight lands before ROLLBACK, never on it.
            timer.cancel()
            timer.join()
    finally:
        try:
            cursor.execute("ROLLBACK")
        finally:
            cursor.close()
    columns = [str(d[0]) for d in description]
    types = [str(d[1]) for d in description]
    rows: list[list[Any]] = []
    size = 0
    truncated = len(fetched) > limit
    for raw_row in fetched[:limit]:
        row = [json_safe(v, t) for v, t in zip(raw_row, types, strict=True)]
        size += len(json.dumps(row, ensure_ascii=False)) + 1
        if size > max_bytes:
            truncated = True
            break
        rows.append(row)
    elapsed_ms = (time.monotonic() - started) * 1000.0
    return QueryResult(
        columns=columns,
        rows=rows,
        row_count=len(rows),
        truncated=truncated,
        elapsed_ms=round(elapsed_ms, 3),
        column_types=types,
    )


def schema_snapshot(con: duckdb.DuckDBPyConnection) -> dict[str, list[dict[str, str]]]:
    """Column names and types of every table and view in the main schema (nothing else)."""
    cursor = con.cursor()
    try:
        rows = cursor.execute(
            """
            SELECT table_name, column_name, data_type
            FROM duckdb_columns()
            WHERE schema_name = 'main' AND database_name = current_database() AND NOT internal
            ORDER BY table_name, column_index
            """
        ).fetchall()
    finally:
        cursor.close()
    out: dict[str, list[dict[str, str]]] = {}
    for table, column, data_type in rows:
        out.setdefault(str(table), []).append({"name": str(column), "type": str(data_type)})
    return out
