"""Caches keyed by agent must not keep a finished agent alive."""

from __future__ import annotations

import gc
import weakref
from typing import Any

from dsh_tools import Agent, ContentBlock, ToolExecution, ToolExecutionInput, boot


class Noop:
    name = "noop"
    description = "Nothing."
    parameters = {"type": "object"}

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return []


async def test_a_disposed_agent_that_executed_calls_can_be_collected() -> None:
    ctx = boot()
    ctx.tools.register(Noop())
    ctx.on("tools/result", lambda execution, result: None)
    agent = Agent(ctx, name="short-lived")
    agent.ctx.on("tools/pre-execute", lambda execution, next: next())
    result = await ctx.tools.execute(ToolExecutionInput("c", "noop", {}, agent=agent))
    assert not result.is_error
    assert [t.name for t in ctx.tools.visible(agent)] == ["noop"]
    await agent.dispose()
    ref = weakref.ref(agent)
    del agent, result
    gc.collect()
    assert ref() is None, "the registry or the event bus still holds the agent"

