"""Text aimed at AI readers: normalised, detected and masked before it becomes a fragment.

Issue 12 item 5 (decision 0016). Every extractor hands its blocks to
`documents.assemble_document`, which passes each one through `guard_text`:

1. `normalise_text`: NFKC (full-width and mathematical letters become ASCII), then
   zero-width characters, bidi controls and Unicode tag characters removed, then
   Cyrillic and Greek look-alikes folded inside words that also hold Latin letters.
   Tag characters are an invisible copy of ASCII; their decoded text is checked too.
2. `instruction_spans`: the sentences that address an AI reader or try to steer one
   (English, Japanese, and the "ignore the previous instructions" of a few more
   languages), fake tool calls, markdown images that would carry data to a host,
   base64 that decodes to any of those, and a code-like token (a canary) standing
   next to such a sentence.
3. Those sentences are replaced by `MASK`: they never reach a claim, and the text a
   tool returns (fragments, quotes) says that something was removed, not what.

The patterns run on a copy with every look-alike folded (a one-to-one map, so the
offsets are those of the kept text). Each pattern needs the addressee or the object
of the instruction ("the previous *instructions*", "*AI* assistants reading this"),
not just the verb: "patients who ignore the leaflet" is medicine, not an attack.
The security checks are tables in tests/test_injection.py, bypasses included.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote

from lyra.pipelines.extract.sentences import sentence_spans

# What a masked sentence reads as. It starts with "[" and a capital and ends with
# ".]" so the sentence splitter keeps it a sentence of its own.
MASK: Final = "[Removed: instruction to AI readers.]"

# Zero-width characters and invisible operators (counted when found inside a word),
# bidi embeddings, overrides and isolates (the "Trojan source" reorderings; always
# counted), Unicode tag characters (invisible ASCII; decoded and checked), variation
# selectors, the BOM and the fillers that render as nothing.
_ZERO_WIDTH: Final = (
    "\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\u180e\ufeff"
    "\u206a\u206b\u206c\u206d\u206e\u206f"
)
_BIDI: Final = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_SILENT: Final = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u200e\u200f\u3164\uffa0\u180b\u180c\u180d\u180f"
)
BRAILLE_BLANK: Final = "\u2800"
_TAG_FIRST: Final = 0xE0000
_TAG_LAST: Final = 0xE007F
_INVISIBLE = re.compile(
    f"[{_ZERO_WIDTH}{_BIDI}{_SILENT}\ufe00-\ufe0f\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
# ZWJ between two non-letters glues an emoji sequence; only letters around it smell.
_WORD_CHAR = re.compile(r"\w")

# Cyrillic and Greek letters that look like Latin ones (Unicode confusables.txt, the
# single-letter cases), as escapes: in a table of look-alikes, the glyphs cannot be
# told apart. A one-to-one map, so folding keeps every offset.
_LOOKALIKES: Final = (
    "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422"
    "\u0425\u0423\u0406\u0408\u0405\u04ae\u04c0\u0500\u051a\u051c"
    "\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455"
    "\u04bb\u0501\u051b\u051d\u04cf\u04af\u0391\u0392\u0395\u0396"
    "\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7"
    "\u03b1\u03b9\u03ba\u03bd\u03bf\u03c1\u03c5\u03c7"
)
_LATIN_FOR: Final = "ABEKMHOPCTXYIJSYIDQWaeopcyxijshdqwlyABEZHIKMNOPTYXaikvopux"
# Armenian letters shaped like Latin ones, and the small capitals of IPA and phonetic
# extensions ("ɪɢɴᴏʀᴇ"), folded for matching only.
_MORE_LOOKALIKES: Final = (
    "\u0585\u057d\u0570\u0578\u0566\u0581\u0575"
    "\u1d00\u0299\u1d04\u1d05\u1d07\ua730\u0262\u029c\u026a\u1d0a\u1d0b\u029f"
    "\u1d0d\u0274\u1d0f\u1d18\u01eb\u0280\ua731\u1d1b\u1d1c\u1d20\u1d21\u028f\u1d22"
    "\u0261"
)
_MORE_LATIN: Final = "ouhnqgjabcdefghijklmnopqrstuvwyzg"
_FOLD_ALL: Final = str.maketrans(_LOOKALIKES + _MORE_LOOKALIKES, _LATIN_FOR + _MORE_LATIN)
# Negative circled and negative squared capitals (U+1F150.., U+1F170..) have no NFKC
# form: they are read as the letters they show ("🅸🅶🅽🅾🆁🅴" is "IGNORE").
_ENCLOSED_LETTERS: Final = {
    first + i: chr(ord("A") + i) for first in (0x1F150, 0x1F170) for i in range(26)
}
_LETTER_RUN = re.compile(r"[^\W\d_]+")
_LATIN = re.compile(r"[A-Za-z]")


@dataclass(frozen=True, slots=True)
class Detection:
    """One kind of suspicious content found in a document, and how often.

    kind: `hidden_text`, `hidden_instruction`, `instruction`, `encoded_instruction`,
    `invisible_characters` or `homoglyphs`; detail: which rule (a pattern name, the
    hiding method, the channel); count: how many times on the page.
    """

    kind: str
    detail: str
    count: int = 1


@dataclass(frozen=True, slots=True)
class Guarded:
    """Text after the guard, with what the guard found."""

    text: str
    detections: tuple[Detection, ...]


def merge_detections(detections: Iterable[Detection]) -> list[Detection]:
    """One detection per (kind, detail), counts summed, in first-seen order."""
    totals: Counter[tuple[str, str]] = Counter()
    for d in detections:
        totals[(d.kind, d.detail)] += d.count
    return [Detection(kind, detail, count) for (kind, detail), count in totals.items()]


def fold_confusables(text: str) -> str:
    """Every Cyrillic or Greek look-alike as its Latin letter (same length as `text`)."""
    return text.translate(_FOLD_ALL)


def _fold_mixed_words(text: str) -> tuple[str, int]:
    """Fold look-alikes only inside words that also hold Latin letters.

    A Russian or Greek word keeps its letters; "instructions" spelt with Cyrillic i's
    is an English word in disguise.
    """
    count = 0

    def fold(match: re.Match[str]) -> str:
        nonlocal count
        word = match.group()
        if not _LATIN.search(word):
            return word
        folded = word.translate(_FOLD_ALL)
        if folded != word:
            count += 1
        return folded

    return _LETTER_RUN.sub(fold, text), count


def _tag_text(text: str) -> str:
    """The ASCII hidden in Unicode tag characters (U+E0020..U+E007E)."""
    return "".join(
        chr(ord(ch) - _TAG_FIRST)
        for ch in text
        if _TAG_FIRST + 0x20 <= ord(ch) <= _TAG_FIRST + 0x7E
    )


def _invisible_counts(text: str) -> Counter[str]:
    counts: Counter[str] = Counter()
    for match in _INVISIBLE.finditer(text):
        ch = match.group()
        if _TAG_FIRST <= ord(ch) <= _TAG_LAST:
            counts["unicode_tags"] += 1
        elif ch in _BIDI:
            counts["bidi_controls"] += 1
        elif ch in _ZERO_WIDTH:
            i = match.start()
            before = text[i - 1] if i > 0 else ""
            after = text[i + 1] if i + 1 < len(text) else ""
            if _WORD_CHAR.match(before) and _WORD_CHAR.match(after):
                counts["zero_width"] += 1
    return counts


def invisible_detections(text: str) -> list[Detection]:
    """What invisible characters `text` holds, and any instruction hidden in tag characters."""
    detections = [
        Detection("invisible_characters", detail, count)
        for detail, count in _invisible_counts(text).items()
    ]
    hidden_ascii = _tag_text(text)
    if hidden_ascii:
        for name in _pattern_names(hidden_ascii):
            detections.append(Detection("hidden_instruction", f"{name} in unicode_tags"))
    return detections


def hidden_detections(text: str, reason: str) -> list[Detection]:
    """What removing `text`, hidden by `reason`, reports: the instructions it held, or
    that hidden text was removed (nothing for text without a letter)."""
    names = find_instructions(text)
    if names:
        return [Detection("hidden_instruction", f"{n} in {reason}") for n in names]
    if re.search(r"[^\W\d_]", text):
        return [Detection("hidden_text", reason)]
    return []


def remove_invisible(text: str) -> str:
    """`text` without zero-width characters, bidi controls and tag characters."""
    return _INVISIBLE.sub("", text)


def normalise_text(text: str) -> tuple[str, list[Detection]]:
    """NFKC, invisible characters removed, look-alikes folded in Latin words.

    Reports zero-width characters inside words, bidi controls, tag characters (and
    any instruction their decoded text holds) and folded words.
    """
    text = unicodedata.normalize("NFKC", text).translate(_ENCLOSED_LETTERS)
    blanks = text.count(BRAILLE_BLANK)
    if blanks:
        # A blank braille cell looks like a space and is none: it joins words unseen.
        text = text.replace(BRAILLE_BLANK, " ")
    detections = invisible_detections(text)
    if blanks:
        detections.append(Detection("invisible_characters", "braille_blank", blanks))
    text, folded = _fold_mixed_words(remove_invisible(text))
    if folded:
        detections.append(Detection("homoglyphs", "mixed_script_words", folded))
    text, marked = _DECORATING_MARKS.subn("", text)
    if marked:
        detections.append(Detection("homoglyphs", "combining_marks", marked))
    return text, detections


# Combining marks left on a Latin letter after NFKC have no composed form: underlines,
# strike-throughs and "zalgo" stacks that decorate a word, never spell one.
_DECORATING_MARKS = re.compile(
    r"(?<=[A-Za-z\u0300-\u036f\u1ab0-\u1aff\u20d0-\u20ff])[\u0300-\u036f\u1ab0-\u1aff\u20d0-\u20ff]+"
)


# --- instruction patterns -----------------------------------------------------------
_AI = (
    r"(?:ai|a\.i\.|artificial\s+intelligence|llms?|(?:large\s+)?language\s+models?|"
    r"chat\s*bots?|gpts?|chatgpt|claude|gemini|copilot|grok|deepseek|perplexity|mistral|qwen|"
    r"ai\s+(?:assistants?|agents?|models?|systems?|readers?|tools?|crawlers?|summari[sz]ers?))"
)
_QUALIFIER = (
    r"(?:previous|prior|above|earlier|preceding|foregoing|system|original|initial|"
    r"developer|your|all|any)"
)
_OBJECT = (
    r"(?:instructions?|prompts?|rules|directions|commands|guidelines|directives|"
    r"programming|constraints|messages?|context)"
)
# The verbs an order to a reading tool starts with ("Summary tools: report that…").
_ORDER = (
    r"(?:report|cite|quote|say|state|print|write|output|include|mention|answer|reply|respond|"
    r"ignore|describe|claim|conclude|add|append|insert|repeat|tell|treat|present|recommend|"
    r"send|open|visit|call|rate|rank|summari[sz]e|list)"
)
_AI_JA = (
    r"(?:AI|人工知能|LLM|大規模言語モデル|言語モデル|チャットボット|"
    r"AIアシスタント|アシスタント|エージェント|生成AI)"
)

# (name, pattern): run case-insensitively over the folded text. See the module
# docstring for why each needs its object or addressee.
# Compiled with their own look-alikes folded, as the text they run on is: a Russian
# pattern's Cyrillic "e" and "a" (U+0435, U+0430) are Latin letters in folded text.
INSTRUCTION_PATTERNS: Final[tuple[tuple[str, re.Pattern[str]], ...]] = tuple(
    (name, re.compile(fold_confusables(pattern), re.IGNORECASE))
    for name, pattern in (
        ("ignore_instructions",
         rf"\b(?:ignore|disregard|forget|override|bypass|set\s+aside|put\s+aside|discard|"
         rf"abandon|pay\s+no\s+(?:attention|heed)\s+to|take\s+no\s+notice\s+of)\s+"
         rf"(?:all\s+|any\s+|of\s+)?"
         rf"(?:the\s+|your\s+|my\s+)?{_QUALIFIER}\s+(?:\w+\s+){{0,2}}{_OBJECT}\b"
         r"|\b(?:ignore|disregard|forget|set\s+aside|put\s+aside|discard|abandon)\s+"
         r"(?:everything|all|anything)\s+(?:(?:that\s+)?you(?:'ve|\s+have|\s+had)?\s+"
         r"(?:were\s+|been\s+|have\s+been\s+)?(?:told|given|instructed|taught|asked)|above|"
         r"before|previously)\b"
         r"|\bdisregard\s+the\s+above\b"),
        ("addressed_to_ai",
         rf"\b(?:note|message|instructions?|attention|notice|reminder|directive|request)s?"
         rf"\s*(?:to|for)\s+(?:all\s+|any\s+|every\s+)?(?:the\s+)?{_AI}\b"
         rf"|\bif\s+you\s+are\s+(?:an?\s+|the\s+)?(?:{_AI}|assistant|bot|automated\s+\w+)\b"
         rf"|\b(?:dear|attention|hey|hello)\s*,?\s+{_AI}\b"
         rf"|\bas\s+an?\s+{_AI}\s+(?:reader|reading|processing|summari[sz]ing)\b"
         rf"|\b{_AI}\s+(?:that\s+(?:are|is)\s+|who\s+(?:are|is)\s+)?(?:reading|processing|"
         r"summari[sz]ing|parsing|analy[sz]ing|indexing|crawling|scraping|reviewing)\s+"
         r"(?:this|these)\b"
         rf"|\b(?:to|for)\s+(?:any|all|every)\s+{_AI}\b"
         r"|\bai\s+readers?\b"),
        ("role_change",
         rf"\byou\s+are\s+now\s+(?:an?\s+|the\s+|in\s+)?(?:\w+\s+){{0,2}}(?:{_AI}|assistant|"
         r"bot|agent|dan|mode)\b"
         r"|\bfrom\s+now\s+on\s*,?\s+(?:you\s+(?:are|will|must|should)|act|respond|answer|reply)\b"
         r"|\bpretend\s+(?:to\s+be|you\s+are)\s+(?:an?\s+)?(?:\w+\s+)?(?:ai|assistant|model|system)\b"),
        ("steer_output",
         r"\b(?:include|insert|add|append|mention|output|print|write|say|state|repeat|put|"
         r"embed|begin|start|end)\b[^.!?\n]{0,80}?\b(?:in|to|into|with|at\s+the\s+"
         r"(?:start|end|beginning)\s+of)\s+(?:your|every|each|all\s+your)\s+(?:\w+\s+)?"
         r"(?:answers?|responses?|replies|reply|summary|summaries|outputs?|reports?|"
         r"messages?|completions?)\b"
         r"|\b(?:include|insert|add|append|mention|output|print|write|say|repeat|put|embed)\b"
         r"[^.!?\n]{0,80}?\b(?:in|to|into|with)\s+any\s+(?:(?:answers?|responses?|replies|"
         r"outputs?|completions?)\b|summar(?:y|ies)\s+you\s+(?:produce|write|generate|give|create"
         r"|return)\b)"
         r"|\b(?:reply|respond|answer)\s+(?:only\s+with|with\s+only|with\s*:|with\s+exactly|"
         r"with\s+the\s+following)"
         r"|\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|alert|warn|mention\s+(?:this|it)\s+"
         r"to)\s+(?:the\s+|your\s+)?user\b"
         r"|\btell\s+the\s+user\s+(?:that|to)\b"),
        ("system_prompt",
         r"\b(?:reveal|print|repeat|show|output|leak|disclose)\s+(?:me\s+)?(?:your|the)\s+"
         r"(?:\w+\s+){0,2}(?:system\s+)?(?:prompt|instructions)\b"
         r"|\bnew\s+(?:system\s+)?instructions?\s*:"
         r"|\b(?:system|admin|developer)\s+(?:override|message|note|instructions?)\s*:"
         # "the system prompt", not "the system prompts a nurse".
         r"|\b(?:your|the|my)\s+system\s+prompt\b"),
        ("fake_role_marker",
         r"<\|[a-z_]{2,24}\|>|\[/?inst\]|<<\s*/?\s*sys\s*>>|<\s*(?:start|end)_of_turn\s*>"
         r"|\[(?:system|sys|assistant|admin|developer|system\s+(?:prompt|message|note))\]"
         r"|(?<!#)#{2,}[ \t]*(?:instruction|system)s?[ \t]*:"
         r"|\b(?:begin|start|end)\s+(?:of\s+)?(?:the\s+)?(?:system|developer|hidden)\s+"
         r"(?:prompt|message|instructions?)\b"
         # A system's or assistant's turn that speaks to the model or answers for it,
         # at a line's start or after a sentence ("Review of systems. System:
         # cardiovascular" is a clinical note). Anchored on the label (tried at word
         # starts only) and no \s* across lines: blank lines are not rescanned at each.
         # Turns of other speakers count only in a transcript (see `_hits`).
         r"|\b(?<![^\n# \t])(?<![^\n]\w[ \t])(?:system|assistant)[ \t]*:[ \t]*(?=(?:you|ignore|"
         r"disregard|from\s+now|always|never|the\s+(?:verified|correct|only|final|true)|answer|"
         r"respond|reply|say|state|understood|every\s+(?:answer|reply|response)|new\s+"
         r"instructions|i\s+will|i\s+understand|sure|ok)\b)"),
        ("addressed_to_model",
         # A model, assistant or agent is a reader only when the sentence says so: an
         # AI word before it, or its reading of this page after it. "Every prediction
         # model must state its intended use" (TRIPOD) and "the mouse models must answer
         # the question" are science; a bare "the model must answer that…" is not.
         r"\b(?:any|every|each|the|an?)\s+(?:\w+\s+){0,2}?(?:(?:ai|a\.i\.|language|llm|chat|"
         r"generative|automated|virtual)\s+(?:models?|assistants?|agents?)|summari[sz]ers?|"
         r"(?:chat)?bots?|(?:models?|assistants?|agents?)\s+(?:summari[sz]ing|reading|processing"
         r"|parsing)\s+this\s+(?:article|page|document|text|post|site))\b[^.!?\n]{0,60}?"
         r"\b(?:must|should|shall|(?:is|are)\s+(?:required|instructed)\s+to)\s+(?:always\s+|"
         r"only\s+)?(?:state|answer|say|reply|respond|output|print|write|claim|conclude|"
         r"report\s+that|cite|quote)\b"
         r"|\b(?:the|any|every)\s+models?\s+(?:must|should|shall)\s+(?:always\s+|only\s+)?"
         r"(?:state|answer|say|reply|respond|claim|conclude)\s+that\b"
         r"|\b(?:guidance|instructions?|notes?)\s+(?:for|to)\s+(?:automated|machine)\s+"
         r"(?:summar\w+|readers?|systems?|tools?)\b"
         r"|\b(?:use|report)\s+(?:the\s+)?(?:next|following)\s+"
         r"(?:sentence|paragraph|statement|line(?!\s+of))\b"),
        ("jailbreak", r"\b(?:jailbreak|developer\s+mode|do\s+anything\s+now|dan\s+mode)\b"),
        ("tool_call",
         r"\{\s*\"(?:tool|tool_name|function|function_call|name|action|recipient_name)\"\s*:"
         r"[^{}]{0,200}?\"(?:arguments|parameters|args|input|params|action_input)\"\s*:"
         r"|\"tool_calls?\"\s*:"
         r"|\"type\"\s*:\s*\"(?:tool_use|server_tool_use|tool_call|function_call)\""
         r"|<\s*/?\s*(?:tool_call|function_call|function_calls|tool_use|invoke)\b"),
        ("exfiltration_link",
         # Markdown images in page text (rendered by a client, they fetch their URL),
         # by URL or by reference, and reference definitions that carry a query.
         # Every run is bounded and the parts around a "?" cannot hold one, so no text
         # is tried two ways (a link with its query carrying a code-like token, the
         # data it would send, is found in `_hits`).
         r"!\[[^\]\n]{0,200}\]\(\s*<?\s*(?:https?:)?//[^\s()\[\]]{1,512}"
         r"(?:[ \t]+(?:\"[^\"\n]{0,200}\"|'[^'\n]{0,200}'))?[ \t]*\)"
         r"|!\[[^\]\n]{0,200}\]\[[^\]\n]{0,40}\]"
         r"|(?:^|(?<=\s))\[[^\]\n]{1,40}\]:[ \t]*<?(?:https?:)?//[^\s?]{1,512}\?\S{1,512}"
         r"|<img\b[^>]{0,200}\bsrc\s*=\s*[\"']?(?:https?:)?//[^\"'\s>?]{1,512}\?[^\"'\s>]{1,512}"),
        ("exfiltration",
         r"\b(?:send|post|upload|exfiltrate|forward|transmit|leak)\s+(?:it|this|them|"
         r"(?:the|all|your)\s+\w+(?:\s+\w+)?)\s+to\s+(?:https?://|www\.|\S+@)"),
        ("ignore_instructions_ja",
         r"(?:以前|前|上記|上|これまで|今まで|先|過去|最初)の(?:全て|すべて|あらゆる)?の?"
         r"(?:指示|命令|指令|プロンプト|ルール|設定|制約)(?:は|を)?(?:全て|すべて)?"
         r"(?:無視|忘れ|破棄|気にせ|気にし|従わ)"
         r"|(?:指示|命令|指令)を(?:全て|すべて)?無視"),
        ("addressed_to_ai_ja",
         rf"(?:この|本|当)(?:ページ|文書|記事|テキスト|文章|サイト)を[^。]{{0,12}}{_AI_JA}"
         rf"|{_AI_JA}(?:の(?:皆さん|皆様|方)|へ|に)(?:の|は|向けの)?"
         r"(?:指示|注意|お願い|メッセージ|命令|通知|連絡)"
         rf"|(?:あなた|君|お前)が{_AI_JA}(?:である|なら|ならば|の場合|であれば)"),
        ("steer_output_ja",
         r"(?:回答|応答|返答|返信|要約|出力|答え)(?:の(?:最初|最後|冒頭|末尾))?(?:に|へ)"
         r"[^。]{0,40}?を(?:必ず)?(?:含め|入れ|追加|記載|出力|書|付け|挿入)"
         r"|ユーザー(?:に|には)[^。]{0,20}(?:伝えない|知らせない|言わない|教えない|伝えるな)"
         r"|(?:あなた|君)は(?:今から|これから)?[^。]{0,20}として(?:振る舞|ふるま|行動|応答|回答)"),
        ("system_prompt_ja", r"システム\s*プロンプト"),
        ("steer_output_polite",
         r"\bsummar(?:y|ies)\s+of\s+this\s+(?:page|article|document|post|site|text|study|trial|"
         r"paper|report|review|entry|record|source|abstract)\b"
         r"[^.!?\n]{0,40}?\b(?:should|must|shall|need\s+to|are\s+to|is\s+to)\b"
         r"|\bwhen\s+you\s+(?:answer|respond|reply|summari[sz]e|write\s+about|describe|discuss|"
         r"report\s+on)\b[^.!?\n]{0,40}?\b(?:this|these)\s+(?:page|article|document|text|post|"
         r"site)s?\b[^.!?\n]{0,40}?\b(?:say|state|mention|tell|include|claim|answer|write|"
         r"report|stress|insist)\b"
         r"|\b(?:respond|reply|say|explain|report|answer)\s+to\s+the\s+user\b"
         r"|\b(?:show|display|render|present)\s+(?:this|it|these|the\s+following)\s+to\s+the\s+"
         r"user\b"
         r"|\b(?:decode|decrypt|url-decode|base64-decode|de-?obfuscate|unscramble)\b"
         r"[^.!?\n]{0,40}?\b(?:and|then)\s+(?:follow|obey|execute|comply\s+with)\b"
         r"|\bapply\s+rot-?13\b"),
        ("addressed_to_tools",
         # A tool named as the one spoken to, then told what to do: "Summary tools:
         # report that…", "(assistants: cite this as…)", "For automated summarizers:",
         # "Readers' assistants should open…", "Automated summaries of this trial are
         # to…". A person's job title with a colon ("Research assistants: …") reads
         # the same and is rare in the text of a page.
         rf"\b(?:summary|summari[sz]ation|summari[sz]ing|reading|search|answer|citation|"
         rf"writing)\s+(?:tools?|engines?|assistants?|bots?|agents?|software|apps?)\s*[:,]\s*"
         rf"(?:please\s+)?{_ORDER}\b"
         rf"|(?<![\w'\u2019-])(?:assistants?|summari[sz]ers?|chat\s*bots?|bots|llms?|agents|crawlers?|"
         rf"scrapers?|{_AI})\s*:\s*(?:please\s+)?{_ORDER}\b"
         r"|\bfor\s+(?:automated|machine|ai)\s+(?:summar\w+|readers?|systems?|tools?|"
         r"assistants?|agents?)\s*[:,]"
         r"|\b(?:automated|machine[- ]generated|ai[- ]generated)\s+(?:summar(?:y|ies)|answers?|"
         r"responses?|overviews?)\s+(?:of|about|on)\s+this\b[^.!?\n]{0,40}?\b(?:should|must|"
         r"shall|need\s+to|are\s+to|is\s+to)\b"
         rf"|\b(?:readers?|users?|visitors?)(?:'s?|\u2019s?)?\s+(?:ai\s+)?(?:assistants?|agents?|"
         rf"bots?|tools?)\s+(?:must|should|shall|need\s+to|are\s+to)\s+(?:always\s+)?"
         rf"{_ORDER}\b"),
        ("addressed_to_ai_other",
         r"\b(?:hinweis|nachricht|anweisung(?:en)?|achtung)\s+(?:für|an)\s+(?:alle\s+)?"
         r"(?:die\s+)?(?:ki|ai)(?:[-\s]+(?:assistenten|systeme|modelle|agenten|leser)\b|"
         r"(?=\s*[:.,;!]))"
         r"|\b(?:note|message|instructions?|avis)\s+(?:à\s+l'intention\s+des|aux|pour\s+les)\s+"
         r"(?:assistants?|agents?|modèles?|systèmes?)\s+(?:d'|de\s+)?ia\b"
         r"|\b(?:nota|mensaje|instrucciones?|aviso)\s+(?:para|a)\s+(?:los\s+|las\s+)?"
         r"(?:asistentes?|agentes?|modelos?|sistemas?)\s+de\s+ia\b"
         r"|\b(?:nota|messaggio|istruzioni)\s+per\s+(?:gli\s+|i\s+)?(?:assistenti|agenti|modelli)\s+"
         r"(?:di\s+)?ia\b"
         r"|(?:致|给|對|对)(?:所有|全部)?的?(?:AI|人工智能|大模型|语言模型)(?:助手|助理|模型|系统)?"
         r"|(?:AI|人工智能)(?:助手|助理)(?:们|請|请)"
         r"|\b(?:antworten|antworte)\s+(?:sie\s+)?(?:nur|ausschließlich)\s+mit\b"
         r"|\b(?:répondez|réponds)\s+(?:uniquement|seulement)\s+(?:par|avec)\b"
         r"|\b(?:responde|responda|contesta)\s+(?:solo|solamente|únicamente)\s+con\b"
         r"|只(?:回复|回答|输出|回覆)|不要告(?:诉|訴)用(?:户|戶)"
         r"|\b(?:примечание|сообщение|внимание|инструкция|указание)\s+(?:для|к)\s+(?:всех\s+)?"
         r"(?:ии|ai|нейросет\w*)(?:[\s-]+(?:ассистент\w*|помощник\w*|модел\w*|агент\w*))?"
         r"|(?:ملاحظة|رسالة|تنبيه|تعليمات)\s+(?:إلى|ل|الى)\s*(?:جميع\s+)?(?:مساعدي|مساعد|نماذج|أنظمة)"
         r"\s+الذكاء\s+الاصطناعي"
         r"|\b(?:nota|mensagem|aviso|instruções)\s+(?:para|aos)\s+(?:os\s+)?(?:assistentes?|"
         r"agentes?|modelos?|sistemas?)\s+(?:de\s+)?ia\b"
         r"|\b(?:opmerking|bericht|notitie)\s+voor\s+(?:alle\s+)?(?:ai|ki)[\s-]*(?:assistenten|"
         r"modellen|systemen)?\b"
         r"|(?:AI|인공지능)\s*(?:어시스턴트|비서|모델)(?:에게|들에게|께)"),
        ("ignore_instructions_other",
         r"\b(?:vergessen|vergiss|ignorieren)\s+(?:sie\s+)?(?:alle\s+)?(?:vorherigen|bisherigen|"
         r"obigen|früheren)\s+(?:anweisungen|instruktionen|befehle)"
         r"|\b(?:oubliez|oublie)\s+(?:toutes\s+)?(?:les\s+)?(?:instructions|consignes)\s+"
         r"(?:précédentes|antérieures)"
         r"|\b(?:olvida|olvide)\s+(?:todas\s+)?las\s+instrucciones\s+(?:anteriores|previas)"
         r"|(?:忘记|忘掉|忽略|無視|忽視)(?:你)?(?:之前|以上|先前|上述|前面)(?:收到)?的?(?:所有)?的?"
         r"(?:指令|指示|提示|命令)"
         r"|\bignora(?:r)?\s+(?:todas\s+)?las\s+instrucciones\s+(?:anteriores|previas)"
         r"|\b(?:игнорируй(?:те)?|проигнорируй(?:те)?|забудь(?:те)?)\s+(?:все\s+)?"
         r"(?:предыдущие|прежние|предшествующие|вышеуказанные)\s+(?:инструкции|указания|команды)"
         r"|(?:تجاهل|تجاهلوا|انس)\s+(?:جميع\s+|كل\s+)?(?:التعليمات|الأوامر|التوجيهات)\s+السابقة"
         r"|\bignor(?:e|em|ar|a|ate)\s+(?:todas\s+|tutte\s+)?(?:as\s+|le\s+)?"
         r"(?:instruções|istruzioni)\s+(?:anteriores|precedenti|prévias)"
         r"|\bnegeer\s+(?:alle\s+)?(?:vorige|eerdere)\s+(?:instructies|opdrachten)"
         r"|\bzignoruj\s+(?:wszystkie\s+)?(?:poprzednie|wcześniejsze)\s+(?:instrukcje|polecenia)"
         r"|\bignore[zr]?\s+(?:toutes\s+)?les\s+instructions\s+(?:précédentes|antérieures)"
         r"|\bignorier(?:e|en)?\s+(?:alle\s+)?(?:vorherigen|bisherigen|obigen)\s+"
         r"(?:anweisungen|instruktionen)"
         r"|忽略(?:之前|以上|先前|上述|前面)的?(?:所有)?的?(?:指令|指示|提示)"
         r"|(?:不要理会|不要理會|不用管|别管|別管|无视|無視)(?:你)?(?:之前|以上|先前|上述|前面)(?:收到)?的?"
         r"(?:所有)?的?(?:指令|指示|提示|命令)"
         # German, French, Spanish: more verbs, "bitte", "Sie".
         r"|\b(?:missachte|missachten|übergehe|übergehen|ignoriere|ignorieren|vergiss|vergessen)"
         r"\s+(?:sie\s+)?(?:bitte\s+)?(?:alle\s+)?(?:die\s+)?(?:vorherigen|bisherigen|obigen|"
         r"früheren|vorangegangenen|vorigen)\s+(?:anweisungen|instruktionen|befehle|vorgaben)"
         r"|\bne\s+(?:tenez|tiens)\s+(?:pas|plus)\s+compte\s+(?:des|de\s+toutes\s+les)\s+"
         r"(?:instructions|consignes|directives)\s+(?:précédentes|antérieures|ci-dessus)"
         r"|\bfai(?:tes|s)\s+abstraction\s+des\s+(?:instructions|consignes)\s+"
         r"(?:précédentes|antérieures)"
         r"|\b(?:haz|haga|hagan)\s+caso\s+omiso\s+(?:de|a)\s+(?:todas\s+)?las\s+"
         r"(?:instrucciones|indicaciones|órdenes)\s+(?:anteriores|previas)"
         r"|\bno\s+hagas\s+caso\s+(?:de|a)\s+(?:todas\s+)?las\s+(?:instrucciones|indicaciones)"
         r"\s+(?:anteriores|previas)"
         # Turkish, Vietnamese, Indonesian and Malay, Hindi, Greek, Hebrew, the
         # Scandinavian languages, Finnish, Czech, Ukrainian, Romanian, Hungarian, Thai.
         r"|\bönceki\s+(?:tüm\s+|bütün\s+)?(?:talimatlar\u0131|komutlar\u0131|yönergeleri)\s+"
         r"(?:yok\s+say|görmezden\s+gel|unut)"
         r"|\b(?:bỏ\s+qua|phớt\s+lờ|quên)\s+(?:đi\s+)?(?:tất\s+cả\s+)?(?:các\s+|mọi\s+|những\s+)?"
         r"(?:hướng\s+dẫn|chỉ\s+dẫn|lệnh|chỉ\s+thị)\s+(?:trước\s+đó|trước\s+đây|trước|ở\s+trên)"
         r"|\b(?:abaikan|lupakan)\s+(?:semua\s+|seluruh\s+)?(?:instruksi|perintah|petunjuk|arahan)"
         r"\s+(?:sebelumnya|di\s+atas|terdahulu)"
         r"|(?:पिछले|पूर्व|पहले\s+के|ऊपर\s+के)\s+(?:सभी\s+)?(?:निर्देशों|आदेशों|निर्देश)\s+(?:को\s+)?"
         r"(?:अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल)"
         r"|(?:αγνόησε|αγνοήστε|ξέχασε|ξεχάστε)\s+(?:όλες\s+)?(?:τις\s+)?(?:προηγούμενες|"
         r"παραπάνω)\s+(?:οδηγίες|εντολές)"
         r"|(?:התעלם|התעלמי|התעלמו|שכח|שכחי|שכחו)\s+(?:מכל|מ|את\s+כל|את)\s*ה?(?:הוראות|הנחיות|"
         r"פקודות)\s+ה?קודמות"
         r"|\b(?:ignorera|glöm|strunta\s+i|ignorer|glem)\s+(?:alla\s+|alle\s+)?(?:tidigare|"
         r"föregående|ovanstående|tidligere|forrige|ovenstående)\s+(?:instruktioner|anvisningar|"
         r"kommandon|instruksjoner|instrukser|anvisninger)"
         r"|\b(?:ohita|unohda)\s+(?:kaikki\s+)?(?:aiemmat|edelliset)\s+(?:ohjeet|käskyt)"
         r"|\bignoruj(?:te)?\s+(?:všechny\s+)?(?:předchozí|předešlé)\s+(?:pokyny|instrukce)"
         r"|(?:ігноруй(?:те)?|забудь(?:те)?)\s+(?:усі\s+|всі\s+)?попередні\s+(?:інструкції|"  # noqa: RUF001
         r"вказівки|команди)"
         r"|\bignor(?:ă|a|ați)\s+(?:toate\s+)?instrucțiunile\s+(?:anterioare|precedente)"
         r"|\bhagyd\s+figyelmen\s+kívül\s+(?:az\s+)?(?:összes\s+)?(?:korábbi|előző)\s+"
         r"utasítás(?:t|okat)"
         r"|(?:เพิกเฉย|ละเว้น|ลืม)(?:ต่อ)?คำสั่ง(?:ทั้งหมด)?(?:ก่อนหน้า|ที่ผ่านมา)"
         r"|이전\s*(?:의\s*)?(?:모든\s*)?(?:지시|명령|지침)(?:을|를)?\s*무시"),
    )
)  # fmt: skip

# Words at least one of which every match of a pattern holds (lower-cased, look-alikes
# folded as in the text): a pattern is run only over text that holds one. A long
# alternation runs over every position of a page; `in` over the lower-cased text is
# ten times faster, and most pages hold none of these words.
_NEEDLES: Final = {
    name: tuple(fold_confusables(needle).lower() for needle in needles)
    for name, needles in (
        ("ignore_instructions_other", (
            "instru", "anweisung", "befehl", "vorgabe", "consigne", "directive", "indicaci",
            "órdenes", "指令", "指示", "提示", "命令", "инструкц", "указани", "команд", "التعليمات",
            "الأوامر", "التوجيهات", "istruzion", "opdracht", "polecen", "talimat", "komut",
            "yönerge", "hướng dẫn", "chỉ dẫn", "lệnh", "chỉ thị", "perintah", "petunjuk",
            "arahan", "निर्देश", "आदेश", "οδηγίες", "εντολές", "הוראות", "הנחיות", "פקודות",
            "anvisning", "kommando", "ohjeet", "käskyt", "pokyny", "інструкц", "вказівк",
            "utasítás", "คำสั่ง", "지시", "명령", "지침",
        )),
        ("addressed_to_ai_other", (
            "hinweis", "nachricht", "anweisung", "achtung", "note", "message", "instruction",
            "avis", "nota", "mensaje", "instruccion", "aviso", "messaggio", "istruzion", "致",
            "给", "對", "对", "助手", "助理", "antwort", "répond", "respond", "contesta", "只",
            "不要告", "примечание", "сообщение", "внимание", "инструкция", "указание",
            "ملاحظة", "رسالة", "تنبيه", "تعليمات", "mensagem", "instruç", "opmerking",
            "bericht", "notitie", "어시스턴트", "비서", "모델",
        )),
        ("addressed_to_tools", (
            # a tool's name, or an AI word, before its colon or its "should"
            "tool", "engine", "assistant", "bot", "agent", "software", "app", "summar",
            "llm", "crawler", "scraper", "automated", "machine", "generated", "ai:", "ai :",
            "reader", "model", "system",
            "a.i.", "artificial intelligence", "language model", "chat", "gpt", "claude",
            "gemini", "copilot", "grok", "deepseek", "perplexity", "mistral", "qwen",
        )),
    )
}  # fmt: skip


def _run_patterns(variant: str) -> Iterable[tuple[str, re.Match[str]]]:
    """Each pattern's matches in `variant` (a pattern with needles only where one is)."""
    lower = variant.lower()
    for name, pattern in INSTRUCTION_PATTERNS:
        needles = _NEEDLES.get(name)
        if needles is not None and not any(n in lower for n in needles):
            continue
        for m in pattern.finditer(variant):
            yield name, m


