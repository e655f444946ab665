"""Citation tracking: which queries go to the academic APIs, and which cited papers to keep.

Seed 001 (Phase 2 and Phase 5), ARCHITECTURE §3 steps 4 and 8.

`is_academic_query` only decides whether Semantic Scholar and OpenAlex are searched
*first* (Phase 2). It is keyword-based and has known false negatives ("機械学習の最新動向",
"COVID-19 治療法"); those cost nothing lasting, because every paper met later (a DOI in a
SERP, a PubMed page) enters the same academic path (Phase 3). A false positive costs a
few extra API calls. So the rule favours plain, documented keywords over cleverness.

For every paper, its references and citations from both APIs are merged into
`Candidate`s (`merge_links`: one per paper, however many APIs and links name it), then
filtered in two stages (seed 001 §3.2):

- stage 1: `0.5 * isInfluential + 0.5 * embedding similarity`, top 30;
- stage 2: `0.5 * llm_relevance / 10 + 0.3 * similarity + 0.2 * isInfluential`, top 10.

The seed's draft code fed the stage-1 score (which already holds the influence bonus)
into the stage-2 similarity term, counting influence twice; here stage 2 uses the raw
similarity, as the seed's prose and the ARCHITECTURE describe. Without an LLM, stage 2
keeps the stage-1 order and says so (`degraded`).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import reduce
from typing import Any, Final, Literal
from urllib.parse import urlsplit

from lyra.pipelines.discover.identifiers import (
    Identifier,
    canonical_paper_key,
    extract_from_text,
    extract_from_url,
    normalize_arxiv,
    normalize_doi,
    normalize_pmcid,
    normalize_pmid,
)
from lyra.pipelines.discover.papers import Paper, PaperLink, merge_papers
from lyra.pipelines.discover.query_normalize import parse_query, query_language
from lyra.pipelines.llm.prompts import load_prompt_module
from lyra.pipelines.llm.sanitize import is_task_tag, sanitize_untrusted

Direction = Literal["references", "citations"]

STAGE1_TOP: Final = 30
STAGE2_TOP: Final = 10
# Stage 1 (seed 001 §3.2): S2's isInfluential is a strong, cheap signal, worth as much
# as a perfect embedding match.
STAGE1_INFLUENTIAL_WEIGHT: Final = 0.5
STAGE1_SIMILARITY_WEIGHT: Final = 0.5
# Stage 2 (seed 001 §3.2): the LLM's judgement leads; influence becomes a tie-breaker.
FINAL_LLM_WEIGHT: Final = 0.5
FINAL_SIMILARITY_WEIGHT: Final = 0.3
FINAL_INFLUENTIAL_WEIGHT: Final = 0.2
RELEVANCE_MAX: Final = 10.0
# Both scores are rounded so that mathematically equal scores tie exactly and the
# tie-break by key decides, not the last bit of a float sum.
SCORE_DIGITS: Final = 6
# Untrusted parts of the relevance prompt (seed 001 cut abstracts to 500 characters for
# a 3B model; 2000 keeps a whole typical abstract, ~250 words, and fits its context).
TITLE_MAX_CHARS: Final = 500
VENUE_MAX_CHARS: Final = 200
ABSTRACT_MAX_CHARS: Final = 2000
QUERY_MAX_CHARS: Final = 1000
# An answer longer than this is not the one-object reply the prompt asks for; the cap
# bounds the JSON scan below.
RESPONSE_MAX_CHARS: Final = 4000

_STAGE1_SCALE: Final = STAGE1_INFLUENTIAL_WEIGHT + STAGE1_SIMILARITY_WEIGHT
_FINAL_SCALE: Final = FINAL_LLM_WEIGHT + FINAL_SIMILARITY_WEIGHT + FINAL_INFLUENTIAL_WEIGHT


# --- is_academic_query -------------------------------------------------------------

# Hosts whose pages are papers or paper records; a subdomain counts too
# (link.springer.com, ieeexplore.ieee.org).
# fmt: off
ACADEMIC_HOSTS: Final[frozenset[str]] = frozenset((
    "arxiv.org", "pubmed.ncbi.nlm.nih.gov", "ncbi.nlm.nih.gov", "europepmc.org",
    "nature.com", "sciencedirect.com", "springer.com", "wiley.com", "jstage.jst.go.jp",
    "ci.nii.ac.jp", "cir.nii.ac.jp", "scholar.google.com", "semanticscholar.org",
    "openalex.org", "biorxiv.org", "medrxiv.org", "ssrn.com", "plos.org", "frontiersin.org",
    "mdpi.com", "ieee.org", "acm.org", "jamanetwork.com", "thelancet.com", "nejm.org",
    "bmj.com", "cell.com", "science.org", "pnas.org", "tandfonline.com", "sagepub.com",
    "academic.oup.com", "cochranelibrary.com", "researchgate.net", "doi.org", "jstor.org",
    "biomedcentral.com", "elifesciences.org",
))
# `site:pubmed`, `site:arxiv`: the short names people type without a domain.
ACADEMIC_SITE_NAMES: Final[frozenset[str]] = frozenset((
    "arxiv", "pubmed", "ncbi", "pmc", "europepmc", "nature", "sciencedirect", "springer",
    "wiley", "jstage", "cinii", "semanticscholar", "openalex", "biorxiv", "medrxiv", "ssrn",
    "plos", "jstor", "ieee", "researchgate",
))
# fmt: on
# English vocabulary of papers and study designs, matched as whole words (case-folded).
_ENGLISH_TERMS: Final = re.compile(
    r"\b(?:stud(?:y|ies)|trials?|randomi[sz]ed|rcts?|meta[-\s]?analys[ie]s|"
    r"(?:systematic|literature|scoping|narrative|umbrella)\s+reviews?|cohort|"
    r"case[-\s]control|cross[-\s]sectional|double[-\s]blind(?:ed)?|placebo|papers?|"
    r"journals?|doi|arxiv|pubmed|pmid|pmcid|preprints?|peer[-\s]reviewed|clinical|"
    r"efficacy|epidemiolog\w*|in\s+vitro|in\s+vivo|et\s+al|citations?|theses|thesis|"
    r"dissertations?|proceedings|scholarly|academic|empirical)\b",
    re.IGNORECASE,
)
# Japanese has no spaces between words: substrings. 研究 also matches 研究所 (an
# institute), an accepted false positive (extra API calls only).
_JAPANESE_TERMS: Final = re.compile(
    "論文|研究|臨床|治験|メタ分析|メタ解析|メタアナリシス|系統的レビュー|"
    "システマティック・?レビュー|ランダム化|無作為化|二重盲検|コホート|症例対照|症例報告|"
    "疫学|学術|学会|査読|文献|引用|プレプリント|紀要|抄録|プラセボ|偽薬|有効性|有意差"
)
# Everyday phrases that contain an academic word but ask for no paper; removed before
# the vocabulary is matched.
_NOT_ACADEMIC: Final = re.compile(
    r"\b(?:free\s+trials?|toilet\s+paper|paper\s+towels?|wrapping\s+paper|paper\s+planes?|"
    r"bullet\s+journals?|wall\s+street\s+journal|study\s+abroad|bible\s+study|"
    r"study\s+tips)\b",
    re.IGNORECASE,
)
# Query tokens whose words are searched for (query_normalize.parse_query kinds); the
# values of site:, excluded and date tokens are not words of the topic.
_SEARCHED_KINDS: Final = frozenset({"term", "phrase", "require", "intitle"})


def _host(value: str) -> str:
    """The lowercase host of a `site:` value or URL, without `www.` and port."""
    text = value.strip().lower()
    if "://" not in text:
        text = "//" + text
    try:
        host = urlsplit(text).hostname or ""
    except ValueError:  # "site:[x": an unclosed IPv6 bracket; user input must not raise
        return ""
    return host.removeprefix("www.").rstrip(".")


def is_academic_host(value: str) -> bool:
    """True for a host, URL or `site:` value on an academic site (subdomains included)."""
    host = _host(value)
    if not host:
        return False
    if "." not in host:
        return host in ACADEMIC_SITE_NAMES
    return any(host == known or host.endswith("." + known) for known in ACADEMIC_HOSTS)


def _names_paper_id(query: str) -> bool:
    """True when the query names a DOI, PMID, PMCID or arXiv id (ISBNs are books: no).

    Bare new-style arXiv ids (`2104.12255`) count although `extract_from_text` wants a
    label: `normalize_arxiv` checks month and digit count, so a decimal rarely passes.
    """
    if any(found.kind != "isbn" for found in extract_from_text(query)):
        return True
    for word in query.split():
        if "://" in word and any(found.kind != "isbn" for found in _url_ids(word)):
            return True
        if normalize_arxiv(word) is not None:
            return True
    return False


def _url_ids(url: str) -> list[Identifier]:
    """Ids of a URL the user typed; a malformed one ("http://[x") names none."""
    try:
        found: list[Identifier] = extract_from_url(url)
    except ValueError:  # urlsplit refuses an unclosed IPv6 bracket
        return []
    return found


def is_academic_query(query: str) -> bool:
    """Whether to search the academic APIs first for `query` (seed 001 Phase 2).

    True when any of these holds, checked on the NFKC form (full-width letters count):
    1. it names a paper id: DOI, labelled PMID, PMCID, arXiv id (`_names_paper_id`);
    2. a `site:` operator or a URL points at an academic site (`is_academic_host`);
       an excluded site (`-site:arxiv.org`) does not count;
    3. it uses academic vocabulary: English words of papers and study designs
       (whole words), Japanese terms (substrings), after removing everyday phrases
       such as "free trial" or "toilet paper".
    Otherwise False; a topical query without these marks ("COVID-19 治療法") is a known
    false negative, recovered when a paper is met later (Phase 3).
    """
    text = unicodedata.normalize("NFKC", query)
    if not text.strip():
        return False
    if _names_paper_id(text):
        return True
    if any(token.kind == "site" and is_academic_host(token.value) for token in parse_query(text)):
        return True
    if any("://" in word and is_academic_host(word) for word in text.split()):
        return True
    # Only the words searched for: "site:arxiv.org.evil.example" or "-arxiv" must not
    # pass as the word "arxiv".
    words = " ".join(
        token.value
        for token in parse_query(text)
        if token.kind in _SEARCHED_KINDS and "://" not in token.value
    )
    words = _NOT_ACADEMIC.sub(" ", words)
    return bool(_ENGLISH_TERMS.search(words) or _JAPANESE_TERMS.search(words))


# --- merging links -----------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """One paper linked to the anchor, merged across every link and API that named it.

    `direction` is "references" when the anchor cites the paper and "citations" when
    the paper cites the anchor. `is_influential` is True when any API said so (only S2
    knows; OpenAlex never says). `apis` is sorted, so it does not depend on the order in
    which the APIs answered.
    """

    key: str
    paper: Paper
    anchor_key: str
    direction: Direction
    is_influential: bool
    contexts: tuple[str, ...]
    intents: tuple[str, ...]
    apis: tuple[str, ...]


@dataclass(frozen=True)
class _Edge:
    link: PaperLink
    paper: Paper
    direction: Direction


def _node_id(value: str | None) -> str | None:
    """An S2 paperId or a short OpenAlex id (`W123` from its https://openalex.org/ URL)."""
    if not value:
        return None
    return value.rstrip("/").rsplit("/", 1)[-1]


def _paper_key(paper: Paper) -> str | None:
    """canonical_paper_key of a paper, or None when it has no DOI/PMID/arXiv id nor title."""
    try:
        key: str = canonical_paper_key(paper.doi, paper.pmid, paper.arxiv, paper.title, paper.year)
    except ValueError:
        return None
    return key


def _identity(paper: Paper, key: str) -> set[str]:
    """Every token that names this paper: its canonical key and each normalised id.

    Two records sharing any token are one paper. The title enters only through the key,
    i.e. only for records without DOI, PMID or arXiv id (`identifiers.same_paper`: a
    title match between a record with ids and one without is too weak to merge on).
    """
    tokens = {key}
    doi = normalize_doi(paper.doi) if paper.doi else None
    pmid = normalize_pmid(paper.pmid) if paper.pmid else None
    pmcid = normalize_pmcid(paper.pmcid) if paper.pmcid else None
    arxiv = normalize_arxiv(paper.arxiv) if paper.arxiv else None
    s2_id, openalex_id = _node_id(paper.s2_id), _node_id(paper.openalex_id)
    if doi:
        tokens.add(f"doi:{doi}")
    if pmid:
        tokens.add(f"pmid:{pmid}")
    if pmcid:
        tokens.add(f"pmcid:{pmcid}")
    if arxiv:
        tokens.add(f"arxiv:{arxiv[0]}")
    if s2_id:
        tokens.add(f"s2:{s2_id}")
    if paper.corpus_id is not None:
        tokens.add(f"corpus:{paper.corpus_id}")
    if openalex_id:
        tokens.add(f"openalex:{openalex_id.upper()}")
    return tokens


def _direction(link: PaperLink, anchor_ids: set[str]) -> Direction | None:
    """Which side of the link the anchor is on; None when it is on neither or both."""
    citing, cited = _node_id(link.citing_id), _node_id(link.cited_id)
    anchor_cites = citing is not None and citing in anchor_ids
    anchor_cited = cited is not None and cited in anchor_ids
    if anchor_cites == anchor_cited:
        return None
    return "references" if anchor_cites else "citations"


def _find(parent: list[int], node: int) -> int:
    while parent[node] != node:
        parent[node] = parent[parent[node]]
        node = parent[node]
    return node


def merge_links(anchor: Paper, links: Iterable[PaperLink]) -> list[Candidate]:
    """One `Candidate` per distinct paper linked to `anchor`, in order of first mention.

    Dropped: links without a far `paper` (OpenAlex `referenced_works` edges carry ids
    only; fetch the works first), far papers with no DOI/PMID/arXiv id and no title,
    links that do not touch the anchor's `s2_id` or `openalex_id` on exactly one side,
    and any record that is the anchor itself. Records of one paper (sharing a DOI,
    PMID, PMCID, arXiv id, S2 or OpenAlex id, or, without such ids, title and year)
    are merged with `merge_papers` in link order, the first link's values winning; the
    direction is the first link's. Raises ValueError when the anchor has no key.
    """
    anchor_key = _paper_key(anchor)
    if anchor_key is None:
        raise ValueError("anchor paper has no DOI, PMID, arXiv id or title to key it by")
    anchor_ids = {i for i in (_node_id(anchor.s2_id), _node_id(anchor.openalex_id)) if i}
    edges: list[_Edge] = []
    # Union-find over records; node 0 is the anchor, so records of it are found too when
    # they only share an id with another record of it.
    parent = [0]
    owner: dict[str, int] = dict.fromkeys(_identity(anchor, anchor_key), 0)
    for link in links:
        far = link.paper
        key = _paper_key(far) if far is not None else None
        direction = _direction(link, anchor_ids)
        if far is None or key is None or direction is None:
            continue
        node = len(parent)
        parent.append(node)
        edges.append(_Edge(link, far, direction))
        for token in _identity(far, key):
            if token in owner:
                root, mine = _find(parent, owner[token]), _find(parent, node)
                # The smaller root wins, so the anchor (0) stays the root of its set.
                parent[max(root, mine)] = min(root, mine)
            else:
                owner[token] = node
    groups: dict[int, list[_Edge]] = {}
    for node, edge in enumerate(edges, start=1):
        root = _find(parent, node)
        if root != 0:
            groups.setdefault(root, []).append(edge)
    return [_candidate(anchor_key, group) for group in groups.values()]


def _candidate(anchor_key: str, group: list[_Edge]) -> Candidate:
    paper = reduce(merge_papers, (edge.paper for edge in group))
    key = _paper_key(paper)
    if key is None:  # merging only adds values; a member was keyable, so is the merge.
        raise AssertionError("merged paper lost its key")
    links = [edge.link for edge in group]
    return Candidate(
        key=key,
        paper=paper,
        anchor_key=anchor_key,
        direction=group[0].direction,
        is_influential=any(link.is_influential is True for link in links),
        contexts=tuple(dict.fromkeys(c for link in links for c in link.contexts)),
        intents=tuple(dict.fromkeys(i for link in links for i in link.intents)),
        apis=tuple(sorted({link.source_api for link in links})),
    )


# --- two-stage filter --------------------------------------------------------------


@dataclass(frozen=True)
class Scored:
    """A candidate with its scores; `final_score` is what the kept list is sorted by.

    After stage 1 `final_score` equals `stage1_score` and `llm_relevance` is None;
    stage 2 fills `llm_relevance` (0..10) where the LLM answered.
    """

    candidate: Candidate
    similarity: float
    stage1_score: float
    llm_relevance: float | None
    final_score: float


def _ranked(scored: Iterable[Scored]) -> list[Scored]:
    """Best first; equal scores in key order, so the result never depends on input order."""
    return sorted(scored, key=lambda s: (-s.final_score, s.candidate.key))


def _unit_similarity(value: float) -> float:
    """Cosine similarity clamped to 0..1: an opposite embedding is as useless as an
    orthogonal one, and a negative term would let it cancel the influence bonus."""
    if math.isnan(value):
        raise ValueError("similarity is NaN")
    return min(max(float(value), 0.0), 1.0)


def stage1(
    candidates: Sequence[Candidate], similarities: Sequence[float], k: int = STAGE1_TOP
) -> list[Scored]:
    """Top `k` by `0.5 * isInfluential + 0.5 * similarity` (similarity per candidate)."""
    if len(candidates) != len(similarities):
        raise ValueError(f"{len(candidates)} candidates but {len(similarities)} similarities")
    if k < 0:
        raise ValueError(f"k must not be negative, got {k}")
    scored = []
    for candidate, raw in zip(candidates, similarities, strict=True):
        similarity = _unit_similarity(raw)
        score = round(
            (STAGE1_INFLUENTIAL_WEIGHT if candidate.is_influential else 0.0)
            + STAGE1_SIMILARITY_WEIGHT * similarity,
            SCORE_DIGITS,
        )
        scored.append(Scored(candidate, similarity, score, None, score))
    return _ranked(scored)[:k]


def _final(item: Scored, relevance: float) -> float:
    return round(
        FINAL_LLM_WEIGHT * relevance / RELEVANCE_MAX
        + FINAL_SIMILARITY_WEIGHT * item.similarity
        + (FINAL_INFLUENTIAL_WEIGHT if item.candidate.is_influential else 0.0),
        SCORE_DIGITS,
    )


def _fallback_final(item: Scored) -> float:
    """A final score for a candidate whose LLM answer did not parse.

    Its stage-1 score, rescaled from stage 1's range to the final range (both weight
    sets sum to 1 today, so the factor is 1): the candidate competes on what is known
    about it instead of being pushed to the bottom, or to the middle by a made-up 5/10.
    """
    return round(item.stage1_score * _FINAL_SCALE / _STAGE1_SCALE, SCORE_DIGITS)


def stage2(
    scored: Sequence[Scored], llm_scores: Sequence[float | None] | None, k: int = STAGE2_TOP
) -> tuple[list[Scored], bool]:
    """Top `k` by `0.5 * llm / 10 + 0.3 * similarity + 0.2 * isInfluential`, and `degraded`.

    `llm_scores[i]` is the LLM's 0..10 relevance of `scored[i]` (clamped), or None where
    its answer did not parse (`_fallback_final`). `degraded` is True when there was no
    LLM (`llm_scores` None) or no answer parsed: the list is then the stage-1 order.
    """
    if llm_scores is not None and len(llm_scores) != len(scored):
        raise ValueError(f"{len(scored)} candidates but {len(llm_scores)} LLM scores")
    if k < 0:
        raise ValueError(f"k must not be negative, got {k}")
    if llm_scores is None or (scored and all(score is None for score in llm_scores)):
        stage1_order = (
            replace(item, llm_relevance=None, final_score=item.stage1_score) for item in scored
        )
        return _ranked(stage1_order)[:k], True
    judged = []
    for item, raw in zip(scored, llm_scores, strict=True):
        if raw is None:
            judged.append(replace(item, llm_relevance=None, final_score=_fallback_final(item)))
            continue
        if math.isnan(raw):
            raise ValueError("LLM relevance is NaN")
        relevance = min(max(float(raw), 0.0), RELEVANCE_MAX)
        judged.append(replace(item, llm_relevance=relevance, final_score=_final(item, relevance)))
    return _ranked(judged)[:k], False


# --- relevance prompt --------------------------------------------------------------


# Runs of angle brackets could forge the data's end markers ("UNTRUSTED_PAPER>>>").
_MARKER_BRACKETS = re.compile(r"<{2,}|>{2,}")
_SPACES = re.compile(r"[ \t]{2,}")


def _clean(text: str | None, max_chars: int, *, one_line: bool = False) -> str:
    """L2-cleaned untrusted text, end markers defused; one line for the field lines, so a
    title cannot start a forged `Abstract:` line."""
    cleaned = _MARKER_BRACKETS.sub(" ", sanitize_untrusted(text or "", max_chars=max_chars).text)
    return " ".join(cleaned.split()) if one_line else _SPACES.sub(" ", cleaned).strip()


def build_relevance_prompt(query: str, paper: Paper, tag: str) -> tuple[str, str]:
    """(system, user) messages asking the LLM for `{"relevance": 0-10}` (L2 + L3).

    Title, venue, abstract and the query go through `sanitize_untrusted` here, so no
    caller can forget it. The system message is fenced with the task's tag.
    """
    if not is_task_tag(tag):
        raise ValueError("tag must be a task tag made by new_task_tag()")
    module = load_prompt_module("relevance")
    system = str(module.system(tag, query_language(query) == "ja")).strip()
    user = str(
        module.user(
            _clean(query, QUERY_MAX_CHARS, one_line=True) or "(none)",
            _clean(paper.title, TITLE_MAX_CHARS, one_line=True) or "(no title)",
            "unknown" if paper.year is None else str(paper.year),
            _clean(paper.venue, VENUE_MAX_CHARS, one_line=True) or "unknown",
            _clean(paper.abstract, ABSTRACT_MAX_CHARS) or "(no abstract)",
        )
    ).strip()
    return system, user


def relevance_prompt(query: str, paper: Paper, tag: str) -> str:
    """The relevance prompt as one text (fenced instructions, then data) for a plain
    `generate` call; `build_relevance_prompt` gives the two messages apart."""
    system, user = build_relevance_prompt(query, paper, tag)
    return f"{system}\n\n{user}"


_FENCE = re.compile(r"```[a-zA-Z0-9_-]*")
_NUMBER = re.compile(r"^\s*([-+]?\d{1,6}(?:\.\d{1,6})?)\s*(?:/\s*10)?\s*$")


def _relevance_value(value: Any) -> float | None:
    """A number (or numeric string) clamped to 0..10; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        match = _NUMBER.match(value)
        if match is None:
            return None
        value = float(match.group(1))
    if not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return min(max(float(value), 0.0), RELEVANCE_MAX)


def parse_relevance(text: str) -> float | None:
    """The 0..10 relevance in an LLM answer, or None when there is none (never raises).

    Accepts the first JSON object with a `relevance` key (code fences and prose around
    it ignored; the key in any case), or an answer that is only a number (`7`, `7/10`),
    which small models give despite the prompt. Values are clamped to 0..10.
    """
    cleaned = _FENCE.sub("", unicodedata.normalize("NFKC", text or ""))[:RESPONSE_MAX_CHARS]
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", cleaned):
        try:
            value, _ = decoder.raw_decode(cleaned, match.start())
        except json.JSONDecodeError:
            continue
        if not isinstance(value, dict):
            continue
        keys = {str(name).casefold(): name for name in value}
        if "relevance" in keys:
            return _relevance_value(value[keys["relevance"]])
    return _relevance_value(cleaned) if _NUMBER.match(cleaned) else None
