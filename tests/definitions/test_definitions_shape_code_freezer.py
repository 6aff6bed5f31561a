"""The one-pass typed-output freezer vouches only for what the exact walks accept, and builds what they build.

For any value, the freezer either says ``UNSURE`` or returns exactly what
``freeze_json`` makes of it (same types all the way down, same key order),
and only when the output validator finds that valid. The values come from a
valid one by seeded mutation (deterministic), plus every hostile value of
the shared list in every position.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from returns.result import Failure, Success

from dsh_tools.definitions import Prop
from dsh_tools.definitions.shape_code import BUDGET, INLINE_DEPTH, UNSURE, Freezer, compile_fast_freezer
from dsh_tools.definitions.output_schema import compile_value_check, compile_value_freezer
from dsh_tools.definitions.validation import compile_validator, prop_shape
from dsh_tools.json_values import FrozenDict, freeze_json
from hostile_values import HOSTILE, MyStr
from value_mutations import Weird, mutate

HIT: dict[str, Any] = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "line": {"type": "integer"}},
    "required": ["path", "line"],
    "additionalProperties": False,
}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "line": {"type": "integer"},
        "ratio": {"type": "number"},
        "ok": {"type": "boolean"},
        "nothing": {"type": "null"},
        "kind": {"type": "string", "enum": ["file", "dir"]},
        "mark": {"enum": ["a", None]},
        "fixed": {"type": "string", "const": "v"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "hits": {"type": "array", "items": HIT},
        "meta": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "grid": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
        "empty": {"type": "array"},
    },
    "required": ["path", "line", "hits"],
}
VALID: dict[str, Any] = {
    "path": "src/ünï.py",
    "line": 2**63,
    "ratio": 0.5,
    "ok": True,
    "nothing": None,
    "kind": "dir",
    "mark": None,
    "fixed": "v",
    "tags": ["a", "b"],
    "hits": [{"path": "a", "line": 1}, {"line": -(2**63), "path": ""}],
    "meta": {"n": 3},
    "grid": [[1, 2], [], [3]],
    "empty": [],
}
NEW_KEYS = ("new", "path", "n", 7, MyStr("line"))


def freezer(schema: dict[str, Any]) -> Freezer:
    made = compile_value_freezer(schema)
    assert made is not None
    return made


def same_form(left: object, right: object) -> bool:
    """Equal, and built of the same types in the same key order all the way down."""
    if type(left) is not type(right):
        return False
    if type(left) is FrozenDict:
        assert isinstance(left, FrozenDict) and isinstance(right, FrozenDict)
        return list(left) == list(right) and all(same_form(left[key], right[key]) for key in left)
    if type(left) is tuple:
        assert isinstance(left, tuple) and isinstance(right, tuple)
        return len(left) == len(right) and all(same_form(a, b) for a, b in zip(left, right))
    return left == right


def assert_vouches_rightly(freeze: Freezer, schema: dict[str, Any] | Callable[[object], list[str]], value: object) -> bool:
    """The freezer's answer for ``value`` is safe; returns whether it vouched (``schema``: or its validator)."""
    got = freeze(value)
    if got is UNSURE:
        return False
    expected = freeze_json(value)
    assert isinstance(expected, Success), ("vouched for a value that is not JSON", value)
    check = schema if callable(schema) else compile_value_check(schema, tool="t")
    assert check(expected.unwrap()) == [], ("vouched for an invalid value", value)
    assert same_form(got, expected.unwrap()), (got, expected)
    assert freeze_json(got).unwrap() is got, "a vouched value is trusted as verified"
    return True


def test_the_valid_value_is_frozen_in_one_pass_exactly_as_freeze_json_would() -> None:
    freeze = freezer(SCHEMA)
    assert assert_vouches_rightly(freeze, SCHEMA, VALID)
    frozen: Any = freeze(VALID)
    assert list(frozen["hits"][1]) == ["line", "path"]  # the value's own key order, not the schema's


