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
from typing import Any, Generic, NoReturn, TypeVar

from returns.result import Failure, Result, Success

from dsh_tools.execution import ToolExecutionResult
from dsh_tools.listener_chain import Refused, run_chain
from dsh_tools.pipeline.checks import checked_result
from dsh_tools.pipeline.cancellation import propagate_if_fatal
from dsh_tools.pipeline.outcomes import StageFailure, report_failure

__all__ = ["Contain", "ContainLevel", "ListenerFailure", "run_fail_closed"]

T = TypeVar("T")


class ListenerFailure(Exception):
    """Raised out of ``next()`` when an inner level of a fail-closed chain failed; carries the text."""


class Contain(Generic[T]):
    """A failing level answers :meth:`settle` of its :class:`StageFailure`; only fatal errors and the caller's cancellation escape.

    Subclasses say what a failure settles; one object serves a whole run (it is
    the chain's rule, and what it needs per call rides on it).
    """

    __slots__ = ("event", "logger")

    def __init__(self, event: str, logger: logging.Logger) -> None:
        self.event = event
        self.logger = logger

    def settle(self, failure: StageFailure) -> T:
        raise NotImplementedError

    def unwinding(self) -> BaseException | None:
        """The failure this run raised to unwind its chain, on its way out (only a waterfall raises one)."""
        return None

    def raised(self, listener: object, error: BaseException) -> T:
        if error is self.unwinding():
            raise error  # an inner level's failure on its way out: recorded where it happened
        propagate_if_fatal(error)
        report_failure(self.logger, f"{self.event} listener", listener, error)
        return self.settle(StageFailure.raised(error))

    def refused(self, listener: object, problem: str) -> T:
        return self.settle(StageFailure(f"{self.event} listener {problem}"))


class ContainLevel(Contain[ToolExecutionResult]):
    """``tools/execute``'s rule: a failing wrapper settles its own level as the call's error result; it checks each level too."""

    __slots__ = ("call_id",)

    def __init__(self, event: str, logger: logging.Logger, call_id: str) -> None:
        super().__init__(event, logger)
        self.call_id = call_id

    def settle(self, failure: StageFailure) -> ToolExecutionResult:
        return failure.result(self.call_id)

    def check(self, value: object) -> ToolExecutionResult | Refused:
        """A level's answer: a well-formed result for this call (``checked_result``)."""
        return checked_result(value, self.call_id)


async def run_fail_closed(
    listeners: Sequence[Callable[..., Any]],
    arguments: tuple[object, ...],
    default: T,
    check: Callable[[object], T | Refused],
    event: str,
    logger: logging.Logger,
    decide_default: Callable[[], Awaitable[T]] | None = None,
) -> Result[T, StageFailure]:
    """Run a decision waterfall around ``default``; the first failure is the chain's (fail closed).

    ``decide_default``, when given, answers instead of ``default`` (read only
    when a listener's ``next()`` reaches the bottom of the chain).
    """
    run = _Waterfall(event, logger, default, decide_default)
    try:
        outcome = await run_chain(listeners, arguments, run.bottom, check, run)
    except ListenerFailure as error:
        if run.failure is None:  # not the run's own (the bottom raised one): a failure like any other
            run.failure = StageFailure.raised(error)
    failure = run.failure
    return Success(outcome) if failure is None else Failure(failure)


class _Waterfall(Contain[T]):
    """One waterfall's run: its bottom, and a rule that keeps the first failure and unwinds the chain with it."""

    __slots__ = ("default", "decide_default", "failure", "_unwinding")

    def __init__(
        self, event: str, logger: logging.Logger, default: T, decide_default: Callable[[], Awaitable[T]] | None
    ) -> None:
        super().__init__(event, logger)
        self.default = default
        self.decide_default = decide_default
        self.failure: StageFailure | None = None
        self._unwinding: ListenerFailure | None = None

    def unwinding(self) -> BaseException | None:
        return self._unwinding

    def bottom(self, *_: object) -> T | Awaitable[T]:
        decide_default = self.decide_default
        return self.default if decide_default is None else decide_default()

    def settle(self, failure: StageFailure) -> NoReturn:
        if self.failure is None:
            self.failure = failure
        # One exception object for the run: a listener that raises a ListenerFailure of its own is a
        # listener that raised, contained like any other, not a failure on its way out.
        if self._unwinding is None:
            self._unwinding = ListenerFailure(self.failure.message)
        raise self._unwinding from None
