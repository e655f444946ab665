"""Facets of a research question, and passage selection that covers every one of them.

Issue 12 item 3. A single ranking of passages against the question, cut at its knee,
keeps what sounds most like the question and drops whole aspects a researcher would
check: for "Does moderate coffee consumption affect cardiovascular health?" the
half-life, cholesterol and tolerance passages ranked 60th to 90th of 119 on the demo
corpus. So the question is decomposed first:

- its own aspects: the question itself, and each part of a compound question
  ("... and does it ...", "; ...");
- the standard facets for its kind. For an intervention or exposure (does X affect Y,
  is X safe, effects of X on Y, X for Y): efficacy (the question), safety and adverse
  effects, dosage and timing, who it is for and against, comparison with alternatives,
  and how it acts; worded for health when the question names a body, an illness or
  what people take, and for a practice, a policy or a device otherwise ("risks, costs,
  downsides", "how much, how often, the size or scale", "which groups, places and
  settings", "how it works"). For any other question: key figures, disagreement and
  limitations, comparison, causes and consequences.

Each facet gets a query text built from the question's subject (the head of X, with
modifiers such as "moderate" or "consumption" dropped, so that the subject does not
swamp the facet's own words). Passages are ranked per facet (BM25 + embeddings, the
hybrid of ``ranking``), each facet's list is cut at its own Kneedle knee (unless every
passage fits the budget: then none is cut), and the facets then take turns picking
passages by maximal marginal relevance (Carbonell and Goldstein 1998): relevance to the
facet minus similarity to what is already picked, so a facet adds what the others have
not. While the budget is not used up, each facet goes on down its ranking past its knee
(decision 0094: a focused corpus's facts rank below every facet's knee). With an LLM
the same facets go into the claim prompt (``claims.build_claim_prompt``); without one
the extractive path scores sentences against the facet that picked their passage.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal, TypeVar

import numpy as np
import numpy.typing as npt

from lyra.pipelines.evidence.ranking import (
    STOPWORDS,
    bm25_scores,
    hybrid_scores,
    kneedle_cutoff,
    min_max,
)

QuestionKind = Literal["intervention", "general"]
T = TypeVar("T")

# Per-facet Kneedle bounds: every facet keeps at least two passages, and no single
# facet may take more than this share of the overall passage budget.
FACET_MIN_K: Final = 2
FACET_MAX_SHARE: Final = 0.5
# MMR trade-off between relevance to the facet and novelty against the passages
# already picked; 0.7 is the usual setting for retrieval diversification.
MMR_LAMBDA: Final = 0.7
# Passages this similar (cosine) to one already picked are the same text: a
# syndicated copy or a repeated paragraph.
NEAR_DUPLICATE: Final = 0.95
# While the facets' picks fill less than the budget, each facet goes on past its knee
# (see `select_across_facets`); what is picked once this share of the budget is used
# is reserve: its claims come after every other passage's (decision 0094).
FILL_BELOW_SHARE: Final = 0.5
# ... at most down to this many times its knee.
FILL_MAX_DEPTH: Final = 4
# The span a reranker spreads a head over when its hybrid scores all tie.
TIE_SPREAD: Final = 1e-6


@dataclass(frozen=True, slots=True)
class Facet:
    """One aspect of the question: a name, the query text it is ranked by, its origin."""

    name: str
    query: str
    origin: Literal["question", "standard"]


_AUX = r"(?:does|do|did|can|could|may|might|will|would|should|is|are|was|were|has|have)"
# "Does X <verb> Y?": the verbs an intervention or exposure question asks about.
_EFFECT_VERBS = (
    r"(?:affect|affects|cause|causes|reduce|reduces|increase|increases|improve|improves|"
    r"prevent|prevents|protect|protects|help|helps|work|works|raise|raises|lower|lowers|"
    r"treat|treats|cure|cures|influence|influences|change|changes|worsen|worsens|"
    r"benefit|benefits|harm|harms|slow|slows|delay|delays|decrease|decreases|"
    r"lead to|leads to|contribute to|contributes to|impact|impacts|alter|alters|"
    r"trigger|triggers|relieve|relieves|boost|boosts|damage|damages|"
    # what a remedy does to an illness's course or a risk ("Do zinc lozenges shorten the
    # common cold?")
    r"shorten|shortens|lengthen|lengthens|prolong|prolongs|extend|extends|speed up|"
    r"speeds up|ease|eases|alleviate|alleviates|soothe|soothes|heal|heals|fight|fights|"
    r"kill|kills|block|blocks|stop|stops|inhibit|inhibits|suppress|suppresses|promote|"
    r"promotes|enhance|enhances|strengthen|strengthens|weaken|weakens|accelerate|"
    r"accelerates|hasten|hastens|mitigate|mitigates|reverse|reverses|lessen|lessens|"
    r"shrink|shrinks|restore|restores)"
)
# "How well / how much / to what extent does X <verb> Y?" asks the same of X (decision
# 0097).
_HOW_MUCH = (
    r"(?:(?:how\s+(?:well|much|far|effectively|often|strongly|quickly|fast|long|"
    r"reliably|safely)|to\s+what\s+(?:extent|degree)|in\s+what\s+ways?|why)\s+)?"
)
_DOES_X_VERB = re.compile(
    rf"^\s*{_HOW_MUCH}{_AUX}\s+(?P<x>.+?)\s+(?:really\s+|actually\s+)?{_EFFECT_VERBS}\b"
    r"(?P<y>.*)$",
    re.IGNORECASE,
)
# "How safe / effective is X (for Y)?"
_HOW_SAFE = re.compile(
    r"^\s*how\s+(?:safe|effective|harmful|dangerous|beneficial|useful|helpful|risky|"
    r"toxic|well\s+tolerated)\s+(?:is|are|was|were)\s+(?P<x>.+?)"
    r"(?:\s+(?:for|at|in|against|to|as|when|during|among|after)\s+(?P<y>.+))?$",
    re.IGNORECASE,
)
_IS_X_SAFE = re.compile(
    rf"^\s*{_AUX}\s+(?P<x>.+?)\s+(?:safe|effective|harmful|dangerous|beneficial|good|bad|"
    r"healthy|unhealthy|toxic|useful|helpful|risky)\b(?P<y>.*)$",
    re.IGNORECASE,
)
# "Is it worth taking X for Y?", "Is X worth taking for Y?": a question of benefit
# against harm, asked of an intervention.
_IS_IT_WORTH = re.compile(
    r"^\s*(?:is|are)\s+it\s+worth\s+(?:taking|using|trying|doing|buying|having|getting|"
    r"starting)\s+(?P<x>.+?)(?:\s+(?:for|to|if|when|in|as|after)\s+(?P<y>.+))?$",
    re.IGNORECASE,
)
_IS_X_WORTH = re.compile(
    r"^\s*(?:is|are)\s+(?P<x>.+?)\s+worth\s+(?:taking|using|trying|doing|buying|having|"
    r"getting|starting|it|the\s+\w+)\b(?P<y>.*)$",
    re.IGNORECASE,
)
_EFFECT_OF = re.compile(
    r"\b(?:effects?|impacts?|influence|benefits?|risks?|harms?|safety|efficacy|"
    r"effectiveness)\s+of\s+(?P<x>.+?)(?:\s+(?:on|for|in|among|against)\s+(?P<y>.+))?$",
    re.IGNORECASE,
)
_X_FOR_Y = re.compile(
    r"^\s*(?:should|can|could)\s+(?:i|we|you|people|patients|adults|children)\s+"
    r"(?:take|use|eat|drink|try|avoid|start)\s+(?P<x>.+?)(?:\s+(?:for|to|if|when)\s+(?P<y>.+))?$",
    re.IGNORECASE,
)
# A question comparing two options ("Is X or Y better for Z?", "Is X better than Y for
# Z?", "Which is better for Z, X or Y?", "X vs Y for Z", "Should I take X or Y for Z?"):
# an intervention question about both, asked of each arm too (decision 0096).
_COMPARATIVE = (
    r"(?:better|best|worse|preferable|(?:more|less)\s+[\w-]+|(?:health|saf|cheap|fast|"
    r"strong|eas|risk|green|high|low|long|short|larg|small|bigg|quick|slow|clean|gentl|"
    r"mild|heavi|light|tough|weak|effectiv|friendli)(?:ier|er))"
)
_RELATION = r"(?P<r>for|to|in|after|against|when|at|during|with|among|over|on)"
_ACT = r"(?:(?:work|works|do|does|perform|performs)\s+)?"
_COMPARISONS: Final[tuple[re.Pattern[str], ...]] = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"^\s*{_AUX}\s+(?P<x>.+?)\s+or\s+(?P<x2>.+?)\s+{_ACT}{_COMPARATIVE}"
        rf"(?:\s+{_RELATION}\s+(?P<y>.+))?$",
        rf"^\s*{_AUX}\s+(?P<x>.+?)\s+{_ACT}(?:{_COMPARATIVE}\s+than|as\s+[\w-]+\s+as)\s+"
        rf"(?P<x2>.+?)(?:\s+{_RELATION}\s+(?P<y>.+))?$",
        r"^\s*(?:which|what)\s+(?:is|are|works?|helps?)\s+(?:the\s+)?"
        rf"{_COMPARATIVE}(?:\s+{_RELATION}\s+(?P<y>.+?))?\s*[,:]\s*"
        r"(?P<x>.+?)\s+or\s+(?P<x2>.+)$",
        rf"^\s*(?:{_AUX}\s+)?(?P<x>.+?)\s+(?:vs\.?|versus)\s+(?P<x2>.+?)"
        rf"(?:\s+{_RELATION}\s+(?P<y>.+))?$",
        r"^\s*should\s+(?:i|we|you|people|patients|adults|children|parents)\s+"
        r"(?:take|use|choose|try|get|give|have|pick)\s+(?P<x>.+?)\s+or\s+(?P<x2>.+?)"
        rf"(?:\s+{_RELATION}\s+(?P<y>.+))?$",
    )
)
_EFFECT_VERB = re.compile(rf"\b{_EFFECT_VERBS}\b", re.IGNORECASE)
# Modifiers and nominalisations around an intervention's name: "moderate coffee
# consumption" is about coffee, "daily aspirin use" about aspirin.
# fmt: off
_MODIFIERS: Final[frozenset[str]] = frozenset((
    "moderate", "moderately", "regular", "regularly", "daily", "habitual", "heavy",
    "light", "high", "low", "higher", "lower", "long", "term", "long-term", "short-term",
    "chronic", "acute", "frequent", "occasional", "excessive", "increased", "reduced",
    "consumption", "intake", "use", "usage", "supplementation", "supplements",
    "supplement", "treatment", "therapy", "exposure", "drinking", "eating", "taking",
    "using", "dose", "doses", "dosing", "amounts", "amount", "level", "levels", "diet",
    "dietary", "routine", "everyday", "much", "many", "too",
))
# fmt: on
_WORDS = re.compile(r"[\w'-]+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
_JA_INTERVENTION = re.compile(
    r"(効果|影響|安全|副作用|リスク|効く|予防|改善|治療|摂取|服用|"
    # what a remedy does to an illness's course or a risk (shortens, eases, lowers ...)
    r"短縮|軽減|緩和|減ら|下げ|抑え|抑制|促進|悪化|防ぐ|防止|有効|有害|危険|回復)"
)
# A compound question: "... and does it ...", "...; ..." or several question marks.
_SPLIT = re.compile(
    r"\?\s+|;\s*|\s+and\s+(?=(?:does|do|is|are|can|could|how|what|which|who|why|when|"
    r"should|will)\b)",
    re.IGNORECASE,
)
_MIN_ASPECT_WORDS: Final = 3

# Standard facets. "{x}" is the question's subject.
_INTERVENTION_FACETS: Final[tuple[tuple[str, str], ...]] = (
    ("safety", "{x}: safety, adverse effects, side effects, risks and harms"),
    ("dosage", "{x}: dose, how much and how often, amount per day, timing, duration, half-life"),
    (
        "population",
        "{x}: who it is for and who should avoid it: healthy adults, patients, pregnant "
        "women, children, older people, people taking other medicines, regular users",
    ),
    (
        "comparison",
        "{x} compared with alternatives: other treatments, options, forms or types, "
        "placebo, as effective as, better or worse than, switching",
    ),
    (
        "mechanism",
        "{x}: mechanism of action, the substances it contains and their biological effects",
    ),
)
# The same five for an intervention outside health (a policy, a practice, a device): the
# medical words ("half-life", "the substances it contains", "pregnant women") would rank
# a heat pump's or a school policy's passages by words they never use.
_PRACTICE_FACETS: Final[tuple[tuple[str, str], ...]] = (
    ("safety", "{x}: risks, costs, downsides, side effects and unintended consequences"),
    ("dosage", "{x}: how much, how often and for how long, the amount, size or scale, timing"),
    (
        "population",
        "{x}: who it works for and who it does not: which groups, places, settings and conditions",
    ),
    (
        "comparison",
        "{x} compared with alternatives: other options, approaches or types, as effective "
        "as, better or worse than, switching",
    ),
    ("mechanism", "{x}: how it works and why it has its effect"),
)
# What makes an intervention question a health question: its words name a body, an
# illness, a medicine or what people take. Without one, the practice facets apply.
_HEALTH = re.compile(
    r"\b(?:health\w*|medic\w*|patients?|clinical|disease\w*|disorders?|symptoms?|"
    r"syndrome|illness\w*|pain|ache\w*|headaches?|migraines?|sleep\w*|insomnia|jet lag|"
    r"fatigue|cancer\w*|tumou?rs?|diabet\w*|heart|cardi\w*|blood|cholesterol|stroke|"
    r"dementia|alzheimer\w*|infect\w*|vir(?:us|al|uses)|covid\w*|flu|influenza|common colds?|"
    r"vaccin\w*|immun\w*|inflamm\w*|allerg\w*|asthma|pregnan\w*|birth|obes\w*|"
    r"weight|bmi|fractures?|bones?|muscles?|kidneys?|liver|lungs?|skin|teeth|dental|"
    r"depress\w*|anxiety|mental|mood|stress|cognit\w*|mortality|deaths?|survival|"
    r"drugs?|pills?|tablets?|supplement\w*|vitamin\w*|minerals?|doses?|dosage|"
    r"therap\w*|treatment\w*|surgery|hospital\w*|diet\w*|nutri\w*|fasting|calori\w*|"
    r"aspirin|caffeine|coffee|alcohol|smoking|nicotine|exercise)\b",
    re.IGNORECASE,
)
_GENERAL_FACETS: Final[tuple[tuple[str, str], ...]] = (
    ("figures", "{x}: key figures, numbers, rates and measurements"),
    ("disagreement", "{x}: criticism, disagreement, limitations and contrary findings"),
    ("comparison", "{x} compared with alternatives and other cases"),
    ("causes", "{x}: causes, consequences and effects"),
)
_JA_INTERVENTION_FACETS: Final[tuple[tuple[str, str], ...]] = (
    ("safety", "{x} 安全性 副作用 有害事象 リスク"),
    ("dosage", "{x} 用量 摂取量 一日 時間 期間 半減期"),
    ("population", "{x} 対象 成人 患者 妊婦 子ども 高齢者"),
    ("comparison", "{x} 比較 代替 種類 方法"),
    ("mechanism", "{x} 作用機序 成分 生物学的 効果"),
)
_JA_GENERAL_FACETS: Final[tuple[tuple[str, str], ...]] = (
    ("figures", "{x} 数値 割合 統計"),
    ("disagreement", "{x} 批判 異論 限界 反証"),
    ("comparison", "{x} 比較 代替"),
    ("causes", "{x} 原因 結果 影響"),
)


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip(" \t\n?\uff1f\u3002.!,;:")


def _head(phrase: str) -> str:
    """The phrase without modifiers, articles and function words ("coffee")."""
    words = _WORDS.findall(phrase)
    kept = [w for w in words if w.lower() not in _MODIFIERS and w.lower() not in STOPWORDS]
    return " ".join(kept) if kept else _clean(phrase)


def question_subject(question: str) -> tuple[QuestionKind, str]:
    """The kind of question and its subject (the intervention, or the topic)."""
    text = _clean(question)
    if _CJK.search(text):
        kind: QuestionKind = "intervention" if _JA_INTERVENTION.search(text) else "general"
        return kind, text
    # The first part of a compound question names the subject ("Is X safe and does it
    # ..."); matching the whole would stretch X up to the second clause's verb.
    for part in question_aspects(text):
        arms = _compared(part)
        if arms is not None:
            return "intervention", f"{_head(arms[0])} {_head(arms[1])}"
        for pattern in (
            _DOES_X_VERB,
            _IS_X_SAFE,
            _HOW_SAFE,
            _IS_IT_WORTH,
            _IS_X_WORTH,
            _X_FOR_Y,
            _EFFECT_OF,
        ):
            match = pattern.search(part)
            if match:
                subject = _head(match.group("x"))
                if subject:
                    return "intervention", subject
    words = [w for w in _WORDS.findall(text) if w.lower() not in STOPWORDS]
    return "general", " ".join(words) if words else text


def question_aspects(question: str) -> list[str]:
    """The question's own parts: a compound question split where a new clause starts;
    a question of one clause whose outcome names several things ("Do congestion
    charges reduce city traffic and air pollution?") is asked again of each outcome
    after the first ("Do congestion charges reduce air pollution"), so that no outcome
    depends on one ranking of the whole question."""
    parts = [_clean(p) for p in _SPLIT.split(question)]
    parts = [p for p in parts if len(_WORDS.findall(p)) >= _MIN_ASPECT_WORDS]
    if len(parts) <= 1:
        whole = _clean(question) or question
        parts = [whole, *_other_outcomes(whole)]
    # A comparison is asked again of each option on its own ("ibuprofen for pain after
    # wisdom tooth removal"), and of the other options ("other options for pain after
    # ..."): a source about one option rarely names the other, and an ice pack's none.
    for part in parts:
        arms = _compared(part)
        if arms is not None and arms[2]:
            return [*parts, *(f"{arm} {arms[2]}" for arm in arms[:2]), f"other options {arms[2]}"]
    return parts


def _compared(part: str) -> tuple[str, str, str] | None:
    """The two options a comparison question weighs and what they are weighed for
    ("pain after wisdom tooth removal", with its preposition; "" when it names
    nothing), or None when `part` compares nothing."""
    for pattern in _COMPARISONS:
        match = pattern.search(part)
        if match is None:
            continue
        x, x2 = (_clean(re.split(r"[,:]", match.group(g))[0]) for g in ("x", "x2"))
        # "Does X reduce Y more than Z": one option's effect, not two options.
        if not _head(x) or not _head(x2) or _EFFECT_VERB.search(f"{x} {x2}"):
            continue
        y = match.group("y")
        return x, x2, f"{match.group('r')} {_clean(y)}" if y else ""
    return None


# The outcomes of "Does X <verb> A and B" (at most this many more aspects).
_OUTCOME_JOIN = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", re.IGNORECASE)
_MAX_OUTCOME_ASPECTS: Final = 2
_OUTCOME_HEAD = re.compile(r"^((?:the\s+)?(?:[\w-]+\s+){0,2}of)\s+", re.IGNORECASE)


def _other_outcomes(question: str) -> list[str]:
    match = _DOES_X_VERB.search(question)
    if match is None:
        return []
    outcomes = [o.strip() for o in _OUTCOME_JOIN.split(match.group("y"))]
    if len(outcomes) < 2 or any(not _WORDS.findall(o) for o in outcomes):
        return []
    stem = question[: match.start("y")].rstrip()
    # "the risk of heart attack and stroke": the risk of stroke.
    head = _OUTCOME_HEAD.match(outcomes[0])
    return [
        f"{stem} {head.group(1)} {o}" if head and " of " not in f" {o} " else f"{stem} {o}"
        for o in outcomes[1 : 1 + _MAX_OUTCOME_ASPECTS]
    ]


def question_facets(question: str) -> list[Facet]:
    """The question's own aspects, then the standard facets for its kind."""
    kind, subject = question_subject(question)
    facets = [
        Facet("question" if i == 0 else f"question_{i + 1}", aspect, "question")
        for i, aspect in enumerate(question_aspects(question))
    ]
    cjk = _CJK.search(question) is not None
    if kind == "intervention":
        if cjk:
            templates = _JA_INTERVENTION_FACETS
        elif _HEALTH.search(question) or _X_FOR_Y.search(_clean(question)):
            templates = _INTERVENTION_FACETS
        else:
            templates = _PRACTICE_FACETS
    else:
        templates = _JA_GENERAL_FACETS if cjk else _GENERAL_FACETS
    facets.extend(Facet(name, t.format(x=subject), "standard") for name, t in templates)
    return facets


@dataclass(frozen=True, slots=True)
class Selection:
    """Passages picked across facets: indices in pick order, and the facet of each.

    ``reserve``: the passages picked once half the budget was used (decision 0094):
    their claims come after every claim of the others, so a search whose claim budget
    is full keeps the claims the others give, and one with room takes theirs too.
    """

    indices: list[int]
    facet_of: dict[int, str]
    per_facet: dict[str, int]
    reserve: frozenset[int] = frozenset()


def facet_scores(
    facets: Sequence[Facet],
    texts: Sequence[str],
    facet_vecs: npt.NDArray[np.float32] | None,
    passage_vecs: npt.NDArray[np.float32] | None,
    *,
    bm25_weight: float = 0.3,
    embedding_weight: float = 0.7,
    bias: npt.ArrayLike | None = None,
) -> list[npt.NDArray[np.float64]]:
    """Each facet's hybrid score of every passage (BM25 + cosine, plus ``bias``).

    `facet_vecs` and `passage_vecs` are L2-normalised embeddings (None or zero-width
    when no embedder is loaded: the score is then BM25 alone).
    """
    n = len(texts)
    have_vecs = _have_vecs(facet_vecs, passage_vecs)
    extra = np.zeros(n) if bias is None else np.asarray(bias, dtype=np.float64)
    out = []
    for i, facet in enumerate(facets):
        if have_vecs:
            assert facet_vecs is not None and passage_vecs is not None
            cosine = np.asarray(passage_vecs @ facet_vecs[i], dtype=np.float64)
        else:
            cosine = np.zeros(n)
        scores = hybrid_scores(
            bm25_scores(facet.query, texts), cosine, bm25_weight, embedding_weight
        )
        out.append(scores + extra)
    return out


def _have_vecs(
    facet_vecs: npt.NDArray[np.float32] | None, passage_vecs: npt.NDArray[np.float32] | None
) -> bool:
    return (
        facet_vecs is not None
        and passage_vecs is not None
        and facet_vecs.ndim == 2
        and passage_vecs.ndim == 2
        and facet_vecs.shape[1] > 0
        and passage_vecs.shape[1] == facet_vecs.shape[1]
    )


def rerank_heads(scores: Sequence[npt.NDArray[np.float64]], depth: int) -> list[list[int]]:
    """The `depth` best passages of each facet by its hybrid score, best first: what a
    reranker re-orders (decision 0047)."""
    return [sorted(range(len(s)), key=lambda j: (-s[j], j))[: max(0, depth)] for s in scores]


def reranked(
    scores: npt.NDArray[np.float64], logits: Mapping[int, float]
) -> npt.NDArray[np.float64]:
    """`scores` with the passages in `logits` re-ordered by the reranker's logits.

    They keep the span of hybrid scores they had (lowest to highest among them), spread
    over it in the reranker's order, so they stay ahead of every passage below them
    and the facet's Kneedle cut and MMR read a curve of the same scale (a span of
    `TIE_SPREAD` when their hybrid scores all tie). Logits that all tie change nothing.
    """
    values = np.nan_to_num(np.asarray(list(logits.values()), dtype=np.float64), nan=0.0)
    if values.size == 0 or float(np.ptp(values)) == 0.0:
        return scores  # a reranker that tells the passages apart in nothing orders nothing
    head = list(logits)
    low = float(min(scores[j] for j in head))
    high = float(max(scores[j] for j in head))
    spread = min_max([logits[j] for j in head])
    # Passages the hybrid scores tie still take the reranker's order.
    width = max(high - low, TIE_SPREAD)
    out = scores.copy()
    for j, value in zip(head, spread, strict=True):
        out[j] = low + width * float(value)
    return out


def select_across_facets(
    facets: Sequence[Facet],
    texts: Sequence[str],
    facet_vecs: npt.NDArray[np.float32] | None,
    passage_vecs: npt.NDArray[np.float32] | None,
    *,
    budget: int,
    min_k: int = FACET_MIN_K,
    max_k: int | None = None,
    bm25_weight: float = 0.3,
    embedding_weight: float = 0.7,
    bias: npt.ArrayLike | None = None,
    mmr_lambda: float = MMR_LAMBDA,
    rerank: Sequence[Mapping[int, float]] | None = None,
) -> Selection:
    """Up to `budget` passage indices that cover every facet (see the module docstring).

    `facet_vecs` and `passage_vecs` are L2-normalised embeddings (None or zero-width
    when no embedder is loaded: ranking is then BM25 alone and novelty is not
    measured). `bias` is added to every facet's hybrid score (the seek_primary boost).
    `rerank`, one mapping per facet from passage index to a reranker's logit, re-orders
    each facet's head (`reranked`). `max_k` caps a facet's knee (the Kneedle cutoff's
    maximum, ``search.kneedle_max``) where half the budget would be more.
    """
    n = len(texts)
    if n == 0 or budget <= 0 or not facets:
        return Selection([], {}, {f.name: 0 for f in facets})
    have_vecs = _have_vecs(facet_vecs, passage_vecs)
    share = int(budget * FACET_MAX_SHARE)
    max_k = max(min_k, share if max_k is None else min(max_k, share))
    # Each facet may go as deep as its fair share of the budget even where its own
    # curve bends early: a knee says where one ranking's best cluster ends, not where
    # the facet's relevant passages do.
    min_k = min(max_k, max(min_k, budget // len(facets)))
    all_scores = facet_scores(
        facets,
        texts,
        facet_vecs,
        passage_vecs,
        bm25_weight=bm25_weight,
        embedding_weight=embedding_weight,
        bias=bias,
    )
    ranked: list[tuple[list[int], np.ndarray]] = []
    full_orders: list[list[int]] = []
    for i, scores in enumerate(all_scores):
        if rerank is not None:
            scores = reranked(scores, rerank[i])
        order = sorted(range(n), key=lambda j: (-scores[j], j))
        # A knee says where a long ranking may be cut to fit the budget; when every
        # passage fits, none is cut (a small corpus keeps every fact, whichever facet
        # it answers), and the facets still take turns in MMR order.
        keep = n if n <= budget else kneedle_cutoff([float(scores[j]) for j in order], min_k, max_k)
        ranked.append((order[:keep], scores))
        full_orders.append(order)
    picked: list[int] = []
    facet_of: dict[int, str] = {}
    per_facet = {f.name: 0 for f in facets}
    pools = [list(order) for order, _ in ranked]
    _take_turns(facets, ranked, pools, picked, facet_of, per_facet, budget, passage_vecs,
                have_vecs, mmr_lambda)  # fmt: skip
    depth = 1
    core: int | None = None
    while len(picked) < budget and depth < FILL_MAX_DEPTH:
        # The facets' heads overlap so much that the knees left the budget unused: a
        # knee cut a long ranking to fit a budget it was never near. Each facet goes on
        # down its ranking, in turns, by its own knee's depth again. Rounds that start
        # with half the budget used pick reserve passages (decision 0094).
        if core is None and len(picked) >= budget * FILL_BELOW_SHARE:
            core = len(picked)
        pools = [
            [j for j in order[depth * len(head) : (depth + 1) * len(head)] if j not in facet_of]
            for (head, _), order in zip(ranked, full_orders, strict=True)
        ]
        depth += 1
        _take_turns(facets, ranked, pools, picked, facet_of, per_facet, budget, passage_vecs,
                    have_vecs, mmr_lambda)  # fmt: skip
    reserve = frozenset(picked[core:]) if core is not None else frozenset()
    return Selection(picked, facet_of, per_facet, reserve)


def _take_turns(
    facets: Sequence[Facet],
    ranked: Sequence[tuple[list[int], np.ndarray]],
    pools: list[list[int]],
    picked: list[int],
    facet_of: dict[int, str],
    per_facet: dict[str, int],
    budget: int,
    passage_vecs: npt.NDArray[np.float32] | None,
    have_vecs: bool,
    mmr_lambda: float,
) -> None:
    """The facets take turns, each picking from its pool by MMR, until the budget is
    spent or the pools are empty (``picked``, ``facet_of`` and ``per_facet`` grow)."""
    while len(picked) < budget and any(pools):
        for i, facet in enumerate(facets):
            if len(picked) >= budget:
                break
            pool = pools[i]
            scores = ranked[i][1]
            best, best_value = -1, -np.inf
            for j in list(pool):
                if j in facet_of:
                    pool.remove(j)
                    continue
                novelty_penalty = 0.0
                if have_vecs and picked:
                    assert passage_vecs is not None
                    similarity = float(np.max(passage_vecs[picked] @ passage_vecs[j]))
                    if similarity >= NEAR_DUPLICATE:
                        pool.remove(j)
                        continue
                    novelty_penalty = similarity
                value = mmr_lambda * float(scores[j]) - (1.0 - mmr_lambda) * novelty_penalty
                if value > best_value:
                    best, best_value = j, value
            if best < 0:
                continue
            pool.remove(best)
            picked.append(best)
            facet_of[best] = facet.name
            per_facet[facet.name] += 1


def round_robin(groups: Sequence[Sequence[T]], limit: int) -> list[T]:
    """Items taken one from each group in turn (best first within each), up to `limit`.

    Used to cap a search's claims so that every facet keeps its best claims, rather
    than the first facet filling the cap.
    """
    out: list[T] = []
    depth = 0
    while len(out) < limit and any(depth < len(g) for g in groups):
        for group in groups:
            if depth < len(group) and len(out) < limit:
                out.append(group[depth])
        depth += 1
    return out
