"""Transactions that read before they write, written once for SQLite and PostgreSQL.

Some store operations decide what to write from what they read, inside one
transaction: filling a thread's slot (and, for its step's last call,
rendering and appending the step's answer), parking a call and marking its
thread waiting, settling expired calls. SQLite runs a transaction
synchronously on the store's thread; psycopg asynchronously. So such an
operation is written here once, as a generator: it *yields* each statement
(``?`` placeholders) and is *sent* its rowcount and rows. :func:`drive` runs
one on a ``sqlite3`` connection, :func:`drive_async` on a psycopg cursor;
each store wraps the drive in its own transaction (``BEGIN IMMEDIATE``, or
psycopg's ``transaction()`` with row locks: ``FOR UPDATE``, which SQLite's
dialect drops). An exception raised by the generator rolls everything back.

:data:`LOCK` is not SQL: PostgreSQL takes a transaction-scoped advisory lock
on its one parameter (the per-agent parking cap); SQLite's write lock
already serialises every writer.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Generator, Sequence
from typing import Any, Final, TypeAlias, TypeVar

import orjson
from returns.result import Failure

import dsh_tools.store.sql as sql
from dsh_tools.json_values import FrozenJson, dumps, freeze_json
from dsh_tools.store.expiry import expired_record
from dsh_tools.store.rows import JournalRow, record_row
from dsh_tools.approval import ApprovalDecision
from dsh_tools.call_records import ApprovalEvent, ApprovalEventKind, ApprovalRule, ParkedCall, ThreadSlot
from dsh_tools.store.thread_state import Change, SlotChange, ThreadState, slot_filled, slot_parked

__all__ = [
    "LOCK",
    "Txn",
    "decide",
    "drive",
    "drive_async",
    "expire_due",
    "finish",
    "journal_write",
    "park",
    "set_program",
    "thread_change",
    "thread_read",
]

T = TypeVar("T")
Statement: TypeAlias = tuple[str, Sequence[object]]
Answer: TypeAlias = tuple[int, list[tuple[Any, ...]]]
Txn: TypeAlias = Generator[Statement, Answer, T]
"""A transaction's logic: yields statements, is sent ``(rowcount, rows)`` for each, returns its result."""

LOCK: Final = "-- dsh: advisory lock"


def drive(txn: Txn[T], execute: Callable[[str, Sequence[object]], Answer]) -> T:
    """Run ``txn``'s statements with ``execute``, synchronously; its result."""
    try:
        statement = next(txn)
        while True:
            statement = txn.send(execute(*statement))
    except StopIteration as done:
        result: T = done.value
        return result


async def drive_async(txn: Txn[T], execute: Callable[[str, Sequence[object]], Awaitable[Answer]]) -> T:
    """:func:`drive` with an ``execute`` that is awaited (psycopg)."""
    try:
        statement = next(txn)
        while True:
            statement = txn.send(await execute(*statement))
    except StopIteration as done:
        result: T = done.value
        return result


# -- threads ---------------------------------------------------------------------------------

_READ_THREAD: Final = "SELECT version, body FROM dsh_threads WHERE thread_id = ?"


def thread_read(thread_id: str) -> Txn[tuple[ThreadState, tuple[FrozenJson, ...]] | None]:
    """A thread and its messages, or ``None`` (the messages its state counts: a later append is not half-read)."""
    _, rows = yield (_READ_THREAD, (thread_id,))
    if not rows:
        return None
    state = sql.thread_from_row(thread_id, rows[0][0], rows[0][1])
    _, stored = yield (
        "SELECT body FROM dsh_thread_messages WHERE thread_id = ? AND seq <= ? ORDER BY seq", (thread_id, state.count)
    )
    return state, tuple(_message(body) for (body,) in stored)


