"""The pipeline as public stages: custom gate tuples, manual composition, a custom host."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import pytest
from returns.result import Failure, Result, Success

from dsh_tools.approval import ApprovalService
from dsh_tools.boot import boot
from dsh_tools.content import ContentBlock, text_block
from dsh_tools.decisions import Allow, Ask, Deny
from dsh_tools.execution import ToolExecution, ToolExecutionInput, ToolExecutionResult, ToolExecutionToken
from dsh_tools.hooks import PreNext
from dsh_tools.context.context import Agent, Context
from dsh_tools.context.events import EventBus
from dsh_tools.pipeline import (
    STANDARD_GATES,
    Gate,
    Guard,
    PipelineHost,
    Settled,
    admit,
    check_guards,
    decide,
    dispatch,
    error_result,
    execute_call,
    finalize,
    notify_result,
    pass_gates,
    post_execute,
    pre_execute,
    run_pre_execute,
    run_tool,
)
from dsh_tools.registry.snapshot import snapshot
from dsh_tools.tool_types import RegisteredTool
from pipeline_support import texts


class Tool:
    def __init__(self, name: str) -> None:
        self.name = name
        self.description = f"the {name} tool"
        self.parameters: dict[str, Any] = {"type": "object"}
        self.runs = 0

    async def execute(self, args: Any, exec: ToolExecution) -> Sequence[ContentBlock]:
        self.runs += 1
        return [text_block(f"{self.name} ran")]


async def deny_rm(host: PipelineHost, execution: ToolExecution) -> Result[ToolExecution, Settled]:
    """An extra gate: refuse one tool by name, whatever the listeners say."""
    if execution.name == "rm":
        return Failure(Settled(execution, error_result(execution.call_id, "rm is never allowed here")))
    return Success(execution)


@pytest.fixture
def ctx() -> Context:
    return boot(mode="native", timeouts=False)


def test_standard_gates_are_pre_execute_then_guards() -> None:
    assert STANDARD_GATES == (pre_execute, check_guards)


async def test_custom_gate_tuple_with_an_extra_gate(ctx: Context) -> None:
    rm, ls = Tool("rm"), Tool("ls")
    ctx.tools.register(rm)
    ctx.tools.register(ls)
    seen: list[ToolExecutionResult] = []
    ctx.on("tools/result", lambda e, r: seen.append(r))
    gates: tuple[Gate, ...] = (deny_rm, *STANDARD_GATES)
    denied = await execute_call(ctx.tools, ToolExecutionInput("c1", "rm", {}), gates=gates)
    allowed = await execute_call(ctx.tools, ToolExecutionInput("c2", "ls", {}), gates=gates)
    assert denied.is_error and texts(denied) == ["Error: rm is never allowed here"]
    assert not allowed.is_error and texts(allowed) == ["ls ran"]
    assert rm.runs == 0 and ls.runs == 1
    assert seen == [denied, allowed]
    # the standard pipeline is unaffected
    assert not (await ctx.tools.execute(ToolExecutionInput("c3", "rm", {}))).is_error


async def test_custom_gate_runs_in_tuple_position(ctx: Context) -> None:
    ctx.tools.register(Tool("rm"))
    order: list[str] = []

    def pre(execution: ToolExecution, next: PreNext) -> Deny:
        order.append("pre")
        return Deny("listener")

    ctx.on("tools/pre-execute", pre)
    first = await execute_call(ctx.tools, ToolExecutionInput("c1", "rm", {}), gates=(deny_rm, pre_execute))
    assert texts(first) == ["Error: rm is never allowed here"] and order == []
    last = await execute_call(ctx.tools, ToolExecutionInput("c1", "rm", {}), gates=(pre_execute, deny_rm))
    assert texts(last) == ["Error: listener"] and order == ["pre"]


async def test_a_pipeline_without_pre_execute_or_approval(ctx: Context) -> None:
    tool = Tool("t")
    ctx.tools.register(tool)
    ctx.on("tools/pre-execute", lambda e, next: Ask("would ask"))
    ctx.tools.guard(lambda e: "guarded" if e.agent is not None else None)
    result = await execute_call(ctx.tools, ToolExecutionInput("c1", "t", {}), gates=(check_guards,))
    assert not result.is_error and tool.runs == 1
    agent = Agent(ctx, name="a")
    guarded = await execute_call(ctx.tools, ToolExecutionInput("c1", "t", {}, agent=agent), gates=(check_guards,))
    assert texts(guarded) == ["Error: guarded"]
    none = await execute_call(ctx.tools, ToolExecutionInput("c1", "t", {}), gates=())
    assert not none.is_error


async def test_invalid_input_is_settled_before_any_custom_gate(ctx: Context) -> None:
    calls: list[str] = []

    async def spy(host: PipelineHost, execution: ToolExecution) -> Result[ToolExecution, Settled]:
        calls.append(execution.name)
        return Success(execution)

    result = await execute_call(ctx.tools, ToolExecutionInput("c1", "t", {float("nan")}), gates=(spy,))  # type: ignore[arg-type]
    assert result.is_error and calls == []


async def test_manual_composition_from_the_stages(ctx: Context) -> None:
    ctx.tools.register(Tool("t"))
    host = ctx.tools
    admitted = admit(host, ToolExecutionInput("c1", "t", {"a": 1}))
    assert isinstance(admitted, Success)
    execution = admitted.unwrap()
    assert execution.arguments == admit(host, ToolExecutionInput("c1", "t", {"a": 1})).unwrap().arguments
    decision = await run_pre_execute(host, execution)
    assert decision == Success(Allow())
    assert isinstance(await decide(host, execution, Deny("no")), Failure)
    gated = await pass_gates(host, admitted, STANDARD_GATES)
    assert isinstance(gated, Success)
    raw = await dispatch(host, execution)
    assert texts(raw) == ["t ran"]
    after = await post_execute(host, execution, raw)
    assert after == raw
    settled = await run_tool(host, execution)
    final = await notify_result(host, finalize(settled))
    assert texts(final) == ["t ran"] and final.call_id == "c1"


async def test_finalize_turns_a_malformed_result_into_an_error(ctx: Context) -> None:
    execution = admit(ctx.tools, ToolExecutionInput("c1", "t", {})).unwrap()
    bogus = ToolExecutionResult("other-call", [text_block("x")], False)
    fixed = finalize(Settled(execution, bogus))
    assert fixed.result.is_error and fixed.result.call_id == "c1"


class MiniHost:
    """A ``PipelineHost`` that is not a ``ToolRegistry``: a dict of tools, no approval."""

    def __init__(self, *tools: RegisteredTool) -> None:
        self._events = EventBus()
        self._logger = logging.getLogger("dsh_tools.test.minihost")
        self._tools = {tool.name: tool for tool in tools}
        self._tokens: set[int] = set()
        self._keep: list[ToolExecutionToken] = []
        self.guards: list[Guard] = []

    @property
    def events(self) -> EventBus:
        return self._events

    @property
    def logger(self) -> logging.Logger:
        return self._logger

    def resolve(self, name: str, agent: Agent | None) -> RegisteredTool | None:
        return self._tools.get(name)

    def guards_for(self, agent: Agent | None) -> Sequence[Guard]:
        return self.guards

    def approval(self) -> ApprovalService | None:
        return None

    def mint_token(self) -> ToolExecutionToken:
        from dsh_tools.execution import mint_token

        token = mint_token()
        self._keep.append(token)
        self._tokens.add(id(token))
        return token

    def issued(self, token: object) -> bool:
        return type(token) is ToolExecutionToken and id(token) in self._tokens


async def test_stages_run_on_a_custom_host() -> None:
    tool = Tool("t")
    host = MiniHost(snapshot(tool))
    host.events.add("tools/pre-execute", lambda e, next: Ask("no approver"), None, prepend=False)
    asked = await execute_call(host, ToolExecutionInput("c1", "t", {}))
    assert texts(asked) == ["Error: no approver"] and tool.runs == 0
    ok = await execute_call(host, ToolExecutionInput("c2", "t", {}), gates=(check_guards,))
    assert texts(ok) == ["t ran"]
    missing = await execute_call(host, ToolExecutionInput("c3", "zz", {}), gates=())
    assert missing.is_error and missing.error is not None and missing.error.code == "UNKNOWN_TOOL"
