"""Planted corpora: how many planted facts become claims, and planted contradictions
refutes edges from the other source (issue 12's second acceptance point).

Run: .venv/bin/python bench/planted.py [NAME | FOLDER ...] [--json PATH] [--status DIR]

A NAME is a folder under ``tests/corpora``; a FOLDER is any corpus folder of the same
shape (a key of your own, written blind, kept outside the repository). ``--status DIR``
also writes each search's final ``get_status`` answer there, to compare two runs'
claims and edges.

Every folder under ``tests/corpora`` with an ``EXPECTED.json`` is searched once, as
``lyra research --corpus`` searches it: one orchestrator on a local Ray (2 CPUs), the
corpus's question, the default settings. The key names the question, a verbatim piece
of every fact its writer planted (efficacy, safety, dosage, who it is for, comparisons,
the writers' own reports), and each contradiction reading: the piece of one side's
claim with the domain whose fragment must refute it. ``tests/test_planted_corpora.py``
asserts the part of each key that Lyra reads today; this script measures all of it.

Per corpus and in total:

- **in fragments** (the baseline): planted pieces that stand whole in some stored
  fragment. It is the ceiling extraction leaves for the claim rules: a fact that never
  reaches a fragment cannot become a claim.
- **as claims**: pieces within some claim's text, and their ratio to the baseline.
- **refuted**: readings where a claim holding the piece has a refutes edge from a
  fragment of the named domain.
- **neutral**: the share of stance edges (supports, refutes, neutral) that are neutral.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
import unicodedata
import uuid
from pathlib import Path
from typing import Any

import ray

from lyra.actors.orchestrator import Orchestrator
from lyra.config.settings import Settings, load_settings

CORPORA = Path(__file__).resolve().parents[1] / "tests" / "corpora"
SEARCH_TIMEOUT_S = 900.0
_SPACE = re.compile(r"\s+")


def _settings(home: Path, corpus: Path) -> Settings:
    tag = uuid.uuid4().hex[:8]
    return load_settings(
        home=home,
        ray={"namespace": f"lyra-bench-{tag}", "include_dashboard": False},
        storage={"db_filename": f"graph-{tag}.duckdb"},
        engines={"local": {"enabled": True, "paths": [str(corpus)]}},
        # no LLM: the extractive path, as a fresh install without Ollama runs
        llm={"ollama_host": "http://127.0.0.1:9", "enabled": True},
    )


def _search(orch: Any, question: str) -> dict[str, Any]:
    task = ray.get(orch.create_task.remote(question, {}))
    sid = ray.get(orch.start_search.remote(task["id"], question, {}))
    deadline = time.monotonic() + SEARCH_TIMEOUT_S
    while time.monotonic() < deadline:
        if ray.get(orch.wait_search.remote(sid, 5.0))["done"]:
            return dict(ray.get(orch.get_status.remote(task["id"], 0)))
    raise RuntimeError(f"the search of {question!r} did not end in {SEARCH_TIMEOUT_S:.0f} s")


def _fragments(orch: Any) -> list[str]:
    rows = ray.get(
        orch.query_graph.remote(
            "SELECT text_content FROM fragments", None, {}, 100_000, 30_000, False
        )
    )["rows"]
    return [_SPACE.sub(" ", row[0] or "") for row in rows]


def _domain(url: str, name: str) -> str:
    """A local page's site: the folder after the corpus's own in its URL."""
    return url.split(f"/{name}/", 1)[1].split("/", 1)[0]


def _folder(name: str) -> Path:
    """A corpus by its name under ``tests/corpora``, or by its own folder's path."""
    return Path(name) if "/" in name else CORPORA / name


def measure(name: str, home: Path, status_dir: Path | None = None) -> dict[str, Any]:
    folder = _folder(name)
    name = folder.name
    key = json.loads((folder / "EXPECTED.json").read_text(encoding="utf-8"))
    started = time.perf_counter()
    settings = _settings(home, folder)
    orch = Orchestrator.options(  # type: ignore[attr-defined]
        name="orchestrator", namespace=settings.ray.namespace
    ).remote(settings)
    try:
        status = _search(orch, key["question"])
        fragments = _fragments(orch)
    finally:
        ray.kill(orch)
    if status_dir is not None:
        status_dir.mkdir(parents=True, exist_ok=True)
        (status_dir / f"{name}.json").write_text(
            json.dumps(status, indent=1, default=str), encoding="utf-8"
        )
    claims = status["claims"]
    texts = [c["claim_text"] for c in claims]
    # Lyra reads every page in NFKC (ARCHITECTURE's injection layer): a key written with
    # "m²" finds its fact as "m2", as the page's text is stored
    facts = [unicodedata.normalize("NFKC", piece) for piece in key["facts"]]
    refuted = 0
    for raw, domain in key["refuted"]:
        piece = unicodedata.normalize("NFKC", raw)
        urls = [u for c in claims if piece in c["claim_text"] for u in c["refuting_urls"]]
        refuted += domain in {_domain(u, name) for u in urls}
    edges = status["evidence_summary"]["edges_by_relation"]
    stance = sum(edges.get(k, 0) for k in ("supports", "refutes", "neutral"))
    return {
        "corpus": name,
        "facts": len(facts),
        "in_fragments": sum(any(p in f for f in fragments) for p in facts),
        "as_claims": sum(any(p in t for t in texts) for p in facts),
        "readings": len(key["refuted"]),
        "refuted": refuted,
        "neutral_share": edges.get("neutral", 0) / stance if stance else 0.0,
        "claims": len(claims),
        "seconds": time.perf_counter() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "names", nargs="*", help="corpora to measure, by name or folder (default: all keyed)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--status", type=Path, help="write each search's status here")
    args = parser.parse_args()
    names = args.names or sorted(p.parent.name for p in CORPORA.glob("*/EXPECTED.json"))
    # a Ray of its own: "local", never one a stale /tmp/ray/ray_current_cluster names
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        logging_level="ERROR",
        log_to_driver=False,
    )
    rows = []
    with tempfile.TemporaryDirectory(prefix="lyra-bench-planted-") as home:
        print(
            f"{'corpus':20s} {'in fragments':>12s} {'as claims':>10s} {'refuted':>8s} "
            f"{'neutral':>8s} {'claims':>7s} {'s':>5s}"
        )
        for name in names:
            row = measure(name, Path(home), args.status)
            rows.append(row)
            print(
                f"{row['corpus']:20s} {row['in_fragments']:>5d} / {row['facts']:<4d} "
                f"{row['as_claims']:>5d} / {row['facts']:<2d} "
                f"{row['refuted']:>3d} / {row['readings']:<2d} {row['neutral_share']:>8.2f} "
                f"{row['claims']:>7d} {row['seconds']:>5.0f}",
                flush=True,
            )
    total = {k: sum(r[k] for r in rows) for k in ("facts", "in_fragments", "as_claims")}
    readings = sum(r["readings"] for r in rows)
    refuted = sum(r["refuted"] for r in rows)
    print(
        f"total: {total['as_claims']} of {total['facts']} facts as claims "
        f"({total['as_claims'] / total['in_fragments']:.3f} of the {total['in_fragments']} "
        f"in fragments); {refuted} of {readings} contradiction readings refuted"
    )
    if args.json:
        args.json.write_text(json.dumps({"corpora": rows}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
