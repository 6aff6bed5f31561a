"""The admission rule both code runtimes share: a cap on sandbox processes, a bounded queue, then "busy".

Each sandbox process costs memory (a V8 heap, a Monty worker) and, while its
program spins, a core. So a runtime holds at most ``max_processes`` of them
at once; a run that finds every one taken waits for the next to be given
back, in arrival order; and past ``max_queued_runs`` waiting runs, a new one
is refused at once with :class:`~dsh_tools.errors.CodeRuntimeBusyError`
rather than joining a queue it would spend its whole budget in. A run's
budgets are charged from the moment it holds its slot, never while it waits.

:class:`Slots` is that rule and nothing else; what a slot holds (a pooled
Deno process, a checked-out Monty worker) is the runtime's business.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

from dsh_tools.errors import CodeRuntimeBusyError
from dsh_tools.signals import AbortSignal

__all__ = ["DISPOSED", "Slots", "SlotsClosed", "unless_aborted"]

_T = TypeVar("_T")

DISPOSED: Final = "the run was aborted: the code runtime was disposed"
"""The ``abort`` failure of a run that ``dispose()`` ended, in flight or still waiting for its slot."""


class SlotsClosed(RuntimeError):
    """The runtime is being disposed: a run still waiting for a slot will not get one."""


class Slots:
    """At most ``cap`` slots held at once; takers beyond wait in arrival order, at most ``max_waiting`` of them."""

    def __init__(self, cap: int, max_waiting: int) -> None:
        self._cap = cap
        self._max_waiting = max_waiting
        self._held = 0
        self._queue: deque[asyncio.Future[None]] = deque()
        self._closed: str | None = None

    @property
    def queued(self) -> int:
        """Takers waiting for a slot right now."""
        return sum(1 for waiter in self._queue if not waiter.done())

    def try_take(self) -> bool:
        """Take a slot if one is free and nobody waits for it (a waiting run comes first)."""
        if self._closed is not None or self._held >= self._cap or self._queue:
            return False
        self._held += 1
        return True

    async def take(self) -> bool:
        """Take a slot, waiting in line for one if none is free; ``True`` once it is the caller's.

        Raises :class:`~dsh_tools.errors.CodeRuntimeBusyError` at once when
        ``max_waiting`` takers already wait, and :class:`SlotsClosed` if the
        slots are closed before this taker's turn comes.
        """
        if self._closed is not None:
            raise SlotsClosed(self._closed)
        if self.try_take():
            return True
        if self.queued >= self._max_waiting:
            raise CodeRuntimeBusyError(
                f"all {self._cap} sandbox processes are busy and {self._max_waiting} runs already wait for one "
                "(max_processes, max_queued_runs)"
            )
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(waiter)
        try:
            await waiter  # resolved by give_back, which counts the slot as ours
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                self.give_back()  # the slot was ours already: pass it on
            else:
                with contextlib.suppress(ValueError):
                    self._queue.remove(waiter)
            raise
        return True

    def give_back(self) -> bool:
        """A held slot is free again: handed to the first waiting taker (``True``), else freed (``False``)."""
        while self._queue:
            waiter = self._queue.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return True
        self._held -= 1
        return False

    def close(self, why: str) -> None:
        """Refuse every waiting and later taker with :class:`SlotsClosed` (slots held stay held until given back)."""
        self._closed = why
        while self._queue:
            waiter = self._queue.popleft()
            if not waiter.done():
                waiter.set_exception(SlotsClosed(why))


async def unless_aborted(
    awaitable: Awaitable[_T], signal: AbortSignal | None, discard: Callable[[_T], object]
) -> _T | None:
    """``awaitable``'s result, or ``None`` once ``signal`` aborts while it is awaited.

    For a run waiting for its slot or process: the run's signal stops the
    wait, but a cancellation of the caller's own task still raises. A result
    that arrives as the wait is being abandoned is handed to ``discard``
    (give the slot back, retire the process), so nothing is leaked.
    """
    if signal is None:
        return await awaitable
    task = asyncio.current_task()
    before = task.cancelling() if task is not None else 0
    waiting = asyncio.ensure_future(awaitable)

    def stop_waiting(_reason: object) -> None:
        waiting.cancel()

    undo = signal.add_listener(stop_waiting)
    try:
        return await waiting
    except asyncio.CancelledError:
        if waiting.done() and not waiting.cancelled() and waiting.exception() is None:
            discard(waiting.result())
        if signal.aborted and (task is None or task.cancelling() == before):
            return None
        raise
    finally:
        undo()
