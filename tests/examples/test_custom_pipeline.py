"""The documented custom pipeline (examples/custom_pipeline.py) behaves as documented."""

from __future__ import annotations

import gc
import weakref
from typing import Any

from dsh_tools import (
    Agent,
    Allow,
    Ask,
    ContentBlock,
    PreNext,
    PreToolDecision,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    text_block,
)
from examples.custom_pipeline import execute_unattended, unattended_gates


class Hello:
    name = "hello"
    description = "Say hello."
    parameters = {"type": "object"}

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return [text_block("hello")]


async def test_the_batch_pipeline_denies_asks_and_enforces_a_call_budget() -> None:
    ctx = boot()
    ctx.tools.register(Hello())
    agent = Agent(ctx, name="batch")
    seen: list[ToolExecutionResult] = []
    ctx.on("tools/result", lambda execution, result: seen.append(result))
    gates = unattended_gates(limit=2)

    def ask_for_secret(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        return Ask("needs a human") if execution.call_id == "ask" else Allow()

    ctx.on("tools/pre-execute", ask_for_secret)
    first = await execute_unattended(ctx.tools, ToolExecutionInput("1", "hello", {}, agent=agent), gates)
    asked = await execute_unattended(ctx.tools, ToolExecutionInput("ask", "hello", {}, agent=agent), gates)
    second = await execute_unattended(ctx.tools, ToolExecutionInput("2", "hello", {}, agent=agent), gates)
    third = await execute_unattended(ctx.tools, ToolExecutionInput("3", "hello", {}, agent=agent), gates)

    assert first.text == "hello" and second.text == "hello"
    assert asked.is_error and asked.text == "Error: needs a human"
    assert third.is_error and third.text == "Error: call budget of 2 spent"
    assert [r.call_id for r in seen] == ["1", "ask", "2", "3"], "observers still see every call once"


async def test_the_budget_counts_calls_without_an_agent_too() -> None:
    ctx = boot()
    ctx.tools.register(Hello())
    gates = unattended_gates(limit=1)
    first = await execute_unattended(ctx.tools, ToolExecutionInput("1", "hello", {}), gates)
    second = await execute_unattended(ctx.tools, ToolExecutionInput("2", "hello", {}), gates)
    assert not first.is_error
    assert second.is_error and second.text == "Error: call budget of 1 spent"


async def test_the_budget_does_not_keep_a_finished_agent_alive() -> None:
    ctx = boot()
    ctx.tools.register(Hello())
    gates = unattended_gates(limit=5)
    agent = Agent(ctx, name="short-lived")
    result = await execute_unattended(ctx.tools, ToolExecutionInput("1", "hello", {}, agent=agent), gates)
    assert not result.is_error
    await agent.dispose()
    ref = weakref.ref(agent)
    del agent, result
    gc.collect()
    assert ref() is None, "the call budget still holds the agent"
    other = Agent(ctx, name="fresh")  # a new agent starts with a fresh budget
    assert not (await execute_unattended(ctx.tools, ToolExecutionInput("2", "hello", {}, agent=other), gates)).is_error
