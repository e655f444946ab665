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
   base64 that decodes to any of those (also cut into pieces by spaces or line
   breaks, decision 0081), and a code-like token (a canary) standing
   next to such a sentence.
3. Those sentences are replaced by `MASK`: they never reach a claim, and the text a
   tool returns (fragments, quotes) says that something was removed, not what.

The patterns run on a copy with every look-alike folded (a one-to-one map, so the
offsets are those of the kept text). Each pattern needs the addressee or the object
of the instruction ("the previous *instructions*", "*AI* assistants reading this"),
not just the verb: "patients who ignore the leaflet" is medicine, not an attack.
The security checks are tables in tests/test_injection.py, bypasses included. The
patterns are in `instruction_patterns.py`, the look-alike tables in `lookalikes.py`.
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

from lyra.pipelines.extract.instruction_patterns import (
    QUALIFIER,
    run_patterns,
)
from lyra.pipelines.extract.lookalikes import ENCLOSED_LETTERS, FOLD_ALL, fold_confusables
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
        folded = word.translate(FOLD_ALL)
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
    text = unicodedata.normalize("NFKC", text).translate(ENCLOSED_LETTERS)
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


# Base64 long enough to hold a sentence; shorter runs are ids and hashes.
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/=_-])")
_PRINTABLE_SHARE: Final = 0.9
# Base64 cut into pieces by spaces or line breaks ("SWdub3Jl IGFsbCBw cmV2aW91cw=="),
# each piece too short for `_BASE64`: three pieces or more, read joined. Prose matches
# too ("patients taking aspirin daily"); a run is decoded only where it has a case
# change inside a word or a digit (`_BASE64_RUN_HINT`), and what it decodes to must be
# printable text holding an instruction, so prose never is one.
_BASE64_RUN = re.compile(
    r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{4,}(?:[ \t\n]+[A-Za-z0-9+/_-]{4,}){2,}"
    r"(?:[ \t\n]+[A-Za-z0-9+/_-]{1,3})?={0,2}(?![A-Za-z0-9+/=_-])"
)
_BASE64_RUN_HINT = re.compile(r"[a-z][A-Z]|[0-9]")
# Words on either side of the encoded pieces that a run takes in ("Ref code SWdub3Jl ...
# RVMu Bleeding rose by") are left out: lower-case or capitalised letters only.
_PLAIN_WORD = re.compile(r"[A-Z]?[a-z]+\Z")
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
_KEY_WORD_LIST: Final = (
    "ignore", "disregard", "forget", "instruction", "prompt", "assistant", "system", "summar",
    "answer", "reply", "respond",
)  # fmt: skip


def _key_words(text: str) -> int:
    """How many of the words instructions are made of `text` holds, counted on the
    lower-cased text (a regex alternation runs ten times slower): a reading that holds
    more of them than the text is worth matching."""
    lower = text.lower()
    return sum(lower.count(word) for word in _KEY_WORD_LIST)


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
    rf"(?:ignore|disregard|forget|override)(?:all|any)?(?:the|your|my)?{QUALIFIER}"
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
        if _key_words(leet) > _key_words(folded):
            variants.append(leet)
    if _ROT13_KEY_WORDS.search(folded):
        variants.append(codecs.encode(folded, "rot13"))
    for variant in variants:
        hits.extend(
            (m.start(), m.end(), f"instruction:{name}") for name, m in run_patterns(variant)
        )
    for reading, where in _other_readings(folded):
        for name, m in run_patterns(reading):
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
    for start, end, run in _base64_runs(text):
        for name in _pattern_names(run):
            hits.append((start, end, f"encoded_instruction:{name}"))
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


def _base64_runs(text: str) -> list[tuple[int, int, str]]:
    """(start, end, decoded) of every run of base64 pieces in `text` that decodes to
    printable text, read joined (the words at its ends left out where they are not part
    of it)."""
    found = []
    for match in _BASE64_RUN.finditer(text):
        if _BASE64_RUN_HINT.search(match.group()):
            pieces = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", match.group())]
            decoded = _decoded_pieces(pieces)
            if decoded is not None:
                (a, _, _), (_, b, _), text_ = decoded
                found.append((match.start() + a, match.start() + b, text_))
    return found


def _decoded_pieces(
    pieces: list[tuple[int, int, str]],
) -> tuple[tuple[int, int, str], tuple[int, int, str], str] | None:
    """The first and last piece of the encoded part of a run, and what it decodes to."""
    first, stop = 0, len(pieces)
    while first < stop and _PLAIN_WORD.match(pieces[first][2]):
        first += 1
    while stop > first and _PLAIN_WORD.match(pieces[stop - 1][2]):
        stop -= 1
    # A piece of the encoding may look like a word too: one more on each side is tried.
    for lead in dict.fromkeys((first, max(0, first - 1))):
        for end in dict.fromkeys((stop, min(len(pieces), stop + 1))):
            joined = "".join(piece for _, _, piece in pieces[lead:end])
            decoded = _decoded_base64(joined) if len(joined) >= 24 else None
            if decoded is not None:
                return pieces[lead], pieces[end - 1], decoded
    return None


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
    decoded_runs = [decoded for _, _, decoded in _base64_runs(normalised)]
    for match in _BASE64.finditer(normalised):
        decoded = _decoded_base64(match.group())
        if decoded is not None:
            decoded_runs.append(decoded)
    for decoded in decoded_runs:
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
