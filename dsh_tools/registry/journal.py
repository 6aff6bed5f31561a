"""The call journal: every call recorded when it opens and when it settles, committed before it is handed back.

:class:`CallJournal` is a :class:`~dsh_tools.context.probes.CallProbe`: the
stages already tell probes when a call opens and settles, so the journal
costs the pipeline no stage of its own. A settled call's record is committed
before ``execute()`` returns (``settled`` hands back the commit for
``notify_result`` to await), and commits are grouped: while one write is in
flight, every record that arrives waits for the next, so a batch of a
thousand calls costs a handful of transactions, not a thousand.

A write that fails never fails the call: the store counts it
(``store.health()``), the failure is logged, and the result goes back.

Fast path: a :class:`~dsh_tools.store.MemoryStore` is written synchronously,
with no commit to await. Its running calls are never written at all (the
store asks the journal for them when it is read:
:meth:`CallJournal.running_records`), and a settled call is kept as its
facts (:class:`SettledCall`), its record made only when somebody reads the
journal (``MemoryStore.write_settled``): most records of a ring are never
read, and making one (with its previews) was a quarter of a plain call's
cost. Tests prove the store hands out what the plain ``write`` keeps.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Final

from dsh_tools.context.events import ProbeHook
from dsh_tools.decisions import PostToolDecision, PreToolDecision
from dsh_tools.execution import ToolExecution, ToolExecutionResult, ToolProgress
from dsh_tools.json_values import FrozenJson, JsonValue, freeze_json
from dsh_tools.context.probes import CallSlots
from dsh_tools.registry.approvals import DEFAULT_LEASE_SECONDS, OWNER, fingerprint
from dsh_tools.registry.leases import Leases
from dsh_tools.store.base import preview
from dsh_tools.store.memory import MemoryStore
from dsh_tools.tool_types import RegisteredTool
from dsh_tools.call_store import CallStore
from dsh_tools.approval import ApprovalDecision
from dsh_tools.call_records import ApprovalRule, CallRecord, SessionEvent, ThreadSlot
from dsh_tools.store.thread_state import answer_of

__all__ = ["CallJournal"]


RUNNING_FLUSH_S: Final = 0.05
"""How long a call may run before its ``"running"`` record is committed on its own (faster calls commit once)."""


class _Open:
    """A call between ``opened`` and ``settled``: its journal row and what links it (kept on the call's state)."""

    __slots__ = ("execution", "record_id", "started_at", "owner", "progress", "lease_until", "fingerprint", "call")

    def __init__(self, execution: ToolExecution, record_id: str, started_at: float, call: CallSlots, owner: str) -> None:
        self.execution, self.record_id, self.started_at, self.owner = execution, record_id, started_at, owner
        # Its state: the links (parent, approval), the tool, the thread slot and the decision or rule that
        # approved it, read when a record is made (they do not change once the call is open).
        self.call = call
        self.progress: dict[str, JsonValue] | None = None  # the latest report, kept with the record
        self.lease_until: float | None = None  # while the body may run: leased (registry/leases.py)
        self.fingerprint: str | None = None  # the tool's, on a leased record (a recovery checks it)


class CallJournal:
    """The registry's journal probe and group-commit writer for one store."""

    def __init__(self, store: CallStore, *, lease_seconds: float = DEFAULT_LEASE_SECONDS) -> None:
        self.store = store
        self.owner = OWNER
        """This process's name on the records it writes (the first settlement of a record wins: ``late_note``)."""
        self._leases = Leases.of(store, OWNER, lease_seconds)
        self._memory = store if type(store) is MemoryStore else None  # the fast path (module docstring)
        if self._memory is not None:
            self._memory.add_running_source(self)
        # A store that can commit on this thread at once when nobody else writes (SqliteStore): a lone call's
        # record is then committed right where it settles, with no task to wait for.
        self._write_now_if_free: Callable[[Sequence[CallRecord], Sequence[SessionEvent]], bool] | None = getattr(
            store, "write_now_if_free", None
        )
        # The calls open right now, for a reader of running calls (a MemoryStore's journal()): a set of
        # entries, not a table to find a call by; each call finds its own entry on its state.
        self._open: set[_Open] = set()
        # Record ids: a random prefix per journal and a counter; unique across processes and replicas
        # without a system call per call.
        self._id_prefix = secrets.token_hex(8)
        self._id_counter = itertools.count(1)
        # Queued for the next commit: settled records, and calls still running (made into records only
        # if they are still running when the commit comes; a fast call's running row is never written).
        self._records: dict[str, CallRecord | _Open] = {}
        self._running_flush: asyncio.TimerHandle | None = None
        self._events: list[SessionEvent] = []
        self._waiters: list[asyncio.Future[None]] = []
        self._writer: asyncio.Task[None] | None = None

    # -- what the registry tells it ------------------------------------------------
    def record_event(self, agent_id: str, kind: str, data: FrozenJson) -> None:
        """A session event, committed with the next journal write."""
        event = SessionEvent(agent_id, kind, data, time.time())
        if self._memory is not None:
            self._write_now((), (event,))
        else:
            self._events.append(event)

    # -- CallProbe -----------------------------------------------------------------
    hears: Final[frozenset[ProbeHook]] = frozenset({"opened", "starting", "progressed", "settled"})
    """A call's opening, its body's start, progress and settling: what its record holds."""

    def opened(self, call: CallSlots, execution: ToolExecution) -> None:
        entry = call.journal = _Open(execution, call.record_id or self._next_record_id(), time.time(), call, self.owner)
        self._open.add(entry)
        self._running(entry)

    def starting(self, call: CallSlots, execution: ToolExecution) -> Awaitable[None] | None:
        """Before the body: an approved or non-idempotent call's running record, leased, committed now (durable stores).

        See :mod:`.leases`; any other call keeps the short window of the group commit.
        """
        entry = call.journal
        if self._leases is None or type(entry) is not _Open or entry.lease_until is not None:
            return None
        if not call.approved and call.idempotent:
            return None
        self._records[entry.record_id] = entry  # made into its leased running record by the commit
        return self._commit()

    def running_records(self) -> list[CallRecord]:
        """The ``"running"`` record of every open call, made now (a ``MemoryStore`` reads them here)."""
        return [running_record(entry) for entry in list(self._open)]

    def _running(self, entry: _Open) -> None:
        """Queue the call as running, with its latest progress (a ``MemoryStore`` reads it when asked)."""
        if self._memory is not None:
            return
        self._records[entry.record_id] = entry
        if self._running_flush is None:  # a call that outlives this delay is committed as running
            self._running_flush = asyncio.get_running_loop().call_later(RUNNING_FLUSH_S, self._flush_running)

    def pre_decided(self, call: CallSlots, execution: ToolExecution, decision: PreToolDecision) -> None:
        pass  # not in hears: never called

    def dispatching(self, call: CallSlots, execution: ToolExecution) -> object:
        return None  # not in hears: never called

    def dispatched(self, call: CallSlots, token: object) -> None:
        pass  # not in hears: never called

    def post_decided(self, call: CallSlots, execution: ToolExecution, decision: PostToolDecision) -> None:
        pass  # not in hears: never called

    def progressed(self, call: CallSlots, execution: ToolExecution, progress: ToolProgress) -> None:
        """The call's latest progress goes on its running record (and stays on its settled one)."""
        entry = call.journal
        if type(entry) is not _Open:
            return
        entry.progress = {"progress": progress.progress, "total": progress.total, "message": progress.message}
        self._running(entry)

    def retrying(self, call: CallSlots, execution: ToolExecution, attempt: int, result: ToolExecutionResult) -> None:
        pass  # not in hears: never called

    def settled(self, call: CallSlots, execution: ToolExecution, result: ToolExecutionResult) -> Awaitable[None] | None:
        """Queue the settled record; the commit the caller awaits before handing the result back."""
        entry = call.journal
        if type(entry) is _Open:
            call.journal = None
            self._open.discard(entry)
            if entry.lease_until is not None and self._leases is not None:
                self._leases.release()
                entry.lease_until = None
        else:  # settled at admission or by a verdict: it never opened
            entry = _Open(execution, call.record_id or self._next_record_id(), time.time(), call, self.owner)
        settled = SettledCall(entry, result, time.time())
        memory = self._memory
        if memory is not None:
            if settled.thread_slot is None:
                memory.write_settled(settled)  # fast path: its record is made when the store is read
            else:  # its commit fills the call's thread slot
                self._write_now((settled.record(),), ())
            return None
        self._records[settled.record_id] = settled.record()
        if self._committed_here():
            return None
        return self._commit()

    # -- records ---------------------------------------------------------------------
    def _next_record_id(self) -> str:
        return f"{self._id_prefix}{next(self._id_counter):08x}"

    def _write_now(self, records: tuple[CallRecord, ...], events: tuple[SessionEvent, ...]) -> None:
        assert self._memory is not None
        try:
            self._memory.write_now(records, events)
        except Exception as error:  # noqa: BLE001 - a journal failure never fails a call
            self._memory.note_failure(error)

    # -- group commit ------------------------------------------------------------------
    def _committed_here(self) -> bool:
        """Commit everything queued on this thread, now, if the store can and no write is in flight."""
        if self._write_now_if_free is None or (self._writer is not None and not self._writer.done()):
            return False
        records, events = self._materialized(), list(self._events)
        try:
            if not self._write_now_if_free(records, events):
                return False  # another process holds the lock: the writer task waits for it
        except Exception as error:  # noqa: BLE001 - a journal failure never fails a call
            self.store.note_failure(error)
        self._records.clear()
        self._events.clear()
        return True

    def _materialized(self) -> list[CallRecord]:
        """The queued records, a call still running made into its ``"running"`` record (leased, on a durable store).

        Every running record a durable store holds carries a lease, so a call
        whose process stops is interrupted, never ``"running"`` for ever; only
        when it is written differs (:meth:`starting`).
        """
        leases = self._leases
        made: list[CallRecord] = []
        for queued in self._records.values():
            if isinstance(queued, CallRecord):
                made.append(queued)
                continue
            if leases is not None and queued.lease_until is None and queued in self._open:
                queued.lease_until = leases.take()
                tool = queued.call.tool
                queued.fingerprint = fingerprint(tool) if isinstance(tool, RegisteredTool) else None
            made.append(running_record(queued))
        return made

    def _flush_running(self) -> None:
        self._running_flush = None
        if self._records and (self._writer is None or self._writer.done()):
            self._writer = asyncio.get_running_loop().create_task(self._write_all())

    def _commit(self) -> Awaitable[None]:
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_all())
        return _settle_quietly(waiter)

    async def _write_all(self) -> None:
        """Write whatever is queued, again and again, until nothing is; every waiter is released."""
        while self._records or self._events or self._waiters:
            records, self._records = self._materialized(), {}
            events, self._events = self._events, []
            waiters, self._waiters = self._waiters, []
            try:
                await self.store.write(records, events)
            except Exception as error:  # noqa: BLE001 - a journal failure never fails a call
                self.store.note_failure(error)
            finally:
                for waiter in waiters:
                    if not waiter.done():
                        waiter.set_result(None)


