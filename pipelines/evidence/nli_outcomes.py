"""What a finding measures, apart from what acted on it: two findings about one
intervention that name two different outcomes do not contradict each other.

"Peer tutoring made no difference to attendance" and "peer tutoring improved reading
scores by 20%" share the intervention and nothing else; the negation of the one bears on
the intervention's name, which the other uses too, so the contradiction rules read a
negation that bears on the other text, or a finding of no change against a change. A
phrasing grid (decision 0116: 27 ways to say an intervention changed nothing, 19 ways to
say it changed something, six interventions from medicine, schooling, transport and
welfare, each pair read both ways) read 22 % of such pairs about two different outcomes
as contradictions; with this guard, 0.08 % (leaving out "tendon pain" against "tendon
thickness", which share a word).

`outcome_words` reads the outcome where a finding names it by its grammar:

- after a noun of effect and its link: "no difference to X", "a 25% reduction in X",
  "the effect of tutoring on X", "no benefit for X";
- after a verb that changes something: "lowered X", "failed to improve X", "affects X",
  "improved on X";
- after a comparison: "30% lower X than";
- before a verb of change or of staying the same, within its clause: "X fell by 30%",
  "X was no different with ...", "X did not differ", "X remained unchanged", "X was
  similar in both groups", "X climbed", "X went up";
- in a statement of how often it happens (decision 0117): "X is rare", "X is a common
  side effect of", "reported X", "reports of X", "X affected 40% of people", "the
  commonest side effect was X";
- in a comparison of two treatments: "A worked better than B for X", "A was superior to
  B on X", "better control of X", "For X, A did better than B".

Each outcome runs until a word that starts something else (who, with what, compared with
what, by how much). `other_outcomes` is true only where both texts name an outcome this
way and neither outcome (its specific words: not "risk", "rate", "level") appears
anywhere in the other text: any doubt leaves the rules as they were.
"""

from __future__ import annotations

import functools
import re
from typing import Final

from lyra.pipelines.evidence.harm_reports import SYMPTOM
from lyra.pipelines.evidence.nli_numbers import CARDINALS, number, stem
from lyra.pipelines.evidence.nli_tokens import DETERMINERS, content_keys, tokenize
from lyra.pipelines.evidence.nli_units import VAGUE
from lyra.pipelines.evidence.nli_words import GENERAL_OUTCOMES, MONTHS_TEXT, PEOPLE, fold_outcome

