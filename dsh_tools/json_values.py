"""The JSON boundary: decide "losslessly JSON", detach, deep-freeze, thaw, encode.

Everything that crosses into the pipeline from a caller, a listener or a tool
body passes through :func:`freeze_json` exactly once. It is *total*: hostile
values (a ``__eq__`` that raises, a ``dict`` subclass carrying state, NaN, a
cycle, a list nested a million deep) answer "not JSON" as a value instead of
raising or recursing to death. Because it checks exact types (``type(x) is
dict``), no user code ever runs during the walk, so nothing can mutate the value
halfway through or smuggle state past the check.

The frozen shape is pyrsistent's: ``PMap`` for objects, ``PVector`` for arrays.
Those two are accepted back as JSON containers, so a frozen value re-freezes to
an equal value (cheaply: see :func:`freeze_json`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeAlias, Union

import orjson
from pyrsistent import PMap, PVector, pmap, pvector
from pyrsistent.typing import PMap as PMapT
from pyrsistent.typing import PVector as PVectorT
from returns.result import Failure, Result, Success

__all__ = [
    "MAX_DEPTH",
    "MAX_VALUES",
    "FrozenJson",
    "JsonValue",
    "dumps",
    "freeze_json",
    "is_json",
    "member_path_segment",
    "thaw_json",
]

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
        PVectorT["FrozenJson"],
        PMapT[str, "FrozenJson"],
    ]
    """A deep-frozen JSON value: ``PMap``/``PVector`` containers only."""
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


def _is_scalar_type(kind: type) -> bool:
    # Identity comparisons only: ``kind in frozenset(...)`` would call a hostile
    # metaclass's ``__hash__``/``__eq__``, which can claim to be ``str``.
    return kind is str or kind is int or kind is bool or kind is _NONE_TYPE


def _is_container_type(kind: type) -> bool:
    return kind is dict or kind is list or kind is tuple or kind is _PMAP_TYPE or kind is _PVECTOR_TYPE


def freeze_json(value: object) -> Result[FrozenJson, str]:
    """Detach ``value`` into a deep-frozen JSON value, or say why it is not JSON.

    Returns ``Success(frozen)`` or ``Failure("<path>: <reason>")``. Never raises.
    Plain ``dict``/``list``/``tuple`` become ``PMap``/``PVector``; exact
    ``PMap``/``PVector`` are walked too (their contents may have been built by
    anyone), but a container whose contents are already frozen scalars is
    returned as is, so re-freezing a frozen value allocates nothing.

    A container this function produced (or verified) recently is remembered
    and answered in O(1): values travel through several records on their way
    through the pipeline, and each record freezes its payload fields.
    """
    if _TRUSTED.get(id(value)) is value:
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
"""Recently frozen containers by ``id``. Each entry holds a strong reference to
its (immutable, deeply checked) value and a hit requires ``entry is value``, so
a recycled id can never be mistaken for a trusted value."""
_TRUST_LIMIT: Final = 4096


def _trust(value: object) -> None:
    kind = type(value)
    if kind is _PMAP_TYPE or kind is _PVECTOR_TYPE:
        if len(_TRUSTED) >= _TRUST_LIMIT:
            _TRUSTED.clear()  # amortized O(1); the working set refills at once
        _TRUSTED[id(value)] = value


def is_json(value: object) -> bool:
    """Whether ``value`` is losslessly JSON-serializable (total, never raises)."""
    return isinstance(freeze_json(value), Success)


_INT_MIN: Final = -(2**63)
_INT_MAX: Final = 2**64 - 1
"""The integers :func:`dumps` (orjson) can encode; beyond them a value is not JSON here."""


def _scalar_problem(value: object) -> str | None:
    kind = type(value)
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
        if keys is not None and type(keys[position]) is not str:
            key_type = type(keys[position]).__name__
            return Failure(f"{_path(stack[:-1])}: object key of type {key_type}, expected string")
        child = items[position]
        kind = type(child)
        if _is_container_type(kind):
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
        if kind is not str and kind is not bool and kind is not _NONE_TYPE:
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
    if kind is dict or kind is _PMAP_TYPE:
        # Exact dict / PMap: .keys()/.values() run no user code.
        return [source, list(source.keys()), list(source.values()), 0, [], kind is dict, 1, 0]
    return [source, None, list(source), 0, [], kind is not _PVECTOR_TYPE, 1, 0]


def _build(frame: list[Any]) -> object:
    if not frame[5]:  # unchanged: the source is already frozen
        return frame[0]
    keys, built = frame[1], frame[4]
    if keys is not None:
        return pmap(dict(zip(keys, built)))
    return pvector(built)


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
    """``key`` / ``.key`` for identifiers, ``["my key"]`` otherwise (shared by validators)."""
    if key.isidentifier():
        return key if first else f".{key}"
    return f"[{orjson.dumps(key).decode()}]"


def thaw_json(value: object) -> object:
    """Turn a frozen JSON value back into plain ``dict``/``list`` (new objects).

    A ``PMap`` has no key order of its own (it iterates in hash order, which
    changes from one process to the next), so its keys come out sorted by code
    point: the same frozen value thaws, and therefore serializes, to the same
    text in every process. Plain dicts keep their insertion order.
    """
    kind = type(value)
    if kind is _PMAP_TYPE:
        return {k: thaw_json(value[k]) for k in sorted(value)}  # type: ignore[index,call-overload]
    if kind is _PVECTOR_TYPE or kind is tuple or kind is list:
        return [thaw_json(v) for v in value]  # type: ignore[attr-defined]
    if kind is dict:
        return {k: thaw_json(v) for k, v in value.items()}  # type: ignore[attr-defined]
    return value


def _encode_default(value: object) -> object:
    kind = type(value)
    if kind is _PMAP_TYPE:
        return {k: value[k] for k in sorted(value)}  # type: ignore[index,call-overload]  # canonical order
    if kind is _PVECTOR_TYPE:
        return list(value)  # type: ignore[call-overload]
    raise TypeError(f"{kind.__name__} is not JSON")


def dumps(value: object) -> bytes:
    """Encode a JSON value (plain or frozen) with orjson; raises ``TypeError`` if not JSON.

    Callers that hold unchecked data should :func:`freeze_json` first: orjson
    writes NaN as ``null``, which is not lossless.
    """
    try:
        return orjson.dumps(value, default=_encode_default, option=orjson.OPT_PASSTHROUGH_SUBCLASS)
    except orjson.JSONEncodeError as error:
        raise TypeError(str(error)) from None
