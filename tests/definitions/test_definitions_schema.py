"""Prop, SchemaSpec → JSON Schema, and the TypedDict reader (both spellings agree)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, NotRequired, Optional, Required, TypedDict

import pytest

from dsh_tools.definitions import Prop, schema_spec_to_json_schema, typed_dict_spec
from dsh_tools.definitions.props import MAX_PROP_DEPTH


class Config(TypedDict, total=False):
    host: Required[str]
    port: int


class ReadArgs(TypedDict):
    path: Required[Annotated[str, Prop(description="Absolute file path")]]
    offset: NotRequired[int]
    mode: NotRequired[Literal["text", "bytes"]]


class Everything(TypedDict):
    text: str
    count: int
    ratio: float
    flag: bool
    mode: Literal["a", "b"]
    tags: list[str]
    seq: Sequence[int]
    config: Config
    bag: dict[str, float]
    frozen_bag: Mapping[str, Sequence[str]]
    maybe: str | None
    maybe_mode: Optional[Literal["x", "y"]]
    maybe_list: list[int] | None
    maybe_config: NotRequired[Config | None]


make_typed_dict: Any = TypedDict
"""The functional TypedDict form, for annotations built at run time."""

READ_SPEC = {
    "path": Prop("string", required=True, description="Absolute file path"),
    "offset": Prop("integer"),
    "mode": Prop("string", enum=["text", "bytes"]),
}


def test_both_spellings_produce_identical_json_schema() -> None:
    from_typed_dict = schema_spec_to_json_schema(typed_dict_spec(ReadArgs))
    from_spec = schema_spec_to_json_schema(READ_SPEC)
    assert from_typed_dict == from_spec
    assert from_spec == {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Absolute file path"},
            "offset": {"type": "integer"},
            "mode": {"type": "string", "enum": ["text", "bytes"]},
        },
        "required": ["path"],
    }


def test_typed_dict_mapping_covers_every_supported_annotation() -> None:
    schema = schema_spec_to_json_schema(typed_dict_spec(Everything))
    props = schema["properties"]
    config = {
        "type": "object",
        "properties": {"host": {"type": "string"}, "port": {"type": "integer"}},
        "required": ["host"],
    }
    assert props["text"] == {"type": "string"}
    assert props["count"] == {"type": "integer"}
    assert props["ratio"] == {"type": "number"}
    assert props["flag"] == {"type": "boolean"}
    assert props["mode"] == {"type": "string", "enum": ["a", "b"]}
    assert props["tags"] == {"type": "array", "items": {"type": "string"}}
    assert props["seq"] == {"type": "array", "items": {"type": "integer"}}
    assert props["config"] == config
    assert props["bag"] == {"type": "object", "additionalProperties": {"type": "number"}}
    assert props["frozen_bag"] == {
        "type": "object",
        "additionalProperties": {"type": "array", "items": {"type": "string"}},
    }
    assert props["maybe"] == {"type": ["string", "null"]}
    assert props["maybe_mode"] == {"type": ["string", "null"], "enum": ["x", "y", None]}
    assert props["maybe_list"] == {"type": ["array", "null"], "items": {"type": "integer"}}
    assert props["maybe_config"] == {**config, "type": ["object", "null"]}
    assert "maybe_config" not in schema["required"]
    assert schema["required"] == [name for name in props if name != "maybe_config"]


def test_property_order_follows_declaration() -> None:
    schema = schema_spec_to_json_schema(typed_dict_spec(Everything))
    assert list(schema["properties"]) == list(Everything.__annotations__)


def test_required_and_not_required_and_total_false() -> None:
    class Partial(TypedDict, total=False):
        a: str
        b: Required[int]

    class Base(TypedDict):
        c: str

    class Child(Base, total=False):
        d: str

    assert schema_spec_to_json_schema(typed_dict_spec(Partial))["required"] == ["b"]
    assert schema_spec_to_json_schema(typed_dict_spec(Child))["required"] == ["c"]


class Inner(TypedDict):
    port: complex


class Outer(TypedDict):
    name: str
    config: Inner


class Node(TypedDict):
    children: list[Node]


@pytest.mark.parametrize(
    ("typed_dict", "field"),
    [
        (Outer, '"config.port"'),
        (Node, '"children[]"'),
    ],
)
def test_unsupported_types_name_the_inner_field(typed_dict: type, field: str) -> None:
    with pytest.raises(TypeError, match=re.escape(field)):
        typed_dict_spec(typed_dict)


@pytest.mark.parametrize(
    "annotation",
    [Any, object, bytes, set[str], tuple[int, int], dict[int, str], int | str, Literal["a", 1], list, Literal[1.5]],
)
def test_anything_else_is_a_type_error_naming_the_field(annotation: object) -> None:
    bad = make_typed_dict("bad", {"field_x": annotation})
    with pytest.raises(TypeError, match='"field_x"'):
        typed_dict_spec(bad)


def test_not_a_typed_dict_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        typed_dict_spec(dict)


def test_annotated_prop_contradictions_are_type_errors() -> None:
    wrong_type = make_typed_dict("wrong_type", {"x": Annotated[str, Prop("integer")]})
    with pytest.raises(TypeError, match='"x"'):
        typed_dict_spec(wrong_type)
    wrongly_required = make_typed_dict("wrongly_required", {"x": NotRequired[Annotated[str, Prop(required=True)]]})
    with pytest.raises(TypeError, match="Required"):
        typed_dict_spec(wrongly_required)


def test_annotated_prop_adds_enum_and_default() -> None:
    extra = make_typed_dict("extra", {"x": Annotated[str, Prop(enum=["a", "b"], default="a", description="d")]})
    assert schema_spec_to_json_schema(typed_dict_spec(extra))["properties"]["x"] == {
        "type": "string",
        "description": "d",
        "enum": ["a", "b"],
        "default": "a",
    }


@pytest.mark.parametrize(
    "build",
    [
        lambda: Prop("str"),  # type: ignore[arg-type]
        lambda: Prop("null"),  # type: ignore[arg-type]
        lambda: Prop("string", required="yes"),  # type: ignore[arg-type]
        lambda: Prop("string", description=3),  # type: ignore[arg-type]
        lambda: Prop("string", enum=[]),
        lambda: Prop("string", enum=[1]),
        lambda: Prop("integer", enum=[True]),
        lambda: Prop("number", enum=[float("nan")]),
        lambda: Prop("string", enum=["a", None]),  # type: ignore[list-item]
        lambda: Prop("object", enum=["a"]),
        lambda: Prop("string", default={1, 2}),  # type: ignore[arg-type]
        lambda: Prop("string", properties={"a": Prop("string")}),
        lambda: Prop("object", properties={"a": "string"}),  # type: ignore[dict-item]
        lambda: Prop("object", properties={1: Prop("string")}),  # type: ignore[dict-item]
        lambda: Prop("string", items=Prop("string")),
        lambda: Prop("array", items={"type": "string"}),  # type: ignore[arg-type]
        lambda: Prop("array", additional_properties=True),
    ],
)
def test_malformed_prop_is_value_error_at_construction(build: object) -> None:
    with pytest.raises(ValueError):
        build()  # type: ignore[operator]


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Prop("string", items=Prop("string")), "Prop items requires type array, not string"),
        (lambda: Prop("array", items=True), "Prop items must be a Prop, got bool"),  # type: ignore[arg-type]
        (lambda: Prop("array", additional_properties=True), "Prop additional_properties requires type object"),
        (lambda: Prop("object", additional_properties=1), "must be a Prop or a bool, got int"),  # type: ignore[arg-type]
    ],
)
def test_nested_schema_fields_name_what_is_wrong(build: Any, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        build()


def test_prop_positional_type_then_keyword_only() -> None:
    with pytest.raises(TypeError):
        Prop("string", True)  # type: ignore[call-arg]
    assert Prop("string", required=True).required is True


def test_prop_is_immutable_and_renders_its_schema() -> None:
    prop = Prop("object", properties={"a": Prop("integer", required=True)})
    with pytest.raises(AttributeError):
        prop.type = "string"  # type: ignore[misc]
    with pytest.raises(TypeError):
        prop.properties["b"] = Prop("string")  # type: ignore[index]
    assert prop.to_json() == {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}


def test_spec_needs_a_type_on_every_prop() -> None:
    with pytest.raises(ValueError, match="config.host"):
        schema_spec_to_json_schema({"config": Prop("object", properties={"host": Prop()})})


def test_malformed_specs_are_value_errors() -> None:
    specs: list[object] = [[], {"a": "string"}, {1: Prop("string")}]
    for spec in specs:
        with pytest.raises(ValueError):
            schema_spec_to_json_schema(spec)


def test_hostile_depth_is_refused_without_recursion_error() -> None:
    prop = Prop("string")
    for _ in range(10_000):
        prop = Prop("array", items=prop)
    with pytest.raises(ValueError, match=str(MAX_PROP_DEPTH)):
        schema_spec_to_json_schema({"deep": prop})


def test_schema_is_a_fresh_plain_dict() -> None:
    first = schema_spec_to_json_schema(READ_SPEC)
    first["properties"]["path"]["type"] = "integer"
    assert schema_spec_to_json_schema(READ_SPEC)["properties"]["path"]["type"] == "string"
    assert type(first) is dict
