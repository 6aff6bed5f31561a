"""API "Cancellation" and "Task cancellation reaches observers": every admitted call is recorded once."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

import pytest

from dsh_tools import (
    AbortController,
    ContentBlock,
    Deny,
    PostNext,
    PostToolDecision,
    PreNext,
    PreToolDecision,
    ToolErrorInfo,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    text_block,
)
from dsh_tools.context.context import Context
from batch_support import Gated, Log, calls, other_tasks, settle, when
from pipeline_support import Results

BEFORE = ToolErrorInfo("ToolAbortedError", "ABORTED_BEFORE_DISPATCH")
ABORTED = ToolErrorInfo("ToolAbortedError", "ABORTED")


class Body:
    """A tool whose body is a coroutine function the test supplies."""

    description = "test body"
    parameters: dict[str, Any] = {"type": "object"}

    def __init__(self, name: str, body: Any, *, safe: bool = True) -> None:
        self.name = name
        self.body = body
        self.safe = safe
        self.runs = 0

    def is_concurrency_safe(self, args: object) -> bool:
        return self.safe

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        self.runs += 1
        value: list[ContentBlock] = await self.body(exec)
        return value


@pytest.fixture
def ctx() -> Context:
    return boot(timeouts=False)


# -- the caller's signal -------------------------------------------------------


async def test_a_call_aborted_before_it_starts_reaches_neither_policy_nor_body(ctx: Context) -> None:
    log = Log()
    tool = Gated("g", log, gated=False)
    ctx.tools.register(tool)
    def pre(execution: ToolExecution, next: PreNext) -> Any:
        log("pre")
        return next()

    ctx.on("tools/pre-execute", pre)
    seen = Results(ctx)
    controller = AbortController()
    controller.abort("user pressed stop")
    result = await ctx.tools.execute(ToolExecutionInput("c", "g", {}, signal=controller.signal))
    assert result.error == BEFORE and result.is_error
    assert "user pressed stop" in result.text and '"g"' in result.text
    assert log.events == [], "no pre-execute, no body"
    assert [r for _, r in seen.seen] == [result]


async def test_a_signal_aborted_while_policy_runs_stops_the_call_before_dispatch(ctx: Context) -> None:
    log = Log()
    ctx.tools.register(Gated("g", log, gated=False))
    controller = AbortController()

    async def pre(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        controller.abort()
        return await next()

    ctx.on("tools/pre-execute", pre)
    result = await ctx.tools.execute(ToolExecutionInput("c", "g", {}, signal=controller.signal))
    assert result.error == BEFORE and "start:c" not in log.events


async def test_a_denial_stays_a_denial_when_the_signal_aborts_meanwhile(ctx: Context) -> None:
    ctx.tools.register(Gated("g", Log(), gated=False))
    controller = AbortController()

    def deny(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        controller.abort()
        return Deny("not today")

    ctx.on("tools/pre-execute", deny)
    result = await ctx.tools.execute(ToolExecutionInput("c", "g", {}, signal=controller.signal))
    assert result.text == "Error: not today" and result.error is None


async def test_a_success_whose_signal_aborted_while_the_body_ran_becomes_aborted(ctx: Context) -> None:
    controller = AbortController()

    async def finishes_anyway(exec: ToolExecution) -> list[ContentBlock]:
        controller.abort("stop")
        return [text_block("done")]

    ctx.tools.register(Body("b", finishes_anyway))
    seen = Results(ctx)
    result = await ctx.tools.execute(ToolExecutionInput("c", "b", {}, signal=controller.signal))
    assert result.error == ABORTED and "stop" in result.text
    assert [r for _, r in seen.seen] == [result]


async def test_a_failure_whose_signal_aborted_while_the_body_ran_keeps_its_own_error(ctx: Context) -> None:
    controller = AbortController()

    async def fails(exec: ToolExecution) -> list[ContentBlock]:
        controller.abort()
        raise ValueError("disk full")

    ctx.tools.register(Body("b", fails))
    result = await ctx.tools.execute(ToolExecutionInput("c", "b", {}, signal=controller.signal))
    assert result.text == "Error: disk full" and result.error is None


async def test_a_timeout_stays_a_timeout_when_the_caller_aborts_afterwards() -> None:
    ctx = boot()
    controller = AbortController()

    async def slow(exec: ToolExecution) -> list[ContentBlock]:
        assert exec.signal is not None
        await exec.signal.wait()
        controller.abort()  # the caller gives up too, after the deadline
        exec.signal.throw_if_aborted()
        return []

    tool = Body("slow", slow)
    tool.timeout_ms = 5  # type: ignore[attr-defined]
    ctx.tools.register(tool)
    result = await settle(ctx.tools.execute(ToolExecutionInput("c", "slow", {}, signal=controller.signal)))
    assert result.error == ToolErrorInfo("ToolTimeoutError", "TOOL_TIMEOUT")


async def test_every_body_gets_a_signal(ctx: Context) -> None:
    seen: list[object] = []

    async def body(exec: ToolExecution) -> list[ContentBlock]:
        seen.append(exec.signal)
        return []

    ctx.tools.register(Body("b", body))
    await ctx.tools.execute(ToolExecutionInput("c", "b", {}))
    await ctx.tools.execute_batch([ToolExecutionInput("d", "b", {})])
    assert all(signal is not None for signal in seen) and len(seen) == 2


# -- cancelling the task that awaits execute() -------------------------------------


async def cancelled_once(call: Awaitable[object], reached: asyncio.Event) -> None:
    """Run ``call`` in a task, cancel that task once ``reached`` is set, and expect ``CancelledError``."""
    task = asyncio.ensure_future(call)
    await when(reached)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task



async def test_cancelling_execute_cancels_and_awaits_the_body_records_aborted_then_raises(ctx: Context) -> None:
    started = asyncio.Event()
    cleaned_up: list[str] = []

    async def body(exec: ToolExecution) -> list[ContentBlock]:
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            cleaned_up.append("body")
        return []

    ctx.tools.register(Body("b", body))
    seen = Results(ctx)
    await cancelled_once(ctx.tools.execute(ToolExecutionInput("c", "b", {})), started)
    assert cleaned_up == ["body"], "the body was cancelled and awaited before execute gave up"
    ((_, result),) = seen.seen
    assert result.error == ABORTED and "cancelled" in result.text


@pytest.mark.parametrize("how", ["execute", "exclusive batch", "parallel batch"])
async def test_a_cancelled_call_aborts_the_signal_its_body_was_given(ctx: Context, how: str) -> None:
    """Without a caller's signal the body gets the registry's own; cancelling the call aborts it, however the call runs."""
    started = asyncio.Event()
    heard: list[object] = []

    async def watcher(exec: ToolExecution) -> list[ContentBlock]:
        assert exec.signal is not None
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            heard.append(exec.signal.aborted and exec.signal.reason)
        return []

    ctx.tools.register(Body("w", watcher, safe=how == "parallel batch"))
    call = ToolExecutionInput("c", "w", {})
    run = ctx.tools.execute(call) if how == "execute" else ctx.tools.execute_batch([call])
    await cancelled_once(run, started)
    assert heard == ["the caller's task was cancelled"]


async def test_a_body_that_swallows_the_cancellation_is_awaited_and_still_recorded_aborted(ctx: Context) -> None:
    started = asyncio.Event()

    async def stubborn(exec: ToolExecution) -> list[ContentBlock]:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            pass  # finishes "successfully"
        return [text_block("done anyway")]

    ctx.tools.register(Body("b", stubborn))
    seen = Results(ctx)
    await cancelled_once(ctx.tools.execute(ToolExecutionInput("c", "b", {})), started)
    ((_, result),) = seen.seen
    assert result.error == ABORTED


async def test_cancelling_during_pre_execute_records_aborted_before_dispatch(ctx: Context) -> None:
    log = Log()
    ctx.tools.register(Gated("g", log, gated=False))
    waiting = asyncio.Event()

    async def pre(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        waiting.set()
        await asyncio.Event().wait()
        return await next()

    ctx.on("tools/pre-execute", pre)
    seen = Results(ctx)
    await cancelled_once(ctx.tools.execute(ToolExecutionInput("c", "g", {})), waiting)
    ((_, result),) = seen.seen
    assert result.error == BEFORE and "start:c" not in log.events


async def test_cancelling_during_post_execute_records_aborted(ctx: Context) -> None:
    ctx.tools.register(Gated("g", Log(), gated=False))
    waiting = asyncio.Event()

    async def post(execution: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        waiting.set()
        await asyncio.Event().wait()
        return await next()

    ctx.on("tools/post-execute", post)
    seen = Results(ctx)
    await cancelled_once(ctx.tools.execute(ToolExecutionInput("c", "g", {})), waiting)
    ((_, result),) = seen.seen
    assert result.error == ABORTED


async def test_cancelling_during_an_observer_still_tells_the_later_observers(ctx: Context) -> None:
    ctx.tools.register(Gated("g", Log(), gated=False))
    waiting = asyncio.Event()
    heard: list[str] = []

    async def slow_observer(execution: ToolExecution, result: ToolExecutionResult) -> None:
        heard.append("slow")
        waiting.set()
        await asyncio.Event().wait()

    ctx.on("tools/result", slow_observer)
    ctx.on("tools/result", lambda e, r: heard.append("later"))
    await cancelled_once(ctx.tools.execute(ToolExecutionInput("c", "g", {})), waiting)
    assert heard == ["slow", "later"]


async def test_a_cancellation_swallowed_before_the_call_does_not_count_against_it(ctx: Context) -> None:
    """A stray ``CancelledError`` from a body is contained even in a task cancelled (and recovered) earlier."""

    async def stray(exec: ToolExecution) -> list[ContentBlock]:
        raise asyncio.CancelledError

    ctx.tools.register(Body("b", stray))

    ready = asyncio.Event()

    async def caller() -> ToolExecutionResult:
        try:
            ready.set()
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            pass  # recovered, without uncancel(): cancelling() stays 1
        return await ctx.tools.execute(ToolExecutionInput("c", "b", {}))

    task = asyncio.ensure_future(caller())
    await when(ready)
    task.cancel()
    result = await settle(task)
    assert result.is_error and result.text == "Error: CancelledError"


# -- batches -----------------------------------------------------------------------


async def test_cancelling_a_batch_records_every_started_call_and_leaves_no_task(ctx: Context) -> None:
    log = Log()
    tool = Gated("g", log)
    ctx.tools.register(tool)
    seen = Results(ctx)
    before = other_tasks()
    task = asyncio.ensure_future(ctx.tools.execute_batch(calls("g", 5), max_parallel=3))
    for call_id in ("c0", "c1", "c2"):
        await when(tool.started_event(call_id))
    tool.release("c1")  # finished, but not recorded yet: c0 is still running
    await when(tool.ended_event("c1"))
    await when(tool.started_event("c3"))  # its slot went to c3
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    recorded = {e.call_id: r for e, r in seen.seen}
    assert list(recorded) == ["c0", "c1", "c2", "c3"], "one result per admitted call, in order; c4 never started"
    assert [recorded[c].error for c in ("c0", "c2", "c3")] == [ABORTED] * 3
    assert not recorded["c1"].is_error, "a call that had finished keeps its result"
    assert tool.active == 0 and log.events.count("end:c0") == 1, "running bodies were cancelled and awaited"
    assert other_tasks() - before == set(), "no task outlives the batch"


async def test_an_abort_mid_batch_drains_started_calls_in_order_and_settles_the_rest_before_dispatch(
    ctx: Context,
) -> None:
    log = Log()
    tool = Gated("g", log)
    ctx.tools.register(tool)
    controller = AbortController()
    batch = calls("g", 5, signal=controller.signal)
    task = asyncio.ensure_future(ctx.tools.execute_batch(batch, max_parallel=2))
    await when(tool.started_event("c0"))
    await when(tool.started_event("c1"))
    controller.abort("user pressed stop")
    tool.release("c0")
    tool.release("c1")
    results = await settle(task)
    assert [r.call_id for r in results] == ["c0", "c1", "c2", "c3", "c4"]
    assert [r.error for r in results[:2]] == [ABORTED, ABORTED], "started: drained, success turned ABORTED"
    assert [r.error for r in results[2:]] == [BEFORE] * 3
    assert not any(e.startswith("start:c2") for e in log.events)


async def test_an_abort_mid_batch_lets_started_bodies_finish_as_they_choose(ctx: Context) -> None:
    controller = AbortController()
    started = asyncio.Event()

    async def polite(exec: ToolExecution) -> list[ContentBlock]:
        started.set()
        assert exec.signal is not None
        await exec.signal.wait()
        raise RuntimeError("stopped early")

    ctx.tools.register(Body("p", polite))
    task = asyncio.ensure_future(
        ctx.tools.execute_batch([ToolExecutionInput("a", "p", {}, signal=controller.signal)])
    )
    await when(started)
    controller.abort()
    (result,) = await settle(task)
    assert result.text == "Error: stopped early", "a failure keeps its own error"
