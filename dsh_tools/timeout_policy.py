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
from dsh_tools.signals import AbortController, AbortSignal, format_ms

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
        deadline = AbortController()
        signal = deadline.signal if execution.signal is None else AbortSignal.any([execution.signal, deadline.signal])
        timer = asyncio.get_running_loop().call_later(budget / 1000, deadline.abort, ToolTimeoutError("deadline"))
        inner = asyncio.ensure_future(next(signal=signal))
        try:
            if not inner.done():
                expired = asyncio.ensure_future(deadline.signal.wait())
                try:
                    await asyncio.wait((inner, expired), return_when=asyncio.FIRST_COMPLETED)
                finally:
                    expired.cancel()
        finally:
            timer.cancel()
        if inner.done() and not deadline.signal.aborted:
            return inner.result()
        if not inner.done():
            inner.cancel()  # the body ignored the signal: stop it rather than hang the loop
            with contextlib.suppress(BaseException):
                await inner
        return timeout_result(execution.call_id, budget)
