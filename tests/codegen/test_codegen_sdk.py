"""render_tools_sdk: layout, ordering, determinism, input forms, caching."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
import pytest
from codegen_catalog import CATALOG
from pyrsistent import freeze

from dsh_tools_codegen import SDK_USAGE, ToolSchemaLike, json_schema_to_ts, render_frozen_tools_sdk, render_tools_sdk
from dsh_tools_codegen._sdk import _CACHE, _clear_cache, _MemberCache

from renderer_build import SOURCES_ONLY
from value_shapes import frozen, shared_tree


@dataclass(frozen=True)
class Schema:
    name: str
    description: str
    parameters: object
    output_schema: object = None


def tool(name: str, description: str = "", parameters: object = None) -> dict[str, object]:
    return {"name": name, "description": description, "parameters": parameters}


def block(text: str) -> list[str]:
    """The lines between ``declare const tools: {`` and ``};``."""
    lines = text.split("\n")
    start = lines.index("declare const tools: {")
    return lines[start + 1 : lines.index("};")]


def test_layout_usage_then_one_fenced_ts_block() -> None:
    text = render_tools_sdk([tool("read_file", "Read.", {"type": "object"})])
    assert text == (
        f"{SDK_USAGE}\n\n```ts\ndeclare const tools: {{\n"
        "  /** Read. */\n  read_file(args: Record<string, unknown>): Promise<string>;\n};\n```"
    )
    assert text.count("```") == 2


def test_usage_text_covers_the_contract() -> None:
    for phrase in (
        "body of an async function",
        "await tools.name({ ... })",
        "Promise<string>",
        "type declared for it",
        "rejects",
        "try/catch",
        "`console.log` or `return`",
        "Promise.all",
        "overlap",
        "runs alone",
    ):
        assert phrase in SDK_USAGE
    assert "\n" not in SDK_USAGE and "```" not in SDK_USAGE


def test_empty_set() -> None:
    assert render_tools_sdk([]).endswith("```ts\ndeclare const tools: {\n};\n```")


def test_tools_are_in_code_point_order() -> None:
    names = ["b", "B", "a", "_x", "é", "Z", "my-tool", "$d", "a1", "a_"]
    lines = block(render_tools_sdk(tool(n) for n in names))
    rendered = [line.split("(args")[0].strip().strip('"') for line in lines]
    assert rendered == sorted(names) == ["$d", "B", "Z", "_x", "a", "a1", "a_", "b", "my-tool", "é"]


def test_byte_identical_for_the_same_set_in_any_order() -> None:
    expected = render_tools_sdk(CATALOG)
    shuffled = list(CATALOG)
    for seed in range(5):
        random.Random(seed).shuffle(shuffled)
        assert render_tools_sdk(shuffled) == expected
        assert render_tools_sdk(tuple(shuffled)) == expected


def test_duplicate_names_render_deterministically() -> None:
    a, b = tool("x", "one", {"type": "object"}), tool("x", "two", {"type": "string"})
    assert render_tools_sdk([a, b]) == render_tools_sdk([b, a])
    assert render_tools_sdk([a, a]) == render_tools_sdk([a])


def test_member_shape_and_args_type() -> None:
    for entry in CATALOG:
        args = json_schema_to_ts(entry["parameters"], indent=1)
        output = entry.get("output_schema")
        returns = "string" if output is None else json_schema_to_ts(output, indent=1)
        assert f"(args: {args}): Promise<{returns}>;" in render_tools_sdk([entry])


def test_a_typed_tool_returns_the_type_of_its_output_schema() -> None:
    output = {"type": "object", "properties": {"lines": {"type": "integer"}}, "required": ["lines"]}
    for form in (
        {**tool("stat", "Stat.", {"type": "object"}), "output_schema": output},
        Schema("stat", "Stat.", {"type": "object"}, output),
        freeze({**tool("stat", "Stat.", {"type": "object"}), "output_schema": output}),
    ):
        assert block(render_tools_sdk([form]))[1:] == [
            "  stat(args: Record<string, unknown>): Promise<{",
            "    lines: number;",
            "  }>;",
        ]


def test_a_tool_whose_output_schema_cannot_be_read_returns_its_text() -> None:
    class Unreadable:
        name, description, parameters = "stat", "Stat.", {"type": "object"}

        @property
        def output_schema(self) -> object:
            raise RuntimeError("hostile")

    for render in (render_tools_sdk, render_frozen_tools_sdk):
        assert block(render([Unreadable()]))[1:] == ["  stat(args: Record<string, unknown>): Promise<string>;"]


def test_the_same_tool_typed_or_not_is_never_served_from_the_other_s_memo() -> None:
    content = tool("t", "T.", {"type": "object"})
    typed = {**content, "output_schema": {"type": "integer"}}
    assert block(render_tools_sdk([content]))[1] == "  t(args: Record<string, unknown>): Promise<string>;"
    assert block(render_tools_sdk([typed]))[1] == "  t(args: Record<string, unknown>): Promise<number>;"
    assert block(render_tools_sdk([content]))[1] == "  t(args: Record<string, unknown>): Promise<string>;"


def test_exotic_tool_names_are_quoted_keys() -> None:
    lines = block(render_tools_sdk([tool("my-tool"), tool("ns.tool"), tool("new"), tool("1x"), tool("ok_$")]))
    assert lines == [
        '  "1x"(args: unknown): Promise<string>;',
        '  "my-tool"(args: unknown): Promise<string>;',
        '  "new"(args: unknown): Promise<string>;',  # bare `new(` would be a construct signature
        '  "ns.tool"(args: unknown): Promise<string>;',
        "  ok_$(args: unknown): Promise<string>;",
    ]


def test_description_is_one_line_jsdoc_with_comment_end_escaped() -> None:
    lines = block(render_tools_sdk([tool("t", "Line one.\nLine */ two.\r\n\n  Three.")]))
    assert lines[0] == "  /** Line one. Line *\\/ two. Three. */"


@pytest.mark.parametrize("description", [None, "", " \n\t", 7])
def test_missing_description_has_no_jsdoc(description: object) -> None:
    lines = block(render_tools_sdk([{"name": "t", "description": description, "parameters": {}}]))
    assert lines == ["  t(args: unknown): Promise<string>;"]


def test_mapping_attribute_and_frozen_forms_agree() -> None:
    by_mapping = render_tools_sdk(CATALOG)
    schemas: list[ToolSchemaLike] = [
        Schema(t["name"], t["description"], t["parameters"], t.get("output_schema")) for t in CATALOG
    ]
    assert render_tools_sdk(schemas) == by_mapping
    assert render_tools_sdk([{**t, "parameters": t["parameters"]} for t in CATALOG]) == by_mapping
    # the registry's frozen form keeps the author's order, so it reads the same
    assert render_tools_sdk([frozen(t) for t in CATALOG]) == by_mapping
    frozen_schemas = [Schema(t["name"], t["description"], frozen(t["parameters"]), frozen(t.get("output_schema"))) for t in CATALOG]
    assert render_tools_sdk(frozen_schemas) == by_mapping
    # PMap (still accepted) has no meaningful order: its properties render in code-point order.
    sorted_props = render_tools_sdk([freeze(t) for t in CATALOG])
    assert sorted_props != by_mapping
    assert "  /** Run a shell command. */\n  bash(args: {\n    command: string;\n    /** Milliseconds" in by_mapping
    assert "  /** Run a shell command. */\n  bash(args: {\n    command: string;\n    env?:" in sorted_props


def test_missing_keys_and_attributes() -> None:
    class OnlyName:
        name = "bare"

    incomplete: list[Any] = [OnlyName(), {"name": "m"}]
    assert block(render_tools_sdk(incomplete)) == [
        "  bare(args: unknown): Promise<string>;",
        "  m(args: unknown): Promise<string>;",
    ]


def test_cache_never_serves_stale_text_for_a_mutated_dict() -> None:
    params: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "string"}}}
    first = render_tools_sdk([tool("t", "d", params)])
    params["properties"]["a"] = {"type": "number"}
    second = render_tools_sdk([tool("t", "d", params)])
    assert "a?: string;" in first and "a?: number;" in second
    params["properties"] = {"b": {}, "a": {}}
    assert block(render_tools_sdk([tool("t", "d", params)]))[2:4] == ["    b?: unknown;", "    a?: unknown;"]


def test_cache_distinguishes_values_that_compare_equal() -> None:
    consts: list[object] = [True, 1, 1.0, False, 0, 0.0, -0.0]
    texts = [render_tools_sdk([tool("t", "", {"const": c})]) for c in consts]
    assert [block(t)[0].split("args: ")[1].split(")")[0] for t in texts] == [
        "true", "1", "1.0", "false", "0", "0.0", "-0.0",
    ]
    frozen_texts = [render_tools_sdk([tool("t", "", frozen({"enum": [c]}))]) for c in consts]
    assert frozen_texts == texts  # a one-value enum renders like const


def test_cache_keys_include_name_and_description() -> None:
    params = frozen({"type": "string"})
    assert "/** one */" in render_tools_sdk([tool("t", "one", params)])
    assert "/** two */" in render_tools_sdk([tool("t", "two", params)])
    assert "  u(args: string)" in render_tools_sdk([tool("u", "two", params)])


def test_frozen_identity_and_equal_copies_render_alike() -> None:
    params: Any = frozen({"type": "object", "properties": {"z": {"type": "string"}, "a": {"const": 1}}})
    first = render_tools_sdk([tool("t", "", params)])
    assert block(first)[1:3] == ["    z?: string;", "    a?: 1;"]
    assert render_tools_sdk([tool("t", "", params)]) == first  # identity hit
    copy = frozen({"type": "object", "properties": {"z": {"type": "string"}, "a": {"const": 1}}})
    assert copy is not params and render_tools_sdk([tool("t", "", copy)]) == first
    changed = params | {"properties": params["properties"] | {"a": frozen({"const": True})}}
    assert "a?: true;" in render_tools_sdk([tool("t", "", changed)])


@pytest.mark.parametrize("freezer", [lambda value: value, frozen])
def test_schemas_differing_only_in_property_order_are_different_texts(freezer: Callable[[Any], Any]) -> None:
    # equal as mappings (== ignores order), yet the model must see each author's order
    forward = freezer({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}}})
    backward = freezer({"type": "object", "properties": {"b": {"type": "number"}, "a": {"type": "string"}}})
    assert forward == backward
    _CACHE.clear()
    first, second = render_tools_sdk([tool("t", "", forward)]), render_tools_sdk([tool("t", "", backward)])
    assert block(first)[1:3] == ["    a?: string;", "    b?: number;"]
    assert block(second)[1:3] == ["    b?: number;", "    a?: string;"]
    assert render_tools_sdk([tool("t", "", forward)]) == first  # warm, each from its own memo entry
    assert render_tools_sdk([tool("t", "", backward)]) == second


def test_cached_and_cold_output_are_identical() -> None:
    warm = render_tools_sdk(CATALOG)
    _CACHE.clear()
    assert render_tools_sdk(CATALOG) == warm
    frozen_tools = [frozen(t) for t in CATALOG]
    warm_frozen = render_tools_sdk(frozen_tools)
    _CACHE.clear()
    assert render_tools_sdk(frozen_tools) == warm_frozen == warm


def test_uncacheable_parameters_render_every_time() -> None:
    class Props(dict[str, object]):
        pass

    params = {"type": "object", "properties": Props(a={"type": "string"})}
    assert "a?: string;" in render_tools_sdk([tool("t", "", params)])
    params["properties"]["a"] = {"type": "number"}  # type: ignore[index]
    assert "a?: number;" in render_tools_sdk([tool("t", "", params)])


def realistic_tools(count: int, is_frozen: bool = False) -> list[Any]:
    """``count`` tools sharing a pool of property schemas; deep-frozen ones when ``is_frozen``."""
    rnd = random.Random(7)
    pool: dict[str, Any] = {
        "path": {"type": "string", "description": "Absolute path of the file to operate on."},
        "offset": {"type": "integer", "description": "Line to start at (1-based)."},
        "limit": {"type": ["integer", "null"]},
        "mode": {"enum": ["fast", "slow", "auto"], "description": "Speed."},
        "tags": {"type": "array", "items": {"type": "string"}},
        "options": {
            "type": "object",
            "properties": {"recursive": {"type": "boolean"}, "depth": {"type": "number"}},
            "required": ["recursive"],
        },
        "filter": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
    }
    tools = []
    for i in range(count):
        keys = rnd.sample(list(pool), rnd.randint(3, 7))
        tools.append(
            tool(
                f"tool_{i:04d}",
                f"Tool number {i}: does a realistic thing\nwith a second line.",
                {"type": "object", "properties": {k: pool[k] for k in keys}, "required": keys[:2]},
            )
        )
    return [frozen(t) for t in tools] if is_frozen else tools


def counted_renders(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every schema the SDK renders from now on (``_sdk``'s ``render`` wrapped), in order."""
    import dsh_tools_codegen._sdk as sdk
    from dsh_tools_codegen._schema import render as real

    rendered: list[object] = []

    def counted(schema: object, level: int) -> tuple[str, bool]:
        rendered.append(schema)
        return real(schema, level)

    monkeypatch.setattr(sdk, "render", counted)
    return rendered


