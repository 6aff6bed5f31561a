"""The registry in an Anthropic Messages agent loop, typed end to end.

Assemble the prompt for the agent, send it with the tools, run the reply's
``tool_use`` blocks through the registry's pipeline, answer them all in one
``tool_result`` user message, and repeat until the model stops asking.
Everything the adapter returns goes straight into ``client.messages.create``;
``mypy --strict`` checks it against the SDK's own types, with no cast.

The tests run it against the real ``AsyncAnthropic`` client over a mock HTTP
transport (no network).
"""

from __future__ import annotations

from anthropic import AsyncAnthropic
from anthropic.types import MessageParam

from dsh_tools import Agent, AssembleContext, Context, render_prompt
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
