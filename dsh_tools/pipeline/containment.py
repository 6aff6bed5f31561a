"""The pipeline's failure rule for listener chains: a failing listener is contained as a value.

A tool call never raises for a misbehaving plugin. A listener that raises, or
answers what its level's check refuses, becomes a :class:`StageFailure` (the
model reads ``Error: ...``; the operator gets the listener's name and the
traceback on the logger). In ``tools/execute`` it settles that level, as the
error result an outer wrapper sees from ``await next()`` and may retry. In the
decision waterfalls (:func:`run_fail_closed`) it settles the whole chain, even
if an outer listener catches it and answers something valid: a policy chain
must not be talked out of a failure by its own members.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Generic, NamedTuple, NoReturn, TypeVar

from returns.result import Failure, Result, Success

from dsh_tools.listener_chain import run_chain
from dsh_tools.pipeline.cancellation import propagate_if_fatal
from dsh_tools.pipeline.outcomes import StageFailure, report_failure

__all__ = ["Contain", "ListenerFailure", "run_fail_closed"]

T = TypeVar("T")


class ListenerFailure(Exception):
    """Raised out of ``next()`` when an inner level of a fail-closed chain failed; carries the text."""


class Contain(NamedTuple, Generic[T]):
    """A failing level answers ``settle(StageFailure)``; only fatal errors and the caller's cancellation escape."""

    event: str
    logger: logging.Logger
    settle: Callable[[StageFailure], T]

    def raised(self, listener: object, error: BaseException) -> T:
        if isinstance(error, ListenerFailure):
            raise error  # an inner level's failure on its way out: recorded where it happened
        propagate_if_fatal(error)
        report_failure(self.logger, f"{self.event} listener", listener, error)
        return self.settle(StageFailure.raised(error))

    def refused(self, listener: object, problem: str) -> T:
        return self.settle(StageFailure(f"{self.event} listener {problem}"))


async def run_fail_closed(
    listeners: Sequence[Callable[..., Any]],
    arguments: tuple[object, ...],
    default: T,
    check: Callable[[object], Result[T, str]],
    event: str,
    logger: logging.Logger,
    decide_default: Callable[[], Awaitable[T]] | None = None,
) -> Result[T, StageFailure]:
    """Run a decision waterfall around ``default``; the first failure is the chain's (fail closed).

    ``decide_default``, when given, answers instead of ``default`` (read only
    when a listener's ``next()`` reaches the bottom of the chain).
    """
    failures: list[StageFailure] = []

    def base(*_: object) -> T | Awaitable[T]:
        return default if decide_default is None else decide_default()

    def stick(failure: StageFailure) -> NoReturn:
        failures.append(failure)
        raise ListenerFailure(failures[0].message) from None

    try:
        outcome = await run_chain(listeners, arguments, base, check, Contain(event, logger, stick))
    except ListenerFailure:
        return Failure(failures[0])
    return Failure(failures[0]) if failures else Success(outcome)