def test_mutated_values_are_vouched_for_only_when_valid_and_json() -> None:
    rng = random.Random(20261202)
    freeze = freezer(SCHEMA)
    vouched = unsure = 0
    for _ in range(4000):
        value: Any = VALID
        for _ in range(rng.randint(1, 3)):
            value = mutate(value, rng, NEW_KEYS)
        if assert_vouches_rightly(freeze, SCHEMA, value):
            vouched += 1
        else:
            unsure += 1
    assert vouched > 100 and unsure > 100, (vouched, unsure)


def _positions(hostile: object) -> list[Any]:
    """``hostile`` at the root, as each kind of member, as an array item and as a key."""
    hits = [*VALID["hits"]]
    return [
        hostile,
        {**VALID, "path": hostile},
        {**VALID, "line": hostile},
        {**VALID, "ratio": hostile},
        {**VALID, "kind": hostile},
        {**VALID, "tags": ["a", hostile]},
        {**VALID, "hits": [*hits, hostile]},
        {**VALID, "hits": [{"path": "a", "line": hostile}]},
        {**VALID, "meta": hostile},
        {**VALID, "grid": [[1], [hostile]]},
    ]


@pytest.mark.parametrize("hostile", HOSTILE, ids=[f"hostile{index}" for index in range(len(HOSTILE))])
def test_a_value_that_is_not_json_anywhere_is_never_vouched_for(hostile: object) -> None:
    freeze = freezer(SCHEMA)
    for value in _positions(hostile):
        assert freeze(value) is UNSURE


@pytest.mark.parametrize("key", [MyStr("path"), Weird(), 1, None, "\ud800", "extra"])
def test_a_key_that_is_not_an_exact_declared_string_is_a_doubt(key: object) -> None:
    freeze = freezer({"type": "array", "items": HIT})
    assert freeze([{"path": "a", "line": 1}]) != UNSURE
    assert freeze([{"line": 1, key: "a"}]) is UNSURE
    if not isinstance(key, Weird):  # Weird beside "path" cannot even be put in one dict
        assert freeze([{key: "a", "path": "a", "line": 1}]) is UNSURE  # a MyStr key is kept, "path" folds into it


def test_undeclared_keys_are_a_doubt_even_where_the_schema_allows_them() -> None:
    """Their values are of any kind: the exact walks freeze and accept them."""
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    freeze = freezer(schema)
    assert freeze({"n": 1}) != UNSURE and freeze({}) != UNSURE
    assert freeze({"n": 1, "x": [1]}) is UNSURE
    assert compile_value_check(schema, tool="t")({"n": 1, "x": [1]}) == []


def test_wrong_containers_are_a_doubt() -> None:
    freeze = freezer({"type": "array", "items": HIT})
    frozen_hits = freeze_json([{"path": "a", "line": 1}]).unwrap()
    assert freeze(frozen_hits) is UNSURE  # FrozenDict members: the trusted path answers those
    assert freeze(({"path": "a", "line": 1},)) != UNSURE  # a tuple is an array
    assert freeze({"path": "a"}) is UNSURE
    assert freeze(None) is UNSURE


def test_more_array_members_than_the_budget_are_left_to_the_exact_walks() -> None:
    freeze = freezer({"type": "array", "items": {"type": "integer"}})
    assert freeze([0] * BUDGET) != UNSURE
    assert freeze([0] * (BUDGET + 1)) is UNSURE


def test_sharing_counts_against_the_budget_each_time_it_is_met() -> None:
    schema = {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}
    freeze = freezer(schema)
    row = [1] * 300
    assert assert_vouches_rightly(freeze, schema, [row] * 100)  # 30,100 members
    assert freeze([row] * 300) is UNSURE  # 90,300: the exact walk keeps the row shared instead


@pytest.mark.parametrize(
    "schema",
    [
        {},  # any value
        {"type": "object", "properties": {"any": {}}},
        {"type": "integer", "enum": [1, 2]},  # 1 == True: left to the exact check
        {"enum": ["a", 1]},
    ],
)
def test_shapes_the_freezer_does_not_write_get_none(schema: dict[str, Any]) -> None:
    assert compile_value_freezer(schema) is None


def _nested(depth: int) -> tuple[dict[str, Any], Any]:
    schema: dict[str, Any] = {"type": "string"}
    value: Any = "x"
    for _ in range(depth):
        schema, value = {"type": "array", "items": schema}, [value]
    return schema, value


