"""``output=T`` → the JSON Schema a typed tool's value is checked against.

A typed tool declares what its body returns in one of the forms a reader of
the tool already knows: a TypedDict (``{path, lines}``), a JSON scalar type
(``str``, ``int``, ``float``, ``bool``), ``list[...]`` and ``dict[str, ...]``
of those, unions of them (``str | int``, ``Hit | Miss``, ``X | None``), a
``Prop``, or a raw JSON Schema mapping (what an MCP server sends).
Annotations are read by the same rules as ``@tool``'s parameters
(:mod:`.typed_dict`'s wider vocabulary), so ``int`` means integer here
exactly as it does for arguments, and a union is an ``anyOf``.

The schema must also lie inside the typed-output subset
(:func:`~dsh_tools.definitions.output_schema.compile_value_check`): a value is
validated against it on every call, and accepting a keyword the validator
does not enforce would promise programs more than is checked. A union whose
members a program could not tell apart by their JSON (``int | float``, two
TypedDicts with the same keys) is refused there, at definition, with every
violation named.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dsh_tools.definitions.json_schema import prop_to_json_schema, schema_spec_to_json_schema
from dsh_tools.definitions.props import Prop
from dsh_tools.definitions.typed_dict import annotation_prop, is_typed_dict, typed_dict_spec
from dsh_tools.json_values import frozen_or_raise, thaw_json

__all__ = ["output_json_schema"]


def output_json_schema(output: object, tool: str) -> dict[str, Any]:
    """The JSON Schema ``output`` declares (a fresh plain ``dict``).

    Raises ``TypeError`` naming the tool (and the field) for an annotation
    outside the mapping (one nested deeper than the Prop limit included), or
    a schema mapping that is not JSON.
    """
    if type(output) is Prop:
        return prop_to_json_schema(output)
    if isinstance(output, Mapping):
        frozen = frozen_or_raise(output, lambda why: TypeError(f'tool "{tool}": output schema is not JSON: {why}'))
        return thaw_json(frozen)  # type: ignore[return-value]  # a Mapping thaws to a dict
    try:
        if is_typed_dict(output):
            return schema_spec_to_json_schema(typed_dict_spec(output, wide=True))  # type: ignore[arg-type]
        return prop_to_json_schema(annotation_prop(output, where="output", wide=True))
    except (TypeError, ValueError) as error:  # ValueError: list[list[...]] past MAX_PROP_DEPTH
        raise TypeError(f'tool "{tool}": {error}') from None
