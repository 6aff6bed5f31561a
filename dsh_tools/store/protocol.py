"""``CallStore``: what the registry needs from a store, and nothing about how it keeps it.

Three stores implement it (:class:`MemoryStore`, :class:`SqliteStore`,
:class:`PostgresStore`); a deployment may bring its own. Every method is a
coroutine because a real store does I/O, and every state change that
another process may race on (parking past a cap, deciding, claiming) is one
atomic step inside the store, never a read followed by a write in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Protocol, runtime_checkable

from dsh_tools.approval import ApprovalVerdict, Remember
from dsh_tools.json_values import FrozenJson, JsonValue
from dsh_tools.outcome import RecordOutcome
from dsh_tools.store.records import (
    ApprovalDecision, ApprovalEvent, ApprovalRule, CallRecord, InterruptedCall, ParkedCall, SessionEvent, StoreHealth,
)
from dsh_tools.store.thread_state import Change, ThreadState

__all__ = ["ApprovalLog", "CallStore", "LeaseStore", "RuleStore", "ThreadStore"]


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


@runtime_checkable
class ThreadStore(Protocol):
    """A store that keeps threads (``dsh_tools.threads``) beside the calls that answer into them.

    A settled record that carries a ``thread_slot`` and a ``thread_answer``
    fills the slot in the commit that writes the record; a parked call that
    carries one marks it waiting in the commit that parks it.
    """

    async def open_thread(self, thread_id: str) -> tuple[ThreadState, tuple[FrozenJson, ...]]:
        """The thread, created empty on first open (two processes opening a new id get one thread)."""
        ...

    async def read_thread(self, thread_id: str) -> tuple[ThreadState, tuple[FrozenJson, ...]] | None:
        """The thread as it is now, or ``None``."""
        ...

    async def change_thread(self, thread_id: str, apply: Callable[[ThreadState], Change]) -> Change:
        """Apply ``apply`` atomically (``KeyError``: no such thread; what ``apply`` raises leaves it unchanged)."""
        ...

    async def open_steps(self, agent_id: str) -> list[ThreadState]:
        """``agent_id``'s threads whose step has not settled (``recover`` looks there for calls no record names)."""
        ...


@runtime_checkable
class ApprovalLog(Protocol):
    """A store that logs parked calls' lives (``dsh-tools approvals watch``) and expires them by time."""

    async def approval_events(self, after: int = 0, limit: int = 1000) -> list[ApprovalEvent]:
        """Events logged after ``after`` (a ``seq``), oldest first."""
        ...

    async def expire(self, approval_id: str | None = None) -> int:
        """Settle the waiting calls past their ``expires_at`` as ``APPROVAL_EXPIRED``; how many."""
        ...
