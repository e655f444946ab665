"""The fake academic world behind the loopback S2 / OpenAlex servers of the tests.

`FakePaper` and `AcademicWorld` hold papers with every id both APIs use and their
citation graph; the functions below shape one paper as each API describes it (field
selection, `externalIds`, inverted abstracts, filters), following the recorded answers
in shared/realworld/academic/ (read there, never copied). `sample_world()` is the
six-paper world the end-to-end tests share. The HTTP side is tests/academic_servers.py.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

Payload = Any
STOPWORDS = frozenset({"and", "are", "does", "for", "from", "how", "not", "the", "with", "what"})
ARXIV_DOI_PREFIX = "10.48550/arxiv."


@dataclass(frozen=True)
class FakePaper:
    """One paper of a fake world, with every id both APIs may use for it.

    `s2_id`, `corpus_id` and `openalex_id` default to values derived from `key`, so a
    world is reproducible. `references` are keys of other papers, in the order S2
    lists them; `influential` (a subset) are the edges S2 marks `isInfluential`;
    `intents` / `contexts` per reference key override the defaults (`background`, one
    sentence naming the cited title). `unresolved_references` are titles S2 lists
    with `paperId: null` and OpenAlex omits. S2 has no retraction flag, so
    `is_retracted` shows only in OpenAlex (as in the real APIs); `abstract_in_s2=False`
    mimics publishers that withhold abstracts from S2; `in_s2` / `in_openalex` hide the
    paper from one API altogether.
    """

    key: str
    title: str
    abstract: str | None = None
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    arxiv: str | None = None
    s2_id: str = ""
    corpus_id: int = 0
    openalex_id: str = ""
    authors: Sequence[str] = ()
    is_retracted: bool = False
    references: Sequence[str] = ()
    influential: Collection[str] = frozenset()
    intents: Mapping[str, Sequence[str]] = field(default_factory=dict)
    contexts: Mapping[str, Sequence[str]] = field(default_factory=dict)
    unresolved_references: Sequence[str] = ()
    oa_pdf_url: str | None = None
    publication_types: Sequence[str] = ("JournalArticle",)
    abstract_in_s2: bool = True
    in_s2: bool = True
    in_openalex: bool = True

    def __post_init__(self) -> None:
        digest = hashlib.sha1(self.key.encode()).hexdigest()
        put = object.__setattr__  # frozen: normalise once, here
        put(self, "s2_id", self.s2_id or digest)
        put(self, "corpus_id", self.corpus_id or int(digest[:7], 16))
        put(self, "openalex_id", (self.openalex_id or f"W{4_000_000_000 + int(digest[7:13], 16)}"))
        for name in ("authors", "references", "unresolved_references", "publication_types"):
            put(self, name, tuple(getattr(self, name)))
        put(self, "influential", frozenset(self.influential))
        put(self, "intents", {k: tuple(v) for k, v in self.intents.items()})
        put(self, "contexts", {k: tuple(v) for k, v in self.contexts.items()})
        if self.pmcid is not None:
            put(self, "pmcid", "PMC" + self.pmcid.upper().removeprefix("PMC"))
        problems = _paper_problems(self)
        if problems:
            raise ValueError(f"FakePaper {self.key!r}: {'; '.join(problems)}")


def _paper_problems(p: FakePaper) -> list[str]:
    """What makes `p` unlike anything the real APIs could describe."""
    problems = []
    if not re.fullmatch(r"[0-9a-f]{40}", p.s2_id):
        problems.append(f"s2_id must be 40 lowercase hex digits, got {p.s2_id!r}")
    if not re.fullmatch(r"W\d+", p.openalex_id):
        problems.append(f"openalex_id must be W + digits, got {p.openalex_id!r}")
    if p.pmcid is not None and not re.fullmatch(r"PMC\d+", p.pmcid):
        problems.append(f"pmcid must be PMC + digits, got {p.pmcid!r}")
    if p.pmid is not None and not p.pmid.isdigit():
        problems.append(f"pmid must be digits, got {p.pmid!r}")
    if len(set(p.references)) != len(p.references) or p.key in p.references:
        problems.append("references repeat a key or cite the paper itself")
    for name in ("influential", "intents", "contexts"):
        stray = set(getattr(p, name)) - set(p.references)
        if stray:
            problems.append(f"{name} names keys that are not references: {sorted(stray)}")
    return problems


class AcademicWorld:
    """Papers and their citation graph; citations are the inverse of references.

    Lookups answer what the APIs resolve: S2 by paperId, `DOI:`, `PMID:`, `PMCID:`,
    `ARXIV:`, `CorpusId:` or a bare DOI; OpenAlex by `W…`, DOI, `pmid:`, `pmcid:`.
    DOIs match case-insensitively (DOI Handbook §2.4).
    """

    def __init__(self, papers: Iterable[FakePaper]) -> None:
        self.papers: tuple[FakePaper, ...] = tuple(papers)
        self._by_key = {p.key: p for p in self.papers}
        if len(self._by_key) != len(self.papers):
            raise ValueError("paper keys must be unique")
        for kind in ("s2_id", "corpus_id", "openalex_id"):
            if len({getattr(p, kind) for p in self.papers}) != len(self.papers):
                raise ValueError(f"{kind} must be unique across the world")
        for p in self.papers:
            missing = [k for k in p.references if k not in self._by_key]
            if missing:
                raise ValueError(f"{p.key!r} references unknown keys {missing}")
        self._citations = {
            p.key: tuple(q for q in self.papers if p.key in q.references) for p in self.papers
        }

    def __getitem__(self, key: str) -> FakePaper:
        return self._by_key[key]

    def references(self, key: str) -> tuple[FakePaper, ...]:
        """The papers `key` cites, in its reference order."""
        return tuple(self._by_key[k] for k in self._by_key[key].references)

    def citations(self, key: str) -> tuple[FakePaper, ...]:
        """The papers citing `key`, in world order."""
        return self._citations[key]

    def s2_lookup(self, identifier: str) -> FakePaper | None:
        """The S2-visible paper an S2 path or batch id names, or None."""
        kind, _, value = identifier.partition(":")
        kind = kind.upper() if value else ""
        value = (value if kind else identifier).strip()
        found = next((p for p in self.papers if _s2_matches(p, kind, value)), None)
        return found if found is not None and found.in_s2 else None

    def openalex_lookup(self, identifier: str) -> FakePaper | None:
        """The OpenAlex-visible work a `/works/{id}` path names, or None."""
        lowered = identifier.strip().lower()
        found = next((p for p in self.papers if _openalex_matches(p, lowered)), None)
        return found if found is not None and found.in_openalex else None

    def search(
        self, query: str, papers: Iterable[FakePaper], s2: bool
    ) -> list[tuple[FakePaper, int]]:
        """(paper, matched word count) of `papers` matching `query`, best first.

        `s2=True` matches against what S2 shows (no abstract where it is withheld).
        """
        terms = _terms(query)
        scored = []
        for order, p in enumerate(papers):
            abstract = p.abstract if (p.abstract_in_s2 or not s2) else None
            score = len(terms & _terms(f"{p.title} {abstract or ''}"))
            if score:
                scored.append((-score, order, p))
        return [(p, -neg) for neg, _, p in sorted(scored, key=lambda t: t[:2])]

    def key_of(self, api_id: str | None) -> str:
        """The key of the paper with this S2 paperId or OpenAlex `W…` id."""
        for p in self.papers:
            if api_id in (p.s2_id, p.openalex_id):
                return p.key
        raise KeyError(api_id)


def _terms(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2} - STOPWORDS


def _doi_of(p: FakePaper, openalex: bool) -> str | None:
    """The DOI an API shows; OpenAlex gives arXiv papers their DataCite DOI."""
    if p.doi:
        return p.doi
    if openalex and p.arxiv:
        return f"{ARXIV_DOI_PREFIX}{p.arxiv}"
    return None


def _same_doi(p: FakePaper, value: str) -> bool:
    bare = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)+", "", value.strip(), flags=re.I)
    bare = bare.lower()
    return bare in {d.lower() for d in (p.doi, _doi_of(p, openalex=True)) if d}


def _s2_matches(p: FakePaper, kind: str, value: str) -> bool:
    if kind == "":
        return value == p.s2_id or (value.startswith("10.") and _same_doi(p, value))
    if kind == "DOI":
        return _same_doi(p, value)
    if kind == "PMID":
        return value == p.pmid
    if kind == "PMCID":
        return p.pmcid is not None and value.upper().removeprefix("PMC") == p.pmcid[3:]
    if kind == "ARXIV":
        return p.arxiv is not None and value.lower() == p.arxiv.lower()
    if kind == "CORPUSID":
        return value == str(p.corpus_id)
    return False


def _openalex_matches(p: FakePaper, lowered: str) -> bool:
    for prefix in ("https://openalex.org/", "openalex:"):
        lowered = lowered.removeprefix(prefix)
    if re.fullmatch(r"w\d+", lowered):
        return lowered == p.openalex_id.lower()
    if lowered.startswith(("doi:", "https://doi.org/", "http://doi.org/", "http://dx.doi.org/")):
        return _same_doi(p, lowered)
    if lowered.startswith("pmid:"):
        return p.pmid is not None and lowered[5:].rstrip("/").rsplit("/", 1)[-1] == p.pmid
    if lowered.startswith("pmcid:"):
        digits = lowered[6:].rstrip("/").rsplit("/", 1)[-1].removeprefix("pmc")
        return p.pmcid is not None and digits == p.pmcid[3:]
    return False


def _number(seed: str, digits: int) -> str:
    """A stable run of `digits` decimal digits derived from `seed` (author ids)."""
    return str(int(hashlib.sha1(seed.encode()).hexdigest(), 16))[:digits]


# Fields S2 knows but this world does not model: answered null, as S2 does when empty.
_S2_NULL_FIELDS = "publicationVenue fieldsOfStudy s2FieldsOfStudy tldr embedding citationStyles"


def _s2_values(world: AcademicWorld) -> dict[str, Callable[[FakePaper], Any]]:
    """Field name -> its value for one paper, for every paper field S2 knows."""

    def ext(p: FakePaper) -> dict[str, Any]:
        ids: dict[str, Any] = {}
        if p.arxiv:
            ids["ArXiv"] = p.arxiv
        if p.doi:
            ids["DOI"] = p.doi
        if p.pmid:
            ids["PubMed"] = p.pmid
        if p.pmcid:
            ids["PubMedCentral"] = p.pmcid[3:]  # S2 writes PMCIDs without the prefix
        ids["CorpusId"] = p.corpus_id
        return ids

    def cited_by(p: FakePaper) -> list[FakePaper]:
        return [q for q in world.citations(p.key) if q.in_s2]

    return {
        "externalIds": ext,
        "corpusId": lambda p: p.corpus_id,
        "url": lambda p: f"https://www.semanticscholar.org/paper/{p.s2_id}",
        "title": lambda p: p.title,
        "abstract": lambda p: p.abstract if p.abstract_in_s2 else None,
        "venue": lambda p: p.venue or "",
        "year": lambda p: p.year,
        "referenceCount": lambda p: len(p.references) + len(p.unresolved_references),
        "citationCount": lambda p: len(cited_by(p)),
        "influentialCitationCount": lambda p: sum(p.key in q.influential for q in cited_by(p)),
        "isOpenAccess": lambda p: p.oa_pdf_url is not None,
        "openAccessPdf": lambda p: (
            {"url": p.oa_pdf_url, "status": "GREEN"} if p.oa_pdf_url else None
        ),
        "publicationTypes": lambda p: list(p.publication_types) or None,
        "publicationDate": lambda p: None,
        "journal": lambda p: {"name": p.venue} if p.venue else None,
        "authors": lambda p: [{"authorId": _number(a, 9), "name": a} for a in p.authors],
        **{name: (lambda p: None) for name in _S2_NULL_FIELDS.split()},
    }


class S2FieldError(ValueError):
    """A `fields` parameter naming fields S2 does not know (S2 answers 400)."""


def s2_paper(world: AcademicWorld, p: FakePaper | None, fields: Sequence[str]) -> dict[str, Any]:
    """A paper object with `paperId` plus `fields`; `p=None` is an unresolved stub.

    Dotted fields select sub-objects (`authors.name`, `references.title`); the authors
    list always carries `authorId` and `name`, the two fields every client reads.
    """
    values = _s2_values(world)
    top: dict[str, list[str]] = {}
    for name in fields:
        head, _, sub = name.partition(".")
        top.setdefault(head, [])
        if sub:
            top[head].append(sub)
    nested = ("paperId", "references", "citations")
    unknown = [h for h in top if h not in values and h not in nested]
    if unknown:
        raise S2FieldError(f"Unrecognized or unsupported fields: [{', '.join(unknown)}]")
    obj: dict[str, Any] = {"paperId": p.s2_id if p else None}
    for head, subs in top.items():
        if head == "paperId":
            continue
        if p is None:
            obj[head] = None
        elif head in ("references", "citations"):
            far = world.references(p.key) if head == "references" else world.citations(p.key)
            obj[head] = [s2_paper(world, q, subs or ["title"]) for q in far if q.in_s2]
        else:
            obj[head] = values[head](p)
    return obj


def s2_unresolved(world: AcademicWorld, title: str, fields: Sequence[str]) -> dict[str, Any]:
    """A reference S2 knows only by its title: `paperId` null, every other field null."""
    obj = s2_paper(world, None, fields)
    if "title" in obj:
        obj["title"] = title
    return obj


class S2Edge(NamedTuple):
    """One citation edge as S2 lists it; `far` is the side the page describes.

    `cited_key` is None and `far` a bare title for a reference S2 could not resolve.
    """

    citing: FakePaper
    cited_key: str | None
    far: FakePaper | str


def s2_edges(world: AcademicWorld, p: FakePaper, direction: str) -> list[S2Edge]:
    """The edges of a `/references` or `/citations` page of `p`, in S2's order."""
    if direction == "citations":
        return [S2Edge(q, p.key, q) for q in world.citations(p.key) if q.in_s2]
    resolved = [S2Edge(p, q.key, q if q.in_s2 else q.title) for q in world.references(p.key)]
    return resolved + [S2Edge(p, None, title) for title in p.unresolved_references]


