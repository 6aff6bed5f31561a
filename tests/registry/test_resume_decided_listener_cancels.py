"""A ``tools/decided`` listener that cancels the resuming task: the resume stops, the decision stands, nothing leaks.

``resume(id, outcome)`` commits the decision, tells ``tools/decided``
listeners, then runs the call. A listener that cancels its own task there
(a UI handler that stops the request) asks for the resume to stop: the
``CancelledError`` must reach the caller, and the call must not run half
owned. Before, the call ran on with that cancellation pending: its
``CallerScope`` took the cancellation for one swallowed before the call, so
it was contained as a participant's stray ``CancelledError`` (``Error:
CancelledError``, no abort code), the body's task was left running unowned
(neither cancelled nor orphaned), and ``resume`` returned as if nothing had
been asked. Now the resume raises before the call is claimed: the decision
is kept, and ``resume_decided`` runs the call, once.
"""

from __future__ import annotations

import asyncio

import pytest

from dsh_tools import (
    APPROVAL,
    Agent,
    ApprovalDecision,
    DeferringApprovalService,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    tool,
)


def setup() -> tuple[Agent, list[str], list[ToolExecutionResult]]:
    """An app whose ``write_file`` needs approval (deferred), its writes and what ``tools/result`` heard."""
    ctx = boot()
    ctx.provide(APPROVAL, DeferringApprovalService())
    writes: list[str] = []
    heard: list[ToolExecutionResult] = []

    @tool(needs_approval=True)
    async def write_file(path: str) -> str:
        """Write a file."""
        writes.append(path)
        return f"wrote {path}"

    ctx.tools.register(write_file)
    ctx.on("tools/result", lambda execution, result: heard.append(result))
    return Agent(ctx, name="writer", id="writer-1"), writes, heard


async def test_a_decided_listener_cancelling_the_resume_stops_it_and_the_decision_is_run_later_once() -> None:
    agent, writes, heard = setup()
    ctx = agent.ctx
    parked = await ctx.tools.execute(ToolExecutionInput("c1", "write_file", {"path": "a.txt"}, agent))
    (pending,) = await ctx.tools.pending_approvals(agent)
    assert parked.outcome == "approval-pending"

    def stop_the_request(decision: ApprovalDecision) -> None:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()

    ctx.on("tools/decided", stop_the_request)
    resuming = asyncio.create_task(ctx.tools.resume(pending.approval_id, "allowed-once"))
    with pytest.raises(asyncio.CancelledError):
        await resuming
    assert writes == [] and len(heard) == 1  # only the park was heard: the call did not start

    (result,) = await ctx.tools.resume_decided(agent)
    assert result.text == "wrote a.txt" and writes == ["a.txt"]
    assert [r.outcome for r in heard] == ["approval-pending", "ok"]
