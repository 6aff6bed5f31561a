"""Tool providers and ``tool_order``: collection, code-point ordering, known universe, errors."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from returns.result import Failure, Success

from dsh_tools.context.context import Agent, Context
from dsh_tools.tool_types import ToolSchema
from dsh_tools.hooks import AssembleNext
from dsh_tools.system_prompt import (
    TOOL_ORDER_REST,
    AssembleContext,
    PromptAssembly,
    SystemPrompt,
    ToolProvider,
    ToolProviderResult,
)
from dsh_tools.system_prompt.canonical import order_tools, parse_tool_order

REST = TOOL_ORDER_REST


def schema(name: str) -> ToolSchema:
    return ToolSchema(name, f"the {name} tool", {"type": "object"})


def provider(*names: str, known: Sequence[str] | None = None) -> ToolProvider:
    def provide(context: AssembleContext) -> ToolProviderResult:
        return ToolProviderResult([schema(n) for n in names], known)

    return provide


def booted(tool_order: Sequence[str] | None = None) -> Context:
    ctx = Context()
    SystemPrompt(ctx, tool_order=tool_order)
    return ctx


async def tool_names(ctx: Context, scope: Agent | None = None) -> list[str]:
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=scope))
    return [tool.name for tool in assembly.tools]


def test_rest_marker_spelling() -> None:
    assert TOOL_ORDER_REST == "<unlisted-tools>"


async def test_without_tool_order_tools_are_in_code_point_order_of_their_names() -> None:
    ctx = booted()
    ctx.system_prompt.tools(provider("b", "a"))
    ctx.system_prompt.tools(provider("d", "c"))
    assert await tool_names(ctx) == ["a", "b", "c", "d"]
    assembly = await ctx.system_prompt.assemble()
    assert assembly.tools[0] == schema("a")


@pytest.mark.parametrize(
    "providers",
    [
        [("read", "Bash", "édit"), ("_x", "a-b", "a_b", "B")],
        [("B", "a_b"), ("édit", "_x", "Bash"), ("a-b", "read")],
        [("a-b",), ("read",), ("édit",), ("_x",), ("Bash",), ("a_b",), ("B",)],
    ],
)
async def test_the_same_set_gives_the_same_order_whatever_the_providers_order(providers: list[tuple[str, ...]]) -> None:
    # code points, not locale or case folding: upper case before "_" before lower case before "é"
    ctx = booted()
    for names in providers:
        ctx.system_prompt.tools(provider(*names))
    assert await tool_names(ctx) == ["B", "Bash", "_x", "a-b", "a_b", "read", "édit"]


async def test_provider_receives_the_assemble_context() -> None:
    ctx = booted()
    agent = Agent(ctx, name="alice")
    seen: list[AssembleContext] = []

    def provide(context: AssembleContext) -> ToolProviderResult:
        seen.append(context)
        return ToolProviderResult([schema("mine")] if context.scope is agent else [])

    ctx.system_prompt.tools(provide)
    assert await tool_names(ctx, agent) == ["mine"]
    assert await tool_names(ctx) == []
    assert seen == [AssembleContext(scope=agent), AssembleContext()]


async def test_scoped_providers_feed_only_their_agent_and_leave_with_it() -> None:
    ctx = booted()
    agent = Agent(ctx, name="alice")
    ctx.system_prompt.tools(provider("shared"))
    agent.ctx.system_prompt.tools(provider("private"))
    assert await tool_names(ctx, agent) == ["private", "shared"]
    assert await tool_names(ctx) == ["shared"]
    await agent.dispose()
    assert await tool_names(ctx, agent) == ["shared"]


async def test_disposing_a_provider_or_its_fork_removes_it() -> None:
    ctx = booted()
    dispose = ctx.system_prompt.tools(provider("a"))
    fork = ctx.fork()
    fork.system_prompt.tools(provider("b"))
    assert await tool_names(ctx) == ["a", "b"]
    dispose()
    assert await tool_names(ctx) == ["b"]
    await fork.dispose()
    assert await tool_names(ctx) == []


async def test_tool_order_places_listed_tools_and_rest_at_the_marker() -> None:
    ctx = booted(["c", REST, "a"])
    ctx.system_prompt.tools(provider("a", "b"))
    ctx.system_prompt.tools(provider("c", "d", "e"))
    assert await tool_names(ctx) == ["c", "b", "d", "e", "a"]


async def test_tool_order_listed_first_in_listed_order() -> None:
    ctx = booted(["e", "a", REST])
    ctx.system_prompt.tools(provider("a", "b", "c", "d", "e"))
    assert await tool_names(ctx) == ["e", "a", "b", "c", "d"]


async def test_tool_order_skips_known_but_absent_tools() -> None:
    ctx = booted(["gone", REST, "a"])
    ctx.system_prompt.tools(provider("a", "b", known=["a", "b", "gone"]))
    assert await tool_names(ctx) == ["b", "a"]


async def test_contributed_schemas_are_known_even_with_explicit_known_names() -> None:
    ctx = booted(["b", REST])
    ctx.system_prompt.tools(provider("a", "b", known=["a"]))
    assert await tool_names(ctx) == ["b", "a"]


async def test_known_universe_spans_all_providers() -> None:
    ctx = booted(["x", REST])
    ctx.system_prompt.tools(provider("a"))
    ctx.system_prompt.tools(provider(known=["x"]))
    assert await tool_names(ctx) == ["a"]


async def test_tool_order_naming_an_unknown_tool_fails_at_assemble() -> None:
    ctx = booted(["typo", REST])
    ctx.system_prompt.tools(provider("a", known=["a", "b"]))
    with pytest.raises(ValueError, match="'typo'"):
        await ctx.system_prompt.assemble()


async def test_tool_order_with_no_providers_fails_for_any_name() -> None:
    ctx = booted(["a", REST])
    with pytest.raises(ValueError, match="'a'"):
        await ctx.system_prompt.assemble()


async def test_a_rest_only_order_is_code_point_order() -> None:
    ctx = booted([REST])
    ctx.system_prompt.tools(provider("z", "a"))
    assert await tool_names(ctx) == ["a", "z"]


async def test_the_rest_comes_in_code_point_order_between_listed_tools() -> None:
    ctx = booted(["m", REST, "b"])
    ctx.system_prompt.tools(provider("z", "m", "c"))
    ctx.system_prompt.tools(provider("b", "a", "y"))
    assert await tool_names(ctx) == ["m", "a", "c", "y", "z", "b"]


async def test_assemble_listeners_see_the_assembled_order() -> None:
    ctx = booted(["z", REST])
    ctx.system_prompt.tools(provider("b", "z", "a"))
    seen: list[list[str]] = []

    async def spy(context: AssembleContext, assembly: PromptAssembly, next: AssembleNext) -> PromptAssembly:
        seen.append([tool.name for tool in assembly.tools])
        return await next()

    ctx.on("system-prompt/assemble", spy)
    assert await tool_names(ctx) == ["z", "a", "b"]
    assert seen == [["z", "a", "b"]]
    unordered = booted()
    unordered.system_prompt.tools(provider("b", "z", "a"))
    unordered.on("system-prompt/assemble", spy)
    assert await tool_names(unordered) == ["a", "b", "z"]
    assert seen[-1] == ["a", "b", "z"]


async def test_a_provider_returning_the_rest_marker_fails_at_assemble() -> None:
    ctx = booted()

    def sneaky(context: AssembleContext) -> ToolProviderResult:
        return ToolProviderResult([schema(REST)])

    ctx.system_prompt.tools(sneaky)
    with pytest.raises(ValueError, match=r"sneaky.*<unlisted-tools>"):
        await ctx.system_prompt.assemble()


async def test_the_rest_marker_as_a_known_name_fails_at_assemble() -> None:
    ctx = booted()
    ctx.system_prompt.tools(provider("a", known=["a", REST]))
    with pytest.raises(ValueError, match="<unlisted-tools>"):
        await ctx.system_prompt.assemble()


async def test_the_same_tool_from_two_providers_fails_naming_it() -> None:
    ctx = booted()
    ctx.system_prompt.tools(provider("a"))
    ctx.system_prompt.tools(provider("a"))
    with pytest.raises(ValueError, match="'a'.*twice"):
        await ctx.system_prompt.assemble()


async def test_a_provider_returning_the_wrong_type_is_a_type_error_naming_it() -> None:
    ctx = booted()

    def wrong(context: AssembleContext) -> ToolProviderResult:
        return [schema("a")]  # type: ignore[return-value]

    def wrong_item(context: AssembleContext) -> ToolProviderResult:
        return ToolProviderResult([{"name": "a"}])  # type: ignore[list-item]

    dispose = ctx.system_prompt.tools(wrong)
    with pytest.raises(TypeError, match=r"wrong.*ToolProviderResult"):
        await ctx.system_prompt.assemble()
    dispose()
    ctx.system_prompt.tools(wrong_item)
    with pytest.raises(TypeError, match=r"wrong_item.*ToolSchema"):
        await ctx.system_prompt.assemble()


def test_tools_requires_a_callable() -> None:
    ctx = booted()
    with pytest.raises(TypeError, match="tools"):
        ctx.system_prompt.tools(ToolProviderResult([]))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("order", "match"),
    [
        (["a", "b"], "TOOL_ORDER_REST"),
        ([], "TOOL_ORDER_REST"),
        (["a", REST, REST], "rest marker.*twice"),
        (["a", REST, "a"], "'a' twice"),
        (["a", "", REST], "non-empty"),
    ],
)
def test_malformed_tool_order_fails_at_construction(order: list[str], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        SystemPrompt(Context(), tool_order=order)


def test_tool_order_as_a_bare_string_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="string"):
        SystemPrompt(Context(), tool_order=REST)


def test_failed_construction_does_not_provide_the_service() -> None:
    ctx = Context()
    with pytest.raises(ValueError):
        SystemPrompt(ctx, tool_order=["a"])
    SystemPrompt(ctx, tool_order=("a", REST))
    assert ctx.system_prompt.tool_order == ("a", REST)


def test_pure_rules_report_failures_as_values() -> None:
    assert parse_tool_order(None) == Success(None)
    assert isinstance(parse_tool_order(["a"]), Failure)
    known = frozenset({"a", "b"})
    result = order_tools((schema("a"), schema("b")), ("b", REST), known)
    assert result == Success((schema("b"), schema("a")))
    assert order_tools((schema("b"), schema("a")), None, known) == Success((schema("a"), schema("b")))
    failed = order_tools((schema("a"),), ("nope", REST), known)
    assert isinstance(failed, Failure) and "'nope'" in str(failed.failure())
