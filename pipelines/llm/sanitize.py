"""Prompt-injection defences around the local LLM (seed 003 §4.4.1, L2 to L4).

L2 `sanitize_untrusted` cleans page text before it goes into any prompt: NFKC, entity
decoding, zero-width / bidi / control characters removed, tag-like markup removed
(our own fence tags above all), danger phrases detected, length capped.
L3 `new_task_tag` makes the random per-task fence `LYRA-<32 hex>`; it is never logged.
L4 `check_llm_output` masks URLs, IP addresses, fence tags and any span of 20 or more
characters copied from the system prompt before the output is used.

Detection runs on the cleaned text, so the usual bypasses (zero-width characters
inside a word, full-width letters, entity-encoded letters, odd spacing and case) are
caught by the same patterns.
"""

from __future__ import annotations

import html
import ipaddress
import re
import secrets
import unicodedata
from dataclasses import dataclass, field
from typing import Final

TAG_PREFIX: Final = "LYRA-"
TAG_HEX_CHARS: Final = 32
DEFAULT_MAX_CHARS: Final = 4000  # seed 003 §3.3: the untrusted part of a prompt
# seed 003 L4: a copied run of 20 characters from the system prompt is a leak.
PROMPT_OVERLAP_CHARS: Final = 20
_MAX_UNESCAPE_ROUNDS: Final = 5

URL_MASK: Final = "[URL]"
IP_MASK: Final = "[IP]"
REDACTED: Final = "[REDACTED]"

_TAG_PATTERN = re.compile(rf"^{TAG_PREFIX}[0-9a-f]{{{TAG_HEX_CHARS}}}$")

# Zero-width and invisible formatting characters, bidi controls (the "Trojan source"
# reorderings) and the BOM: invisible to a reader, visible to a tokenizer.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]"
)
# C0 and C1 controls except tab and newline, which only lay text out; dropping the
# newline would glue paragraphs and words together.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Our fence tag in any disguise: brackets optional, spaces or separators between the
# letters, any case ("< lyra - 0a1b… >", "[L Y R A_…]").
_FENCE_TAG = re.compile(
    r"(?:[<\[{]\s*/?\s*)?l\W{0,3}y\W{0,3}r\W{0,3}a\s*[-_\u2013\u2014]\s*[0-9a-f]{8,}(?:\s*[>\]}])?"
    r"|<\s*/?\s*l\s*y\s*r\s*a\b[^<>]*>",
    re.IGNORECASE,
)
_MARKUP_TAG = re.compile(
    r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|</?[A-Za-z][\w:.-]*(\s[^<>]*)?/?>"
    # Chat-template special tokens ("<|im_start|>", "<|system|>") are tags to a model.
    r"|<\|[^<>|]{1,40}\|>",
    re.DOTALL,
)
_SPACES = re.compile(r"[ \t]+")
_BLANK_LINES = re.compile(r"\n{3,}")

