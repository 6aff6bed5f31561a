"""OpenAI strict mode: the rewrite, what it refuses, and undoing its nulls."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_tools import JsonValue
from dsh_tools.adapters._strict import MAX_NESTING, drop_strict_nulls, strict_parameters


def test_optional_properties_become_nullable_required_and_defaults_go() -> None:
    schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "mode": {"type": "string", "enum": ["a", "b"], "default": "a"},
            "limit": {"type": ["integer", "null"]},
            "pick": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "nested": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]},
            "items": {"type": "array", "items": {"type": "object", "properties": {"y": {"type": "boolean"}}}},
        },
        "required": ["path"],
    }
    assert strict_parameters(schema, "t") == {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "mode": {"type": ["string", "null"], "enum": ["a", "b", None]},
            "limit": {"type": ["integer", "null"]},
            "pick": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
            "nested": {
                "type": ["object", "null"],
                "properties": {"x": {"type": "number"}},
                "required": ["x"],
                "additionalProperties": False,
            },
            "items": {
                "type": ["array", "null"],
                "items": {
                    "type": "object",
                    "properties": {"y": {"type": ["boolean", "null"]}},
                    "required": ["y"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["path", "mode", "limit", "pick", "nested", "items"],
        "additionalProperties": False,
    }


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}}, "additional properties (a map) at m"),
        ({"type": "object", "properties": {"m": {"type": "object"}}}, "an object without declared properties at m"),
        ({"type": "object", "properties": {"v": {}}}, "a value without a type (any JSON) at v"),
        ({"type": "object", "properties": {"v": {"type": "string", "oneOf": []}}}, "the keyword 'oneOf' at v"),
        ({"type": "object", "properties": {"v": {"type": "array", "items": {"allOf": []}}}}, "the keyword 'allOf' at v[]"),
        ({"type": "object", "properties": {}, "additionalProperties": True}, "additional properties (a map) at (root)"),
        ({"type": "object", "properties": {"my key": {"type": "object"}}}, 'at ["my key"]'),
    ],
)
def test_what_strict_mode_cannot_express_raises_naming_tool_and_place(schema: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValueError) as caught:
        strict_parameters(schema, "tagger")
    assert str(caught.value).startswith('tool "tagger": strict mode cannot express ')
    assert problem in str(caught.value)


def test_limits_and_root() -> None:
    with pytest.raises(ValueError, match="parameters of type object"):
        strict_parameters({"type": "array"}, "t")
    deep: dict[str, Any] = {"type": "object", "properties": {}}
    node = deep
    for _ in range(MAX_NESTING + 1):
        child: dict[str, Any] = {"type": "object", "properties": {}}
        node["properties"]["n"] = child
        node = child
    with pytest.raises(ValueError, match="nested deeper than"):
        strict_parameters(deep, "t")
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(5001)}}
    with pytest.raises(ValueError, match="more than 5000 properties"):
        strict_parameters(wide, "t")


def test_nulls_for_optional_fields_are_dropped_real_nulls_kept() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": ["string", "null"]},
            "c": {"type": "array", "items": {"type": "object", "properties": {"d": {"type": "integer"}}}},
            "e": {"type": "string"},
        },
        "required": ["e"],
    }
    arguments: dict[str, JsonValue] = {"a": None, "b": None, "c": [{"d": None}, {"d": 1}], "e": None, "extra": None}
    assert drop_strict_nulls(arguments, schema) == {"b": None, "c": [{}, {"d": 1}], "e": None, "extra": None}
