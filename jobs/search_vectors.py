"""A search's vectors: its texts embedded once, as early as they are known.

Each fetched document's texts (the passages that stand for the page in ranking, and
every fragment) are queued for the InferenceActor as the document arrives, while the
other fetches still wait on their sites' politeness (decision 0027). The stages that
need vectors later (ranking, storing, claims) take them from there first, then from the
graph's stored vector of the same text and model, and only then ask the model. A page's
vector for ranking is the mean of its leading passages' vectors, so ranking a fetched
page costs no embedding of its own (decision 0030).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import numpy as np

from lyra.jobs.search_context import SearchContext
from lyra.pipelines.evidence import research as rs
from lyra.pipelines.extract.documents import Document

log = logging.getLogger(__name__)

# A page's vector for ranking is the mean of the vectors of the passages that begin
# in its first this many characters (about the 256 tokens the embedder reads of one
# text).
PAGE_VECTOR_CHARS = 1000
# Texts per call to the InferenceActor.
EMBED_BATCH = 64
# The width of the answer for no texts (the packaged embedder's).
EMPTY_WIDTH = 384


def page_vector_texts(doc: Document) -> list[str]:
    """The texts whose mean vector stands for ``doc`` when pages are ranked: its passages
    beginning in the first `PAGE_VECTOR_CHARS` characters (at least one; headings are
    passages, so a page's own heading is among them, and the site-branded ``<title>``
    is left out); a page without passages falls back to its title and leading text."""
    lead = [f.text for f in doc.fragments if f.char_start < PAGE_VECTOR_CHARS]
    return lead or [f.text for f in doc.fragments[:1]] or [f"{doc.title or ''}\n{doc.text[:2000]}"]


class SearchVectors:
    """The vectors of one search's texts, by text hash, made ahead where it can."""

    def __init__(self, ctx: SearchContext) -> None:
        self.ctx = ctx
        # The InferenceActor's embedding model (None: it has none; nothing is embedded).
        self.model_id: str | None = None
        # Text hash -> vector of what fetched documents hold, embedded as each document
        # arrives; the embedding stages take their vectors from here first.
        self._early: dict[str, np.ndarray] = {}
        # Texts waiting for the one early-embedding loop, which takes all that wait
        # (up to a batch) on each call, so that the batches grow while it is busy.
        self._queue: dict[str, str] = {}
        self._loop: asyncio.Task[None] | None = None

    def queue_document(self, doc: Document) -> None:
        """Start embedding the texts the ranking and embedding stages will ask of
        ``doc`` (`page_cosines`, `embed_targets`), now rather than after the last fetch."""
        if self.model_id is None or not doc.fragments:
            return
        for text in [*page_vector_texts(doc), *(f.text for f in doc.fragments)]:
            h = rs.text_hash(text)
            if h not in self._early:
                self._queue[h] = text
        if self._loop is None or self._loop.done():
            self._loop = asyncio.create_task(self._embed_queued())

    async def _embed_queued(self) -> None:
        """Drain the queue into the early vectors, a batch at a time."""
        while self._queue:
            chunk = dict(list(self._queue.items())[:EMBED_BATCH])
            for h in chunk:
                del self._queue[h]
            self._early.update(await self.vectors_for(chunk))

    async def settle(self) -> None:
        """Wait for the embeddings started ahead, the texts still queued included: the
        last pages' texts arrive together, as the sites' last answers do, and the stages
        after ranking need them all, so they go in one call rather than one per stage
        (decision 0112). A failure is only logged: the texts left are embedded by the
        stage that needs them."""
        loop, self._loop = self._loop, None
        if loop is None:
            return
        try:
            await loop
        except Exception as exc:
            self._queue.clear()
            log.warning(
                "search %s: early embedding failed (%s: %s); embedding in the stage",
                self.ctx.search_id,
                type(exc).__name__,
                exc,
            )

    def cancel(self) -> None:
        """Drop the embeddings started ahead (the search ended before it needed them)."""
        if self._loop is not None:
            self._loop.cancel()

    async def vectors_for(self, texts: dict[str, str]) -> dict[str, np.ndarray]:
        """Vector of each text (keyed by text hash): the graph's stored vector of the same
        text and model where there is one, else the InferenceActor's, in batches."""
        stored = await self.ctx.call(
            "graph", "embeddings_by_text_hash", self.model_id, sorted(texts)
        )
        out = {h: np.asarray(v, dtype=np.float32) for h, v in stored.items()}
        todo = [(h, t) for h, t in texts.items() if h not in out]
        for start in range(0, len(todo), EMBED_BATCH):
            chunk = todo[start : start + EMBED_BATCH]
            vecs = await self.ctx.call("inference", "embed", [t for _, t in chunk])
            for (h, _), v in zip(chunk, vecs, strict=True):
                out[h] = np.asarray(v, dtype=np.float32)
        return out

    async def embed_texts(self, texts: list[str]) -> np.ndarray:
        """Vectors for texts, reusing any embedded ahead as the documents arrived and any
        stored vector of the same text and model."""
        await self.settle()
        if not texts:
            return np.zeros((0, EMPTY_WIDTH), dtype=np.float32)
        hashes = [rs.text_hash(t) for t in texts]
        by_hash = {h: self._early[h] for h in hashes if h in self._early}
        missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in by_hash}
        if missing:
            by_hash.update(await self.vectors_for(missing))
        return np.stack([by_hash[h] for h in hashes])

    async def embed_targets(
        self, target_type: str, rows: list[dict[str, Any]], text_key: str = "text_content"
    ) -> np.ndarray:
        """Vectors of ``rows``' texts, stored in the graph as ``target_type``'s."""
        vecs = await self.embed_rows(rows, text_key)
        await self.store(target_type, rows, vecs, text_key)
        return vecs

    async def embed_rows(
        self, rows: list[dict[str, Any]], text_key: str = "text_content"
    ) -> np.ndarray:
        """Vectors of ``rows``' texts (no columns without an embedding model)."""
        if self.model_id is None or not rows:
            return np.zeros((len(rows), 0), dtype=np.float32)
        return await self.embed_texts([r[text_key] for r in rows])

    async def store(
        self,
        target_type: str,
        rows: list[dict[str, Any]],
        vecs: np.ndarray,
        text_key: str = "text_content",
    ) -> None:
        """Store ``vecs`` in the graph as the vectors of ``rows`` (``target_type``'s), as
        arrays: a list of floats per row cost the GraphActor call four times the time
        to serialise and read back."""
        if self.model_id is None or not rows:
            return
        await self.ctx.call(
            "graph",
            "put_embeddings",
            target_type,
            self.model_id,
            [(r["id"], rs.text_hash(r[text_key]), v) for r, v in zip(rows, vecs, strict=True)],
        )

    async def page_cosines(self, docs: list[Document], query_vec: np.ndarray) -> np.ndarray:
        """Cosine of each page's vector (`page_vector_texts`, averaged) to the query's."""
        if self.model_id is None:
            return np.zeros(len(docs), dtype=np.float32)
        per_doc = [page_vector_texts(d) for d in docs]
        vecs = await self.embed_texts([t for texts in per_doc for t in texts])
        ends = np.cumsum([len(texts) for texts in per_doc])
        pages = np.stack(
            [vecs[end - len(t) : end].mean(axis=0) for t, end in zip(per_doc, ends, strict=True)]
        )
        pages /= np.maximum(np.linalg.norm(pages, axis=1, keepdims=True), 1e-9)
        return np.asarray(pages @ query_vec, dtype=np.float32)
