"""``ctx.tools.recover(agent)``: settle the calls a stopped process left running.

A process that dies mid-call leaves the call's record ``"running"`` with a
lease nobody renews (:mod:`.leases`). Once the lease lapsed, the store lists
it (``store.interrupted()``), and a process holding the agent settles it:

* a call of an **idempotent** tool runs again, with the same
  ``idempotency_key``, through the staleness check (the tool must still be
  the one the call ran), the guards, dispatch and post-execute (not the
  approval again: it was approved, or needed none);
* **any other call**, ``run_code`` included, settles ``TOOL_OUTCOME_UNKNOWN``
  (outcome ``"unknown"``): its body may or may not have had its effect, so it
  is not run again. A program's text lists the sub-calls the journal shows
  ran.
* a call of a **thread's step** that no record names (its process died
  between committing the step and the call's first record) settles
  ``TOOL_OUTCOME_UNKNOWN`` in its slot once the step's lease lapsed.

Each call is first *taken* in the store, atomically, so of several processes
recovering one agent at once, one settles each call. The settlement writes
the interrupted record itself; if its first owner wakes after all, its late
write becomes the record's ``late_note``, never a second outcome. A call whose
dispatch went to a queue (a DBOS worker's) is asked about first: when the
queue holds a dispatch of it, with the same idempotency key, that is not
cancelled, the call settles with that dispatch's result (awaited if it still
runs), and nothing is decided here.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Final

from returns.result import Failure, Success

from dsh_tools.code_mode import RUN_CODE_NAME
from dsh_tools.context.context import Agent
from dsh_tools.dbos.seam import dispatcher_of
from dsh_tools.errors import ToolOutcomeUnknownError
from dsh_tools.execution import ToolExecution, ToolExecutionResult, mint_idempotency_key
from dsh_tools.json_values import FrozenJson, freeze_json
from dsh_tools.pipeline.compose import close_call, continue_call
from dsh_tools.pipeline.outcomes import Settled, exception_result
from dsh_tools.pipeline.plan import plan_call
from dsh_tools.pipeline.resume import AFTER_APPROVAL
from dsh_tools.registry.approvals import OWNER, fingerprint
from dsh_tools.store.error_records import slot_records
from dsh_tools.store.interrupted import claim_record, finish_claim
from dsh_tools.call_store import CallStore, LeaseStore
from dsh_tools.store.protocol import ThreadStore
from dsh_tools.call_records import CallRecord, InterruptedCall, ThreadSlot
from dsh_tools.store.thread_state import orphaned
from dsh_tools.content import text_block

if TYPE_CHECKING:
    from dsh_tools.context.ports import ToolsPort

__all__ = ["QueuedResult", "recover"]

QueuedResult = Callable[[str], Awaitable[ToolExecutionResult | None]]
"""A queue's answer for an idempotency key: the result of its dispatch of that call, or ``None`` (none held)."""

_SETTLED_BY_QUEUE: Final = frozenset({"ENQUEUED", "PENDING", "SUCCESS", "ERROR"})
"""DBOS states in which the queue, not this recovery, has the call's result."""


async def recover(tools: ToolsPort, agent: Agent, *, lease_seconds: float) -> list[ToolExecutionResult]:
    """Settle every lapsed call of ``agent`` (see the module docstring); their results, oldest first."""
    if type(agent) is not Agent:
        raise TypeError(f"recover() takes an Agent, got {type(agent).__name__}")
    queued = await _queued_results(tools, agent)
    results: list[ToolExecutionResult] = []
    for call in await tools.store.interrupted():
        if call.agent_id != agent.id:
            continue
        record = await _take(tools, call, lease_seconds)
        if record is not None:
            result = await _settle(tools, agent, record, queued)
            await finish_claim(tools.store, call, owner=OWNER, outcome=result.outcome)
            results.append(result)
    results.extend(await _orphans(tools.store, agent))
    return results


async def _queued_results(tools: ToolsPort, agent: Agent) -> QueuedResult | None:
    """How to ask the queue about ``agent``'s calls, if its registry routes any (asked once per recovery)."""
    dispatcher = dispatcher_of(tools)
    if dispatcher is None:
        return None
    held = {call.idempotency_key: call for call in await dispatcher.queued_calls_of(agent.id)}  # the latest dispatch wins

    async def result_of(key: str) -> ToolExecutionResult | None:
        call = held.get(key)
        if call is None or call.status not in _SETTLED_BY_QUEUE:
            return None
        return await dispatcher.result_of(call)

    return result_of