# Base64 long enough to hold a sentence; shorter runs are ids and hashes.
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/=_-])")
_PRINTABLE_SHARE: Final = 0.9
# A code-like token (CANARY-7F3K2, TOKEN_ABC123): capitals and digits with a separator.
_CODE_TOKEN = re.compile(r"\b[A-Z][A-Z0-9]{2,}(?:[-_][A-Za-z0-9]+)+\b")
# A sentence next to an instruction that is mostly such a token is the instruction's
# payload ("Ignore the above. CANARY-7F3K2."); longer sentences are prose.
_PAYLOAD_MAX_WORDS: Final = 8
# A speaker's label opening a sentence ("Model: ", "Bot: ").
_SPEAKER = re.compile(r"\s*[A-Z][A-Za-z]{1,15}\s*:\s")


# HTML escapes left in page text (a page that escaped its markup twice), read as the
# character they stand for, padded on the outside so that every offset stays.
_ESCAPES: Final = (("&lt;", "   <"), ("&gt;", ">   "), ("&amp;", "    &"), ("&quot;", '"     '))


def _for_matching(text: str, cell_separator: str | None = None) -> str:
    """Look-alikes folded, escapes read, our own masks blanked ("AI readers" is in the
    mask) and table cells run together (an instruction may be cut across cells)."""
    folded = fold_confusables(text).replace(MASK, " " * len(MASK))
    for escape, padded in _ESCAPES:
        folded = folded.replace(escape, padded)
    if cell_separator is not None:
        folded = folded.replace(cell_separator, " " * len(cell_separator))
    return folded


