"""Sections: ordering, lazy text, layers and shadowing, lifetimes, the service itself."""

from __future__ import annotations

import pytest

from dsh_tools.context.context import Agent, Context
from dsh_tools.context.services import SYSTEM_PROMPT
from dsh_tools.system_prompt import (
    AssembleContext,
    AssembledSection,
    PromptSection,
    SystemPrompt,
    render_prompt,
)


def booted() -> Context:
    ctx = Context()
    SystemPrompt(ctx)
    return ctx


async def names(ctx: Context, scope: Agent | None = None) -> list[str]:
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=scope))
    return [section.name for section in assembly.sections]


async def test_sections_come_in_ascending_order_ties_by_registration() -> None:
    ctx = booted()
    ctx.system_prompt.section(PromptSection("late", 300, "c"))
    ctx.system_prompt.section(PromptSection("tie-first", 100, "a"))
    ctx.system_prompt.section(PromptSection("early", -5, "z"))
    ctx.system_prompt.section(PromptSection("tie-second", 100, "b"))
    ctx.system_prompt.section(PromptSection("fraction", 100.5, "d"))
    assert await names(ctx) == ["early", "tie-first", "tie-second", "fraction", "late"]


async def test_assembled_sections_carry_name_order_and_evaluated_text() -> None:
    ctx = booted()
    seen: list[AssembleContext] = []

    def lazy(context: AssembleContext) -> str:
        seen.append(context)
        return f"for {context.scope.name if context.scope else 'everyone'}"

    ctx.system_prompt.section(PromptSection("lazy", 2, lazy))
    ctx.system_prompt.section(PromptSection("plain", 1, "fixed"))
    agent = Agent(ctx, name="alice")
    context = AssembleContext(scope=agent)
    assembly = await ctx.system_prompt.assemble(context)
    assert assembly.sections == (AssembledSection("plain", 1, "fixed"), AssembledSection("lazy", 2, "for alice"))
    assert seen == [context]
    again = await ctx.system_prompt.assemble()
    assert again.sections[1].text == "for everyone"
    assert len(seen) == 2  # lazy text is evaluated at each assembly


async def test_lazy_text_returning_non_str_is_a_type_error_naming_the_section() -> None:
    ctx = booted()
    ctx.system_prompt.section(PromptSection("broken", 1, lambda _: 42))  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match="'broken'"):
        await ctx.system_prompt.assemble()


def test_duplicate_global_section_name_is_a_value_error_pointing_at_agent_ctx() -> None:
    ctx = booted()
    ctx.system_prompt.section(PromptSection("rules", 1, "a"))
    with pytest.raises(ValueError, match=r"'rules'.*globally.*agent\.ctx"):
        ctx.system_prompt.section(PromptSection("rules", 2, "b"))
    # a fork of a plain context is the same (global) layer
    with pytest.raises(ValueError, match="'rules'"):
        ctx.fork().system_prompt.section(PromptSection("rules", 2, "b"))


def test_duplicate_scoped_section_name_is_a_value_error_naming_the_agent() -> None:
    ctx = booted()
    agent = Agent(ctx, name="bob")
    agent.ctx.system_prompt.section(PromptSection("persona", 1, "a"))
    with pytest.raises(ValueError, match=r"'persona'.*'bob'"):
        agent.ctx.fork().system_prompt.section(PromptSection("persona", 2, "b"))


async def test_scoped_section_shadows_global_for_that_scope_only() -> None:
    ctx = booted()
    ctx.system_prompt.section(PromptSection("persona", 10, "global persona"))
    ctx.system_prompt.section(PromptSection("rules", 20, "rules"))
    alice = Agent(ctx, name="alice")
    bob = Agent(ctx, name="bob")
    alice.ctx.system_prompt.section(PromptSection("persona", 30, "alice persona"))
    alice.ctx.system_prompt.section(PromptSection("own", 5, "alice only"))

    for_alice = await ctx.system_prompt.assemble(AssembleContext(scope=alice))
    assert [(s.name, s.text) for s in for_alice.sections] == [
        ("own", "alice only"),
        ("rules", "rules"),
        ("persona", "alice persona"),  # the shadow's own order applies
    ]
    assert render_prompt(await ctx.system_prompt.assemble(AssembleContext(scope=bob))) == "global persona\n\nrules"
    assert render_prompt(await ctx.system_prompt.assemble()) == "global persona\n\nrules"


