"""Approval that knows what it approves, and approval that answers later (``"deferred"`` → ``resume``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import pytest

from dsh_tools import (
    APPROVAL,
    AbortController,
    Accept,
    Agent,
    ApprovalOutcome,
    ApprovalRequest,
    Ask,
    Context,
    PendingApproval,
    PostNext,
    PostToolDecision,
    PreNext,
    PreToolDecision,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    text_block,
    thaw_json,
    tool,
)
from dsh_tools.execution import ToolExecutionToken
from dsh_tools.context.events import EventBus
from dsh_tools.pipeline import Guard, execute_call
from dsh_tools.tool_types import RegisteredTool

from pipeline_support import Results


class Approver:
    """Answers every request with ``outcome`` and keeps the requests."""

    def __init__(self, outcome: object = "deferred") -> None:
        self.outcome = outcome
        self.requests: list[ApprovalRequest] = []

    async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome:
        self.requests.append(request)
        return self.outcome  # type: ignore[return-value]  # hostile outcomes are tested too


class Writes:
    """A tool body that records its calls; ``gate`` (if set) holds the body until released."""

    def __init__(self) -> None:
        self.calls: list[ToolExecution] = []
        self.gate: asyncio.Event | None = None
        self.entered = asyncio.Event()

    def definition(self) -> object:
        @tool
        async def write_file(path: str, text: str, *, exec: ToolExecution) -> str:
            """Write a file."""
            self.calls.append(exec)
            self.entered.set()
            if self.gate is not None:
                await self.gate.wait()
            return f"wrote {len(text)} bytes to {path}"

        return write_file


async def ask_for_writes(exec: ToolExecution, next: PreNext) -> PreToolDecision:
    return Ask("writes to disk") if exec.name == "write_file" else await next()


def setup(outcome: object = "deferred") -> tuple[Context, Agent, Approver, Writes, Results]:
    ctx = boot()
    approver = Approver(outcome)
    ctx.provide(APPROVAL, approver)
    writes = Writes()
    ctx.tools.register(writes.definition())  # type: ignore[arg-type]
    ctx.on("tools/pre-execute", ask_for_writes)
    return ctx, Agent(ctx, name="writer"), approver, writes, Results(ctx)


def write_call(agent: Agent | None, call_id: str = "c1", **extra: object) -> ToolExecutionInput:
    return ToolExecutionInput(call_id, "write_file", {"path": "README.md", "text": "hello"}, agent, **extra)  # type: ignore[arg-type]


def approval_id_of(result: ToolExecutionResult) -> str:
    meta = thaw_json(result.meta)
    assert isinstance(meta, dict) and list(meta) == ["approvalId"]
    approval_id = meta["approvalId"]
    assert type(approval_id) is str and approval_id
    return approval_id


async def park(ctx: Context, agent: Agent, call_id: str = "c1") -> str:
    return approval_id_of(await ctx.tools.execute(write_call(agent, call_id)))


# -- the request carries the execution ------------------------------------------------------


async def test_the_approver_sees_the_execution_it_approves() -> None:
    ctx, agent, approver, writes, _ = setup("allowed-once")
    result = await ctx.tools.execute(write_call(agent))
    assert not result.is_error
    (request,) = approver.requests
    execution = request.execution
    assert (execution.name, execution.call_id, execution.agent) == ("write_file", "c1", agent)
    assert thaw_json(execution.arguments) == {"path": "README.md", "text": "hello"}
    assert execution.token is writes.calls[0].token  # the very call that then ran
    assert (request.tool_name, request.call_id, request.reason) == ("write_file", "c1", "writes to disk")
    wire = request.to_json()
    assert wire["execution"] == {"callId": "c1", "name": "write_file", "arguments": {"path": "README.md", "text": "hello"}, "agent": "writer"}


# -- deferring -------------------------------------------------------------------------------


async def test_a_deferred_call_settles_pending_with_an_approval_id() -> None:
    ctx, agent, _, writes, results = setup()
    result = await ctx.tools.execute(write_call(agent))
    assert result.is_error and writes.calls == []
    assert result.error is not None and (result.error.name, result.error.code) == ("ApprovalPendingError", "APPROVAL_PENDING")
    assert result.text == 'Error: tool "write_file" is waiting for approval'
    approval_id = approval_id_of(result)
    assert [r for _, r in results.seen] == [result]
    (pending,) = await ctx.tools.pending_approvals(agent)
    assert pending == PendingApproval(
        approval_id, pending.execution, "writes to disk", agent_id=agent.id, created_at=pending.created_at
    )
    assert pending.execution.agent is agent and pending.created_at > 0
    assert thaw_json(pending.execution.arguments) == {"path": "README.md", "text": "hello"}
    assert pending.to_json()["approvalId"] == approval_id


async def test_pending_approvals_are_listed_per_agent_in_order() -> None:
    ctx, agent, _, _, _ = setup()
    other = Agent(ctx, name="other")
    first = await park(ctx, agent, "c1")
    elsewhere = await park(ctx, other, "c2")
    second = await park(ctx, agent, "c3")
    assert [p.approval_id for p in await ctx.tools.pending_approvals(agent)] == [first, second]
    assert [p.approval_id for p in await ctx.tools.pending_approvals(other)] == [elsewhere]
    assert len({first, second, elsewhere}) == 3


# -- resuming --------------------------------------------------------------------------------


async def test_resume_allowed_runs_the_rest_of_the_pipeline_once() -> None:
    ctx, agent, _, writes, results = setup()

    async def shout(exec: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        return Accept(content=[text_block(result.text.upper())])

    ctx.on("tools/post-execute", shout)
    approval_id = await park(ctx, agent)
    result = await ctx.tools.resume(approval_id, "allowed-once")
    assert not result.is_error
    assert result.text == "WROTE 5 BYTES TO README.MD"
    assert len(writes.calls) == 1 and writes.calls[0].call_id == "c1"
    assert [(e.call_id, r.text) for e, r in results.seen] == [
        ("c1", 'Error: tool "write_file" is waiting for approval'),
        ("c1", "WROTE 5 BYTES TO README.MD"),
    ]
    assert await ctx.tools.pending_approvals(agent) == []
    with pytest.raises(KeyError, match="already resumed"):
        await ctx.tools.resume(approval_id, "allowed-once")
    assert len(results.seen) == 2


@pytest.mark.parametrize(
    ("verdict", "text"),
    [
        ("rejected", 'Error: the user rejected tool "write_file"'),
        ("cancelled", 'Error: approval for tool "write_file" was cancelled'),
        ("unavailable", 'Error: tool "write_file" needs approval, but no one is available to answer'),
    ],
)
async def test_resume_with_a_denial_settles_with_the_usual_text(verdict: str, text: str) -> None:
    ctx, agent, _, writes, results = setup()
    approval_id = await park(ctx, agent)
    result = await ctx.tools.resume(approval_id, verdict)  # type: ignore[arg-type]
    assert result.is_error and result.text == text and result.error is None
    assert writes.calls == []
    assert [r for _, r in results.seen][-1] == result and len(results.seen) == 2


async def test_guards_are_read_at_resume_time() -> None:
    ctx, agent, _, writes, _ = setup()
    approval_id = await park(ctx, agent)
    agent.ctx.tools.guard(lambda exec: "read-only now" if exec.name == "write_file" else None)
    result = await ctx.tools.resume(approval_id, "allowed-once")
    assert result.text == "Error: read-only now" and writes.calls == []


async def test_a_tool_unregistered_meanwhile_is_stale_at_resume() -> None:
    ctx = boot()
    ctx.provide(APPROVAL, Approver())
    writes = Writes()
    unregister = ctx.tools.register(writes.definition())  # type: ignore[arg-type]
    ctx.on("tools/pre-execute", ask_for_writes)
    agent = Agent(ctx, name="writer")
    approval_id = await park(ctx, agent)
    unregister()
    result = await ctx.tools.resume(approval_id, "allowed-once")
    assert result.error is not None and result.error.code == "APPROVAL_STALE" and result.outcome == "approval-stale"


async def test_the_resumed_call_runs_under_the_resumers_signal() -> None:
    ctx, agent, _, writes, _ = setup()
    original = AbortController()
    parked = await ctx.tools.execute(write_call(agent, signal=original.signal))
    approval_id = approval_id_of(parked)
    original.abort("the first request ended")
    resumer = AbortController()
    result = await ctx.tools.resume(approval_id, "allowed-once", signal=resumer.signal)
    assert not result.is_error, result.text
    assert writes.calls[0].signal is resumer.signal


# -- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize("approval_id", ["no-such-id", "", 7, None])
async def test_an_unknown_id_is_a_key_error(approval_id: object) -> None:
    ctx, agent, _, _, _ = setup()
    await park(ctx, agent)
    with pytest.raises(KeyError):
        await ctx.tools.resume(approval_id, "allowed-once")  # type: ignore[arg-type]
    assert len(await ctx.tools.pending_approvals(agent)) == 1


@pytest.mark.parametrize("outcome", ["deferred", "allowed", "ALLOWED-ONCE", None, 1, ["allowed-once"]])
async def test_an_outcome_outside_the_literals_is_a_value_error_and_consumes_nothing(outcome: object) -> None:
    ctx, agent, _, writes, _ = setup()
    approval_id = await park(ctx, agent)
    with pytest.raises(ValueError, match="allowed-once, rejected, cancelled, unavailable"):
        await ctx.tools.resume(approval_id, outcome)  # type: ignore[arg-type]
    assert [p.approval_id for p in await ctx.tools.pending_approvals(agent)] == [approval_id]
    assert not (await ctx.tools.resume(approval_id, "allowed-once")).is_error
    assert len(writes.calls) == 1


@pytest.mark.parametrize("signal", ["stop", 0, object()])
async def test_a_signal_that_is_not_an_abort_signal_is_a_type_error_and_consumes_nothing(signal: object) -> None:
    ctx, agent, _, writes, results = setup()
    approval_id = await park(ctx, agent)
    with pytest.raises(TypeError, match="resume\\(signal=...\\) takes an AbortSignal or None, got "):
        await ctx.tools.resume(approval_id, "allowed-once", signal=signal)  # type: ignore[arg-type]
    assert [p.approval_id for p in await ctx.tools.pending_approvals(agent)] == [approval_id]
    assert len(results.seen) == 1 and writes.calls == []
    assert not (await ctx.tools.resume(approval_id, "allowed-once")).is_error


async def test_pending_approvals_die_with_their_agent() -> None:
    ctx, agent, _, writes, results = setup()
    approval_id = await park(ctx, agent)
    await agent.dispose()
    assert await ctx.tools.pending_approvals(agent) == []
    with pytest.raises(KeyError, match="agent was disposed"):
        await ctx.tools.resume(approval_id, "allowed-once")
    # observers saw the call once, as pending: it never ran, and nothing more is emitted
    assert [r.error.code for _, r in results.seen if r.error is not None] == ["APPROVAL_PENDING"]
    assert writes.calls == []


async def test_a_resumed_approval_leaves_nothing_on_the_agents_lifetime() -> None:
    ctx, agent, _, _, _ = setup()
    for call_id in ("c1", "c2", "c3"):
        await ctx.tools.resume(await park(ctx, agent, call_id), "rejected")
    tracked = len(agent.ctx._disposers)  # noqa: SLF001 - the leak this guards against is internal
    await ctx.tools.resume(await park(ctx, agent, "c4"), "rejected")
    assert len(agent.ctx._disposers) == tracked  # noqa: SLF001


async def test_a_concurrent_second_resume_finds_nothing() -> None:
    ctx, agent, _, writes, results = setup()
    approval_id = await park(ctx, agent)
    writes.gate = asyncio.Event()
    first = asyncio.create_task(ctx.tools.resume(approval_id, "allowed-once"))
    await writes.entered.wait()  # the first resume is inside the body now
    with pytest.raises(KeyError):
        await ctx.tools.resume(approval_id, "allowed-once")
    writes.gate.set()
    assert not (await first).is_error
    assert len(writes.calls) == 1 and len(results.seen) == 2


async def test_deferring_a_call_without_an_agent_is_one_error_result() -> None:
    ctx, _, approver, writes, results = setup()
    result = await ctx.tools.execute(write_call(None))
    assert result.text == 'Error: tool "write_file" needs approval, but the call has no agent'
    assert approver.requests == [] and writes.calls == [] and len(results.seen) == 1


class DisposingApprover:
    """Disposes the asking agent, then defers: the call has nobody left to wait for."""

    async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome:
        await request.agent.dispose()
        return "deferred"


async def test_deferring_while_the_agent_is_disposed_is_one_error_result() -> None:
    ctx = boot()
    ctx.provide(APPROVAL, DisposingApprover())
    writes = Writes()
    ctx.tools.register(writes.definition())  # type: ignore[arg-type]
    ctx.on("tools/pre-execute", ask_for_writes)
    results = Results(ctx)
    doomed = Agent(ctx, name="doomed")
    result = await ctx.tools.execute(write_call(doomed))
    assert result.is_error and result.error is not None and result.error.code == "APPROVAL_UNAVAILABLE"
    assert result.text == "Error: the approval service deferred the call, but agent 'doomed' is disposed"
    assert len(results.seen) == 1 and await ctx.tools.pending_approvals(doomed) == [] and writes.calls == []


class NoParkingHost:
    """A custom ``PipelineHost`` without the parking capability."""

    def __init__(self, ctx: Context) -> None:
        self.registry = ctx.tools

    @property
    def events(self) -> EventBus:
        return self.registry.events

    @property
    def logger(self) -> logging.Logger:
        return self.registry.logger

    def resolve(self, name: str, agent: Agent | None) -> RegisteredTool | None:
        return self.registry.resolve(name, agent)

    def guards_for(self, agent: Agent | None) -> Sequence[Guard]:
        return self.registry.guards_for(agent)

    def approval(self) -> Approver | None:
        return self.registry.approval()  # type: ignore[return-value]

    def mint_token(self) -> ToolExecutionToken:
        return self.registry.mint_token()

    def issued(self, token: object) -> bool:
        return self.registry.issued(token)


async def test_a_host_that_cannot_park_settles_deferred_as_one_error() -> None:
    ctx, agent, _, writes, results = setup()
    result = await execute_call(NoParkingHost(ctx), write_call(agent))
    assert result.text == "Error: the approval service deferred the call, but this pipeline cannot park calls"
    assert writes.calls == [] and len(results.seen) == 1


async def test_a_deferred_code_mode_sub_call_parks_the_program_and_resumes_it() -> None:
    from dsh_tools import CodeRunRequest, CodeRunResult
    from dsh_tools.testing import Bindings, ScriptedCodeRuntime

    caught: list[str] = []

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        try:
            await tools["write_file"]({"path": "a.txt", "text": "hi"})
        except Exception as error:  # noqa: BLE001 - the program's catch
            caught.append(str(error))
        return CodeRunResult(logs=())

    ctx = boot(mode="code", code_runtime=ScriptedCodeRuntime({"p": program}))
    ctx.provide(APPROVAL, Approver())
    writes = Writes()
    ctx.tools.register(writes.definition())  # type: ignore[arg-type]
    ctx.on("tools/pre-execute", ask_for_writes)
    agent = Agent(ctx, name="coder")
    await ctx.tools.execute(ToolExecutionInput("run", "run_code", {"code": "p"}, agent))
    assert caught == ['Error: tool "write_file" is waiting for approval'] and writes.calls == []
    (pending,) = await ctx.tools.pending_approvals(agent)
    assert pending.execution.call_id == "run:code:1" and pending.parent_call_id == "run"
    result = await ctx.tools.resume(pending.approval_id, "allowed-once")
    # the program ran again: the approved call got its result, and resume returns the run's own
    assert result.call_id == "run" and result.text == "(resumed after the approval of write_file)\n(run_code completed with no output)"
    assert len(writes.calls) == 1
    # the first run's signal was aborted when it parked; the resumed body does not run under it
    body_signal = writes.calls[0].signal
    assert not (body_signal is not None and body_signal.aborted)


async def test_resume_under_an_aborted_signal_settles_before_dispatch() -> None:
    ctx, agent, _, writes, results = setup()
    approval_id = await park(ctx, agent)
    stop = AbortController()
    stop.abort("the user left")
    result = await ctx.tools.resume(approval_id, "allowed-once", signal=stop.signal)
    assert result.error is not None and result.error.code == "ABORTED_BEFORE_DISPATCH"
    assert writes.calls == [] and results.seen[-1][1] == result


async def test_cancelling_a_resume_records_the_call_and_consumes_the_approval() -> None:
    ctx, agent, _, writes, results = setup()
    approval_id = await park(ctx, agent)
    writes.gate = asyncio.Event()
    task = asyncio.create_task(ctx.tools.resume(approval_id, "allowed-once"))
    await writes.entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    final = results.seen[-1][1]
    assert final.error is not None and final.error.code == "ABORTED" and len(results.seen) == 2
    with pytest.raises(KeyError):
        await ctx.tools.resume(approval_id, "allowed-once")