async def _orphans(store: object, agent: Agent) -> list[ToolExecutionResult]:
    """Settle the calls of ``agent``'s thread steps that no journal record names, once the step's lease lapsed.

    Its process died between committing the turn's step and the call's first
    record (a call still in its policy, or queued behind an exclusive
    sibling): nothing else knows of the call. It may have started its body
    (an idempotent call's record is written within the journal's window), so
    it settles ``TOOL_OUTCOME_UNKNOWN``, in its slot.
    """
    if not isinstance(store, ThreadStore) or not isinstance(store, CallStore):
        return []
    settled: list[ToolExecutionResult] = []
    now = time.time()
    for state in await store.open_steps(agent.id):
        step = state.step
        assert step is not None  # open_steps lists open steps
        loose = []
        for index in orphaned(state, now):
            slot = ThreadSlot(state.thread_id, step.number, index)
            named = await store.journal(call_id=step.call_ids[index], agent_id=agent.id, limit=1000)
            if not any(r.thread_slot == slot for r in named):  # else the interrupted calls above settle it, or it settled
                loose.append(index)
        records = slot_records(state, loose, ToolOutcomeUnknownError, "unknown", kind="orphan", owner=OWNER)
        if records:
            await store.write(records, ())  # one commit: the slots fill, and the step's answer with the last
        settled.extend(exception_result(r.call_id, ToolOutcomeUnknownError(r.tool_name)) for r in records)
    return settled


async def _take(tools: ToolsPort, call: InterruptedCall, lease_seconds: float) -> CallRecord | None:
    """Take ``call`` for this process (``None``: another process took it first)."""
    store = tools.store
    if call.kind == "running" and call.record_id is not None:
        if not isinstance(store, LeaseStore):
            return None
        return await store.take_interrupted(call.record_id, owner=OWNER, lease_seconds=lease_seconds)
    if call.approval_id is None:
        return None
    parked = await store.take_claim(call.approval_id, owner=OWNER)
    return claim_record(parked, owner=OWNER) if parked is not None else None


async def _settle(
    tools: ToolsPort, agent: Agent, record: CallRecord, queued: QueuedResult | None
) -> ToolExecutionResult:
    """Settle ``record``'s call: the queue's result, else again if it may run twice, else unknown; in its own record."""
    arguments = _whole(record.arguments)
    execution = ToolExecution._carrying(
        {"arguments": arguments}, tools.mint_token(), record.call_id, record.tool_name, agent=agent,
        idempotency_key=record.idempotency_key or mint_idempotency_key(),
    )
    plan = plan_call(tools, execution)
    state = plan.state
    state.record_id, state.approval_id, state.parent_call_id = record.record_id, record.approval_id, record.parent_call_id
    state.thread_slot = record.thread_slot  # the settlement fills the thread slot the call left open
    if queued is not None and record.idempotency_key is not None:
        from_queue = await queued(record.idempotency_key)
        if from_queue is not None:  # its dispatch's result: what follows dispatch (post-execute, spilling) runs here
            settled = await close_call(plan, execution, from_queue.set(call_id=execution.call_id))
            return await continue_call(plan, Failure(settled), ())
    tool = plan.tool
    again = (
        tool is not None
        and tool.idempotent
        and record.tool_name != RUN_CODE_NAME
        and arguments is not None
        and (record.fingerprint is None or record.fingerprint == fingerprint(tool))
    )
    if again:
        state.approved = record.approval_id is not None
        return await continue_call(plan, Success(execution), AFTER_APPROVAL)
    detail = await _what_ran(tools, record) if record.tool_name == RUN_CODE_NAME else ""
    unknown = exception_result(execution.call_id, ToolOutcomeUnknownError(record.tool_name))
    if detail:
        unknown = unknown.set(content=(*unknown.content, text_block(detail)))
    return await continue_call(plan, Failure(Settled(execution, unknown)), ())


def _whole(arguments: object) -> FrozenJson | None:
    """The recorded arguments, or ``None`` when the journal kept only their preview (too large to run again)."""
    if isinstance(arguments, dict) and "$preview" in arguments and "$bytes" in arguments:
        return None
    frozen = freeze_json(arguments)
    return None if type(frozen) is Failure else frozen.unwrap()


async def _what_ran(tools: ToolsPort, record: CallRecord) -> str:
    """For an interrupted program: the sub-calls the journal shows ran, so a model knows which effects happened."""
    subs = await tools.store.journal(parent_call_id=record.call_id, limit=1000)
    ran = [sub for sub in subs if sub.agent_id == record.agent_id]
    if not ran:
        return "the journal shows none of the program's calls ran"
    lines = ["the program's calls the journal shows:"]
    lines.extend(f"- {sub.tool_name} (call {sub.call_id}): {sub.outcome}" for sub in ran)
    return "\n".join(lines)
