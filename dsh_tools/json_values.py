"""The JSON boundary: decide "losslessly JSON", detach, deep-freeze, thaw, encode.

Everything that crosses into the pipeline from a caller, a listener or a tool
body passes through :func:`freeze_json` exactly once. It is *total*: hostile
values (a ``__eq__`` that raises, a ``dict`` subclass carrying state, NaN, a
cycle, a list nested a million deep, a string with a lone surrogate) answer
"not JSON" as a value instead of raising or recursing to death. Because it
checks exact types (``type(x) is dict``), no user code ever runs during the
walk, so nothing can mutate the value halfway through or smuggle state past
the check.

The frozen shape: :class:`FrozenDict` for objects (an immutable ``dict`` that
keeps the author's key order), ``tuple`` for arrays. Both are accepted back as
JSON containers, so a frozen value re-freezes to itself (cheaply: see
:func:`freeze_json`); pyrsistent's ``PMap``/``PVector`` and plain
``dict``/``list`` are accepted as input.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from copy import deepcopy
from typing import TYPE_CHECKING, Any, Final, cast, TypeAlias, TypeVar, Union, final, overload

import orjson
from pyrsistent import pmap, pvector
from returns.result import Failure, Result, Success

__all__ = [
    "MAX_DEPTH",
    "MAX_VALUES",
    "FrozenDict",
    "FrozenJson",
    "JsonValue",
    "dumps",
    "freeze_json",
    "is_json",
    "member_path_segment",
    "thaw_json",
]

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

        # _json: set (True) on a value freeze_json verified as a whole, see _trust
        __slots__ = ("_hash", "_json")

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


if TYPE_CHECKING:
    JsonValue: TypeAlias = Union[
        None,
        bool,
        int,
        float,
        str,
        Sequence["JsonValue"],
        Mapping[str, "JsonValue"],
    ]
    """Anything losslessly JSON: plain or frozen containers, finite floats."""

    FrozenJson: TypeAlias = Union[
        None,
        bool,
        int,
        float,
        str,
        tuple["FrozenJson", ...],
        FrozenDict[str, "FrozenJson"],
    ]
    """A deep-frozen JSON value: ``FrozenDict`` objects and ``tuple`` arrays only."""
else:  # runtime aliases, usable in isinstance-free annotations and docs
    JsonValue = object
    FrozenJson = object

MAX_DEPTH: Final = 128
"""Nesting deeper than this is "not JSON": a bound that keeps every consumer
(orjson caps at 254 when encoding, recursive renderers, the Deno peer) safe,
with headroom for the envelopes a value is later wrapped in (a result inside a
session event inside a transport frame) and for :func:`thaw_json`'s recursion."""

MAX_VALUES: Final = 1_000_000
"""More values than this (containers and scalars, a sub-value that appears
several times counted each time, as an encoder writes it) is "not JSON": it
bounds the walk, and every later encoding of the value, so that a few shared
containers nested into an exponentially large tree fail fast instead of
hanging whoever freezes, encodes or renders them."""

_PVECTOR_TYPE: Final[type] = type(pvector([]))
_PMAP_TYPE: Final[type] = type(pmap({}))
_NONE_TYPE: Final[type] = type(None)
_FROZEN_DICT: Final[type] = FrozenDict
_new_frozen_dict: Final = dict.__new__
_fill: Final = dict.update
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a surrogate code point (never valid in UTF-8, so
    not JSON text). ``isascii`` is O(1) in CPython, so ASCII text costs nothing."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def _frozen_dict(pairs: Iterable[tuple[str, object]]) -> object:
    """A ``FrozenDict`` from trusted pairs, without the Python-level ``__new__``."""
    made: dict[str, object] = _new_frozen_dict(_FROZEN_DICT)
    _fill(made, pairs)
    return made


def _is_scalar_type(kind: type) -> bool:
    # Identity comparisons only: ``kind in frozenset(...)`` would call a hostile
    # metaclass's ``__hash__``/``__eq__``, which can claim to be ``str``.
    return kind is str or kind is int or kind is bool or kind is _NONE_TYPE


def _is_container_type(kind: type) -> bool:
    return (
        kind is dict
        or kind is list
        or kind is tuple
        or kind is _FROZEN_DICT
        or kind is _PMAP_TYPE
        or kind is _PVECTOR_TYPE
    )


def freeze_json(value: object) -> Result[FrozenJson, str]:
    """Detach ``value`` into a deep-frozen JSON value, or say why it is not JSON.

    Returns ``Success(frozen)`` or ``Failure("<path>: <reason>")``. Never raises.
    Objects become :class:`FrozenDict` in their own key order (a ``PMap``,
    which has none, in code-point order), arrays ``tuple``. Exact
    ``FrozenDict``/``tuple`` are walked too (their contents may have been
    built by anyone), but a container whose contents are already frozen is
    returned as is, so re-freezing a frozen value allocates nothing.

    A container this function produced (or verified) recently is remembered
    and answered in O(1): values travel through several records on their way
    through the pipeline, and each record freezes its payload fields.
    """
    if _is_trusted(value):
        return Success(value)  # type: ignore[arg-type]
    try:
        frozen = _freeze(value)
    except RecursionError:  # pragma: no cover - _freeze is iterative; belt and braces
        return Failure("(root): nesting too deep")
    except Exception as error:  # noqa: BLE001 - totality: a hostile value is data
        return Failure(f"(root): not JSON ({type(error).__name__})")
    if isinstance(frozen, Success):
        _trust(frozen.unwrap())
    return frozen


