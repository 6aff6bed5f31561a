"""Cooperative cancellation: ``AbortController`` / ``AbortSignal``.

The SPEC is written against the web platform's ``AbortSignal``; this is its
asyncio spelling. A signal is a one-way latch: once aborted it stays aborted with
a ``reason``, listeners run exactly once, and ``await signal.wait()`` returns.
Tools poll ``signal.aborted`` or race ``signal.wait()``; wrappers fuse signals
with :meth:`AbortSignal.any` and :meth:`AbortSignal.timeout`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Final

from dsh_tools.disposer import Disposer

__all__ = ["AbortController", "AbortError", "AbortSignal", "checked_signal", "format_ms"]


class AbortError(Exception):
    """The default abort reason (``abort()`` with no reason)."""

    def __init__(self, message: str = "This operation was aborted") -> None:
        super().__init__(message)


class AbortSignal:
    """Read side of an abort: observe, never trigger. Create via a controller."""

    __slots__ = ("_aborted", "_reason", "_listeners", "_event", "__weakref__")

    def __init__(self) -> None:
        self._aborted = False
        self._reason: object = None
        self._listeners: list[Callable[[object], None]] = []
        self._event: asyncio.Event | None = None

    @property
    def aborted(self) -> bool:
        return self._aborted

    @property
    def reason(self) -> object:
        """Why it aborted (``None`` until then)."""
        return self._reason

    def add_listener(self, callback: Callable[[object], None]) -> Disposer:
        """Call ``callback(reason)`` once on abort (at once if already aborted)."""
        if self._aborted:
            callback(self._reason)
            return Disposer(None)
        self._listeners.append(callback)

        def remove() -> None:
            # By identity: ``list.remove`` uses ``==``, so a callback with a
            # permissive (or raising) ``__eq__`` would take another one's place.
            for index, registered in enumerate(self._listeners):
                if registered is callback:
                    del self._listeners[index]
                    return

        return Disposer(remove)

    async def wait(self) -> object:
        """Wait until aborted; returns the reason."""
        if not self._aborted:
            if self._event is None:
                self._event = asyncio.Event()
            await self._event.wait()
        return self._reason

    def throw_if_aborted(self) -> None:
        """Raise the reason (wrapped in ``AbortError`` if it is not an exception)."""
        if not self._aborted:
            return
        reason = self._reason
        if isinstance(reason, BaseException):
            raise reason
        raise AbortError(str(reason))

    def _trigger(self, reason: object) -> None:
        if self._aborted:
            return
        self._aborted = True
        self._reason = reason
        listeners, self._listeners = self._listeners, []
        if self._event is not None:
            self._event.set()
        for listener in listeners:
            try:
                listener(reason)
            except Exception:  # noqa: BLE001 - one bad listener must not starve the rest
                pass

    @staticmethod
    def abort(reason: object = None) -> AbortSignal:
        """An already-aborted signal (``None`` becomes an ``AbortError``, as with a controller)."""
        controller = AbortController()
        controller.abort(reason)
        return controller.signal

    @staticmethod
    def timeout(ms: float, reason: object = None) -> AbortSignal:
        """A signal that aborts after ``ms`` milliseconds (needs a running loop)."""
        controller = AbortController()
        if reason is None:
            reason = TimeoutError(f"signal timed out after {format_ms(ms)}ms")
        handle = asyncio.get_running_loop().call_later(max(ms, 0) / 1000, controller.abort, reason)
        controller.signal.add_listener(lambda _: handle.cancel())
        return controller.signal

    @staticmethod
    def any(signals: Iterable[AbortSignal]) -> AbortSignal:
        """A signal that aborts with the reason of the first of ``signals`` to abort."""
        controller = AbortController()
        sources = list(signals)
        for source in sources:
            if source.aborted:
                controller.abort(source.reason)
                return controller.signal
        undo = [source.add_listener(controller.abort) for source in sources]

        def detach(_: object) -> None:
            for disposer in undo:
                disposer()

        controller.signal.add_listener(detach)
        return controller.signal


class AbortController:
    """Write side: ``controller.abort(reason)`` aborts ``controller.signal``."""

    __slots__ = ("signal",)

    def __init__(self) -> None:
        self.signal: Final = AbortSignal()

    def abort(self, reason: object = None) -> None:
        """Abort once; later calls are ignored. ``None`` becomes an ``AbortError``."""
        self.signal._trigger(AbortError() if reason is None else reason)


def checked_signal(value: object, where: str) -> AbortSignal | None:
    """``value`` if it is an ``AbortSignal`` or ``None``; else a ``TypeError`` naming ``where`` (a caller's API misuse)."""
    if value is None or type(value) is AbortSignal:
        return value
    raise TypeError(f"{where} takes an AbortSignal or None, got {type(value).__name__}")


def format_ms(ms: float) -> str:
    """``100`` for whole milliseconds, ``2.5`` otherwise (the SPEC's message format)."""
    return str(int(ms)) if float(ms).is_integer() else str(ms)
