"""Mappings keyed by object identity: how scopes (agents) are looked up everywhere.

The scope key of an ``Agent`` is the ``Agent`` object itself, *by identity*.
A plain ``dict`` would ask the key's ``__hash__`` and ``__eq__``, which an
``Agent`` subclass can override: one whose ``__hash__`` raises would make
``execute()`` raise, and one that hashes and compares equal to another agent
would run that agent's scoped tools and slip past its scoped ``Deny``. These
mappings never call either method: a key is found only by being the same
object.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, MutableMapping
from typing import Generic, TypeVar, overload

__all__ = ["IdentityDict", "WeakIdentityDict"]

K = TypeVar("K")
V = TypeVar("V")
D = TypeVar("D")


class IdentityDict(MutableMapping[K, V]):
    """A ``dict`` whose keys match by ``is``; it keeps its keys alive, like a ``dict``."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[int, tuple[K, V]] = {}

    def __getitem__(self, key: K) -> V:
        entry = self._entries.get(id(key))
        if entry is None or entry[0] is not key:
            raise KeyError("no entry for this object")  # never repr() a hostile key
        return entry[1]

    def __setitem__(self, key: K, value: V) -> None:
        self._entries[id(key)] = (key, value)

    def __delitem__(self, key: K) -> None:
        entry = self._entries.get(id(key))
        if entry is None or entry[0] is not key:
            raise KeyError("no entry for this object")
        del self._entries[id(key)]

    def __contains__(self, key: object) -> bool:
        entry = self._entries.get(id(key))
        return entry is not None and entry[0] is key

    def __iter__(self) -> Iterator[K]:
        return (key for key, _ in list(self._entries.values()))

    def __len__(self) -> int:
        return len(self._entries)


class WeakIdentityDict(Generic[K, V]):
    """A cache keyed by identity that does not keep its keys alive (a dead key's entry goes)."""

    __slots__ = ("_entries", "__weakref__")

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref[K], V]] = {}

    @overload
    def get(self, key: K) -> V | None: ...
    @overload
    def get(self, key: K, default: D) -> V | D: ...
    def get(self, key: K, default: object = None) -> object:
        entry = self._entries.get(id(key))
        if entry is None or entry[0]() is not key:
            return default
        return entry[1]

    def __contains__(self, key: object) -> bool:
        entry = self._entries.get(id(key))
        return entry is not None and entry[0]() is key

    def __getitem__(self, key: K) -> V:
        entry = self._entries.get(id(key))
        if entry is None or entry[0]() is not key:
            raise KeyError("no entry for this object")  # never repr() a hostile key
        return entry[1]

    def __setitem__(self, key: K, value: V) -> None:
        ident = id(key)
        self._entries[ident] = (weakref.ref(key, _forget(weakref.ref(self), ident)), value)

    def __delitem__(self, key: K) -> None:
        if key not in self:
            raise KeyError("no entry for this object")
        del self._entries[id(key)]

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


def _forget(owner: weakref.ref[WeakIdentityDict[K, V]], ident: int) -> Callable[[weakref.ref[K]], None]:
    """The weakref callback dropping the entry of a key that died (if it is still that key's entry)."""

    def forget(ref: weakref.ref[K]) -> None:
        mapping = owner()
        if mapping is not None:
            entry = mapping._entries.get(ident)
            if entry is not None and entry[0] is ref:
                del mapping._entries[ident]

    return forget
