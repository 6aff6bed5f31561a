"""Cancelling the resume of a parked program records the program's ``run_code`` call too, not only its sub-call.

``resume`` of a Code Mode sub-call's approval answers for the program's
``run_code`` call (its result is that call's, and a thread waits on that
call's slot). When the task awaiting the resume is cancelled while the
approved sub-call runs, the sub-call settles ``ABORTED``, and the
``run_code`` call must settle too (``ABORTED``), heard once by observers and
journaled, before the ``CancelledError`` goes on: otherwise it stays
``approval-pending`` for ever, with its approval consumed.
"""

from __future__ import annotations

import asyncio

import pytest

from dsh_tools import (
    APPROVAL,
    Agent,
    CodeRunRequest,
    CodeRunResult,
    DeferringApprovalService,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    tool,
)
from dsh_tools.testing import Bindings, ScriptedCodeRuntime
from test_program_parking import charges_ask


async def checkout(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
    return CodeRunResult(logs=(), value=await tools["charge_card"]({"amount": 5}))


async def test_cancelling_a_program_resume_while_its_approved_call_runs_settles_the_run_code_call_aborted() -> None:
    entered = asyncio.Event()
    charges: list[int] = []

    @tool
    async def charge_card(amount: int) -> str:
        """Charge the card."""
        charges.append(amount)
        entered.set()
        await asyncio.Event().wait()  # until cancelled
        return "charged"

    ctx = boot(mode="code", code_runtime=ScriptedCodeRuntime({"checkout": checkout}))
    ctx.tools.register(charge_card)
    ctx.on("tools/pre-execute", charges_ask)
    ctx.provide(APPROVAL, DeferringApprovalService())
    seen: list[tuple[str, ToolExecutionResult]] = []
    ctx.on("tools/result", lambda execution, result: seen.append((execution.call_id, result)))
    agent = Agent(ctx, name="coder", id="coder-1")

    parked = await ctx.tools.execute(ToolExecutionInput("run", "run_code", {"code": "checkout"}, agent))
    assert parked.outcome == "approval-pending"
    (pending,) = await ctx.tools.pending_approvals(agent)
    resuming = asyncio.create_task(ctx.tools.resume(pending.approval_id, "allowed-once"))
    await entered.wait()
    resuming.cancel()
    with pytest.raises(asyncio.CancelledError):
        await resuming

    assert charges == [5]
    after_park = [(call_id, result.error.code if result.error else None) for call_id, result in seen[2:]]
    assert after_park == [("run:code:1", "ABORTED"), ("run", "ABORTED")]  # each heard once
    journal = await ctx.tools.store.journal()
    assert [(r.call_id, r.outcome) for r in journal if r.call_id == "run"] == [
        ("run", "approval-pending"),
        ("run", "aborted"),
    ]
    with pytest.raises(KeyError):  # the approval was consumed: nothing runs again
        await ctx.tools.resume(pending.approval_id, "allowed-once")
