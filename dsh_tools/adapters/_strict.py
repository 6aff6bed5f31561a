"""OpenAI strict mode: rewrite a tool's JSON Schema into the subset strict mode takes.

Strict mode (``"strict": true``) makes the model's arguments always match the
schema, but only for a narrow dialect: every object lists all its properties
in ``required`` and says ``additionalProperties: false``, so an optional field
is spelled as a *nullable* required one, and ``default`` does not exist.
:func:`strict_parameters` does that rewrite and refuses (``ValueError``,
naming the tool and the place) what the dialect cannot say: a free-form
object, a ``dict[str, X]`` map, an untyped value, keywords outside the subset.

The rewrite changes the wire: where the author wrote "may be omitted", the
model now sends ``null``. :func:`drop_strict_nulls` undoes exactly that on
the way back (a ``null`` for a field that was optional and not itself
nullable is dropped), so the tool's own validation and defaults see the
arguments the author's schema describes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from dsh_tools.json_values import JsonValue, member_path_segment

__all__ = ["MAX_NESTING", "MAX_PROPERTIES", "drop_strict_nulls", "strict_parameters"]

MAX_NESTING: Final = 10
"""Object nesting strict mode accepts (OpenAI's documented limit)."""

MAX_PROPERTIES: Final = 5000
"""Properties, over the whole schema, that strict mode accepts."""

_KEPT: Final = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "anyOf",
        "description",
        "title",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
    }
)
"""Keywords strict mode takes (``default`` is dropped, anything else refused)."""


class _Walk:
    """One rewrite: the tool's name for messages, and the running property count."""

    def __init__(self, tool: str) -> None:
        self.tool = tool
        self.properties = 0

    def fail(self, path: str, problem: str) -> ValueError:
        return ValueError(f'tool "{self.tool}": strict mode cannot express {problem} at {path}')

    def node(self, schema: object, path: str, depth: int) -> dict[str, object]:
        if not isinstance(schema, Mapping):
            raise self.fail(path, "a schema that is not an object")
        for keyword in schema:
            if keyword != "default" and keyword not in _KEPT:
                raise self.fail(path, f"the keyword {keyword!r}")
        types = _types(schema)
        if not types and not any(k in schema for k in ("anyOf", "enum", "const")):
            raise self.fail(path, "a value without a type (any JSON)")
        out: dict[str, object] = {}
        names: list[str] = []
        for keyword, value in schema.items():
            if keyword == "default":
                continue
            if keyword == "properties":
                rewritten = self.properties_of(schema, value, path, depth)
                out["properties"] = rewritten
                names = list(rewritten)
                continue
            if keyword in ("required", "additionalProperties"):
                continue  # rewritten with the properties below
            if keyword == "items":
                out["items"] = self.node(value, f"{path}[]", depth)
            elif keyword == "anyOf":
                if not isinstance(value, Sequence) or isinstance(value, str):
                    raise self.fail(path, "an anyOf that is not an array")
                out["anyOf"] = [self.node(member, f"{path}.anyOf[{i}]", depth) for i, member in enumerate(value)]
            else:
                out[keyword] = _plain(value)
        if "object" in types:
            extra = schema.get("additionalProperties", False)
            if extra is not False:
                raise self.fail(path, "an object that allows additional properties (a map)")
            if "properties" not in schema:
                raise self.fail(path, "an object without declared properties")
            out["required"] = names
            out["additionalProperties"] = False
        return out

    def properties_of(self, schema: Mapping[str, object], value: object, path: str, depth: int) -> dict[str, object]:
        if depth >= MAX_NESTING:
            raise self.fail(path, f"objects nested deeper than {MAX_NESTING} levels")
        if not isinstance(value, Mapping):
            raise self.fail(path, "properties that are not an object")
        required = schema.get("required", ())
        required_names = set(required) if isinstance(required, Sequence) and not isinstance(required, str) else set()
        self.properties += len(value)
        if self.properties > MAX_PROPERTIES:
            raise self.fail(path, f"more than {MAX_PROPERTIES} properties in one schema")
        rewritten: dict[str, object] = {}
        for key, member in value.items():
            inner = self.node(member, _member(path, key), depth + 1)
            rewritten[key] = inner if key in required_names or _allows_null(inner) else _nullable(inner)
        return rewritten


