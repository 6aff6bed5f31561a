"""Parked calls: deferred approvals waiting for a verdict, each tied to its agent's lifetime.

A call parks when its approval service answers ``"deferred"``. It stays here,
under an unguessable approval id, until exactly one of two things happens:
``take`` hands it to ``ToolRegistry.resume`` (once: the entry is removed
before anything is awaited, so a concurrent second resume finds nothing), or
its agent is disposed and the entry is dropped with it. Nothing is emitted
when it is dropped: the call's one recorded result stays ``APPROVAL_PENDING``,
which is true (it never ran), and a disposer is synchronous, so it could not
await observers anyway.
"""

from __future__ import annotations

import secrets

from dsh_tools.approval import PendingApproval
from dsh_tools.disposer import Disposer
from dsh_tools.execution import ToolExecution
from dsh_tools.host.context import Agent
from dsh_tools.schema import describe_value

__all__ = ["PendingApprovals"]


class PendingApprovals:
    """The parked calls of one registry, by approval id, in the order they parked."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[str, tuple[PendingApproval, Disposer]] = {}

    def park(self, execution: ToolExecution, reason: str | None) -> str:
        """Keep ``execution`` until it is taken or its agent is disposed; its new approval id."""
        agent = execution.agent
        if agent is None:
            raise ValueError("the call has no agent, and a pending approval lives as long as its agent")
        if agent.ctx.disposed:
            raise RuntimeError(f"agent {agent.name!r} is disposed")
        approval_id = secrets.token_urlsafe(16)
        entries = self._entries

        def drop() -> None:
            entries.pop(approval_id, None)

        forget = agent.ctx.track(drop)
        entries[approval_id] = (PendingApproval(approval_id, execution, reason), forget)
        return approval_id

    def of(self, agent: Agent) -> list[PendingApproval]:
        """``agent``'s parked calls, oldest first."""
        return [pending for pending, _ in self._entries.values() if pending.execution.agent is agent]

    def take(self, approval_id: object) -> PendingApproval:
        """Remove and return one parked call; ``KeyError`` if there is none under that id."""
        entry = self._entries.pop(approval_id, None) if type(approval_id) is str else None
        if entry is None:
            raise KeyError(f"no pending approval {describe_value(approval_id)}: unknown, already resumed, or its agent was disposed")
        pending, forget = entry
        forget()  # the agent's lifetime no longer needs to drop it
        return pending
