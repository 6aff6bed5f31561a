"""The approval seam: how an ``Ask`` decision reaches a human (or a script).

The registry looks the service up at use time (``ctx.get(APPROVAL)``), never at
construction, so a deployment without one keeps the SPEC's ask→deny degrade.

The request carries the frozen call itself (``execution``: name, arguments,
agent), so an approver can show *what* it approves ("write_file README.md,
1.2 KB") and not just a tool name. An approver that cannot answer now (a web
UI, a chat front end, an MCP client that asks later) answers ``"deferred"``:
the call is committed to the registry's store and settles ``APPROVAL_PENDING``
with an approval id; ``await ctx.tools.pending_approvals(agent)`` lists it,
``await store.decide(id, verdict)`` records a verdict from any process, and
``await ctx.tools.resume(id)`` runs it (see ``docs/durability.md``).
"""

from __future__ import annotations

from dataclasses import KW_ONLY
from typing import TYPE_CHECKING, Final, Literal, Protocol, TypeAlias

from dsh_tools.json_values import JsonValue
from dsh_tools.record import Record

if TYPE_CHECKING:
    from dsh_tools.execution import ToolExecution
    from dsh_tools.context.context import Agent
    from dsh_tools.signals import AbortSignal

__all__ = [
    "APPROVAL_VERDICTS",
    "ApprovalDecision",
    "ApprovalOutcome",
    "ApprovalRequest",
    "ApprovalService",
    "ApprovalVerdict",
    "DeferringApprovalService",
    "PendingApproval",
    "Remember",
]

ApprovalVerdict: TypeAlias = Literal["allowed-once", "rejected", "cancelled", "unavailable"]
"""A final answer: the call runs (``"allowed-once"``) or is denied with its own text."""

ApprovalOutcome: TypeAlias = Literal["allowed-once", "rejected", "cancelled", "unavailable", "deferred"]
"""What an approval service answers: a verdict, or ``"deferred"`` to park the call for later."""

Remember: TypeAlias = Literal["agent"]
"""What a decision may be remembered for: ``"agent"``, later calls of the same tool by the same agent id."""

APPROVAL_VERDICTS: Final[tuple[str, ...]] = ("allowed-once", "rejected", "cancelled", "unavailable")
"""The verdicts ``resume`` accepts (``"deferred"`` is not one: a parked call is answered, not parked again)."""


class ApprovalDecision(Record):
    """A verdict on a parked call, recorded by whoever made it (a UI, a CLI, another replica).

    ``arguments`` are edited arguments (only with ``"allowed-once"``); the
    parked record keeps the original ones beside them. ``message`` goes with a
    denial and is what the model reads (``the user rejected tool "NAME":
    <message>``); ``rule_id`` names the :class:`~dsh_tools.store.ApprovalRule`
    the decision was remembered as (``remember="agent"``), so later calls of
    that tool by that agent are decided alike without asking.
    """

    _json_fields = frozenset({"arguments"})
    approval_id: str
    outcome: ApprovalVerdict
    arguments: JsonValue | None = None
    decided_by: str | None = None
    decided_at: float = 0.0
    message: str | None = None
    rule_id: str | None = None


class ApprovalRequest(Record):
    """One question to the approver: may ``agent`` run this call (``execution``, arguments included)?"""

    _wire_skip = frozenset({"agent", "signal"})
    agent: Agent
    tool_name: str
    call_id: str
    reason: str | None = None
    signal: AbortSignal | None = None
    _: KW_ONLY  # not a field (the Record metaclass skips "_" names); tells mypy what follows is keyword-only
    execution: ToolExecution


class ApprovalService(Protocol):
    """Answers approval requests; only ``"allowed-once"`` lets the call run now, ``"deferred"`` parks it."""

    async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome: ...


class DeferringApprovalService:
    """Parks every request in the registry's store: a human decides later, from any process.

    ``boot(approval="defer")`` provides one. The call settles
    ``APPROVAL_PENDING`` with an approval id at once; a UI, the CLI
    (``dsh-tools approvals``) or ``store.decide`` records the verdict, and
    ``resume`` runs it (see ``docs/durability.md``).
    """

    async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome:
        return "deferred"


class PendingApproval(Record):
    """A parked call waiting for a verdict (or to run after one): what ``pending_approvals()`` lists.

    ``execution.agent`` is the live agent holding the call, or ``None`` when no
    agent with ``agent_id`` lives in this process (it parked in another one,
    or before a restart). ``parent_call_id`` is the ``run_code`` call of a
    Code Mode sub-call; ``decision`` is the verdict once someone recorded it.
    """

    approval_id: str
    execution: ToolExecution
    reason: str | None = None
    agent_id: str = ""
    created_at: float = 0.0
    parent_call_id: str | None = None
    decision: ApprovalDecision | None = None
    expires_at: float | None = None
    """When an undecided call expires (``boot(approval_ttl_seconds=...)``); ``None``: it waits for ever."""

    @property
    def tool_name(self) -> str:
        """The parked call's tool (as ``InterruptedCall.tool_name`` reads)."""
        return self.execution.name
