"""A model turn into a thread: the assistant's message verbatim first, each call's answer in its slot, the step's answer once."""

from __future__ import annotations

import pytest
from anthropic.types import Message
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from dsh_tools.adapters import anthropic, openai
from dsh_tools.store import CallStore
from dsh_tools.threads import Thread, open_thread

from thread_support import anthropic_reply, booted, chat_call, chat_completion, responses_reply, store  # noqa: F401 - store is a fixture


async def test_a_chat_turn_waits_for_its_parked_call_then_the_resume_appends_the_step_answer(store: CallStore) -> None:
    ctx, agent = booted(store)
    thread = await open_thread(store, "chat-1")
    assert (thread.status, thread.version, thread.messages, thread.provider) == ("ready", 0, (), None)
    thread = await thread.append({"role": "user", "content": "refund A1"})
    completion = ChatCompletion.model_validate(
        chat_completion(chat_call("c1", "look", {"order": "A1"}), chat_call("c2", "refund", {"order": "A1"}), content="On it.")
    )
    thread = await openai.run_chat_turn(ctx, thread, completion, agent=agent)
    assert (thread.status, thread.provider, thread.agent_id, thread.pending_calls) == ("waiting", "openai-chat", "support-1", ("c2",))
    (pending,) = await ctx.tools.pending_approvals(agent)
    assert thread.waiting_on == (pending.approval_id,)
    user, assistant = thread.chat_messages()  # nothing of the step yet: not c1's answer, not a "waiting" text
    assert assistant == {
        "role": "assistant", "content": "On it.",
        "tool_calls": [chat_call("c1", "look", {"order": "A1"}), chat_call("c2", "refund", {"order": "A1"})],
    }
    with pytest.raises(Exception) as waiting:
        await thread.append({"role": "user", "content": "hello?"})
    assert type(waiting.value).__name__ == "ThreadWaitingError"

    result = await ctx.tools.resume(pending.approval_id, "allowed-once")
    assert result.text == "refunded A1 (chat-1:c2)"  # the thread's idempotency key: "<thread_id>:<tool_call_id>"
    thread = await open_thread(store, "chat-1")
    assert thread.status == "ready" and thread.wants_reply and thread.pending_calls == () == thread.waiting_on
    assert thread.chat_messages()[2:] == [
        {"role": "tool", "tool_call_id": "c1", "content": "order A1: shipped"},
        {"role": "tool", "tool_call_id": "c2", "content": "refunded A1 (chat-1:c2)"},
    ]
    (record,) = [r for r in await store.journal(call_id="c2") if r.outcome == "ok"]
    assert record.thread_slot is not None and (record.thread_slot.thread_id, record.thread_slot.index) == ("chat-1", 1)
    assert record.idempotency_key == "chat-1:c2"


async def test_a_turn_without_calls_appends_the_reply_and_the_thread_stays_ready(store: CallStore) -> None:
    ctx, agent = booted(store)
    thread = await (await open_thread(store, "t")).append({"role": "user", "content": "hi"})
    thread = await openai.run_chat_turn(ctx, thread, chat_completion(content="Hello."), agent=agent)
    assert (thread.status, thread.version, thread.wants_reply) == ("ready", 2, False)
    assert thread.chat_messages()[-1] == {"role": "assistant", "content": "Hello."}


async def test_answers_keep_the_calls_order_whatever_order_they_settle_in(store: CallStore) -> None:
    ctx, agent = booted(store)
    thread = await (await open_thread(store, "t")).append({"role": "user", "content": "two refunds"})
    completion = chat_completion(chat_call("a", "refund", {"order": "1"}), chat_call("b", "refund", {"order": "2"}))
    thread = await openai.run_chat_turn(ctx, thread, completion, agent=agent)
    first, second = await ctx.tools.pending_approvals(agent)
    await ctx.tools.resume(second.approval_id, "rejected", message="not this one")
    middle = await open_thread(store, "t")
    assert (middle.status, middle.pending_calls, len(middle.messages)) == ("waiting", ("a",), 2)
    await ctx.tools.resume(first.approval_id, "allowed-once")
    thread = await open_thread(store, "t")
    assert [m.get("content") for m in thread.chat_messages()[2:]] == [
        "refunded 1 (t:a)", 'Error: the user rejected tool "refund": not this one',
    ]


async def test_a_responses_turn_keeps_every_output_item_reasoning_included(store: CallStore) -> None:
    ctx, agent = booted(store)
    thread = await (await open_thread(store, "r")).append({"role": "user", "content": "look A1 up"})
    response = Response.model_validate(responses_reply(("call_1", "look", {"order": "A1"})))
    thread = await openai.run_responses_turn(ctx, thread, response, agent=agent)
    items = thread.responses_input()
    assert [item.get("type") for item in items] == [None, "reasoning", "function_call", "function_call_output"]
    assert items[1] == responses_reply()["output"][0]  # the reasoning item as the API sent it
    assert items[3] == {"type": "function_call_output", "call_id": "call_1", "output": "order A1: shipped"}
    final = await openai.run_responses_turn(ctx, thread, responses_reply(text="It shipped."), agent=agent)
    assert final.responses_input()[-1]["type"] == "message" and not final.wants_reply


