"""Check arguments against a server's ``inputSchema`` before the server sees them.

An MCP server's input schema is arbitrary JSON Schema (``anyOf``, ``$ref``,
``format``, type lists ...), far wider than the structured-output subset. So it
is *lowered* to the :class:`~dsh_tools.definitions.validation.Shape` our own
tools compile to, keeping the keywords that subset enforces (``type``, also as
a list; ``properties``; ``required``; ``additionalProperties``; ``items``;
scalar ``enum``/``const``) and leaving the rest to the server, which checks its
own schema anyway. Checking less than the schema says is safe here (the server
still refuses); checking *more* never happens, because an unknown keyword only
ever widens a node to "anything", and one that narrows what a kept keyword
covers drops that keyword: ``patternProperties`` (the keys it matches are not
"additional", and its patterns are not run here) and ``prefixItems`` (the
leading members it describes are not ``items``'s). One known exception:
``integer`` is an exact ``int`` here as for our own tools, so ``2.0`` is
refused where JSON Schema accepts it. The compiled checker and the message
format are the shared ones, so a violation reads exactly like one of a
``define_tool`` tool: ``path: expected string, got number``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Final

from dsh_tools.definitions.output_schema import MAX_SCHEMA_DEPTH
from dsh_tools.definitions.validation import Shape, compile_shape, total_validator

__all__ = ["input_validator"]

_TYPES: Final = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})
_SCALARS: Final = (str, int, float, bool, type(None))
_ANY: Final = Shape(None)


def input_validator(schema: object) -> Callable[[object], list[str]]:
    """A total validator for ``schema`` (path-qualified messages; empty = valid)."""
    return total_validator(compile_shape(_lower(schema, 0)))


def _lower(node: object, depth: int) -> Shape:
    if not isinstance(node, Mapping) or depth >= MAX_SCHEMA_DEPTH:
        return _ANY
    enum, const = _literals(node)
    properties = node.get("properties")
    named = (
        tuple((key, _lower(child, depth + 1)) for key, child in properties.items() if type(key) is str)
        if isinstance(properties, Mapping)
        else ()
    )
    required = node.get("required")
    # Keys a pattern matches are exempt from additionalProperties, leading members from items: neither is checked then.
    extra = None if "patternProperties" in node else node.get("additionalProperties")
    items = None if "prefixItems" in node else node.get("items")
    return Shape(
        _types(node.get("type")),
        enum=enum,
        const=const,
        properties=named,
        required=frozenset(r for r in required if type(r) is str) if isinstance(required, (list, tuple)) else frozenset(),
        additional=False if extra is False else _lower(extra, depth + 1) if isinstance(extra, Mapping) else None,
        items=_lower(items, depth + 1) if isinstance(items, Mapping) else None,
    )


def _is_list(value: object) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str)


def _types(declared: object) -> tuple[str, ...] | None:
    if type(declared) is str:
        return (declared,) if declared in _TYPES else None
    if _is_list(declared):
        words = tuple(word for word in declared if type(word) is str)  # type: ignore[attr-defined]
        if words and all(word in _TYPES for word in words) and len(words) == len(declared):  # type: ignore[arg-type]
            return words
    return None


def _literals(node: Mapping[object, object]) -> tuple[tuple[object, ...] | None, bool]:
    """Scalar ``const`` or ``enum`` members; a non-scalar member makes the node unchecked by value."""
    if "const" in node:
        value = node["const"]
        return ((value,), True) if type(value) in _SCALARS else (None, False)
    members = node.get("enum")
    if _is_list(members) and members and all(type(m) in _SCALARS for m in members):  # type: ignore[attr-defined]
        return tuple(members), False  # type: ignore[arg-type]
    return None, False
