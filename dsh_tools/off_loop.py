"""Work on a large JSON value goes to a worker thread, so the event loop keeps serving other calls.

Freezing, validating and rendering JSON costs a few microseconds per value:
nothing for the usual call, but seconds for a value of hundreds of thousands
of items, during which every other call, timer and program on the loop
waits. Such work is moved to a thread past a size threshold: Code Mode
binding arguments past :data:`INLINE_TEXT` characters, a typed tool's
returned value past :data:`INLINE_VALUES` values. Below the thresholds the
work stays on the loop, where it costs less than a thread hop.

:func:`count_over` measures a value's size without paying for the whole of a
large one: it stops as soon as the count passes its limit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Final, ParamSpec, TypeVar

from dsh_tools.frozen_dict import FrozenDict

__all__ = ["INLINE_TEXT", "INLINE_VALUES", "count_over", "off_loop"]

INLINE_TEXT: Final = 1 << 16
"""JSON texts up to this many characters are parsed on the loop; larger ones on a thread."""
INLINE_VALUES: Final = 4_096
"""Values up to this many JSON values (containers included) are processed on the loop."""

P = ParamSpec("P")
R = TypeVar("R")


def count_over(value: object, limit: int) -> bool:
    """Whether ``value`` holds more than ``limit`` JSON values (stops as soon as it does).

    Lists, tuples, dicts and frozen dicts are walked; anything else counts
    as one value.
    """
    kind = type(value)
    if kind is not dict and kind is not list and kind is not tuple and kind is not FrozenDict:
        return limit < 1  # one value
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        count += 1
        if count > limit:
            return True
        kind = type(item)
        if kind is dict or kind is FrozenDict:
            stack.extend(item.values())  # type: ignore[attr-defined]
        elif kind is list or kind is tuple:
            stack.extend(item)  # type: ignore[arg-type]
    return False


async def off_loop(fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """``fn(*args, **kwargs)`` on a worker thread: for work too large for the loop.

    The caller decides (:func:`count_over`, :data:`INLINE_TEXT`) and calls
    ``fn`` itself when the work is small: ``await off_loop(fn, x) if large
    else fn(x)``, with no coroutine around the common case.
    """
    return await asyncio.to_thread(fn, *args, **kwargs)
