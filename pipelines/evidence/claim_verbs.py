"""Does a sentence have a finite verb? The extractive claim path's test that a sentence
asserts something (a heading, a caption or a list item does not).

Closed lists first (auxiliaries, common verbs, irregular pasts), then contractions, then
lemminflect's English lexicon for the verbs no list keeps up with; Japanese by its
predicate endings; other languages are accepted. Moved out of `claims` unchanged.
"""

from __future__ import annotations

import functools
import itertools
import re
from typing import Final

from lyra.pipelines.evidence.claim_frames import FREQUENCY_ADVERBS as _FREQUENCY_ADVERBS
from lyra.pipelines.evidence.claim_frames import states_a_value
from lyra.pipelines.evidence.leftovers import ENGLISH_MARKERS as _ENGLISH_MARKERS
from lyra.pipelines.evidence.leftovers import english_words, title_case
from lyra.pipelines.evidence.leftovers import lexicon_readings as _readings

# fmt: off
_AUXILIARIES: Final[frozenset[str]] = frozenset((
    "is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had", "do",
    "does", "did", "can", "could", "may", "might", "will", "would", "shall", "should",
    "must",
))
# fmt: on
# Third-person and past forms; "-ens", "-izes", "-ates", "-ifies" cover verbs such as
# shortens, minimizes, stimulates, intensifies that no closed list keeps up with.
_VERB_SUFFIX = re.compile(r"^[a-z]{3,}(ed|es|ied|ens|izes|ises|ates|ifies)$")
# fmt: off
_COMMON_VERBS: Final[frozenset[str]] = frozenset((
    "reduces", "increases", "decreases", "causes", "shows", "suggests", "indicates",
    "contains", "prevents", "improves", "lowers", "raises", "affects", "includes",
    "requires", "remains", "appears", "leads", "results", "occurs", "depends", "provides",
    "makes", "takes", "gives", "helps", "allows", "means", "lasts", "kills", "protects",
    "cures", "treats", "inhibits", "binds", "blocks", "activates", "produces", "exceeds",
    "reaches", "costs", "grows", "falls", "rises", "drops", "declines", "doubles",
    "halves", "cuts", "stops", "keeps", "needs", "works", "acts", "supports", "predicts",
    "explains", "changes", "extends", "delays", "triggers", "worsens", "shortens",
    "develops", "removes", "carries", "contributes", "differs", "varies", "tends",
    "seems", "becomes", "limits", "slows", "boosts", "damages", "harms", "benefits",
    "shifts", "moves", "adjusts", "finds", "reports", "states", "recommends", "warns",
    "advises", "notes", "stays", "recovers", "persists", "fades", "charges", "cites",
    "accounts", "matters", "comes",
))
# Past forms that the suffix rule misses ("Blood levels rose", "the trial found").
IRREGULAR_PAST: Final[frozenset[str]] = frozenset((
    "rose", "fell", "grew", "led", "took", "gave", "made", "found", "saw", "became",
    "kept", "began", "brought", "got", "held", "ran", "went", "came", "left", "lost",
    "paid", "thought", "knew", "told", "said", "met", "sent", "spent", "built", "felt",
    "meant", "stood", "chose", "drove", "wrote", "broke", "shrank", "sank", "sought",
    "underwent", "taught", "bought", "fought", "won", "forgot", "threw", "drew", "shook",
    "upheld", "struck", "overrode", "withheld", "forbade", "bore", "hid", "froze", "slid",
))
# fmt: on
# Base forms that are nouns as often as verbs ("the need for", "the cost of"): a verb
# only after a plural noun or a subject pronoun ("heat pumps need", "they cost").
_NOUN_OR_VERB: Final = frozenset(
    (
        "mean",
        "work",
        "act",
        "cost",
        "need",
        "result",
        "cut",
        "change",
        "drop",
        "use",
        "shift",
        "move",
        "report",
        "state",
        "note",
        "stay",
        "charge",
        "account",
        "matter",
    )
)
_SUBJECT_PRONOUNS: Final = frozenset(("they", "we", "you", "i"))
# Who or what does it, before a verb's base form ("systems track", "we refuse",
# "drivers who cover").
_BASE_FORM_SUBJECTS: Final = _SUBJECT_PRONOUNS | frozenset(
    ("who", "which", "people", "children", "women", "men")
)
# A verb in a contraction: "I'm", "they're", "we've", "it'd", "you'll", "isn't", and "'s"
# after a pronoun ("it's", "that's"; after a noun it is a possessive).
_CONTRACTED_VERB = re.compile(
    r"[^\W\d_](?:['\u2019](?:re|m|ve|d|ll)|n['\u2019]t)\b"
    r"|\b(?:it|that|there|here|what|who|he|she|let)['\u2019]s\b",
    re.IGNORECASE,
)
_BASE_VERBS: Final[frozenset[str]] = (
    frozenset(
        w[:-2]
        if w.endswith(("shes", "ches", "sses", "xes"))
        else (w[:-3] + "y" if w.endswith("ies") else w[:-1])
        for w in _COMMON_VERBS
    )
    - _NOUN_OR_VERB
)
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_WORD_OR_NUMBER = re.compile(r"[^\W_]+", re.UNICODE)
_OBJECT_OPENS: Final = frozenset(("a", "an", "the", "their", "its", "any", "further", "more"))
_IMPERATIVE_OBJECTS: Final = frozenset(("each", "every", "your", "the", "all", "both"))
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
JAPANESE_PREDICATE = re.compile(
    r"(である|であった|です|でした|ます|ました|いる|いた|ある|あった|ない|なかった|れる|れた|"
    r"する|した|なる|なった|られる|られた)[\u3002\uff01]?$"
)