_TRUSTED: Final[dict[int, object]] = {}
"""Recently frozen tuples by ``id``. Each entry holds a strong reference to
its (immutable, deeply checked) value and a hit requires ``entry is value``, so
a recycled id can never be mistaken for a trusted value."""
_TRUST_LIMIT: Final = 4096
_JSON_MARK: Final = FrozenDict._json  # type: ignore[attr-defined]  # the slot's descriptor


def _trust(value: object) -> None:
    """Remember that ``value`` was verified as a whole.

    A ``FrozenDict`` carries the mark itself (its ``_json`` slot, which its
    own ``__setattr__`` refuses): immutable, it stays true for good, and the
    SDK renderer reads it too (a marked root needs no per-key checks). A
    tuple cannot carry one and goes to a bounded memo.
    """
    kind = type(value)
    if kind is _FROZEN_DICT:
        _JSON_MARK.__set__(value, True)
    elif kind is tuple:
        if len(_TRUSTED) >= _TRUST_LIMIT:
            _TRUSTED.clear()  # amortized O(1); the working set refills at once
        _TRUSTED[id(value)] = value


def _is_trusted(value: object) -> bool:
    kind = type(value)
    if kind is _FROZEN_DICT:
        return getattr(value, "_json", False) is True
    return kind is tuple and _TRUSTED.get(id(value)) is value


def is_json(value: object) -> bool:
    """Whether ``value`` is losslessly JSON-serializable (total, never raises)."""
    return isinstance(freeze_json(value), Success)


_INT_MIN: Final = -(2**63)
_INT_MAX: Final = 2**64 - 1
"""The integers :func:`dumps` (orjson) can encode; beyond them a value is not JSON here."""


def _scalar_problem(value: object) -> str | None:
    kind = type(value)
    if kind is str:
        return "string with a lone surrogate" if _has_surrogate(value) else None  # type: ignore[arg-type]
    if kind is int:
        return None if _INT_MIN <= value <= _INT_MAX else "integer outside the 64-bit range"  # type: ignore[operator]
    if _is_scalar_type(kind):
        return None
    if kind is float:
        return None if math.isfinite(value) else "non-finite number"  # type: ignore[arg-type]
    return f"{kind.__name__} is not a JSON type"


def _freeze(root: object) -> Result[FrozenJson, str]:
    """Iterative walk (no recursion limit to hit); exact types only, so no user code runs.

    A frame is ``[source, keys | None, items, position, built, changed, size,
    height]``: ``size`` counts the values below it as an encoder writes them,
    ``height`` the levels of containers from it down (its own included once
    it is finished, when ``items`` is replaced by its frozen form). A container met again
    (shared, not a cycle) reuses its frozen form, size and height, so the walk
    is linear in the *distinct* containers and a tree that sharing makes
    exponentially large is refused at once (:data:`MAX_VALUES`); its height
    still counts against :data:`MAX_DEPTH` where it is met again.
    Paths are rendered only on failure, from the open frames.
    """
    if not _is_container_type(type(root)):
        problem = _scalar_problem(root)
        return Failure(f"(root): {problem}") if problem else Success(root)  # type: ignore[arg-type]

    on_path: set[int] = {id(root)}
    done: dict[int, list[Any]] = {}  # id -> finished frame: [source, _, built, ..., size, height]
    stack: list[list[Any]] = [_open(root)]
    built: object = None
    while stack:
        frame = stack[-1]
        position = frame[3]
        items = frame[2]
        if position == len(items):
            stack.pop()
            on_path.discard(id(frame[0]))
            built = _build(frame)
            if frame[6] > MAX_VALUES:
                return Failure(f"{_path(stack)}: more than {MAX_VALUES:,} values")
            frame[2] = built  # the finished frame is the memo entry: no allocation
            frame[7] += 1  # its own level
            done[id(frame[0])] = frame
            if stack:
                _adopt(stack[-1], frame)
            continue
        frame[3] = position + 1
        keys = frame[1]
        if keys is not None:
            key = keys[position]
            if type(key) is not str:
                return Failure(f"{_path(stack[:-1])}: object key of type {type(key).__name__}, expected string")
            if not key.isascii() and _SURROGATE.search(key) is not None:
                return Failure(f"{_path(stack[:-1])}: object key with a lone surrogate")
        child = items[position]
        kind = type(child)
        if kind is str:
            if not child.isascii() and _SURROGATE.search(child) is not None:
                return Failure(f"{_path(stack)}: string with a lone surrogate")
        elif _is_container_type(kind):
            if id(child) in on_path:
                return Failure(f"{_path(stack)}: cycle")
            seen = done.get(id(child))
            if seen is not None and seen[0] is not child:
                seen = None  # a recycled id (the source changed under the walk)
            if len(stack) + (1 if seen is None else seen[7]) > MAX_DEPTH:
                return Failure(f"{_path(stack)}: nesting deeper than {MAX_DEPTH}")
            if seen is not None:
                _adopt(frame, seen)
                continue
            on_path.add(id(child))
            stack.append(_open(child))
            continue
        elif kind is not bool and kind is not _NONE_TYPE:
            problem = _scalar_problem(child)
            if problem is not None:
                return Failure(f"{_path(stack)}: {problem}")
        frame[4].append(child)
        frame[6] += 1
    return Success(built)  # type: ignore[arg-type]


