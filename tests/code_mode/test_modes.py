"""Registry modes: what native, code and both contribute, and what Code Mode protects."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_tools import (
    CODE_RUNTIME,
    Agent,
    AssembleContext,
    AssembleNext,
    ContentBlock,
    Context,
    PromptAssembly,
    PromptSection,
    ToolExecution,
    boot,
    thaw_json,
)
from dsh_tools.testing import ScriptedCodeRuntime


class Tool:
    description = "A tool."
    parameters = {"type": "object", "properties": {"q": {"type": "string"}}}

    def __init__(self, name: str) -> None:
        self.name = name

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return []


def make(mode: str, *names: str, runtime: object | None = None, tool_order: list[str] | None = None) -> Context:
    ctx = boot(mode=mode, tool_order=tool_order, code_runtime=runtime if runtime is not None else ScriptedCodeRuntime())  # type: ignore[arg-type]
    for name in names:
        ctx.tools.register(Tool(name))
    return ctx


async def test_native_contributes_visible_tools_and_no_transport_or_sdk() -> None:
    ctx = make("native", "b", "a")
    assembly = await ctx.system_prompt.assemble(AssembleContext())
    assert [t.name for t in assembly.tools] == ["a", "b"]  # assembled in code-point order (visible() keeps registration order)
    assert assembly.sections == ()
    assert ctx.tools.get("run_code") is None
    ctx.tools.register(Tool("run_code"))  # an ordinary name in native mode
    assert ctx.tools.get("run_code") is not None


@pytest.mark.parametrize(("mode", "wire"), [("code", ["run_code"]), ("both", ["a", "b", "run_code"])])
async def test_code_modes_contribute_transport_and_sdk(mode: str, wire: list[str]) -> None:
    ctx = make(mode, "b", "a")
    assembly = await ctx.system_prompt.assemble(AssembleContext())
    assert [t.name for t in assembly.tools] == wire
    (section,) = assembly.sections
    assert (section.name, section.order) == ("tools:sdk", 150)
    assert section.text.index("a(args:") < section.text.index("b(args:"), "lexicographic"
    assert [t.name for t in ctx.tools.visible()] == ["b", "a", "run_code"]
    assert ctx.tools.schemas()[-1].name == "run_code"
    transport = ctx.tools.get("run_code")
    assert transport is not None and transport is ctx.tools.visible()[-1]
    assert thaw_json(transport.parameters)["required"] == ["code"]  # type: ignore[index]


async def test_the_sdk_is_per_scope_and_byte_identical_while_unchanged() -> None:
    ctx = make("code", "shared", "secret")
    agent = Agent(ctx, name="a")
    agent.ctx.tools.register(Tool("mine"))
    agent.ctx.tools.restrict(deny=["secret"])
    mine = (await ctx.system_prompt.assemble(AssembleContext(scope=agent))).sections[0].text
    everyone = (await ctx.system_prompt.assemble(AssembleContext())).sections[0].text
    assert "mine(args:" in mine and "secret(" not in mine
    assert "mine(" not in everyone and "secret(args:" in everyone
    again = (await ctx.system_prompt.assemble(AssembleContext(scope=agent))).sections[0].text
    assert again == mine
    agent.ctx.tools.register(Tool("later"))
    changed = (await ctx.system_prompt.assemble(AssembleContext(scope=agent))).sections[0].text
    assert "later(args:" in changed


@pytest.mark.parametrize("mode", ["code", "both"])
async def test_listeners_cannot_remove_the_transport_or_the_sdk(mode: str) -> None:
    ctx = make(mode, "a")

    async def strip(context: AssembleContext, assembly: PromptAssembly, next: AssembleNext) -> PromptAssembly:
        await next()
        return PromptAssembly(sections=(), tools=())

    ctx.on("system-prompt/assemble", strip)
    assembly = await ctx.system_prompt.assemble(AssembleContext())
    assert [t.name for t in assembly.tools] == ["run_code"]
    assert [s.name for s in assembly.sections] == ["tools:sdk"]


@pytest.mark.parametrize("mode", ["code", "both"])
def test_run_code_cannot_be_registered_shadowed_or_restricted(mode: str) -> None:
    ctx = make(mode, "a")
    agent = Agent(ctx, name="a")
    with pytest.raises(ValueError, match="run_code"):
        ctx.tools.register(Tool("run_code"))
    with pytest.raises(ValueError, match="run_code"):
        agent.ctx.tools.register(Tool("run_code"))
    with pytest.raises(ValueError, match="run_code"):
        agent.ctx.tools.restrict(deny=["run_code"])
    with pytest.raises(ValueError, match="run_code"):
        agent.ctx.tools.restrict(allow=["a", "run_code"])
    agent.ctx.tools.restrict(allow=[])
    assert [t.name for t in ctx.tools.visible(agent)] == ["run_code"]


def test_a_scoped_section_cannot_shadow_the_sdk() -> None:
    ctx = make("code", "a")
    agent = Agent(ctx, name="a")
    with pytest.raises(ValueError, match="tools:sdk"):
        agent.ctx.system_prompt.section(PromptSection("tools:sdk", 150, "mine"))


@pytest.mark.parametrize("mode", ["code", "both"])
async def test_assembly_needs_a_typescript_runtime(mode: str) -> None:
    ctx = boot(mode=mode)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="CODE_RUNTIME"):
        await ctx.system_prompt.assemble(AssembleContext())
    ctx.provide(CODE_RUNTIME, ScriptedCodeRuntime(language="python"))
    with pytest.raises(RuntimeError, match="'python'"):
        await ctx.system_prompt.assemble(AssembleContext())


async def test_tool_order_naming_tools_code_mode_no_longer_sends_is_rejected() -> None:
    ctx = make("code", "a", tool_order=["a", "<unlisted-tools>"])
    with pytest.raises(ValueError, match="a"):
        await ctx.system_prompt.assemble(AssembleContext())
    both = make("both", "a", tool_order=["run_code", "<unlisted-tools>"])
    assembly = await both.system_prompt.assemble(AssembleContext())
    assert [t.name for t in assembly.tools] == ["run_code", "a"]


async def test_disposing_the_registry_context_takes_code_mode_with_it() -> None:
    root = Context()
    from dsh_tools import SystemPrompt, ToolRegistry

    SystemPrompt(root)
    fork = root.fork()
    ToolRegistry(fork, mode="code")
    fork.provide(CODE_RUNTIME, ScriptedCodeRuntime())
    assert [s.name for s in (await root.system_prompt.assemble(AssembleContext())).sections] == ["tools:sdk"]
    await fork.dispose()
    assembly = await root.system_prompt.assemble(AssembleContext())
    assert assembly.sections == () and assembly.tools == ()
