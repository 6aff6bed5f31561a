"""One renderer, read as its JSON text says; its fast path agrees with its rules.

The member memo (``_sdk``) keys a schema's text by the schema's JSON text as
orjson writes it, so the renderer must read a schema exactly as that text
says whenever it reports itself *sure*: these tests generate many random
schemas covering every rule (and the odd corners: non-str names, containers
where scalars belong, empty combinators, depth and budget limits, NaN) and
check that a sure render of a value equals the render of its JSON copy, for
plain trees and their frozen forms. ``_fast_member`` (the block's fast path
for common member shapes) must give what the rules give, and so must
``jsdoc``'s fast path (what ``_collapsed_doc`` gives).
"""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest
from pyrsistent import PMap, PVector, freeze
from value_shapes import deep_frozen, frozen

from dsh_tools.json_values import FrozenDict
from dsh_tools_codegen import json_schema_to_ts, render_tools_sdk
from dsh_tools_codegen._read import (
    LEAF_TYPES, MAX_DEPTH, SCHEMA_KEYWORDS, Walk, _rest_rule, exact_strs, no_keywords, rest, scalars_only,
)
from dsh_tools_codegen._schema import _fast_member, _node, render
from dsh_tools_codegen._sdk import _CACHE, _clear_cache
from dsh_tools_codegen._text import _collapsed_doc, jsdoc

TYPES: list[Any] = ["string", "number", "integer", "boolean", "null", "array", "object", "bogus", ""]
NAMES = ["a", "b", "path", "my-key", "new", "é", "1st", "", 'q"', "zz", "B", "_x"]
SCALARS: list[Any] = ["s", "", 'q"\n', "\u2028", 0, 1, -7, 2**40, 1.5, -0.0, 1e300, True, False, None, float("nan"), float("-inf")]
TEXTS: list[Any] = ["Plain words.", "Ends */ here\n next", "  padded  ", "", "tab\tand\x00nul", 5, None, ["x"]]


def random_schema(rnd: random.Random, depth: int = 0) -> Any:
    if depth > 4 or rnd.random() < 0.08:
        return rnd.choice([*SCALARS, [], [{}], {}])
    node: dict[str, Any] = {}
    for keyword, chance in (("const", 0.05), ("enum", 0.1), ("anyOf", 0.08), ("oneOf", 0.04), ("allOf", 0.05)):
        if rnd.random() < chance:
            if keyword == "const":
                node[keyword] = rnd.choice([*SCALARS, ["a"], {"a": 1}])
            elif keyword == "enum":
                node[keyword] = rnd.choice(
                    [rnd.sample(SCALARS, rnd.randint(0, 4)), "notalist", [["nested"]], [{"a": 1}], [1.0, 1, True]]
                )
            else:
                node[keyword] = [random_schema(rnd, depth + 1) for _ in range(rnd.randint(0, 3))]
    roll = rnd.random()
    if roll < 0.6:
        node["type"] = rnd.choice(TYPES)
    elif roll < 0.75:
        node["type"] = rnd.sample(TYPES, rnd.randint(0, 3)) + rnd.choice([[], [None], [3]])
    elif roll < 0.8:
        node["type"] = rnd.choice([3, None, {"a": 1}, True])
    if rnd.random() < 0.5:
        node["properties"] = rnd.choice(
            [
                {name: random_schema(rnd, depth + 1) for name in rnd.sample(NAMES, rnd.randint(0, 5))},
                ["not", "a", "mapping"],
                "text",
            ]
        )
        names: list[Any] = rnd.sample(NAMES, rnd.randint(0, 4))
        node["required"] = rnd.choice([names, names + [3, None], "a", 7, {"a": 1}])
    if rnd.random() < 0.3:
        node["items"] = rnd.choice([random_schema(rnd, depth + 1), [{"type": "string"}], "x", None])
    if rnd.random() < 0.2:
        node["additionalProperties"] = rnd.choice([True, False, random_schema(rnd, depth + 1)])
    if rnd.random() < 0.5:
        node["description"] = rnd.choice(TEXTS)
    if rnd.random() < 0.1:
        node["minimum"] = rnd.choice(SCALARS)
    keys = list(node)
    rnd.shuffle(keys)  # dict order matters for properties only, but vary it everywhere
    return {key: node[key] for key in keys}