def _pattern_names(text: str) -> list[str]:
    return list(dict.fromkeys(label.split(":", 1)[1] for _, _, label in _hits(text)))


# Digits and signs written for letters ("1gn0re prev10us"), read back for matching: a
# one-to-one map, so offsets stay.
_LEET: Final = str.maketrans("013457@$", "oieastas")
# Six or more single letters spaced apart ("I g n o r e"), and the words that make
# such a run an instruction once it is read without its spaces.
_SPACED = re.compile(r"(?<!\S)(?:[^\W\d_][ \t]){5,}[^\W\d_](?!\S)")
_SPACED_WORDS = re.compile(r"ignore|disregard|forget|instruction|prompt|assistant|system")
_LEETISH = re.compile(r"[a-z][013457@$]+[a-z]", re.IGNORECASE)
_ROT13_KEY_WORDS = re.compile(
    r"vtaber|qvfertneq|sbetrg|vafgehpgvba|cebzcg|nffvfgnag|flfgrz|fhzzne|nafjre|ercyl|erfcbaq",
    re.IGNORECASE,
)
_KEY_WORDS = re.compile(
    r"ignore|disregard|forget|instruction|prompt|assistant|system|summar|answer|reply|respond",
    re.IGNORECASE,
)
_SPEAKER_LABEL = re.compile(
    r"\b(?<![^\n# \t])(?<![^\n]\w[ \t])(system|assistant|human|user|operator|model|ai|bot)"
    r"[ \t]*:[ \t]*(?=\S)",
    re.IGNORECASE,
)
_MODEL_SPEAKERS: Final = frozenset({"assistant", "model", "ai", "bot", "system"})
_QUERY_LINK = re.compile(
    r"\[[^\]\n]{1,200}\]\(\s*<?\s*(?:https?:)?//[^\s()\[\]?]{0,512}\?[^\s()\[\]]{0,512}\)"
)
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){12,}(?![0-9A-Fa-f])")
# A word with three or more percent-escapes; the parts between escapes cannot hold a
# "%", so no run is tried two ways (no backtracking on long tokens).
_PERCENT_TOKEN = re.compile(r"(?<!\S)[^\s%]*(?:%[0-9A-Fa-f]{2}[^\s%]*){3,}")


