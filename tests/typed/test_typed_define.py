"""Typed tools at definition time: ``output=T`` becomes ``output_schema``, or fails naming the tool."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict

import pytest

from dsh_tools import OutputSchemaError, ToolExecution, boot, text_block
from dsh_tools.content import ContentBlock
from dsh_tools.definitions import Prop, define_tool
from dsh_tools.json_values import JsonValue, thaw_json


class PathArgs(TypedDict):
    path: str


class Hit(TypedDict):
    path: str
    line: int
    text: str


async def body(args: Any, exec: ToolExecution) -> Any:
    return None


def define(output: Any, **extra: Any) -> Any:
    return define_tool(name="t", description="d", args=PathArgs, output=output, execute=body, **extra)


HIT_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "line": {"type": "integer"}, "text": {"type": "string"}},
    "required": ["path", "line", "text"],
}


@pytest.mark.parametrize(
    "output, schema",
    [
        (Hit, HIT_SCHEMA),
        (list[Hit], {"type": "array", "items": HIT_SCHEMA}),
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (list[str], {"type": "array", "items": {"type": "string"}}),
        (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
        (Prop("array", items=Prop("integer")), {"type": "array", "items": {"type": "integer"}}),
        ({"type": "object", "properties": {"n": {"type": "number"}}}, {"type": "object", "properties": {"n": {"type": "number"}}}),
    ],
)
def test_output_becomes_a_frozen_output_schema(output: object, schema: dict[str, Any]) -> None:
    tool = define(output)
    assert thaw_json(tool.output_schema) == schema
    assert isinstance(tool.output_schema, Mapping)


def test_a_content_tool_has_no_output_schema_and_no_render() -> None:
    async def read(args: PathArgs, exec: ToolExecution) -> list[ContentBlock]:
        return [text_block("x")]

    tool = define_tool(name="read", description="d", args=PathArgs, execute=read)
    assert tool.output_schema is None and tool.render is None


def test_the_snapshot_keeps_the_schema_and_render() -> None:
    ctx = boot()
    ctx.tools.register(define(Hit, render=lambda args, value: [text_block("x")]))
    snapshot = ctx.tools.get("t")
    assert snapshot is not None
    assert thaw_json(snapshot.output_schema) == HIT_SCHEMA
    assert snapshot.render is not None and snapshot.check_output is not None
    assert "outputSchema" not in ctx.tools.schemas()[0].to_json()  # the wire schema is name/description/parameters


def test_an_unsupported_output_schema_is_rejected_with_every_violation_naming_the_tool() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": ["string", "integer"]}, "b": {"oneOf": []}},
        "additionalProperties": {"type": "strung"},
    }
    with pytest.raises(OutputSchemaError) as caught:
        define(schema)
    assert caught.value.tool == "t"
    assert caught.value.violations == (  # in the schema's order
        'properties.a.type: a type array must be the nullable form [<type>, "null"]',
        'properties.b: unsupported keyword "oneOf"',
        'properties.b: missing "type"',
        'additionalProperties.type: unsupported type "strung" (one of: object, array, string, number, integer, boolean, null)',
    )
    assert str(caught.value).startswith('tool "t": unsupported output schema: ')


def test_nullable_fields_and_dict_values_are_in_the_subset() -> None:
    class Loose(TypedDict):
        name: str | None
        tags: dict[str, str]

    assert thaw_json(define(Loose).output_schema) == {
        "type": "object",
        "properties": {
            "name": {"type": ["string", "null"]},
            "tags": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "required": ["name", "tags"],
    }


def test_a_nullable_output_is_enforced_by_type_and_enum() -> None:
    """``[<type>, "null"]`` is the one type array a typed output accepts; its enum may hold ``null``."""
    for bad, problem in (
        ({"type": ["string", "null", "integer"]}, 'type: a type array must be the nullable form [<type>, "null"]'),
        ({"type": ["null", "null"]}, 'type: a type array must be the nullable form [<type>, "null"]'),
        ({"type": ["string", "nil"]}, 'type: a type array must be the nullable form [<type>, "null"]'),
        ({"type": ["string", "null"], "enum": ["a", 1]}, "enum[1]: 1 is not of type string or null"),
        ({"type": ["string", "null"], "items": {"type": "string"}}, '(root): "items" needs "type": "array"'),
    ):
        with pytest.raises(OutputSchemaError) as caught:
            define(bad)
        assert caught.value.violations == (problem,), bad
    define({"type": ["null", "string"], "enum": [None, "a"]})  # either order


def test_an_unsupported_output_annotation_is_a_type_error_naming_tool_and_field() -> None:
    class Bad(TypedDict):
        when: bytes

    with pytest.raises(TypeError, match=r'tool "t": output field "\(root\)\[\]\.when": unsupported type'):
        define(list[Bad])
    with pytest.raises(TypeError, match=r'tool "t": output field "\(root\)": unsupported type'):
        define(bytes)
    with pytest.raises(TypeError, match=r'tool "t": Bad field "when"'):
        define(Bad)


def test_a_non_json_output_schema_is_a_type_error() -> None:
    with pytest.raises(TypeError, match='tool "t": output schema is not JSON'):
        define({"type": "number", "default": float("nan")})


def test_render_needs_output_and_must_be_callable() -> None:
    async def read(args: PathArgs, exec: ToolExecution) -> list[ContentBlock]:
        return []

    with pytest.raises(TypeError, match="render needs output="):
        define_tool(name="t", description="d", args=PathArgs, execute=read, render=lambda a, v: [])  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="render must be callable"):
        define(Hit, render="nope")


class _Raw:
    name = "raw"
    description = "d"
    parameters: Mapping[str, JsonValue] = {"type": "object", "properties": {}}

    async def execute(self, args: object, exec: ToolExecution, /) -> JsonValue:
        return 1


def test_register_checks_a_raw_output_schema_naming_the_tool() -> None:
    raw = _Raw()
    raw.output_schema = {"type": "object", "patternProperties": {}}  # type: ignore[attr-defined]
    with pytest.raises(OutputSchemaError, match='tool "raw": unsupported output schema: .*"patternProperties"'):
        boot().tools.register(raw)


def test_register_refuses_a_render_without_a_schema_or_not_callable() -> None:
    raw = _Raw()
    raw.render = lambda args, value: []  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match='tool "raw": render needs an output_schema'):
        boot().tools.register(raw)
    raw.output_schema = {"type": "integer"}  # type: ignore[attr-defined]
    raw.render = 3  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match='tool "raw": render must be callable'):
        boot().tools.register(raw)


def test_register_refuses_a_non_json_raw_output_schema() -> None:
    raw = _Raw()
    raw.output_schema = {"type": "object", "title": b"x"}  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match='tool "raw": output_schema is not JSON'):
        boot().tools.register(raw)
