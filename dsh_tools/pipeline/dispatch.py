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
from collections.abc import Awaitable
from functools import partial
from typing import Final, Literal

from dsh_tools.awaitables import is_awaitable
from dsh_tools.errors import ToolNotFoundError
from dsh_tools.execution import ToolExecution, ToolExecutionResult
from dsh_tools.hooks import KEEP, Keep
from dsh_tools.listener_chain import Rest, run_chain
from dsh_tools.off_loop import off_loop
from dsh_tools.pipeline.cancellation import CANCELLED, cancel_requested, propagate_if_fatal
from dsh_tools.pipeline.containment import ContainLevel
from dsh_tools.pipeline.effects import second_start
from dsh_tools.seams import PipelineHost
from dsh_tools.orphans import Orphans
from dsh_tools.pipeline.outcomes import aborted_result, exception_result
from dsh_tools.pipeline.plan import CallPlan, CallState, plan_call, plan_of
from dsh_tools.pipeline.values import is_large_value, tool_result
from dsh_tools.signals import AbortSignal, checked_signal

__all__ = ["ExecuteStep", "dispatch", "invoke_tool"]

EVENT: Final = "tools/execute"

async def dispatch(host: PipelineHost, execution: ToolExecution) -> ToolExecutionResult:
    """Run the call plan's ``tools/execute`` wrappers around :func:`invoke_tool`.

    Handed a plan (the library's own composition always hands one), the tool
    and the wrappers are the plan's; handed any other host, the call is
    planned here. While dispatch runs, the body's progress reports are heard.
    """
    plan = host if type(host) is CallPlan else plan_call(host, execution)
    state = plan.state
    state.dispatched = execution
    try:
        wrappers = plan.execute
        if not wrappers:
            return await invoke_tool(plan, execution)
        rule = ContainLevel(EVENT, plan.logger, execution.call_id)
        return await run_chain(wrappers, (execution,), partial(invoke_tool, plan), rule.check, rule, ExecuteStep)
    finally:
        state.dispatched = None


class ExecuteStep:
    """A ``tools/execute`` wrapper's ``next``: the rest of the chain, with the signal replaced when it asks.

    It carries the call's :attr:`plan`, so the library's own wrappers (the
    timeout and retry policies) read the tool the call resolved and the call's
    state from it instead of looking them up.
    """

    __slots__ = ("_rest", "_execution")

    def __init__(self, rest: Rest[tuple[ToolExecution], ToolExecutionResult], arguments: tuple[ToolExecution]) -> None:
        self._rest = rest
        (self._execution,) = arguments

    def __call__(self, *, signal: AbortSignal | None | Literal[Keep.KEEP] = KEEP) -> Awaitable[ToolExecutionResult]:
        execution = self._execution
        inner = execution if signal is KEEP else execution.set(signal=checked_signal(signal, "next(signal=...)"))
        return self._rest((inner,))

    @property
    def plan(self) -> CallPlan | None:
        """The call's plan while it runs (its execution's channel)."""
        return plan_of(self._execution)


