"""Questions waiting for the person at the machine: wait_for_user's fallback (issue 14).

When the MCP client cannot show a form (no elicitation capability), the question goes
to the desktop and the client's log, and the person answers on the command line:
``lyra answer ID "TEXT"`` (``lyra answer`` alone lists what is waiting). Each question
has its own id, so several can wait at once; the first answer wins and a second is
refused, as is an answer after the question timed out.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from lyra.pipelines.errors import LyraError
from lyra.pipelines.net.notify import MAX_MESSAGE_CHARS

MAX_ANSWER_CHARS = 10_000
MAX_OPEN = 20
"""Questions waiting at once; each holds a tool call open."""
KEEP_FINISHED_S = 600.0
"""How long an answered or timed-out question is remembered (to refuse a late answer)."""


def new_prompt_id() -> str:
    """A fresh question id (the asking side makes it, so it can withdraw the question
    however early it gives up)."""
    return f"ask_{uuid.uuid4().hex[:12]}"


def _invalid(message: str) -> LyraError:
    return LyraError("INVALID_PARAMS", message, field="prompt_id")


@dataclass
class _Prompt:
    id: str
    prompt: str
    choices: list[str] | None
    timeout_s: float
    created: float = field(default_factory=time.time)
    status: str = "pending"  # pending, answered, timed_out, cancelled
    response: str | None = None
    choice_index: int | None = None
    finished: float | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def listing(self) -> dict[str, Any]:
        return {
            "prompt_id": self.id,
            "prompt": self.prompt,
            "choices": self.choices,
            "asked_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.created)),
            "timeout_seconds": self.timeout_s,
        }


def match_choice(text: str, choices: list[str]) -> int:
    """The index of the choice ``text`` names: its text (case and spaces aside) or its
    number (1-based); INVALID_PARAMS listing the choices otherwise."""
    wanted = " ".join(text.split()).casefold()
    for i, choice in enumerate(choices):
        if " ".join(choice.split()).casefold() == wanted:
            return i
    if wanted.isdigit() and 1 <= int(wanted) <= len(choices):
        return int(wanted) - 1
    listed = "; ".join(f"{i + 1}. {c}" for i, c in enumerate(choices))
    raise LyraError(
        "INVALID_PARAMS",
        f"{text!r} is none of the choices ({listed}); answer with one of them or its number",
        field="response",
    )


def desktop_question(prompt: str, choices: list[str] | None, prompt_id: str) -> tuple[str, str]:
    """The notification's text for a question, and the command that answers it. The
    desktop shows MAX_MESSAGE_CHARS at most: the question gives way, never the id."""
    listed = (
        " Choices: " + "; ".join(f"{i + 1}. {c}" for i, c in enumerate(choices)) + "."
        if choices
        else ""
    )
    how = f'lyra answer {prompt_id} "..."'
    suffix = f" Answer with: {how}"
    question = f"{prompt}{listed}"
    room = MAX_MESSAGE_CHARS - 2 - len(suffix)
    if len(question) > room:
        question = question[: room - 1].rstrip() + "…"
    return question + suffix, how


class PromptRegistry:
    """The questions of one orchestrator; all methods run on its event loop."""

    def __init__(self) -> None:
        self._prompts: dict[str, _Prompt] = {}

    def _forget_old(self) -> None:
        now = time.time()
        for key in [
            k
            for k, p in self._prompts.items()
            if p.finished is not None and now - p.finished > KEEP_FINISHED_S
        ]:
            del self._prompts[key]

    def _expire(self) -> None:
        """Questions past their timeout are timed out even if no one waits on them."""
        now = time.time()
        for p in self._prompts.values():
            if p.status == "pending" and now > p.created + p.timeout_s:
                p.status, p.finished = "timed_out", now

    def create(
        self,
        prompt: str,
        choices: list[str] | None,
        timeout_s: float,
        prompt_id: str | None = None,
    ) -> dict[str, Any]:
        """A new question under `prompt_id` (made here if None). An id already used,
        one its asker withdrew before it got here included, is refused."""
        self._forget_old()
        self._expire()
        if prompt_id is not None and prompt_id in self._prompts:
            raise _invalid(f"question {prompt_id} was already asked or withdrawn")
        if sum(p.status == "pending" for p in self._prompts.values()) >= MAX_OPEN:
            raise LyraError(
                "INVALID_PARAMS",
                f"{MAX_OPEN} questions are already waiting for an answer (`lyra answer` lists "
                "them); answer some first",
                field="prompt",
            )
        entry = _Prompt(prompt_id or new_prompt_id(), prompt, choices or None, timeout_s)
        self._prompts[entry.id] = entry
        return entry.listing()

    def pending(self) -> list[dict[str, Any]]:
        """Questions still waiting, oldest first."""
        self._expire()
        waiting = [p for p in self._prompts.values() if p.status == "pending"]
        return [p.listing() for p in sorted(waiting, key=lambda p: p.created)]

    def answer(self, prompt_id: str, text: str) -> dict[str, Any]:
        """Record the person's answer; the first one wins."""
        self._expire()
        entry = self._prompts.get(prompt_id)
        if entry is None:
            raise _invalid(f"no question {prompt_id!r} is waiting (see `lyra answer` for the list)")
        if entry.status == "answered":
            raise _invalid(f"question {prompt_id} was already answered: {entry.response!r}")
        if entry.status == "timed_out":
            raise _invalid(f"question {prompt_id} timed out before this answer")
        if entry.status == "cancelled":
            raise _invalid(f"question {prompt_id} is no longer waited for (the client gave up)")
        response = text.strip()
        if not response:
            raise LyraError("INVALID_PARAMS", "the answer is empty", field="response")
        if len(response) > MAX_ANSWER_CHARS:
            raise LyraError(
                "INVALID_PARAMS",
                f"the answer is over {MAX_ANSWER_CHARS} characters",
                field="response",
            )
        if entry.choices:
            entry.choice_index = match_choice(response, entry.choices)
            response = entry.choices[entry.choice_index]
        entry.status, entry.response, entry.finished = "answered", response, time.time()
        entry.done.set()
        return {"prompt_id": prompt_id, "response": response, "choice_index": entry.choice_index}

    def cancel(self, prompt_id: str) -> None:
        """The client stopped waiting: the question leaves the list, a later answer is
        refused. An id not asked yet is remembered as withdrawn, so that its question,
        should it arrive after the withdrawal, is never listed."""
        entry = self._prompts.get(prompt_id)
        if entry is None:
            entry = self._prompts[prompt_id] = _Prompt(prompt_id, "", None, 0.0)
        if entry.status == "pending":
            entry.status, entry.finished = "cancelled", time.time()
            entry.done.set()

    async def wait(self, prompt_id: str) -> dict[str, Any]:
        """The answer, or ``timed_out`` once the question's timeout has passed."""
        entry = self._prompts[prompt_id]
        try:
            await asyncio.wait_for(entry.done.wait(), timeout=entry.timeout_s)
        except TimeoutError:
            entry.status, entry.finished = "timed_out", time.time()
            return {"response": None, "choice_index": None, "timed_out": True}
        except asyncio.CancelledError:  # no one waits for an answer any more
            self.cancel(prompt_id)
            raise
        if entry.status == "cancelled":
            return {"response": None, "choice_index": None, "timed_out": False, "cancelled": True}
        return {"response": entry.response, "choice_index": entry.choice_index, "timed_out": False}
