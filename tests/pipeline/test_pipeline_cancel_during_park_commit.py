"""Cancelling a call while its park is being committed: a park that lands settles the call as parked.

A durable store's commit may land after the caller stopped waiting for it
(SQLite writes on a thread, a PostgreSQL ``COMMIT`` already sent). A parked
row behind a call settled ``ABORTED_BEFORE_DISPATCH`` ("no policy, no body")
would be a call a human can still approve and the agent can still run,
after the model was told it never ran. So the registry waits for the commit
to answer: the call settles ``APPROVAL_PENDING`` with its approval id (heard
once, journaled), and then the ``CancelledError`` goes on.
"""

from __future__ import annotations

import asyncio

import pytest

from dsh_tools import APPROVAL, Agent, boot
from dsh_tools.call_records import ParkedCall
from dsh_tools.store import MemoryStore

from pipeline_support import Results
from test_pipeline_cancel_while_parking import settled_parked_and_runs_once_on_resume
from test_pipeline_deferred_approval import Approver, Writes, ask_for_writes, write_call


class CommitsLate(MemoryStore):
    """A store whose park commits when the test lets it, whether or not its caller still waits."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def park(self, call: ParkedCall, *, max_per_agent: int) -> bool:
        self.entered.set()
        return await asyncio.shield(self._commit(call, max_per_agent))  # as a thread's write: it lands anyway

    async def _commit(self, call: ParkedCall, max_per_agent: int) -> bool:
        await self.release.wait()
        return await super().park(call, max_per_agent=max_per_agent)


async def test_a_call_cancelled_while_its_park_commits_settles_pending_and_runs_once_on_resume() -> None:
    store = CommitsLate()
    ctx = boot(store=store)
    ctx.provide(APPROVAL, Approver("deferred"))
    writes = Writes()
    ctx.tools.register(writes.definition())  # type: ignore[arg-type]
    ctx.on("tools/pre-execute", ask_for_writes)
    agent, results = Agent(ctx, name="writer"), Results(ctx)

    calling = asyncio.create_task(ctx.tools.execute(write_call(agent)))
    await store.entered.wait()
    calling.cancel()
    await asyncio.sleep(0)  # the cancellation reaches the call while its park is still being committed
    store.release.set()
    with pytest.raises(asyncio.CancelledError):
        await calling

    await settled_parked_and_runs_once_on_resume(ctx, agent, results, writes)
