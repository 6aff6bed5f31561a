"""The structured-output subset: loud refusal outside it, total validation inside it."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_tools.definitions import assert_supported_output_schema, validate_structured_value
from dsh_tools.definitions.output_schema import MAX_SCHEMA_DEPTH, output_schema_violations
from dsh_tools.errors import OutputSchemaError
from dsh_tools.json_values import freeze_json

SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "Review",
    "description": "A code review verdict",
    "properties": {
        "verdict": {"type": "string", "enum": ["approve", "reject"]},
        "score": {"type": "number", "default": 0, "examples": [0.5]},
        "count": {"type": "integer"},
        "done": {"type": "boolean"},
        "nothing": {"type": "null"},
        "version": {"const": 2},
        "files": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "line": {"type": "integer"}},
                "required": ["path"],
                "additionalProperties": False,
            },
        },
        "loose": {"type": "object", "additionalProperties": True},
    },
    "required": ["verdict", "score"],
    "additionalProperties": False,
}


def test_supported_schema_passes_plain_and_frozen() -> None:
    assert_supported_output_schema(SCHEMA)
    assert_supported_output_schema(freeze_json(SCHEMA).unwrap())
    assert output_schema_violations(SCHEMA) == []


def test_valid_value_has_no_violations() -> None:
    value = {
        "verdict": "approve",
        "score": 1,
        "count": 3,
        "done": True,
        "nothing": None,
        "version": 2,
        "files": [{"path": "a.py", "line": 3}, {"path": "b.py"}],
        "loose": {"anything": [1, 2]},
    }
    assert validate_structured_value(SCHEMA, value) == []
    assert validate_structured_value(SCHEMA, freeze_json(value).unwrap()) == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({}, ["verdict: missing required property", "score: missing required property"]),
        ([], ["(root): expected object, got array"]),
        ({"verdict": "maybe", "score": 1}, ['verdict: expected one of "approve", "reject"']),
        ({"verdict": "approve", "score": "1"}, ["score: expected number, got string"]),
        ({"verdict": "approve", "score": True}, ["score: expected number, got boolean"]),
        ({"verdict": "approve", "score": 1, "count": 1.0}, ["count: expected integer, got number"]),
        ({"verdict": "approve", "score": 1, "nothing": 0}, ["nothing: expected null, got integer"]),
        ({"verdict": "approve", "score": 1, "version": 3}, ["version: expected 2"]),
        ({"verdict": "approve", "score": 1, "version": True}, ["version: expected 2"]),
        ({"verdict": "approve", "score": 1, "extra": 1}, ["extra: unexpected property"]),
        ({"verdict": "approve", "score": 1, "my key": 1}, ['["my key"]: unexpected property']),
        (
            {"verdict": "approve", "score": 1, "files": [{"path": "a"}, {"line": "3", "x": 1}]},
            [
                "files[1].path: missing required property",
                "files[1].line: expected integer, got string",
                "files[1].x: unexpected property",
            ],
        ),
    ],
)
def test_value_messages(value: object, expected: list[str]) -> None:
    assert validate_structured_value(SCHEMA, value) == expected


@pytest.mark.parametrize(
    ("schema", "fragment"),
    [
        ({"type": "string"}, 'the root schema must be of type "object"'),
        ({"properties": {}}, 'the root schema must declare "type": "object"'),
        ({"type": ["object", "null"]}, "type arrays are not supported"),
        ({"type": "object", "oneOf": []}, 'unsupported keyword "oneOf"'),
        ({"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}}, 'properties.a: unsupported keyword "minLength"'),
        ({"type": "object", "properties": {"a": {"$ref": "#"}}}, 'unsupported keyword "$ref"'),
        ({"type": "object", "properties": {"a": {"type": "date"}}}, 'properties.a.type: unsupported type "date"'),
        ({"type": "object", "properties": {"a": {}}}, 'properties.a: missing "type"'),
        ({"type": "object", "required": ["a"]}, 'required[0]: "a" is not declared in properties'),
        ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "a"]}, "listed twice"),
        ({"type": "object", "additionalProperties": {"type": "string"}}, "additionalProperties: must be true or false"),
        ({"type": "object", "properties": {"a": {"type": "array", "items": [{"type": "string"}]}}}, "tuple-form items"),
        ({"type": "object", "properties": {"a": {"type": "string", "items": {"type": "string"}}}}, '"items" needs "type": "array"'),
        ({"type": "object", "properties": {"a": {"enum": [{"x": 1}]}}}, "must be a JSON scalar"),
        ({"type": "object", "properties": {"a": {"enum": []}}}, "non-empty array"),
        ({"type": "object", "properties": {"a": {"type": "string", "enum": ["x", 1]}}}, "1 is not of type string"),
        ({"type": "object", "properties": {"a": {"const": [1]}}}, "const: must be a JSON scalar"),
        ({"type": "object", "description": {1, 2}}, "description: must be a string, got non-JSON set"),
        ({"type": "object", "title": float("nan")}, "title: must be a string, got non-finite number"),
        ({"type": "object", "default": float("nan")}, "default: annotation must be JSON data"),
        ({"type": "object", 1: "x"}, "schema key of type int"),
        ("object", "a schema must be an object, got string"),
        (None, "a schema must be an object, got null"),
    ],
)
def test_unsupported_schemas_are_refused_loudly(schema: object, fragment: str) -> None:
    with pytest.raises(OutputSchemaError) as caught:
        assert_supported_output_schema(schema)
    assert any(fragment in violation for violation in caught.value.violations), caught.value.violations
    assert caught.value.code == "UNSUPPORTED_SCHEMA"
    reported = validate_structured_value(schema, {})
    assert reported and all(line.startswith("(root): unsupported output schema: ") for line in reported)


def test_every_violation_is_listed() -> None:
    schema = {"type": "object", "oneOf": [], "properties": {"a": {"type": "date"}, "b": {"pattern": "x"}}}
    with pytest.raises(OutputSchemaError) as caught:
        assert_supported_output_schema(schema)
    assert len(caught.value.violations) == 4


class Hostile:
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __hash__(self) -> int:
        return 1

    def __iter__(self) -> Any:
        raise RuntimeError("iter")

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError("getattr")


def test_hostile_schemas_never_crash_or_hang() -> None:
    cyclic: dict[str, Any] = {"type": "object", "properties": {}}
    cyclic["properties"]["self"] = cyclic
    assert output_schema_violations(cyclic) == ["properties.self: the schema refers to itself (cycle)"]
    deep: dict[str, Any] = {"type": "object"}
    cursor = deep
    for _ in range(10_000):
        child: dict[str, Any] = {"type": "object"}
        cursor["properties"] = {"x": child}
        cursor = child
    deep_violations = output_schema_violations(deep)
    assert len(deep_violations) == 1 and f"deeper than {MAX_SCHEMA_DEPTH}" in deep_violations[0]
    for hostile in (Hostile(), {"type": "object", "properties": Hostile()}, {"type": "object", Hostile(): 1}):
        assert output_schema_violations(hostile)
        assert validate_structured_value(hostile, {})
    items_cycle: dict[str, Any] = {"type": "array"}
    items_cycle["items"] = items_cycle
    assert output_schema_violations({"type": "object", "properties": {"a": items_cycle}})


def test_hostile_values_never_crash() -> None:
    assert validate_structured_value(SCHEMA, Hostile()) == ["(root): expected object, got non-JSON Hostile"]
    value = {"verdict": Hostile(), "score": 1, "files": [Hostile()]}
    assert validate_structured_value(SCHEMA, value) == [
        "verdict: expected string, got non-JSON Hostile",
        "files[0]: expected object, got non-JSON Hostile",
    ]
    cyclic: dict[str, Any] = {"verdict": "approve", "score": 1}
    cyclic["loose"] = cyclic
    assert validate_structured_value(SCHEMA, cyclic) == []
    deep: list[Any] = []
    for _ in range(10_000):
        deep = [deep]
    assert validate_structured_value(SCHEMA, {"verdict": "approve", "score": 1, "files": deep}) == [
        "files[0]: expected object, got array"
    ]
    assert validate_structured_value(SCHEMA, {"verdict": "approve", "score": 1, 7: "x"}) == [
        "(root): object key of type int, expected string"
    ]


@pytest.mark.parametrize("keyword", ["description", "title"])
@pytest.mark.parametrize(
    ("value", "word"), [(1, "integer"), (None, "null"), (["a"], "array"), ({"text": "a"}, "object"), (True, "boolean")]
)
def test_description_and_title_must_be_strings(keyword: str, value: object, word: str) -> None:
    nested = {"type": "object", "properties": {"name": {"type": "string", keyword: value}}}
    for schema, path in (({"type": "object", keyword: value}, keyword), (nested, f"properties.name.{keyword}")):
        with pytest.raises(OutputSchemaError) as caught:
            assert_supported_output_schema(schema)
        assert caught.value.violations == (f"{path}: must be a string, got {word}",)
        assert validate_structured_value(schema, {}) == [f"(root): unsupported output schema: {path}: must be a string, got {word}"]
    assert_supported_output_schema({"type": "object", keyword: ""})  # an empty string is still prose


def test_annotation_violations_are_listed_in_a_fixed_order() -> None:
    schema = {"type": "object", "examples": {1}, "default": {2}, "title": 3, "description": 4}
    assert output_schema_violations(schema) == [
        "description: must be a string, got integer",
        "title: must be a string, got integer",
        "default: annotation must be JSON data",
        "examples: annotation must be JSON data",
    ]
