"""Client for a local LLM served by Ollama (ARCHITECTURE §7), with L1 and L8 built in.

The InferenceActor owns one :class:`OllamaLLM`. When Ollama is not running (the
default on a fresh machine: there is no Ollama binary here), :meth:`available` answers
False quickly and the actor falls back to extractive claims, flagged as degraded.

Security layers:

- L1, inference never reaches the network: only loopback hosts (``localhost``,
  127.0.0.0/8, ``::1``) are contacted. Another host makes :meth:`available` False with a
  logged reason and :meth:`generate` raise, unless ``allow_remote=True`` was passed
  deliberately; a configuration mistake degrades, it does not leak prompts.
- L8, no prompt text in logs: every prompt and response is logged only as its sha256,
  its length and a 100-character preview, with the per-task fence tag
  (``LYRA-<32 hex>``, L3) masked inside the preview. The system prompt, which holds
  the fence instructions, is logged as hash and length only, never previewed.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import re
import time
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx
import ollama

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_SECONDS = 60.0
# The availability probe runs at actor start; a dead host must not hold it up
# (the client fails in milliseconds on a refused connection; 1 s bounds a black hole).
PROBE_TIMEOUT_SECONDS = 1.0
PREVIEW_CHARS = 100
_FENCE_TAG_RE = re.compile(r"LYRA-[0-9a-fA-F]{32}")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]+")

# What a failed call to Ollama can raise: the builtin ConnectionError (the client's
# translation of httpx.ConnectError), other httpx transport errors and timeouts, the
# server's error replies, and a reply that is not the JSON the client expects.
_CALL_ERRORS: tuple[type[BaseException], ...] = (
    ConnectionError,
    httpx.HTTPError,
    ollama.ResponseError,
    ValueError,
)


class LLMError(RuntimeError):
    """An LLM call failed; the message never contains prompt text."""


def text_digest(text: str, *, preview: bool = True) -> str:
    """Loggable summary of a prompt or response: sha256 prefix, length, masked preview."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    if not preview:
        return f"sha256={digest} chars={len(text)}"
    shown = _FENCE_TAG_RE.sub("LYRA-<tag>", text[:PREVIEW_CHARS])
    shown = _CONTROL_RE.sub(" ", shown)
    return f"sha256={digest} chars={len(text)} preview={shown!r}"


def is_loopback_host(host: str) -> bool:
    """True when an Ollama host URL or host:port names this machine's loopback."""
    url = host if "://" in host else f"http://{host}"
    name = (urlsplit(url).hostname or "").strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        # Any other name could resolve anywhere; it is not loopback by construction.
        return False