async def invoke_tool(host: PipelineHost, execution: ToolExecution) -> ToolExecutionResult:
    """Core dispatch: the tool as the call's plan resolved it, its body, normalized.

    The body always gets a signal: the innermost ``next``'s, or the
    registry's own for the call when a wrapper removed it (or there never
    was one). A signal already aborted here means the body is not started.
    """
    call_id = execution.call_id
    if type(host) is CallPlan:
        tool, state = host.tool, host.state
    else:  # called alone, outside any dispatch: resolved here
        tool, state = host.resolve(execution.name, execution.agent), CallState()
    if tool is None:
        return exception_result(call_id, ToolNotFoundError(execution.name))
    signal = execution.signal
    if signal is None:
        execution = execution.set(signal=state.fallback_signal())
    elif signal.aborted:
        return aborted_result(execution, "ABORTED_BEFORE_DISPATCH", signal.reason)
    again = second_start(state, tool, call_id) if state.body_starts else None
    if again is not None:
        return again  # an approved effect runs at most once unless its tool is idempotent
    state.body_started = True
    state.body_starts += 1
    attempt = state.attempt  # a retry wrapper's view of this run of the body
    if attempt is not None:
        attempt.running = True
    try:
        output: object = tool.execute(execution.arguments, execution)
        if is_awaitable(output):
            output = await _run_body(host, execution, output)
    except BaseException as error:  # noqa: BLE001 - the body's error boundary
        if attempt is not None:
            attempt.raised = error
        propagate_if_fatal(error)
        result = exception_result(call_id, error)
        if state.approved:
            state.first_result = result
        return result
    finally:
        if attempt is not None:
            attempt.running = False
    large = is_large_value(tool, output)
    result = await off_loop(tool_result, tool, execution, output) if large else tool_result(tool, execution, output)
    if state.approved:
        state.first_result = result  # what a second start of an at-most-once call returns
    return result


_FALLBACK_ORPHANS: Final = Orphans()
"""For a custom host without ``orphans``: the default grace, orphans kept here."""


async def _run_body(host: PipelineHost, execution: ToolExecution, body: Awaitable[object]) -> object:
    """Await the body in a task of its own, so a cancelled call never waits on it without bound.

    The caller's cancellation reaches the body as a ``CancelledError``; a body
    that swallows it (or a thread that cannot be stopped) gets the host's
    grace period and is then orphaned (:mod:`.orphans`), and the
    cancellation goes on to settle the call ``ABORTED``. Whatever the body
    raises is re-raised here, in the caller's frame (see :func:`_captured`).

    The caller waits on a plain future the body's task resolves in its last
    step, not on the task: awaited directly, a cancellation of ours would wait
    for the body to honour it, and ``asyncio.shield`` (which bounds it too)
    costs a second future, two callbacks and one more turn of the loop per
    call. What the task costs as it is, ``make bench`` measures.
    """
    loop = asyncio.get_running_loop()
    waiter: asyncio.Future[tuple[bool, object]] = loop.create_future()
    task = loop.create_task(_captured(body, waiter))
    try:
        raised, value = await waiter
    except asyncio.CancelledError:
        if task.done() or not cancel_requested():
            raise  # it stopped, or it is not the caller's cancellation (contained as a failure)
        if type(host) is CallPlan:
            host.state.abort(CANCELLED)  # a body that watches its signal hears it too (the registry's own signal)
        orphans = getattr(host, "orphans", None)
        keeper = orphans if isinstance(orphans, Orphans) else _FALLBACK_ORPHANS
        what = f'tool "{execution.name}" (call {execution.call_id})'
        await keeper.stop_within(task, host.logger, what, "its call settled ABORTED")
        raise
    if raised:
        raise value  # type: ignore[misc]  # a BaseException, captured below
    return value


async def _captured(body: Awaitable[object], waiter: asyncio.Future[tuple[bool, object]]) -> None:
    """Resolve ``waiter`` with ``(False, result)`` or ``(True, exception)``: nothing the body raises crosses the task boundary.

    A task would hand ``KeyboardInterrupt``/``SystemExit`` to the event loop
    instead of the caller, and a ``GeneratorExit`` thrown back through an
    ``await`` closes the awaiting coroutines instead of reaching their
    ``except``. Only the cancellation this task was asked for stays a
    cancellation (and cancels ``waiter``, so the caller is not left waiting).
    """
    outcome: tuple[bool, object]
    try:
        outcome = False, await body
    except asyncio.CancelledError as error:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            if not waiter.done():
                waiter.cancel()
            raise
        outcome = True, error
    except BaseException as error:  # noqa: BLE001 - re-raised by _run_body in the caller's task
        outcome = True, error
    if not waiter.done():
        waiter.set_result(outcome)
