"""Stage order, waterfall composition, listener scoping, Deny/Ask/approval, guards."""

from __future__ import annotations

import gc
import warnings
from collections.abc import Sequence
from typing import Any

import pytest

from dsh_tools.approval import ApprovalOutcome, ApprovalRequest
from dsh_tools.boot import boot
from dsh_tools.content import ContentBlock, text_block
from dsh_tools.decisions import Accept, Allow, Ask, Deny, PostToolDecision, PreToolDecision
from dsh_tools.execution import ToolExecution, ToolExecutionInput, ToolExecutionResult
from dsh_tools.hooks import ExecuteNext, PostNext, PreNext
from dsh_tools.context.context import Agent, Context
from dsh_tools.context.services import APPROVAL
from dsh_tools.signals import AbortController, AbortSignal
from pipeline_support import Results, texts


class Tool:
    def __init__(self, name: str, log: list[str] | None = None) -> None:
        self.name = name
        self.description = f"the {name} tool"
        self.parameters: dict[str, Any] = {"type": "object"}
        self.log = log
        self.runs = 0

    async def execute(self, args: Any, exec: ToolExecution) -> Sequence[ContentBlock]:
        self.runs += 1
        if self.log is not None:
            self.log.append("body")
        return [text_block(f"{self.name} ran")]


class Approver:
    def __init__(self, outcome: Any, log: list[str] | None = None) -> None:
        self.outcome = outcome
        self.requests: list[ApprovalRequest] = []
        self.log = log

    async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome:
        self.requests.append(request)
        if self.log is not None:
            self.log.append("approval")
        outcome: ApprovalOutcome = self.outcome
        return outcome


def call(name: str = "t", agent: Agent | None = None, signal: AbortSignal | None = None) -> ToolExecutionInput:
    return ToolExecutionInput("call-1", name, {"x": 1}, agent=agent, signal=signal)


@pytest.fixture
def ctx() -> Context:
    return boot(mode="native", timeouts=False)


@pytest.fixture
def tool(ctx: Context) -> Tool:
    t = Tool("t")
    ctx.tools.register(t)
    return t


# -- order -----------------------------------------------------------------------


