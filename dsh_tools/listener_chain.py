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

A run allocates one :class:`_Chain` and, per level, the level's coroutine and
its ``next`` (a ``functools.partial`` over the next level): every call with a
listener pays this, so nothing else is built per level.
"""

from __future__ import annotations

from functools import partial
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, Generic, Protocol, TypeAlias, TypeVar

from dsh_tools.awaitables import is_awaitable

__all__ = ["FailureRule", "Refused", "Rest", "plain_next", "run_chain"]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
A = TypeVar("A", bound=tuple[object, ...])

Rest: TypeAlias = Callable[[A], Awaitable[T]]
"""The levels inside the current one, run with the arguments they are given."""


class Refused:
    """A level's check refused its listener's answer: ``problem`` reads ``returned dict, expected ...``.

    A check answers the (checked) value itself or one of these: the common
    case, a good answer, builds nothing.
    """

    __slots__ = ("problem",)

    def __init__(self, problem: str) -> None:
        self.problem: Final = problem

    def __repr__(self) -> str:
        return f"Refused({self.problem!r})"


class FailureRule(Protocol[T_co]):
    """What a failing level answers instead of a checked value (or raises)."""

    def raised(self, listener: object, error: BaseException) -> T_co:
        """``listener`` raised ``error`` (called while it is being handled)."""

    def refused(self, listener: object, problem: str) -> T_co:
        """The check refused ``listener``'s answer: ``problem`` reads ``returned dict, expected ...``."""


def plain_next(rest: Rest[A, T], arguments: A) -> Callable[[], Awaitable[T]]:
    """The usual ``next``: no parameters; the inner levels get this level's arguments."""
    return partial(rest, arguments)


def run_chain(
    listeners: Sequence[Callable[..., Any]],
    arguments: A,
    base: Callable[..., T | Awaitable[T]],
    check: Callable[[object], T | Refused],
    rule: FailureRule[T],
    next_for: Callable[[Rest[A, T], A], Callable[..., Awaitable[T]]] = plain_next,
) -> Awaitable[T]:
    """``listener(*arguments, next)`` for each of ``listeners`` (first = outermost) around ``base(*arguments)``.

    ``base`` answers a value or an awaitable of one. ``next_for`` builds each
    level's ``next`` (``tools/execute``'s may change the call's signal). The
    outermost level is what is returned, to be awaited: no coroutine of its
    own around it.
    """
    return _level(_Chain(listeners, base, check, rule, None if next_for is plain_next else next_for), 0, arguments)


class _Chain(Generic[A, T]):
    """A run's fixed parts, passed down the levels (a closure that calls itself would be a cycle per run).

    ``next_for`` is ``None`` for :func:`plain_next`, which the levels build in line.
    """

    __slots__ = ("listeners", "base", "check", "rule", "next_for")

    def __init__(
        self,
        listeners: Sequence[Callable[..., Any]],
        base: Callable[..., T | Awaitable[T]],
        check: Callable[[object], T | Refused],
        rule: FailureRule[T],
        next_for: Callable[[Rest[A, T], A], Callable[..., Awaitable[T]]] | None,
    ) -> None:
        self.listeners = listeners
        self.base = base
        self.check = check
        self.rule = rule
        self.next_for = next_for


async def _level(chain: _Chain[A, T], index: int, arguments: A) -> T:
    listeners = chain.listeners
    if index == len(listeners):
        answer = chain.base(*arguments)
        return await answer if is_awaitable(answer) else answer  # type: ignore[return-value]  # not awaitable: a T
    listener = listeners[index]
    next_for = chain.next_for
    try:
        step = (
            partial(_level, chain, index + 1, arguments) if next_for is None
            else next_for(partial(_level, chain, index + 1), arguments)
        )
        value = listener(*arguments, step)
        if is_awaitable(value):
            value = await value
    except BaseException as error:  # noqa: BLE001 - the rule decides: contained, or raised again
        return chain.rule.raised(listener, _misused_next(error))
    checked = chain.check(value)
    if type(checked) is Refused:
        return chain.rule.refused(listener, checked.problem)
    return checked  # type: ignore[return-value]  # not Refused: a T


_LEVEL_PREFIX: Final = f"{_level.__name__}() "


def _misused_next(error: BaseException) -> BaseException:
    """A plain ``next`` called with arguments: Python's ``TypeError`` would name this module's ``_level`` and
    count its three parameters; the listener's author reads what ``next`` takes instead (failure path only)."""
    if type(error) is not TypeError or not error.args or not str(error.args[0]).startswith(_LEVEL_PREFIX):
        return error
    told = TypeError("next() takes no arguments: the rest of the chain runs with this listener's own arguments")
    told.__cause__, told.__traceback__ = error, error.__traceback__
    return told
