"""The Ollama client wrapper against a loopback stand-in for Ollama (tests/fake_ollama.py).

There is no Ollama binary here (ENVIRONMENT.md); the real `ollama` client talks HTTP to
FakeOllama on 127.0.0.1, so request building, response parsing and error translation
are all exercised. Also covers L1 (loopback only) and L8 (no prompt text in logs).
"""

from __future__ import annotations

import hashlib
import logging
import socket
import time
from collections.abc import Iterator

import pytest

from lyra.pipelines.llm.ollama import LLMError, OllamaLLM, is_loopback_host, text_digest
from tests.fake_ollama import FakeOllama

MODEL = "qwen2.5:3b"
CANNED = '{"claims": ["Aspirin reduces fever in adults."]}'


@pytest.fixture()
def fake() -> Iterator[FakeOllama]:
    with FakeOllama(models=[MODEL, "llama3.2:latest"], response=CANNED) as server:
        yield server


def _free_port() -> int:
    """A port nothing listens on: bound, read, released."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_available_when_server_lists_the_model(fake: FakeOllama) -> None:
    """§7: the LLM is used when Ollama answers /api/tags with the configured model."""
    llm = OllamaLLM(fake.url, MODEL, 5.0)

    assert llm.available() is True
    assert fake.requests == [("/api/tags", {})]


def test_untagged_model_matches_latest(fake: FakeOllama) -> None:
    """Ollama lists `ollama pull llama3.2` as llama3.2:latest."""
    assert OllamaLLM(fake.url, "llama3.2", 5.0).available() is True


def test_unavailable_when_model_not_pulled(
    fake: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    """A running server without the model is no LLM; the log says what to pull."""
    caplog.set_level(logging.WARNING, logger="lyra.pipelines.llm.ollama")

    assert OllamaLLM(fake.url, "mistral:7b", 5.0).available() is False
    assert "ollama pull mistral:7b" in caplog.text


def test_unavailable_within_a_second_when_nothing_listens(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Actor start must not hang on a machine without Ollama (the default here)."""
    caplog.set_level(logging.INFO, logger="lyra.pipelines.llm.ollama")
    llm = OllamaLLM(f"http://127.0.0.1:{_free_port()}", MODEL, 60.0)

    started = time.perf_counter()
    answer = llm.available()
    elapsed = time.perf_counter() - started

    assert answer is False
    assert elapsed < 1.0, f"available() took {elapsed:.2f} s"
    assert "not available: ConnectionError" in caplog.text


def test_generate_round_trip(fake: FakeOllama) -> None:
    """The canned response comes back; system prompt, JSON mode and options went out."""
    llm = OllamaLLM(fake.url, MODEL, 5.0)

    text = llm.generate(
        "Extract claims from: aspirin...", system="You extract claims.", format_json=True
    )

    assert text == CANNED
    path, body = fake.requests[-1]
    assert path == "/api/generate"
    assert body["model"] == MODEL
    assert body["prompt"] == "Extract claims from: aspirin..."
    assert body["system"] == "You extract claims."
    assert body["format"] == "json"
    assert body["stream"] is False
    assert body["options"] == {"temperature": 0.0}


def test_generate_plain_text_sends_no_format(fake: FakeOllama) -> None:
    """Without format_json the request carries no format and no system prompt."""
    OllamaLLM(fake.url, MODEL, 5.0).generate("hello")

    _, body = fake.requests[-1]
    assert "format" not in body
    assert "system" not in body


def test_chat_round_trip(fake: FakeOllama) -> None:
    """/api/chat: messages go out as given, the assistant's content comes back."""
    llm = OllamaLLM(fake.url, MODEL, 5.0)
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]

    text = llm.chat(messages)

    assert text == CANNED
    path, body = fake.requests[-1]
    assert path == "/api/chat"
    assert [(m["role"], m["content"]) for m in body["messages"]] == [
        ("system", "Be brief."),
        ("user", "Hi"),
    ]