async def test_every_stage_runs_in_order(ctx: Context) -> None:
    log: list[str] = []
    ctx.tools.register(Tool("t", log))
    agent = Agent(ctx, name="a")
    ctx.provide(APPROVAL, Approver("allowed-once", log))

    async def pre(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        log.append("pre")
        assert type(await next()) is Allow
        return Ask("please")

    def guard(execution: ToolExecution) -> str | None:
        log.append("guard")
        return None

    async def around(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        log.append("execute:before")
        result = await next()
        log.append("execute:after")
        return result

    async def post(execution: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        log.append("post")
        return await next()

    def observe(execution: ToolExecution, result: ToolExecutionResult) -> None:
        log.append("result")

    ctx.on("tools/result", observe)
    ctx.on("tools/post-execute", post)
    ctx.on("tools/execute", around)
    ctx.tools.guard(guard)
    ctx.on("tools/pre-execute", pre)
    result = await ctx.tools.execute(call(agent=agent))
    assert not result.is_error
    assert log == ["pre", "approval", "guard", "execute:before", "body", "execute:after", "post", "result"]


@pytest.mark.parametrize("event", ["tools/pre-execute", "tools/execute", "tools/post-execute"])
async def test_waterfall_first_registered_outermost_and_prepend(ctx: Context, tool: Tool, event: str) -> None:
    log: list[str] = []

    def make(label: str) -> Any:
        async def listener(*args: Any) -> Any:
            log.append(f"{label}>")
            value = await args[-1]()
            log.append(f"<{label}")
            return value

        return listener

    ctx.on_event(event, make("first"))
    ctx.on_event(event, make("second"))
    ctx.on_event(event, make("prepended"), prepend=True)
    ctx.on_event(event, make("third"))
    result = await ctx.tools.execute(call())
    assert not result.is_error
    assert log == [
        "prepended>", "first>", "second>", "third>",
        "<third", "<second", "<first", "<prepended",
    ]  # fmt: skip


async def test_sync_listeners_are_accepted(ctx: Context, tool: Tool) -> None:
    ctx.on("tools/pre-execute", lambda execution, next: Allow())
    ctx.on("tools/post-execute", lambda execution, result, next: Accept(content=[text_block("sync")]))
    result = await ctx.tools.execute(call())
    assert texts(result) == ["sync"] and tool.runs == 1


async def test_scoped_listeners_fire_only_for_their_agent(ctx: Context, tool: Tool) -> None:
    a = Agent(ctx, name="a")
    b = Agent(ctx, name="b")
    heard: dict[str, list[str]] = {"plain": [], "a": [], "b": []}

    def listen(label: str) -> Any:
        def pre(execution: ToolExecution, next: PreNext) -> Any:
            heard[label].append(execution.agent.name if execution.agent else "-")
            return next()

        return pre

    ctx.on("tools/pre-execute", listen("plain"))
    a.ctx.on("tools/pre-execute", listen("a"))
    b.ctx.fork().on("tools/pre-execute", listen("b"))
    observed: dict[str, int] = {"plain": 0, "a": 0}
    ctx.on("tools/result", lambda e, r: observed.__setitem__("plain", observed["plain"] + 1))
    a.ctx.on("tools/result", lambda e, r: observed.__setitem__("a", observed["a"] + 1))
    await ctx.tools.execute(call(agent=a))
    await ctx.tools.execute(call(agent=b))
    await ctx.tools.execute(call())
    assert heard == {"plain": ["a", "b", "-"], "a": ["a"], "b": ["b"]}
    assert observed == {"plain": 3, "a": 1}


async def test_scoped_deny_listener_does_not_affect_other_agents(ctx: Context, tool: Tool) -> None:
    a = Agent(ctx, name="a")
    b = Agent(ctx, name="b")
    a.ctx.on("tools/pre-execute", lambda execution, next: Deny("not for a"))
    assert texts(await ctx.tools.execute(call(agent=a))) == ["Error: not for a"]
    assert not (await ctx.tools.execute(call(agent=b))).is_error
    assert not (await ctx.tools.execute(call())).is_error
    await a.dispose()
    assert not (await ctx.tools.execute(call(agent=a))).is_error


# -- deny / ask ---------------------------------------------------------------------


async def test_deny_skips_the_body_with_the_reason(ctx: Context, tool: Tool) -> None:
    results = Results(ctx)
    ctx.on("tools/pre-execute", lambda execution, next: Deny("sandbox says no"))
    result = await ctx.tools.execute(call())
    assert result.is_error
    assert texts(result) == ["Error: sandbox says no"]
    assert result.call_id == "call-1"
    assert tool.runs == 0
    assert [r for _, r in results.seen] == [result]


async def test_an_outer_listener_can_override_an_inner_deny(ctx: Context, tool: Tool) -> None:
    ctx.on("tools/pre-execute", lambda execution, next: Allow())  # outermost, never calls next
    ctx.on("tools/pre-execute", lambda execution, next: Deny("inner"))
    assert not (await ctx.tools.execute(call())).is_error


def ask_listener(reason: str | None) -> Any:
    return lambda execution, next: Ask(reason)


async def test_ask_without_service_denies_with_the_ask_reason(ctx: Context, tool: Tool) -> None:
    ctx.on("tools/pre-execute", ask_listener("rm -rf needs a human"))
    agent = Agent(ctx, name="a")
    result = await ctx.tools.execute(call(agent=agent))
    assert texts(result) == ["Error: rm -rf needs a human"] and result.is_error
    assert tool.runs == 0


@pytest.mark.parametrize("with_agent", [True, False])
async def test_ask_without_service_or_reason_uses_the_no_service_text(
    ctx: Context, tool: Tool, with_agent: bool
) -> None:
    ctx.on("tools/pre-execute", ask_listener(None))
    agent = Agent(ctx, name="a") if with_agent else None
    result = await ctx.tools.execute(call(agent=agent))
    assert texts(result) == ['Error: tool "t" needs approval, and no approval service is mounted']
    assert tool.runs == 0


async def test_ask_with_service_but_no_agent(ctx: Context, tool: Tool) -> None:
    approver = Approver("allowed-once")
    ctx.provide(APPROVAL, approver)
    ctx.on("tools/pre-execute", ask_listener("why"))
    result = await ctx.tools.execute(call())
    assert texts(result) == ['Error: tool "t" needs approval, but the call has no agent']
    assert approver.requests == []
    assert tool.runs == 0


@pytest.mark.parametrize(
    ("outcome", "text"),
    [
        ("rejected", 'the user rejected tool "t"'),
        ("cancelled", 'approval for tool "t" was cancelled'),
        ("unavailable", 'tool "t" needs approval, but no one is available to answer'),
    ],
)
async def test_ask_outcomes_deny_with_their_texts(ctx: Context, tool: Tool, outcome: str, text: str) -> None:
    ctx.provide(APPROVAL, Approver(outcome))
    ctx.on("tools/pre-execute", ask_listener("why"))
    result = await ctx.tools.execute(call(agent=Agent(ctx, name="a")))
    assert result.is_error and texts(result) == [f"Error: {text}"]
    assert tool.runs == 0


@pytest.mark.parametrize("outcome", ["allowed", "ALLOWED-ONCE", None, True, 1, ["allowed-once"]])
async def test_unknown_approval_outcomes_fail_closed(ctx: Context, tool: Tool, outcome: Any) -> None:
    results = Results(ctx)
    ctx.provide(APPROVAL, Approver(outcome))
    ctx.on("tools/pre-execute", ask_listener(None))
    result = await ctx.tools.execute(call(agent=Agent(ctx, name="a")))
    assert result.is_error
    assert tool.runs == 0
    assert len(results.seen) == 1


async def test_str_subclass_outcome_fails_closed(ctx: Context, tool: Tool) -> None:
    class Sneaky(str):
        pass

    ctx.provide(APPROVAL, Approver(Sneaky("allowed-once")))
    ctx.on("tools/pre-execute", ask_listener(None))
    result = await ctx.tools.execute(call(agent=Agent(ctx, name="a")))
    assert result.is_error and tool.runs == 0


async def test_raising_approval_service_fails_closed(ctx: Context, tool: Tool) -> None:
    class Broken:
        async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome:
            raise RuntimeError("approver crashed")

    ctx.provide(APPROVAL, Broken())
    ctx.on("tools/pre-execute", ask_listener(None))
    result = await ctx.tools.execute(call(agent=Agent(ctx, name="a")))
    assert result.is_error and tool.runs == 0


async def test_allowed_once_dispatches_and_request_carries_the_call(ctx: Context, tool: Tool) -> None:
    approver = Approver("allowed-once")
    ctx.provide(APPROVAL, approver)
    ctx.on("tools/pre-execute", ask_listener("risky"))
    agent = Agent(ctx, name="a")
    controller = AbortController()
    result = await ctx.tools.execute(call(agent=agent, signal=controller.signal))
    assert not result.is_error and tool.runs == 1
    (request,) = approver.requests
    assert request.agent is agent
    assert request.tool_name == "t"
    assert request.call_id == "call-1"
    assert request.reason == "risky"
    assert request.signal is controller.signal


async def test_approval_request_signal_is_none_without_one(ctx: Context, tool: Tool) -> None:
    approver = Approver("allowed-once")
    ctx.provide(APPROVAL, approver)
    ctx.on("tools/pre-execute", ask_listener(None))
    await ctx.tools.execute(call(agent=Agent(ctx, name="a")))
    assert approver.requests[0].signal is None and approver.requests[0].reason is None


async def test_approval_is_looked_up_at_use_time(ctx: Context, tool: Tool) -> None:
    ctx.on("tools/pre-execute", ask_listener(None))
    agent = Agent(ctx, name="a")
    assert (await ctx.tools.execute(call(agent=agent))).is_error
    withdraw = ctx.fork().provide(APPROVAL, Approver("allowed-once"))
    assert not (await ctx.tools.execute(call(agent=agent))).is_error
    withdraw()
    assert (await ctx.tools.execute(call(agent=agent))).is_error


async def test_guards_run_after_an_approval_grant(ctx: Context, tool: Tool) -> None:
    ctx.provide(APPROVAL, Approver("allowed-once"))
    ctx.on("tools/pre-execute", ask_listener(None))
    ctx.tools.guard(lambda e: "guarded")
    result = await ctx.tools.execute(call(agent=Agent(ctx, name="a")))
    assert texts(result) == ["Error: guarded"] and tool.runs == 0


# -- guards -----------------------------------------------------------------------


async def test_guard_denial_cannot_be_overridden_by_listeners(ctx: Context, tool: Tool) -> None:
    ctx.on("tools/pre-execute", lambda execution, next: Allow(), prepend=True)
    ctx.tools.guard(lambda e: "guard says no" if e.name == "t" else None)
    result = await ctx.tools.execute(call())
    assert texts(result) == ["Error: guard says no"] and result.is_error
    assert tool.runs == 0


async def test_guards_first_denial_wins_global_before_agent(ctx: Context, tool: Tool) -> None:
    agent = Agent(ctx, name="a")
    order: list[str] = []

    def guard(label: str, verdict: str | None) -> Any:
        def check(execution: ToolExecution) -> str | None:
            order.append(label)
            return verdict

        return check

    agent.ctx.tools.guard(guard("agent-1", "agent denies"))  # registered first, still runs after globals
    ctx.tools.guard(guard("global-1", None))
    ctx.tools.guard(guard("global-2", "global denies"))
    ctx.tools.guard(guard("global-3", "never asked"))
    result = await ctx.tools.execute(call(agent=agent))
    assert texts(result) == ["Error: global denies"]
    assert order == ["global-1", "global-2"]


async def test_agent_guards_in_registration_order_and_only_for_that_agent(ctx: Context, tool: Tool) -> None:
    a = Agent(ctx, name="a")
    b = Agent(ctx, name="b")
    a.ctx.tools.guard(lambda e: None)
    a.ctx.tools.guard(lambda e: "first agent denial")
    a.ctx.tools.guard(lambda e: "second agent denial")
    assert texts(await ctx.tools.execute(call(agent=a))) == ["Error: first agent denial"]
    assert not (await ctx.tools.execute(call(agent=b))).is_error
    assert not (await ctx.tools.execute(call())).is_error


async def test_guard_sees_the_execution(ctx: Context, tool: Tool) -> None:
    seen: list[ToolExecution] = []

    def guard(execution: ToolExecution) -> None:
        seen.append(execution)

    ctx.tools.guard(guard)
    agent = Agent(ctx, name="a")
    await ctx.tools.execute(call(agent=agent))
    (execution,) = seen
    assert (execution.call_id, execution.name, execution.agent) == ("call-1", "t", agent)
    expected: object = {"x": 1}
    assert execution.arguments == expected


async def test_disposed_guards_stop_applying(ctx: Context, tool: Tool) -> None:
    drop = ctx.tools.guard(lambda e: "no")
    agent = Agent(ctx, name="a")
    agent.ctx.tools.guard(lambda e: "agent no")
    assert (await ctx.tools.execute(call())).is_error
    drop()
    drop()
    assert not (await ctx.tools.execute(call())).is_error
    assert (await ctx.tools.execute(call(agent=agent))).is_error
    await agent.dispose()
    assert not (await ctx.tools.execute(call(agent=agent))).is_error


@pytest.mark.parametrize("verdict", [1, True, False, b"no", ["no"], Deny("no")], ids=repr)
async def test_guard_returning_non_str_non_none_fails_closed(ctx: Context, tool: Tool, verdict: Any) -> None:
    results = Results(ctx)
    ctx.tools.guard(lambda e: verdict)
    result = await ctx.tools.execute(call())
    assert result.is_error and tool.runs == 0
    assert len(results.seen) == 1


async def test_str_subclass_guard_verdict_fails_closed(ctx: Context, tool: Tool) -> None:
    class Reason(str):
        pass

    ctx.tools.guard(lambda e: Reason("no"))
    result = await ctx.tools.execute(call())
    assert result.is_error and tool.runs == 0


async def test_raising_guard_fails_closed(ctx: Context, tool: Tool) -> None:
    def guard(execution: ToolExecution) -> str | None:
        raise KeyError("boom")

    ctx.tools.guard(guard)
    ctx.tools.guard(lambda e: None)
    result = await ctx.tools.execute(call())
    assert result.is_error and tool.runs == 0


async def test_async_guard_fails_closed_without_leaking_a_coroutine(ctx: Context, tool: Tool) -> None:
    async def guard(execution: ToolExecution) -> None:
        return None

    ctx.tools.guard(guard)  # type: ignore[arg-type]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = await ctx.tools.execute(call())
        gc.collect()
    assert result.is_error and tool.runs == 0
    assert not [w for w in caught if "never awaited" in str(w.message)]


def test_guard_must_be_callable(ctx: Context) -> None:
    with pytest.raises(TypeError):
        ctx.tools.guard("no")  # type: ignore[arg-type]
