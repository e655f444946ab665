"""Replay (issue 15): a task's evidence rebuilt from its own archives, with no request.

For each search of the task, in order, the pages it kept are read again from what Lyra
archived: a local corpus file from its path, a fetched page from its own record in its
WARC file (`pages.warc_offset`: the response record, or a browser capture's rendered
HTML; for a page stored before schema v5, the last exchange for its URL). They
are extracted again and go through the same pipeline as a search (fragments, ranking,
claims, stance) in a new task with the models installed now; then the two tasks are
compared (storage/graph_queries.replay_diff). Decision 0035.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from lyra.pipelines.discover.local_corpus import rescan_file
from lyra.pipelines.extract.content_sniff import decode_text, sniff_content_type
from lyra.pipelines.extract.dates import last_modified_date
from lyra.pipelines.extract.documents import Document
from lyra.pipelines.extract.extract_html import extract_html
from lyra.pipelines.extract.extract_pdf import extract_pdf
from lyra.storage.warc import find_archived, read_capture, read_response


def _record_at(path: Path, offset: int, url: str) -> tuple[bytes, list[tuple[str, str]]] | None:
    """Body and headers of the page's own record: a response, or a browser capture's
    rendered HTML; None when the record there is neither, or is of another URL."""
    try:
        stored = read_response(path, offset)
    except ValueError:
        try:
            capture = read_capture(path, offset)
        except ValueError:
            return None
        if capture.target_uri != url:
            return None
        return capture.html.encode("utf-8"), [("Content-Type", "text/html; charset=utf-8")]
    if stored.target_uri != url:
        return None
    return stored.body, stored.headers


def _from_warc(page: dict[str, Any]) -> tuple[Document | None, str | None]:
    path = Path(page["warc_path"])
    if not path.is_file():
        return None, f"{page['url']}: archive {path} is gone; not replayed"
    url = page["final_url"] or page["url"]
    offset = page.get("warc_offset")
    # A page stored before schema v5 has no offset: the last exchange for its URL.
    found = find_archived(path, url) if offset is None else _record_at(path, int(offset), url)
    if found is None:
        where = path if offset is None else f"{path} at offset {offset}"
        return None, f"{page['url']}: no record of it in {where}; not replayed"
    body, header_items = found
    headers = {k.lower(): v for k, v in header_items}
    ctype = sniff_content_type(headers.get("content-type", ""), body, url)
    if ctype == "application/pdf":
        doc = extract_pdf(body, url, page["domain"])
    else:
        html, _codec = decode_text(body, headers.get("content-type"))
        doc = extract_html(html, url, page["domain"])
    if doc.published_date is None:
        modified = last_modified_date(headers.get("last-modified"))
        if modified is not None:
            doc = replace(doc, published_date=modified.date, date_source=modified.source)
    return doc, None


def archived_documents(
    pages: list[dict[str, Any]], max_file_bytes: int
) -> tuple[list[Document], list[str]]:
    """The documents of ``pages`` (rows of pages) re-extracted from their archives, and
    a warning for each page that could not be read again."""
    docs: list[Document] = []
    warnings: list[str] = []
    for page in pages:
        if page.get("source_path"):
            doc, notes = rescan_file(Path(page["source_path"]), page["domain"], max_file_bytes)
            warnings.extend(notes)
        elif page.get("warc_path"):
            doc, note = _from_warc(page)
            if note:
                warnings.append(note)
        else:
            doc = None
            warnings.append(f"{page['url']}: no archived copy; not replayed")
        if doc is not None:
            docs.append(doc)
    return docs, warnings


# Runs one search of the replay task over given documents and returns the job's result.
RunSearch = Callable[[str, dict[str, Any], list[Document]], Awaitable[dict[str, Any]]]


async def replay_searches(
    sources: list[dict[str, Any]], run: RunSearch, max_file_bytes: int
) -> tuple[int, list[Any], list[str]]:
    """Each search of ``sources`` (``graph_queries.replay_sources``), oldest first, run
    again by ``run`` over its pages read back from the archives: the number of pages
    read back, each search's status, and the warnings (pages not read back, and the
    searches' own)."""
    replayed = 0
    statuses: list[Any] = []
    warnings: list[str] = []
    for src in sources:
        docs, notes = await asyncio.to_thread(archived_documents, src["pages"], max_file_bytes)
        warnings.extend(notes)
        replayed += len(docs)
        if not docs:
            continue
        options = {"max_pages": len(docs), "academic_apis": [], "replay_of": src["search_id"]}
        result = await run(src["query"], options, docs)
        statuses.append(result.get("status"))
        warnings.extend(result.get("warnings") or [])
    return replayed, statuses, warnings


async def replay_into(
    task_id: str,
    replay_task_id: str,
    sources: list[dict[str, Any]],
    run: RunSearch,
    *,
    graph: Callable[..., Awaitable[Any]],
    models: dict[str, Any],
    max_file_bytes: int,
) -> dict[str, Any]:
    """``replay_searches`` into the new task ``replay_task_id``, then what changed
    against ``task_id`` (``replay_diff``), logged on the old task; ``models`` are the
    models the replay judged with."""
    replayed, statuses, warnings = await replay_searches(sources, run, max_file_bytes)
    diff = await graph("replay_diff", task_id, replay_task_id)
    await graph(
        "log_event",
        kind="task_replay",
        actor="orchestrator",
        task_id=task_id,
        payload={
            "replay_task_id": replay_task_id,
            "claims_added": len(diff["claims_added"]),
            "claims_dropped": len(diff["claims_dropped"]),
            "edges_moved": len(diff["edges_moved"]),
        },
    )
    return {
        "task_id": task_id,
        "replay_task_id": replay_task_id,
        "searches": len(sources),
        "pages_replayed": replayed,
        "statuses": statuses,
        "warnings": warnings,
        "models": models,
        **diff,
    }