# Readings that are not one character for one: accents taken off letters ("Ignoŕe
# prévious ínstructions", which NFKC composes), hyphens inside words taken out
# ("in-struc-tions"), every space taken out ("instr uctions", read by `_RUN_TOGETHER`
# alone), each line reversed (text stored backwards and shown right to left by
# `<bdo dir=rtl>` or `unicode-bidi: bidi-override`). Each comes with the offset in the
# text of each of its characters.
_ACCENTED = re.compile(r"[\u00c0-\u024f]")
_WORD_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")
_BETWEEN_LETTERS = re.compile(r"(?<=[^\W\d_]) +(?=[^\W\d_])")
_REVERSED_KEY_WORDS = re.compile(
    r"erongi|dragersid|tegrof|snoitcurtsni|tpmorp|tnatsissa|yrammus", re.IGNORECASE
)
# The one instruction looked for with the spaces between its letters taken out.
_RUN_TOGETHER = re.compile(
    rf"(?:ignore|disregard|forget|override)(?:all|any)?(?:the|your|my)?{_QUALIFIER}"
    rf"(?:instructions?|prompts?|rules|directions|commands|guidelines)",
    re.IGNORECASE,
)


def _reading(text: str, piece: Callable[[int, str], str]) -> tuple[str, list[int]]:
    """``text`` with each character replaced by ``piece(offset, character)``, and the
    offset in ``text`` of each character of the result."""
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        got = piece(i, ch)
        out.append(got)
        where.extend([i] * len(got))
    return "".join(out), where


