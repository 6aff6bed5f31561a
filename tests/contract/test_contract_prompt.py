"""API.md "System prompt" and its "Details" paragraph."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from dsh_tools import (
    TOOL_ORDER_REST,
    Agent,
    AssembleContext,
    AssembledSection,
    Context,
    PromptAssembly,
    PromptSection,
    SystemPrompt,
    ToolProviderResult,
    ToolSchema,
    boot,
    render_prompt,
)

from contract_support import Echo

NextT = Callable[[], Awaitable[PromptAssembly]]


def schema(name: str) -> ToolSchema:
    return ToolSchema(name=name, description=f"{name} tool", parameters={"type": "object"})


def provider(*names: str) -> Callable[[AssembleContext], ToolProviderResult]:
    return lambda context: ToolProviderResult(schemas=[schema(n) for n in names])


async def test_no_sections_built_in() -> None:
    ctx = Context()
    prompt = SystemPrompt(ctx)
    assembly = await prompt.assemble(AssembleContext(scope=None))
    assert assembly == PromptAssembly(sections=(), tools=())
    assert (await boot().system_prompt.assemble()).sections == ()


async def test_sections_ascending_order_lazy_text() -> None:
    ctx = Context()
    prompt = SystemPrompt(ctx)
    seen: list[AssembleContext] = []

    def lazy(context: AssembleContext) -> str:
        seen.append(context)
        return "lazy text"

    prompt.section(PromptSection("late", 300, "third"))
    prompt.section(PromptSection("early", 100, "first"))
    prompt.section(PromptSection("mid", 200, lazy))
    assembly = await prompt.assemble(AssembleContext(scope=None))
    assert assembly.sections == (
        AssembledSection("early", 100, "first"),
        AssembledSection("mid", 200, "lazy text"),
        AssembledSection("late", 300, "third"),
    )
    assert type(assembly.sections) is tuple and type(assembly.tools) is tuple
    assert len(seen) == 1 and seen[0].scope is None


def test_render_prompt_joins_non_empty_in_given_order() -> None:
    assembly = PromptAssembly(
        sections=(
            AssembledSection("b", 2, "second"),
            AssembledSection("empty", 3, ""),
            AssembledSection("a", 1, "first"),
        ),
        tools=(),
    )
    assert render_prompt(assembly) == "second\n\nfirst"
    assert render_prompt(PromptAssembly(sections=(), tools=())) == ""


async def test_scoped_section_shadows_global() -> None:
    ctx = boot()
    agent = Agent(ctx, name="a")
    ctx.system_prompt.section(PromptSection("persona", 10, "global"))
    agent.ctx.system_prompt.section(PromptSection("persona", 10, "scoped"))
    scoped = await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    assert [s.text for s in scoped.sections] == ["scoped"]
    plain = await ctx.system_prompt.assemble(AssembleContext(scope=None))
    assert [s.text for s in plain.sections] == ["global"]


def test_duplicate_section_in_one_layer_value_error() -> None:
    prompt = SystemPrompt(Context())
    prompt.section(PromptSection("s", 1, "x"))
    with pytest.raises(ValueError):
        prompt.section(PromptSection("s", 2, "y"))


def test_protect_naming_nothing_value_error() -> None:
    prompt = SystemPrompt(Context())
    with pytest.raises(ValueError):
        prompt.protect()
    with pytest.raises(ValueError):
        prompt.protect(sections=(), tools=())


def test_protect_shadow_conflicts_value_error() -> None:
    ctx = boot()
    agent = Agent(ctx, name="a")
    ctx.system_prompt.section(PromptSection("rules", 1, "global"))
    agent.ctx.system_prompt.section(PromptSection("rules", 1, "scoped"))
    with pytest.raises(ValueError):
        ctx.system_prompt.protect(sections=["rules"])
    ctx2 = boot()
    agent2 = Agent(ctx2, name="b")
    ctx2.system_prompt.section(PromptSection("rules", 1, "global"))
    ctx2.system_prompt.protect(sections=["rules"])
    with pytest.raises(ValueError):
        agent2.ctx.system_prompt.section(PromptSection("rules", 1, "scoped"))


@pytest.mark.parametrize(
    "order",
    [["a", "b"], [TOOL_ORDER_REST, TOOL_ORDER_REST], ["a", TOOL_ORDER_REST, "a"]],
    ids=["no-rest", "two-rests", "duplicate"],
)
def test_tool_order_shape_checked_at_construction(order: list[str]) -> None:
    with pytest.raises(ValueError):
        SystemPrompt(Context(), tool_order=order)
    with pytest.raises(ValueError):
        boot(tool_order=order)


async def test_tool_order_semantics() -> None:
    ctx = Context()
    prompt = SystemPrompt(ctx, tool_order=["c", TOOL_ORDER_REST, "a"])
    prompt.tools(provider("a", "b", "c", "d"))
    assembly = await prompt.assemble(AssembleContext())
    assert [t.name for t in assembly.tools] == ["c", "b", "d", "a"]


async def test_tool_order_unknown_name_raises_at_assemble() -> None:
    ctx = Context()
    prompt = SystemPrompt(ctx, tool_order=["zzz", TOOL_ORDER_REST])
    prompt.tools(provider("a"))
    with pytest.raises(ValueError, match="zzz"):
        await prompt.assemble(AssembleContext())


async def test_tool_order_known_but_restricted_away_is_fine() -> None:
    ctx = boot(tool_order=["b", TOOL_ORDER_REST])
    ctx.tools.register(Echo("a"))
    ctx.tools.register(Echo("b"))
    agent = Agent(ctx, name="x")
    agent.ctx.tools.restrict(deny=["b"])
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    assert [t.name for t in assembly.tools] == ["a"]
    plain = await ctx.system_prompt.assemble(AssembleContext())
    assert [t.name for t in plain.tools] == ["b", "a"]


async def test_provider_returning_rest_marker_raises() -> None:
    ctx = Context()
    prompt = SystemPrompt(ctx)
    prompt.tools(provider(TOOL_ORDER_REST))
    with pytest.raises(ValueError):
        await prompt.assemble(AssembleContext())


async def test_assemble_listener_signature_and_waterfall() -> None:
    ctx = boot()
    ctx.system_prompt.section(PromptSection("s", 1, "text"))
    calls: list[AssembleContext] = []

    async def listener(context: AssembleContext, assembly: PromptAssembly, next: NextT) -> PromptAssembly:
        calls.append(context)
        inner = await next()
        return PromptAssembly(sections=inner.sections + (AssembledSection("extra", 2, "added"),), tools=inner.tools)

    ctx.on("system-prompt/assemble", listener)
    assembly = await ctx.system_prompt.assemble(AssembleContext())
    assert [s.name for s in assembly.sections] == ["s", "extra"]
    assert len(calls) == 1


async def test_registry_feeds_its_schemas() -> None:
    ctx = boot()
    ctx.tools.register(Echo("a"))
    agent = Agent(ctx, name="x")
    agent.ctx.tools.register(Echo("mine"))
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    assert list(assembly.tools) == ctx.tools.schemas(agent)


async def test_protected_entries_restored_once_and_inventions_removed() -> None:
    ctx = boot()
    prompt = ctx.system_prompt
    prompt.section(PromptSection("keep", 1, "canonical"))
    prompt.section(PromptSection("free", 2, "free"))
    prompt.tools(provider("guarded", "loose"))
    prompt.protect(sections=["keep", "ghost"], tools=["guarded", "phantom"])

    async def vandal(context: AssembleContext, assembly: PromptAssembly, next: NextT) -> PromptAssembly:
        await next()
        return PromptAssembly(
            sections=(AssembledSection("keep", 1, "REPLACED"), AssembledSection("ghost", 5, "invented")),
            tools=(schema("phantom"),),
        )

    ctx.on("system-prompt/assemble", vandal)
    assembly = await prompt.assemble(AssembleContext())
    assert [(s.name, s.text) for s in assembly.sections] == [("keep", "canonical")]
    assert [t.name for t in assembly.tools] == ["guarded"]
    assert assembly.tools[0] == schema("guarded")
