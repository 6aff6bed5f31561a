"""When the members of a typed output's union can be told apart by their JSON shape.

A typed tool's value travels as JSON: a Code Mode program, an SDK user or a
log reader receives ``A | B`` with nothing but the value to go by. So every
pair of ``anyOf`` members in a typed output must be *apart*: some plain
JSON test tells which member a value is. The rule, per pair, over each JSON
kind both members admit (``integer`` counts as ``number``: JSON has one
number type, and ``1`` fits ``int | float`` twice):

* ``string``, ``number``, ``boolean``: apart only when both are ``enum``
  (``Literal``) members of that kind with none in common;
* ``object``: apart when one requires a key the other cannot hold (it does
  not declare it and has no schema for undeclared keys, the ``in`` test
  TypeScript narrows by), or when both require a key whose own schemas are
  apart (a ``Literal`` tag, ``kind: "hit"`` vs ``kind: "miss"``);
* ``array`` and ``null``: never (``[]`` fits any two array members).

Members sharing no kind are apart (``str | int``, ``A | list[A]``,
``int | None``). The check reads only schemas the subset walk has already
accepted (so every access is safe), and remembers the pairs it compared, so
a schema that shares subtrees costs each pair once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

__all__ = ["union_overlaps"]

_KINDS: Final = {"integer": "number"}
_ORDER: Final = ("string", "number", "boolean", "null", "object", "array")
_VALUE_KINDS: Final[dict[type, str]] = {str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}
_PLURAL: Final = {"string": "strings", "number": "numbers", "boolean": "booleans", "null": "null", "array": "arrays"}


def union_overlaps(members: Sequence[Any]) -> list[str]:
    """One line per pair of ``members`` (supported schemas) that cannot be told apart, saying why."""
    memo: dict[tuple[int, int], str | None] = {}
    problems: list[str] = []
    for first in range(len(members)):
        for second in range(first + 1, len(members)):
            why = _overlap(members[first], members[second], memo)
            if why is not None:
                problems.append(
                    f"anyOf members {first} ({_describe(members[first])}) and {second} ({_describe(members[second])}) "
                    f"cannot be told apart by their JSON shape: {why}"
                )
    return problems


def _overlap(a: Any, b: Any, memo: dict[tuple[int, int], str | None]) -> str | None:
    """Why a value could be taken for both ``a`` and ``b`` (``None``: they are apart)."""
    key = (id(a), id(b))
    if key in memo:
        return memo[key]
    memo[key] = None  # a pair met again while it is being compared adds nothing new
    why = _compare(a, b, memo)
    memo[key] = why
    return why


def _compare(a: Any, b: Any, memo: dict[tuple[int, int], str | None]) -> str | None:
    for one, other in ((a, b), (b, a)):
        if "anyOf" in one:
            for member in one["anyOf"]:
                why = _overlap(member, other, memo)
                if why is not None:
                    return why
            return None
    shared = [kind for kind in _ORDER if kind in _kinds(a) and kind in _kinds(b)]
    for kind in shared:
        if kind == "object":
            if not _objects_apart(a, b, memo):
                return (
                    "both are objects, and neither requires a key the other cannot hold, "
                    'nor do both require a key whose values differ (a Literal tag such as "kind")'
                )
        elif kind in ("array", "null"):
            return f"both admit {_PLURAL[kind]}" + (" (an empty array fits both)" if kind == "array" else "")
        else:
            left, right = _enum_keys(a, kind), _enum_keys(b, kind)
            if left is None or right is None or left & right:
                words = {word for node in (a, b) for word in _words(node)}
                if kind == "number" and words >= {"integer", "number"}:
                    return "every integer is also a JSON number; declare the number alone"
                noun = "integers" if kind == "number" and words & {"integer", "number"} == {"integer"} else _PLURAL[kind]
                return f"both admit the same {noun} (only Literal members with none in common are apart)"
    return None


def _objects_apart(a: Any, b: Any, memo: dict[tuple[int, int], str | None]) -> bool:
    required_a, required_b = _required(a), _required(b)
    if any(not _holds(b, name) for name in required_a) or any(not _holds(a, name) for name in required_b):
        return True
    properties_a, properties_b = _properties(a), _properties(b)
    shared = [name for name in required_a if name in required_b]
    return any(_overlap(properties_a[name], properties_b[name], memo) is None for name in shared)


def _holds(node: Mapping[str, Any], name: str) -> bool:
    """Whether an object of ``node`` may carry key ``name``.

    A record (``properties``, a TypedDict) holds its declared keys, an open
    object (no ``properties``, ``dict[str, X]``) or ``additionalProperties``
    of ``true`` or a schema holds any, ``additionalProperties: false`` none else.
    """
    extra = node.get("additionalProperties")
    if extra is True or isinstance(extra, Mapping):
        return True
    return name in _properties(node) or (extra is None and "properties" not in node)


def _properties(node: Mapping[str, Any]) -> Mapping[str, Any]:
    properties: Mapping[str, Any] = node.get("properties", {})
    return properties


def _required(node: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(node.get("required", ()))


def _words(node: Mapping[str, Any]) -> tuple[str, ...]:
    """The ``type`` words a node declares (``()`` when it has none)."""
    declared = node.get("type")
    if declared is None:
        return ()
    return (declared,) if type(declared) is str else tuple(declared)


def _kinds(node: Mapping[str, Any]) -> frozenset[str]:
    """The JSON kinds a node's values may have (from ``type``, else from its ``enum``/``const``)."""
    words = _words(node)
    if words:
        return frozenset(_KINDS.get(word, word) for word in words)
    return frozenset(_VALUE_KINDS[type(member)] for member in _enum(node) or ())


def _enum(node: Mapping[str, Any]) -> tuple[object, ...] | None:
    if "const" in node:
        return (node["const"],)
    return tuple(node["enum"]) if "enum" in node else None


def _enum_keys(node: Mapping[str, Any], kind: str) -> frozenset[object] | None:
    """The node's literal members of ``kind`` (``1`` and ``1.0`` are one number), ``None`` when it is not an enum."""
    members = _enum(node)
    if members is None:
        return None
    return frozenset(member for member in members if _VALUE_KINDS[type(member)] == kind)


def _describe(node: Mapping[str, Any]) -> str:
    """A member in a few words: ``object with required "path", "line"``, ``integer``, ``string enum``."""
    if "anyOf" in node:
        return "a union"
    words = " or ".join(_words(node)) or " or ".join(sorted(_kinds(node)))
    if _enum(node) is not None:
        return f"{words} enum"
    if "object" in _words(node):
        required = ", ".join(f'"{name}"' for name in _required(node))
        if required:
            return f"{words} with required {required}"
        if isinstance(node.get("additionalProperties"), Mapping):
            return f"{words} of any keys"
        return f"{words} with no required key"
    return words
