"""API.md "Timeout policy" and its details paragraph."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from dsh_tools import (
    AbortController,
    AbortSignal,
    Agent,
    ContentBlock,
    Context,
    SystemPrompt,
    TimeoutPolicy,
    ToolErrorInfo,
    ToolExecution,
    ToolRegistry,
    boot,
    text_block,
)

from contract_support import call, text_of


class Sleeper:
    description = "Sleeps."
    parameters: Mapping[str, Any] = {"type": "object"}

    def __init__(self, name: str = "sleep", timeout_ms: float | None = None, sleep_s: float = 5.0) -> None:
        self.name = name
        self.timeout_ms = timeout_ms
        self.sleep_s = sleep_s
        self.signals: list[AbortSignal | None] = []

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        self.signals.append(exec.signal)
        if exec.signal is not None:
            try:
                await asyncio.wait_for(exec.signal.wait(), self.sleep_s)
            except TimeoutError:
                pass
        else:
            await asyncio.sleep(self.sleep_s)
        return [text_block("slept")]


async def test_timeout_result_shape_and_text() -> None:
    ctx = boot()
    ctx.tools.register(Sleeper(timeout_ms=100))
    result = await call(ctx, "sleep", {})
    assert result.is_error
    assert result.error == ToolErrorInfo("ToolTimeoutError", "TOOL_TIMEOUT")
    assert text_of(result) == "Error: tool call timed out after 100ms"


async def test_fractional_ms_printed_as_is() -> None:
    ctx = boot()
    ctx.tools.register(Sleeper(timeout_ms=2.5))
    assert text_of(await call(ctx, "sleep", {})) == "Error: tool call timed out after 2.5ms"
    ctx.tools.register(Sleeper(name="whole", timeout_ms=20.0))
    assert text_of(await call(ctx, "whole", {})) == "Error: tool call timed out after 20ms"


async def test_deadline_fused_with_caller_signal_and_passed_down() -> None:
    ctx = boot()
    tool = Sleeper(timeout_ms=5_000, sleep_s=5.0)
    ctx.tools.register(tool)
    caller = AbortController()
    task = asyncio.ensure_future(call(ctx, "sleep", {}, signal=caller.signal))
    await asyncio.sleep(0.02)
    (inner,) = tool.signals
    assert inner is not None and inner is not caller.signal
    before = inner.aborted
    caller.abort("user stop")
    result = await asyncio.wait_for(task, 2)
    assert not before and inner.aborted
    assert not (result.error is not None and result.error.code == "TOOL_TIMEOUT")


async def test_tools_without_budget_pass_untouched() -> None:
    ctx = boot()
    tool = Sleeper(timeout_ms=None, sleep_s=0.01)
    ctx.tools.register(tool)
    caller = AbortController().signal
    result = await call(ctx, "sleep", {}, signal=caller)
    assert not result.is_error and tool.signals == [caller]


async def test_budget_is_the_one_the_calling_agent_resolves() -> None:
    ctx = boot()
    ctx.tools.register(Sleeper(timeout_ms=5_000, sleep_s=0.3))
    agent = Agent(ctx, name="a")
    agent.ctx.tools.register(Sleeper(timeout_ms=30, sleep_s=0.3))
    scoped = await call(ctx, "sleep", {}, agent=agent)
    assert text_of(scoped) == "Error: tool call timed out after 30ms"
    plain = await call(ctx, "sleep", {})
    assert not plain.is_error


async def test_boot_timeouts_default_true_and_false_disables() -> None:
    ctx = boot(timeouts=False)
    ctx.tools.register(Sleeper(timeout_ms=10, sleep_s=0.05))
    assert not (await call(ctx, "sleep", {})).is_error


async def test_timeout_policy_tied_to_ctx_lifetime() -> None:
    root = Context()
    SystemPrompt(root)
    ToolRegistry(root)
    fork = root.fork()
    TimeoutPolicy(fork)
    root.tools.register(Sleeper(timeout_ms=10, sleep_s=0.05))
    assert (await call(root, "sleep", {})).is_error
    await fork.dispose()
    assert not (await call(root, "sleep", {})).is_error
