"""Parked calls: deferred approvals kept in the call store, decided anywhere, run exactly once.

A call parks when its approval service answers ``"deferred"``. What the
human needs to judge it and what resuming it needs (arguments, the tool's
description, schemas and card, the agent's name) is committed to the store
*before* the call settles ``APPROVAL_PENDING``; a deferral that cannot be
committed, or that would pass the agent's cap, settles
``APPROVAL_UNAVAILABLE`` instead, so no caller holds an id nobody can resume.

A verdict is recorded with ``store.decide`` by anyone (a UI, a CLI, another
replica). Running the call is separate and happens where its agent lives:
the process claims the record atomically (one claimant wins; the rest get
``KeyError``), holds a lease it renews while the call runs, and marks it
done when it settles. A claim whose lease lapsed is never run again; the
store lists it as interrupted.

Before a call that was allowed runs, the approval is checked against what
the human saw: the tool the agent resolves now must have the fingerprint of
the parked one, and the agent must still be offered the call; otherwise it
settles ``APPROVAL_STALE``.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Final, cast

import orjson

from dsh_tools.approval import PendingApproval
from dsh_tools.errors import ApprovalStaleError, ApprovalUnavailableError, safe_str
from dsh_tools.execution import ToolExecution, mint_idempotency_key, ToolExecutionResult
from dsh_tools.context.context import Agent, live_agent
from dsh_tools.json_values import FrozenJson, JsonValue, thaw_json
from dsh_tools.pipeline.cancellation import cancel_requested
from dsh_tools.pipeline.outcomes import Settled, exception_result
from dsh_tools.tool_types import RegisteredTool
from dsh_tools.call_store import CallStore
from dsh_tools.call_records import ParkedCall, ThreadSlot

if TYPE_CHECKING:
    from dsh_tools.context.ports import ToolsPort

__all__ = ["DEFAULT_LEASE_SECONDS", "DEFAULT_MAX_PARKED", "ParkingLot", "fingerprint"]

DEFAULT_MAX_PARKED: Final = 100
"""``max_parked_per_agent``'s default: undecided or not yet run parked calls one agent may hold."""

DEFAULT_LEASE_SECONDS: Final = 30.0
"""How long a claim on a parked call lasts unless its process renews it (it does, at a third of this)."""

OWNER: Final = secrets.token_hex(8)
"""This process's name on the claims it takes."""


def fingerprint(tool: RegisteredTool) -> str:
    """What the human approved, in one hash: name, description, parameters and output schema.

    A body changed under an identical schema is not detected (nothing outside
    the process can see a body).
    """
    seen = [tool.name, tool.description, thaw_json(tool.parameters), thaw_json(tool.output_schema)]
    return hashlib.sha256(orjson.dumps(seen)).hexdigest()


def _card(tool: RegisteredTool, arguments: JsonValue) -> JsonValue | None:
    """The tool's own presentation of the call, as JSON, or ``None`` (none, or it failed)."""
    if tool.present_call is None:
        return None
    try:
        view = tool.present_call(arguments)
        return None if view is None else view.to_json()
    except Exception:  # noqa: BLE001 - a card is a courtesy; the parked call does not depend on it
        return None