def s2_edge(
    world: AcademicWorld, edge: S2Edge, direction: str, fields: Sequence[str]
) -> dict[str, Any]:
    """One page item: the requested edge fields plus `citedPaper` / `citingPaper`."""
    key = edge.cited_key
    cited_title = world[key].title if key else str(edge.far)
    contexts = list(edge.citing.contexts.get(key or "", ())) or [
        f"Earlier work reported related results ({cited_title})."
    ]
    intents = list(edge.citing.intents.get(key or "", ("background",)))
    edge_values: dict[str, Any] = {
        "contexts": contexts,
        "intents": intents,
        "contextsWithIntent": [{"context": c, "intents": intents} for c in contexts],
        "isInfluential": key is not None and key in edge.citing.influential,
    }
    item = {name: edge_values[name] for name in fields if name in edge_values}
    paper_fields = [f for f in fields if f not in edge_values]
    side = "citedPaper" if direction == "references" else "citingPaper"
    if isinstance(edge.far, str):
        item[side] = s2_unresolved(world, edge.far, paper_fields)
    else:
        item[side] = s2_paper(world, edge.far, paper_fields)
    return item


OPENALEX = "https://openalex.org/"
# Filter names this fake evaluates; hyphenated spellings are accepted like the real API.
OPENALEX_FILTERS = frozenset(
    (
        *("cites", "cited_by", "openalex", "openalex_id", "ids.openalex", "doi", "pmid"),
        *("ids.pmid", "pmcid", "ids.pmcid", "is_retracted", "publication_year"),
        *("title.search", "title_and_abstract.search", "default.search"),
    )
)


