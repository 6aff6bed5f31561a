"""``SchemaSpec`` → standard JSON Schema, the wire form the model sees.

The rendering is deterministic (key order: type or anyOf, description, enum,
default, properties, required, items, additionalProperties; properties in spec
order)
so a tool's schema is byte-stable across runs, which keeps prompt caches warm.
``required`` is written only when something is required.
"""

from __future__ import annotations

from typing import Any

from dsh_tools.definitions.props import MAX_PROP_DEPTH, Prop, checked_spec
from dsh_tools.json_values import thaw_json

__all__ = ["prop_to_json_schema", "schema_spec_to_json_schema"]


def schema_spec_to_json_schema(spec: object) -> dict[str, Any]:
    """The object-rooted JSON Schema of a ``SchemaSpec`` (a fresh, plain ``dict``).

    Raises ``ValueError`` for a malformed spec (see :func:`checked_spec`).
    """
    props = checked_spec(spec)
    return _object_schema(props, depth=0)


def prop_to_json_schema(prop: Prop, *, _depth: int = 0) -> dict[str, Any]:
    """One Prop as JSON Schema; ``nullable`` becomes ``"type": [<x>, "null"]``.

    A union (``any_of``) becomes ``"anyOf": [...]``, with ``{"type": "null"}``
    as its last alternative when it is nullable.
    """
    if _depth > MAX_PROP_DEPTH:
        raise ValueError(f"Prop nests deeper than {MAX_PROP_DEPTH} levels")
    out: dict[str, Any] = {}
    if prop.any_of is not None:
        members = [prop_to_json_schema(member, _depth=_depth + 1) for member in prop.any_of]
        out["anyOf"] = [*members, {"type": "null"}] if prop.nullable else members
    elif prop.type is not None:
        out["type"] = [prop.type, "null"] if prop.nullable else prop.type
    if prop.description is not None:
        out["description"] = prop.description
    if prop.enum is not None:
        out["enum"] = [*prop.enum, None] if prop.nullable else list(prop.enum)
    if prop.default is not None:
        out["default"] = thaw_json(prop.default)
    if prop.properties is not None:
        out.update(_object_schema(dict(prop.properties), depth=_depth + 1, root=False))
    if prop.items is not None:
        out["items"] = prop_to_json_schema(prop.items, _depth=_depth + 1)
    extra = prop.additional_properties
    if type(extra) is bool:
        out["additionalProperties"] = extra
    elif isinstance(extra, Prop):
        out["additionalProperties"] = prop_to_json_schema(extra, _depth=_depth + 1)
    return out


def _object_schema(props: dict[str, Prop], *, depth: int, root: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object"} if root else {}
    out["properties"] = {name: prop_to_json_schema(prop, _depth=depth + 1) for name, prop in props.items()}
    required = [name for name, prop in props.items() if prop.required]
    if required:
        out["required"] = required
    return out
