"""The composition: ``admit → gates → dispatch → post-execute → finalize → observe``.

``ToolRegistry.execute`` is :func:`execute_call` with :data:`STANDARD_GATES`.
Gates share one shape, ``(host, execution) -> Result[ToolExecution, Settled]``,
so a custom pipeline is a different tuple of gates (drop approval, add a rate
limit) rather than a different engine.

A call runs in three phases, and a batch (``pipeline/batch.py``) schedules the
same three: :func:`open_call` (the abort check and the gates: policy, one call
at a time), :func:`dispatch_call` (the ``tools/execute`` chain and the body:
the only phase that may overlap other calls) and :func:`close_call`
(``tools/post-execute``, then spilling a result too large for the model:
``pipeline/spill.py``). Each phase settles a cancellation of its own task
as a result instead of raising, so the call is always recorded;
:class:`~dsh_tools.pipeline.cancellation.CallerScope` re-raises it afterwards.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from returns.result import Failure, Result, Success

from dsh_tools.errors import ToolAbortedError
from dsh_tools.execution import ToolExecution, ToolExecutionInput, ToolExecutionResult
from dsh_tools.pipeline.admit import admit
from dsh_tools.pipeline.cancellation import CANCELLED, FATAL, CallerScope, cancel_requested
from dsh_tools.pipeline.dispatch import dispatch
from dsh_tools.pipeline.effects import maybe_took_effect
from dsh_tools.pipeline.guards import check_guards
from dsh_tools.seams import Gate as Gate, PipelineHost
from dsh_tools.pipeline.observe import finalize, notify_result
from dsh_tools.pipeline.outcomes import AbortCode, Settled, aborted_result, exception_result
from dsh_tools.pipeline.post_execute import post_execute
from dsh_tools.pipeline.plan import CallPlan, plan_call
from dsh_tools.pipeline.pre_execute import pre_execute
from dsh_tools.pipeline.spill import spill, spill_limit
from dsh_tools.pipeline.queued import dispatch_queued
from dsh_tools.pipeline.quiet import is_quiet

__all__ = [
    "CANCELLED",
    "STANDARD_GATES",
    "Gate",
    "close_call",
    "continue_call",
    "dispatch_call",
    "execute_call",
    "open_call",
    "pass_gates",
    "record_interrupted",
    "run_tool",
]


STANDARD_GATES: tuple[Gate, ...] = (pre_execute, check_guards)
"""The SPEC's order: the pre-execute waterfall (with approval for ``Ask``), then guards."""



async def pass_gates(
    host: PipelineHost, admitted: Result[ToolExecution, Settled], gates: Sequence[Gate]
) -> Result[ToolExecution, Settled]:
    """Thread the execution through each gate until one settles it."""
    if type(admitted) is Failure or not gates:
        return admitted
    return await _through(host, admitted.unwrap(), gates)


async def _through(host: PipelineHost, execution: ToolExecution, gates: Sequence[Gate]) -> Result[ToolExecution, Settled]:
    """:func:`pass_gates` from a bare execution: each gate's answer is the next one's input (no railway value built first)."""
    passed: Result[ToolExecution, Settled] | None = None
    for gate in gates:
        passed = await gate(host, execution)
        if type(passed) is Failure:
            return passed
        execution = passed.unwrap()
    return passed if passed is not None else Success(execution)


def _not_dispatched(execution: ToolExecution, reason: object) -> Failure[Settled]:
    return Failure(Settled(execution, aborted_result(execution, "ABORTED_BEFORE_DISPATCH", reason)))


def _quieten(plan: CallPlan, execution: ToolExecution, gates: Sequence[Gate]) -> Sequence[Gate]:
    """The gates the call runs: for a quiet one (``pipeline/quiet.py``, marked on its state), only those added before the standard ones.

    Only gates that end with the standard ones qualify (``execute``'s and a
    lane's, Code Mode's presentation gate first); any other pipeline runs
    every gate it was given.
    """
    if gates is not STANDARD_GATES:
        gates = tuple(gates)  # any sequence (a deque cannot be sliced)
    standard = len(STANDARD_GATES)
    quiet = (gates is STANDARD_GATES or gates[-standard:] == STANDARD_GATES) and is_quiet(plan, execution)
    plan.state.quiet = quiet
    return gates[: len(gates) - standard] if quiet else gates


