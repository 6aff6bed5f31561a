"""One runner for every listener chain: the three tool-call waterfalls and prompt assembly.

``tools/pre-execute``, ``tools/execute``, ``tools/post-execute`` and
``system-prompt/assemble`` share a shape: listeners run outermost-first around
a base, each gets the event's arguments plus a ``next`` that runs the rest (any
number of times, or not at all), may answer with a value or an awaitable, and
what it answers is checked at its own level, so a malformed value is blamed on
the listener that returned it. What a failing level means differs, so that is
the runner's parameter, a :class:`FailureRule`: the pipeline contains it as a
value (``dsh_tools.pipeline.containment``); prompt assembly, a configuration
edge, raises it to the caller.
"""

from __future__ import annotations

import inspect
from types import CoroutineType
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Generic, NamedTuple, Protocol, TypeAlias, TypeVar

from returns.result import Failure, Result

__all__ = ["FailureRule", "Rest", "plain_next", "run_chain"]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
A = TypeVar("A", bound=tuple[object, ...])

Rest: TypeAlias = Callable[[A], Awaitable[T]]
"""The levels inside the current one, run with the arguments they are given."""


class FailureRule(Protocol[T_co]):
    """What a failing level answers instead of a checked value (or raises)."""

    def raised(self, listener: object, error: BaseException) -> T_co:
        """``listener`` raised ``error`` (called while it is being handled)."""

    def refused(self, listener: object, problem: str) -> T_co:
        """The check refused ``listener``'s answer: ``problem`` reads ``returned dict, expected ...``."""


def plain_next(rest: Rest[A, T], arguments: A) -> Callable[[], Awaitable[T]]:
    """The usual ``next``: no parameters; the inner levels get this level's arguments."""
    return lambda: rest(arguments)


def run_chain(
    listeners: Sequence[Callable[..., Any]],
    arguments: A,
    base: Callable[..., T | Awaitable[T]],
    check: Callable[[object], Result[T, str]],
    rule: FailureRule[T],
    next_for: Callable[[Rest[A, T], A], Callable[..., Awaitable[T]]] = plain_next,
) -> Awaitable[T]:
    """``listener(*arguments, next)`` for each of ``listeners`` (first = outermost) around ``base(*arguments)``.

    ``base`` answers a value or an awaitable of one. ``next_for`` builds each
    level's ``next`` (``tools/execute``'s may change the call's signal). The
    outermost level is what is returned, to be awaited: no coroutine of its
    own around it.
    """
    return _level(_Chain(listeners, base, check, rule, next_for), 0, arguments)


class _Chain(NamedTuple, Generic[A, T]):
    """A run's fixed parts, passed down the levels (a closure that calls itself would be a cycle per run)."""

    listeners: Sequence[Callable[..., Any]]
    base: Callable[..., T | Awaitable[T]]
    check: Callable[[object], Result[T, str]]
    rule: FailureRule[T]
    next_for: Callable[[Rest[A, T], A], Callable[..., Awaitable[T]]]


async def _level(chain: _Chain[A, T], index: int, arguments: A) -> T:
    listeners = chain.listeners
    if index == len(listeners):
        answer = chain.base(*arguments)
        return await answer if type(answer) is CoroutineType or inspect.isawaitable(answer) else answer
    listener = listeners[index]
    try:
        value = listener(*arguments, chain.next_for(lambda inner: _level(chain, index + 1, inner), arguments))
        if type(value) is CoroutineType or inspect.isawaitable(value):  # an async listener's: the exact type first
            value = await value
    except BaseException as error:  # noqa: BLE001 - the rule decides: contained, or raised again
        return chain.rule.raised(listener, error)
    checked = chain.check(value)
    if type(checked) is Failure:
        return chain.rule.refused(listener, checked.failure())
    return checked.unwrap()
