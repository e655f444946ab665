"""A search's long steps run off the orchestrator's event loop (decision 0082): while one
runs, the loop goes on (a tool call meanwhile is answered, not queued behind it).

Each test stands a step's work in for 0.3 s of blocking (`time.sleep`, which holds the
loop's thread if called on it) and counts how often a 10 ms ticker on the loop ticked
during that blocking: on the loop's own thread, never.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from lyra.actors.standby import StandbyWorkers
from lyra.jobs import evidence_steps, fetched_documents
from lyra.pipelines.evidence.facets import Facet, Selection
from lyra.pipelines.extract.content_sniff import decode_text
from tests.conftest import make_settings, step_context

BLOCK_S = 0.3
TICK_S = 0.01
# A free loop ticks about 30 times in 0.3 s; 10 leaves room for a busy machine.
MIN_TICKS = 10


class Ticker:
    """Counts 10 ms ticks of a coroutine on the loop; `block` stands in for a step's
    work and records how many ticks passed while it blocked."""

    def __init__(self) -> None:
        self.count = 0
        self.during: list[int] = []

    def block(self) -> None:
        before = self.count
        time.sleep(BLOCK_S)
        self.during.append(self.count - before)

    def run(self, step: Callable[[], Awaitable[Any]]) -> Any:
        async def main() -> Any:
            done = False

            async def tick() -> None:
                while not done:
                    await asyncio.sleep(TICK_S)
                    self.count += 1

            beside = asyncio.create_task(tick())
            try:
                return await step()
            finally:
                done = True
                await beside

        return asyncio.run(main())


def test_choosing_passages_leaves_the_loop_free(
    lyra_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ticker = Ticker()

    def slow_selection(*_: Any, **__: Any) -> Selection:
        ticker.block()
        return Selection([1, 0], {1: "question", 0: "question"}, {"question": 2})

    monkeypatch.setattr(evidence_steps, "select_across_facets", slow_selection)

    async def call(actor: str, method: str, *args: Any) -> Any:
        if (actor, method) == ("inference", "reranker_model_id"):
            return None  # no reranker pulled
        raise AssertionError(f"unexpected call {actor}.{method}")

    ctx = step_context(make_settings(lyra_home), "Is melatonin safe?", call)
    job = SimpleNamespace(
        ctx=ctx, facets=[Facet("question", "Is melatonin safe?", "question")],
        facet_fragments={}, metrics={},
    )  # fmt: skip
    fragments = [
        {"id": f"f{i}", "fragment_type": "paragraph", "text_content": text, "_domain": "a.example"}
        for i, text in enumerate(["Melatonin is safe.", "Doses of 0.5 mg work."])
    ]
    vecs = np.eye(2, dtype=np.float32)

    useful = ticker.run(lambda: evidence_steps.choose_passages(job, fragments, vecs, vecs[:1]))

    assert [f["id"] for f in useful] == ["f1", "f0"]
    assert len(ticker.during) == 1
    assert ticker.during[0] >= MIN_TICKS


def test_decoding_and_extracting_a_page_leaves_the_loop_free(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ticker = Ticker()

    def slow_decode(body: bytes, content_type: str | None) -> tuple[str, str]:
        ticker.block()
        return decode_text(body, content_type)

    monkeypatch.setattr(fetched_documents, "decode_text", slow_decode)
    sentence = "Melatonin shortened sleep onset by 7 minutes in adults."
    page = f"<html><head><title>T</title></head><body><p>{sentence}</p></body></html>"
    result = {
        "body": page.encode(),
        "final_url": "http://a.example/page",
        "content_type": "text/html; charset=utf-8",
        "headers": {"content-type": "text/html; charset=utf-8"},
    }
    warnings: list[str] = []

    read = ticker.run(
        lambda: fetched_documents.read_fetched(result, "http://a.example/page", "s-1", warnings)
    )

    assert read is not None
    assert sentence in read.doc.text
    assert read.html.startswith("<html>")
    assert warnings == []
    assert len(ticker.during) == 1
    assert ticker.during[0] >= MIN_TICKS


def test_counting_standby_workers_leaves_the_loop_free(monkeypatch: pytest.MonkeyPatch) -> None:
    ticker = Ticker()
    standby = StandbyWorkers(target=1)

    class SettledWorker:
        pid = 1

        def cpu_times(self) -> SimpleNamespace:
            return SimpleNamespace(user=1.0, system=0.0)

    def slow_scan() -> list[SettledWorker]:
        ticker.block()
        return [SettledWorker()]

    monkeypatch.setattr(standby, "_connect", lambda: True)
    monkeypatch.setattr(standby, "_idle_workers", slow_scan)

    idle = ticker.run(lambda: standby.top_up(settle=0.0))

    assert idle == 1
    # The first look, then idle and ready once more after a poll: each scan off the loop.
    assert len(ticker.during) == 4
    assert min(ticker.during) >= MIN_TICKS
