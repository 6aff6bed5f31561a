"""Batches: sibling calls whose dispatches may overlap, while policy keeps its order.

The model often asks for several independent things in one message. A
:class:`CallLane` runs such calls through the same pipeline stages as
``execute()``, scheduled so that:

* **only dispatch overlaps.** Admission, ``tools/pre-execute``, approval,
  guards, ``tools/post-execute`` and ``tools/result`` run in the lane, one call
  at a time, in submission order; a listener that keeps ordered state sees the
  calls exactly as it would one by one. A parallel call's ``tools/execute``
  chain and body run as a task and may overlap *other* calls' dispatches (so
  a wrapper must tolerate being re-entered for distinct executions); an
  exclusive call's run in the lane's own task, since nothing overlaps it.
* **a rolling pool.** Consecutive ``parallel`` calls dispatch side by side, at
  most ``max_parallel`` at once; a slot frees as soon as a body finishes.
* **exclusive calls are barriers.** An ``exclusive`` call waits until every
  earlier call has finished and been recorded, runs alone, and later calls
  wait until it has been recorded.
* **classification is read when a call is about to start** (when it reaches
  the head of the queue with room to start), so it sees what earlier calls
  did to the registry.
* **results keep the input order**, whatever order the bodies finish in.

Cancelling the task that drives the lane cancels every running body, awaits
them, records every call that had started (``ABORTED``, or
``ABORTED_BEFORE_DISPATCH`` if its body had not begun; calls that had
finished keep their result), and then re-raises: no task outlives the lane.
Calls that had not started are never admitted: nothing records them, and
their futures are cancelled.

The lane is incremental (:meth:`CallLane.submit` then :meth:`CallLane.drive`)
because the Code Mode bridge feeds it binding calls as a program makes them;
:func:`execute_batch` is the whole-batch form.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Final

from returns.result import Failure

from dsh_tools.execution import ToolExecution, ToolExecutionInput, ToolExecutionResult
from dsh_tools.pipeline.admit import admit
from dsh_tools.pipeline.cancellation import FATAL, CallerScope, cancel_requested, wait_out
from dsh_tools.pipeline.classify import ExecutionMode, classify
from dsh_tools.pipeline.compose import (
    CANCELLED,
    STANDARD_GATES,
    Gate,
    close_call,
    dispatch_call,
    open_call,
    record_interrupted,
)
from dsh_tools.seams import PipelineHost
from dsh_tools.pipeline.observe import finalize, notify_result
from dsh_tools.pipeline.outcomes import Settled, aborted_result, exception_result
from dsh_tools.pipeline.plan import CallPlan, CallState, plan_call

if TYPE_CHECKING:
    from dsh_tools.call_records import ThreadSlot

__all__ = ["DEFAULT_MAX_PARALLEL", "CallLane", "check_max_parallel", "execute_batch"]

DEFAULT_MAX_PARALLEL: Final = 10


def check_max_parallel(value: object, name: str = "max_parallel") -> int:
    """A pool size is an ``int`` of at least 1 (``1`` is serial); anything else is a ``ValueError``."""
    if type(value) is not int or value < 1:
        shown = repr(value) if type(value) in (int, float, bool, str) else f"a {type(value).__name__}"
        raise ValueError(f"{name} must be an int >= 1 (1 runs the calls one at a time), got {shown}")
    return value


class _Entry:
    """One submitted call and how far it has got."""

    __slots__ = ("call", "future", "execution", "mode", "settled", "task", "dispatched", "plan", "slot")

    def __init__(
        self, call: ToolExecutionInput, future: asyncio.Future[ToolExecutionResult], slot: ThreadSlot | None
    ) -> None:
        self.call = call
        self.future = future
        self.slot = slot  # the thread slot the call fills: its plan's state gets it (a call settled at admission too)
        self.execution: ToolExecution | None = None
        self.mode: ExecutionMode | None = None
        self.settled: Settled | None = None
        self.task: asyncio.Task[ToolExecutionResult] | None = None  # a parallel call's dispatch
        self.dispatched: ToolExecutionResult | None = None  # an exclusive call's, run in the lane's task
        self.plan: CallPlan | None = None  # built when the call starts

    def ready(self) -> bool:
        """Settled without dispatch, or its dispatch has finished: it can be recorded."""
        return self.settled is not None or self.dispatched is not None or (self.task is not None and self.task.done())


class CallLane:
    """Schedules calls through the pipeline: one policy lane, a pool of dispatches."""

    def __init__(
        self,
        host: PipelineHost,
        *,
        max_parallel: int = DEFAULT_MAX_PARALLEL,
        gates: Sequence[Gate] = STANDARD_GATES,
        defer_commits: bool = False,
        on_recorded: Callable[[ToolExecutionResult], None] | None = None,
        stay_open: bool = False,
    ) -> None:
        self._host = host
        # With stay_open, an idle driver waits for more calls until close() (one driver task for a
        # Code Mode program's calls instead of one per call); else it returns once everything is recorded.
        self._stay_open = stay_open
        # Told each result as it is recorded, before the lane starts another call (Code Mode
        # parks a program there: nothing queued after a deferred call may start).
        self._on_recorded = on_recorded
        # With defer_commits, the journal commits of recorded calls wait here for the lane's owner
        # (execute_batch awaits them once, before handing any result back); else each call awaits its own.
        self.commits: list[Awaitable[None]] | None = [] if defer_commits else None
        self._max = check_max_parallel(max_parallel)
        self._gates = tuple(gates)
        self._queue: deque[_Entry] = deque()  # submitted, not started
        self._open: deque[_Entry] = deque()  # started, not yet recorded (input order)
        self._running = 0  # dispatch tasks not finished
        self._barrier: _Entry | None = None  # the exclusive call in ``_open``, if any
        self._wake: asyncio.Future[None] | None = None

    def close(self) -> None:
        """No more calls: a driver waiting for them (``stay_open``) returns once everything submitted is recorded."""
        self._stay_open = False
        self._wake_up()

    def cancel_queued(self) -> None:
        """Drop every call submitted but not started: no policy, no body, no record (their futures are cancelled)."""
        while self._queue:
            self._queue.popleft().future.cancel()

    # -- feeding ----------------------------------------------------------
    def submit(self, call: ToolExecutionInput, slot: ThreadSlot | None = None) -> asyncio.Future[ToolExecutionResult]:
        """Queue ``call`` (``slot``: its place in a thread's step); the future resolves with its result once it is recorded."""
        entry = _Entry(call, asyncio.get_running_loop().create_future(), slot)
        self._queue.append(entry)
        self._wake_up()
        return entry.future

    @property
    def idle(self) -> bool:
        """Nothing queued and nothing started but unrecorded."""
        return not self._queue and not self._open

    async def drive(self) -> None:
        """Run the lane in the current task until everything submitted has been recorded."""
        with CallerScope() as scope:
            try:
                await self._run(scope)
            except asyncio.CancelledError:
                if not cancel_requested():
                    raise
                await self._shut_down(None)
                raise
            except FATAL as error:
                await self._shut_down(error)
                raise
            scope.raise_if_cancelled()

    # -- the loop ---------------------------------------------------------
    async def _run(self, scope: CallerScope) -> None:
        while True:
            if scope.requested():
                raise asyncio.CancelledError
            if self._open and self._open[0].ready():
                await self._record(self._open.popleft())
            elif self._queue and self._may_start(self._queue[0]):
                await self._start(self._queue.popleft())
            elif self.idle and not self._stay_open:
                return
            else:
                await self._sleep()

    def _may_start(self, entry: _Entry) -> bool:
        if entry.execution is None and entry.settled is None:
            admitted = admit(self._host, entry.call)
            if type(admitted) is Failure:
                entry.settled = admitted.failure()
            else:
                entry.execution = admitted.unwrap()
        execution = entry.execution
        if entry.settled is not None or execution is None:
            return True  # nothing to dispatch: it only waits for its turn to be recorded
        signal = execution.signal
        if signal is not None and signal.aborted:
            return True  # open_call settles it ABORTED_BEFORE_DISPATCH without policy
        if self._barrier is not None:
            return False
        if entry.mode is None:
            if self._running >= self._max:
                return False
            entry.mode = classify(self._host, execution)  # read now: the call is about to start
        if entry.mode == "exclusive":
            return not self._open
        return self._running < self._max

    async def _start(self, entry: _Entry) -> None:
        self._open.append(entry)
        execution = entry.execution
        if entry.settled is not None or execution is None:
            return
        plan = entry.plan = plan_call(self._host, execution)
        plan.state.thread_slot = entry.slot
        opened = await open_call(plan, execution, self._gates)
        if type(opened) is Failure:
            entry.settled = opened.failure()
            return
        if entry.mode != "parallel":
            self._barrier = entry
        if entry.mode == "exclusive":
            # Nothing else runs while an exclusive call does, so its dispatch runs here, in the lane's
            # task: no task of its own to start and no wake-up to record it (a Code Mode program's
            # sequential calls are all this). A cancellation of the lane reaches its body as one of execute()'s does.
            try:
                entry.dispatched = await dispatch_call(plan, opened.unwrap())
            except Exception as error:  # noqa: BLE001 - as a parallel call's failed task is (_dispatch_result)
                entry.dispatched = exception_result(execution.call_id, error)
            return
        entry.task = asyncio.create_task(dispatch_call(plan, opened.unwrap()))
        self._running += 1
        entry.task.add_done_callback(self._dispatched)

    def _dispatched(self, _: object) -> None:
        self._running -= 1
        self._wake_up()

    async def _record(self, entry: _Entry) -> None:
        settled = entry.settled
        host = entry.plan or self._host  # a call settled at admission was never planned
        if settled is None:
            assert entry.execution is not None
            settled = await close_call(host, entry.execution, _dispatch_result(entry))
        seeded = None
        if entry.plan is None and entry.slot is not None:  # settled at admission: its slot is still filled
            seeded = CallState()
            seeded.thread_slot = entry.slot
        result = await notify_result(host, finalize(settled), deferred_commits=self.commits, state=seeded)
        try:
            if self._on_recorded is not None:
                self._on_recorded(result)
        finally:  # whatever the owner's callback does, the call is recorded: the lane goes on and its caller hears
            if entry is self._barrier:
                self._barrier = None
            if not entry.future.done():
                entry.future.set_result(result)

    async def _sleep(self) -> None:
        self._wake = asyncio.get_running_loop().create_future()
        try:
            await self._wake
        finally:
            self._wake = None

    def _wake_up(self) -> None:
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    # -- cancellation -----------------------------------------------------
    async def _shut_down(self, fatal: BaseException | None) -> None:
        """Cancel running bodies, await them, record every started call, drop the rest."""
        tasks = []
        for entry in self._open:
            if entry.task is not None and not entry.task.done():
                assert entry.plan is not None
                entry.plan.state.abort(CANCELLED)
                entry.task.cancel()
                tasks.append(entry.task)
        if fatal is None:
            await wait_out(tasks)
        while self._open:
            entry = self._open.popleft()
            if fatal is not None and entry.execution is not None:
                await record_interrupted(entry.plan or self._host, entry.execution, fatal)
            elif entry.settled is None and entry.task is None and entry.dispatched is None and entry.execution is not None:
                # interrupted between admission and dispatch
                not_run = aborted_result(entry.execution, "ABORTED_BEFORE_DISPATCH", CANCELLED)
                await notify_result(entry.plan or self._host, Settled(entry.execution, not_run))
            else:
                await self._record(entry)
            if not entry.future.done():
                entry.future.cancel()
        while self._queue:
            self._queue.popleft().future.cancel()


def _dispatch_result(entry: _Entry) -> ToolExecutionResult:
    """The finished dispatch's result (a task cancelled before its first step never ran)."""
    if entry.dispatched is not None:
        return entry.dispatched
    task, execution = entry.task, entry.execution
    assert task is not None and execution is not None
    if task.cancelled():
        return aborted_result(execution, "ABORTED_BEFORE_DISPATCH", CANCELLED)
    error = task.exception()
    return task.result() if error is None else exception_result(execution.call_id, error)


async def execute_batch(
    host: PipelineHost,
    calls: Iterable[ToolExecutionInput],
    *,
    max_parallel: int = DEFAULT_MAX_PARALLEL,
    gates: Sequence[Gate] = STANDARD_GATES,
    thread_slots: Sequence[ThreadSlot] | None = None,
) -> list[ToolExecutionResult]:
    """Run sibling calls (one assistant message) through the pipeline; results in input order.

    Every call ends in exactly one result, bad input included (like
    ``execute``, nothing a call does raises). ``max_parallel < 1`` raises
    ``ValueError``; ``max_parallel=1`` is serial. ``thread_slots`` (one per
    call) are the calls' places in a thread's open step (``dsh_tools.threads``).
    """
    lane = CallLane(host, max_parallel=max_parallel, gates=gates, defer_commits=True)
    calls = list(calls)
    if thread_slots is not None and len(thread_slots) != len(calls):
        raise ValueError("execute_batch(thread_slots=...) takes one slot per call")
    futures = [lane.submit(call, None if thread_slots is None else thread_slots[i]) for i, call in enumerate(calls)]
    try:
        await lane.drive()
    finally:
        for commit in lane.commits or ():
            await commit  # every result is in the journal before any is handed back
    return [future.result() for future in futures]
