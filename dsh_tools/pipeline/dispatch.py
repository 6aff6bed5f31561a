"""Stage 4, dispatch: the ``tools/execute`` around-wrappers and the core call.

This is the Starlette-middleware shape: each wrapper gets ``(exec, next)`` and
may act before and after ``await next()``, retry it, or return its own result
without calling it. The only thing a wrapper may change is the signal, through
``next(signal=...)``; the call's identity was frozen at admission. The base of
the chain is :func:`invoke_tool`, whose own error boundary turns an unknown
tool, a raising body or malformed output into an ``is_error`` result, so
``await next()`` always yields a result. A typed tool's value is checked and
rendered there too (:mod:`.values`), on a worker thread when it is large.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Final, Literal

from dsh_tools.context.context import Context
from dsh_tools.errors import ToolNotFoundError
from dsh_tools.execution import ToolExecution, ToolExecutionResult, ToolExecutionToken
from dsh_tools.hooks import KEEP, Keep
from dsh_tools.listener_chain import Rest, run_chain
from dsh_tools.off_loop import off_loop
from dsh_tools.pipeline.attempts import body_attempt
from dsh_tools.pipeline.cancellation import cancel_requested, propagate_if_fatal
from dsh_tools.pipeline.checks import check_result
from dsh_tools.pipeline.containment import Contain
from dsh_tools.pipeline.host import PipelineHost
from dsh_tools.pipeline.orphans import Orphans
from dsh_tools.pipeline.outcomes import aborted_result, exception_result
from dsh_tools.pipeline.values import is_large_value, tool_result
from dsh_tools.signals import AbortController, AbortSignal, checked_signal
from dsh_tools.tool_types import RegisteredTool

__all__ = ["DispatchProgress", "dispatch", "dispatched_tool", "dispatching", "invoke_tool"]

EVENT: Final = "tools/execute"


class DispatchProgress:
    """One dispatch's state, built once and read by everyone who takes part in it.

    The call plan of the dispatch: :func:`dispatch` resolves the tool once
    (``tool``; the ``tools/execute`` wrappers, such as the timeout and retry
    policies, read it through :func:`dispatched_tool` rather than resolving
    it again, and every attempt runs that one definition) and keeps the plan
    open, under the call's token, until it returns; a body's progress reports
    find their ``host`` and rate limit (``last_report``) here too.
    ``body_started`` tells an interrupted call that never reached its body
    (``ABORTED_BEFORE_DISPATCH``) from one cut short (``ABORTED``).
    ``fallback_signal`` is the registry's own signal for a body whose innermost
    ``next`` carries none (a body always gets a signal); :meth:`abort` aborts
    it when the call is cancelled.
    """

    __slots__ = ("body_started", "tool", "host", "execution", "last_report", "_controller")

    def __init__(self) -> None:
        self.body_started = False
        self.tool: RegisteredTool | None = None
        self.host: PipelineHost | None = None
        self.execution: ToolExecution | None = None
        self.last_report: float | None = None
        self._controller: AbortController | None = None

    def fallback_signal(self) -> AbortSignal:
        if self._controller is None:
            self._controller = AbortController()
        return self._controller.signal

    def abort(self, reason: object) -> None:
        if self._controller is not None:
            self._controller.abort(reason)


_OPEN: dict[ToolExecutionToken, DispatchProgress] = {}
"""The dispatches under way, by call token (every ``exec.set(signal=...)`` copy shares it)."""


def dispatching(execution: ToolExecution) -> DispatchProgress | None:
    """The plan of ``execution``'s dispatch while it runs (``None`` before and after)."""
    return _OPEN.get(execution.token)


def dispatched_tool(execution: ToolExecution, ctx: Context) -> RegisteredTool | None:
    """The tool a ``tools/execute`` wrapper's call runs: the one its dispatch resolved.

    Outside a dispatch (a wrapper called directly) it is resolved as ``ctx``'s
    registry resolves it for the call's agent.
    """
    plan = _OPEN.get(execution.token)
    return plan.tool if plan is not None else ctx.tools.get(execution.name, execution.agent)


async def dispatch(
    host: PipelineHost, execution: ToolExecution, *, progress: DispatchProgress | None = None
) -> ToolExecutionResult:
    """Run the ``tools/execute`` chain around :func:`invoke_tool`, with the tool resolved once."""
    progress = progress if progress is not None else DispatchProgress()
    progress.host, progress.execution = host, execution
    progress.tool = host.resolve(execution.name, execution.agent)
    token = execution.token
    _OPEN[token] = progress  # the body's reports are heard only while it dispatches
    try:
        listeners = host.events.listeners(EVENT, execution.agent)
        if not listeners:
            return await invoke_tool(host, execution, progress=progress)
        call_id = execution.call_id
        base = partial(invoke_tool, host, progress=progress)
        check = partial(check_result, call_id=call_id)
        rule = Contain(EVENT, host.logger, lambda failure: failure.result(call_id))
        return await run_chain(listeners, (execution,), base, check, rule, _next_with_signal)
    finally:
        if _OPEN.get(token) is progress:
            del _OPEN[token]