@SOURCES_ONLY
@pytest.mark.parametrize("is_frozen", [False, True])
def test_an_unchanged_set_of_1000_tools_is_not_rendered_again(is_frozen: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # (how fast that is lives in `make bench`)
    tools = realistic_tools(1000, is_frozen)
    expected = render_tools_sdk(tools)
    assert render_tools_sdk(tools) == expected  # confirms each first render's memo entry
    rendered = counted_renders(monkeypatch)
    assert render_tools_sdk(tools) == expected
    unchanged = len(rendered)
    render_tools_sdk([tool("brand_new", "", {"type": "object", "properties": {"n": {"type": "number"}}})])
    assert len(rendered) > unchanged  # the counter sees renders
    assert unchanged == 0


def test_frozen_rendering_is_the_same_text_and_a_hit_is_the_identity_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """``render_frozen_tools_sdk`` (the registry's frozen snapshots): the same text, stored at the first render, never fingerprinted."""
    tools = [frozen(t) for t in CATALOG]
    _CACHE.clear()
    plain = render_tools_sdk(tools)
    _CACHE.clear()
    assert render_frozen_tools_sdk(tools) == plain
    dumped: list[object] = []
    real_dumps = orjson.dumps

    def counted_dumps(value: object, *args: Any, **kwargs: Any) -> bytes:
        dumped.append(value)
        return real_dumps(value, *args, **kwargs)

    monkeypatch.setattr(orjson, "dumps", counted_dumps)
    assert render_frozen_tools_sdk(tools) == plain
    assert dumped == []  # no fingerprint: the caller vouched
    assert render_tools_sdk(tools) == plain  # a caller that does not vouch is fingerprinted again
    assert dumped != []


@SOURCES_ONLY
@pytest.mark.parametrize("is_frozen", [False, True])
def test_the_last_tool_set_is_answered_without_member_lookups(is_frozen: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    tools = realistic_tools(50, is_frozen)
    render = render_frozen_tools_sdk if is_frozen else render_tools_sdk
    _clear_cache()
    expected = render(tools)
    assert render(tools) == expected  # every member confirmed: the set is kept
    looked_up: list[str] = []
    real_member = _CACHE.member

    def counted(name: str, *rest: Any) -> tuple[str, bytes | None]:
        looked_up.append(name)
        return real_member(name, *rest)

    monkeypatch.setattr(_CACHE, "member", counted)
    assert render(tools) == expected
    assert looked_up == []
    assert render(tools[::-1]) == expected  # another order: member by member
    assert len(looked_up) == 50


@SOURCES_ONLY
def test_a_vouched_output_schema_is_rendered_once(monkeypatch: pytest.MonkeyPatch) -> None:
    output = frozen({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
    tools = [{"name": f"t{index}", "description": "d", "parameters": frozen({"type": "object"}), "output_schema": output}
             for index in range(3)]
    _clear_cache()
    expected = render_frozen_tools_sdk(tools)
    assert "Promise<{" in expected
    rendered = counted_renders(monkeypatch)
    assert render_frozen_tools_sdk(tools) == expected
    assert rendered == []  # the caller vouched: its text is kept by identity
    assert render_tools_sdk(tools) == expected
    assert rendered.count(output) == 3  # a caller that does not vouch: rendered each time


def test_member_memo_is_bounded_and_keeps_recent_entries() -> None:
    memo = _MemberCache(3)
    tools = [(f"t{index}", None, frozen({"type": "object", "properties": {"a": {"type": "string"}}})) for index in range(10)]
    texts = [memo.member(*fields)[0] for fields in tools]
    assert len(memo.entries()) <= 6  # two generations of three
    assert all(text.startswith(f"  t{index}(args: {{") for index, text in enumerate(texts))
    for recent in tools[-3:]:  # the three most recent are always kept
        assert any(entry[0] is recent[2] for entry in memo.entries())
    assert memo.member(*tools[-1])[0] == texts[-1]  # an identity hit, same text


def test_member_memo_promotes_old_hits() -> None:
    memo = _MemberCache(2)
    first = ("first", None, frozen({"type": "string"}))
    memo.member(*first)
    memo.member("b", None, frozen({"type": "number"}))  # fills the young generation
    memo.member("c", None, frozen({"type": "number"}))  # young -> old
    memo.member(*first)  # found in old: promoted to young
    memo.member("d", None, frozen({"type": "number"}))  # young full again -> old
    memo.member("e", None, frozen({"type": "number"}))  # without the promotion, "first" would be gone now
    assert any(entry[0] is first[2] for entry in memo.entries())


@SOURCES_ONLY
def test_a_dict_written_to_while_it_renders_is_rendered_again(monkeypatch: pytest.MonkeyPatch) -> None:
    import dsh_tools_codegen._sdk as sdk
    from dsh_tools_codegen._schema import render as real

    params: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "string"}}}

    def written_meanwhile(tree: object, level: int) -> tuple[str, bool]:
        answer = real(tree, level)
        params["properties"]["a"]["type"] = "number"  # "another thread" writes between the read and the fingerprint
        return answer

    monkeypatch.setattr(sdk, "render", written_meanwhile)
    _CACHE.clear()
    assert "a?: string;" in render_tools_sdk([tool("t", "", params)])
    monkeypatch.undo()
    # the entry pairs the old text with the new fingerprint, unconfirmed: never served
    assert "a?: number;" in render_tools_sdk([tool("t", "", params)])
    assert "a?: number;" in render_tools_sdk([tool("t", "", params)])


def test_a_schema_that_sharing_makes_huge_renders_without_expanding_it() -> None:
    from dsh_tools_codegen._read import MAX_VALUES
    from dsh_tools_codegen._schema import render

    bomb = shared_tree(60)  # 2**60 leaves once written out
    assert render(bomb, 0)[1] is False  # never written out to fingerprint it
    assert "unknown" in json_schema_to_ts(bomb)
    text = render_tools_sdk([tool("t", "", {"type": "object", "properties": {"x": bomb}})])
    assert "x?:" in text
    assert render(shared_tree(10), 0)[1] is True  # 2**11 nodes, all rendered: small enough to write
    unread = {"type": "string", "default": {"a": shared_tree(60)}}  # a key no rule reads
    assert render(unread, 0) == ("string", False)
    assert render({"type": "string", "default": [0] * (MAX_VALUES - 1)}, 0) == ("string", True)
    assert render({"type": "string", "default": [0] * (MAX_VALUES + 1)}, 0) == ("string", False)


@pytest.mark.parametrize("vouched", [False, True])
def test_the_last_tool_set_is_answered_only_for_the_same_tools_each_unchanged(vouched: bool) -> None:
    render = render_frozen_tools_sdk if vouched else render_tools_sdk
    tools: list[dict[str, Any]] = [
        tool(f"t{index}", f"T{index}.", {"type": "object", "properties": {"a": {"type": "string", "enum": ["x"]}}})
        for index in range(4)
    ]

    def cold(given: list[dict[str, Any]]) -> str:
        _CACHE.clear()
        text = render_tools_sdk(given)
        _CACHE.clear()
        return text

    for variant in (tools[::-1], tools[:3], [*tools, tools[0]], [tools[0], tool("t1", "Other.", tools[1]["parameters"])]):
        _CACHE.clear()
        for _ in range(3):  # noted, confirmed (the set is kept), served
            render(tools)
        assert render(variant) == cold(variant)
    _CACHE.clear()
    for _ in range(3):
        render(tools)
    tools[2]["parameters"]["properties"]["a"]["enum"].append("y")  # deep inside a kept set
    text = render_tools_sdk(tools)
    assert text == cold(tools) and '"x" | "y"' in text


def test_the_vouched_output_schema_texts_are_bounded_like_the_member_memo() -> None:
    from dsh_tools_codegen._sdk import _RETURNS, CACHE_SIZE, _returns

    _clear_cache()
    outputs = [frozen({"type": "object", "properties": {f"p{index}": {"type": "integer"}}}) for index in range(CACHE_SIZE + 1)]
    for output in outputs:
        _returns(output, True)
    assert 0 < len(_RETURNS) <= CACHE_SIZE  # full: started afresh, never more than the bound
    assert _returns(outputs[-1], True) == f"{{\n    p{CACHE_SIZE}?: number;\n  }}"  # the newest is kept, read back
    assert any(entry[0] is outputs[-1] for entry in _RETURNS.values())
    _clear_cache()
