"""The approval seam: how an ``Ask`` decision reaches a human (or a script).

The registry looks the service up at use time (``ctx.get(APPROVAL)``), never at
construction, so a deployment without one keeps the SPEC's ask→deny degrade.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

from dsh_tools.record import Record

if TYPE_CHECKING:
    from dsh_tools.host.context import Agent
    from dsh_tools.signals import AbortSignal

__all__ = ["ApprovalOutcome", "ApprovalRequest", "ApprovalService"]

ApprovalOutcome = Literal["allowed-once", "rejected", "cancelled", "unavailable"]


class ApprovalRequest(Record):
    """One question to the approver: may ``agent`` run ``tool_name`` for ``call_id``?"""

    _wire_skip = frozenset({"agent", "signal"})
    agent: Agent
    tool_name: str
    call_id: str
    reason: str | None = None
    signal: AbortSignal | None = None


class ApprovalService(Protocol):
    """Answers approval requests; only ``"allowed-once"`` lets the call run."""

    async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome: ...
