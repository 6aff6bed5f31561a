"""The stores' protocols: ``CallStore`` (with ``LeaseStore`` and ``RuleStore``, kept in :mod:`dsh_tools.call_store` and
re-exported here), and the ones only the store package and threads name: ``ThreadStore`` and ``ApprovalLog``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from dsh_tools.approval import (
    ApprovalDecision as ApprovalDecision, ApprovalVerdict as ApprovalVerdict, Remember as Remember,
)
from dsh_tools.json_values import FrozenJson, JsonValue as JsonValue
from dsh_tools.outcome import RecordOutcome as RecordOutcome
from dsh_tools.call_store import CallStore as CallStore, LeaseStore as LeaseStore, RuleStore as RuleStore
from dsh_tools.call_records import (  # the records the protocols name, importable here as they always were
    ApprovalEvent as ApprovalEvent,
    ApprovalRule as ApprovalRule,
    CallRecord as CallRecord,
    InterruptedCall as InterruptedCall,
    ParkedCall as ParkedCall,
    SessionEvent as SessionEvent,
    StoreHealth as StoreHealth,
)
from dsh_tools.store.thread_state import Change, ThreadState

__all__ = ["ApprovalLog", "CallStore", "LeaseStore", "RuleStore", "ThreadStore"]


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
