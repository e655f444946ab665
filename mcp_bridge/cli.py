"""The `lyra` command line: serve, research, sql, doctor, archive verify, models."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

from lyra.config.settings import Settings, load_settings
from lyra.mcp_bridge import models as tool_models
from lyra.mcp_bridge.cli_home import (
    cmd_archive_verify,
    cmd_models_list,
    cmd_models_prepare,
    cmd_models_pull,
)
from lyra.mcp_bridge.cli_input import (
    UserInputError,
    cannot_write,
    int_between,
    model_bounds,
    research_question,
    rich_text,
    settings_problem,
    terminal_safe,
    write_whole,
)
from lyra.mcp_bridge.cli_research import cmd_research, console, settings_with_corpus

DEFAULT_HTTP_PORT = 8765
# How long `lyra sql` waits for the database file of an instance that is stopping.
SQL_LOCK_WAIT_S = 30.0


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the MCP server on stdio (or streamable HTTP on 127.0.0.1)."""
    from lyra.actors.runtime import SERVE_LOG, log_to_home
    from lyra.mcp_bridge.server import build_server

    logging.basicConfig(
        level=logging.INFO,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    settings = settings_with_corpus(args.corpus)
    # Tool errors' details, under their error_id, where a person can find them: an MCP
    # client often keeps the server's stderr out of sight.
    try:
        log_to_home(settings.home_dir, SERVE_LOG, logging.INFO, rotate=True)
    except OSError as exc:  # the server still answers; its log stays on stderr
        logging.getLogger("lyra.mcp").warning(
            "cannot write logs under %s: %s", settings.home_dir, exc
        )
    if not args.http:
        build_server(settings).run("stdio")
        # The SDK gives fd 1 back when the session ends; Ray's shutdown and exit hooks
        # still print ("(raylet) ..."), which a client still reading would take for a
        # broken message: from here on stdout is stderr.
        sys.stdout.flush()
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        return 0
    import uvicorn

    from lyra.actors.instance import choose_port, port_free, register_http_server
    from lyra.mcp_bridge.http_auth import BearerTokenApp, ensure_token, is_loopback, token_path

    host = args.host or settings.http.host
    if not is_loopback(host) and not settings.http.allow_non_loopback:
        print(
            f"lyra: refusing to serve HTTP on {host}: only loopback unless "
            "http.allow_non_loopback is true in the configuration",
            file=sys.stderr,
        )
        return 2
    if args.port is None:
        port = choose_port(DEFAULT_HTTP_PORT, "MCP HTTP")
    elif args.port and not port_free(args.port):
        print(f"lyra: port {args.port} of 127.0.0.1 is in use; pass another", file=sys.stderr)
        return 2
    else:
        port = args.port or choose_port(0, "MCP HTTP")
    token = ensure_token(settings.home_dir)
    logging.getLogger("lyra.mcp").info(
        "MCP over streamable HTTP at http://%s:%d/mcp (bearer token in %s)",
        host,
        port,
        token_path(settings.home_dir),
    )
    register_http_server(settings.home_dir, port)  # for `lyra doctor` and `lyra instances`
    app = build_server(settings, http_port=port).streamable_http_app(host=host)
    uvicorn.run(BearerTokenApp(app, token), host=host, port=port, log_level="warning")
    return 0


def cmd_sql(args: argparse.Namespace) -> int:
    """Run one read-only query in the query_graph sandbox against the database file."""
    from lyra.mcp_bridge.errors import to_lyra_error
    from lyra.storage.connection import open_database
    from lyra.storage.sql_guard import (
        QueryFailed,
        QueryTimeout,
        SqlRefused,
        run_sandboxed,
        validate_select,
    )

    settings = load_settings()
    if not settings.db_path.exists():
        print(f"lyra: no database at {settings.db_path} yet (run a search first)", file=sys.stderr)
        return 1
    import duckdb

    from lyra.actors.instance import live_record

    # An instance that stops (no client for a while) removes its record first and
    # releases the file when its graph actor exits, moments later: a call in between
    # waits for the file rather than failing.
    deadline = time.monotonic() + SQL_LOCK_WAIT_S
    waited = False
    while True:
        if settings.ray.share_instance and live_record(settings.home_dir) is not None:
            # The running Lyra holds the database file: ask its graph actor instead.
            return _sql_through_instance(settings, args)
        try:
            con = open_database(
                settings.db_path,
                memory_limit=settings.storage.memory_limit,
                threads=settings.storage.threads,
            )
            break
        except duckdb.IOException as exc:
            # Only a shared instance stops by itself; another holder is not waited for.
            stopping = settings.ray.share_instance and "lock" in str(exc).lower()
            if not stopping or time.monotonic() > deadline:
                print(f"lyra: cannot open {settings.db_path}: {exc}", file=sys.stderr)
                return 1
            if not waited:
                print("lyra: waiting for the database a stopping Lyra holds", file=sys.stderr)
                waited = True
            time.sleep(0.2)
        except Exception as exc:
            print(f"lyra: cannot open {settings.db_path}: {exc}", file=sys.stderr)
            return 1
    try:
        sql = validate_select(args.query)
        res = run_sandboxed(
            con,
            sql,
            limit=min(args.limit, settings.query_graph.max_limit),
            timeout_ms=settings.query_graph.max_timeout_ms,
            max_bytes=settings.query_graph.max_result_bytes,
        )
    except (SqlRefused, QueryFailed, QueryTimeout) as exc:
        # Said as query_graph says it when the running Lyra answers (_sql_through_instance).
        err = to_lyra_error(exc)
        print(f"lyra: {err.code}: {terminal_safe(err.message)}", file=sys.stderr)
        return 2
    finally:
        con.close()
    _print_rows(res.columns, res.rows, res.row_count, res.truncated, args.json)
    return 0


def _task_call(method: str, *args: Any) -> dict[str, Any] | int:
    """One orchestrator call on a task for the CLI (the running Lyra of this home, or one
    started for it): its result, or the exit status after printing the error (2 for an
    unknown task or a refused argument)."""
    from lyra.mcp_bridge.errors import to_lyra_error
    from lyra.mcp_bridge.lyra_runtime import LyraRuntime

    settings = load_settings()
    if not settings.db_path.exists():
        print(f"lyra: no database at {settings.db_path} yet (run a search first)", file=sys.stderr)
        return 1
    rt = LyraRuntime(settings, match_settings=False)
    try:
        out: dict[str, Any] = asyncio.run(rt.call(method, *args))
    except Exception as exc:
        err = to_lyra_error(exc)
        print(f"lyra: {err.code}: {terminal_safe(err.message)}", file=sys.stderr)
        return 2 if err.code in ("TASK_NOT_FOUND", "INVALID_PARAMS") else 1
    return out


def cmd_export(args: argparse.Namespace) -> int:
    """Write a task's evidence as BibTeX, RIS, CSL-JSON, GraphML, JSON lines, Markdown or
    a self-contained HTML report."""
    target = None if args.output is None else Path(args.output).expanduser()
    # Said before the export runs (it may start Lyra), not after it has run for nothing;
    # exit 2 for the path given, as for any bad argument, 1 for a write that fails later.
    unwritable = None if target is None else cannot_write(target)
    if unwritable is not None:
        print(f"lyra: cannot write {target}: {unwritable}", file=sys.stderr)
        return 2
    out = _task_call("export_task", args.task, args.format)
    if isinstance(out, int):
        return out
    if target is None:
        # A terminal shows the page text the export quotes; a pipe gets the bytes as is.
        content = out["content"]
        sys.stdout.write(terminal_safe(content) if sys.stdout.isatty() else content)
        return 0
    try:
        write_whole(target, out["content"].encode("utf-8"))
    except OSError as exc:
        print(f"lyra: cannot write {target}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"{target}: {out['format']}, {out['sources']} sources, {out['claims']} claims")
    return 0


def cmd_cleanup(args: argparse.Namespace) -> int:
    """Remove a task's claims and edges (--hard: also what only it used)."""
    out = _task_call("cleanup_task", args.task, args.hard, args.dry_run)
    if isinstance(out, int):
        return out
    if args.json:
        print(json.dumps(out))
        return 0
    verb = "would remove" if out["dry_run"] else "removed"
    print(
        f"{args.task}: {verb} {out['claims']} claims, {out['edges']} edges, "
        f"{out['serp_items']} SERP rows, {out['fragments']} fragments, "
        f"{len(out['pages'])} pages, {len(out['files'])} files"
        f"; {len(out['pages_kept'])} pages kept (other tasks use them)"
    )
    for path in out["files"]:
        print(f"  {terminal_safe(path)}")
    for failure in out["files_not_removed"]:
        print(f"lyra: not removed: {terminal_safe(failure)}", file=sys.stderr)
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    """Rebuild a task's evidence from its archives, offline, and say what changed."""
    out = _task_call("replay_task", args.task)
    if isinstance(out, int):
        return out
    if args.json:
        print(json.dumps(out, default=str))
        return 0
    print(
        f"{args.task}: replayed {out['searches']} searches over {out['pages_replayed']} "
        f"archived pages into {out['replay_task_id']} (no request sent)"
    )
    models, before = out["models"], ", ".join(out["nli_models"]["before"]) or "unrecorded"
    print(
        f"models: stance {before} -> {models['nli']}, embedder {models['embedding']}"
        + (" (loaded now: the registry changed since the last start)" if models["reloaded"] else "")
    )
    print(
        f"claims: {len(out['claims_added'])} added, {len(out['claims_dropped'])} dropped; "
        f"stance edges: {out['edges_unchanged']} unchanged, {len(out['edges_moved'])} moved, "
        f"{out['edges_added']} added, {out['edges_dropped']} dropped"
    )
    # Claim texts come from pages.
    for text in out["claims_added"]:
        print(f"  + {terminal_safe(text)}")
    for text in out["claims_dropped"]:
        print(f"  - {terminal_safe(text)}")
    for move in out["edges_moved"]:
        before, after = move["before"], move["after"]
        print(
            f"  ~ {terminal_safe(move['claim'][:70])} / {move['fragment_id']}: "
            f"{before['relation']} "
            f"{before['confidence'] or 0:.2f} -> {after['relation']} {after['confidence'] or 0:.2f}"
        )
    for warning in out["warnings"]:
        print(f"lyra: {terminal_safe(warning)}", file=sys.stderr)
    return 0


def _sql_through_instance(settings: Settings, args: argparse.Namespace) -> int:
    from lyra.mcp_bridge.errors import to_lyra_error
    from lyra.mcp_bridge.lyra_runtime import LyraRuntime

    rt = LyraRuntime(settings, match_settings=False)
    limit = min(args.limit, settings.query_graph.max_limit)
    timeout = settings.query_graph.max_timeout_ms
    try:
        res = asyncio.run(rt.call("query_graph", args.query, None, {}, limit, timeout, False))
    except Exception as exc:  # the sandbox's refusal or time limit, as query_graph says it
        err = to_lyra_error(exc)
        print(f"lyra: {err.code}: {terminal_safe(err.message)}", file=sys.stderr)
        return 2
    _print_rows(res["columns"], res["rows"], res["row_count"], res["truncated"], args.json)
    return 0


def _print_rows(
    columns: list[str], rows: list[Any], row_count: int, truncated: bool, as_json: bool
) -> None:
    if as_json:
        print(
            json.dumps(
                {"columns": columns, "rows": rows, "row_count": row_count, "truncated": truncated},
                default=str,
            )
        )
        return
    from rich.table import Table

    # Cells hold page text (fragments, titles): shown, never acted on by the terminal.
    table = Table()
    for name in columns:
        table.add_column(rich_text(name))
    for row in rows:
        table.add_row(*[rich_text("" if v is None else v) for v in row])
    console().print(table)
    if truncated:
        print(f"(truncated at {row_count} rows)")


def cmd_instances(args: argparse.Namespace) -> int:
    """Every Lyra instance running on this machine: home, ports, client processes."""
    from lyra.actors.instance import list_instances

    rows = list_instances()
    if args.json:
        print(json.dumps(rows))
        return 0
    if not rows:
        print("no Lyra instance runs on this machine")
        return 0
    for row in rows:
        clients = row.get("clients", [])
        http = ", ".join(f"127.0.0.1:{h['port']}" for h in row.get("http", []))
        print(
            f"{row['home']}  host pid {row['host_pid']}  ray {row.get('ray_address', '-')}  "
            f"dashboard {row.get('dashboard_url') or '-'}  "
            f"metrics :{row.get('metrics_export_port', '-')}  "
            f"http {http or '-'}  "
            f"clients {len(clients)} ({', '.join(str(c['pid']) for c in clients) or 'none'})"
        )
    return 0


def cmd_down(args: argparse.Namespace) -> int:
    """Stop this LYRA_HOME's instance (or every one with --all): its actors and Ray."""
    from lyra.actors.instance import host_processes, live_clients, stop_clients, stop_instance

    homes = (
        sorted({home for _pid, home in host_processes()})
        if args.all
        else [load_settings().home_dir]
    )
    refused = 0
    for home in homes:
        clients = live_clients(home)
        if clients and not args.force:
            pids = ", ".join(str(c["pid"]) for c in clients)
            print(
                f"lyra: {home}: {len(clients)} Lyra process(es) still use it (pid {pids}); "
                "stop them first or pass --force",
                file=sys.stderr,
            )
            refused += 1
            continue
        if clients:
            # --force: its clients go first, so none is left blocking on a Ray that is gone.
            stopped = stop_clients(home)
            if stopped:
                pids = ", ".join(str(p) for p in stopped)
                print(f"stopped {len(stopped)} Lyra process(es) that used {home} (pid {pids})")
        if stop_instance(home):
            print(f"stopped the Lyra instance of {home}")
        else:
            print(f"no Lyra instance runs for {home}")
    return 1 if refused else 0


def cmd_doctor(args: argparse.Namespace) -> int:
    """Check each component and say how to fix what is missing."""
    from lyra.mcp_bridge.doctor import run_doctor

    return run_doctor(load_settings(), as_json=args.json)


def cmd_answer(args: argparse.Namespace) -> int:
    """Answer a question wait_for_user asked (or, without an id, list those waiting)."""
    from lyra.actors.instance import live_record

    settings = load_settings()
    if not settings.ray.share_instance or live_record(settings.home_dir) is None:
        # The questions live in the running Lyra; starting one here would find none.
        print(
            f"lyra: no running Lyra shares {settings.home_dir} (the questions are held by "
            "the `lyra serve` that asked them)",
            file=sys.stderr,
        )
        return 1
    if args.prompt_id is None:
        waiting: Any = _task_call("pending_prompts")
        if isinstance(waiting, int):
            return waiting
        if args.json:
            print(json.dumps(waiting, indent=2))
            return 0
        if not waiting:
            print("no question is waiting")
        # The prompt and its choices are an MCP client's text (which may quote a page).
        for q in waiting:
            choices = q["choices"] or []
            listed = "".join(f"\n    {i + 1}. {terminal_safe(c)}" for i, c in enumerate(choices))
            print(f"{q['prompt_id']}  {terminal_safe(q['prompt'])}{listed}")
        return 0
    if args.response is None:
        print('lyra: give the answer after the id: lyra answer ID "TEXT"', file=sys.stderr)
        return 2
    out = _task_call("answer_prompt", args.prompt_id, args.response)
    if isinstance(out, int):
        return out
    said = f"{out['prompt_id']}: {terminal_safe(str(out['response']))}"
    print(json.dumps(out) if args.json else said)
    return 0


def cmd_feedback(args: argparse.Namespace) -> int:
    """The feedback tool's actions from the command line (same checks, same event rows)."""
    data = {
        "domain": args.domain,
        "claim_id": args.claim,
        "edge_id": args.edge,
        "relation": args.relation,
        "reason": args.reason,
    }
    out = _task_call("feedback", args.action, {k: v for k, v in data.items() if v is not None})
    if isinstance(out, int):
        return out
    if args.json:
        print(json.dumps(out, indent=2, default=str))
        return 0
    subject = out.get("domain") or out.get("claim_id") or out.get("edge_id")
    state = (
        out.get("status") or out.get("relation") or ("blocked" if "block" in args.action else "")
    )
    if args.action == "domain_unblock":
        state = "unblocked"
    note = "" if out["changed"] else " (already so)"
    print(f"{args.action}: {terminal_safe(str(subject))} {state}{note}")
    return 0


def cmd_calibration_plot(args: argparse.Namespace) -> int:
    """Write the reliability diagram of a calibration source (get_diagram_data) as a PNG."""
    from lyra.mcp_bridge.calibration_plot import PlotUnavailable, render_reliability

    path = _plot_path(args.out, args.source)
    # Said before the call (it may start Lyra); missing folders above it are made.
    unwritable = cannot_write(path, make_parents=True)
    if unwritable is not None:
        print(f"lyra: cannot write {path}: {unwritable}", file=sys.stderr)
        return 2
    data: dict[str, Any] = {"source": args.source}
    if args.evaluation:
        data["evaluation_id"] = args.evaluation
    out = _task_call("calibrate", "get_diagram_data", data)
    if isinstance(out, int):
        return out
    try:
        write_whole(path, render_reliability(out), make_parents=True)
    except PlotUnavailable as exc:
        print(f"lyra: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"lyra: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"{path} (ECE {out['overall_ece']:.4f}, {out['samples']} predictions, "
          f"calibration version {out['calibration_version']})")  # fmt: skip
    return 0


def _plot_path(out: str | None, source: str) -> Path:
    """Where `lyra calibration plot` writes: --out as given, or calibration-SOURCE.png in
    the folder --out names (the current one without --out)."""
    name = f"calibration-{source}.png"
    if out is None:
        return Path(name)
    given = Path(out).expanduser()
    return given / name if given.is_dir() else given


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `lyra`."""
    p = argparse.ArgumentParser(prog="lyra", description="Local-first research server on Ray.")
    # As the MCP tools bound them: the CLI accepts what a client may ask, and no more.
    pages_low, pages_high = model_bounds(
        (tool_models.Budget, "max_pages"), (tool_models.SearchOptions, "max_pages")
    )
    limit_low, limit_high = model_bounds((tool_models.QueryOptions, "limit"))
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="MCP server over stdio (or --http on 127.0.0.1)")
    s.add_argument("--http", action="store_true", help="streamable HTTP on 127.0.0.1")
    s.add_argument(
        "--port",
        type=int_between(0, 65535),
        default=None,
        help=f"HTTP port (default {DEFAULT_HTTP_PORT}, or a free one when it is taken; 0: any)",
    )
    s.add_argument(
        "--host",
        default=None,
        help="HTTP bind address (default http.host, 127.0.0.1; another needs "
        "http.allow_non_loopback)",
    )
    s.add_argument("--corpus", help="folder for the local engine (overrides engines.local.paths)")
    s.set_defaults(func=cmd_serve)
    r = sub.add_parser("research", help="run one question offline and print the claims")
    r.add_argument("question", type=research_question)
    r.add_argument(
        "--corpus",
        help="folder of documents (each subfolder is one source), or one document",
    )
    r.add_argument(
        "--max-pages",
        type=int_between(pages_low, pages_high),
        default=None,
        help=f"pages to fetch, {pages_low} to {pages_high} (default: the settings' "
        "task.default_max_pages and search.default_max_pages)",
    )
    r.add_argument("--json", action="store_true", help="print one JSON object")
    r.set_defaults(func=cmd_research)
    q = sub.add_parser("sql", help="read-only SQL over the evidence graph")
    q.add_argument("query")
    q.add_argument(
        "--limit",
        type=int_between(limit_low, limit_high),
        default=50,
        help=f"rows to show, {limit_low} to {limit_high} (default 50)",
    )
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=cmd_sql)
    e = sub.add_parser("export", help="a task's evidence as a bibliography or a report")
    e.add_argument("task", help="task id (create_task, lyra research --json)")
    e.add_argument(
        "--format",
        required=True,
        choices=["bibtex", "ris", "csl-json", "graphml", "jsonl", "markdown", "html"],
    )
    e.add_argument("--output", "-o", help="write here instead of standard output")
    e.set_defaults(func=cmd_export)
    c = sub.add_parser("cleanup", help="remove a task's claims and edges (--hard: orphans too)")
    c.add_argument("task", help="task id")
    c.add_argument(
        "--hard",
        action="store_true",
        help="also pages, fragments and archives that no other task uses",
    )
    c.add_argument("--dry-run", action="store_true", help="list what would go, change nothing")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_cleanup)
    rp = sub.add_parser("replay", help="rebuild a task's evidence from its archives, offline")
    rp.add_argument("task", help="task id")
    rp.add_argument("--json", action="store_true")
    rp.set_defaults(func=cmd_replay)
    d = sub.add_parser("doctor", help="check Ray, DuckDB, Chromium, models, Ollama, Tor")
    d.add_argument("--json", action="store_true")
    d.set_defaults(func=cmd_doctor)
    i = sub.add_parser(
        "instances", aliases=["ps"], help="the Lyra instances running on this machine"
    )
    i.add_argument("--json", action="store_true")
    i.set_defaults(func=cmd_instances)
    dn = sub.add_parser(
        "down", aliases=["stop"], help="stop this LYRA_HOME's Lyra (its actors and Ray)"
    )
    dn.add_argument("--all", action="store_true", help="every Lyra instance on this machine")
    dn.add_argument(
        "--force",
        action="store_true",
        help="even while Lyra processes use it: they are stopped first",
    )
    dn.set_defaults(func=cmd_down)
    a = sub.add_parser("archive", help="the WARC archive of every fetch")
    archive = a.add_subparsers(dest="archive_command", required=True)
    v = archive.add_parser("verify", help="read every WARC back; exit 1 if any is damaged")
    v.add_argument("--home", help="LYRA_HOME to check (default: the configured one)")
    v.set_defaults(func=cmd_archive_verify)
    an = sub.add_parser("answer", help="answer a question Lyra asks (wait_for_user)")
    an.add_argument("prompt_id", nargs="?", help="the question's id (none: list the waiting)")
    an.add_argument("response", nargs="?", help="the answer: text, or a choice or its number")
    an.add_argument("--json", action="store_true")
    an.set_defaults(func=cmd_answer)
    fb = sub.add_parser("feedback", help="block a site, reject a claim, correct an edge")
    fb.add_argument(
        "action",
        choices=["domain_block", "domain_unblock", "claim_reject", "claim_restore", "edge_correct"],
    )
    fb.add_argument("--domain", help="domain_block / domain_unblock: a domain or URL")
    fb.add_argument("--claim", help="claim_reject / claim_restore: the claim id")
    fb.add_argument("--edge", help="edge_correct: the edge id")
    fb.add_argument("--relation", choices=["supports", "refutes", "neutral"])
    fb.add_argument("--reason", help="kept with the change and in event_log")
    fb.add_argument("--json", action="store_true", help="print the result as JSON")
    fb.set_defaults(func=cmd_feedback)
    cal = sub.add_parser("calibration", help="calibration of model probabilities")
    calibration = cal.add_subparsers(dest="calibration_command", required=True)
    cp = calibration.add_parser("plot", help="the reliability diagram of a source, as a PNG")
    cp.add_argument("--source", default="nli", help="nli (default) or claims")
    cp.add_argument("--evaluation", help="this evaluation's bins (default: the latest)")
    cp.add_argument(
        "--out",
        help="PNG path, or a folder to write calibration-SOURCE.png in "
        "(default: ./calibration-SOURCE.png)",
    )
    cp.set_defaults(func=cmd_calibration_plot)
    m = sub.add_parser("models", help="pulled models: NLI, multilingual embedder, reranker")
    models = m.add_subparsers(dest="models_command", required=True)
    mp = models.add_parser("pull", help="download at a pinned revision, verify, export to ONNX")
    mp.add_argument(
        "kind", choices=["nli", "embedder", "reranker", "all"], nargs="?", default="all"
    )
    mp.add_argument("--model", help="hub model id (default: the researched default per kind)")
    mp.add_argument("--revision", help="commit, tag or branch (default: the pinned commit)")
    mp.add_argument("--int8", action="store_true", help="also quantise to int8 and measure it")
    mp.add_argument("--home", help="LYRA_HOME to install into (default: the configured one)")
    mp.add_argument("--json", action="store_true", help="print the new entries as JSON")
    mp.set_defaults(func=cmd_models_pull)
    ml = models.add_parser("list", help="the active model of each kind")
    ml.add_argument("--home", help="LYRA_HOME to read (default: the configured one)")
    ml.add_argument("--json", action="store_true")
    ml.set_defaults(func=cmd_models_list)
    mr = models.add_parser(
        "prepare",
        help="export the packaged embedder to ONNX once for this installation (setup runs it)",
    )
    mr.set_defaults(func=cmd_models_prepare)
    return p


def _reads_settings(args: argparse.Namespace) -> bool:
    """Whether the command reads the settings: `instances`, `down --all`, `models
    prepare` and a command given `--home` do not, and must work whatever LYRA_CONFIG
    holds (stopping every Lyra is how a person recovers from a bad one)."""
    if args.func in (cmd_instances, cmd_models_prepare) or getattr(args, "home", None):
        return False
    return not (args.func is cmd_down and args.all)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `lyra` console script."""
    args = build_parser().parse_args(argv)
    problem = settings_problem() if _reads_settings(args) else None
    if problem is not None:
        print(f"lyra: {problem}", file=sys.stderr)
        return 2
    try:
        rc: int = args.func(args)
    except UserInputError as exc:
        print(f"lyra: {exc}", file=sys.stderr)
        return 2
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
