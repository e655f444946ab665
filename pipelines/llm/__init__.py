"""The local LLM (Ollama), its prompt templates and the injection defences around it.

`ollama` is the client (L1, L8), `sanitize` cleans untrusted text before a prompt and
checks what comes back (L2 to L4), `prompts` loads the packaged Jinja templates. May
import `pipelines.net`; knows nothing of extraction, discovery or evidence.
"""

from __future__ import annotations

from typing import Any

# `from lyra.pipelines.llm import OllamaLLM` worked when the client was llm.py; the
# client is imported on first use so that `sanitize` stays cheap to import.
_CLIENT_NAMES = frozenset({"OllamaLLM", "LLMError", "is_loopback_host", "text_digest"})


def __getattr__(name: str) -> Any:
    if name in _CLIENT_NAMES:
        from lyra.pipelines.llm import ollama

        return getattr(ollama, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