def _adopt(parent: list[Any], child: list[Any]) -> None:
    """Hand a finished child frame (frozen form, size, height) to its parent frame."""
    built = child[2]
    if built is not parent[2][parent[3] - 1]:
        parent[5] = True
    parent[4].append(built)
    parent[6] += child[6]
    if child[7] > parent[7]:
        parent[7] = child[7]


def _open(source: Any) -> list[Any]:
    kind: type = type(source)
    if kind is _FROZEN_DICT or kind is dict:
        # Exact dict / FrozenDict: dict.keys()/.values() run no user code.
        return [source, list(dict.keys(source)), list(dict.values(source)), 0, [], kind is dict, 1, 0]
    if kind is _PMAP_TYPE:
        # A PMap iterates in string-hash order, which differs between
        # processes: its frozen form takes code-point order instead.
        keys = list(source.keys())
        if all(type(key) is str for key in keys):
            keys.sort()
        return [source, keys, [source[key] for key in keys], 0, [], True, 1, 0]
    return [source, None, list(source), 0, [], kind is not tuple, 1, 0]


def _build(frame: list[Any]) -> object:
    if not frame[5]:  # unchanged: the source is already frozen
        return frame[0]
    keys, built = frame[1], frame[4]
    if keys is not None:
        return _frozen_dict(zip(keys, built))
    return tuple(built)


def _path(frames: list[list[Any]]) -> str:
    """Render the path of the child each open frame most recently handed out."""
    parts: list[str] = []
    for frame in frames:
        index = frame[3] - 1
        keys = frame[1]
        if keys is None:
            parts.append(f"[{index}]")
        else:
            parts.append(member_path_segment(str(keys[index]), first=not parts))
    return "".join(parts) or "(root)"


def member_path_segment(key: str, *, first: bool) -> str:
    """``key`` / ``.key`` for identifiers, ``["my key"]`` otherwise (shared by validators).

    Total: a key with a lone surrogate is written ASCII-escaped (``"\\ud800"``).
    """
    if key.isidentifier():
        return key if first else f".{key}"
    try:
        return f"[{orjson.dumps(key).decode()}]"
    except orjson.JSONEncodeError:
        import json

        return f"[{json.dumps(key)}]"


def thaw_json(value: object) -> object:
    """Turn a frozen JSON value back into plain ``dict``/``list`` (new objects).

    Key order is kept: a thawed object lists its keys as the frozen one did
    (a ``PMap``, which has no order of its own, in code-point order).
    """
    kind = type(value)
    if kind is _FROZEN_DICT or kind is dict:
        return {k: thaw_json(v) for k, v in cast("dict[str, object]", value).items()}
    if kind is tuple or kind is list or kind is _PVECTOR_TYPE:
        return [thaw_json(v) for v in value]  # type: ignore[attr-defined]
    if kind is _PMAP_TYPE:
        return {k: thaw_json(value[k]) for k in sorted(value)}  # type: ignore[index,call-overload]
    return value


def _encode_default(value: object) -> object:
    kind = type(value)
    if kind is _FROZEN_DICT:
        return dict(value)  # type: ignore[call-overload]  # same order; its children are encoded in turn
    if kind is _PMAP_TYPE:
        return {k: value[k] for k in sorted(value)}  # type: ignore[index,call-overload]  # canonical order
    if kind is _PVECTOR_TYPE:
        return list(value)  # type: ignore[call-overload]
    raise TypeError(f"{kind.__name__} is not JSON")


def dumps(value: object) -> bytes:
    """Encode a JSON value (plain or frozen) with orjson, keys in their order;
    raises ``TypeError`` if not JSON.

    A value :func:`freeze_json` produced or verified recently is written by
    orjson natively (it holds exact JSON types only). Anything else goes
    through the checked path, which refuses subclasses and foreign types;
    callers that hold unchecked data should still :func:`freeze_json` first:
    orjson writes NaN as ``null``, which is not lossless.
    """
    if _is_trusted(value):
        return orjson.dumps(value)
    try:
        return orjson.dumps(value, default=_encode_default, option=orjson.OPT_PASSTHROUGH_SUBCLASS)
    except orjson.JSONEncodeError as error:
        raise TypeError(str(error)) from None