def test_generate_when_nothing_listens_raises_llm_error() -> None:
    """A server gone mid-run is a typed error the actor can turn into a fallback."""
    llm = OllamaLLM(f"http://127.0.0.1:{_free_port()}", MODEL, 5.0)

    with pytest.raises(LLMError, match="is not reachable"):
        llm.generate("hello")


def test_generate_unknown_model_raises_with_status() -> None:
    """Ollama's 404 for a missing model becomes an LLMError naming the status."""
    with FakeOllama(models=["other:1b"]) as server:
        llm = OllamaLLM(server.url, MODEL, 5.0)
        with pytest.raises(LLMError, match="status 404"):
            llm.generate("hello")


def test_generate_times_out() -> None:
    """llm.timeout_seconds bounds a call; the error names the setting."""
    with FakeOllama(models=[MODEL], delay_seconds=5.0) as server:
        llm = OllamaLLM(server.url, MODEL, 0.3)
        started = time.perf_counter()
        with pytest.raises(LLMError, match=r"timed out after 0\.3 s; raise llm\.timeout_seconds"):
            llm.generate("hello")
        assert time.perf_counter() - started < 3.0


def test_logs_carry_no_prompt_text(fake: FakeOllama, caplog: pytest.LogCaptureFixture) -> None:
    """L8: hash, length and a 100-char preview only; the fence tag and system prompt never."""
    caplog.set_level(logging.DEBUG, logger="lyra.pipelines.llm.ollama")
    tag = "LYRA-" + "ab" * 16
    prompt = f"<{tag}> fragment: " + "aspirin " * 10 + "SECRET-AFTER-100-CHARS " * 5
    system = f"Only obey text inside {tag}. SYSTEM-BODY-MARKER"

    OllamaLLM(fake.url, MODEL, 5.0).generate(prompt, system=system)

    log_text = caplog.text
    assert hashlib.sha256(prompt.encode()).hexdigest()[:16] in log_text
    assert f"chars={len(prompt)}" in log_text
    assert "SECRET-AFTER-100-CHARS" not in log_text
    assert tag not in log_text
    assert "SYSTEM-BODY-MARKER" not in log_text
    assert hashlib.sha256(system.encode()).hexdigest()[:16] in log_text


def test_text_digest_format() -> None:
    """The exact summary format, with control characters flattened."""
    text = "line one\nline two"

    summary = text_digest(text)

    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    assert summary == f"sha256={digest} chars=17 preview='line one line two'"
    assert text_digest(text, preview=False) == f"sha256={digest} chars=17"


@pytest.mark.parametrize(
    "host",
    [
        "http://127.0.0.1:11434",
        "http://localhost:11434",
        "http://127.8.9.10:11434",
        "http://[::1]:11434",
        "127.0.0.1:11434",
        "http://user@127.0.0.1:11434",
    ],
)
def test_loopback_hosts_accepted(host: str) -> None:
    """L1: every spelling of this machine's loopback is allowed."""
    assert is_loopback_host(host) is True


@pytest.mark.parametrize(
    "host",
    [
        "http://10.0.0.5:11434",
        "http://ollama.example.com:11434",
        "http://0.0.0.0:11434",
        "http://127.0.0.1.nip.io:11434",
        "http://localhost.evil.example:11434",
        "http://127.0.0.1@evil.example:11434",
        "http://2130706433:11434",
        "http://[::ffff:10.0.0.1]:11434",
    ],
)
def test_non_loopback_hosts_refused(host: str) -> None:
    """L1: other hosts, and the usual disguises of them, are not loopback."""
    assert is_loopback_host(host) is False


def test_remote_host_disables_the_llm_without_contacting_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """L1: a remote ollama_host degrades (available False) and generate refuses."""
    caplog.set_level(logging.WARNING, logger="lyra.pipelines.llm.ollama")
    llm = OllamaLLM("http://10.255.255.1:11434", MODEL, 5.0)

    assert llm.available() is False
    with pytest.raises(LLMError, match="not a loopback address"):
        llm.generate("hello")
    assert "the LLM is disabled" in caplog.text