def plain(value: object) -> object:
    """orjson ``default``: pyrsistent containers as the renderer reads them."""
    if isinstance(value, PMap):
        return dict(sorted(value.items()))
    if isinstance(value, PVector):
        return list(value)
    raise TypeError


def reference(schema: object, level: int) -> str:
    """The render of ``schema``'s JSON copy (what its memo entry is keyed by)."""
    return render(orjson.loads(orjson.dumps(schema, default=plain)), level)[0]


@pytest.mark.parametrize("seed", range(40))
def test_a_sure_render_is_the_render_of_the_json_copy(seed: int) -> None:
    rnd = random.Random(seed)
    sure = 0
    for _ in range(50):
        schema = random_schema(rnd)
        level = rnd.randint(0, 3)
        expected = reference(schema, level)
        for value in (schema, tupled(schema, rnd), deep_frozen(schema)):
            text, is_sure = render(value, level)
            if is_sure:
                sure += 1
                assert text == expected, (schema, value)
        assert json_schema_to_ts(schema, level) == expected  # NaN reads as null either way
        assert json_schema_to_ts(deep_frozen(schema), level) == expected
        if isinstance(schema, dict):
            assert render(freeze(schema), level)[1] is False  # a PMap is not what orjson writes
    assert sure >= 100  # most random schemas are sure


def members(rnd: random.Random) -> list[dict[str, Any]]:
    shapes: list[Any] = [
        {"type": rnd.sample(TYPES, rnd.randint(0, 3))},
        {"type": ("string", "null")},
        {"type": ["integer", "number", "null"], "description": "d"},
        {"enum": ["a", "b", "a"], "description": "d"},
        {"type": "string", "enum": ["\u2028", 'q"']},
        {"type": "array", "items": {"type": "boolean", "description": "d"}},
        {"enum": rnd.sample(["a", "b", "a", 'q"', "\u2028", 1, None], rnd.randint(0, 3))},
        {"enum": ["x"], "type": "string", "minimum": rnd.choice([0, [1]])},
        {"type": "array", "items": rnd.choice([{"type": "string"}, {"type": "bogus"}, {"type": "integer", "enum": [1]}, []])},
        {"type": "array", "items": {"type": "number", "description": rnd.choice(["d", ["d"]])}},
        {"const": "c", "enum": ["a"]},
        {"type": ["string", "null"]},  # the same names as a type list and as an enum: two texts
        {"enum": ["string", "null"]},
        {"$ref": "#", "enum": ["a"]},
        {"anyOf": [{"type": "string"}], "enum": ["a"]},
    ]
    return [rnd.choice(shapes) for _ in range(20)]


@pytest.mark.parametrize("seed", range(10))
def test_the_fast_member_path_gives_what_the_rules_give(seed: int) -> None:
    rnd = random.Random(seed)
    answered = 0
    for schema in members(rnd):
        for value in (schema, deep_frozen(schema)):
            plain = SCHEMA_KEYWORDS.isdisjoint(value)
            shape = _fast_member(value, value.get("type"), value.get("description"), True, plain)  # type: ignore[arg-type]
            if shape is None:
                continue
            answered += 1
            walk = Walk(value)
            assert shape[0] == _node(value, 0, 1, walk)[0], value
            assert walk.sure and walk.budget == 10_000 - shape[1]  # the same nodes paid for
    assert answered >= 10


