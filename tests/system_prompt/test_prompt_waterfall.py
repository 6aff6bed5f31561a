"""The ``system-prompt/assemble`` waterfall: composition order, next(), scoping, errors."""

from __future__ import annotations

import pytest

from dsh_tools.hooks import AssembleListener, AssembleNext
from dsh_tools.context.context import Agent, Context
from dsh_tools.tool_types import ToolSchema
from dsh_tools.system_prompt import (
    AssembleContext,
    AssembledSection,
    PromptAssembly,
    PromptSection,
    SystemPrompt,
    ToolProviderResult,
)


def booted() -> Context:
    ctx = Context()
    SystemPrompt(ctx)
    ctx.system_prompt.section(PromptSection("base", 1, "base"))
    return ctx


def tagging(tag: str, trace: list[str]) -> AssembleListener:
    """A listener appending a section named ``tag`` to whatever its inner chain returns."""

    async def listener(context: AssembleContext, assembly: PromptAssembly, next: AssembleNext) -> PromptAssembly:
        trace.append(f"enter {tag}")
        inner = await next()
        trace.append(f"leave {tag}")
        return inner.set(sections=(*inner.sections, AssembledSection(tag, 0, tag)))

    return listener


async def section_names(ctx: Context, scope: Agent | None = None) -> list[str]:
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=scope))
    return [section.name for section in assembly.sections]


async def test_first_registered_listener_is_outermost() -> None:
    ctx = booted()
    trace: list[str] = []
    ctx.on("system-prompt/assemble", tagging("one", trace))
    ctx.on("system-prompt/assemble", tagging("two", trace))
    # the innermost (two) appends first, the outermost (one) last
    assert await section_names(ctx) == ["base", "two", "one"]
    assert trace == ["enter one", "enter two", "leave two", "leave one"]


async def test_prepend_makes_a_listener_outermost() -> None:
    ctx = booted()
    trace: list[str] = []
    ctx.on("system-prompt/assemble", tagging("one", trace))
    ctx.on("system-prompt/assemble", tagging("first", trace), prepend=True)
    assert await section_names(ctx) == ["base", "one", "first"]
    assert trace[0] == "enter first"


async def test_innermost_next_returns_the_canonical_assembly_also_passed_as_argument() -> None:
    ctx = booted()
    ctx.system_prompt.tools(lambda _: ToolProviderResult([ToolSchema("t", "T", {})]))
    seen: list[tuple[AssembleContext, PromptAssembly, PromptAssembly]] = []

    async def spy(context: AssembleContext, assembly: PromptAssembly, next: AssembleNext) -> PromptAssembly:
        inner = await next()
        seen.append((context, assembly, inner))
        return inner

    ctx.on("system-prompt/assemble", spy)
    agent = Agent(ctx, name="alice")
    result = await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    context, assembly, inner = seen[0]
    assert context == AssembleContext(scope=agent)
    assert inner == assembly == result
    assert [s.name for s in assembly.sections] == ["base"] and [t.name for t in assembly.tools] == ["t"]


async def test_sync_listener_may_short_circuit_without_calling_next() -> None:
    ctx = booted()
    trace: list[str] = []

    def replace_all(context: AssembleContext, assembly: PromptAssembly, next: AssembleNext) -> PromptAssembly:
        return PromptAssembly(sections=(AssembledSection("only", 1, "only"),))

    ctx.on("system-prompt/assemble", replace_all)
    ctx.on("system-prompt/assemble", tagging("never", trace))
    assert await section_names(ctx) == ["only"]
    assert trace == []


async def test_next_may_be_called_twice_running_the_inner_chain_again() -> None:
    ctx = booted()
    trace: list[str] = []

    async def twice(context: AssembleContext, assembly: PromptAssembly, next: AssembleNext) -> PromptAssembly:
        await next()
        return await next()

    ctx.on("system-prompt/assemble", twice)
    ctx.on("system-prompt/assemble", tagging("inner", trace))
    assert await section_names(ctx) == ["base", "inner"]
    assert trace.count("enter inner") == 2


async def test_listeners_do_not_reorder_or_resort_the_result() -> None:
    ctx = booted()
    ctx.system_prompt.section(PromptSection("second", 2, "second"))

    def reverse(context: AssembleContext, assembly: PromptAssembly, next: AssembleNext) -> PromptAssembly:
        return assembly.set(sections=tuple(reversed(assembly.sections)))

    ctx.on("system-prompt/assemble", reverse)
    assert await section_names(ctx) == ["second", "base"]


async def test_scoped_listener_hears_only_its_agent_and_leaves_with_agent_ctx() -> None:
    ctx = booted()
    alice = Agent(ctx, name="alice")
    bob = Agent(ctx, name="bob")
    trace: list[str] = []
    alice.ctx.on("system-prompt/assemble", tagging("alice", trace))
    ctx.on("system-prompt/assemble", tagging("global", trace))
    assert await section_names(ctx, alice) == ["base", "global", "alice"]
    assert await section_names(ctx, bob) == ["base", "global"]
    assert await section_names(ctx) == ["base", "global"]
    await alice.dispose()
    assert await section_names(ctx, alice) == ["base", "global"]


async def test_listener_of_a_disposed_fork_is_gone() -> None:
    ctx = booted()
    fork = ctx.fork()
    fork.on("system-prompt/assemble", tagging("plugin", []))
    assert await section_names(ctx) == ["base", "plugin"]
    await fork.dispose()
    assert await section_names(ctx) == ["base"]


async def test_listener_returning_a_non_assembly_is_a_type_error_naming_it() -> None:
    ctx = booted()

    async def returns_none(context: AssembleContext, assembly: PromptAssembly, next: AssembleNext) -> PromptAssembly:
        await next()
        return None  # type: ignore[return-value]

    ctx.on("system-prompt/assemble", returns_none)
    with pytest.raises(TypeError, match=r"returns_none.*NoneType.*PromptAssembly"):
        await ctx.system_prompt.assemble()


async def test_listener_returning_malformed_records_is_a_type_error_naming_it() -> None:
    ctx = booted()

    def bad_tools(context: AssembleContext, assembly: PromptAssembly, next: AssembleNext) -> PromptAssembly:
        return assembly.set(tools=({"name": "x"},))

    ctx.on("system-prompt/assemble", bad_tools)
    with pytest.raises(TypeError, match=r"bad_tools.*ToolSchema"):
        await ctx.system_prompt.assemble()


async def test_listener_lists_are_normalized_to_tuples() -> None:
    ctx = booted()

    def listy(context: AssembleContext, assembly: PromptAssembly, next: AssembleNext) -> PromptAssembly:
        return assembly.set(sections=list(assembly.sections))

    ctx.on("system-prompt/assemble", listy)
    assert (await ctx.system_prompt.assemble()).sections == (AssembledSection("base", 1, "base"),)


async def test_listener_exceptions_propagate_from_assemble() -> None:
    ctx = booted()

    def boom(context: AssembleContext, assembly: PromptAssembly, next: AssembleNext) -> PromptAssembly:
        raise LookupError("listener failed")

    ctx.on("system-prompt/assemble", boom)
    with pytest.raises(LookupError, match="listener failed"):
        await ctx.system_prompt.assemble()
