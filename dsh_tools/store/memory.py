"""``MemoryStore``: the default store, in this process's memory, bounded.

It keeps exactly what the durable stores keep and obeys the same rules
(atomic claims, the parked cap, previews), so code written against it moves
to :class:`SqliteStore` or :class:`PostgresStore` unchanged. What it cannot do
is outlive the process: disposing an agent drops its parked calls, and the
journal is a ring of the newest ``max_records`` records.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Sequence
from itertools import chain, islice
from typing import Final, Protocol

from pyrsistent import pmap

from dsh_tools.json_values import JsonValue
from dsh_tools.store.base import DEFAULT_MAX_VALUE_BYTES, StoreBase, bounded, checked_before
from dsh_tools.store.changes import MAX_CHANGED, ChangeCursor, StoreChanges, diff_marks, record_mark
from dsh_tools.store.interrupted import interrupted_claim, late_note
from dsh_tools.store.memory_threads import MemoryThreads
from dsh_tools.approval import ApprovalDecision
from dsh_tools.call_records import ApprovalRule, CallRecord, InterruptedCall, JournalQuery, ParkedCall, SessionEvent
from dsh_tools.store.spilled import SpilledPage, check_locator, check_page, page_of, valid_locator
from dsh_tools.store.thread_state import slot_filled, slot_parked

__all__ = ["DEFAULT_MAX_RECORDS", "MemoryStore", "RunningSource", "UnmadeRecord"]


class RunningSource(Protocol):
    """What holds calls that are running: it makes their ``"running"`` records when the store is read."""

    def running_records(self) -> list[CallRecord]: ...


class UnmadeRecord(Protocol):
    """A settled call's facts, kept in the ring until somebody reads it (:meth:`MemoryStore.write_settled`)."""

    @property
    def record_id(self) -> str: ...
    @property
    def owner(self) -> str | None: ...
    @property
    def ended_at(self) -> float: ...
    def keep_within(self, max_bytes: int) -> None: ...
    def record(self) -> CallRecord: ...

DEFAULT_MAX_RECORDS: Final = 10_000
"""How many journal records (and session events per agent) a ``MemoryStore`` keeps, newest last."""
DEFAULT_MAX_SPILLED_BYTES: Final = 256 << 20
"""How many bytes (UTF-8) of spilled results a ``MemoryStore`` keeps; past it the oldest values go first."""

_WAITING: Final = ("parked", "decided")


