"""``TimeoutPolicy``: the reference ``tools/execute`` wrapper.

For a tool whose definition declares ``timeout_ms`` (as the calling agent
resolves it), the policy arms a deadline fused with the caller's signal and
passes it down with ``next(signal=...)``. Tools are expected to honour the
signal; one that does not is cancelled when the deadline passes, so a stuck
body cannot hold the agent loop. Only when *its own* deadline fired does the
policy answer ``TOOL_TIMEOUT``; a caller's abort passes through untouched.
"""

from __future__ import annotations

import asyncio
import contextlib

from dsh_tools.disposer import Disposer
from dsh_tools.errors import ToolTimeoutError
from dsh_tools.execution import ToolExecution, ToolExecutionResult
from dsh_tools.hooks import ExecuteNext
from dsh_tools.host.context import Context
from dsh_tools.pipeline.outcomes import exception_result
from dsh_tools.signals import AbortController, format_ms

__all__ = ["TimeoutPolicy", "timeout_result"]


def timeout_result(call_id: str, timeout_ms: float) -> ToolExecutionResult:
    """``Error: tool call timed out after <ms>ms`` with ``TOOL_TIMEOUT`` info."""
    return exception_result(call_id, ToolTimeoutError(f"tool call timed out after {format_ms(timeout_ms)}ms"))


class TimeoutPolicy:
    """Installs the timeout wrapper on ``ctx`` (removed when ``ctx`` is disposed)."""

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self.disposer: Disposer = ctx.on("tools/execute", self._wrap)

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
        finally:
            timer.cancel()
            if follow is not None:
                follow()
        if not expired.is_set():
            return inner.result()
        if not inner.done():
            inner.cancel()  # the body ignored the signal: stop it rather than hang the loop
            with contextlib.suppress(BaseException):
                await inner
        return timeout_result(execution.call_id, budget)
