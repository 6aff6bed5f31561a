"""``is_awaitable``: ``inspect.isawaitable`` decided once per type, for values plugins hand back on every call.

A listener's or observer's answer, a tool body's return and a chain's bottom
are tested on every call, and most are not awaitable at all (a decision
record, ``None``). ``inspect.isawaitable`` asks the ``Awaitable`` ABC each
time; whether a type is awaitable does not change between its instances, so
the answer is kept per type. Generators are the exception (a
``types.coroutine`` generator is awaitable, a plain one is not), so they are
always asked. The cache holds its types weakly: a class made at run time (a
mock's, a model built per request) goes when nothing else holds it. A class
registered with ``Awaitable.register`` after it was first asked about keeps
its first answer.
"""

from __future__ import annotations

import inspect
import weakref
from functools import partial
from collections.abc import Awaitable
from types import CoroutineType, GeneratorType
from typing import Any, Final, TypeGuard

__all__ = ["is_awaitable"]

_BY_TYPE: Final[dict[int, tuple[weakref.ref[type], bool]]] = {}
"""``id(type)`` -> (the type, held weakly; its answer). Keyed by id, not by a weak key: a
``WeakKeyDictionary`` makes a weak reference for every look-up, which cost more than asking
``inspect`` (about 295 ns against 243); this look-up costs about half of ``inspect``'s."""


def is_awaitable(value: object) -> TypeGuard[Awaitable[Any]]:
    """Whether ``value`` can be awaited, as ``inspect.isawaitable`` answers."""
    kind = type(value)
    if kind is CoroutineType:
        return True
    entry = _BY_TYPE.get(id(kind))
    if entry is not None and entry[0]() is kind:
        return entry[1]
    if kind is GeneratorType:
        return inspect.isawaitable(value)
    known = issubclass(kind, Awaitable)  # the real type: a faked __class__ is not asked
    key = id(kind)
    _BY_TYPE[key] = (weakref.ref(kind, partial(_forget, key)), known)
    return known


def _forget(key: int, _: object) -> None:
    """A cached type is gone: its entry goes with it (before its id can be another type's)."""
    _BY_TYPE.pop(key, None)