def inverted_index(abstract: str | None) -> dict[str, list[int]] | None:
    """OpenAlex's abstract form: each whitespace-separated word -> its positions."""
    if not abstract:
        return None
    index: dict[str, list[int]] = {}
    for position, word in enumerate(abstract.split()):
        index.setdefault(word, []).append(position)
    return index


def openalex_work(world: AcademicWorld, p: FakePaper) -> dict[str, Any]:
    """A work object shaped like the recorded ones (the fields any client reads)."""
    doi = _doi_of(p, openalex=True)
    doi_url = f"https://doi.org/{doi.lower()}" if doi else None
    ids: dict[str, Any] = {"openalex": OPENALEX + p.openalex_id}
    if doi_url:
        ids["doi"] = doi_url
    if p.pmid:
        ids["pmid"] = f"https://pubmed.ncbi.nlm.nih.gov/{p.pmid}"
    if p.pmcid:  # OpenAlex writes the PMC URL with digits only
        ids["pmcid"] = f"https://www.ncbi.nlm.nih.gov/pmc/articles/{p.pmcid[3:]}"
    landing = doi_url or (f"https://pubmed.ncbi.nlm.nih.gov/{p.pmid}" if p.pmid else None)
    source = None
    if p.venue:
        source = {"id": f"{OPENALEX}S{p.openalex_id[1:]}", "display_name": p.venue}
        source["type"] = "repository" if p.arxiv and not p.doi else "journal"
    location = {
        "is_oa": p.oa_pdf_url is not None,
        "landing_page_url": landing,
        "pdf_url": p.oa_pdf_url,
        "source": source,
    }
    refs = [OPENALEX + q.openalex_id for q in world.references(p.key) if q.in_openalex]
    citing = [q for q in world.citations(p.key) if q.in_openalex]
    return {
        "id": OPENALEX + p.openalex_id,
        "doi": doi_url,
        "title": p.title,
        "display_name": p.title,
        "publication_year": p.year,
        "publication_date": f"{p.year}-01-01" if p.year else None,
        "ids": ids,
        "language": "en",
        "primary_location": location,
        "type": "preprint" if p.arxiv and not p.doi else "article",
        "open_access": {"is_oa": p.oa_pdf_url is not None, "oa_url": p.oa_pdf_url},
        "authorships": [
            {
                "author_position": "first" if i == 0 else "middle",
                "author": {"id": f"{OPENALEX}A5{_number(a, 9)}", "display_name": a, "orcid": None},
                "institutions": [],
                "raw_author_name": a,
            }
            for i, a in enumerate(p.authors)
        ],
        "cited_by_count": len(citing),
        "is_retracted": p.is_retracted,
        "is_paratext": False,
        "best_oa_location": location if p.oa_pdf_url else None,
        "referenced_works_count": len(refs),
        "referenced_works": refs,
        "related_works": [],
        "abstract_inverted_index": inverted_index(p.abstract),
        "cited_by_api_url": f"https://api.openalex.org/works?filter=cites:{p.openalex_id}",
        "counts_by_year": [],
    }


