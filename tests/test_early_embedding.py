"""A search embeds each fetched document's texts as the document arrives, while other
fetches still wait (decision 0027), and the embedding stages then reuse those vectors."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import numpy as np

from lyra.jobs.search_context import SearchContext
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
        return {
            "body": ARTICLE.format(title=title).encode(),
            "final_url": url,
            "headers": {"content-type": "text/html; charset=utf-8"},
            "content_type": "text/html",
            "status": 200,
            "fetched_at": "2026-11-25T00:00:00Z",
        }

    ctx = SearchContext(
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
