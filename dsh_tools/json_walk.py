"""The walk that deep-freezes a JSON value: two ways over the same rules.

:func:`freeze` is what :func:`dsh_tools.json_values.freeze_json` runs on a
value it has not seen. Nearly every value is a small plain tree (a tool's
arguments, its result, a content block), so the first try is a recursive walk
tuned for exactly that (:func:`_fast_freeze_tree`): no per-node frames, no error
paths, no memo of frozen forms. Anything it does not take at once (a non-JSON
leaf, a lone surrogate, pyrsistent containers, more than :data:`_TREE_BUDGET`
values, deep nesting, a container met twice, so shared or part of a cycle)
makes it give up, and the exact walk (:func:`_walk_exactly`) answers instead:
iterative, linear in the distinct containers even when sharing makes the tree
huge, keeping a shared container shared in the frozen form, and able to name
the path of what is wrong. Both accept the same values and build the same
frozen form, so the fast walk decides only how soon the answer comes.

Both check exact types (``type(x) is dict``), so no user code runs during
either walk, and both mark every ``FrozenDict`` they return with its extent
(:func:`verified`), so the fast walk takes it in O(1) wherever it is met
again (see :mod:`dsh_tools.json_values` for why that is sound).
"""

from __future__ import annotations

import math
import re
from operator import itemgetter
from typing import Any, Final

import orjson
from pyrsistent import pmap, pvector
from returns.result import Failure, Result, Success

from dsh_tools.frozen_dict import FrozenDict

__all__ = [
    "INT_MAX",
    "INT_MIN",
    "MAX_DEPTH",
    "MAX_VALUES",
    "PMAP_TYPE",
    "PVECTOR_TYPE",
    "find_surrogate",
    "extent_of",
    "nests_within_limits",
    "NotJson",
    "freeze",
    "frozen_or_not",
    "frozen_text_content",
    "has_lone_surrogate",
    "member_path_segment",
    "unicode_text",
    "verified",
    "verified_members",
]

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

PVECTOR_TYPE: Final[type] = type(pvector([]))
PMAP_TYPE: Final[type] = type(pmap({}))
"""pyrsistent's concrete classes, accepted as JSON input (a ``PMap`` in code-point key order)."""
_NONE_TYPE: Final[type] = type(None)
_first: Final = itemgetter(0)
_FROZEN_DICT: Final[type] = FrozenDict
_new_frozen_dict: Final = dict.__new__
_fill: Final = dict.update
_set_extent: Final = FrozenDict._extent.__set__  # type: ignore[attr-defined]  # the slot's descriptor
_HEIGHT_BITS: Final = 8
"""An extent packs ``size << 8 | height`` (a height is at most :data:`MAX_DEPTH`, below 256)."""
_HEIGHT_MASK: Final = (1 << _HEIGHT_BITS) - 1
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
find_surrogate: Final = _SURROGATE.search
"""The first lone surrogate in a string, or ``None`` (for walks that inline the ASCII test:
``not text.isascii() and find_surrogate(text) is not None``, the lone-surrogate rule)."""


def has_lone_surrogate(text: str) -> bool:
    """Whether ``text`` holds a surrogate code point (never valid in UTF-8, so
    not JSON text). ``isascii`` is O(1) in CPython, so ASCII text costs nothing."""
    return not text.isascii() and find_surrogate(text) is not None