def _next_with_signal(
    rest: Rest[tuple[ToolExecution], ToolExecutionResult], arguments: tuple[ToolExecution]
) -> Callable[..., Awaitable[ToolExecutionResult]]:
    """A wrapper's ``next``: the rest of the chain, with the call's signal replaced when it asks."""
    (execution,) = arguments

    def next_(*, signal: AbortSignal | None | Literal[Keep.KEEP] = KEEP) -> Awaitable[ToolExecutionResult]:
        inner = execution if signal is KEEP else execution.set(signal=checked_signal(signal, "next(signal=...)"))
        return rest((inner,))

    return next_


async def invoke_tool(
    host: PipelineHost, execution: ToolExecution, *, progress: DispatchProgress | None = None
) -> ToolExecutionResult:
    """Core dispatch: the tool as the caller sees it (as :func:`dispatch` resolved it), its body, normalized.

    The body always gets a signal: the innermost ``next``'s, or the
    registry's own for the call when a wrapper removed it (or there never
    was one). A signal already aborted here means the body is not started.
    """
    call_id = execution.call_id
    # Within dispatch, the tool it resolved once for the whole chain; called alone, resolved here.
    tool = progress.tool if progress is not None and progress.host is host else host.resolve(execution.name, execution.agent)
    if tool is None:
        return exception_result(call_id, ToolNotFoundError(execution.name))
    signal = execution.signal
    if signal is None:
        execution = execution.set(signal=(progress or DispatchProgress()).fallback_signal())
    elif signal.aborted:
        return aborted_result(execution, "ABORTED_BEFORE_DISPATCH", signal.reason)
    if progress is not None:
        progress.body_started = True
    attempt = body_attempt(execution)  # a retry wrapper's view of this run of the body
    if attempt is not None:
        attempt.running = True
    try:
        output: object = tool.execute(execution.arguments, execution)
        if inspect.isawaitable(output):
            output = await _run_body(host, execution, output)
    except BaseException as error:  # noqa: BLE001 - the body's error boundary
        if attempt is not None:
            attempt.raised = error
        propagate_if_fatal(error)
        return exception_result(call_id, error)
    finally:
        if attempt is not None:
            attempt.running = False
    return await off_loop(is_large_value(tool, output), tool_result, tool, execution, output)


_FALLBACK_ORPHANS: Final = Orphans()
"""For a custom host without ``orphans``: the default grace, orphans kept here."""


async def _run_body(host: PipelineHost, execution: ToolExecution, body: Awaitable[object]) -> object:
    """Await the body in a task of its own, so a cancelled call never waits on it without bound.

    The caller's cancellation reaches the body as a ``CancelledError``; a body
    that swallows it (or a thread that cannot be stopped) gets the host's
    grace period and is then orphaned (:mod:`.orphans`), and the
    cancellation goes on to settle the call ``ABORTED``. Whatever the body
    raises is re-raised here, in the caller's frame (see :func:`_captured`).
    """
    task = asyncio.ensure_future(_captured(body))
    try:
        # Shielded: awaited directly, a cancellation of ours would wait for the body to honour it.
        raised, value = await asyncio.shield(task)
    except asyncio.CancelledError:
        if task.done() or not cancel_requested():
            raise  # it stopped, or it is not the caller's cancellation (contained as a failure)
        orphans = getattr(host, "orphans", None)
        keeper = orphans if isinstance(orphans, Orphans) else _FALLBACK_ORPHANS
        what = f'tool "{execution.name}" (call {execution.call_id})'
        await keeper.stop_within(task, host.logger, what, "its call settled ABORTED")
        raise
    if raised:
        raise value  # type: ignore[misc]  # a BaseException, captured below
    return value


async def _captured(body: Awaitable[object]) -> tuple[bool, object]:
    """``(False, result)`` or ``(True, exception)``: nothing the body raises crosses the task boundary.

    A task would hand ``KeyboardInterrupt``/``SystemExit`` to the event loop
    instead of the caller, and a ``GeneratorExit`` thrown back through an
    ``await`` closes the awaiting coroutines instead of reaching their
    ``except``. Only the cancellation this task was asked for stays a
    cancellation.
    """
    try:
        return False, await body
    except asyncio.CancelledError as error:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise
        return True, error
    except BaseException as error:  # noqa: BLE001 - re-raised by _run_body in the caller's task
        return True, error
