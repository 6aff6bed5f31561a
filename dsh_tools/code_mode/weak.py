"""Callbacks that do not keep their object alive, so an owner and what it owns form no cycle.

A run owns helpers that call it back (the bridge's call lane, the Deno
watchdog's watch). Handing them a bound method makes the pair a reference
cycle, which reference counting never frees: each finished run then keeps
everything it holds (its sub-calls' recorded results, its bindings, its
logs) until the cyclic collector happens to run, which under load meant
hundreds of megabytes. Held through a weak reference, the callback lets the
run go the moment its last owner drops it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import ParamSpec

__all__ = ["weak_callback"]

_P = ParamSpec("_P")


def weak_callback(method: Callable[_P, None]) -> Callable[_P, None]:
    """``method`` (a bound method), called through a weak reference to its object: once that is gone, a no-op."""
    ref = weakref.WeakMethod(method)

    def call(*args: _P.args, **kwargs: _P.kwargs) -> None:
        bound = ref()
        if bound is not None:
            bound(*args, **kwargs)

    return call