def unicode_text(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD, so it is Unicode (JSON) text.

    For text the pipeline writes itself out of foreign strings (an error
    message quoting a tool name or an exception), which must not turn a
    result into "not JSON".
    """
    return text if not has_lone_surrogate(text) else _SURROGATE.sub("\ufffd", text)


def verified(frozen: object, size: int, height: int) -> None:
    """Mark the ``FrozenDict`` ``frozen``, checked as a whole within the limits, as verified JSON
    of ``size`` values in ``height`` levels (its private ``_extent`` slot; see :mod:`dsh_tools.json_values`)."""
    _set_extent(frozen, size << _HEIGHT_BITS | height)


def frozen_text_content(text: str) -> tuple[object, ...] | None:
    """``({"type": "text", "text": text},)`` frozen and verified, as :func:`freeze` would make it; ``None`` when
    ``text`` is not Unicode (a lone surrogate: :func:`freeze` says why).

    The content a typed tool's value renders to, made in one step: freezing
    the plain block walked a dict and a list for every call.
    """
    if type(text) is not str or has_lone_surrogate(text):
        return None
    block = _FROZEN_DICT({"type": "text", "text": text})
    verified(block, 3, 1)  # an object and its two strings, one level
    return (block,)


def extent_of(value: object) -> int | None:
    """The packed extent of a verified ``FrozenDict`` (``size << 8 | height``), else ``None``."""
    return getattr(value, "_extent", None) if type(value) is _FROZEN_DICT else None


def nests_within_limits(value: object) -> bool:
    """Whether JSON ``value`` held one level deeper (a member of another object) is still within the limits.

    O(1) for a verified object (its extent says); anything else is frozen inside
    a one-member object to see, as a caller that nests it would.
    """
    extent = extent_of(value)
    if extent is not None:
        return (extent & _HEIGHT_MASK) < MAX_DEPTH and (extent >> _HEIGHT_BITS) < MAX_VALUES
    return type(frozen_or_not({"": value})) is not NotJson


def _is_container_type(kind: type) -> bool:
    # Identity comparisons only: ``kind in frozenset(...)`` would call a hostile
    # metaclass's ``__hash__``/``__eq__``, which can claim to be ``dict``.
    return kind is dict or kind is list or kind is tuple or kind is _FROZEN_DICT or kind is PMAP_TYPE or kind is PVECTOR_TYPE


INT_MIN: Final = -(2**63)
INT_MAX: Final = 2**64 - 1
"""The integers :func:`dumps` (orjson) can encode (from ``INT_MIN``); beyond them a value is not JSON here."""


_type_name: Final = type.__dict__["__name__"].__get__
"""A class's own name, read from its slot: ``kind.__name__`` would run a metaclass's ``__name__`` property."""


def _scalar_problem(value: object) -> str | None:
    kind = type(value)
    if kind is str:
        return "string with a lone surrogate" if has_lone_surrogate(value) else None  # type: ignore[arg-type]
    if kind is int:
        return None if INT_MIN <= value <= INT_MAX else "integer outside the 64-bit range"  # type: ignore[operator]
    if kind is bool or kind is _NONE_TYPE:
        return None
    if kind is float:
        return None if math.isfinite(value) else "non-finite number"  # type: ignore[arg-type]
    return f"{_type_name(kind)} is not a JSON type"


class _Frame:
    """One container the exact walk has opened (or finished, as a memo entry).

    ``keys`` is ``None`` for an array; ``items`` the source's children, ``position``
    the next one to take; ``built`` their frozen forms, ``changed`` whether any
    differs from its source. ``size`` counts the values from it down as an
    encoder writes them, ``height`` the container levels below it (its own
    added once finished, when ``frozen`` holds its frozen form).
    """

    __slots__ = ("built", "changed", "frozen", "height", "items", "keys", "position", "size", "source")

    def __init__(self, source: object, keys: list[Any] | None, items: list[Any], changed: bool) -> None:
        self.source, self.keys, self.items, self.changed = source, keys, items, changed
        self.position, self.size, self.height = 0, 1, 0
        self.built: list[object] = []
        self.frozen: object = None


def _walk_exactly(root: object) -> Result[object, str]:
    """Iterative walk (no recursion limit to hit); exact types only, so no user code runs.

    Each open container is a :class:`_Frame`. A container met again (shared,
    not a cycle) reuses its finished frame (frozen form, size and height), so
    the walk is linear in the *distinct* containers and a tree that sharing
    makes exponentially large is refused at once (:data:`MAX_VALUES`); its
    height still counts against :data:`MAX_DEPTH` where it is met again.
    Paths are rendered only on failure, from the open frames.
    """
    if not _is_container_type(type(root)):
        problem = _scalar_problem(root)
        return Failure(f"(root): {problem}") if problem else Success(root)

    on_path: set[int] = {id(root)}
    done: dict[int, _Frame] = {}  # id -> finished frame
    stack: list[_Frame] = [_open(root)]
    frame: _Frame
    while stack:
        frame = stack[-1]
        position = frame.position
        items = frame.items
        if position == len(items):
            stack.pop()
            on_path.discard(id(frame.source))
            frame.frozen = _build(frame)
            if frame.size > MAX_VALUES:
                return Failure(f"{_path(stack)}: more than {MAX_VALUES:,} values")
            frame.height += 1  # its own level
            if frame.keys is not None:
                verified(frame.frozen, frame.size, frame.height)
            done[id(frame.source)] = frame
            if stack:
                _adopt(stack[-1], frame)
            continue
        frame.position = position + 1
        keys = frame.keys
        if keys is not None:
            key = keys[position]
            if type(key) is not str:
                return Failure(f"{_path(stack[:-1])}: object key of type {_type_name(type(key))}, expected string")
            if not key.isascii() and find_surrogate(key) is not None:
                return Failure(f"{_path(stack[:-1])}: object key with a lone surrogate")
        child = items[position]
        kind = type(child)
        if kind is str:
            if not child.isascii() and find_surrogate(child) is not None:
                return Failure(f"{_path(stack)}: string with a lone surrogate")
        elif _is_container_type(kind):
            if id(child) in on_path:
                return Failure(f"{_path(stack)}: cycle")
            seen = done.get(id(child))
            if seen is not None and seen.source is not child:
                seen = None  # a recycled id (the source changed under the walk)
            if len(stack) + (1 if seen is None else seen.height) > MAX_DEPTH:
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
        frame.built.append(child)
        frame.size += 1
    return Success(frame.frozen)


def _adopt(parent: _Frame, child: _Frame) -> None:
    """Hand a finished child frame (frozen form, size, height) to its parent frame."""
    frozen = child.frozen
    if frozen is not parent.items[parent.position - 1]:
        parent.changed = True
    parent.built.append(frozen)
    parent.size += child.size
    if child.height > parent.height:
        parent.height = child.height


def _open(source: Any) -> _Frame:
    kind: type = type(source)
    if kind is _FROZEN_DICT or kind is dict:
        # Exact dict / FrozenDict: dict.keys()/.values() run no user code.
        return _Frame(source, list(dict.keys(source)), list(dict.values(source)), kind is dict)
    if kind is PMAP_TYPE:
        # A PMap iterates in string-hash order, which differs between
        # processes: its frozen form takes code-point order instead.
        # Its pairs as stored: a lookup by key would hash each key and compare it with
        # its bucket's others, running a foreign key's __hash__/__eq__.
        pairs = list(source.iteritems())
        if all(type(key) is str for key, _ in pairs):
            pairs.sort(key=_first)  # distinct str keys: no tie ever compares two values
        return _Frame(source, [key for key, _ in pairs], [item for _, item in pairs], True)
    return _Frame(source, None, list(source), kind is not tuple)


def _build(frame: _Frame) -> object:
    if not frame.changed:  # unchanged: the source is already frozen
        return frame.source
    if frame.keys is None:
        return tuple(frame.built)
    made: FrozenDict[str, object] = _new_frozen_dict(_FROZEN_DICT)  # no Python-level __new__: keys are checked
    _fill(made, zip(frame.keys, frame.built))
    return made


def _path(frames: list[_Frame]) -> str:
    """Render the path of the child each open frame most recently handed out."""
    parts: list[str] = []
    for frame in frames:
        index = frame.position - 1
        keys = frame.keys
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


_TREE_BUDGET: Final = 65_536
"""Values the fast walk visits before handing a (rare, large) value over to the
exact walk. A verified object inside is not visited: it counts against
:data:`MAX_VALUES` by its extent, and against this budget as one value."""


class _GiveUp(Exception):
    """The fast walk met something it leaves to the exact walk."""


_GIVE_UP: Final = _GiveUp()


_EMPTY_OBJECT: Final[FrozenDict[str, object]] = FrozenDict()
"""The frozen form of every empty object (immutable, so one serves all; ``()`` is one already)."""
verified(_EMPTY_OBJECT, 1, 1)
_items: Final = dict.items
_isfinite: Final = math.isfinite
_set_item: Final = dict.__setitem__


class NotJson:
    """Why a value is not JSON: :func:`frozen_or_not`'s answer for one (internal; :func:`freeze` makes it a ``Failure``)."""

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        self.why = why


def freeze(root: object) -> Result[object, str]:
    """Deep-freeze ``root``, or say (with its path) why it is not JSON. Never raises.

    A verified ``FrozenDict`` (see :func:`verified`) is its own answer at once.
    """
    frozen = frozen_or_not(root)
    return Failure(frozen.why) if type(frozen) is NotJson else Success(frozen)


def frozen_or_not(root: object) -> object:
    """:func:`freeze` without the ``Result``: the frozen value, or a :class:`NotJson`.

    For the library's own hot paths (a record's JSON field, admission, a
    body's content), where a ``Success`` built only to be unwrapped again
    cost as much as the freeze itself.
    """
    kind = type(root)
    if kind is _FROZEN_DICT and getattr(root, "_extent", None) is not None:
        return root
    if (kind is dict or kind is list or kind is tuple) and not root:  # a no-argument call's {}, a result's []
        return _EMPTY_OBJECT if kind is dict else ()
    if kind is tuple and verified_members(root):
        return root
    if kind is dict or kind is list or kind is tuple or kind is _FROZEN_DICT:
        try:
            return _fast_freeze_tree(root, kind, 1, [MAX_VALUES - 1, 1, _TREE_BUDGET - 1], set())
        except Exception:  # noqa: BLE001 - _GiveUp, a RecursionError, a concurrent mutation: ask the exact walk
            pass
    walked = _walk_exactly(root)
    return NotJson(walked.failure()) if type(walked) is Failure else walked.unwrap()


def verified_members(array: Any) -> bool:
    """Fast path of :func:`freeze`: whether an array of verified objects and strings is frozen JSON
    as it is, from one pass over its members' marks (``False``: left to the walks)."""
    size, height = 1 + len(array), 0
    try:
        for item in array:
            kind = type(item)
            if kind is _FROZEN_DICT:
                extent = item._extent  # AttributeError when unmarked
                size += (extent >> _HEIGHT_BITS) - 1
                if extent & _HEIGHT_MASK > height:
                    height = extent & _HEIGHT_MASK
            elif kind is str:
                if not item.isascii() and find_surrogate(item) is not None:
                    return False
            elif kind is not bool and kind is not _NONE_TYPE:
                return False
    except AttributeError:
        return False
    return size <= MAX_VALUES and height < MAX_DEPTH


def _fast_freeze_tree(value: Any, kind: type, depth: int, state: list[int], seen: set[int]) -> object:
    """The fast path of :func:`freeze`: a plain tree, recursively; raise to hand the value to the exact walk.

    ``depth`` counts the containers from the root down to ``value`` (itself
    included); ``state`` holds the values still allowed (:data:`MAX_VALUES`:
    each container takes its children, the root is taken first, a verified
    object its extent), the deepest level reached, and the work still in
    budget (:data:`_TREE_BUDGET`: the values this walk visits itself; a
    verified object costs one, however large); ``seen`` the ids of the containers met so far (all alive, held
    by the root: a repeat is a shared container or a cycle). An unchanged
    container (already frozen) is returned as is, a verified ``FrozenDict``
    taken by its extent. It reads a snapshot, never the caller's container
    (a ``dict`` copied into its ``FrozenDict`` in C, a ``list`` into a
    tuple), and marks every ``FrozenDict`` it returns :func:`verified`.
    """
    if depth > MAX_DEPTH or id(value) in seen:
        raise _GIVE_UP
    seen.add(id(value))
    keyed = kind is dict or kind is _FROZEN_DICT
    if kind is dict:
        for key in value:  # key types first (iterating runs no user code): copying a non-str key whose hash
            if type(key) is not str:  # collides with another key's calls its __eq__, which could rewrite the value
                raise _GIVE_UP  # before the exact walk reads it
        frozen: Any = _new_frozen_dict(_FROZEN_DICT)
        _fill(frozen, value)
    elif keyed or kind is tuple:
        frozen = value
    elif kind is list:
        frozen = tuple(value)
    else:
        raise _GIVE_UP
    before = state[0]
    outer_deepest = state[1]
    state[1] = depth
    left = before - len(frozen)
    work = state[2] - len(frozen)
    if left < 0 or work < 0:
        raise _GIVE_UP
    state[0], state[2] = left, work
    renewed: list[tuple[Any, object]] | None = None
    for slot, item in _items(frozen) if keyed else enumerate(frozen):
        if keyed and (type(slot) is not str or (not slot.isascii() and find_surrogate(slot) is not None)):
            raise _GIVE_UP
        item_kind = type(item)
        if item_kind is str:  # the commonest leaf, checked inline as the exact walk does
            if not item.isascii() and find_surrogate(item) is not None:
                raise _GIVE_UP
        elif item_kind is bool or item_kind is _NONE_TYPE:
            pass
        elif item_kind is int:  # the 64-bit rule, inline
            if not INT_MIN <= item <= INT_MAX:
                raise _GIVE_UP
        elif item_kind is float:  # the finite rule, inline
            if not _isfinite(item):
                raise _GIVE_UP
        elif item_kind is _FROZEN_DICT and (extent := getattr(item, "_extent", None)) is not None:
            deepest = depth + (extent & _HEIGHT_MASK)
            state[0] -= (extent >> _HEIGHT_BITS) - 1  # its own value is in its parent's length
            if deepest > MAX_DEPTH or state[0] < 0:
                raise _GIVE_UP
            if deepest > state[1]:
                state[1] = deepest
        elif _is_container_type(item_kind):
            child = _fast_freeze_tree(item, item_kind, depth + 1, state, seen)
            if child is not item:
                renewed = [] if renewed is None else renewed
                renewed.append((slot, child))
        else:  # a foreign type (JSON's own are all handled above): the exact walk says why
            raise _GIVE_UP
    height = state[1] - depth + 1
    if outer_deepest > state[1]:
        state[1] = outer_deepest
    if renewed is not None:
        if not keyed:
            items = list(frozen)
            for index, child in renewed:
                items[index] = child
            return tuple(items)
        if frozen is value:  # a FrozenDict with a child to renew: a new one
            frozen = _new_frozen_dict(_FROZEN_DICT)
            _fill(frozen, value)
        for key, child in renewed:
            _set_item(frozen, key, child)
    if keyed:
        _set_extent(frozen, (1 + before - state[0]) << _HEIGHT_BITS | height)  # verified(), inline
    return frozen