@pytest.mark.parametrize("seed", range(5))
def test_the_jsdoc_fast_path_gives_what_the_rule_gives(seed: int) -> None:
    rnd = random.Random(seed)
    pieces = [" ", "  ", "*", "/", "*/", "a", "b.", "\n", "\t", "\u2028", "\u00a0", "\ud800", "\x00", "\x85", "é", "\u200b", "\u3000"]
    fast = 0
    for _ in range(4000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 6)))
        line = jsdoc(text)
        assert line == _collapsed_doc(text), repr(text)
        fast += "  " not in f"/** {text} */" and "*/" not in text and text.isprintable()  # jsdoc's fast-path test
    assert fast >= 100  # the inputs reach the fast path often, and the rule the rest of the time
    assert fast <= 3900


class Key(str):
    """A ``str`` subclass key (equal to its exact copy): ``rest`` leaves it to the rule."""


@pytest.mark.parametrize("seed", range(5))
def test_the_native_scans_answer_as_the_set_methods_and_rest_counts_what_the_rule_counts(seed: int) -> None:
    rnd = random.Random(seed)
    keys: list[Any] = ["type", "items", "properties", "required", "enum", "const", "minimum", "x", Key("x"), Key("type"), Key("$ref"), 3, None]
    values: list[Any] = [*SCALARS, [], [1, [2]], {"a": {"b": [1]}}, ("t",), deep_frozen({"a": [1]}), {1, 2}, [float("nan")] * 60]
    counted = 0
    for _ in range(2000):
        sub = {rnd.choice(keys): rnd.choice(values) for _ in range(rnd.randint(0, 5))}
        assert no_keywords(sub) == SCHEMA_KEYWORDS.isdisjoint(sub), sub
        names = list(sub)
        for container in (names, tuple(names), sub, iter(names)):  # a list is looped over as one, the rest alike
            assert exact_strs(container) == all(type(name) is str for name in names), sub
        assert scalars_only(sub) == LEAF_TYPES.issuperset(map(type, sub.values())), sub
        read = frozenset(rnd.sample(["type", "items", "properties", "required"], rnd.randint(0, 3)))
        left, sure = rnd.choice([100, 60, 2]), rnd.random() < 0.9
        walks = [Walk(None), Walk(None)]
        for walk in walks:
            walk.values, walk.sure = left, sure
        rest(sub, walks[0], read)
        _rest_rule(sub, walks[1], read)
        assert (walks[0].values, walks[0].sure) == (walks[1].values, walks[1].sure), (sub, read)
        counted += walks[0].values != left or walks[0].sure != sure
    assert counted >= 100


def nested(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for index in range(levels):
        schema = {"type": "object", "properties": {"x": schema}} if index % 2 else {"type": "array", "items": schema}
    return schema


@pytest.mark.parametrize("levels", [MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, MAX_DEPTH + 5])
def test_depth_limit_is_exact(levels: int) -> None:
    for schema in (nested(levels), frozen(nested(levels)), freeze(nested(levels))):
        assert json_schema_to_ts(schema, 1) == reference(schema, 1)
        assert render_tools_sdk([{"name": "t", "description": "", "parameters": schema}]).count("unknown") == (
            reference(schema, 1).count("unknown")
        )


def test_node_budget_is_exact() -> None:
    # each "object" entry of the type list renders all properties again
    schema = {"type": ["object"] * 120, "properties": {f"p{i}": {"type": ["object"] * 3} for i in range(40)}}
    expected = reference(schema, 0)
    assert "unknown" in expected
    assert json_schema_to_ts(schema) == expected
    assert json_schema_to_ts(frozen(schema)) == expected
    assert json_schema_to_ts(freeze(schema)) == reference(freeze(schema), 0)


def test_non_finite_and_huge_numbers_follow_the_canonical_reading() -> None:
    for freezer in (deep_frozen, freeze):
        assert json_schema_to_ts(freezer({"enum": [float("nan"), 1]})) == "null | 1"
        assert json_schema_to_ts(freezer({"const": float("inf")})) == "null"
        assert json_schema_to_ts(freezer({"const": 2**70})) == str(2**70)  # no canonical bytes: rendered as is


def test_frozen_tree_with_a_plain_dict_inside_renders_and_stays_fresh() -> None:
    inner: dict[str, Any] = {"type": "string"}
    properties: Any = FrozenDict({"a": inner})
    params = FrozenDict({"type": "object", "properties": properties})
    tool = {"name": "t", "description": "", "parameters": params}
    assert "a?: string;" in render_tools_sdk([tool])
    inner["type"] = "number"  # not deeply frozen: never cached by identity
    assert "a?: number;" in render_tools_sdk([tool])


def test_mutated_plain_dict_rerenders_cold_and_warm() -> None:
    params: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "string", "description": "A."}}}
    tool = {"name": "t", "description": "d", "parameters": params}
    _clear_cache()
    first = render_tools_sdk([tool])
    params["properties"]["a"]["description"] = "B."
    second = render_tools_sdk([tool])
    assert "/** A. */" in first and "/** B. */" in second
    params["properties"]["a"]["description"] = "A."
    assert render_tools_sdk([tool]) == first