class ParkingLot:
    """The registry's side of parked calls, over whatever store it was given."""

    def __init__(
        self, store: CallStore, *, max_per_agent: int, lease_seconds: float, ttl_seconds: float | None = None
    ) -> None:
        self.store = store
        self.max_per_agent = max_per_agent
        self.lease_seconds = lease_seconds
        self.ttl_seconds = ttl_seconds
        """How long a parked call waits for a verdict before it expires (``None``: for ever)."""

    async def park(
        self,
        tools: ToolsPort,
        execution: ToolExecution,
        reason: str | None,
        parent: str | None,
        *,
        hold: bool = False,
        slot: ThreadSlot | None = None,
    ) -> ParkedCall:
        """Commit ``execution`` as a parked call and return it as stored; raise if it cannot wait.

        ``hold``: a Code Mode sub-call, kept out of sight until its program is
        attached (``ParkState``): a reader never sees one without the other.
        ``slot``: the thread slot the call's settlement fills (the park marks
        it waiting, in the same commit).
        """
        agent = execution.agent
        if agent is None:
            raise ValueError("the call has no agent, and a parked call belongs to an agent")
        if agent.ctx.disposed:
            raise RuntimeError(f"agent {agent.name!r} is disposed")
        tool = tools.resolve(execution.name, agent)
        if tool is None:
            raise ApprovalUnavailableError(f'tool "{execution.name}" is no longer registered')
        now = time.time()
        call = ParkedCall(
            approval_id=secrets.token_hex(16),  # hex: an id never starts with '-', which a command line would read as an option
            agent_id=agent.id,
            agent_name=agent.name,
            call_id=execution.call_id,
            tool_name=execution.name,
            arguments=execution.arguments,
            description=tool.description,
            parameters=tool.parameters,
            fingerprint=fingerprint(tool),
            created_at=now,
            reason=reason,
            output_schema=tool.output_schema,
            card=_card(tool, execution.arguments),
            parent_call_id=parent,
            idempotency_key=execution.idempotency_key,
            state="held" if hold else "parked",
            expires_at=None if self.ttl_seconds is None else now + self.ttl_seconds,
            thread_slot=slot,
        )
        call = call.set(digest=parked_digest(call))
        try:
            kept = await _landed(self.store.park(call, max_per_agent=self.max_per_agent))
        except Exception as error:  # noqa: BLE001 - reported as the call's own denial below
            self.store.note_failure(error)
            raise ApprovalUnavailableError(
                f'tool "{execution.name}" needs approval, but the parked call could not be saved: {safe_str(error)}'
            ) from None
        if not kept:
            raise ApprovalUnavailableError(
                f'tool "{execution.name}" needs approval, but agent {agent.name!r} already has '
                f"{self.max_per_agent} calls waiting (max_parked_per_agent)"
            )
        return call

    def pending(self, tools: ToolsPort, parked: ParkedCall) -> PendingApproval:
        """The registry's view of a stored parked call (``execution.agent`` is ``None`` if no live agent holds it)."""
        agent = live_agent(tools.context, parked.agent_id)
        execution = ToolExecution(
            tools.mint_token(), parked.call_id, parked.tool_name, cast(FrozenJson, parked.arguments), agent,
            idempotency_key=parked_key(parked),
        )
        return PendingApproval(
            parked.approval_id,
            execution,
            parked.reason,
            agent_id=parked.agent_id,
            created_at=parked.created_at,
            parent_call_id=parked.parent_call_id,
            decision=parked.decision,
            expires_at=parked.expires_at,
        )

    async def run_claimed(self, tools: ToolsPort, claimed: ParkedCall, agent: Agent, execution: ToolExecution) -> ToolExecutionResult:
        """Run a call this process claimed, renewing its lease, and mark it done however it settles."""
        renewing = asyncio.get_running_loop().create_task(self._renew(claimed.approval_id))
        result: ToolExecutionResult | None = None
        try:
            result = await tools.run_parked(claimed, execution, self.stale_reason(tools, claimed, agent))
            return result
        finally:
            renewing.cancel()
            try:
                await self.store.finish(claimed.approval_id, owner=OWNER, outcome=None if result is None else result.outcome)
            except Exception as error:  # noqa: BLE001 - the call ran; its lease lapses and it is listed as interrupted
                self.store.note_failure(error)

    async def _renew(self, approval_id: str) -> None:
        while True:
            await asyncio.sleep(self.lease_seconds / 3)
            try:
                await self.store.renew(approval_id, owner=OWNER, lease_seconds=self.lease_seconds)
            except Exception as error:  # noqa: BLE001 - counted; the next renewal tries again
                self.store.note_failure(error)

    def stale_reason(self, tools: ToolsPort, parked: ParkedCall, agent: Agent) -> str | None:
        """Why the approval no longer matches what the human saw, or ``None`` if it does."""
        if parked.decision is None or parked.decision.outcome != "allowed-once":
            return None
        tool = tools.resolve(parked.tool_name, agent)
        if tool is None:
            return f'tool "{parked.tool_name}" was approved, but agent {agent.name!r} is no longer offered it'
        if fingerprint(tool) != parked.fingerprint:
            return f'tool "{parked.tool_name}" changed after it was approved; ask again'
        return tools.code_mode.stale_reason(parked.tool_name, agent) if parked.parent_call_id is None else None


def stale_result(execution: ToolExecution, reason: str) -> Settled:
    """``APPROVAL_STALE``: the approved call does not run."""
    return Settled(execution, exception_result(execution.call_id, ApprovalStaleError(reason)))


def decided_arguments(parked: ParkedCall) -> FrozenJson:
    """The arguments the call runs with: the edited ones, if the decision brought any.

    Both are frozen (records freeze their JSON fields when built).
    """
    decision = parked.decision
    if decision is not None and decision.arguments is not None:
        return cast(FrozenJson, decision.arguments)
    return cast(FrozenJson, parked.arguments)


def parked_key(parked: ParkedCall) -> str:
    """The idempotency key the call had when it parked (a record from before keys were kept gets a fresh one)."""
    return parked.idempotency_key or mint_idempotency_key()


def parked_digest(parked: ParkedCall) -> str:
    """What a resume checks a parked call against: a hash of what it would run (``RECORD_TAMPERED`` if it differs)."""
    seen = [
        parked.approval_id, parked.agent_id, parked.call_id, parked.tool_name, thaw_json(parked.arguments),
        parked.fingerprint, parked.idempotency_key, parked.parent_call_id,
    ]
    return hashlib.sha256(orjson.dumps(seen, option=orjson.OPT_SORT_KEYS)).hexdigest()


def tampered(parked: ParkedCall) -> bool:
    """Whether ``parked`` does not match the digest it was stored with (a record from before digests passes)."""
    return parked.digest is not None and parked.digest != parked_digest(parked)


async def _landed(commit: Awaitable[bool]) -> bool:
    """The store's answer to a park, even when the caller is cancelled while it commits.

    A durable store's commit may land after its caller stopped waiting (SQLite
    writes on a thread; a PostgreSQL ``COMMIT`` may already be sent), and a
    park that landed is a call a human can approve and the agent will run:
    settled "aborted before it ran", the model would be told otherwise. So the
    caller's cancellation waits for the answer (the store bounds its own
    writes), the call settles as what the store made it, and the call's
    :class:`~dsh_tools.pipeline.cancellation.CallerScope` raises the
    cancellation once the call is recorded. Only a park costs the task.
    """
    task = asyncio.ensure_future(commit)
    while True:
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.cancelled() or not cancel_requested():
                raise  # the commit itself was cancelled, or this is not the caller's cancellation
