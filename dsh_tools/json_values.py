"""The JSON boundary: decide "losslessly JSON", detach, deep-freeze, thaw, encode.

Everything that crosses into the pipeline from a caller, a listener or a tool
body passes through :func:`freeze_json` exactly once. It is *total*: hostile
values (a ``__eq__`` that raises, a ``dict`` subclass carrying state, NaN, a
cycle, a list nested a million deep, a string with a lone surrogate) answer
"not JSON" as a value instead of raising or recursing to death. Because it
checks exact types (``type(x) is dict``), no user code ever runs during the
walk, so nothing can mutate the value halfway through or smuggle state past
the check. (The walk itself is :mod:`dsh_tools.json_walk`.)

The frozen shape: :class:`FrozenDict` for objects (an immutable ``dict`` that
keeps the author's key order), ``tuple`` for arrays. Both are accepted back as
JSON containers, so a frozen value re-freezes to itself; pyrsistent's
``PMap``/``PVector`` and plain ``dict``/``list`` are accepted as input.

Frozen by construction. Past admission the pipeline carries the
:data:`FrozenJson` a freeze built, and hands it from record to record
without walking it again (``Record._carrying``). Where a value comes from
outside it is frozen once; if it is one of ours, that must cost O(1), and
soundly: neither the static type nor the container types are proof (anyone
can build a ``tuple`` holding a ``list``, or a ``FrozenDict`` holding NaN).
The proof is a mark only a verifying walk sets: every ``FrozenDict`` a walk
(or a compiled freezer, by the same rules) returns carries its *extent*
(values, height) in a private slot its own ``__setattr__`` refuses
(:func:`dsh_tools.json_walk.verified`). Immutable all the way down, it never
goes stale; the fast walk takes it in O(1) anywhere, charging its extent
against :data:`MAX_VALUES` and :data:`MAX_DEPTH` where it now sits. A tuple
cannot carry a mark, so it is never taken on trust (re-freezing one costs a
pass over its own members). No identity-keyed memo: nothing to evict, no
recycled ``id`` to fool. Copies and user-built ``FrozenDict`` are unmarked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeAlias, Union, cast

import orjson
from returns.result import Failure, Result

from dsh_tools.frozen_dict import FrozenDict
from dsh_tools.json_walk import (
    MAX_DEPTH, MAX_VALUES, PMAP_TYPE, PVECTOR_TYPE, NotJson, extent_of, freeze, frozen_or_not, member_path_segment,
    verified_members,
)

__all__ = [
    "MAX_DEPTH",
    "MAX_VALUES",
    "FrozenDict",
    "FrozenJson",
    "JsonValue",
    "dumps",
    "NotJson",
    "freeze_json",
    "frozen_or_failure",
    "frozen_or_raise",
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
        tuple["FrozenJson", ...],
        FrozenDict[str, "FrozenJson"],
    ]
    """A deep-frozen JSON value: ``FrozenDict`` objects and ``tuple`` arrays only."""
else:  # runtime aliases, usable in isinstance-free annotations and docs
    JsonValue = object
    FrozenJson = object


def freeze_json(value: object) -> Result[FrozenJson, str]:
    """Detach ``value`` into a deep-frozen JSON value, or say why it is not JSON.

    Returns ``Success(frozen)`` or ``Failure("<path>: <reason>")``. Never raises.
    Objects become :class:`FrozenDict` in their own key order (a ``PMap``,
    which has none, in code-point order), arrays ``tuple``. Exact
    ``FrozenDict``/``tuple`` are walked too (their contents may have been
    built by anyone), but a container whose contents are already frozen is
    returned as is, so re-freezing a frozen value allocates nothing, and a
    ``FrozenDict`` a freeze verified is taken in O(1) wherever it is met
    (see the module docstring).
    """
    try:
        return cast("Result[FrozenJson, str]", freeze(value))  # the walk builds nothing but frozen JSON
    except Exception as error:  # noqa: BLE001 - totality: a hostile value is data (belt and braces)
        return Failure(f"(root): not JSON ({type(error).__name__})")


def frozen_or_raise(value: object, error: Callable[[str], Exception]) -> FrozenJson:
    """:func:`freeze_json` where non-JSON is the caller's bug: the frozen value, or ``error(why)`` raised."""
    frozen = frozen_or_failure(value)
    if isinstance(frozen, NotJson):
        raise error(frozen.why)
    return frozen


def frozen_or_failure(value: object) -> FrozenJson | NotJson:
    """:func:`freeze_json` without the ``Result`` (never raises): the frozen value, or a :class:`~dsh_tools.json_walk.NotJson`."""
    try:
        return frozen_or_not(value)  # type: ignore[return-value]  # the walk builds nothing but frozen JSON
    except Exception as error:  # noqa: BLE001 - totality: a hostile value is data (belt and braces)
        return NotJson(f"(root): not JSON ({type(error).__name__})")


def is_json(value: object) -> bool:
    """Whether ``value`` is losslessly JSON-serializable (total, never raises)."""
    return type(freeze_json(value)) is not Failure



def thaw_json(value: object) -> object:
    """Turn a frozen JSON value back into plain ``dict``/``list`` (new objects).

    Key order is kept: a thawed object lists its keys as the frozen one did
    (a ``PMap``, which has no order of its own, in code-point order).
    """
    kind = type(value)
    if kind is FrozenDict and (extent_of(value) or 0) & 0xFF == 1:
        return dict(value)  # type: ignore[call-overload]  # verified, one level: its values are scalars
    if kind is FrozenDict or kind is dict:
        return {k: thaw_json(v) for k, v in cast("dict[str, object]", value).items()}
    if kind is tuple or kind is list or kind is PVECTOR_TYPE:
        return [thaw_json(v) for v in value]  # type: ignore[attr-defined]
    if kind is PMAP_TYPE:
        return {k: thaw_json(value[k]) for k in sorted(value)}  # type: ignore[index,call-overload]
    return value


def _encode_default(value: object) -> object:
    kind = type(value)
    if kind is FrozenDict:
        return dict(value)  # type: ignore[call-overload]  # same order; its children are encoded in turn
    if kind is PMAP_TYPE:
        return {k: value[k] for k in sorted(value)}  # type: ignore[index,call-overload]  # canonical order
    if kind is PVECTOR_TYPE:
        return list(value)  # type: ignore[call-overload]
    raise TypeError(f"{kind.__name__} is not JSON")


def dumps(value: object) -> bytes:
    """Encode a JSON value (plain or frozen) with orjson, keys in their order;
    raises ``TypeError`` if not JSON.

    A ``FrozenDict`` a freeze verified, or a tuple of such values and
    strings (:func:`~dsh_tools.json_walk.verified_members`), is written by orjson natively (it holds exact JSON types
    only). Anything else goes through the checked path, which refuses
    subclasses and foreign types; callers that hold unchecked data should
    still :func:`freeze_json` first: orjson writes NaN as ``null``, which is
    not lossless.
    """
    if extent_of(value) is not None or (type(value) is tuple and verified_members(value)):
        return orjson.dumps(value)
    try:
        return orjson.dumps(value, default=_encode_default, option=orjson.OPT_PASSTHROUGH_SUBCLASS)
    except orjson.JSONEncodeError as error:
        raise TypeError(str(error)) from None