async def _settle_quietly(waiter: asyncio.Future[None]) -> None:
    """Wait for a commit without cancelling it: the write belongs to every call in the batch."""
    await asyncio.shield(waiter)


def _approval_of(entry: _Open, result: ToolExecutionResult) -> str | None:
    linked = entry.call.approval_id
    if linked is not None or result.outcome != "approval-pending":
        return linked
    approval_id = result.meta_get("approvalId")
    return approval_id if type(approval_id) is str else None


def _slot(entry: _Open) -> ThreadSlot | None:
    slot = entry.call.thread_slot
    return slot if type(slot) is ThreadSlot else None


def _decided(rule: object, decision: ApprovalDecision | None) -> dict[str, str | None]:
    """Who decided the call's approval and what they said: its remembered rule's, or its recorded decision's."""
    if type(rule) is ApprovalRule:
        return {"approval_rule": rule.rule_id, "decided_by": rule.decided_by, "decision_message": rule.message}
    if decision is None:
        return {}
    return {"approval_rule": decision.rule_id, "decided_by": decision.decided_by, "decision_message": decision.message}


class SettledCall:
    """A settled call's facts, from which its record is made: now (a durable store), or when read (a ``MemoryStore``).

    The fast path of the in-memory journal: a call costs this handful of
    slots, and the record is made only if somebody reads the journal
    (``MemoryStore.write_settled``); the ring drops the rest unread. It keeps
    what the record needs and nothing that holds the call's agent, signal,
    state or whole result alive. :meth:`record` is the one rule for a settled
    record, on either path.
    """

    __slots__ = (
        "record_id", "owner", "ended_at", "thread_slot", "_call_id", "_name", "_arguments", "_content", "_value",
        "_meta", "_outcome", "_is_error", "_error", "_answer", "_agent_id", "_key", "_started_at", "_parent_call_id",
        "_approval_id", "_progress", "_fingerprint", "_decided",
    )

    def __init__(self, entry: _Open, result: ToolExecutionResult, ended_at: float) -> None:
        execution, call = entry.execution, entry.call
        agent, slot = execution.agent, _slot(entry)
        self.record_id, self.owner, self.ended_at, self.thread_slot = entry.record_id, entry.owner, ended_at, slot
        self._call_id, self._name = execution.call_id, execution.name
        # Frozen JSON, or (keep_within) its frozen preview.
        self._arguments: JsonValue = execution.arguments
        self._content: JsonValue = result.content
        self._value: JsonValue = result.value
        self._meta: JsonValue = result.meta
        self._outcome, self._is_error, self._error = result.outcome, result.is_error, result.error
        # A call waiting for approval fills nothing: its park marked the slot, and the model is told nothing yet.
        self._answer = answer_of(result) if slot is not None and result.outcome != "approval-pending" else None
        self._agent_id = agent.id if agent is not None else None
        self._key = execution.idempotency_key or None
        self._started_at, self._parent_call_id = entry.started_at, call.parent_call_id
        self._approval_id, self._progress, self._fingerprint = _approval_of(entry, result), entry.progress, entry.fingerprint
        self._decided = _decided(call.rule, call.decision)  # three strings, not the decision (its edited arguments)

    def keep_within(self, max_bytes: int) -> None:
        """Hold each payload as the store would keep it (its preview when its JSON is past ``max_bytes``), not whole.

        A ring of facts holding whole payloads would keep what the store
        promises to bound (``max_value_bytes``) until somebody read it.
        """
        self._arguments, self._content = _within(self._arguments, max_bytes), _within(self._content, max_bytes)
        self._value, self._meta = _within(self._value, max_bytes), _within(self._meta, max_bytes)

    def record(self) -> CallRecord:
        """The call's settled record (its payloads as held: a store bounds them as it keeps them)."""
        error = self._error
        # The JSON fields are frozen by construction (the execution's, the result's, or their previews):
        # carried, not walked again.
        return CallRecord._carrying(
            {"arguments": self._arguments, "content": self._content, "value": self._value, "meta": self._meta},
            self.record_id, self._call_id, self._agent_id, self._name, started_at=self._started_at,
            parent_call_id=self._parent_call_id, approval_id=self._approval_id, progress=self._progress,
            outcome=self._outcome, is_error=self._is_error,
            error=None if error is None else {"name": error.name, "code": error.code}, ended_at=self.ended_at,
            idempotency_key=self._key, owner=self.owner, fingerprint=self._fingerprint, thread_slot=self.thread_slot,
            thread_answer=self._answer, **self._decided,
        )


def _within(value: JsonValue, max_bytes: int) -> JsonValue:
    """``value`` (frozen), or its frozen preview when its JSON is past ``max_bytes``."""
    shown = preview(value, max_bytes)
    return value if shown is value else freeze_json(shown).unwrap()


def running_record(entry: _Open) -> CallRecord:
    """The ``"running"`` record of a call still open."""
    execution = entry.execution
    agent = execution.agent
    # The execution's JSON fields are frozen by construction: carried, not walked again.
    return CallRecord._carrying(
        {"arguments": execution.arguments}, entry.record_id, execution.call_id, agent.id if agent is not None else None,
        execution.name, started_at=entry.started_at, parent_call_id=entry.call.parent_call_id,
        approval_id=entry.call.approval_id, progress=entry.progress, outcome="running",
        idempotency_key=execution.idempotency_key or None, owner=entry.owner, lease_until=entry.lease_until,
        fingerprint=entry.fingerprint, thread_slot=_slot(entry),
    )
