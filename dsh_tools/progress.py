"""Progress from a running tool body: ``await exec.report_progress(...)`` → ``tools/progress``.

A long tool (a build, a crawl, a migration) tells whoever watches how far it
got: ``await exec.report_progress(3, total=10, message="compiling")``. Each
report becomes a :class:`ToolProgress` event on ``tools/progress`` (listeners
``(exec, progress) -> None``, sync or async, observe-only, failures logged and
contained, scoped like ``tools/result``), and reaches the tracing span, an MCP
client that asked for progress (``serve_mcp``), and anything else listening.

Three rules keep it cheap and truthful:

* **Rate-limited.** A report within :data:`MIN_INTERVAL_MS` of the last one
  delivered is dropped, unless it completes the work (``progress >= total``)
  and no other completing report went past the limit within that interval:
  a body may report in a tight loop without flooding a UI or a transport,
  and one that reports "i of i" over and over is limited like any other.
* **A flood yields.** A dropped report costs next to nothing, but a body that
  reports a million times without awaiting anything else would hold the event
  loop; every :data:`YIELD_EVERY`-th dropped report lets the loop run.
* **Never after the call settles.** The channel is the call's plan, reached
  through the execution's token from admission until the call settles; a
  report before dispatch starts or after the call settled (a body orphaned
  past its timeout, a task it left behind) is silently dropped, so no
  listener hears of a call after its result.

Reports are awaited: when ``report_progress`` returns, every listener has
heard it (a slow listener slows the body that reports, never the other way).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Final

from dsh_tools.awaitables import is_awaitable
from dsh_tools.execution import ToolExecution, ToolProgress

if TYPE_CHECKING:
    from dsh_tools.pipeline.plan import CallPlan

__all__ = ["EVENT", "MIN_INTERVAL_MS", "YIELD_EVERY", "ToolProgress", "deliver"]

EVENT: Final = "tools/progress"
MIN_INTERVAL_MS: Final = 100.0
"""Reports closer together than this (to the last one delivered) are dropped, unless they complete the work."""
YIELD_EVERY: Final = 64
"""Every this many dropped reports, the reporting body yields to the event loop once."""

clock: Callable[[], float] = time.monotonic
"""Seconds, for the rate limit (a test replaces it with a fake clock)."""


def deliver(
    plan: CallPlan, execution: ToolExecution, progress: float, total: float | None, message: str | None
) -> Awaitable[None] | None:
    """Deliver one checked report of ``plan``'s call, or drop it (see the module docstring)."""
    state = plan.state
    dispatched = state.dispatched
    if dispatched is None:
        return None
    now = clock()
    last = state.last_report
    if last is not None and now - last < MIN_INTERVAL_MS / 1000:
        completes = total is not None and progress >= total
        if not completes or state.completed_at is not None and now - state.completed_at < MIN_INTERVAL_MS / 1000:
            state.dropped += 1
            return asyncio.sleep(0) if state.dropped % YIELD_EVERY == 0 else None
        state.completed_at = now
    state.last_report = now
    record = ToolProgress(dispatched.call_id, progress, total, message)
    plan.tell_progress(dispatched, record)
    if not plan.progress:
        return None
    return _tell(plan, dispatched, record)


async def _tell(plan: CallPlan, dispatched: ToolExecution, record: ToolProgress) -> None:
    state = plan.state
    for listener in plan.progress:
        if state.dispatched is not dispatched:
            return  # the call settled while an async listener ran
        try:
            pending = listener(dispatched, record)
            if is_awaitable(pending):
                await pending
        except Exception as error:  # noqa: BLE001 - observe-only: contain and report
            # Imported here: the pipeline package imports this module (through its plan), not the other way.
            from dsh_tools.pipeline.outcomes import report_failure

            report_failure(plan.logger, f"{EVENT} listener", listener, error)
