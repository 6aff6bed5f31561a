"""Protections: restored once in canonical form after the waterfall, invented ones removed."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from dsh_tools.hooks import AssembleNext
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
from dsh_tools.system_prompt.restore import restore_protected


def schema(name: str, description: str | None = None) -> ToolSchema:
    return ToolSchema(name, description or f"the {name} tool", {"type": "object"})


def booted() -> Context:
    """Sections a(1) sdk(150) z(300); tools read, run_code, write."""
    ctx = Context()
    SystemPrompt(ctx)
    prompt = ctx.system_prompt
    prompt.section(PromptSection("a", 1, "A"))
    prompt.section(PromptSection("sdk", 150, lambda _: "declare const tools"))
    prompt.section(PromptSection("z", 300, "Z"))
    prompt.tools(lambda _: ToolProviderResult([schema("read"), schema("run_code"), schema("write")]))
    return ctx


def rewrite(ctx: Context, fn: Callable[[PromptAssembly], PromptAssembly]) -> None:
    """Add a listener applying ``fn`` to what its inner chain returns."""

    async def listener(context: AssembleContext, assembly: PromptAssembly, next: AssembleNext) -> PromptAssembly:
        return fn(await next())

    ctx.on("system-prompt/assemble", listener)


def strip(assembly: PromptAssembly) -> PromptAssembly:
    return PromptAssembly(
        tuple(s for s in assembly.sections if s.name != "sdk"),
        tuple(t for t in assembly.tools if t.name != "run_code"),
    )


async def shape(ctx: Context, scope: Agent | None = None) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=scope))
    return [(s.name, s.text) for s in assembly.sections], [(t.name, t.description) for t in assembly.tools]


CANONICAL = (
    [("a", "A"), ("sdk", "declare const tools"), ("z", "Z")],
    [("read", "the read tool"), ("run_code", "the run_code tool"), ("write", "the write tool")],
)


async def test_removed_protected_entries_come_back_where_they_stood() -> None:
    ctx = booted()
    ctx.system_prompt.protect(sections=["sdk"], tools=["run_code"])
    rewrite(ctx, strip)
    assert await shape(ctx) == CANONICAL


async def test_without_protection_a_listener_may_remove_them() -> None:
    ctx = booted()
    rewrite(ctx, strip)
    assert await shape(ctx) == ([("a", "A"), ("z", "Z")], [("read", "the read tool"), ("write", "the write tool")])


async def test_replaced_protected_entries_come_back_in_canonical_form_in_place() -> None:
    ctx = booted()
    ctx.system_prompt.protect(sections=["sdk"], tools=["run_code"])

    def tamper(assembly: PromptAssembly) -> PromptAssembly:
        return PromptAssembly(
            (AssembledSection("sdk", 0, "evil"), AssembledSection("a", 1, "A")),
            (schema("run_code", "evil"), schema("read")),
        )

    rewrite(ctx, tamper)
    assert await shape(ctx) == (
        [("sdk", "declare const tools"), ("a", "A")],
        [("run_code", "the run_code tool"), ("read", "the read tool")],
    )
    assembly = await ctx.system_prompt.assemble()
    assert assembly.sections[0] == AssembledSection("sdk", 150, "declare const tools")


async def test_protected_entries_appear_exactly_once() -> None:
    ctx = booted()
    ctx.system_prompt.protect(sections=["sdk"], tools=["run_code"])

    def duplicate(assembly: PromptAssembly) -> PromptAssembly:
        return PromptAssembly(assembly.sections + assembly.sections, assembly.tools + (schema("run_code", "2"),))

    rewrite(ctx, duplicate)
    sections, tools = await shape(ctx)
    assert [name for name, _ in sections].count("sdk") == 1
    assert [name for name, _ in tools].count("run_code") == 1
    assert ("run_code", "the run_code tool") in tools


async def test_invented_protected_entries_are_removed_others_kept() -> None:
    ctx = Context()
    SystemPrompt(ctx)
    ctx.system_prompt.section(PromptSection("a", 1, "A"))
    ctx.system_prompt.protect(sections=["sdk"], tools=["run_code"])

    def invent(assembly: PromptAssembly) -> PromptAssembly:
        return PromptAssembly(
            (*assembly.sections, AssembledSection("sdk", 2, "fake"), AssembledSection("note", 3, "kept")),
            (schema("run_code"), schema("extra")),
        )

    rewrite(ctx, invent)
    assert await shape(ctx) == ([("a", "A"), ("note", "kept")], [("extra", "the extra tool")])


async def test_restore_runs_after_the_whole_waterfall_once() -> None:
    ctx = booted()
    ctx.system_prompt.protect(tools=["run_code"])
    seen_by_outer: list[list[str]] = []

    async def outer(context: AssembleContext, assembly: PromptAssembly, next: AssembleNext) -> PromptAssembly:
        inner = await next()
        seen_by_outer.append([t.name for t in inner.tools])
        return inner

    ctx.on("system-prompt/assemble", outer)
    rewrite(ctx, strip)  # inner listener
    assert (await shape(ctx))[1] == CANONICAL[1]
    assert seen_by_outer == [["read", "write"]]  # listeners see the unrestored result


async def test_removed_section_is_reinserted_by_order_among_listener_sections() -> None:
    ctx = booted()
    ctx.system_prompt.protect(sections=["sdk"])

    def replace(assembly: PromptAssembly) -> PromptAssembly:
        return PromptAssembly((AssembledSection("x", 100, "x"), AssembledSection("y", 200, "y")), assembly.tools)

    rewrite(ctx, replace)
    assert [name for name, _ in (await shape(ctx))[0]] == ["x", "sdk", "y"]


async def test_removed_tool_with_no_surviving_predecessor_goes_first() -> None:
    ctx = booted()
    ctx.system_prompt.protect(tools=["read", "run_code"])
    rewrite(ctx, lambda a: a.set(tools=(schema("other"),)))
    assert [name for name, _ in (await shape(ctx))[1]] == ["read", "run_code", "other"]


async def test_protecting_a_canonically_absent_section_for_a_scope() -> None:
    ctx = booted()
    agent = Agent(ctx, name="alice")
    agent.ctx.system_prompt.protect(sections=["z"])
    rewrite(ctx, lambda a: a.set(sections=a.sections[:1]))
    assert [name for name, _ in (await shape(ctx, agent))[0]] == ["a", "z"]
    assert [name for name, _ in (await shape(ctx))[0]] == ["a"]  # scoped protection: alice only


async def test_protections_leave_with_their_context() -> None:
    ctx = booted()
    agent = Agent(ctx, name="alice")
    fork = ctx.fork()
    fork.system_prompt.protect(sections=["sdk"])
    agent.ctx.system_prompt.protect(tools=["run_code"])
    dispose = ctx.system_prompt.protect(sections=["z"])
    rewrite(ctx, strip)
    rewrite(ctx, lambda a: a.set(sections=a.sections[:1]))
    assert await shape(ctx, agent) == CANONICAL
    await fork.dispose()
    await agent.dispose()
    dispose()
    assert await shape(ctx, agent) == ([("a", "A")], [("read", "the read tool"), ("write", "the write tool")])


async def test_overlapping_protections_count_separately() -> None:
    ctx = booted()
    first = ctx.system_prompt.protect(tools=["run_code"])
    ctx.system_prompt.protect(tools=["run_code"])
    rewrite(ctx, strip)
    first()
    assert ("run_code", "the run_code tool") in (await shape(ctx))[1]


def test_protect_naming_nothing_is_a_value_error() -> None:
    ctx = booted()
    with pytest.raises(ValueError, match="at least one"):
        ctx.system_prompt.protect()
    with pytest.raises(ValueError, match="at least one"):
        ctx.system_prompt.protect(sections=[], tools=())


def test_protect_rejects_bare_strings_and_empty_names() -> None:
    ctx = booted()
    with pytest.raises(TypeError, match="'sdk'"):
        ctx.system_prompt.protect(sections="sdk")
    with pytest.raises(ValueError, match="non-empty"):
        ctx.system_prompt.protect(tools=[""])


def test_scoped_section_shadowing_a_protected_global_is_a_value_error() -> None:
    ctx = booted()
    ctx.system_prompt.protect(sections=["sdk"])
    agent = Agent(ctx, name="alice")
    with pytest.raises(ValueError, match=r"'sdk'.*protected.*'alice'"):
        agent.ctx.system_prompt.section(PromptSection("sdk", 1, "mine"))
    agent.ctx.system_prompt.section(PromptSection("a", 1, "unprotected shadow is fine"))


def test_globally_protecting_a_name_a_scope_already_shadows_is_a_value_error() -> None:
    ctx = booted()
    agent = Agent(ctx, name="alice")
    agent.ctx.system_prompt.section(PromptSection("sdk", 1, "mine"))
    with pytest.raises(ValueError, match=r"'sdk'.*'alice'"):
        ctx.system_prompt.protect(sections=["sdk"])
    agent.ctx.system_prompt.protect(sections=["sdk"])  # a scope protecting its own shadow is fine


async def test_failed_protect_registers_nothing() -> None:
    ctx = booted()
    agent = Agent(ctx, name="alice")
    agent.ctx.system_prompt.section(PromptSection("sdk", 1, "mine"))
    with pytest.raises(ValueError):
        ctx.system_prompt.protect(sections=["sdk"], tools=["run_code"])
    rewrite(ctx, strip)
    assert "run_code" not in [name for name, _ in (await shape(ctx))[1]]


def test_restore_returns_the_same_assembly_when_nothing_changed() -> None:
    canonical = PromptAssembly((AssembledSection("a", 1, "A"),), (schema("t"),))
    final = PromptAssembly(canonical.sections, canonical.tools)
    assert restore_protected(canonical, final, sections=frozenset({"a"}), tools=frozenset({"t"})) is final


async def test_an_assemble_listener_passing_arguments_to_next_is_told_what_next_takes() -> None:
    ctx = booted()

    async def misuses(context: AssembleContext, assembly: PromptAssembly, next: AssembleNext) -> PromptAssembly:
        return await next(context, assembly)  # type: ignore[call-arg]  # the mistake under test

    ctx.on("system-prompt/assemble", misuses)
    with pytest.raises(TypeError, match=r"^next\(\) takes no arguments") as raised:
        await ctx.system_prompt.assemble(AssembleContext())
    assert "_level" not in str(raised.value) and isinstance(raised.value.__cause__, TypeError)
