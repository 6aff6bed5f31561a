"""API "Two earlier rules, settled": a caller's cancellation never waits on a body without bound.

A body that swallows ``CancelledError`` (or a thread that cannot be stopped)
gets the registry's ``cancel_grace_ms``; past it the body is orphaned
(``ctx.tools.orphans``: logged, counted), the call settles ``ABORTED`` and is
recorded, and the cancellation reaches the caller. With or without a
``timeout_ms``, through ``execute()`` and ``execute_batch()`` alike.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

import pytest

from dsh_tools import ContentBlock, ToolErrorInfo, ToolExecution, ToolExecutionInput, ToolExecutionResult, boot, text_block, tool

ABORTED = ToolErrorInfo("ToolAbortedError", "ABORTED")
SAFETY_NET_S = 20.0
"""Only a safety net against a hang: the call settles after the grace period (10 ms here)."""


class Stubborn:
    """A tool whose body catches every cancellation and carries on until ``stop`` is set."""

    description = "ignores cancellation"
    parameters: dict[str, Any] = {"type": "object"}

    def __init__(self, timeout_ms: float | None) -> None:
        self.name = "stubborn"
        self.timeout_ms = timeout_ms
        self.started = asyncio.Event()
        self.stop = asyncio.Event()
        self.cancellations = 0

    async def execute(self, args: Any, exec: ToolExecution) -> Sequence[ContentBlock]:
        self.started.set()
        while not self.stop.is_set():
            try:
                await self.stop.wait()
            except asyncio.CancelledError:
                self.cancellations += 1  # and carry on regardless
        return [text_block("too late")]


@pytest.mark.parametrize("timeout_ms", [None, 60_000], ids=["no-timeout", "timeout_ms"])
@pytest.mark.parametrize("batch", [False, True], ids=["execute", "execute_batch"])
async def test_cancelling_a_call_whose_body_ignores_it_settles_aborted_after_the_grace(
    timeout_ms: float | None, batch: bool, caplog: pytest.LogCaptureFixture
) -> None:
    # issue 24 #4: the timeout policy (and the plain pipeline) waited for such a body with no deadline.
    ctx = boot(cancel_grace_ms=10)
    body = Stubborn(timeout_ms)
    ctx.tools.register(body)
    seen: list[ToolExecutionResult] = []
    ctx.on("tools/result", lambda e, r: seen.append(r))
    call = ToolExecutionInput("c1", "stubborn", {})
    pending = asyncio.ensure_future(ctx.tools.execute_batch([call]) if batch else ctx.tools.execute(call))
    await body.started.wait()
    with caplog.at_level("WARNING", logger="dsh_tools"):
        pending.cancel()
        done, _ = await asyncio.wait({pending}, timeout=SAFETY_NET_S)
        if pending not in done:
            body.stop.set()  # let the test end instead of hanging its teardown
            pytest.fail("the cancelled call waited on a body that ignores cancellation")
        assert pending.cancelled(), "the cancellation reaches the caller"
        assert [r.error for r in seen] == [ABORTED], "the call is recorded once, ABORTED"
        assert body.cancellations >= 1
        orphans = ctx.tools.orphans
        assert orphans.count == 1 and len(orphans.running) == 1
        assert "ignored cancellation" in caplog.text and "orphan" in caplog.text
        body.stop.set()
        await asyncio.wait(orphans.running, timeout=SAFETY_NET_S)
    after = ctx.tools.orphans
    assert after.running == () and after.count == 1
    assert "discarded" in caplog.text and len(seen) == 1, "what the orphan returned later is not recorded"


async def test_a_cancelled_sync_body_is_orphaned_instead_of_awaited() -> None:
    # A thread cannot be stopped: the call used to wait for it to return, however long.
    ctx = boot(cancel_grace_ms=10)
    entered, release = threading.Event(), threading.Event()

    @tool
    def blocking() -> str:
        """Blocks until released."""
        entered.set()
        release.wait(SAFETY_NET_S)
        return "late"

    ctx.tools.register(blocking)
    pending = asyncio.ensure_future(ctx.tools.execute(ToolExecutionInput("c1", "blocking", {})))
    await asyncio.to_thread(entered.wait, SAFETY_NET_S)
    pending.cancel()
    done, _ = await asyncio.wait({pending}, timeout=SAFETY_NET_S)
    release.set()
    assert pending in done and pending.cancelled()
    assert ctx.tools.orphans.count == 1
    await asyncio.wait(ctx.tools.orphans.running, timeout=SAFETY_NET_S)


def test_cancel_grace_ms_is_checked() -> None:
    with pytest.raises(ValueError, match="cancel_grace_ms"):
        boot(cancel_grace_ms=-1)
