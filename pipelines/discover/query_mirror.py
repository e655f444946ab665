"""Language mirror queries (ARCHITECTURE §3 step 2; seed 003 §3.1.1, 日⇄英).

Without a task language, a Japanese query is mirrored into English and any other into
Japanese. With one (`create_task`'s `config.language`, decision 0054), the mirror
brings the query into that language; a query already written in it (where the script
shows it: a Japanese query for a Japanese task) is mirrored into English, the seed's
日⇄英 for every language of its own script. The LLM only translates the client's
query, Lyra never designs one; no LLM, no mirror. The prompt follows the security
layers of the claims prompt (L2 sanitising of the query, L3 tag fence); the answer is
checked before it becomes a SERP request: one line, no URL, within a length bound,
not the query itself, and written in the target language's script where that script
tells languages apart (a translation between two Latin-script languages can only be
told from the query by being different).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, Final

from lyra.pipelines.discover.query_normalize import query_language
from lyra.pipelines.llm.prompts import load_prompt_module
from lyra.pipelines.llm.sanitize import is_task_tag, sanitize_untrusted

QUERY_MAX_CHARS = 500
# Share of shared words (Jaccard) from which an answer counts as the query itself.
SAME_WORDS = 0.8
_URL = re.compile(r"https?://|www\.", re.IGNORECASE)
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
_MARKER_BRACKETS = re.compile(r"<{3,}|>{3,}")

# The letters of each script a language is written in (Unicode blocks).
_SCRIPTS: Final[dict[str, re.Pattern[str]]] = {
    # Latin letters without the multiplication and division signs that sit among them.
    "latin": re.compile(r"[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]"),
    # Kana without the katakana middle dot (U+30FB), which Chinese text uses too.
    "kana": re.compile(r"[\u3040-\u309f\u30a0-\u30fa\u30fc-\u30ff\uff66-\uff9f]"),
    "han": re.compile(r"[\u3005\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ebef]"),
    "hangul": re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]"),
    "cyrillic": re.compile(r"[\u0400-\u04ff]"),
    "greek": re.compile(r"[\u0370-\u03ff]"),
    "arabic": re.compile(r"[\u0600-\u06ff\u0750-\u077f]"),
    "hebrew": re.compile(r"[\u0590-\u05ff]"),
    "devanagari": re.compile(r"[\u0900-\u097f]"),
    "thai": re.compile(r"[\u0e00-\u0e7f]"),
}
# ISO 639-1 code -> (English name, the scripts its text shows; Japanese is kana or
# kanji, and a short query may be kanji only).
LANGUAGES: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "ja": ("Japanese", ("kana", "han")),
    "zh": ("Chinese", ("han",)),
    "ko": ("Korean", ("hangul",)),
    "ru": ("Russian", ("cyrillic",)),
    "uk": ("Ukrainian", ("cyrillic",)),
    "bg": ("Bulgarian", ("cyrillic",)),
    "sr": ("Serbian", ("cyrillic", "latin")),
    "el": ("Greek", ("greek",)),
    "ar": ("Arabic", ("arabic",)),
    "fa": ("Persian", ("arabic",)),
    "ur": ("Urdu", ("arabic",)),
    "he": ("Hebrew", ("hebrew",)),
    "hi": ("Hindi", ("devanagari",)),
    "mr": ("Marathi", ("devanagari",)),
    "ne": ("Nepali", ("devanagari",)),
    "th": ("Thai", ("thai",)),
    **{
        code: (name, ("latin",))
        for code, name in (
            ("en", "English"), ("de", "German"), ("fr", "French"), ("es", "Spanish"),
            ("it", "Italian"), ("pt", "Portuguese"), ("nl", "Dutch"), ("sv", "Swedish"),
            ("da", "Danish"), ("no", "Norwegian"), ("nb", "Norwegian"), ("fi", "Finnish"),
            ("pl", "Polish"), ("cs", "Czech"), ("sk", "Slovak"), ("hu", "Hungarian"),
            ("ro", "Romanian"), ("tr", "Turkish"), ("id", "Indonesian"), ("ms", "Malay"),
            ("vi", "Vietnamese"), ("ca", "Catalan"), ("hr", "Croatian"), ("sl", "Slovenian"),
            ("et", "Estonian"), ("lv", "Latvian"), ("lt", "Lithuanian"), ("tl", "Tagalog"),
        )
    },
}  # fmt: skip


def base_language(language: str | None) -> str | None:
    """The primary subtag of a BCP 47 tag, lower-cased (pt-BR -> pt); None for none."""
    if not language or not language.strip():
        return None
    return language.strip().split("-", 1)[0].lower()


def _scripts_of(text: str) -> set[str]:
    return {name for name, pattern in _SCRIPTS.items() if pattern.search(text)}


def _letters(text: str) -> Counter[str]:
    """Letters of each listed script in `text`."""
    counts: Counter[str] = Counter()
    for char in text:
        for name, pattern in _SCRIPTS.items():
            if pattern.match(char):
                counts[name] += 1
                break
    return counts


# One kanji, kana or Hangul syllable carries about a word's worth of a query, as a Latin
# word carries several letters: "ChatGPT 教育 利用" is a Japanese query.
_WEIGHT: Final[dict[str, int]] = {"han": 3, "kana": 3, "hangul": 3}


def _share(counts: Counter[str], scripts: set[str]) -> float:
    weighted = {name: n * _WEIGHT.get(name, 1) for name, n in counts.items()}
    total = sum(weighted.values())
    return sum(weighted.get(s, 0) for s in scripts) / total if total else 0.0


def _written_in(text: str, language: str, query: str = "") -> bool:
    """Whether `text` is written in the script of `language` (True for one not listed).

    Letters that the query holds too (a "β" in "β-amyloid", a term left as it was) do not
    count. A Latin-script language needs Latin letters for at least 80 % of the others;
    a listed non-Latin one its own script for at least 30 % (names and acronyms stay in
    Latin letters); Chinese, no kana.
    """
    entry = LANGUAGES.get(language)
    if entry is None:
        return True
    kept = _letters(query)
    counts = _letters(text)
    if language == "zh" and counts["kana"]:  # kana: Japanese, whatever kanji it holds
        return False
    # Keep the letters the query does not have (a script's count minus the query's).
    counts = Counter({name: n - kept[name] if name not in entry[1] else n
                      for name, n in counts.items()})  # fmt: skip
    counts = +counts  # drop the scripts that only the query's letters made
    if entry[1] == ("latin",):
        return counts["latin"] > 0 and _share(counts, {"latin"}) >= 0.8
    return _share(counts, set(entry[1])) >= 0.3


def latin_script(text: str) -> bool:
    """Whether ``text`` is written mostly in Latin letters (a kanji or kana weighs as a
    word, as in ``_share``); a "β" in "β-amyloid" does not make English Greek."""
    counts = _letters(text)
    return not counts or _share(counts, {"latin"}) >= 0.5


def mirror_language(query: str, language: str | None = None) -> str:
    """The language code a query is mirrored into.

    No task language: en for a Japanese query, else ja. A task language: that language,
    unless the query is already written in it (at least half its letters in the
    language's non-Latin script), then en.
    """
    base = base_language(language)
    if base is None:
        return "en" if query_language(query) == "ja" else "ja"
    entry = LANGUAGES.get(base)
    own = set(entry[1]) - {"latin"} if entry is not None else set()
    counts = _letters(query)
    if base == "zh" and counts["kana"]:
        return base
    if base != "en" and own and _share(counts, own) >= 0.5:
        return "en"
    return base


_WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)}


def needs_mirror(query: str, language: str | None) -> bool:
    """False when a mirror could only repeat the query: an English task's query in plain
    ASCII letters (asking the LLM to translate English into English spends a call and
    risks a paraphrase sent as a query of Lyra's own)."""
    if base_language(language) != "en" or mirror_language(query, language) != "en":
        return True
    return not (_scripts_of(query) <= {"latin"} and query.isascii())


def language_name(code: str) -> str:
    """The English name of a language code, for the prompt ("the language xx" if unknown)."""
    entry = LANGUAGES.get(code)
    return entry[0] if entry is not None else f"the language {code!r}"


def build_mirror_prompt(query: str, tag: str, language: str | None = None) -> tuple[str, str]:
    """(system, user) messages asking for `{"query": ...}` in the mirror language."""
    if not is_task_tag(tag):
        raise ValueError("tag must be a task tag made by new_task_tag()")
    cleaned = sanitize_untrusted(query, max_chars=QUERY_MAX_CHARS).text
    cleaned = " ".join(_MARKER_BRACKETS.sub(" ", cleaned).split())
    module = load_prompt_module("mirror")
    target = language_name(mirror_language(query, language))
    system = str(module.system(tag, target)).strip()
    user = str(module.user(cleaned or "(none)")).strip()
    return system, user


def parse_mirror(text: str, query: str, language: str | None = None) -> str | None:
    """The translated query of an LLM answer, or None when it is not a usable mirror.

    Accepted: a JSON object with a `query` string (or the bare line), one line, no URL,
    at most 3x the query's length plus 40 characters, written in the mirror language's
    script (`mirror_language(query, language)`) and different from the query. Anything
    else is dropped, not repaired.
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
    target = mirror_language(query, language)
    if base_language(language) is None:
        if query_language(mirrored) != target:
            return None
    elif not _written_in(mirrored, target, query):
        return None
    # The same words (in another order, case or punctuation) are the query, not a mirror.
    asked, answered = _words(query), _words(mirrored)
    if answered <= asked or len(asked & answered) / len(asked | answered) >= SAME_WORDS:
        return None  # the query's own words, or most of them: not a translation
    return mirrored
