"""The OpenAI loop examples, run against the real ``AsyncOpenAI`` client over a mock transport."""

from __future__ import annotations

import asyncio
from typing import Literal, TypedDict

from provider_support import ScriptedServer, booted, chat_call, chat_completion, function_call, output_text, response_body
from dsh_tools import (
    Accept,
    ContentBlock,
    HookContext,
    PluginSource,
    PostNext,
    PostToolDecision,
    ToolExecution,
    ToolExecutionResult,
    define_tool,
    text_block,
)
from examples.openai_loop import chat_loop, responses_loop


class Side(TypedDict):
    side: Literal["left", "right"]


async def test_the_chat_loop_sends_results_then_context_and_stops_on_an_answer() -> None:
    ctx, agent = booted()

    async def note(execution: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        return Accept(additional_context=HookContext([text_block("counted")], PluginSource("audit")))

    ctx.on("tools/post-execute", note)
    server = ScriptedServer(
        chat_completion(chat_call("a", "echo", '{"text": "x"}'), chat_call("b", "echo", "{}")),
        chat_completion(content="done"),
    )
    messages = await chat_loop(ctx, agent, server.openai(), "count the words")
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool", "user", "assistant"]
    sent = server.requests[1]["messages"]
    assert sent[3] == {"role": "tool", "tool_call_id": "a", "content": "x"}
    assert sent[4]["content"].startswith("Error: invalid arguments: text: ")  # the tool's own validation
    assert sent[5] == {"role": "user", "content": [{"type": "text", "text": "counted"}, {"type": "text", "text": "counted"}]}


async def test_the_chat_loop_gives_up_after_max_turns() -> None:
    ctx, agent = booted()
    server = ScriptedServer(*(chat_completion(chat_call(f"c{i}", "echo", '{"text": "again"}')) for i in range(3)))
    messages = await chat_loop(ctx, agent, server.openai(), "loop", max_turns=3)
    assert len(server.requests) == 3 and messages[-1]["role"] == "tool"


async def test_the_responses_loop_chains_responses_and_sends_only_the_new_outputs() -> None:
    ctx, agent = booted()
    server = ScriptedServer(
        response_body(function_call("c1", "echo", '{"text": "hi"}'), function_call("c2", "snapshot", "{}"), response_id="r1"),
        response_body(output_text("all done"), response_id="r2"),
    )
    text = await responses_loop(ctx, agent, server.openai(), "go")
    assert text == "all done"
    first, second = server.requests
    assert server.paths == ["/v1/responses", "/v1/responses"]
    assert first["input"] == [{"role": "user", "content": "go"}]
    assert {t["name"] for t in first["tools"]} == {"echo", "fail", "snapshot"}
    assert all(t["strict"] is False for t in first["tools"])
    assert second["previous_response_id"] == "r1"
    outputs = second["input"]
    assert outputs[0] == {"type": "function_call_output", "call_id": "c1", "output": "hi"}
    assert outputs[1]["call_id"] == "c2"
    assert [part["type"] for part in outputs[1]["output"]] == ["input_text", "input_image"]


async def test_one_messages_safe_calls_overlap_in_the_loop() -> None:
    """Each call waits for the other to start: only a batch that overlaps them finishes."""
    started = {"left": asyncio.Event(), "right": asyncio.Event()}

    async def meet(args: Side, exec: ToolExecution) -> list[ContentBlock]:
        me, other = args["side"], "right" if args["side"] == "left" else "left"
        started[me].set()
        await started[other].wait()
        return [text_block(f"{me} met {other}")]

    ctx, agent = booted()
    ctx.tools.register(
        define_tool(name="meet", description="Meet the other side.", args=Side, execute=meet, is_concurrency_safe=lambda args: True)
    )
    server = ScriptedServer(
        chat_completion(chat_call("l", "meet", '{"side": "left"}'), chat_call("r", "meet", '{"side": "right"}')),
        chat_completion(content="met"),
    )
    async with asyncio.timeout(30):  # a loop that ran them one by one would wait here forever
        await chat_loop(ctx, agent, server.openai(), "meet")
    sent = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in sent] == ["left met right", "right met left"]