class OllamaLLM:
    """Text generation through the official ``ollama`` client, loopback only by default."""

    def __init__(
        self,
        host: str,
        model: str,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        *,
        probe_timeout: float = PROBE_TIMEOUT_SECONDS,
        temperature: float | None = 0.0,
        allow_remote: bool = False,
    ) -> None:
        if timeout <= 0 or probe_timeout <= 0:
            raise ValueError("timeouts must be positive")
        self._host = host
        self._model = model
        self._timeout = timeout
        # Claim extraction must be repeatable; temperature 0 makes a rerun give the
        # same claims for the same fragment.
        self._options: dict[str, Any] = {} if temperature is None else {"temperature": temperature}
        self._refusal: str | None = None
        if not allow_remote and not is_loopback_host(host):
            self._refusal = (
                f"llm.ollama_host {host!r} is not a loopback address; inference never "
                "leaves the machine (L1)"
            )
            log.warning("%s; the LLM is disabled", self._refusal)
        self._client = ollama.Client(host=host, timeout=timeout)
        self._probe = ollama.Client(host=host, timeout=probe_timeout)

    @property
    def host(self) -> str:
        """The Ollama server URL."""
        return self._host

    @property
    def model(self) -> str:
        """The Ollama model name, e.g. "qwen2.5:3b"."""
        return self._model

    def available(self) -> bool:
        """True when the server answers /api/tags and lists the model; logs why not."""
        if self._refusal is not None:
            return False
        try:
            listing = self._probe.list()
        except _CALL_ERRORS as exc:
            log.info("Ollama at %s not available: %s: %s", self._host, type(exc).__name__, exc)
            return False
        names = {m.model for m in listing.models if m.model}
        if not self._has_model(names):
            log.warning(
                "Ollama at %s answers but has no model %r (has %s); run `ollama pull %s`",
                self._host,
                self._model,
                sorted(names),
                self._model,
            )
            return False
        return True

    def _has_model(self, names: set[str]) -> bool:
        # Ollama lists untagged pulls as "name:latest".
        wanted = {self._model} if ":" in self._model else {self._model, f"{self._model}:latest"}
        return bool(wanted & names)

    def generate(self, prompt: str, system: str | None = None, format_json: bool = False) -> str:
        """The model's completion of ``prompt`` (optionally under ``system``, JSON mode)."""
        self._check_allowed()
        log.debug(
            "LLM generate model=%s prompt[%s] system[%s] json=%s",
            self._model,
            text_digest(prompt),
            text_digest(system, preview=False) if system is not None else "none",
            format_json,
        )
        started = time.perf_counter()
        try:
            # The stubs type `system` as str, but None is dropped from the request
            # (model_dump(exclude_none=True)), which is what "no system prompt" means.
            reply = self._client.generate(  # type: ignore[call-overload]
                model=self._model,
                prompt=prompt,
                system=system,
                format="json" if format_json else None,
                options=self._options or None,
                stream=False,
            )
        except _CALL_ERRORS as exc:
            raise self._error("generate", exc) from exc
        text = reply.response or ""
        self._log_reply("generate", text, started)
        return text

    def chat(self, messages: Sequence[Mapping[str, str]], format_json: bool = False) -> str:
        """The assistant's reply to a list of {"role", "content"} messages."""
        self._check_allowed()
        log.debug(
            "LLM chat model=%s messages=%s json=%s",
            self._model,
            [
                f"{m.get('role', '?')}:"
                + text_digest(m.get("content", ""), preview=m.get("role") != "system")
                for m in messages
            ],
            format_json,
        )
        started = time.perf_counter()
        try:
            reply = self._client.chat(
                model=self._model,
                messages=[dict(m) for m in messages],
                format="json" if format_json else None,
                options=self._options or None,
                stream=False,
            )
        except _CALL_ERRORS as exc:
            raise self._error("chat", exc) from exc
        text = reply.message.content or ""
        self._log_reply("chat", text, started)
        return text

    def close(self) -> None:
        """Close the HTTP connections."""
        # ollama.Client.close is untyped upstream.
        self._client.close()  # type: ignore[no-untyped-call]
        self._probe.close()  # type: ignore[no-untyped-call]

    def _check_allowed(self) -> None:
        if self._refusal is not None:
            raise LLMError(self._refusal)

    def _log_reply(self, call: str, text: str, started: float) -> None:
        log.debug(
            "LLM %s reply[%s] in %.2f s", call, text_digest(text), time.perf_counter() - started
        )

    def _error(self, call: str, exc: BaseException) -> LLMError:
        if isinstance(exc, httpx.TimeoutException):
            return LLMError(
                f"Ollama {call} timed out after {self._timeout:g} s; raise llm.timeout_seconds "
                "or use a smaller model"
            )
        if isinstance(exc, ConnectionError | httpx.TransportError):
            return LLMError(f"Ollama at {self._host} is not reachable ({type(exc).__name__})")
        if isinstance(exc, ollama.ResponseError):
            # The server's own message (e.g. model not found); it never echoes the prompt.
            return LLMError(
                f"Ollama {call} failed with status {exc.status_code}: {exc.error[:200]}"
            )
        return LLMError(f"Ollama {call} returned an unreadable reply ({type(exc).__name__})")