def strict_parameters(parameters: Mapping[str, object], tool: str) -> dict[str, object]:
    """``parameters`` rewritten for strict mode; ``ValueError`` for what it cannot express."""
    if "object" not in _types(parameters):
        raise ValueError(f'tool "{tool}": strict mode needs parameters of type object')
    return _Walk(tool).node(parameters, "(root)", 0)


def drop_strict_nulls(arguments: JsonValue, parameters: Mapping[str, object]) -> JsonValue:
    """Undo the nulls strict mode makes the model send for fields it could have omitted."""
    if not isinstance(arguments, Mapping):
        return arguments
    properties = parameters.get("properties")
    if not isinstance(properties, Mapping):
        return arguments
    required = parameters.get("required", ())
    required_names = set(required) if isinstance(required, Sequence) and not isinstance(required, str) else set()
    out: dict[str, JsonValue] = {}
    for key, value in arguments.items():
        schema = properties.get(key)
        if not isinstance(schema, Mapping):
            out[key] = value
            continue
        if value is None and key not in required_names and not _allows_null(schema):
            continue
        out[key] = _drop_in_items(value, schema)
    return out


def _drop_in_items(value: JsonValue, schema: Mapping[str, object]) -> JsonValue:
    member = _member_of(value, schema)
    if member is not None:  # a union: the member the value is says which nulls strict mode added
        return _drop_in_items(value, member)
    items = schema.get("items")
    if isinstance(value, Sequence) and not isinstance(value, str) and isinstance(items, Mapping):
        return [_drop_in_items(item, items) for item in value]
    if isinstance(value, Mapping):
        return drop_strict_nulls(value, schema)
    return value


def _member_of(value: JsonValue, schema: Mapping[str, object]) -> Mapping[str, object] | None:
    """The one ``anyOf`` member of ``schema`` an object or array ``value`` can be, or ``None`` (not a union, or not one member).

    An object is the member whose properties hold all its keys (strict mode sends
    every property, and no other); an array, the member with ``items``. When no
    member or several fit, nothing is dropped: a null is kept rather than guessed away.
    """
    any_of = schema.get("anyOf")
    if "properties" in schema or "items" in schema or not isinstance(any_of, Sequence) or isinstance(any_of, str):
        return None
    if isinstance(value, Mapping):
        fits = [
            m for m in any_of
            if isinstance(m, Mapping) and isinstance(m.get("properties"), Mapping) and all(k in m["properties"] for k in value)
        ]
    elif isinstance(value, Sequence) and not isinstance(value, str):
        fits = [m for m in any_of if isinstance(m, Mapping) and isinstance(m.get("items"), Mapping)]
    else:
        return None
    return fits[0] if len(fits) == 1 else None


def _member(path: str, key: str) -> str:
    """``path.key`` in the validators' spelling (``(root)`` is dropped for a top-level key)."""
    if path == "(root)":
        return member_path_segment(key, first=True)
    return path + member_path_segment(key, first=False)


def _types(schema: Mapping[str, object]) -> tuple[str, ...]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return (kind,)
    if isinstance(kind, Sequence):
        return tuple(k for k in kind if isinstance(k, str))
    return ()


def _allows_null(schema: Mapping[str, object]) -> bool:
    if "null" in _types(schema):
        return True
    any_of = schema.get("anyOf")
    if isinstance(any_of, Sequence) and not isinstance(any_of, str):
        return any(isinstance(m, Mapping) and _allows_null(m) for m in any_of)
    return "const" in schema and schema["const"] is None


def _nullable(schema: dict[str, object]) -> dict[str, object]:
    """The same schema, also accepting ``null`` (the strict spelling of "optional")."""
    out = dict(schema)
    any_of = schema.get("anyOf")
    if isinstance(any_of, list):
        out["anyOf"] = [*any_of, {"type": "null"}]
        return out
    if "const" in schema and "type" not in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    kind = schema.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"]
    elif isinstance(kind, list):
        out["type"] = [*kind, "null"]
    enum = schema.get("enum")
    if isinstance(enum, list) and None not in enum:
        out["enum"] = [*enum, None]
    return out


def _plain(value: object) -> object:
    """Plain containers for the SDK (the input may be frozen)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or (isinstance(value, Sequence) and not isinstance(value, str)):
        return [_plain(v) for v in value]
    return value
