"""``RetryPolicy``: run a flaky tool's body again, as its definition's :class:`~dsh_tools.retry.Retry` asks.

A tool declares ``retry=Retry(attempts=3)`` (``define_tool``, ``@tool``, or a
``retry`` attribute on any definition); :class:`RetryPolicy`, a
``tools/execute`` wrapper like :class:`~dsh_tools.timeout_policy.TimeoutPolicy`
and installed by ``boot()``, then calls ``next()`` again when an attempt fails
the way ``Retry.on`` names: by the exception the body raised (``isinstance``)
or by the result's error code. By default that is a timeout (``TOOL_TIMEOUT``)
or a ``ConnectionError``/``TimeoutError``: the failures a second try can cure.

The wrapper is outermost (``prepend=True``), so every attempt passes the inner
wrappers afresh: ``timeout_ms`` is a budget *per attempt*, and a metrics
wrapper counts each try. Between attempts it waits ``backoff_ms``, doubling
up to ``max_backoff_ms`` (no jitter: a tool's own calls are not a thundering
herd), and the caller's abort ends the wait and the retries.

What is never retried, whatever ``on`` says: a denial (it never reaches
dispatch), invalid arguments, an unknown tool, a call the caller aborted or
cancelled, and an attempt whose body is still running (one that ignored its
timeout's cancellation and was orphaned): attempts never overlap. Observers
hear one final result; when it took more than one attempt, its ``meta`` gains
``"attempts": n`` if ``meta`` is an object or absent (otherwise the count is on
the tracing span only).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Final

from dsh_tools.disposer import Disposer
from dsh_tools.execution import ToolExecution, ToolExecutionResult
from dsh_tools.hooks import ExecuteNext
from dsh_tools.context.context import Context
from dsh_tools.pipeline.effects import at_most_once, not_retried
from dsh_tools.pipeline.plan import Attempt, CallPlan
from dsh_tools.retry import Retry
from dsh_tools.tool_types import RegisteredTool
from dsh_tools.signals import AbortSignal

__all__ = ["NEVER_RETRIED", "RetryPolicy", "with_attempts"]

NEVER_RETRIED: Final = frozenset(
    {"INVALID_ARGS", "UNKNOWN_TOOL", "ABORTED", "ABORTED_BEFORE_DISPATCH", "APPROVAL_PENDING", "APPROVAL_STALE"}
)
"""Error codes no ``Retry`` runs again: the call itself is wrong, or the caller stopped it."""


def with_attempts(result: ToolExecutionResult, attempts: int) -> ToolExecutionResult:
    """``result`` whose ``meta`` records ``"attempts"`` when there was more than one and ``meta`` can hold it."""
    meta = result.meta
    if attempts == 1 or not (meta is None or isinstance(meta, Mapping)):
        return result
    return result.set(meta={**(meta or {}), "attempts": attempts})


class RetryPolicy:
    """Installs the retry wrapper on ``ctx``, outermost (removed when ``ctx`` is disposed).

    ``sleep`` waits out the backoff (seconds; a test passes a fake).
    """

    def __init__(self, ctx: Context, *, sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        self._ctx = ctx
        self._sleep = sleep
        self.disposer: Disposer = ctx.on("tools/execute", self._wrap, prepend=True)

    async def _wrap(self, execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:  # noqa: A002
        plan: CallPlan | None = getattr(next, "plan", None)  # the call's plan; a hand-made pipeline has none
        tool = plan.tool if plan is not None else self._ctx.tools.get(execution.name, execution.agent)
        if tool is None or tool.retry is None or tool.retry.attempts == 1:
            return await next()
        retry = tool.retry
        number = 1
        while True:
            attempt = Attempt()
            if plan is not None:
                plan.state.attempt = attempt  # the body's error boundary fills it in
            try:
                result = await next()
            finally:
                if plan is not None:
                    plan.state.attempt = None
            if number >= retry.attempts or not _retriable(execution, retry, attempt, result):
                return with_attempts(result, number)
            if plan is not None and at_most_once(plan.state, tool):
                return not_retried(result, execution.name)  # an approved effect runs at most once
            if plan is not None:
                plan.tell_retrying(execution, number, result)
            if not await self._backoff(execution.signal, retry.delay_ms(number)):
                return with_attempts(result, number)
            number += 1

    @staticmethod
    def dsh_wraps(tool: RegisteredTool) -> bool:
        """A call plan leaves the wrapper out for a tool that declares no retry (it would only call ``next()``)."""
        return tool.retry is not None and tool.retry.attempts != 1

    async def _backoff(self, signal: AbortSignal | None, ms: float) -> bool:
        """Wait ``ms`` unless the caller aborts first; whether to go on."""
        if signal is None:
            await self._sleep(ms / 1000)
            return True
        if signal.aborted:
            return False
        sleeper = asyncio.ensure_future(self._sleep(ms / 1000))
        aborted = asyncio.ensure_future(signal.wait())
        try:
            await asyncio.wait((sleeper, aborted), return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleeper.cancel()
            aborted.cancel()
        return not signal.aborted


def _retriable(execution: ToolExecution, retry: Retry, attempt: Attempt, result: ToolExecutionResult) -> bool:
    if not result.is_error or attempt.running:  # a success, or an orphaned body: no overlap
        return False
    if execution.signal is not None and execution.signal.aborted:
        return False
    if result.error is not None and result.error.code in NEVER_RETRIED:
        return False
    return retry.matches(result, attempt.raised)