async def test_an_anthropic_turn_keeps_thinking_blocks_and_answers_in_one_message(store: CallStore) -> None:
    ctx, agent = booted(store)
    thread = await (await open_thread(store, "a")).append({"role": "user", "content": "refund A1"})
    reply = Message.model_validate(anthropic_reply(("tu_1", "look", {"order": "A1"}), ("tu_2", "refund", {"order": "A1"})))
    thread = await anthropic.run_turn(ctx, thread, reply, agent=agent)
    assistant = thread.anthropic_messages()[1]
    assert assistant["role"] == "assistant"
    content = list(assistant["content"])
    assert content[0] == {"type": "thinking", "thinking": "let me check", "signature": "sig-1"}
    assert thread.status == "waiting" and len(thread.messages) == 2
    (pending,) = await ctx.tools.pending_approvals(agent)
    await ctx.tools.resume(pending.approval_id, "cancelled", message="the customer called back")
    thread = await open_thread(store, "a")
    answer = thread.anthropic_messages()[-1]
    assert answer["role"] == "user"
    blocks: list[object] = list(answer["content"])
    assert blocks == [
        {"type": "tool_result", "tool_use_id": "tu_1", "content": [{"type": "text", "text": "order A1: shipped"}], "is_error": False},
        {"type": "tool_result", "tool_use_id": "tu_2", "is_error": True, "content": [
            {"type": "text", "text": 'Error: approval for tool "refund" was cancelled: the customer called back'}
        ]},
    ]


async def test_the_typed_readers_refuse_another_providers_thread(store: CallStore) -> None:
    ctx, agent = booted(store)
    thread = await openai.run_chat_turn(ctx, await open_thread(store, "t"), chat_completion(content="hi"), agent=agent)
    assert thread.chat_messages()
    for read in (thread.responses_input, thread.anthropic_messages):
        with pytest.raises(ValueError, match="holds openai-chat messages"):
            read()
    with pytest.raises(ValueError, match="holds openai-chat messages, not anthropic"):
        await anthropic.run_turn(ctx, thread, anthropic_reply(text="hi"), agent=agent)
    empty = await open_thread(store, "fresh")
    assert empty.chat_messages() == [] == empty.anthropic_messages()  # no provider yet: any reader


async def test_a_thread_is_frozen_and_reads_back_the_same(store: CallStore) -> None:
    ctx, agent = booted(store)
    thread = await openai.run_chat_turn(ctx, await open_thread(store, "t"), chat_completion(content="hi"), agent=agent)
    assert isinstance(thread, Thread) and thread == await open_thread(store, "t")
    with pytest.raises(AttributeError):
        thread.version = 7  # type: ignore[misc]


async def test_calls_settled_before_they_could_run_fill_their_slots_too(store: CallStore) -> None:
    ctx, agent = booted(store)
    bad: dict[str, object] = {"id": "c1", "type": "function", "function": {"name": "look", "arguments": "{not json"}}
    unknown = chat_call("c2", "no_such_tool", {})
    thread = await openai.run_chat_turn(ctx, await open_thread(store, "t"), chat_completion(bad, unknown), agent=agent)
    assert thread.status == "ready"
    answers = [m.get("content") for m in thread.chat_messages()[1:]]
    assert str(answers[0]).startswith("Error: invalid arguments: the arguments are not valid JSON")
    assert answers[1] == 'Error: unknown tool "no_such_tool"'


async def test_a_cancelled_turn_settles_the_calls_it_never_started(store: CallStore) -> None:
    import asyncio

    from dsh_tools import tool

    started = asyncio.Event()

    @tool
    async def slow(order: str) -> str:
        """Slow."""
        started.set()
        await asyncio.Event().wait()
        return "never"

    ctx, agent = booted(store)
    ctx.tools.register(slow)
    completion = chat_completion(chat_call("c1", "slow", {"order": "1"}), chat_call("c2", "look", {"order": "2"}))
    turn = asyncio.ensure_future(openai.run_chat_turn(ctx, await open_thread(store, "t"), completion, agent=agent))
    await started.wait()
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    thread = await open_thread(store, "t")
    assert thread.status == "ready"
    answers = [m.get("content") for m in thread.chat_messages()[1:]]
    assert str(answers[0]).startswith('Error: the call was aborted while tool "slow" ran')
    assert answers[1] == "Error: the turn was cut short before this call ran, so it was not run"