def _suffix_verb(word: str) -> bool:
    """A verb by its ending ("-ed", "-es", "-izes" ...), unless the lexicon knows the word
    and only as something else: "summaries", "series", "guidelines", "diabetes" are
    nouns; a word the lexicon does not know ("methylates") keeps its ending's reading."""
    if not _VERB_SUFFIX.match(word):
        return False
    readings = _readings(word)
    return not readings or "VERB" in readings


@functools.lru_cache(maxsize=65536)
def _verb_form(word: str) -> str | None:
    """How lemminflect's English lexicon reads ``word`` (lower case) as a verb: "inflected"
    (a form other than the base and the "-ing" form: "pays", "spans", "emitted"), "base"
    ("emit"; not a word that is also an adverb or preposition, as "over", "back", "still"
    are in the lexicon), or None."""
    readings = _readings(word)
    lemmas = readings.get("VERB")
    if not lemmas or word.endswith("ing"):
        return None
    if word != lemmas[0]:
        return "inflected"
    return None if "ADV" in readings else "base"


def _lexicon_verb(words: list[str]) -> bool:
    """A finite verb by the lexicon: an inflected form (a heading's noun that could be
    read so, "Recent studies", asserts nothing and scores no informativeness), or a
    base form after a pronoun, a plural noun or a count ("electric cars emit", "we
    avoid", "about 6 avoid")."""
    for i, (before, word) in enumerate(itertools.pairwise(["", *words])):
        form = _verb_form(word)
        if form == "inflected":
            return True
        after = words[i + 1] if i + 1 < len(words) else ""
        if form == "base" and (
            before in _BASE_FORM_SUBJECTS
            # a count as the subject, an object after ("about 6 avoid a further heart
            # attack"; not "12 March 2026": decision 0105)
            or (before.isdigit() and after in _OBJECT_OPENS)
            or before in _FREQUENCY_ADVERBS
            or (before.endswith("s") and not before.endswith("ss"))
            # an instruction, its object after: "Rest each paddock for a minimum of 60 days"
            # (decision 0142)
            or (i == 0 and after in _IMPERATIVE_OBJECTS)
        ):
            return True
    return False


def has_verb(text: str) -> bool:
    """Verb-ish check: only decides for English and Japanese, accepts other languages.
    The closed lists first (no lexicon needed for most sentences), then contractions,
    then lemminflect's lexicon for the verbs no list keeps up with."""
    if CJK.search(text):
        return JAPANESE_PREDICATE.search(text.strip()) is not None or "は" in text
    words = [w.lower() for w in _WORD.findall(text)]
    if not any(w in _ENGLISH_MARKERS for w in words) and (
        # a label and its value (a table's row: "Industry: Open-source software") states
        # the value, in whichever language; a title in title case does not ("Honey Bee
        # Health: Annual Colony Loss Report 2023")
        (": " in text and not title_case(text)) or not english_words(words)
    ):
        return True
    if states_a_value(text):
        return True
    return (
        _listed_verb(words)
        or bool(_CONTRACTED_VERB.search(text))
        or _lexicon_verb([w.lower() for w in _WORD_OR_NUMBER.findall(text)])
    )


def _listed_verb(words: list[str]) -> bool:
    return (
        any(
            w in _AUXILIARIES or w in _COMMON_VERBS or w in IRREGULAR_PAST or _suffix_verb(w)
            for w in words
        )
        # a plural subject takes the base form: "Paper filters remove", "drinkers develop"
        or any(w in _BASE_VERBS for w in words)
        # "a judge set aside the rule": "set" is every tense and a noun
        or any(pair == ("set", "aside") for pair in itertools.pairwise(words))
        or any(
            w in _NOUN_OR_VERB
            and (
                before in _SUBJECT_PRONOUNS or (before.endswith("s") and not before.endswith("ss"))
            )
            for before, w in itertools.pairwise(words)
        )
    )