def test_nesting_up_to_the_inline_depth_is_written_and_deeper_is_not() -> None:
    schema, value = _nested(INLINE_DEPTH)
    assert_vouches_rightly(freezer(schema), schema, value)  # vouches today (both fold); safe either way
    assert compile_value_freezer(_nested(INLINE_DEPTH + 1)[0]) is None


@pytest.mark.parametrize(
    "name", ["it's", 'say "hi"', "back\\slash", "new\nline", "'''", '"""', "{name}", "ünï", "\u2028", "", " "]
)
def test_property_names_never_become_code(name: str) -> None:
    schema = {"type": "object", "properties": {name: {"type": "string"}}, "required": [name]}
    freeze = freezer(schema)
    assert assert_vouches_rightly(freeze, schema, {name: "x"})
    assert freeze({name: 1}) is UNSURE and freeze({}) is UNSURE


def test_a_scalar_root_is_checked_by_the_boundary_rules() -> None:
    freeze = freezer({"type": "number"})
    assert freeze(1) == 1 and freeze(0.5) == 0.5 and freeze(2**64 - 1) == 2**64 - 1
    for bad in (True, float("nan"), float("inf"), 2**64, "1", None):
        assert freeze(bad) is UNSURE
    text = freezer({"type": "string"})
    assert text("ünï") == "ünï" and text("\ud800") is UNSURE and text(MyStr("s")) is UNSURE


def _wide_record(width: int) -> dict[str, Any]:
    names = [f"p{index}" for index in range(width)]
    return {
        "type": "object",
        "properties": {name: {"type": "integer"} for name in names},
        "required": names,
        "additionalProperties": False,
    }


def test_object_members_count_toward_the_exact_walks_value_limit() -> None:
    """An array within the budget of records whose members, counted as freeze_json counts, pass MAX_VALUES."""
    schema = {"type": "array", "items": _wide_record(15)}
    record = {f"p{index}": index for index in range(15)}
    value = [record] * BUDGET  # 65,536 * 16 + 1 values, above MAX_VALUES
    assert not isinstance(freeze_json(value), Success)
    assert freezer(schema)(value) is UNSURE


def test_an_array_is_charged_each_members_size_and_a_nested_array_its_own() -> None:
    record = _wide_record(7)  # 8 values a member
    record["properties"]["rows"] = {"type": "array", "items": {"type": "integer"}}  # 9, its members charged apart
    schema = {"type": "array", "items": record}
    value: dict[str, Any] = {f"p{index}": index for index in range(7)}
    fits = BUDGET // 9
    freeze = freezer(schema)
    assert assert_vouches_rightly(freeze, schema, [value] * fits)
    assert freeze([value] * (fits + 1)) is UNSURE
    left = BUDGET - 9 * fits  # what the outer array leaves for its members' rows
    assert assert_vouches_rightly(freeze, schema, [*[value] * (fits - 1), {**value, "rows": [0] * left}])
    assert freeze([*[value] * (fits - 1), {**value, "rows": [0] * (left + 1)}]) is UNSURE


def test_nullable_containers_and_enums_of_a_spec_shape_take_the_null_branches() -> None:
    """Output schemas have no nullable types; a ``SchemaSpec`` Prop's shape does (``T | null``, enum + None)."""
    row = Prop(
        "object",
        nullable=True,
        additional_properties=False,
        properties={
            "id": Prop("integer", required=True, nullable=True),
            "kind": Prop("string", enum=["a", "b"], nullable=True),
            "tags": Prop("array", items=Prop("string", nullable=True), nullable=True),
            "sub": Prop("object", nullable=True, properties={"n": Prop("number", required=True)}),
        },
    )
    shape = prop_shape(Prop("array", items=row, nullable=True))
    freeze, check = compile_fast_freezer(shape), compile_validator(shape)
    assert freeze is not None
    vouched: list[Any] = [
        None,
        [],
        [None, {"id": None}],
        [{"id": 1, "kind": None, "tags": None, "sub": None}],
        [{"sub": {"n": 0.5}, "tags": [None, "x"], "kind": "b", "id": 2}],
    ]
    for value in vouched:
        assert assert_vouches_rightly(freeze, check, value), value
    doubted: list[Any] = [
        [{}],  # "id" is required even though it may be null
        [{"id": True}],
        [{"id": 1, "kind": "c"}],
        [{"id": 1, "kind": MyStr("a")}],
        [{"id": 1, "tags": [1]}],
        [{"id": 1, "sub": {}}],
        [{"id": 1, "sub": {"n": float("nan")}}],
        [{"id": 1, "extra": None}],
        [[None]],
    ]
    for value in doubted:
        assert freeze(value) is UNSURE, value