def _message(body: str | bytes) -> FrozenJson:
    """A stored message (``StoreError`` for one that is not what was written: the thread cannot be read whole)."""
    frozen = freeze_json(orjson.loads(body))
    if type(frozen) is Failure:
        raise sql.StoreError(f"a stored thread message is not JSON: {frozen.failure()}")
    message: FrozenJson = frozen.unwrap()
    return message


def thread_create(thread_id: str) -> Txn[None]:
    """Create the thread empty unless it exists (two processes opening a new id get one thread)."""
    yield (
        "INSERT INTO dsh_threads (thread_id, version, status, updated_at, body) VALUES (?, 0, 'ready', ?, ?)"
        " ON CONFLICT (thread_id) DO NOTHING",
        (thread_id, time.time(), sql.dump_record(ThreadState.empty(thread_id), skip=sql.THREAD_COLUMNS)),
    )


def _locked(thread_id: str) -> Txn[ThreadState | None]:
    _, rows = yield (_READ_THREAD + " FOR UPDATE", (thread_id,))
    return sql.thread_from_row(thread_id, rows[0][0], rows[0][1]) if rows else None


def _save(before: ThreadState, change: Change) -> Txn[None]:
    state, messages = change
    yield (
        "UPDATE dsh_threads SET version = ?, status = ?, updated_at = ?, body = ? WHERE thread_id = ?",
        (state.version, state.status, time.time(), sql.dump_record(state, skip=sql.THREAD_COLUMNS), state.thread_id),
    )
    for seq, message in enumerate(messages, start=before.count + 1):
        yield (
            "INSERT INTO dsh_thread_messages (thread_id, seq, body) VALUES (?, ?, ?)",
            (state.thread_id, seq, dumps(message).decode()),
        )


def thread_change(thread_id: str, apply: Callable[[ThreadState], Change]) -> Txn[Change]:
    """Lock the thread, ask ``apply`` for its next state and messages, write them (``KeyError``: no such thread).

    ``apply`` raises to refuse (a stale version, a thread not ready): nothing is written.
    """
    state = yield from _locked(thread_id)
    if state is None:
        raise KeyError(f"no thread {thread_id!r} in this store (open_thread creates one)")
    change = apply(state)
    yield from _save(state, change)
    return change


def slot_change(slot: ThreadSlot, change: SlotChange) -> Txn[None]:
    """Lock ``slot``'s thread and write what ``change`` (its park or its settlement) makes of it; nothing if the slot is not open."""
    state = yield from _locked(slot.thread_id)
    changed = None if state is None else change(state)
    if state is not None and changed is not None:
        yield from _save(state, changed)


# -- the journal -------------------------------------------------------------------------------


def journal_write(rows: Sequence[JournalRow]) -> Txn[None]:
    """Journal rows, then the thread slots their calls fill: one commit (the settling commit fills the slot)."""
    for row in rows:
        yield (row.statement, row.params)
    for row in rows:
        if row.fill is not None:
            slot, answer = row.fill
            yield from slot_change(slot, lambda state: slot_filled(state, slot, answer))


# -- parked calls ------------------------------------------------------------------------------


def event(kind: ApprovalEventKind, parked: ParkedCall, **details: str | None) -> Statement:
    """The statement logging one step of a parked call's life (``approvals watch`` reads them; its ``seq`` is the row's)."""
    logged = ApprovalEvent.of(0, kind, parked, time.time(), **details)
    return ("INSERT INTO dsh_approval_events (approval_id, at, body) VALUES (?, ?, ?)", (
        logged.approval_id, logged.at, sql.dump_record(logged, skip=sql.EVENT_COLUMNS),
    ))


def park(call: ParkedCall, max_per_agent: int) -> Txn[bool]:
    """Park ``call`` under its agent's cap, log it, and mark its thread slot waiting; ``False`` past the cap."""
    yield (LOCK, (sql.column(call.agent_id),))
    changed, _ = yield (sql.PARK, sql.park_params(call, max_per_agent))
    if changed != 1:
        return False
    if call.state == "parked":
        yield event("parked", call)
    slot = call.thread_slot
    if slot is not None:
        yield from slot_change(slot, lambda state: slot_parked(state, slot, call.approval_id))
    return True


