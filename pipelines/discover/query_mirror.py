"""Language mirror queries (ARCHITECTURE §3 step 2; seed 003 §3.1.1, 日⇄英).

A Japanese query is mirrored into English and any other into Japanese, by the LLM
when one is present: the LLM only translates the client's query, Lyra never designs
one. The prompt follows the security layers of the claims prompt (L2 sanitising of
the query, L3 tag fence); the answer is checked before it becomes a SERP request: one
line, no URL, within a length bound, in the other script, not the query itself.
"""

from __future__ import annotations

import json
import re
from typing import Any

from lyra.pipelines.discover.query_normalize import query_language
from lyra.pipelines.llm.prompts import load_prompt_module
from lyra.pipelines.llm.sanitize import is_task_tag, sanitize_untrusted

QUERY_MAX_CHARS = 500
TARGETS = {"ja": "English", "en": "Japanese"}
_URL = re.compile(r"https?://|www\.", re.IGNORECASE)
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
_MARKER_BRACKETS = re.compile(r"<{3,}|>{3,}")


def mirror_language(query: str) -> str:
    """The language a query is mirrored into: en for a Japanese query, else ja."""
    return "en" if query_language(query) == "ja" else "ja"


def build_mirror_prompt(query: str, tag: str) -> tuple[str, str]:
    """(system, user) messages asking for `{"query": ...}` in the other language."""
    if not is_task_tag(tag):
        raise ValueError("tag must be a task tag made by new_task_tag()")
    cleaned = sanitize_untrusted(query, max_chars=QUERY_MAX_CHARS).text
    cleaned = " ".join(_MARKER_BRACKETS.sub(" ", cleaned).split())
    module = load_prompt_module("mirror")
    system = str(module.system(tag, TARGETS[query_language(query)])).strip()
    user = str(module.user(cleaned or "(none)")).strip()
    return system, user


def parse_mirror(text: str, query: str) -> str | None:
    """The translated query of an LLM answer, or None when it is not a usable mirror.

    Accepted: a JSON object with a `query` string (or the bare line), one line, no URL,
    at most 3x the query's length plus 40 characters, in the other language's script
    and different from the query. Anything else is dropped, not repaired.
    """
    value: Any = None
    match = _JSON_OBJECT.search(text or "")
    if match is not None:
        try:
            parsed = json.loads(match.group(0))
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            value = parsed.get("query")
    elif text and "\n" not in text.strip():
        value = text.strip()
    if not isinstance(value, str):
        return None
    mirrored = " ".join(value.split())
    if not mirrored or "\n" in value.strip() or _URL.search(mirrored):
        return None
    if len(mirrored) > 3 * len(query) + 40:
        return None
    if mirrored.casefold() == " ".join(query.split()).casefold():
        return None
    if query_language(mirrored) != mirror_language(query):
        return None
    return mirrored
