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
*orphaned* (:mod:`dsh_tools.pipeline.orphans`): it keeps running with its
signal aborted, the policy holds it (``orphans``) and logs it, and whatever it
eventually returns is discarded. This is the one case in which a call's
result is recorded while its body still runs. A caller who cancels the call
meanwhile gets the same bound: the body is cancelled and awaited for the
grace period at most, then orphaned, and the cancellation goes on.
"""

from __future__ import annotations

import asyncio
from typing import Any

from dsh_tools.disposer import Disposer
from dsh_tools.errors import ToolTimeoutError
from dsh_tools.execution import ToolExecution, ToolExecutionResult
from dsh_tools.hooks import ExecuteNext
from dsh_tools.context.context import Context
from dsh_tools.orphans import DEFAULT_GRACE_MS, Orphans
from dsh_tools.pipeline.outcomes import exception_result
from dsh_tools.pipeline.plan import CallPlan
from dsh_tools.signals import AbortController, format_ms
from dsh_tools.tool_types import RegisteredTool

__all__ = ["DEFAULT_GRACE_MS", "TimeoutPolicy", "timeout_result"]  # DEFAULT_GRACE_MS: from .pipeline.orphans

def timeout_result(call_id: str, timeout_ms: float) -> ToolExecutionResult:
    """``Error: tool call timed out after <ms>ms`` with ``TOOL_TIMEOUT`` info."""
    return exception_result(call_id, ToolTimeoutError(f"tool call timed out after {format_ms(timeout_ms)}ms"))


class TimeoutPolicy:
    """Installs the timeout wrapper on ``ctx`` (removed when ``ctx`` is disposed)."""

    def __init__(self, ctx: Context, *, grace_ms: float = DEFAULT_GRACE_MS) -> None:
        self._ctx = ctx
        self._orphans = Orphans(grace_ms)
        self.disposer: Disposer = ctx.on("tools/execute", self._wrap)

    @property
    def orphans(self) -> tuple[asyncio.Future[Any], ...]:
        """Bodies that outlived their deadline (or their call) and the grace period, still running."""
        return self._orphans.running

    @staticmethod
    def dsh_wraps(tool: RegisteredTool) -> bool:
        """A call plan leaves the wrapper out for a tool with no ``timeout_ms`` (it would only call ``next()``)."""
        return tool.timeout_ms is not None

    async def _wrap(self, execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:  # noqa: A002
        plan: CallPlan | None = getattr(next, "plan", None)  # the call's plan; a hand-made pipeline has none
        tool = plan.tool if plan is not None else self._ctx.tools.get(execution.name, execution.agent)
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
            # The call itself is being cancelled: the body goes with it, awaited for the grace at most.
            await self._orphans.stop_within(inner, self._ctx.logger, _named(execution), "the call settled ABORTED")
            raise
        finally:
            timer.cancel()
            if follow is not None:
                follow()
        if not expired.is_set():
            return inner.result()
        if not inner.done():  # the body ignored the signal: stop it rather than hang the loop
            why = f"past its {format_ms(budget)}ms budget the call settled TOOL_TIMEOUT"
            await self._orphans.stop_within(inner, self._ctx.logger, _named(execution), why)
        return timeout_result(execution.call_id, budget)


def _named(execution: ToolExecution) -> str:
    return f'tool "{execution.name}" (call {execution.call_id})'
