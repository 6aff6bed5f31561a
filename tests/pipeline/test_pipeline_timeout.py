"""``TimeoutPolicy``: the reference ``tools/execute`` wrapper (budgets of at most 50 ms)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import pytest

from dsh_tools.boot import boot
from dsh_tools.content import ContentBlock, text_block
from dsh_tools.errors import ToolTimeoutError
from dsh_tools.execution import ToolErrorInfo, ToolExecution, ToolExecutionInput, ToolExecutionResult
from dsh_tools.hooks import ExecuteNext
from dsh_tools.context.context import Agent, Context
from dsh_tools.signals import AbortController, AbortSignal
from dsh_tools.timeout_policy import TimeoutPolicy
from pipeline_support import texts

TIMEOUT = ToolErrorInfo("ToolTimeoutError", "TOOL_TIMEOUT")
Body = Callable[[ToolExecution], Awaitable[Sequence[ContentBlock]]]


class Tool:
    def __init__(self, name: str, body: Body, *, timeout_ms: float | None) -> None:
        self.name = name
        self.description = f"the {name} tool"
        self.parameters: dict[str, Any] = {"type": "object"}
        self.timeout_ms = timeout_ms
        self.body = body
        self.seen: list[ToolExecution] = []

    async def execute(self, args: Any, exec: ToolExecution) -> Sequence[ContentBlock]:
        self.seen.append(exec)
        return await self.body(exec)


async def honours_signal(exec: ToolExecution) -> Sequence[ContentBlock]:
    assert exec.signal is not None
    await exec.signal.wait()
    exec.signal.throw_if_aborted()
    return [text_block("unreachable")]


async def fast(exec: ToolExecution) -> Sequence[ContentBlock]:
    return [text_block("fast")]


def call(name: str, agent: Agent | None = None, signal: AbortSignal | None = None) -> ToolExecutionInput:
    return ToolExecutionInput("c1", name, {}, agent=agent, signal=signal)


@pytest.fixture
def ctx() -> Context:
    return boot(mode="native", timeouts=True)


async def test_tool_honouring_the_signal_times_out(ctx: Context) -> None:
    tool = Tool("slow", honours_signal, timeout_ms=50)
    ctx.tools.register(tool)
    started = time.monotonic()
    result = await ctx.tools.execute(call("slow"))
    elapsed = time.monotonic() - started
    assert result.is_error
    assert result.error == TIMEOUT
    assert texts(result) == ["Error: tool call timed out after 50ms"]
    assert elapsed >= 0.04  # not before its time (timers never fire early)
    signal = tool.seen[0].signal
    assert signal is not None and signal.aborted


async def test_tool_ignoring_the_signal_is_still_stopped(ctx: Context) -> None:
    stages: list[str] = []

    async def stubborn(exec: ToolExecution) -> Sequence[ContentBlock]:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            stages.append("cancelled")
            raise
        stages.append("finished")
        return [text_block("too late")]

    ctx.tools.register(Tool("stubborn", stubborn, timeout_ms=20))
    result = await ctx.tools.execute(call("stubborn"))
    assert result.error == TIMEOUT
    assert texts(result) == ["Error: tool call timed out after 20ms"]
    assert stages == ["cancelled"]


async def test_fast_tool_passes_untouched(ctx: Context) -> None:
    tool = Tool("quick", fast, timeout_ms=50)
    ctx.tools.register(tool)
    result = await ctx.tools.execute(call("quick"))
    assert not result.is_error and result.error is None
    assert texts(result) == ["fast"]
    signal = tool.seen[0].signal
    assert signal is not None and not signal.aborted  # a deadline was armed, then disarmed


async def test_fast_failing_tool_keeps_its_own_error(ctx: Context) -> None:
    async def broken(exec: ToolExecution) -> Sequence[ContentBlock]:
        raise ValueError("own failure")

    ctx.tools.register(Tool("broken", broken, timeout_ms=50))
    result = await ctx.tools.execute(call("broken"))
    assert texts(result) == ["Error: own failure"] and result.error is None


async def test_caller_abort_is_not_reported_as_timeout(ctx: Context) -> None:
    caller = AbortController()
    tool = Tool("slow", honours_signal, timeout_ms=50)
    ctx.tools.register(tool)
    started = asyncio.Event()
    original = tool.body

    async def body(exec: ToolExecution) -> Sequence[ContentBlock]:
        started.set()
        return await original(exec)

    tool.body = body

    async def press_escape() -> None:
        await started.wait()
        caller.abort(RuntimeError("user pressed escape"))

    escape = asyncio.ensure_future(press_escape())
    result = await ctx.tools.execute(call("slow", signal=caller.signal))
    await escape
    assert result.is_error
    assert result.error != TIMEOUT
    assert texts(result) == ["Error: user pressed escape"]  # the body's own failure stands (not turned into ABORTED)
    body_signal = tool.seen[0].signal
    assert body_signal is not None and body_signal is not caller.signal  # fused with the deadline


async def test_already_aborted_caller_is_not_a_timeout(ctx: Context) -> None:
    async def polite(exec: ToolExecution) -> Sequence[ContentBlock]:
        assert exec.signal is not None
        return [text_block(f"aborted={exec.signal.aborted}")]

    tool = Tool("polite", polite, timeout_ms=50)
    ctx.tools.register(tool)
    caller = AbortController()
    caller.abort()
    result = await ctx.tools.execute(call("polite", signal=caller.signal))
    assert result.error == ToolErrorInfo("ToolAbortedError", "ABORTED_BEFORE_DISPATCH") and tool.seen == []


async def test_tools_without_budget_are_untouched(ctx: Context) -> None:
    tool = Tool("free", fast, timeout_ms=None)
    ctx.tools.register(tool)
    caller = AbortController()
    await ctx.tools.execute(call("free", signal=caller.signal))
    await ctx.tools.execute(call("free"))
    assert tool.seen[0].signal is caller.signal
    fallback = tool.seen[1].signal  # no caller signal: the registry's own, no deadline armed
    assert fallback is not None and fallback is not caller.signal and not fallback.aborted


async def test_budget_is_the_one_the_calling_agent_resolves(ctx: Context) -> None:
    global_tool = Tool("t", honours_signal, timeout_ms=40)
    shadow = Tool("t", honours_signal, timeout_ms=20)
    unbudgeted = Tool("u", fast, timeout_ms=None)
    budgeted_shadow = Tool("u", honours_signal, timeout_ms=10)
    ctx.tools.register(global_tool)
    ctx.tools.register(unbudgeted)
    agent = Agent(ctx, name="a")
    agent.ctx.tools.register(shadow)
    agent.ctx.tools.register(budgeted_shadow)
    assert texts(await ctx.tools.execute(call("t", agent=agent))) == ["Error: tool call timed out after 20ms"]
    assert texts(await ctx.tools.execute(call("t"))) == ["Error: tool call timed out after 40ms"]
    assert texts(await ctx.tools.execute(call("u", agent=agent))) == ["Error: tool call timed out after 10ms"]
    assert texts(await ctx.tools.execute(call("u"))) == ["fast"]
    assert len(unbudgeted.seen) == 1
    assert len(shadow.seen) == 1 and len(global_tool.seen) == 1


async def test_fractional_budget_prints_with_its_decimal(ctx: Context) -> None:
    ctx.tools.register(Tool("t", honours_signal, timeout_ms=2.5))
    assert texts(await ctx.tools.execute(call("t"))) == ["Error: tool call timed out after 2.5ms"]


async def test_outer_wrappers_see_the_timeout_result_and_inner_ones_the_deadline(ctx: Context) -> None:
    ctx.tools.register(Tool("t", honours_signal, timeout_ms=10))
    outer_saw: list[ToolExecutionResult] = []
    inner_saw: list[AbortSignal | None] = []

    async def outer(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        result = await next()
        outer_saw.append(result)
        return result

    async def inner(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        inner_saw.append(execution.signal)
        return await next()

    ctx.on("tools/execute", outer, prepend=True)
    ctx.on("tools/execute", inner)
    result = await ctx.tools.execute(call("t"))
    assert outer_saw == [result] and result.error == TIMEOUT
    assert inner_saw[0] is not None and inner_saw[0].aborted


async def test_timeout_is_reported_to_observers_once(ctx: Context) -> None:
    ctx.tools.register(Tool("t", honours_signal, timeout_ms=10))
    seen: list[ToolExecutionResult] = []
    ctx.on("tools/result", lambda e, r: seen.append(r))
    result = await ctx.tools.execute(call("t"))
    assert seen == [result]


async def test_policy_is_opt_out_and_tied_to_its_context() -> None:
    ctx = boot(timeouts=False)
    tool = Tool("t", fast, timeout_ms=10)
    ctx.tools.register(tool)

    async def signal_seen() -> AbortSignal | None:
        """The signal an innermost wrapper sees: the caller's (none) unless a deadline was armed."""
        seen: list[AbortSignal | None] = []

        async def probe(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
            seen.append(execution.signal)
            return await next()

        remove = ctx.on("tools/execute", probe)
        await ctx.tools.execute(call("t"))
        remove()
        return seen[0]

    assert await signal_seen() is None
    fork = ctx.fork()
    TimeoutPolicy(fork)
    assert await signal_seen() is not None
    await fork.dispose()
    assert await signal_seen() is None


def test_timeout_error_code() -> None:
    assert ToolTimeoutError("x").code == "TOOL_TIMEOUT"


async def test_a_body_that_refuses_to_stop_is_orphaned_after_the_grace_period(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 16 item 8: ``TOOL_TIMEOUT`` settles within the grace period even if the body swallows cancellation."""
    ctx = boot(timeouts=False)
    policy = TimeoutPolicy(ctx, grace_ms=20)
    stop = asyncio.Event()
    cancellations = 0

    async def stubborn(exec: ToolExecution) -> Sequence[ContentBlock]:
        nonlocal cancellations
        while not stop.is_set():
            try:
                await stop.wait()
            except asyncio.CancelledError:
                cancellations += 1  # and carry on regardless
        return [text_block("too late")]

    ctx.tools.register(Tool("stubborn", stubborn, timeout_ms=10))
    seen: list[ToolExecutionResult] = []
    ctx.on("tools/result", lambda e, r: seen.append(r))
    with caplog.at_level("WARNING", logger="dsh_tools"):
        result = await asyncio.wait_for(ctx.tools.execute(call("stubborn")), 10)
        assert result.error == TIMEOUT and seen == [result]
        assert cancellations == 1 and len(policy.orphans) == 1
        assert "orphan" in caplog.text
        (orphan,) = policy.orphans
        stop.set()
        await asyncio.wait_for(asyncio.wait([orphan]), 10)
    assert list(policy.orphans) == [], "the orphan is forgotten once it ends"
    assert "discarded" in caplog.text and seen == [result], "what the orphan returned later is not recorded"


async def test_cancelling_the_call_cancels_and_awaits_the_body_under_a_deadline(ctx: Context) -> None:
    started = asyncio.Event()
    ended: list[str] = []

    async def waits(exec: ToolExecution) -> Sequence[ContentBlock]:
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            ended.append("body")
        return []

    ctx.tools.register(Tool("w", waits, timeout_ms=60_000))
    task = asyncio.ensure_future(ctx.tools.execute(call("w")))
    await asyncio.wait_for(started.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert ended == ["body"]


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf"), "1", None])
def test_grace_ms_must_be_a_finite_non_negative_number(bad: Any) -> None:
    with pytest.raises(ValueError, match="grace_ms"):
        TimeoutPolicy(boot(timeouts=False), grace_ms=bad)
