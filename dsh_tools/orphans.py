"""Bodies that ignore cancellation: a short grace, then they are orphaned, never awaited without bound.

A body is cancelled when its call is (the caller cancelled the task awaiting
``execute()``/``execute_batch()``) or when its ``timeout_ms`` passed. A body
may catch ``CancelledError`` and carry on; a thread cannot be stopped at all.
Either way the promise to the caller holds: :func:`stop_within` cancels the
body and waits for it at most the grace period (even if the waiter is
cancelled again meanwhile). A body still running after that is *orphaned*:
it keeps running with its signal aborted, :class:`Orphans` holds a reference
to it (so it is not garbage-collected mid-flight), logs a WARNING when it is
orphaned and another when it finally ends, counts it, and discards whatever
it returns. The call settles without it (``ABORTED``, or ``TOOL_TIMEOUT``)
and is recorded as usual.
"""

from __future__ import annotations

import asyncio
import logging
import math
from typing import Any, Final

from dsh_tools.errors import safe_str
from dsh_tools.signals import format_ms

__all__ = ["DEFAULT_GRACE_MS", "Orphans", "check_grace_ms"]

DEFAULT_GRACE_MS: Final = 1_000.0
"""How long a cancelled body gets to stop before it is orphaned."""


def check_grace_ms(value: object, name: str) -> float:
    """``value`` as milliseconds, or ``ValueError`` naming ``name``."""
    if type(value) not in (int, float) or not math.isfinite(value) or value < 0:  # type: ignore[operator, arg-type]
        raise ValueError(f"{name} must be a finite number of milliseconds >= 0, got {value!r}")
    return float(value)  # type: ignore[arg-type]


class Orphans:
    """The bodies orphaned under one owner (a registry, a timeout policy), and how many ever were."""

    __slots__ = ("_running", "count", "grace_ms")

    def __init__(self, grace_ms: float = DEFAULT_GRACE_MS) -> None:
        self.grace_ms = check_grace_ms(grace_ms, "grace_ms")
        self._running: set[asyncio.Future[Any]] = set()
        self.count = 0
        """Bodies orphaned so far (those still running are :attr:`running`)."""

    @property
    def running(self) -> tuple[asyncio.Future[Any], ...]:
        """Orphaned bodies that have not ended yet."""
        return tuple(self._running)

    async def stop_within(self, body: asyncio.Future[Any], logger: logging.Logger, what: str, why: str) -> bool:
        """Cancel ``body`` and wait for it up to the grace period; orphan it past that.

        Returns whether it ended. ``what`` names the body in the log
        (``tool "x" (call c1)``), ``why`` says how its call settled.
        """
        body.cancel()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.grace_ms / 1000
        while not body.done():
            left = deadline - loop.time()
            if left <= 0:
                self._adopt(body, logger, what, why)
                return False
            try:
                await asyncio.wait((body,), timeout=left)
            except asyncio.CancelledError:
                continue  # cancelled again: the grace still bounds the wait
        if not body.cancelled():
            body.exception()  # retrieved: what the cancelled body did is not the call's outcome
        return True

    def _adopt(self, body: asyncio.Future[Any], logger: logging.Logger, what: str, why: str) -> None:
        logger.warning(
            "%s ignored cancellation for %sms; %s, its body keeps running as an orphan and its result will be discarded",
            what,
            format_ms(self.grace_ms),
            why,
        )
        self.count += 1
        self._running.add(body)

        def ended(task: asyncio.Future[Any]) -> None:
            self._running.discard(task)
            outcome = "was cancelled" if task.cancelled() else (
                f"raised {safe_str(task.exception())}" if task.exception() is not None else "returned"
            )
            logger.warning("orphaned body of %s %s; discarded", what, outcome)

        body.add_done_callback(ended)
