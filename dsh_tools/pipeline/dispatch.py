"""Stage 4, dispatch: the ``tools/execute`` around-wrappers and the core call.

This is the Starlette-middleware shape: each wrapper gets ``(exec, next)`` and
may act before and after ``await next()``, retry it, or return its own result
without calling it. The only thing a wrapper may change is the signal, through
``next(signal=...)``; the call's identity was frozen at admission. The base of
the chain is :func:`invoke_tool`, whose own error boundary turns an unknown
tool, a raising body or malformed output into an ``is_error`` result, so
``await next()`` always yields a result. A typed tool's value is checked and
rendered there too (:mod:`.values`).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, Literal

from returns.result import Failure

from dsh_tools.errors import ToolNotFoundError
from dsh_tools.execution import ToolExecution, ToolExecutionResult
from dsh_tools.hooks import KEEP, Keep
from dsh_tools.pipeline.checks import check_result
from dsh_tools.pipeline.host import PipelineHost
from dsh_tools.pipeline.outcomes import StageFailure, error_result, exception_result
from dsh_tools.pipeline.values import tool_result
from dsh_tools.signals import AbortSignal

__all__ = ["dispatch", "invoke_tool"]

EVENT: Final = "tools/execute"


async def dispatch(host: PipelineHost, execution: ToolExecution) -> ToolExecutionResult:
    """Run the ``tools/execute`` chain around :func:`invoke_tool`."""
    listeners = host.events.listeners(EVENT, execution.agent)
    if not listeners:
        return await invoke_tool(host, execution)
    return await _level(host, listeners, 0, execution)


async def _level(
    host: PipelineHost, listeners: Sequence[Callable[..., Any]], index: int, execution: ToolExecution
) -> ToolExecutionResult:
    if index == len(listeners):
        return await invoke_tool(host, execution)

    def next_(*, signal: AbortSignal | None | Literal[Keep.KEEP] = KEEP) -> Awaitable[ToolExecutionResult]:
        if signal is KEEP:
            inner = execution
        elif signal is None or type(signal) is AbortSignal:
            inner = execution.set(signal=signal)
        else:
            raise TypeError(f"next(signal=...) takes an AbortSignal or None, got {type(signal).__name__}")
        return _level(host, listeners, index + 1, inner)

    try:
        value = listeners[index](execution, next_)
        if inspect.isawaitable(value):
            value = await value
    except Exception as error:  # noqa: BLE001 - the wrapper's failure is this level's result
        return StageFailure.raised(error, f"{EVENT} listener").result(execution.call_id)
    checked = check_result(value, execution.call_id)
    if isinstance(checked, Failure):
        return error_result(execution.call_id, f"{EVENT} listener {checked.failure()}")
    return checked.unwrap()


async def invoke_tool(host: PipelineHost, execution: ToolExecution) -> ToolExecutionResult:
    """Core dispatch: resolve the tool as the caller sees it, run its body, normalize."""
    call_id = execution.call_id
    tool = host.resolve(execution.name, execution.agent)
    if tool is None:
        return exception_result(call_id, ToolNotFoundError(execution.name))
    try:
        output: object = tool.execute(execution.arguments, execution)
        if inspect.isawaitable(output):
            output = await output
    except Exception as error:  # noqa: BLE001 - the body's error boundary
        return exception_result(call_id, error)
    return tool_result(tool, execution, output)