async def test_assemble_defaults_to_the_calling_views_scope() -> None:
    ctx = booted()
    agent = Agent(ctx, name="alice")
    agent.ctx.system_prompt.section(PromptSection("own", 1, "mine"))
    assert await names(ctx) == []
    assert [s.name for s in (await agent.ctx.system_prompt.assemble()).sections] == ["own"]
    assert agent.ctx.system_prompt.scope is agent
    assert ctx.system_prompt.scope is None


async def test_disposer_removes_exactly_that_section_and_is_idempotent() -> None:
    ctx = booted()
    dispose = ctx.system_prompt.section(PromptSection("a", 1, "a"))
    ctx.system_prompt.section(PromptSection("b", 2, "b"))
    dispose()
    dispose()
    assert await names(ctx) == ["b"]
    ctx.system_prompt.section(PromptSection("a", 3, "again"))  # the name is free again
    dispose()  # an old disposer never removes the newer same-named section
    assert await names(ctx) == ["b", "a"]


async def test_disposing_agent_ctx_removes_its_sections_and_unshadows() -> None:
    ctx = booted()
    ctx.system_prompt.section(PromptSection("persona", 1, "global"))
    agent = Agent(ctx, name="alice")
    agent.ctx.system_prompt.section(PromptSection("persona", 1, "alice"))
    agent.ctx.system_prompt.section(PromptSection("extra", 2, "x"))
    await agent.dispose()
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    assert [(s.name, s.text) for s in assembly.sections] == [("persona", "global")]


async def test_disposing_a_fork_removes_its_sections() -> None:
    ctx = booted()
    fork = ctx.fork()
    fork.system_prompt.section(PromptSection("plugin", 1, "from plugin"))
    ctx.system_prompt.section(PromptSection("core", 2, "core"))
    assert await names(ctx) == ["plugin", "core"]
    await fork.dispose()
    assert await names(ctx) == ["core"]


def test_registering_through_a_disposed_context_fails_and_leaves_nothing() -> None:
    ctx = booted()
    fork = ctx.fork()
    view = fork.system_prompt
    fork._dispose_now()
    with pytest.raises(RuntimeError, match="disposed"):
        view.section(PromptSection("ghost", 1, "boo"))
    ctx.system_prompt.section(PromptSection("ghost", 1, "fine"))  # no leftover registration


def test_system_prompt_is_provided_and_views_bind_to_the_asking_context() -> None:
    ctx = Context()
    prompt = SystemPrompt(ctx)
    agent = Agent(ctx, name="alice")
    assert ctx.get(SYSTEM_PROMPT) is ctx.system_prompt  # cached per context
    assert agent.ctx.system_prompt is not ctx.system_prompt
    assert agent.ctx.system_prompt.scope is agent
    assert prompt.bind(agent.ctx).scope is agent


def test_a_second_system_prompt_on_one_root_is_refused() -> None:
    ctx = booted()
    with pytest.raises(ValueError, match="systemPrompt"):
        SystemPrompt(ctx.fork())


async def test_system_prompt_built_on_a_fork_is_withdrawn_with_it() -> None:
    root = Context()
    fork = root.fork()
    SystemPrompt(fork)
    root.system_prompt.section(PromptSection("a", 1, "a"))
    await fork.dispose()
    assert root.get(SYSTEM_PROMPT) is None
    with pytest.raises(RuntimeError, match="systemPrompt"):
        root.system_prompt  # noqa: B018
    SystemPrompt(root)  # the slot is free again, and the new prompt starts empty
    assert await names(root) == []


@pytest.mark.parametrize(
    ("section", "error", "match"),
    [
        (PromptSection("", 1, "x"), ValueError, "non-empty"),
        (PromptSection("n", "1", "x"), TypeError, "'n'.*order"),  # type: ignore[arg-type]
        (PromptSection("n", True, "x"), TypeError, "'n'.*order"),
        (PromptSection("n", float("nan"), "x"), ValueError, "'n'.*finite"),
        (PromptSection("n", 1, 3), TypeError, "'n'.*text"),  # type: ignore[arg-type]
    ],
)
def test_malformed_sections_are_refused_at_registration(
    section: PromptSection, error: type[Exception], match: str
) -> None:
    ctx = booted()
    with pytest.raises(error, match=match):
        ctx.system_prompt.section(section)


def test_section_requires_a_prompt_section() -> None:
    ctx = booted()
    with pytest.raises(TypeError, match="PromptSection"):
        ctx.system_prompt.section(("n", 1, "x"))  # type: ignore[arg-type]
