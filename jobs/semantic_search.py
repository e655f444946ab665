"""The vector_search tool's lookup: the query embedded, its nearest claims or fragments."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from lyra.pipelines.errors import LyraError

Call = Callable[..., Awaitable[Any]]


async def semantic_search(
    graph: Call,
    inference: Call,
    query: str,
    target: str,
    task_id: str | None,
    top_k: int,
    min_similarity: float,
) -> list[dict[str, Any]]:
    """Claims or fragments (``target``) nearest ``query`` by the serving embedder, within
    a task's when ``task_id`` is given (the caller has checked that it exists), each with
    its similarity and stored fields. ``graph`` and ``inference`` call those actors."""
    allowed: list[str] | None = None
    if task_id is not None:
        if target == "claim":
            allowed = [c["id"] for c in await graph("claims_for_task", task_id)]
        else:
            allowed = await graph("fragment_ids_for_task", task_id)
    model_id = await inference("embedding_model_id")
    if model_id is None:
        raise LyraError("PIPELINE_ERROR", "no embedding model is loaded (see `lyra doctor`)")
    vec = (await inference("embed", [query]))[0]
    hits = await graph(
        "vector_search", vec.tolist(), target, model_id, top_k, min_similarity, allowed
    )
    meta = await graph("texts_for", target, [h[0] for h in hits])
    found = [
        {"id": hid, "similarity": round(float(sim), 4), **meta.get(hid, {})} for hid, sim in hits
    ]
    if task_id is not None:
        # A fragment may serve several tasks; within a task's search it is that task's.
        for hit in found:
            hit["task_id"] = hit.get("task_id") or task_id
    return found
