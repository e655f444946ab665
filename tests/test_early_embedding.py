"""A search embeds each fetched document's texts as the document arrives, while other
fetches still wait (decision 0027), and the embedding stages then reuse those vectors."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from lyra.jobs.search_context import Call, SearchContext
from lyra.jobs.search_job import SearchJob
from tests.conftest import make_settings

ARTICLE = """<html><head><title>{title}</title></head><body><article>
<h1>{title}</h1>
<p>In a randomised trial of 412 adults, drinking three cups of coffee a day raised
systolic blood pressure by 2.1 mmHg on average over eight weeks compared with placebo.</p>
<p>The effect was larger in people who rarely drank coffee before the trial, and it
faded within two weeks in regular drinkers, according to the investigators.</p>
<p>Participants who drank decaffeinated coffee showed no change in blood pressure,
which points to caffeine rather than other compounds in coffee as the cause.</p>
</article></body></html>"""


def _page(url: str, html: str) -> dict[str, Any]:
    """The fetch layer's answer for a page."""
    return {
        "body": html.encode(),
        "final_url": url,
        "headers": {"content-type": "text/html; charset=utf-8"},
        "content_type": "text/html",
        "status": 200,
        "fetched_at": "2026-11-25T00:00:00Z",
    }


def _context(lyra_home: Path, call: Call, fetch_url: Callable[..., Any]) -> SearchContext:
    """A search's context whose actors are ``call`` and whose sites are ``fetch_url``."""
    return SearchContext(
        settings=make_settings(lyra_home),
        task={"id": "task-1", "tag": "tag"},
        search_id="search-1",
        query="coffee and blood pressure",
        options={},
        call=call,
        progress=lambda stage, share, message: None,
        stop_requested=lambda: False,
        pages_left=10,
        deadline=time.monotonic() + 60,
        domain_rules={},
        corpus_cache={},
        fetch_url=fetch_url,
    )


def test_texts_are_embedded_while_the_last_fetch_still_waits(lyra_home: Path) -> None:
    embedded: list[list[str]] = []
    first_embedded = asyncio.Event()

    async def call(actor: str, method: str, *args: Any) -> Any:
        if (actor, method) == ("graph", "embeddings_by_text_hash"):
            return {}
        if (actor, method) == ("inference", "embed"):
            embedded.append(list(args[0]))
            first_embedded.set()
            return [np.full(384, len(t) % 7 + 1, dtype=np.float32).tolist() for t in args[0]]
        raise AssertionError(f"unexpected call {actor}.{method}")

    async def fetch_url(url: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        if url.endswith("/slow"):
            # The last fetch ends only once the first page's texts are being embedded.
            await asyncio.wait_for(first_embedded.wait(), timeout=10)
        title = "Slow page" if url.endswith("/slow") else "Fast page"
        return _page(url, ARTICLE.format(title=title))

    ctx = _context(lyra_home, call, fetch_url)

    async def scenario() -> tuple[list[Any], int, np.ndarray, list[str]]:
        job = SearchJob(ctx)
        job.model_id = "test-embedder"
        docs = await job._fetch_documents(["http://127.0.0.1:9/fast", "http://127.0.0.1:9/slow"])
        texts = [f.text for d in docs for f in d.fragments]
        calls_before_stage = len(embedded)
        vectors = await job.embed_texts(texts)
        return docs, calls_before_stage, vectors, texts

    docs, calls_before_stage, vectors, texts = asyncio.run(scenario())
    assert [d.title for d in docs] == ["Fast page", "Slow page"]
    assert len(texts) == 2 * len(docs[0].fragments)
    # The first call held the fast page's texts only: it ran before the slow page came.
    assert all("Slow page" not in t for t in embedded[0])
    # The stage asked the InferenceActor for nothing new: every vector was made ahead.
    assert len(embedded) == calls_before_stage
    assert sorted({t for call in embedded for t in call} & set(texts)) == sorted(set(texts))
    assert vectors.shape == (len(texts), 384)


def test_texts_still_queued_when_the_stages_begin_go_in_one_call(lyra_home: Path) -> None:
    """The sites' last answers come together: the texts of the pages that arrived while a
    call was embedding are embedded in one more call when the search ranks, and the
    fragment stage asks for nothing (decision 0112); they are not dropped and asked for
    again, page texts in one call and fragments in another."""
    embedded: list[list[str]] = []
    first_asked = asyncio.Event()
    release = asyncio.Event()

    async def call(actor: str, method: str, *args: Any) -> Any:
        if (actor, method) == ("graph", "embeddings_by_text_hash"):
            return {}
        if (actor, method) == ("inference", "embed"):
            embedded.append(list(args[0]))
            first_asked.set()
            await asyncio.wait_for(release.wait(), timeout=10)
            return [np.full(384, len(t) % 7 + 1, dtype=np.float32).tolist() for t in args[0]]
        raise AssertionError(f"unexpected call {actor}.{method}")

    async def fetch_url(url: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        n = url.rsplit("/", 1)[1]
        # each page its own numbers, so that no text of one is a text of another
        body = ARTICLE.format(title=f"Page {n}").replace("412", f"41{n}").replace("2.1", f"2.{n}")
        return _page(url, body.replace("two weeks", f"{n} weeks"))

    ctx = _context(lyra_home, call, fetch_url)

    async def scenario() -> tuple[list[Any], int]:
        job = SearchJob(ctx)
        job.model_id = "test-embedder"
        docs = await job._fetch_documents(["http://127.0.0.1:9/1"])
        await asyncio.wait_for(first_asked.wait(), timeout=10)
        # the first page's call is still out when the last two pages come
        docs += await job._fetch_documents(["http://127.0.0.1:9/2", "http://127.0.0.1:9/3"])
        release.set()
        await job.vectors.page_cosines(docs, np.ones(384, dtype=np.float32))
        calls_when_ranked = len(embedded)
        await job.embed_texts([f.text for d in docs for f in d.fragments])
        return docs, calls_when_ranked

    docs, calls_when_ranked = asyncio.run(scenario())
    texts = [[f.text for f in d.fragments] for d in docs]
    assert [d.title for d in docs] == ["Page 1", "Page 2", "Page 3"]
    assert calls_when_ranked == 2
    assert embedded[0] == texts[0]
    # the two later pages' texts in one call, each text once
    assert sorted(embedded[1]) == sorted(set(texts[1] + texts[2]))
    assert len(embedded) == 2
