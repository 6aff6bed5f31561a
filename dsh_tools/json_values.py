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
JSON containers, so a frozen value re-freezes to itself (cheaply: see
:func:`freeze_json`); pyrsistent's ``PMap``/``PVector`` and plain
``dict``/``list`` are accepted as input.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Final, TypeAlias, Union, cast

import orjson
from returns.result import Failure, Result, Success

from dsh_tools.frozen_dict import FrozenDict
from dsh_tools.json_walk import MAX_DEPTH, MAX_VALUES, PMAP_TYPE, PVECTOR_TYPE, freeze, member_path_segment

__all__ = [
    "MAX_DEPTH",
    "MAX_VALUES",
    "FrozenDict",
    "FrozenJson",
    "JsonValue",
    "dumps",
    "freeze_json",
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
    returned as is, so re-freezing a frozen value allocates nothing.

    A container this function produced (or verified) recently is remembered
    and answered in O(1): values travel through several records on their way
    through the pipeline, and each record freezes its payload fields.
    """
    if _is_trusted(value):
        return Success(value)  # type: ignore[arg-type]
    try:
        frozen = cast("Result[FrozenJson, str]", freeze(value))  # the walk builds nothing but frozen JSON
    except Exception as error:  # noqa: BLE001 - totality: a hostile value is data (belt and braces)
        return Failure(f"(root): not JSON ({type(error).__name__})")
    if type(frozen) is not Failure:
        trust_frozen(frozen.unwrap())
    return frozen


def frozen_or_raise(value: object, error: Callable[[str], Exception]) -> FrozenJson:
    """:func:`freeze_json` where non-JSON is the caller's bug: the frozen value, or ``error(why)`` raised."""
    frozen = freeze_json(value)
    if type(frozen) is Failure:
        raise error(frozen.failure())
    return frozen.unwrap()


_TRUSTED: Final[dict[int, object]] = {}
"""Recently frozen tuples by ``id``. Each entry holds a strong reference to
its (immutable, deeply checked) value and a hit requires ``entry is value``, so
a recycled id can never be mistaken for a trusted value."""
_TRUST_LIMIT: Final = 4096
_JSON_MARK: Final = FrozenDict._json  # type: ignore[attr-defined]  # the slot's descriptor


def trust_frozen(value: FrozenJson) -> None:
    """Remember that ``value`` was verified as a whole (internal: not in ``__all__``).

    :func:`freeze_json` calls it on what it built; the only other caller is
    code that built ``value`` itself from exact JSON types by the boundary's
    rules (the typed-output freezer, :mod:`dsh_tools.definitions.fast_freeze`).
    Either way the value is then answered by :func:`freeze_json` and written
    by :func:`dumps` natively. A ``FrozenDict`` carries the mark itself (its
    ``_json`` slot, which its own ``__setattr__`` refuses): immutable, it
    stays true for good, and the SDK renderer reads it too (a marked root
    needs no per-key checks). A tuple cannot carry one and goes to a bounded
    memo.
    """
    kind = type(value)
    if kind is FrozenDict:
        _JSON_MARK.__set__(value, True)
    elif kind is tuple:
        if len(_TRUSTED) >= _TRUST_LIMIT:
            _TRUSTED.clear()  # amortized O(1); the working set refills at once
        _TRUSTED[id(value)] = value


def _is_trusted(value: object) -> bool:
    kind = type(value)
    if kind is FrozenDict:
        return getattr(value, "_json", False) is True
    return kind is tuple and _TRUSTED.get(id(value)) is value


def is_json(value: object) -> bool:
    """Whether ``value`` is losslessly JSON-serializable (total, never raises)."""
    return type(freeze_json(value)) is not Failure



def thaw_json(value: object) -> object:
    """Turn a frozen JSON value back into plain ``dict``/``list`` (new objects).

    Key order is kept: a thawed object lists its keys as the frozen one did
    (a ``PMap``, which has no order of its own, in code-point order).
    """
    kind = type(value)
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
