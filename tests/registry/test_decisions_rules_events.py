"""Decisions that speak, remembered rules, expiry and the tools/parked and tools/decided events, through the registry."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

import pytest

from dsh_tools import (
    Agent,
    ApprovalDecision,
    ApprovalOutcome,
    ApprovalRequest,
    PendingApproval,
    Prop,
    Retry,
    ToolExecution,
    ToolExecutionInput,
    boot,
    define_tool,
    tool,
)
from dsh_tools.json_values import JsonValue
from dsh_tools.store import MemoryStore


class CountingDefer:
    """Defers every request and counts them: a remembered rule must not reach it."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome:
        self.asked.append(request.call_id)
        return "deferred"


@tool(needs_approval=True)
async def deploy(env: str) -> str:
    """Deploy somewhere."""
    return f"deployed to {env}"


def app(store: MemoryStore | None = None, *, description: str | None = None) -> tuple[CountingDefer, Agent, MemoryStore]:
    store = store or MemoryStore()
    service = CountingDefer()
    ctx = boot(store=store, approval=service)
    if description is None:
        ctx.tools.register(deploy)
    else:  # the same tool, its definition changed
        async def body(args: Mapping[str, JsonValue], exec: ToolExecution) -> str:
            return f"deployed to {args['env']}"

        ctx.tools.register(define_tool(
            name="deploy", description=description, parameters={"env": Prop("string", required=True)},
            output=Prop("string"), execute=body, needs_approval=True,
        ))
    return service, Agent(ctx, name="shipper", id="shipper-1"), store


async def park(agent: Agent, call_id: str, env: str = "prod") -> str:
    result = await agent.ctx.tools.execute(ToolExecutionInput(call_id, "deploy", {"env": env}, agent))
    approval_id = result.meta_get("approvalId")
    assert result.outcome == "approval-pending" and isinstance(approval_id, str)
    return approval_id


# -- decisions that speak ---------------------------------------------------------------


async def test_a_rejection_with_a_message_is_what_the_model_reads_and_the_journal_keeps() -> None:
    _, agent, store = app()
    approval_id = await park(agent, "c1")
    result = await agent.ctx.tools.resume(approval_id, "rejected", message="not on a Friday", decided_by="ada")
    assert (result.text, result.outcome) == ('Error: the user rejected tool "deploy": not on a Friday', "approval-rejected")
    records = await store.journal(call_id="c1")
    assert [(r.outcome, r.decided_by, r.decision_message) for r in records] == [
        ("approval-pending", None, None), ("approval-rejected", "ada", "not on a Friday"),
    ]


async def test_decide_only_records_and_whoever_takes_it_up_settles_it() -> None:
    _, agent, store = app()
    approval_id = await park(agent, "c1")
    decision = await store.decide(approval_id, "cancelled", message="changed my mind", decided_by="bob")
    assert (decision.message, decision.decided_by, decision.rule_id) == ("changed my mind", "bob", None)
    assert [r.outcome for r in await store.journal(call_id="c1")] == ["approval-pending"]  # nothing settled yet
    (result,) = await agent.ctx.tools.resume_decided(agent)
    assert result.text == 'Error: approval for tool "deploy" was cancelled: changed my mind'


@pytest.mark.parametrize(
    ("outcome", "keywords", "problem"),
    [
        ("allowed-once", {"message": "why"}, "a message goes with a denial"),
        ("allowed-once", {"arguments": {"env": "dev"}, "remember": "agent"}, "cannot carry edited ones"),
        ("rejected", {"remember": "forever"}, 'remember takes "agent"'),
        ("unavailable", {"remember": "agent"}, "cannot be remembered"),
        ("rejected", {"message": "\ud800"}, "Unicode text"),
        ("rejected", {"message": "x" * 5000}, "at most 4000"),
    ],
)
async def test_a_decision_that_cannot_be_made_is_refused_and_nothing_is_consumed(
    outcome: str, keywords: dict[str, object], problem: str
) -> None:
    _, agent, store = app()
    approval_id = await park(agent, "c1")
    decides: list[Any] = [store.decide, agent.ctx.tools.resume]  # untyped on purpose: the values are the test
    for decide in decides:
        with pytest.raises(ValueError, match=problem):
            await decide(approval_id, outcome, **keywords)
    (still,) = await agent.ctx.tools.pending_approvals(agent)
    assert still.decision is None
    with pytest.raises(ValueError, match="no decision yet"):
        await agent.ctx.tools.resume(approval_id, message="no verdict")
    await store.decide(approval_id, "rejected")
    with pytest.raises(ValueError, match="come with an outcome"):
        await agent.ctx.tools.resume(approval_id, message="too late to say why")


