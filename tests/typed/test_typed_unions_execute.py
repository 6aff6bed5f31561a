"""Union and ``dict[str, X]`` outputs through ``ctx.tools.execute``: checked, frozen, rendered.

Each value goes the way every typed value goes (the generic freeze and the
validator, since the one-pass freezer does not write unions or dict
values): a value that fits is frozen into ``result.value`` and rendered
(a string as is, anything else as compact JSON), one that does not is one
``OUTPUT_INVALID`` result naming the path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict

import pytest

from dsh_tools import Accept, Agent, ToolExecution, ToolExecutionInput, ToolExecutionResult, boot, tool
from dsh_tools.code_mode.deno import DenoCodeRuntime
from dsh_tools.context.context import Context
from dsh_tools.json_values import FrozenDict, JsonValue, thaw_json
from dsh_tools.off_loop import INLINE_VALUES


class Hit(TypedDict):
    kind: Literal["hit"]
    path: str


class Miss(TypedDict):
    kind: Literal["miss"]
    reason: str


RETURNS: dict[str, Any] = {}
"""What each tool below returns on its next call, keyed by tool name."""


@tool
async def either(query: str) -> str | int:
    """A string or an integer."""
    return RETURNS["either"]  # type: ignore[no-any-return]


@tool
def maybe(query: str) -> int | None:
    """An integer, or nothing (a sync body: its value is checked alike)."""
    return RETURNS["maybe"]  # type: ignore[no-any-return]


@tool
async def find(query: str) -> Hit | Miss:
    """A hit or a miss."""
    return RETURNS["find"]  # type: ignore[no-any-return]


@tool
async def counts(query: str) -> dict[str, int]:
    """A count per word."""
    return RETURNS["counts"]  # type: ignore[no-any-return]


@tool
async def index(query: str) -> dict[str, list[Hit | Miss]]:
    """Findings per file."""
    return RETURNS["index"]  # type: ignore[no-any-return]


@pytest.fixture
def ctx() -> Context:
    context = boot()
    for defined in (either, maybe, find, counts, index):
        context.tools.register(defined)
    return context


async def run(ctx: Context, name: str, value: object) -> ToolExecutionResult:
    RETURNS[name] = value
    return await ctx.tools.execute(ToolExecutionInput("c1", name, {"query": "q"}))


@pytest.mark.parametrize(
    ("name", "value", "text"),
    [
        ("either", "three", "three"),
        ("either", 3, "3"),
        ("maybe", 7, "7"),
        ("maybe", None, "null"),
        ("find", {"kind": "hit", "path": "a.py"}, '{"kind":"hit","path":"a.py"}'),
        ("find", {"kind": "miss", "reason": "none"}, '{"kind":"miss","reason":"none"}'),
        ("counts", {"b": 2, "a": 1}, '{"b":2,"a":1}'),
        ("counts", {}, "{}"),
        ("index", {"x.py": [{"kind": "hit", "path": "x.py"}, {"kind": "miss", "reason": "-"}]}, None),
    ],
)
async def test_a_value_that_fits_is_frozen_and_rendered(ctx: Context, name: str, value: object, text: str | None) -> None:
    result = await run(ctx, name, value)
    assert not result.is_error, result.text
    assert result.outcome == "ok"
    assert thaw_json(result.value) == value
    if text is not None:
        assert result.text == text  # a string as is, anything else compact JSON in the body's key order
    if isinstance(value, dict):
        assert type(result.value) is FrozenDict
        with pytest.raises(TypeError):
            result.value["new"] = 1  # type: ignore[index]


async def test_nested_values_are_frozen_all_the_way_down(ctx: Context) -> None:
    result = await run(ctx, "index", {"x.py": [{"kind": "hit", "path": "x.py"}]})
    value = result.value
    assert isinstance(value, Mapping)
    findings = value["x.py"]
    assert type(findings) is tuple and type(findings[0]) is FrozenDict


@pytest.mark.parametrize(
    ("name", "value", "violations"),
    [
        ("either", 1.5, "(root): expected string or integer, got number"),
        ("either", True, "(root): expected string or integer, got boolean"),
        ("either", None, "(root): expected string or integer, got null"),
        ("maybe", "7", "(root): expected integer or null, got string"),
        ("find", {"kind": "miss", "reason": 3}, "reason: expected string, got integer"),
        ("find", {"kind": "lost"}, 'kind: expected one of "hit"; path: missing required property'),
        ("find", ["hit"], "(root): expected object, got array"),
        ("counts", {"a": 1, "b": "two"}, "b: expected integer, got string"),
        ("counts", {"my key": 1.5}, '["my key"]: expected integer, got number'),
        ("counts", [1], "(root): expected object, got array"),
        ("index", {"x.py": [{"kind": "hit"}]}, '["x.py"][0].path: missing required property'),
    ],
)
async def test_a_wrong_value_settles_output_invalid(ctx: Context, name: str, value: object, violations: str) -> None:
    result = await run(ctx, name, value)
    assert result.is_error and result.value is None and result.outcome == "error"
    assert result.error is not None and (result.error.name, result.error.code) == ("ToolOutputError", "OUTPUT_INVALID")
    assert result.text == f'Error: tool "{name}": invalid output: {violations}'


async def test_a_dict_value_that_is_not_json_is_output_invalid(ctx: Context) -> None:
    result = await run(ctx, "counts", {1: 2})
    assert result.is_error and result.error is not None and result.error.code == "OUTPUT_INVALID"
    assert result.text.startswith('Error: tool "counts": invalid output: not JSON: ')


async def test_a_large_dict_value_is_checked_off_the_loop_alike(ctx: Context) -> None:
    big = {f"w{i}": i for i in range(2 * INLINE_VALUES)}
    result = await run(ctx, "counts", big)
    assert not result.is_error and thaw_json(result.value) == big
    big["w7"] = "seven"  # type: ignore[assignment]
    result = await run(ctx, "counts", big)
    assert result.text == 'Error: tool "counts": invalid output: w7: expected integer, got string'


async def test_accept_value_is_checked_against_the_union(ctx: Context) -> None:
    replacement: JsonValue = {"kind": "miss", "reason": "redacted"}

    async def listener(execution: ToolExecution, result: ToolExecutionResult, next_: Any) -> Any:
        await next_()
        return Accept(value=replacement)

    ctx.on("tools/post-execute", listener)
    result = await run(ctx, "find", {"kind": "hit", "path": "secret.py"})
    assert thaw_json(result.value) == replacement and result.text == '{"kind":"miss","reason":"redacted"}'
    replacement = {"kind": "miss"}
    result = await run(ctx, "find", {"kind": "hit", "path": "secret.py"})
    assert result.text == 'Error: Accept(value=...): tool "find": invalid output: reason: missing required property'


async def test_a_typescript_program_narrows_a_union_and_walks_a_record() -> None:
    """Code Mode hands the program the values themselves: a tagged union to narrow, a Record to walk."""
    runtime = DenoCodeRuntime()
    try:
        ctx = boot(mode="code", code_runtime=runtime)
        for defined in (find, counts):
            ctx.tools.register(defined)
        RETURNS["find"] = {"kind": "miss", "reason": "not indexed"}
        RETURNS["counts"] = {"to": 2, "be": 2, "or": 1}
        program = """
        const found = await tools.find({ query: "main" });
        const counted = await tools.counts({ query: "to be or" });
        const total = Object.values(counted).reduce((sum, n) => sum + n, 0);
        return [found.kind === "hit" ? found.path : found.reason, total, Object.keys(counted)];
        """
        agent = Agent(ctx, name="coder")
        result = await ctx.tools.execute(ToolExecutionInput("outer", "run_code", {"code": program}, agent=agent))
        assert not result.is_error, result.text
        assert result.text == '["not indexed",5,["to","be","or"]]'
    finally:
        await runtime.dispose()
