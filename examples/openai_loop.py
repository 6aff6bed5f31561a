"""Wiring the registry into an OpenAI-style chat completions loop (shapes only).

``chat_loop`` is the whole agent loop: assemble the prompt for the agent, send
messages + tools to the model, run each returned tool call through the
registry's pipeline (sequentially), append the ``role: tool`` messages, then
any ``additional_context`` the post-execute listeners attached, and repeat
until the model answers without tool calls. ``model`` is any async function
with the chat completions request/response shapes; tests pass a scripted one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from dsh_tools import Agent, AssembleContext, Context, render_prompt
from dsh_tools.adapters.openai import openai_tools, tool_call_inputs, tool_message
from dsh_tools.execution import content_text

Message = dict[str, Any]
Model = Callable[[list[Message], list[dict[str, Any]]], Awaitable[Message]]


async def chat_loop(ctx: Context, agent: Agent, model: Model, user_text: str, *, max_turns: int = 8) -> list[Message]:
    """Run one user turn to completion; returns the whole message list."""
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    messages: list[Message] = [
        {"role": "system", "content": render_prompt(assembly)},
        {"role": "user", "content": user_text},
    ]
    tools = openai_tools(assembly.tools)
    for _ in range(max_turns):
        reply = await model(messages, tools)
        messages.append(reply)
        calls = tool_call_inputs(reply, agent)
        if not calls:
            return messages
        context_notes: list[Message] = []
        for call in calls:  # one at a time: tools declare no concurrency safety yet
            result = await ctx.tools.execute(call)
            messages.append(tool_message(result))
            if result.additional_context is not None:
                note = content_text(result.additional_context.content)
                context_notes.append({"role": "user", "content": f"[context] {note}"})
        messages.extend(context_notes)  # after every tool message, keeping call/result adjacency
    return messages
