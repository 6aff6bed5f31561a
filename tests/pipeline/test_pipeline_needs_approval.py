"""``needs_approval`` (issue 35, item 1): approval declared on the tool, honoured by every pipeline.

The waterfall's *default* becomes ``Ask``: no listener needed. Invalid
arguments settle ``INVALID_ARGS`` before anyone is asked; a listener's
``Deny`` or own ``Ask`` wins; an explicit ``Allow`` lifts it; a predicate is
read only when the default is reached, and a broken one asks.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from dsh_tools import (
    APPROVAL,
    Agent,
    Allow,
    ApprovalOutcome,
    ApprovalRequest,
    Ask,
    DeferringApprovalService,
    Deny,
    PreNext,
    PreToolDecision,
    Prop,
    ToolExecution,
    ToolExecutionInput,
    boot,
    define_tool,
    tool,
)
from dsh_tools.json_values import JsonValue
from dsh_tools.pipeline import execute_call, check_guards, pre_execute


class Recorder:
    def __init__(self, answer: ApprovalOutcome = "allowed-once") -> None:
        self.asked: list[str | None] = []
        self.answer = answer

    async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome:
        self.asked.append(request.reason)
        return self.answer


def _charge(needs: object, runs: list[int]):  # type: ignore[no-untyped-def]
    async def body(args: Mapping[str, JsonValue], exec: ToolExecution) -> str:
        runs.append(1)
        return "charged"

    return define_tool(
        name="charge", description="Charge a card.", parameters={"cents": Prop("integer")}, output=Prop("string"),
        execute=body, needs_approval=needs,  # type: ignore[call-overload]
    )


def _app(needs: object, approver: Recorder | None = None):  # type: ignore[no-untyped-def]
    ctx = boot(approval=approver)
    runs: list[int] = []
    ctx.tools.register(_charge(needs, runs))
    return ctx, Agent(ctx, name="shop"), runs


async def test_a_tool_that_needs_approval_asks_with_no_listener() -> None:
    approver = Recorder()
    ctx, agent, runs = _app(True, approver)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "charge", {"cents": 5}, agent))
    assert result.text == "charged" and runs == [1] and approver.asked == ['tool "charge" needs approval']


async def test_without_a_service_the_ask_is_denied_and_nothing_runs() -> None:
    ctx, agent, runs = _app(True)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "charge", {"cents": 5}, agent))
    assert result.outcome == "approval-rejected" and runs == []


async def test_invalid_arguments_settle_invalid_args_and_nobody_is_asked() -> None:
    approver = Recorder()
    ctx, agent, runs = _app(True, approver)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "charge", {"cents": "five"}, agent))
    assert result.outcome == "invalid-args" and approver.asked == [] and runs == []


@pytest.mark.parametrize(
    ("listener_answer", "asked", "ran"),
    [(Deny("no charges today"), [], []), (Ask("the listener's own reason"), ["the listener's own reason"], [1]), (Allow(), [], [1])],
)
async def test_a_listener_decision_wins_over_the_default(listener_answer: PreToolDecision, asked: list[str], ran: list[int]) -> None:
    approver = Recorder()
    ctx, agent, runs = _app(True, approver)

    async def decide(exec: ToolExecution, next: PreNext) -> PreToolDecision:
        return listener_answer

    ctx.on("tools/pre-execute", decide)
    await ctx.tools.execute(ToolExecutionInput("c1", "charge", {"cents": 5}, agent))
    assert approver.asked == asked and runs == ran


async def test_a_listener_that_delegates_sees_the_ask_from_next() -> None:
    approver = Recorder()
    ctx, agent, runs = _app(True, approver)
    seen: list[PreToolDecision] = []

    async def watch(exec: ToolExecution, next: PreNext) -> PreToolDecision:
        decision = await next()
        seen.append(decision)
        return decision

    ctx.on("tools/pre-execute", watch)
    await ctx.tools.execute(ToolExecutionInput("c1", "charge", {"cents": 5}, agent))
    assert seen == [Ask('tool "charge" needs approval')] and runs == [1]


async def test_a_predicate_decides_per_call_sync_or_async() -> None:
    async def big(exec: ToolExecution) -> bool:
        cents = exec.arguments["cents"] if isinstance(exec.arguments, Mapping) else 0
        return isinstance(cents, int) and cents > 100

    for predicate in (big, lambda exec: exec.arguments["cents"] > 100):
        approver = Recorder()
        ctx, agent, runs = _app(predicate, approver)
        await ctx.tools.execute(ToolExecutionInput("small", "charge", {"cents": 5}, agent))
        await ctx.tools.execute(ToolExecutionInput("large", "charge", {"cents": 500}, agent))
        assert len(approver.asked) == 1 and runs == [1, 1]


@pytest.mark.parametrize("answer", ["yes", None, 0, RuntimeError("boom")])
async def test_a_predicate_that_raises_or_answers_anything_but_false_asks(answer: object) -> None:
    def predicate(exec: ToolExecution) -> bool:
        if isinstance(answer, BaseException):
            raise answer
        return answer  # type: ignore[return-value]

    approver = Recorder("rejected")
    ctx, agent, runs = _app(predicate, approver)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "charge", {"cents": 5}, agent))
    assert approver.asked and result.outcome == "approval-rejected" and runs == []


async def test_a_custom_pipeline_built_from_the_public_stages_honours_it() -> None:
    approver = Recorder("rejected")
    ctx, agent, runs = _app(True, approver)
    result = await execute_call(ctx.tools, ToolExecutionInput("c1", "charge", {"cents": 5}, agent), gates=(pre_execute, check_guards))
    assert result.outcome == "approval-rejected" and runs == []


async def test_at_tool_and_defer_park_the_call() -> None:
    @tool(needs_approval=True)
    async def delete_repo(name: str) -> str:
        """Delete a repository."""
        return f"deleted {name}"

    ctx = boot(approval="defer")
    ctx.tools.register(delete_repo)
    agent = Agent(ctx, name="ops")
    result = await ctx.tools.execute(ToolExecutionInput("c1", "delete_repo", {"name": "x"}, agent))
    assert result.outcome == "approval-pending"
    (pending,) = await ctx.tools.pending_approvals(agent)
    assert pending.tool_name == "delete_repo" and pending.execution.name == "delete_repo"


def test_boot_refuses_an_approval_that_is_no_service() -> None:
    with pytest.raises(ValueError, match="approval must be"):
        boot(approval="later")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="approval must be"):
        boot(approval=object())  # type: ignore[arg-type]
    ctx = boot(approval=DeferringApprovalService())
    with pytest.raises(Exception):
        ctx.provide(APPROVAL, Recorder())  # providing twice raises, as it always did


@pytest.mark.parametrize("needs", ["yes", 1, None, [True]])
def test_needs_approval_must_be_a_bool_or_a_callable(needs: object) -> None:
    with pytest.raises(TypeError, match="needs_approval must be"):
        _charge(needs, [])


@pytest.mark.parametrize("idempotent", ["yes", 1, None])
def test_idempotent_must_be_a_bool(idempotent: object) -> None:
    with pytest.raises(TypeError, match="idempotent must be"):
        define_tool(name="t", description="d", parameters={}, execute=_charge(False, []).body, idempotent=idempotent)  # type: ignore[call-overload]
