"""The registry in an Anthropic Messages agent loop, typed end to end.

Assemble the prompt for the agent, send it with the tools, run the reply's
``tool_use`` blocks through the registry's pipeline, answer them all in one
``tool_result`` user message, and repeat until the model stops asking.
Everything the adapter returns goes straight into ``client.messages.create``;
``mypy --strict`` checks it against the SDK's own types, with no cast.

The tests run it against the real ``AsyncAnthropic`` client over a mock HTTP
transport (no network). ``python -m examples.anthropic_loop`` plays one turn
against a scripted stand-in for the API (:mod:`examples.scripted_api`) and
prints the conversation.
"""

from __future__ import annotations

from typing import Any

from anthropic import AsyncAnthropic
from anthropic.types import MessageParam

from dsh_tools import Agent, AssembleContext, Context, boot, render_prompt
from dsh_tools.adapters.anthropic import anthropic_tools, calls_from_message, tool_result_message
from examples.openai_loop import run_calls

__all__ = ["messages_loop"]


async def messages_loop(
    ctx: Context,
    agent: Agent,
    client: AsyncAnthropic,
    user_text: str,
    *,
    model: str = "claude-sonnet-4-5",
    max_tokens: int = 4096,
    max_turns: int = 8,
) -> list[MessageParam]:
    """Run one user turn to completion; returns the whole message list."""
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    tools = anthropic_tools(assembly.tools)
    messages: list[MessageParam] = [{"role": "user", "content": user_text}]
    for _ in range(max_turns):
        reply = await client.messages.create(
            model=model,
            max_tokens=max_tokens,
            system=render_prompt(assembly),
            messages=messages,
            tools=tools,
        )
        messages.append(reply.to_param())
        calls = calls_from_message(reply, agent=agent)
        if not calls:  # end_turn, a refusal, or a stop without calls
            break
        messages.append(tool_result_message(await run_calls(ctx, calls)))
    return messages


async def demo() -> list[str]:
    """One turn: the (scripted) model calls ``greet``, the registry runs it, the model answers."""
    from examples.scripted_api import GREET, scripted_http_client

    ctx = boot()
    ctx.tools.register(GREET)
    use: dict[str, object] = {"type": "tool_use", "id": "toolu_1", "name": "greet", "input": {"name": "Ada"}}
    replies = [_message([use], "tool_use"), _message([{"type": "text", "text": "I greeted Ada."}], "end_turn")]
    client = AsyncAnthropic(api_key="offline", base_url="http://scripted.invalid",
                            http_client=scripted_http_client(replies), max_retries=0)
    lines = []
    for message in await messages_loop(ctx, Agent(ctx, name="greeter"), client, "Please greet Ada."):
        content: Any = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        parts = []
        for block in blocks:
            entry: dict[str, Any] = dict(block)
            if entry["type"] == "text":
                parts.append(entry["text"])
            elif entry["type"] == "tool_use":
                parts.append(f"{entry['name']}({entry['input']})")
            elif entry["type"] == "tool_result":
                parts.append(" ".join(str(item.get("text", "")) for item in entry.get("content", [])))
        lines.append(f"{message['role']}: {' '.join(parts)}")
    return lines


def _message(content: list[dict[str, object]], stop: str) -> dict[str, object]:
    return {"id": "msg-1", "type": "message", "role": "assistant", "model": "scripted", "content": content,
            "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}


if __name__ == "__main__":
    import asyncio

    print("\n".join(asyncio.run(demo())))