def tupled(value: Any, rnd: random.Random) -> Any:
    """``value`` with some lists turned into tuples (orjson dumps both as arrays)."""
    if type(value) is dict:
        return {key: tupled(item, rnd) for key, item in value.items()}
    if type(value) is list:
        items = [tupled(item, rnd) for item in value]
        return tuple(items) if rnd.random() < 0.5 else items
    return value


def with_value(bad: object) -> list[dict[str, Any]]:
    """Schemas where ``bad`` sits where the renderer decides a rule."""
    return [
        {"items": bad},
        {"type": bad, "properties": {"z": {"type": "string"}}},
        {"type": "array", "items": bad},
        {"anyOf": bad, "type": "string"},
        {"properties": bad},
        {"type": "object", "properties": {"a": bad}},
    ]


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_numbers_read_as_the_canonical_null_and_never_share_a_memo_entry_wrongly(bad: float) -> None:
    for schema, as_null in zip(with_value(bad), with_value(None)):
        for value, null_value in ((schema, as_null), (deep_frozen(schema), deep_frozen(as_null)), (freeze(schema), freeze(as_null))):
            expected = reference(as_null, 1)
            assert json_schema_to_ts(value, 1) == expected
            tool = {"name": "t", "description": "", "parameters": {"type": "object", "properties": {"x": value}}}
            null_tool = {"name": "t", "description": "", "parameters": {"type": "object", "properties": {"x": null_value}}}
            _clear_cache()
            cold_null = render_tools_sdk([null_tool])
            _clear_cache()
            assert render_tools_sdk([tool]) == cold_null  # renders as its canonical reading
            assert render_tools_sdk([null_tool]) == cold_null  # and the memo it filled is right


@pytest.mark.parametrize("is_frozen", [False, True])
def test_a_confirmed_memo_entry_is_never_served_for_mutated_content(is_frozen: bool) -> None:
    inner: dict[str, Any] = {"type": "string", "enum": ["a"]}
    params: Any = {"type": "object", "properties": {"x": {"type": "array", "items": inner}}}
    if is_frozen:  # a frozen tree still holding a plain dict the caller can write to
        params = FrozenDict({"type": "object", "properties": FrozenDict({"x": FrozenDict({"type": "array", "items": inner})})})
    tool = {"name": "t", "description": "", "parameters": params}
    _clear_cache()
    first = render_tools_sdk([tool])
    assert render_tools_sdk([tool]) == first == render_tools_sdk([tool])  # noted, confirmed, served
    assert any(entry[0] is params and entry[1] for entry in _CACHE.entries())
    inner["enum"].append("b")  # deep inside, after the entry was confirmed
    assert '    x?: ("a" | "b")[];' in render_tools_sdk([tool])
    inner["enum"][:] = [float("nan")]  # the fingerprint writes NaN as null: the text must agree
    assert "    x?: null[];" in render_tools_sdk([tool])
    inner["enum"][:] = [None]
    assert "    x?: null[];" in render_tools_sdk([tool])