def _without_accents(i: int, ch: str) -> str:
    if ch.isascii():
        return ch
    return "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c))


def _dropping(text: str, pattern: re.Pattern[str]) -> tuple[str, list[int]]:
    """``text`` without what ``pattern`` matches, and the offsets of what is kept."""
    dropped = {i for m in pattern.finditer(text) for i in range(m.start(), m.end())}
    return _reading(text, lambda i, ch: "" if i in dropped else ch)


def _reversed_lines(text: str) -> tuple[str, list[int]]:
    lines: list[str] = []
    where: list[int] = []
    start = 0
    for line in text.split("\n"):
        lines.append(line[::-1])
        where.extend(range(start + len(line) - 1, start - 1, -1))
        where.append(start + len(line))  # the newline
        start += len(line) + 1
    return "\n".join(lines), where


_KEY_WORD_LIST: Final = (
    "ignore", "disregard", "forget", "instruction", "prompt", "assistant", "system", "summar",
    "answer", "reply", "respond",
)  # fmt: skip


def _key_words(text: str) -> int:
    """How many of the words instructions are made of `text` holds (as `_KEY_WORDS`
    finds them, counted on the lower-cased text: a regex alternation runs ten times
    slower)."""
    lower = text.lower()
    return sum(lower.count(word) for word in _KEY_WORD_LIST)


