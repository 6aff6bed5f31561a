"""Whose ``CancelledError`` is it? Telling the caller's cancellation from a participant's stray one.

Two very different things raise ``asyncio.CancelledError`` inside a call:

* the caller cancelled the task awaiting ``execute()``/``execute_batch()``
  (or the pipeline cancelled a dispatch task of its own). That is *genuine*:
  the call must still be recorded (``tools/result`` sees one result for it),
  and then the cancellation goes on to the caller;
* a body, listener, guard, approval service or observer raised one itself (or
  let one escape from a task it awaited). That is a participant failure like
  any other and becomes an error result.

asyncio answers the question with ``Task.cancelling()``: the number of pending
cancellation requests of a task. A call remembers the count of its task when
it starts (:class:`CallerScope`); a ``CancelledError`` is genuine exactly when
the count has grown since (:func:`cancel_requested`). Tasks the pipeline
creates start at zero.

``KeyboardInterrupt`` and ``SystemExit`` are never contained: they propagate
once the call has been recorded. Every other ``BaseException`` a participant
raises (``GeneratorExit``, a stray ``CancelledError``, a custom one) is
contained as an error result, like an ``Exception``. :func:`propagate_if_fatal`
is the one place that makes this decision.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Iterable
from types import TracebackType
from typing import Any, Final

__all__ = ["CANCELLED", "FATAL", "CallerScope", "cancel_requested", "propagate_if_fatal", "wait_out"]

CANCELLED: Final = "the caller's task was cancelled"
"""The abort reason a result (and a body's signal) carries when the task awaiting the call was cancelled."""

FATAL: Final = (KeyboardInterrupt, SystemExit)
"""Exceptions that end the process, not the call: recorded, then re-raised."""

_BASELINES: Final[weakref.WeakKeyDictionary[asyncio.Task[object], int]] = weakref.WeakKeyDictionary()
_UNTOUCHED: Final = object()
"""A scope that left the baselines as they were (see ``CallerScope.__enter__``)."""


_running_loop: Final = asyncio._get_running_loop  # None outside a loop (asyncio.get_running_loop raises)


def _current_task() -> asyncio.Task[object] | None:
    loop = _running_loop()
    return None if loop is None else asyncio.current_task(loop)  # no running loop: nothing can be cancelling


def cancel_requested() -> bool:
    """Whether the current task was asked to cancel since its current call began."""
    return _requested(_current_task())


def _requested(task: asyncio.Task[object] | None) -> bool:
    if task is None:
        return False
    pending = task.cancelling()
    # Baselines are never negative, so a task with nothing pending (nearly always)
    # needs no look-up in the weak map, which costs a weak reference per call.
    return pending > 0 and pending > _BASELINES.get(task, 0)


def propagate_if_fatal(error: BaseException) -> None:
    """Re-raise ``error`` if it must leave the pipeline; return if it is the participant's failure.

    Use it first thing in every ``except BaseException`` that contains a participant.
    """
    if isinstance(error, FATAL) or (isinstance(error, asyncio.CancelledError) and cancel_requested()):
        raise error


class CallerScope:
    """``with CallerScope():`` around one call (or batch) run in the caller's task.

    On entry it records the task's pending cancellations, so a cancellation
    that was requested (and swallowed) before the call began is not taken for
    one aimed at this call; one requested and not delivered yet (the task
    cancelled itself) is thrown inside the call, so it is the call's. Nested scopes (a wrapper that calls ``execute``
    inline) restore the outer baseline on exit.
    """

    __slots__ = ("_task", "_saved")

    def __init__(self) -> None:
        self._task = _current_task()
        self._saved: int | None | object = _UNTOUCHED

    def __enter__(self) -> CallerScope:
        task = self._task
        if task is not None:
            pending = task.cancelling()
            if pending and getattr(task, "_must_cancel", False):
                # Requested but not delivered yet (the task cancelled itself, or a listener just before did):
                # it is thrown at the task's next await, inside this call, so it counts as this call's.
                # ``_must_cancel`` is asyncio's own flag (C and Python tasks, 3.11 on); were it ever gone,
                # the call would only contain that cancellation as it did before.
                pending -= 1
            # Nearly always nothing is pending and no scope is open anywhere: a baseline of 0 is what
            # cancel_requested assumes without one, so the weak map (a weak reference per use) is left alone.
            if pending or _BASELINES:
                self._saved = _BASELINES.get(task)
                _BASELINES[task] = pending
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        task, saved = self._task, self._saved
        if task is None or saved is _UNTOUCHED:
            return
        if saved is None:
            _BASELINES.pop(task, None)
        else:
            _BASELINES[task] = saved  # type: ignore[assignment]  # an int: the outer scope's baseline

    def requested(self) -> bool:
        """:func:`cancel_requested` for the scope's own task, known since it opened (no look-up of the current task)."""
        return _requested(self._task)

    def raise_if_cancelled(self) -> None:
        """Let a cancellation that arrived during the call go on to the caller (after recording)."""
        if _requested(self._task):
            raise asyncio.CancelledError


async def wait_out(tasks: Iterable[asyncio.Future[Any]]) -> None:
    """Wait until every task has ended, even if this task is cancelled again meanwhile.

    Used where a cancellation has already been taken in hand (bodies were
    cancelled and must be awaited): a second ``cancel()`` must not abandon them.
    """
    pending = set(tasks)
    while pending:
        try:
            _, pending = await asyncio.wait(pending)
        except asyncio.CancelledError:
            pending = {task for task in pending if not task.done()}
