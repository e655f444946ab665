"""`lyra research`: one question through the whole pipeline, offline, and its claims as
a table or JSON; and the settings with a `--corpus` folder that `research` and `serve`
share."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

from lyra.config.settings import Settings, load_settings
from lyra.mcp_bridge.cli_input import UserInputError, json_text, rich_text, terminal_safe
from lyra.mcp_bridge.responses import public_metrics
from lyra.pipelines.evidence.research import new_search_id, new_task_id


def settings_with_corpus(corpus: str | None) -> Settings:
    if corpus is None:
        return load_settings()
    path = Path(corpus).expanduser().resolve()
    # The scanner takes a folder (each subfolder one source) or one document
    # (pipelines/discover/local_corpus.py).
    if not path.exists():
        raise UserInputError(f"corpus path {path} does not exist")
    if not (path.is_dir() or path.is_file()):
        raise UserInputError(f"corpus path {path} is neither a folder nor a file")
    base = load_settings()
    # Only the keys the user named: engines.yaml fills in the rest (load_engines).
    engines = {k: v.model_dump(exclude_unset=True) for k, v in base.engines.items()}
    engines.setdefault("local", {})
    engines["local"] = {**engines["local"], "enabled": True, "paths": [str(path)]}
    # Actors get the corpus through the settings object passed to them.
    return load_settings(engines=engines)


async def _research(
    settings: Settings, question: str, max_pages: int | None, as_json: bool
) -> dict[str, Any]:
    from lyra.mcp_bridge.errors import unwrap
    from lyra.mcp_bridge.lyra_runtime import LyraRuntime
    from lyra.mcp_bridge.responses import task_security

    rt = LyraRuntime(settings)
    # None: the settings' defaults (task.default_max_pages, search.default_max_pages).
    given = {} if max_pages is None else {"max_pages": max_pages}
    try:
        task = await rt.call(
            "create_task", question, {"budget": given} if given else {}, new_task_id()
        )
        opts: dict[str, Any] = dict(given)
        search_id = await rt.call("start_search", task["id"], question, opts, None, new_search_id())
        result = await _wait_with_progress(rt, search_id, quiet=as_json)
        claims = await rt.call("get_status", task["id"], 0)
        meta = await rt.meta(
            claims["claims"], result.get("warnings"), security=task_security([result])
        )
    except Exception as exc:
        raise unwrap(exc) from None
    return {"task": task, "search": result, "claims": claims["claims"], "meta": meta}


async def _wait_with_progress(rt: Any, search_id: str, quiet: bool) -> dict[str, Any]:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    if quiet:
        while True:
            polled = await rt.call("wait_search", search_id, 5.0)
            if polled["done"]:
                return dict(polled["result"])
    with Progress(
        # The progress message can quote a page (its title, its URL): no markup.
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        TimeElapsedColumn(),
        console=console(stderr=True),
        transient=False,
    ) as bar:
        tid = bar.add_task("starting", total=1.0)
        while True:
            polled = await rt.call("wait_search", search_id, 0.5)
            if polled["done"]:
                bar.update(tid, completed=1.0, description=polled["result"]["status"])
                return dict(polled["result"])
            prog = polled["progress"]
            bar.update(
                tid,
                completed=prog.get("progress", 0.0),
                description=terminal_safe(str(prog.get("message", ""))),
            )


def console(stderr: bool = False) -> Any:
    from rich.console import Console

    return Console(
        stderr=stderr,
        width=max(100, min(160, os.get_terminal_size(2).columns if sys.stderr.isatty() else 140)),
    )


def _claim_json(c: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": c["id"],
        "text": c["claim_text"],
        "confidence": round(c["confidence"], 4),
        "uncertainty": round(c["uncertainty"], 4),
        "controversy": round(c["controversy"], 4),
        "supports": c["supporting"],
        "refutes": c["refuting"],
        "neutral": c["neutral"],
        "independent_sources": c["independent_sources"],
        "sources": sorted(
            {u for u in [c.get("source_url"), *c["supporting_urls"], *c["refuting_urls"]] if u}
        ),
        "source_url": c.get("source_url"),
        "supporting_urls": c["supporting_urls"],
        "refuting_urls": c["refuting_urls"],
    }


def cmd_research(args: argparse.Namespace) -> int:
    """Run one research question through the whole pipeline and print the claims."""
    from lyra.pipelines.errors import LyraError

    settings = settings_with_corpus(args.corpus)
    if not settings.engine("local").paths:
        print("lyra: no corpus: pass --corpus DIR or set engines.local.paths", file=sys.stderr)
        return 2
    started = time.monotonic()
    try:
        out = asyncio.run(_research(settings, args.question, args.max_pages, args.json))
    except LyraError as exc:
        print(f"lyra: {exc.code}: {terminal_safe(exc.message)}", file=sys.stderr)
        return 1
    search = out["search"]
    # Claims with evidence for or against them first, the most debated first.
    claims = sorted(
        out["claims"],
        key=lambda c: (-(c["supporting"] + c["refuting"]), -c["confidence"], c["id"]),
    )
    if search["status"] == "failed":
        err = search.get("error") or {}
        said = terminal_safe(f"{err.get('code')}: {err.get('message')}")
        print(f"lyra: search failed: {said}", file=sys.stderr)
        return 1
    if args.json:
        print(
            json_text(
                {
                    "task_id": out["task"]["id"],
                    "search_id": search["search_id"],
                    "status": search["status"],
                    "metrics": public_metrics(search["metrics"]),
                    "warnings": search.get("warnings", []),
                    "claims": [_claim_json(c) for c in claims],
                    "_lyra_meta": out["meta"].model_dump(mode="json"),
                }
            )
        )
        return 0
    print_table(out, claims, time.monotonic() - started)
    return 0


def _domains(urls: list[str]) -> list[str]:
    """Source folder (local corpus) or host of each URL, in order, once each."""
    out: list[str] = []
    for url in urls:
        name = Path(url).parent.name if url.startswith("file://") else url.split("/")[2]
        if name not in out:
            out.append(name)
    return out


def print_table(out: dict[str, Any], claims: list[dict[str, Any]], elapsed: float) -> None:
    from rich.markup import escape
    from rich.table import Table

    out_console = console()
    title = rich_text(f"Claims for: {out['task']['query']}")
    table = Table(title=title, show_lines=True, expand=True)
    table.add_column("#", justify="right", width=3)
    table.add_column("claim", ratio=5)
    table.add_column("confidence", justify="center", width=13)
    table.add_column("sup/ref", justify="center", width=7)
    table.add_column("sources", ratio=2)
    for i, c in enumerate(claims, start=1):
        lines = [f"from {c.get('source_domain')}"]
        if c["supporting_urls"]:
            lines.append("supports: " + ", ".join(_domains(c["supporting_urls"])))
        if c["refuting_urls"]:
            lines.append("refutes: " + ", ".join(_domains(c["refuting_urls"])))
        table.add_row(
            str(i),
            rich_text(c["claim_text"]),
            f"{c['confidence']:.2f} ± {c['uncertainty']:.2f}",
            f"{c['supporting']}/{c['refuting']}",
            rich_text("\n".join(lines)),
        )
    out_console.print(table)
    met = out["search"]["metrics"]
    out_console.print(
        f"task {out['task']['id']}  status {out['search']['status']}  "
        f"pages {met.get('pages_fetched')}"
        f"  useful fragments {met.get('useful_fragments')}  claims {len(claims)}  {elapsed:.1f}s"
    )
    for d in out["meta"].degraded:
        out_console.print(f"[yellow]degraded:[/yellow] {escape(terminal_safe(d))}")
