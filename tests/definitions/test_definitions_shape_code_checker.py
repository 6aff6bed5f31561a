"""The generated fast path answers exactly as the closure checker does, on any value.

The predicate may only vouch for values the checker finds valid; everything
else goes to the checker. So the combined validator must agree with the
checker alone on every value: valid ones, each kind of mistake, hostile
ones. Values come from the valid arguments by seeded mutation (deterministic).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from dsh_tools.definitions import Prop
from dsh_tools.definitions.shape_code import INLINE_DEPTH, compile_fast_validator
from dsh_tools.definitions.props import MAX_PROP_DEPTH, checked_spec
from dsh_tools.definitions.validation import (
    PYTHON_TYPES,
    Shape,
    compile_shape,
    compile_spec,
    spec_shape,
    total_validator,
)
from dsh_tools.json_values import freeze_json
from value_mutations import mutate

SPEC: dict[str, Prop] = {
    "path": Prop("string", required=True),
    "offset": Prop("integer"),
    "ratio": Prop("number"),
    "flag": Prop("boolean"),
    "mode": Prop("string", enum=["text", "bytes"]),
    "level": Prop("integer", enum=[1, 2], nullable=True),
    "note": Prop("string", nullable=True),
    "config": Prop(
        "object",
        required=True,
        properties={
            "host": Prop("string", required=True),
            "port": Prop("integer"),
            "retry": Prop("object", nullable=True, properties={"count": Prop("integer", required=True)}),
        },
    ),
    "servers": Prop("array", items=Prop("object", properties={"host": Prop("string", required=True)})),
    "tags": Prop("array", items=Prop("string"), nullable=True),
    "bag": Prop("object", additional_properties=Prop("number")),
    "closed": Prop("object", properties={"a": Prop("string")}, additional_properties=False),
    "anything": Prop("object"),
    "list_of_anything": Prop("array"),
    "grid": Prop("array", items=Prop("array", items=Prop("integer"))),
}

VALID: dict[str, Any] = {
    "path": "/a",
    "offset": 0,
    "ratio": 1.5,
    "flag": False,
    "mode": "bytes",
    "level": None,
    "note": None,
    "config": {"host": "h", "port": 1, "retry": {"count": 2}},
    "servers": [{"host": "x"}, {"host": "y", "extra": 1}],
    "tags": ["a", "b"],
    "bag": {"my key": 1, "k": 2.5},
    "closed": {"a": "x"},
    "anything": {"x": [1, {"y": None}]},
    "list_of_anything": [1, "two", None, {}],
    "grid": [[1, 2], [], [3]],
    "extra_keys": "are allowed",
}


def checker_only(spec: dict[str, Prop]) -> Callable[[object], list[str]]:
    return total_validator(compile_shape(spec_shape(checked_spec(spec))))


def predicate(shape: Shape) -> Callable[[object], bool]:
    """Whether the fast path vouches for a value by itself (it never asked the slow validator)."""
    deferred: list[object] = []

    def slow(value: object) -> list[str]:
        deferred.append(value)
        return ["deferred"]

    fast = compile_fast_validator(
        shape, slow=slow, fallback=compile_shape, objects=PYTHON_TYPES["object"], arrays=PYTHON_TYPES["array"]
    )

    def vouched(value: object) -> bool:
        deferred.clear()
        answer = fast(value)
        assert (answer == []) != bool(deferred)
        return not deferred

    return vouched


def test_the_fast_path_agrees_with_the_checker_on_mutated_values() -> None:
    rng = random.Random(20261201)
    combined, reference = compile_spec(SPEC), checker_only(SPEC)
    fast = predicate(spec_shape(checked_spec(SPEC)))
    vouched = 0
    for _ in range(4000):
        value: Any = VALID
        for _ in range(rng.randint(1, 3)):
            value = mutate(value, rng)
        expected = reference(value)
        assert combined(value) == expected, value
        if fast(value):
            vouched += 1
            assert expected == [], ("vouched for an invalid value", value, expected)
    assert vouched > 100, "the mutations should leave many values valid"


def test_valid_plain_values_take_the_fast_path() -> None:
    fast = predicate(spec_shape(checked_spec(SPEC)))
    assert fast(VALID) is True
    assert fast({**VALID, "ratio": float("nan")}) is False
    assert fast({**VALID, "offset": True}) is False
    assert fast({**VALID, "config": {"port": 1}}) is False


def test_frozen_values_agree_too() -> None:
    combined, reference = compile_spec(SPEC), checker_only(SPEC)
    frozen = freeze_json(VALID).unwrap()
    assert combined(frozen) == reference(frozen) == []
    broken = freeze_json({**VALID, "config": {"host": 1}}).unwrap()
    assert combined(broken) == reference(broken) == ["config.host: expected string, got integer"]


@pytest.mark.parametrize(
    "name", ["it's", 'say "hi"', "back\\slash", "new\nline", "'''", '"""', "{name}", "ünï", "\u2028", "", " "]
)
def test_property_names_never_become_code(name: str) -> None:
    spec = {name: Prop("string", required=True)}
    validate = compile_spec(spec)
    assert validate({name: "x"}) == []
    assert validate({name: 1}) != [] and validate({}) != []
    assert predicate(spec_shape(checked_spec(spec)))({name: "x"}) is True


def nested(depth: int, leaf: Prop) -> tuple[dict[str, Prop], Any]:
    """A spec nesting ``depth`` objects (alternating with arrays) and a value that fits it."""
    prop = leaf
    value: Any = "x"
    for level in range(depth - 1):
        if level % 2:
            prop, value = Prop("array", items=prop), [value]
        else:
            prop, value = Prop("object", required=True, properties={"n": prop}), {"n": value}
    return {"n": prop}, {"n": value}


@pytest.mark.parametrize("depth", [1, INLINE_DEPTH - 1, INLINE_DEPTH, INLINE_DEPTH + 1, MAX_PROP_DEPTH])
def test_any_depth_compiles_and_validates(depth: int) -> None:
    spec, value = nested(depth, Prop("string"))
    validate = compile_spec(spec)
    assert validate(value) == []
    assert predicate(spec_shape(checked_spec(spec)))(value) is True
    bad_spec, bad_value = nested(depth, Prop("integer"))
    assert compile_spec(bad_spec)(bad_value) == checker_only(bad_spec)(bad_value) != []


def test_a_wide_spec_compiles() -> None:
    spec = {f"p{index}": Prop("integer", required=index % 2 == 0) for index in range(2000)}
    value = {f"p{index}": index for index in range(0, 2000, 2)}
    assert compile_spec(spec)(value) == []
    assert compile_spec(spec)({**value, "p1": "x"}) == ["p1: expected integer, got string"]


def test_constructs_it_does_not_know_go_to_the_checker() -> None:
    odd = Shape(("string", "integer"))  # a type union: not something Props produce
    assert predicate(odd)("a") is True and predicate(odd)(1) is True and predicate(odd)(1.5) is False
    enum = Shape(("integer",), enum=(1, 2))  # non-string members: always the checker's call
    assert predicate(enum)(1) is False
    assert total_validator(compile_shape(enum))(1) == []
