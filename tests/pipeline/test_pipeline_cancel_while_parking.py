"""Cancelling a call while a ``tools/parked`` listener hears of its park: the call settles as what it is, parked.

The park is committed before ``tools/parked`` listeners are told, so a call
cancelled during one of them is waiting for approval: a human can still see
it and allow it, and ``resume`` runs its body. Settling it
``ABORTED_BEFORE_DISPATCH`` ("no policy, no body") would tell the model a
call never ran that later does. It settles ``APPROVAL_PENDING`` with its
approval id (heard once, journaled), and then the ``CancelledError`` goes on.
"""

from __future__ import annotations

import asyncio

import pytest

from dsh_tools import Agent, Context, PendingApproval

from pipeline_support import Results
from test_pipeline_deferred_approval import Writes, approval_id_of, setup, write_call


async def test_a_call_cancelled_while_its_park_is_announced_settles_pending_and_runs_once_on_resume() -> None:
    ctx, agent, _, writes, results = setup()
    announced = asyncio.Event()

    async def slow_listener(pending: PendingApproval) -> None:
        announced.set()
        await asyncio.Event().wait()  # until cancelled

    ctx.on("tools/parked", slow_listener)
    calling = asyncio.create_task(ctx.tools.execute(write_call(agent)))
    await announced.wait()
    calling.cancel()
    with pytest.raises(asyncio.CancelledError):
        await calling

    await settled_parked_and_runs_once_on_resume(ctx, agent, results, writes)


async def settled_parked_and_runs_once_on_resume(ctx: Context, agent: Agent, results: Results, writes: Writes) -> None:
    """The cancelled call ``c1`` was heard once, as ``APPROVAL_PENDING`` with the id of its park, journaled so;
    resumed, its body runs once."""
    ((_, settled),) = results.seen
    assert settled.error is not None and settled.error.code == "APPROVAL_PENDING"
    (pending,) = await ctx.tools.pending_approvals(agent)
    assert approval_id_of(settled) == pending.approval_id
    (record,) = await ctx.tools.store.journal(call_id="c1")
    assert record.outcome == "approval-pending" and record.approval_id == pending.approval_id
    result = await ctx.tools.resume(pending.approval_id, "allowed-once")
    assert not result.is_error and len(writes.calls) == 1