# Nouns of an effect that name their outcome after a link ("no difference to", "a
# reduction in", "no benefit for"), stems.
_EFFECT_NOUNS: Final = frozenset(
    {"effect", "differenc", "chang", "impact", "benefit", "improvement", "reduction",
     "increas", "decreas", "drop", "declin", "ris", "gain", "shift", "noth", "nothing",
     "harm", "fall", "jump", "slump", "climb", "surg", "dip", "plung"}
)  # fmt: skip
_LINKS: Final = frozenset({"on", "in", "to", "for"})
# Verbs that change what follows them ("lowered attendance", "failed to improve pain").
_CHANGING_VERBS: Final = frozenset(
    {"reduc", "lower", "rais", "increas", "improv", "cut", "halv", "boost", "worsen",
     "affect", "decreas", "shorten", "lengthen", "eas", "reliev", "alleviat", "trim",
     "slash", "chang", "doubl", "tripl"}
)  # fmt: skip
# Comparatives before what is compared: "30% lower blood pressure than".
_COMPARATIVES: Final = frozenset({"lower", "higher", "less", "more", "fewer", "greater"})
# Verbs of change or of staying the same whose outcome stands before them.
_CHANGED: Final = frozenset(
    {"fell", "rose", "dropped", "declined", "increased", "decreased", "improved",
     "changed", "remained", "stayed", "differed", "halved", "doubled", "worsened",
     "shrank", "grew", "climbed", "jumped", "slumped", "soared", "plunged", "plummeted",
     "surged", "dipped"}
)  # fmt: skip
_IS: Final = frozenset({"is", "are", "was", "were"})
# After "was"/"were": the state of no change or of a change ("was no different", "were
# similar", "were the same", "was unchanged", "was lower").
_STATES: Final = frozenset(
    {"no", "unchanged", "unaffected", "similar", "the", "different", "identical", "comparable",
     "lower", "higher", "reduced", "increased", "improved", "statistically"}
)  # fmt: skip
# "X was no better than usual care for O": what is compared is no outcome.
_BETTER: Final = frozenset({"better", "worse", "effective", "ineffective", "superior", "inferior"})
# What follows them names the outcome: "for pain", "on insomnia", "against fever".
_BETTER_AT: Final = frozenset({"for", "on", "against"})
# Words that end an outcome: who, with what, compared with what, by how much, when.
_ENDS: Final = frozenset(
    {"by", "with", "between", "among", "than", "compared", "versus", "vs", "after",
     "during", "over", "from", "when", "because", "at", "in", "for", "across", "while",
     "whereas", "but", "as", "within", "who", "which", "that", "was", "were",
     "is", "are", "did", "does", "do", "had", "has", "have", "not", "no"}
)  # fmt: skip
# What a finding comes from is no outcome of it ("trials that showed a benefit").
_RESEARCH: Final = frozenset(
    content_keys(["trials", "studies", "review", "analysis", "data", "evidence", "research",
                  # what a measure is read on ("mean cramp pain on the 0-10 scale fell":
                  # decision 0140)
                  "scale"])
)  # fmt: skip
# When is no outcome: a month, and "come" before one ("come August both were the same
# shade of pea soup": decision 0138).
_WHEN: Final = frozenset(content_keys([*MONTHS_TEXT.split(), "come"]))
# Nouns that count an outcome, not name it: "reports of muscle pain", "cases of", "the
# rate of fever" ("rate" is general here; `GENERAL_OUTCOMES` keeps its stem specific).
_COUNTS: Final = frozenset(
    content_keys(["reports", "cases", "episodes", "incidence", "instances", "occurrence", "rate",
                  # a pronoun, no outcome ("the ones next door that never had one": 0143)
                  "one", "ones",
                  # a count in words ("three 30-second calf stretches", "a couple of
                  # weeks": decision 0145)
                  *CARDINALS, *VAGUE, "dozen", "handful", "pair",
                  # a hedge, and a former partner, are no outcome ("after I reported my ex
                  # and then maybe once a month": decision 0145)
                  "maybe", "perhaps", "probably", "possibly", "ex"])
)  # fmt: skip
# "the most frequently reported side effect of statins was headache": a side effect or
# adverse event named before "was", the outcome after it (not "the effect was large").
_SIDE_EFFECTS: Final = frozenset({"effect", "effects", "event", "events", "reaction", "reactions"})
_RELATIVE: Final = frozenset({"who", "which", "that"})
# "-ing" forms that change their object after these: "at improving reading scores".
_AT_DOING: Final = frozenset({"at", "in", "for", "by", "without"})
_BROUGHT: Final = frozenset({"brought", "bring", "brings", "pushed", "drove"})
_UP_DOWN: Final = frozenset({"up", "down"})
_GONE: Final = frozenset({"went", "gone", "go", "goes", "going"})
_HOW_OFTEN: Final = frozenset({"often", "frequently"})
_SHOWED: Final = frozenset({"showed", "show", "shows", "saw", "see", "sees", "had", "has"})
# Links between the phrases of one outcome's name, read past going back to its start.
_PHRASE_LINKS: Final = frozenset(
    {"of", "in", "at", "for", "on", "across", "within", "among", "with"}
)
_STAYED: Final = frozenset({"remained", "stayed"})
# How often an outcome happens, after "is / was": "muscle pain is rare with statins",
# "headache is a common side effect of ..." (decision 0117).
_HOW_COMMON: Final = frozenset(
    {"rare", "common", "uncommon", "unusual", "widespread", "frequent", "infrequent",
     "commonest", "rarer", "rarest", "low", "high"}
)  # fmt: skip
_TO_BE: Final = frozenset({"be", "being", "been"})
_SEEMING: Final = frozenset(
    {"to", "out", "turned", "turns", "turn", "seems", "seemed", "seem", "appears", "appeared",
     "appear", "proved", "proves", "prove", "has", "have", "had", "can", "may", "might"}
)  # fmt: skip
_A: Final = frozenset(
    {"a", "an", "the", "very", "quite", "fairly", "relatively", "more", "most", "among"}
)
# "very few scheme cyclists, about 1 in 200, had road injury"; not "had no effect on",
# "had a large effect on", "had been", "had to".
_HAVE: Final = frozenset({"had", "has", "have"})
_NOT_HAD: Final = frozenset({"a", "an", "the", "no", "little", "any", "been", "to", ""})
# Verbs by which people have an outcome, before it: "9% reported headaches", "one in
# four experienced nausea", "hardly any developed a rash"; "reports of muscle pain".
_HAD: Final = frozenset(
    {"report", "experienc", "develop", "suffer", "notic", "complain", "caus"}
)  # fmt: skip
# Passives of being seen, after "was / were": "muscle pain was reported by 2%".
_SEEN: Final = frozenset({"reported", "seen", "observed", "recorded", "noted", "experienced"})
# Verbs of an outcome happening to people, with the share after them: "headache
# affected 40% of people", "nausea occurred in 18 of every 100".
_HAPPENED: Final = frozenset({"affect", "occurr", "occur"})
_SHARE_LEADS: Final = frozenset(
    {"fewer", "more", "less", "about", "around", "roughly", "nearly", "almost", "over",
     "under", "up", "just", "only", "some", "one", "in", "as", "between"}
)  # fmt: skip
# Comparatives without a size after a link: "was linked to higher bone density".
_LINKED: Final = frozenset({"to", "with"})
_REACH: Final = 6  # content words an outcome runs to at most
_CLAUSES: Final = re.compile(r"[,;:()]|\s[-\u2013\u2014]\s")