# -- remembered rules --------------------------------------------------------------------


async def test_a_remembered_allow_skips_the_service_and_is_journaled_with_its_rule() -> None:
    service, agent, store = app()
    approval_id = await park(agent, "c1")
    await agent.ctx.tools.resume(approval_id, "allowed-once", decided_by="ada", remember="agent")
    (rule,) = await store.rules()
    assert (rule.agent_id, rule.tool_name, rule.outcome, rule.decided_by) == ("shipper-1", "deploy", "allowed-once", "ada")
    result = await agent.ctx.tools.execute(ToolExecutionInput("c2", "deploy", {"env": "dev"}, agent))
    assert result.text == "deployed to dev" and service.asked == ["c1"]
    (record,) = await store.journal(call_id="c2")
    assert (record.approval_rule, record.decided_by) == (rule.rule_id, "ada")
    assert await store.rules("someone-else") == []


async def test_a_remembered_denial_reads_like_the_decision_it_came_from() -> None:
    service, agent, store = app()
    await agent.ctx.tools.resume(await park(agent, "c1"), "rejected", message="prod is frozen", remember="agent")
    again = await agent.ctx.tools.execute(ToolExecutionInput("c2", "deploy", {"env": "prod"}, agent))
    assert (again.text, again.outcome) == ('Error: the user rejected tool "deploy": prod is frozen', "approval-rejected")
    assert service.asked == ["c1"]


async def test_a_remembered_allow_is_an_approval_a_non_idempotent_effect_starts_at_most_once() -> None:
    store = MemoryStore()
    ctx = boot(store=store, approval="defer")
    runs: list[str] = []

    async def flaky(args: Mapping[str, JsonValue], exec: ToolExecution) -> str:
        runs.append(exec.call_id)
        raise ConnectionError("reset")

    ctx.tools.register(define_tool(
        name="charge", description="Charge.", parameters={}, output=Prop("string"), execute=flaky,
        retry=Retry(3, backoff_ms=0), needs_approval=True,
    ))
    agent = Agent(ctx, name="shop", id="shop-1")
    first = await ctx.tools.execute(ToolExecutionInput("c1", "charge", {}, agent))
    approval_id = first.meta_get("approvalId")
    assert isinstance(approval_id, str)
    await ctx.tools.resume(approval_id, "allowed-once", remember="agent")
    result = await ctx.tools.execute(ToolExecutionInput("c2", "charge", {}, agent))
    assert runs.count("c2") == 1 and "(not retried" in result.text


async def test_forgetting_a_rule_asks_again_and_an_unknown_rule_is_a_key_error() -> None:
    service, agent, store = app()
    await agent.ctx.tools.resume(await park(agent, "c1"), "allowed-once", remember="agent")
    (rule,) = await store.rules(agent.id)
    await store.forget_rule(rule.rule_id)
    await park(agent, "c2")
    assert service.asked == ["c1", "c2"]
    for unknown in (rule.rule_id, "nope", "\x00", 7):
        with pytest.raises(KeyError):
            await store.forget_rule(unknown)  # type: ignore[arg-type]


async def test_a_rule_stops_applying_once_the_tools_definition_changes() -> None:
    service, agent, store = app()
    await agent.ctx.tools.resume(await park(agent, "c1"), "allowed-once", remember="agent")
    await agent.ctx.dispose()
    changed, agent, _ = app(store, description="Deploy somewhere, now with migrations.")
    await park(agent, "c2")  # a new fingerprint: the rule does not apply, the human is asked
    assert changed.asked == ["c2"]
    assert len(await store.rules()) == 1  # kept, for a tool that may come back as it was


