"""Progress from a running tool body: ``await exec.report_progress(...)`` → ``tools/progress``.

A long tool (a build, a crawl, a migration) tells whoever watches how far it
got: ``await exec.report_progress(3, total=10, message="compiling")``. Each
report becomes a :class:`ToolProgress` event on ``tools/progress`` (listeners
``(exec, progress) -> None``, sync or async, observe-only, failures logged and
contained, scoped like ``tools/result``), and reaches the tracing span, an MCP
client that asked for progress (``serve_mcp``), and anything else listening.

Two rules keep it cheap and truthful:

* **Rate-limited.** A report within :data:`MIN_INTERVAL_MS` of the last one
  delivered is dropped, unless it completes the work (``progress == total``):
  a body may report in a tight loop without flooding a UI or a transport.
* **Never after the call settles.** The channel opens when dispatch starts and
  closes when dispatch returns; a report after that (a body orphaned past its
  timeout, a task it left behind) is silently dropped, so no listener hears
  of a call after its result.

The channel is the dispatch's own plan
(:class:`~dsh_tools.pipeline.DispatchProgress`), found through the
execution's token (which every ``exec.set(signal=...)`` copy shares), so the
body needs nothing but ``exec``.
Reports are awaited: when ``report_progress`` returns, every listener has
heard it (a slow listener slows the body that reports, never the other way).
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Callable
from typing import Final

from dsh_tools.execution import ToolExecution
from dsh_tools.pipeline.dispatch import dispatching
from dsh_tools.pipeline.outcomes import report_failure
from dsh_tools.record import Record

__all__ = ["EVENT", "MIN_INTERVAL_MS", "ToolProgress", "report_progress"]

EVENT: Final = "tools/progress"
MIN_INTERVAL_MS: Final = 100.0
"""Reports closer together than this (to the last one delivered) are dropped, unless they complete the work."""

clock: Callable[[], float] = time.monotonic
"""Seconds, for the rate limit (a test replaces it with a fake clock)."""


class ToolProgress(Record):
    """How far a running call got: ``progress`` of ``total`` (when known), with an optional message."""

    call_id: str
    progress: float
    total: float | None = None
    message: str | None = None


def _number(value: object, name: str) -> float:
    if type(value) not in (int, float) or not math.isfinite(value):  # type: ignore[arg-type]
        raise ValueError(f"report_progress: {name} must be a finite number, got {type(value).__name__}")
    return value  # type: ignore[return-value]


async def report_progress(
    execution: ToolExecution, progress: float, total: float | None = None, message: str | None = None
) -> None:
    """Deliver one report of ``execution``'s call (see the module docstring); ``ValueError`` for junk."""
    value = _number(progress, "progress")
    whole = None if total is None else _number(total, "total")
    if message is not None and type(message) is not str:
        raise ValueError(f"report_progress: message must be a str, got {type(message).__name__}")
    channel = dispatching(execution)
    if channel is None or channel.host is None or channel.execution is None:  # (dispatch sets both before it opens)
        return  # not dispatched yet, or already settled
    now = clock()
    completes = whole is not None and value >= whole
    last = channel.last_report
    if last is not None and now - last < MIN_INTERVAL_MS / 1000 and not completes:
        return
    channel.last_report = now
    dispatched, host = channel.execution, channel.host
    record = ToolProgress(dispatched.call_id, value, whole, message)
    for probe in host.events.hearing["progressed"]:
        probe.progressed(dispatched, record)
    for listener in host.events.listeners(EVENT, dispatched.agent):
        if dispatching(execution) is not channel:
            return  # the call settled while an async listener ran
        try:
            pending = listener(dispatched, record)
            if inspect.isawaitable(pending):
                await pending
        except Exception as error:  # noqa: BLE001 - observe-only: contain and report
            report_failure(host.logger, f"{EVENT} listener", listener, error)
