"""Totality: no input makes the codegen raise, hang or blow up."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Iterator, Mapping
from typing import Any, NoReturn

import pytest

from dsh_tools_codegen import json_schema_to_ts, render_tools_sdk, render_tools_sdk_python

from renderer_build import COMPILED, SOURCES_ONLY
from value_shapes import wrapped


class Boom(Exception):
    pass


def boom(*_: object, **__: object) -> NoReturn:
    raise Boom


class EvilEq:
    __eq__ = boom
    __hash__ = object.__hash__


class EvilHash:
    __hash__ = boom


class EvilGetattr:
    def __getattr__(self, name: str) -> Any:
        raise Boom

    def __getattribute__(self, name: str) -> Any:
        raise Boom


class EvilMapping(Mapping[str, object]):
    """Every protocol method raises."""

    __getitem__ = boom
    __iter__ = boom
    __len__ = boom


class LyingMapping(Mapping[str, object]):
    """Claims keys it cannot deliver and iterates forever."""

    def __getitem__(self, key: str) -> object:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        n = 0
        while True:
            n += 1
            yield f"k{n}"

    def __len__(self) -> int:
        return 3


class EvilDict(dict[str, object]):
    get = boom
    items = boom
    __getitem__ = boom
    __iter__ = boom
    __len__ = boom


class EvilStr(str):
    __eq__ = boom
    __hash__ = boom
    __str__ = boom


class EvilEqStr(str):
    """Hashable (usable as a key) but every comparison raises."""

    __eq__ = boom
    __hash__ = str.__hash__
    __str__ = boom


class EndlessSequence(list[object]):
    def __iter__(self) -> Iterator[object]:
        while True:
            yield {"type": "string"}


def self_referencing() -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    schema["properties"]["me"] = schema
    schema["properties"]["items"] = {"type": "array", "items": schema}
    schema["anyOf"] = [schema]
    return schema


def deep(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


def deep_arrays(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "array", "items": schema}
    return schema


def ref_bomb(levels: int) -> dict[str, Any]:
    """Each definition refers to the next twice: 2**levels paths."""
    defs: dict[str, Any] = {f"D{levels}": {"type": "string"}}
    for i in range(levels):
        defs[f"D{i}"] = {"anyOf": [{"$ref": f"#/$defs/D{i + 1}"}, {"$ref": f"#/$defs/D{i + 1}"}, {"type": "null"}]}
    return {"$defs": defs, "$ref": "#/$defs/D0"}


HOSTILE: list[object] = [
    self_referencing(),
    deep(10_000),
    deep_arrays(10_000),
    ref_bomb(60),
    EvilEq(),
    EvilHash(),
    EvilGetattr(),
    EvilMapping(),
    LyingMapping(),
    EvilDict(type="string"),
    {"type": EvilStr("string")},
    {EvilEqStr("type"): "string", EvilEqStr("enum"): ["a"]},
    {"type": EvilEq()},
    {"type": "object", "properties": EvilMapping()},
    {"type": "object", "properties": LyingMapping()},
    {"type": "object", "properties": {"a": EvilMapping(), "b": {"type": "string"}}},
    {"type": "object", "properties": {"a": {"description": EvilStr("d")}}},
    {"type": "object", "properties": {1: {"type": "string"}, None: {}, (1, 2): {}, "ok": {}}},
    {"type": "object", "properties": {"a": {}}, "required": EvilMapping()},
    {"type": "object", "properties": {"a": {}}, "required": [EvilEq(), EvilStr("a")]},
    {"enum": EndlessSequence()},
    {"anyOf": EndlessSequence()},
    {"enum": [EvilEq()]},
    {"const": EvilGetattr()},
    {"$ref": EvilStr("#")},
    {"$ref": "#/" + "/".join(["x"] * 10_000)},
    {"$ref": "#/anyOf/99999999999999999999", "anyOf": [{}]},
    {"type": ["string", EvilEq(), None]},
    {"type": "array", "items": EvilMapping()},
    {"type": "object", "additionalProperties": EvilMapping()},
    {"allOf": [EvilMapping(), {"type": "number"}]},
    {"enum": list(range(20_000))},
    {"type": "object", "properties": {f"p{i}": {} for i in range(20_000)}},
    {"const": 10**5000},
    {"const": float("inf")},
    b"bytes",
    object(),
    Boom(),
]


# Indices, not values: pytest itself would trip over the hostile objects.
@pytest.mark.parametrize("index", range(len(HOSTILE)))
@pytest.mark.parametrize("indent", [0, 3])
def test_json_schema_to_ts_never_raises(index: int, indent: int) -> None:
    schema = HOSTILE[index]
    text = json_schema_to_ts(schema, indent)
    assert isinstance(text, str) and text
    text.encode("utf-8")  # always encodable
    assert len(text) < 5_000_000  # the node budget bounds the work (make bench times it)


def test_cycles_render_unknown_at_the_recursion_point() -> None:
    text = json_schema_to_ts({"type": "object", "properties": {"me": self_referencing()}})
    assert "unknown" in text


def test_deep_nesting_degrades_below_the_depth_limit() -> None:
    text = json_schema_to_ts(deep(10_000))
    assert text.count("{") < 100 and "unknown" in text


def test_siblings_of_a_hostile_member_survive() -> None:
    text = json_schema_to_ts(
        {"type": "object", "properties": {"a": EvilMapping(), "b": {"type": "string"}}, "required": ["b"]}
    )
    assert text == "{\n  a?: unknown;\n  b: string;\n}"


def test_non_str_keys_are_dropped_and_str_subclass_keys_copied() -> None:
    class Key(str):
        pass

    text = json_schema_to_ts({"type": "object", "properties": {1: {}, Key("k"): {"type": "string"}}})
    assert text == "{\n  k?: string;\n}"


class EvilTool:
    @property
    def name(self) -> str:
        raise Boom


HOSTILE_SETS: list[Any] = [
    [EvilTool(), {"name": "ok", "description": None, "parameters": None}],
    [{"name": 5}, {"name": None}, {"name": EvilStr("x")}, "string", 3, None, EvilGetattr()],
    [{"name": "cyc", "description": EvilStr("d"), "parameters": self_referencing()}],
    [{"name": "deep", "description": "d", "parameters": deep(10_000)}],
    [EvilMapping(), LyingMapping(), EvilDict(name="x")],
    EndlessSequence(),
    EvilGetattr(),
    None,
    42,
]


@pytest.mark.parametrize("index", range(len(HOSTILE_SETS)))
def test_render_tools_sdk_never_raises(index: int) -> None:
    text = render_tools_sdk(HOSTILE_SETS[index])
    assert "declare const tools: {" in text and text.endswith("};\n```")


def test_iterable_failing_midway_keeps_what_it_yielded() -> None:
    def tools() -> Iterator[dict[str, object]]:
        yield {"name": "first", "description": "", "parameters": {}}
        raise Boom

    assert "  first(args: unknown): Promise<string>;" in render_tools_sdk(tools())


def test_a_tool_class_with_a_lying_metaclass_cannot_hide_later_tools() -> None:
    armed: list[bool] = []

    class Meta(type):
        def __hash__(cls) -> int:
            return type.__hash__(dict)

        def __eq__(cls, other: object) -> bool:
            return bool(armed) and other is dict or cls is other

    class Hostile(metaclass=Meta):
        @property
        def name(self) -> str:
            armed.append(True)
            return "evil"

    good = {"name": "good", "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}
    assert "  evil(args: unknown)" in render_tools_sdk([Hostile()])  # type: ignore[list-item]
    assert "  good(args: {" in render_tools_sdk([good])


def test_a_leaf_orjson_writes_natively_cannot_hide_a_huge_value() -> None:
    import enum

    node: Any = [0]
    for _ in range(60):
        node = [node, node]  # 2**60 values once written out
    Huge = enum.Enum("Huge", {"A": node})
    schema = {"type": "object", "properties": {"x": {"enum": [Huge.A]}}}
    assert json_schema_to_ts(schema) == "{\n  x?: unknown;\n}"
    assert "x?: unknown;" in render_tools_sdk([{"name": "t", "parameters": schema}])


def test_a_broken_tool_does_not_take_the_tools_after_it_down() -> None:
    import orjson

    broken = {"name": "b", "parameters": {"properties": {"x": orjson.Fragment(b'{"type":')}}}
    fine = [{"name": name, "parameters": {"type": "object"}} for name in ("a", "c")]
    text = render_tools_sdk([fine[0], broken, fine[1]])
    assert "  a(args: " in text and "  b(args: " in text and "  c(args: " in text


def test_a_cyclic_dict_schema_is_given_up_on_quickly() -> None:
    from dsh_tools_codegen._schema import render

    cyclic: dict[str, Any] = {"type": "object"}
    cyclic["properties"] = {"x": cyclic}
    assert render(cyclic, 0)[1] is False  # never written out to fingerprint it
    assert "x?:" in json_schema_to_ts(cyclic)
    hidden: dict[str, Any] = {"type": "string"}
    hidden["default"] = [hidden]  # a cycle under a key no rule reads
    assert render(hidden, 0) == ("string", False)
    assert render({"type": "string", "default": wrapped(300)}, 0) == ("string", True)  # deep is not a cycle


@SOURCES_ONLY
def test_a_tool_whose_text_cannot_be_made_is_skipped_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    import dsh_tools_codegen._sdk as sdk

    real = sdk._member_text

    def failing_for_b(name: str, description: str | None, args: str, returns: str) -> str:
        if name == "b":
            raise MemoryError("no room for this description")
        return real(name, description, args, returns)

    monkeypatch.setattr(sdk, "_member_text", failing_for_b)
    tools = [{"name": name, "parameters": {"type": "object"}} for name in ("a", "b", "c")]
    sdk._CACHE.clear()
    text = render_tools_sdk(tools)
    assert "  b(args: " not in text
    assert "  a(args: " in text and "  c(args: " in text


def test_a_render_with_little_stack_left_degrades_instead_of_raising() -> None:
    from dsh_tools_codegen._schema import render

    schema = deep(40)
    assert render(schema, 0)[1] is True
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 60)  # far fewer frames than 40 levels need
    try:
        text, sure = render(schema, 0)  # must not raise RecursionError
    finally:
        sys.setrecursionlimit(limit)
    if COMPILED and (text, sure) == render(schema, 0):
        return  # compiled code calls itself without Python frames: the whole render fits
    assert "unknown" in text and sure is False


class LoneKey(str):
    """Equal to no other key, so a mapping holds it beside the exact ``str`` it spells."""

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return 1


class PlainMapping(Mapping[str, object]):
    """A well-behaved mapping that is not a ``dict`` (read through its items, in name order)."""

    def __init__(self, items: dict[str, object]) -> None:
        self.items_ = items

    def __getitem__(self, key: str) -> object:
        return self.items_[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.items_)

    def __len__(self) -> int:
        return len(self.items_)


@pytest.mark.parametrize("container", [dict, PlainMapping])
def test_keys_that_collide_once_copied_to_str_give_the_property_once(container: Any) -> None:
    # a type with a property twice is no type (TypeScript: "Duplicate identifier"; Python: a
    # TypedDict field defined twice): both renderers keep the first, as they read the same properties
    properties = container({"a": {"type": "string"}, LoneKey("a"): {"type": "number"}})
    schema = {"type": "object", "properties": properties}
    assert json_schema_to_ts(schema) == "{\n  a?: string;\n}"
    python = render_tools_sdk_python([{"name": "t", "parameters": schema}])
    assert python.count("    a: ") == 1 and "    a: NotRequired[str]" in python