def _opened(host: PipelineHost, execution: ToolExecution) -> Failure[Settled] | None:
    """Tell the plan's probes the call opened; a call whose signal is already aborted settles here."""
    if type(host) is CallPlan:
        for probe in host.probes["opened"]:
            probe.opened(host.state, execution)
    signal = execution.signal
    return _not_dispatched(execution, signal.reason) if signal is not None and signal.aborted else None


async def open_call(
    host: PipelineHost, execution: ToolExecution, gates: Sequence[Gate] = STANDARD_GATES
) -> Result[ToolExecution, Settled]:
    """Everything before dispatch: the abort check, then the gates, then the abort check again.

    A call whose signal is already aborted reaches neither policy nor body
    (``ABORTED_BEFORE_DISPATCH``); so does one whose signal or task is
    aborted while its gates run. A denial stands as the denial.
    """
    if type(host) is CallPlan and host.state.quiet is None:  # not decided yet (continue_call decides first)
        gates = _quieten(host, execution, gates)
    not_opened = _opened(host, execution)
    if not_opened is not None:
        return not_opened
    signal = execution.signal
    try:
        gated = await _through(host, execution, gates)
    except asyncio.CancelledError:
        if not cancel_requested():
            raise
        return _not_dispatched(execution, CANCELLED)
    if type(gated) is not Failure:
        if cancel_requested():
            return _not_dispatched(execution, CANCELLED)
        if signal is not None and signal.aborted:
            return _not_dispatched(execution, signal.reason)
    return gated


async def dispatch_call(host: PipelineHost, execution: ToolExecution) -> ToolExecutionResult:
    """Dispatch (here, or on the plan's queue: :mod:`.queued`), then the abort rule: a success whose call was aborted meanwhile becomes ``ABORTED``.

    Failures, denials and timeouts keep their own result. If this task is
    cancelled, the body is cancelled with it (the ``CancelledError`` reaches
    its ``await``), and the call settles ``ABORTED`` (or
    ``ABORTED_BEFORE_DISPATCH`` if the body had not started) once it has ended.
    """
    plan = host if type(host) is CallPlan else plan_call(host, execution)
    try:
        for probe in plan.probes["starting"]:  # the journal commits a leased running record before the body
            pending = probe.starting(plan.state, execution)
            if pending is not None:
                await pending
    except asyncio.CancelledError:  # cancelled before the body could start: recorded, like any call
        if not cancel_requested():
            raise
        return aborted_result(execution, "ABORTED_BEFORE_DISPATCH", CANCELLED)
    probes = plan.probes["dispatching"]
    tokens: list[object] | None = None
    if probes:  # a loop, not a comprehension: no extra frame on the instrumented hot path
        tokens = []
        for probe in probes:
            tokens.append(probe.dispatching(plan.state, execution))
    queue = plan.queue
    try:
        result = await (dispatch(plan, execution) if queue is None else dispatch_queued(plan, queue, execution))
    except asyncio.CancelledError:
        if not cancel_requested():
            raise
        code: AbortCode = "ABORTED" if plan.state.body_started else "ABORTED_BEFORE_DISPATCH"
        return maybe_took_effect(plan.state, plan.tool, aborted_result(execution, code, CANCELLED))
    finally:
        if tokens is not None:
            _end_dispatch(plan, tokens)
    if not result.is_error:
        signal = execution.signal
        if signal is not None and signal.aborted:
            result = aborted_result(execution, "ABORTED", signal.reason)
        elif cancel_requested():
            result = aborted_result(execution, "ABORTED", CANCELLED)
    return maybe_took_effect(plan.state, plan.tool, result)


