"""Discovery: SERP parse time per page and identifier extraction throughput.

Run: .venv/bin/python bench/discovery.py [--rounds 20] [--json PATH]

Reads the third-party pages in ``../shared/realworld/`` in place (the SERP pages with
an EXPECTED.json, the identifier-dense HTML pages) and measures, in one run:

- SERP: `serp_parsers.parse` per page, median of the rounds, against the baseline of
  only building the lxml tree of the same bytes (the floor any DOM parser pays);
- identifiers: `identifiers.extract_from_html` throughput in MB/s, against a baseline
  of one plain DOI regex `findall` over the same text (the cheapest scan possible);
  and `extract_from_text` over the pages' visible text.

- citation tracking: API requests per tracked paper, Lyra's way (`AcademicClient`:
  S2 references and citations with the far papers' abstracts in the same page,
  OpenAlex `cited_by:` / `cites:` with full works) against the naive way of the same
  run (S2 links without abstracts, then one lookup per far paper for its abstract,
  and OpenAlex `referenced_works` resolved one work at a time), both through the real
  fetch layer (local Ray, `FetcherPool`) against the loopback S2 / OpenAlex servers of
  the tests over a generated world of `--papers` papers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lxml.html

from lyra.pipelines.discover.identifiers import extract_from_html, extract_from_text
from lyra.pipelines.discover.serp_parsers import parse

REALWORLD = Path(__file__).resolve().parents[2] / "shared" / "realworld"
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' loopback API servers
SERP_PAGES = {
    "duckduckgo": REALWORLD / "serp/duckduckgo-html/ddg_html_antani_2020.html",
    "google": REALWORLD / "serp/zlurad-serp-parser/google-nojs/google100-nojs.html",
    "bing": REALWORLD / "serp/zlurad-serp-parser/bing-nojs/bing-nojs.html",
}
NAIVE_DOI = re.compile(r"10\.\d{4,9}/[^\s\"'<>]+")


def _median_s(fn: Callable[[], Any], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def serp_figures(rounds: int) -> list[dict[str, Any]]:
    rows = []
    for parser, path in SERP_PAGES.items():
        if not path.is_file():
            print(f"skip {parser}: {path} is absent")
            continue
        body = path.read_bytes()
        items = parse(parser, body, "https://example.invalid/")
        ours = _median_s(lambda b=body, p=parser: parse(p, b, "https://example.invalid/"), rounds)
        tree = _median_s(lambda b=body: lxml.html.fromstring(b), rounds)
        rows.append(
            {
                "parser": parser,
                "bytes": len(body),
                "results": len(items),
                "parse_ms": round(ours * 1000, 2),
                "lxml_tree_ms": round(tree * 1000, 2),
                "ratio": round(ours / tree, 2),
            }
        )
    return rows


def identifier_figures(rounds: int) -> dict[str, Any]:
    pages = sorted((REALWORLD / "identifiers/html").glob("*.html"))
    if not pages:
        return {"skipped": f"{REALWORLD / 'identifiers/html'} is absent"}
    htmls = [p.read_text(encoding="utf-8", errors="replace") for p in pages]
    total = sum(len(h.encode("utf-8")) for h in htmls)
    found = sum(len(extract_from_html(h, "https://example.invalid/")) for h in htmls)
    ours = _median_s(
        lambda: [extract_from_html(h, "https://example.invalid/") for h in htmls], rounds
    )
    naive = _median_s(lambda: [NAIVE_DOI.findall(h) for h in htmls], rounds)
    texts = [lxml.html.fromstring(h).text_content() for h in htmls]
    text_bytes = sum(len(t.encode("utf-8")) for t in texts)
    text_s = _median_s(lambda: [extract_from_text(t) for t in texts], rounds)
    return {
        "pages": len(htmls),
        "bytes": total,
        "identifiers_found": found,
        "html_mb_per_s": round(total / ours / 1e6, 2),
        "naive_doi_regex_mb_per_s": round(total / naive / 1e6, 2),
        "ratio_to_naive": round(ours / naive, 1),
        "text_mb_per_s": round(text_bytes / text_s / 1e6, 2),
    }


def main() -> None:
    """Run both measurements and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--papers", type=int, default=40, help="size of the generated world")
    parser.add_argument(
        "--anchors", type=int, default=10, help="papers whose citations are tracked"
    )
    args = parser.parse_args()
    if not REALWORLD.is_dir():
        raise SystemExit(f"the third-party pages are not at {REALWORLD}")
    serp = serp_figures(args.rounds)
    for row in serp:
        print(
            f"serp {row['parser']:10s} {row['bytes']:>8d} B {row['results']:>3d} results "
            f"{row['parse_ms']:7.2f} ms/page; lxml tree alone {row['lxml_tree_ms']:6.2f} ms "
            f"({row['ratio']:.2f}x)"
        )
    ids = identifier_figures(args.rounds)
    if "skipped" in ids:
        print(f"identifiers: skipped ({ids['skipped']})")
    else:
        print(
            f"identifiers: {ids['pages']} pages, {ids['bytes']} B, {ids['identifiers_found']} ids; "
            f"extract_from_html {ids['html_mb_per_s']} MB/s vs one naive DOI regex "
            f"{ids['naive_doi_regex_mb_per_s']} MB/s ({ids['ratio_to_naive']}x the time); "
            f"extract_from_text {ids['text_mb_per_s']} MB/s"
        )
    calls = asyncio.run(citation_calls(args.papers, args.anchors))
    print(
        f"citation tracking: {calls['anchors']} papers of a {calls['papers']}-paper world, "
        f"{calls['links_per_paper']} links each on average; API requests per paper: lyra "
        f"{calls['lyra_per_paper']}, naive {calls['naive_per_paper']} "
        f"({calls['ratio']:.2f}x); distinct linked papers with an abstract: lyra "
        f"{calls['lyra_with_abstract']}, naive {calls['naive_with_abstract']}"
    )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        figures = {"serp": serp, "identifiers": ids, "citation_calls": calls}
        args.json.write_text(json.dumps(figures, indent=1))