def test_a_cycle_that_has_every_declared_key_at_every_level_is_a_doubt() -> None:
    schema: dict[str, Any] = {"type": "array"}  # the leaf: an empty array only
    for _ in range(INLINE_DEPTH - 1):
        schema = {"type": "object", "properties": {"self": schema}, "required": ["self"]}
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    loop: list[Any] = []
    loop.append(loop)
    freeze = freezer(schema)
    assert freeze(cyclic) is UNSURE
    assert freeze({"self": {"self": loop}}) is UNSURE
    assert not isinstance(freeze_json(cyclic), Success)


def test_the_frozen_value_is_detached_and_a_shared_record_is_copied_equal() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "array", "items": HIT}, "b": HIT}}
    hit = {"path": "p", "line": 1}
    value: dict[str, Any] = {"a": [hit, hit], "b": hit}
    freeze = freezer(schema)
    assert assert_vouches_rightly(freeze, schema, value)
    frozen: Any = freeze(value)
    assert frozen["a"][0] == frozen["a"][1] == frozen["b"] == hit
    hit["line"] = "changed"
    value["a"].append(hit)
    assert frozen["a"] == ({"path": "p", "line": 1},) * 2 and frozen["b"]["line"] == 1
    scalars = (1, 2, 3)
    assert freezer({"type": "array", "items": {"type": "integer"}})(scalars) is scalars  # freeze_json keeps it too


class _Colliding:
    """A key hashing like "path" that can be armed to compare equal to it, or to mutate the value as it is compared."""

    def __init__(self, on_compare: Callable[[], bool]) -> None:
        self.on_compare = on_compare

    def __hash__(self) -> int:
        return hash("path")

    def __eq__(self, other: object) -> bool:
        return self.on_compare()


def _with_key(key: object) -> dict[object, object]:
    """``{"path": "p", "line": 1, key: "k"}`` in a dict whose copy compares keys (a deleted entry defeats the table clone)."""
    made: dict[object, object] = {"gone": 0, "path": "p", "line": 1}
    made[key] = "k"
    del made["gone"]
    return made


def test_a_key_that_would_be_compared_during_the_copy_is_a_doubt_and_runs_no_code() -> None:
    freeze = freezer({"type": "array", "items": HIT})
    armed = False
    later: list[Any] = [{"path": "q", "line": 2}]

    def mutate_later() -> bool:
        if armed:
            later.append(float("nan"))
            later[0]["line"] = "x"
        return False

    value = [_with_key(_Colliding(mutate_later)), later[0]]
    armed = True
    assert freeze(value) is UNSURE and later == [{"path": "q", "line": 2}]  # the dict is never copied: no __eq__ ran

    def raise_error() -> bool:
        if armed:
            raise RuntimeError("eq")
        return False

    armed = False
    hostile = [_with_key(_Colliding(raise_error))]
    armed = True
    assert freeze(hostile) is UNSURE


def test_a_key_that_would_fold_into_a_declared_name_during_the_copy_is_never_copied() -> None:
    """A key equal to "path" only when compared folds into it if the dict is copied: neither the compiled
    freezer nor freeze_json copies a dict with a foreign key (its ``__eq__`` would run), so both refuse it."""
    schema = {"type": "array", "items": HIT}
    equal = False
    compared: list[bool] = []

    def fold() -> bool:
        compared.append(equal)
        return equal

    value = [_with_key(_Colliding(fold))]
    equal = True
    assert freezer(schema)(value) is UNSURE and isinstance(freeze_json(value), Failure)
    assert assert_vouches_rightly(freezer(schema), schema, value) is False
    assert True not in compared  # no comparison ran while it was armed