def _after(tokens: list[str], start: int) -> set[str]:
    """Content keys of the outcome that starts at ``start`` (determiners and adverbs
    skipped)."""
    words: list[str] = []
    for tok in tokens[start:]:
        if tok in _ENDS or number(tok) or len(words) >= _REACH:
            break
        if tok not in DETERMINERS and not tok.endswith("ly"):
            words.append(tok)
    return content_keys(words)


def _before(tokens: list[str], end: int) -> set[str]:
    """Content keys of the outcome that ends before ``end``: back to its clause's start or
    a word that starts something else, then the first phrase of it that names something
    specific ("the air pollution at the gate of the schools in the scheme" is about air
    pollution, "the reading scores of tutored pupils" about reading scores, "the risk of
    stroke" about stroke)."""
    words: list[str] = []
    for tok in reversed(tokens[:end]):
        if tok in _RELATIVE:  # "the symptoms of travellers who took melatonin were"
            words = []
            continue
        if (tok in _ENDS and tok not in _PHRASE_LINKS) or number(tok) or len(words) >= 2 * _REACH:
            break
        if not tok.endswith("ly"):
            words.append(tok)
    words.reverse()
    phrase: list[str] = []
    for tok in [*words, "of"]:
        if tok not in _PHRASE_LINKS:
            phrase.append(tok)
        elif content_keys(phrase) - GENERAL_OUTCOMES - _COUNTS - PEOPLE:
            return content_keys(phrase) - _COUNTS
        else:
            phrase = []
    return set()


