"""wait_for_user's command-line fallback: questions kept apart, first answer wins."""

from __future__ import annotations

import asyncio
import time

import pytest

from lyra.jobs.user_prompts import PromptRegistry, match_choice, new_prompt_id
from lyra.pipelines.errors import LyraError

CHOICES = ["Stop the search", "Go on with the primary sources", "Add the preprints"]


def test_a_choice_is_named_by_its_text_or_its_number() -> None:
    assert match_choice("stop  the SEARCH ", CHOICES) == 0
    assert match_choice("2", CHOICES) == 1
    with pytest.raises(LyraError) as exc:
        match_choice("4", CHOICES)
    assert exc.value.message == (
        "'4' is none of the choices (1. Stop the search; 2. Go on with the primary sources; "
        "3. Add the preprints); answer with one of them or its number"
    )


async def test_two_questions_wait_apart_and_the_first_answer_wins() -> None:
    prompts = PromptRegistry()
    a = prompts.create("Which way?", CHOICES, 30)
    b = prompts.create("Why?", None, 30)
    assert [q["prompt_id"] for q in prompts.pending()] == [a["prompt_id"], b["prompt_id"]]
    waits = asyncio.gather(prompts.wait(a["prompt_id"]), prompts.wait(b["prompt_id"]))
    await asyncio.sleep(0)
    assert prompts.answer(b["prompt_id"], "  the trial was stopped early ") == {
        "prompt_id": b["prompt_id"], "response": "the trial was stopped early",
        "choice_index": None,
    }  # fmt: skip
    assert prompts.answer(a["prompt_id"], "3")["response"] == "Add the preprints"
    with pytest.raises(LyraError) as exc:
        prompts.answer(a["prompt_id"], "1")
    assert exc.value.message == (
        f"question {a['prompt_id']} was already answered: 'Add the preprints'"
    )
    first, second = await waits
    assert first == {"response": "Add the preprints", "choice_index": 2, "timed_out": False}
    assert second == {"response": "the trial was stopped early", "choice_index": None,
                      "timed_out": False}  # fmt: skip
    assert prompts.pending() == []


async def test_a_question_times_out_and_a_late_answer_is_refused() -> None:
    prompts = PromptRegistry()
    q = prompts.create("Still there?", None, 0.2)
    assert await prompts.wait(q["prompt_id"]) == {
        "response": None, "choice_index": None, "timed_out": True
    }  # fmt: skip
    with pytest.raises(LyraError) as exc:
        prompts.answer(q["prompt_id"], "yes")
    assert (exc.value.field, exc.value.message) == (
        "prompt_id", f"question {q['prompt_id']} timed out before this answer"
    )  # fmt: skip


@pytest.mark.parametrize(
    ("prompt_id", "text", "field", "message"),
    [
        ("ask_missing", "yes", "prompt_id",
         "no question 'ask_missing' is waiting (see `lyra answer` for the list)"),
        (None, "   ", "response", "the answer is empty"),
        (None, "x" * 10_001, "response", "the answer is over 10000 characters"),
    ],
)  # fmt: skip
def test_answers_that_cannot_be_taken(
    prompt_id: str | None, text: str, field: str, message: str
) -> None:
    prompts = PromptRegistry()
    q = prompts.create("Why?", None, 30)
    with pytest.raises(LyraError) as exc:
        prompts.answer(prompt_id or q["prompt_id"], text)
    assert (exc.value.code, exc.value.field, exc.value.message) == (
        "INVALID_PARAMS", field, message
    )  # fmt: skip
    assert [p["prompt_id"] for p in prompts.pending()] == [q["prompt_id"]]


async def test_a_cancelled_question_leaves_the_list_and_refuses_answers() -> None:
    prompts = PromptRegistry()
    q = prompts.create("Still?", None, 30)
    waiting = asyncio.ensure_future(prompts.wait(q["prompt_id"]))
    await asyncio.sleep(0)
    prompts.cancel(q["prompt_id"])
    assert await waiting == {"response": None, "choice_index": None, "timed_out": False,
                             "cancelled": True}  # fmt: skip
    assert prompts.pending() == []
    with pytest.raises(LyraError, match="is no longer waited for"):
        prompts.answer(q["prompt_id"], "yes")


def test_a_question_withdrawn_before_it_arrives_is_never_listed() -> None:
    """The asker made the id and gave up while the question was on its way: the
    withdrawal may reach the orchestrator first, and the question is then refused."""
    prompts = PromptRegistry()
    prompt_id = new_prompt_id()
    prompts.cancel(prompt_id)
    with pytest.raises(LyraError, match=f"question {prompt_id} was already asked or withdrawn"):
        prompts.create("Still?", None, 30, prompt_id)
    assert prompts.pending() == []
    asked = prompts.create("Now?", None, 30, new_prompt_id())
    assert [p["prompt_id"] for p in prompts.pending()] == [asked["prompt_id"]]


def test_a_question_past_its_timeout_leaves_the_list_unawaited() -> None:
    prompts = PromptRegistry()
    q = prompts.create("Anyone?", None, 0.01)
    time.sleep(0.05)
    assert prompts.pending() == []
    with pytest.raises(LyraError, match="timed out before this answer"):
        prompts.answer(q["prompt_id"], "yes")


def test_at_most_twenty_questions_wait() -> None:
    prompts = PromptRegistry()
    for i in range(20):
        prompts.create(f"q{i}", None, 30)
    with pytest.raises(LyraError, match="20 questions are already waiting"):
        prompts.create("one more", None, 30)


def test_choices_that_are_numbers_are_taken_by_their_text_first() -> None:
    assert match_choice("2", ["2", "1"]) == 0
    assert match_choice("1", ["2", "1"]) == 1
