"""``CallStore``: what the registry needs from a store, and nothing about how it keeps it.

Three stores implement it (:class:`~dsh_tools.store.MemoryStore`,
:class:`~dsh_tools.store.SqliteStore`, :class:`~dsh_tools.store.PostgresStore`);
a deployment may bring its own. Every method is a coroutine because a real
store does I/O, and every state change that another process may race on
(parking past a cap, deciding, claiming) is one atomic step inside the store,
never a read followed by a write in Python.

The protocol lives below the context and the registry (``dsh_tools.store``
re-exports it): ``ctx.tools.store`` is typed by it, and ``ctx.tools``'s
contract (``context/ports.py``) must not import the package that keeps the
stores. The thread and approval-log protocols stay in ``store/protocol.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import TracebackType
from typing import Protocol, runtime_checkable

from dsh_tools.approval import ApprovalVerdict, Remember
from dsh_tools.call_records import (
    ApprovalDecision, ApprovalRule, CallRecord, InterruptedCall, ParkedCall, SessionEvent, StoreHealth,
)
from dsh_tools.json_values import JsonValue
from dsh_tools.outcome import RecordOutcome

__all__ = ["CallStore", "LeaseStore", "RuleStore"]


@runtime_checkable
class CallStore(Protocol):
    """Parked calls, decisions, claims, the call journal and session events."""

    @property
    def durable(self) -> bool:
        """Whether what it keeps outlives the process (``MemoryStore``: no)."""
        ...

    # -- parked calls ---------------------------------------------------------
    async def park(self, call: ParkedCall, *, max_per_agent: int) -> bool:
        """Commit ``call``; ``False`` (and nothing written) if its agent already has ``max_per_agent`` waiting."""
        ...

    async def parked(self, *, agent_id: str | None = None) -> list[ParkedCall]:
        """Parked calls not yet run, oldest first: an agent's (decided or not), or with ``None`` every undecided one."""
        ...

    async def get_parked(self, approval_id: str) -> ParkedCall | None:
        """One parked call in whatever state it is, or ``None``."""
        ...

    async def set_program(self, approval_id: str, program: JsonValue) -> bool:
        """Attach a parked program to an undecided parked sub-call; ``False`` if it is not waiting any more."""
        ...

    async def decide(
        self,
        approval_id: str,
        outcome: ApprovalVerdict,
        *,
        arguments: JsonValue | None = None,
        decided_by: str | None = None,
        message: str | None = None,
        remember: Remember | None = None,
    ) -> ApprovalDecision:
        """Record a verdict without running anything; ``KeyError`` if unknown, decided or expired, ``ValueError`` for a bad one.

        ``message`` is what the model reads with a denial; ``remember="agent"``
        stores an :class:`ApprovalRule` in the same commit (a store without
        rules refuses it with ``ValueError``).
        """
        ...

    async def decided(self, agent_id: str) -> list[ParkedCall]:
        """``agent_id``'s decided calls that nobody has claimed yet, oldest decision first."""
        ...

    async def claim(self, approval_id: str, *, owner: str, lease_seconds: float) -> ParkedCall:
        """Atomically take a decided call to run it; ``KeyError`` unless it is decided and unclaimed."""
        ...

    async def renew(self, approval_id: str, *, owner: str, lease_seconds: float) -> bool:
        """Extend ``owner``'s lease; ``False`` if the claim is no longer ``owner``'s or has lapsed."""
        ...

    async def finish(self, approval_id: str, *, owner: str, outcome: str | None = None) -> None:
        """The claimed call settled (as ``outcome``): it is done and never runs again."""
        ...

    async def interrupted(self) -> list[InterruptedCall]:
        """Calls whose process stopped before they settled (their lease lapsed), oldest first."""
        ...

    async def take_claim(self, approval_id: str, *, owner: str) -> ParkedCall | None:
        """Atomically take a lapsed claim for ``owner`` (it is done from then on); the parked call, or ``None``."""
        ...

    async def settle_interrupted(self, call_id: str, *, decided_by: str | None) -> list[CallRecord]:
        """Settle an interrupted call as ``unknown``, running nothing; its settled records.

        ``KeyError`` for a call that is unknown, settled, or whose lease has not lapsed.
        """
        ...

    def forget_agent(self, agent_id: str) -> None:
        """The agent was disposed: a store that is not durable drops its parked calls; a durable one keeps them."""
        ...

    async def wait_for_decision(self, agent_id: str, timeout: float) -> None:
        """Return when a decision for ``agent_id`` may have arrived, or after ``timeout`` seconds."""
        ...

    # -- the journal ----------------------------------------------------------
    async def write(self, records: Sequence[CallRecord], events: Sequence[SessionEvent]) -> None:
        """Insert or replace journal records (by ``record_id``) and append session events, in one commit."""
        ...

    async def journal(
        self,
        *,
        agent_id: str | None = None,
        tool_name: str | None = None,
        call_id: str | None = None,
        parent_call_id: str | None = None,
        outcome: RecordOutcome | None = None,
        is_error: bool | None = None,
        since: float | None = None,
        limit: int = 100,
    ) -> list[CallRecord]:
        """The newest ``limit`` matching records, oldest first."""
        ...

    async def session_events(self, agent_id: str) -> list[SessionEvent]:
        """``agent_id``'s session events in append order."""
        ...

    async def prune(self, *, before: float) -> int:
        """Delete journal records that ended before ``before`` (Unix seconds), and finished parked calls; how many."""
        ...

    def health(self) -> StoreHealth:
        """Writes that failed without failing a call, and why the last one did."""
        ...

    def note_failure(self, error: BaseException) -> None:
        """Count a write that failed (the registry calls it; the call goes on)."""
        ...

    async def aclose(self) -> None:
        """Release connections and threads; idempotent."""
        ...

    async def __aenter__(self) -> CallStore: ...

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None: ...


@runtime_checkable
class LeaseStore(Protocol):
    """A store that keeps leases on running calls (the durable ones): checked at ``boot()``.

    The running record of an approved or non-idempotent call is committed,
    with its owner and a lease, before the body starts; one heartbeat per
    process renews every lease it holds; a lapsed one marks an interrupted
    call, which one process at a time may take over.
    """

    async def renew_leases(self, owner: str, *, lease_seconds: float) -> int:
        """Extend every lease ``owner`` holds on a running call; how many."""
        ...

    async def take_interrupted(self, record_id: str, *, owner: str, lease_seconds: float) -> CallRecord | None:
        """Atomically take a lapsed running call for ``owner`` (one taker wins); its record, or ``None``."""
        ...


@runtime_checkable
class RuleStore(Protocol):
    """A store that remembers decisions (``remember="agent"``): checked at ``boot()``; the bundled stores all do."""

    async def rules(self, agent_id: str | None = None) -> list[ApprovalRule]:
        """The remembered rules, oldest first (every agent's, or ``agent_id``'s)."""
        ...

    async def rule_for(self, agent_id: str, tool_name: str, fingerprint: str) -> ApprovalRule | None:
        """The rule deciding ``agent_id``'s calls of the tool with this fingerprint, if one was remembered."""
        ...

    async def forget_rule(self, rule_id: str) -> None:
        """Remove one rule (``KeyError`` if unknown): the next call of its tool asks again."""
        ...