# Danger phrases (name, pattern). A hit is a security warning and, per seed 003, can
# demote a domain, so each pattern needs the instruction-like object ("ignore the
# previous *instructions*"), not just the verb ("ignore the previous paragraph").
DANGER_PATTERNS: Final[tuple[tuple[str, re.Pattern[str]], ...]] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        ("ignore_instructions",
         r"\b(ignore|disregard|forget|override)\s+(all\s+|any\s+|the\s+|your\s+|of\s+|my\s+)*"
         r"(previous|prior|above|earlier|preceding|foregoing|system|original|these|those)?\s*"
         r"(instructions?|prompts?|rules|directions|commands|guidelines|directives)\b"
         r"|\b(ignore|disregard|forget)\s+(everything|all|anything|the\s+text)\s+"
         r"(above|before\s+this)\b|\bdisregard\s+the\s+above\b"),
        ("system_prompt", r"\bsystem\s*prompts?\b"),
        ("role_change", r"\byou\s+are\s+now\b|\bfrom\s+now\s+on\s*,?\s+you\b"),
        ("new_instructions", r"\bnew\s+(system\s+)?instructions?\s*:"),
        ("reveal_prompt",
         r"\b(reveal|print|repeat|show|output|leak)\s+(me\s+)?(your|the)\s+"
         r"(hidden\s+|secret\s+|initial\s+|system\s+)*(prompt|instructions?|rules)\b"),
        ("jailbreak", r"\b(jailbreak|developer\s+mode|do\s+anything\s+now|dan\s+mode)\b"),
        ("fake_role_marker",
         r"<\|im_(start|end)\|>|<\|(system|assistant|user)\|>|\[/?inst\]|"
         r"(^|\n)\s*#*\s*(system|assistant)\s*:\s*(you|ignore|disregard|from\s+now)\b"),
        ("exfiltration",
         r"\b(send|post|upload|exfiltrate)\s+(it|this|the\s+\w+|all\s+\w+)\s+to\s+(http|www|\S+@)"),
        ("ignore_instructions_ja", r"(以前|前|上記|これまで)の(指示|命令|指令)を(無視|忘れ)"),
        ("system_prompt_ja", r"システム\s*プロンプト"),
    )
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Sanitized:
    """Text after a security layer, with what the layer found."""

    text: str
    warnings: list[str] = field(default_factory=list)


def new_task_tag() -> str:
    """A fresh random fence tag `LYRA-<32 hex>` for one task (L3)."""
    return TAG_PREFIX + secrets.token_hex(TAG_HEX_CHARS // 2)


def is_task_tag(tag: str) -> bool:
    """True when `tag` has the exact form of a fence tag."""
    return _TAG_PATTERN.match(tag) is not None


def _unescape(text: str) -> str:
    # Repeat until stable: "&amp;lt;" becomes "<" only on the second round, and a
    # model reads either form as a bracket.
    for _ in range(_MAX_UNESCAPE_ROUNDS):
        decoded = html.unescape(text)
        if decoded == text:
            break
        text = decoded
    return text


def _normalise(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _unescape(text)
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text)
    return _CONTROL.sub("", text)


def detect_danger(text: str) -> list[str]:
    """Names of the danger patterns found in `text` (after L2 normalisation)."""
    cleaned = _normalise(text)
    return [name for name, pattern in DANGER_PATTERNS if pattern.search(cleaned)]


def sanitize_untrusted(text: str, max_chars: int = DEFAULT_MAX_CHARS) -> Sanitized:
    """L2: clean untrusted page text for a prompt and report what was suspicious."""
    if max_chars <= 0:
        raise ValueError(f"max_chars must be positive, got {max_chars}")
    warnings: list[str] = []
    cleaned = _normalise(text)
    # Look for danger phrases before and after markup removal: a chat-template token
    # is evidence of an attack even though it is removed below.
    dangers = set(detect_danger(cleaned))
    # Removing a tag can join "<lyra-" pieces split by another tag; loop to a fixpoint.
    while True:
        without_fence = _FENCE_TAG.sub("", cleaned)
        without_tags = _MARKUP_TAG.sub("", without_fence)
        if without_fence != cleaned and "fence_tag_removed" not in warnings:
            warnings.append("fence_tag_removed")
        if without_tags != without_fence and "markup_removed" not in warnings:
            warnings.append("markup_removed")
        if without_tags == cleaned:
            break
        cleaned = without_tags
    cleaned = _BLANK_LINES.sub("\n\n", _SPACES.sub(" ", cleaned)).strip()
    dangers.update(detect_danger(cleaned))
    warnings.extend(f"danger_phrase:{name}" for name, _ in DANGER_PATTERNS if name in dangers)
    if len(cleaned) > max_chars:
        warnings.append(f"truncated:{len(cleaned)}>{max_chars}")
        cleaned = cleaned[:max_chars].rstrip()
    return Sanitized(cleaned, warnings)


_URL = re.compile(
    r"\b(?:https?|ftp|sftp|wss?)://[^\s<>\"'`\])}]+|\bwww\.[a-z0-9-]+(?:\.[a-z0-9-]+)+[^\s<>\"'`\])}]*",
    re.IGNORECASE,
)
_IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?!\d|\.\d)")
_IPV6_CANDIDATE = re.compile(r"(?<![\w:])[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}(?![\w:])", re.I)