def openalex_filter(
    world: AcademicWorld, expression: str, works: list[FakePaper]
) -> list[FakePaper]:
    """`works` kept by a filter expression: clauses joined by `,` (AND), values by `|` (OR).

    Raises `ValueError` with OpenAlex's own wording for an unknown filter name.
    """
    for clause in expression.split(","):
        given, _, raw = clause.partition(":")
        name = given.strip().lower().replace("-", "_")
        if name not in OPENALEX_FILTERS:
            raise ValueError(
                f"{given.strip()} is not a valid field. Valid fields are underscore or hyphenated "
                f"versions of: {', '.join(sorted(OPENALEX_FILTERS))}"
            )
        values = [v.strip() for v in raw.split("|")]
        works = [p for p in works if any(_filter_holds(world, p, name, v) for v in values)]
    return works


def _filter_holds(world: AcademicWorld, p: FakePaper, name: str, value: str) -> bool:
    """Whether work `p` passes one `name:value` filter."""
    if name in ("cites", "cited_by"):
        other = world.openalex_lookup(value)
        if other is None:
            return False
        if name == "cites":
            return other.key in p.references
        return p.key in other.references
    if name.endswith(".search"):
        abstract = p.abstract if name != "title.search" else ""
        return bool(_terms(value) & _terms(f"{p.title} {abstract or ''}"))
    if name == "is_retracted":
        return p.is_retracted == (value.lower() == "true")
    if name == "publication_year":
        return str(p.year) == value
    prefix = {"doi": "doi:", "pmid": "pmid:", "ids.pmid": "pmid:"}.get(name, "")
    prefix = "pmcid:" if "pmcid" in name else prefix
    return _openalex_matches(p, (prefix + value).lower())


