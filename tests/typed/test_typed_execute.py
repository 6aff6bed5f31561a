"""Typed tools through ``execute()``: the value is checked, frozen, rendered and kept off the wire.

Every bad return (not JSON, wrong shape, too big, a value from a content tool,
content from a typed tool, a failing or lying ``render``) is one error result
with a text that says what happened; nothing escapes ``execute()``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

import pytest

from dsh_tools import (
    Accept,
    Block,
    HookContext,
    PluginSource,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    ToolOutput,
    boot,
    text_block,
)
from dsh_tools.content import ContentBlock
from dsh_tools.definitions import Prop, define_tool
from dsh_tools.context.context import Context
from dsh_tools.json_values import JsonValue, thaw_json
from typed_support import FileStat, PathArgs, stat
from value_shapes import shared_tree, wrapped


def stat_tool(**extra: Any) -> Any:
    return define_tool(name="stat", description="Count lines.", args=PathArgs, output=FileStat, execute=stat, **extra)


def call(name: str = "stat", arguments: JsonValue = None) -> ToolExecutionInput:
    return ToolExecutionInput("c1", name, {"path": "/a"} if arguments is None else arguments)


def raw_tool(output: object, *, schema: Any = None, render: Any = None) -> Any:
    """A raw (not define_tool) definition whose body returns ``output``."""

    class Raw:
        name = "raw"
        description = "A raw typed tool."
        parameters = {"type": "object", "properties": {}}
        output_schema = schema

        async def execute(self, args: object, exec: ToolExecution) -> object:
            return output

    tool = Raw()
    if render is not None:
        tool.render = render  # type: ignore[attr-defined]
    return tool


@pytest.fixture
def ctx() -> Context:
    return boot()


async def test_a_typed_call_carries_its_frozen_value_and_the_rendered_content(ctx: Context) -> None:
    ctx.tools.register(stat_tool())
    result = await ctx.tools.execute(call())
    assert not result.is_error
    assert thaw_json(result.value) == {"path": "/a", "lines": 2}
    assert isinstance(result.value, Mapping)
    with pytest.raises(TypeError):
        result.value["lines"] = 4  # type: ignore[index]
    assert result.text == '{"path":"/a","lines":2}'  # compact JSON, in the body's key order


async def test_the_value_is_never_on_the_wire(ctx: Context) -> None:
    ctx.tools.register(stat_tool())
    result = await ctx.tools.execute(call())
    assert result.value is not None
    assert "value" not in result.to_json()
    assert set(result.to_json()) == {"callId", "content", "isError"}


async def test_a_string_value_renders_as_is_and_other_scalars_as_json(ctx: Context) -> None:
    async def hello(args: PathArgs, exec: ToolExecution) -> str:
        return f"hello {args['path']}"

    async def count(args: PathArgs, exec: ToolExecution) -> list[int]:
        return [1, 2]

    ctx.tools.register(define_tool(name="hello", description="d", args=PathArgs, output=str, execute=hello))
    ctx.tools.register(define_tool(name="count", description="d", args=PathArgs, output=list[int], execute=count))
    hello_result = await ctx.tools.execute(call("hello"))
    assert hello_result.text == "hello /a" and hello_result.value == "hello /a"
    count_result = await ctx.tools.execute(call("count"))
    assert count_result.text == "[1,2]" and list(count_result.value) == [1, 2]  # type: ignore[arg-type]


async def test_render_gets_plain_typed_args_and_value(ctx: Context) -> None:
    seen: list[tuple[object, object]] = []

    def render(args: PathArgs, value: FileStat) -> list[ContentBlock]:
        seen.append((args, value))
        return [text_block(f"{args['path']} has {value['lines']} lines")]

    ctx.tools.register(stat_tool(render=render))
    result = await ctx.tools.execute(call())
    assert result.text == "/a has 2 lines"
    assert seen == [({"path": "/a"}, {"path": "/a", "lines": 2})]
    assert type(seen[0][0]) is dict and type(seen[0][1]) is dict


async def test_a_body_may_supply_its_own_content_with_tool_output(ctx: Context) -> None:
    tool = raw_tool(
        ToolOutput([text_block("made by the server")], meta={"m": 1}, value={"n": 2}),
        schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        render=lambda args, value: 1 / 0,  # skipped: the body made the content
    )
    ctx.tools.register(tool)
    result = await ctx.tools.execute(call("raw", {}))
    assert result.text == "made by the server"
    assert thaw_json(result.value) == {"n": 2} and thaw_json(result.meta) == {"m": 1}


async def test_a_value_of_the_wrong_shape_is_output_invalid_with_every_violation(ctx: Context) -> None:
    class Counts(TypedDict):
        lines: int
        words: int

    async def wrong(args: PathArgs, exec: ToolExecution) -> Counts:
        return {"lines": "many", "words": None}  # type: ignore[typeddict-item]

    seen: list[ToolExecutionResult] = []
    ctx.on("tools/result", lambda execution, result: seen.append(result))
    ctx.tools.register(define_tool(name="count", description="d", args=PathArgs, output=Counts, execute=wrong))
    result = await ctx.tools.execute(call("count"))
    assert result.is_error and result.value is None
    assert result.error is not None and (result.error.name, result.error.code) == ("ToolOutputError", "OUTPUT_INVALID")
    assert result.text == (
        'Error: tool "count": invalid output: lines: expected integer, got string; words: expected integer, got null'
    )
    assert seen == [result]


async def test_nested_violations_are_path_qualified(ctx: Context) -> None:
    class Hit(TypedDict):
        path: str
        line: int

    async def search(args: PathArgs, exec: ToolExecution) -> list[Hit]:
        return [{"path": "a", "line": 1}, {"path": "b"}]  # type: ignore[typeddict-item]

    ctx.tools.register(define_tool(name="search", description="d", args=PathArgs, output=list[Hit], execute=search))
    result = await ctx.tools.execute(call("search"))
    assert result.text == 'Error: tool "search": invalid output: [1].line: missing required property'


@pytest.mark.parametrize(
    "value, problem",
    [
        ({"path": "/a", "lines": float("nan")}, "lines: non-finite number"),
        ({"path": b"/a", "lines": 1}, "path: bytes is not a JSON type"),
        ({"path": "/a", "lines": {1, 2}}, "lines: set is not a JSON type"),
        (object(), "(root): object is not a JSON type"),
    ],
)
async def test_a_non_json_value_is_output_invalid(ctx: Context, value: object, problem: str) -> None:
    ctx.tools.register(raw_tool(value, schema={"type": "object"}))
    result = await ctx.tools.execute(call("raw", {}))
    assert result.is_error and result.error is not None and result.error.code == "OUTPUT_INVALID"
    assert result.text == f'Error: tool "raw": invalid output: not JSON: {problem}'


async def test_a_cyclic_value_is_output_invalid(ctx: Context) -> None:
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    ctx.tools.register(raw_tool(cyclic, schema={"type": "object"}))
    result = await ctx.tools.execute(call("raw", {}))
    assert result.text == 'Error: tool "raw": invalid output: not JSON: self: cycle'


async def test_a_huge_value_hits_the_json_boundary_limits(ctx: Context) -> None:
    ctx.tools.register(raw_tool(wrapped(500), schema={"type": "array"}))
    result = await ctx.tools.execute(call("raw", {}))
    assert result.is_error and result.error is not None and result.error.code == "OUTPUT_INVALID"
    assert "nesting deeper than" in result.text


async def test_a_value_that_sharing_makes_huge_is_refused_at_once(ctx: Context) -> None:
    ctx.tools.register(raw_tool(shared_tree(40), schema={"type": "object"}))  # 2**40 leaves written out
    result = await ctx.tools.execute(call("raw", {}))
    assert result.is_error and result.error is not None and result.error.code == "OUTPUT_INVALID"
    assert "more than 1,000,000 values" in result.text


async def test_a_content_tool_returning_a_value_says_so(ctx: Context) -> None:
    ctx.tools.register(raw_tool({"n": 1}))
    result = await ctx.tools.execute(call("raw", {}))
    assert result.is_error and result.value is None
    assert result.text == (
        'Error: tool "raw" returned dict, expected a list of content blocks or ToolOutput '
        "(a value needs output=... on the tool)"
    )


async def test_a_content_tool_returning_tool_output_with_a_value_says_so(ctx: Context) -> None:
    ctx.tools.register(raw_tool(ToolOutput([text_block("x")], value={"n": 1})))
    result = await ctx.tools.execute(call("raw", {}))
    assert result.text == 'Error: tool "raw" returned a value but declares no output schema (give it output=...)'


async def test_a_typed_tool_returning_content_without_a_value_says_so(ctx: Context) -> None:
    ctx.tools.register(raw_tool(ToolOutput([text_block("x")]), schema={"type": "object"}))
    result = await ctx.tools.execute(call("raw", {}))
    assert result.text == 'Error: tool "raw" declares an output schema but returned ToolOutput without a value'


async def test_a_typed_tool_returning_content_blocks_fails_its_schema(ctx: Context) -> None:
    ctx.tools.register(raw_tool([text_block("x")], schema={"type": "object"}))
    result = await ctx.tools.execute(call("raw", {}))
    assert result.text == 'Error: tool "raw": invalid output: (root): expected object, got array'


async def test_a_render_that_raises_is_one_error_result(ctx: Context) -> None:
    def render(args: PathArgs, value: FileStat) -> list[ContentBlock]:
        raise LookupError("no template")

    ctx.tools.register(stat_tool(render=render))
    result = await ctx.tools.execute(call())
    assert result.is_error and result.value is None
    assert result.text == 'Error: tool "stat" render raised LookupError: no template'


@pytest.mark.parametrize(
    "returned, problem",
    [
        ("text", "expected a list of content blocks, got str"),
        ([{"text": "no type"}], "block [0] must be an object with a str 'type'"),
        ([text_block("x"), 3], "block [1] must be an object with a str 'type'"),
        ([{"type": "text", "text": float("inf")}], "content is not JSON: [0].text: non-finite number"),
        (None, "expected a list of content blocks, got NoneType"),
    ],
)
async def test_a_render_returning_non_content_is_one_error_result(
    ctx: Context, returned: object, problem: str
) -> None:
    ctx.tools.register(stat_tool(render=lambda args, value: returned))
    result = await ctx.tools.execute(call())
    assert result.text == f'Error: tool "stat" render returned no valid content: {problem}'


async def test_a_body_that_raises_is_still_an_ordinary_error(ctx: Context) -> None:
    async def broken(args: PathArgs, exec: ToolExecution) -> FileStat:
        raise RuntimeError("disk on fire")

    ctx.tools.register(define_tool(name="stat", description="d", args=PathArgs, output=FileStat, execute=broken))
    result = await ctx.tools.execute(call())
    assert result.text == "Error: disk on fire" and result.value is None


async def test_invalid_args_never_reach_a_typed_body(ctx: Context) -> None:
    ctx.tools.register(stat_tool())
    result = await ctx.tools.execute(call(arguments={"path": 3}))
    assert result.error is not None and result.error.code == "INVALID_ARGS"


async def test_content_tools_are_unchanged(ctx: Context) -> None:
    async def read(args: PathArgs, exec: ToolExecution) -> list[ContentBlock]:
        return [text_block("body")]

    ctx.tools.register(define_tool(name="read", description="d", args=PathArgs, execute=read))
    result = await ctx.tools.execute(call("read"))
    assert result.text == "body" and result.value is None


# -- policy over values -----------------------------------------------------------------


def post(ctx: Context, decision: Any) -> None:
    async def listener(execution: ToolExecution, result: ToolExecutionResult, next_: Any) -> Any:
        await next_()
        return decision

    ctx.on("tools/post-execute", listener)


async def test_accept_value_replaces_the_value_and_rerenders(ctx: Context) -> None:
    ctx.tools.register(stat_tool(render=lambda args, value: [text_block(f"{value['lines']} lines")]))
    post(ctx, Accept(value={"path": "/redacted", "lines": 0}))
    result = await ctx.tools.execute(call())
    assert not result.is_error
    assert thaw_json(result.value) == {"path": "/redacted", "lines": 0}
    assert result.text == "0 lines"


async def test_accept_value_with_additional_context_keeps_both(ctx: Context) -> None:
    ctx.tools.register(stat_tool())
    context = HookContext([text_block("note")], PluginSource("p"))
    post(ctx, Accept(value={"path": "/b", "lines": 1}, additional_context=context))
    result = await ctx.tools.execute(call())
    assert result.additional_context == context and thaw_json(result.value) == {"path": "/b", "lines": 1}


async def test_accept_value_that_fails_the_schema_is_output_invalid(ctx: Context) -> None:
    ctx.tools.register(stat_tool())
    post(ctx, Accept(value={"path": "/b"}))
    result = await ctx.tools.execute(call())
    assert result.is_error and result.value is None
    assert result.error is not None and result.error.code == "OUTPUT_INVALID"
    assert result.text == 'Error: Accept(value=...): tool "stat": invalid output: lines: missing required property'


async def test_accept_value_on_a_content_tool_fails_closed(ctx: Context) -> None:
    async def read(args: PathArgs, exec: ToolExecution) -> list[ContentBlock]:
        return [text_block("body")]

    ctx.tools.register(define_tool(name="read", description="d", args=PathArgs, execute=read))
    post(ctx, Accept(value={"x": 1}))
    result = await ctx.tools.execute(call("read"))
    assert result.text == "Error: Accept(value=...) cannot replace the value of a tool without an output schema"


async def test_accept_value_on_a_failed_call_fails_closed(ctx: Context) -> None:
    async def broken(args: PathArgs, exec: ToolExecution) -> FileStat:
        raise RuntimeError("no")

    ctx.tools.register(define_tool(name="stat", description="d", args=PathArgs, output=FileStat, execute=broken))
    post(ctx, Accept(value={"path": "/a", "lines": 1}))
    result = await ctx.tools.execute(call())
    assert result.text == "Error: Accept(value=...) cannot replace the value of a failed call"


async def test_accept_value_whose_render_fails_is_one_error_result(ctx: Context) -> None:
    def render(args: PathArgs, value: FileStat) -> Sequence[ContentBlock]:
        if value["lines"] == 0:
            raise ValueError("zero")
        return [text_block("ok")]

    ctx.tools.register(stat_tool(render=render))
    post(ctx, Accept(value={"path": "/a", "lines": 0}))
    result = await ctx.tools.execute(call())
    assert result.text == 'Error: tool "stat" render raised ValueError: zero' and result.value is None


async def test_accept_content_replaces_only_the_content(ctx: Context) -> None:
    ctx.tools.register(stat_tool())
    post(ctx, Accept(content=[text_block("[hidden from the model]")]))
    result = await ctx.tools.execute(call())
    assert result.text == "[hidden from the model]"
    assert thaw_json(result.value) == {"path": "/a", "lines": 2}  # not redaction: programs still get it


def test_accept_with_content_and_value_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="content= or value=, not both"):
        Accept(content=[text_block("x")], value={"a": 1})


def test_accept_value_must_be_json() -> None:
    with pytest.raises(TypeError, match="Accept.value must be JSON"):
        Accept(value={"a": {1, 2}})  # type: ignore[dict-item]


async def test_a_listener_building_a_bad_accept_fails_the_call_closed(ctx: Context) -> None:
    async def listener(execution: ToolExecution, result: ToolExecutionResult, next_: Any) -> Any:
        return Accept(content=[text_block("x")], value={"path": "/a", "lines": 1})

    ctx.tools.register(stat_tool())
    ctx.on("tools/post-execute", listener)
    result = await ctx.tools.execute(call())
    assert result.is_error and result.value is None
    assert "content= or value=, not both" in result.text


async def test_block_drops_the_value(ctx: Context) -> None:
    ctx.tools.register(stat_tool())
    post(ctx, Block([text_block("no")]))
    result = await ctx.tools.execute(call())
    assert result.is_error and result.value is None and result.text == "no"


async def test_a_wrapper_returning_an_error_with_a_value_fails_closed(ctx: Context) -> None:
    async def wrapper(execution: ToolExecution, next_: Any) -> ToolExecutionResult:
        return ToolExecutionResult(execution.call_id, [text_block("x")], True, value={"a": 1})

    ctx.tools.register(stat_tool())
    ctx.on("tools/execute", wrapper)
    result = await ctx.tools.execute(call())
    assert result.is_error and result.value is None
    assert result.text == (
        "Error: tools/execute listener returned an error result with a value (only a successful typed call has one)"
    )


async def test_a_schema_output_tool_takes_any_json_value_its_schema_allows(ctx: Context) -> None:
    async def any_body(args: Mapping[str, JsonValue], exec: ToolExecution) -> JsonValue:
        return {"ok": True, "extra": [1]}

    tool = define_tool(
        name="flex",
        description="d",
        parameters={},
        output=Prop("object", properties={"ok": Prop("boolean", required=True)}),
        execute=any_body,
    )
    ctx.tools.register(tool)
    result = await ctx.tools.execute(call("flex", {}))
    assert thaw_json(result.value) == {"ok": True, "extra": [1]}


async def test_a_value_the_one_pass_freezer_doubts_still_takes_the_exact_walks(ctx: Context) -> None:
    """The freezer vouches for declared keys only; the extra key here is valid, so the slow path says so."""
    ctx.tools.register(stat_tool())
    snapshot = ctx.tools.get("stat")
    assert snapshot is not None and snapshot.freeze_output is not None
    fast = await ctx.tools.execute(call())
    assert snapshot.freeze_output({"path": "/a", "lines": 2}) == fast.value

    async def with_extra(args: PathArgs, exec: ToolExecution) -> FileStat:
        return {"path": args["path"], "lines": 1, "words": 3}  # type: ignore[typeddict-unknown-key]

    ctx.tools.register(define_tool(name="extra", description="d", args=PathArgs, output=FileStat, execute=with_extra))
    result = await ctx.tools.execute(call("extra"))
    assert not result.is_error and thaw_json(result.value) == {"path": "/a", "lines": 1, "words": 3}


async def test_a_tool_whose_schema_the_freezer_cannot_write_validates_as_before(ctx: Context) -> None:
    levels = {"type": "object", "properties": {"level": {"type": "integer", "enum": [1, 2]}}}  # 1 == True
    ctx.tools.register(raw_tool({"level": 1}, schema=levels))
    snapshot = ctx.tools.get("raw")
    assert snapshot is not None and snapshot.check_output is not None and snapshot.freeze_output is None
    result = await ctx.tools.execute(call("raw", {}))
    assert thaw_json(result.value) == {"level": 1}
    other = boot()
    other.tools.register(raw_tool({"level": True}, schema=levels))
    failed = await other.tools.execute(call("raw", {}))
    assert failed.is_error and failed.error is not None and failed.error.code == "OUTPUT_INVALID"


async def test_a_value_the_freezer_vouches_for_is_its_frozen_form(ctx: Context) -> None:
    """The one value form only the freezer makes, a recurring record copied, shows execute() took the one pass."""
    hit = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": False}
    record = {"n": 1}
    ctx.tools.register(raw_tool([record, record], schema={"type": "array", "items": hit}))
    result = await ctx.tools.execute(call("raw", {}))
    assert not result.is_error and thaw_json(result.value) == [{"n": 1}, {"n": 1}]
    first, second = result.value  # type: ignore[misc]
    assert first == second and first is not second  # the generic freeze keeps the record shared
