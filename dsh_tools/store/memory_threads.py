"""Threads, remembered rules, the approval log and expiry, for :class:`~dsh_tools.store.MemoryStore`.

The same rules as the relational stores (:mod:`.thread_state`,
:mod:`.expiry`), applied to this process's memory. Every operation runs
without an ``await`` between its read and its write, which is what makes
each one atomic here (one event loop, one thread).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Final

from dsh_tools.json_values import FrozenJson
from dsh_tools.store.expiry import expired_record
from dsh_tools.call_records import (
    ApprovalEvent,
    ApprovalEventKind,
    ApprovalRule,
    CallRecord,
    ParkedCall,
    SessionEvent,
    ThreadSlot,
)
from dsh_tools.store.thread_state import Change, SlotChange, ThreadState, check_thread_id
from dsh_tools.tool_types import describe_value

if TYPE_CHECKING:
    from collections.abc import Sequence

    from dsh_tools.store.relational_threads import ThreadSnapshot

__all__ = ["MemoryThreads"]

MAX_EVENTS: Final = 10_000
"""How many approval events a ``MemoryStore`` keeps (the newest)."""


class MemoryThreads:
    """The mixin's state and operations (``MemoryStore`` calls :meth:`_init_threads` and provides the rest)."""

    _parked: dict[str, ParkedCall]
    _threads: dict[str, tuple[ThreadState, list[FrozenJson]]]
    _rules: dict[str, ApprovalRule]
    _approval_log: list[ApprovalEvent]
    _approval_seq: int
    _touched: dict[str, float]
    """Thread id -> when it last changed (``prune`` drops ready threads idle since before its time)."""

    if TYPE_CHECKING:

        def write_now(self, records: Sequence[CallRecord], events: Sequence[SessionEvent]) -> None: ...

    def _init_threads(self) -> None:
        self._threads = {}
        self._rules = {}
        self._approval_log = []
        self._approval_seq = 0
        self._touched = {}

    def _keep(self, thread_id: str, state: ThreadState, messages: list[FrozenJson]) -> None:
        self._threads[thread_id] = (state, messages)
        self._touched[thread_id] = time.time()

    # -- threads ------------------------------------------------------------------------------
    async def open_thread(self, thread_id: str) -> ThreadSnapshot:
        """The thread, created empty on first open."""
        check_thread_id(thread_id)
        found = self._threads.get(thread_id)
        if found is None:
            self._keep(thread_id, ThreadState.empty(thread_id), [])
            found = self._threads[thread_id]
        return found[0], tuple(found[1])

    async def read_thread(self, thread_id: str) -> ThreadSnapshot | None:
        check_thread_id(thread_id)
        found = self._threads.get(thread_id)
        return None if found is None else (found[0], tuple(found[1]))

    async def change_thread(self, thread_id: str, apply: Callable[[ThreadState], Change]) -> Change:
        check_thread_id(thread_id)
        found = self._threads.get(thread_id)
        if found is None:
            raise KeyError(f"no thread {thread_id!r} in this store (open_thread creates one)")
        change = apply(found[0])
        self._keep(thread_id, change[0], [*found[1], *change[1]])
        return change

    async def open_steps(self, agent_id: str) -> list[ThreadState]:
        return [state for state, _ in self._threads.values() if state.step is not None and state.agent_id == agent_id]

    def _change_slot(self, slot: ThreadSlot, change: SlotChange) -> None:
        """Keep what ``change`` (a call's park or settlement) makes of ``slot``'s thread; nothing if the slot is not open."""
        found = self._threads.get(slot.thread_id)
        changed = None if found is None else change(found[0])
        if found is not None and changed is not None:
            self._keep(slot.thread_id, changed[0], [*found[1], *changed[1]])

    def _prune_threads(self, before: float) -> int:
        gone = [k for k, (state, _) in self._threads.items() if state.status == "ready" and self._touched.get(k, 0) < before]
        for key in gone:
            del self._threads[key]
            self._touched.pop(key, None)
        return len(gone)

    # -- rules ----------------------------------------------------------------------------------
    async def rules(self, agent_id: str | None = None) -> list[ApprovalRule]:
        if agent_id is not None and type(agent_id) is not str:
            raise TypeError(f"rules(agent_id=...) takes a str or None, got {describe_value(agent_id)}")
        found = sorted(self._rules.values(), key=lambda rule: rule.created_at)
        return found if agent_id is None else [rule for rule in found if rule.agent_id == agent_id]

    async def rule_for(self, agent_id: str, tool_name: str, fingerprint: str) -> ApprovalRule | None:
        """The newest matching rule, as the relational stores read it (``_remember`` keeps one per agent and tool)."""
        found = [r for r in self._rules.values() if (r.agent_id, r.tool_name, r.fingerprint) == (agent_id, tool_name, fingerprint)]
        return max(found, key=lambda rule: rule.created_at, default=None)

    async def forget_rule(self, rule_id: str) -> None:
        if type(rule_id) is not str or self._rules.pop(rule_id, None) is None:
            raise KeyError(f"no rule {describe_value(rule_id)}")

    def _remember(self, rule: ApprovalRule) -> None:
        for key in [k for k, r in self._rules.items() if (r.agent_id, r.tool_name) == (rule.agent_id, rule.tool_name)]:
            del self._rules[key]
        self._rules[rule.rule_id] = rule

    # -- the approval log and expiry ------------------------------------------------------------
    async def approval_events(self, after: int = 0, limit: int = 1000) -> list[ApprovalEvent]:
        return [event for event in self._approval_log if event.seq > after][:limit]

    def _log(self, kind: ApprovalEventKind, parked: ParkedCall, **details: str | None) -> None:
        self._approval_seq += 1
        self._approval_log.append(ApprovalEvent.of(self._approval_seq, kind, parked, time.time(), **details))
        if len(self._approval_log) > MAX_EVENTS:
            del self._approval_log[: len(self._approval_log) - MAX_EVENTS]

    async def expire(self, approval_id: str | None = None) -> int:
        """Settle waiting calls past their time (``store/expiry.py``); how many."""
        return self._expire_now(approval_id)

    def _expire_now(self, approval_id: str | None = None) -> int:
        """``expire``: every waiting call past its time, or only ``approval_id`` (one look-up, not a scan)."""
        now = time.time()
        if approval_id is None:
            looked: Iterable[ParkedCall] = self._parked.values()
        else:
            one = self._parked.get(approval_id) if type(approval_id) is str else None
            looked = () if one is None else (one,)
        due = [p for p in looked if p.state == "parked" and p.expires_at is not None and p.expires_at < now]
        for parked in due:
            self._parked[parked.approval_id] = parked.set(state="expired")
            self._log("settled", parked, outcome="approval-expired")
            self.write_now((expired_record(parked, now),), ())  # fills its thread slot
        return len(due)
