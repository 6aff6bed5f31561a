"""A cancellation requested but not yet delivered when ``execute()`` is entered is aimed at the call.

``CallerScope`` takes a task's pending cancellation count as its baseline, so
a cancellation the task *swallowed* before the call does not count against
it. One that was requested and not delivered yet (the task cancelled itself,
or a listener run just before did, and it will be thrown at the next
``await``) is a different thing: it is the next thing the task meets, the
call. Taken for a swallowed one, it was contained as a participant's stray
``CancelledError``: the call settled ``Error: CancelledError`` (no abort
code), ``execute()`` returned as if nothing had been asked, and the body's
task was neither cancelled nor orphaned, so it ran on and finished after its
call had settled. It must go as any cancellation of the caller does: the
body cancelled, one ``ABORTED`` result heard, then ``CancelledError``.
"""

from __future__ import annotations

import asyncio

import pytest

from dsh_tools import ToolExecutionInput, ToolExecutionResult, boot, tool


async def test_a_cancellation_pending_when_execute_is_entered_cancels_the_call_and_its_body() -> None:
    ctx = boot()
    started = asyncio.Event()
    stopped: list[str] = []

    @tool
    async def slow() -> str:
        """Wait until cancelled."""
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            stopped.append("cancelled")
            raise
        return "done"

    ctx.tools.register(slow)
    heard: list[ToolExecutionResult] = []
    ctx.on("tools/result", lambda execution, result: heard.append(result))

    async def caller() -> ToolExecutionResult:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()  # delivered at the next await: inside the call
        return await ctx.tools.execute(ToolExecutionInput("c1", "slow", {}))

    with pytest.raises(asyncio.CancelledError):
        await asyncio.create_task(caller())
    (result,) = heard
    assert result.error is not None and result.error.code in ("ABORTED", "ABORTED_BEFORE_DISPATCH")
    assert stopped == ["cancelled"] if started.is_set() else stopped == []  # stopped, or never started
    assert ctx.tools.orphans.count == 0


async def test_a_cancellation_swallowed_before_execute_still_does_not_count_against_the_call() -> None:
    ctx = boot()

    @tool
    async def quick() -> str:
        """Answer at once."""
        await asyncio.sleep(0)
        return "ok"

    ctx.tools.register(quick)

    async def caller() -> ToolExecutionResult:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        try:
            await asyncio.sleep(0)
        except asyncio.CancelledError:
            pass  # swallowed (without uncancel): the count stays at one
        return await ctx.tools.execute(ToolExecutionInput("c1", "quick", {}))

    assert (await asyncio.create_task(caller())).text == "ok"