def _is_ip(candidate: str) -> bool:
    try:
        ipaddress.ip_address(candidate)
    except ValueError:
        return False
    return True


def _mask_ips(text: str) -> tuple[str, int]:
    count = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal count
        value = match.group()
        # A clock time "10:30:00" is not an address, and neither is C++'s "a::b";
        # a real IPv6 address practically always contains a decimal digit.
        if _is_ip(value) and any(ch.isdigit() for ch in value):
            count += 1
            return IP_MASK
        return value

    text = _IPV4.sub(replace, text)
    text = _IPV6_CANDIDATE.sub(replace, text)
    return text, count


def _folded_with_map(text: str) -> tuple[str, list[int]]:
    """Case-folded text with whitespace runs collapsed, and each char's source index."""
    chars: list[str] = []
    index_map: list[int] = []
    previous_space = False
    for index, char in enumerate(text):
        if char.isspace():
            if previous_space:
                continue
            previous_space = True
            chars.append(" ")
            index_map.append(index)
            continue
        previous_space = False
        for folded in char.casefold():
            chars.append(folded)
            index_map.append(index)
    return "".join(chars), index_map


def _mask_prompt_overlap(output: str, system_prompt: str) -> tuple[str, int]:
    """Replace every run of >= 20 characters shared with the system prompt."""
    if len(system_prompt) < PROMPT_OVERLAP_CHARS or len(output) < PROMPT_OVERLAP_CHARS:
        return output, 0
    prompt_folded, _ = _folded_with_map(system_prompt)
    windows = {
        prompt_folded[i : i + PROMPT_OVERLAP_CHARS]
        for i in range(len(prompt_folded) - PROMPT_OVERLAP_CHARS + 1)
    }
    folded, index_map = _folded_with_map(output)
    covered: list[tuple[int, int]] = []
    for i in range(len(folded) - PROMPT_OVERLAP_CHARS + 1):
        window = folded[i : i + PROMPT_OVERLAP_CHARS]
        if window.strip() and window in windows:
            start, end = index_map[i], index_map[i + PROMPT_OVERLAP_CHARS - 1] + 1
            if covered and start <= covered[-1][1]:
                covered[-1] = (covered[-1][0], max(end, covered[-1][1]))
            else:
                covered.append((start, end))
    if not covered:
        return output, 0
    pieces: list[str] = []
    cursor = 0
    for start, end in covered:
        pieces.append(output[cursor:start])
        pieces.append(REDACTED)
        cursor = end
    pieces.append(output[cursor:])
    return "".join(pieces), len(covered)


def check_llm_output(output: str, system_prompt: str, max_chars: int) -> Sanitized:
    """L4: mask fence tags, system-prompt fragments, URLs and IPs; cap the length."""
    if max_chars <= 0:
        raise ValueError(f"max_chars must be positive, got {max_chars}")
    warnings: list[str] = []
    text = _CONTROL.sub("", _INVISIBLE.sub("", output))
    text, tags = _FENCE_TAG.subn(REDACTED, text)
    if tags:
        warnings.append(f"fence_tag_in_output:{tags}")
    text, overlaps = _mask_prompt_overlap(text, system_prompt)
    if overlaps:
        warnings.append(f"prompt_fragment_in_output:{overlaps}")
    text, urls = _URL.subn(URL_MASK, text)
    if urls:
        warnings.append(f"url_in_output:{urls}")
    text, ips = _mask_ips(text)
    if ips:
        warnings.append(f"ip_in_output:{ips}")
    if len(text) > max_chars:
        warnings.append(f"output_truncated:{len(text)}>{max_chars}")
        text = text[:max_chars]
    return Sanitized(text, warnings)
