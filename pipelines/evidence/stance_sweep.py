"""Stance pairs the embedder does not make: a claim and a fragment of another page that
the contradiction rules read as disagreeing with it (decision 0104).

The stance step pairs each claim with the fragments nearest to it by embedding
(`jobs.evidence_steps.judge_stance`, floor `search.stance_min_similarity`). Two findings
that contradict each other in a size or in whether a thing changed often share little
else: a working paper's "motor traffic on internal streets fell by 47 per cent" and a
campaign's "the traffic on the streets inside the Eastfield zone has fallen by a mere
12%" lie 0.40 apart by cosine, under the floor that keeps unrelated fragments out, so
the contradiction was never judged.

The rules that read such pairs (`nli_change`) each name what they are about, so they
can search every fragment of a task cheaply: each sentence is read once and indexed by
the words its readings are about (what changed, what is compared, what is called safe),
and meets only the claims whose readings name one of those words. A text that calls a
thing safe and one that advises against it meet where they share two words of the
setting, wherever those stand (decision 0105). A pair found so is
confirmed by the heuristic judge on the whole fragment, as the lexical veto will judge
it, and then goes through the stance model with every other pair. Numbers of one unit
alone do not make pairs here: tried, they paired mostly different quantities of one
unit ("0.1 mg/L naturally" and "a target of 0.7 mg/L"; decision 0109).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence, Set

from lyra.pipelines.evidence.harm_reports import SYMPTOM
from lyra.pipelines.evidence.nli_alike import meeting_keys
from lyra.pipelines.evidence.nli_change import (
    IRREGULAR,
    ChangeReading,
    changes_contradict,
    read_changes,
    verbs_of_nouns,
)
from lyra.pipelines.evidence.nli_heuristic import heuristic_nli, premise_texts, read_premise
from lyra.pipelines.evidence.nli_lasting import lasting_floor, worn_off_by
from lyra.pipelines.evidence.nli_outcomes import HARMS
from lyra.pipelines.evidence.nli_statements import claim_statements
from lyra.pipelines.evidence.nli_tokens import tokenize
from lyra.pipelines.evidence.nli_words import GENERAL_OUTCOMES
from lyra.pipelines.evidence.rule_faults import SWEEP, guarded


def _about(reading: ChangeReading) -> frozenset[str]:
    """The words a text's change readings are about: what it finds unchanged or changed,
    what it gives a size or finds no evidence of, what it compares, what it calls safe or
    advises against, which effect it gives mostly to one group."""
    words = set(reading.no_change | reading.change)
    for change in reading.sized + reading.unevidenced:
        words |= change.about
    for comparison in reading.comparisons:
        words |= comparison.leader | comparison.compared | comparison.measure
    words |= reading.advice.safe | reading.advice.against
    if reading.advice.safe or reading.advice.against:
        words |= reading.advice.words  # the setting too: "care staff", "care workers"
    words |= reading.groups.effect | reading.share_about
    # a share's outcome as its verb too: "eviction" meets "evicted" (decision 0123)
    words |= verbs_of_nouns(reading.share_about)
    if reading.cost is not None:  # what it costs for each of: "per officer" (0106)
        words.add(reading.cost.per)
    if reading.dose is not None:  # the ages and the unit it doses: "aged 1 to 5", ml (0122)
        low, high = reading.dose.ages
        words.add(f"dose {reading.dose.unit} {low:g}-{high:g}")
    if reading.amounts is not None:  # the kinds of amount: "times a week" (0126)
        words |= {f"amount {dimension}" for dimension in reading.amounts.dimensions()}
    # how long an effect lasts, or when it was seen gone (0128)
    if lasting_floor(reading.tokens) is not None or worn_off_by(reading.tokens) is not None:
        words.add("lasting")
    words |= {IRREGULAR[word] for word in words if word in IRREGULAR}  # "slept" (0129)
    # a share of harm in general, or of a named symptom: they meet (0129)
    if reading.share is not None and (
        not HARMS.isdisjoint(reading.share_about) or SYMPTOM.search(" ".join(reading.tokens))
    ):
        words.add("harm share")
    return frozenset(words - GENERAL_OUTCOMES)


def _met_as(reading: ChangeReading, *, indexed: bool) -> frozenset[str]:
    """A witness's two groups alike meets a finding's lead over its control arm at a
    specific word both name (`nli_alike`, decision 0137): a sentence is indexed by what it
    is, a claim looks for what it is not."""
    alike, lead = meeting_keys(reading.tokens)
    alike_as, lead_as = ("alike ", "lead ") if indexed else ("lead ", "alike ")
    return frozenset({alike_as + k for k in alike} | {lead_as + k for k in lead})


# Words of its setting a text that calls a thing safe and one that advises against it
# share, to meet in the sweep (`heuristic_nli` then decides).
_ADVICE_SHARED = 2


def _advice_meets(first: ChangeReading, second: ChangeReading) -> bool:
    """One text calls a thing safe and the other advises against, and they share words of
    the setting wherever they stand ("Our ten-hour days have proved perfectly safe for our
    care workers" and "If you employ care or transport staff, you should not roster them
    on ten-hour compressed shifts": decision 0105). Too loose to be a rule of its own
    (`nli_advice.safe_against_advised` wants the setting after the words of safety and
    advice); the heuristic judge confirms the pair or not."""
    opposed = (first.advice.safe and second.advice.against) or (
        first.advice.against and second.advice.safe
    )
    shared = first.advice.words & second.advice.words
    return bool(opposed) and len(shared) >= _ADVICE_SHARED


# A task's fragments are read once each while in use, and may be read as their page
# arrives (`read_ahead`), long before the stance step sweeps them.
_FRAGMENTS_KEPT = 4096


@functools.lru_cache(maxsize=_FRAGMENTS_KEPT)
def sentence_readings(text: str) -> tuple[tuple[ChangeReading, frozenset[str]], ...]:
    """The change readings of ``text``'s sentences that are about something, each with
    the words it is about (`_about`), in the text's order; each sentence's clauses after
    a semicolon or before ", whereas / although ..." too, as the judge reads them
    (`premise_texts`): "The most frequently reported adverse effect was throat or mouth
    irritation, reported by 65.3% of participants in the e-cigarette group and 51.2% in
    the NRT group, whereas nausea was more common with NRT" gives its share of throat
    irritation in its first clause alone (decision 0117)."""
    out = []
    for sentence in premise_texts(text):
        reading = read_changes(tokenize(sentence))
        keys = _about(reading) | _met_as(reading, indexed=True)
        if keys:
            out.append((reading, keys))
    return tuple(out)


def read_ahead(texts: Iterable[str]) -> None:
    """Read fragments' sentences now, so that the sweep, and the judge confirming what it
    finds, meet them read (decision 0112): the InferenceActor reads each text it embeds,
    as the pages arrive, while the search's other pages still wait on their sites."""
    for text in texts:
        sentence_readings(text)
        read_premise(text)


def contradiction_candidates(
    claims: Sequence[tuple[str, str]],
    fragments: Mapping[str, str],
    left_out: Mapping[str, Set[str]] | None = None,
    near: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, list[str]]:
    """For each (claim id, claim text), the ids of ``fragments`` (id -> text) that one of
    the change rules reads as contradicting the claim, confirmed by `heuristic_nli` on
    the whole fragment: the surest confirmation first, then in the order given. Claims
    with none are left out; so is each fragment that ``left_out`` (claim id -> fragment
    ids) names for a claim. A claim meets the fragments whose sentences' readings are
    about what its own are about, and every sentence of those ``near`` names for it
    (claim id -> fragment ids: the embedder put them near the claim, and its nearest few
    crowded them out of its candidates; decision 0137)."""
    readings: list[tuple[str, ChangeReading]] = []
    index: dict[str, list[int]] = {}
    of_fragment: dict[str, list[int]] = {}
    unread: tuple[tuple[ChangeReading, frozenset[str]], ...] = ()
    none_found: dict[str, float] = {}
    for fragment_id, text in fragments.items():
        # a fragment the rules fault on is read as saying nothing (`rule_faults`)
        for reading, keys in guarded(SWEEP, functools.partial(sentence_readings, text), unread):
            for key in keys:
                index.setdefault(key, []).append(len(readings))
            of_fragment.setdefault(fragment_id, []).append(len(readings))
            readings.append((fragment_id, reading))
    order = {fid: n for n, fid in enumerate(fragments)}
    found: dict[str, list[str]] = {}
    for claim_id, claim_text in claims:
        skipped = left_out.get(claim_id, frozenset()) if left_out else frozenset()
        nearby = (
            {n for fid in near.get(claim_id, ()) for n in of_fragment.get(fid, ())}
            if near
            else set()
        )
        read = functools.partial(
            _contradicted_by, claim_text, fragments, readings, index, skipped, nearby
        )
        hits = guarded(SWEEP, read, none_found)
        if hits:
            # surest first: the stance step keeps only the first few (decision 0107)
            found[claim_id] = sorted(hits, key=lambda fid: (-hits[fid], order[fid]))
    return found


def _contradicted_by(
    claim_text: str,
    fragments: Mapping[str, str],
    readings: Sequence[tuple[str, ChangeReading]],
    index: Mapping[str, Sequence[int]],
    skipped: Set[str],
    nearby: Set[int],
) -> dict[str, float]:
    """The fragments (id -> the rules' confidence) that contradict one claim, for
    `contradiction_candidates`: ``nearby`` (indexes of ``readings``) are read whatever
    they are about."""
    hits: dict[str, float] = {}
    for text in (claim_text, *claim_statements(claim_text)):
        claim = read_changes(tokenize(text))
        keys = _about(claim) | _met_as(claim, indexed=False)
        near = sorted({n for key in keys for n in index.get(key, ())} | nearby)
        for n in near:
            fragment_id, reading = readings[n]
            if fragment_id in hits or fragment_id in skipped:
                continue
            if not (changes_contradict(claim, reading) or _advice_meets(claim, reading)):
                continue
            judged = heuristic_nli(fragments[fragment_id], claim_text)
            if judged.label == "refutes":
                hits[fragment_id] = judged.confidence
    return hits