def set_program(approval_id: str, program: str) -> Txn[bool]:
    """Attach a parked program; its held sub-call is then parked (and logged) in the same commit."""
    _, rows = yield (sql.SET_PROGRAM + " RETURNING body", (program, approval_id))
    if not rows:
        return False
    parked = _parked(rows[0][0])
    if parked is not None:
        yield event("parked", parked)
    return True


def decide(decision: ApprovalDecision) -> Txn[str | None]:
    """Record ``decision`` on a waiting, unexpired call (and its rule); the call's agent id, or ``None`` if none matched."""
    params = (sql.dump_record(decision), decision.decided_at, decision.approval_id, time.time())
    _, rows = yield (sql.DECIDE, params)
    if not rows:
        return None
    agent_id, body = rows[0]
    parked = sql.load_record(ParkedCall, body)
    rule = ApprovalRule.of(decision, parked)
    if rule is not None:
        yield from remember_rule(rule)
    yield event("decided", parked, outcome=decision.outcome, decided_by=decision.decided_by, message=decision.message)
    return str(agent_id)


def remember_rule(rule: ApprovalRule) -> Txn[None]:
    """Store ``rule``, replacing the agent's earlier rule for the same tool (the newer decision stands)."""
    agent_id, tool_name = sql.column(rule.agent_id), sql.column(rule.tool_name)
    yield ("DELETE FROM dsh_rules WHERE agent_id = ? AND tool_name = ?", (agent_id, tool_name))
    yield (
        "INSERT INTO dsh_rules (rule_id, agent_id, tool_name, created_at, body) VALUES (?, ?, ?, ?, ?)",
        (rule.rule_id, agent_id, tool_name, rule.created_at, sql.dump_record(rule)),
    )


def finish(approval_id: str, owner: str, outcome: str | None) -> Txn[None]:
    """The claimed call settled (``outcome``): it is done, and logged as settled."""
    _, rows = yield ("UPDATE dsh_parked SET state = 'done' WHERE approval_id = ? AND claimed_by = ? RETURNING body", (
        approval_id, owner,
    ))
    parked = _parked(rows[0][0]) if rows else None
    if parked is not None and outcome is not None:
        yield event("settled", parked, outcome=outcome)


FIRST_EXPIRY: Final = "SELECT min(expires_at) FROM dsh_parked WHERE state = 'parked'"
"""When the first waiting call expires (a cheap, indexed read before the write that settles those past it)."""


def expire_due(max_bytes: int, only: str | None = None) -> Txn[int]:
    """Settle every waiting call past its time as expired (journal record, thread slot, log), atomically; how many.

    ``only``: one approval id (a decision that lost to the expiry settles it at once).
    """
    now = time.time()
    where = "state = 'parked' AND expires_at IS NOT NULL AND expires_at < ?"
    params: tuple[object, ...] = (now,)
    if only is not None:
        where, params = f"{where} AND approval_id = ?", (now, only)
    _, rows = yield (f"UPDATE dsh_parked SET state = 'expired' WHERE {where} RETURNING {sql.PARKED_COLUMNS}", params)
    settled: list[JournalRow] = []
    for row in rows:
        try:
            parked = sql.parked_from_row(row)
        except sql.UNREADABLE:
            continue  # a damaged row expires with no record of its own (nothing could be said about it)
        settled.append(record_row(expired_record(parked, now), max_bytes))
        yield event("settled", parked, outcome="approval-expired")
    yield from journal_write(settled)  # the records, and the thread slots they fill, as any settlement's
    return len(rows)


def _parked(body: str | bytes) -> ParkedCall | None:
    try:
        return sql.load_record(ParkedCall, body)
    except sql.UNREADABLE:
        return None