class MemoryStore(MemoryThreads, StoreBase):
    """Everything in RAM, bounded; see the module docstring."""

    def __init__(
        self,
        *,
        max_records: int = DEFAULT_MAX_RECORDS,
        max_value_bytes: int = DEFAULT_MAX_VALUE_BYTES,
        max_spilled_bytes: int = DEFAULT_MAX_SPILLED_BYTES,
    ) -> None:
        super().__init__(max_value_bytes=max_value_bytes)
        if type(max_records) is not int or max_records < 1:
            raise ValueError("max_records must be a positive int")
        if type(max_spilled_bytes) is not int or max_spilled_bytes < 0:
            raise ValueError("max_spilled_bytes must be an int >= 0")
        self.max_records = max_records
        self.max_spilled_bytes = max_spilled_bytes
        # locator -> (agent id, text, its UTF-8 size, when kept), oldest first
        self._spilled: OrderedDict[str, tuple[str, str, int, float]] = OrderedDict()
        self._spilled_bytes = 0
        self._parked: dict[str, ParkedCall] = {}
        # The journal ring, oldest first: records, and settled calls whose record is made when first read.
        self._records: OrderedDict[str, CallRecord | UnmadeRecord] = OrderedDict()
        self._written = 0  # records written ever: ``changes`` takes that many from the end of the ring
        self._running_sources: weakref.WeakSet[RunningSource] = weakref.WeakSet()
        self._events: dict[str, deque[SessionEvent]] = {}
        self._decisions = asyncio.Event()
        self._init_threads()

    @property
    def durable(self) -> bool:
        return False

    async def park(self, call: ParkedCall, *, max_per_agent: int) -> bool:
        waiting = sum(1 for p in self._parked.values() if p.agent_id == call.agent_id and p.state in _WAITING)
        if waiting >= max_per_agent:
            return False
        self._parked[call.approval_id] = call
        if call.state == "parked":
            self._log("parked", call)
        slot = call.thread_slot
        if slot is not None:
            self._change_slot(slot, lambda state: slot_parked(state, slot, call.approval_id))
        return True

    async def parked(self, *, agent_id: str | None = None) -> list[ParkedCall]:
        self._expire_now()
        if agent_id is None:
            return [p for p in self._parked.values() if p.state == "parked"]
        return [p for p in self._parked.values() if p.agent_id == agent_id and p.state in _WAITING]

    async def get_parked(self, approval_id: str) -> ParkedCall | None:
        if type(approval_id) is not str:
            return None
        self._expire_now(approval_id)
        return self._parked.get(approval_id)

    async def set_program(self, approval_id: str, program: JsonValue) -> bool:
        parked = self._parked.get(approval_id)
        if parked is None or parked.state not in ("held", "parked"):
            return False
        self._parked[approval_id] = parked.set(program=program, state="parked")
        self._log("parked", parked)
        return True

    async def _decide(self, decision: ApprovalDecision) -> None:
        self._expire_now(decision.approval_id)  # past its time, it is settled expired and refused
        parked = self._parked.get(decision.approval_id)
        if parked is None or parked.state != "parked":
            raise KeyError(f"no undecided parked call {decision.approval_id!r} (unknown, decided, or expired)")
        self._parked[decision.approval_id] = parked.set(decision=decision, state="decided")
        rule = ApprovalRule.of(decision, parked)
        if rule is not None:
            self._remember(rule)
        self._log("decided", parked, outcome=decision.outcome, decided_by=decision.decided_by, message=decision.message)
        self._decisions.set()

    async def decided(self, agent_id: str) -> list[ParkedCall]:
        self._expire_now()
        found = [p for p in self._parked.values() if p.agent_id == agent_id and p.state == "decided"]
        return sorted(found, key=_decided_at)

    async def claim(self, approval_id: str, *, owner: str, lease_seconds: float) -> ParkedCall:
        parked = self._parked.get(approval_id) if type(approval_id) is str else None
        if parked is None or parked.state != "decided":
            raise KeyError(f"parked call {approval_id!r} is not waiting to run (unknown, undecided, or taken)")
        claimed = parked.set(state="claimed", claimed_by=owner, lease_until=time.time() + lease_seconds)
        self._parked[approval_id] = claimed
        return claimed

    async def renew(self, approval_id: str, *, owner: str, lease_seconds: float) -> bool:
        parked = self._parked.get(approval_id)
        now = time.time()
        if parked is None or parked.state != "claimed" or parked.claimed_by != owner or (parked.lease_until or 0) < now:
            return False
        self._parked[approval_id] = parked.set(lease_until=now + lease_seconds)
        return True

    async def finish(self, approval_id: str, *, owner: str, outcome: str | None = None) -> None:
        parked = self._parked.get(approval_id)
        if parked is not None and parked.claimed_by == owner:
            self._parked[approval_id] = parked.set(state="done")
            if outcome is not None:
                self._log("settled", parked, outcome=outcome)

    async def interrupted(self) -> list[InterruptedCall]:
        """Lapsed claims only: a ``MemoryStore`` keeps no leases on running calls (its process is the only one)."""
        now = time.time()
        return [
            interrupted_claim(p) for p in self._parked.values()
            if p.state == "interrupted" or (p.state == "claimed" and (p.lease_until or 0) < now)
        ]

    async def take_claim(self, approval_id: str, *, owner: str) -> ParkedCall | None:
        parked = self._parked.get(approval_id) if type(approval_id) is str else None
        lapsed = parked is not None and (
            parked.state == "interrupted" or (parked.state == "claimed" and (parked.lease_until or 0) < time.time())
        )
        if parked is None or not lapsed:
            return None
        taken = self._parked[approval_id] = parked.set(state="done", claimed_by=owner)
        return taken

    def forget_agent(self, agent_id: str) -> None:
        for approval_id in [k for k, p in self._parked.items() if p.agent_id == agent_id]:
            del self._parked[approval_id]

    async def wait_for_decision(self, agent_id: str, timeout: float) -> None:
        self._decisions.clear()
        try:
            async with asyncio.timeout(timeout):
                await self._decisions.wait()
        except TimeoutError:
            pass

    async def write(self, records: Sequence[CallRecord], events: Sequence[SessionEvent]) -> None:
        self.write_now(records, events)

    def write_settled(self, settled: UnmadeRecord) -> None:
        """Keep a settled call whose record is made (and bounded) only when the journal is read.

        The journal's fast path for this store: most records of a ring are
        never read, so a call does not pay to make one. What a reader gets is
        what :meth:`write_now` would have kept (tests hold the two equal); a
        record id already kept takes the plain path, for its late note.
        """
        kept = self._records
        if settled.record_id in kept:
            self.write_now((settled.record(),), ())
            return
        settled.keep_within(self.max_value_bytes)  # what the ring holds is bounded now, as a record would be
        self._written += 1
        kept[settled.record_id] = settled
        if len(kept) > self.max_records:
            kept.popitem(last=False)

    def _made(self, kept: CallRecord | UnmadeRecord) -> CallRecord:
        """A ring entry as a record: an unmade one (bounded when it was kept) is made now, and kept made."""
        if isinstance(kept, CallRecord):
            return kept
        record = kept.record()
        self._records[record.record_id] = record  # its place in the ring is kept
        return record

    def write_now(self, records: Sequence[CallRecord], events: Sequence[SessionEvent]) -> None:
        """``write``, synchronously: the journal's fast path for this store (nothing to await)."""
        kept = self._records
        self._written += len(records)
        for record in records:
            earlier = kept.get(record.record_id)
            if earlier is not None and earlier.owner is not None and earlier.owner != record.owner:
                record = self._made(earlier).set(late_note=late_note(record))  # the first settlement wins (records.CallRecord)
            slot, answer = record.thread_slot, record.thread_answer
            if slot is not None and answer is not None:  # the settling commit fills the call's thread slot
                self._change_slot(slot, lambda state: slot_filled(state, slot, answer))
                record = record.set(thread_answer=None)
            kept[record.record_id] = bounded(record, self.max_value_bytes)
            kept.move_to_end(record.record_id)
        while len(kept) > self.max_records:
            kept.popitem(last=False)
        for event in events:
            log = self._events.get(event.agent_id)
            if log is None or log.maxlen != self.max_records:  # a ring of the newest events: O(1) once full
                log = self._events[event.agent_id] = deque(log or (), maxlen=self.max_records)
            log.append(event)

    def add_running_source(self, source: RunningSource) -> None:
        """``source`` (a registry's journal) holds running calls this store shows without their being written.

        Kept weakly: a gone registry's calls are gone with it. This is the
        journal's fast path: an in-memory journal never writes (and then
        replaces) a record for every call that is merely running.
        """
        self._running_sources.add(source)

    def _running(self) -> list[CallRecord]:
        """The running calls' records, made now by their sources (they are never written here)."""
        return [bounded(record, self.max_value_bytes) for source in list(self._running_sources) for record in source.running_records()]

    async def changes(self, cursor: ChangeCursor | None = None) -> StoreChanges:
        """The records written since ``cursor`` (the ring's tail: it is in write order) and the running calls that moved."""
        running = self._running()
        seen = cursor.marks if cursor is not None else pmap()
        moved, kept = diff_marks(seen, ((r.record_id, record_mark(r), True) for r in running), first=cursor is None)
        fresh = 0 if cursor is None else min(self._written - cursor.last, MAX_CHANGED, len(self._records))
        written = [self._made(entry) for entry in list(islice(reversed(self._records.values()), fresh))[::-1]]
        by_id = {record.record_id: record for record in running}
        records = (*written, *(by_id[record_id] for record_id in moved))
        parked = tuple(p.approval_id for p in self._parked.values() if p.state == "parked")
        return StoreChanges(ChangeCursor(self._written, pmap(kept)), records, parked)

    async def _journal(self, query: JournalQuery) -> list[CallRecord]:
        found: list[CallRecord] = []
        running = self._running()
        for kept in chain(reversed(running), reversed(list(self._records.values()))):
            if len(found) >= query.limit:
                break
            record = self._made(kept)
            if query.matches(record):
                found.append(record)
        found.reverse()
        return found

    async def session_events(self, agent_id: str) -> list[SessionEvent]:
        return list(self._events.get(agent_id, ()))

    async def prune(self, *, before: float) -> int:
        before = checked_before(before)
        gone = [k for k, r in self._records.items() if r.ended_at is not None and r.ended_at < before]
        for key in gone:
            del self._records[key]
        done = [k for k, p in self._parked.items() if p.state in ("done", "held", "expired") and p.created_at < before]
        for key in done:
            del self._parked[key]
        spilled = [locator for locator, (_, _, _, at) in self._spilled.items() if at < before]
        for locator in spilled:
            self._spilled_bytes -= self._spilled.pop(locator)[2]
        events = len(self._approval_log)
        self._approval_log = [event for event in self._approval_log if event.at >= before]
        threads = self._prune_threads(before)
        return len(gone) + len(done) + events - len(self._approval_log) + threads + len(spilled)

    # -- spilled results (store/spilled.py) ------------------------------------------------
    async def keep_spilled(self, locator: str, agent_id: str, text: str) -> None:
        """Keep ``text``; past ``max_spilled_bytes`` the oldest values are dropped (their locators read as expired).

        A text larger than the whole bound is refused (``ValueError``), so no
        preview names a locator whose text is already gone.
        """
        check_locator(locator)
        size = len(text.encode("utf-8"))
        if size > self.max_spilled_bytes:
            bound = self.max_spilled_bytes
            raise ValueError(f"a {size:,}-byte text is past this MemoryStore's max_spilled_bytes ({bound:,})")
        self._spilled[locator] = (agent_id, text, size, time.time())
        self._spilled_bytes += size
        while self._spilled_bytes > self.max_spilled_bytes and self._spilled:
            self._spilled_bytes -= self._spilled.popitem(last=False)[1][2]

    async def read_spilled(self, locator: str, agent_id: str, offset: int, limit: int) -> SpilledPage | None:
        offset, limit = check_page(offset, limit)
        kept = self._spilled.get(locator) if valid_locator(locator) else None
        if kept is None or kept[0] != agent_id:
            return None
        return page_of(kept[1], offset, limit)


def _decided_at(parked: ParkedCall) -> float:
    return parked.decision.decided_at if parked.decision is not None else 0.0
