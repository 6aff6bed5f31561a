"""The typed-output subset's ``anyOf`` and ``additionalProperties`` schemas, written by hand.

An annotation always produces a well-formed union; a raw schema (``output=``
a mapping, a raw definition's ``output_schema``) may be anything, so each
way it can be malformed or hostile is a listed violation, never a crash or
a hang. The structured-output subset (a caller's demand for an object)
keeps refusing both.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from dsh_tools import OutputSchemaError
from dsh_tools.definitions import Prop, assert_supported_output_schema, validate_structured_value
from dsh_tools.definitions.output_schema import compile_value_check, compile_value_freezer, output_schema_violations
from dsh_tools.definitions.output_unions import union_overlaps
from dsh_tools.json_values import FrozenDict, freeze_json

INT, STR, NUM, NULL = {"type": "integer"}, {"type": "string"}, {"type": "number"}, {"type": "null"}


def typed_violations(schema: object) -> list[str]:
    return output_schema_violations(schema, object_root=False, nullable=True, wide=True)


@pytest.mark.parametrize(
    ("schema", "violations"),
    [
        ({"anyOf": [INT, STR], "type": "integer"}, ['(root): "anyOf" excludes "type" (set them on its members)']),
        (
            {"anyOf": [INT, STR], "properties": {}, "enum": [1]},
            ['(root): "anyOf" excludes "properties", "enum" (set them on its members)'],
        ),
        ({"anyOf": [INT]}, ["anyOf: must be an array of at least two schemas"]),
        ({"anyOf": []}, ["anyOf: must be an array of at least two schemas"]),
        ({"anyOf": {"a": INT, "b": STR}}, ["anyOf: must be an array of at least two schemas"]),
        ({"anyOf": [INT, "string"]}, ["anyOf[1]: a schema must be an object, got string"]),
        ({"anyOf": [INT, {"type": "strung"}]}, ['anyOf[1].type: unsupported type "strung" (one of: object, array, string, number, integer, boolean, null)']),
        ({"anyOf": [INT, {"oneOf": [STR]}]}, ['anyOf[1]: unsupported keyword "oneOf"', 'anyOf[1]: missing "type"']),
        ({"anyOf": [INT, {1: "x", "type": "string"}]}, ["anyOf[1]: schema key of type int, expected string"]),
        ({"anyOf": [INT, STR], "description": 3}, ["description: must be a string, got integer"]),
        (
            {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": "yes"}},
            ["additionalProperties.additionalProperties: a schema must be an object, got string"],
        ),
        ({"type": "string", "additionalProperties": INT}, ['(root): "additionalProperties" needs "type": "object"']),
    ],
)
def test_a_malformed_union_or_dict_schema_lists_each_problem(schema: dict[str, Any], violations: list[str]) -> None:
    assert typed_violations(schema) == violations
    with pytest.raises(OutputSchemaError) as caught:
        compile_value_check(schema, tool="t")
    assert list(caught.value.violations) == violations


def test_members_are_compared_only_once_each_is_supported() -> None:
    """A member with a problem of its own is named for it; overlap is not judged on a schema not understood."""
    assert typed_violations({"anyOf": [INT, INT, {"type": "nope"}]})[0].startswith("anyOf[2].type: unsupported type")
    assert len(typed_violations({"anyOf": [INT, INT, {"type": "nope"}]})) == 1
    assert typed_violations({"anyOf": [INT, INT]}) == [
        "(root): anyOf members 0 (integer) and 1 (integer) cannot be told apart by their JSON shape: "
        "both admit the same integers (only Literal members with none in common are apart)"
    ]


@pytest.mark.parametrize(
    ("schema", "apart"),
    [
        ({"anyOf": [{"anyOf": [INT, STR]}, STR]}, False),  # a nested union is its members
        ({"anyOf": [{"anyOf": [INT, STR]}, {"type": "boolean"}]}, True),
        ({"anyOf": [{"enum": ["a", 1]}, {"enum": ["b", 2]}]}, True),  # enums without "type": kinds from members
        ({"anyOf": [{"enum": ["a", 1]}, {"const": 1.0}]}, False),  # 1 and 1.0 are one JSON number
        ({"anyOf": [{"const": True}, {"const": 1}]}, True),  # true is not 1
        ({"anyOf": [{"type": ["string", "null"]}, NULL]}, False),
        ({"anyOf": [{"type": ["string", "null"], "enum": ["a", None]}, {"type": "string", "enum": ["b"]}]}, True),
        ({"anyOf": [{"type": "object"}, {"type": "object", "properties": {"a": INT}, "required": ["a"]}]}, False),
        (
            {"anyOf": [{"type": "object", "additionalProperties": False}, {"type": "object", "properties": {"a": INT}, "required": ["a"]}]},
            True,  # the first holds no key at all, the second requires one
        ),
        (
            {
                "anyOf": [
                    {"type": "object", "properties": {"a": INT}, "required": ["a"], "additionalProperties": True},
                    {"type": "object", "properties": {"b": INT}, "required": ["b"]},
                ]
            },
            True,  # the second cannot hold "a"
        ),
        (
            {
                "anyOf": [
                    {"type": "object", "properties": {"a": INT}, "required": ["a"], "additionalProperties": True},
                    {"type": "object", "properties": {"b": INT}, "required": ["b"], "additionalProperties": INT},
                ]
            },
            False,  # each may carry the other's key
        ),
    ],
)
def test_the_rule_on_hand_written_members(schema: dict[str, Any], apart: bool) -> None:
    assert (typed_violations(schema) == []) is apart, typed_violations(schema)


def test_the_structured_output_subset_still_refuses_unions_and_dict_values() -> None:
    schema = {"type": "object", "properties": {"a": {"anyOf": [INT, STR]}}, "additionalProperties": INT}
    with pytest.raises(OutputSchemaError) as caught:
        assert_supported_output_schema(schema)
    assert caught.value.violations == (
        'properties.a: unsupported keyword "anyOf"',
        'properties.a: missing "type"',
        "additionalProperties: must be true or false (schemas are not supported)",
    )
    assert validate_structured_value(schema, {"a": 1})[0].startswith("(root): unsupported output schema: ")


def test_a_cycle_through_a_union_is_reported_not_followed() -> None:
    node: dict[str, Any] = {"anyOf": [INT]}
    node["anyOf"].append(node)
    assert typed_violations(node) == ["anyOf[1]: the schema refers to itself (cycle)"]
    dict_node: dict[str, Any] = {"type": "object"}
    dict_node["additionalProperties"] = dict_node
    assert typed_violations(dict_node) == ["additionalProperties: the schema refers to itself (cycle)"]


def test_a_hostile_union_is_described_never_obeyed() -> None:
    class Sneaky(dict[str, Any]):
        def __getitem__(self, key: str) -> Any:
            raise RuntimeError("read me not")

    assert typed_violations({"anyOf": [INT, Sneaky(type="string")]}) == ["anyOf[1]: a schema must be an object, got non-JSON Sneaky"]
    deep: dict[str, Any] = INT
    for _ in range(100):
        deep = {"anyOf": [deep, NULL]}
    assert any("deeper than 64" in line for line in typed_violations(deep))


def test_shared_subtrees_are_compared_once_per_pair() -> None:
    """Two members built of one doubling chain: each level read twice per level would be 2**60 comparisons."""
    node: Any = {"type": "object", "properties": {"leaf": INT}, "required": ["leaf"]}
    for _ in range(60):
        node = {"type": "object", "properties": {"a": node, "b": node}, "required": ["a", "b"]}
    started = time.perf_counter()
    problems = union_overlaps([node, node])
    assert time.perf_counter() - started < 1
    assert len(problems) == 1 and "both are objects" in problems[0]


def test_frozen_and_prop_spellings_are_judged_alike() -> None:
    schema = {"anyOf": [INT, NUM]}
    assert typed_violations(freeze_json(schema).unwrap()) == typed_violations(schema) != []
    assert isinstance(freeze_json(schema).unwrap(), FrozenDict)
    with pytest.raises(OutputSchemaError, match="every integer is also a JSON number"):
        compile_value_check(Prop(any_of=[Prop("integer"), Prop("number")]).to_json(), tool="t")
    compile_value_check(Prop("object", additional_properties=Prop("integer")).to_json(), tool="t")


@pytest.mark.parametrize(
    ("schema", "value", "violations"),
    [
        ({"anyOf": [STR, INT]}, True, ["(root): expected string or integer, got boolean"]),
        ({"anyOf": [STR, INT, NULL]}, 1.5, ["(root): expected string or integer or null, got number"]),
        ({"type": "object", "additionalProperties": INT}, {"a": 1, "my key": "x"}, ['["my key"]: expected integer, got string']),
        ({"type": "object", "additionalProperties": INT}, [1], ["(root): expected object, got array"]),
        (
            {
                "anyOf": [
                    {"type": "object", "properties": {"kind": {"const": "hit"}, "path": STR}, "required": ["kind", "path"]},
                    {"type": "object", "properties": {"kind": {"const": "miss"}, "reason": STR}, "required": ["kind", "reason"]},
                ]
            },
            {"kind": "miss", "reason": 3},
            ["reason: expected string, got integer"],  # the member with the fewest problems: the tag matched
        ),
    ],
)
def test_values_are_checked_against_unions_and_dicts(schema: dict[str, Any], value: object, violations: list[str]) -> None:
    assert compile_value_check(schema, tool="t")(freeze_json(value).unwrap()) == violations


def test_unions_and_dicts_take_the_exact_walks_not_the_one_pass_freezer() -> None:
    assert compile_value_freezer({"anyOf": [STR, INT]}) is None
    assert compile_value_freezer({"type": "object", "additionalProperties": INT}) is None
    assert compile_value_freezer({"type": "array", "items": {"type": "object", "additionalProperties": INT}}) is None
