"""``FrozenDict``: the frozen form of a JSON object.

An immutable ``dict`` subclass, so that reads stay C-speed and orjson writes
it natively, typed for mypy as a read-only ``Mapping`` so that type-checked
code cannot spell a mutation. Its own module because both the JSON boundary
(:mod:`dsh_tools.json_values`) and the walk that builds frozen values
(:mod:`dsh_tools.json_walk`) need it; users import it from either
``dsh_tools`` or ``dsh_tools.json_values``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from copy import deepcopy
from typing import TYPE_CHECKING, Any, TypeVar, final, overload

__all__ = ["FrozenDict"]

_K = TypeVar("_K")
_V_co = TypeVar("_V_co", covariant=True)
_T = TypeVar("_T")
_U = TypeVar("_U")

if TYPE_CHECKING:

    @final
    class FrozenDict(Mapping[_K, _V_co]):
        """An immutable, insertion-ordered, hashable mapping (see the runtime class)."""

        @overload
        def __init__(self) -> None: ...
        @overload
        def __init__(self: FrozenDict[str, _V_co], **kwargs: _V_co) -> None: ...
        @overload
        def __init__(self, items: Mapping[_K, _V_co], /) -> None: ...
        @overload
        def __init__(self, items: Iterable[tuple[_K, _V_co]], /) -> None: ...
        def __init__(self, *args: Any, **kwargs: Any) -> None: ...
        def __getitem__(self, key: _K, /) -> _V_co: ...
        def __iter__(self) -> Iterator[_K]: ...
        def __len__(self) -> int: ...
        def __hash__(self) -> int: ...
        def __or__(self, other: Mapping[_K, _T], /) -> FrozenDict[_K, _V_co | _T]: ...
        def __ror__(self, other: Mapping[_K, _T], /) -> FrozenDict[_K, _V_co | _T]: ...
        @classmethod
        def fromkeys(cls, keys: Iterable[_T], value: _U, /) -> FrozenDict[_T, _U]: ...

else:

    @final
    class FrozenDict(dict):
        """An immutable ``dict``: insertion-ordered, hashable, and refusing every mutator.

        A frozen JSON object. Being a real ``dict`` (a subclass that only
        takes methods away) makes every read C-speed: ``d[k]``, ``.get``,
        iteration in the author's order, ``==`` with a plain ``dict`` of the
        same items, and ``orjson`` writes it natively. Every mutator
        (``d[k] = v``, ``del``, ``clear``, ``pop``, ``popitem``,
        ``setdefault``, ``update``, ``|=``) raises ``TypeError``; so does
        subclassing it. The hash is order-insensitive, like ``==``, and
        computed once. ``copy()`` (``dict``'s own) gives a plain, mutable
        shallow copy; ``copy.copy`` gives the value itself.

        Python cannot stop code that calls ``dict``'s own methods on it on
        purpose (``dict.__setitem__(d, k, v)``); that is sabotage, not use,
        and breaks the hash like mutating a tuple's contents through ctypes
        would. Typed for mypy as a read-only ``Mapping``, so type-checked
        code cannot even spell a mutation.
        """

        __slots__ = ("_extent", "_hash")  # _extent: set only by dsh_tools.json_walk and the compiled freezers of definitions.shape_code

        def __new__(cls, *args, **kwargs):
            self = dict.__new__(cls)
            dict.__init__(self, *args, **kwargs)
            return self

        def __init__(self, *args, **kwargs):
            pass  # filled in __new__: calling __init__ again must not refill it

        def __init_subclass__(cls, **kwargs):
            raise TypeError("FrozenDict cannot be subclassed")

        def _immutable(self, *args, **kwargs):
            raise TypeError("FrozenDict is immutable")

        __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _immutable
        del _immutable

        def __setattr__(self, name, value):
            raise AttributeError("FrozenDict is immutable")

        __delattr__ = __setattr__

        def __hash__(self):
            try:
                return self._hash
            except AttributeError:
                value = hash(frozenset(dict.items(self)))
                object.__setattr__(self, "_hash", value)
                return value

        def __or__(self, other):
            if not isinstance(other, Mapping):
                return NotImplemented
            return FrozenDict(dict(self) | dict(other))

        def __ror__(self, other):
            if not isinstance(other, Mapping):
                return NotImplemented
            return FrozenDict(dict(other) | dict(self))

        @classmethod
        def fromkeys(cls, keys, value=None):
            return cls(dict.fromkeys(keys, value))

        def __reduce__(self):
            return (FrozenDict, (dict(self),))

        def __copy__(self):
            return self

        def __deepcopy__(self, memo):
            return FrozenDict({key: deepcopy(value, memo) for key, value in dict.items(self)})

        def __repr__(self):
            return f"FrozenDict({dict.__repr__(self)})"
