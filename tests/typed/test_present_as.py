"""Per-agent presentation: ``agent.ctx.tools.present_as(mode)``."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_tools import (
    Agent,
    AssembleContext,
    ContentBlock,
    Context,
    PreNext,
    PreToolDecision,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    ToolMode,
    boot,
    text_block,
)
from dsh_tools.code_mode.runtime import CodeRunRequest, CodeRunResult
from dsh_tools.testing import Bindings, ScriptedCodeRuntime

ROUTE_BACK = "Error: only `run_code` is callable directly; call `{}` from inside a run_code program instead"


class Tool:
    description = "A tool."
    parameters = {"type": "object", "properties": {}}

    def __init__(self, name: str) -> None:
        self.name = name
        self.runs = 0

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        self.runs += 1
        return [text_block(f"{self.name} ran")]


def make(mode: ToolMode = "native", programs: Any = None) -> tuple[Context, Agent, Agent, Tool]:
    ctx = boot(mode=mode, code_runtime=ScriptedCodeRuntime(programs))
    tool = Tool("read")
    ctx.tools.register(tool)
    return ctx, Agent(ctx, name="coder"), Agent(ctx, name="chatter"), tool


async def wire_and_sections(ctx: Context, agent: Agent | None) -> tuple[list[str], list[str]]:
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    return [tool.name for tool in assembly.tools], [s.name for s in assembly.sections if s.text]


async def test_an_agent_in_a_native_registry_can_present_as_code() -> None:
    ctx, coder, chatter, _ = make("native")
    coder.ctx.tools.present_as("code")
    assert await wire_and_sections(ctx, coder) == (["run_code"], ["tools:sdk"])
    assert await wire_and_sections(ctx, chatter) == (["read"], [])
    assert await wire_and_sections(ctx, None) == (["read"], [])
    assert coder.ctx.tools.mode == "code" and chatter.ctx.tools.mode == "native" and ctx.tools.mode == "native"
    assert [t.name for t in ctx.tools.visible(coder)] == ["read", "run_code"]
    assert ctx.tools.get("run_code", chatter) is None and ctx.tools.get("run_code", coder) is not None


async def test_an_agent_in_a_code_registry_can_present_as_native() -> None:
    ctx, coder, chatter, tool = make("code")
    chatter.ctx.tools.present_as("native")
    assert await wire_and_sections(ctx, chatter) == (["read"], [])
    assert await wire_and_sections(ctx, coder) == (["run_code"], ["tools:sdk"])
    direct = await ctx.tools.execute(ToolExecutionInput("c1", "read", {}, agent=chatter))
    assert direct.text == "read ran"
    no_transport = await ctx.tools.execute(ToolExecutionInput("c2", "run_code", {"code": "x"}, agent=chatter))
    assert no_transport.error is not None and no_transport.error.code == "UNKNOWN_TOOL"
    assert no_transport.text == 'Error: unknown tool "run_code"'


async def test_both_keeps_direct_calls_and_adds_the_transport() -> None:
    ctx, coder, _, tool = make("native")
    coder.ctx.tools.present_as("both")
    assert await wire_and_sections(ctx, coder) == (["read", "run_code"], ["tools:sdk"])
    result = await ctx.tools.execute(ToolExecutionInput("c1", "read", {}, agent=coder))
    assert result.text == "read ran" and tool.runs == 1


@pytest.mark.parametrize("name", ["read", "no_such_tool"])
async def test_a_code_agents_direct_call_settles_unknown_tool_before_policy(name: str) -> None:
    ctx, coder, _, tool = make("native")
    coder.ctx.tools.present_as("code")
    policy: list[str] = []
    observed: list[ToolExecutionResult] = []
    async def pre(execution: ToolExecution, next_: PreNext) -> PreToolDecision:
        policy.append(execution.name)
        return await next_()

    ctx.on("tools/pre-execute", pre)
    ctx.on("tools/result", lambda execution, result: observed.append(result))
    result = await ctx.tools.execute(ToolExecutionInput("c1", name, {}, agent=coder))
    assert result.is_error and result.text == ROUTE_BACK.format(name)
    assert result.error is not None and (result.error.name, result.error.code) == ("ToolNotFoundError", "UNKNOWN_TOOL")
    assert policy == [] and tool.runs == 0 and observed == [result]


async def test_a_code_registry_refuses_agent_less_direct_calls_too() -> None:
    ctx, _, _, tool = make("code")
    result = await ctx.tools.execute(ToolExecutionInput("c1", "read", {}))
    assert result.text == ROUTE_BACK.format("read") and tool.runs == 0


async def test_sub_calls_of_a_code_agent_are_unaffected() -> None:
    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        return CodeRunResult(logs=(), value=await tools["read"]({}))

    ctx, coder, _, tool = make("native", {"p": program})
    coder.ctx.tools.present_as("code")
    result = await ctx.tools.execute(ToolExecutionInput("outer", "run_code", {"code": "p"}, agent=coder))
    assert not result.is_error and result.text == "read ran" and tool.runs == 1


async def test_present_as_from_a_plain_context_or_twice_is_a_runtime_error() -> None:
    ctx, coder, _, _ = make()
    with pytest.raises(RuntimeError, match="agent.ctx.tools"):
        ctx.tools.present_as("code")
    coder.ctx.tools.present_as("code")
    with pytest.raises(RuntimeError, match="already presents its tools as 'code'"):
        coder.ctx.tools.present_as("both")
    with pytest.raises(RuntimeError, match="already presents"):
        coder.ctx.fork().tools.present_as("native")  # a fork keeps the scope


async def test_disposing_present_as_restores_the_registry_mode_and_announces_it() -> None:
    ctx, coder, _, _ = make()
    changes: list[None] = []
    ctx.on("tools/change", lambda: changes.append(None))
    dispose = coder.ctx.tools.present_as("code")
    assert len(changes) == 1
    dispose()
    assert len(changes) == 2 and coder.ctx.tools.mode == "native"
    assert await wire_and_sections(ctx, coder) == (["read"], [])
    coder.ctx.tools.present_as("both")  # allowed again
    assert ctx.tools.mode_for(coder) == "both"


async def test_disposing_the_agent_takes_its_mode_with_it() -> None:
    ctx, coder, _, _ = make()
    coder.ctx.tools.present_as("code")
    await coder.dispose()
    assert ctx.tools.mode_for(coder) == "native"


def test_an_unknown_mode_is_a_value_error() -> None:
    _, coder, _, _ = make()
    with pytest.raises(ValueError, match="mode must be one of"):
        coder.ctx.tools.present_as("wire")  # type: ignore[arg-type]


def test_a_tool_named_run_code_blocks_a_code_presentation() -> None:
    _, coder, _, _ = make()
    coder.ctx.tools.register(Tool("run_code"))
    with pytest.raises(ValueError, match="reserved Code Mode transport"):
        coder.ctx.tools.present_as("code")
    assert coder.ctx.tools.mode == "native"


def test_a_code_agent_cannot_register_run_code() -> None:
    _, coder, _, _ = make()
    coder.ctx.tools.present_as("code")
    with pytest.raises(ValueError, match="reserved Code Mode transport"):
        coder.ctx.tools.register(Tool("run_code"))


async def test_a_code_agent_without_a_runtime_gets_the_actionable_error() -> None:
    ctx = boot()
    ctx.tools.register(Tool("read"))
    coder = Agent(ctx, name="coder")
    coder.ctx.tools.present_as("code")
    with pytest.raises(RuntimeError, match="needs a TypeScript code runtime"):
        await ctx.system_prompt.assemble(AssembleContext(scope=coder))
    assert await wire_and_sections(ctx, None) == (["read"], [])  # the native scopes still assemble