def _end_dispatch(plan: CallPlan, tokens: Sequence[object]) -> None:
    """Tell each probe its dispatch ended, the last one in first out."""
    probes = plan.probes["dispatching"]
    for index in range(len(probes) - 1, -1, -1):
        probes[index].dispatched(plan.state, tokens[index])


async def close_call(host: PipelineHost, execution: ToolExecution, result: ToolExecutionResult) -> Settled:
    """``tools/post-execute``, then spilling; a cancellation while they run settles the call as ``ABORTED``.

    A quiet call (``pipeline/quiet.py``) skips both: they would hand its result on unchanged.
    """
    if type(host) is CallPlan and host.state.quiet:
        return Settled(execution, result)
    try:
        result = await post_execute(host, execution, result)
        return Settled(execution, result if spill_limit(host, execution) is None else await spill(host, execution, result))
    except asyncio.CancelledError:
        if not cancel_requested():
            raise
        return Settled(execution, aborted_result(execution, "ABORTED", CANCELLED))


async def run_tool(host: PipelineHost, execution: ToolExecution) -> Settled:
    """Dispatch (with ``tools/execute`` wrappers), then ``tools/post-execute``."""
    return await close_call(host, execution, await dispatch_call(host, execution))


async def record_interrupted(host: PipelineHost, execution: ToolExecution, error: BaseException) -> None:
    """``KeyboardInterrupt``/``SystemExit`` mid-call: record an ``ABORTED`` result before it propagates."""
    interrupted = ToolAbortedError(f'tool "{execution.name}" was interrupted by {type(error).__name__}')
    await notify_result(host, Settled(execution, exception_result(execution.call_id, interrupted)))


async def execute_call(
    host: PipelineHost, call: ToolExecutionInput, *, gates: Sequence[Gate] = STANDARD_GATES
) -> ToolExecutionResult:
    """Run one call through the whole pipeline; never raises for a misbehaving participant.

    Cancelling the task awaiting it cancels the body, records the call
    (``ABORTED`` or ``ABORTED_BEFORE_DISPATCH``) and then raises
    ``CancelledError``; ``KeyboardInterrupt``/``SystemExit`` propagate once
    the call is recorded.
    """
    return await continue_call(host, admit(host, call), gates)


async def continue_call(
    host: PipelineHost, admitted: Result[ToolExecution, Settled], gates: Sequence[Gate]
) -> ToolExecutionResult:
    """From an admitted (or already settled) call to its recorded result, as :func:`execute_call` describes.

    ``execute_call`` enters here after admission; ``resume_call`` after a
    deferred call's verdict, with the gates that follow approval. The call is
    planned here (:func:`~dsh_tools.pipeline.plan.plan_call`), and every stage
    after gets the plan as its host; a plan handed in as ``host`` for this
    very call (a resume that linked its approval) is used as it is.
    """
    with CallerScope() as scope:
        if type(admitted) is Failure:
            settled: Settled = admitted.failure()  # settled before its plan (at admission, or a stale approval)
        else:
            execution = admitted.unwrap()
            host = plan = plan_call(host, execution)
            try:
                gates = _quieten(plan, execution, gates)
                if plan.state.quiet and not gates:  # no gate left to run: nothing can stop it before dispatch
                    not_opened = _opened(plan, execution)
                    settled = (
                        not_opened.failure() if not_opened is not None
                        else Settled(execution, await dispatch_call(plan, execution))
                    )
                else:
                    opened = await open_call(plan, execution, gates)
                    if type(opened) is Failure:
                        settled = opened.failure()
                    else:  # run_tool, in line
                        execution = opened.unwrap()
                        settled = await close_call(plan, execution, await dispatch_call(plan, execution))
            except FATAL as error:
                await record_interrupted(host, execution, error)
                raise
        result = await notify_result(host, finalize(settled))
        scope.raise_if_cancelled()
    return result
