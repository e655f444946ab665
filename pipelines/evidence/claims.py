"""Claim extraction: LLM prompt and response parsing, and the extractive fallback.

ARCHITECTURE §3 step 9. With an LLM, `build_claim_prompt` fences the instructions
with the task's tag (L3) and sets the L2-cleaned passage apart as data;
`parse_claims_response` reads the JSON list out of whatever the model answered.
Without an LLM, `extract_claims_extractive` picks claim-like sentences from the
fragment (the caller flags the result as degraded). Both paths drop claims that only
repeat the task's question, boilerplate and navigation text, and any that holds an
instruction to AI readers or a mask of one (`is_rejected_claim`).
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Final

from lyra.pipelines.evidence.claim_advice import CONTRAINDICATION as _CONTRAINDICATION
from lyra.pipelines.evidence.claim_advice import DOSING_INSTRUCTION as _DOSING_INSTRUCTION
from lyra.pipelines.evidence.claim_advice import (
    PRACTITIONER_ADVISES,
    PRACTITIONER_PRACTICE,
    main_clause,
    reports_advice,
    speaks_to_a_case,
)
from lyra.pipelines.evidence.claim_frames import (
    CHANGED_FROM_TO,
    EXPERT_QUOTED,
    VERDICT,
    own_statement,
    stated_part,
    states_preference,
)
from lyra.pipelines.evidence.claim_sentences import MAX_CLAIM_CHARS
from lyra.pipelines.evidence.claim_sentences import claim_sentences as _sentences
from lyra.pipelines.evidence.claim_signals import (
    AMOUNT_PAID,
    COMPARISON,
    COPULA,
    DOSE_STATED,
    EFFECT,
    FINDING_OPENS,
    GENERIC_YOU,
    HEDGE,
    IMPERSONAL_IT,
    JA_EFFECT,
    NUMBER,
    NUMBER_UNIT,
    PLAIN_ANSWER_FRAME,
    READER_LOOKS,
    RECOMMENDATION,
    RESEARCH_FIRST_PERSON,
    RESEARCH_QUOTED,
    WRITER_FINDS_NONE,
)
from lyra.pipelines.evidence.claim_verbs import CJK, JAPANESE_PREDICATE, has_verb
from lyra.pipelines.evidence.harm_reports import (
    alike_with_a_plain_group,
    practitioners_count,
    reports_harm,
    witnessed,
)
from lyra.pipelines.evidence.leftovers import (
    leftover_reason,
    points_elsewhere,
)
from lyra.pipelines.evidence.nli_enough import read_amounts
from lyra.pipelines.evidence.nli_shares_said import most_known
from lyra.pipelines.evidence.nli_tokens import tokenize as nli_tokenize
from lyra.pipelines.evidence.ranking import tokenize
from lyra.pipelines.evidence.site_furniture import is_boilerplate
from lyra.pipelines.extract.documents import normalize_whitespace
from lyra.pipelines.extract.injection import MASK, find_instructions
from lyra.pipelines.llm.prompts import load_prompt_module
from lyra.pipelines.llm.sanitize import is_task_tag, sanitize_untrusted

# Extractive sentences shorter than this are fragments of lists and captions (see
# `_short_finding`); longer than the maximum they bundle several claims.
EXTRACTIVE_MIN_CHARS: Final = 40
# LLM claims are rewritten to be atomic, so short ones ("Aspirin reduces fever.") are
# legitimate.
LLM_MIN_CLAIM_CHARS: Final = 15
# A claim sharing this share of content words with the question, in both
# directions, restates the question rather than answering it.
REPEAT_OVERLAP: Final = 0.8
DEFAULT_MAX_CLAIMS: Final = 5
# Confidence of an extractive claim spans [0.2, 0.8]: heuristics never earn the
# certainty of a model, and the caller marks the path as degraded anyway.
_BASE_CONFIDENCE: Final = 0.2
_CONFIDENCE_SPAN: Final = 0.6

_NAVIGATION = re.compile(
    r"\b(skip to (main )?content|back to top|next (article|page|post)|previous "
    r"(article|page|post)|table of contents|main menu|home page)\b"
    # a link's "Go to ...", not "the biggest gains go to single-storey buildings" (0110)
    r"|^\W*go to\b",
    re.IGNORECASE,
)
_NAV_SEPARATORS = re.compile(r"[|\u203a\u00bb>/\u00b7\u2022]")
# Not self-contained: the sentence leans on one before it ("They ...", "This ...") or is
# the writer's own story ("My theory ...", "I switched ..."). A claim must stand alone.
# A conjunction leans back only before such a word: "And growers with fewer than 120
# frost-free days rarely get ..." stands alone (decision 0099).
_ANAPHORIC_START = re.compile(
    r"^(?:(?:thus|hence|so|also|however|but|and|or)\b,?\s*(?:(?:this|that|these|those|they|"
    # "However, there is no clear evidence that ..." stands alone (decision 0102)
    r"them|it|its|their|such|he|she|his|her|here|there(?!\s+(?:is|are|was|were)\b)|"
    # "However, the national pilot found no clear evidence that ..." (decision 0105)
    r"the(?!(?:\s+[\w-]+){1,4}\s+(?:found|finds|showed|shows|reported|reports|concluded)\b))"
    r"\b|$)|"
    # "Both of mine sobbed through ..." names the writer's own (decision 0145)
    r"(?:this|that|these|those|they|them|it|its|their|such|(?:each|both) of(?!\s+(?:mine|"
    r"ours|my|our)\b)|he|she|his|her|here)\b)",
    re.IGNORECASE,
)
# "I" only as the pronoun: a capital I standing alone, not a Roman numeral after a word
# that numbers things ("type I diabetes", "phase I trial") nor part of a name ("CBT-I",
# "I-131"); "my", "me" and "mine" in lower or title case, not "ME" (ME/CFS).
_FIRST_PERSON = re.compile(
    r"(?<![\w-])(?<!type )(?<!Type )(?<!phase )(?<!Phase )(?<!class )(?<!Class )"
    r"(?<!grade )(?<!Grade )(?<!stage )(?<!Stage )(?<!level )(?<!Level )(?<!part )"
    r"(?<!Part )(?<!war )(?<!War )(?<!schedule )(?<!Schedule )(?<!tier )(?<!Tier )"
    r"I(?:'m|'ve|'d)?(?![\w-])"
    r"|\b(?:[Mm]y|[Mm]e|[Mm]ine)\b"
)
# Advice to the reader is no finding a source could support or refute: the sentence
# speaks to "you" ("you should start with the lowest dose", "If your furnace is young,
# keep it"), or opens with a bare imperative ("Look for models listed as ...").
_SECOND_PERSON = re.compile(r"\b(you|your|yours|you're|you've|you'll|you'd)\b", re.IGNORECASE)
_IMPERATIVE_START = re.compile(
    # a verb at the start followed by what an object or a complement opens with ("Look
    # for", "Ask your", "Take the tablet"), not a noun ("Talk therapy", "Contact
    # dermatitis", "Limit of detection"), nor a use named as drug labels do ("Use in
    # pregnancy is considered safe"); an order to do something ("Stop smoking now", "Save
    # 20%") is one too, but a warning against an activity ("Avoid driving for 5 hours
    # after ...") is a safety finding
    r"^(?!use in\b)(?!avoid\s+[a-z]+ing\b)"
    r"(?:(?:look|ask|check|talk|consider|start|try|keep|choose|remember|see|call|contact|"
    r"visit|read|learn|buy|get|stop|speak|seek|tell|let|click|sign|join|compare|treat|"
    r"enjoy|limit|avoid|take|use|switch|give|drink|eat|return|go|save)\s+(?:(?:the|a|an|your|"
    r"you|our|us|for|with|to|about|it|them|this|that|these|those|any|all|some|up|out|on|in|at|"
    r"if|whether|more|less|no|yourself|only|just)\b|\d|"
    # a gerund, not a preposition in -ing ("Use during pregnancy is considered safe")
    r"(?!during|including|following|according|regarding|concerning|excluding|involving)"
    r"[a-z]+ing\b)"
    r"|(?:never|always)\s+(?:take|use|give|drink|eat|drive|mix|exceed|combine|stop|start|"
    r"leave|skip|double|share)\b"
    r"|(?:don't|do not|be sure|make sure|find out)\b)",
    re.IGNORECASE,
)
# A study describing its own method ("We included ...", "This review gathered ...").
_METHODS = re.compile(
    # the method's verb among the first words ("We cap the cost at £75, blazer included"
    # is no method: decision 0103)
    r"^(we|our|this (study|review|paper|article|analysis))\b(?:\W+\w+){0,5}?\W+(includ|"
    r"gather|analy[sz]|"
    r"search|recruit|enrol|collect|conduct|measur|review|examin|describ|assembl|select|"
    r"identif|screen|extract|assign|randomi[sz]|allocat|interview|survey|"
    # "We estimate the effects of ..." is a method; "We estimate that ..." a finding.
    r"estimat(?!\w*\s+that\b))\w*\b",
    re.IGNORECASE,
)
# A belief the writer reports in order to correct it ("Myth 2 is that the battery dies
# quickly.", "It is a misconception that ..."): as a claim it would state the myth.
_MYTH = re.compile(
    r"^(?:(?:a|the|one|another)\s+)?(?:(?:common|popular|widespread|persistent)\s+)?"
    r"(?:myth|misconception)(?:\s+(?:no\.?\s*|number\s+)?\d+)?\s+(?:is|was)\s+that\b"
    r"|^it\s+is\s+a\s+(?:(?:common|popular|widespread|persistent)\s+)?"
    r"(?:myth|misconception)\s+that\b",
    re.IGNORECASE,
)
# A study's objective, stated with no finding: "To assess the association between ...".
_OBJECTIVE = re.compile(
    r"^(?:objectives?\s*:\s*)?to\s+(?:assess|evaluate|determine|examine|investigate|explore|"
    r"compare|estimate|describe|identify|quantify|measure|review|summari[sz]e|analy[sz]e|"
    r"understand|establish|test)\b",
    re.IGNORECASE,
)
# A writer or an organisation speaking of itself, its campaigns and its wishes ("We
# are calling on the mayor", "We have helped more than forty organisations"): nothing
# a source could support or refute about the question.
_WRITER_SPEAKS = re.compile(
    r"^(?:we|our\s+\w+)\s+(?:are\s+|have\s+|has\s+|will\s+|would\s+)?(?:calling|call|urge|"
    r"urging|helped|help|helping|offer|offering|provide|providing|proud|celebrat\w*|believe|"
    r"hope|want|invite|inviting|welcome|love|thank|encourage|support(?:ed|ing)?\s+(?:the|our)"
    r")\b",
    re.IGNORECASE,
)
# A quotation given as someone's words ("\"People think TDD is about testing,\" said
# ..."): an opinion reported, not a finding, unless the sentence says more.
_QUOTED_SPEECH = re.compile(
    r"^[\"\u201c][^\"\u201d]{10,}[\"\u201d],?\s+(?:\w+\s+){0,4}?(?:said|says|told|adds|added|"
    r"explains|explained|argues|argued|insists|insisted)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class ExtractedClaim:
    """A claim picked by the extractive fallback, with a heuristic confidence."""

    text: str
    confidence: float
    sentence_index: int


_SUFFIXES: Final = (("ing", ""), ("ied", "y"), ("ies", "y"), ("ed", ""), ("es", ""), ("s", ""))
_MIN_STEM: Final = 3


def _stem(word: str) -> str:
    """Crude English suffix stripping: "reduces", "reduced", "reducing" → "reduc".

    Enough to see that "Aspirin reduces fever" restates "Does aspirin reduce
    fever?"; a real stemmer would be a dependency for one comparison.
    """
    if not word.isascii() or not word.isalpha():
        return word
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and not word.endswith("ss"):
            base = word[: -len(suffix)] + replacement
            if len(base) >= _MIN_STEM:
                word = base
                break
    if word.endswith("e") and len(word) > _MIN_STEM:
        word = word[:-1]
    return word


def _content_words(text: str) -> set[str]:
    return {_stem(word) for word in tokenize(text)}


def _is_navigation(text: str) -> bool:
    if _NAVIGATION.search(text):
        return True
    # Breadcrumbs and menus: many separators between few words ("Home > News > Health").
    separators = len(_NAV_SEPARATORS.findall(text))
    return separators >= 3 and separators * 4 >= len(_WORD.findall(text))


def _mostly_digits(text: str) -> bool:
    letters = sum(1 for ch in text if ch.isalpha())
    visible = sum(1 for ch in text if not ch.isspace())
    return visible > 0 and letters * 2 < visible


def repeats_question(claim: str, question: str) -> bool:
    """True when claim and question share >= 80 % of their content words both ways."""
    claim_words, question_words = _content_words(claim), _content_words(question)
    if not claim_words or not question_words:
        return False
    shared = len(claim_words & question_words)
    return (
        shared / len(claim_words) >= REPEAT_OVERLAP
        and shared / len(question_words) >= REPEAT_OVERLAP
    )


def is_rejected_claim(
    claim: str,
    question: str,
    *,
    min_chars: int = LLM_MIN_CLAIM_CHARS,
    max_chars: int = MAX_CLAIM_CHARS,
    part: bool = False,
) -> str | None:
    """Why `claim` is not a usable claim (a short reason code), or None when it is.
    A ``part`` of a sentence too long to be a claim (`_clauses`) may open in lower case."""
    text = normalize_whitespace(claim)
    if not text:
        return "empty"
    # Instructions to AI readers never become claims, whichever path wrote them
    # (decision 0016); fragments are masked already, an LLM's answer may not be.
    if MASK in text:
        return "masked"
    if find_instructions(text):
        return "instruction"
    if _claim_length(text) < min_chars and not _short_finding(text):
        return "too_short"
    if len(text) > max_chars:
        return "too_long"
    if text.endswith(("?", "\uff1f")):
        return "question"
    if is_boilerplate(text):
        return "boilerplate"
    leftover = leftover_reason(text, part=part)
    if leftover is not None:
        return leftover
    if _mostly_digits(text):
        return "mostly_digits"
    if _is_navigation(text):
        return "navigation"
    if repeats_question(text, question):
        return "repeats_question"
    if not has_verb(text) and not any(
        _DOSING_INSTRUCTION.match(t) for t in (text, main_clause(text))
    ):
        return "no_verb"
    return None


def _short_finding(text: str) -> bool:
    """A short whole sentence stating an effect ("Creatine causes hair loss")."""
    return (
        len(text) >= 20
        and text[:1].isupper()
        and text.endswith(".")
        and len(_content_words(text)) >= 3
        and informativeness(text) >= 0.4
        and any(m.start() and m.group().endswith(("s", "ed")) for m in EFFECT.finditer(text))
    )


# A Japanese character carries about what three Latin letters do (18 characters say
# "It is not recommended for children under 12").
_CJK_CHAR_WEIGHT: Final = 3


def _claim_length(text: str) -> int:
    """Length in Latin-letter terms: a CJK character counts ``_CJK_CHAR_WEIGHT`` times, so
    the minimum length of a claim does not reject every Japanese sentence."""
    return len(text) + (_CJK_CHAR_WEIGHT - 1) * len(CJK.findall(text))


# The writer's own comparison of two things, which one did better where they tried both
# ("biochar has beaten compost for yield every single season on my sand": decision 0109)
_OWN_COMPARISON = re.compile(
    r"\b(?:has|have|had)\s+(?:\w+\s+)?(?:beaten|outperformed|out-?yielded|outlasted)\b"
    r"|\b(?:did|has\s+done|have\s+done)\s+(?:far\s+|much\s+)?better\s+than\b"
    # a grower's own plots alike ("I lifted roughly the same weight of spuds from both":
    # decision 0132)
    r"|\b(?:roughly|about|pretty\s+much|much|exactly|near\s+enough)\s+the\s+same\s+"
    r"(?:weight|amount|number|yield|crop|quantity|tonnage)\s+of\s+(?:[\w-]+\s+){1,3}?"
    r"(?:from|off|out\s+of|on|in)\s+(?:both|each)\b",
    re.IGNORECASE,
)


# What a practitioner has seen, as a finding of theirs, not their story: "in my
# experience a properly sized underground tank knocks the flood peak down far more than
# a scatter of street rain gardens" (decision 0123).
# The statement is what follows, after any lead-in of the speaker's ("I can only tell you
# what I've seen on the schemes I've been involved in, and in my experience ...").
_OWN_EXPERIENCE = re.compile(
    r"(?:^(?:(?:and|but|so)\s+)?(?:(?:honestly|frankly|truthfully),?\s+)?|,\s*(?:and|but|so)\s+|"
    r";\s*)(?:in\s+my\s+(?:own\s+)?(?:experience|practice)"
    # "And honestly, from what I've seen in something like sixty schools now, twenty
    # minutes every other week ... is plenty" (decision 0125)
    r"|from\s+what\s+I(?:'ve|\s+have)\s+(?:seen|found|observed)(?:\s+(?:in|at|on|across|over)"
    r"\s+[^,;.]{1,60})?),?\s+(?=\S+(?:\s+\S+){5})",
    re.IGNORECASE,
)
# The writer's own reading since a dose they state: "I swapped my three-monthly jabs for
# one 1,000 mcg tablet a day ... and my levels have stayed between 480 and 650 ever
# since" (decision 0123).
_OWN_RESULT = re.compile(
    r"\bmy\s+(?:[\w-]+\s+){0,2}?(?:levels?|readings?|results?|scores?|counts?|pressure|weight|"
    r"numbers)\s+(?:have\s+|has\s+|had\s+)?(?:stayed|been|fallen|dropped|risen|gone|come|"
    r"remained|improved|settled)\b[^.;]{0,40}?\d",
    re.IGNORECASE,
)


# The writer in a sentence that is not their story (decision 0124): the people a
# practitioner serves ("for my clients who are living on the street, the texts do next
# to nothing") and the range of what they have seen ("a thick, well-flowering hedgerow
# does more for bumblebees over a whole season than any sown strip I've ever seen").
_NOT_THE_WRITERS_STORY = re.compile(
    r"\b(?:my|our)\s+(?:own\s+)?(?:[\w-]+\s+){0,2}?(?:patients|clients|pupils|students|"
    r"customers|members|tenants|families|parents|residents|defendants|growers|farmers|"
    # "the people on my caseload" (decision 0132)
    r"caseload)\b"
    # the writer's child's class ("My daughter's class did the music thing all spring and
    # ... the kids who just got on with revising ... did every bit as well": 0142)
    r"|\b(?:my|our)\s+(?:son|daughter|child|kid|boy|girl|grandson|granddaughter)(?:'s|s')\s+"
    r"(?:class|school|year|form|group|team|nursery)\b"
    # the people of the writer's place ("the ladies on my ward who sat there with the
    # frozen hat on ended up every bit as bald as ...": decision 0142)
    r"|\b(?:ladies|women|men|people|folks|kids|children|lads|lasses|girls|boys|mums|dads|"
    r"others)\s+(?:on|in|at|from)\s+(?:my|our)\s+(?:[\w-]+\s+)?(?:ward|bay|class|"
    r"street|estate|block|unit|yard|team|group|village|road|school|course|clinic)\b"
    r"|(?<=\b(?:any|all))(?:\s+[\w-]+){1,3}?\s+(?:that\s+)?I(?:'ve|\s+have)?\s+(?:ever\s+)?"
    r"(?:seen|known|tried|used|met|come\s+across|worked\s+with|read)\b"
    # the writer's own count of the outcome ("the holes made no difference at all to how
    # many hedgehogs I was recording": decision 0132)
    r"|\bhow\s+(?:many|much|often)\s+(?:[\w-]+\s+){0,3}?(?:I|we)(?:'d|\s+was|\s+were|"
    r"\s+had|\s+kept)?\s+(?:been\s+)?(?:recording|seeing|counting|catching|logging|trapping|"
    r"spotting|recorded|saw|counted|caught|logged|trapped|spotted)\b",
    re.IGNORECASE,
)


# The writer's own amount called enough, with what came of it for them: "a quick gargle
# once a day before bed was plenty for me, and my throat was right as rain by the
# weekend", "... is loads, I've never bothered with more and my beds are fine" (decision
# 0139). Their measured result, as a change they saw is.
_ENOUGH_AND_MY_OUTCOME = re.compile(
    r"\b(?:plenty|enough|sufficient|ample|loads)\b[^.;]{0,50}?\band\s+(?:(?:my|our)\s+"
    r"(?:[\w-]+\s+){0,2}?(?:is|are|was|were|has|have|had|cleared|healed|settled|went|got"
    r"|stayed)\b"
    # "... is plenty for me, and I'm back on my feet before the rest of the street" (0142)
    r"|I(?:'m|\s+am|\s+was)\s+(?:back|better|fine|right|well|over)\b"
    # "... has been plenty for me, and I was getting the hang of it within a fortnight"
    # (decision 0145)
    r"|I(?:'m|'d|\s+am|\s+was|\s+had)\s+(?:[\w'-]+\s+){1,6}?within\s+(?:a|an|one|two|three"
    r"|four|\d+)\s+(?:days?|weeks?|fortnight|months?)\b)"
    # "... is plenty with the salt water after wisdom teeth, I never bothered beyond that
    # and healed fine" (decision 0143)
    r"|\b(?:plenty|enough|loads)\b[^.;]{0,60}?\bI\s+never\s+bothered\s+(?:beyond|past|with"
    r"\s+more\s+than)\s+that\s+and\s+(?:I\s+)?(?:healed|recovered|cleared\s+up|got\s+better"
    r"|was\s+fine)\b",
    re.IGNORECASE,
)


# "When we compared the patients wearing the tight stockings with the ones we gave
# ordinary loose socks to, their legs ached about the same" (decision 0143).
_WE_COMPARED = re.compile(r"^(?:when|once|after)\s+(?:we|I)\s+compared\b", re.IGNORECASE)


# Words that open most of a witness's own (`nli_shares_said.most_known`), looked for before the
# text is tokenised for it.
# ("Of the dozen or so clients I've taken ..., most saw ...": decision 0143)
_MOST_OF = re.compile(r"\bmost\s+of\b|\bthan\s+not\b|^of\s+the\b[^.;]*?\bmost\b", re.IGNORECASE)


_ENOUGH_BEYOND_ME = re.compile(
    # for anyone or anything but the writer ("is plenty for crested newts": decision 0135),
    # or for no one named ("A couple of days along the hot wire is plenty, my heifers had
    # the beeps figured out by the second afternoon", "so that's plenty in my book":
    # decision 0136), or time enough for a thing ("that's plenty of time for the ground to
    # come right": decision 0143)
    r"\b(?:plenty|enough|sufficient|ample)\s+(?:of\s+time\s+)?(?:for\s+(?!me\b|myself\b|us\b"
    r"|ourselves\b)\w+|to\s+(?!me\b)\w+)"
    # ("... once a month is plenty in my experience": decision 0142)
    r"|\bplenty(?=\s*(?:[,;:.!]|$)|\s+in\s+my\s+(?:book|experience)\b)"
    # or the writer's own amount, then for everyone ("... was plenty for me, nobody needs
    # to sign up for three months of weekly appointments": decision 0137)
    r"|\b(?:nobody|no\s*-?\s*one)\s+(?:really\s+)?(?:needs?|has\s+to|should)\b"
    # "... was plenty for me, you get the whole message in the first hour" (decision 0142)
    r"|\b(?:plenty|enough)\s+for\s+me\s*,\s+you\s+(?:get|only|can|don't|won't|really)\b"
    # "... was plenty for me, no need to slather it on morning and night" (decision 0138)
    r"|\b(?:plenty|enough)\b[^.;]{0,40}?\bno\s+(?:real\s+)?need\s+(?:to|for)\b"
    # or more called no help ("... is plenty for me to get through the afternoon, and
    # anything longer just eats into my break": decision 0139)
    r"|\b(?:plenty|enough)\b[^.;]{0,60}?\banything\s+(?:longer|more)\b"
    # "... is loads, I never bother with the long sessions" (decision 0140)
    r"|\b(?:plenty|enough|loads)\b[^.;]{0,40}?\bnever\s+bother(?:ed)?\s+with\b"
    # or for any reader in the case named ("a yearly check is plenty if you've got no
    # bother with it": decision 0137)
    r"|\b(?:plenty|enough|sufficient|ample)\s+(?:if|as\s+long\s+as|provided)\s+you\b"
    # for the writer and for others ("was plenty for us, and for most of the parents I
    # know"), or all a thing needs ("half an hour back in the freezer is all it needs":
    # decision 0140)
    r"|\b(?:plenty|enough)\s+for\s+(?:me|us),?\s+and\s+(?:for\s+)?(?:most|all|many|lots)\s+of\b"
    r"|\ball\s+(?:it|they)\s+needs?\b",
    re.IGNORECASE,
)
# A position calling an amount enough or too much: "Our members believe a floor of 40p a
# unit is plenty ..." (decision 0130).
_BELIEVED_ENOUGH = re.compile(
    r"^(?:we|our\s+\w+)\s+believes?\s+(?:that\s+)?[^.;]*?\d[^.;]*?\b(?:is|are)\s+"
    r"(?:plenty|enough|sufficient|ample|too\s+\w+)\b",
    re.IGNORECASE,
)


def informativeness(text: str) -> float:
    """0..1: how much a sentence asserts that a reader could check.

    An effect or relation ("raises", "is associated with") or a recommendation or warning
    ("should not be taken by", "is contraindicated in") counts most, then a number
    (more with its unit), a comparison and a hedge (a hedged finding is still a
    finding); a verdict ("works", "is not safe") counts as an effect. A sentence that
    leans on the one before it, tells the writer's own story or method, or advises the
    reader ("you should", "Look for ...") loses most of its score.
    """
    # a clinician's advice the writer reports: `stated_part` reads past its frame
    advised = reports_advice(text)
    # what came of an amount the writer called enough for them, which `stated_part` cuts
    # as a second clause (decision 0139)
    enough_and_outcome = _ENOUGH_AND_MY_OUTCOME.search(text) is not None
    # the witness's two groups set side by side in an opening "When we compared ...", which
    # `stated_part` cuts as a frame (decision 0143)
    compared = _WE_COMPARED.match(text) is not None and witnessed(text)
    # or alike in a clause `stated_part` cuts as an aside ("I did six weeks of ice baths
    # ... and six weeks of just sitting on the sofa, and my legs were every bit as sore
    # either way": decision 0144)
    compared = compared or alike_with_a_plain_group(text)
    text = PLAIN_ANSWER_FRAME.sub("", stated_part(text), count=1)
    if experience := _OWN_EXPERIENCE.search(text):
        text = text[experience.end() :]
    if (
        # a method that ends in two groups alike is the witness's finding ("We ran the staff
        # survey after a year ..., and the teamwork scores came out dead level with the
        # floor that kept its own named desks": decision 0146)
        (_METHODS.match(text) and not FINDING_OPENS.match(text) and not compared)
        # not a position that calls an amount enough ("Our members believe a floor of 40p
        # a unit is plenty ...": decision 0130)
        or (_WRITER_SPEAKS.match(text) and not _BELIEVED_ENOUGH.match(text))
        or _OBJECTIVE.match(text)
        or _MYTH.match(text)
        or points_elsewhere(text)
    ):
        return 0.0
    main = main_clause(text)  # after an opening "If ...,": "give us a call" is advice
    contraindication = any(_CONTRAINDICATION.match(t) for t in (text, main)) or speaks_to_a_case(
        text
    )
    counted = practitioners_count(text)
    practice = PRACTITIONER_PRACTICE.match(text) is not None
    own_story = (
        _FIRST_PERSON.search(_NOT_THE_WRITERS_STORY.sub("", text)) is not None
        and not counted
        and not RESEARCH_FIRST_PERSON.search(text)
        and not contraindication
        and not PRACTITIONER_ADVISES.match(text)
        and not practice
        and not advised
        and not WRITER_FINDS_NONE.match(text)
        # an amount the writer calls enough for those they teach or treat, or anyone, or
        # for a purpose ("one quick quiz every couple of weeks is plenty for my Year 10s":
        # decision 0130; "three or four days is plenty to tell you if the patches are going
        # to work": 0134), not for the writer alone ("Two cups a day is plenty for me")
        and not (_ENOUGH_BEYOND_ME.search(text) and _amount_called_enough(text))
    )
    # an amount paid states what a dose would; a dose stated keeps its score quoted or
    # with "you" only in its timing (decision 0115)
    paid = AMOUNT_PAID.match(text) is not None
    stated = paid or DOSE_STATED.search(text) is not None
    dosing = (
        paid
        or practice
        or any(_DOSING_INSTRUCTION.match(t) for t in (text, main))
        or _amount_called_enough(text)
    )
    # the writer's own adverse event is a report of harm ("the oxide gave me terrible
    # diarrhoea", "my daughter came out in a blotchy rash on day 5": decision 0106)
    harmed = reports_harm(text, own_story=own_story, counted=counted)
    # how often a witness saw a thing, or two of their groups alike (decision 0134)
    seen = (
        compared
        or witnessed(text)
        or (_MOST_OF.search(text) is not None and most_known(nli_tokenize(text)))
    )
    if any(_IMPERATIVE_START.match(t) for t in (text, main)) and not (contraindication or dosing):
        return 0.0
    score = 0.0
    if (
        contraindication
        or dosing
        or advised
        or harmed
        or seen
        or EFFECT.search(text)
        or JA_EFFECT.search(text)
        or RECOMMENDATION.search(text)
        or VERDICT.search(text)
        or states_preference(text)
    ):
        score += 0.4
    elif COPULA.search(text) or JAPANESE_PREDICATE.search(text.strip()):
        score += 0.15
    if NUMBER.search(text):
        score += 0.2
        if NUMBER_UNIT.search(text):
            score += 0.1
    if COMPARISON.search(text):
        score += 0.1
    if HEDGE.search(text):
        score += 0.05
    # a finding quoted from a study's author or a doctor is the finding (decision 0102)
    expert = EXPERT_QUOTED.match(text) or RESEARCH_QUOTED.match(text)
    quoted = _QUOTED_SPEECH.match(text) and not (expert and EFFECT.search(expert.group(1)))
    measured = own_story and (
        harmed
        or seen
        or CHANGED_FROM_TO.search(text)
        or (stated and _OWN_RESULT.search(text))
        or (EFFECT.search(text) and NUMBER_UNIT.search(text))
        or _OWN_COMPARISON.search(text)
        or (enough_and_outcome and _amount_called_enough(text))
    )
    # a speaker's own measured change is their testimony, quoted or not (decision 0106)
    quoted = quoted and not measured and not counted and not stated and not seen
    # ("their legs ached about the same" after "When we compared ...": its frame names them)
    anaphoric = _ANAPHORIC_START.match(text) and not IMPERSONAL_IT.match(text) and not compared
    if anaphoric or quoted:
        score -= 0.35
    # the reader only in an opening condition ("If you just look at whether the counts
    # went up at all, traffic ... went up at 17 of the 40 schools") or anyone's "you"
    looks = main and READER_LOOKS.match(text)
    statement = GENERIC_YOU.sub("", main if looks else own_statement(text))
    # nor an amount called enough, "you" in its timing ("An hour or two on the days you're
    # going to be on your feet a lot is plenty": decision 0133)
    if _SECOND_PERSON.search(statement) and not (
        contraindication or stated or _amount_called_enough(text)
    ):
        score -= 0.25
    if own_story:  # only a change the writer measured counts, at half (decision 0099)
        score = score / 2 if measured else 0.0
    return max(0.0, min(1.0, score))


# An amount called enough or set as a floor, as the stance judge reads it ("One gentle
# rinse a year is plenty for a normal house": decision 0128).
_AMOUNT_WORDS: Final = re.compile(
    r"\b(?:plenty|enough|sufficient|ample|at\s+least|a\s+minimum\s+of|(?:(?<=is\s)|(?<=was\s))loads(?!\s+of\s+(?!time\b))|"
    r"all\s+(?:\w+\s+){0,2}?need(?:s|ed)?)\b",
    re.IGNORECASE,
)


def _amount_called_enough(text: str) -> bool:
    return _AMOUNT_WORDS.search(text) is not None and read_amounts(nli_tokenize(text)) is not None


# A claim asserts at least this much (a copula is 0.15) and scores this much overall
# with its topicality.
MIN_INFORMATIVENESS: Final = 0.1
MIN_CLAIM_SCORE: Final = 0.2
# A sentence that asserts this much is a claim of the passage that was chosen for it
# whatever words it shares ("Most people use crutches for 3 to 5 days after the
# operation" shares none with the question it answers; decision 0099).
STANDS_ALONE: Final = 0.3
_FOCUS_WEIGHT: Final = 0.35
_INFO_WEIGHT: Final = 0.65
# Overlap with the focus saturates at this many shared content words.
_FOCUS_SATURATION: Final = 3


def extract_claims_extractive(
    fragment_text: str,
    question: str,
    max_claims: int = DEFAULT_MAX_CLAIMS,
    *,
    focus: str | None = None,
) -> list[ExtractedClaim]:
    """Pick up to `max_claims` claim-like sentences, best first (no LLM needed).

    A sentence scores by its informativeness and by how many content words it shares
    with the question and with `focus` (the facet of the question that picked the
    passage, ``facets.Facet.query``).
    """
    if max_claims <= 0:
        return []
    focus_words = _content_words(question) | (_content_words(focus) if focus else set())
    saturation = min(_FOCUS_SATURATION, len(focus_words)) or 1
    candidates: list[tuple[float, int, str]] = []
    for index, sentence, part in _sentences(fragment_text):
        if is_rejected_claim(sentence, question, min_chars=EXTRACTIVE_MIN_CHARS, part=part):
            continue
        info = informativeness(sentence)
        if info < MIN_INFORMATIVENESS:
            continue
        shared = len(_content_words(sentence) & focus_words)
        on_topic = min(1.0, shared / saturation)
        score = _FOCUS_WEIGHT * on_topic + _INFO_WEIGHT * info
        if score < MIN_CLAIM_SCORE and info < STANDS_ALONE:
            continue
        candidates.append((score, index, sentence))
    candidates.sort(key=lambda c: (-c[0], c[1]))
    return [
        ExtractedClaim(
            text=sentence,
            confidence=round(_BASE_CONFIDENCE + _CONFIDENCE_SPAN * score, 4),
            sentence_index=index,
        )
        for score, index, sentence in candidates[:max_claims]
    ]


# A search asks this of each passage as its page arrives (decision 0112), and again when
# it chooses its passages: the second time it is read here.
@functools.lru_cache(maxsize=4096)
def has_claim_candidate(fragment_text: str, question: str) -> bool:
    """True when some sentence of the fragment could be a claim: one the extractive path
    would not reject outright (navigation, boilerplate, a question, an instruction, no
    verb, too short or too long) and that asserts something (``MIN_INFORMATIVENESS``).

    Whatever the facet that picks the passage, such a sentence is what
    :func:`extract_claims_extractive` needs; a passage without one gives it nothing, so
    the search does not spend its passage budget on it (decision 0083).
    """
    return any(
        informativeness(sentence) >= MIN_INFORMATIVENESS
        and is_rejected_claim(sentence, question, min_chars=EXTRACTIVE_MIN_CHARS, part=part) is None
        for _, sentence, part in _sentences(fragment_text)
    )


# Runs of angle brackets could forge the passage's end marker ("UNTRUSTED_PASSAGE>>>").
_MARKER_BRACKETS = re.compile(r"<{2,}|>{2,}")


def build_claim_prompt(
    fragment_text: str,
    question: str,
    tag: str,
    *,
    max_claims: int = DEFAULT_MAX_CLAIMS,
    focus: str = "",
) -> tuple[str, str]:
    """(system, user) messages asking the LLM for a JSON list of atomic claims (L2 + L3).

    `focus` is the facet of the question that picked the passage
    (``facets.Facet.query``); the prompt asks for claims about it. The passage, the
    question and the focus go through `sanitize_untrusted` here, so no caller can
    forget it; call it yourself first to collect its warnings (it is idempotent).
    """
    if not is_task_tag(tag):
        raise ValueError("tag must be a task tag made by new_task_tag()")
    if max_claims <= 0:
        raise ValueError(f"max_claims must be positive, got {max_claims}")
    passage = _MARKER_BRACKETS.sub(" ", sanitize_untrusted(fragment_text).text)
    asked = _MARKER_BRACKETS.sub(" ", sanitize_untrusted(question, max_chars=1000).text)
    module = load_prompt_module("claims")
    system = str(module.system(tag, max_claims)).strip()
    aspect = _MARKER_BRACKETS.sub(" ", sanitize_untrusted(focus, max_chars=1000).text)
    user = str(module.user(asked, passage, aspect.strip())).strip()
    return system, user


_FENCE = re.compile(r"```[a-zA-Z0-9_-]*")
_LIST_LINE = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)])\s+(.+?)\s*$")
_CLAIM_KEYS: Final = ("claim", "text", "statement", "content")


def _claims_from_json(value: Any) -> list[str] | None:
    if isinstance(value, dict):
        for key in ("claims", "facts", "items", "results"):
            if isinstance(value.get(key), list):
                return _claims_from_json(value[key])
        return None
    if not isinstance(value, list):
        return None
    claims: list[str] = []
    for item in value:
        if isinstance(item, str):
            claims.append(item)
        elif isinstance(item, dict):
            text = next((item[k] for k in _CLAIM_KEYS if isinstance(item.get(k), str)), None)
            if text is not None:
                claims.append(text)
    # "[1]" in prose is a citation, not the answer: keep looking for a list of claims.
    return claims if claims or not value else None


def _first_json(text: str) -> list[str] | None:
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[\[{]", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        claims = _claims_from_json(value)
        if claims is not None:
            return claims
    return None


def parse_claims_response(text: str) -> list[str]:
    """Claims from an LLM answer: the first JSON list (fences, prose around it ignored).

    Falls back to bullet or numbered lines when the model wrote no JSON. Never raises;
    returns unique, whitespace-normalised, non-empty claims in order.
    """
    cleaned = _FENCE.sub("", unicodedata.normalize("NFC", text or ""))
    claims = _first_json(cleaned)
    if claims is None:
        claims = [m.group(1) for line in cleaned.splitlines() if (m := _LIST_LINE.match(line))]
    unique: list[str] = []
    seen: set[str] = set()
    for claim in claims:
        normalised = normalize_whitespace(claim).strip("\"'")
        key = normalised.casefold()
        if normalised and key not in seen:
            seen.add(key)
            unique.append(normalised)
    return unique
