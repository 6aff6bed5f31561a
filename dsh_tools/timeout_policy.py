"""``TimeoutPolicy``: the reference ``tools/execute`` wrapper.

For a tool whose definition declares ``timeout_ms`` (as the calling agent
resolves it), the policy arms a deadline fused with the caller's signal and
passes it down with ``next(signal=...)``. Tools are expected to honour the
signal; one that does not is cancelled when the deadline passes, so a stuck
body cannot hold the agent loop. Only when *its own* deadline fired does the
policy answer ``TOOL_TIMEOUT``; a caller's abort passes through untouched.

A body may refuse to stop even when cancelled (it catches ``CancelledError``
and carries on). The policy then waits ``grace_ms`` more and settles
``TOOL_TIMEOUT`` anyway: a budget is a promise to the agent loop. The body is
*orphaned*: it keeps running on the event loop with its signal aborted, the
policy holds a reference to it (``orphans``) so it is not garbage-collected
mid-flight, logs a WARNING when it orphans it and another when it finally
ends, and discards whatever it eventually returns. This is the one case in
which a call's result is recorded while its body still runs.
"""

from __future__ import annotations

import asyncio
import math
from typing import Final

from dsh_tools.disposer import Disposer
from dsh_tools.errors import ToolTimeoutError, safe_str
from dsh_tools.execution import ToolExecution, ToolExecutionResult
from dsh_tools.hooks import ExecuteNext
from dsh_tools.host.context import Context
from dsh_tools.pipeline.cancellation import wait_out
from dsh_tools.pipeline.outcomes import exception_result
from dsh_tools.signals import AbortController, format_ms

__all__ = ["DEFAULT_GRACE_MS", "TimeoutPolicy", "timeout_result"]

DEFAULT_GRACE_MS: Final = 1_000.0
"""How long a cancelled body that is past its deadline gets to stop before it is orphaned."""


def timeout_result(call_id: str, timeout_ms: float) -> ToolExecutionResult:
    """``Error: tool call timed out after <ms>ms`` with ``TOOL_TIMEOUT`` info."""
    return exception_result(call_id, ToolTimeoutError(f"tool call timed out after {format_ms(timeout_ms)}ms"))


class TimeoutPolicy:
    """Installs the timeout wrapper on ``ctx`` (removed when ``ctx`` is disposed)."""

    def __init__(self, ctx: Context, *, grace_ms: float = DEFAULT_GRACE_MS) -> None:
        if type(grace_ms) not in (int, float) or not math.isfinite(grace_ms) or grace_ms < 0:
            raise ValueError(f"grace_ms must be a finite number of milliseconds >= 0, got {grace_ms!r}")
        self._ctx = ctx
        self._grace_s = grace_ms / 1000
        self._orphans: set[asyncio.Task[ToolExecutionResult]] = set()
        self.disposer: Disposer = ctx.on("tools/execute", self._wrap)

    @property
    def orphans(self) -> tuple[asyncio.Task[ToolExecutionResult], ...]:
        """Bodies that outlived their deadline and their grace period, still running."""
        return tuple(self._orphans)

    async def _wrap(self, execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:  # noqa: A002
        tool = self._ctx.tools.get(execution.name, execution.agent)
        budget = tool.timeout_ms if tool is not None else None
        if budget is None:
            return await next()
        # One controller fuses the caller's signal and our deadline; the
        # caller-side listener is removed afterwards, so a session-long signal
        # does not collect one listener per call.
        fused = AbortController()
        expired = asyncio.Event()

        def expire() -> None:
            expired.set()
            fused.abort(ToolTimeoutError(f"deadline of {format_ms(budget)}ms passed"))

        follow = execution.signal.add_listener(fused.abort) if execution.signal is not None else None
        timer = asyncio.get_running_loop().call_later(budget / 1000, expire)
        inner = asyncio.ensure_future(next(signal=fused.signal))
        try:
            if not inner.done():
                waiter = asyncio.ensure_future(expired.wait())
                try:
                    await asyncio.wait((inner, waiter), return_when=asyncio.FIRST_COMPLETED)
                finally:
                    waiter.cancel()
        except asyncio.CancelledError:
            # The call itself is being cancelled: the body goes with it, and is awaited.
            inner.cancel()
            await wait_out([inner])
            raise
        finally:
            timer.cancel()
            if follow is not None:
                follow()
        if not expired.is_set():
            return inner.result()
        if not inner.done():
            inner.cancel()  # the body ignored the signal: stop it rather than hang the loop
            try:
                await asyncio.wait((inner,), timeout=self._grace_s)
            finally:  # cancelled meanwhile too: a body that already refused to stop is not awaited again
                if not inner.done():
                    self._orphan(inner, execution, budget)
        return timeout_result(execution.call_id, budget)

    def _orphan(self, body: asyncio.Task[ToolExecutionResult], execution: ToolExecution, budget: float) -> None:
        name = execution.name
        self._ctx.logger.warning(
            'tool "%s" (call %s) ignored cancellation %sms past its %sms budget; settled TOOL_TIMEOUT, '
            "its body keeps running as an orphan and its result will be discarded",
            name,
            execution.call_id,
            format_ms(self._grace_s * 1000),
            format_ms(budget),
        )
        self._orphans.add(body)

        def ended(task: asyncio.Task[ToolExecutionResult]) -> None:
            self._orphans.discard(task)
            outcome = "was cancelled" if task.cancelled() else (
                f"raised {safe_str(task.exception())}" if task.exception() is not None else "returned"
            )
            self._ctx.logger.warning('orphaned body of tool "%s" (call %s) %s; discarded', name, execution.call_id, outcome)

        body.add_done_callback(ended)
