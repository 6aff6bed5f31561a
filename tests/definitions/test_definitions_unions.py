"""``Prop(any_of=...)``: the union form ``@tool`` reads ``int | str`` into, its schema and its check."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_tools import Prop, schema_spec_to_json_schema, validate_args

KEY = Prop(any_of=[Prop("integer"), Prop("string")], required=True, description="An id or a name")


def test_a_union_renders_as_any_of() -> None:
    assert schema_spec_to_json_schema({"key": KEY})["properties"]["key"] == {
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "description": "An id or a name",
    }
    nullable = Prop(any_of=[Prop("integer"), Prop("array", items=Prop("string"))], nullable=True)
    assert nullable.to_json() == {
        "anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "string"}}, {"type": "null"}]
    }


@pytest.mark.parametrize("value", [1, "one", -5, ""])
def test_a_value_matching_any_member_is_valid(value: object) -> None:
    assert validate_args({"key": KEY}, {"key": value}) == []


@pytest.mark.parametrize(
    ("value", "violation"),
    [
        (True, "key: expected integer or string, got boolean"),
        (1.5, "key: expected integer or string, got number"),
        (None, "key: expected integer or string, got null"),
        ([1], "key: expected integer or string, got array"),
    ],
)
def test_a_value_matching_no_member_names_every_accepted_type(value: object, violation: str) -> None:
    assert validate_args({"key": KEY}, {"key": value}) == [violation]


def test_the_member_a_value_was_meant_for_reports_its_own_problems() -> None:
    spec = {
        "target": Prop(
            any_of=[Prop("string"), Prop("object", properties={"host": Prop("string", required=True)})],
            required=True,
        )
    }
    assert validate_args(spec, {"target": {"host": 1}}) == ["target.host: expected string, got integer"]
    assert validate_args(spec, {"target": {}}) == ["target.host: missing required property"]
    assert validate_args(spec, {"target": "db"}) == []


def test_a_union_of_enums_lists_every_member() -> None:
    spec = {"mode": Prop(any_of=[Prop("string", enum=["auto"]), Prop("integer", enum=[0, 1])], nullable=True)}
    assert validate_args(spec, {"mode": "manual"}) == ['mode: expected one of "auto", 0, 1, null']
    assert validate_args(spec, {"mode": True}) == ['mode: expected one of "auto", 0, 1, null']
    assert validate_args(spec, {"mode": None}) == []
    assert validate_args(spec, {"mode": 1}) == []


def test_nested_unions_are_checked() -> None:
    inner = Prop(any_of=[Prop("boolean"), Prop("string")])
    spec = {"v": Prop(any_of=[Prop("integer"), inner], required=True)}
    assert validate_args(spec, {"v": False}) == []
    assert validate_args(spec, {"v": 2.5}) != []


_MALFORMED: list[dict[str, Any]] = [
    {"any_of": [Prop("string")]},
    {"any_of": []},
    {"any_of": "string"},
    {"any_of": [Prop("string"), "integer"]},
    {"any_of": [Prop("string"), Prop("integer")], "type": "string"},
    {"any_of": [Prop("string"), Prop("integer")], "enum": ["a"]},
    {"any_of": [Prop("string"), Prop("integer")], "items": Prop("string")},
    {"any_of": [Prop("string"), Prop("integer")], "properties": {}},
]


@pytest.mark.parametrize("kwargs", _MALFORMED)
def test_malformed_unions_are_value_errors(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="any_of"):
        Prop(**kwargs)


def test_a_union_member_without_a_type_is_caught_by_the_spec_check() -> None:
    spec = {"x": Prop(any_of=[Prop(description="untyped"), Prop("string")])}
    assert validate_args(spec, {"x": "a"}) == [
        "(root): cannot validate against a malformed schema spec: parameters: property x|0 has no type "
        "(omit it only inside Annotated[...])"
    ]
