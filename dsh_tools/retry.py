"""``Retry``: how often a tool's failing body is run again, declared on its definition.

A value on the definition (``define_tool(..., retry=Retry(3))``, ``@tool(retry=...)``
or a ``retry`` attribute), kept by the registry's snapshot and acted on by
:class:`~dsh_tools.retry_policy.RetryPolicy`. This module is only the record and
its checks, so definitions can name it without importing the pipeline.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

from dsh_tools.execution import ToolExecutionResult
from dsh_tools.record import Record

__all__ = ["DEFAULT_RETRY_ON", "Retry", "RetryOn", "check_retry"]

RetryOn = type[BaseException] | str
"""An exception type the body may raise, or an error code (``ToolErrorInfo.code``) of a failed attempt."""

DEFAULT_RETRY_ON: Final[tuple[RetryOn, ...]] = ("TOOL_TIMEOUT", ConnectionError, TimeoutError)


class Retry(Record):
    """How often to run a failing body: ``attempts`` counts the first try (so ``1`` never retries).

    ``backoff_ms`` is the wait before the second attempt, doubled before each
    later one up to ``max_backoff_ms``. ``on`` lists exception types and error
    codes (default :data:`DEFAULT_RETRY_ON`). Bad values raise ``ValueError``
    (``TypeError`` for an ``on`` entry that is neither) at construction.
    """

    attempts: int
    backoff_ms: float = 200
    max_backoff_ms: float = 5000
    on: tuple[RetryOn, ...] = DEFAULT_RETRY_ON

    if not TYPE_CHECKING:

        def __new__(cls, *args: object, **kwargs: object):
            self = super().__new__(cls, *args, **kwargs)
            object.__setattr__(self, "on", _checked(self))
            return self

    def delay_ms(self, attempt: int) -> float:
        """The wait after failed attempt ``attempt`` (1-based), before the next one."""
        return float(min(self.backoff_ms * 2 ** (attempt - 1), self.max_backoff_ms))

    def matches(self, result: ToolExecutionResult, raised: BaseException | None) -> bool:
        """Does ``on`` name this failure (its error code, or the exception the body raised)?"""
        code = result.error.code if result.error is not None else None
        for entry in self.on:
            if isinstance(entry, str):
                if entry == code:
                    return True
            elif raised is not None and isinstance(raised, entry):
                return True
        return False

    def to_json(self) -> dict[str, Any]:
        """``{attempts, backoffMs, maxBackoffMs, on}`` with exception types by name."""
        on = [entry if type(entry) is str else entry.__qualname__ for entry in self.on]  # type: ignore[union-attr]
        return {"attempts": self.attempts, "backoffMs": self.backoff_ms, "maxBackoffMs": self.max_backoff_ms, "on": on}


def _checked(retry: Retry) -> tuple[RetryOn, ...]:
    attempts = retry.attempts
    if type(attempts) is not int or attempts < 1:
        raise ValueError(f"Retry attempts must be an int >= 1 (it counts the first try), got {attempts!r}")
    for name in ("backoff_ms", "max_backoff_ms"):
        value = getattr(retry, name)
        if type(value) not in (int, float) or not math.isfinite(value) or value < 0:
            raise ValueError(f"Retry {name} must be a finite number of milliseconds >= 0, got {value!r}")
    on: object = retry.on
    if isinstance(on, (str, type)) or not isinstance(on, Iterable):
        on = (on,)  # one entry on its own
    entries = tuple(on)
    if not entries:
        raise ValueError("Retry on must name at least one exception type or error code")
    for entry in entries:
        if type(entry) is str:
            if not entry:
                raise ValueError("Retry on: an error code must be a non-empty str")
        elif not (isinstance(entry, type) and issubclass(entry, BaseException)):
            got = f"the class {entry.__name__}" if isinstance(entry, type) else f"a {type(entry).__name__}"
            raise TypeError(f"Retry on: expected exception types or error codes, got {got}")
    return entries  # each entry is checked just above


def check_retry(value: object, tool: str) -> Retry | None:
    """A definition's ``retry``: ``None`` or a :class:`Retry` (``TypeError`` naming the tool otherwise)."""
    if value is None or type(value) is Retry:
        return value
    raise TypeError(f'tool "{tool}": retry must be a Retry, got {type(value).__name__}')
