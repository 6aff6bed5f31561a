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

Each call is first *taken* in the store, atomically, so of several processes
recovering one agent at once, one settles each call. The settlement writes
the interrupted record itself; if its first owner wakes after all, its late
write becomes the record's ``late_note``, never a second outcome. Queued
calls (a DBOS worker's) are asked about first, through whatever recovery a
queue integration hands the registry.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from returns.result import Failure, Success

from dsh_tools.code_mode import RUN_CODE_NAME
from dsh_tools.context.context import Agent
from dsh_tools.errors import ToolOutcomeUnknownError
from dsh_tools.execution import ToolExecution, ToolExecutionResult, mint_idempotency_key
from dsh_tools.json_values import FrozenJson, freeze_json
from dsh_tools.pipeline.compose import continue_call
from dsh_tools.pipeline.outcomes import Settled, exception_result
from dsh_tools.pipeline.plan import plan_call
from dsh_tools.pipeline.resume import AFTER_APPROVAL
from dsh_tools.registry.approvals import OWNER, fingerprint
from dsh_tools.store.interrupted import claim_record
from dsh_tools.store.protocol import LeaseStore
from dsh_tools.store.records import CallRecord, InterruptedCall
from dsh_tools.content import text_block

if TYPE_CHECKING:
    from dsh_tools.registry.registry import ToolRegistry

__all__ = ["QueuedRecovery", "recover"]

QueuedRecovery = Callable[[Agent], Awaitable[Sequence[ToolExecutionResult]]]
"""A queue integration's own recovery of an agent's queued calls (asked before the store's interrupted calls)."""


async def recover(
    tools: ToolRegistry, agent: Agent, *, lease_seconds: float, queued: QueuedRecovery | None = None
) -> list[ToolExecutionResult]:
    """Settle every lapsed call of ``agent`` (see the module docstring); their results, oldest first."""
    if type(agent) is not Agent:
        raise TypeError(f"recover() takes an Agent, got {type(agent).__name__}")
    results: list[ToolExecutionResult] = list(await queued(agent)) if queued is not None else []
    store = tools.store
    for call in await store.interrupted():
        if call.agent_id != agent.id:
            continue
        record = await _take(tools, call, lease_seconds)
        if record is not None:
            results.append(await _settle(tools, agent, record))
    return results


async def _take(tools: ToolRegistry, call: InterruptedCall, lease_seconds: float) -> CallRecord | None:
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


async def _settle(tools: ToolRegistry, agent: Agent, record: CallRecord) -> ToolExecutionResult:
    """Run ``record``'s call again if it may run twice, else settle it unknown; either way in its own record."""
    arguments = _whole(record.arguments)
    execution = ToolExecution._carrying(
        {"arguments": arguments}, tools.mint_token(), record.call_id, record.tool_name, agent=agent,
        idempotency_key=record.idempotency_key or mint_idempotency_key(),
    )
    plan = plan_call(tools, execution)
    state = plan.state
    state.record_id, state.approval_id, state.parent_call_id = record.record_id, record.approval_id, record.parent_call_id
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


async def _what_ran(tools: ToolRegistry, record: CallRecord) -> str:
    """For an interrupted program: the sub-calls the journal shows ran, so a model knows which effects happened."""
    subs = await tools.store.journal(parent_call_id=record.call_id, limit=1000)
    ran = [sub for sub in subs if sub.agent_id == record.agent_id]
    if not ran:
        return "the journal shows none of the program's calls ran"
    lines = ["the program's calls the journal shows:"]
    lines.extend(f"- {sub.tool_name} (call {sub.call_id}): {sub.outcome}" for sub in ran)
    return "\n".join(lines)