def _null_noun_after(tokens: list[str], i: int) -> bool:
    """An effect noun with no link after it follows ``tokens[i]`` closely: "showed no
    improvement with", "saw no benefit"."""
    for j in range(i + 1, min(len(tokens), i + 4)):
        if stem(tokens[j]) in _EFFECT_NOUNS:
            denied = not {"no", "little"}.isdisjoint(tokens[i + 1 : j])  # not "a benefit"
            return denied and (tokens[j + 1 : j + 2] == [] or tokens[j + 1] not in _LINKS)
    return False


def _passive_or_sized(tokens: list[str], i: int) -> bool:
    """ "was" at ``i`` begins a passive change ("was not affected by", "were reduced by")
    or a sized comparison with nothing after it ("was 20% lower in the ... group")."""
    rest = [t for t in tokens[i + 1 : i + 4] if t not in ("not", "no") and not t.endswith("ly")]
    if not rest:
        return False
    if stem(rest[0]) in _CHANGING_VERBS and rest[0].endswith("ed"):
        return True
    return number(rest[0]) is not None and rest[1:2] != [] and rest[1] in _COMPARATIVES


def _intransitive(after: str) -> bool:
    """A verb of change followed by this word has no object ("fell by", "rose in")."""
    return not after or after in _ENDS or number(after) is not None or after.endswith("ly")


# Past participles after "has / have / had" make a tense, not a having: "researchers
# have shown", "patients had been told".
_PARTICIPLES: Final = frozenset(
    {"shown", "proven", "found", "seen", "been", "known", "given", "taken", "done", "made",
     "become", "begun", "grown", "risen", "fallen", "gone", "come", "got", "gotten", "led"}
)  # fmt: skip


def _participle(word: str) -> bool:
    return word in _PARTICIPLES or (word.endswith("ed") and len(word) > 4)


def _how_often_outcome(tokens: list[str], i: int) -> set[str]:
    """The outcome a statement of how often it happens names at ``tokens[i]``
    (decision 0117): "muscle pain is rare with statins", "headache is a common side effect
    of", "arm soreness turned out to be common", "the commonest side effect was
    headache", "was reported by just 2%", "9% reported headaches", "reports of muscle
    pain", "very few ..., about 1 in 200, had road injury", "headache affected 40% of
    people", "nausea frequently occurs with"."""
    tok, stemmed = tokens[i], stem(tokens[i])
    after = tokens[i + 1] if i + 1 < len(tokens) else ""
    if tok in _TO_BE and after in _HOW_COMMON:
        start = i
        while start and tokens[start - 1] in _SEEMING:
            start -= 1
        return _before(tokens, start)
    if tok in _IS:
        if after in _HOW_COMMON or (
            after in _A and not _HOW_COMMON.isdisjoint(tokens[i + 2 : i + 4])
        ):
            return _before(tokens, i)
        if after in _SEEN:
            return _before(tokens, i)
        if (
            after
            and after not in _STATES | _A | _ENDS
            and any(
                tokens[j] in _SIDE_EFFECTS and tokens[j - 1] in ("side", "adverse")
                for j in range(max(1, i - 2 * _REACH), i)
            )
        ):
            return _after(tokens, i + 1)
        return set()
    if stemmed in _HAD or (tok in _HAVE and after not in _NOT_HAD and not _participle(after)):
        if after == "of" and stemmed == "report":
            return _after(tokens, i + 2)
        if after and after not in _ENDS | {"side", "adverse"} and not number(after):
            return _after(tokens, i + 1)
        return set()
    if stemmed in _HAPPENED and (number(after) or after in _SHARE_LEADS or stemmed != "affect"):
        return _before(tokens, i)
    return set()


