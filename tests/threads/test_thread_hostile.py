"""Hostile input on the thread surfaces: each is a clear error, and nothing is half-written."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from dsh_tools.adapters import anthropic, openai
from dsh_tools.store import CallStore, MemoryStore
from dsh_tools.threads import Thread, ThreadConflictError, ThreadWaitingError, open_thread

from thread_support import anthropic_reply, booted, chat_call, chat_completion, responses_reply, store  # noqa: F401 - store is a fixture


async def unchanged(store: CallStore, thread: Thread) -> None:
    """The thread reads back as it was, and no call was journaled."""
    assert await open_thread(store, thread.thread_id) == thread
    assert await store.journal() == []


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (chat_completion(chat_call("a", "look", {"order": "1"}), chat_call("a", "look", {"order": "2"})), 'tool call id "a" appears twice'),
        (chat_completion(chat_call(None, "look", {"order": "1"})), "has no id"),
        (chat_completion(chat_call("", "look", {"order": "1"})), "has no id"),
        ({"choices": []}, "has no choices"),
        ({"choices": "nope"}, "has no choices"),
        ({"choices": [{"index": 0}]}, "has no message"),
        ({"choices": [{"message": "text"}]}, "must be an SDK object or a mapping"),
        (chat_completion(content="x" * (17 * 1024 * 1024)), "a thread takes messages of at most"),
    ],
    ids=["duplicate-id", "missing-id", "empty-id", "no-choices", "choices-not-a-list", "no-message", "message-not-an-object", "huge"],
)
async def test_a_malformed_chat_reply_is_a_value_error_and_writes_nothing(store: CallStore, reply: dict[str, Any], problem: str) -> None:
    ctx, agent = booted(store)
    thread = await (await open_thread(store, "t")).append({"role": "user", "content": "go"})
    with pytest.raises(ValueError, match=problem):
        await openai.run_chat_turn(ctx, thread, reply, agent=agent)
    await unchanged(store, thread)


async def test_malformed_responses_and_anthropic_replies_write_nothing(store: CallStore) -> None:
    ctx, agent = booted(store)
    thread = await open_thread(store, "t")
    duplicate = responses_reply(("a", "look", {"order": "1"}), ("a", "look", {"order": "2"}))
    attempts: list[Callable[[], Awaitable[Thread]]] = [
        lambda: openai.run_responses_turn(ctx, thread, {"id": "r"}, agent=agent),
        lambda: openai.run_responses_turn(ctx, thread, duplicate, agent=agent),
        lambda: openai.run_responses_turn(ctx, thread, {"output": ["not an item"]}, agent=agent),
        lambda: anthropic.run_turn(ctx, thread, {"content": "text, not blocks"}, agent=agent),
        lambda: anthropic.run_turn(ctx, thread, anthropic_reply(("x", "look", {"order": "1"}), ("x", "look", {"order": "1"})), agent=agent),
        lambda: anthropic.run_turn(ctx, thread, {"content": [{"type": "tool_use", "name": "look", "input": {}}]}, agent=agent),
    ]
    for attempt in attempts:
        with pytest.raises(ValueError):
            await attempt()
    await unchanged(store, thread)


@pytest.mark.parametrize(
    "message",
    ["just text", 42, None, {"role": "user", "content": float("nan")}, {1: "a non-str key"}, {"content": "x" * (17 * 1024 * 1024)}],
    ids=["str", "int", "none", "nan", "int-key", "huge"],
)
async def test_append_refuses_what_is_not_a_json_message(store: CallStore, message: object) -> None:
    thread = await open_thread(store, "t")
    with pytest.raises(ValueError):
        await thread.append({"role": "user", "content": "fine"}, message)
    await unchanged(store, thread)
    with pytest.raises(ValueError, match="at least one message"):
        await thread.append()


@pytest.mark.parametrize(
    ("thread_id", "error"),
    [("", ValueError), ("x" * 201, ValueError), ("a\x00b", ValueError), ("\ud800", ValueError), (42, TypeError), (None, TypeError)],
    ids=["empty", "too-long", "nul", "lone-surrogate", "int", "none"],
)
async def test_thread_ids_a_store_cannot_key_are_refused(store: CallStore, thread_id: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        await open_thread(store, thread_id)  # type: ignore[arg-type]
    assert await store.journal() == []


async def test_odd_but_valid_thread_ids_round_trip(store: CallStore) -> None:
    for thread_id in ("🧵 thread", "ä/ö\\ü'\"", "x" * 200, "line\nbreak"):
        thread = await (await open_thread(store, thread_id)).append({"role": "user", "content": thread_id})
        assert (await open_thread(store, thread_id)).messages == thread.messages


async def test_a_store_without_threads_and_a_thread_the_store_lost(store: CallStore) -> None:
    with pytest.raises(TypeError, match="keeps threads"):
        await open_thread(object(), "t")
    thread = await open_thread(store, "t")
    await store.prune(before=float("inf"))  # a ready thread idle since then is pruned with the calls
    assert await store.read_thread("t") is None  # type: ignore[attr-defined]
    with pytest.raises(KeyError, match="no thread 't'"):
        await thread.append({"role": "user", "content": "anyone?"})


async def test_stale_and_waiting_threads_refuse_appends_and_turns(store: CallStore) -> None:
    ctx, agent = booted(store)
    thread = await open_thread(store, "t")
    newer = await thread.append({"role": "user", "content": "first"})
    with pytest.raises(ThreadConflictError, match="another process changed it"):
        await thread.append({"role": "user", "content": "second"})
    with pytest.raises(ThreadConflictError):
        await openai.run_chat_turn(ctx, thread, chat_completion(content="late"), agent=agent)
    waiting = await openai.run_chat_turn(ctx, newer, chat_completion(chat_call("c1", "refund", {"order": "1"})), agent=agent)
    assert waiting.status == "waiting"
    with pytest.raises(ThreadWaitingError, match="waiting"):
        await waiting.append({"role": "user", "content": "and?"})
    with pytest.raises(ThreadWaitingError):
        await openai.run_chat_turn(ctx, waiting, chat_completion(content="x"), agent=agent)
    assert await open_thread(store, "t") == waiting


async def test_two_appends_at_once_one_wins_the_other_conflicts(store: CallStore) -> None:
    thread = await open_thread(store, "t")
    outcomes = await asyncio.gather(
        thread.append({"role": "user", "content": "a"}), thread.append({"role": "user", "content": "b"}), return_exceptions=True
    )
    won = [o for o in outcomes if isinstance(o, Thread)]
    lost = [o for o in outcomes if isinstance(o, ThreadConflictError)]
    assert len(won) == 1 == len(lost)
    assert (await open_thread(store, "t")).messages == won[0].messages and len(won[0].messages) == 1


async def test_a_turn_of_another_agent_or_into_another_store_is_refused(store: CallStore) -> None:
    ctx, agent = booted(store)
    thread = await openai.run_chat_turn(ctx, await open_thread(store, "t"), chat_completion(content="hi"), agent=agent)
    other_ctx, _ = booted(MemoryStore())
    from dsh_tools import Agent

    stranger = Agent(ctx, name="stranger", id="stranger-1")
    with pytest.raises(ValueError, match="belongs to agent 'support-1', not 'stranger-1'"):
        await openai.run_chat_turn(ctx, thread, chat_completion(content="mine now"), agent=stranger)
    with pytest.raises(ValueError, match="another store"):
        await openai.run_chat_turn(other_ctx, thread, chat_completion(content="elsewhere"), agent=agent)
    assert await open_thread(store, "t") == thread
