"""validate_args: exact, path-qualified messages; total on hostile input."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_tools.definitions import Prop, validate_args
from dsh_tools.definitions.validation import compile_spec
from dsh_tools.json_values import freeze_json

SPEC = {
    "path": Prop("string", required=True),
    "offset": Prop("integer"),
    "ratio": Prop("number"),
    "flag": Prop("boolean"),
    "mode": Prop("string", enum=["text", "bytes"]),
    "note": Prop("string", nullable=True),
    "level": Prop("integer", enum=[1, 2], nullable=True),
    "config": Prop(
        "object",
        properties={"host": Prop("string", required=True), "port": Prop("integer")},
    ),
    "tags": Prop("array", items=Prop("string")),
    "servers": Prop("array", items=Prop("object", properties={"host": Prop("string", required=True)})),
    "bag": Prop("object", additional_properties=Prop("integer")),
    "closed": Prop("object", properties={"a": Prop("string")}, additional_properties=False),
    "anything": Prop("object"),
    "list_of_anything": Prop("array"),
}


def test_valid_input_has_no_violations() -> None:
    value = {
        "path": "/a",
        "offset": 0,
        "ratio": 1,
        "flag": False,
        "mode": "bytes",
        "note": None,
        "level": None,
        "config": {"host": "h", "port": 1},
        "tags": ["a", "b"],
        "servers": [{"host": "x"}],
        "bag": {"my key": 1, "k": 2},
        "closed": {"a": "x"},
        "anything": {"x": [1, {"y": None}]},
        "list_of_anything": [1, "two", None, {}],
        "extra_keys": "are allowed",
    }
    assert validate_args(SPEC, value) == []
    assert validate_args(SPEC, freeze_json(value).unwrap()) == []
    assert validate_args(SPEC, {"path": "/a", "ratio": 1.5, "level": 2}) == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({}, ["path: missing required property"]),
        ([], ["(root): expected object, got array"]),
        (None, ["(root): expected object, got null"]),
        ("x", ["(root): expected object, got string"]),
        ({"path": 1}, ["path: expected string, got integer"]),
        ({"path": None}, ["path: expected string, got null"]),
        ({"path": "p", "offset": None}, ["offset: expected integer, got null"]),
        ({"path": "p", "offset": 1.5}, ["offset: expected integer, got number"]),
        ({"path": "p", "offset": 1.0}, ["offset: expected integer, got number"]),
        ({"path": "p", "offset": True}, ["offset: expected integer, got boolean"]),
        ({"path": "p", "ratio": True}, ["ratio: expected number, got boolean"]),
        ({"path": "p", "ratio": float("nan")}, ["ratio: expected number, got non-finite number"]),
        ({"path": "p", "flag": 1}, ["flag: expected boolean, got integer"]),
        ({"path": "p", "mode": "x"}, ['mode: expected one of "text", "bytes"']),
        ({"path": "p", "mode": 3}, ["mode: expected string, got integer"]),
        ({"path": "p", "note": 3}, ["note: expected string or null, got integer"]),
        ({"path": "p", "level": 3}, ["level: expected one of 1, 2, null"]),
        ({"path": "p", "level": True}, ["level: expected integer or null, got boolean"]),
        ({"path": "p", "config": {}}, ["config.host: missing required property"]),
        ({"path": "p", "config": {"host": 1}}, ["config.host: expected string, got integer"]),
        ({"path": "p", "config": []}, ["config: expected object, got array"]),
        ({"path": "p", "tags": ["a", 2]}, ["tags[1]: expected string, got integer"]),
        ({"path": "p", "tags": "a"}, ["tags: expected array, got string"]),
        ({"path": "p", "servers": [{"host": "a"}, {}]}, ["servers[1].host: missing required property"]),
        ({"path": "p", "bag": {"my key": "x"}}, ['bag["my key"]: expected integer, got string']),
        ({"path": "p", "bag": {"ok": 1.5}}, ["bag.ok: expected integer, got number"]),
        ({"path": "p", "closed": {"b": 1}}, ["closed.b: unexpected property"]),
        ({"path": "p", "anything": []}, ["anything: expected object, got array"]),
        ({"path": "p", "list_of_anything": {}}, ["list_of_anything: expected array, got object"]),
    ],
)
def test_messages(value: object, expected: list[str]) -> None:
    assert validate_args(SPEC, value) == expected


def test_every_violation_is_listed() -> None:
    violations = validate_args(SPEC, {"offset": "1", "mode": "x", "config": {"host": 1}, "tags": [1, 2]})
    assert violations == [
        "path: missing required property",
        "offset: expected integer, got string",
        'mode: expected one of "text", "bytes"',
        "config.host: expected string, got integer",
        "tags[0]: expected string, got integer",
        "tags[1]: expected string, got integer",
    ]


def test_defaults_are_not_applied() -> None:
    spec = {"n": Prop("integer", required=True, default=3)}
    value: dict[str, Any] = {}
    assert validate_args(spec, value) == ["n: missing required property"]
    assert value == {}


def test_non_json_values_are_named_by_python_type() -> None:
    assert validate_args(SPEC, {"path": b"x"}) == ["path: expected string, got non-JSON bytes"]

    class MyDict(dict[str, Any]):
        pass

    assert validate_args(SPEC, MyDict(path="x")) == ["(root): expected object, got non-JSON MyDict"]


class Hostile:
    """Raises from everything a careless validator might call."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __hash__(self) -> int:
        return hash("path")

    def __iter__(self) -> Any:
        raise RuntimeError("iter")

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError("getattr")

    def __len__(self) -> int:
        raise RuntimeError("len")


def test_hostile_values_become_violations() -> None:
    assert validate_args(SPEC, Hostile()) == ["(root): expected object, got non-JSON Hostile"]
    assert validate_args(SPEC, {"path": Hostile()}) == ["path: expected string, got non-JSON Hostile"]
    assert validate_args(SPEC, {"path": "p", "tags": [Hostile()]}) == ["tags[0]: expected string, got non-JSON Hostile"]


def test_hash_colliding_key_whose_eq_raises_is_a_violation_not_a_crash() -> None:
    value = {Hostile(): 1}  # same hash as "path": the lookup runs Hostile.__eq__
    assert validate_args(SPEC, value) == ["(root): could not be validated (RuntimeError)"]


def test_non_string_keys_under_additional_properties() -> None:
    assert validate_args(SPEC, {"path": "p", "bag": {1: 1}}) == ["bag: object key of type int, expected string"]


def test_cycles_and_deep_nesting_in_values() -> None:
    cycle: dict[str, Any] = {"path": "p"}
    cycle["config"] = cycle
    assert validate_args(SPEC, cycle) == ["config.host: missing required property"]
    deep: list[Any] = []
    for _ in range(10_000):
        deep = [deep]
    assert validate_args(SPEC, {"path": "p", "list_of_anything": deep, "tags": deep}) == [
        "tags[0]: expected string, got array"
    ]


def test_malformed_spec_is_reported_not_raised() -> None:
    violations = validate_args({"x": Prop()}, {})
    assert len(violations) == 1 and violations[0].startswith("(root): cannot validate")
    assert validate_args("not a spec", {})[0].startswith("(root): cannot validate")


def test_compiled_validator_matches_validate_args() -> None:
    validator = compile_spec(SPEC)
    for value in ({}, {"path": 1, "tags": [1]}, {"path": "ok"}):
        assert validator(value) == validate_args(SPEC, value)
