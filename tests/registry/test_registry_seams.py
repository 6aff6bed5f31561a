"""The registry's plugin seams: ``serve`` (a tool beside the layers) and ``add_gate`` (a check before dispatch).

Code Mode plugs in through both; these tests hold the seams themselves, with a plugin of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from returns.result import Failure, Result, Success

from dsh_tools.boot import boot
from dsh_tools.content import ContentBlock, text_block
from dsh_tools.context.context import Agent, Context
from dsh_tools.errors import ToolNotFoundError
from dsh_tools.execution import ToolExecution, ToolExecutionInput, ToolExecutionResult
from dsh_tools.pipeline.compose import STANDARD_GATES
from dsh_tools.pipeline.host import PipelineHost
from dsh_tools.pipeline.outcomes import Settled, exception_result
from dsh_tools.registry.snapshot import snapshot
from dsh_tools.tool_types import RegisteredTool


class Tool:
    def __init__(self, name: str, text: str) -> None:
        self.name, self.text = name, text
        self.description = f"the {name} tool"
        self.parameters: dict[str, Any] = {"type": "object", "properties": {}}

    async def execute(self, args: Any, exec: ToolExecution) -> Sequence[ContentBlock]:
        return [text_block(self.text)]


async def run(ctx: Context, name: str, agent: Agent | None = None) -> ToolExecutionResult:
    return await ctx.tools.execute(ToolExecutionInput("c1", name, {}, agent=agent))


def text(result: ToolExecutionResult) -> str:
    return " ".join(str(block.get("text")) for block in result.content)


@pytest.fixture
def ctx() -> Context:
    return boot(mode="native", timeouts=False)


async def test_a_served_tool_is_visible_resolved_and_reserved_only_where_it_is_served(ctx: Context) -> None:
    helper = snapshot(Tool("helper", "served"))
    chosen = Agent(ctx, name="chosen")
    other = Agent(ctx, name="other")
    plugin = ctx.fork()

    def served(agent: Agent | None) -> RegisteredTool | None:
        return helper if agent is chosen else None

    plugin.tools.serve("helper", served, '"helper" is the plugin\'s')
    assert [tool.name for tool in ctx.tools.visible(chosen)] == ["helper"]
    assert ctx.tools.visible(other) == [] and ctx.tools.visible() == []
    assert text(await run(ctx, "helper", chosen)) == "served"
    assert (await run(ctx, "helper", other)).error is not None  # not served there: unknown
    with pytest.raises(ValueError, match="already served"):
        plugin.tools.serve("helper", served, "again")
    with pytest.raises(ValueError, match="\"helper\" is the plugin's"):
        chosen.ctx.tools.register(Tool("helper", "own"))
    with pytest.raises(ValueError, match="\"helper\" is the plugin's and cannot be restricted"):
        chosen.ctx.tools.restrict(deny=["helper"])
    other.ctx.tools.register(Tool("helper", "own"))  # where it is not served, the name is free
    assert text(await run(ctx, "helper", other)) == "own"

    await plugin.dispose()  # the seam is undone with the plugin's context
    assert ctx.tools.visible(chosen) == []
    chosen.ctx.tools.register(Tool("helper", "own"))
    assert text(await run(ctx, "helper", chosen)) == "own"


async def test_an_added_gate_runs_before_the_standard_gates_and_goes_with_its_context(ctx: Context) -> None:
    ctx.tools.register(Tool("a", "ran"))
    seen: list[str] = []

    async def refuse_a(host: PipelineHost, execution: ToolExecution) -> Result[ToolExecution, Settled]:
        seen.append(execution.name)
        if execution.name == "a":
            refused = exception_result(execution.call_id, ToolNotFoundError("a", "a is gated"))
            return Failure(Settled(execution, refused))
        return Success(execution)

    plugin = ctx.fork()
    assert ctx.tools.gates == STANDARD_GATES
    plugin.tools.add_gate(refuse_a)
    assert ctx.tools.gates == (refuse_a, *STANDARD_GATES)
    refused = await run(ctx, "a")
    assert refused.error is not None and refused.error.code == "UNKNOWN_TOOL" and "a is gated" in text(refused)
    assert seen == ["a"]
    assert (await run(ctx, "missing")).error is not None and seen == ["a", "missing"]  # before the unknown-tool gate

    await plugin.dispose()
    assert ctx.tools.gates == STANDARD_GATES
    assert text(await run(ctx, "a")) == "ran" and seen == ["a", "missing"]
