"""The onion: run listeners outermost-first, each free to call ``next()``.

One generic runner serves the three transformable events. A listener receives
the event's arguments plus ``next``; it may return a value, an awaitable of
one, or the awaitable ``next()`` itself. ``check`` judges what each level hands
back, so a malformed value is caught at the level that produced it.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from returns.result import Failure, Result, Success

from dsh_tools.pipeline.cancellation import propagate_if_fatal
from dsh_tools.pipeline.outcomes import StageFailure, report_failure

__all__ = ["ListenerFailure", "run_waterfall"]

T = TypeVar("T")


class ListenerFailure(Exception):
    """Raised out of ``next()`` when an inner level failed; carries the text."""


async def run_waterfall(
    listeners: Sequence[Callable[..., Any]],
    arguments: tuple[object, ...],
    base: Callable[[], Awaitable[T]],
    check: Callable[[object], Result[T, str]],
    event: str,
    logger: logging.Logger | None = None,
) -> Result[T, StageFailure]:
    """Compose ``listeners`` around ``base``; ``Failure`` is sticky (fail closed).

    Once any level fails (raises, or returns what ``check`` refuses), the whole
    run fails with the first failure's text, even if an outer listener caught
    the ``ListenerFailure`` and returned something valid: a policy chain must
    not be talked out of a failure by its own members. A listener that raises
    is reported on ``logger`` (name and traceback); the caller's cancellation
    and ``KeyboardInterrupt``/``SystemExit`` propagate.
    """
    failures: list[StageFailure] = []

    async def level(index: int) -> T:
        if index == len(listeners):
            return await base()
        listener = listeners[index]
        try:
            value = listener(*arguments, lambda: level(index + 1))
            if inspect.isawaitable(value):
                value = await value
        except ListenerFailure:
            raise
        except BaseException as error:  # noqa: BLE001 - contained: becomes the call's error
            propagate_if_fatal(error)
            if logger is not None:
                report_failure(logger, f"{event} listener", listener, error)
            failures.append(StageFailure.raised(error))
            raise ListenerFailure(failures[0].message) from None
        checked = check(value)
        if type(checked) is Failure:
            failures.append(StageFailure(f"{event} listener {checked.failure()}"))
            raise ListenerFailure(failures[0].message)
        return checked.unwrap()

    try:
        outcome = await level(0)
    except ListenerFailure:
        return Failure(failures[0])
    return Failure(failures[0]) if failures else Success(outcome)