_COMBINING = re.compile(r"[\u0300-\u036f]")


def _other_readings(folded: str) -> list[tuple[str, list[int]]]:
    """The readings of `folded` that are not one character for one, where it shows signs
    of them: the reading, made first without offsets (in C, not character by character
    in Python), holds more of the words instructions are made of."""
    readings = []
    have = _key_words(folded)
    if _ACCENTED.search(folded) and (
        _key_words(_COMBINING.sub("", unicodedata.normalize("NFD", folded))) > have
    ):
        readings.append(_reading(folded, _without_accents))
    if _WORD_HYPHEN.search(folded) and _key_words(_WORD_HYPHEN.sub("", folded)) > have:
        readings.append(_dropping(folded, _WORD_HYPHEN))
    if _REVERSED_KEY_WORDS.search(folded):
        readings.append(_reversed_lines(folded))
    return readings


def _hits(text: str, cell_separator: str | None = None) -> list[tuple[int, int, str]]:
    """(start, end, kind:name) of every pattern found in `text`, read as it is, with
    digits read as letters, in ROT13, with spaced letters joined, and decoded where it
    holds base64, hex or percent-encoded text."""
    folded = _for_matching(text, cell_separator)
    hits: list[tuple[int, int, str]] = []
    variants = [folded]
    # The other readings only where the text shows signs of them (cheap searches: every
    # pattern over every block again would double or triple the cost of the guard).
    if _LEETISH.search(folded):
        leet = folded.translate(_LEET)
        if len(_KEY_WORDS.findall(leet)) > len(_KEY_WORDS.findall(folded)):
            variants.append(leet)
    if _ROT13_KEY_WORDS.search(folded):
        variants.append(codecs.encode(folded, "rot13"))
    for variant in variants:
        hits.extend(
            (m.start(), m.end(), f"instruction:{name}") for name, m in _run_patterns(variant)
        )
    for reading, where in _other_readings(folded):
        for name, m in _run_patterns(reading):
            span = where[m.start() : m.end()]
            hits.append((min(span), max(span) + 1, f"instruction:{name}"))
    spaceless = folded.replace(" ", "").lower()
    if (
        any(verb in spaceless for verb in ("ignore", "disregard", "forget", "override"))
        and any(obj in spaceless for obj in ("instruction", "prompt", "rule", "direction",
                                             "command", "guideline"))
        and _RUN_TOGETHER.search(_BETWEEN_LETTERS.sub("", folded))
    ):  # fmt: skip
        run_together, where = _dropping(folded, _BETWEEN_LETTERS)
        for m in _RUN_TOGETHER.finditer(run_together):
            start, end = where[m.start()], where[m.end() - 1] + 1
            # Words split by spaces: an instruction written whole is found as it is.
            if not any(s < end and e > start for s, e, _ in hits):
                hits.append((start, end, "instruction:spaced_letters"))
    # A transcript: speaker labels of two kinds or more, one of them a model's.
    labels = list(_SPEAKER_LABEL.finditer(folded))
    kinds = {m.group(1).lower() for m in labels}
    if len(kinds) >= 2 and kinds & _MODEL_SPEAKERS:
        hits.extend((m.start(), m.end(), "instruction:fake_role_marker") for m in labels)
    for match in _QUERY_LINK.finditer(folded):
        if _CODE_TOKEN.search(match.group()):
            hits.append((match.start(), match.end(), "instruction:exfiltration_link"))
    for match in _SPACED.finditer(folded):
        if _SPACED_WORDS.search("".join(match.group().split()).lower()):
            hits.append((match.start(), match.end(), "instruction:spaced_letters"))
    for pattern, decode in ((_BASE64, _decoded_base64), (_HEX, _decoded_hex),
                            (_PERCENT_TOKEN, _decoded_percent)):  # fmt: skip
        for match in pattern.finditer(text):
            decoded = decode(match.group())
            if decoded is None:
                continue
            for name in _pattern_names(decoded):
                hits.append((match.start(), match.end(), f"encoded_instruction:{name}"))
    return hits