def _world(size: int) -> Any:
    """A reproducible world: each paper cites up to 8 earlier ones, half of them influential."""
    from tests.academic_servers import AcademicWorld, FakePaper

    rng = random.Random(7)
    papers = []
    for i in range(size):
        refs = rng.sample([f"p{j}" for j in range(i)], min(i, 8))
        papers.append(
            FakePaper(
                key=f"p{i}",
                title=f"Study {i} of coffee and cardiovascular outcome {rng.randint(1, 99)}",
                abstract=f"Paper {i} reports an effect size of {rng.random():.3f} in adults.",
                year=1990 + i // 2,
                doi=f"10.5555/bench.{i}",
                references=refs,
                influential=refs[::2],
            )
        )
    return AcademicWorld(papers)


async def citation_calls(size: int, anchors: int) -> dict[str, Any]:
    """Requests per tracked paper, Lyra's client against the naive way, same world and run."""
    import tempfile

    import ray

    from lyra.actors.fetch_pool import FetcherPool
    from lyra.config.settings import load_settings
    from lyra.jobs.academic import AcademicClient
    from lyra.pipelines.discover import academic_openalex as oa
    from lyra.pipelines.discover import academic_s2 as s2
    from lyra.pipelines.discover.identifiers import Identifier
    from lyra.pipelines.net.domains import registrable_domain
    from tests.academic_servers import OpenAlexServer, S2Server

    world = _world(size)
    s2_server, oa_server = S2Server(world, "127.0.0.90"), OpenAlexServer(world, "127.0.0.91")
    from lyra.actors.instance import loopback_only

    with loopback_only():
        ray.init(
            address="local",  # its own Ray, never one a stale session file names
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            namespace="bench-disc",
        )
    try:
        with tempfile.TemporaryDirectory(prefix="lyra-bench-discovery-") as home:
            qps = 50.0
            settings = load_settings(
                home=home,
                network={"allow_private_targets": True, "allowed_hosts": ["127.0.0.0/8"]},
                academic={
                    "semantic_scholar": {"base_url": s2_server.base_url, "qps": qps},
                    "openalex": {"base_url": oa_server.base_url, "qps": qps},
                },
            )
            rates = {registrable_domain(s.base_url): qps for s in (s2_server, oa_server)}
            pool = FetcherPool(settings, api_qps=rates)

            async def fetch(url: str, **request: Any) -> dict[str, Any]:
                return dict(await pool.fetch(url, escalate=False, **request))

            keys = [f"p{i}" for i in range(size - anchors, size)]
            lyra = AcademicClient(settings, fetch, ("semantic_scholar", "openalex"))
            lyra_abstracts: set[str] = set()
            links_total = 0
            for key in keys:
                paper = await lyra.lookup(Identifier("doi", f"10.5555/bench.{key[1:]}"))
                assert paper is not None
                links = await lyra.links(paper)
                links_total += len(links)
                lyra_abstracts.update(
                    f"{key}>{link.paper.doi}"
                    for link in links
                    if link.paper and link.paper.abstract and link.paper.doi
                )
            naive = AcademicClient(settings, fetch, ("semantic_scholar", "openalex"))
            naive_abstracts: set[str] = set()
            cfg_s2, cfg_oa = settings.academic.semantic_scholar, settings.academic.openalex
            for key in keys:
                paper = await naive.lookup(Identifier("doi", f"10.5555/bench.{key[1:]}"))
                assert paper is not None and paper.s2_id and paper.openalex_id
                for direction in ("references", "citations"):
                    page = await naive._call(
                        "semantic_scholar",
                        s2.build_links(cfg_s2, paper.s2_id, direction),  # type: ignore[arg-type]
                        lambda st, b, h, d=direction, a=paper.s2_id: s2.parse_links_page(
                            st, b, a, d, h
                        ),
                    )
                    for link in page[0]:
                        far = link.paper
                        if far and far.s2_id:
                            full = await naive._call(
                                "semantic_scholar",
                                s2.build_paper(cfg_s2, far.s2_id),
                                s2.parse_single,
                            )
                            if full and full.abstract and full.doi:
                                naive_abstracts.add(f"{key}>{full.doi}")
                for work_id in paper.referenced_works:
                    await naive._call("openalex", oa.build_work(cfg_oa, work_id), oa.parse_single)
                page = await naive._call(
                    "openalex", oa.build_cites(cfg_oa, [paper.openalex_id]), oa.parse_list_page
                )
            for handle in list(pool.live.values()):
                ray.kill(handle)
    finally:
        ray.shutdown()
        s2_server.close()
        oa_server.close()
    lyra_calls, naive_calls = sum(lyra.calls.values()), sum(naive.calls.values())
    return {
        "papers": size,
        "anchors": anchors,
        "links_per_paper": round(links_total / anchors, 1),
        "lyra_requests": lyra_calls,
        "naive_requests": naive_calls,
        "lyra_per_paper": round(lyra_calls / anchors, 1),
        "naive_per_paper": round(naive_calls / anchors, 1),
        "ratio": lyra_calls / naive_calls,
        "lyra_with_abstract": len(lyra_abstracts),
        "naive_with_abstract": len(naive_abstracts),
    }


if __name__ == "__main__":
    main()