async def test_remembering_a_call_whose_tool_is_gone_or_changed_is_refused_and_decides_nothing() -> None:
    store = MemoryStore()
    ctx = boot(store=store, approval="defer")
    undo = ctx.tools.register(deploy)
    agent = Agent(ctx, name="shipper", id="shipper-1")
    approval_id = await park(agent, "c1")
    undo()
    with pytest.raises(ValueError, match='tool "deploy" no longer exists'):
        await ctx.tools.resume(approval_id, "allowed-once", remember="agent")
    async def body(args: Mapping[str, JsonValue], exec: ToolExecution) -> str:
        return "changed"

    ctx.tools.register(define_tool(
        name="deploy", description="Changed.", parameters={"env": Prop("string")}, output=Prop("string"), execute=body,
        needs_approval=True,
    ))
    with pytest.raises(ValueError, match="changed since the call parked"):
        await ctx.tools.resume(approval_id, "allowed-once", remember="agent")
    assert (await store.get_parked(approval_id)) is not None and await store.rules() == []
    (still,) = await ctx.tools.pending_approvals()
    assert still.decision is None


# -- expiry ----------------------------------------------------------------------------


async def test_an_expired_call_cannot_be_decided_and_a_decided_one_does_not_expire() -> None:
    store = MemoryStore()
    ctx = boot(store=store, approval="defer", approval_ttl_seconds=0.2)
    ctx.tools.register(deploy)
    agent = Agent(ctx, name="shipper", id="shipper-1")
    expiring, decided = await park(agent, "c1"), await park(agent, "c2")
    (first, _) = await ctx.tools.pending_approvals(agent)
    assert first.expires_at is not None and 0.1 < first.expires_at - first.created_at < 0.3
    await store.decide(decided, "allowed-once")
    await asyncio.sleep(0.3)
    with pytest.raises(KeyError):
        await store.decide(expiring, "allowed-once")
    with pytest.raises(KeyError):
        await ctx.tools.resume(expiring, "rejected")
    (result,) = await ctx.tools.resume_decided(agent)
    assert result.text == "deployed to prod"
    assert [(r.call_id, r.outcome) for r in await store.journal() if r.outcome != "approval-pending"] == [
        ("c1", "approval-expired"), ("c2", "ok"),
    ]


@pytest.mark.parametrize("ttl", [0, -1, "5", float("nan"), 10**9])
def test_a_bad_ttl_is_refused_at_boot(ttl: object) -> None:
    with pytest.raises(ValueError, match="approval_ttl_seconds"):
        boot(approval_ttl_seconds=ttl)  # type: ignore[arg-type]


def test_boot_checks_the_stores_optional_protocols() -> None:
    class HalfThreads(MemoryStore):
        read_thread = None  # type: ignore[assignment]

    with pytest.raises(TypeError, match="part of ThreadStore, without read_thread"):
        boot(store=HalfThreads())


# -- events ----------------------------------------------------------------------------


async def test_parked_and_decided_events_after_the_commit_scoped_like_every_event(caplog: pytest.LogCaptureFixture) -> None:
    _, agent, store = app()
    other = Agent(agent.ctx.tools.context, name="other", id="other-1")
    heard: list[tuple[str, str]] = []

    async def on_parked(pending: PendingApproval) -> None:
        assert await store.get_parked(pending.approval_id) is not None  # committed before we hear of it
        heard.append(("parked", pending.tool_name))

    def on_decided(decision: ApprovalDecision) -> None:
        heard.append(("decided", f"{decision.outcome}:{decision.message}"))

    def broken(pending: PendingApproval) -> None:
        raise RuntimeError("listener bug")

    ctx = agent.ctx.tools.context
    ctx.on("tools/parked", on_parked)
    ctx.on("tools/decided", on_decided)
    other.ctx.on("tools/parked", lambda pending: heard.append(("other's", pending.tool_name)))
    agent.ctx.on("tools/parked", broken)
    with caplog.at_level(logging.WARNING):
        approval_id = await park(agent, "c1")
    assert "listener bug" in caplog.text
    await agent.ctx.tools.resume(approval_id, "rejected", message="no")
    assert heard == [("parked", "deploy"), ("decided", "rejected:no")]  # the other agent's listener heard nothing