def _printable(text: str) -> str | None:
    printable = sum(1 for ch in text if ch.isprintable() or ch.isspace())
    if not text or printable < _PRINTABLE_SHARE * len(text):
        return None
    return text


def _decoded_hex(token: str) -> str | None:
    try:
        return _printable(bytes.fromhex(token).decode("utf-8"))
    except ValueError:
        return None


def _decoded_percent(token: str) -> str | None:
    decoded = unquote(token)
    return decoded if decoded != token else None


def _decoded_base64(token: str) -> str | None:
    padded = token + "=" * (-len(token) % 4)
    try:
        raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    printable = sum(1 for ch in text if ch.isprintable() or ch.isspace())
    if not text or printable < _PRINTABLE_SHARE * len(text):
        return None
    return text


def find_instructions(text: str) -> list[str]:
    """Names of the instruction patterns found in `text` (normalised first)."""
    normalised, _ = normalise_text(text)
    names = _pattern_names(normalised)
    for match in _BASE64.finditer(normalised):
        decoded = _decoded_base64(match.group())
        if decoded is not None:
            names.extend(f"base64:{name}" for name in _pattern_names(decoded))
    return list(dict.fromkeys(names))


def _units(text: str, cell_separator: str | None) -> list[tuple[int, int]]:
    """Sentence spans of `text`, never crossing a line or a table cell."""
    spans: list[tuple[int, int]] = []
    separator = re.compile(r"\n" if cell_separator is None else rf"\n|{re.escape(cell_separator)}")
    start = 0
    for cut in [*separator.finditer(text), None]:
        end = cut.start() if cut is not None else len(text)
        spans.extend((start + s, start + e) for s, e in sentence_spans(text[start:end]))
        if cut is not None:
            start = cut.end()
    return spans