def _clause_outcomes(tokens: list[str]) -> set[str]:
    found: set[str] = set()
    for i, tok in enumerate(tokens):
        stemmed = stem(tok)
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if tok in _BETTER:  # "no better than usual care for O", "worse than B on O"
            ahead = tokens[i + 1 : i + 3 + _REACH]
            link = next((k for k, t in enumerate(ahead) if t in _BETTER_AT), None)
            if link is not None:
                found |= _after(tokens, i + 2 + link)
        if tok == "control" and after == "of":  # "gave better control of dental pain"
            found |= _after(tokens, i + 2)
        if stemmed in _EFFECT_NOUNS:
            # "the effect of tutoring on X": the outcome follows the link after "of ..."
            # ("the benefit seen in studies" names no outcome after "in")
            reach = i + 2 + _REACH if tokens[i + 1 : i + 2] == ["of"] else i + 2
            for j in range(i + 1, min(len(tokens), reach)):
                if tokens[j] in _LINKS and tokens[j - 1] != "-":  # not "cycle-to-work"
                    found |= _after(tokens, j + 1)
                    break
                if tokens[j] == "between":  # "between naltrexone and placebo on pain"
                    ahead = tokens[j + 1 : j + 1 + _REACH + 2]
                    link = next((k for k, t in enumerate(ahead) if t in ("on", "in")), None)
                    if link is not None:
                        found |= _after(tokens, j + 2 + link)
                    break
                if tokens[j] != "of" and tokens[j] in _ENDS:
                    break
        before = tokens[i - 1] if i else ""
        doing = not tok.endswith("ing") or before in _AT_DOING  # "at improving pain"
        if stemmed in _CHANGING_VERBS and doing and after:
            if after == "on":  # "improved on reading scores"
                found |= _after(tokens, i + 2)
            elif after not in _ENDS and after not in _LINKS and not number(after):
                found |= _after(tokens, i + 1)
        if tok in _GONE and after in _UP_DOWN:
            found |= _before(tokens, i)  # "LDL cholesterol went up with statins"
        if tok in _BROUGHT and not _UP_DOWN.isdisjoint(tokens[i + 2 : i + 3 + _REACH]):
            found |= _after(tokens, i + 1)  # "brought mental health down by a quarter"
        if tok in _SHOWED and _null_noun_after(tokens, i):
            found |= _before(tokens, i)  # "employment showed no improvement with ..."
        if tok in _IS and _passive_or_sized(tokens, i):
            found |= _before(tokens, i)  # "was not affected by", "was 20% lower in"
        if tok in _COMPARATIVES and i and (number(tokens[i - 1]) or tokens[i - 1] == "%"):
            if after == "likely" and tokens[i + 2 : i + 3] == ["to"]:
                found |= _after(tokens, i + 3)  # "30% less likely to vomit"
            elif after in _HOW_OFTEN:
                found |= content_keys(tokens[i - 2 : i - 1])  # "assaulted 48% less often"
            else:
                found |= _after(tokens, i + 1)
        if (tok in _CHANGED and (_intransitive(after) or tok in _STAYED)) or (
            tok in _IS and after in _STATES and tokens[i + 2 : i + 3] != ["better"]
        ):
            found |= _before(tokens, i)
        found |= _how_often_outcome(tokens, i)
        if tok in _COMPARATIVES and before in _LINKED and after:
            found |= _after(tokens, i + 1)  # "was linked to higher bone density"
        if tok == "did" and after == "not" and i + 2 < len(tokens):
            # "reading scores did not differ between", not "did not change reading scores"
            next_word = tokens[i + 3] if i + 3 < len(tokens) else ""
            if stem(tokens[i + 2]) in ("differ", "chang") and _intransitive(next_word):
                found |= _before(tokens, i)
    return found


# A list of outcomes that ends in "or" or "and" ("jaw ache, hiccups or wind from
# swallowed air", "bloating, hiccups or an aching jaw"): its items, up to three words
# each. The grammar reads one item of such a list (the one next to its verb); the list
# names them all (decision 0124).
_WORD_RE = r"[^\W\d_][\w'-]*"
_LISTED: Final = re.compile(
    rf"(?:{_WORD_RE}\s+){{0,2}}{_WORD_RE}(?:\s*,\s*(?:{_WORD_RE}\s+){{0,2}}{_WORD_RE})+,?\s+"
    rf"(?:or|and)\s+(?:(?:an?|the)\s+)?(?:{_WORD_RE}\s+){{0,2}}{_WORD_RE}"
)
_ITEM_BREAK: Final = re.compile(r"\s*,\s*|\s+(?:or|and)\s+")


