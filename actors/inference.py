"""InferenceActor: the one owner of the models (and of the GPU when there is one).

Holds the embedder (all-MiniLM-L6-v2 on ONNX Runtime), the NLI judge (in this order: the
cross-encoder folder ``inference.nli_model_path`` names, the model ``lyra models pull
nli`` registered, Lyra's packaged stance model (the offline default, also chosen by
``nli_model_path: packaged``), and only when that fails to load the documented lexical
heuristic), the reranker ``lyra models pull reranker`` registered (if any; decision
0047) and the LLM client (Ollama when it answers, else extractive claims). Every fallback
in use is listed by :meth:`status` and travels to clients in ``_lyra_meta.degraded``.

Fault behaviour: ``max_restarts=3``, ``max_task_retries=1``. Every method is a pure
function of its arguments (idempotent), so one retry after a crash is safe; retries
are finite because a call that crashes the process (GPU OOM) would otherwise burn
every restart. ``__init__`` loads the models (``reload_models`` again after a pull);
there is no other state.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import ray

import lyra.actors.telemetry as telemetry
from lyra.actors.runtime import INFERENCE, report_restart, setup_actor_logging
from lyra.config.settings import Settings
from lyra.pipelines.discover.citations import build_relevance_prompt, parse_relevance
from lyra.pipelines.discover.papers import paper_from_record
from lyra.pipelines.discover.query_mirror import (
    build_mirror_prompt,
    needs_mirror,
    parse_mirror,
)
from lyra.pipelines.evidence.claims import (
    ExtractedClaim,
    build_claim_prompt,
    extract_claims_extractive,
    is_rejected_claim,
    parse_claims_response,
)
from lyra.pipelines.evidence.embedding import load_default_embedder, load_pulled_embedder
from lyra.pipelines.evidence.leftovers import warm_lexicon
from lyra.pipelines.evidence.model_registry import (
    RegistryEntry,
    active_model,
    registry_fingerprint,
)
from lyra.pipelines.evidence.nli import CrossEncoderNli
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli
from lyra.pipelines.evidence.onnx_export import MINILM_MODEL_ID
from lyra.pipelines.evidence.reranker import CrossEncoderReranker
from lyra.pipelines.evidence.rule_faults import CLAIMS, fault_summary, guarded
from lyra.pipelines.evidence.stance_model import (
    PACKAGED,
    STANCE_MODEL_ID,
    PackagedStance,
    load_packaged_stance,
)
from lyra.pipelines.evidence.stance_sweep import contradiction_candidates, read_ahead
from lyra.pipelines.llm.ollama import OllamaLLM
from lyra.pipelines.llm.sanitize import check_llm_output, sanitize_untrusted

log = logging.getLogger(__name__)

T = TypeVar("T")

# The InferenceActor's CPU work (embedding, stance) is batch work: on a machine whose
# cores it fills, the processes that answer tool calls and pace the fetches come first
# (decision 0026). A niceness of 10 only matters while the CPU is contended.
INFERENCE_NICENESS = 10

# Every tool response's _lyra_meta asks for status(): it has a thread of its own, so
# it is answered while a long embedding or stance batch runs (decision 0026). It reads
# attributes only; the model calls stay one at a time in the default group.
STATUS_GROUP = "status"

# The packaged model is the offline default, and still reported: a MiniLM-sized model
# reads stance less well than a DeBERTa-v3 NLI cross-encoder (docs/stance-model.md).
DEGRADED_NLI_PACKAGED = (
    f"nli: packaged MiniLM stance model ({STANCE_MODEL_ID}); a DeBERTa-v3 NLI cross-encoder "
    "(`lyra models pull nli`) reads better"
)
DEGRADED_NLI_PACKAGED_CROSS = (
    f"nli: packaged MiniLM stance model ({STANCE_MODEL_ID}) without the embedder's "
    "features (cross-encoder head only, weaker); a DeBERTa-v3 NLI cross-encoder "
    "(`lyra models pull nli`) reads better"
)
DEGRADED_NLI = (
    "nli: lexical heuristic stance (the packaged stance model did not load, see nli_error; "
    "or set inference.nli_model_path)"
)
DEGRADED_LLM = (
    "llm: Ollama not reachable; extractive claim fallback, embedding-only citation "
    "relevance, no language mirror queries"
)
DEGRADED_PULLED_RERANKER = (
    "reranker: the pulled reranker did not load (see `lyra doctor`); passages are ranked without it"
)
DEGRADED_EMBEDDER = "embedder: embedding model unavailable; BM25-only ranking"
DEGRADED_PULLED_NLI = (
    "nli: the pulled NLI model did not load (see `lyra doctor`); the packaged stance model serves"
)
DEGRADED_PULLED_EMBEDDER = (
    "embedder: the pulled embedding model did not load (see `lyra doctor`); the packaged "
    "all-MiniLM-L6-v2 serves"
)


# The old default value, which always behaved as `auto`: configuration files that
# copied it keep the pulled embedder after a pull.
AUTO_EMBEDDERS = ("auto", "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2")


def choose_embedder(
    setting: str, pulled: RegistryEntry | None
) -> tuple[RegistryEntry | None, str | None]:
    """The pulled embedder to load under ``inference.embedding_model``, and why none is
    when one was asked for (a degraded note).

    ``auto`` (or the old default, the packaged model's name): the pulled one when
    installed, else the packaged all-MiniLM-L6-v2; ``packaged``: that one, even with
    another pulled; any other name: the pulled model of that id (its last path part
    matches too, ``bge-m3`` for ``BAAI/bge-m3``), else the packaged one, flagged.
    """
    wanted = setting.strip()
    if wanted.lower() in (name.lower() for name in AUTO_EMBEDDERS):
        return pulled, None
    if wanted.lower() == "packaged":
        return None, None
    names = (pulled.model_id, pulled.model_id.rsplit("/", 1)[-1]) if pulled is not None else ()
    if pulled is not None and wanted.lower() in (n.lower() for n in names):
        return pulled, None
    have = f"the pulled one is {pulled.model_id}" if pulled is not None else "none is pulled"
    return None, (
        f"inference.embedding_model is {wanted!r} but {have} (`lyra models pull embedder "
        f"--model {wanted}`)"
    )


def _attempt(what: str, load: Callable[[], T]) -> tuple[T | None, str | None]:
    """``load()``, or None and the error (logged) when it fails: a fallback serves, and
    :meth:`InferenceActor.status` names the error."""
    try:
        return load(), None
    except Exception as exc:
        log.exception("%s failed to load; falling back", what)
        return None, f"{type(exc).__name__}: {exc}"


def _read_failed(reading: Future[None]) -> None:
    """A reading ahead that failed is logged; the sweep reads the same texts again, and
    fails the search there if it must."""
    if not reading.cancelled() and reading.exception() is not None:
        log.warning("reading ahead failed", exc_info=reading.exception())


@ray.remote(  # type: ignore[call-overload]  # Ray's stubs lack concurrency_groups
    max_restarts=3, max_task_retries=1, concurrency_groups={STATUS_GROUP: 1}
)
class InferenceActor:
    """Embeddings, NLI and the LLM client behind one serialised actor."""

    def __init__(self, settings: Settings, use_gpu: bool = False) -> None:
        setup_actor_logging(settings.home_dir)
        report_restart(INFERENCE, settings.ray.namespace)
        if hasattr(os, "nice"):
            os.nice(INFERENCE_NICENESS)
        self._settings = settings
        self._use_gpu = use_gpu
        self._load_models()
        # Reading claims needs lemminflect's tables: loaded beside the first calls, not
        # in the first search's claims (decision 0111).
        threading.Thread(target=warm_lexicon, name="lyra-lexicon", daemon=True).start()
        # The texts it embeds are read for the contradiction rules in a thread of their
        # own, while the search's other pages still wait on their sites (decision 0112).
        self._reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lyra-read-ahead")
        self._llm = OllamaLLM(
            settings.llm.ollama_host, settings.llm.model, settings.llm.timeout_seconds
        )
        self._llm_ok = settings.llm.enabled and self._llm.available()

    def _load_models(self) -> None:
        """Load the embedder and the stance judge the configuration and the registry
        name now (at start, and on ``reload_models``)."""
        settings, use_gpu = self._settings, self._use_gpu
        inf = settings.inference
        providers = ["CUDAExecutionProvider", "CPUExecutionProvider"] if use_gpu else None
        self._registry_key = registry_fingerprint(settings.home_dir)
        # `lyra models pull embedder` (bge-m3 by default) serves from the next start; a
        # pulled model that does not load falls back to the packaged one, flagged; the
        # packaged one failing leaves BM25-only ranking, flagged.
        self._embedder: Any | None = None
        self._pulled_embedder_error: str | None = None
        pulled_embedder, self._pulled_embedder_error = choose_embedder(
            inf.embedding_model, active_model(settings.home_dir, "embedder")
        )
        if pulled_embedder is not None:
            self._embedder, self._pulled_embedder_error = _attempt(
                "pulled embedder",
                lambda: load_pulled_embedder(
                    pulled_embedder,
                    max_length=inf.max_sequence_length,
                    batch_size=inf.embedding_batch_size,
                    providers=providers,
                ),
            )
        self._embedder_error: str | None = None
        if self._embedder is None:
            self._embedder, self._embedder_error = _attempt(
                "embedder",
                lambda: load_default_embedder(
                    settings.home_dir,
                    max_length=inf.max_sequence_length,
                    batch_size=inf.embedding_batch_size,
                    providers=providers,
                ),
            )
        # `lyra models pull reranker` (bge-reranker-v2-m3 by default): re-orders each
        # facet's best passages from the next start (decision 0047); none is packaged,
        # so without one the hybrid ranking serves, as it always has (not a fallback).
        self._reranker: CrossEncoderReranker | None = None
        self._pulled_reranker_error: str | None = None
        pulled_reranker = active_model(settings.home_dir, "reranker")
        if pulled_reranker is not None:
            self._reranker, self._pulled_reranker_error = _attempt(
                "pulled reranker",
                lambda: CrossEncoderReranker(
                    pulled_reranker.path,
                    max_length=inf.max_sequence_length,
                    batch_size=inf.nli_batch_size,
                    use_gpu=use_gpu,
                    model_id=pulled_reranker.served_id,
                ),
            )
        self._nli: CrossEncoderNli | PackagedStance | None = None
        self._nli_error: str | None = None
        self._pulled_nli_error: str | None = None
        # True when the packaged stance model reads the serving embedder's vectors.
        self._stance_reads_embedder = False
        nli_at = functools.partial(
            CrossEncoderNli,
            max_length=inf.max_sequence_length,
            batch_size=inf.nli_batch_size,
            use_gpu=use_gpu,
        )
        if inf.nli_model_path and inf.nli_model_path != PACKAGED:
            # A configured model that does not load is an error, never a silent fallback.
            self._nli = nli_at(Path(inf.nli_model_path).expanduser())
            return
        # `lyra models pull nli` (registry under LYRA_HOME), from the next start on; one
        # that does not load falls back to the packaged model, flagged.
        pulled = None if inf.nli_model_path else active_model(settings.home_dir, "nli")
        if pulled is not None:
            self._nli, self._pulled_nli_error = _attempt(
                "pulled NLI model",
                lambda: nli_at(pulled.path, model_id=pulled.served_id),
            )
        if self._nli is None:
            # The offline default (issue 12, decision 0018): Lyra's packaged stance model,
            # reading the embedder's vectors when the embedder loaded; a broken install
            # leaves the heuristic, flagged.
            self._nli, self._nli_error = _attempt(
                "packaged stance model",
                lambda: load_packaged_stance(
                    embed=self._stance_embed(settings, providers),
                    max_length=inf.max_sequence_length,
                    batch_size=inf.nli_batch_size,
                    use_gpu=use_gpu,
                ),
            )

    def reload_models(self) -> bool:
        """Load the models installed now if a pull (or an edit of the registry) changed
        them since they were loaded; True when it did (idempotent). ``lyra replay``
        asks this first: a replay judges with the models installed now (decision 0036).
        Calls queued behind it wait; a search already running continues with the new
        models from its next batch."""
        if registry_fingerprint(self._settings.home_dir) == self._registry_key:
            return False
        log.info("the model registry changed: loading the models installed now")
        self._load_models()
        return True

    def _stance_embed(self, settings: Settings, providers: list[str] | None) -> Any:
        """The all-MiniLM-L6-v2 ``embed`` the packaged stance head was fitted on, or None.

        The serving embedder when it is that model; when a pulled one (bge-m3) serves, a
        second, packaged MiniLM for the stance features only (its vectors mean nothing
        to the head); None when that does not load (the cross-encoder-only head judges,
        reported as degraded).
        """
        if self._embedder is not None and self._embedder.model_id == MINILM_MODEL_ID:
            self._stance_reads_embedder = True
            return self._embedder.embed
        try:
            minilm = load_default_embedder(
                settings.home_dir,
                max_length=settings.inference.max_sequence_length,
                batch_size=settings.inference.embedding_batch_size,
                providers=providers,
            )
        except Exception:
            log.exception("packaged MiniLM for the stance model failed to load")
            return None
        return minilm.embed

    @ray.method(concurrency_group=STATUS_GROUP)
    def status(self) -> dict[str, Any]:
        """Models in use and every fallback (idempotent)."""
        degraded: list[str] = []
        if self._embedder is None:
            degraded.append(DEGRADED_EMBEDDER)
        if self._pulled_embedder_error is not None:
            degraded.append(f"{DEGRADED_PULLED_EMBEDDER}: {self._pulled_embedder_error}")
        if self._pulled_nli_error is not None:
            degraded.append(f"{DEGRADED_PULLED_NLI}: {self._pulled_nli_error}")
        if self._pulled_reranker_error is not None:
            degraded.append(f"{DEGRADED_PULLED_RERANKER}: {self._pulled_reranker_error}")
        if self._nli is None:
            degraded.append(DEGRADED_NLI)
        elif isinstance(self._nli, PackagedStance):
            degraded.append(
                DEGRADED_NLI_PACKAGED if self._nli.uses_embedder else DEGRADED_NLI_PACKAGED_CROSS
            )
        if not self._llm_ok:
            degraded.append(DEGRADED_LLM)
        faults = fault_summary()
        if faults is not None:
            degraded.append(faults)
        return {
            "embedding_model": self._embedder.model_id if self._embedder else None,
            "embedding_error": self._embedder_error,
            "nli": (self._nli.model_id if self._nli else "heuristic"),
            "nli_error": self._nli_error,
            "reranker": self._reranker.model_id if self._reranker else None,
            "llm": f"ollama:{self._settings.llm.model}" if self._llm_ok else "extractive",
            "degraded": degraded,
        }

    def embedding_model_id(self) -> str | None:
        """Id stored with every vector (idempotent)."""
        return self._embedder.model_id if self._embedder else None

    def embed(self, texts: list[str]) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text (idempotent)."""
        if self._embedder is None:
            raise RuntimeError("no embedding model loaded: " + (self._embedder_error or ""))
        started = time.perf_counter()
        vectors = np.asarray(self._embedder.embed(texts), dtype=np.float32)
        telemetry.inference_batch("embed", len(texts), time.perf_counter() - started)
        self._reader.submit(read_ahead, list(texts)).add_done_callback(_read_failed)
        if self._stance_reads_embedder and isinstance(self._nli, PackagedStance):
            # The search embeds its fragments and claims before the stance step: the
            # packaged stance model reads these same vectors (decision 0018).
            self._nli.remember(texts, vectors)
        return vectors

    def reranker_model_id(self) -> str | None:
        """The pulled reranker serving, or None (idempotent)."""
        return self._reranker.model_id if self._reranker else None

    def rerank(self, pairs: list[tuple[str, str]]) -> list[float]:
        """The pulled reranker's relevance logit of each (query, passage) pair (idempotent)."""
        if self._reranker is None:
            raise RuntimeError(
                "no reranker loaded: " + (self._pulled_reranker_error or "none pulled")
            )
        started = time.perf_counter()
        scores = self._reranker.score(pairs)
        telemetry.inference_batch("rerank", len(pairs), time.perf_counter() - started)
        return [float(x) for x in scores]

    def nli(self, pairs: list[tuple[str, str]]) -> list[dict[str, Any]]:
        """Stance of each (premise fragment, hypothesis claim) pair (idempotent)."""
        started = time.perf_counter()
        if self._nli is not None:
            results = self._nli.judge(pairs)
            method = "nli_model"
        else:
            results = [heuristic_nli(p, h) for p, h in pairs]
            method = "heuristic"
        telemetry.inference_batch("nli", len(pairs), time.perf_counter() - started)
        model = self._nli.model_id if self._nli is not None else "heuristic"
        return [
            {"label": r.label, "confidence": float(r.confidence), "method": method, "model": model}
            for r in results
        ]

    def contradiction_candidates(
        self,
        claims: list[tuple[str, str]],
        fragments: dict[str, str],
        left_out: dict[str, set[str]],
        near: dict[str, list[str]] | None = None,
    ) -> dict[str, list[str]]:
        """For each (claim id, text), the fragments (id -> text) the contradiction rules
        read as disagreeing with it, leaving out ``left_out``'s, every sentence of
        ``near``'s read (`stance_sweep`): rules only, no model. Here rather than in the
        orchestrator, whose tool calls wait while a thread of it reads (decision 0112).
        Idempotent."""
        return contradiction_candidates(claims, fragments, left_out, near)

    def relevance(
        self, query: str, papers: list[dict[str, Any]], tag: str
    ) -> list[float | None] | None:
        """LLM relevance 0-10 of each paper to the query (seed 001 stage 2); None without an LLM.

        A reply that does not parse is None for that paper only; a lost LLM server
        makes the whole answer None (the caller ranks by embeddings, flagged degraded).
        Idempotent.
        """
        if not self._llm_ok or not papers:
            return None
        out: list[float | None] = []
        for record in papers:
            system, user = build_relevance_prompt(query, paper_from_record(record), tag)
            try:
                raw = self._llm.generate(user, system=system, format_json=True)
            except Exception:  # the server went away mid-run: embedding-only from here
                log.warning("LLM call failed; citation relevance falls back to embeddings")
                self._llm_ok = False
                return None
            out.append(parse_relevance(check_llm_output(raw, system, max_chars=2000).text))
        return out

    def mirror_query(self, query: str, tag: str, language: str | None = None) -> str | None:
        """The query translated by the LLM (a mirror query), or None (idempotent).

        Into the task's `language` (into English when the query is visibly written in
        it already), or ja<->en without one (`query_mirror.mirror_language`).

        None without an LLM or when the answer is not a usable translation
        (`query_mirror.parse_mirror`): Lyra never sends a query the client did not ask
        for in substance.
        """
        if not self._llm_ok or not needs_mirror(query, language):
            return None
        system, user = build_mirror_prompt(query, tag, language)
        try:
            raw = self._llm.generate(user, system=system, format_json=True)
        except Exception:  # the server went away: no mirror, and no LLM from here
            log.warning("LLM call failed; no mirror query")
            self._llm_ok = False
            return None
        return parse_mirror(check_llm_output(raw, system, max_chars=2000).text, query, language)

    def extract_claims(
        self,
        fragments: list[dict[str, str]],
        question: str,
        tag: str,
        max_per_fragment: int,
    ) -> dict[str, Any]:
        """Atomic claims from fragments: the LLM when present, else extractive (idempotent).

        Each fragment is ``{"id", "text"}`` with an optional ``"focus"``: the facet of the
        question that picked it (``pipelines/evidence/facets``).
        """
        out: list[dict[str, Any]] = []
        warnings: list[str] = []
        for frag in fragments:
            if self._llm_ok:
                clean = sanitize_untrusted(frag["text"])
                warnings.extend(clean.warnings)
                system, user = build_claim_prompt(
                    clean.text, question, tag, focus=frag.get("focus") or ""
                )
                try:
                    raw = self._llm.generate(user, system=system, format_json=True)
                except Exception:  # the server went away mid-run: fall back for this fragment
                    log.warning("LLM call failed; extractive fallback for one fragment")
                    self._llm_ok = False
                else:
                    checked = check_llm_output(raw, system, max_chars=8000)
                    warnings.extend(checked.warnings)
                    texts = parse_claims_response(checked.text)[:max_per_fragment]
                    for text in texts:
                        if is_rejected_claim(text, question) is None:
                            out.append(
                                {
                                    "fragment_id": frag["id"],
                                    "text": text,
                                    "confidence": 0.8,
                                    "method": "llm",
                                }
                            )
                    continue
            # a fragment the claim rules fault on gives no claims (`rule_faults`)
            read = functools.partial(
                extract_claims_extractive,
                frag["text"],
                question,
                max_per_fragment,
                focus=frag.get("focus") or None,
            )
            none: list[ExtractedClaim] = []
            for claim in guarded(CLAIMS, read, none):
                out.append(
                    {
                        "fragment_id": frag["id"],
                        "text": claim.text,
                        "confidence": float(claim.confidence),
                        "method": "extractive",
                    }
                )
        return {"claims": out, "warnings": sorted(set(warnings)), "llm": self._llm_ok}
