"""The registry in an OpenAI agent loop, typed end to end (Chat Completions and Responses).

Each loop is the whole agent turn: assemble the prompt for the agent, send it
with the tools, run the model's tool calls through the registry's pipeline,
send the results back, and repeat until the model answers without calls.
Everything the adapters return goes straight into the SDK's calls; ``mypy
--strict`` checks it against the SDK's own types, with no cast anywhere.

The tests run both loops against the real ``AsyncOpenAI`` client over a mock
HTTP transport (no network): pass any client, a real one included.
``python -m examples.openai_loop`` plays one Chat Completions turn against a
scripted stand-in for the API (:mod:`examples.scripted_api`) and prints the
conversation.
"""

from __future__ import annotations

from typing import Any

from openai import AsyncOpenAI
from openai.types.chat import ChatCompletionMessageParam
from openai.types.responses import ResponseInputItemParam

from dsh_tools import Agent, AssembleContext, Context, ToolExecutionInput, ToolExecutionResult, boot, render_prompt
from dsh_tools.adapters.openai import (
    calls_from_chat,
    calls_from_responses,
    chat_assistant_message,
    chat_tool_messages,
    chat_tools,
    responses_outputs,
    responses_tools,
)

__all__ = ["chat_loop", "responses_loop", "run_calls"]


async def run_calls(ctx: Context, calls: list[ToolExecutionInput]) -> list[ToolExecutionResult]:
    """Run one assistant message's calls as one batch, results in call order.

    ``execute_batch`` overlaps the calls whose tools say they are safe to run
    side by side and runs the others alone, in order; policy and observers
    still see one call at a time. Each call gets exactly one result (denials,
    invalid arguments and tool failures are error results the model reads).
    """
    return await ctx.tools.execute_batch(calls)


async def chat_loop(
    ctx: Context,
    agent: Agent,
    client: AsyncOpenAI,
    user_text: str,
    *,
    model: str = "gpt-4.1",
    strict: bool = False,
    max_turns: int = 8,
) -> list[ChatCompletionMessageParam]:
    """Run one user turn to completion with Chat Completions; returns the whole message list."""
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    messages: list[ChatCompletionMessageParam] = [
        {"role": "system", "content": render_prompt(assembly)},
        {"role": "user", "content": user_text},
    ]
    tools = chat_tools(assembly.tools, strict=strict)
    for _ in range(max_turns):
        completion = await client.chat.completions.create(model=model, messages=messages, tools=tools)
        choice = completion.choices[0]
        messages.append(chat_assistant_message(choice.message))
        calls = calls_from_chat(choice, agent=agent, strict_schemas=assembly.tools if strict else None)
        if not calls:  # an answer, or a refusal
            break
        messages.extend(chat_tool_messages(await run_calls(ctx, calls)))
    return messages


async def responses_loop(
    ctx: Context,
    agent: Agent,
    client: AsyncOpenAI,
    user_text: str,
    *,
    model: str = "gpt-4.1",
    strict: bool = False,
    max_turns: int = 8,
) -> str:
    """Run one user turn to completion with the Responses API; returns the final text.

    The conversation state lives on the server (``previous_response_id``), so
    each request carries only what is new: the call outputs of the last step.
    """
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    tools = responses_tools(assembly.tools, strict=strict)
    pending: list[ResponseInputItemParam] = [{"role": "user", "content": user_text}]
    previous: str | None = None
    for _ in range(max_turns):
        response = await client.responses.create(
            model=model,
            instructions=render_prompt(assembly),
            input=pending,
            tools=tools,
            previous_response_id=previous,
        )
        calls = calls_from_responses(response.output, agent=agent, strict_schemas=assembly.tools if strict else None)
        if not calls:
            return response.output_text
        pending = responses_outputs(await run_calls(ctx, calls))
        previous = response.id
    return ""


async def demo() -> list[str]:
    """One turn: the (scripted) model calls ``greet``, the registry runs it, the model answers."""
    from examples.scripted_api import GREET, scripted_http_client

    ctx = boot()
    ctx.tools.register(GREET)
    call = {"id": "call-1", "type": "function", "function": {"name": "greet", "arguments": '{"name": "Ada"}'}}
    replies = [_completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"),
               _completion({"role": "assistant", "content": "I greeted Ada."}, "stop")]
    client = AsyncOpenAI(api_key="offline", base_url="http://scripted.invalid/v1",
                         http_client=scripted_http_client(replies), max_retries=0)
    messages = await chat_loop(ctx, Agent(ctx, name="greeter"), client, "Please greet Ada.")
    lines = []
    for message in messages[1:]:  # the system prompt is long; the rest is the conversation
        entry: dict[str, Any] = dict(message)
        calls = entry.get("tool_calls") or []
        text = entry.get("content") or ", ".join(f"{c['function']['name']}({c['function']['arguments']})" for c in calls)
        lines.append(f"{entry['role']}: {text}")
    return lines


def _completion(message: dict[str, object], finish: str) -> dict[str, object]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "scripted",
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}]}


if __name__ == "__main__":
    import asyncio

    print("\n".join(asyncio.run(demo())))