@functools.lru_cache(maxsize=4096)
def _lists(text: str) -> tuple[tuple[frozenset[str], ...], ...]:
    """The content keys of each item of each list in ``text`` (`_LISTED`)."""
    return tuple(
        tuple(frozenset(content_keys(tokenize(item))) for item in _ITEM_BREAK.split(listed.group()))
        for listed in _LISTED.finditer(text)
    )


def _with_listed(text: str, words: frozenset[str]) -> frozenset[str]:
    """``words`` with the keys of every item of a list in ``text`` that one of them is in."""
    found = set(words)
    for items in _lists(text):
        if any(item & words for item in items):
            found.update(*items)
    return frozenset(found - GENERAL_OUTCOMES - PEOPLE)


@functools.lru_cache(maxsize=4096)
def outcome_words(text: str) -> frozenset[str]:
    """The specific content keys of the outcomes ``text`` names by its grammar (empty
    when it names none this way, or only general ones: "the risk", "the rate")."""
    found: set[str] = set()
    for clause in _CLAUSES.split(text):
        tokens = tokenize(clause)
        if tokens[:1] == ["for"] and len(tokens) <= _REACH:  # "For insomnia, CBT did better"
            found |= _after(tokens, 1)
        found |= _clause_outcomes(tokens)
    # not whom it is about ("the benefit for children"), nor a direction ("less often")
    found -= GENERAL_OUTCOMES | PEOPLE | _RESEARCH | _COUNTS | _WHEN
    # nor the words that frame what is said to have happened ("Complaints that a ...
    # advocate overstepped their role are rare": decision 0142)
    found -= {key for said in _SAID_THAT.findall(text) for key in content_keys([said.lower()])}
    return frozenset(k for k in found if not k.startswith("~"))


# Nouns of what people say happened, framing the outcome a "that" clause names.
_SAID_THAT: Final = re.compile(
    r"\b(complaints?|claims?|allegations?|reports?|worries|fears?)\s+that\b", re.IGNORECASE
)


# Outcomes named as harm in general ("problems", "side effects", "adverse events"): any
# symptom the other text names is one of them.
HARMS: Final = frozenset(
    {"problem", "harm", "sid", "advers", "event", "complication", "reaction", "issu",
     "troubl"}
)  # fmt: skip


def other_outcomes(first: str, second: str) -> bool:
    """True when both texts name an outcome and neither's outcome is named anywhere in
    the other: two findings about two different things, which no contradiction rule may
    set against each other. Two texts that compare the same two groups of people ("women
    and men") are about one comparison whatever they call its outcome: "the proportion of
    people who responded to treatment was similar in women and men" against "women were
    roughly twice as likely as men to reach a 30 per cent reduction in pain"."""
    mine, theirs = outcome_words(first), outcome_words(second)
    if not mine or not theirs:
        return False
    if (mine <= HARMS and SYMPTOM.search(second)) or (theirs <= HARMS and SYMPTOM.search(first)):
        # "problems are very uncommon" names any harm, "started sneezing and itching" one
        return False
    mine, theirs = _with_listed(first, mine), _with_listed(second, theirs)
    first_keys, second_keys = content_keys(tokenize(first)), content_keys(tokenize(second))
    if len(first_keys & second_keys & PEOPLE) >= 2:
        return False
    return fold_outcome(mine).isdisjoint(fold_outcome(second_keys)) and fold_outcome(
        theirs
    ).isdisjoint(fold_outcome(first_keys))
