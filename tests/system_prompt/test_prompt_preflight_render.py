"""Preflight checks (the registry's veto on assembly) and ``render_prompt``."""

from __future__ import annotations

import pytest

from dsh_tools.hooks import AssembleNext
from dsh_tools.context.context import Agent, Context
from dsh_tools.system_prompt import (
    AssembleContext,
    AssembledSection,
    PromptAssembly,
    PromptSection,
    SystemPrompt,
    ToolProviderResult,
    render_prompt,
)


class RuntimeMissing(RuntimeError):
    pass


def booted() -> Context:
    ctx = Context()
    SystemPrompt(ctx)
    return ctx


async def test_preflight_runs_first_and_its_error_rejects_the_assembly() -> None:
    ctx = booted()
    trace: list[str] = []

    def provider(context: AssembleContext) -> ToolProviderResult:
        trace.append("provider")
        return ToolProviderResult([])

    def lazy(context: AssembleContext) -> str:
        trace.append("section")
        return "x"

    def check(context: AssembleContext) -> None:
        trace.append("check")
        raise RuntimeMissing("Code Mode needs a TypeScript runtime: provide CODE_RUNTIME")

    async def listener(context: AssembleContext, assembly: PromptAssembly, next: AssembleNext) -> PromptAssembly:
        trace.append("listener")
        return await next()

    ctx.system_prompt.tools(provider)
    ctx.system_prompt.section(PromptSection("s", 1, lazy))
    ctx.on("system-prompt/assemble", listener)
    dispose = ctx.system_prompt.preflight(check)
    with pytest.raises(RuntimeMissing, match="TypeScript runtime"):
        await ctx.system_prompt.assemble()
    assert trace == ["check"]
    dispose()
    await ctx.system_prompt.assemble()
    assert trace[1:] == ["section", "provider", "listener"]


async def test_preflights_run_in_registration_order_with_the_context() -> None:
    ctx = booted()
    agent = Agent(ctx, name="alice")
    seen: list[tuple[str, AssembleContext]] = []
    ctx.system_prompt.preflight(lambda c: seen.append(("one", c)))
    ctx.system_prompt.preflight(lambda c: seen.append(("two", c)))
    await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    assert seen == [("one", AssembleContext(scope=agent)), ("two", AssembleContext(scope=agent))]


async def test_scoped_preflight_vetoes_only_its_agent_and_leaves_with_it() -> None:
    ctx = booted()
    agent = Agent(ctx, name="alice")

    def veto(context: AssembleContext) -> None:
        raise ValueError("alice is misconfigured")

    agent.ctx.system_prompt.preflight(veto)
    await ctx.system_prompt.assemble()
    with pytest.raises(ValueError, match="alice"):
        await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    await agent.dispose()
    await ctx.system_prompt.assemble(AssembleContext(scope=agent))


async def test_preflight_of_a_disposed_fork_no_longer_runs() -> None:
    ctx = booted()
    fork = ctx.fork()

    def veto(context: AssembleContext) -> None:
        raise ValueError("vetoed")

    fork.system_prompt.preflight(veto)
    with pytest.raises(ValueError, match="vetoed"):
        await ctx.system_prompt.assemble()
    await fork.dispose()
    await ctx.system_prompt.assemble()


def test_preflight_requires_a_callable() -> None:
    with pytest.raises(TypeError, match="preflight"):
        booted().system_prompt.preflight("check")  # type: ignore[arg-type]


async def test_nothing_is_built_in() -> None:
    assembly = await booted().system_prompt.assemble()
    assert assembly == PromptAssembly((), ())
    assert render_prompt(assembly) == ""


def test_render_joins_non_empty_texts_with_one_blank_line_in_given_order() -> None:
    assembly = PromptAssembly(
        (
            AssembledSection("b", 2, "second\nline"),
            AssembledSection("empty", 3, ""),
            AssembledSection("a", 1, "first"),
        )
    )
    assert render_prompt(assembly) == "second\nline\n\nfirst"


def test_render_of_a_single_section_has_no_separator() -> None:
    assert render_prompt(PromptAssembly((AssembledSection("a", 1, "only"),))) == "only"