def instruction_spans(
    text: str, *, cell_separator: str | None = None
) -> list[tuple[int, int, str]]:
    """(start, end, kind:detail) of every sentence of `text` to mask, in order.

    `text` must already be normalised. The kind is `instruction`,
    `encoded_instruction` or `instruction` with detail `payload_token`.
    """
    hits = _hits(text, cell_separator)
    if not hits:
        return []
    units = _units(text, cell_separator)
    flagged: dict[int, str] = {}
    for index, (start, end) in enumerate(units):
        for hit_start, hit_end, label in hits:
            if hit_start < end and hit_end > start:
                flagged.setdefault(index, label)
    # The payload of an instruction may stand as a sentence of its own next to it: a
    # short one holding a code-like token before it, any one holding such a token
    # after it ("Ignore the above. <the claim to repeat, CANARY-…>").
    # A fake transcript goes on past its first marked turn: the next turn ("Model:
    # Understood.") is part of it, and the payload may follow that.
    queue = sorted(flagged)
    while queue:
        index = queue.pop(0)
        for neighbour in (index - 1, index + 1):
            if neighbour in flagged or not 0 <= neighbour < len(units):
                continue
            sentence = text[units[neighbour][0] : units[neighbour][1]]
            short = len(sentence.split()) <= _PAYLOAD_MAX_WORDS
            if _CODE_TOKEN.search(sentence) and (short or neighbour > index):
                flagged[neighbour] = "instruction:payload_token"
            elif (
                neighbour > index
                and flagged[index].endswith(("fake_role_marker", "transcript_turn"))
                and _SPEAKER.match(sentence)
            ):
                flagged[neighbour] = "instruction:transcript_turn"
                queue.append(neighbour)
    return [(units[i][0], units[i][1], flagged[i]) for i in sorted(flagged)]


def payload_head(text: str) -> int:
    """The end of `text`'s first sentence when it carries a code-like token (the payload
    of an instruction that ended the block before), else 0."""
    spans = sentence_spans(text)
    if spans and _CODE_TOKEN.search(text[spans[0][0] : spans[0][1]]):
        return spans[0][1]
    return 0


def guard_text(text: str, *, cell_separator: str | None = None) -> Guarded:
    """Normalise `text` and mask every sentence that is an instruction to AI readers."""
    normalised, detections = normalise_text(text)
    spans = instruction_spans(normalised, cell_separator=cell_separator)
    if not spans:
        return Guarded(normalised, tuple(detections))
    pieces: list[str] = []
    cursor = 0
    for start, end, label in spans:
        kind, detail = label.split(":", 1)
        detections.append(Detection(kind, detail))
        between = normalised[cursor:start]
        # Consecutive masked sentences read as one removal.
        if not (pieces and pieces[-1] == MASK and not between.strip()):
            pieces.extend((between, MASK))
        cursor = end
    pieces.append(normalised[cursor:])
    return Guarded("".join(pieces), tuple(merge_detections(detections)))


def is_only_masks(text: str) -> bool:
    """True when nothing but masks (and separators) is left of `text`."""
    return not re.sub(r"[\s|]+", "", text.replace(MASK, ""))