def cursor_token(offset: int) -> str:
    """An opaque cursor like OpenAlex's (base64 of a sort key), here of an offset."""
    return base64.urlsafe_b64encode(json.dumps(["fake-cursor", offset]).encode()).decode()


def cursor_offset(token: str) -> int | None:
    if token == "*":
        return 0
    try:
        tag, offset = json.loads(base64.urlsafe_b64decode(token.encode()))
    except (ValueError, TypeError, binascii.Error):
        return None
    return offset if tag == "fake-cursor" and isinstance(offset, int) else None


def sample_world() -> AcademicWorld:
    """Six papers on coffee and heart health, each citing the one before (and more).

    Keys, oldest first (the chain is cohort <- trial <- retracted <- pmid_only <-
    preprint <- review):
      cohort     2012, DOI written upper-case as S2 does, PMID and PMCID, OA PDF.
      trial      2015, DOI; cites cohort (influential, intent methodology).
      retracted  2016, DOI, `is_retracted` (OpenAlex only); cites cohort, trial.
      pmid_only  2017, PMID only (no DOI anywhere); cites trial, retracted.
      preprint   2019, arXiv only (OpenAlex shows its 10.48550 DOI); cites trial,
                 retracted, pmid_only (trial influential) and one reference S2
                 cannot resolve.
      review     2021, DOI; cites all five (cohort and trial influential); its
                 abstract is withheld from S2.
    """
    return AcademicWorld(
        [
            FakePaper(
                key="cohort",
                title="Coffee consumption and cardiovascular mortality in a prospective cohort",
                abstract="Among 40000 adults followed for ten years, moderate coffee "
                "consumption was associated with lower cardiovascular mortality.",
                year=2012,
                venue="Journal of Cohort Studies",
                doi="10.5555/COHORT.2012.001",
                pmid="22000001",
                pmcid="PMC3000001",
                authors=("Ana Duarte", "Kenji Sato"),
                oa_pdf_url="https://repository.example.org/cohort.pdf",
            ),
            FakePaper(
                key="trial",
                title="A randomized trial of caffeinated coffee and arterial stiffness",
                abstract="In a randomized crossover trial of 120 volunteers, caffeinated "
                "coffee did not change arterial stiffness after eight weeks.",
                year=2015,
                venue="Trials in Cardiology",
                doi="10.5555/trial.2015.002",
                pmid="25000002",
                authors=("Maria Rossi",),
                references=("cohort",),
                influential=("cohort",),
                intents={"cohort": ("methodology",)},
                contexts={"cohort": ("We sampled participants as in the cohort study [1].",)},
            ),
            FakePaper(
                key="retracted",
                title="Coffee reverses arterial stiffening in hypertensive patients",
                abstract="A small study claimed that coffee reverses arterial stiffening "
                "in hypertensive patients.",
                year=2016,
                venue="Journal of Cardiology Letters",
                doi="10.5555/retracted.2016.003",
                authors=("Paul Weber",),
                is_retracted=True,
                references=("cohort", "trial"),
            ),
            FakePaper(
                key="pmid_only",
                title="Caffeine intake and blood pressure in older adults",
                abstract="Habitual caffeine intake was not associated with blood pressure "
                "in 900 older adults.",
                year=2017,
                venue="Geriatric Medicine",
                pmid="28000004",
                authors=("Lena Hoffmann",),
                references=("trial", "retracted"),
            ),
            FakePaper(
                key="preprint",
                title="A causal analysis of coffee and coronary heart disease",
                abstract="Mendelian randomization finds no causal effect of coffee on "
                "coronary heart disease.",
                year=2019,
                venue="arXiv.org",
                arxiv="1901.01234",
                authors=("Ravi Iyer", "Chen Wei"),
                references=("trial", "retracted", "pmid_only"),
                influential=("trial",),
                unresolved_references=("Proceedings abstract on coffee and arrhythmia",),
            ),
            FakePaper(
                key="review",
                title="Coffee and cardiovascular health: a systematic review",
                abstract="We review cohort, trial and genetic evidence on coffee and "
                "cardiovascular health and find moderate consumption safe.",
                year=2021,
                venue="Cardiology Reviews",
                doi="10.5555/review.2021.006",
                pmid="33000006",
                authors=("Sofia Lind", "Ana Duarte"),
                references=("cohort", "trial", "retracted", "pmid_only", "preprint"),
                influential=("cohort", "trial"),
                abstract_in_s2=False,
            ),
        ]
    )
